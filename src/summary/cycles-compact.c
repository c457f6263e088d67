/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The compact form of a cycle summary (contract in vmalyze/cycles.h,
 * layout in cycles-internal.h): what summaries become once their budget
 * passed its last level, where neither a sketch (408 bytes of header,
 * sized for 64 buckets per power of two, and a page of 16 buckets) nor an
 * exact array of a hundred samples is small enough.  A compact summary is
 * the list of its non-empty buckets at 4 buckets per power of two or
 * fewer, with their counts and exact sums: 24 bytes and 4 per bucket (8,
 * 16 once the counts or sums of a bucket need it), so what it costs grows
 * with the range of its values (at most 252 buckets), never with their
 * number.
 *
 * Why buckets with their sums rather than counts alone: a time-weighted
 * percentile needs the bucket where the cumulative time crosses its target
 * found exactly, or its answer may land on the other side of any gap in
 * the distribution; with the sums, both kinds of percentile are within
 * the bucket's half-width, as a sketch's are.  Why a sorted list: the
 * distributions past the last level are narrow (a few to a few tens of
 * buckets), so a binary search is as fast as a directory and costs none
 * of its memory.  Adding a value is a search and an increment; a new
 * bucket moves the entries after it and grows the list when it is full,
 * by whole 16-byte steps of malloc (4 entries of 4 bytes, 2 of 8, 1 of 16).
 *
 * Everything here is off the per-value path of a summary below its
 * budget: vma_cycles_add() reaches this file only for compact summaries.
 */
#include <stdlib.h>
#include <string.h>

#include "cycles-internal.h"
#include "vmalyze/cycles.h"
#include "vmalyze/status.h"

/* The most buckets a compact form can have (at 4 per power of two). */
#define COMPACT_MAX_BUCKETS 252u

_Static_assert(((64u - COMPACT_BITS_MAX + 1) << COMPACT_BITS_MAX) == COMPACT_MAX_BUCKETS,
	       "a compact bucket number must fit in 8 bits");
_Static_assert(sizeof(struct vma_cycles_compact) == 24,
	       "cycles.h states the size of a compact form");

static void compact_charge(struct vma_cycles_budget *b, size_t bytes)
{
	if (b) {
		vma_cycles_charge(b, bytes);
		b->compact_used += bytes;
	}
}

static void compact_credit(struct vma_cycles_budget *b, size_t bytes)
{
	if (b) {
		vma_cycles_credit(b, bytes);
		b->compact_used -= bytes;
	}
}

/* The smallest kind of entry that holds @count values whose offsets sum to @off. */
static unsigned int kind_for(uint64_t count, uint64_t off)
{
	if (count <= CT_COUNT_MAX && off <= CT_OFF_MASK)
		return COMPACT_TINY;
	if (count <= CN_COUNT_MAX && off <= CN_OFF_MASK)
		return COMPACT_NARROW;
	return COMPACT_WIDE;
}

/* Entries @kind's room comes in: whole 16-byte steps of malloc. */
static uint32_t room_for(uint32_t nr, unsigned int kind)
{
	uint32_t step = kind == COMPACT_TINY ? 4 : kind == COMPACT_NARROW ? 2 : 1;

	nr = (nr + step - 1) / step * step;
	return nr < COMPACT_MAX_BUCKETS ? nr : COMPACT_MAX_BUCKETS;
}

/* Store bucket @b (@count values summing to @sum) as entry @i of @c, of @c's kind. */
static void entry_store(struct vma_cycles_compact *c, uint32_t i, uint32_t b, uint64_t count,
			uint64_t sum)
{
	uint64_t off = sum - count * bucket_lo(b, c->bits);

	if (c->kind == COMPACT_TINY) {
		((uint32_t *)c->e)[i] = b << 24 | (uint32_t)count << CT_COUNT_SHIFT | (uint32_t)off;
	} else if (c->kind == COMPACT_NARROW) {
		c->e[i] = (uint64_t)b << 56 | count << CN_COUNT_SHIFT | off;
	} else {
		c->e[2 * i] = (uint64_t)b << 56 | count;
		c->e[2 * i + 1] = sum;
	}
}

/*
 * Resize @s's compact form to room for @cap entries of @kind (no smaller
 * a kind than its own: entries converted in place when it is larger).
 * Return: false if out of memory (unchanged).
 */
static bool compact_resize(struct vma_cycles *s, uint32_t cap, unsigned int kind,
			   struct vma_cycles_budget *b)
{
	struct vma_cycles_compact *c = s->u.compact, *n;
	size_t old = compact_held(c);
	unsigned int was = c->kind;
	uint32_t i;

