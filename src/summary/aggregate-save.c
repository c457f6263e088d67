/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The save file of batch results (--save, `vmalyze merge`): every trace
 * of the aggregate with its whole distributions, then their sum by exit
 * reason (for other readers; a load checks it is the sum of the traces,
 * and merges the traces, which is what is exact), in the binary layout
 * doc/save-format.md describes (little-endian, length-prefixed strings).
 * Binary rather than JSON because a sketch is thousands of integer
 * buckets and the reader must check every one anyway.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "summary/aggregate-internal.h"
#include "vmalyze/grow.h"
#include "vmalyze/status.h"

#define SAVE_MAGIC "VMALYZE-SAVE"
#define SAVE_MAGIC_LEN 12
#define SAVE_VERSION 3u
/* Version 2 had no compact form: its distributions read the same. */
#define SAVE_VERSION_OLDEST 2u
#define SAVE_END "END\n"
#define NO_STRING UINT32_MAX
/* Bounds a damaged file cannot make the reader exceed. */
#define MAX_STRING (1u << 16)
#define MAX_BINS (64u * 64u)

/* A distribution's form byte (version 2: exact or not, no compact form). */
enum save_form {
	SAVE_SKETCH = 0,
	SAVE_EXACT = 1,
	SAVE_COMPACT = 2,
};

/* ---- the aggregate section: sums of the traces' exits by reason ---- */

/* One exit reason summed over traces. */
struct reason_sum {
	struct vma_agg_key key;
	const char *name;     /* borrowed from a trace */
	uint32_t traces;
	struct vma_cycles dist;
};

static void sums_free(struct reason_sum *sums, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		vma_cycles_release(&sums[i].dist, NULL);
	free(sums);
}

/*
 * The exit reasons of traces [@first, @last) summed, sorted by key.  The
 * aggregate the file stores, and what a reader checks it against.
 */
static int sum_traces(const struct vma_aggregate *agg, size_t first, size_t last,
		      struct reason_sum **out, size_t *nr)
{
	struct reason_sum *sums = NULL;
	size_t cap = 0, n = 0, i, j, k;

	for (i = first; i < last; i++) {
		const struct vma_agg_trace *t = &agg->traces[i];

		for (j = 0; j < t->nr_exits; j++) {
			const struct vma_agg_exit *x = &t->exits[j];
			int c = 1;

			for (k = 0; k < n && (c = vma_agg_key_cmp(&sums[k].key, &x->key)) < 0; k++)
				;
			if (k == n || c) {
				if (vma_grow(sums, &cap, n + 1, 16)) {
					sums_free(sums, n);
					return VMA_ERR_NOMEM;
				}
				memmove(&sums[k + 1], &sums[k], (n - k) * sizeof(*sums));
				memset(&sums[k], 0, sizeof(*sums));
				sums[k].key = x->key;
				n++;
			}
			if (!sums[k].name)
				sums[k].name = x->name;
			sums[k].traces++;
			if (vma_cycles_merge(&sums[k].dist, &x->dist, NULL)) {
				sums_free(sums, n);
				return VMA_ERR_NOMEM;
			}
		}
	}
	*out = sums;
	*nr = n;
	return VMA_OK;
}

static int cmp_sample(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* True when @a and @b hold the same samples (exact: as multisets) or buckets. */
static bool same_dist(const struct vma_cycles *a, const struct vma_cycles *b)
{
	struct vma_cycles_image x, y;
	bool same = false;

	if (vma_cycles_export(a, &x))
		return false;
	if (vma_cycles_export(b, &y)) {
		vma_cycles_image_release(&x);
		return false;
	}
	if (x.events == y.events && x.count == y.count && x.cycles == y.cycles &&
	    x.exact == y.exact && x.compact == y.compact && x.per_octave == y.per_octave &&
	    x.min == y.min && x.max == y.max &&
	    x.nr_samples == y.nr_samples && x.nr_bins == y.nr_bins) {
		if (x.nr_samples) {
			qsort(x.samples, x.nr_samples, sizeof(*x.samples), cmp_sample);
			qsort(y.samples, y.nr_samples, sizeof(*y.samples), cmp_sample);
		}
		same = (!x.nr_samples ||
			!memcmp(x.samples, y.samples, x.nr_samples * sizeof(*x.samples))) &&
		       (!x.nr_bins || !memcmp(x.bins, y.bins, x.nr_bins * sizeof(*x.bins)));
	}
	vma_cycles_image_release(&x);
	vma_cycles_image_release(&y);
	return same;
}

/* ---- writing ---- */

static void put_u8(FILE *out, uint8_t v)
{
	fputc(v, out);
}

/* @v in @n bytes, little-endian, as every number of the file is. */
static void put_le(FILE *out, uint64_t v, unsigned int n)
{
	unsigned char b[8];
	unsigned int i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	fwrite(b, 1, n, out);
}

static void put_u32(FILE *out, uint32_t v)
{
	put_le(out, v, 4);
}

static void put_u64(FILE *out, uint64_t v)
{
	put_le(out, v, 8);
}

/* A string, or NULL as the length NO_STRING. */
static void put_str(FILE *out, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!s || n >= MAX_STRING) {
		put_u32(out, NO_STRING);
		return;
	}
	put_u32(out, (uint32_t)n);
	fwrite(s, 1, n, out);
}

