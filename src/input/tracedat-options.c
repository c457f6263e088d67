/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace.dat reader: the options (trace clock, instances' BUFFERs, DATE,
 * OFFSET, TSC2NSEC, TIME_SHIFT, TRACEID, GUEST, CPUCOUNT, and v7's section
 * pointers), in v6's single block or v7's chain of options sections.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "input/tracedat-internal.h"
#include "vmalyze/diag.h"
#include "vmalyze/status.h"

/* ---- options ------------------------------------------------------------- */

/* The name between [] in a trace_clock text ("local [x86-tsc] ..."). */
char *td_selected_clock(const char *text, size_t len)
{
	const char *open = memchr(text, '[', len), *close;

	if (!open)
		return NULL;
	close = memchr(open, ']', len - (size_t)(open - text));
	if (!close || close == open + 1)
		return NULL;
	return strndup(open + 1, (size_t)(close - open - 1));
}

static int opt_buffer(struct dat *d, struct cur *c, bool text_only)
{
	struct dat_buffer b, *inst;
	uint32_t i;

	memset(&b, 0, sizeof(b));
	c->what = "BUFFER option";
	if (td_cur_u64(c, &b.offset) < 0 || !(b.name = td_cur_str(c, 256)))
		goto fail;
	if (d->version >= 7) {
		if (!(b.clock = td_cur_str(c, 256)))
			goto fail;
		if (text_only) {
			vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, td_cur_at(c),
					"Instance \"%s\" holds a latency (text) trace,"
					" which vmalyze does not read: skipped", b.name);
			free(b.name);
			free(b.clock);
			return 0;
		}
		if (td_cur_u32(c, &b.page_size) < 0 || td_cur_u32(c, &b.nr_cpus) < 0)
			goto fail;
		if (b.nr_cpus > MAX_CPUS) {
			td_fatal(d, td_cur_at(c), "Implausible cpu count %" PRIu32 " in BUFFER option"
				 " \"%s\" (at most %d)", b.nr_cpus, b.name, MAX_CPUS);
			goto fail;
		}
		b.cpus = calloc(b.nr_cpus ? b.nr_cpus : 1, sizeof(*b.cpus));
		if (!b.cpus) {
			td_oom(d);
			goto fail;
		}
		for (i = 0; i < b.nr_cpus; i++) {
			uint64_t at = td_cur_at(c);

			if (td_cur_u32(c, &b.cpus[i].cpu) < 0 ||
			    td_cur_u64(c, &b.cpus[i].offset) < 0 ||
			    td_cur_u64(c, &b.cpus[i].size) < 0) {
				goto fail;
			}
			/* Linux numbers its cpus below NR_CPUS, at most MAX_CPUS. */
			if (b.cpus[i].cpu >= MAX_CPUS) {
				td_fatal(d, at, "Implausible cpu number %" PRIu32 " in BUFFER option"
					 " \"%s\" (cpus are numbered below %d)", b.cpus[i].cpu,
					 b.name, MAX_CPUS);
				goto fail;
			}
		}
	}
	if (d->in_instance) {
		free(b.name);
		free(b.clock);
		free(b.cpus);
		return 0;
	}
	if (b.name[0] == '\0') {
		free(d->top.name);
		free(d->top.clock);
		free(d->top.cpus);
		d->top = b;
		return 0;
	}
	if (d->nr_inst >= MAX_INSTANCES) {
		td_fatal(d, td_cur_at(c), "More than %d instances", MAX_INSTANCES);
		goto fail;
	}
	inst = realloc(d->inst, (d->nr_inst + 1) * sizeof(*inst));
	if (!inst) {
		td_oom(d);
		goto fail;
	}
	d->inst = inst;
	d->inst[d->nr_inst++] = b;
	return 0;
fail:
	free(b.name);
	free(b.clock);
	free(b.cpus);
	return -1;
}

