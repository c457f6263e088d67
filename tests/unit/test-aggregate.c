/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Batch results: a cycle summary stored and rebuilt answers every question
 * as the original does (exact and sketch, narrow and wide); merging
 * summaries gives the same results in any order and grouping; an aggregate
 * saved in shards, split in different ways, and merged renders byte for
 * byte what the aggregate of all the traces renders; and the save files a
 * merge must refuse (the same file twice, another version, other --cpu-hz,
 * damaged ones) are refused with the documented status; the CSV table
 * quotes its fields as RFC 4180 says.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmalyze/aggregate.h"
#include "vmalyze/cycles.h"
#include "vmalyze/status.h"

/* A small deterministic generator (xorshift64*): the tests must not vary. */
static uint64_t rnd(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ull;
}

/* Exit-like durations: mostly thousands of cycles, a tail up to ~2^40. */
static uint64_t duration(uint64_t *state)
{
	uint64_t r = rnd(state);

	if ((r & 63) == 0)
		return (r >> 8) & ((1ull << 40) - 1);
	return 500 + (r >> 20) % 60000;
}

/* Every result a renderer or a merge can read from @s. */
static void assert_same(struct vma_cycles *a, struct vma_cycles *b)
{
	static const uint32_t qs[] = { 0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 100 };
	struct vma_cycles_bin *ba, *bb;
	size_t na, nb, i;
	unsigned int k;

	cr_assert_eq(a->events, b->events);
	cr_assert_eq(a->count, b->count);
	cr_assert_eq(a->cycles, b->cycles);
	cr_assert_eq(vma_cycles_is_exact(a), vma_cycles_is_exact(b));
	cr_assert_eq(vma_cycles_min(a), vma_cycles_min(b));
	cr_assert_eq(vma_cycles_max(a), vma_cycles_max(b));
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		cr_assert_eq(vma_cycles_quantile(a, VMA_CYCLES_BY_COUNT, qs[i], 100),
			     vma_cycles_quantile(b, VMA_CYCLES_BY_COUNT, qs[i], 100), "p%u", qs[i]);
		cr_assert_eq(vma_cycles_quantile(a, VMA_CYCLES_BY_TIME, qs[i], 100),
			     vma_cycles_quantile(b, VMA_CYCLES_BY_TIME, qs[i], 100), "tp%u", qs[i]);
	}
	for (k = 1; k <= VMA_CYCLES_SKETCH_SUB; k *= 8) {
		cr_assert_eq(vma_cycles_histogram(a, k, &ba, &na), 0);
		cr_assert_eq(vma_cycles_histogram(b, k, &bb, &nb), 0);
		cr_assert_eq(na, nb);
		cr_assert(na == 0 || !memcmp(ba, bb, na * sizeof(*ba)));
		free(ba);
		free(bb);
	}
}

static void round_trip(struct vma_cycles *s)
{
	struct vma_cycles_image img;
	struct vma_cycles back = { 0 };

	cr_assert_eq(vma_cycles_export(s, &img), 0);
	cr_assert_eq(vma_cycles_import(&back, &img), 0);
	assert_same(s, &back);
	vma_cycles_image_release(&img);
	vma_cycles_release(&back, NULL);
}

Test(cycles_image, round_trip_exact_sketch_narrow_wide)
{
	uint64_t st = 7;
	struct vma_cycles s = { 0 };
	unsigned int i;

	round_trip(&s); /* empty */
	vma_cycles_add(&s, 0, NULL);
	vma_cycles_add(&s, 0, NULL);
	round_trip(&s); /* zero-length events only */
	for (i = 0; i < 300; i++)
		vma_cycles_add(&s, 1 + rnd(&st) % 5000, NULL);
	round_trip(&s); /* exact, 32-bit samples */
	vma_cycles_add(&s, 1ull << 45, NULL);
	round_trip(&s); /* exact, 64-bit samples */
	for (i = 0; i < 20000; i++)
		vma_cycles_add(&s, duration(&st), NULL);
	cr_assert(!vma_cycles_is_exact(&s));
	round_trip(&s); /* sketch with pending values */
	vma_cycles_quantile(&s, VMA_CYCLES_BY_COUNT, 50, 100);
	round_trip(&s); /* sketch, pending values flushed */
	vma_cycles_release(&s, NULL);

	vma_cycles_init(&s, 4); /* a small exact limit: a sketch of a handful */
	for (i = 1; i <= 9; i++)
		vma_cycles_add(&s, i * 1000, NULL);
	round_trip(&s);
	vma_cycles_release(&s, NULL);
}

