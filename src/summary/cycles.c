/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cycle summaries (contract and rationale in vmalyze/cycles.h): exact samples
 * while a summary is small, a log-linear bucket sketch once it grows, count-
 * and time-weighted quantiles from either, merging and log-scale histograms.
 *
 * Sketch layout.  Group 0 holds the values 0..63, one bucket each.  Group
 * g >= 1 holds [2^(g+5), 2^(g+6)) in 64 buckets of width 2^(g-1), so the
 * bucket of v is found from the position of its top bit and the six bits
 * below it: no division, no logarithm.  Every group is allocated on first
 * use.  Each bucket keeps the exact sum of its values next to its count, so
 * the bucket where a time-weighted quantile falls is found exactly, as for
 * a count-weighted one; only the position inside the bucket is estimated.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/cycles.h"
#include "vmalyze/status.h"

#define SUB VMA_CYCLES_SKETCH_SUB
#define SUB_BITS 6
#define NGROUPS (64 - SUB_BITS + 1) /* group 58 ends at 2^64 */
#define EXACT_MIN_CAP 4u
#define EXACT_DEFAULT_CODE 11 /* 1 << 10 == VMA_CYCLES_EXACT_DEFAULT */

_Static_assert(SUB == 1u << SUB_BITS, "sketch resolution and its bit count disagree");
_Static_assert(VMA_CYCLES_EXACT_DEFAULT == 1u << (EXACT_DEFAULT_CODE - 1),
	       "default exact limit and its code disagree");

struct cell {
	uint64_t count;
	uint64_t sum;
};

struct group {
	struct cell cell[SUB];
};

struct vma_cycles_sketch {
	uint64_t min;
	uint64_t max;
	struct group *group[NGROUPS];
};

static inline unsigned int top_bit(uint64_t v)
{
	return 63 - (unsigned int)__builtin_clzll(v);
}

static inline unsigned int ceil_log2(uint64_t v)
{
	return v <= 1 ? 0 : top_bit(v - 1) + 1;
}

/* Sketch bucket of @v: returns the group, sets *@sub to the bucket in it. */
static inline unsigned int bucket_of(uint64_t v, unsigned int *sub)
{
	unsigned int e;

	if (v < SUB) {
		*sub = (unsigned int)v;
		return 0;
	}
	e = top_bit(v);
	*sub = (unsigned int)(v >> (e - SUB_BITS)) & (SUB - 1);
	return e - SUB_BITS + 1;
}

static inline uint64_t bucket_lo(unsigned int g, unsigned int sub)
{
	return g ? (uint64_t)(SUB + sub) << (g - 1) : sub;
}

static inline uint64_t bucket_width(unsigned int g)
{
	return g ? (uint64_t)1 << (g - 1) : 1;
}

static uint32_t exact_limit(const struct vma_cycles *s)
{
	unsigned int code = s->limit_code ? s->limit_code : EXACT_DEFAULT_CODE;

	return (uint32_t)1 << (code - 1);
}

/* Slots allocated for @n exact samples (see struct vma_cycles). */
static inline uint32_t exact_cap(uint32_t n)
{
	if (n <= EXACT_MIN_CAP) {
		return EXACT_MIN_CAP;
	}
	return (uint32_t)1 << ceil_log2(n);
}

void vma_cycles_init(struct vma_cycles *s, uint32_t exact_limit_wanted)
{
	memset(s, 0, sizeof(*s));
	if (exact_limit_wanted == 0) {
		return;
	}
	if (exact_limit_wanted > VMA_CYCLES_EXACT_MAX) {
		exact_limit_wanted = VMA_CYCLES_EXACT_MAX;
	}
	if (exact_limit_wanted < EXACT_MIN_CAP) {
		exact_limit_wanted = EXACT_MIN_CAP; /* the smallest array holds 4 */
	}
	s->limit_code = (uint8_t)(ceil_log2(exact_limit_wanted) + 1);
}

static void sketch_free(struct vma_cycles_sketch *sk)
{
	unsigned int g;

	for (g = 0; g < NGROUPS; g++) {
		free(sk->group[g]);
	}
	free(sk);
}

