/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the cycle-summary accumulator (src/summary/cycles.c): exact
 * answers with xenalyze's index rule on small summaries (against a naive
 * sort-based reference), the 1% bound of the sketch on large random sets,
 * time-weighted percentiles, zero-cycle events, merging, histograms, and
 * that memory stops growing once the magnitudes have been seen.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heap-held.h"
#include "test-rng.h"
#include "vmalyze/cycles.h"

static double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static double rng_normal(struct rng *r)
{
	double u = rng_unit(r), v = rng_unit(r);

	return sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}

/* Sorted copy of the non-zero values; returns how many. */
static size_t ref_sorted(const uint64_t *v, size_t n, uint64_t **out)
{
	uint64_t *s = malloc(sizeof(*s) * (n ? n : 1));
	size_t i, m = 0;

	cr_assert_not_null(s);
	for (i = 0; i < n; i++) {
		if (v[i])
			s[m++] = v[i];
	}
	qsort(s, m, sizeof(*s), cmp_u64);
	*out = s;
	return m;
}

/* xenalyze's percentile(): the element at index floor(N * p / 100) of the sorted samples. */
static uint64_t ref_count_q(const uint64_t *sorted, size_t m, uint32_t num, uint32_t den)
{
	size_t k;

	if (m == 0)
		return 0;
	k = (size_t)((unsigned __int128)m * num / den);
	return sorted[k < m ? k : m - 1];
}

/* Weighted by value: the smallest sample whose inclusive prefix sum exceeds floor(W * p / 100). */
static uint64_t ref_time_q(const uint64_t *sorted, size_t m, uint32_t num, uint32_t den)
{
	unsigned __int128 w = 0, k, c = 0;
	size_t i;

	if (m == 0)
		return 0;
	for (i = 0; i < m; i++)
		w += sorted[i];
	k = w * num / den;
	for (i = 0; i < m; i++) {
		c += sorted[i];
		if (c > k)
			return sorted[i];
	}
	return sorted[m - 1];
}

static void fill(struct vma_cycles *s, const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		vma_cycles_add(s, v[i], NULL);
}

Test(cycles, zero_filled_is_empty)
{
	struct vma_cycles s;
	struct vma_cycles_bin *bins;
	size_t nbins;

	memset(&s, 0, sizeof(s));
	cr_expect_eq(vma_cycles_percentile(&s, 50), 0);
	cr_expect_eq(vma_cycles_time_percentile(&s, 95), 0);
	cr_expect_eq(vma_cycles_mean(&s), 0);
	cr_expect_eq(vma_cycles_min(&s), 0);
	cr_expect_eq(vma_cycles_max(&s), 0);
	cr_expect(vma_cycles_is_exact(&s));
	cr_assert_eq(vma_cycles_histogram(&s, 1, &bins, &nbins), 0);
	cr_expect_null(bins);
	cr_expect_eq(nbins, 0);
	vma_cycles_release(&s, NULL);
}

Test(cycles, struct_is_small)
{
	cr_expect_leq(sizeof(struct vma_cycles), 40);
}

Test(cycles, zero_cycle_events_are_events_only)
{
	struct vma_cycles s = { 0 };
	static const uint64_t v[] = { 0, 0, 5, 0, 7, 0 };

	fill(&s, v, 6);
	cr_expect_eq(s.events, 6);
	cr_expect_eq(s.count, 2);
	cr_expect_eq(s.cycles, 12);
	cr_expect_eq(vma_cycles_mean(&s), 6);
	/* percentiles over {5, 7} only: index floor(2*p/100) */
	cr_expect_eq(vma_cycles_percentile(&s, 5), 5);
	cr_expect_eq(vma_cycles_percentile(&s, 50), 7);
	cr_expect_eq(vma_cycles_min(&s), 5);

	/* only zero-cycle events: counted as events, no samples */
	vma_cycles_release(&s, NULL);
	vma_cycles_add(&s, 0, NULL);
	cr_expect_eq(s.events, 1);
	cr_expect_eq(s.count, 0);
	cr_expect_eq(vma_cycles_mean(&s), 0);
	cr_expect_eq(vma_cycles_percentile(&s, 50), 0);
	vma_cycles_release(&s, NULL);
}

Test(cycles, mean_truncates)
{
	struct vma_cycles s = { 0 };

	vma_cycles_add(&s, 1, NULL);
	vma_cycles_add(&s, 2, NULL);
	cr_expect_eq(vma_cycles_mean(&s), 1);
	vma_cycles_add(&s, 2, NULL);
	cr_expect_eq(vma_cycles_mean(&s), 1); /* 5 / 3 */
	vma_cycles_release(&s, NULL);
}

