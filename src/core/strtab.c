/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The string table (strtab.h): an array of copies by id and an
 * open-addressing index of twice the room, rebuilt when the room grows.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/grow.h"
#include "vmalyze/strtab.h"

/* Slots of an index for @cap strings: a power of two, at least 2 * @cap. */
static uint32_t slots_for(size_t cap)
{
	return cap ? (uint32_t)1 << (32 - __builtin_clz(2 * (uint32_t)cap - 1)) : 0;
}

/* FNV-1a: the first slot of a string's search. */
static uint32_t first_slot(const char *s, uint32_t mask)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (uint32_t)(h >> 32) & mask;
}

static void put(struct vma_strtab *t, uint32_t id)
{
	uint32_t mask = slots_for(t->cap) - 1, at;

	for (at = first_slot(t->strs[id], mask); t->slots[at] != UINT32_MAX; at = (at + 1) & mask)
		;
	t->slots[at] = id;
}

/* Room for one more string, the index rebuilt when the room grew. */
static int room(struct vma_strtab *t)
{
	size_t cap = t->cap, i;
	uint32_t *slots, n;

	if (t->nr < t->cap)
		return 0;
	if (t->cap >= VMA_STRTAB_MAX / 2 || vma_grow(t->strs, &cap, t->nr + 1, 32))
		return -1;
	n = slots_for(cap);
	slots = malloc((size_t)n * sizeof(*slots));
	if (!slots)
		return -1;
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	memset(slots, 0xff, (size_t)n * sizeof(*slots));
	for (i = 0; i < t->nr; i++)
		put(t, (uint32_t)i);
	return 0;
}

uint32_t vma_strtab_find(const struct vma_strtab *t, const char *s)
{
	uint32_t mask, at, id;

	if (!t->slots)
		return UINT32_MAX;
	mask = slots_for(t->cap) - 1;
	for (at = first_slot(s, mask); (id = t->slots[at]) != UINT32_MAX; at = (at + 1) & mask) {
		if (!strcmp(t->strs[id], s))
			return id;
	}
	return UINT32_MAX;
}

uint32_t vma_strtab_intern(struct vma_strtab *t, const char *s)
{
	uint32_t id = vma_strtab_find(t, s);

	if (id != UINT32_MAX)
		return id;
	if (room(t) < 0)
		return UINT32_MAX;
	t->strs[t->nr] = strdup(s);
	if (!t->strs[t->nr])
		return UINT32_MAX;
	put(t, (uint32_t)t->nr);
	return (uint32_t)t->nr++;
}

void vma_strtab_free(struct vma_strtab *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
	*t = (struct vma_strtab){ 0 };
}
