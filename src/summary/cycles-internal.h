/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cycle summaries' private layout, shared by cycles.c (adding, merging)
 * and cycles-query.c (sorting, quantiles, histograms); the layout and
 * its reasons are described at the top of cycles.c.
 */
#ifndef VMALYZE_CYCLES_INTERNAL_H
#define VMALYZE_CYCLES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmalyze/cycles.h"

#define SUB VMA_CYCLES_SKETCH_SUB
#define SUB_BITS 6 /* a sketch's finest resolution: 2^6 buckets per power of two */
#define SUB_BITS_MIN 2 /* its coarsest, once a budget collapsed it */
#define NGROUPS (64 - SUB_BITS + 1) /* group 58 ends at 2^64 */
#define EXACT_MIN_CAP 4u
#define EXACT_DEFAULT_CODE 11 /* 1 << 10 == VMA_CYCLES_EXACT_DEFAULT */
/* Values a sketch gathers before inserting them into its buckets. */
#define PENDING 32u
/* Buckets allocated together: a page; the pages of all groups. */
#define PAGE 16u
#define NPAGES (NGROUPS * SUB / PAGE)

_Static_assert(NPAGES < 256 && SUB % PAGE == 0, "page numbers must fit in a byte");
_Static_assert(SUB == 1u << SUB_BITS, "sketch resolution and its bit count disagree");
_Static_assert(VMA_CYCLES_SKETCH_SUB_MIN == 1u << SUB_BITS_MIN,
	       "coarsest sketch resolution and its bit count disagree");
_Static_assert(VMA_CYCLES_EXACT_DEFAULT == 1u << (EXACT_DEFAULT_CODE - 1),
	       "default exact limit and its code disagree");

/* How a sketch's buckets are stored: every sketch starts tiny. */
enum cell_kind {
	CELLS_TINY,   /* tcell: 32 bits */
	CELLS_NARROW, /* ncell: 64 bits */
	CELLS_WIDE,   /* struct wcell: a 64-bit count and a 64-bit sum */
};

/*
 * A tiny bucket: its count in the top TCOUNT_BITS bits, the sum of its
 * values' offsets from the bucket's lower bound in the others, so that
 * adding a value is adding TCOUNT_ONE + offset.
 */
typedef uint32_t tcell;
#define TCOUNT_BITS 11
#define TOFF_BITS (32 - TCOUNT_BITS)
#define TCOUNT_ONE ((uint32_t)1 << TOFF_BITS)
#define TOFF_MASK (TCOUNT_ONE - 1)
#define TCOUNT_MAX (((uint32_t)1 << TCOUNT_BITS) - 1)

/* A narrow bucket: the same in 64 bits. */
typedef uint64_t ncell;
#define NCOUNT_BITS 24
#define NOFF_BITS (64 - NCOUNT_BITS)
#define NCOUNT_ONE ((uint64_t)1 << NOFF_BITS)
#define NOFF_MASK (NCOUNT_ONE - 1)
#define NCOUNT_MAX (((uint64_t)1 << NCOUNT_BITS) - 1)

/* A bucket of a wide sketch. */
struct wcell {
	uint64_t count;
	uint64_t sum;
};

/*
 * A sketch of 2^bits buckets per power of two: the layout above with
 * @bits in place of SUB_BITS (bits < SUB_BITS once a budget collapsed it),
 * so that each coarse bucket is the union of 2^(SUB_BITS - bits) adjacent
 * fine ones and the directory needs fewer pages.
 */
struct vma_cycles_sketch {
	/* First, so that the add path finds it from the pointer alone. */
	uint32_t pending[PENDING]; /* the first vma_cycles.n are not yet in the buckets */
	uint64_t min;              /* of the values in the buckets; UINT64_MAX when none */
	uint64_t max;              /* 0 when none */
	void *cells;               /* npages pages of PAGE buckets: tcell, ncell or wcell */
	/* The budget's list of its sketches (NULL, NULL when charged to none). */
	struct vma_cycles_sketch *prev, *next;
	uint8_t npages;
	uint8_t kind;              /* enum cell_kind of cells */
	uint8_t bits;              /* log2 of the buckets per power of two */
	/* 1 + the place in cells of the page of buckets [p * PAGE, (p + 1) * PAGE); 0: none */
	uint8_t page[NPAGES];
};
_Static_assert(sizeof(void *) != 8 || sizeof(struct vma_cycles_sketch) == 408,
	       "vmalyze/cycles.h states the size of a sketch");

