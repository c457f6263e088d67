/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cycle summaries (contract and rationale in vmalyze/cycles.h): exact samples
 * while a summary is small, a log-linear bucket sketch once it grows, count-
 * and time-weighted quantiles from either, merging and log-scale histograms.
 *
 * Sketch layout.  Group 0 holds the values 0..63, one bucket each.  Group
 * g >= 1 holds [2^(g+5), 2^(g+6)) in 64 buckets of width 2^(g-1), so the
 * bucket of v is found from the position of its top bit and the six bits
 * below it: no division, no logarithm.  Buckets are numbered g * 64 + sub
 * across groups.  A sketch allocates its buckets in pages of PAGE adjacent
 * ones, the first time a value falls in a page, and finds a bucket through
 * a directory of one byte per page (its place in the sketch's one array of
 * pages): a distribution a few buckets wide, or one with a few outliers
 * powers of two away, costs a few pages instead of 64 buckets for every
 * power of two in its range.  Each bucket keeps the exact sum of its
 * values next to its count, so the bucket where a time-weighted quantile
 * falls is found exactly, as for a count-weighted one; only the position
 * inside the bucket is estimated.
 *
 * Compact buckets.  A bucket is one word: its count and the sum of its
 * values' offsets from the bucket's lower bound.  A sketch starts with
 * 32-bit words (11 bits of count, 21 of offsets: most of the thousands of
 * summaries a long trace turns into sketches fill slowly, and stay there
 * for gigabytes), and the first value that would overflow one moves the
 * whole sketch to 64-bit words (24 and 40 bits: some 16 million values in
 * one bucket, or a million of over a minute each), then to a 64-bit count
 * and a 64-bit sum.  A quarter of the size of a count and a sum is a
 * quarter of the memory, and four times the share of the summaries that
 * fits in the caches.
 *
 * Batched inserts.  Adding to a sketch only appends the value to a small
 * pending array at the start of the sketch (in 32 bits; the rare larger
 * value is inserted at once): one store, no read of the sketch, whose
 * buckets are seldom in the cache when a trace spreads its events over
 * thousands of summaries.  A full pending array is inserted in two loops:
 * the first prefetches every bucket the second will update, so that their
 * cache misses overlap instead of queueing.  Every reader accounts for the
 * pending values (the quantile inserts them first), so they are invisible
 * in every result.
 *
 * Exact samples are kept in 32 bits until one does not fit (1.8 s at
 * 2.4 GHz; runstate stretches can be longer), then in 64.
 */
#include <stdlib.h>
#include <string.h>

#include "cycles-internal.h"
#include "vmalyze/cycles.h"
#include "vmalyze/status.h"

void vma_cycles_init(struct vma_cycles *s, uint32_t exact_limit_wanted)
{
	memset(s, 0, sizeof(*s));
	if (exact_limit_wanted == 0)
		return;
	if (exact_limit_wanted > VMA_CYCLES_EXACT_MAX)
		exact_limit_wanted = VMA_CYCLES_EXACT_MAX;
	if (exact_limit_wanted < EXACT_MIN_CAP) {
		exact_limit_wanted = EXACT_MIN_CAP; /* the smallest array holds 4 */
	}
	s->limit_code = (uint8_t)(ceil_log2(exact_limit_wanted) + 1);
}

/* Give back an exact array of @size bytes, to @b's pool if it came from there. */
static void exact_block_free(struct vma_cycles_budget *b, void *block, size_t size)
{
	if (vma_cycles_pool_owns(b, block))
		vma_cycles_pool_free(b, block, size);
	else
		free(block);
}

void vma_cycles_free_samples(struct vma_cycles *s, struct vma_cycles_budget *b)
{
	if (s->sketch) {
		vma_cycles_unlink(b, s->u.sketch);
		free(s->u.sketch->cells);
		free(s->u.sketch);
	} else if (s->form != EXACT_INLINE && s->u.exact32) {
		exact_block_free(b, s->u.exact32, exact_held(s));
	}
}