Test(cycles, xenalyze_index_rule)
{
	struct vma_cycles s = { 0 };
	uint64_t i;

	/* 17 samples 10..170 arriving in reverse: p5 -> index 0, p50 -> 8, p95 -> 16 */
	for (i = 17; i >= 1; i--)
		vma_cycles_add(&s, i * 10, NULL);
	cr_expect_eq(vma_cycles_percentile(&s, 50), 90);
	cr_expect_eq(vma_cycles_percentile(&s, 5), 10);
	cr_expect_eq(vma_cycles_percentile(&s, 95), 170);
	/* 3 more (20 samples): p5 -> index 1, p95 -> index 19, p50 -> index 10 */
	vma_cycles_add(&s, 180, NULL);
	vma_cycles_add(&s, 190, NULL);
	vma_cycles_add(&s, 200, NULL);
	cr_expect_eq(vma_cycles_percentile(&s, 5), 20);
	cr_expect_eq(vma_cycles_percentile(&s, 50), 110);
	cr_expect_eq(vma_cycles_percentile(&s, 95), 200);
	/* two samples: p50 is the larger one (index 1), not an interpolation */
	vma_cycles_release(&s, NULL);
	vma_cycles_add(&s, 100, NULL);
	vma_cycles_add(&s, 300, NULL);
	cr_expect_eq(vma_cycles_percentile(&s, 50), 300);
	cr_expect_eq(vma_cycles_percentile(&s, 49), 100);
	vma_cycles_release(&s, NULL);
}

Test(cycles, time_weighted_small)
{
	struct vma_cycles s = { 0 };

	/* weights 1, 1, 1, 97: W = 100; p5 target 5 -> only the 97 crosses it */
	vma_cycles_add(&s, 97, NULL);
	vma_cycles_add(&s, 1, NULL);
	vma_cycles_add(&s, 1, NULL);
	vma_cycles_add(&s, 1, NULL);
	cr_expect_eq(vma_cycles_time_percentile(&s, 5), 97);
	cr_expect_eq(vma_cycles_time_percentile(&s, 2), 1);  /* target 2: 1+1+1 > 2 */
	cr_expect_eq(vma_cycles_time_percentile(&s, 3), 97); /* target 3: 1+1+1 not > 3 */
	cr_expect_eq(vma_cycles_time_percentile(&s, 0), 1);
	cr_expect_eq(vma_cycles_percentile(&s, 50), 1);
	cr_expect_eq(vma_cycles_percentile(&s, 75), 97);
	vma_cycles_release(&s, NULL);
}

/* Every percentile 0..100 and some finer quantiles of an exact summary equal the reference. */
static void check_exact_against_ref(struct vma_cycles *s, const uint64_t *v, size_t n)
{
	static const uint32_t fine[][2] = { { 999, 1000 }, { 1, 1000 }, { 9999, 10000 }, { 1, 3 } };
	uint64_t *sorted;
	size_t m = ref_sorted(v, n, &sorted);
	uint32_t p;
	size_t i;

	cr_assert(vma_cycles_is_exact(s));
	for (p = 0; p <= 100; p++) {
		cr_assert_eq(vma_cycles_percentile(s, p), ref_count_q(sorted, m, p, 100),
			     "n=%zu p=%u count", m, p);
		cr_assert_eq(vma_cycles_time_percentile(s, p), ref_time_q(sorted, m, p, 100),
			     "n=%zu p=%u time", m, p);
	}
	for (i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		cr_assert_eq(vma_cycles_quantile(s, VMA_CYCLES_BY_COUNT, fine[i][0], fine[i][1]),
			     ref_count_q(sorted, m, fine[i][0], fine[i][1]));
		cr_assert_eq(vma_cycles_quantile(s, VMA_CYCLES_BY_TIME, fine[i][0], fine[i][1]),
			     ref_time_q(sorted, m, fine[i][0], fine[i][1]));
	}
	cr_assert_eq(vma_cycles_min(s), m ? sorted[0] : 0);
	cr_assert_eq(vma_cycles_max(s), m ? sorted[m - 1] : 0);
	free(sorted);
}

Test(cycles, exact_matches_reference)
{
	struct rng r = { 0x9E3779B97F4A7C15ULL };
	static uint64_t v[VMA_CYCLES_EXACT_DEFAULT];
	unsigned int trial;
	size_t n, i;

	for (trial = 0; trial < 300; trial++) {
		struct vma_cycles s = { 0 };
		uint64_t range = trial % 3 == 0 ? 8 : trial % 3 == 1 ? 100000 : 1ULL << 40;

		n = 1 + rng_next(&r) % VMA_CYCLES_EXACT_DEFAULT;
		for (i = 0; i < n; i++) {
			/* about one in eight events has zero cycles */
			v[i] = rng_next(&r) % 8 == 0 ? 0 : 1 + rng_next(&r) % range;
		}
		fill(&s, v, n);
		cr_assert_eq(s.events, n);
		check_exact_against_ref(&s, v, n);
		/* a second query after sorting, and after more adds, is still right */
		check_exact_against_ref(&s, v, n);
		vma_cycles_release(&s, NULL);
	}
}

/*
 * Quantiles between adds: a summary sorted by a quantile and then given
 * more samples (smaller ones, a 64-bit one, merged ones) is sorted again.
 */