void vma_cycles_release(struct vma_cycles *s)
{
	uint8_t code = s->limit_code;

	if (s->sketch) {
		sketch_free(s->u.sketch);
	} else {
		free(s->u.exact);
	}
	memset(s, 0, sizeof(*s));
	s->limit_code = code;
}

/*
 * Put @v into the sketch.  On allocation failure the value is lost to the
 * buckets (the caller's counters still have it) and false is returned.
 */
static bool sketch_put(struct vma_cycles_sketch *sk, uint64_t v)
{
	unsigned int sub, g = bucket_of(v, &sub);
	struct group *grp = sk->group[g];

	if (__builtin_expect(!grp, 0)) {
		grp = calloc(1, sizeof(*grp));
		if (!grp) {
			return false;
		}
		sk->group[g] = grp;
	}
	grp->cell[sub].count++;
	grp->cell[sub].sum += v;
	if (v < sk->min) {
		sk->min = v;
	}
	if (v > sk->max) {
		sk->max = v;
	}
	return true;
}

/* Move the exact samples of @s into a new sketch.  Return: false if out of memory. */
static bool to_sketch(struct vma_cycles *s)
{
	struct vma_cycles_sketch *sk = calloc(1, sizeof(*sk));
	uint32_t i;

	if (!sk) {
		return false;
	}
	sk->min = UINT64_MAX;
	for (i = 0; i < s->n; i++) {
		if (!sketch_put(sk, s->u.exact[i])) {
			s->failed = 1;
		}
	}
	free(s->u.exact);
	s->u.sketch = sk;
	s->n = 0;
	s->sketch = 1;
	return true;
}

/* Make room for @need exact samples; @need <= the exact limit. */
static bool exact_reserve(struct vma_cycles *s, uint32_t need)
{
	uint64_t *p;

	if (need <= exact_cap(s->n) && s->u.exact) {
		return true;
	}
	p = realloc(s->u.exact, sizeof(*p) * exact_cap(need));
	if (!p) {
		return false;
	}
	s->u.exact = p;
	return true;
}

/* Exact mode with a full (or absent) array: grow it, or become a sketch. */
static void add_slow(struct vma_cycles *s, uint64_t v)
{
	if (s->n < exact_limit(s)) {
		if (exact_reserve(s, s->n + 1)) {
			s->u.exact[s->n++] = v;
			return;
		}
	} else if (to_sketch(s)) {
		if (!sketch_put(s->u.sketch, v)) {
			s->failed = 1;
		}
		return;
	}
	s->failed = 1;
}

void vma_cycles_add(struct vma_cycles *s, uint64_t v)
{
	uint32_t n;

	s->events++;
	if (!v) {
		return;
	}
	s->count++;
	s->cycles += v;
	if (s->sketch) {
		if (__builtin_expect(!sketch_put(s->u.sketch, v), 0)) {
			s->failed = 1;
		}
		return;
	}
	/* Room left unless n is 0 with no array, or a power of two >= 4. */
	n = s->n;
	if (n < EXACT_MIN_CAP ? s->u.exact != NULL : (n & (n - 1)) != 0) {
		s->u.exact[n] = v;
		s->n = n + 1;
		return;
	}
	add_slow(s, v);
}

static bool sketch_merge(struct vma_cycles_sketch *dst, const struct vma_cycles_sketch *src)
{
	bool ok = true;
	unsigned int g, i;

	for (g = 0; g < NGROUPS; g++) {
		const struct group *sg = src->group[g];
		struct group *dg = dst->group[g];

		if (!sg) {
			continue;
		}
		if (!dg) {
			dg = malloc(sizeof(*dg));
			if (!dg) {
				ok = false;
				continue;
			}
			memcpy(dg, sg, sizeof(*dg));
			dst->group[g] = dg;
			continue;
		}
		for (i = 0; i < SUB; i++) {
			dg->cell[i].count += sg->cell[i].count;
			dg->cell[i].sum += sg->cell[i].sum;
		}
	}
	if (src->min < dst->min) {
		dst->min = src->min;
	}
	if (src->max > dst->max) {
		dst->max = src->max;
	}
	return ok;
}