void vma_cycles_release(struct vma_cycles *s, struct vma_cycles_budget *b)
{
	uint8_t code = s->limit_code;

	if (b) {
		vma_cycles_credit(b, held_bytes(s));
		if (is_compact(s))
			b->compact_used -= held_bytes(s);
	}
	vma_cycles_free_samples(s, b);
	memset(s, 0, sizeof(*s));
	s->limit_code = code;
}

/* ---- sketch buckets ---- */

/*
 * Store @sk's buckets in the next wider kind (tiny to narrow, narrow to
 * wide).  Return: false if out of memory (the sketch is unchanged).
 */
static bool widen(struct vma_cycles_sketch *sk, struct vma_cycles_budget *b)
{
	uint32_t i, n = (uint32_t)sk->npages * PAGE;
	unsigned char *w;
	uint32_t p;

	if (n) {
		w = malloc(kind_size(sk->kind + 1u) * n);
		if (!w)
			return false;
		/* Each cell's bucket number is needed for its lower bound. */
		for (p = 0; p < NPAGES; p++) {
			if (!sk->page[p])
				continue;
			for (i = p * PAGE; i < (p + 1) * PAGE; i++) {
				uint32_t at = cell_at(sk, i);
				uint64_t count = packed_count(sk, at), off = packed_off(sk, at);

				if (sk->kind == CELLS_TINY) {
					((ncell *)w)[at] = count << NOFF_BITS | off;
				} else {
					((struct wcell *)w)[at].count = count;
					((struct wcell *)w)[at].sum =
						count * bucket_lo(i, sk->bits) + off;
				}
			}
		}
		free(sk->cells);
		sk->cells = w;
		vma_cycles_credit(b, kind_size(sk->kind) * n);
		vma_cycles_charge(b, kind_size(sk->kind + 1u) * n);
	}
	sk->kind++;
	return true;
}

/*
 * Allocate the page of bucket @b (zero-filled) if it has none: the cells
 * grow by exactly one page, which happens at most NPAGES times a sketch.
 * Return: false if out of memory (the sketch is unchanged).
 */
static bool page_in(struct vma_cycles_sketch *sk, uint32_t b, struct vma_cycles_budget *bud)
{
	size_t csz = cell_size(sk);
	unsigned char *cells;

	if (sk->page[b / PAGE])
		return true;
	cells = realloc(sk->cells, csz * PAGE * (sk->npages + 1u));
	if (!cells)
		return false;
	memset(cells + csz * PAGE * sk->npages, 0, csz * PAGE);
	sk->cells = cells;
	sk->page[b / PAGE] = ++sk->npages;
	vma_cycles_charge(bud, csz * PAGE);
	return true;
}

/*
 * Add the values at @at (cells) and @off (offsets) to the buckets of @sk,
 * of tiny or narrow cells (@kind, a constant: one loop each).
 * Return: how many were added before one did not fit its bucket.
 */
static inline __attribute__((always_inline)) uint32_t add_packed(struct vma_cycles_sketch *sk,
								  const uint32_t *at,
								  const uint64_t *off,
								  uint32_t n,
								  enum cell_kind kind)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (kind == CELLS_TINY) {
			tcell *c = &((tcell *)sk->cells)[at[i]];

			if (__builtin_expect((*c & TOFF_MASK) + off[i] > TOFF_MASK ||
					     *c >> TOFF_BITS == TCOUNT_MAX, 0)) {
				break;
			}
			*c += TCOUNT_ONE + (uint32_t)off[i];
		} else {
			ncell *c = &((ncell *)sk->cells)[at[i]];

			if (__builtin_expect((*c & NOFF_MASK) + off[i] > NOFF_MASK ||
					     *c >> NOFF_BITS == NCOUNT_MAX, 0)) {
				break;
			}
			*c += NCOUNT_ONE + off[i];
		}
	}
	return i;
}

/*
 * The first loop of sketch_insert(), at 2^@bits buckets per power of two
 * (a constant at the finest: one loop each): the cells of @n values @v
 * into @at, their buckets into @bk and offsets into @off, pages allocated
 * as needed.  Return: how many it kept (a page it could not allocate
 * drops its values and marks @s failed).
 */
