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
 * cmdlines (the dump prints events as trace-cmd report does), and the
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

#include "input/kvm-internal.h"
#include "vmalyze/diag.h"
#include "vmalyze/status.h"

/* Option and section ids (trace-cmd.dat.v7(5)). */
enum {
	OPT_DONE = 0,
	OPT_DATE = 1,
	OPT_BUFFER = 3,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
	OPT_OFFSET = 7,
	OPT_CPUCOUNT = 8,
	OPT_TRACEID = 11,
	OPT_TIME_SHIFT = 12,
	OPT_GUEST = 13,
	OPT_TSC2NSEC = 14,
	OPT_HEADER_INFO = 16,
	OPT_FTRACE_EVENTS = 17,
	OPT_EVENT_FORMATS = 18,
	OPT_KALLSYMS = 19,
	OPT_PRINTK = 20,
	OPT_CMDLINES = 21,
	OPT_BUFFER_TEXT = 22,
	OPT_MAX_SECTION = 32,
};

#define SEC_FL_COMPRESSED 1
/* Sanity limits: far above anything trace-cmd writes, low enough to stay in memory. */
#define MAX_CPUS 8192
#define MAX_TEXT (256u << 20)
#define MAX_SECTIONS 1024
#define MAX_FORMATS 100000
#define MAX_INSTANCES 256

struct dat_cpu {
	uint32_t cpu;
	uint64_t offset;
	uint64_t size;
};

struct dat_buffer {
	char *name;               /* "" for the top instance */
	char *clock;              /* v7: this instance's trace clock */
	uint64_t offset;          /* v7: BUFFER section; v6: the instance's flyrecord */
	uint32_t page_size;
	uint32_t nr_cpus;
	struct dat_cpu *cpus;
	bool compressed;
};

struct dat {
	struct vma_input *in;
	struct vma_kvm_priv *priv;
	unsigned int version;
	bool big;
	uint32_t long_size;
	uint32_t page_size;
	uint32_t cpus;            /* header count, or CPUCOUNT */
	struct vma_decomp *dc;    /* for compressed sections */
	bool trace_clock_follows; /* v6: TRACECLOCK option, clock text after flyrecord */
	char *trace_clock;        /* the "[clock]" of the trace_clock text */
	uint64_t section[OPT_MAX_SECTION]; /* v7: section offsets from options */
	struct dat_buffer top;
	struct dat_buffer *inst;  /* other instances */
	uint32_t nr_inst;
	bool failed;              /* a cursor reported; no second message */
	bool nomem;
	bool in_instance;         /* v6: reading an instance header, BUFFER options ignored */
	uint32_t unnamed_formats; /* format texts without a name or id */
};

/*
 * A reader of the file or of a section held in memory.  The first read
 * past the end reports where the data stop, then every read fails.
 */
struct cur {
	struct dat *d;
	const unsigned char *mem; /* NULL: read the file */
	uint64_t pos, end;        /* file offsets, or indices into mem */
	uint64_t base;            /* file offset of mem, for messages */
	const char *what;         /* the part being read, for messages */
};

static void cur_file(struct cur *c, struct dat *d, uint64_t pos, const char *what)
{
	c->d = d;
	c->mem = NULL;
	c->pos = pos;
	c->end = d->in->size;
	c->base = 0;
	c->what = what;
}

static void cur_mem(struct cur *c, struct dat *d, const unsigned char *mem, uint64_t len,
		    uint64_t base, const char *what)
{
	c->d = d;
	c->mem = mem;
	c->pos = 0;
	c->end = len;
	c->base = base;
	c->what = what;
}

static uint64_t cur_at(const struct cur *c)
{
	return c->mem ? c->base : c->pos;
}

/* Damage that leaves the whole file unreadable: never tolerated. */
static int fatal(struct dat *d, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fatal(struct dat *d, uint64_t offset, const char *fmt, ...)
{
	if (!d->failed) {
		char msg[512];
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, offset, "%s", msg);
		d->failed = true;
	}
	return -1;
}

/* Out of memory while reading the header. */
static int oom(struct dat *d)
{
	d->nomem = true;
	d->failed = true;
	return -1;
}