Test(cycles, quantiles_between_adds)
{
	struct rng r = { 0x5DEECE66DULL };
	static uint64_t v[VMA_CYCLES_EXACT_DEFAULT];
	struct vma_cycles s = { 0 }, part = { 0 };
	size_t n = 0, i;

	while (n + 40 <= VMA_CYCLES_EXACT_DEFAULT / 2) {
		for (i = 0; i < 20; i++, n++) {
			v[n] = 1 + rng_next(&r) % (n < 200 ? 1000000 : 50);
			vma_cycles_add(&s, v[n], NULL);
		}
		check_exact_against_ref(&s, v, n);
		if (n == 300) {
			v[n] = 1ULL << 40; /* the samples go to 64 bits */
			vma_cycles_add(&s, v[n++], NULL);
			check_exact_against_ref(&s, v, n);
		}
		for (i = 0; i < 20; i++, n++) {
			v[n] = 1 + rng_next(&r) % 30;
			vma_cycles_add(&part, v[n], NULL);
		}
		cr_assert_eq(vma_cycles_merge(&s, &part, NULL), 0);
		vma_cycles_release(&part, NULL);
		check_exact_against_ref(&s, v, n);
	}
	vma_cycles_release(&s, NULL);
}

/* vma_cycles_quantiles() of @num gives each vma_cycles_quantile() of @s. */
static void check_at_once(struct vma_cycles *s, const uint32_t *num, uint32_t n, uint32_t den,
			  const char *what)
{
	uint64_t out[16];
	uint32_t i, w;

	cr_assert(n <= 16);
	for (w = 0; w < 2; w++) {
		enum vma_cycles_weight weight = w ? VMA_CYCLES_BY_TIME : VMA_CYCLES_BY_COUNT;

		memset(out, 0xa5, sizeof(out));
		vma_cycles_quantiles(s, weight, num, n, den, out);
		for (i = 0; i < n; i++) {
			cr_assert_eq(out[i], vma_cycles_quantile(s, weight, num[i], den),
				     "%s, %s weight, %u/%u: %llu at once", what,
				     w ? "time" : "count", num[i], den,
				     (unsigned long long)out[i]);
		}
	}
}

/* Each form of summary, with the numerator sets the report and users ask. */
static void check_sets(struct vma_cycles *s, const char *what)
{
	static const uint32_t report[] = { 5, 50, 95 };
	static const uint32_t edges[] = { 0, 1, 50, 99, 100, 150 };
	static const uint32_t unsorted[] = { 95, 5, 50 };
	static const uint32_t many[] = { 1, 5, 10, 25, 50, 75, 90, 95, 99, 100 };

	check_at_once(s, report, 3, 100, what);
	check_at_once(s, edges, 6, 100, what);
	check_at_once(s, unsorted, 3, 100, what);
	check_at_once(s, many, 10, 100, what);
	check_at_once(s, report, 3, 0, what);
}

Test(cycles, quantiles_at_once_are_each_quantile)
{
	struct rng r = { 0xC0FFEE1234ULL };
	struct vma_cycles s;
	size_t sizes[] = { 0, 1, 2, 7, 40, 600, 30000 }, k, i;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		char what[64];

		memset(&s, 0, sizeof(s));
		for (i = 0; i < sizes[k]; i++) {
			/* a wide spread, zeros among them, and pending values at the end */
			uint64_t v = rng_next(&r) % 7 == 0 ? 0
							    : 1 + rng_next(&r) % (1u << (i % 24));

			vma_cycles_add(&s, v, NULL);
		}
		snprintf(what, sizeof(what), "%zu samples (%s)", sizes[k],
			 vma_cycles_is_exact(&s) ? "exact" : "sketch");
		check_sets(&s, what);
		if (sizes[k]) {
			cr_assert_eq(vma_cycles_compact(&s, 4, NULL), 0);
			snprintf(what, sizeof(what), "%zu samples, compact", sizes[k]);
			check_sets(&s, what);
		}
		vma_cycles_release(&s, NULL);
	}
}

Test(cycles, exact_limit_then_sketch)
{
	struct vma_cycles s;
	uint64_t i;

	vma_cycles_init(&s, 16);
	for (i = 1; i <= 16; i++)
		vma_cycles_add(&s, i * 1000, NULL);
	cr_expect(vma_cycles_is_exact(&s));
	cr_expect_eq(vma_cycles_percentile(&s, 50), 9000);
	vma_cycles_add(&s, 0, NULL); /* an event, not a sample: stays exact */
	cr_expect(vma_cycles_is_exact(&s));
	vma_cycles_add(&s, 17000, NULL);
	cr_expect_not(vma_cycles_is_exact(&s));
	cr_expect_eq(s.count, 17);
	cr_expect_eq(s.events, 18);
	cr_expect_eq(vma_cycles_min(&s), 1000);
	cr_expect_eq(vma_cycles_max(&s), 17000);
	/* release keeps the limit */
	vma_cycles_release(&s, NULL);
	cr_expect_eq(s.count, 0);
	for (i = 1; i <= 17; i++)
		vma_cycles_add(&s, i, NULL);
	cr_expect_not(vma_cycles_is_exact(&s));
	vma_cycles_release(&s, NULL);

	/* the default limit is VMA_CYCLES_EXACT_DEFAULT */
	memset(&s, 0, sizeof(s));
	for (i = 1; i <= VMA_CYCLES_EXACT_DEFAULT; i++)
		vma_cycles_add(&s, i, NULL);
	cr_expect(vma_cycles_is_exact(&s));
	vma_cycles_add(&s, 1, NULL);
	cr_expect_not(vma_cycles_is_exact(&s));
	vma_cycles_release(&s, NULL);
}