Test(cycles_image, inconsistent_images_are_refused)
{
	struct vma_cycles s = { 0 }, back = { 0 };
	struct vma_cycles_image img;
	uint64_t st = 3;
	unsigned int i;

	for (i = 0; i < 5000; i++)
		vma_cycles_add(&s, duration(&st), NULL);
	cr_assert_eq(vma_cycles_export(&s, &img), 0);
	cr_assert_gt(img.nr_bins, 2);
	img.count++;
	cr_assert_eq(vma_cycles_import(&back, &img), VMA_ERR_FORMAT);
	img.count--;
	img.bins[1].hi += img.bins[1].hi - img.bins[1].lo; /* wider than a bucket */
	cr_assert_eq(vma_cycles_import(&back, &img), VMA_ERR_FORMAT);
	img.bins[1].hi = img.bins[1].lo + (img.bins[1].hi - img.bins[1].lo) / 2;
	img.bins[1].cycles = img.bins[1].count * (img.bins[1].hi + 5); /* a sum outside it */
	cr_assert_eq(vma_cycles_import(&back, &img), VMA_ERR_FORMAT);
	vma_cycles_image_release(&img);

	img = (struct vma_cycles_image){ .events = 2, .count = 2, .cycles = 3, .exact_limit = 1024,
					 .exact = true, .min = 1, .max = 2 };
	img.samples = (uint64_t[]){ 1, 1 };
	img.nr_samples = 2;
	cr_assert_eq(vma_cycles_import(&back, &img), VMA_ERR_FORMAT); /* sum disagrees */
	img.events = 1;
	img.samples = (uint64_t[]){ 1, 2 };
	cr_assert_eq(vma_cycles_import(&back, &img), VMA_ERR_FORMAT); /* fewer events than samples */
	vma_cycles_release(&s, NULL);
}

#define PARTS 12

/* Samples of one distribution spread over PARTS summaries, and all of them in one. */
static void make_parts(struct vma_cycles *parts, struct vma_cycles *all, uint64_t seed)
{
	uint64_t st = seed;
	unsigned int i;

	memset(all, 0, sizeof(*all));
	for (i = 0; i < PARTS; i++)
		memset(&parts[i], 0, sizeof(parts[i]));
	for (i = 0; i < 6000; i++) {
		/* Uneven parts: some stay exact, some become sketches. */
		unsigned int p = (unsigned int)(rnd(&st) % (PARTS * 3));
		uint64_t v = i % 97 == 0 ? 0 : duration(&st);

		p = p < PARTS ? p : p % 3;
		vma_cycles_add(&parts[p], v, NULL);
		vma_cycles_add(all, v, NULL);
	}
}

