/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for the dump's time column: vma_format_time() divides by the tick
 * rate with a multiplication (dump.c), and must give exactly what dividing
 * gives, for every tick rate and count, at the edges of 64 bits too.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>

#include "vmalyze/dump.h"

static void expect_time(uint64_t cycles, uint64_t hz)
{
	uint64_t secs = cycles / hz;
	uint64_t ns = (uint64_t)((unsigned __int128)(cycles % hz) * 1000000000u / hz);
	char got[64], want[64];

	vma_format_time(got, sizeof(got), cycles, hz);
	snprintf(want, sizeof(want), "%3" PRIu64 ".%09" PRIu64, secs, ns);
	cr_expect_str_eq(got, want, "%" PRIu64 " cycles at %" PRIu64 " Hz", cycles, hz);
}

Test(dump_time, matches_division_for_every_rate)
{
	static const uint64_t rates[] = {
		1, 2, 3, 7, 10, 1000, 999999937, 1000000000, 2400000000ull, 2457600000ull,
		0x7fffffffull, 0x80000000ull, 0xffffffffull, 0x100000001ull, 10000000000ull,
		18446744073ull, 18446744074ull, 0x10000000001ull, 0x7fffffffffffffffull,
		0x8000000000000000ull, 0x8000000000000001ull, 0xfffffffffffffffeull, UINT64_MAX,
	};
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t r;
	int i;

	for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		uint64_t hz = rates[r];
		const uint64_t edges[] = {
			0, 1, hz - 1, hz, hz + 1, 2 * hz - 1, 2 * hz, 999 * hz + hz / 2,
			UINT64_MAX, UINT64_MAX - 1, UINT64_MAX - hz, UINT64_MAX / hz * hz,
			UINT64_MAX / hz * hz - 1,
		};

		for (i = 0; i < (int)(sizeof(edges) / sizeof(edges[0])); i++)
			expect_time(edges[i], hz);
		for (i = 0; i < 2000; i++) {
			/* xorshift: counts of every size */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			expect_time(x >> (i % 64), hz);
		}
	}
}
