/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the cycle summaries' memory budget (src/summary/cycles-budget.c):
 * the charges add up to what the summaries hold, a budget that is reached
 * gives up precision instead of memory, collapsed sketches keep counts,
 * sums and extremes exact and their percentiles within the stated error,
 * and summaries collapsed to different resolutions merge (and store) to
 * the same buckets in any order.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test-rng.h"
#include "vmalyze/cycles.h"

/* Log-uniform over about 2^4 .. 2^34: buckets of many powers of two, some 64-bit. */
static uint64_t wide_value(struct rng *r)
{
	unsigned int e = 4 + (unsigned int)(rng_next(r) % 31);

	return ((uint64_t)1 << e) + rng_next(r) % ((uint64_t)1 << e);
}

#define NSUM 64

/* Every charge and credit matches an allocation: the budget is what the summaries hold. */
Test(budget, charges_are_the_live_allocation)
{
	static struct vma_cycles s[NSUM];
	struct vma_cycles_budget b;
	struct rng r = { 7 };
	size_t i, k;

	memset(s, 0, sizeof(s));
	vma_cycles_budget_init(&b, 0);
	for (k = 0; k < 40000; k++) {
		/* Summary i gets ~i^2 values: some stay exact, some become sketches. */
		i = (size_t)(rng_next(&r) % (NSUM * NSUM));
		i = (size_t)sqrt((double)i);
		vma_cycles_add(&s[i], k % 97 == 0 ? 0 : wide_value(&r), &b);
		if (k % 5000 == 0)
			cr_assert_eq(b.used, summaries_held(s, NSUM), "after %zu values", k);
	}
	cr_assert_eq(b.used, summaries_held(s, NSUM));
	/* Merges into summaries of the same budget, a coarsening, a release. */
	cr_assert_eq(vma_cycles_merge(&s[3], &s[NSUM - 1], &b), 0);
	cr_assert_eq(vma_cycles_merge_samples(&s[NSUM - 2], &s[5], &b), 0);
	cr_assert_eq(vma_cycles_coarsen(&s[NSUM - 3], 16, &b), 0);
	cr_assert_eq(vma_cycles_coarsen(&s[2], 8, &b), 0);
	vma_cycles_release(&s[NSUM - 4], &b);
	cr_assert_eq(b.used, summaries_held(s, NSUM));
	cr_assert_geq(b.peak, b.used);
	cr_assert_eq(b.step, 0, "no limit: never tightened");
	for (i = 0; i < NSUM; i++)
		vma_cycles_release(&s[i], &b);
	cr_assert_eq(b.used, 0);
	cr_assert_null(b.sketches);
}

/* Count, sum, extremes exact; percentiles within the bound of the resolution. */
static void check_against(struct vma_cycles *c, const uint64_t *sorted, size_t n, uint64_t sum)
{
	static const unsigned int pcts[] = { 1, 5, 50, 95, 99 };
	double bound = vma_cycles_error_bound(vma_cycles_per_octave(c));
	size_t i, j;

	cr_assert_eq(c->count, n);
	cr_assert_eq(c->cycles, sum);
	cr_assert_eq(vma_cycles_min(c), sorted[0]);
	cr_assert_eq(vma_cycles_max(c), sorted[n - 1]);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		uint64_t want = sorted[n * pcts[i] / 100], got = vma_cycles_percentile(c, pcts[i]);
		unsigned __int128 target = (unsigned __int128)sum * pcts[i] / 100, cum = 0;

		cr_assert_leq(fabs((double)got - (double)want), bound * (double)want,
			      "p%u at %u per octave: %lu, exact %lu", pcts[i],
			      vma_cycles_per_octave(c), (unsigned long)got, (unsigned long)want);
		for (j = 0; j < n && cum <= target; j++)
			cum += sorted[j];
		want = sorted[j - 1];
		got = vma_cycles_time_percentile(c, pcts[i]);
		cr_assert_leq(fabs((double)got - (double)want), bound * (double)want,
			      "time p%u at %u per octave", pcts[i], vma_cycles_per_octave(c));
	}
}

Test(budget, collapse_keeps_counters_and_the_stated_error)
{
	enum { N = 20000 };
	static uint64_t v[N];
	struct vma_cycles c = { 0 };
	struct rng r = { 11 };
	unsigned int per;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < N; i++) {
		v[i] = wide_value(&r);
		sum += v[i];
		vma_cycles_add(&c, v[i], NULL);
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	cr_assert_eq(vma_cycles_per_octave(&c), 64);
	for (per = 64; per >= VMA_CYCLES_SKETCH_SUB_MIN; per /= 2) {
		size_t before = vma_cycles_footprint(&c);

		cr_assert_eq(vma_cycles_coarsen(&c, per, NULL), 0);
		cr_assert_eq(vma_cycles_per_octave(&c), per);
		cr_assert_leq(vma_cycles_footprint(&c), before, "collapsing never grows");
		check_against(&c, v, N, sum);
	}
	cr_assert_eq(vma_cycles_error_bound(64), 0.0078125);
	cr_assert_eq(vma_cycles_error_bound(4), 0.125);
	vma_cycles_release(&c, NULL);
}

