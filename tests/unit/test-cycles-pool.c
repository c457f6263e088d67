/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the pool of a budget's exact arrays (src/summary/cycles-pool.c):
 * a budget's arrays are kept in it and a freed block is handed out again;
 * a slab whose blocks are all free again serves any size; a small budget,
 * or none, gets no pool; a full pool hands over to malloc() and no sample
 * is lost or changed on the way (growth, widening to 64 bits, moves
 * between the pool and the heap).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "summary/cycles-internal.h"
#include "vmalyze/cycles.h"

/* Summary @s holds exactly the values 1..@n times @scale (checked through its queries). */
static void assert_holds(struct vma_cycles *s, uint64_t n, uint64_t scale)
{
	cr_assert(vma_cycles_is_exact(s));
	cr_assert_eq(s->count, n);
	cr_assert_eq(s->cycles, scale * n * (n + 1) / 2);
	cr_assert_eq(vma_cycles_min(s), scale);
	cr_assert_eq(vma_cycles_max(s), scale * n);
	/* xenalyze's rule: the value at index n * pct / 100 of the sorted samples. */
	cr_assert_eq(vma_cycles_percentile(s, 50), scale * (n * 50 / 100 + 1));
}

static void add_range(struct vma_cycles *s, uint64_t from, uint64_t to, uint64_t scale,
		      struct vma_cycles_budget *b)
{
	uint64_t v;

	/* Descending, so that the percentile checks see the samples reordered. */
	for (v = to; v >= from; v--)
		vma_cycles_add(s, v * scale, b);
}

Test(pool, arrays_come_from_the_pool_and_freed_blocks_are_reused)
{
	struct vma_cycles a = { 0 }, c = { 0 };
	struct vma_cycles_budget b;
	void *first;

	vma_cycles_budget_init(&b, 0);
	add_range(&a, 1, 3, 10, &b);
	first = a.u.exact32; /* 4 slots of 32 bits: 16 bytes */
	cr_assert(vma_cycles_pool_owns(&b, first));
	add_range(&a, 4, 5, 10, &b);
	cr_assert_neq(a.u.exact32, first, "6 slots need a block of the next size");
	cr_assert(vma_cycles_pool_owns(&b, a.u.exact32));
	assert_holds(&a, 5, 10);
	/* The 16 bytes given back are the next 16 bytes handed out. */
	add_range(&c, 1, 3, 7, &b);
	cr_assert_eq(c.u.exact32, first);
	assert_holds(&c, 3, 7);
	assert_holds(&a, 5, 10);
	vma_cycles_release(&a, &b);
	vma_cycles_release(&c, &b);
	cr_assert_eq(b.used, 0);
	vma_cycles_budget_release(&b);
	cr_assert_null(b.pool);
}

Test(pool, no_budget_or_a_small_one_has_none)
{
	struct vma_cycles a = { 0 }, c = { 0 };
	struct vma_cycles_budget small;

	add_range(&a, 1, 40, 3, NULL);
	cr_assert_not(vma_cycles_pool_owns(NULL, a.u.exact32));
	assert_holds(&a, 40, 3);
	vma_cycles_budget_init(&small, (size_t)4 << 20);
	add_range(&c, 1, 40, 3, &small);
	cr_assert_null(small.pool);
	cr_assert_not(vma_cycles_pool_owns(&small, c.u.exact32));
	assert_holds(&c, 40, 3);
	vma_cycles_release(&a, NULL);
	vma_cycles_release(&c, &small);
	vma_cycles_budget_release(&small);
}

#define NFULL 700u

static uint64_t scale_one(size_t i)
{
	(void)i;
	return 1;
}

/* Every third summary's values pass 32 bits (1024 << 24): its array is widened, moved twice. */
static uint64_t scale_mixed(size_t i)
{
	return i % 3 ? 1 + i : (uint64_t)1 << 24;
}