Test(cycles, small_values_are_exact_in_sketch)
{
	static uint64_t v[1000];
	struct vma_cycles s;
	uint64_t *sorted;
	unsigned int p;
	size_t i, m;

	/* below 128 every value has its own bucket: the sketch is still exact */
	vma_cycles_init(&s, 4);
	for (i = 0; i < 1000; i++)
		v[i] = 1 + (i * 37) % 127;
	fill(&s, v, 1000);
	cr_assert_not(vma_cycles_is_exact(&s));
	m = ref_sorted(v, 1000, &sorted);
	for (p = 0; p <= 100; p++) {
		cr_assert_eq(vma_cycles_percentile(&s, p), ref_count_q(sorted, m, p, 100));
		cr_assert_eq(vma_cycles_time_percentile(&s, p), ref_time_q(sorted, m, p, 100));
	}
	free(sorted);
	vma_cycles_release(&s, NULL);
}

/*
 * A target that a running sum reaches exactly is answered by the next
 * value (xenalyze's index rule), in exact, sketch and compact form:
 * 1,000 samples of 10 and 1,000 of 20 put the median's rank (1,000) and a
 * third of the time (10,000 of 30,000 cycles) on the boundary.
 */
Test(cycles, a_target_on_a_boundary_goes_to_the_next_value)
{
	static const uint32_t quarters[2] = { 1, 2 };
	static uint64_t v[2000];
	struct vma_cycles s;
	uint64_t *sorted, out[2];
	size_t i, m;
	int form;

	for (i = 0; i < 2000; i++)
		v[i] = i < 1000 ? 10 : 20;
	m = ref_sorted(v, 2000, &sorted);
	cr_assert_eq(ref_count_q(sorted, m, 1, 2), 20);
	cr_assert_eq(ref_time_q(sorted, m, 1, 3), 20);
	for (form = 0; form < 3; form++) {
		vma_cycles_init(&s, form == 0 ? 2048 : 4);
		fill(&s, v, 2000);
		if (form == 2)
			cr_assert_eq(vma_cycles_compact(&s, 4, NULL), 0);
		cr_assert_eq(vma_cycles_is_exact(&s), form == 0);
		cr_assert_eq(vma_cycles_quantile(&s, VMA_CYCLES_BY_COUNT, 1, 2), 20, "form %d",
			     form);
		cr_assert_eq(vma_cycles_quantile(&s, VMA_CYCLES_BY_TIME, 1, 3), 20, "form %d",
			     form);
		cr_assert_eq(vma_cycles_quantile(&s, VMA_CYCLES_BY_COUNT, 999, 2000), 10,
			     "form %d", form);
		/* at once: the first target passed in the 10s, the second on their end */
		vma_cycles_quantiles(&s, VMA_CYCLES_BY_COUNT, quarters, 2, 4, out);
		cr_assert(out[0] == 10 && out[1] == 20, "form %d: %llu %llu", form,
			  (unsigned long long)out[0], (unsigned long long)out[1]);
		vma_cycles_release(&s, NULL);
	}
	free(sorted);
}

enum dist { UNIFORM, LOGNORMAL, BIMODAL, TINY_AND_HUGE };

static uint64_t draw(struct rng *r, enum dist d)
{
	switch (d) {
	case UNIFORM:
		return 1 + rng_next(r) % 1000000;
	case LOGNORMAL:
		return 1 + (uint64_t)exp(9.0 + 2.0 * rng_normal(r));
	case BIMODAL:
		/* exits of ~5000 cycles, 3% of them blocked for seconds */
		if (rng_next(r) % 100 < 3)
			return 2000000000ULL + rng_next(r) % 20000000000ULL;
		return 4000 + rng_next(r) % 2000;
	case TINY_AND_HUGE:
	default:
		/* minutes-long outliers: sums stay far below 2^64 */
		if (rng_next(r) % 2)
			return 1 + rng_next(r) % 200;
		return (1ULL << 38) + rng_next(r) % (1ULL << 40);
	}
}

static void check_relative(uint64_t got, uint64_t want, const char *what, unsigned int p)
{
	double err = fabs((double)got - (double)want) / (double)want;

	cr_assert_leq(err, 0.01, "%s p%u: got %llu want %llu (%.4f%%)", what, p,
		      (unsigned long long)got, (unsigned long long)want, err * 100);
	/* the documented bound is tighter: half a bucket, 1/128 */
	cr_assert_leq(err, 1.0 / 128 + 1e-12, "%s p%u beyond 1/128", what, p);
}

