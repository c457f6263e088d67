/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dump's time column (dump-time.h): what is not on a line's path, the
 * divisor's set-up and a new second's digits, and vma_format_time() for
 * the summary's times, which the dump's column must equal.
 */
#include <stdio.h>

#include "output/dump-time.h"
#include "vmalyze/dump.h"

void vma_divisor_init(struct vma_divisor *dv, uint64_t d)
{
	unsigned int l = d > 1 ? 64 - (unsigned int)__builtin_clzll(d - 1) : 0; /* ceil(log2 d) */
	/* 2^l - d, which is below d; for l == 64 the subtraction wraps to it */
	uint64_t excess = (l == 64 ? 0 : (uint64_t)1 << l) - d;

	dv->d = d;
	dv->magic = (uint64_t)(((unsigned __int128)excess << 64) / d) + 1;
	dv->sh1 = l < 1 ? l : 1;
	dv->sh2 = l > 1 ? l - 1 : 0;
}

void vma_dump_clock_init(struct vma_dump_clock *c, uint64_t hz)
{
	memset(c, 0, sizeof(*c));
	vma_divisor_init(&c->hz, hz);
	if (hz > 1000000000u && hz <= UINT64_C(1) << 32) {
		unsigned __int128 one = (unsigned __int128)1000000000u << 64;

		c->ns_per_cycle = (uint64_t)((one + hz - 1) / hz);
	}
	/* second 0 */
	memcpy(c->second.text, "  0.", 4);
	c->second.len = 4;
	c->second.ns_high = UINT32_MAX;
}

/* "%3llu." of @secs at @p, returning the end. */
static char *fmt_seconds(char *p, uint64_t secs)
{
	if (secs < 1000) {
		uint32_t s = (uint32_t)secs;

		p[0] = s >= 100 ? (char)('0' + s / 100) : ' ';
		p[1] = s >= 10 ? (char)('0' + s / 10 % 10) : ' ';
		p[2] = (char)('0' + s % 10);
		p += 3;
	} else {
		p = vma_fmt_u64(p, secs);
	}
	*p++ = '.';
	return p;
}

void vma_dump_clock_second(struct vma_dump_clock *c, uint64_t cycles)
{
	struct vma_time_second *sec = &c->second;
	uint64_t secs = vma_divide(&c->hz, cycles);

	sec->start = secs * c->hz.d;
	sec->len = (unsigned int)(fmt_seconds(sec->text, secs) - sec->text);
	sec->ns_high = UINT32_MAX;
}

/*
 * Seconds and nanoseconds in @cycles at @hz.  The nanoseconds are truncated,
 * as xenalyze's are.  Below 2^64 / 10^9 Hz (18 GHz) the remainder times 10^9
 * fits in 64 bits, and its division too is a multiplication.
 */
static void split_time(const struct vma_divisor *hz, uint64_t cycles, uint64_t *secs,
		       uint64_t *ns)
{
	uint64_t rem;

	*secs = vma_divide(hz, cycles);
	rem = cycles - *secs * hz->d;
	if (hz->d <= UINT64_MAX / 1000000000u) {
		*ns = vma_divide(hz, rem * 1000000000u);
	} else {
		*ns = (uint64_t)((unsigned __int128)rem * 1000000000u / hz->d);
	}
}

void vma_format_time(char *buf, size_t len, uint64_t cycles, uint64_t hz)
{
	struct vma_divisor dv;
	uint64_t secs, ns;

	vma_divisor_init(&dv, hz);
	split_time(&dv, cycles, &secs, &ns);
	snprintf(buf, len, "%3llu.%09llu", (unsigned long long)secs, (unsigned long long)ns);
}
