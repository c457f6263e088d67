/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace.dat and ring-buffer page writer for test fixtures (see
 * tracedat-writer.h).  Everything is built in memory: fixtures are small,
 * and offsets written early (v6 cpu data, v7 options) are patched in place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "tracedat-writer.h"

#define TS_BITS 27
#define TYPE_PADDING 29
#define TYPE_EXTEND 30
#define TYPE_STAMP 31
#define MAX_SMALL 112 /* largest payload with a type_len of its own (28 words) */

/* ---- one ring-buffer page ------------------------------------------------ */

void vma_tdw_put(void *buf, uint32_t size, uint64_t val, bool big_endian)
{
	unsigned char *p = buf;
	uint32_t i;

	for (i = 0; i < size; i++) {
		uint32_t shift = 8 * (big_endian ? size - 1 - i : i);

		p[i] = (unsigned char)(val >> shift);
	}
}

void vma_rbw_start(struct vma_rbw *p, unsigned char *page, uint32_t page_size,
		   uint32_t long_size, bool big_endian, uint64_t ts)
{
	p->page = page;
	p->page_size = page_size;
	p->long_size = long_size;
	p->data_offset = 8 + long_size;
	p->pos = p->data_offset;
	p->big_endian = big_endian;
	memset(page, 0, page_size);
	vma_tdw_put(page, 8, ts, big_endian);
}

uint32_t vma_rbw_room(const struct vma_rbw *p)
{
	return p->page_size - p->pos;
}

/* The 32-bit event header: type_len in the low bits on little-endian files. */
static void put_header(struct vma_rbw *p, uint32_t type_len, uint32_t delta)
{
	uint32_t hdr = p->big_endian ? type_len << TS_BITS | (delta & ((1u << TS_BITS) - 1)) :
		(delta << 5) | type_len;

	vma_tdw_put(p->page + p->pos, 4, hdr, p->big_endian);
}

int vma_rbw_data(struct vma_rbw *p, uint32_t delta, const void *data, uint32_t len,
		 bool force_len0)
{
	uint32_t padded = (len + 3) & ~3u;
	bool len0 = force_len0 || padded > MAX_SMALL || padded == 0;
	uint32_t total = 4 + padded + (len0 ? 4 : 0);

	if (delta >= 1u << TS_BITS || total > vma_rbw_room(p)) {
		return -1;
	}
	if (len0) {
		put_header(p, 0, delta);
		vma_tdw_put(p->page + p->pos + 4, 4, padded + 4, p->big_endian);
		memcpy(p->page + p->pos + 8, data, len);
	} else {
		put_header(p, padded / 4, delta);
		memcpy(p->page + p->pos + 4, data, len);
	}
	p->pos += total;
	return 0;
}

static int put_time(struct vma_rbw *p, uint32_t type, uint64_t value)
{
	if (vma_rbw_room(p) < 8 || value >> 59) {
		return -1;
	}
	put_header(p, type, (uint32_t)(value & ((1u << TS_BITS) - 1)));
	vma_tdw_put(p->page + p->pos + 4, 4, value >> TS_BITS, p->big_endian);
	p->pos += 8;
	return 0;
}

int vma_rbw_extend(struct vma_rbw *p, uint64_t delta)
{
	return put_time(p, TYPE_EXTEND, delta);
}

int vma_rbw_stamp(struct vma_rbw *p, uint64_t ts)
{
	return put_time(p, TYPE_STAMP, ts & ((1ull << 59) - 1));
}

int vma_rbw_discard(struct vma_rbw *p, uint32_t delta, uint32_t len)
{
	uint32_t padded = (len + 3) & ~3u;

	if (delta == 0 || delta >= 1u << TS_BITS || padded < 4 || 4 + padded > vma_rbw_room(p)) {
		return -1;
	}
	put_header(p, TYPE_PADDING, delta);
	vma_tdw_put(p->page + p->pos + 4, 4, padded, p->big_endian);
	p->pos += 4 + padded;
	return 0;
}

int vma_rbw_pad_end(struct vma_rbw *p)
{
	if (vma_rbw_room(p) < 4) {
		return -1;
	}
	put_header(p, TYPE_PADDING, 0);
	p->pos = p->page_size;
	return 0;
}

void vma_rbw_commit(struct vma_rbw *p, bool missed, uint64_t count)
{
	uint64_t commit = p->pos - p->data_offset;

	if (missed) {
		commit |= 1ull << 31;
		if (count != UINT64_MAX && vma_rbw_room(p) >= p->long_size) {
			vma_tdw_put(p->page + p->pos, p->long_size, count, p->big_endian);
			commit |= 1ull << 30;
		}
	}
	vma_tdw_put(p->page + 8, p->long_size, commit, p->big_endian);
}

/* ---- growable byte buffer ------------------------------------------------- */

struct buf {
	unsigned char *p;
	size_t len, cap;
	bool oom;
	bool big;
};

