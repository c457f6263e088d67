/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the compact form of cycle summaries (src/summary/cycles-compact.c),
 * what a summary becomes past its memory budget's last level: counters,
 * minimum and maximum exact; count- and time-weighted quantiles within
 * vma_cycles_error_bound() of the exact answers on random distributions at
 * 4, 2 and 1 buckets per power of two; the same answers as a sketch of the
 * same buckets; merging with every other form in any order and grouping;
 * histograms that add up; images that round-trip; entries that widen
 * without loss; a size set by the range of the values, not their number;
 * and a budget that gives summaries the compact form past its last level.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-rng.h"
#include "vmalyze/cycles.h"
#include "vmalyze/status.h"

static const unsigned int resolutions[] = { 4, 2, 1 };

/* Log-uniform over about 2^4 .. 2^34. */
static uint64_t wide_value(struct rng *r)
{
	unsigned int e = 4 + (unsigned int)(rng_next(r) % 31);

	return ((uint64_t)1 << e) + rng_next(r) % ((uint64_t)1 << e);
}

/* Exit-like: a narrow body of thousands of cycles and a far tail: gaps between buckets. */
static uint64_t gapped_value(struct rng *r)
{
	uint64_t x = rng_next(r);

	if (x % 23 == 0)
		return (1ull << 30) + x % (1ull << 28);
	return 900 + x % 3000;
}

/* A handful of distinct values, some below 8 (buckets of one value each). */
static uint64_t few_values(struct rng *r)
{
	static const uint64_t v[] = { 1, 3, 7, 100, 101, 5000, 5001, 70000 };

	return v[rng_next(r) % 8];
}

typedef uint64_t (*gen_fn)(struct rng *);

static const gen_fn gens[] = { wide_value, gapped_value, few_values };

/* The exact answers, as cycles.h defines them, from the sorted samples. */
static uint64_t ref_quantile(const uint64_t *sorted, size_t n, uint64_t sum,
			     enum vma_cycles_weight weight, uint32_t num, uint32_t den)
{
	unsigned __int128 cum = 0, target;
	size_t i;

	if (weight == VMA_CYCLES_BY_COUNT) {
		size_t k = num >= den ? n - 1 : (size_t)((unsigned __int128)n * num / den);

		return sorted[k < n ? k : n - 1];
	}
	if (num >= den)
		return sorted[n - 1];
	target = (unsigned __int128)sum * num / den;
	for (i = 0; i < n; i++) {
		cum += sorted[i];
		if (cum > target)
			return sorted[i];
	}
	return sorted[n - 1];
}

/* Counters and extremes exact, every quantile within the bound of @c's resolution. */
static void check_against(struct vma_cycles *c, const uint64_t *sorted, size_t n, uint64_t sum)
{
	static const uint32_t q[][2] = { { 0, 100 }, { 1, 100 }, { 5, 100 }, { 25, 100 },
					 { 50, 100 }, { 75, 100 }, { 95, 100 }, { 99, 100 },
					 { 999, 1000 }, { 100, 100 } };
	double bound = vma_cycles_error_bound(vma_cycles_per_octave(c));
	size_t i;
	int w;

	cr_assert(vma_cycles_is_compact(c));
	cr_assert(!vma_cycles_is_exact(c));
	cr_assert_eq(c->count, n);
	cr_assert_eq(c->cycles, sum);
	cr_assert_eq(vma_cycles_min(c), sorted[0]);
	cr_assert_eq(vma_cycles_max(c), sorted[n - 1]);
	for (w = 0; w < 2; w++) {
		enum vma_cycles_weight weight = w ? VMA_CYCLES_BY_TIME : VMA_CYCLES_BY_COUNT;

		for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
			uint64_t want = ref_quantile(sorted, n, sum, weight, q[i][0], q[i][1]);
			uint64_t got = vma_cycles_quantile(c, weight, q[i][0], q[i][1]);

			cr_assert_leq(fabs((double)got - (double)want), bound * (double)want,
				      "%s p%u/%u at %u per octave, %zu samples: %lu, exact %lu",
				      w ? "time" : "count", q[i][0], q[i][1],
				      vma_cycles_per_octave(c), n, (unsigned long)got,
				      (unsigned long)want);
		}
	}
}

