/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reader of trace-cmd's trace.dat, versions 6 and 7 (trace-cmd.dat.v6(5),
 * trace-cmd.dat.v7(5)).  Written from the documented format, without
 * libtracecmd: Debian's libtracecmd cannot open zlib-compressed files.
 *
 * v6 is one sequential header (ring-buffer headers, event formats,
 * kallsyms, printk formats, saved cmdlines, cpu count, options) followed by
 * "flyrecord" and the offset and size of each cpu's pages.  v7 names a
 * chain of options sections; the options point at the other sections, any
 * of which may be compressed whole, and BUFFER options describe each
 * instance's pages, which are stored in compressed chunks when the file is.
 *
 * Read are the headers, event formats, kallsyms, printk formats and saved
 * cmdlines (the dump prints events as trace-cmd report does; v7's kallsyms
 * and printk sections only when the dump first needs them), and the
 * options that shape time stamps (trace clock, TSC2NSEC, DATE, OFFSET,
 * TIME_SHIFT) or tie host and guest files together (TRACEID, GUEST).  The
 * cpu data stay on disk until streams read them.
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

#include "input/tep-lib.h"
#include "input/tracedat-internal.h"
#include "vmalyze/diag.h"
#include "vmalyze/status.h"

/* ---- open ---------------------------------------------------------------- */

static bool tracedat_probe(const unsigned char *head, size_t len)
{
	return len >= 10 && head[0] == 0x17 && head[1] == 0x08 && head[2] == 0x44 &&
		!memcmp(head + 3, "tracing", 7);
}

bool vma_kvm_is_tracedat(const char *path)
{
	unsigned char head[10];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
	      tracedat_probe(head, sizeof(head));
	close(fd);
	return yes;
}

/* Clock of the records, as trace-cmd report decides whether stamps are ns. */
static void set_clock(struct dat *d)
{
	struct vma_kvm_priv *p = d->priv;
	static const char *const ns_clocks[] = {
		"local", "global", "uptime", "perf", "mono", "mono_raw", "boot", "tai",
	};
	const char *name = d->top.clock ? d->top.clock : d->trace_clock;
	size_t i;

	p->clock_name = strdup(name ? name : "local");
	p->info.clock = p->clock_name ? p->clock_name : "local";
	d->in->clock = VMA_CLOCK_CYCLES;
	if (p->info.tsc2nsec_mult) {
		d->in->clock = VMA_CLOCK_NS;
		return;
	}
	for (i = 0; i < sizeof(ns_clocks) / sizeof(ns_clocks[0]); i++) {
		if (!strcmp(p->info.clock, ns_clocks[i])) {
			d->in->clock = VMA_CLOCK_NS;
			return;
		}
	}
	if (!strcmp(p->info.clock, "tsc2nsec")) {
		vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, UINT64_MAX,
				"Trace clock tsc2nsec but no TSC2NSEC option: time stamps stay in"
				" TSC cycles, turned into seconds at --cpu-hz");
	}
}

/*
 * --guest-tsc: the stamps stay TSC cycles, to be put on a Xen host's TSC;
 * only a TSC clock has them (trace-cmd record -C x86-tsc, or tsc2nsec).
 */
static int keep_cycles(struct dat *d)
{
	const char *clock = d->priv->info.clock;

	if (strcmp(clock, "x86-tsc") && strcmp(clock, "tsc2nsec") && !d->priv->info.tsc2nsec_mult) {
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, UINT64_MAX,
				"--guest-tsc: trace clock %s is not a TSC clock (record the guest"
				" with trace-cmd record -C x86-tsc)", clock);
		return VMA_ERR_USAGE;
	}
	d->in->clock = VMA_CLOCK_CYCLES;
	return VMA_OK;
}

/* Where a message about the data of @b's cpu @i points, and what gives them. */
static uint64_t cpu_given_at(const struct dat *d, const struct dat_buffer *b, uint32_t i)
{
	return d->version == 6 ? b->cpus[i].at : b->offset;
}

static const char *cpu_given_by(const struct dat *d)
{
	return d->version == 6 ? "The flyrecord header" : "The BUFFER option";
}

struct extent {
	uint64_t start, end;
	struct dat_buffer *b;
	uint32_t i;
	size_t order;             /* in the file's order of instances and cpus */
};