	if (kind < was)
		kind = was;
	cap = room_for(cap < c->nr ? c->nr : cap, kind);
	n = realloc(c, sizeof(*c) + compact_kind_size(kind) * cap);
	if (!n)
		return false;
	/* From the end: entry i in the larger kind lies at or after where it was. */
	for (i = n->nr; kind != was && i-- > 0;) {
		uint32_t bk = compact_bucket(n, i);
		uint64_t count = compact_count(n, i), sum = compact_sum(n, i);

		n->kind = (uint8_t)kind;
		entry_store(n, i, bk, count, sum);
		n->kind = (uint8_t)was;
	}
	n->kind = (uint8_t)kind;
	n->cap = (uint8_t)cap;
	s->u.compact = n;
	compact_credit(b, old);
	compact_charge(b, compact_held(n));
	return true;
}

/* The first entry of @c whose bucket is @b or above (c->nr when none). */
static uint32_t entry_find(const struct vma_cycles_compact *c, uint32_t b)
{
	uint32_t lo = 0, hi = c->nr;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (compact_bucket(c, mid) < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Add @count values summing to @sum to bucket @b of @s's compact form
 * (@b at its resolution).  Return: false if out of memory (not added).
 */
static bool compact_put(struct vma_cycles *s, uint32_t b, uint64_t count, uint64_t sum,
			struct vma_cycles_budget *bud)
{
	struct vma_cycles_compact *c = s->u.compact;
	uint64_t lo = bucket_lo(b, c->bits);
	uint32_t i = entry_find(c, b);
	unsigned int kind;
	size_t esz;

	if (i < c->nr && compact_bucket(c, i) == b) {
		count += compact_count(c, i);
		sum += compact_sum(c, i);
		kind = kind_for(count, sum - count * lo);
		if (kind > c->kind && !compact_resize(s, c->cap, kind, bud))
			return false;
		entry_store(s->u.compact, i, b, count, sum);
		return true;
	}
	kind = kind_for(count, sum - count * lo);
	if (c->nr == c->cap || kind > c->kind) {
		if (!compact_resize(s, c->nr + 1u, kind, bud))
			return false;
		c = s->u.compact;
	}
	esz = compact_kind_size(c->kind);
	memmove((char *)c->e + esz * (i + 1), (char *)c->e + esz * i, esz * (c->nr - i));
	c->nr++;
	entry_store(c, i, b, count, sum);
	return true;
}

static void note_extremes(struct vma_cycles_compact *c, uint64_t lo, uint64_t hi)
{
	if (lo < c->min)
		c->min = lo;
	if (hi > c->max)
		c->max = hi;
}

/* One bucket of a table of every bucket at a compact resolution. */
struct tally {
	uint64_t count, sum;
};

/*
 * A new compact form at 2^@bits buckets per power of two holding the
 * buckets of @t (COMPACT_MAX_BUCKETS of them), with extremes @min, @max.
 */
static struct vma_cycles_compact *compact_build(const struct tally *t, unsigned int bits,
						uint64_t min, uint64_t max)
{
	struct vma_cycles_compact *c;
	unsigned int kind = COMPACT_TINY;
	uint32_t b, nr = 0, i = 0;

	for (b = 0; b < COMPACT_MAX_BUCKETS; b++) {
		if (t[b].count) {
			unsigned int k = kind_for(t[b].count,
						  t[b].sum - t[b].count * bucket_lo(b, bits));

			nr++;
			kind = k > kind ? k : kind;
		}
	}
	nr = room_for(nr, kind); /* room for more, at no cost in malloc's steps */
	c = malloc(sizeof(*c) + compact_kind_size(kind) * nr);
	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->cap = (uint8_t)nr;
	c->bits = (uint8_t)bits;
	c->kind = (uint8_t)kind;
	c->min = min;
	c->max = max;
	for (b = 0; b < COMPACT_MAX_BUCKETS; b++) {
		if (t[b].count)
			entry_store(c, i++, b, t[b].count, t[b].sum);
	}
	c->nr = (uint8_t)i;
	return c;
}

/* Sum the buckets of sketch @sk and its @n pending values into @t at @bits. */
static void tally_sketch(struct tally *t, const struct vma_cycles_sketch *sk, uint32_t n,
			 unsigned int bits)
{
	uint32_t bk, i;

	for (bk = next_bucket(sk, 0); bk < NPAGES * PAGE; bk = next_bucket(sk, bk + 1)) {
		uint32_t to = bucket_of(bucket_lo(bk, sk->bits), bits);

		t[to].count += paged_count(sk, bk);
		t[to].sum += paged_sum(sk, bk);
	}
	for (i = 0; i < n; i++) {
		t[bucket_of(sk->pending[i], bits)].count++;
		t[bucket_of(sk->pending[i], bits)].sum += sk->pending[i];
	}
}

bool vma_cycles_to_compact(struct vma_cycles *s, unsigned int bits, struct vma_cycles_budget *b)
{
	struct tally t[COMPACT_MAX_BUCKETS];
	struct vma_cycles_compact *c;
	uint64_t min = vma_cycles_min(s), max = vma_cycles_max(s);
	size_t held = held_bytes(s);
	uint32_t i;

	if (is_compact(s))
		return vma_cycles_compact_collapse(s, bits, b);
	if (bits > COMPACT_BITS_MAX)
		bits = COMPACT_BITS_MAX;
	memset(t, 0, sizeof(t));
	if (s->sketch) {
		tally_sketch(t, s->u.sketch, s->n, bits);
	} else {
		for (i = 0; i < s->n; i++) {
			uint64_t v = exact_at(s, i);

			t[bucket_of(v, bits)].count++;
			t[bucket_of(v, bits)].sum += v;
		}
	}
	c = compact_build(t, bits, max ? min : UINT64_MAX, max);
	if (!c)
		return false;
	vma_cycles_free_samples(s, b);
	vma_cycles_credit(b, held);
	s->u.compact = c;
	s->sketch = 0;
	s->form = FORM_COMPACT;
	s->sorted = 0;
	s->n = 0;
	compact_charge(b, compact_held(c));
	return true;
}

bool vma_cycles_compact_collapse(struct vma_cycles *s, unsigned int bits,
				 struct vma_cycles_budget *b)
{
	struct tally t[COMPACT_MAX_BUCKETS];
	struct vma_cycles_compact *c = s->u.compact, *n;
	uint32_t i;

	if (bits >= c->bits)
		return true;
	memset(t, 0, sizeof(t));
	for (i = 0; i < c->nr; i++) {
		uint32_t to = bucket_of(bucket_lo(compact_bucket(c, i), c->bits), bits);

		t[to].count += compact_count(c, i);
		t[to].sum += compact_sum(c, i);
	}
	n = compact_build(t, bits, c->min, c->max);
	if (!n)
		return false;
	compact_credit(b, compact_held(c));
	free(c);
	s->u.compact = n;
	compact_charge(b, compact_held(n));
	return true;
}

/* The resolution a compact summary of @b is kept at: the budget's once it goes below. */
static bool follow_budget(struct vma_cycles *s, struct vma_cycles_budget *b)
{
	return !b || s->u.compact->bits <= b->bits || vma_cycles_compact_collapse(s, b->bits, b);
}

bool vma_cycles_compact_add(struct vma_cycles *s, uint64_t v, struct vma_cycles_budget *b)
{
	uint32_t bk;

	if (!follow_budget(s, b))
		return false;
	bk = bucket_of(v, s->u.compact->bits);
	if (!compact_put(s, bk, 1, v, b))
		return false;
	note_extremes(s->u.compact, v, v);
	return true;
}

bool vma_cycles_compact_merge(struct vma_cycles *dst, const struct vma_cycles *src,
			      struct vma_cycles_budget *b)
{
	unsigned int bits;
	bool ok = true;
	uint32_t i;

	if (!follow_budget(dst, b))
		return false;
	if (is_compact(src) && src->u.compact->bits < dst->u.compact->bits &&
	    !vma_cycles_compact_collapse(dst, src->u.compact->bits, b)) {
		return false;
	}
	bits = dst->u.compact->bits;
	if (is_compact(src)) {
		const struct vma_cycles_compact *c = src->u.compact;

		for (i = 0; i < c->nr && ok; i++) {
			uint32_t to = bucket_of(bucket_lo(compact_bucket(c, i), c->bits), bits);

			ok = compact_put(dst, to, compact_count(c, i), compact_sum(c, i), b);
		}
	} else if (src->sketch) {
		struct tally t[COMPACT_MAX_BUCKETS];

		memset(t, 0, sizeof(t));
		tally_sketch(t, src->u.sketch, src->n, bits);
		for (i = 0; i < COMPACT_MAX_BUCKETS && ok; i++) {
			if (t[i].count)
				ok = compact_put(dst, i, t[i].count, t[i].sum, b);
		}
	} else {
		for (i = 0; i < src->n && ok; i++) {
			uint64_t v = exact_at(src, i);

			ok = compact_put(dst, bucket_of(v, bits), 1, v, b);
		}
	}
	if (vma_cycles_max(src))
		note_extremes(dst->u.compact, vma_cycles_min(src), vma_cycles_max(src));
	return ok;
}