/* @n values of @gen, half added before the summary is made compact, half after. */
static void fill(struct vma_cycles *c, uint64_t *v, size_t n, gen_fn gen, struct rng *r,
		 unsigned int per, uint64_t *sum)
{
	size_t i;

	*sum = 0;
	for (i = 0; i < n; i++) {
		v[i] = gen(r);
		*sum += v[i];
		if (i == n / 2)
			cr_assert_eq(vma_cycles_compact(c, per, NULL), 0);
		vma_cycles_add(c, i % 13 == 0 ? 0 : v[i], NULL); /* zero-cycle events too */
		if (i % 13 == 0)
			vma_cycles_add(c, v[i], NULL);
	}
	if (n < 2)
		cr_assert_eq(vma_cycles_compact(c, per, NULL), 0);
	qsort(v, n, sizeof(*v), cmp_u64);
}

Test(compact, quantiles_within_the_stated_bound)
{
	static const size_t sizes[] = { 1, 3, 17, 200, 5000, 40000 };
	static uint64_t v[40000];
	struct rng r = { 99 };
	size_t g, k, z;

	for (g = 0; g < sizeof(gens) / sizeof(gens[0]); g++) {
		for (k = 0; k < sizeof(resolutions) / sizeof(resolutions[0]); k++) {
			for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
				struct vma_cycles c = { 0 };
				uint64_t sum;

				fill(&c, v, sizes[z], gens[g], &r, resolutions[k], &sum);
				cr_assert_eq(vma_cycles_per_octave(&c), resolutions[k]);
				check_against(&c, v, sizes[z], sum);
				vma_cycles_release(&c, NULL);
			}
		}
	}
	cr_assert_eq(vma_cycles_error_bound(2), 0.25);
	cr_assert_eq(vma_cycles_error_bound(1), 0.5);
}

/* Every result a report reads. */
static void assert_same(struct vma_cycles *a, struct vma_cycles *b)
{
	static const uint32_t qs[] = { 0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 100 };
	struct vma_cycles_bin *ba, *bb;
	size_t na, nb, i;
	unsigned int k;

	cr_assert_eq(a->count, b->count);
	cr_assert_eq(a->cycles, b->cycles);
	cr_assert_eq(vma_cycles_min(a), vma_cycles_min(b));
	cr_assert_eq(vma_cycles_max(a), vma_cycles_max(b));
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		cr_assert_eq(vma_cycles_percentile(a, qs[i]), vma_cycles_percentile(b, qs[i]),
			     "p%u", qs[i]);
		cr_assert_eq(vma_cycles_time_percentile(a, qs[i]),
			     vma_cycles_time_percentile(b, qs[i]), "time p%u", qs[i]);
	}
	for (k = 1; k <= VMA_CYCLES_SKETCH_SUB; k *= 2) {
		cr_assert_eq(vma_cycles_histogram(a, k, &ba, &na), 0);
		cr_assert_eq(vma_cycles_histogram(b, k, &bb, &nb), 0);
		cr_assert_eq(na, nb, "%u a power of two", k);
		cr_assert(na == 0 || !memcmp(ba, bb, na * sizeof(*ba)));
		free(ba);
		free(bb);
	}
}