static int by_start(const void *a, const void *b)
{
	const struct extent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * The trace data of two cpus never share bytes: a damaged offset that points
 * into another cpu's data would have its events read twice, silently.  An
 * overlap is damage, said of the later cpu by offset; tolerated (level 5),
 * both are read.  Return: VMA_OK, or VMA_ERR_DAMAGED / VMA_ERR_NOMEM.
 */
static int check_overlaps(struct dat *d)
{
	struct extent *x;
	size_t n = 0, cap = 0, i;
	uint64_t end = 0;
	uint32_t k, c;
	int ret = VMA_OK;

	for (k = 0; k <= d->nr_inst; k++)
		cap += k ? d->inst[k - 1].nr_cpus : d->top.nr_cpus;
	x = malloc((cap ? cap : 1) * sizeof(*x));
	if (!x)
		return VMA_ERR_NOMEM;
	for (k = 0; k <= d->nr_inst; k++) {
		struct dat_buffer *b = k ? &d->inst[k - 1] : &d->top;

		for (c = 0; c < b->nr_cpus && b->cpus; c++) {
			const struct dat_cpu *dc = &b->cpus[c];

			/* empty, or past 2^64 (reported by add_streams) */
			if (dc->size == 0 || dc->size > UINT64_MAX - 8 - dc->offset)
				continue;
			x[n] = (struct extent){ dc->offset, dc->offset + dc->size, b, c, n };
			n++;
		}
	}
	qsort(x, n, sizeof(*x), by_start);
	for (i = 0; i < n; i++) {
		const struct extent *e = &x[i];
		const struct extent *o = i ? &x[i - 1] : NULL;

		if (i == 0 || e->start >= end) {
			end = e->end;
			continue;
		}
		if (!vma_diag_report(d->in->diag, VMA_LVL_FILE, d->in->path,
				     cpu_given_at(d, e->b, e->i), "%s gives cpu %" PRIu32 " trace"
				     " data at bytes %" PRIu64 " to %" PRIu64 ", which overlap those"
				     " of cpu %" PRIu32 " (from byte %" PRIu64 "): damaged"
				     " (--tolerance 5 reads both, the shared events twice)",
				     cpu_given_by(d), e->b->cpus[e->i].cpu, e->start, e->end,
				     o->b->cpus[o->i].cpu, o->start)) {
			ret = VMA_ERR_DAMAGED;
			break;
		}
		if (e->end > end)
			end = e->end;
	}
	free(x);
	return ret;
}

/*
 * On a pipe, the copy is made to hold the trace data of @b's cpu @i (@r)
 * before its stream is made: streams read the copy once the pipe is
 * closed.  Data running past 2^64 are left to add_streams().
 */
static int spool_data(struct dat *d, const struct dat_buffer *b, uint32_t i,
		      const struct vma_kvm_region *r)
{
	uint64_t end = vma_kvm_region_end(r);
	char what[96];

	if (!d->in->spool || r->size > UINT64_MAX - 8 - r->offset)
		return VMA_OK;
	snprintf(what, sizeof(what), "trace data of cpu %" PRIu32 " (bytes %" PRIu64 " to %"
		 PRIu64 ")", b->cpus[i].cpu, r->offset, end);
	return vma_input_spool_to(d->in, end, cpu_given_at(d, b, i), what);
}

static int add_streams(struct dat *d, struct dat_buffer *b)
{
	uint32_t i;

	if (b->clock && d->top.clock && strcmp(b->clock, d->top.clock)) {
		vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, b->offset,
				"Instance \"%s\" uses trace clock %s, the top one %s; its times"
				" are read as if they were the same clock", b->name, b->clock,
				d->top.clock);
	}
	if (b->page_size && (b->page_size < d->priv->layout.data_offset + 8 ||
			     b->page_size > (1u << 24))) {
		if (!vma_diag_report(d->in->diag, VMA_LVL_FILE, d->in->path, b->offset,
				     "Instance \"%s\" gives an implausible page size of %" PRIu32
				     " bytes; its trace data are skipped", b->name, b->page_size)) {
			return VMA_ERR_DAMAGED;
		}
		return VMA_OK;
	}
	for (i = 0; i < b->nr_cpus; i++) {
		struct vma_kvm_region r;
		int ret;

		r.offset = b->cpus[i].offset;
		r.size = b->cpus[i].size;
		r.compressed = b->compressed;
		r.page_size = b->page_size;
		ret = spool_data(d, b, i, &r);
		if (ret < 0)
			return ret;
		/* an empty cpu has nothing to stream unless its data went missing */
		if (b->cpus[i].size == 0 && b->cpus[i].offset <= d->in->size)
			continue;
		/* A size running past 2^64 would wrap the end of the data to before it. */
		if (r.size > UINT64_MAX - 8 - r.offset) {
			if (!vma_diag_report(d->in->diag, VMA_LVL_FILE, d->in->path,
					     cpu_given_at(d, b, i), "%s gives cpu %" PRIu32 " trace"
					     " data of %" PRIu64 " bytes from byte %" PRIu64 ", past"
					     " any file size: damaged (--tolerance 5 reads it up to"
					     " the end of the file)", cpu_given_by(d),
					     b->cpus[i].cpu, r.size, r.offset)) {
				return VMA_ERR_DAMAGED;
			}
			ret = vma_input_spool_all(d->in);
			if (ret < 0)
				return ret;
			r.size = d->in->size > r.offset ? d->in->size - r.offset : 0;
		}
		ret = vma_kvm_stream_add(d->in, d->priv, b->cpus[i].cpu, &r);
		if (ret < 0)
			return ret;
	}
	return VMA_OK;
}

