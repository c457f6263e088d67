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

void vma_cycles_release(struct vma_cycles *s)
{
	uint8_t code = s->limit_code;

	if (s->sketch) {
		free(s->u.sketch->cells);
		free(s->u.sketch);
	} else {
		free(s->u.exact32);
	}
	memset(s, 0, sizeof(*s));
	s->limit_code = code;
}

/* ---- sketch buckets ---- */

/*
 * Store @sk's buckets in the next wider kind (tiny to narrow, narrow to
 * wide).  Return: false if out of memory (the sketch is unchanged).
 */
static bool widen(struct vma_cycles_sketch *sk)
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
					((struct wcell *)w)[at].sum = count * bucket_lo(i) + off;
				}
			}
		}
		free(sk->cells);
		sk->cells = w;
	}
	sk->kind++;
	return true;
}

/*
 * Allocate the page of bucket @b (zero-filled) if it has none: the cells
 * grow by exactly one page, which happens at most NPAGES times a sketch.
 * Return: false if out of memory (the sketch is unchanged).
 */
static bool page_in(struct vma_cycles_sketch *sk, uint32_t b)
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
 * Insert @n values (none zero, n <= PENDING) into the buckets of @s's
 * sketch.  Values whose page cannot be allocated are dropped and @s marked
 * failed.
 */
static void sketch_insert(struct vma_cycles *s, const uint64_t *v, uint32_t n)
{
	struct vma_cycles_sketch *sk = s->u.sketch;
	uint64_t lo = UINT64_MAX, hi = 0, off[PENDING];
	uint32_t at[PENDING], bk[PENDING], i, j;
	unsigned char *cells = sk->cells;

	/*
	 * The buckets are rarely in the cache: find and ask for all of them
	 * first, so that their misses overlap instead of queueing.
	 */
	for (i = 0, j = 0; i < n; i++) {
		unsigned int sh = bucket_shift(v[i]);
		uint32_t b = ((uint32_t)sh << SUB_BITS) + (uint32_t)(v[i] >> sh);

		if (__builtin_expect(!sk->page[b / PAGE], 0)) {
			if (!page_in(sk, b)) {
				s->failed = 1;
				continue;
			}
			cells = sk->cells;
		}
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
		bk[j] = b;
		at[j] = cell_at(sk, b);
		off[j] = v[i] & (((uint64_t)1 << sh) - 1);
		__builtin_prefetch(cells + cell_size(sk) * at[j], 1);
		j++;
	}
	n = j;
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
		if (!widen(sk)) {
			s->failed = 1;
			return;
		}
	}
	for (; i < n; i++) {
		struct wcell *c = &((struct wcell *)sk->cells)[at[i]];

		c->count++;
		c->sum += bucket_lo(bk[i]) + off[i];
	}
}

/* Insert @n 32-bit values into the buckets of @s's sketch. */
static void sketch_insert32(struct vma_cycles *s, const uint32_t *v32, uint32_t n)
{
	uint64_t v[PENDING];
	uint32_t i;

	for (i = 0; i < n; i++)
		v[i] = v32[i];
	sketch_insert(s, v, n);
}

/* One value (too large for the pending array) into @s's sketch. */
static __attribute__((noinline)) void sketch_insert_one(struct vma_cycles *s, uint64_t v)
{
	sketch_insert(s, &v, 1);
}

/*
 * Insert the pending values of @s's sketch into its buckets: the common
 * case of sketch_insert(), for 32-bit values falling in pages already
 * allocated of tiny or narrow buckets, in 32-bit arithmetic.  Out of line,
 * so that vma_cycles_add() needs no stack frame.
 */