/* At 4 buckets per power of two, a compact form is a sketch without its header. */
Test(compact, the_same_answers_as_a_sketch_of_its_buckets)
{
	struct vma_cycles sk = { 0 }, c = { 0 };
	struct rng r = { 5 };
	size_t g, i;

	for (g = 0; g < sizeof(gens) / sizeof(gens[0]); g++) {
		for (i = 0; i < 30000; i++) {
			uint64_t x = gens[g](&r);

			vma_cycles_add(&sk, x, NULL);
			vma_cycles_add(&c, x, NULL);
		}
		cr_assert_eq(vma_cycles_coarsen(&sk, 4, NULL), 0);
		cr_assert_eq(vma_cycles_compact(&c, 4, NULL), 0);
		cr_assert(!vma_cycles_is_compact(&sk));
		cr_assert(vma_cycles_is_compact(&c));
		assert_same(&sk, &c);
		/* A sketch made compact keeps its buckets. */
		cr_assert_eq(vma_cycles_compact(&sk, 4, NULL), 0);
		cr_assert(vma_cycles_is_compact(&sk));
		assert_same(&sk, &c);
		vma_cycles_release(&sk, NULL);
		vma_cycles_release(&c, NULL);
	}
}

#define PARTS 6

/*
 * Parts of every form (exact, sketch at 64 and 16 buckets per power of
 * two, compact at 4, 2 and 4), merged in several orders, in a tree, and
 * through stored images: always the buckets of every sample at the
 * coarsest resolution (2), in the compact form.
 */
Test(compact, merges_with_every_form_in_any_order)
{
	static const int orders[3][PARTS] = { { 0, 1, 2, 3, 4, 5 }, { 5, 4, 3, 2, 1, 0 },
					      { 2, 5, 0, 3, 1, 4 } };
	static const unsigned int sizes[PARTS] = { 40, 5000, 3000, 700, 20, 9000 };
	struct vma_cycles part[PARTS], all = { 0 }, flat[3], tree[PARTS], back[PARTS];
	struct rng r = { 17 };
	size_t p, k, o, w;

	memset(part, 0, sizeof(part));
	for (p = 0; p < PARTS; p++) {
		for (k = 0; k < sizes[p]; k++) {
			uint64_t x = k % 40 == 0 ? 0 : gens[(p + k) % 3](&r);

			vma_cycles_add(&part[p], x, NULL);
			vma_cycles_add(&all, x, NULL);
		}
	}
	cr_assert(vma_cycles_is_exact(&part[0]));
	cr_assert_eq(vma_cycles_per_octave(&part[1]), 64);
	cr_assert_eq(vma_cycles_coarsen(&part[2], 16, NULL), 0);
	cr_assert_eq(vma_cycles_compact(&part[3], 4, NULL), 0);
	cr_assert_eq(vma_cycles_compact(&part[4], 2, NULL), 0);
	cr_assert_eq(vma_cycles_compact(&part[5], 4, NULL), 0);
	cr_assert_eq(vma_cycles_compact(&all, 2, NULL), 0);
	for (o = 0; o < 3; o++) {
		memset(&flat[o], 0, sizeof(flat[o]));
		for (k = 0; k < PARTS; k++)
			cr_assert_eq(vma_cycles_merge(&flat[o], &part[orders[o][k]], NULL), 0);
		same_image(&flat[o], &all);
		assert_same(&flat[o], &all);
	}
	/* Through images (a save file), then pairwise, as shards of a batch merge. */
	for (p = 0; p < PARTS; p++) {
		struct vma_cycles_image img;

		memset(&back[p], 0, sizeof(back[p]));
		cr_assert_eq(vma_cycles_export(&part[p], &img), 0);
		cr_assert_eq(vma_cycles_import(&back[p], &img), 0);
		vma_cycles_image_release(&img);
		same_image(&back[p], &part[p]);
		tree[p] = back[p];
	}
	for (w = 1; w < PARTS; w *= 2) {
		for (p = 0; p + w < PARTS; p += 2 * w)
			cr_assert_eq(vma_cycles_merge(&tree[p], &tree[p + w], NULL), 0);
	}
	same_image(&tree[0], &all);
	/* The parts' samples into a summary that counted them (vma_cycles_count()). */
	{
		struct vma_cycles_counts cnt = { all.events, all.count, all.cycles };
		struct vma_cycles parent = vma_cycles_of_counts(&cnt);

		for (p = 0; p < PARTS; p++)
			cr_assert_eq(vma_cycles_merge_samples(&parent, &part[p], NULL), 0);
		same_image(&parent, &all);
		vma_cycles_release(&parent, NULL);
	}
	for (p = 0; p < PARTS; p++) {
		vma_cycles_release(&part[p], NULL);
		vma_cycles_release(&tree[p], NULL);
	}
	for (o = 0; o < 3; o++)
		vma_cycles_release(&flat[o], NULL);
	vma_cycles_release(&all, NULL);
}