Test(cycles_image, merge_is_associative_and_order_independent)
{
	static const unsigned int orders[3][PARTS] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 },
		{ 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 },
		{ 5, 0, 9, 3, 11, 1, 7, 2, 10, 4, 8, 6 },
	};
	struct vma_cycles parts[PARTS], all, flat[3], tree[PARTS];
	unsigned int o, i, w;

	make_parts(parts, &all, 42);
	for (o = 0; o < 3; o++) {
		memset(&flat[o], 0, sizeof(flat[o]));
		for (i = 0; i < PARTS; i++)
			cr_assert_eq(vma_cycles_merge(&flat[o], &parts[orders[o][i]], NULL), 0);
		assert_same(&flat[o], &all);
	}
	/* A tree of pairwise merges, each through a stored image, as shards merge. */
	for (i = 0; i < PARTS; i++) {
		struct vma_cycles_image img;

		memset(&tree[i], 0, sizeof(tree[i]));
		cr_assert_eq(vma_cycles_export(&parts[i], &img), 0);
		cr_assert_eq(vma_cycles_import(&tree[i], &img), 0);
		vma_cycles_image_release(&img);
	}
	for (w = 1; w < PARTS; w *= 2) {
		for (i = 0; i + w < PARTS; i += 2 * w)
			cr_assert_eq(vma_cycles_merge(&tree[i], &tree[i + w], NULL), 0);
	}
	assert_same(&tree[0], &all);
	for (i = 0; i < PARTS; i++) {
		vma_cycles_release(&parts[i], NULL);
		vma_cycles_release(&tree[i], NULL);
	}
	for (o = 0; o < 3; o++)
		vma_cycles_release(&flat[o], NULL);
	vma_cycles_release(&all, NULL);
}

/* ---- aggregates of hand-made reports ---- */

#define TRACES 9
#define REASONS 4

struct fake {
	struct vma_report r;
	struct vma_report_domain dom[2];
	struct vma_report_vcpu vcpu[2];
	struct vma_report_exit exits[2][REASONS];
	struct vma_cycles dist[2][REASONS];
	char file[32];
};

static const uint32_t codes[REASONS] = { 1, 12, 30, 48 };
static const char *const names[REASONS] = { "EXTERNAL_INTERRUPT", "HLT", "IO_INSTRUCTION",
					    "EPT_VIOLATION" };

/*
 * Trace @t: two VMs of one vcpu each; trace 4 has far more exits
 * (sketches); traces 3 and 5 ran past their memory budget's last level:
 * their distributions have the compact form (4 and 2 buckets per power of
 * two), which merges with the others' exact samples and sketches.
 */
static void fake_trace(struct fake *f, unsigned int t)
{
	uint64_t st = 1000 + t;
	unsigned int d, x, i, n;

	memset(f, 0, sizeof(*f));
	snprintf(f->file, sizeof(f->file), "trace-%u.xentrace", t);
	for (d = 0; d < 2; d++) {
		for (x = 0; x < REASONS; x++) {
			struct vma_cycles *c = &f->dist[d][x];

			n = (t == 4 ? 3000 : 40 + 30 * t) >> x;
			for (i = 0; i < n; i++)
				vma_cycles_add(c, i % 50 == 0 ? 0 : duration(&st), NULL);
			if (t == 3 || t == 5)
				cr_assert_eq(vma_cycles_compact(c, t == 3 ? 4 : 2, NULL), 0);
			f->exits[d][x] = (struct vma_report_exit){
				.code = codes[x], .name = names[x],
				.stat = { .events = c->events, .count = c->count, .total = c->cycles,
					  .dist = c->count ? c : NULL },
			};
		}
		f->vcpu[d] = (struct vma_report_vcpu){ .id = 0, .type = VMA_VCPU_HVM,
						       .has_exits = true, .exits = f->exits[d],
						       .nr_exits = REASONS };
		f->dom[d] = (struct vma_report_domain){ .id = d + 1, .vcpus = &f->vcpu[d],
							.nr_vcpus = 1 };
	}
	f->r = (struct vma_report){ .unit = VMA_REPORT_CYCLES, .hz = 2400000000ull, .final = true,
				    .total = 24000000ull * (t + 1), .records = 1000 + t,
				    .domains = f->dom, .nr_domains = 2 };
}

static void fake_release(struct fake *f)
{
	unsigned int d, x;

	for (d = 0; d < 2; d++) {
		for (x = 0; x < REASONS; x++)
			vma_cycles_release(&f->dist[d][x], NULL);
	}
}

static const struct vma_aggregate_options hz24 = { 2400000000ull, 0 };
/* What a merge starts from: the first file sets the options. */
static const struct vma_aggregate_options any_hz = { 0 };

