/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tables of entries found by a code from the trace (an exit reason, a
 * vector, a hypercall or trap number), sized by the codes seen rather than
 * by the largest: a dense array of entries in the order they came, behind
 * an open-addressing index of two slots per entry of room (Fibonacci
 * hashing, so that runs of small codes spread).  An entry's code is its
 * first field, a uint32_t; codes from VMA_CODE_SHARED up share one entry,
 * named by the first of them seen.  Readers that want code order sort
 * (vma_code_table_sorted()).
 */
#ifndef VMALYZE_CODE_INDEX_H
#define VMALYZE_CODE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define VMA_CODE_SHARED 0x10000u

struct vma_code_index {
	uint32_t *slots; /* owned: entry numbers, UINT32_MAX = empty; NULL before the first */
	uint32_t shift;  /* 32 - log2(slots): a code's slot is the top bits of its hash */
};

/* The slot a code's search starts at (@x->slots not NULL). */
static inline uint32_t vma_code_at(const struct vma_code_index *x, uint32_t code)
{
	return code * 0x9e3779b1u >> x->shift;
}

/*
 * The hot path: the entry of @code (below VMA_CODE_SHARED) when its first
 * probe finds it, the usual case, else NULL (then vma_code_table_find()).
 */
static inline void *vma_code_table_first(const struct vma_code_index *x, void *entries,
					 size_t size, uint32_t code)
{
	uint32_t i, first;

	if (__builtin_expect(x->slots == NULL, 0))
		return NULL;
	i = x->slots[vma_code_at(x, code)];
	if (__builtin_expect(i == UINT32_MAX, 0))
		return NULL;
	memcpy(&first, (char *)entries + (size_t)i * size, sizeof(first));
	return first == code ? (char *)entries + (size_t)i * size : NULL;
}

/*
 * The entry number of @code among the entries at @entries (@size bytes
 * each) that @x indexes, or UINT32_MAX.
 */
uint32_t vma_code_table_find(const struct vma_code_index *x, const void *entries, size_t size,
			     uint32_t code);

/*
 * The room a full table of @cap entries grows to: 4 more up to 16, then
 * half as much again, rounded up to a multiple of 4 (4, 8, 12, 16, 24,
 * 36, ...): a vcpu's exit reasons, ten to twenty, waste less than by
 * doubling.
 */
static inline uint32_t vma_code_table_grown(uint32_t cap)
{
	return cap < 16 ? (cap + 4) & ~3u : (cap + cap / 2 + 3) & ~3u;
}

/*
 * vma_code_table_add - append a zeroed entry of @code (not in the table).
 * @entriesp: address of the entry array pointer; *@nr entries, room for *@cap.
 * A full table grows to vma_code_table_grown().
 * Return: the new entry, or NULL when out of memory (the table unchanged).
 */
void *vma_code_table_add(void *entriesp, uint32_t *nr, uint32_t *cap, size_t size,
			 struct vma_code_index *x, uint32_t code);

/* The same, a full table growing by this one entry only (an "other" row). */
void *vma_code_table_add_one(void *entriesp, uint32_t *nr, uint32_t *cap, size_t size,
			     struct vma_code_index *x, uint32_t code);

/*
 * vma_code_table_rekey - entry @i of the @nr at @entries becomes the entry
 * of @code (not in the table), its contents kept: a table that may not
 * grow makes a row its "other" row.  The index is rebuilt where it is.
 */
void vma_code_table_rekey(struct vma_code_index *x, void *entries, size_t size, uint32_t nr,
			  uint32_t i, uint32_t code);

/* Index slots of a table with room for @cap entries: 2 * @cap rounded up to a power of two. */
static inline uint32_t vma_code_index_slots(uint32_t cap)
{
	return cap ? (uint32_t)1 << (32 - __builtin_clz(2 * cap - 1)) : 0;
}

/* Pointers to the @n entries into @out (room for @n), by ascending code. */
void vma_code_table_sorted(const void *entries, size_t size, uint32_t n, const void **out);

/*
 * Key tables: the same index over entries whose first field is a
 * uint64_t key (a CR3's frame, a guest EIP: any value, none shared), for
 * tables that a trace can fill with as many keys as it has records.
 * Their room and index are rows of a budget (cycles.h): they grow only
 * through vma_key_table_room().
 */
struct vma_cycles_budget;

/* The entry number of @key among the entries at @entries that @x indexes, or UINT32_MAX. */
uint32_t vma_key_table_find(const struct vma_code_index *x, const void *entries, size_t size,
			    uint64_t key);

/* Entry @i, whose key @x does not hold yet, into @x (which has room for it). */
void vma_key_table_put(struct vma_code_index *x, const void *entries, size_t size, uint32_t i);

/* Rows' bytes of a key table with room for @cap entries of @size bytes, its index included. */
size_t vma_key_table_bytes(size_t cap, size_t size);

/*
 * vma_key_table_room - room for entry @nr in the key table at *@entriesp
 * (room for *@cap), its growth charged to @b's rows first: doubling from
 * 8, or by one entry when @force (an "other" entry, granted past the
 * limit: vma_rows_force()).  Return: true with room; false when the
 * budget refused it (*@refused set: the caller folds the key into its
 * "other" entry and tells vma_rows_fold()) or memory ran out (the table
 * unchanged, nothing charged).
 */
bool vma_key_table_room(struct vma_cycles_budget *b, void *entriesp, size_t *cap, size_t size,
			struct vma_code_index *x, uint32_t nr, bool force, bool *refused);

/*
 * vma_key_table_get - the number of @key's entry in the key table at
 * *@entriesp (*@nr entries), added when new (zero-filled but its key;
 * *@nr grows) with room from vma_key_table_room().  Return: the number;
 * UINT32_MAX when the budget refused the room (*@refused set and
 * vma_rows_fold() told: the caller counts @key in its "other" entry) or
 * memory ran out.
 */
uint32_t vma_key_table_get(struct vma_cycles_budget *b, void *entriesp, uint32_t *nr,
			   size_t *cap, size_t size, struct vma_code_index *x, uint64_t key,
			   bool force, bool *refused);

#endif /* VMALYZE_CODE_INDEX_H */