/*
 * The streams add_streams() will make, the cpus with data: each is read
 * as soon as it is made, so the page buffers are shared out by this
 * count, not the count so far (kvm-stream.c).
 */
static uint32_t streams_planned(const struct dat *d)
{
	uint32_t n = 0, k, c;

	for (k = 0; k <= d->nr_inst; k++) {
		const struct dat_buffer *b = k ? &d->inst[k - 1] : &d->top;

		for (c = 0; c < b->nr_cpus && b->cpus; c++)
			n += b->cpus[c].size != 0;
	}
	return n;
}

/* Bytes of every cpu's data, as the file gives them, at most the file's size. */
static uint64_t data_bytes(const struct dat *d)
{
	uint64_t n = 0;
	uint32_t k, c;

	for (k = 0; k <= d->nr_inst; k++) {
		const struct dat_buffer *b = k ? &d->inst[k - 1] : &d->top;

		for (c = 0; c < b->nr_cpus && b->cpus; c++)
			n += b->cpus[c].size < d->in->size - n ? b->cpus[c].size : d->in->size - n;
	}
	return n;
}

static int read_preamble(struct dat *d, struct cur *c, uint64_t *options_start)
{
	char magic[10], *ver, *zname = NULL, *zver = NULL;
	unsigned char b[6];
	enum vma_codec codec;

	c->what = "file header";
	if (td_cur_read(c, magic, 10) < 0 || !(ver = td_cur_str(c, 16)))
		return -1;
	d->version = (unsigned int)strtoul(ver, NULL, 10);
	free(ver);
	if (d->version != 6 && d->version != 7) {
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, 10,
				"trace.dat version %u: vmalyze reads versions 6 and 7", d->version);
		d->failed = true;
		return VMA_ERR_FORMAT;
	}
	if (td_cur_read(c, b, 6) < 0)
		return -1;
	/* the endianness byte decides how every number after it is read */
	d->big = b[0] != 0;
	d->long_size = b[1];
	d->page_size = vma_get32(b + 2, d->big);
	if ((d->long_size != 4 && d->long_size != 8) || d->page_size < 64 ||
	    d->page_size > (1u << 24)) {
		return td_fatal(d, c->pos - 6, "Implausible long size %" PRIu32 " or page size %" PRIu32,
				d->long_size, d->page_size);
	}
	if (d->version < 7)
		return 0;
	if (!(zname = td_cur_str(c, 64)) || !(zver = td_cur_str(c, 64)) ||
	    td_cur_u64(c, options_start) < 0) {
		free(zname);
		free(zver);
		return -1;
	}
	if (vma_codec_from_name(zname, &codec) < 0) {
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, c->pos,
				"trace.dat compressed with %s, which vmalyze does not know"
				" (it reads zlib and zstd)", zname);
		d->failed = true;
		free(zname);
		free(zver);
		return VMA_ERR_FORMAT;
	}
	free(zname);
	free(zver);
	d->priv->codec = codec;
	if (codec != VMA_CODEC_NONE) {
		const char *why = vma_decomp_load(codec);

		if (why) {
			vma_diag_report(d->in->diag, VMA_LVL_SYSTEM, d->in->path, c->pos,
					"Cannot load the %s library to read this compressed trace.dat: %s",
					codec == VMA_CODEC_ZSTD ? "zstd" : "zlib", why);
			d->failed = true;
			return VMA_ERR_IO;
		}
		d->dc = vma_decomp_new(codec);
		if (!d->dc)
			return VMA_ERR_NOMEM;
	}
	return 0;
}