static void check_large(enum dist d, size_t n, uint64_t seed)
{
	static const unsigned int pcts[] = { 0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 100 };
	struct rng r = { seed };
	struct vma_cycles s = { 0 };
	uint64_t *v = malloc(sizeof(*v) * n), *sorted;
	size_t i, m;

	cr_assert_not_null(v);
	for (i = 0; i < n; i++)
		v[i] = draw(&r, d);
	fill(&s, v, n);
	cr_assert_not(vma_cycles_is_exact(&s));
	m = ref_sorted(v, n, &sorted);
	cr_assert_eq(s.count, m);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		check_relative(vma_cycles_percentile(&s, pcts[i]),
			       ref_count_q(sorted, m, pcts[i], 100), "count", pcts[i]);
		check_relative(vma_cycles_time_percentile(&s, pcts[i]),
			       ref_time_q(sorted, m, pcts[i], 100), "time", pcts[i]);
	}
	cr_assert_eq(vma_cycles_min(&s), sorted[0]);
	cr_assert_eq(vma_cycles_max(&s), sorted[m - 1]);
	free(sorted);
	free(v);
	vma_cycles_release(&s, NULL);
}

Test(cycles, sketch_within_1pct_uniform)
{
	check_large(UNIFORM, 500000, 1);
}

Test(cycles, sketch_within_1pct_lognormal)
{
	check_large(LOGNORMAL, 500000, 2);
}

Test(cycles, sketch_within_1pct_bimodal_outliers)
{
	check_large(BIMODAL, 500000, 3);
}

Test(cycles, sketch_within_1pct_tiny_and_huge)
{
	check_large(TINY_AND_HUGE, 200000, 4);
}

Test(cycles, sketch_within_1pct_many_seeds_small)
{
	uint64_t seed;

	/* just past the exact limit, where a sketch has few samples per bucket */
	for (seed = 10; seed < 40; seed++)
		check_large((enum dist)(seed % 4), VMA_CYCLES_EXACT_DEFAULT + 1 + seed * 37, seed);
}

static void expect_same(struct vma_cycles *a, struct vma_cycles *b)
{
	struct vma_cycles_bin *ba, *bb;
	size_t na, nb;
	unsigned int p;

	cr_assert_eq(a->events, b->events);
	cr_assert_eq(a->count, b->count);
	cr_assert_eq(a->cycles, b->cycles);
	cr_assert_eq(vma_cycles_is_exact(a), vma_cycles_is_exact(b));
	cr_assert_eq(vma_cycles_min(a), vma_cycles_min(b));
	cr_assert_eq(vma_cycles_max(a), vma_cycles_max(b));
	for (p = 0; p <= 100; p++) {
		cr_assert_eq(vma_cycles_percentile(a, p), vma_cycles_percentile(b, p), "p%u", p);
		cr_assert_eq(vma_cycles_time_percentile(a, p), vma_cycles_time_percentile(b, p),
			     "time p%u", p);
	}
	cr_assert_eq(vma_cycles_histogram(a, 64, &ba, &na), 0);
	cr_assert_eq(vma_cycles_histogram(b, 64, &bb, &nb), 0);
	cr_assert_eq(na, nb);
	cr_assert(na == 0 || memcmp(ba, bb, na * sizeof(*ba)) == 0);
	free(ba);
	free(bb);
}

static void merge_case(size_t n1, size_t n2, uint32_t limit, uint64_t seed)
{
	struct rng r = { seed };
	struct vma_cycles a, b, all;
	size_t i;

	vma_cycles_init(&a, limit);
	vma_cycles_init(&b, limit);
	vma_cycles_init(&all, limit);
	for (i = 0; i < n1 + n2; i++) {
		uint64_t v = rng_next(&r) % 10 == 0 ? 0 : draw(&r, (enum dist)(i % 3));

		vma_cycles_add(i < n1 ? &a : &b, v, NULL);
		vma_cycles_add(&all, v, NULL);
	}
	cr_assert_eq(vma_cycles_merge(&a, &b, NULL), 0);
	expect_same(&a, &all);
	vma_cycles_release(&a, NULL);
	vma_cycles_release(&b, NULL);
	vma_cycles_release(&all, NULL);
}

Test(cycles, merge_equals_adding_all)
{
	merge_case(0, 0, 64, 1);       /* empty + empty */
	merge_case(10, 0, 64, 2);      /* exact + empty */
	merge_case(0, 10, 64, 3);      /* empty + exact */
	merge_case(20, 30, 64, 4);     /* exact + exact, still exact */
	merge_case(40, 40, 64, 5);     /* exact + exact, over the limit */
	merge_case(5000, 30, 64, 6);   /* sketch + exact */
	merge_case(30, 5000, 64, 7);   /* exact + sketch */
	merge_case(5000, 7000, 64, 8); /* sketch + sketch */
	merge_case(0, 5000, 64, 9);    /* empty + sketch */
	merge_case(3, 3, 0, 10);       /* default limits */
}