static int put_dist(FILE *out, const struct vma_cycles *c)
{
	struct vma_cycles_image img;
	size_t i;

	if (vma_cycles_export(c, &img))
		return VMA_ERR_NOMEM;
	put_u64(out, img.events);
	put_u64(out, img.count);
	put_u64(out, img.cycles);
	put_u32(out, img.exact_limit);
	put_u8(out, img.exact ? SAVE_EXACT : img.compact ? SAVE_COMPACT : SAVE_SKETCH);
	put_u8(out, (uint8_t)img.per_octave);
	put_u64(out, img.min);
	put_u64(out, img.max);
	if (img.exact) {
		put_u32(out, (uint32_t)img.nr_samples);
		for (i = 0; i < img.nr_samples; i++)
			put_u64(out, img.samples[i]);
	} else {
		put_u32(out, (uint32_t)img.nr_bins);
		for (i = 0; i < img.nr_bins; i++) {
			put_u64(out, img.bins[i].lo);
			put_u64(out, img.bins[i].hi);
			put_u64(out, img.bins[i].count);
			put_u64(out, img.bins[i].cycles);
		}
	}
	vma_cycles_image_release(&img);
	return VMA_OK;
}

static int put_trace(FILE *out, const struct vma_agg_trace *t)
{
	size_t i;
	int rc;

	put_str(out, t->file);
	put_str(out, t->member);
	put_u32(out, (uint32_t)t->status);
	put_u8(out, t->failed);
	if (t->failed)
		return VMA_OK;
	put_str(out, t->platform);
	put_u8(out, (uint8_t)t->unit);
	put_u64(out, t->hz);
	put_u64(out, t->records);
	put_u64(out, t->lost_records);
	put_u64(out, t->total);
	put_u32(out, (uint32_t)t->nr_vms);
	for (i = 0; i < t->nr_vms; i++) {
		put_u32(out, t->vms[i].id);
		put_str(out, t->vms[i].name);
		put_u64(out, t->vms[i].exits);
	}
	put_u32(out, (uint32_t)t->nr_exits);
	for (i = 0; i < t->nr_exits; i++) {
		put_u32(out, t->exits[i].key.code);
		put_str(out, t->exits[i].name);
		rc = put_dist(out, &t->exits[i].dist);
		if (rc)
			return rc;
	}
	return VMA_OK;
}

int vma_aggregate_save(struct vma_aggregate *agg, FILE *out)
{
	struct reason_sum *sums;
	size_t i, nr;
	int rc;

	fwrite(SAVE_MAGIC, 1, SAVE_MAGIC_LEN, out);
	put_u32(out, SAVE_VERSION);
	put_str(out, PACKAGE_VERSION);
	put_u64(out, agg->opts.cpu_hz);
	put_u64(out, agg->opts.timer_hz);
	put_u64(out, agg->nr_traces);
	for (i = 0; i < agg->nr_traces; i++) {
		rc = put_trace(out, &agg->traces[i]);
		if (rc)
			return rc;
	}
	rc = sum_traces(agg, 0, agg->nr_traces, &sums, &nr);
	if (rc)
		return rc;
	put_u32(out, (uint32_t)nr);
	for (i = 0; i < nr && !rc; i++) {
		put_str(out, sums[i].key.platform);
		put_u8(out, (uint8_t)sums[i].key.unit);
		put_u64(out, sums[i].key.hz);
		put_u32(out, sums[i].key.code);
		put_str(out, sums[i].name);
		put_u32(out, sums[i].traces);
		rc = put_dist(out, &sums[i].dist);
	}
	sums_free(sums, nr);
	if (rc)
		return rc;
	fwrite(SAVE_END, 1, 4, out);
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}

/* ---- reading ---- */