static inline __attribute__((always_inline)) uint32_t
sketch_locate(struct vma_cycles *s, const uint64_t *v, uint32_t n, struct vma_cycles_budget *bud,
	      unsigned int bits, uint32_t *at, uint32_t *bk, uint64_t *off, uint64_t *lo,
	      uint64_t *hi)
{
	struct vma_cycles_sketch *sk = s->u.sketch;
	unsigned char *cells = sk->cells;
	const size_t csz = cell_size(sk); /* page_in() keeps the kind */
	uint32_t i, j;

	/*
	 * The buckets are rarely in the cache: find and ask for all of them
	 * first, so that their misses overlap instead of queueing.
	 */
	for (i = 0, j = 0; i < n; i++) {
		unsigned int sh = bucket_shift(v[i], bits);
		uint32_t b = ((uint32_t)sh << bits) + (uint32_t)(v[i] >> sh);

		if (__builtin_expect(!sk->page[b / PAGE], 0)) {
			if (!page_in(sk, b, bud)) {
				s->failed = 1;
				continue;
			}
			cells = sk->cells;
		}
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
		bk[j] = b;
		at[j] = cell_at(sk, b);
		off[j] = v[i] & (((uint64_t)1 << sh) - 1);
		__builtin_prefetch(cells + csz * at[j], 1);
		j++;
	}
	return j;
}

/*
 * Insert @n values (none zero, n <= PENDING) into the buckets of @s's
 * sketch.  Values whose page cannot be allocated are dropped and @s marked
 * failed.
 */
static void sketch_insert(struct vma_cycles *s, const uint64_t *v, uint32_t n,
			  struct vma_cycles_budget *bud)
{
	struct vma_cycles_sketch *sk = s->u.sketch;
	uint64_t lo = UINT64_MAX, hi = 0, off[PENDING];
	uint32_t at[PENDING], bk[PENDING], i;
	unsigned int bits = sk->bits;

	n = bits == SUB_BITS ? sketch_locate(s, v, n, bud, SUB_BITS, at, bk, off, &lo, &hi)
			     : sketch_locate(s, v, n, bud, bits, at, bk, off, &lo, &hi);
	if (!n)
		return;
	if (lo < sk->min)
		sk->min = lo;
	if (hi > sk->max)
		sk->max = hi;
	/* A value that does not fit its bucket widens them all, and goes on. */
	i = 0;
	while (sk->kind != CELLS_WIDE) {
		i += sk->kind == CELLS_TINY ? add_packed(sk, at + i, off + i, n - i, CELLS_TINY)
					    : add_packed(sk, at + i, off + i, n - i, CELLS_NARROW);
		if (i == n)
			return;
		if (!widen(sk, bud)) {
			s->failed = 1;
			return;
		}
	}
	for (; i < n; i++) {
		struct wcell *c = &((struct wcell *)sk->cells)[at[i]];

		c->count++;
		c->sum += bucket_lo(bk[i], bits) + off[i];
	}
}

/* Insert @n 32-bit values into the buckets of @s's sketch. */
static void sketch_insert32(struct vma_cycles *s, const uint32_t *v32, uint32_t n,
			    struct vma_cycles_budget *b)
{
	uint64_t v[PENDING];
	uint32_t i;

	for (i = 0; i < n; i++)
		v[i] = v32[i];
	sketch_insert(s, v, n, b);
}

/*
 * Past its budget's last level a sketch gives way to the compact form, the
 * next time it takes values (a cold one keeps its buckets, which no longer
 * grow).  Return: true when @s is compact now.
 */
static bool sketch_gives_way(struct vma_cycles *s, struct vma_cycles_budget *b)
{
	if (!b || !b->compact || !vma_cycles_to_compact(s, b->bits, b))
		return false;
	b->compacts++;
	return true;
}

/* One value (too large for the pending array) into @s's sketch. */
static __attribute__((noinline)) void sketch_insert_one(struct vma_cycles *s, uint64_t v,
							struct vma_cycles_budget *b)
{
	if (sketch_gives_way(s, b)) {
		if (!vma_cycles_compact_add(s, v, b))
			s->failed = 1;
	} else {
		sketch_insert(s, &v, 1, b);
	}
	vma_cycles_settle(b);
}