static inline unsigned int top_bit(uint64_t v)
{
	return 63 - (unsigned int)__builtin_clzll(v);
}

static inline unsigned int ceil_log2(uint64_t v)
{
	return v <= 1 ? 0 : top_bit(v - 1) + 1;
}

/* log2 of the width of @v's bucket (v > 0) at 2^@bits buckets per power of two. */
static inline unsigned int bucket_shift(uint64_t v, unsigned int bits)
{
	unsigned int e = top_bit(v);

	return e > bits ? e - bits : 0;
}

/* Bucket number g * 2^bits + sub of @v (v > 0); see the layout above. */
static inline uint32_t bucket_of(uint64_t v, unsigned int bits)
{
	unsigned int sh = bucket_shift(v, bits);

	return ((uint32_t)sh << bits) + (uint32_t)(v >> sh);
}

static inline uint64_t bucket_lo(uint32_t b, unsigned int bits)
{
	unsigned int g = b >> bits, sub = b & ((1u << bits) - 1);

	return g ? ((uint64_t)(1u << bits) + sub) << (g - 1) : sub;
}

static inline uint64_t bucket_width(uint32_t b, unsigned int bits)
{
	unsigned int g = b >> bits;

	return g ? (uint64_t)1 << (g - 1) : 1;
}

/* Pages of the directory a sketch of @bits uses: its buckets reach 2^64. */
static inline uint32_t pages_of(unsigned int bits)
{
	return (((64u - bits + 1) << bits) + PAGE - 1) / PAGE;
}

static inline uint32_t exact_limit(const struct vma_cycles *s)
{
	unsigned int code = s->limit_code ? s->limit_code : EXACT_DEFAULT_CODE;

	return (uint32_t)1 << (code - 1);
}

/*
 * Slots allocated for @n exact samples (see struct vma_cycles): the
 * smallest of 4, 6, 8, 12, 16, 24, ... (2^k and 3 * 2^(k-1)) that holds
 * them.  Growing by 1.5 and 1.33 in turn wastes half what doubling does;
 * the exact limit is a power of two, so the last step ends on it.
 */
static inline uint32_t exact_cap(uint32_t n)
{
	unsigned int k;

	if (n <= EXACT_MIN_CAP)
		return EXACT_MIN_CAP;
	k = ceil_log2(n);
	return n <= (3u << (k - 2)) ? 3u << (k - 2) : (uint32_t)1 << k;
}

/* True when an array of exact_cap(@n) slots holding @n samples is full (n >= 4). */
static inline bool exact_full(uint32_t n)
{
	return n >> __builtin_ctz(n) <= 3;
}

/*
 * How an exact summary keeps its samples (vma_cycles.form): a zero-filled
 * summary is an empty 32-bit one; its first samples go inline (in the
 * union, no allocation) while there are at most EXACT_INLINE_MAX of them
 * and they fit in 32 bits; then an array of 32-bit samples, 64-bit ones
 * once a sample does not fit in 32 bits (1.8 s at 2.4 GHz).
 */
enum exact_form {
	EXACT_ARRAY32 = 0,
	EXACT_ARRAY64 = 1,
	EXACT_INLINE = 2,
	FORM_COMPACT = 3, /* not exact: u.compact (below); n is 0 */
};
#define EXACT_INLINE_MAX 2u

