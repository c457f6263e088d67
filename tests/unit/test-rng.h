/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the cycle-summary tests share: a deterministic random source
 * (xorshift64*, independent of libc's rand()) and an ascending order of
 * 64-bit values for qsort().
 */
#ifndef VMALYZE_TEST_RNG_H
#define VMALYZE_TEST_RNG_H

#include <stdint.h>

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

#endif /* VMALYZE_TEST_RNG_H */
