/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A string table: names interned once, each with a small id (0, 1, ... in
 * the order they came), found again by a hash of their bytes.  For names
 * made from the trace (a picture's slice names, --latency's causes), whose
 * number the trace decides: the caller bounds it (vma_strtab_count()).
 */
#ifndef VMALYZE_STRTAB_H
#define VMALYZE_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct vma_strtab {
	char **strs;     /* owned copies, by id */
	size_t nr, cap;
	uint32_t *slots; /* their index: two slots a string of room, UINT32_MAX empty */
};

/* Ids are below this. */
#define VMA_STRTAB_MAX (UINT32_MAX / 4)

/* A zero-filled table is empty. */
void vma_strtab_free(struct vma_strtab *t);

/* The id of @s, if interned.  Return: UINT32_MAX when not. */
uint32_t vma_strtab_find(const struct vma_strtab *t, const char *s);

/* The id of @s, interned when new.  Return: UINT32_MAX when out of memory. */
uint32_t vma_strtab_intern(struct vma_strtab *t, const char *s);

/* The string of id @id (below vma_strtab_count()). */
static inline const char *vma_strtab_get(const struct vma_strtab *t, uint32_t id)
{
	return t->strs[id];
}

static inline size_t vma_strtab_count(const struct vma_strtab *t)
{
	return t->nr;
}

#endif /* VMALYZE_STRTAB_H */
