/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tables of entries found by a code (code-index.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/code-index.h"
#include "vmalyze/grow.h"

static inline uint32_t code_key(uint32_t code)
{
	return code < VMA_CODE_SHARED ? code : VMA_CODE_SHARED;
}

/* The code entry @i is found by: its first field. */
static inline uint32_t entry_key(const void *entries, size_t size, uint32_t i)
{
	uint32_t code;

	memcpy(&code, (const char *)entries + (size_t)i * size, sizeof(code));
	return code_key(code);
}

static inline uint32_t code_mask(const struct vma_code_index *x)
{
	return UINT32_MAX >> x->shift;
}

uint32_t vma_code_table_find(const struct vma_code_index *x, const void *entries, size_t size,
			     uint32_t code)
{
	uint32_t key = code_key(code), at, i;

	if (!x->slots)
		return UINT32_MAX;
	for (at = vma_code_at(x, key); (i = x->slots[at]) != UINT32_MAX;
	     at = (at + 1) & code_mask(x)) {
		if (entry_key(entries, size, i) == key)
			return i;
	}
	return UINT32_MAX;
}

static void index_put(struct vma_code_index *x, uint32_t key, uint32_t i)
{
	uint32_t at = vma_code_at(x, key);

	while (x->slots[at] != UINT32_MAX)
		at = (at + 1) & code_mask(x);
	x->slots[at] = i;
}

/* @x for @nr entries rebuilt for @cap; VMA_ERR_NOMEM when out of memory. */
static int index_resize(struct vma_code_index *x, uint32_t cap, const void *entries, size_t size,
			uint32_t nr)
{
	uint32_t slots = vma_code_index_slots(cap), i;
	struct vma_code_index grown;

	grown.slots = malloc((size_t)slots * sizeof(*grown.slots));
	if (!grown.slots)
		return VMA_ERR_NOMEM;
	memset(grown.slots, 0xff, (size_t)slots * sizeof(*grown.slots));
	grown.shift = (uint32_t)__builtin_clz(slots) + 1;
	for (i = 0; i < nr; i++)
		index_put(&grown, entry_key(entries, size, i), i);
	free(x->slots);
	*x = grown;
	return VMA_OK;
}

/* vma_code_table_add(); a full table grows by half (vma_code_table_grown()), or by one entry when @one. */
static void *table_add(void *entriesp, uint32_t *nr, uint32_t *cap, size_t size,
		       struct vma_code_index *x, uint32_t code, bool one)
{
	size_t room = *cap;
	char *entries;
	uint32_t i;

	if (*nr == *cap) {
		if (*cap >= UINT32_MAX / 4 ||
		    vma_grow_to_bytes(entriesp, &room, one ? *cap + 1 : vma_code_table_grown(*cap),
				      size))
			return NULL;
		*cap = (uint32_t)room;
		memcpy(&entries, entriesp, sizeof(entries));
		if (index_resize(x, *cap, entries, size, *nr))
			return NULL;
	}
	memcpy(&entries, entriesp, sizeof(entries));
	i = (*nr)++;
	memset(entries + (size_t)i * size, 0, size);
	memcpy(entries + (size_t)i * size, &code, sizeof(code));
	index_put(x, code_key(code), i);
	return entries + (size_t)i * size;
}

void *vma_code_table_add(void *entriesp, uint32_t *nr, uint32_t *cap, size_t size,
			 struct vma_code_index *x, uint32_t code)
{
	return table_add(entriesp, nr, cap, size, x, code, false);
}

void *vma_code_table_add_one(void *entriesp, uint32_t *nr, uint32_t *cap, size_t size,
			     struct vma_code_index *x, uint32_t code)
{
	return table_add(entriesp, nr, cap, size, x, code, true);
}

void vma_code_table_rekey(struct vma_code_index *x, void *entries, size_t size, uint32_t nr,
			  uint32_t i, uint32_t code)
{
	uint32_t j;

	memcpy((char *)entries + (size_t)i * size, &code, sizeof(code));
	memset(x->slots, 0xff, ((size_t)code_mask(x) + 1) * sizeof(*x->slots));
	for (j = 0; j < nr; j++)
		index_put(x, entry_key(entries, size, j), j);
}

static int by_code(const void *pa, const void *pb)
{
	uint32_t a = entry_key(*(const void *const *)pa, 0, 0);
	uint32_t b = entry_key(*(const void *const *)pb, 0, 0);

	return a < b ? -1 : a > b;
}

void vma_code_table_sorted(const void *entries, size_t size, uint32_t n, const void **out)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		out[i] = (const char *)entries + (size_t)i * size;
	if (n > 1)
		qsort(out, n, sizeof(*out), by_code);
}