__attribute__((noinline)) void vma_cycles_sketch_flush(struct vma_cycles *s)
{
	struct vma_cycles_sketch *sk = s->u.sketch;
	const uint32_t *v = sk->pending;
	uint32_t n = s->n, lo = UINT32_MAX, hi = 0, i;
	uint32_t at[PENDING];
	uint64_t off[PENDING];
	unsigned char *cells = sk->cells;
	size_t csz = cell_size(sk);

	s->n = 0;
	if (sk->kind == CELLS_WIDE) {
		sketch_insert32(s, v, n);
		return;
	}
	/* Ask for every bucket first, so that their cache misses overlap. */
	for (i = 0; i < n; i++) {
		unsigned int sh = bucket_shift(v[i]);
		uint32_t b = ((uint32_t)sh << SUB_BITS) + (v[i] >> sh);
		uint32_t page = sk->page[b / PAGE];

		if (__builtin_expect(!page, 0)) {
			sketch_insert32(s, v, n); /* allocates the page */
			return;
		}
		at[i] = (page - 1) * PAGE + b % PAGE;
		off[i] = v[i] & (((uint32_t)1 << sh) - 1);
		__builtin_prefetch(cells + csz * at[i], 1);
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	if (n && lo < sk->min)
		sk->min = lo;
	if (hi > sk->max)
		sk->max = hi;
	i = sk->kind == CELLS_TINY ? add_packed(sk, at, off, n, CELLS_TINY)
				   : add_packed(sk, at, off, n, CELLS_NARROW);
	/* A bucket is full: the general path widens the sketch. */
	if (i < n)
		sketch_insert32(s, v + i, n - i);
}

/* Move the exact samples of @s into a new sketch.  Return: false if out of memory. */
static bool to_sketch(struct vma_cycles *s)
{
	struct vma_cycles_sketch *sk = calloc(1, sizeof(*sk));
	uint64_t chunk[PENDING];
	void *exact = s->u.exact32;
	bool wide = s->wide;
	uint32_t n = s->n, i, j, k;

	if (!sk)
		return false;
	sk->min = UINT64_MAX;
	s->u.sketch = sk;
	s->sketch = 1;
	s->wide = 0;
	s->n = 0;
	for (i = 0; i < n; i += k) {
		k = n - i < PENDING ? n - i : PENDING;
		for (j = 0; j < k; j++)
			chunk[j] = wide ? ((uint64_t *)exact)[i + j] : ((uint32_t *)exact)[i + j];
		sketch_insert(s, chunk, k);
	}
	free(exact);
	return true;
}

/* ---- exact samples ---- */

/* Make room for @need exact samples of @width bytes; @need <= the exact limit. */
static bool exact_reserve(struct vma_cycles *s, uint32_t need, size_t width)
{
	void *p;

	if (need <= exact_cap(s->n) && s->u.exact32 && width == exact_size(s))
		return true;
	p = realloc(s->u.exact32, width * exact_cap(need > s->n ? need : s->n));
	if (!p)
		return false;
	s->u.exact32 = p;
	return true;
}

/* Store exact samples in 64 bits from now on.  Return: false if out of memory. */
static bool exact_widen(struct vma_cycles *s)
{
	uint32_t i;

	if (s->wide)
		return true;
	if (s->u.exact32) {
		if (!exact_reserve(s, s->n, sizeof(uint64_t)))
			return false;
		/* In place, from the end: each 64-bit slot covers its 32-bit source or later. */
		for (i = s->n; i-- > 0;)
			s->u.exact64[i] = s->u.exact32[i];
	}
	s->wide = 1;
	return true;
}

static void exact_store(struct vma_cycles *s, uint64_t v)
{
	s->sorted = 0;
	if (s->wide) {
		s->u.exact64[s->n++] = v;
	} else {
		s->u.exact32[s->n++] = (uint32_t)v;
	}
}

/* Exact mode with a full (or absent) array, or a value too large: the slow cases. */
static __attribute__((noinline)) void add_slow(struct vma_cycles *s, uint64_t v)
{
	if (s->n < exact_limit(s)) {
		if ((v <= UINT32_MAX || exact_widen(s)) &&
		    exact_reserve(s, s->n + 1, exact_size(s))) {
			exact_store(s, v);
			return;
		}
	} else if (to_sketch(s)) {
		if (v <= UINT32_MAX) {
			s->u.sketch->pending[s->n++] = (uint32_t)v;
		} else {
			sketch_insert(s, &v, 1);
		}
		return;
	}
	s->failed = 1;
}

void vma_cycles_add(struct vma_cycles *s, uint64_t v)
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
			sketch_insert_one(s, v);
			return;
		}
		s->u.sketch->pending[n++] = (uint32_t)v;
		s->n = n;
		if (n == PENDING)
			vma_cycles_sketch_flush(s);
		return;
	}
	/* Room left unless n is 0 with no array, or a capacity (exact_cap()). */
	if (n < EXACT_MIN_CAP ? s->u.exact32 != NULL : !exact_full(n)) {
		s->sorted = 0;
		if (!s->wide) {
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
	add_slow(s, v);
}

/* ---- merging ---- */

/* Add bucket @b of @src to @dst, whose page for it is allocated. */
static bool cell_merge(struct vma_cycles_sketch *dst, const struct vma_cycles_sketch *src,
		       uint32_t b)
{
	uint64_t count = cell_count(src, b), off;
	uint32_t at = cell_at(dst, b);

	if (!count)
		return true;
	off = cell_sum(src, b) - count * bucket_lo(b);
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
		if (!widen(dst))
			return false;
	}
	((struct wcell *)dst->cells)[at].count += count;
	((struct wcell *)dst->cells)[at].sum += cell_sum(src, b);
	return true;
}