static int opt_time_shift(struct dat *d, struct cur *c)
{
	struct vma_kvm_priv *p = d->priv;
	uint32_t ncpu, i, k, j;

	c->what = "TIME_SHIFT option";
	if (td_cur_u64(c, &p->info.peer_trace_id) < 0 || td_cur_u32(c, &p->info.tsync_flags) < 0 ||
	    td_cur_u32(c, &ncpu) < 0) {
		return -1;
	}
	if (ncpu > MAX_CPUS || p->tsync)
		return td_fatal(d, td_cur_at(c), "%s TIME_SHIFT option (%" PRIu32 " cpus)",
				p->tsync ? "Repeated" : "Implausible", ncpu);
	p->tsync = calloc(ncpu ? ncpu : 1, sizeof(*p->tsync));
	p->tsync_count = calloc(ncpu ? ncpu : 1, sizeof(*p->tsync_count));
	if (!p->tsync || !p->tsync_count)
		return td_oom(d);
	p->info.tsync_nr_cpus = ncpu;
	for (i = 0; i < ncpu; i++) {
		uint32_t n;

		if (td_cur_u32(c, &n) < 0)
			return -1;
		if ((uint64_t)n * 24 > c->end - c->pos)
			return td_cur_short(c, (uint64_t)n * 24);
		p->tsync[i] = calloc(n ? n : 1, sizeof(**p->tsync));
		if (!p->tsync[i])
			return td_oom(d);
		p->tsync_count[i] = n;
		for (k = 0; k < n; k++)
			td_cur_u64(c, &p->tsync[i][k].time);
		for (k = 0; k < n; k++) {
			uint64_t v = 0;

			td_cur_u64(c, &v);
			p->tsync[i][k].offset = (int64_t)v;
		}
		for (k = 0; k < n; k++)
			td_cur_u64(c, &p->tsync[i][k].scaling);
	}
	/* fraction bits came later: absent in older files, where none applies */
	for (i = 0; i < ncpu && c->pos < c->end; i++) {
		for (k = 0; k < p->tsync_count[i]; k++) {
			if (td_cur_u64(c, &p->tsync[i][k].fraction) < 0)
				return -1;
		}
	}
	/* sorted by time, one sample per time, as trace-cmd uses them */
	for (i = 0; i < ncpu; i++) {
		struct vma_kvm_tsync_sample *s = p->tsync[i];
		uint32_t n = p->tsync_count[i];

		for (k = 1; k < n; k++) {
			struct vma_kvm_tsync_sample t = s[k];

			for (j = k; j > 0 && s[j - 1].time > t.time; j--)
				s[j] = s[j - 1];
			s[j] = t;
		}
		for (k = 0, j = 0; k < n; k++) {
			if (k == 0 || s[k].time != s[j - 1].time)
				s[j++] = s[k];
		}
		p->tsync_count[i] = j;
	}
	p->info.tsync_count = p->tsync_count;
	p->info.tsync = p->tsync;
	p->tsync_on = ncpu > 0;
	return 0;
}

static int opt_guest(struct dat *d, struct cur *c)
{
	struct vma_kvm_priv *p = d->priv;
	struct vma_kvm_guest g, *guests;
	uint32_t i;

	memset(&g, 0, sizeof(g));
	c->what = "GUEST option";
	if (!(g.name = td_cur_str(c, 256)) || td_cur_u64(c, &g.trace_id) < 0 ||
	    td_cur_u32(c, &g.nr_vcpus) < 0) {
		goto fail;
	}
	if (g.nr_vcpus > MAX_CPUS) {
		td_fatal(d, td_cur_at(c), "Implausible vcpu count %" PRIu32 " for guest %s (at most"
			 " %d)", g.nr_vcpus, g.name, MAX_CPUS);
		goto fail;
	}
	g.vcpu_pid = calloc(g.nr_vcpus ? g.nr_vcpus : 1, sizeof(*g.vcpu_pid));
	if (!g.vcpu_pid) {
		td_oom(d);
		goto fail;
	}
	for (i = 0; i < g.nr_vcpus; i++) {
		uint32_t vcpu, pid;

		if (td_cur_u32(c, &vcpu) < 0 || td_cur_u32(c, &pid) < 0)
			goto fail;
		if (vcpu < g.nr_vcpus)
			g.vcpu_pid[vcpu] = pid;
	}
	guests = realloc(p->guests, (p->info.nr_guests + 1) * sizeof(*guests));
	if (!guests) {
		td_oom(d);
		goto fail;
	}
	p->guests = guests;
	p->guests[p->info.nr_guests++] = g;
	p->info.guests = p->guests;
	return 0;
fail:
	free(g.name);
	free(g.vcpu_pid);
	return -1;
}