/*
 * The compact form (cycles-compact.c): what a summary becomes past a
 * budget's last level.  A sketch of at most 4 buckets per power of two
 * (2^bits, bits 2, 1 or 0, the layout of bucket_of()) without a sketch's
 * header: its non-empty buckets only, ascending, each an entry of bucket
 * number (8 bits: at most 252 buckets), count and the sum of its values'
 * offsets from the bucket's lower bound (as a sketch's packed cells).
 * Entries are all of one kind: 4 bytes while every count fits 7 bits and
 * every offset sum 17 (most compact summaries: a few dozen values of tens
 * of microseconds a bucket), else 8 bytes (20 and 36 bits), else 16
 * (bucket and count, sum).  Its results are those of a sketch of the same
 * buckets.
 */
enum compact_kind {
	COMPACT_TINY,   /* uint32_t: bucket << 24 | count << 17 | offsets */
	COMPACT_NARROW, /* uint64_t: bucket << 56 | count << 36 | offsets */
	COMPACT_WIDE,   /* two uint64_t: bucket << 56 | count, sum */
};

struct vma_cycles_compact {
	uint8_t nr;      /* entries */
	uint8_t cap;     /* room for entries */
	uint8_t bits;    /* log2 of the buckets per power of two: 0, 1 or 2 */
	uint8_t kind;    /* enum compact_kind of the entries */
	uint32_t unused;
	uint64_t min;    /* of the values in it; UINT64_MAX when none */
	uint64_t max;    /* 0 when none */
	uint64_t e[];    /* the entries */
};
#define COMPACT_BITS_MAX SUB_BITS_MIN
#define CT_COUNT_SHIFT 17
#define CT_COUNT_MAX ((1u << 7) - 1)
#define CT_OFF_MASK ((1u << CT_COUNT_SHIFT) - 1)
#define CN_COUNT_SHIFT 36
#define CN_COUNT_MAX (((uint64_t)1 << 20) - 1)
#define CN_OFF_MASK (((uint64_t)1 << CN_COUNT_SHIFT) - 1)
#define CW_COUNT_MASK (((uint64_t)1 << 56) - 1)

static inline bool is_compact(const struct vma_cycles *s)
{
	return s->form == FORM_COMPACT;
}

static inline size_t compact_kind_size(unsigned int kind)
{
	if (kind == COMPACT_TINY)
		return sizeof(uint32_t);
	return kind == COMPACT_NARROW ? sizeof(uint64_t) : 2 * sizeof(uint64_t);
}

/* Bytes a compact form is charged. */
static inline size_t compact_held(const struct vma_cycles_compact *c)
{
	return sizeof(*c) + compact_kind_size(c->kind) * c->cap;
}

static inline uint32_t compact_tiny(const struct vma_cycles_compact *c, uint32_t i)
{
	return ((const uint32_t *)c->e)[i];
}

static inline uint32_t compact_bucket(const struct vma_cycles_compact *c, uint32_t i)
{
	if (c->kind == COMPACT_TINY)
		return compact_tiny(c, i) >> 24;
	return (uint32_t)(c->e[c->kind == COMPACT_WIDE ? 2 * i : i] >> 56);
}

static inline uint64_t compact_count(const struct vma_cycles_compact *c, uint32_t i)
{
	if (c->kind == COMPACT_TINY)
		return (compact_tiny(c, i) >> CT_COUNT_SHIFT) & CT_COUNT_MAX;
	if (c->kind == COMPACT_NARROW)
		return (c->e[i] >> CN_COUNT_SHIFT) & CN_COUNT_MAX;
	return c->e[2 * i] & CW_COUNT_MASK;
}

static inline uint64_t compact_sum(const struct vma_cycles_compact *c, uint32_t i)
{
	uint64_t base = compact_count(c, i) * bucket_lo(compact_bucket(c, i), c->bits);

	if (c->kind == COMPACT_TINY)
		return base + (compact_tiny(c, i) & CT_OFF_MASK);
	if (c->kind == COMPACT_NARROW)
		return base + (c->e[i] & CN_OFF_MASK);
	return c->e[2 * i + 1];
}

static inline bool exact_is64(const struct vma_cycles *s)
{
	return s->form == EXACT_ARRAY64;
}

static inline size_t exact_size(const struct vma_cycles *s)
{
	return exact_is64(s) ? sizeof(uint64_t) : sizeof(uint32_t);
}