/*
 * The cells of @n pending values @v of @sk at 2^@bits buckets per power
 * of two (a constant at the finest: one loop each), into @at and @off,
 * their extremes into *@lo and *@hi.  Return: false when a page is missing.
 */
static inline __attribute__((always_inline)) bool locate(const struct vma_cycles_sketch *sk,
							  const uint32_t *v, uint32_t n,
							  unsigned int bits, uint32_t *at,
							  uint64_t *off, uint32_t *lo, uint32_t *hi)
{
	const unsigned char *cells = sk->cells;
	size_t csz = cell_size(sk);
	uint32_t i;

	/* Ask for every bucket first, so that their cache misses overlap. */
	for (i = 0; i < n; i++) {
		unsigned int sh = bucket_shift(v[i], bits);
		uint32_t b = ((uint32_t)sh << bits) + (v[i] >> sh);
		uint32_t page = sk->page[b / PAGE];

		if (__builtin_expect(!page, 0))
			return false;
		at[i] = (page - 1) * PAGE + b % PAGE;
		off[i] = v[i] & (((uint32_t)1 << sh) - 1);
		__builtin_prefetch(cells + csz * at[i], 1);
		*lo = v[i] < *lo ? v[i] : *lo;
		*hi = v[i] > *hi ? v[i] : *hi;
	}
	return true;
}

uint32_t vma_cycles_sketch_flush_in_place(struct vma_cycles *s)
{
	struct vma_cycles_sketch *sk = s->u.sketch;
	uint32_t *v = sk->pending;
	uint32_t n = s->n, lo = UINT32_MAX, hi = 0, i;
	uint32_t at[PENDING];
	uint64_t off[PENDING];
	bool found;

	if (sk->kind == CELLS_WIDE)
		return n;
	found = sk->bits == SUB_BITS ? locate(sk, v, n, SUB_BITS, at, off, &lo, &hi)
				     : locate(sk, v, n, sk->bits, at, off, &lo, &hi);
	if (!found)
		return n;
	if (n && lo < sk->min)
		sk->min = lo;
	if (hi > sk->max)
		sk->max = hi;
	i = sk->kind == CELLS_TINY ? add_packed(sk, at, off, n, CELLS_TINY)
				   : add_packed(sk, at, off, n, CELLS_NARROW);
	/* A bucket is full: the rest waits for the general path, which widens. */
	memmove(v, v + i, sizeof(*v) * (n - i));
	s->n = n - i;
	return s->n;
}

/*
 * Insert the pending values of @s's sketch into its buckets: in place
 * when their pages are there (the common case), else through the general
 * path, which allocates.  Out of line, so that vma_cycles_add() needs no
 * stack frame.
 */
__attribute__((noinline)) void vma_cycles_sketch_flush(struct vma_cycles *s,
						       struct vma_cycles_budget *bud)
{
	uint32_t n;

	if (__builtin_expect(bud && bud->compact, 0) && sketch_gives_way(s, bud)) {
		vma_cycles_settle(bud);
		return;
	}
	n = vma_cycles_sketch_flush_in_place(s);

	if (n) {
		s->n = 0;
		sketch_insert32(s, s->u.sketch->pending, n, bud);
		vma_cycles_settle(bud);
	}
}

/* The resolution new sketches of @b start at (past its last level, compact forms go coarser). */
static unsigned int budget_bits(const struct vma_cycles_budget *b)
{
	if (!b)
		return SUB_BITS;
	return b->bits > SUB_BITS_MIN ? b->bits : SUB_BITS_MIN;
}

/*
 * Move the exact samples of @s into a new sketch of 2^@bits buckets per
 * power of two.  Return: false if out of memory.
 */