/* A budget that is reached: memory back near the limit, precision given up, counters exact. */
Test(budget, a_reached_budget_gives_up_precision_not_memory)
{
	enum { PER = 3000 };
	static struct vma_cycles s[NSUM];
	struct vma_cycles_budget b, free_b;
	struct vma_cycles ref = { 0 };
	struct rng r = { 5 };
	uint64_t sum[NSUM] = { 0 };
	size_t i, k;

	memset(s, 0, sizeof(s));
	vma_cycles_budget_init(&free_b, 0);
	for (i = 0; i < NSUM; i++) {
		for (k = 0; k < PER; k++)
			vma_cycles_add(&ref, wide_value(&r), &free_b);
	}
	/* Unlimited, 64 such sketches would hold about this; give a quarter of it. */
	vma_cycles_budget_init(&b, free_b.peak * NSUM / 4);
	r.s = 5;
	for (k = 0; k < PER; k++) {
		for (i = 0; i < NSUM; i++) {
			uint64_t x = wide_value(&r);

			sum[i] += x;
			vma_cycles_add(&s[i], x, &b);
		}
	}
	cr_assert_gt(b.step, 0);
	cr_assert_lt(vma_cycles_budget_per_octave(&b), 64);
	cr_assert_leq(b.used, b.limit + b.limit / 8, "used %zu of %zu", b.used, b.limit);
	cr_assert_eq(b.used, summaries_held(s, NSUM));
	for (i = 0; i < NSUM; i++) {
		cr_assert_eq(s[i].count, PER);
		cr_assert_eq(s[i].cycles, sum[i]);
		cr_assert_geq(vma_cycles_per_octave(&s[i]), vma_cycles_budget_per_octave(&b));
		vma_cycles_release(&s[i], &b);
	}
	cr_assert_eq(b.used, 0);
	vma_cycles_release(&ref, &free_b);
}

/*
 * The rows' floor, granted past their part of the budget, comes out of
 * the summaries' part: the two hold the whole budget together.
 */
Test(budget, rows_past_their_part_come_out_of_the_summaries)
{
	static struct vma_cycles s[NSUM], t[NSUM];
	struct vma_cycles_budget alone, shared;
	size_t i, k;

	memset(s, 0, sizeof(s));
	memset(t, 0, sizeof(t));
	vma_cycles_budget_init(&alone, 256 << 10);
	vma_cycles_budget_init(&shared, 256 << 10);
	alone.rows.limit = shared.rows.limit = 32 << 10;
	/* The rows take 96 KiB: 64 past their part (a vcpu's first exit reasons, say). */
	cr_assert(vma_rows_charge(&shared, 32 << 10));
	cr_assert(!vma_rows_charge(&shared, 1));
	vma_rows_force(&shared, 64 << 10);
	/* 64 arrays of 900 samples: 1024 slots of 4 bytes each, 256 KiB, the whole limit. */
	for (k = 1; k <= 900; k++) {
		for (i = 0; i < NSUM; i++) {
			vma_cycles_add(&s[i], 1000 + (k * 7919 + i) % 500, &alone);
			vma_cycles_add(&t[i], 1000 + (k * 7919 + i) % 500, &shared);
		}
	}
	cr_assert_eq(alone.step, 0, "256 KiB of summaries fit alone");
	cr_assert_eq(alone.used, 256 << 10);
	cr_assert_gt(shared.step, 0, "not with 64 KiB of rows past theirs");
	cr_assert_leq(shared.used, (192 << 10) + (256 << 10) / 8, "used %zu", shared.used);
	for (i = 0, k = 0; i < NSUM; i++) {
		cr_assert(vma_cycles_is_exact(&s[i]));
		k += !vma_cycles_is_exact(&t[i]);
		cr_assert_eq(s[i].count, t[i].count);
		cr_assert_eq(s[i].cycles, t[i].cycles);
		vma_cycles_release(&s[i], &alone);
		vma_cycles_release(&t[i], &shared);
	}
	cr_assert_gt(k, NSUM / 2, "%zu summaries gave way", k);
	cr_assert_eq(alone.used, 0);
	cr_assert_eq(shared.used, 0);
}

/*
 * Once a charge of the rows was refused, every later one is, however
 * small: which keys get rows does not depend on which table grew first.
 */