static int cur_short(struct cur *c, uint64_t need)
{
	struct dat *d = c->d;

	if (d->failed)
		return -1;
	d->failed = true;
	if (c->mem) {
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, c->base,
				"trace.dat section is shorter than its %s (needs %" PRIu64
				" more bytes at its byte %" PRIu64 ")", c->what, need, c->pos);
	} else {
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, d->in->size,
				"file ends in the %s (%" PRIu64 " bytes needed from byte %" PRIu64
				"): truncated, the trace.dat header cannot be read",
				c->what, need, c->pos);
	}
	return -1;
}

static int cur_need(struct cur *c, uint64_t n)
{
	if (c->d->failed)
		return -1;
	if (c->pos > c->end || n > c->end - c->pos)
		return cur_short(c, n);
	return 0;
}

static int pread_all(struct dat *d, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = pread(d->in->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!d->failed) {
				vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, off,
						"cannot read: %s",
						n == 0 ? "unexpected end of file" :
						strerror(errno));
				d->failed = true;
			}
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static int cur_read(struct cur *c, void *buf, size_t n)
{
	if (cur_need(c, n) < 0)
		return -1;
	if (c->mem) {
		memcpy(buf, c->mem + c->pos, n);
	} else if (pread_all(c->d, buf, n, c->pos) < 0) {
		return -1;
	}
	c->pos += n;
	return 0;
}

static int cur_u16(struct cur *c, uint32_t *v)
{
	unsigned char b[2];

	if (cur_read(c, b, 2) < 0)
		return -1;
	*v = vma_get16(b, c->d->big);
	return 0;
}

static int cur_u32(struct cur *c, uint32_t *v)
{
	unsigned char b[4];

	if (cur_read(c, b, 4) < 0)
		return -1;
	*v = vma_get32(b, c->d->big);
	return 0;
}

static int cur_u64(struct cur *c, uint64_t *v)
{
	unsigned char b[8];

	if (cur_read(c, b, 8) < 0)
		return -1;
	*v = vma_get64(b, c->d->big);
	return 0;
}

/*
 * @n bytes as a NUL-terminated copy (the texts are handed to parsers that
 * want strings).  Return: owned, or NULL after a report.
 */
static char *cur_text(struct cur *c, uint64_t n)
{
	char *buf;

	if (n > MAX_TEXT) {
		fatal(c->d, cur_at(c), "implausible size of the %s", c->what);
		return NULL;
	}
	if (cur_need(c, n) < 0)
		return NULL;
	buf = malloc((size_t)n + 1);
	if (!buf) {
		oom(c->d);
		return NULL;
	}
	if (cur_read(c, buf, (size_t)n) < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* A NUL-terminated string of at most @max bytes.  Return: owned, or NULL. */
static char *cur_str(struct cur *c, size_t max)
{
	char buf[256];
	size_t len = 0;

	if (max > sizeof(buf))
		max = sizeof(buf);
	for (;;) {
		if (cur_read(c, &buf[len], 1) < 0)
			return NULL;
		if (buf[len] == '\0')
			break;
		if (++len >= max) {
			fatal(c->d, cur_at(c), "unterminated string in the %s", c->what);
			return NULL;
		}
	}
	return strdup(buf);
}

/* ---- ring-buffer headers, formats, cmdlines (same in v6 and v7) ---------- */

static int read_header_info(struct dat *d, struct cur *c)
{
	char magic[13];
	uint64_t size;
	char *text;
	int ret;

	c->what = "header_page";
	if (cur_read(c, magic, 12) < 0)
		return -1;
	if (memcmp(magic, "header_page", 12))
		return fatal(d, cur_at(c), "no header_page where the trace.dat header needs it");
	if (cur_u64(c, &size) < 0 || !(text = cur_text(c, size)))
		return -1;
	ret = vma_kvm_header_page(d->priv, text, (size_t)size, false);
	free(text);
	if (ret == VMA_ERR_NOMEM)
		return oom(d);
	if (ret < 0 && !vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, cur_at(c),
					"header_page text not understood; assuming the usual"
					" page layout")) {
		d->failed = true;
		return -1;
	}

	c->what = "header_event";
	if (cur_read(c, magic, 13) < 0)
		return -1;
	if (memcmp(magic, "header_event", 13))
		return fatal(d, cur_at(c), "no header_event where the trace.dat header needs it");
	if (cur_u64(c, &size) < 0 || !(text = cur_text(c, size)))
		return -1;
	if (!vma_rb_header_event_ok(text, (size_t)size)) {
		free(text);
		return fatal(d, cur_at(c), "the recording kernel's ring-buffer event header is not"
			     " the 5-bit type / 27-bit delta one vmalyze reads");
	}
	free(text);
	return 0;
}

static int read_formats(struct dat *d, struct cur *c, const char *system, uint32_t count)
{
	uint32_t i;
	int ret;

	for (i = 0; i < count; i++) {
		uint64_t size, at;
		char *text;

		if (cur_u64(c, &size) < 0)
			return -1;
		at = cur_at(c);
		text = cur_text(c, size);
		if (!text)
			return -1;
		ret = vma_kvm_add_format(d->priv, system, text, (size_t)size, at);
		if (ret == VMA_ERR_NOMEM) {
			free(text);
			return oom(d);
		}
		/* the first such format is reported, the others counted (open_dat) */
		if (ret < 0 && d->unnamed_formats++ == 0 &&
		    !vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, at,
				     "event format %" PRIu32 " of system %s names no event"
				     " or id; its events will be unnamed", i, system)) {
			free(text);
			return fatal(d, at, "stopped at an unparsable event format");
		}
		free(text);
	}
	return 0;
}