/*
 * A budget of 16 MiB (a pool of 2 MiB) in @b, and @s[0..NFULL) each
 * given 1..1024 times @scale(i): 4 KiB arrays, or 8 KiB for 64-bit ones.
 * Return: how many of the arrays are in the pool.
 */
static size_t fill(struct vma_cycles *s, struct vma_cycles_budget *b, uint64_t (*scale)(size_t))
{
	size_t i, in_pool = 0;

	memset(s, 0, sizeof(*s) * NFULL);
	vma_cycles_budget_init(b, (size_t)16 << 20);
	for (i = 0; i < NFULL; i++) {
		add_range(&s[i], 1, 1024, scale(i), b);
		in_pool += vma_cycles_pool_owns(b, s[i].u.exact32);
	}
	return in_pool;
}

/* Release @n summaries of @b and then @b: nothing stays charged. */
static void release_all(struct vma_cycles *s, size_t n, struct vma_cycles_budget *b)
{
	size_t i;

	for (i = 0; i < n; i++)
		vma_cycles_release(&s[i], b);
	cr_assert_eq(b->used, 0);
	vma_cycles_budget_release(b);
}

/* 700 arrays (2.8 MB at least) fill the pool: the last ones are malloc()ed; no sample is lost. */
Test(pool, a_full_pool_hands_over_to_the_heap)
{
	static struct vma_cycles s[NFULL];
	struct vma_cycles_budget b;
	size_t in_pool = fill(s, &b, scale_mixed), i;

	cr_assert_not_null(b.pool);
	cr_assert_gt(in_pool, 100);
	cr_assert_lt(in_pool, NFULL, "the pool is full before the last arrays");
	cr_assert_not(vma_cycles_pool_owns(&b, s[NFULL - 1].u.exact32));
	cr_assert_eq(b.step, 0, "the arrays fit the budget");
	for (i = 0; i < NFULL; i++)
		assert_holds(&s[i], 1024, scale_mixed(i));
	release_all(s, NFULL, &b);
}

/* Blocks given back to a full pool serve the arrays that grow to their size after them. */
Test(pool, a_pool_at_its_end_still_serves_freed_sizes)
{
	static struct vma_cycles s[NFULL];
	struct vma_cycles_budget b;
	size_t i;

	fill(s, &b, scale_one);
	for (i = 0; i < NFULL; i += 2)
		vma_cycles_release(&s[i], &b);
	/* Grown again, the released arrays' blocks of 4 KiB serve the first of them. */
	for (i = 0; i < NFULL / 4; i += 2) {
		add_range(&s[i], 1, 1024, 5, &b);
		cr_assert(vma_cycles_pool_owns(&b, s[i].u.exact32), "summary %zu", i);
	}
	for (i = 0; i < NFULL; i++) {
		if (i % 2 || i < NFULL / 4)
			assert_holds(&s[i], 1024, i % 2 ? 1 : 5);
	}
	release_all(s, NFULL, &b);
}

/*
 * A pool filled with arrays of 4 KiB, all released, takes arrays of 8 KiB
 * (64-bit samples): their slabs serve any size once empty.
 */
Test(pool, an_emptied_slab_serves_another_size)
{
	static struct vma_cycles s[NFULL];
	struct vma_cycles_budget b;
	size_t filled = fill(s, &b, scale_one), i;

	cr_assert_lt(filled, NFULL, "the 4 KiB arrays fill the pool");
	for (i = 0; i < NFULL; i++)
		vma_cycles_release(&s[i], &b);
	for (i = 0; i < filled / 4; i++) {
		add_range(&s[i], 1, 1024, (uint64_t)1 << 30, &b);
		cr_assert(vma_cycles_pool_owns(&b, s[i].u.exact32), "summary %zu", i);
	}
	for (i = 0; i < filled / 4; i++)
		assert_holds(&s[i], 1024, (uint64_t)1 << 30);
	release_all(s, filled / 4, &b);
}