static bool to_sketch(struct vma_cycles *s, struct vma_cycles_budget *b, unsigned int bits)
{
	struct vma_cycles_sketch *sk = calloc(1, sizeof(*sk));
	struct vma_cycles was = *s; /* its samples, inline ones included */
	uint64_t chunk[PENDING];
	size_t held = exact_held(s);
	uint32_t n = s->n, i, j, k;

	if (!sk)
		return false;
	sk->min = UINT64_MAX;
	sk->bits = (uint8_t)bits;
	vma_cycles_charge(b, sizeof(*sk));
	vma_cycles_link(b, sk);
	s->u.sketch = sk;
	s->sketch = 1;
	s->form = EXACT_ARRAY32;
	s->n = 0;
	for (i = 0; i < n; i += k) {
		k = n - i < PENDING ? n - i : PENDING;
		for (j = 0; j < k; j++)
			chunk[j] = exact_at(&was, i + j);
		sketch_insert(s, chunk, k, b);
	}
	if (was.form != EXACT_INLINE && was.u.exact32)
		exact_block_free(b, was.u.exact32, held);
	vma_cycles_credit(b, held);
	return true;
}

/* ---- exact samples ---- */

/*
 * The exact array @old of @held bytes (NULL: none) moved to a block of
 * @size: in @b's pool while it has room (see cycles-pool.c), else by
 * realloc().  Return: the new block, or NULL with @old unchanged.
 */
static __attribute__((noinline)) void *exact_block_resize(struct vma_cycles_budget *b, void *old,
							   size_t held, size_t size)
{
	void *p = vma_cycles_pool_alloc(b, size);

	if (!p && !vma_cycles_pool_owns(b, old))
		return realloc(old, size);
	if (!p && !(p = malloc(size)))
		return NULL;
	if (old) {
		memcpy(p, old, held < size ? held : size);
		exact_block_free(b, old, held);
	}
	return p;
}

/*
 * Make room for @need exact samples of @width bytes; @need <= the exact
 * limit.  Inline: a large host grows a million small arrays.
 */
static inline __attribute__((always_inline)) bool exact_reserve(struct vma_cycles *s,
								 uint32_t need, size_t width,
								 struct vma_cycles_budget *b)
{
	bool inl = s->form == EXACT_INLINE;
	size_t held, size;
	void *p;

	if (need <= exact_cap(s->n) && s->u.exact32 && !inl && width == exact_size(s))
		return true;
	held = exact_held(s);
	size = width * exact_cap(need > s->n ? need : s->n);
	p = exact_block_resize(b, inl ? NULL : s->u.exact32, held, size);
	if (!p)
		return false;
	if (inl) {
		/* Out of the struct: as 32-bit samples, which exact_widen() converts. */
		memcpy(p, s->u.inl, sizeof(*s->u.inl) * s->n);
		s->form = EXACT_ARRAY32;
	}
	s->u.exact32 = p;
	if (b)
		vma_cycles_recharge(b, held, size);
	return true;
}

/* Store exact samples in 64 bits from now on.  Return: false if out of memory. */
static bool exact_widen(struct vma_cycles *s, struct vma_cycles_budget *b)
{
	uint32_t i;

	if (exact_is64(s))
		return true;
	if (s->n) {
		if (!exact_reserve(s, s->n, sizeof(uint64_t), b))
			return false;
		/* In place, from the end: each 64-bit slot covers its 32-bit source or later. */
		for (i = s->n; i-- > 0;)
			s->u.exact64[i] = s->u.exact32[i];
	}
	s->form = EXACT_ARRAY64;
	return true;
}

/* Append @v to an array (not inline) with room for it. */
static void exact_store(struct vma_cycles *s, uint64_t v)
{
	s->sorted = 0;
	if (exact_is64(s)) {
		s->u.exact64[s->n++] = v;
	} else {
		s->u.exact32[s->n++] = (uint32_t)v;
	}
}

/* True when @s may keep @n samples of at most @max inline: none of them in an array. */
static bool inline_fits(const struct vma_cycles *s, uint64_t n, uint64_t max)
{
	return n <= EXACT_INLINE_MAX && max <= UINT32_MAX &&
	       (s->form == EXACT_INLINE || (s->form == EXACT_ARRAY32 && !s->u.exact32));
}

/*
 * Whether @s may hold @need samples exactly: within its own limit and,
 * once its budget tightened, within the budget's lower one (*@early tells
 * when only that one is passed).
 */
static bool exact_fits(const struct vma_cycles *s, uint64_t need,
		       const struct vma_cycles_budget *b, bool *early)
{
	*early = false;
	if (need > exact_limit(s))
		return false;
	if (b && need > b->exact_limit) {
		*early = true;
		return false;
	}
	return true;
}