int vma_cycles_merge(struct vma_cycles *dst, const struct vma_cycles *src)
{
	bool ok = true;
	uint32_t i;

	dst->events += src->events;
	dst->count += src->count;
	dst->cycles += src->cycles;
	if (src->failed) {
		dst->failed = 1;
	}

	if (!dst->sketch && !src->sketch) {
		uint64_t need = (uint64_t)dst->n + src->n;

		if (src->n == 0) {
			return 0;
		}
		if (need <= exact_limit(dst)) {
			if (!exact_reserve(dst, (uint32_t)need)) {
				dst->failed = 1;
				return VMA_ERR_NOMEM;
			}
			memcpy(dst->u.exact + dst->n, src->u.exact, sizeof(uint64_t) * src->n);
			dst->n = (uint32_t)need;
			return 0;
		}
	}
	if (!dst->sketch && !to_sketch(dst)) {
		dst->failed = 1;
		return VMA_ERR_NOMEM;
	}
	if (src->sketch) {
		ok = sketch_merge(dst->u.sketch, src->u.sketch);
	} else {
		for (i = 0; i < src->n; i++) {
			ok &= sketch_put(dst->u.sketch, src->u.exact[i]);
		}
	}
	if (!ok) {
		dst->failed = 1;
		return VMA_ERR_NOMEM;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void exact_sort(struct vma_cycles *s)
{
	uint32_t i;

	for (i = 1; i < s->n; i++) {
		if (s->u.exact[i - 1] > s->u.exact[i]) {
			qsort(s->u.exact, s->n, sizeof(uint64_t), cmp_u64);
			return;
		}
	}
}

/* floor(total * num / den), or UINT64_MAX meaning "past the end" when num >= den. */
static uint64_t target(unsigned __int128 total, uint32_t num, uint32_t den)
{
	if (num >= den) {
		return UINT64_MAX;
	}
	return (uint64_t)(total * num / den);
}

static uint64_t exact_quantile(struct vma_cycles *s, enum vma_cycles_weight weight,
			       uint32_t num, uint32_t den)
{
	unsigned __int128 sum = 0;
	uint64_t k;
	uint32_t i;

	exact_sort(s);
	if (weight == VMA_CYCLES_BY_COUNT) {
		k = target(s->n, num, den);
		return s->u.exact[k < s->n ? k : s->n - 1];
	}
	for (i = 0; i < s->n; i++) {
		sum += s->u.exact[i];
	}
	k = target(sum, num, den);
	sum = 0;
	for (i = 0; i < s->n; i++) {
		sum += s->u.exact[i];
		if (sum > k) {
			return s->u.exact[i];
		}
	}
	return s->u.exact[s->n - 1];
}

static inline uint64_t cell_weight(const struct cell *c, enum vma_cycles_weight weight)
{
	return weight == VMA_CYCLES_BY_COUNT ? c->count : c->sum;
}

static uint64_t sketch_quantile(const struct vma_cycles_sketch *sk, enum vma_cycles_weight weight,
				uint32_t num, uint32_t den)
{
	unsigned __int128 total = 0, cum = 0;
	unsigned int g, i;
	uint64_t k, mid;

	for (g = 0; g < NGROUPS; g++) {
		if (!sk->group[g]) {
			continue;
		}
		for (i = 0; i < SUB; i++) {
			total += cell_weight(&sk->group[g]->cell[i], weight);
		}
	}
	if (total == 0) {
		return 0;
	}
	k = target(total, num, den);
	for (g = 0; g < NGROUPS; g++) {
		if (!sk->group[g]) {
			continue;
		}
		for (i = 0; i < SUB; i++) {
			cum += cell_weight(&sk->group[g]->cell[i], weight);
			if (cum > k) {
				mid = bucket_lo(g, i) + (bucket_width(g) - 1) / 2;
				if (mid < sk->min) {
					return sk->min;
				}
				return mid > sk->max ? sk->max : mid;
			}
		}
	}
	return sk->max;
}

uint64_t vma_cycles_quantile(struct vma_cycles *s, enum vma_cycles_weight weight,
			     uint32_t num, uint32_t den)
{
	if (den == 0) {
		return 0;
	}
	if (s->sketch) {
		return sketch_quantile(s->u.sketch, weight, num, den);
	}
	if (s->n == 0) {
		return 0;
	}
	return exact_quantile(s, weight, num, den);
}

uint64_t vma_cycles_min(const struct vma_cycles *s)
{
	uint64_t m;
	uint32_t i;

	if (s->sketch) {
		return s->u.sketch->max ? s->u.sketch->min : 0;
	}
	if (s->n == 0) {
		return 0;
	}
	m = s->u.exact[0];
	for (i = 1; i < s->n; i++) {
		if (s->u.exact[i] < m) {
			m = s->u.exact[i];
		}
	}
	return m;
}

uint64_t vma_cycles_max(const struct vma_cycles *s)
{
	uint64_t m = 0;
	uint32_t i;

	if (s->sketch) {
		return s->u.sketch->max;
	}
	for (i = 0; i < s->n; i++) {
		if (s->u.exact[i] > m) {
			m = s->u.exact[i];
		}
	}
	return m;
}

/*
 * Histogram bins with 2^@k per octave: values below 2^k get a bin each
 * (index v - 1); octave e >= k is cut into 2^k bins of width 2^(e-k).
 */
static size_t bin_index(uint64_t v, unsigned int k)
{
	unsigned int e;

	if (v < ((uint64_t)1 << k)) {
		return (size_t)(v - 1);
	}
	e = top_bit(v);
	return ((size_t)1 << k) - 1 + ((size_t)(e - k) << k) +
	       (size_t)((v - ((uint64_t)1 << e)) >> (e - k));
}

static void bin_bounds(size_t idx, unsigned int k, struct vma_cycles_bin *b)
{
	size_t first = ((size_t)1 << k) - 1, j, r;
	unsigned int e;
	uint64_t w;

	if (idx < first) {
		b->lo = idx + 1;
		b->hi = idx + 2;
		return;
	}
	j = idx - first;
	e = k + (unsigned int)(j >> k);
	r = j & (((size_t)1 << k) - 1);
	w = (uint64_t)1 << (e - k);
	b->lo = ((uint64_t)1 << e) + r * w;
	b->hi = b->lo + w;
	if (b->hi < b->lo) {
		b->hi = UINT64_MAX; /* the bin ending at 2^64 */
	}
}

int vma_cycles_histogram(const struct vma_cycles *s, unsigned int per_octave,
			 struct vma_cycles_bin **bins, size_t *nbins)
{
	struct vma_cycles_bin *b;
	unsigned int k = 0, g, i;
	size_t first, n, idx;
	uint64_t lo, hi;

	*bins = NULL;
	*nbins = 0;
	while (k < SUB_BITS && (2u << k) <= per_octave) {
		k++;
	}
	if (s->sketch ? s->u.sketch->max == 0 : s->n == 0) {
		return 0;
	}
	lo = vma_cycles_min(s);
	hi = vma_cycles_max(s);
	first = bin_index(lo, k);
	n = bin_index(hi, k) - first + 1;
	b = calloc(n, sizeof(*b));
	if (!b) {
		return VMA_ERR_NOMEM;
	}
	for (idx = 0; idx < n; idx++) {
		bin_bounds(first + idx, k, &b[idx]);
	}
	if (!s->sketch) {
		for (i = 0; i < s->n; i++) {
			idx = bin_index(s->u.exact[i], k) - first;
			b[idx].count++;
			b[idx].cycles += s->u.exact[i];
		}
	} else {
		/* A bucket never straddles a bin: bins are at least as wide and aligned. */
		for (g = 0; g < NGROUPS; g++) {
			const struct group *grp = s->u.sketch->group[g];

			for (i = 0; grp && i < SUB; i++) {
				if (!grp->cell[i].count) {
					continue;
				}
				idx = bin_index(bucket_lo(g, i), k) - first;
				b[idx].count += grp->cell[i].count;
				b[idx].cycles += grp->cell[i].sum;
			}
		}
	}
	*bins = b;
	*nbins = n;
	return 0;
}
