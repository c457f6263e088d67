/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the cycle-summary tests share: a deterministic random source
 * (xorshift64*, independent of libc's rand()), an ascending order of
 * 64-bit values for qsort(), the bytes a set of summaries holds, and a
 * comparison of two summaries' exported images.
 */
#ifndef VMALYZE_TEST_RNG_H
#define VMALYZE_TEST_RNG_H

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vmalyze/cycles.h"

struct rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* What the @n summaries at @s hold, as their budget counts it. */
static inline size_t summaries_held(const struct vma_cycles *s, size_t n)
{
	size_t i, sum = 0;

	for (i = 0; i < n; i++)
		sum += vma_cycles_footprint(&s[i]);
	return sum;
}

/* Export @a and @want; the images (counters, form, resolution, buckets) must be equal. */
static inline void same_image(const struct vma_cycles *a, const struct vma_cycles *want)
{
	struct vma_cycles_image x, y;

	cr_assert_eq(vma_cycles_export(a, &x), 0);
	cr_assert_eq(vma_cycles_export(want, &y), 0);
	cr_assert_eq(x.exact, y.exact);
	cr_assert_eq(x.compact, y.compact);
	cr_assert_eq(x.per_octave, y.per_octave);
	cr_assert_eq(x.events, y.events);
	cr_assert_eq(x.count, y.count);
	cr_assert_eq(x.cycles, y.cycles);
	cr_assert_eq(x.min, y.min);
	cr_assert_eq(x.max, y.max);
	cr_assert_eq(x.nr_bins, y.nr_bins);
	cr_assert(!x.nr_bins || !memcmp(x.bins, y.bins, sizeof(*x.bins) * x.nr_bins));
	vma_cycles_image_release(&x);
	vma_cycles_image_release(&y);
}

#endif /* VMALYZE_TEST_RNG_H */
