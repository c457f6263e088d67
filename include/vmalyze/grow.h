/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One way to grow an array: the capacity doubles until it holds what is
 * needed, and the size arithmetic is checked, so that a huge count from a
 * damaged trace fails as out of memory instead of wrapping into a small
 * allocation.  Every stage and tool uses it instead of its own loop.
 */
#ifndef VMALYZE_GROW_H
#define VMALYZE_GROW_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/status.h"

/*
 * vma_grow_to_bytes - make *@arrp hold exactly @n elements (@n > *@cap),
 * for a table whose growth is not doubling: one element more for its last
 * entry (its "other" row, where doubling would waste what a memory budget
 * refused), or half as many again.  Return: VMA_OK, or VMA_ERR_NOMEM
 * (allocation failed or the size would overflow) with the array and
 * *@cap unchanged.
 */
static inline int vma_grow_to_bytes(void *arrp, size_t *cap, size_t n, size_t size)
{
	void *arr, *p;

	if (size && n > SIZE_MAX / size)
		return VMA_ERR_NOMEM;
	/* memcpy: the array pointer has its own type; void ** would alias it. */
	memcpy(&arr, arrp, sizeof(arr));
	p = realloc(arr, n * size);
	if (!p)
		return VMA_ERR_NOMEM;
	memcpy(arrp, &p, sizeof(p));
	*cap = n;
	return VMA_OK;
}

/*
 * vma_grow_bytes - make *@arrp (elements of @size bytes, capacity *@cap)
 * hold at least @need elements: the capacity starts at *@cap, or @min when
 * it is 0, and doubles.  @arrp is the address of the array pointer.
 * Return: as vma_grow_to_bytes().
 */
static inline int vma_grow_bytes(void *arrp, size_t *cap, size_t need, size_t size, size_t min)
{
	size_t n = *cap ? *cap : (min ? min : 1);

	if (need <= *cap)
		return VMA_OK;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return VMA_ERR_NOMEM;
		n *= 2;
	}
	return vma_grow_to_bytes(arrp, cap, n, size);
}

/* vma_grow - vma_grow_bytes() for @arr, a typed array pointer (not its address). */
#define vma_grow(arr, cap, need, min) \
	vma_grow_bytes(&(arr), (cap), (need), sizeof(*(arr)), (min))

/* vma_grow_to_bytes() of one more element than *@cap, for @arr, a typed array pointer. */
#define vma_grow_one(arr, cap) vma_grow_to_bytes(&(arr), (cap), *(cap) + 1, sizeof(*(arr)))

#endif /* VMALYZE_GROW_H */