/* Where @s's exact samples are (exact_size() bytes each); NULL when none. */
static inline const void *exact_samples(const struct vma_cycles *s)
{
	return s->form == EXACT_INLINE ? (const void *)s->u.inl : (const void *)s->u.exact32;
}

/* The same, to sort them in place. */
static inline void *exact_keys(struct vma_cycles *s)
{
	return s->form == EXACT_INLINE ? (void *)s->u.inl : (void *)s->u.exact32;
}

/* Bytes of an exact summary's array (what it is charged). */
static inline size_t exact_held(const struct vma_cycles *s)
{
	return s->form != EXACT_INLINE && s->u.exact32 ? exact_size(s) * exact_cap(s->n) : 0;
}

static inline uint64_t exact_at(const struct vma_cycles *s, uint32_t i)
{
	if (s->form == EXACT_INLINE)
		return s->u.inl[i];
	return exact_is64(s) ? s->u.exact64[i] : s->u.exact32[i];
}

/* Index in sk->cells of bucket @b, whose page is allocated. */
static inline uint32_t cell_at(const struct vma_cycles_sketch *sk, uint32_t b)
{
	return ((uint32_t)sk->page[b / PAGE] - 1) * PAGE + b % PAGE;
}

/* Count and offset sum of cell @i of a tiny or narrow sketch. */
static inline uint64_t packed_count(const struct vma_cycles_sketch *sk, uint32_t i)
{
	return sk->kind == CELLS_TINY ? ((const tcell *)sk->cells)[i] >> TOFF_BITS
				      : ((const ncell *)sk->cells)[i] >> NOFF_BITS;
}

static inline uint64_t packed_off(const struct vma_cycles_sketch *sk, uint32_t i)
{
	return sk->kind == CELLS_TINY ? ((const tcell *)sk->cells)[i] & TOFF_MASK
				      : ((const ncell *)sk->cells)[i] & NOFF_MASK;
}

/* Count and sum of bucket @b, whose page is allocated. */
static inline uint64_t paged_count(const struct vma_cycles_sketch *sk, uint32_t b)
{
	uint32_t i = cell_at(sk, b);

	return sk->kind == CELLS_WIDE ? ((const struct wcell *)sk->cells)[i].count
				      : packed_count(sk, i);
}

static inline uint64_t paged_sum(const struct vma_cycles_sketch *sk, uint32_t b)
{
	uint32_t i = cell_at(sk, b);

	if (sk->kind == CELLS_WIDE)
		return ((const struct wcell *)sk->cells)[i].sum;
	return packed_count(sk, i) * bucket_lo(b, sk->bits) + packed_off(sk, i);
}

/* Count and sum of any bucket @b. */
static inline uint64_t cell_count(const struct vma_cycles_sketch *sk, uint32_t b)
{
	return sk->page[b / PAGE] ? paged_count(sk, b) : 0;
}

static inline uint64_t cell_sum(const struct vma_cycles_sketch *sk, uint32_t b)
{
	return sk->page[b / PAGE] ? paged_sum(sk, b) : 0;
}

/* The first bucket from @b on that holds a value, NPAGES * PAGE when none does. */
static inline uint32_t next_bucket(const struct vma_cycles_sketch *sk, uint32_t b)
{
	while (b < NPAGES * PAGE) {
		if (!sk->page[b / PAGE])
			b = (b / PAGE + 1) * PAGE;
		else if (paged_count(sk, b))
			return b;
		else
			b++;
	}
	return b;
}

static inline size_t kind_size(unsigned int kind)
{
	return kind == CELLS_TINY ? sizeof(tcell) : kind == CELLS_NARROW ? sizeof(ncell)
									  : sizeof(struct wcell);
}

static inline size_t cell_size(const struct vma_cycles_sketch *sk)
{
	return kind_size(sk->kind);
}

/* Bytes a sketch is charged: itself and its pages. */
static inline size_t sketch_held(const struct vma_cycles_sketch *sk)
{
	return sizeof(*sk) + (size_t)sk->npages * PAGE * cell_size(sk);
}