/* Bins are unions of the compact form's buckets: they add up, at most its resolution. */
Test(compact, histogram_adds_up_at_its_resolution)
{
	struct vma_cycles c = { 0 };
	struct vma_cycles_bin *bins;
	struct rng r = { 23 };
	size_t nbins, i, k;
	uint64_t n, sum;

	for (i = 0; i < 20000; i++)
		vma_cycles_add(&c, wide_value(&r), NULL);
	for (k = 0; k < sizeof(resolutions) / sizeof(resolutions[0]); k++) {
		cr_assert_eq(vma_cycles_compact(&c, resolutions[k], NULL), 0);
		cr_assert_eq(vma_cycles_histogram(&c, 64, &bins, &nbins), 0);
		for (i = 0, n = 0, sum = 0; i < nbins; i++) {
			n += bins[i].count;
			sum += bins[i].cycles;
			cr_assert(bins[i].count == 0 ||
				  (bins[i].cycles >= bins[i].count * bins[i].lo &&
				   bins[i].cycles <= bins[i].count * (bins[i].hi - 1)));
			/* One bin per bucket: at most resolutions[k] per power of two. */
			cr_assert(bins[i].hi - bins[i].lo == 1 ||
				  (bins[i].hi - bins[i].lo) * resolutions[k] >=
					  1ull << (63 - __builtin_clzll(bins[i].lo)),
				  "bin [%lu, %lu) at %u per power of two",
				  (unsigned long)bins[i].lo, (unsigned long)bins[i].hi,
				  resolutions[k]);
		}
		cr_assert_eq(n, c.count);
		cr_assert_eq(sum, c.cycles);
		cr_assert_leq(bins[0].lo, vma_cycles_min(&c));
		cr_assert_gt(bins[nbins - 1].hi, vma_cycles_max(&c) - 1);
		free(bins);
	}
	vma_cycles_release(&c, NULL);
}

Test(compact, images_round_trip_and_bad_ones_are_refused)
{
	struct vma_cycles c = { 0 }, back = { 0 }, empty = { 0 };
	struct vma_cycles_image img;
	struct rng r = { 31 };
	size_t k, i;

	for (i = 0; i < 3000; i++)
		vma_cycles_add(&c, gapped_value(&r), NULL);
	for (k = 0; k < sizeof(resolutions) / sizeof(resolutions[0]); k++) {
		cr_assert_eq(vma_cycles_compact(&c, resolutions[k], NULL), 0);
		cr_assert_eq(vma_cycles_export(&c, &img), 0);
		cr_assert(img.compact);
		cr_assert(!img.exact);
		cr_assert_eq(img.per_octave, resolutions[k]);
		cr_assert_eq(vma_cycles_import(&back, &img), 0);
		cr_assert(vma_cycles_is_compact(&back));
		same_image(&back, &c);
		assert_same(&back, &c);
		vma_cycles_image_release(&img);
	}
	/* Buckets finer than the form's resolution, or a resolution it cannot have. */
	cr_assert_eq(vma_cycles_export(&c, &img), 0);
	img.per_octave = 2;
	cr_assert_eq(vma_cycles_import(&back, &img), VMA_ERR_FORMAT);
	img.per_octave = 8;
	cr_assert_eq(vma_cycles_import(&back, &img), VMA_ERR_FORMAT);
	img.per_octave = 1;
	img.bins[0].count++;
	cr_assert_eq(vma_cycles_import(&back, &img), VMA_ERR_FORMAT);
	vma_cycles_image_release(&img);
	/* An empty compact summary (made compact before any sample) too. */
	vma_cycles_add(&empty, 0, NULL);
	cr_assert_eq(vma_cycles_compact(&empty, 4, NULL), 0);
	cr_assert_eq(vma_cycles_export(&empty, &img), 0);
	cr_assert(img.compact);
	cr_assert_eq(vma_cycles_import(&back, &img), 0);
	cr_assert(vma_cycles_is_compact(&back));
	cr_assert_eq(vma_cycles_percentile(&back, 50), 0);
	vma_cycles_image_release(&img);
	vma_cycles_release(&back, NULL);
	vma_cycles_release(&empty, NULL);
	vma_cycles_release(&c, NULL);
}

