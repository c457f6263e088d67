/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the cycle-summary tests share: a deterministic random source
 * (xorshift64*, independent of libc's rand()), an ascending order of
 * 64-bit values for qsort(), and the bytes a set of summaries holds.
 */
#ifndef VMALYZE_TEST_RNG_H
#define VMALYZE_TEST_RNG_H

#include <stddef.h>
#include <stdint.h>

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

#endif /* VMALYZE_TEST_RNG_H */