Test(cycles, histogram_sums_and_bounds)
{
	static const unsigned int resolutions[] = { 1, 2, 4, 8, 16, 32, 64 };
	struct rng r = { 77 };
	struct vma_cycles exact, sk;
	size_t i, j;

	vma_cycles_init(&exact, VMA_CYCLES_EXACT_MAX);
	vma_cycles_init(&sk, 4);
	for (i = 0; i < 100000; i++) {
		uint64_t v = draw(&r, (enum dist)(i % 4));

		vma_cycles_add(&exact, v, NULL);
		vma_cycles_add(&sk, v, NULL);
	}
	cr_assert(vma_cycles_is_exact(&exact));
	cr_assert_not(vma_cycles_is_exact(&sk));
	for (i = 0; i < sizeof(resolutions) / sizeof(resolutions[0]); i++) {
		struct vma_cycles_bin *be, *bs;
		size_t ne, ns;
		uint64_t count = 0, cycles = 0;

		cr_assert_eq(vma_cycles_histogram(&exact, resolutions[i], &be, &ne), 0);
		cr_assert_eq(vma_cycles_histogram(&sk, resolutions[i], &bs, &ns), 0);
		/* bins are unions of sketch buckets: a sketch's histogram is exact */
		cr_assert_eq(ne, ns);
		cr_assert_eq(memcmp(be, bs, ne * sizeof(*be)), 0, "per_octave %u", resolutions[i]);
		cr_assert_leq(be[0].lo, vma_cycles_min(&exact));
		cr_assert_gt(be[ne - 1].hi, vma_cycles_max(&exact));
		cr_assert_neq(be[0].count, 0);
		cr_assert_neq(be[ne - 1].count, 0);
		for (j = 0; j < ne; j++) {
			cr_assert_lt(be[j].lo, be[j].hi);
			if (j)
				cr_assert_eq(be[j].lo, be[j - 1].hi, "bins contiguous");
			/* octave-aligned: a bin never crosses a power of two */
			cr_assert_leq(be[j].hi - be[j].lo, be[j].lo);
			cr_assert(be[j].count || !be[j].cycles);
			cr_assert_geq(be[j].cycles, be[j].count * be[j].lo);
			cr_assert_leq(be[j].cycles, be[j].count * (be[j].hi - 1));
			count += be[j].count;
			cycles += be[j].cycles;
		}
		cr_assert_eq(count, exact.count);
		cr_assert_eq(cycles, exact.cycles);
		free(be);
		free(bs);
	}
	vma_cycles_release(&exact, NULL);
	vma_cycles_release(&sk, NULL);
}

/* The spread as its definition gives it: from the 64-per-octave histogram's bins. */
static uint64_t ref_spread(const struct vma_cycles *s)
{
	struct vma_cycles_bin *b;
	double mean, var = 0;
	size_t n, i;

	if (s->count < 2)
		return 0;
	cr_assert_eq(vma_cycles_histogram(s, 64, &b, &n), 0);
	mean = (double)s->cycles / (double)s->count;
	for (i = 0; i < n; i++) {
		double d;

		if (!b[i].count)
			continue;
		d = (double)b[i].cycles / (double)b[i].count - mean;
		var += d * d * (double)b[i].count;
	}
	free(b);
	return (uint64_t)llround(sqrt(var / (double)s->count));
}

/*
 * The spread walks sorted samples and a sketch's buckets in order instead
 * of allocating the bins: the same figure to the last bit, for exact
 * summaries sorted or not, inline ones, sketches with values pending or
 * not, and samples past 32 bits.
 */
Test(cycles, spread_equals_its_histogram)
{
	static const uint32_t sizes[] = { 2, 3, 40, 1000, 5000, 100000 };
	struct rng r = { 4242 };
	size_t d, i, k;

	for (d = 0; d < 4; d++) {
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			struct vma_cycles s;

			vma_cycles_init(&s, k % 2 ? 4 : VMA_CYCLES_EXACT_MAX);
			for (i = 0; i < sizes[k]; i++)
				vma_cycles_add(&s, draw(&r, (enum dist)d), NULL);
			/* unsorted (or pending), then after a quantile sorted (or inserted) */
			cr_assert_eq(vma_cycles_spread(&s), ref_spread(&s), "dist %zu, %u", d, sizes[k]);
			(void)vma_cycles_quantile(&s, VMA_CYCLES_BY_COUNT, 50, 100);
			cr_assert_eq(vma_cycles_spread(&s), ref_spread(&s), "dist %zu, %u", d, sizes[k]);
			cr_assert_neq(vma_cycles_spread(&s), 0);
			vma_cycles_release(&s, NULL);
		}
	}
}

Test(cycles, histogram_power_of_two_bins)
{
	struct vma_cycles s = { 0 };
	struct vma_cycles_bin *b;
	size_t n;

	vma_cycles_add(&s, 5000, NULL);
	vma_cycles_add(&s, 5000, NULL);
	vma_cycles_add(&s, 70000, NULL);
	vma_cycles_add(&s, 0, NULL);
	cr_assert_eq(vma_cycles_histogram(&s, 1, &b, &n), 0);
	cr_assert_eq(n, 5);
	cr_expect_eq(b[0].lo, 4096);
	cr_expect_eq(b[0].hi, 8192);
	cr_expect_eq(b[0].count, 2);
	cr_expect_eq(b[0].cycles, 10000);
	cr_expect_eq(b[1].count, 0);
	cr_expect_eq(b[4].lo, 65536);
	cr_expect_eq(b[4].hi, 131072);
	cr_expect_eq(b[4].count, 1);
	free(b);
	/* 4 bins per octave of width 1024: 5000 is in [4096, 5120) */
	cr_assert_eq(vma_cycles_histogram(&s, 4, &b, &n), 0);
	cr_expect_eq(b[0].lo, 4096);
	cr_expect_eq(b[0].hi, 5120);
	cr_expect_eq(b[0].count, 2);
	free(b);
	vma_cycles_release(&s, NULL);

	/* small values get one bin per integer when the octave is too narrow */
	vma_cycles_add(&s, 1, NULL);
	vma_cycles_add(&s, 3, NULL);
	cr_assert_eq(vma_cycles_histogram(&s, 8, &b, &n), 0);
	cr_assert_eq(n, 3);
	cr_expect_eq(b[0].lo, 1);
	cr_expect_eq(b[0].hi, 2);
	cr_expect_eq(b[1].count, 0);
	cr_expect_eq(b[2].lo, 3);
	cr_expect_eq(b[2].hi, 4);
	free(b);
	vma_cycles_release(&s, NULL);
}