/*
 * Add @v to compact @s (out of line, so that the exact cases of add_slow()
 * keep their registers).
 */
static __attribute__((noinline)) void compact_add(struct vma_cycles *s, uint64_t v,
						  struct vma_cycles_budget *b)
{
	if (!vma_cycles_compact_add(s, v, b))
		s->failed = 1;
	vma_cycles_settle(b);
}

/*
 * Exact @s must grow past its limit (or its budget's, @early): it becomes
 * a sketch, or past @b's last level a compact form, and takes @v.
 * Return: false if out of memory.
 */
static __attribute__((noinline)) bool exact_gives_way(struct vma_cycles *s, uint64_t v,
						      struct vma_cycles_budget *b, bool early)
{
	if (b && b->compact) {
		if (!vma_cycles_to_compact(s, b->bits, b))
			return false;
		b->compacts++;
		compact_add(s, v, b);
		return true;
	}
	if (!to_sketch(s, b, budget_bits(b)))
		return false;
	if (early)
		b->early++;
	if (v <= UINT32_MAX) {
		s->u.sketch->pending[s->n++] = (uint32_t)v;
	} else {
		sketch_insert(s, &v, 1, b);
	}
	vma_cycles_settle(b);
	return true;
}

/* Exact mode with a full (or absent) array, or a value too large: the slow cases. */
static __attribute__((noinline)) void add_slow(struct vma_cycles *s, uint64_t v,
					       struct vma_cycles_budget *b)
{
	bool early;

	/* A summary of a counts-only budget never holds a sample: every add comes here. */
	if (b && b->counts_only)
		return;
	if (inline_fits(s, (uint64_t)s->n + 1, v)) {
		s->u.inl[s->n++] = (uint32_t)v;
		s->form = EXACT_INLINE;
		s->sorted = 0;
		return;
	}
	if (is_compact(s)) {
		compact_add(s, v, b);
		return;
	}
	if (exact_fits(s, (uint64_t)s->n + 1, b, &early)) {
		if ((v <= UINT32_MAX || exact_widen(s, b)) &&
		    exact_reserve(s, s->n + 1, exact_size(s), b)) {
			exact_store(s, v);
			vma_cycles_settle(b);
			return;
		}
	} else if (exact_gives_way(s, v, b, early)) {
		return;
	}
	s->failed = 1;
}

void vma_cycles_add(struct vma_cycles *s, uint64_t v, struct vma_cycles_budget *b)
{
	uint32_t n;

	s->events++;
	if (!v)
		return;
	s->count++;
	s->cycles += v;
	n = s->n;
	if (s->sketch) {
		if (__builtin_expect(v > UINT32_MAX, 0)) {
			sketch_insert_one(s, v, b);
			return;
		}
		s->u.sketch->pending[n++] = (uint32_t)v;
		s->n = n;
		if (n == PENDING)
			vma_cycles_sketch_flush(s, b);
		return;
	}
	/*
	 * Room left unless n is 0 with no array, inline or compact (n is then
	 * 0 too), or a capacity (exact_cap()).
	 */
	if (n < EXACT_MIN_CAP ? s->u.exact32 != NULL && s->form < EXACT_INLINE
			      : !exact_full(n)) {
		s->sorted = 0;
		if (s->form == EXACT_ARRAY32) {
			if (v <= UINT32_MAX) {
				s->u.exact32[n] = (uint32_t)v;
				s->n = n + 1;
				return;
			}
		} else {
			s->u.exact64[n] = v;
			s->n = n + 1;
			return;
		}
	}
	add_slow(s, v, b);
}

/* ---- merging ---- */

/* Add @count values summing to @sum to bucket @b of @dst, whose page is allocated. */
static bool cell_merge(struct vma_cycles_sketch *dst, uint32_t b, uint64_t count, uint64_t sum,
		       struct vma_cycles_budget *bud)
{
	uint64_t off = sum - count * bucket_lo(b, dst->bits);
	uint32_t at = cell_at(dst, b);

