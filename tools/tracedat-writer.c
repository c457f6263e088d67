/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace.dat v6/v7 container writer for test fixtures (see
 * tracedat-writer.h).  Everything is built in memory: fixtures are small,
 * and offsets written early (v6 cpu data, v7 options) are patched in place.
 * Pages are filled by the ring-buffer page writer (ringbuf-writer.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "tracedat-writer.h"
#include "vmalyze/grow.h"

#define TS_BITS VMA_RBW_TS_BITS
#define MAX_SMALL VMA_RBW_MAX_SMALL

/* ---- growable byte buffer ------------------------------------------------- */

struct buf {
	unsigned char *p;
	size_t len, cap;
	bool oom;
	bool big;
};

static unsigned char *b_room(struct buf *b, size_t n)
{
	if (b->oom)
		return NULL;
	if (n > SIZE_MAX - b->len || vma_grow(b->p, &b->cap, b->len + n, 4096) < 0) {
		b->oom = true;
		return NULL;
	}
	b->len += n;
	return b->p + b->len - n;
}

static void b_put(struct buf *b, const void *d, size_t n)
{
	unsigned char *p = b_room(b, n);

	if (p && n)
		memcpy(p, d, n);
}

static void b_num(struct buf *b, uint32_t size, uint64_t v)
{
	unsigned char *p = b_room(b, size);

	if (p)
		vma_tdw_put(p, size, v, b->big);
}

static void b_str(struct buf *b, const char *s)
{
	b_put(b, s, strlen(s) + 1);
}

static void b_zero(struct buf *b, size_t n)
{
	unsigned char *p = b_room(b, n);

	if (p)
		memset(p, 0, n);
}

static void b_align(struct buf *b, size_t a)
{
	b_zero(b, (a - b->len % a) % a);
}

static void b_patch(struct buf *b, size_t at, uint32_t size, uint64_t v)
{
	if (!b->oom && at + size <= b->len)
		vma_tdw_put(b->p + at, size, v, b->big);
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
	size_t nr_fmts, cap_fmts;
	struct buf cmdlines;
	struct buf guests;       /* GUEST option bodies, each prefixed by its u32 size */
	struct buf tshift;       /* TIME_SHIFT option body */
};


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

	if (!w)
		return;
	for (i = 0; i < w->nr_inst; i++) {
		for (k = 0; k < w->o.nr_cpus; k++)
			cpu_free(&w->inst[i].cpus[k]);
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

	if (!in)
		return -1;
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
	if (!w)
		return NULL;
	w->o = *opts;
	if (!w->o.page_size)
		w->o.page_size = 4096;
	if (!w->o.chunk_pages)
		w->o.chunk_pages = 8;
	if (!w->o.clock)
		w->o.clock = "local";
	w->cmdlines.big = w->guests.big = w->tshift.big = opts->big_endian;
	if (vma_tdw_instance(w, "") < 0) {
		vma_tdw_free(w);
		return NULL;
	}
	return w;
}

int vma_tdw_format(struct vma_tdw *w, const char *system, const char *text)
{
	struct fmt *f;

	/* doubling: 100,000 formats one realloc each copied gigabytes under ASan */
	if (vma_grow(w->fmts, &w->cap_fmts, w->nr_fmts + 1, 64) < 0)
		return -1;
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

	if (n < 0 || (size_t)n >= sizeof(line))
		return -1;
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
	if (inst < 0 || inst >= w->nr_inst || cpu >= w->o.nr_cpus)
		return NULL;
	return &w->inst[inst].cpus[cpu];
}

static void close_page(struct vma_tdw *w, struct cpu_out *c)
{
	if (!c->open)
		return;
	vma_rbw_commit(&c->rbw, c->page_lost, c->page_lost_count);
	b_put(&c->pages, c->cur, w->o.page_size);
	c->open = false;
}

static int open_page(struct vma_tdw *w, struct cpu_out *c, uint64_t ts)
{
	if (!c->cur) {
		c->cur = malloc(w->o.page_size);
		if (!c->cur)
			return -1;
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
	if (c->open && ts < c->last_ts)
		return -1;
	if (c->open) {
		uint64_t d = ts - c->last_ts;
		uint32_t extra = d >= 1u << TS_BITS ? 8 : 0;

		if (need + extra <= vma_rbw_room(&c->rbw)) {
			if (extra && vma_rbw_extend(&c->rbw, d) < 0)
				return -1;
			*delta = extra ? 0 : d;
			return 0;
		}
		close_page(w, c);
	}
	if (open_page(w, c, ts) < 0)
		return -1;
	*delta = 0;
	return need <= vma_rbw_room(&c->rbw) ? 0 : -1;
}

int vma_tdw_event(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t ts, const void *data,
		  uint32_t len)
{
	struct cpu_out *c = cpu_of(w, inst, cpu);
	uint32_t padded = (len + 3) & ~3u;
	uint64_t delta;

	if (!c || make_room(w, c, ts, 4 + padded + (padded > MAX_SMALL ? 4 : 0), &delta) < 0)
		return -1;
	if (vma_rbw_data(&c->rbw, (uint32_t)delta, data, len, false) < 0)
		return -1;
	c->last_ts = ts;
	return c->pages.oom ? -1 : 0;
}

int vma_tdw_discard(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t ts, uint32_t len)
{
	struct cpu_out *c = cpu_of(w, inst, cpu);
	uint64_t delta;

	if (!c || make_room(w, c, ts, 4 + ((len + 3) & ~3u), &delta) < 0)
		return -1;
	/* a discarded event's delta counts, and the kernel makes it at least 1 */
	if (delta == 0) {
		delta = 1;
		ts++;
	}
	if (vma_rbw_discard(&c->rbw, (uint32_t)delta, len) < 0)
		return -1;
	c->last_ts = ts;
	return 0;
}

int vma_tdw_stamp(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t ts)
{
	struct cpu_out *c = cpu_of(w, inst, cpu);
	uint64_t delta;

	if (!c || make_room(w, c, ts, 8 + 8, &delta) < 0)
		return -1;
	if (vma_rbw_stamp(&c->rbw, ts) < 0)
		return -1;
	c->last_ts = ts;
	return 0;
}

int vma_tdw_lost(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t count)
{
	struct cpu_out *c = cpu_of(w, inst, cpu);

	if (!c)
		return -1;
	close_page(w, c);
	c->lost_next = true;
	c->lost_count = count;
	return 0;
}

int vma_tdw_cpu_data(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t *offset,
		     uint64_t *size)
{
	struct cpu_out *c = cpu_of(w, inst, cpu);

	if (!c)
		return -1;
	*offset = c->file_off;
	*size = c->file_size;
	return 0;
}

int vma_tdw_pages(struct vma_tdw *w, int inst, uint32_t cpu, const unsigned char **pages,
		  size_t *len)
{
	struct cpu_out *c = cpu_of(w, inst, cpu);

	if (!c)
		return -1;
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
		if (!out)
			return -1;
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
	int n = vma_rbw_header_page(page, sizeof(page), w->o.page_size);

	b_put(b, "header_page", 12);
	b_num(b, 8, (uint64_t)n);
	b_put(b, page, (size_t)n);
	b_put(b, "header_event", 13);
	b_num(b, 8, strlen(vma_rbw_header_event));
	b_put(b, vma_rbw_header_event, strlen(vma_rbw_header_event));
}

/*
 * Systems in first-seen order, each with its formats: a pass over the
 * formats per system (a few), not per format (a file of a million formats
 * in ten systems took minutes).
 */
static void put_event_formats(struct vma_tdw *w, struct buf *b)
{
	const char **sys = NULL;
	size_t nsys = 0, cap = 0, i, k;

	for (i = 0; i < w->nr_fmts; i++) {
		for (k = nsys; k > 0 && strcmp(sys[k - 1], w->fmts[i].system); k--) {
		}
		if (k == 0) {
			if (vma_grow(sys, &cap, nsys + 1, 8) < 0) {
				b->oom = true;
				free(sys);
				return;
			}
			sys[nsys++] = w->fmts[i].system;
		}
	}
	b_num(b, 4, nsys);
	for (k = 0; k < nsys; k++) {
		uint32_t count = 0;

		for (i = 0; i < w->nr_fmts; i++)
			count += !strcmp(w->fmts[i].system, sys[k]);
		b_str(b, sys[k]);
		b_num(b, 4, count);
		for (i = 0; i < w->nr_fmts; i++) {
			if (!strcmp(w->fmts[i].system, sys[k])) {
				b_num(b, 8, strlen(w->fmts[i].text));
				b_put(b, w->fmts[i].text, strlen(w->fmts[i].text));
			}
		}
	}
	free(sys);
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

	if (w->o.uname)
		put_option(b, 5, w->o.uname, strlen(w->o.uname) + 1);
	if (w->o.trace_id)
		put_option_u64(b, 11, w->o.trace_id);
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
	if (w->tshift.len)
		put_option(b, 12, w->tshift.p, w->tshift.len);
}

/* Closes every open page. */
static void close_all(struct vma_tdw *w)
{
	int i;
	uint32_t k;

	for (i = 0; i < w->nr_inst; i++) {
		for (k = 0; k < w->o.nr_cpus; k++)
			close_page(w, &w->inst[i].cpus[k]);
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

			if (put_compressed(w, b, c->pages.p + at, n) < 0)
				return -1;
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

/* kallsyms or printk formats: a 4-byte size, then the text (none: size 0). */
static void put_symbols(struct buf *b, const char *text)
{
	size_t n = text ? strlen(text) : 0;

	b_num(b, 4, n);
	b_put(b, text, n);
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
	put_symbols(b, w->o.kallsyms);
	put_symbols(b, w->o.printk);
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
		if (put_cpu_data(w, b, &w->inst[i], false) < 0)
			break;
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
		if (put_compressed(w, b, body->p, body->len) < 0)
			b->oom = true;
	} else {
		b_put(b, body->p, body->len);
	}
	b_patch(b, at + 8, 8, b->len - start);
	return at;
}

/* v7: the KALLSYMS and PRINTK sections of the texts given; sym[] their offsets, 0 if none. */
static void put_symbol_sections(struct vma_tdw *w, struct buf *b, struct buf *body, bool cmeta,
				size_t sym[2])
{
	int i;

	for (i = 0; i < 2; i++) {
		const char *text = i ? w->o.printk : w->o.kallsyms;

		if (!text)
			continue;
		body->len = 0;
		put_symbols(body, text);
		sym[i] = put_section(w, b, 19 + i, body, cmeta);
	}
}

static int finish_v7(struct vma_tdw *w, struct buf *b)
{
	bool compressed = w->o.codec != VMA_TDW_NONE;
	bool cmeta = compressed && w->o.compress_meta;
	struct buf body = { .big = w->o.big_endian };
	size_t opt_at, sec[4], sym[2] = { 0, 0 }, opt2;
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
	put_symbol_sections(w, b, &body, cmeta, sym);

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
	for (i = 0; i < 2; i++) {
		if (sym[i])
			put_option_u64(&body, 19 + i, sym[i]);
	}
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