static void add_trace(struct vma_aggregate *agg, unsigned int t)
{
	struct fake f;

	if (t == 7) { /* a trace that could not be read at all */
		cr_assert_eq(vma_aggregate_add(agg, NULL, "trace-7.xentrace", NULL, VMA_ERR_FORMAT),
			     VMA_OK);
		return;
	}
	fake_trace(&f, t);
	cr_assert_eq(vma_aggregate_add(agg, &f.r, f.file, t == 2 ? "inner/member.dat" : NULL,
				       VMA_OK), VMA_OK);
	fake_release(&f);
}

/* Text, JSON and CSV of @agg's view, one after the other. */
static char *render_all(struct vma_aggregate *agg)
{
	const struct vma_aggregate_view *v = vma_aggregate_view(agg);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	cr_assert_not_null(v);
	cr_assert_not_null(out);
	cr_assert_eq(vma_render_aggregate_text(out, v), VMA_OK);
	cr_assert_eq(vma_render_aggregate_json(out, v), VMA_OK);
	cr_assert_eq(vma_render_aggregate_csv(out, v, true), VMA_OK);
	fclose(out);
	return buf;
}

static char *tmp_path(const char *tag, unsigned int i)
{
	static char paths[16][64];
	static unsigned int next;
	char *p = paths[next++ % 16];

	snprintf(p, 64, "/tmp/vma-test-aggregate-%d-%s-%u", (int)getpid(), tag, i);
	return p;
}

static void save_to(struct vma_aggregate *agg, const char *path)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(vma_aggregate_save(agg, f), VMA_OK);
	cr_assert_eq(fclose(f), 0);
}

/* Save @nshards shards, trace t in shard shard_of[t], then merge them in @order. */
/* The whole file at @path (owned), its size in *@size. */
static char *read_whole(const char *path, long *size)
{
	FILE *f = fopen(path, "rb");
	char *bytes;

	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	*size = ftell(f);
	rewind(f);
	bytes = malloc((size_t)*size);
	cr_assert_not_null(bytes);
	cr_assert_eq(fread(bytes, 1, (size_t)*size, f), (size_t)*size);
	fclose(f);
	return bytes;
}

/* @path made of the @n bytes at @bytes. */
static void write_bytes(const char *path, const char *bytes, size_t n)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(bytes, 1, n, f), n);
	fclose(f);
}

static char *split_and_merge(const unsigned int *shard_of, unsigned int nshards,
			     const unsigned int *order)
{
	struct vma_aggregate *merged = vma_aggregate_create(&(struct vma_aggregate_options){ 0 });
	unsigned int s, t;
	char *text;

	for (s = 0; s < nshards; s++) {
		struct vma_aggregate *shard = vma_aggregate_create(&hz24);

		for (t = 0; t < TRACES; t++) {
			if (shard_of[t] == s)
				add_trace(shard, t);
		}
		save_to(shard, tmp_path("shard", s));
		vma_aggregate_destroy(shard);
	}
	for (s = 0; s < nshards; s++)
		cr_assert_eq(vma_aggregate_load(merged, tmp_path("shard", order[s]), stderr), VMA_OK);
	text = render_all(merged);
	vma_aggregate_destroy(merged);
	for (s = 0; s < nshards; s++)
		unlink(tmp_path("shard", s));
	return text;
}