	while (dst->kind != CELLS_WIDE) {
		uint64_t have = packed_count(dst, at), have_off = packed_off(dst, at);

		if (dst->kind == CELLS_TINY && have + count <= TCOUNT_MAX &&
		    have_off + off <= TOFF_MASK) {
			((tcell *)dst->cells)[at] += (uint32_t)(count * TCOUNT_ONE + off);
			return true;
		}
		if (dst->kind == CELLS_NARROW && have + count <= NCOUNT_MAX &&
		    have_off + off <= NOFF_MASK) {
			((ncell *)dst->cells)[at] += count * NCOUNT_ONE + off;
			return true;
		}
		if (!widen(dst, bud))
			return false;
	}
	((struct wcell *)dst->cells)[at].count += count;
	((struct wcell *)dst->cells)[at].sum += sum;
	return true;
}

/*
 * Add the buckets (not the pending values) of @src to @s's sketch, at the
 * coarser of the two resolutions (@s's collapses first if @src's is).
 */
static bool sketch_merge(struct vma_cycles *s, const struct vma_cycles_sketch *src,
			 struct vma_cycles_budget *bud)
{
	struct vma_cycles_sketch *dst = s->u.sketch;
	uint32_t b, to;

	if (src->max == 0)
		return true;
	if (src->bits < dst->bits && !vma_cycles_collapse(dst, src->bits, bud))
		return false;
	while (dst->bits == src->bits && dst->kind < src->kind) {
		if (!widen(dst, bud))
			return false;
	}
	for (b = next_bucket(src, 0); b < NPAGES * PAGE; b = next_bucket(src, b + 1)) {
		to = src->bits == dst->bits ? b : bucket_of(bucket_lo(b, src->bits), dst->bits);
		if (!page_in(dst, to, bud) ||
		    !cell_merge(dst, to, paged_count(src, b), paged_sum(src, b), bud)) {
			return false;
		}
	}
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return true;
}

/* Insert the exact samples of @src into @s's sketch. */
static void sketch_insert_exact(struct vma_cycles *s, const struct vma_cycles *src,
				struct vma_cycles_budget *b)
{
	uint64_t chunk[PENDING];
	uint32_t i, j, k;

	for (i = 0; i < src->n; i += k) {
		k = src->n - i < PENDING ? src->n - i : PENDING;
		for (j = 0; j < k; j++)
			chunk[j] = exact_at(src, i + j);
		sketch_insert(s, chunk, k, b);
	}
}

/* Both exact, and the samples fit @dst's limit: append them.  Return: 0 or VMA_ERR_NOMEM. */
static int exact_append(struct vma_cycles *dst, const struct vma_cycles *src, uint32_t need,
			struct vma_cycles_budget *b)
{
	uint32_t i;

	if (need <= EXACT_INLINE_MAX && inline_fits(dst, need, vma_cycles_max(src))) {
		for (i = 0; i < src->n; i++)
			dst->u.inl[dst->n++] = (uint32_t)exact_at(src, i);
		dst->form = EXACT_INLINE;
		dst->sorted = 0;
		return 0;
	}
	if ((exact_is64(src) && !exact_widen(dst, b)) ||
	    !exact_reserve(dst, need, exact_size(dst), b)) {
		return VMA_ERR_NOMEM;
	}
	if (exact_is64(dst) == exact_is64(src)) {
		memcpy((char *)dst->u.exact32 + exact_size(dst) * dst->n,
		       exact_samples(src), exact_size(src) * src->n);
		dst->n = need;
		dst->sorted = 0;
	} else {
		for (i = 0; i < src->n; i++)
			exact_store(dst, exact_at(src, i));
	}
	return 0;
}

/*
 * A merge where either side is compact, or past @b's last level: the
 * result is compact, at the coarsest resolution of the two (and of @b),
 * so that any grouping and order of merges gives the same buckets.
 */
static int merge_compact(struct vma_cycles *dst, const struct vma_cycles *src,
			 struct vma_cycles_budget *b, uint8_t failed)
{
	unsigned int bits = COMPACT_BITS_MAX;

