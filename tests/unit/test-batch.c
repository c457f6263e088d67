/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The batch driver's helpers: held-back output (in memory within the
 * budget, on disk past it, copied out whole and in order) and the progress
 * line's text.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/progress.h"
#include "cli/spill.h"

static char *copy_out(struct vma_spill *sp, size_t *len)
{
	char *text = NULL;
	FILE *to = open_memstream(&text, len);

	cr_assert_not_null(to);
	cr_assert_eq(vma_spill_copy(sp, to), 0);
	fclose(to);
	return text;
}

Test(spill, small_output_stays_in_memory)
{
	struct vma_spill_budget budget = { .cap = 1 << 20 };
	struct vma_spill *sp = vma_spill_create(&budget);
	size_t len;
	char *text;

	cr_assert_not_null(sp);
	cr_assert(vma_spill_empty(sp));
	fprintf(vma_spill_stream(sp), "=== a ===\n%d\n", 42);
	cr_assert_not(vma_spill_empty(sp));
	cr_assert_gt(budget.held, 0);
	text = copy_out(sp, &len);
	cr_assert_str_eq(text, "=== a ===\n42\n");
	free(text);
	vma_spill_destroy(sp);
	cr_assert_eq(budget.held, 0, "the budget is given back");
}

Test(spill, past_the_budget_goes_to_disk_in_order)
{
	struct vma_spill_budget budget = { .cap = 64 << 10 };
	struct vma_spill *a = vma_spill_create(&budget), *b = vma_spill_create(&budget);
	size_t i, len;
	char *text;

	cr_assert(a && b);
	/* 200 KiB each: the two together are held within 64 KiB of memory */
	for (i = 0; i < 20000; i++) {
		fprintf(vma_spill_stream(a), "a%08zu\n", i);
		fprintf(vma_spill_stream(b), "b%08zu\n", i);
		cr_assert_leq(budget.held, budget.cap);
	}
	text = copy_out(a, &len);
	cr_assert_eq(len, 20000 * 10);
	for (i = 0; i < 20000; i += 997) {
		char want[16];

		snprintf(want, sizeof(want), "a%08zu\n", i);
		cr_assert_eq(memcmp(text + i * 10, want, 10), 0, "line %zu", i);
	}
	free(text);
	text = copy_out(b, &len);
	cr_assert_eq(len, 20000 * 10);
	cr_assert_eq(memcmp(text + len - 10, "b00019999\n", 10), 0);
	free(text);
	vma_spill_destroy(a);
	vma_spill_destroy(b);
	cr_assert_eq(budget.held, 0);
}

Test(progress, bytes_in_binary_units)
{
	char buf[32];

	vma_progress_bytes(buf, sizeof(buf), 0);
	cr_assert_str_eq(buf, "0 B");
	vma_progress_bytes(buf, sizeof(buf), 1023);
	cr_assert_str_eq(buf, "1023 B");
	vma_progress_bytes(buf, sizeof(buf), 1536);
	cr_assert_str_eq(buf, "1.5 KiB");
	vma_progress_bytes(buf, sizeof(buf), 3ull << 30);
	cr_assert_str_eq(buf, "3.0 GiB");
}

Test(progress, line_with_rate_and_time_left)
{
	struct vma_progress p = {
		.inputs_done = 3, .inputs = 10, .traces = 7,
		.bytes_done = 100ull << 20, .bytes = 400ull << 20, .seconds = 10,
	};
	char buf[256];

	cr_assert_str_eq(vma_progress_format(buf, sizeof(buf), &p),
			 "vmalyze: 3/10 inputs, 7 traces, 100.0 MiB of 400.0 MiB, "
			 "10.0 MiB/s, 0:00:30 left");
	p.traces = 1;
	p.seconds = 0.1; /* too early to tell a rate */
	cr_assert_str_eq(vma_progress_format(buf, sizeof(buf), &p),
			 "vmalyze: 3/10 inputs, 1 trace, 100.0 MiB of 400.0 MiB");
	p.seconds = 3600;
	p.bytes_done = 3600;
	p.bytes = 7200;
	cr_assert_str_eq(vma_progress_format(buf, sizeof(buf), &p),
			 "vmalyze: 3/10 inputs, 1 trace, 3.5 KiB of 7.0 KiB, 1 B/s, 1:00:00 left");
	/* a short buffer is cut, never overrun */
	cr_assert_eq(strlen(vma_progress_format(buf, 12, &p)), 11);
}