Test(aggregate, shards_merge_to_the_whole_byte_for_byte)
{
	static const unsigned int one[TRACES] = { 0 }, in_order[] = { 0, 1, 2, 3 };
	static const unsigned int contiguous[TRACES] = { 0, 0, 0, 1, 1, 1, 2, 2, 2 };
	static const unsigned int round_robin[TRACES] = { 0, 1, 2, 0, 1, 2, 0, 1, 2 };
	static const unsigned int uneven[TRACES] = { 3, 0, 3, 3, 1, 3, 2, 3, 3 };
	static const unsigned int reversed[] = { 3, 2, 1, 0 };
	struct vma_aggregate *whole = vma_aggregate_create(&hz24);
	char *expect, *got;
	unsigned int t;

	/* The whole run adds its traces in an order of its own. */
	for (t = 0; t < TRACES; t++)
		add_trace(whole, (t * 5) % TRACES);
	expect = render_all(whole);
	cr_assert(strstr(expect, "=== aggregate: 9 traces, 1 failed"), "%s", expect);
	cr_assert(strstr(expect, "trace-2.xentrace:inner/member.dat"));

	got = split_and_merge(one, 1, in_order);
	cr_assert_str_eq(got, expect);
	free(got);
	got = split_and_merge(contiguous, 3, in_order);
	cr_assert_str_eq(got, expect);
	free(got);
	got = split_and_merge(round_robin, 3, reversed + 1);
	cr_assert_str_eq(got, expect);
	free(got);
	got = split_and_merge(uneven, 4, reversed);
	cr_assert_str_eq(got, expect);
	free(got);
	free(expect);
	vma_aggregate_destroy(whole);
}

Test(aggregate, a_merge_saved_again_merges_the_same)
{
	struct vma_aggregate *a = vma_aggregate_create(&hz24), *b = vma_aggregate_create(&hz24);
	struct vma_aggregate *ab = vma_aggregate_create(&(struct vma_aggregate_options){ 0 });
	struct vma_aggregate *again = vma_aggregate_create(&(struct vma_aggregate_options){ 0 });
	char *expect, *got;
	unsigned int t;

	for (t = 0; t < TRACES; t++)
		add_trace(t < 4 ? a : b, t);
	save_to(a, tmp_path("a", 0));
	save_to(b, tmp_path("b", 0));
	cr_assert_eq(vma_aggregate_load(ab, tmp_path("a", 0), stderr), VMA_OK);
	cr_assert_eq(vma_aggregate_load(ab, tmp_path("b", 0), stderr), VMA_OK);
	expect = render_all(ab);
	save_to(ab, tmp_path("ab", 0));
	cr_assert_eq(vma_aggregate_load(again, tmp_path("ab", 0), stderr), VMA_OK);
	got = render_all(again);
	cr_assert_str_eq(got, expect);
	free(got);
	free(expect);
	unlink(tmp_path("a", 0));
	unlink(tmp_path("b", 0));
	unlink(tmp_path("ab", 0));
	vma_aggregate_destroy(a);
	vma_aggregate_destroy(b);
	vma_aggregate_destroy(ab);
	vma_aggregate_destroy(again);
}