struct reader {
	FILE *in;
	const char *path;
	FILE *err;
	uint64_t off;
	uint32_t version;     /* the file's format version */
	int rc;               /* the first error; later reads do nothing */
};

static void bad(struct reader *r, int rc, const char *what)
{
	if (r->rc)
		return;
	r->rc = rc;
	fprintf(r->err, "vmalyze: %s: byte %" PRIu64 ": %s\n", r->path, r->off, what);
}

static bool get_bytes(struct reader *r, void *buf, size_t n)
{
	size_t got;

	if (r->rc)
		return false;
	got = fread(buf, 1, n, r->in);
	if (got != n) {
		r->off += got;
		if (ferror(r->in))
			bad(r, VMA_ERR_IO, strerror(errno));
		else
			bad(r, VMA_ERR_FORMAT, "the save file ends early (truncated?)");
		return false;
	}
	r->off += n;
	return true;
}

static uint64_t get_uint(struct reader *r, unsigned int bytes)
{
	unsigned char b[8];
	uint64_t v = 0;
	unsigned int i;

	if (!get_bytes(r, b, bytes))
		return 0;
	for (i = 0; i < bytes; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

#define get_u8(r) ((uint8_t)get_uint((r), 1))
#define get_u32(r) ((uint32_t)get_uint((r), 4))
#define get_u64(r) get_uint((r), 8)

/* A string or NULL; *@s is malloc()ed. */
static void get_str(struct reader *r, char **s)
{
	uint32_t n = get_u32(r);

	*s = NULL;
	if (r->rc || n == NO_STRING)
		return;
	if (n >= MAX_STRING) {
		bad(r, VMA_ERR_FORMAT, "a string longer than a save file holds");
		return;
	}
	*s = malloc((size_t)n + 1);
	if (!*s) {
		bad(r, VMA_ERR_NOMEM, "out of memory");
		return;
	}
	if (get_bytes(r, *s, n)) {
		(*s)[n] = '\0';
		if (strlen(*s) != n)
			bad(r, VMA_ERR_FORMAT, "a string with a NUL byte");
	}
}

static void get_dist(struct reader *r, struct vma_cycles *c)
{
	struct vma_cycles_image img = { 0 };
	uint64_t start = r->off;
	uint32_t n, i;
	uint8_t form;
	int rc;

	img.events = get_u64(r);
	img.count = get_u64(r);
	img.cycles = get_u64(r);
	img.exact_limit = get_u32(r);
	form = get_u8(r);
	img.exact = form == SAVE_EXACT;
	img.compact = form == SAVE_COMPACT;
	img.per_octave = get_u8(r);
	if (!r->rc && form > (r->version > SAVE_VERSION_OLDEST ? SAVE_COMPACT : SAVE_EXACT)) {
		r->off = start;
		bad(r, VMA_ERR_FORMAT, "a distribution of an unknown form");
		return;
	}
	img.min = get_u64(r);
	img.max = get_u64(r);
	n = get_u32(r);
	if (r->rc)
		return;
	if (n > (img.exact ? VMA_CYCLES_EXACT_MAX : MAX_BINS)) {
		bad(r, VMA_ERR_FORMAT, "more samples or buckets than a distribution holds");
		return;
	}
	if (img.exact) {
		img.samples = calloc(n ? n : 1, sizeof(*img.samples));
		img.nr_samples = n;
	} else {
		img.bins = calloc(n ? n : 1, sizeof(*img.bins));
		img.nr_bins = n;
	}
	if (!img.samples && !img.bins) {
		bad(r, VMA_ERR_NOMEM, "out of memory");
		return;
	}
	for (i = 0; i < n && !r->rc; i++) {
		if (img.exact) {
			img.samples[i] = get_u64(r);
		} else {
			img.bins[i].lo = get_u64(r);
			img.bins[i].hi = get_u64(r);
			img.bins[i].count = get_u64(r);
			img.bins[i].cycles = get_u64(r);
		}
	}
	if (!r->rc) {
		rc = vma_cycles_import(c, &img);
		if (rc) {
			r->off = start;
			bad(r, rc, rc == VMA_ERR_NOMEM ? "out of memory"
						       : "a distribution whose numbers disagree");
		}
	}
	vma_cycles_image_release(&img);
}

static void get_trace(struct reader *r, struct vma_agg_trace *t)
{
	size_t cap = 0;
	uint32_t n, i;
	char *platform;

	get_str(r, &t->file);
	get_str(r, &t->member);
	t->status = (int)get_u32(r);
	t->failed = get_u8(r) != 0;
	if (!r->rc && !t->file)
		bad(r, VMA_ERR_FORMAT, "a trace without a file name");
	if (r->rc || t->failed)
		return;
	get_str(r, &platform);
	t->platform = platform ? vma_agg_platform_intern(platform) : NULL;
	free(platform);
	if (!r->rc && !t->platform)
		bad(r, VMA_ERR_FORMAT, "an unknown platform");
	t->unit = get_u8(r) ? VMA_REPORT_NS : VMA_REPORT_CYCLES;
	t->hz = get_u64(r);
	t->records = get_u64(r);
	t->lost_records = get_u64(r);
	t->total = get_u64(r);
	if (!r->rc && !t->hz)
		bad(r, VMA_ERR_FORMAT, "a trace whose clock has no frequency");
	n = get_u32(r);
	for (i = 0; i < n && !r->rc; i++) {
		if (vma_grow(t->vms, &cap, t->nr_vms + 1, 4)) {
			bad(r, VMA_ERR_NOMEM, "out of memory");
			return;
		}
		t->vms[t->nr_vms].id = get_u32(r);
		get_str(r, &t->vms[t->nr_vms].name);
		t->vms[t->nr_vms].exits = get_u64(r);
		t->nr_vms++;
	}
	n = get_u32(r);
	cap = 0;
	for (i = 0; i < n && !r->rc; i++) {
		struct vma_agg_exit *x;

		if (vma_grow(t->exits, &cap, t->nr_exits + 1, 8)) {
			bad(r, VMA_ERR_NOMEM, "out of memory");
			return;
		}
		x = &t->exits[t->nr_exits++];
		memset(x, 0, sizeof(*x));
		x->key = (struct vma_agg_key){ t->platform, 0, t->unit, t->hz };
		x->key.code = get_u32(r);
		get_str(r, &x->name);
		get_dist(r, &x->dist);
	}
	vma_agg_trace_sort(t);
}

static int identity_cmp(const void *pa, const void *pb)
{
	const struct vma_agg_trace *a = *(const struct vma_agg_trace *const *)pa;
	const struct vma_agg_trace *b = *(const struct vma_agg_trace *const *)pb;
	int c = strcmp(a->file, b->file);

	if (c)
		return c;
	if (!a->member || !b->member)
		return a->member ? 1 : b->member ? -1 : 0;
	return strcmp(a->member, b->member);
}

/* A trace that two different save files both hold, or NULL. */
static const struct vma_agg_trace *overlap(struct vma_aggregate *agg, int *rc)
{
	struct vma_agg_trace **order = calloc(agg->nr_traces ? agg->nr_traces : 1, sizeof(*order));
	const struct vma_agg_trace *dup = NULL;
	size_t i;

	*rc = VMA_OK;
	if (!order) {
		*rc = VMA_ERR_NOMEM;
		return NULL;
	}
	for (i = 0; i < agg->nr_traces; i++)
		order[i] = &agg->traces[i];
	qsort(order, agg->nr_traces, sizeof(*order), identity_cmp);
	for (i = 1; i < agg->nr_traces && !dup; i++) {
		if (!identity_cmp(&order[i - 1], &order[i]) &&
		    order[i - 1]->origin != order[i]->origin)
			dup = order[i]->origin == agg->loads ? order[i] : order[i - 1];
	}
	free(order);
	return dup;
}

/* The header: magic, format version, program version, options. */
static void check_header(struct reader *r, struct vma_aggregate *agg)
{
	char magic[SAVE_MAGIC_LEN], *version = NULL;
	uint64_t cpu_hz, timer_hz;
	char msg[256];

	if (get_bytes(r, magic, sizeof(magic)) && memcmp(magic, SAVE_MAGIC, sizeof(magic))) {
		r->off = 0;
		bad(r, VMA_ERR_FORMAT, "not a vmalyze save file");
		return;
	}
	r->version = get_u32(r);
	if (!r->rc && (r->version < SAVE_VERSION_OLDEST || r->version > SAVE_VERSION)) {
		bad(r, VMA_ERR_USAGE, "a save file format this vmalyze does not read");
		return;
	}
	get_str(r, &version);
	cpu_hz = get_u64(r);
	timer_hz = get_u64(r);
	if (!r->rc && (!version || strcmp(version, PACKAGE_VERSION))) {
		snprintf(msg, sizeof(msg), "saved by vmalyze %s, not %s: results of different "
			 "versions are not merged", version ? version : "(unknown)",
			 PACKAGE_VERSION);
		bad(r, VMA_ERR_USAGE, msg);
	} else if (!r->rc && agg->opts.cpu_hz == 0) {
		agg->opts.cpu_hz = cpu_hz; /* the first file sets the options */
		agg->opts.timer_hz = timer_hz;
	} else if (!r->rc && (cpu_hz != agg->opts.cpu_hz || timer_hz != agg->opts.timer_hz)) {
		snprintf(msg, sizeof(msg), "saved with --cpu-hz %" PRIu64 " --timer-hz %" PRIu64
			 ", the others with %" PRIu64 " and %" PRIu64 ": not merged", cpu_hz,
			 timer_hz, agg->opts.cpu_hz, agg->opts.timer_hz);
		bad(r, VMA_ERR_USAGE, msg);
	}
	free(version);
}

/* The stored aggregate must be the sum of the traces just read (from @first). */
static void check_aggregate(struct reader *r, struct vma_aggregate *agg, size_t first)
{
	struct reason_sum *sums = NULL;
	struct vma_cycles stored = { 0 };
	size_t nr = 0;
	uint32_t n, i;
	uint64_t at;

	if (r->rc)
		return;
	if (sum_traces(agg, first, agg->nr_traces, &sums, &nr)) {
		bad(r, VMA_ERR_NOMEM, "out of memory");
		return;
	}
	at = r->off;
	n = get_u32(r);
	if (!r->rc && n != nr)
		bad(r, VMA_ERR_FORMAT, "the aggregate does not have the traces' exit reasons");
	for (i = 0; i < n && !r->rc; i++) {
		char *platform, *name;
		struct vma_agg_key key = { 0 };
		uint32_t traces;

		at = r->off;
		get_str(r, &platform);
		key.platform = platform ? vma_agg_platform_intern(platform) : NULL;
		free(platform);
		key.unit = get_u8(r) ? VMA_REPORT_NS : VMA_REPORT_CYCLES;
		key.hz = get_u64(r);
		key.code = get_u32(r);
		get_str(r, &name);
		free(name);
		traces = get_u32(r);
		get_dist(r, &stored);
		if (!r->rc && (!key.platform || vma_agg_key_cmp(&key, &sums[i].key) ||
			       traces != sums[i].traces || !same_dist(&stored, &sums[i].dist))) {
			r->off = at;
			bad(r, VMA_ERR_FORMAT, "the aggregate is not the sum of the traces");
		}
		vma_cycles_release(&stored, NULL);
	}
	sums_free(sums, nr);
}

static void load(struct reader *r, struct vma_aggregate *agg, size_t *added)
{
	char end[4];
	uint64_t n, i;

	check_header(r, agg);
	n = get_u64(r);
	for (i = 0; i < n && !r->rc; i++) {
		struct vma_agg_trace *t = vma_agg_trace_new(agg);

		if (!t) {
			bad(r, VMA_ERR_NOMEM, "out of memory");
			return;
		}
		t->origin = agg->loads;
		(*added)++;
		get_trace(r, t);
	}
	check_aggregate(r, agg, agg->nr_traces - *added);
	if (get_bytes(r, end, sizeof(end)) && memcmp(end, SAVE_END, sizeof(end)))
		bad(r, VMA_ERR_FORMAT, "no end mark after the last trace");
	if (!r->rc && fgetc(r->in) != EOF)
		bad(r, VMA_ERR_FORMAT, "data after the end mark");
}

int vma_aggregate_load(struct vma_aggregate *agg, const char *path, FILE *err)
{
	struct reader r = { .path = path, .err = err };
	const struct vma_agg_trace *dup;
	size_t added = 0;
	char msg[512];

	r.in = fopen(path, "rb");
	if (!r.in) {
		fprintf(err, "vmalyze: %s: %s\n", path, strerror(errno));
		return VMA_ERR_IO;
	}
	load(&r, agg, &added);
	fclose(r.in);
	if (!r.rc) {
		dup = overlap(agg, &r.rc);
		if (dup) {
			snprintf(msg, sizeof(msg), "trace %s%s%s is in an earlier save file too "
				 "(a file merged with itself, or shards that overlap)", dup->file,
				 dup->member ? ":" : "", dup->member ? dup->member : "");
			fprintf(err, "vmalyze: %s: %s\n", path, msg);
			r.rc = VMA_ERR_USAGE;
		}
	}
	if (r.rc) {
		while (added--)
			vma_agg_trace_drop_last(agg);
		return r.rc;
	}
	agg->loads++;
	return VMA_OK;
}