/* vma_cycles_footprint(): what @s is charged. */
static inline size_t held_bytes(const struct vma_cycles *s)
{
	if (s->sketch)
		return sketch_held(s->u.sketch);
	return is_compact(s) ? compact_held(s->u.compact) : exact_held(s);
}

/*
 * The budget (cycles-budget.c).  Charges and credits take a NULL budget
 * (nothing is counted); vma_cycles_settle() tightens it when over its
 * limit, collapsing every sketch on its list, so it is called only
 * between operations, never with a sketch half-updated.
 */
static inline void vma_cycles_charge(struct vma_cycles_budget *b, size_t bytes)
{
	if (b) {
		b->used += bytes;
		b->charged += bytes;
		if (b->used > b->peak)
			b->peak = b->used;
	}
}

static inline void vma_cycles_credit(struct vma_cycles_budget *b, size_t bytes)
{
	if (b)
		b->used -= bytes;
}

/* An allocation of @from bytes became one of @to (b not NULL). */
static inline void vma_cycles_recharge(struct vma_cycles_budget *b, size_t from, size_t to)
{
	b->used += to - from;
	if (to > from)
		b->charged += to - from;
	if (b->used > b->peak)
		b->peak = b->used;
}

void vma_cycles_link(struct vma_cycles_budget *b, struct vma_cycles_sketch *sk);
void vma_cycles_unlink(struct vma_cycles_budget *b, struct vma_cycles_sketch *sk);
void vma_cycles_tighten(struct vma_cycles_budget *b);

/* Frees @s's sketch (unlinked from @b) or exact array; charges are the caller's. */
void vma_cycles_free_samples(struct vma_cycles *s, struct vma_cycles_budget *b);

/*
 * The pool of @b's exact arrays (cycles-pool.c): a block of exactly @size
 * bytes (an exact array's, 16 to 8192), or NULL when @b has no pool, or no
 * room in it, for that size; whether @block came from it; and giving a
 * block of @size back to it.
 */
void *vma_cycles_pool_alloc(struct vma_cycles_budget *b, size_t size);
bool vma_cycles_pool_owns(const struct vma_cycles_budget *b, const void *block);
void vma_cycles_pool_free(struct vma_cycles_budget *b, void *block, size_t size);

static inline void vma_cycles_settle(struct vma_cycles_budget *b)
{
	if (b && b->used > b->next_step)
		vma_cycles_tighten(b);
}
/* Collapse @sk to 2^@bits buckets per power of two (no-op if not finer).  False: no memory. */
bool vma_cycles_collapse(struct vma_cycles_sketch *sk, unsigned int bits,
			 struct vma_cycles_budget *b);

/*
 * The compact form (cycles-compact.c).  Each returns false when out of
 * memory (vma_cycles_to_compact(): @s unchanged; the others: samples
 * dropped, the caller marks @s failed).
 */
/* Make exact or sketch @s compact at 2^@bits (<= 2) buckets per power of two. */
bool vma_cycles_to_compact(struct vma_cycles *s, unsigned int bits, struct vma_cycles_budget *b);
/* Add non-zero @v to compact @s (collapsed first to @b's resolution if coarser). */
bool vma_cycles_compact_add(struct vma_cycles *s, uint64_t v, struct vma_cycles_budget *b);
/* Add the samples of @src (any form) to compact @dst, at the coarser resolution. */
bool vma_cycles_compact_merge(struct vma_cycles *dst, const struct vma_cycles *src,
			      struct vma_cycles_budget *b);
/* Collapse compact @s to 2^@bits buckets per power of two (no-op if not finer). */
bool vma_cycles_compact_collapse(struct vma_cycles *s, unsigned int bits,
				 struct vma_cycles_budget *b);

/* Insert the pending values of @s's sketch into its buckets (cycles.c). */
void vma_cycles_sketch_flush(struct vma_cycles *s, struct vma_cycles_budget *b);
/* The same as far as it needs no allocation.  Return: how many are left pending. */
uint32_t vma_cycles_sketch_flush_in_place(struct vma_cycles *s);

#endif /* VMALYZE_CYCLES_INTERNAL_H */