Test(budget, rows_refuse_every_charge_once_one_was_refused)
{
	struct vma_cycles_budget b;

	vma_cycles_budget_init(&b, 256 << 10);
	b.rows.limit = 32 << 10;
	cr_assert(vma_rows_charge(&b, 24 << 10));
	cr_assert(!b.rows.reached);
	cr_assert(!vma_rows_charge(&b, 16 << 10), "past the limit");
	cr_assert(b.rows.reached);
	cr_assert(!vma_rows_charge(&b, 4 << 10), "would fit, refused all the same");
	cr_assert_eq(b.rows.used, 24 << 10);
	cr_assert_eq(b.rows.charged, 24 << 10);
	/* The floor is still granted. */
	vma_rows_force(&b, 4 << 10);
	cr_assert_eq(b.rows.used, 28 << 10);
	vma_rows_credit(&b, 28 << 10);
	cr_assert_eq(b.rows.used, 0);
}

/* Exact arrays that must grow past a tightened budget's exact limit become sketches. */
Test(budget, exact_arrays_give_way_as_they_grow)
{
	static struct vma_cycles s[NSUM];
	struct vma_cycles_budget b;
	size_t i, k;

	memset(s, 0, sizeof(s));
	/* 64 arrays of 1024 32-bit samples: 256 KiB; allow 64 KiB. */
	vma_cycles_budget_init(&b, 64 << 10);
	for (k = 1; k <= 1000; k++) {
		for (i = 0; i < NSUM; i++)
			vma_cycles_add(&s[i], 1000 + (k * 7919 + i) % 500, &b);
	}
	cr_assert_gt(b.step, 0);
	cr_assert_lt(b.exact_limit, VMA_CYCLES_EXACT_DEFAULT);
	cr_assert_gt(b.early, 0);
	for (i = 0; i < NSUM; i++) {
		cr_assert_eq(s[i].count, 1000);
		cr_assert(!vma_cycles_is_exact(&s[i]), "summary %zu still exact", i);
		vma_cycles_release(&s[i], &b);
	}
}

/*
 * Parts at 64, 16 and 4 buckets per power of two, and a small exact one,
 * merged in every order and in a tree (what the batch aggregate does with
 * the traces' summaries): the buckets of everything at the coarsest.
 */
Test(budget, differently_collapsed_summaries_merge_in_any_order)
{
	static const unsigned int per[4] = { 64, 16, 4, 0 };
	static const int orders[3][4] = { { 0, 1, 2, 3 }, { 3, 2, 1, 0 }, { 2, 0, 3, 1 } };
	struct vma_cycles part[4] = { 0 }, all = { 0 }, flat[3] = { 0 }, tree[2] = { 0 };
	struct vma_cycles back = { 0 };
	struct vma_cycles_image img;
	struct rng r = { 3 };
	size_t p, k, o;

	for (p = 0; p < 4; p++) {
		for (k = 0; k < (p == 3 ? 50u : 4000u); k++) {
			uint64_t x = k % 50 == 0 ? 0 : wide_value(&r);

			vma_cycles_add(&part[p], x, NULL);
			vma_cycles_add(&all, x, NULL);
		}
		if (per[p])
			cr_assert_eq(vma_cycles_coarsen(&part[p], per[p], NULL), 0);
	}
	cr_assert(vma_cycles_is_exact(&part[3]));
	cr_assert_eq(vma_cycles_coarsen(&all, 4, NULL), 0);
	for (o = 0; o < 3; o++) {
		for (k = 0; k < 4; k++)
			cr_assert_eq(vma_cycles_merge(&flat[o], &part[orders[o][k]], NULL), 0);
		same_image(&flat[o], &all);
	}
	cr_assert_eq(vma_cycles_merge(&tree[0], &part[3], NULL), 0);
	cr_assert_eq(vma_cycles_merge(&tree[0], &part[1], NULL), 0);
	cr_assert_eq(vma_cycles_merge(&tree[1], &part[2], NULL), 0);
	cr_assert_eq(vma_cycles_merge(&tree[1], &part[0], NULL), 0);
	cr_assert_eq(vma_cycles_merge(&tree[0], &tree[1], NULL), 0);
	same_image(&tree[0], &all);
	/* Stored and read back (the save file), it merges as collapsed as it was. */
	cr_assert_eq(vma_cycles_export(&part[1], &img), 0);
	cr_assert_eq(img.per_octave, 16);
	cr_assert_eq(vma_cycles_import(&back, &img), 0);
	vma_cycles_image_release(&img);
	same_image(&back, &part[1]);
	vma_cycles_release(&back, NULL);
	for (p = 0; p < 4; p++)
		vma_cycles_release(&part[p], NULL);
	for (o = 0; o < 3; o++)
		vma_cycles_release(&flat[o], NULL);
	vma_cycles_release(&tree[0], NULL);
	vma_cycles_release(&tree[1], NULL);
	vma_cycles_release(&all, NULL);
}

