/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dump's time column ("%3llu.%09llu" seconds since the first record),
 * written on every line of a dump that may have hundreds of millions: no
 * division instruction and no printf on a line's path, and the second's
 * digits kept from the line before.  The exact rules (truncation, as
 * xenalyze's) are vma_format_time()'s (dump.h).  Private to the output
 * stage; the line's path is inline here, the rest in dump-time.c.
 */
#ifndef VMALYZE_OUTPUT_DUMP_TIME_H
#define VMALYZE_OUTPUT_DUMP_TIME_H

#include <stdint.h>
#include <string.h>

#include "vmalyze/strbuf.h"

/*
 * Division by the trace's fixed tick rate without a divide instruction: two
 * of those per line cost more than writing the time's digits.  This is
 * Granlund and Montgomery's method for an invariant divisor ("Division by
 * Invariant Integers using Multiplication", PLDI 1994, figure 4.1), exact
 * for every 64-bit dividend and every divisor but 0.
 */
struct vma_divisor {
	uint64_t d;
	uint64_t magic;
	unsigned int sh1, sh2;
};

/* vma_divisor_init - @dv divides by @d (not 0). */
void vma_divisor_init(struct vma_divisor *dv, uint64_t d);

static inline uint64_t vma_divide(const struct vma_divisor *dv, uint64_t n)
{
	uint64_t t = (uint64_t)(((unsigned __int128)dv->magic * n) >> 64);

	return (t + ((n - t) >> dv->sh1)) >> dv->sh2;
}

/*
 * The second the last line's time fell in, and the 10 us within it.  Lines
 * come in time order, so most fall in the same ones: they skip the
 * second's division and digits, and write the last four digits of the
 * nanoseconds only.
 */
struct vma_time_second {
	uint64_t start;  /* its first cycle (since the origin) */
	char text[32];   /* its "%3llu.", then the first five digits of the nanoseconds */
	unsigned int len;  /* of "%3llu." */
	uint32_t ns_high;  /* the nanoseconds / 10^4 in text, or UINT32_MAX */
};

/* The time column of one dump: its tick rate and the last line's second. */
struct vma_dump_clock {
	struct vma_divisor hz;       /* the tick rate, to divide by quickly */
	uint64_t ns_per_cycle;       /* ceil(2^64 * 10^9 / hz), or 0 (vma_dump_clock_ns()) */
	struct vma_time_second second;
};

/* vma_dump_clock_init - a clock of @hz ticks a second (not 0), at second 0. */
void vma_dump_clock_init(struct vma_dump_clock *c, uint64_t hz);

/* vma_dump_clock_second - @c's second moves to the one @cycles is in. */
void vma_dump_clock_second(struct vma_dump_clock *c, uint64_t cycles);

/*
 * The nanoseconds in @rem < hz cycles, truncated.  For 10^9 < hz <= 2^32
 * (TSCs of 1 to 4.29 GHz) one multiplication: rem * ceil(2^64 * 10^9 /
 * hz) / 2^64 exceeds rem * 10^9 / hz by less than hz / 2^64 <= 1 / hz,
 * and a fraction of that quotient is 0 or at most 1 - 1 / hz, so the
 * integer part is the same.  Otherwise the division as vma_format_time().
 */
static inline uint64_t vma_dump_clock_ns(const struct vma_dump_clock *c, uint64_t rem)
{
	if (__builtin_expect(c->ns_per_cycle != 0, 1))
		return (uint64_t)(((unsigned __int128)rem * c->ns_per_cycle) >> 64);
	if (c->hz.d <= UINT64_MAX / 1000000000u)
		return vma_divide(&c->hz, rem * 1000000000u);
	return (uint64_t)((unsigned __int128)rem * 1000000000u / c->hz.d);
}

/* @v / 10^4 by a multiplication by ceil(2^45 / 10^4), exact for every 32-bit @v. */
static inline uint32_t vma_div10000(uint32_t v)
{
	return (uint32_t)(((uint64_t)v * 3518437209u) >> 45);
}

/*
 * vma_dump_clock_put - vma_format_time() of @cycles at @p, returning the
 * end: "%3llu.%09llu" without printf, the seconds from the line before
 * while @cycles is in the same second.  @p has room for 32 bytes.
 */
static inline __attribute__((always_inline)) char *
vma_dump_clock_put(struct vma_dump_clock *c, char *p, uint64_t cycles)
{
	struct vma_time_second *sec = &c->second;
	uint64_t rem = cycles - sec->start, ns;
	uint32_t high;

	/* unsigned: a time before the second's start is as far as one after it */
	if (__builtin_expect(rem >= c->hz.d, 0)) {
		vma_dump_clock_second(c, cycles);
		rem = cycles - sec->start;
	}
	ns = vma_dump_clock_ns(c, rem);
	high = vma_div10000((uint32_t)ns); /* rem < hz: ns below 10^9 */
	if (__builtin_expect(high != sec->ns_high, 0)) {
		uint32_t top = vma_div10000(high);

		sec->text[sec->len] = (char)('0' + top);
		vma_fmt_dec4(sec->text + sec->len + 1, high - top * 10000u);
		sec->ns_high = high;
	}
	memcpy(p, sec->text, sizeof(sec->text));
	return vma_fmt_dec4(p + sec->len + 5, (uint32_t)ns - high * 10000u);
}

#endif /* VMALYZE_OUTPUT_DUMP_TIME_H */
