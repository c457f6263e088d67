/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of --top's list (src/summary/worst.c): the N longest of many
 * exits in any order, longest first, ties to the earlier exit, and a
 * list that never holds more than N.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "vmalyze/worst.h"

static struct vma_report_worst exit_of(uint64_t tsc, uint64_t ticks)
{
	struct vma_report_worst w = { .tsc = tsc, .ticks = ticks };

	return w;
}

static int by_ticks_desc(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? 1 : a > b ? -1 : 0;
}

Test(worst, keeps_the_n_longest_in_order)
{
	enum { N = 7, ALL = 5000 };
	struct vma_worst *w = vma_worst_create(N);
	struct vma_report_worst out[N];
	uint64_t *len = calloc(ALL, sizeof(*len)), s = 88172645463325252ull;
	uint32_t i, n;

	cr_assert(w && len);
	for (i = 0; i < ALL; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		len[i] = s % 1000000 + 1;
		vma_worst_add(w, &(struct vma_report_worst){ .tsc = i, .ticks = len[i] });
		cr_assert_leq(vma_worst_size(w), N);
	}
	qsort(len, ALL, sizeof(*len), by_ticks_desc);
	n = vma_worst_sorted(w, out);
	cr_assert_eq(n, N);
	for (i = 0; i < N; i++)
		cr_assert_eq(out[i].ticks, len[i], "rank %u: %lu, not %lu", i,
			     (unsigned long)out[i].ticks, (unsigned long)len[i]);
	free(len);
	vma_worst_destroy(w);
}

Test(worst, ties_go_to_the_earlier_exit)
{
	struct vma_worst *w = vma_worst_create(2);
	struct vma_report_worst out[2], e;

	e = exit_of(30, 5);
	vma_worst_add(w, &e);
	e = exit_of(10, 5);
	vma_worst_add(w, &e);
	e = exit_of(20, 5);
	vma_worst_add(w, &e);
	e = exit_of(40, 4);
	vma_worst_add(w, &e);
	cr_assert_eq(vma_worst_sorted(w, out), 2);
	cr_assert_eq(out[0].tsc, 10);
	cr_assert_eq(out[1].tsc, 20);
	vma_worst_destroy(w);
}

Test(worst, fewer_exits_than_n)
{
	struct vma_worst *w = vma_worst_create(10);
	struct vma_report_worst out[10], e = exit_of(1, 9);

	cr_assert_eq(vma_worst_sorted(w, out), 0);
	vma_worst_add(w, &e);
	cr_assert_eq(vma_worst_sorted(w, out), 1);
	cr_assert_eq(out[0].ticks, 9);
	vma_worst_destroy(w);
	cr_assert_null(vma_worst_create(0));
}