static int read_ftrace_formats(struct dat *d, struct cur *c)
{
	uint32_t count;

	c->what = "ftrace event formats";
	if (cur_u32(c, &count) < 0)
		return -1;
	if (count > MAX_FORMATS)
		return fatal(d, cur_at(c), "implausible number of ftrace event formats");
	return read_formats(d, c, "ftrace", count);
}

static int read_event_formats(struct dat *d, struct cur *c)
{
	uint32_t nsys, i;

	c->what = "event formats";
	if (cur_u32(c, &nsys) < 0)
		return -1;
	if (nsys > MAX_FORMATS)
		return fatal(d, cur_at(c), "implausible number of event systems");
	for (i = 0; i < nsys; i++) {
		uint32_t count;
		char *sys = cur_str(c, 256);
		int ret;

		if (!sys)
			return -1;
		if (cur_u32(c, &count) < 0 || count > MAX_FORMATS) {
			fatal(d, cur_at(c), "implausible number of events in system %s", sys);
			free(sys);
			return -1;
		}
		ret = read_formats(d, c, sys, count);
		free(sys);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/* kallsyms or printk formats: kept as text for the dump (kvm-formats.c). */
static int read_symbols(struct dat *d, struct cur *c, uint64_t size, char **keep)
{
	char *text = cur_text(c, size);

	if (!text)
		return -1;
	free(*keep);
	*keep = text;
	return 0;
}

static int read_cmdlines(struct dat *d, struct cur *c)
{
	uint64_t size;
	char *text;

	c->what = "saved command lines";
	if (cur_u64(c, &size) < 0 || !(text = cur_text(c, size)))
		return -1;
	tep_parse_saved_cmdlines(d->priv->tep, text);
	free(text);
	return 0;
}

/* ---- options ------------------------------------------------------------- */

/* The name between [] in a trace_clock text ("local [x86-tsc] ..."). */
static char *selected_clock(const char *text, size_t len)
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
	if (cur_u64(c, &b.offset) < 0 || !(b.name = cur_str(c, 256)))
		goto fail;
	if (d->version >= 7) {
		if (!(b.clock = cur_str(c, 256)))
			goto fail;
		if (text_only) {
			vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, cur_at(c),
					"instance \"%s\" holds a latency (text) trace,"
					" which vmalyze does not read", b.name);
			free(b.name);
			free(b.clock);
			return 0;
		}
		if (cur_u32(c, &b.page_size) < 0 || cur_u32(c, &b.nr_cpus) < 0)
			goto fail;
		if (b.nr_cpus > MAX_CPUS) {
			fatal(d, cur_at(c), "implausible cpu count in BUFFER option \"%s\"",
			      b.name);
			goto fail;
		}
		b.cpus = calloc(b.nr_cpus ? b.nr_cpus : 1, sizeof(*b.cpus));
		if (!b.cpus) {
			oom(d);
			goto fail;
		}
		for (i = 0; i < b.nr_cpus; i++) {
			if (cur_u32(c, &b.cpus[i].cpu) < 0 || cur_u64(c, &b.cpus[i].offset) < 0 ||
			    cur_u64(c, &b.cpus[i].size) < 0) {
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
		fatal(d, cur_at(c), "more than %d instances", MAX_INSTANCES);
		goto fail;
	}
	inst = realloc(d->inst, (d->nr_inst + 1) * sizeof(*inst));
	if (!inst) {
		oom(d);
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
	if (cur_u64(c, &p->info.peer_trace_id) < 0 || cur_u32(c, &p->info.tsync_flags) < 0 ||
	    cur_u32(c, &ncpu) < 0) {
		return -1;
	}
	if (ncpu > MAX_CPUS || p->tsync)
		return fatal(d, cur_at(c), "implausible or repeated TIME_SHIFT option");
	p->tsync = calloc(ncpu ? ncpu : 1, sizeof(*p->tsync));
	p->tsync_count = calloc(ncpu ? ncpu : 1, sizeof(*p->tsync_count));
	if (!p->tsync || !p->tsync_count)
		return oom(d);
	p->info.tsync_nr_cpus = ncpu;
	for (i = 0; i < ncpu; i++) {
		uint32_t n;

		if (cur_u32(c, &n) < 0)
			return -1;
		if ((uint64_t)n * 24 > c->end - c->pos)
			return cur_short(c, (uint64_t)n * 24);
		p->tsync[i] = calloc(n ? n : 1, sizeof(**p->tsync));
		if (!p->tsync[i])
			return oom(d);
		p->tsync_count[i] = n;
		for (k = 0; k < n; k++)
			cur_u64(c, &p->tsync[i][k].time);
		for (k = 0; k < n; k++) {
			uint64_t v = 0;

			cur_u64(c, &v);
			p->tsync[i][k].offset = (int64_t)v;
		}
		for (k = 0; k < n; k++)
			cur_u64(c, &p->tsync[i][k].scaling);
	}
	/* fraction bits came later: absent in older files, where none applies */
	for (i = 0; i < ncpu && c->pos < c->end; i++) {
		for (k = 0; k < p->tsync_count[i]; k++) {
			if (cur_u64(c, &p->tsync[i][k].fraction) < 0)
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
	if (!(g.name = cur_str(c, 256)) || cur_u64(c, &g.trace_id) < 0 ||
	    cur_u32(c, &g.nr_vcpus) < 0) {
		goto fail;
	}
	if (g.nr_vcpus > MAX_CPUS) {
		fatal(d, cur_at(c), "implausible vcpu count for guest %s", g.name);
		goto fail;
	}
	g.vcpu_pid = calloc(g.nr_vcpus ? g.nr_vcpus : 1, sizeof(*g.vcpu_pid));
	if (!g.vcpu_pid) {
		oom(d);
		goto fail;
	}
	for (i = 0; i < g.nr_vcpus; i++) {
		uint32_t vcpu, pid;

		if (cur_u32(c, &vcpu) < 0 || cur_u32(c, &pid) < 0)
			goto fail;
		if (vcpu < g.nr_vcpus)
			g.vcpu_pid[vcpu] = pid;
	}
	guests = realloc(p->guests, (p->info.nr_guests + 1) * sizeof(*guests));
	if (!guests) {
		oom(d);
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

	cur_mem(&c, d, data, size, at, "option");
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
			d->trace_clock = selected_clock((const char *)data, size);
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
static int read_options(struct dat *d, struct cur *c, uint64_t *next_options)
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
		if (cur_u16(c, &id) < 0)
			return -1;
		if (d->version < 7 && id == OPT_DONE)
			return 0;
		if (cur_u32(c, &size) < 0)
			return -1;
		at = c->mem ? c->base : c->pos;
		data = (unsigned char *)cur_text(c, size);
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

/* ---- v7 sections ------------------------------------------------------- */

/*
 * Load the section at @offset, expanding it when compressed.  @id is the
 * section id expected there.  Return: owned payload, or NULL after a report.
 */
static unsigned char *load_section(struct dat *d, uint64_t offset, uint32_t id,
				   const char *what, uint64_t *len)
{
	struct cur c;
	uint32_t sid, flags, desc, csize, usize;
	uint64_t size;
	unsigned char *raw = NULL, *out;
	const char *why = NULL;

	cur_file(&c, d, offset, what);
	if (cur_u16(&c, &sid) < 0 || cur_u16(&c, &flags) < 0 || cur_u32(&c, &desc) < 0 ||
	    cur_u64(&c, &size) < 0) {
		return NULL;
	}
	if (sid != id) {
		fatal(d, offset, "no %s section where the options point", what);
		return NULL;
	}
	if (!(flags & SEC_FL_COMPRESSED)) {
		out = (unsigned char *)cur_text(&c, size);
		*len = size;
		return out;
	}
	if (!d->dc) {
		fatal(d, offset, "the %s section is compressed but the file names no"
		      " compression", what);
		return NULL;
	}
	if (cur_u32(&c, &csize) < 0 || cur_u32(&c, &usize) < 0)
		return NULL;
	if (usize > MAX_TEXT) {
		fatal(d, offset, "implausible expanded size of the %s section", what);
		return NULL;
	}
	raw = (unsigned char *)cur_text(&c, csize);
	out = malloc((size_t)usize + 1);
	if (!raw || !out) {
		free(raw);
		free(out);
		if (!d->failed)
			oom(d);
		return NULL;
	}
	if (vma_decompress(d->dc, raw, csize, out, usize, &why) < 0) {
		free(raw);
		free(out);
		fatal(d, offset, "the compressed %s section is damaged: %s", what, why);
		return NULL;
	}
	free(raw);
	out[usize] = '\0';
	*len = usize;
	return out;
}

static int read_options_v7(struct dat *d, uint64_t first)
{
	uint64_t offset = first, seen[MAX_SECTIONS];
	uint32_t n = 0, i;

	while (offset) {
		unsigned char *data;
		uint64_t len, next = 0;
		struct cur c;
		int ret;

		for (i = 0; i < n; i++) {
			if (seen[i] == offset)
				return fatal(d, offset, "options sections form a loop");
		}
		if (n == MAX_SECTIONS)
			return fatal(d, offset, "too many options sections");
		seen[n++] = offset;
		data = load_section(d, offset, OPT_DONE, "options", &len);
		if (!data)
			return -1;
		cur_mem(&c, d, data, len, offset, "options");
		ret = read_options(d, &c, &next);
		free(data);
		if (ret < 0)
			return -1;
		offset = next;
	}
	return 0;
}

static int read_meta_v7(struct dat *d)
{
	static const struct {
		uint32_t id;
		const char *what;
		bool needed;
	} parts[] = {
		{ OPT_HEADER_INFO, "header info", true },
		{ OPT_FTRACE_EVENTS, "ftrace event formats", false },
		{ OPT_EVENT_FORMATS, "event formats", true },
		{ OPT_KALLSYMS, "kallsyms", false },
		{ OPT_PRINTK, "printk formats", false },
		{ OPT_CMDLINES, "saved command lines", false },
	};
	size_t i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		uint64_t off = d->section[parts[i].id], len;
		unsigned char *data;
		uint32_t size32;
		struct cur c;
		int ret = 0;

		if (!off) {
			if (parts[i].needed) {
				return fatal(d, 0, "the options name no %s section",
					     parts[i].what);
			}
			continue;
		}
		data = load_section(d, off, parts[i].id, parts[i].what, &len);
		if (!data)
			return -1;
		cur_mem(&c, d, data, len, off, parts[i].what);
		switch (parts[i].id) {
		case OPT_HEADER_INFO:
			ret = read_header_info(d, &c);
			break;
		case OPT_FTRACE_EVENTS:
			ret = read_ftrace_formats(d, &c);
			break;
		case OPT_EVENT_FORMATS:
			ret = read_event_formats(d, &c);
			break;
		case OPT_KALLSYMS:
			ret = cur_u32(&c, &size32) < 0 ? -1 :
				read_symbols(d, &c, size32, &d->priv->kallsyms);
			break;
		case OPT_PRINTK:
			ret = cur_u32(&c, &size32) < 0 ? -1 :
				read_symbols(d, &c, size32, &d->priv->printk);
			break;
		case OPT_CMDLINES:
			ret = read_cmdlines(d, &c);
			break;
		}
		free(data);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/* The BUFFER section header of a v7 instance says whether its pages are compressed. */
static int buffer_section_v7(struct dat *d, struct dat_buffer *b)
{
	struct cur c;
	uint32_t sid, flags;

	cur_file(&c, d, b->offset, "BUFFER section header");
	if (cur_u16(&c, &sid) < 0 || cur_u16(&c, &flags) < 0)
		return -1;
	b->compressed = (flags & SEC_FL_COMPRESSED) != 0;
	if (b->compressed && !d->dc) {
		return fatal(d, b->offset, "trace data of instance \"%s\" is compressed but the"
			     " file names no compression", b->name);
	}
	return 0;
}

/* ---- v6 ------------------------------------------------------------------ */

/* "options  ", "latency  " or "flyrecord" and what follows, up to the cpu pairs. */
static int read_flyrecord_v6(struct dat *d, struct cur *c, struct dat_buffer *b)
{
	char tag[10];
	uint32_t i;

	c->what = "options";
	if (cur_read(c, tag, 10) < 0)
		return -1;
	if (!memcmp(tag, "options  ", 10)) {
		uint64_t ignore;

		if (read_options(d, c, &ignore) < 0)
			return -1;
		c->what = "flyrecord tag";
		if (cur_read(c, tag, 10) < 0)
			return -1;
	}
	if (!memcmp(tag, "latency  ", 10)) {
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, c->pos - 10,
				"this trace.dat holds a latency (text) trace, which vmalyze"
				" does not read");
		d->failed = true;
		return -1;
	}
	if (memcmp(tag, "flyrecord", 10)) {
		return fatal(d, c->pos - 10, "no flyrecord tag where the trace.dat header"
			     " needs it");
	}
	if (d->cpus > MAX_CPUS)
		return fatal(d, c->pos, "implausible cpu count");
	b->nr_cpus = d->cpus;
	b->page_size = d->priv->layout.page_size;
	b->cpus = calloc(d->cpus ? d->cpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return oom(d);
	c->what = "cpu data offsets";
	for (i = 0; i < d->cpus; i++) {
		b->cpus[i].cpu = i;
		if (cur_u64(c, &b->cpus[i].offset) < 0 || cur_u64(c, &b->cpus[i].size) < 0)
			return -1;
	}
	return 0;
}

static int read_v6(struct dat *d, struct cur *c)
{
	uint32_t size32, i;
	uint64_t size;

	if (read_header_info(d, c) < 0 || read_ftrace_formats(d, c) < 0 ||
	    read_event_formats(d, c) < 0) {
		return -1;
	}
	c->what = "kallsyms";
	if (cur_u32(c, &size32) < 0 || read_symbols(d, c, size32, &d->priv->kallsyms) < 0)
		return -1;
	c->what = "printk formats";
	if (cur_u32(c, &size32) < 0 || read_symbols(d, c, size32, &d->priv->printk) < 0)
		return -1;
	if (read_cmdlines(d, c) < 0)
		return -1;
	c->what = "cpu count";
	if (cur_u32(c, &d->cpus) < 0)
		return -1;
	d->priv->info.cpu_count = d->cpus;
	if (read_flyrecord_v6(d, c, &d->top) < 0)
		return -1;
	if (d->trace_clock_follows) {
		char *text;

		c->what = "trace clock";
		if (cur_u64(c, &size) < 0 || !(text = cur_text(c, size)))
			return -1;
		free(d->trace_clock);
		d->trace_clock = selected_clock(text, (size_t)size);
		free(text);
	}
	/* instances: their own flyrecord, same cpu count, at the BUFFER offset */
	for (i = 0; i < d->nr_inst; i++) {
		struct dat_buffer *b = &d->inst[i];
		struct cur ic;

		cur_file(&ic, d, b->offset, "instance header");
		d->in_instance = true;
		if (read_flyrecord_v6(d, &ic, b) < 0)
			return -1;
		d->in_instance = false;
	}
	return 0;
}

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
				"trace clock tsc2nsec but no TSC2NSEC option: time stamps stay in"
				" TSC cycles");
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

static int add_streams(struct dat *d, struct dat_buffer *b)
{
	uint32_t i;

	if (b->clock && d->top.clock && strcmp(b->clock, d->top.clock)) {
		vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, b->offset,
				"instance \"%s\" uses trace clock %s, the top one %s; its times"
				" are read as if they were the same clock", b->name, b->clock,
				d->top.clock);
	}
	if (b->page_size && (b->page_size < d->priv->layout.data_offset + 8 ||
			     b->page_size > (1u << 24))) {
		if (!vma_diag_report(d->in->diag, VMA_LVL_FILE, d->in->path, b->offset,
				     "instance \"%s\" gives an implausible page size of %" PRIu32
				     " bytes; its trace data are skipped", b->name, b->page_size)) {
			return VMA_ERR_DAMAGED;
		}
		return VMA_OK;
	}
	for (i = 0; i < b->nr_cpus; i++) {
		struct vma_kvm_region r;
		int ret;

		/* an empty cpu has nothing to stream unless its data went missing */
		if (b->cpus[i].size == 0 && b->cpus[i].offset <= d->in->size)
			continue;
		r.offset = b->cpus[i].offset;
		r.size = b->cpus[i].size;
		/* A size running past 2^64 would wrap the end of the data to before it. */
		if (r.size > UINT64_MAX - 8 - r.offset) {
			if (!vma_diag_report(d->in->diag, VMA_LVL_FILE, d->in->path, b->offset,
					     "the BUFFER option gives cpu %" PRIu32 " trace data of"
					     " %" PRIu64 " bytes from byte %" PRIu64 ", past any file"
					     " size: damaged (--tolerance 5 reads it up to the end of the"
					     " file)",
					     b->cpus[i].cpu, r.size, r.offset)) {
				return VMA_ERR_DAMAGED;
			}
			r.size = d->in->size > r.offset ? d->in->size - r.offset : 0;
		}
		r.compressed = b->compressed;
		r.page_size = b->page_size;
		ret = vma_kvm_stream_add(d->in, d->priv, b->cpus[i].cpu, &r);
		if (ret < 0)
			return ret;
	}
	return VMA_OK;
}

static int read_preamble(struct dat *d, struct cur *c, uint64_t *options_start)
{
	char magic[10], *ver, *zname = NULL, *zver = NULL;
	unsigned char b[6];
	enum vma_codec codec;

	c->what = "file header";
	if (cur_read(c, magic, 10) < 0 || !(ver = cur_str(c, 16)))
		return -1;
	d->version = (unsigned int)strtoul(ver, NULL, 10);
	free(ver);
	if (d->version != 6 && d->version != 7) {
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, 10,
				"trace.dat version %u: vmalyze reads versions 6 and 7", d->version);
		d->failed = true;
		return VMA_ERR_FORMAT;
	}
	if (cur_read(c, b, 6) < 0)
		return -1;
	/* the endianness byte decides how every number after it is read */
	d->big = b[0] != 0;
	d->long_size = b[1];
	d->page_size = vma_get32(b + 2, d->big);
	if ((d->long_size != 4 && d->long_size != 8) || d->page_size < 64 ||
	    d->page_size > (1u << 24)) {
		return fatal(d, c->pos - 6, "implausible long size or page size in the trace.dat"
			     " header");
	}
	if (d->version < 7)
		return 0;
	if (!(zname = cur_str(c, 64)) || !(zver = cur_str(c, 64)) ||
	    cur_u64(c, options_start) < 0) {
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

static int open_dat(struct dat *d)
{
	uint64_t options_start = 0;
	struct cur c;
	uint32_t i;
	int ret;

	cur_file(&c, d, 0, "file header");
	ret = read_preamble(d, &c, &options_start);
	/*
	 * A header that cannot be read leaves no record to read: status 2, as
	 * for a xentrace file with no complete window (doc/exit-status.md).
	 */
	if (ret < 0)
		return ret != -1 ? ret : d->nomem ? VMA_ERR_NOMEM : VMA_ERR_FORMAT;
	d->priv->info.version = d->version;
	ret = vma_kvm_tep_new(d->priv, d->big, d->long_size, d->page_size);
	if (ret < 0)
		return ret;
	if (d->version < 7) {
		ret = read_v6(d, &c);
	} else {
		ret = read_options_v7(d, options_start);
		if (ret == 0)
			ret = read_meta_v7(d);
		for (i = 0; ret == 0 && i < d->nr_inst + 1; i++) {
			struct dat_buffer *b = i ? &d->inst[i - 1] : &d->top;

			if (b->name)
				ret = buffer_section_v7(d, b);
		}
	}
	if (ret < 0)
		return d->nomem ? VMA_ERR_NOMEM : VMA_ERR_FORMAT;
	if (!d->top.name && !d->nr_inst && d->version >= 7) {
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, options_start,
				"this trace.dat has no binary trace data (no BUFFER option)");
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
	tep_set_cpus(d->priv->tep, (int)d->cpus);
	ret = vma_kvm_formats_load(d->priv, d->in->diag, d->in->path, d->big);
	if (ret < 0)
		return ret;
	ret = add_streams(d, &d->top);
	for (i = 0; ret == VMA_OK && i < d->nr_inst; i++)
		ret = add_streams(d, &d->inst[i]);
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
