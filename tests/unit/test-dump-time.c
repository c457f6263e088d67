/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for the dump's time column: vma_format_time() divides by the tick
 * rate with a multiplication (dump.c), and must give exactly what dividing
 * gives, for every tick rate and count, at the edges of 64 bits too; and
 * the time column of dump lines, which keeps the digits it can between
 * lines, gives the same.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/dump.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

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

/*
 * The dump's own time column (dump.c keeps the second and the 10 us the
 * last line fell in, and writes the rest): every line's time is
 * vma_format_time() of its stamp since the first record, for stamps that
 * stay in the same 10 us, cross it, and jump by seconds.
 */
static void expect_dump_times(uint64_t hz)
{
	struct vma_diag *diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	struct vma_machine *m = vma_machine_create(diag, NULL);
	struct vma_stream stream = { .pcpu = 0 };
	uint64_t x = 0x2545f4914f6cdd1dull, tsc = 1000, first = 1000;
	char *buf = NULL, *line, *next;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct vma_dump *dump = vma_dump_create(f, hz, NULL);
	struct vma_outcome out;
	int i;

	cr_assert(diag && m && f && dump);
	cr_assert_eq(vma_machine_add_pcpu(m, 0), VMA_OK);
	for (i = 0; i < 3000; i++) {
		memset(&stream.rec, 0, sizeof(stream.rec));
		stream.rec.tsc = tsc;
		stream.rec.event = TRC_TRACE_WRAP_BUFFER;
		stream.rec.flags = VMA_REC_HAS_TSC;
		vma_dump_begin(dump, m, &stream.rec);
		cr_assert_eq(vma_dispatch(m, &stream.rec, &out), VMA_OK);
		cr_assert_eq(vma_dump_end(dump, &stream, &out), VMA_OK);
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* mostly steps within 10 us, some across seconds */
		tsc += i % 100 == 99 ? x % (3 * hz) : x % (hz / 50000 + 2);
	}
	cr_assert_eq(vma_dump_flush(dump), VMA_OK);
	vma_dump_destroy(dump);
	fclose(f);
	for (line = buf, tsc = 1000, x = 0x2545f4914f6cdd1dull, i = 0; *line; line = next, i++) {
		char want[64];
		size_t n;

		next = strchr(line, '\n') + 1;
		if (i > 0) {
			vma_format_time(want, sizeof(want), tsc - first, hz);
			n = strlen(want);
			cr_assert(!strncmp(line + 1, want, n) && line[1 + n] == ' ',
				  "line %d: %.40s, want %s", i, line, want);
		}
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		tsc += i % 100 == 99 ? x % (3 * hz) : x % (hz / 50000 + 2);
	}
	cr_expect_eq(i, 3000);
	free(buf);
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
}

Test(dump_time, dump_lines_match_vma_format_time)
{
	/* 10^9 < hz <= 2^32: one multiplication */
	expect_dump_times(2400000000ull);
	expect_dump_times(1000000001ull);
	expect_dump_times(2999999999ull);
	expect_dump_times(4294967295ull);
	expect_dump_times(4294967296ull);
	/* the division */
	expect_dump_times(4294967297ull);
	expect_dump_times(1000000000ull);
	expect_dump_times(999999937ull);
	expect_dump_times(19000000000ull); /* past 2^64 / 10^9: the 128-bit path */
}