/* Add the buckets (not the pending values) of @src to @s's sketch. */
static bool sketch_merge(struct vma_cycles *s, const struct vma_cycles_sketch *src)
{
	struct vma_cycles_sketch *dst = s->u.sketch;
	uint32_t p, b;

	if (src->max == 0)
		return true;
	while (dst->kind < src->kind) {
		if (!widen(dst))
			return false;
	}
	for (p = 0; p < NPAGES; p++) {
		if (!src->page[p])
			continue;
		if (!page_in(dst, p * PAGE))
			return false;
		for (b = p * PAGE; b < (p + 1) * PAGE; b++) {
			if (!cell_merge(dst, src, b))
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
static void sketch_insert_exact(struct vma_cycles *s, const struct vma_cycles *src)
{
	uint64_t chunk[PENDING];
	uint32_t i, j, k;

	for (i = 0; i < src->n; i += k) {
		k = src->n - i < PENDING ? src->n - i : PENDING;
		for (j = 0; j < k; j++)
			chunk[j] = exact_at(src, i + j);
		sketch_insert(s, chunk, k);
	}
}

int vma_cycles_merge_samples(struct vma_cycles *dst, const struct vma_cycles *src)
{
	uint8_t failed = dst->failed | src->failed;
	uint32_t i;

	/* From here, dst->failed tells whether this merge dropped samples. */
	dst->failed = 0;
	if (!dst->sketch && !src->sketch) {
		uint64_t need = (uint64_t)dst->n + src->n;

		if (src->n == 0) {
			dst->failed = failed;
			return 0;
		}
		if (need <= exact_limit(dst)) {
			if ((src->wide && !exact_widen(dst)) ||
			    !exact_reserve(dst, (uint32_t)need, exact_size(dst))) {
				dst->failed = 1;
				return VMA_ERR_NOMEM;
			}
			if (dst->wide == src->wide) {
				memcpy((char *)dst->u.exact32 + exact_size(dst) * dst->n,
				       src->u.exact32, exact_size(src) * src->n);
				dst->n = (uint32_t)need;
				dst->sorted = 0;
			} else {
				for (i = 0; i < src->n; i++)
					exact_store(dst, exact_at(src, i));
			}
			dst->failed = failed;
			return 0;
		}
	}
	if (!dst->sketch && !to_sketch(dst)) {
		dst->failed = 1;
		return VMA_ERR_NOMEM;
	}
	if (src->sketch) {
		if (!sketch_merge(dst, src->u.sketch))
			dst->failed = 1;
		sketch_insert32(dst, src->u.sketch->pending, src->n);
	} else {
		sketch_insert_exact(dst, src);
	}
	if (dst->failed)
		return VMA_ERR_NOMEM;
	dst->failed = failed;
	return 0;
}

int vma_cycles_merge(struct vma_cycles *dst, const struct vma_cycles *src)
{
	dst->events += src->events;
	dst->count += src->count;
	dst->cycles += src->cycles;
	return vma_cycles_merge_samples(dst, src);
}