/* Counts past 2^20 and offset sums past 2^36 in one bucket: wide entries, nothing lost. */
Test(compact, entries_widen_without_loss)
{
	enum { MANY = (1 << 20) + 100 };
	const uint64_t far = (1ull << 40) + (1ull << 37);
	struct vma_cycles c = { 0 }, d = { 0 };
	struct vma_cycles_bin *bins;
	uint64_t sum = 0, hsum = 0;
	size_t nbins, narrow, i;

	vma_cycles_add(&c, 1000, NULL);
	cr_assert_eq(vma_cycles_compact(&c, 4, NULL), 0);
	narrow = vma_cycles_footprint(&c);
	for (i = 1; i < MANY; i++)
		vma_cycles_add(&c, 1000 + i % 20, NULL);
	for (i = 0; i < MANY; i++)
		sum += 1000 + i % 20;
	cr_assert_gt(vma_cycles_footprint(&c), narrow, "a bucket of 2^20 values is wide");
	cr_assert_eq(c.count, MANY);
	cr_assert_eq(c.cycles, sum);
	/* All in [896, 1024) at 4 a power of two: its midpoint 959, clamped to the minimum. */
	cr_assert_eq(vma_cycles_percentile(&c, 50), 1000);
	cr_assert_eq(vma_cycles_time_percentile(&c, 99), 1000);
	cr_assert_eq(vma_cycles_histogram(&c, 4, &bins, &nbins), 0);
	for (i = 0, hsum = 0; i < nbins; i++)
		hsum += bins[i].cycles;
	free(bins);
	cr_assert_eq(hsum, sum);
	/* Offsets: values of ~2^40 in one bucket of width 2^38, each past 2^36 from its bound. */
	vma_cycles_add(&d, 3, NULL);
	cr_assert_eq(vma_cycles_compact(&d, 4, NULL), 0);
	for (i = 0; i < 5000; i++)
		vma_cycles_add(&d, far + i, NULL);
	cr_assert_eq(vma_cycles_histogram(&d, 4, &bins, &nbins), 0);
	for (i = 0, hsum = 0; i < nbins; i++)
		hsum += bins[i].cycles;
	free(bins);
	cr_assert_eq(hsum, d.cycles);
	cr_assert_eq(vma_cycles_max(&d), far + 4999);
	cr_assert_leq(fabs((double)vma_cycles_time_percentile(&d, 50) - (double)(far + 2500)),
		      0.125 * (double)(far + 2500));
	vma_cycles_release(&c, NULL);
	vma_cycles_release(&d, NULL);
}