/* @s and @ref (exact) have the same finest histogram and quantiles' buckets. */
static void check_like_exact(struct vma_cycles *s, struct vma_cycles *ref)
{
	struct vma_cycles_bin *bs, *br;
	size_t ns, nr;

	cr_assert(vma_cycles_is_exact(ref));
	cr_assert_eq(vma_cycles_histogram(s, 64, &bs, &ns), 0);
	cr_assert_eq(vma_cycles_histogram(ref, 64, &br, &nr), 0);
	cr_assert_eq(ns, nr);
	cr_assert_eq(memcmp(bs, br, ns * sizeof(*bs)), 0);
	free(bs);
	free(br);
	cr_assert_eq(vma_cycles_min(s), vma_cycles_min(ref));
	cr_assert_eq(vma_cycles_max(s), vma_cycles_max(ref));
	cr_assert_eq(s->count, ref->count);
	cr_assert_eq(s->cycles, ref->cycles);
}

/*
 * A sketch's buckets start at 32 bits and widen when a count or a sum
 * would not fit: by adding (2047 values in one bucket, then offsets of
 * 2^40) and by merging; nothing is lost on the way.
 */
Test(cycles, buckets_widen_without_loss)
{
	struct vma_cycles a, b, ref_a, ref_b;
	uint32_t i;

	vma_cycles_init(&a, 4);
	vma_cycles_init(&b, 4);
	vma_cycles_init(&ref_a, VMA_CYCLES_EXACT_MAX);
	vma_cycles_init(&ref_b, VMA_CYCLES_EXACT_MAX);
	for (i = 0; i < 1500; i++) {
		vma_cycles_add(&a, 1000 + i % 7, NULL);
		vma_cycles_add(&ref_a, 1000 + i % 7, NULL);
		vma_cycles_add(&b, 1003, NULL);
		vma_cycles_add(&ref_b, 1003, NULL);
	}
	check_like_exact(&a, &ref_a);
	/* tiny + tiny: 1500 + 1500 values in bucket 1003's, past 2047 */
	cr_assert_eq(vma_cycles_merge(&a, &b, NULL), 0);
	cr_assert_eq(vma_cycles_merge(&ref_a, &ref_b, NULL), 0);
	check_like_exact(&a, &ref_a);
	/* by adding: one bucket past 2047 values, then past 2^40 of offsets */
	for (i = 0; i < 3000; i++) {
		vma_cycles_add(&b, 1003, NULL);
		vma_cycles_add(&ref_b, 1003, NULL);
	}
	check_like_exact(&b, &ref_b);
	for (i = 0; i < 8; i++) {
		uint64_t v = (1ULL << 45) + (1ULL << 38) * 3 + i;

		vma_cycles_add(&a, v, NULL);
		vma_cycles_add(&ref_a, v, NULL);
	}
	check_like_exact(&a, &ref_a);
	/* a wide sketch merged into a narrower one */
	cr_assert_eq(vma_cycles_merge(&b, &a, NULL), 0);
	cr_assert_eq(vma_cycles_merge(&ref_b, &ref_a, NULL), 0);
	check_like_exact(&b, &ref_b);
	cr_assert_not(vma_cycles_failed(&a));
	cr_assert_not(vma_cycles_failed(&b));
	vma_cycles_release(&a, NULL);
	vma_cycles_release(&b, NULL);
	vma_cycles_release(&ref_a, NULL);
	vma_cycles_release(&ref_b, NULL);
}

Test(cycles, extreme_values)
{
	struct vma_cycles s;
	struct vma_cycles_bin *b;
	size_t n;
	uint64_t top = UINT64_MAX;

	vma_cycles_init(&s, 4);
	vma_cycles_add(&s, 1, NULL);
	vma_cycles_add(&s, 2, NULL);
	vma_cycles_add(&s, 3, NULL);
	vma_cycles_add(&s, 4, NULL);
	vma_cycles_add(&s, top, NULL);
	cr_assert_not(vma_cycles_is_exact(&s));
	cr_expect_eq(vma_cycles_max(&s), top);
	cr_expect_eq(vma_cycles_percentile(&s, 100), top);
	cr_expect_eq(vma_cycles_percentile(&s, 0), 1);
	cr_assert_eq(vma_cycles_histogram(&s, 1, &b, &n), 0);
	cr_expect_eq(n, 64);
	cr_expect_eq(b[n - 1].lo, 1ULL << 63);
	cr_expect_eq(b[n - 1].hi, UINT64_MAX);
	cr_expect_eq(b[n - 1].count, 1);
	free(b);
	vma_cycles_release(&s, NULL);
}

