/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tables of entries found by a code (code-index.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/code-index.h"
#include "vmalyze/cycles.h"
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

/* @x emptied, with the slots of room for @cap entries; VMA_ERR_NOMEM (@x unchanged). */
static int index_empty(struct vma_code_index *x, uint32_t cap)
{
	uint32_t n = vma_code_index_slots(cap), *slots = malloc((size_t)n * sizeof(*slots));

	if (!slots)
		return VMA_ERR_NOMEM;
	memset(slots, 0xff, (size_t)n * sizeof(*slots));
	free(x->slots);
	x->slots = slots;
	x->shift = (uint32_t)__builtin_clz(n) + 1;
	return VMA_OK;
}

/* @x for @nr entries rebuilt for @cap; VMA_ERR_NOMEM when out of memory. */
static int index_resize(struct vma_code_index *x, uint32_t cap, const void *entries, size_t size,
			uint32_t nr)
{
	uint32_t i;

	if (index_empty(x, cap))
		return VMA_ERR_NOMEM;
	for (i = 0; i < nr; i++)
		index_put(x, entry_key(entries, size, i), i);
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

/* A 64-bit key's first slot: the top bits of its Fibonacci hash. */
static inline uint32_t key_at(const struct vma_code_index *x, uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) >> x->shift;
}

static inline uint64_t entry_key64(const void *entries, size_t size, uint32_t i)
{
	uint64_t key;

	memcpy(&key, (const char *)entries + (size_t)i * size, sizeof(key));
	return key;
}

uint32_t vma_key_table_find(const struct vma_code_index *x, const void *entries, size_t size,
			    uint64_t key)
{
	uint32_t at, i;

	if (!x->slots)
		return UINT32_MAX;
	for (at = key_at(x, key); (i = x->slots[at]) != UINT32_MAX; at = (at + 1) & code_mask(x)) {
		if (entry_key64(entries, size, i) == key)
			return i;
	}
	return UINT32_MAX;
}

void vma_key_table_put(struct vma_code_index *x, const void *entries, size_t size, uint32_t i)
{
	uint32_t at = key_at(x, entry_key64(entries, size, i));

	while (x->slots[at] != UINT32_MAX)
		at = (at + 1) & code_mask(x);
	x->slots[at] = i;
}

size_t vma_key_table_bytes(size_t cap, size_t size)
{
	return cap * size + (size_t)vma_code_index_slots((uint32_t)cap) * sizeof(uint32_t);
}

/* @x rebuilt for room for @cap entries, the first @nr of @entries in it. */
static int key_index_resize(struct vma_code_index *x, uint32_t cap, const void *entries,
			    size_t size, uint32_t nr)
{
	uint32_t i;

	if (index_empty(x, cap))
		return VMA_ERR_NOMEM;
	for (i = 0; i < nr; i++)
		vma_key_table_put(x, entries, size, i);
	return VMA_OK;
}

bool vma_key_table_room(struct vma_cycles_budget *b, void *entriesp, size_t *cap, size_t size,
			struct vma_code_index *x, uint32_t nr, bool force, bool *refused)
{
	size_t want = force ? *cap + 1 : *cap ? *cap * 2 : 8, room = *cap, bytes;
	void *entries;

	*refused = false;
	if (nr < *cap)
		return true;
	if (want > UINT32_MAX / 4)
		return false;
	bytes = vma_key_table_bytes(want, size) - vma_key_table_bytes(*cap, size);
	if (force) {
		vma_rows_force(b, bytes);
	} else if (!vma_rows_charge(b, bytes)) {
		*refused = true;
		return false;
	}
	/* The entries' room may grow and the index fail: the table keeps its capacity. */
	if (vma_grow_to_bytes(entriesp, &room, want, size) == VMA_OK) {
		memcpy(&entries, entriesp, sizeof(entries));
		if (key_index_resize(x, (uint32_t)want, entries, size, nr) == VMA_OK) {
			*cap = want;
			return true;
		}
	}
	vma_rows_credit(b, bytes);
	return false;
}

uint32_t vma_key_table_get(struct vma_cycles_budget *b, void *entriesp, uint32_t *nr,
			   size_t *cap, size_t size, struct vma_code_index *x, uint64_t key,
			   bool force, bool *refused)
{
	unsigned char *entries;
	uint32_t i;

	memcpy(&entries, entriesp, sizeof(entries));
	i = vma_key_table_find(x, entries, size, key);
	*refused = false;
	if (i != UINT32_MAX)
		return i;
	if (!vma_key_table_room(b, entriesp, cap, size, x, *nr, force, refused)) {
		if (*refused)
			vma_rows_fold(b);
		return UINT32_MAX;
	}
	memcpy(&entries, entriesp, sizeof(entries));
	i = (*nr)++;
	memset(entries + (size_t)i * size, 0, size);
	memcpy(entries + (size_t)i * size, &key, sizeof(key));
	vma_key_table_put(x, entries, size, i);
	return i;
}