	if (!is_compact(dst)) {
		if (is_compact(src) && src->u.compact->bits < bits)
			bits = src->u.compact->bits;
		if (b && b->compact && b->bits < bits)
			bits = b->bits;
		if (!vma_cycles_to_compact(dst, bits, b)) {
			dst->failed = 1;
			return VMA_ERR_NOMEM;
		}
		if (b && b->compact)
			b->compacts++;
	}
	if (!vma_cycles_compact_merge(dst, src, b)) {
		dst->failed = 1;
		return VMA_ERR_NOMEM;
	}
	dst->failed = failed;
	return 0;
}

/* vma_cycles_merge_samples() before the budget settles. */
static int merge_samples(struct vma_cycles *dst, const struct vma_cycles *src,
			 struct vma_cycles_budget *b)
{
	uint8_t failed = dst->failed | src->failed;
	bool early = false;

	/* From here, dst->failed tells whether this merge dropped samples. */
	dst->failed = 0;
	if (is_compact(dst) || is_compact(src))
		return merge_compact(dst, src, b, failed);
	if (!dst->sketch && !src->sketch) {
		uint64_t need = (uint64_t)dst->n + src->n;

		if (src->n == 0) {
			dst->failed = failed;
			return 0;
		}
		if (exact_fits(dst, need, b, &early)) {
			if (exact_append(dst, src, (uint32_t)need, b)) {
				dst->failed = 1;
				return VMA_ERR_NOMEM;
			}
			dst->failed = failed;
			return 0;
		}
	}
	if (b && b->compact)
		return merge_compact(dst, src, b, failed);
	if (!dst->sketch) {
		if (!to_sketch(dst, b, budget_bits(b))) {
			dst->failed = 1;
			return VMA_ERR_NOMEM;
		}
		if (early)
			b->early++;
	}
	if (src->sketch) {
		if (!sketch_merge(dst, src->u.sketch, b))
			dst->failed = 1;
		sketch_insert32(dst, src->u.sketch->pending, src->n, b);
	} else {
		sketch_insert_exact(dst, src, b);
	}
	if (dst->failed)
		return VMA_ERR_NOMEM;
	dst->failed = failed;
	return 0;
}

int vma_cycles_merge_samples(struct vma_cycles *dst, const struct vma_cycles *src,
			     struct vma_cycles_budget *b)
{
	int rc = merge_samples(dst, src, b);

	vma_cycles_settle(b);
	return rc;
}

int vma_cycles_merge(struct vma_cycles *dst, const struct vma_cycles *src,
		     struct vma_cycles_budget *b)
{
	int rc;

	dst->events += src->events;
	dst->count += src->count;
	dst->cycles += src->cycles;
	rc = merge_samples(dst, src, b);
	vma_cycles_settle(b);
	return rc;
}

/* log2 of @per_octave rounded down, within [@min_bits, SUB_BITS]. */
static unsigned int bits_of(unsigned int per_octave, unsigned int min_bits)
{
	unsigned int bits = SUB_BITS;

	while (bits > min_bits && (1u << bits) > per_octave)
		bits--;
	return bits;
}

int vma_cycles_compact(struct vma_cycles *s, unsigned int per_octave,
		       struct vma_cycles_budget *b)
{
	unsigned int bits = bits_of(per_octave, 0);

	if (bits > COMPACT_BITS_MAX)
		bits = COMPACT_BITS_MAX;
	if (!vma_cycles_to_compact(s, bits, b))
		return VMA_ERR_NOMEM;
	vma_cycles_settle(b);
	return 0;
}

int vma_cycles_coarsen(struct vma_cycles *s, unsigned int per_octave,
		       struct vma_cycles_budget *b)
{
	unsigned int bits = bits_of(per_octave, SUB_BITS_MIN);

	if (is_compact(s)) {
		if (!vma_cycles_compact_collapse(s, bits, b))
			return VMA_ERR_NOMEM;
		vma_cycles_settle(b);
		return 0;
	}
	if (!s->sketch && !to_sketch(s, b, bits < budget_bits(b) ? bits : budget_bits(b)))
		return VMA_ERR_NOMEM;
	if (!vma_cycles_collapse(s->u.sketch, bits, b))
		return VMA_ERR_NOMEM;
	vma_cycles_settle(b);
	return 0;
}
