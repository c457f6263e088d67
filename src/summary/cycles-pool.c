/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pool of a budget's exact arrays (contract in cycles-internal.h).
 *
 * Why a pool: on a large host every arc appends to one of tens of
 * thousands of small arrays spread over the heap, and a good part of
 * -s's time is the TLB and cache misses of reaching them.  Here they lie
 * together in one mapping advised for transparent huge pages, so that a
 * few TLB entries cover them all.  The pool holds only exact arrays
 * (16 bytes to 8 KiB, sizes 2^k and 3 * 2^(k-1), exact_cap()'s), whose
 * size the caller always knows, so a block needs no header.
 *
 * Why slabs: an array grows through a dozen sizes, each block freed as
 * the next is taken, so lists of free blocks per size fill with small
 * blocks that only new arrays want (on a host of 8 pcpus, about half of
 * the pool).  The pool is cut into slabs of 8 KiB, each holding blocks
 * of one size; a slab whose blocks are all free again takes blocks of any
 * size, so what a size gives up serves the others.
 *
 * Why it is bounded: free blocks in slabs still in use are not given
 * back, so memory the budget was credited for may stay resident.  The
 * pool grows to at most an eighth of its budget's limit, rounded up to
 * whole huge pages (POOL_SPAN for a budget without a limit); past that,
 * blocks come from malloc() as before.  A quarter made large hosts a
 * little faster but took the peak RSS of the largest host bench/ makes
 * near 64 MiB.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cycles-internal.h"

#define HUGE_PAGE ((size_t)2 << 20)
/* The most a pool maps (for a budget without a limit). */
#define POOL_SPAN ((size_t)16 << 20)
/* A budget of less than this gets no pool: an eighth of it would not fill a huge page. */
#define POOL_MIN_LIMIT ((size_t)16 << 20)
/* Blocks of 16 bytes (class 0) to 8 KiB (class 18), every 2^k and 3 * 2^(k-1). */
#define POOL_CLASSES 19u
#define POOL_MIN_BLOCK 16u
#define SLAB ((size_t)8 << 10)
#define NO_SLAB UINT32_MAX

/* The bookkeeping of one slab, kept apart from it (its blocks hold only samples). */
struct slab {
	uint32_t prev, next; /* in its class's list of slabs with room, or the empty ones' */
	uint32_t free;       /* offset + 1 of its first free block, 0: none */
	uint32_t fresh;      /* bytes of it cut into blocks so far */
	uint16_t used;       /* blocks handed out */
	uint8_t cls;         /* the size of its blocks */
	uint8_t listed;      /* on a list */
};

struct vma_cycles_pool {
	unsigned char *map; /* the mapping, for munmap() */
	size_t map_len;
	unsigned char *base; /* its first huge page boundary */
	uint32_t nr_slabs;   /* slabs cut from @base so far */
	uint32_t max_slabs;  /* the most it may cut */
	uint32_t room[POOL_CLASSES]; /* slabs of each size with a block free */
	uint32_t empty;              /* slabs with no block in use */
	struct slab *slabs;
};

/*
 * The class of a block of @size bytes: 16 << (c / 2) for an even class,
 * 24 << (c / 2) for an odd one.  Return: POOL_CLASSES when no class is
 * exactly @size (the caller's arrays always have one, within the range).
 */
static unsigned int class_of(size_t size)
{
	unsigned int k;

	if (size < POOL_MIN_BLOCK || size > SLAB)
		return POOL_CLASSES;
	k = 63u - (unsigned int)__builtin_clzll(size); /* 2^k <= size */
	if (size == (size_t)1 << k)
		return 2 * (k - 4);
	if (size == (size_t)3 << (k - 1))
		return 2 * (k - 4) + 1;
	return POOL_CLASSES;
}

static void list_push(struct vma_cycles_pool *p, uint32_t *head, uint32_t i)
{
	struct slab *s = &p->slabs[i];

	s->prev = NO_SLAB;
	s->next = *head;
	if (*head != NO_SLAB)
		p->slabs[*head].prev = i;
	*head = i;
	s->listed = 1;
}

static void list_drop(struct vma_cycles_pool *p, uint32_t *head, uint32_t i)
{
	struct slab *s = &p->slabs[i];

	if (s->prev != NO_SLAB)
		p->slabs[s->prev].next = s->next;
	else
		*head = s->next;
	if (s->next != NO_SLAB)
		p->slabs[s->next].prev = s->prev;
	s->listed = 0;
}

/* Make a pool for @b; false when it gets none (a small budget, or no mapping). */
static bool pool_make(struct vma_cycles_budget *b)
{
	size_t span = b->limit ? b->limit / 8 : POOL_SPAN;
	struct vma_cycles_pool *p;
	unsigned int c;
	void *m;

	if (span > POOL_SPAN)
		span = POOL_SPAN;
	/* Whole huge pages: a part of one past the last would be of small pages. */
	span = (span + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	if ((b->limit && b->limit < POOL_MIN_LIMIT) || !(p = calloc(1, sizeof(*p))))
		return false;
	p->max_slabs = (uint32_t)(span / SLAB);
	p->slabs = calloc(p->max_slabs, sizeof(*p->slabs));
	/* Reserved, not committed: only the slabs cut are ever resident. */
	m = p->slabs ? mmap(NULL, span + HUGE_PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
		     : MAP_FAILED;
	if (m == MAP_FAILED) {
		free(p->slabs);
		free(p);
		return false;
	}
	p->map = m;
	p->map_len = span + HUGE_PAGE;
	p->base = (unsigned char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	/* Advice only: without huge pages the pool still gathers the arrays. */
	(void)madvise(p->base, span, MADV_HUGEPAGE);
	for (c = 0; c < POOL_CLASSES; c++)
		p->room[c] = NO_SLAB;
	p->empty = NO_SLAB;
	b->pool = p;
	return true;
}

/* A slab for blocks of class @c with room, or NO_SLAB when the pool is full. */
static uint32_t slab_with_room(struct vma_cycles_pool *p, unsigned int c)
{
	uint32_t i = p->room[c];
	struct slab *s;

	if (i != NO_SLAB)
		return i;
	if (p->empty != NO_SLAB) {
		i = p->empty;
		list_drop(p, &p->empty, i);
	} else if (p->nr_slabs < p->max_slabs) {
		i = p->nr_slabs++;
	} else {
		return NO_SLAB;
	}
	s = &p->slabs[i];
	memset(s, 0, sizeof(*s));
	s->cls = (uint8_t)c;
	list_push(p, &p->room[c], i);
	return i;
}

void *vma_cycles_pool_alloc(struct vma_cycles_budget *b, size_t size)
{
	unsigned int c = class_of(size);
	struct vma_cycles_pool *p;
	unsigned char *at;
	struct slab *s;
	uint32_t i;

	if (!b || b->counts_only || c == POOL_CLASSES)
		return NULL;
	if (!b->pool && (b->no_pool || !pool_make(b))) {
		b->no_pool = true;
		return NULL;
	}
	p = b->pool;
	i = slab_with_room(p, c);
	if (i == NO_SLAB)
		return NULL;
	s = &p->slabs[i];
	at = p->base + (size_t)i * SLAB;
	if (s->free) {
		at += s->free - 1;
		memcpy(&s->free, at, sizeof(s->free));
	} else {
		at += s->fresh;
		s->fresh += (uint32_t)size;
	}
	s->used++;
	if (!s->free && s->fresh + size > SLAB)
		list_drop(p, &p->room[c], i);
	return at;
}

bool vma_cycles_pool_owns(const struct vma_cycles_budget *b, const void *block)
{
	const struct vma_cycles_pool *p = b ? b->pool : NULL;
	const unsigned char *at = block;

	return p && at >= p->base && at < p->base + (size_t)p->nr_slabs * SLAB;
}

void vma_cycles_pool_free(struct vma_cycles_budget *b, void *block, size_t size)
{
	struct vma_cycles_pool *p = b->pool;
	uint32_t i = (uint32_t)(((unsigned char *)block - p->base) / SLAB);
	uint32_t off = (uint32_t)(((unsigned char *)block - p->base) % SLAB);
	struct slab *s = &p->slabs[i];

	if (class_of(size) != s->cls || !s->used)
		return; /* not a block this slab handed out: left where it is */
	memcpy(block, &s->free, sizeof(s->free));
	s->free = off + 1;
	if (--s->used == 0) {
		/* Empty: any size may have it. */
		if (s->listed)
			list_drop(p, &p->room[s->cls], i);
		list_push(p, &p->empty, i);
	} else if (!s->listed) {
		list_push(p, &p->room[s->cls], i);
	}
}

void vma_cycles_budget_release(struct vma_cycles_budget *b)
{
	struct vma_cycles_pool *p = b->pool;

	if (p) {
		munmap(p->map, p->map_len);
		free(p->slabs);
		free(p);
	}
	b->pool = NULL;
	b->no_pool = false;
}