/* A sketch made early (fewer samples than its limit) is stored and read back as one. */
Test(budget, an_early_sketch_round_trips)
{
	struct vma_cycles c = { 0 }, back = { 0 };
	struct vma_cycles_image img;
	struct vma_cycles_bin *bins;
	uint64_t n = 0;
	size_t nbins, i;

	for (i = 1; i <= 300; i++)
		vma_cycles_add(&c, i * 977, NULL);
	cr_assert_eq(vma_cycles_coarsen(&c, 32, NULL), 0);
	cr_assert(!vma_cycles_is_exact(&c));
	cr_assert_eq(vma_cycles_export(&c, &img), 0);
	cr_assert(!img.exact);
	cr_assert_eq(vma_cycles_import(&back, &img), 0);
	vma_cycles_image_release(&img);
	same_image(&back, &c);
	/* Its histogram has at most its own resolution, and adds up. */
	cr_assert_eq(vma_cycles_histogram(&c, 64, &bins, &nbins), 0);
	for (i = 0; i < nbins; i++)
		n += bins[i].count;
	cr_assert_eq(n, 300);
	free(bins);
	vma_cycles_release(&c, NULL);
	vma_cycles_release(&back, NULL);
}

/* A summary's first two 32-bit samples are kept in it: nothing charged, the same answers. */
Test(budget, two_samples_cost_nothing)
{
	struct vma_cycles a = { 0 }, b = { 0 }, c = { 0 };
	struct vma_cycles_budget bud;

	vma_cycles_budget_init(&bud, 0);
	vma_cycles_add(&a, 700, &bud);
	vma_cycles_add(&a, 0, &bud);
	vma_cycles_add(&a, 300, &bud);
	cr_assert_eq(bud.used, 0);
	cr_assert_eq(vma_cycles_footprint(&a), 0);
	cr_assert_eq(vma_cycles_min(&a), 300);
	cr_assert_eq(vma_cycles_max(&a), 700);
	cr_assert_eq(vma_cycles_percentile(&a, 50), 700);
	cr_assert_eq(vma_cycles_percentile(&a, 5), 300);
	/* A third sample moves them to an array; a 64-bit one widens it. */
	vma_cycles_add(&a, 500, &bud);
	cr_assert_eq(bud.used, 16);
	vma_cycles_add(&a, 1ull << 40, &bud);
	cr_assert_eq(bud.used, summaries_held(&a, 1));
	cr_assert_eq(vma_cycles_percentile(&a, 50), 700);
	cr_assert_eq(vma_cycles_max(&a), 1ull << 40);
	/* An inline summary with a 64-bit sample to come: straight to a 64-bit array. */
	vma_cycles_add(&b, 9, &bud);
	vma_cycles_add(&b, 5ull << 33, &bud);
	cr_assert_eq(vma_cycles_min(&b), 9);
	cr_assert_eq(vma_cycles_max(&b), 5ull << 33);
	cr_assert_eq(bud.used, summaries_held(&a, 1) + summaries_held(&b, 1));
	/* Merges: two inline samples stay inline; more become an array. */
	vma_cycles_add(&c, 42, &bud);
	cr_assert_eq(vma_cycles_merge_samples(&c, &b, &bud), 0);
	cr_assert_eq(c.n, 3);
	cr_assert_eq(vma_cycles_merge_samples(&c, &a, &bud), 0);
	cr_assert_eq(c.n, 7);
	cr_assert_eq(vma_cycles_max(&c), 1ull << 40);
	cr_assert_eq(vma_cycles_min(&c), 9);
	cr_assert_eq(bud.used, summaries_held(&a, 1) + summaries_held(&b, 1) + summaries_held(&c, 1));
	vma_cycles_release(&c, &bud);
	vma_cycles_add(&c, 8, &bud);
	vma_cycles_release(&b, &bud);
	vma_cycles_add(&b, 11, &bud);
	cr_assert_eq(vma_cycles_merge(&c, &b, &bud), 0);
	cr_assert_eq(c.n, 2);
	cr_assert_eq(vma_cycles_footprint(&c), 0, "two samples merged stay in the summary");
	cr_assert_eq(vma_cycles_percentile(&c, 50), 11);
	vma_cycles_release(&a, &bud);
	vma_cycles_release(&b, &bud);
	vma_cycles_release(&c, &bud);
	cr_assert_eq(bud.used, 0);
}