/*
 * mallinfo2() counts chunks parked in glibc's per-thread cache as in use, so
 * whether a realloc's old block shows depends on the heap's layout, which
 * differs from machine to machine.  Without that cache the count is what is
 * held: run once more with it off, before Criterion forks the tests.
 */
__attribute__((constructor)) static void without_tcache(int argc, char **argv)
{
	const char *tun = getenv("GLIBC_TUNABLES");
	char buf[512];

	(void)argc;
	if (tun && strstr(tun, "glibc.malloc.tcache_count=0"))
		return;
	snprintf(buf, sizeof(buf), "%s%sglibc.malloc.tcache_count=0", tun ? tun : "",
		 tun && *tun ? ":" : "");
	setenv("GLIBC_TUNABLES", buf, 1);
	execv("/proc/self/exe", argv); /* on failure, run with the cache */
}

Test(cycles, memory_does_not_grow_with_events)
{
	struct rng r = { 5 };
	struct vma_cycles s = { 0 };
	size_t before, after, i;

	for (i = 0; i < 1000000; i++)
		vma_cycles_add(&s, 1000 + rng_next(&r) % 10000000, NULL);
	before = heap_held();
	for (i = 0; i < 4000000; i++)
		vma_cycles_add(&s, 1000 + rng_next(&r) % 10000000, NULL);
	after = heap_held();
	cr_expect_eq(after, before, "heap grew from %zu to %zu", before, after);
	cr_expect_eq(s.count, 5000000);
	vma_cycles_release(&s, NULL);
}

/*
 * A sketch allocates its buckets in pages of 16 where values fall: a narrow
 * band with outliers 2^10 and 2^40 away costs three pages, not the 64
 * buckets of every power of two in between (some 16 KiB).
 */
Test(cycles, sparse_sketch_costs_its_pages_only)
{
	struct vma_cycles s = { 0 };
	size_t before, after, i;

	before = heap_held();
	for (i = 0; i < 3000; i++)
		vma_cycles_add(&s, 1000 + i % 8, NULL);
	vma_cycles_add(&s, 1u << 20, NULL);
	vma_cycles_add(&s, 1ULL << 40, NULL);
	cr_assert_eq(vma_cycles_percentile(&s, 50), 1003); /* also inserts the pending values */
	after = heap_held();
	cr_expect(!vma_cycles_is_exact(&s));
	cr_expect(after - before <= 1536, "sketch holds %zu bytes", after - before);
	cr_expect_eq(vma_cycles_max(&s), 1ULL << 40);
	cr_expect_eq(vma_cycles_min(&s), 1000);
	cr_expect_eq(vma_cycles_percentile(&s, 100), 1ULL << 40);
	cr_expect_eq(vma_cycles_time_percentile(&s, 99), 1ULL << 40);
	vma_cycles_release(&s, NULL);
}

/*
 * Exact arrays grow in steps of 1.5 and 1.33 (4, 6, 8, 12, ...): 700
 * samples take 768 slots, not 1024.
 */
Test(cycles, exact_growth_stops_near_the_count)
{
	struct vma_cycles s = { 0 };
	size_t before, after, i;

	before = heap_held();
	for (i = 0; i < 700; i++)
		vma_cycles_add(&s, 100 + i, NULL);
	after = heap_held();
	cr_expect(vma_cycles_is_exact(&s));
	cr_expect(after - before <= 768 * 4 + 64, "700 samples hold %zu bytes", after - before);
	cr_expect_eq(vma_cycles_percentile(&s, 50), 450);
	vma_cycles_release(&s, NULL);
}

/* Merges that end on, just before and just after every capacity step. */
Test(cycles, merge_across_exact_capacities)
{
	static const size_t sizes[] = { 1, 3, 4, 5, 6, 7, 11, 12, 13, 23, 24, 25, 47, 48, 95, 96 };
	size_t i, j;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++)
			merge_case(sizes[i], sizes[j], 64, 100 + i * 17 + j);
	}
}

/* Sketches merged into each other allocate the pages of both. */
Test(cycles, merge_sparse_sketches)
{
	struct vma_cycles a = { 0 }, b = { 0 }, all = { 0 };
	size_t i;

	for (i = 0; i < 5000; i++) {
		uint64_t va = i % 100 == 0 ? (1ULL << 33) + i : 2000 + i % 50;
		uint64_t vb = i % 7 == 0 ? 5 : 900000 + i;

		vma_cycles_add(&a, va, NULL);
		vma_cycles_add(&b, vb, NULL);
		vma_cycles_add(&all, va, NULL);
		vma_cycles_add(&all, vb, NULL);
	}
	cr_assert_eq(vma_cycles_merge(&a, &b, NULL), 0);
	expect_same(&a, &all);
	vma_cycles_release(&a, NULL);
	vma_cycles_release(&b, NULL);
	vma_cycles_release(&all, NULL);
}