Test(aggregate, merges_that_must_be_refused)
{
	struct vma_aggregate *a = vma_aggregate_create(&hz24);
	struct vma_aggregate *other_hz = vma_aggregate_create(&(struct vma_aggregate_options){
		3000000000ull, 0 });
	struct vma_aggregate *m = vma_aggregate_create(&(struct vma_aggregate_options){ 0 });
	FILE *quiet = fopen("/dev/null", "w");
	char *expect, *got, *bytes;
	const char *pa = tmp_path("refuse", 0), *ph = tmp_path("refuse", 1);
	const char *pv = tmp_path("refuse", 2), *pt = tmp_path("refuse", 3);
	long size;
	unsigned int t;

	for (t = 0; t < 3; t++)
		add_trace(a, t);
	add_trace(other_hz, 5);
	save_to(a, pa);
	save_to(other_hz, ph);

	cr_assert_eq(vma_aggregate_load(m, pa, quiet), VMA_OK);
	expect = render_all(m);
	/* The same file again: every trace twice. */
	cr_assert_eq(vma_aggregate_load(m, pa, quiet), VMA_ERR_USAGE);
	/* Another --cpu-hz. */
	cr_assert_eq(vma_aggregate_load(m, ph, quiet), VMA_ERR_USAGE);
	/* A refused load leaves the aggregate as it was. */
	got = render_all(m);
	cr_assert_str_eq(got, expect);
	free(got);

	/* Another vmalyze version: the version string's first byte changed. */
	bytes = read_whole(pa, &size);
	bytes[12 + 4 + 4] ^= 0x01;
	write_bytes(pv, bytes, (size_t)size);
	cr_assert_eq(vma_aggregate_load(m, pv, quiet), VMA_ERR_USAGE);
	/* The previous format version (2): the same layout without compact forms. */
	bytes[12 + 4 + 4] ^= 0x01;
	bytes[12] = 2;
	write_bytes(pv, bytes, (size_t)size);
	{
		struct vma_aggregate *old = vma_aggregate_create(&any_hz);

		cr_assert_eq(vma_aggregate_load(old, pv, quiet), VMA_OK);
		got = render_all(old);
		cr_assert_str_eq(got, expect);
		free(got);
		vma_aggregate_destroy(old);
	}
	bytes[12] = 3;
	/* Truncated, and not a save file at all. */
	write_bytes(pt, bytes, (size_t)size / 2);
	cr_assert_eq(vma_aggregate_load(m, pt, quiet), VMA_ERR_FORMAT);
	/* The stored aggregate's last number changed: no longer the traces' sum. */
	bytes[size - 5] ^= 0x40;
	write_bytes(pt, bytes, (size_t)size);
	cr_assert_eq(vma_aggregate_load(m, pt, quiet), VMA_ERR_FORMAT);
	bytes[size - 5] ^= 0x40;
	write_bytes(pt, "not a save file, just text\n", 27);
	cr_assert_eq(vma_aggregate_load(m, pt, quiet), VMA_ERR_FORMAT);
	cr_assert_eq(vma_aggregate_load(m, "/nonexistent/save", quiet), VMA_ERR_IO);
	/* A compact distribution in a file that says version 2, which had none. */
	{
		struct vma_aggregate *c = vma_aggregate_create(&hz24);
		struct vma_aggregate *old = vma_aggregate_create(&any_hz);
		char *cb;
		long csize;

		add_trace(c, 5);
		save_to(c, pt);
		cb = read_whole(pt, &csize);
		cr_assert_eq(vma_aggregate_load(old, pt, quiet), VMA_OK);
		cb[12] = 2;
		write_bytes(pt, cb, (size_t)csize);
		vma_aggregate_destroy(old);
		old = vma_aggregate_create(&any_hz);
		cr_assert_eq(vma_aggregate_load(old, pt, quiet), VMA_ERR_FORMAT);
		free(cb);
		vma_aggregate_destroy(old);
		vma_aggregate_destroy(c);
	}

	got = render_all(m);
	cr_assert_str_eq(got, expect);
	free(got);
	free(expect);
	free(bytes);
	fclose(quiet);
	unlink(pa);
	unlink(ph);
	unlink(pv);
	unlink(pt);
	vma_aggregate_destroy(a);
	vma_aggregate_destroy(other_hz);
	vma_aggregate_destroy(m);
}

Test(csv, fields_quoted_as_rfc4180_header_once)
{
	struct vma_render_options ropts = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct vma_render ctx = { .out = out, .opts = &ropts, .file = "dir,with \"quotes\"/t.dat",
				  .member = NULL, .index = 0, .batch = true };
	struct fake f;

	fake_trace(&f, 1);
	f.dom[0].name = "qemu\nline";
	cr_assert_eq(vma_render_csv(&ctx, &f.r), VMA_OK);
	ctx.index = 1; /* a second trace: no second header */
	cr_assert_eq(vma_render_csv(&ctx, &f.r), VMA_OK);
	fclose(out);
	cr_assert(!strncmp(buf, "scope,file,member,platform,domain,vm,vcpu,kind,", 47), "%s", buf);
	cr_assert_null(strstr(buf + 1, "\nscope,"), "one header");
	cr_assert(strstr(buf, "\ntrace,\"dir,with \"\"quotes\"\"/t.dat\",,xen-vmx,1,\"qemu\nline\",0,"
			      "exit,1,EXTERNAL_INTERRUPT,"), "%s", buf);
	cr_assert(strstr(buf, ",xen-vmx,2,,0,exit,12,HLT,"));
	free(buf);
	fake_release(&f);
}