static void dat_free(struct dat *d)
{
	uint32_t i;

	vma_decomp_free(d->dc);
	free(d->trace_clock);
	free(d->top.name);
	free(d->top.clock);
	free(d->top.cpus);
	for (i = 0; i < d->nr_inst; i++) {
		free(d->inst[i].name);
		free(d->inst[i].clock);
		free(d->inst[i].cpus);
	}
	free(d->inst);
}

/* The status of a header that could not be read, after its report. */
static int failure(const struct dat *d)
{
	if (d->nomem)
		return VMA_ERR_NOMEM;
	return d->spool_error ? d->spool_error : VMA_ERR_FORMAT;
}

static int open_dat(struct dat *d)
{
	const char *why;
	uint64_t options_start = 0;
	struct cur c;
	uint32_t i;
	int ret;

	td_cur_file(&c, d, 0, "file header");
	ret = read_preamble(d, &c, &options_start);
	/*
	 * A header that cannot be read leaves no record to read: status 2, as
	 * for a xentrace file with no complete window (doc/exit-status.md).
	 */
	if (ret < 0)
		return ret != -1 ? ret : failure(d);
	d->priv->info.version = d->version;
	/* before the formats are read: the texts a run keeps depend on it */
	d->priv->fields_only = d->in->options && d->in->options->fields_only;
	ret = vma_kvm_tep_new(d->priv, d->big, d->long_size, d->page_size, &why);
	if (ret == VMA_ERR_IO) {
		vma_diag_report(d->in->diag, VMA_LVL_SYSTEM, d->in->path, UINT64_MAX,
				"Cannot load libtraceevent to read this trace.dat: %s", why);
		d->failed = true;
	}
	if (ret < 0)
		return ret;
	if (d->version < 7) {
		ret = td_read_v6(d, &c);
	} else {
		ret = td_read_options_v7(d, options_start);
		if (ret == 0)
			ret = td_read_meta_v7(d);
		for (i = 0; ret == 0 && i < d->nr_inst + 1; i++) {
			struct dat_buffer *b = i ? &d->inst[i - 1] : &d->top;

			if (b->name)
				ret = td_buffer_section_v7(d, b);
		}
	}
	if (ret < 0)
		return failure(d);
	if (!d->top.name && !d->nr_inst && d->version >= 7) {
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, options_start,
				"This trace.dat has no binary trace data (no BUFFER option):"
				" nothing to report");
		return VMA_ERR_FORMAT;
	}
	if (d->unnamed_formats > 1) {
		vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, UINT64_MAX,
				"%" PRIu32 " more event formats name no event or id",
				d->unnamed_formats - 1);
	}
	set_clock(d);
	if (d->in->options)
		d->priv->time_map = d->in->options->time_map;
	if (d->priv->time_map.cycles) {
		ret = keep_cycles(d);
		if (ret < 0)
			return ret;
	}
	d->in->family = VMA_FAMILY_KVM;
	d->in->clock_hz = 0;
	vma_tep()->tep_set_cpus(d->priv->tep, (int)d->cpus);
	ret = vma_kvm_formats_load(d->priv, d->in->diag, d->in->path, d->big);
	if (ret < 0)
		return ret;
	ret = check_overlaps(d);
	d->priv->nr_planned = streams_planned(d);
	if (ret == VMA_OK)
		ret = add_streams(d, &d->top);
	for (i = 0; ret == VMA_OK && i < d->nr_inst; i++)
		ret = add_streams(d, &d->inst[i]);
	/* after add_streams(): a pipe's copy then holds the data it will read */
	d->in->data_bytes = data_bytes(d);
	if (ret == VMA_OK)
		vma_kvm_tell(d->in, d->priv);
	return ret;
}

static void tracedat_close(struct vma_input *input)
{
	vma_kvm_priv_free(input->priv);
	input->priv = NULL;
}

static int tracedat_open(struct vma_input *input)
{
	struct dat d;
	int ret;

	memset(&d, 0, sizeof(d));
	d.in = input;
	d.priv = vma_kvm_priv_new();
	if (!d.priv)
		return VMA_ERR_NOMEM;
	input->priv = d.priv;
	ret = open_dat(&d);
	dat_free(&d);
	if (ret < 0)
		tracedat_close(input);
	return ret;
}

const struct vma_input_ops vma_tracedat_ops = {
	.name = "trace.dat",
	.probe = tracedat_probe,
	.open = tracedat_open,
	.close = tracedat_close,
	.describe = vma_kvm_stream_describe,
};
