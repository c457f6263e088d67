/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vma_grow(): doubling from the minimum or the current capacity, no
 * reallocation when there is room, contents kept, and sizes that would
 * overflow refused as out of memory with the array left as it was.
 */
#include <stdint.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "vmalyze/grow.h"

Test(grow, starts_at_min_and_doubles)
{
	int *a = NULL;
	size_t cap = 0;

	cr_assert_eq(vma_grow(a, &cap, 1, 16), VMA_OK);
	cr_assert_not_null(a);
	cr_assert_eq(cap, 16);
	cr_assert_eq(vma_grow(a, &cap, 17, 16), VMA_OK);
	cr_assert_eq(cap, 32);
	cr_assert_eq(vma_grow(a, &cap, 100, 16), VMA_OK);
	cr_assert_eq(cap, 128);
	free(a);
}

Test(grow, no_change_when_there_is_room)
{
	int *a = NULL, *before;
	size_t cap = 0;

	cr_assert_eq(vma_grow(a, &cap, 5, 8), VMA_OK);
	before = a;
	cr_assert_eq(vma_grow(a, &cap, 8, 8), VMA_OK);
	cr_assert_eq(a, before);
	cr_assert_eq(cap, 8);
	cr_assert_eq(vma_grow(a, &cap, 0, 8), VMA_OK);
	cr_assert_eq(cap, 8);
	free(a);
}

Test(grow, keeps_contents)
{
	uint64_t *a = NULL;
	size_t cap = 0, i;

	for (i = 0; i < 1000; i++) {
		cr_assert_eq(vma_grow(a, &cap, i + 1, 4), VMA_OK);
		a[i] = i * 7;
	}
	cr_assert_geq(cap, 1000);
	cr_assert_eq(cap, 1024);
	for (i = 0; i < 1000; i++)
		cr_assert_eq(a[i], i * 7);
	free(a);
}

Test(grow, min_zero_still_grows)
{
	char *a = NULL;
	size_t cap = 0;

	cr_assert_eq(vma_grow(a, &cap, 3, 0), VMA_OK);
	cr_assert_eq(cap, 4);
	free(a);
}

Test(grow, overflow_is_nomem_and_leaves_array)
{
	uint64_t *a = NULL, *before;
	size_t cap = 0;

	cr_assert_eq(vma_grow(a, &cap, 2, 2), VMA_OK);
	a[0] = 42;
	before = a;
	/* elements * 8 bytes would not fit in size_t */
	cr_assert_eq(vma_grow(a, &cap, SIZE_MAX / 8 + 1, 2), VMA_ERR_NOMEM);
	cr_assert_eq(a, before);
	cr_assert_eq(cap, 2);
	/* the doubling itself would pass SIZE_MAX */
	cr_assert_eq(vma_grow(a, &cap, SIZE_MAX, 2), VMA_ERR_NOMEM);
	cr_assert_eq(cap, 2);
	cr_assert_eq(a[0], 42);
	free(a);
}