static int64_t parse_offset_text(const unsigned char *data, uint32_t size)
{
	char buf[64];
	size_t n = size < sizeof(buf) - 1 ? size : sizeof(buf) - 1;

	memcpy(buf, data, n);
	buf[n] = '\0';
	return strtoll(buf, NULL, 0);
}

/* One option; @data/@size are its bytes (already read).  Return: 0 or -1. */
static int handle_option(struct dat *d, uint32_t id, const unsigned char *data, uint32_t size,
			 uint64_t at, uint64_t *next_options)
{
	struct vma_kvm_priv *p = d->priv;
	struct cur c;

	td_cur_mem(&c, d, data, size, at, "option");
	switch (id) {
	case OPT_DONE:
		if (d->version >= 7 && size >= 8)
			*next_options = vma_get64(data, d->big);
		return 0;
	case OPT_DATE:
		/* microseconds from the trace clock to the time of day, in hex */
		p->info.ts_offset = (int64_t)((uint64_t)p->info.ts_offset +
					      (uint64_t)parse_offset_text(data, size) * 1000);
		return 0;
	case OPT_OFFSET:
		p->info.ts_offset = (int64_t)((uint64_t)p->info.ts_offset +
					      (uint64_t)parse_offset_text(data, size));
		return 0;
	case OPT_BUFFER:
	case OPT_BUFFER_TEXT:
		return opt_buffer(d, &c, id == OPT_BUFFER_TEXT);
	case OPT_TRACECLOCK:
		if (d->version < 7)
			d->trace_clock_follows = true;
		if (size && !d->trace_clock)
			d->trace_clock = td_selected_clock((const char *)data, size);
		return 0;
	case OPT_UNAME:
		if (!p->uname && size) {
			p->uname = strndup((const char *)data, size);
			p->info.uname = p->uname;
		}
		return 0;
	case OPT_CPUCOUNT:
		if (size >= 4) {
			d->cpus = vma_get32(data, d->big);
			p->info.cpu_count = d->cpus;
		}
		return 0;
	case OPT_TRACEID:
		if (size >= 8)
			p->info.trace_id = vma_get64(data, d->big);
		return 0;
	case OPT_TIME_SHIFT:
		return size >= 16 ? opt_time_shift(d, &c) : 0;
	case OPT_GUEST:
		return opt_guest(d, &c);
	case OPT_TSC2NSEC:
		if (size >= 16) {
			p->info.tsc2nsec_mult = vma_get32(data, d->big);
			p->info.tsc2nsec_shift = vma_get32(data + 4, d->big);
			p->info.tsc2nsec_offset = vma_get64(data + 8, d->big);
		}
		return 0;
	default:
		if (id >= OPT_HEADER_INFO && id < OPT_MAX_SECTION && size >= 8)
			d->section[id] = vma_get64(data, d->big);
		return 0;
	}
}

/*
 * A list of options up to DONE (v7) or id 0 (v6).  Return: 0 or -1; for v7
 * *next_options is the offset of the next options section, or 0.
 */
int td_read_options(struct dat *d, struct cur *c, uint64_t *next_options)
{
	*next_options = 0;
	for (;;) {
		uint32_t id, size;
		unsigned char *data;
		uint64_t at;
		int ret;

		c->what = "options";
		if (d->version >= 7 && c->mem && c->pos == c->end) {
			return 0; /* a section may end without DONE */
		}
		if (td_cur_u16(c, &id) < 0)
			return -1;
		if (d->version < 7 && id == OPT_DONE)
			return 0;
		if (td_cur_u32(c, &size) < 0)
			return -1;
		at = c->mem ? c->base : c->pos;
		data = (unsigned char *)td_cur_text(c, size);
		if (!data)
			return -1;
		ret = handle_option(d, id, data, size, at, next_options);
		free(data);
		if (ret < 0)
			return -1;
		if (id == OPT_DONE)
			return 0;
	}
}
