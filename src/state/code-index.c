/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tables of entries found by a code (code-index.h). */
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

/* @x for @nr entries rebuilt with 2 * @cap slots; VMA_ERR_NOMEM when out of memory. */
static int index_resize(struct vma_code_index *x, uint32_t cap, const void *entries, size_t size,
			uint32_t nr)
{
	struct vma_code_index grown;
	uint32_t i;

	grown.slots = malloc(2 * (size_t)cap * sizeof(*grown.slots));
	if (!grown.slots)
		return VMA_ERR_NOMEM;
	memset(grown.slots, 0xff, 2 * (size_t)cap * sizeof(*grown.slots));
	grown.shift = (uint32_t)__builtin_clz(2 * cap) + 1;
	for (i = 0; i < nr; i++)
		index_put(&grown, entry_key(entries, size, i), i);
	free(x->slots);
	*x = grown;
	return VMA_OK;
}

void *vma_code_table_add(void *entriesp, uint32_t *nr, uint32_t *cap, size_t size,
			 struct vma_code_index *x, uint32_t code)
{
	size_t room = *cap;
	char *entries;
	uint32_t i;

	if (*nr == *cap) {
		if (vma_grow_bytes(entriesp, &room, (size_t)*nr + 1, size, 4) ||
		    room > UINT32_MAX / 4)
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