static unsigned char *b_room(struct buf *b, size_t n)
{
	if (b->oom) {
		return NULL;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *p;

		while (cap < b->len + n) {
			cap *= 2;
		}
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	b->len += n;
	return b->p + b->len - n;
}

static void b_put(struct buf *b, const void *d, size_t n)
{
	unsigned char *p = b_room(b, n);

	if (p && n) {
		memcpy(p, d, n);
	}
}

static void b_num(struct buf *b, uint32_t size, uint64_t v)
{
	unsigned char *p = b_room(b, size);

	if (p) {
		vma_tdw_put(p, size, v, b->big);
	}
}

static void b_str(struct buf *b, const char *s)
{
	b_put(b, s, strlen(s) + 1);
}

static void b_zero(struct buf *b, size_t n)
{
	unsigned char *p = b_room(b, n);

	if (p) {
		memset(p, 0, n);
	}
}

static void b_align(struct buf *b, size_t a)
{
	b_zero(b, (a - b->len % a) % a);
}

static void b_patch(struct buf *b, size_t at, uint32_t size, uint64_t v)
{
	if (!b->oom && at + size <= b->len) {
		vma_tdw_put(b->p + at, size, v, b->big);
	}
}

/* ---- the trace.dat -------------------------------------------------------- */

struct cpu_out {
	struct buf pages;        /* closed pages */
	unsigned char *cur;      /* the page being filled */
	struct vma_rbw rbw;
	bool open;
	uint64_t last_ts;
	bool lost_next;          /* the next page carries the lost flag */
	uint64_t lost_count;
	bool page_lost;          /* the current page carries it */
	uint64_t page_lost_count;
	uint64_t file_off, file_size; /* where finish() put it */
};

struct inst {
	char *name;
	struct cpu_out *cpus;
	uint64_t section;        /* v7 BUFFER section / v6 instance flyrecord */
	bool compressed;
};

struct fmt {
	char *system;
	char *text;
};

struct vma_tdw {
	struct vma_tdw_opts o;
	struct inst *inst;
	int nr_inst;
	struct fmt *fmts;
	size_t nr_fmts;
	struct buf cmdlines;
	struct buf guests;       /* GUEST option bodies, each prefixed by its u32 size */
	struct buf tshift;       /* TIME_SHIFT option body */
};

static const char header_page_fmt[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:%u;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:%u;\tsize:%u;\tsigned:1;\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

static void cpu_free(struct cpu_out *c)
{
	free(c->pages.p);
	free(c->cur);
}

void vma_tdw_free(struct vma_tdw *w)
{
	int i;
	uint32_t k;
	size_t f;

	if (!w) {
		return;
	}
	for (i = 0; i < w->nr_inst; i++) {
		for (k = 0; k < w->o.nr_cpus; k++) {
			cpu_free(&w->inst[i].cpus[k]);
		}
		free(w->inst[i].cpus);
		free(w->inst[i].name);
	}
	free(w->inst);
	for (f = 0; f < w->nr_fmts; f++) {
		free(w->fmts[f].system);
		free(w->fmts[f].text);
	}
	free(w->fmts);
	free(w->cmdlines.p);
	free(w->guests.p);
	free(w->tshift.p);
	free(w);
}

int vma_tdw_instance(struct vma_tdw *w, const char *name)
{
	struct inst *in = realloc(w->inst, (size_t)(w->nr_inst + 1) * sizeof(*in));

	if (!in) {
		return -1;
	}
	w->inst = in;
	in = &w->inst[w->nr_inst];
	memset(in, 0, sizeof(*in));
	in->name = strdup(name);
	in->cpus = calloc(w->o.nr_cpus, sizeof(*in->cpus));
	if (!in->name || !in->cpus) {
		free(in->name);
		free(in->cpus);
		return -1;
	}
	return w->nr_inst++;
}

struct vma_tdw *vma_tdw_new(const struct vma_tdw_opts *opts)
{
	struct vma_tdw *w;

	if ((opts->version != 6 && opts->version != 7) || opts->nr_cpus == 0 ||
	    (opts->version == 6 && opts->codec != VMA_TDW_NONE)) {
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		return NULL;
	}
	w->o = *opts;
	if (!w->o.page_size) {
		w->o.page_size = 4096;
	}
	if (!w->o.chunk_pages) {
		w->o.chunk_pages = 8;
	}
	if (!w->o.clock) {
		w->o.clock = "local";
	}
	w->cmdlines.big = w->guests.big = w->tshift.big = opts->big_endian;
	if (vma_tdw_instance(w, "") < 0) {
		vma_tdw_free(w);
		return NULL;
	}
	return w;
}

int vma_tdw_format(struct vma_tdw *w, const char *system, const char *text)
{
	struct fmt *f = realloc(w->fmts, (w->nr_fmts + 1) * sizeof(*f));

	if (!f) {
		return -1;
	}
	w->fmts = f;
	f = &w->fmts[w->nr_fmts];
	f->system = strdup(system);
	f->text = strdup(text);
	if (!f->system || !f->text) {
		free(f->system);
		free(f->text);
		return -1;
	}
	w->nr_fmts++;
	return 0;
}

int vma_tdw_cmdline(struct vma_tdw *w, uint32_t pid, const char *comm)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%u %s\n", pid, comm);

	if (n < 0 || (size_t)n >= sizeof(line)) {
		return -1;
	}
	b_put(&w->cmdlines, line, (size_t)n);
	return w->cmdlines.oom ? -1 : 0;
}

int vma_tdw_guest(struct vma_tdw *w, const char *name, uint64_t trace_id, uint32_t nr_vcpus,
		  const uint32_t *pids)
{
	uint32_t i;

	b_num(&w->guests, 4, strlen(name) + 1 + 8 + 4 + 8ull * nr_vcpus);
	b_str(&w->guests, name);
	b_num(&w->guests, 8, trace_id);
	b_num(&w->guests, 4, nr_vcpus);
	for (i = 0; i < nr_vcpus; i++) {
		b_num(&w->guests, 4, i);
		b_num(&w->guests, 4, pids[i]);
	}
	return w->guests.oom ? -1 : 0;
}

int vma_tdw_time_shift(struct vma_tdw *w, uint64_t peer_id, int64_t offset)
{
	uint32_t i;

	w->tshift.len = 0;
	b_num(&w->tshift, 8, peer_id);
	b_num(&w->tshift, 4, 0);
	b_num(&w->tshift, 4, w->o.nr_cpus);
	for (i = 0; i < w->o.nr_cpus; i++) {
		b_num(&w->tshift, 4, 1);
		b_num(&w->tshift, 8, 0);              /* time */
		b_num(&w->tshift, 8, (uint64_t)offset);
		b_num(&w->tshift, 8, 1);              /* scaling */
	}
	for (i = 0; i < w->o.nr_cpus; i++) {
		b_num(&w->tshift, 8, 0);              /* fraction bits */
	}
	return w->tshift.oom ? -1 : 0;
}

static struct cpu_out *cpu_of(struct vma_tdw *w, int inst, uint32_t cpu)
{
	if (inst < 0 || inst >= w->nr_inst || cpu >= w->o.nr_cpus) {
		return NULL;
	}
	return &w->inst[inst].cpus[cpu];
}

static void close_page(struct vma_tdw *w, struct cpu_out *c)
{
	if (!c->open) {
		return;
	}
	vma_rbw_commit(&c->rbw, c->page_lost, c->page_lost_count);
	b_put(&c->pages, c->cur, w->o.page_size);
	c->open = false;
}

static int open_page(struct vma_tdw *w, struct cpu_out *c, uint64_t ts)
{
	if (!c->cur) {
		c->cur = malloc(w->o.page_size);
		if (!c->cur) {
			return -1;
		}
	}
	vma_rbw_start(&c->rbw, c->cur, w->o.page_size, 8, w->o.big_endian, ts);
	c->open = true;
	c->last_ts = ts;
	c->page_lost = c->lost_next;
	c->page_lost_count = c->lost_count;
	c->lost_next = false;
	return 0;
}

/* Makes room for @need bytes at @ts; returns the delta to encode. */
static int make_room(struct vma_tdw *w, struct cpu_out *c, uint64_t ts, uint32_t need,
		     uint64_t *delta)
{
	if (c->open && ts < c->last_ts) {
		return -1;
	}
	if (c->open) {
		uint64_t d = ts - c->last_ts;
		uint32_t extra = d >= 1u << TS_BITS ? 8 : 0;

		if (need + extra <= vma_rbw_room(&c->rbw)) {
			if (extra && vma_rbw_extend(&c->rbw, d) < 0) {
				return -1;
			}
			*delta = extra ? 0 : d;
			return 0;
		}
		close_page(w, c);
	}
	if (open_page(w, c, ts) < 0) {
		return -1;
	}
	*delta = 0;
	return need <= vma_rbw_room(&c->rbw) ? 0 : -1;
}

int vma_tdw_event(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t ts, const void *data,
		  uint32_t len)
{
	struct cpu_out *c = cpu_of(w, inst, cpu);
	uint32_t padded = (len + 3) & ~3u;
	uint64_t delta;

	if (!c || make_room(w, c, ts, 4 + padded + (padded > MAX_SMALL ? 4 : 0), &delta) < 0) {
		return -1;
	}
	if (vma_rbw_data(&c->rbw, (uint32_t)delta, data, len, false) < 0) {
		return -1;
	}
	c->last_ts = ts;
	return c->pages.oom ? -1 : 0;
}

int vma_tdw_discard(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t ts, uint32_t len)
{
	struct cpu_out *c = cpu_of(w, inst, cpu);
	uint64_t delta;

	if (!c || make_room(w, c, ts, 4 + ((len + 3) & ~3u), &delta) < 0) {
		return -1;
	}
	/* a discarded event's delta counts, and the kernel makes it at least 1 */
	if (delta == 0) {
		delta = 1;
		ts++;
	}
	if (vma_rbw_discard(&c->rbw, (uint32_t)delta, len) < 0) {
		return -1;
	}
	c->last_ts = ts;
	return 0;
}

int vma_tdw_stamp(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t ts)
{
	struct cpu_out *c = cpu_of(w, inst, cpu);
	uint64_t delta;

	if (!c || make_room(w, c, ts, 8 + 8, &delta) < 0) {
		return -1;
	}
	if (vma_rbw_stamp(&c->rbw, ts) < 0) {
		return -1;
	}
	c->last_ts = ts;
	return 0;
}

int vma_tdw_lost(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t count)
{
	struct cpu_out *c = cpu_of(w, inst, cpu);

	if (!c) {
		return -1;
	}
	close_page(w, c);
	c->lost_next = true;
	c->lost_count = count;
	return 0;
}

int vma_tdw_cpu_data(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t *offset,
		     uint64_t *size)
{
	struct cpu_out *c = cpu_of(w, inst, cpu);

	if (!c) {
		return -1;
	}
	*offset = c->file_off;
	*size = c->file_size;
	return 0;
}

int vma_tdw_pages(struct vma_tdw *w, int inst, uint32_t cpu, const unsigned char **pages,
		  size_t *len)
{
	struct cpu_out *c = cpu_of(w, inst, cpu);

	if (!c) {
		return -1;
	}
	close_page(w, c);
	*pages = c->pages.p;
	*len = c->pages.len;
	return 0;
}

/* ---- compression ---------------------------------------------------------- */

/* Appends {u32 csize, u32 usize, data} of @in compressed with the file's codec. */
static int put_compressed(struct vma_tdw *w, struct buf *b, const void *in, size_t len)
{
	size_t bound, csize;
	unsigned char *out;

	if (w->o.codec == VMA_TDW_ZLIB) {
		uLongf zlen = compressBound((uLong)len);

		out = malloc(zlen);
		if (!out || compress2(out, &zlen, in, (uLong)len, Z_BEST_COMPRESSION) != Z_OK) {
			free(out);
			return -1;
		}
		csize = zlen;
	} else {
		bound = ZSTD_compressBound(len);
		out = malloc(bound);
		if (!out) {
			return -1;
		}
		csize = ZSTD_compress(out, bound, in, len, 3);
		if (ZSTD_isError(csize)) {
			free(out);
			return -1;
		}
	}
	b_num(b, 4, csize);
	b_num(b, 4, len);
	b_put(b, out, csize);
	free(out);
	return b->oom ? -1 : 0;
}

static const char *codec_name(enum vma_tdw_codec c)
{
	return c == VMA_TDW_ZLIB ? "zlib" : c == VMA_TDW_ZSTD ? "zstd" : "none";
}

static const char *codec_version(enum vma_tdw_codec c)
{
	return c == VMA_TDW_ZLIB ? zlibVersion() : c == VMA_TDW_ZSTD ? ZSTD_versionString() : "";
}

/* ---- metadata shared by v6 and v7 ----------------------------------------- */

static void put_header_info(struct vma_tdw *w, struct buf *b)
{
	char page[512];
	int n = snprintf(page, sizeof(page), header_page_fmt, 8u, 16u, w->o.page_size - 16);

	b_put(b, "header_page", 12);
	b_num(b, 8, (uint64_t)n);
	b_put(b, page, (size_t)n);
	b_put(b, "header_event", 13);
	b_num(b, 8, sizeof(header_event) - 1);
	b_put(b, header_event, sizeof(header_event) - 1);
}

static void put_event_formats(struct vma_tdw *w, struct buf *b)
{
	uint32_t nsys = 0;
	size_t i, k;

	/* systems in first-seen order, each with its formats */
	for (i = 0; i < w->nr_fmts; i++) {
		for (k = 0; k < i && strcmp(w->fmts[k].system, w->fmts[i].system); k++) {
		}
		nsys += k == i;
	}
	b_num(b, 4, nsys);
	for (i = 0; i < w->nr_fmts; i++) {
		uint32_t count = 0;
		size_t j;

		for (k = 0; k < i && strcmp(w->fmts[k].system, w->fmts[i].system); k++) {
		}
		if (k != i) {
			continue;
		}
		for (j = i; j < w->nr_fmts; j++) {
			count += !strcmp(w->fmts[j].system, w->fmts[i].system);
		}
		b_str(b, w->fmts[i].system);
		b_num(b, 4, count);
		for (j = i; j < w->nr_fmts; j++) {
			if (!strcmp(w->fmts[j].system, w->fmts[i].system)) {
				b_num(b, 8, strlen(w->fmts[j].text));
				b_put(b, w->fmts[j].text, strlen(w->fmts[j].text));
			}
		}
	}
}

static void put_cmdlines(struct vma_tdw *w, struct buf *b)
{
	b_num(b, 8, w->cmdlines.len);
	b_put(b, w->cmdlines.p, w->cmdlines.len);
}

static void put_option(struct buf *b, uint32_t id, const void *data, size_t len)
{
	b_num(b, 2, id);
	b_num(b, 4, len);
	b_put(b, data, len);
}

static void put_option_u64(struct buf *b, uint32_t id, uint64_t v)
{
	unsigned char d[8];

	vma_tdw_put(d, 8, v, b->big);
	put_option(b, id, d, 8);
}

/* Options both versions carry: TRACEID, TSC2NSEC, UNAME, GUEST, TIME_SHIFT. */
static void put_common_options(struct vma_tdw *w, struct buf *b)
{
	size_t at = 0;

	if (w->o.uname) {
		put_option(b, 5, w->o.uname, strlen(w->o.uname) + 1);
	}
	if (w->o.trace_id) {
		put_option_u64(b, 11, w->o.trace_id);
	}
	if (w->o.tsc2nsec_mult) {
		unsigned char d[16];

		vma_tdw_put(d, 4, w->o.tsc2nsec_mult, b->big);
		vma_tdw_put(d + 4, 4, w->o.tsc2nsec_shift, b->big);
		vma_tdw_put(d + 8, 8, 0, b->big);
		put_option(b, 14, d, 16);
	}
	while (at + 4 <= w->guests.len) {
		const unsigned char *g = w->guests.p + at;
		uint32_t n = w->o.big_endian ?
			(uint32_t)g[0] << 24 | (uint32_t)g[1] << 16 | (uint32_t)g[2] << 8 | g[3] :
			(uint32_t)g[3] << 24 | (uint32_t)g[2] << 16 | (uint32_t)g[1] << 8 | g[0];

		put_option(b, 13, w->guests.p + at + 4, n);
		at += 4 + n;
	}
	if (w->tshift.len) {
		put_option(b, 12, w->tshift.p, w->tshift.len);
	}
}

/* Closes every open page. */
static void close_all(struct vma_tdw *w)
{
	int i;
	uint32_t k;

	for (i = 0; i < w->nr_inst; i++) {
		for (k = 0; k < w->o.nr_cpus; k++) {
			close_page(w, &w->inst[i].cpus[k]);
		}
	}
}

/* Per-cpu data of one instance at page-aligned offsets; compressed in chunks on request. */
static int put_cpu_data(struct vma_tdw *w, struct buf *b, struct inst *in, bool compressed)
{
	uint32_t k;

	for (k = 0; k < w->o.nr_cpus; k++) {
		struct cpu_out *c = &in->cpus[k];
		size_t chunk = (size_t)w->o.chunk_pages * w->o.page_size, at;
		uint32_t nr_chunks;

		b_align(b, w->o.page_size);
		c->file_off = b->len;
		if (!compressed) {
			b_put(b, c->pages.p, c->pages.len);
			c->file_size = c->pages.len;
			continue;
		}
		nr_chunks = (uint32_t)((c->pages.len + chunk - 1) / chunk);
		b_num(b, 4, nr_chunks);
		for (at = 0; at < c->pages.len; at += chunk) {
			size_t n = c->pages.len - at < chunk ? c->pages.len - at : chunk;

			if (put_compressed(w, b, c->pages.p + at, n) < 0) {
				return -1;
			}
		}
		c->file_size = b->len - c->file_off;
		if (c->pages.len == 0) {
			/* nothing recorded: trace-cmd leaves such a cpu empty */
			b->len = c->file_off;
			c->file_size = 0;
		}
	}
	return b->oom ? -1 : 0;
}

/* ---- v6 ------------------------------------------------------------------ */

static void put_preamble(struct vma_tdw *w, struct buf *b)
{
	b_put(b, "\x17\x08\x44tracing", 10);
	b_str(b, w->o.version == 6 ? "6" : "7");
	b_num(b, 1, w->o.big_endian);
	b_num(b, 1, 8);
	b_num(b, 4, w->o.page_size);
}

static void put_cpu_pairs(struct vma_tdw *w, struct buf *b, size_t *at)
{
	*at = b->len;
	b_zero(b, 16ull * w->o.nr_cpus);
}

static void patch_cpu_pairs(struct vma_tdw *w, struct buf *b, size_t at, struct inst *in)
{
	uint32_t k;

	for (k = 0; k < w->o.nr_cpus; k++) {
		b_patch(b, at + 16ull * k, 8, in->cpus[k].file_off);
		b_patch(b, at + 16ull * k + 8, 8, in->cpus[k].file_size);
	}
}

static int finish_v6(struct vma_tdw *w, struct buf *b)
{
	size_t *inst_at, top_pairs, *pairs;
	char clock[80];
	int i;

	inst_at = calloc((size_t)w->nr_inst, sizeof(*inst_at));
	pairs = calloc((size_t)w->nr_inst, sizeof(*pairs));
	if (!inst_at || !pairs) {
		free(inst_at);
		free(pairs);
		return -1;
	}
	put_preamble(w, b);
	put_header_info(w, b);
	b_num(b, 4, 0);          /* ftrace event formats */
	put_event_formats(w, b);
	b_num(b, 4, 0);          /* kallsyms */
	b_num(b, 4, 0);          /* printk formats */
	put_cmdlines(w, b);
	b_num(b, 4, w->o.nr_cpus);
	b_put(b, "options  ", 10);
	put_option(b, 4, NULL, 0); /* TRACECLOCK: the clock text follows flyrecord */
	put_common_options(w, b);
	for (i = 1; i < w->nr_inst; i++) {
		b_num(b, 2, 3);
		b_num(b, 4, 8 + strlen(w->inst[i].name) + 1);
		inst_at[i] = b->len;
		b_num(b, 8, 0);
		b_str(b, w->inst[i].name);
	}
	b_num(b, 2, 0);
	b_put(b, "flyrecord", 10);
	put_cpu_pairs(w, b, &top_pairs);
	snprintf(clock, sizeof(clock), "[%s] global", w->o.clock);
	b_num(b, 8, strlen(clock));
	b_put(b, clock, strlen(clock));
	for (i = 1; i < w->nr_inst; i++) {
		b_patch(b, inst_at[i], 8, b->len);
		b_put(b, "flyrecord", 10);
		put_cpu_pairs(w, b, &pairs[i]);
	}
	for (i = 0; i < w->nr_inst; i++) {
		if (put_cpu_data(w, b, &w->inst[i], false) < 0) {
			break;
		}
		patch_cpu_pairs(w, b, i ? pairs[i] : top_pairs, &w->inst[i]);
	}
	free(inst_at);
	free(pairs);
	return b->oom || i < w->nr_inst ? -1 : 0;
}

/* ---- v7 ------------------------------------------------------------------ */

/* A section: header, then @body (compressed when asked).  Return: its offset. */
static size_t put_section(struct vma_tdw *w, struct buf *b, uint32_t id, struct buf *body,
			  bool compress)
{
	size_t at = b->len, start;

	b_num(b, 2, id);
	b_num(b, 2, compress ? 1 : 0);
	b_num(b, 4, 0);
	b_num(b, 8, 0);
	start = b->len;
	if (compress) {
		if (put_compressed(w, b, body->p, body->len) < 0) {
			b->oom = true;
		}
	} else {
		b_put(b, body->p, body->len);
	}
	b_patch(b, at + 8, 8, b->len - start);
	return at;
}

static int finish_v7(struct vma_tdw *w, struct buf *b)
{
	bool compressed = w->o.codec != VMA_TDW_NONE;
	bool cmeta = compressed && w->o.compress_meta;
	struct buf body = { .big = w->o.big_endian };
	size_t opt_at, sec[4], opt2;
	char clock[80];
	int i;

	put_preamble(w, b);
	b_str(b, codec_name(w->o.codec));
	b_str(b, codec_version(w->o.codec));
	opt_at = b->len;
	b_num(b, 8, 0);

	put_header_info(w, &body);
	sec[0] = put_section(w, b, 16, &body, cmeta);
	body.len = 0;
	b_num(&body, 4, 0);
	sec[1] = put_section(w, b, 17, &body, cmeta);
	body.len = 0;
	put_event_formats(w, &body);
	sec[2] = put_section(w, b, 18, &body, cmeta);
	body.len = 0;
	put_cmdlines(w, &body);
	sec[3] = put_section(w, b, 21, &body, cmeta);

	/* trace data: a BUFFER section per instance */
	for (i = 0; i < w->nr_inst; i++) {
		size_t start;

		w->inst[i].section = b->len;
		b_num(b, 2, 3);
		b_num(b, 2, compressed ? 1 : 0);
		b_num(b, 4, 0);
		b_num(b, 8, 0);
		start = b->len;
		if (put_cpu_data(w, b, &w->inst[i], compressed) < 0) {
			free(body.p);
			return -1;
		}
		b_patch(b, w->inst[i].section + 8, 8, b->len - start);
	}

	/* first options section: where the metadata is, and the session options */
	body.len = 0;
	put_option_u64(&body, 16, sec[0]);
	put_option_u64(&body, 17, sec[1]);
	put_option_u64(&body, 18, sec[2]);
	put_option_u64(&body, 21, sec[3]);
	snprintf(clock, sizeof(clock), "local global [%s]", w->o.clock);
	put_option(&body, 4, clock, strlen(clock) + 1);
	put_common_options(w, &body);
	{
		unsigned char d[4];

		vma_tdw_put(d, 4, w->o.nr_cpus, w->o.big_endian);
		put_option(&body, 8, d, 4);
	}
	opt2 = body.len + 6; /* where DONE's offset lands, patched below */
	put_option_u64(&body, 0, 0);
	b_patch(b, opt_at, 8, b->len);
	{
		size_t sec_at = put_section(w, b, 0, &body, false);
		size_t next_at = sec_at + 16 + opt2;

		/* second options section: the BUFFER options */
		body.len = 0;
		for (i = 0; i < w->nr_inst; i++) {
			struct inst *in = &w->inst[i];
			struct buf ob = { .big = w->o.big_endian };
			uint32_t k;

			b_num(&ob, 8, in->section);
			b_str(&ob, in->name);
			b_str(&ob, w->o.clock);
			b_num(&ob, 4, w->o.page_size);
			b_num(&ob, 4, w->o.nr_cpus);
			for (k = 0; k < w->o.nr_cpus; k++) {
				b_num(&ob, 4, k);
				b_num(&ob, 8, in->cpus[k].file_off);
				b_num(&ob, 8, in->cpus[k].file_size);
			}
			put_option(&body, 3, ob.p, ob.len);
			free(ob.p);
		}
		put_option_u64(&body, 0, 0);
		b_patch(b, next_at, 8, b->len);
		put_section(w, b, 0, &body, compressed && w->o.compress_meta);
	}
	free(body.p);
	return b->oom || body.oom ? -1 : 0;
}

int vma_tdw_finish(struct vma_tdw *w, unsigned char **out, size_t *len)
{
	struct buf b = { .big = w->o.big_endian };
	int ret;

	close_all(w);
	ret = w->o.version == 6 ? finish_v6(w, &b) : finish_v7(w, &b);
	if (ret < 0 || b.oom) {
		free(b.p);
		return -1;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

/* ---- KVM scenarios ---------------------------------------------------------- */

/* Event ids of the scenario formats (any ids work; a reader takes them from the formats). */
enum {
	ID_ENTRY = 30,
	ID_EXIT = 31,
	ID_PIO = 32,
	ID_MMIO = 33,
	ID_MSR = 34,
	ID_USER_EXIT = 35,
	ID_APIC = 36,
	ID_SWITCH = 300,
};

#define COMMON_FIELDS(id)                                                               \
	"ID: " #id "\n"                                                                 \
	"format:\n"                                                                     \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"          \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"          \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"  \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"                      \
	"\n"

static const char fmt_entry_x86[] =
	"name: kvm_entry\n" COMMON_FIELDS(30)
	"\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"vcpu %u, rip 0x%lx\", REC->vcpu_id, REC->rip\n";

static const char fmt_exit_x86[] =
	"name: kvm_exit\n" COMMON_FIELDS(31)
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 info2;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int vcpu_id;\toffset:56;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"vcpu %u reason %s rip 0x%lx info1 0x%016llx info2 0x%016llx"
	" intr_info 0x%08x error_code 0x%08x\", REC->vcpu_id, (REC->isa == 1) ?"
	" __print_symbolic(REC->exit_reason & 0xffff, { 0, \"EXCEPTION_NMI\" },"
	" { 1, \"EXTERNAL_INTERRUPT\" }, { 10, \"CPUID\" }, { 12, \"HLT\" },"
	" { 30, \"IO_INSTRUCTION\" }, { 31, \"MSR_READ\" }, { 32, \"MSR_WRITE\" },"
	" { 44, \"APIC_ACCESS\" }, { 48, \"EPT_VIOLATION\" }, { 49, \"EPT_MISCONFIG\" },"
	" { 52, \"PREEMPTION_TIMER\" }) : __print_symbolic(REC->exit_reason,"
	" { 0x060, \"interrupt\" }, { 0x072, \"cpuid\" }, { 0x078, \"hlt\" },"
	" { 0x07b, \"io\" }, { 0x07c, \"msr\" }, { 0x400, \"npf\" }), REC->guest_rip,"
	" REC->info1, REC->info2, REC->intr_info, REC->error_code\n";

static const char fmt_entry_arm64[] =
	"name: kvm_entry\n" COMMON_FIELDS(30)
	"\tfield:unsigned long vcpu_pc;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"PC: 0x%016lx\", REC->vcpu_pc\n";

static const char fmt_exit_arm64[] =
	"name: kvm_exit\n" COMMON_FIELDS(31)
	"\tfield:int ret;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int esr_ec;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long vcpu_pc;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"%s: HSR_EC: 0x%04x (%s), PC: 0x%016lx\", __print_symbolic(REC->ret,"
	" { 0, \"IRQ\" }, { 1, \"TRAP\" }, { 3, \"HYP_GONE\" }), REC->esr_ec,"
	" __print_symbolic(REC->esr_ec, { 0x01, \"WFx\" }, { 0x16, \"HVC64\" },"
	" { 0x18, \"SYS64\" }, { 0x24, \"DABT_LOW\" }), REC->vcpu_pc\n";

static const char fmt_pio[] =
	"name: kvm_pio\n" COMMON_FIELDS(32)
	"\tfield:unsigned int rw;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int port;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int size;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int count;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int val;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"pio_%s at 0x%x size %d count %d val 0x%x\", REC->rw ? \"write\" :"
	" \"read\", REC->port, REC->size, REC->count, REC->val\n";

static const char fmt_mmio[] =
	"name: kvm_mmio\n" COMMON_FIELDS(33)
	"\tfield:u32 type;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 len;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 gpa;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 val;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"mmio %s len %u gpa 0x%llx val 0x%llx\", __print_symbolic(REC->type,"
	" { 0, \"unsatisfied-read\" }, { 1, \"read\" }, { 2, \"write\" }), REC->len,"
	" REC->gpa, REC->val\n";

static const char fmt_msr[] =
	"name: kvm_msr\n" COMMON_FIELDS(34)
	"\tfield:unsigned int write;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 ecx;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 data;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u8 exception;\toffset:24;\tsize:1;\tsigned:0;\n"
	"\n"
	"print fmt: \"msr_%s %x = 0x%llx%s\", REC->write ? \"write\" : \"read\", REC->ecx,"
	" REC->data, REC->exception ? \" (#GP)\" : \"\"\n";

static const char fmt_user_exit[] =
	"name: kvm_userspace_exit\n" COMMON_FIELDS(35)
	"\tfield:__u32 reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int errno;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"reason %s (%d)\", __print_symbolic(REC->reason, { 0, \"KVM_EXIT_UNKNOWN\" },"
	" { 2, \"KVM_EXIT_IO\" }, { 6, \"KVM_EXIT_MMIO\" }), REC->errno\n";

static const char fmt_apic[] =
	"name: kvm_apic\n" COMMON_FIELDS(36)
	"\tfield:unsigned int rw;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int reg;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int val;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"apic_%s 0x%x = 0x%x\", REC->rw ? \"write\" : \"read\", REC->reg, REC->val\n";

static const char fmt_switch[] =
	"name: sched_switch\n" COMMON_FIELDS(300)
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s"
	" next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio,"
	" REC->prev_state ? \"S\" : \"R\", REC->next_comm, REC->next_pid, REC->next_prio\n";

/* TSC at 2.5 GHz: ns = tsc * 858993459 >> 31 */
#define SIM_TSC_MULT 858993459u
#define SIM_TSC_SHIFT 31u
#define SIM_START_NS 5000000000000ull
#define SIM_PID_BASE 2000u

struct sim {
	const struct vma_mkdat_opts *o;
	struct vma_tdw *w;
	uint64_t rng;
	struct vma_mkdat_rec *recs;
	size_t nr, cap;
	int inst2;                 /* the extra instance, or -1 */
	uint64_t last_time[2][64]; /* per instance and cpu: record time of the last record */
	bool failed;
};

static uint32_t rnd(struct sim *s, uint32_t n)
{
	/* xorshift64*: deterministic across platforms */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return n ? (uint32_t)((s->rng * 2685821657736338717ull) >> 33) % n : 0;
}

static uint64_t to_ns(const struct sim *s, uint64_t t)
{
	return s->o->tsc ? (uint64_t)(((unsigned __int128)t * SIM_TSC_MULT) >> SIM_TSC_SHIFT) : t;
}

/* Ticks of the file clock for @ns nanoseconds. */
static uint64_t ticks(const struct sim *s, uint64_t ns)
{
	return s->o->tsc ? ns * 5 / 2 : ns;
}

static struct vma_mkdat_rec *truth(struct sim *s, int inst, uint32_t cpu, uint64_t t,
				   uint32_t pid, uint32_t event, uint16_t nr)
{
	struct vma_mkdat_rec *r;

	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct vma_mkdat_rec *p = realloc(s->recs, cap * sizeof(*p));

		if (!p) {
			s->failed = true;
			return NULL;
		}
		s->recs = p;
		s->cap = cap;
	}
	r = &s->recs[s->nr++];
	memset(r, 0, sizeof(*r));
	r->time = to_ns(s, t);
	r->inst = inst > 0;
	r->cpu = cpu;
	r->pid = pid;
	r->event = event;
	r->nr_data = nr;
	s->last_time[inst > 0][cpu % 64] = r->time;
	return r;
}

static void put_u64_words(uint32_t *w, uint64_t v)
{
	w[0] = (uint32_t)v;
	w[1] = (uint32_t)(v >> 32);
}

/* One field of a scenario event: where it goes in the payload and in the record. */
struct fv {
	uint8_t off, size;  /* in the event */
	uint64_t val;
	int8_t word;        /* first record word, -1: not in the record */
};

/*
 * Writes an event of @len bytes with the common fields and @f, and the
 * record a reader should make of it (@nr words, 8-byte fields as two).
 */
static struct vma_mkdat_rec *emit(struct sim *s, int inst, uint32_t cpu, uint64_t t,
				  uint32_t pid, uint32_t id, uint32_t len, uint32_t event,
				  uint16_t nr, const struct fv *f, size_t nf)
{
	unsigned char ev[64] = { 0 };
	bool big = s->o->big_endian;
	struct vma_mkdat_rec *r;
	size_t i;

	vma_tdw_put(ev, 2, id, big);
	vma_tdw_put(ev + 4, 4, pid, big);
	for (i = 0; i < nf; i++) {
		vma_tdw_put(ev + f[i].off, f[i].size, f[i].val, big);
	}
	if (vma_tdw_event(s->w, inst, cpu, t, ev, len) < 0) {
		s->failed = true;
	}
	r = truth(s, inst, cpu, t, pid, event, nr);
	for (i = 0; r && i < nf; i++) {
		if (f[i].word < 0) {
			continue;
		}
		if (f[i].size == 8) {
			put_u64_words(&r->data[f[i].word], f[i].val);
		} else {
			r->data[f[i].word] = (uint32_t)f[i].val;
		}
	}
	return r;
}

#define FIELDS(...) (const struct fv[]){ __VA_ARGS__ }, \
	sizeof((const struct fv[]){ __VA_ARGS__ }) / sizeof(struct fv)

static void ev_entry(struct sim *s, uint32_t cpu, uint64_t t, uint32_t vcpu, uint64_t rip)
{
	uint32_t pid = SIM_PID_BASE + vcpu;
	struct vma_mkdat_rec *r;

	if (s->o->arch == VMA_MKDAT_ARM64) {
		r = emit(s, 0, cpu, t, pid, ID_ENTRY, 16, VMA_KVM_ENTRY, 6,
			 FIELDS({ 8, 8, rip, 1 }));
		if (r) {
			r->data[0] = VMA_KVM_NO_VCPU;
		}
		return;
	}
	emit(s, 0, cpu, t, pid, ID_ENTRY, 24, VMA_KVM_ENTRY, 6,
	     FIELDS({ 8, 4, vcpu, 0 }, { 16, 8, rip, 1 }));
}

static void ev_exit(struct sim *s, uint32_t cpu, uint64_t t, uint32_t vcpu, uint32_t reason,
		    uint32_t esr_ec, uint64_t rip, uint64_t info1)
{
	uint32_t isa = s->o->arch == VMA_MKDAT_SVM ? VMA_KVM_ISA_SVM : VMA_KVM_ISA_VMX;
	uint32_t pid = SIM_PID_BASE + vcpu;
	struct vma_mkdat_rec *r;

	if (s->o->arch == VMA_MKDAT_ARM64) {
		r = emit(s, 0, cpu, t, pid, ID_EXIT, 24, VMA_KVM_EXIT, 7,
			 FIELDS({ 8, 4, reason, 0 }, { 12, 4, esr_ec, 5 }, { 16, 8, rip, 3 }));
		if (r) {
			r->data[1] = VMA_KVM_ISA_ARM64;
			r->data[2] = VMA_KVM_NO_VCPU;
			/* this format's print symbols name ret 1 TRAP */
			r->data[6] = reason == 1;
		}
		return;
	}
	emit(s, 0, cpu, t, pid, ID_EXIT, 64, VMA_KVM_EXIT, 11,
	     FIELDS({ 8, 4, reason, 0 }, { 16, 8, rip, 3 }, { 24, 4, isa, 1 },
		    { 32, 8, info1, 5 }, { 56, 4, vcpu, 2 }));
}

static void ev_pio(struct sim *s, uint32_t cpu, uint64_t t, uint32_t pid, uint32_t rw,
		   uint32_t port, uint32_t size, uint32_t val)
{
	emit(s, 0, cpu, t, pid, ID_PIO, 28, VMA_KVM_PIO, 5,
	     FIELDS({ 8, 4, rw, 0 }, { 12, 4, port, 1 }, { 16, 4, size, 2 }, { 20, 4, 1, 3 },
		    { 24, 4, val, 4 }));
}

static void ev_mmio(struct sim *s, uint32_t cpu, uint64_t t, uint32_t pid, uint32_t type,
		    uint64_t gpa, uint64_t val)
{
	emit(s, 0, cpu, t, pid, ID_MMIO, 32, VMA_KVM_MMIO, 6,
	     FIELDS({ 8, 4, type, 0 }, { 12, 4, 4, 1 }, { 16, 8, gpa, 2 }, { 24, 8, val, 4 }));
}

static void ev_msr(struct sim *s, uint32_t cpu, uint64_t t, uint32_t pid, uint32_t write,
		   uint32_t ecx, uint64_t data)
{
	emit(s, 0, cpu, t, pid, ID_MSR, 25, VMA_KVM_MSR, 5,
	     FIELDS({ 8, 4, write, 0 }, { 12, 4, ecx, 1 }, { 16, 8, data, 2 }));
}

static void ev_user_exit(struct sim *s, int inst, uint32_t cpu, uint64_t t, uint32_t pid,
			 uint32_t reason)
{
	emit(s, inst, cpu, t, pid, ID_USER_EXIT, 16, VMA_KVM_USERSPACE_EXIT, 2,
	     FIELDS({ 8, 4, reason, 0 }));
}

static void ev_apic(struct sim *s, uint32_t cpu, uint64_t t, uint32_t pid, uint32_t reg)
{
	/* not one of vmalyze's events: [0] is the reader's table index, [1] the id */
	struct vma_mkdat_rec *r = emit(s, 0, cpu, t, pid, ID_APIC, 20, VMA_KVM_OTHER, 2,
				       FIELDS({ 8, 4, 1, -1 }, { 12, 4, reg, -1 },
					      { 16, 4, 0x30, -1 }));

	if (r) {
		r->data[0] = UINT32_MAX;
		r->data[1] = ID_APIC;
	}
}

static void comm_words(uint32_t *w, const char *comm)
{
	size_t i;

	for (i = 0; i < 16 && comm[i]; i++) {
		w[i / 4] |= (uint32_t)(unsigned char)comm[i] << (8 * (i % 4));
	}
}

static void ev_switch(struct sim *s, uint32_t cpu, uint64_t t, uint32_t prev, const char *pcomm,
		      uint32_t state, uint32_t next, const char *ncomm)
{
	unsigned char ev[64] = { 0 };
	bool big = s->o->big_endian;
	struct vma_mkdat_rec *r;

	vma_tdw_put(ev, 2, ID_SWITCH, big);
	vma_tdw_put(ev + 4, 4, prev, big);
	memcpy(ev + 8, pcomm, strnlen(pcomm, 15));
	vma_tdw_put(ev + 24, 4, prev, big);
	vma_tdw_put(ev + 28, 4, 120, big);
	vma_tdw_put(ev + 32, 8, state, big);
	memcpy(ev + 40, ncomm, strnlen(ncomm, 15));
	vma_tdw_put(ev + 56, 4, next, big);
	vma_tdw_put(ev + 60, 4, 120, big);
	if (vma_tdw_event(s->w, 0, cpu, t, ev, 64) < 0) {
		s->failed = true;
	}
	r = truth(s, 0, cpu, t, prev, VMA_KVM_SCHED_SWITCH, 12);
	if (r) {
		r->data[0] = prev;
		r->data[1] = next;
		r->data[2] = state;
		r->data[3] = 120 | 120u << 16;
		comm_words(&r->data[4], ncomm);
		comm_words(&r->data[8], pcomm);
	}
}

/* x86 exit reasons of the scenario, as VMX and SVM number them. */
enum sim_reason { R_IO, R_MMIO, R_MSR_R, R_MSR_W, R_HLT, R_INTR, R_CPUID, R_APIC, R_NR };

static const uint32_t vmx_code[R_NR] = { 30, 49, 31, 32, 12, 1, 10, 44 };
static const uint32_t svm_code[R_NR] = { 0x7b, 0x400, 0x7c, 0x7c, 0x78, 0x60, 0x72, 0x400 };
/* arm64: ret (0 IRQ, 1 TRAP) and esr_ec per kind */
static const uint32_t arm_ret[R_NR] = { 1, 1, 1, 1, 1, 0, 1, 1 };
static const uint32_t arm_ec[R_NR] = { 0x24, 0x24, 0x18, 0x18, 0x01, 0, 0x16, 0x24 };

static enum sim_reason pick_reason(struct sim *s)
{
	static const uint8_t weight[R_NR] = { 20, 15, 8, 12, 20, 10, 5, 10 };
	uint32_t x = rnd(s, 100), acc = 0;
	int r;

	for (r = 0; r < R_NR; r++) {
		acc += weight[r];
		if (x < acc) {
			return (enum sim_reason)r;
		}
	}
	return R_INTR;
}

/* One vcpu's exits on @cpu from time @t; returns the time it ends. */
static uint64_t run_vcpu(struct sim *s, uint32_t cpu, uint32_t vcpu, uint64_t t, uint32_t exits,
			 bool extras)
{
	bool arm = s->o->arch == VMA_MKDAT_ARM64, svm = s->o->arch == VMA_MKDAT_SVM;
	uint32_t pid = SIM_PID_BASE + vcpu, i;
	uint64_t rip = 0xffffffff81000000ull + 0x1000ull * vcpu;
	char comm[16], idle[16];

	snprintf(comm, sizeof(comm), "CPU %u/KVM", vcpu);
	snprintf(idle, sizeof(idle), "swapper/%u", cpu);
	ev_entry(s, cpu, t, vcpu, rip);
	for (i = 0; i < exits && !s->failed; i++) {
		enum sim_reason r = pick_reason(s);
		uint32_t code = arm ? arm_ret[r] : svm ? svm_code[r] : vmx_code[r];
		uint64_t info1 = 0;

		t += ticks(s, 2000 + rnd(s, 300000));
		rip = 0xffffffff81000000ull + 0x10ull * rnd(s, 4096);
		if (!arm && r == R_MSR_W && svm) {
			info1 = 1;
		}
		ev_exit(s, cpu, t, vcpu, code, arm_ec[r], rip, info1);
		t += ticks(s, 500 + rnd(s, 2500));
		switch (r) {
		case R_IO:
			if (arm) {
				ev_mmio(s, cpu, t, pid, 2, 0x9000000, rnd(s, 256));
			} else {
				ev_pio(s, cpu, t, pid, rnd(s, 2), rnd(s, 2) ? 0x3f8 : 0x70, 1,
				       rnd(s, 256));
			}
			if (rnd(s, 2)) {
				t += ticks(s, 3000);
				ev_user_exit(s, 0, cpu, t, pid, arm ? 6 : 2);
				t += ticks(s, 20000 + rnd(s, 40000));
			}
			break;
		case R_MMIO:
			ev_mmio(s, cpu, t, pid, 1 + rnd(s, 2), 0xfebf0000ull + 4 * rnd(s, 64),
				rnd(s, 65536));
			if (rnd(s, 2)) {
				t += ticks(s, 3000);
				ev_user_exit(s, 0, cpu, t, pid, 6);
				t += ticks(s, 20000 + rnd(s, 40000));
			}
			break;
		case R_MSR_R:
		case R_MSR_W:
			if (!arm) {
				ev_msr(s, cpu, t, pid, r == R_MSR_W, rnd(s, 2) ? 0x6e0 : 0x1b,
				       0xfee00900ull + rnd(s, 4096));
			}
			break;
		case R_HLT: {
			/* now and then a long sleep, longer than a 27-bit delta can say */
			uint64_t sleep = extras && rnd(s, 20) == 0 ? 300000000ull :
				50000 + rnd(s, 2000000);

			ev_switch(s, cpu, t, pid, comm, 1, 0, idle);
			t += ticks(s, sleep);
			ev_switch(s, cpu, t, 0, idle, 0, pid, comm);
			t += ticks(s, 2000);
			break;
		}
		case R_APIC:
			if (!arm) {
				ev_apic(s, cpu, t, pid, 0x300 + 0x10 * rnd(s, 8));
			}
			break;
		case R_INTR:
		case R_CPUID:
		case R_NR:
			break;
		}
		t += ticks(s, 1000 + rnd(s, 9000));
		ev_entry(s, cpu, t, vcpu, rip + 2);
	}
	return t;
}

static int sim_formats(struct sim *s)
{
	bool arm = s->o->arch == VMA_MKDAT_ARM64;
	int ret = 0;

	ret |= vma_tdw_format(s->w, "kvm", arm ? fmt_entry_arm64 : fmt_entry_x86);
	ret |= vma_tdw_format(s->w, "kvm", arm ? fmt_exit_arm64 : fmt_exit_x86);
	ret |= vma_tdw_format(s->w, "kvm", fmt_pio);
	ret |= vma_tdw_format(s->w, "kvm", fmt_mmio);
	ret |= vma_tdw_format(s->w, "kvm", fmt_msr);
	ret |= vma_tdw_format(s->w, "kvm", fmt_user_exit);
	ret |= vma_tdw_format(s->w, "kvm", fmt_apic);
	ret |= vma_tdw_format(s->w, "sched", fmt_switch);
	return ret ? -1 : 0;
}

/* The extras on cpu 0: a discarded event, an absolute stamp, lost events, an instance. */
static void sim_extras_before(struct sim *s, uint64_t t)
{
	if (vma_tdw_discard(s->w, 0, 0, t, 24) < 0 || vma_tdw_stamp(s->w, 0, 0, t + 2) < 0) {
		s->failed = true;
	}
}

static void sim_lost(struct sim *s, uint32_t cpu, uint64_t count)
{
	struct vma_mkdat_rec *r;
	uint64_t prev = s->last_time[0][cpu % 64];

	if (vma_tdw_lost(s->w, 0, cpu, count) < 0) {
		s->failed = true;
		return;
	}
	/* the record comes at the next page's time: patched in by the caller */
	r = truth(s, 0, cpu, 0, 0, VMA_KVM_LOST, 4);
	if (r) {
		put_u64_words(&r->data[0], count);
		put_u64_words(&r->data[2], prev);
	}
}

/* Replaces the trace.dat image by a vm-trace dump of cpu 0, and keeps cpu 0's records. */
static int raw_image(struct sim *s, unsigned char **file, size_t *len)
{
	const unsigned char *pages;
	size_t n, i, k;
	unsigned char *img;

	if (vma_tdw_pages(s->w, 0, 0, &pages, &n) < 0) {
		return -1;
	}
	img = malloc(8 + n);
	if (!img) {
		return -1;
	}
	vma_tdw_put(img, 4, 0xcce96d01u, false);
	vma_tdw_put(img + 4, 2, ID_ENTRY, false);
	vma_tdw_put(img + 6, 2, ID_EXIT, false);
	memcpy(img + 8, pages, n);
	free(*file);
	*file = img;
	*len = 8 + n;
	for (i = 0, k = 0; i < s->nr; i++) {
		if (s->recs[i].cpu == 0 && s->recs[i].inst == 0) {
			s->recs[k++] = s->recs[i];
		}
	}
	s->nr = k;
	return 0;
}

int vma_mkdat_formats(enum vma_mkdat_arch arch, int (*put)(void *arg, const char *system,
							    const char *name, const char *text),
		      void *arg)
{
	static const struct {
		const char *system, *name, *x86, *arm;
	} f[] = {
		{ "kvm", "kvm_entry", fmt_entry_x86, fmt_entry_arm64 },
		{ "kvm", "kvm_exit", fmt_exit_x86, fmt_exit_arm64 },
		{ "kvm", "kvm_pio", fmt_pio, fmt_pio },
		{ "kvm", "kvm_mmio", fmt_mmio, fmt_mmio },
		{ "kvm", "kvm_msr", fmt_msr, fmt_msr },
		{ "kvm", "kvm_userspace_exit", fmt_user_exit, fmt_user_exit },
		{ "kvm", "kvm_apic", fmt_apic, fmt_apic },
		{ "sched", "sched_switch", fmt_switch, fmt_switch },
	};
	char page[512];
	size_t i;
	int n = snprintf(page, sizeof(page), header_page_fmt, 8u, 16u, 4096u - 16);

	if (n < 0 || put(arg, NULL, "header_page", page) < 0 ||
	    put(arg, NULL, "header_event", header_event) < 0) {
		return -1;
	}
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (put(arg, f[i].system, f[i].name, arch == VMA_MKDAT_ARM64 ? f[i].arm :
			f[i].x86) < 0) {
			return -1;
		}
	}
	return 0;
}

int vma_mkdat_build(const struct vma_mkdat_opts *opts, unsigned char **file, size_t *len,
		    struct vma_mkdat_rec **recs, size_t *nr_recs)
{
	struct vma_mkdat_opts o = *opts;
	struct vma_tdw_opts wo;
	struct sim s;
	uint32_t cpu, v, *pids;
	size_t i;
	char comm[32];

	if (!o.nr_cpus) {
		o.nr_cpus = 2;
	}
	if (!o.nr_vcpus) {
		o.nr_vcpus = 2;
	}
	if (!o.exits) {
		o.exits = 200;
	}
	if (o.nr_cpus > 64 || (o.raw && (o.nr_cpus != 1 || o.big_endian))) {
		return -1;
	}
	memset(&wo, 0, sizeof(wo));
	wo.version = o.version;
	wo.codec = o.codec;
	wo.big_endian = o.big_endian;
	wo.nr_cpus = o.nr_cpus;
	wo.clock = o.tsc ? "x86-tsc" : "local";
	wo.tsc2nsec_mult = o.tsc ? SIM_TSC_MULT : 0;
	wo.tsc2nsec_shift = o.tsc ? SIM_TSC_SHIFT : 0;
	wo.trace_id = 0x766d616c797a6500ull | o.seed;
	wo.compress_meta = o.extras;
	wo.uname = o.arch == VMA_MKDAT_ARM64 ? "Linux fixture 6.6.0 aarch64" :
		"Linux fixture 6.6.0 x86_64";
	memset(&s, 0, sizeof(s));
	s.o = &o;
	s.rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)o.seed << 17 | o.arch);
	s.inst2 = -1;
	s.w = vma_tdw_new(&wo);
	if (!s.w || sim_formats(&s) < 0) {
		vma_tdw_free(s.w);
		return -1;
	}
	pids = calloc(o.nr_vcpus, sizeof(*pids));
	if (!pids) {
		vma_tdw_free(s.w);
		return -1;
	}
	for (v = 0; v < o.nr_vcpus; v++) {
		pids[v] = SIM_PID_BASE + v;
		snprintf(comm, sizeof(comm), "CPU %u/KVM", v);
		s.failed |= vma_tdw_cmdline(s.w, pids[v], comm) < 0;
	}
	if (o.arch != VMA_MKDAT_ARM64) {
		s.failed |= vma_tdw_guest(s.w, "fixture-guest", 0x6775657374ull, o.nr_vcpus,
					  pids) < 0;
	}
	free(pids);
	if (o.extras) {
		s.inst2 = vma_tdw_instance(s.w, "vmexit");
		s.failed |= s.inst2 < 0;
	}

	for (cpu = 0; cpu < o.nr_cpus && !s.failed; cpu++) {
		uint64_t t = ticks(&s, SIM_START_NS + 1000ull * cpu);

		if (o.extras && cpu == 0) {
			sim_extras_before(&s, t);
			t += 10;
		}
		for (v = cpu; v < o.nr_vcpus; v += o.nr_cpus) {
			if (o.extras && cpu == o.nr_cpus - 1 && v + o.nr_cpus >= o.nr_vcpus) {
				/* lost events half-way through the last cpu's last vcpu */
				t = run_vcpu(&s, cpu, v, t, o.exits / 2, true);
				sim_lost(&s, cpu, 17);
				t += ticks(&s, 100000);
				t = run_vcpu(&s, cpu, v, t, o.exits - o.exits / 2, true);
			} else {
				t = run_vcpu(&s, cpu, v, t, o.exits, o.extras);
			}
			t += ticks(&s, 5000);
		}
		if (o.extras && s.inst2 > 0) {
			ev_user_exit(&s, s.inst2, cpu, ticks(&s, SIM_START_NS + 500), 1, 0);
		}
	}
	if (s.failed || vma_tdw_finish(s.w, file, len) < 0 ||
	    (o.raw && raw_image(&s, file, len) < 0)) {
		vma_tdw_free(s.w);
		free(s.recs);
		return -1;
	}
	/* a lost record takes the time of the event after it; OTHER the table index */
	for (i = 0; i < s.nr; i++) {
		if (s.recs[i].event == VMA_KVM_LOST) {
			size_t k;

			for (k = i + 1; k < s.nr; k++) {
				const struct vma_mkdat_rec *n = &s.recs[k];

				if (n->cpu == s.recs[i].cpu && n->inst == s.recs[i].inst) {
					s.recs[i].time = s.recs[k].time;
					break;
				}
			}
		}
	}
	vma_tdw_free(s.w);
	*recs = s.recs;
	*nr_recs = s.nr;
	return 0;
}