/* A compact form's size is set by its buckets: a million more values cost nothing. */
Test(compact, size_does_not_grow_with_the_count)
{
	struct vma_cycles c = { 0 };
	struct rng r = { 41 };
	size_t i, at_10k;

	for (i = 0; i < 10000; i++)
		vma_cycles_add(&c, 500 + rng_next(&r) % 100000, NULL);
	cr_assert_eq(vma_cycles_compact(&c, 4, NULL), 0);
	at_10k = vma_cycles_footprint(&c);
	/* [500, 100500): 7.6 powers of two, 4 buckets each: about 32 entries of 4 or 8 bytes. */
	cr_assert_leq(at_10k, 24 + 8 * 34, "%zu bytes", at_10k);
	for (i = 0; i < 1000000; i++)
		vma_cycles_add(&c, 500 + rng_next(&r) % 100000, NULL);
	cr_assert_eq(vma_cycles_footprint(&c), at_10k);
	cr_assert_eq(vma_cycles_compact(&c, 1, NULL), 0);
	cr_assert_leq(vma_cycles_footprint(&c), 24 + 8 * 10);
	vma_cycles_release(&c, NULL);
}

#define NSUM 3000

/*
 * Thousands of small summaries, none past 128 samples, a budget far below
 * what their exact arrays take: past its last level they take the compact
 * form (and a sketch made before gives way as it takes values), the
 * memory comes back near the limit, counters stay exact, and every
 * summary's percentiles stay within the budget's stated bound.
 */
Test(compact, a_budget_past_its_last_level)
{
	enum { PER = 120 };
	static struct vma_cycles s[NSUM];
	static uint64_t v[NSUM][PER];
	struct vma_cycles_budget b;
	struct vma_cycles big = { 0 };
	struct rng r = { 77 };
	uint64_t sum[NSUM] = { 0 };
	size_t i, k, exact = 0;

	memset(s, 0, sizeof(s));
	/* Unlimited, these hold about 1 MiB: give them 400 KiB. */
	vma_cycles_budget_init(&b, 400 << 10);
	/* A sketch first (more than its exact limit), then the small ones. */
	for (k = 0; k < 3000; k++)
		vma_cycles_add(&big, wide_value(&r), &b);
	cr_assert(!vma_cycles_is_exact(&big) && !vma_cycles_is_compact(&big));
	for (k = 0; k < PER; k++) {
		for (i = 0; i < NSUM; i++) {
			/* Summary i gets 4 + i % 117 samples: some stay small. */
			if (k >= 4 + i % 117)
				continue;
			v[i][k] = gens[i % 3](&r);
			sum[i] += v[i][k];
			vma_cycles_add(&s[i], v[i][k], &b);
		}
	}
	cr_assert(b.compact, "the last level was passed");
	cr_assert_gt(b.compacts, 0);
	cr_assert_lt(b.exact_limit, 128);
	cr_assert_eq(b.used, summaries_held(s, NSUM) + summaries_held(&big, 1));
	cr_assert_gt(b.compact_used, 0);
	cr_assert_leq(b.compact_used, b.used);
	cr_assert_leq(b.used, b.limit + b.limit / 8, "used %zu of %zu", b.used, b.limit);
	/* The sketch made before takes values: it gives way. */
	for (k = 0; k < 64; k++)
		vma_cycles_add(&big, wide_value(&r), &b);
	cr_assert(vma_cycles_is_compact(&big));
	cr_assert_eq(big.count, 3064);
	for (i = 0; i < NSUM; i++) {
		size_t n = 4 + i % 117;

		cr_assert_eq(s[i].count, n);
		cr_assert_eq(s[i].cycles, sum[i]);
		if (vma_cycles_is_exact(&s[i])) {
			exact++;
			continue;
		}
		cr_assert(vma_cycles_is_compact(&s[i]), "summary %zu: a sketch", i);
		cr_assert_geq(vma_cycles_per_octave(&s[i]), vma_cycles_budget_per_octave(&b));
		qsort(v[i], n, sizeof(v[i][0]), cmp_u64);
		check_against(&s[i], v[i], n, sum[i]);
	}
	cr_assert_gt(exact, 0, "small summaries stay exact");
	for (i = 0; i < NSUM; i++)
		vma_cycles_release(&s[i], &b);
	vma_cycles_release(&big, &b);
	cr_assert_eq(b.used, 0);
	cr_assert_eq(b.compact_used, 0);
	cr_assert_null(b.sketches);
}
