/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cycle summaries, the reading side (contract in vmalyze/cycles.h, layout
 * in cycles.c): sorting exact samples, count- and time-weighted quantiles
 * from either mode, minimum, maximum and log-scale histograms.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cycles-internal.h"
#include "vmalyze/cycles.h"
#include "vmalyze/status.h"

/*
 * Sort @n keys of @width bytes ascending: least-significant-digit radix
 * sort, 8 bits a pass, skipping the passes where every key has the same
 * digit (most of them: cycle counts are small).  The digits of every pass
 * are counted in one read of the keys.  @tmp has room for @n keys.
 */
static inline __attribute__((always_inline)) void radix_sort(void *keys, void *tmp, uint32_t n,
								 size_t width)
{
	uint32_t count[8][256];
	unsigned int pass, shift;
	void *src = keys, *dst = tmp, *t;
	uint32_t i, sum;

	memset(count, 0, width * sizeof(count[0]));
	for (i = 0; i < n; i++) {
		uint64_t k = width == 8 ? ((uint64_t *)src)[i] : ((uint32_t *)src)[i];

#pragma GCC unroll 8
		for (pass = 0; pass < width; pass++)
			count[pass][(k >> 8 * pass) & 0xff]++;
	}
	for (pass = 0; pass < width; pass++) {
		uint32_t *c = count[pass];

		shift = 8 * pass;
		if (c[width == 8 ? (((uint64_t *)src)[0] >> shift) & 0xff
				 : (((uint32_t *)src)[0] >> shift) & 0xff] == n) {
			continue;
		}
		for (i = 0, sum = 0; i < 256; i++) {
			uint32_t here = c[i];

			c[i] = sum;
			sum += here;
		}
		if (width == 8) {
			for (i = 0; i < n; i++) {
				uint64_t k = ((uint64_t *)src)[i];

				((uint64_t *)dst)[c[(k >> shift) & 0xff]++] = k;
			}
		} else {
			for (i = 0; i < n; i++) {
				uint32_t k = ((uint32_t *)src)[i];

				((uint32_t *)dst)[c[(k >> shift) & 0xff]++] = k;
			}
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != keys)
		memcpy(keys, src, width * n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * Sort @n keys of @width bytes ascending by insertion: for the few samples
 * of most summaries, where a radix sort's 256-entry counts cost more than
 * the keys.
 */
static void insertion_sort(void *keys, uint32_t n, size_t width)
{
	uint32_t i, j;

	for (i = 1; i < n; i++) {
		if (width == 8) {
			uint64_t *k = keys, key = k[i];

			for (j = i; j > 0 && k[j - 1] > key; j--)
				k[j] = k[j - 1];
			k[j] = key;
		} else {
			uint32_t *k = keys, key = k[i];

			for (j = i; j > 0 && k[j - 1] > key; j--)
				k[j] = k[j - 1];
			k[j] = key;
		}
	}
}

/* Below this many samples, an insertion sort is the cheaper. */
#define INSERTION_SORT_MAX 48u

static void exact_sort(struct vma_cycles *s)
{
	size_t width = exact_size(s);
	uint64_t stack_tmp[VMA_CYCLES_EXACT_DEFAULT];
	void *tmp = stack_tmp;
	uint32_t i;

	/* Quantiles come in threes or more: sort (or look) once. */
	if (s->sorted)
		return;
	s->sorted = 1;
	for (i = 1; i < s->n; i++) {
		if (exact_at(s, i - 1) > exact_at(s, i))
			break;
	}
	if (i >= s->n)
		return;
	if (s->n <= INSERTION_SORT_MAX) {
		insertion_sort(exact_keys(s), s->n, width);
		return;
	}
	if (width * s->n > sizeof(stack_tmp))
		tmp = malloc(width * s->n);
	if (tmp) {
		/* constant widths: the passes' loops unrolled */
		if (width == 8)
			radix_sort(exact_keys(s), tmp, s->n, 8);
		else
			radix_sort(exact_keys(s), tmp, s->n, 4);
	} else {
		qsort(exact_keys(s), s->n, width, exact_is64(s) ? cmp_u64 : cmp_u32);
	}
	if (tmp != stack_tmp)
		free(tmp);
}

/* floor(total * num / den), or UINT64_MAX meaning "past the end" when num >= den. */
static uint64_t target(unsigned __int128 total, uint32_t num, uint32_t den)
{
	if (num >= den)
		return UINT64_MAX;
	return (uint64_t)(total * num / den);
}

/*
 * The quantiles' targets: floor(@total * num[i] / @den), ascending as the
 * numerators are.  A walk that adds the weights in value order answers
 * target i at the first weight whose running sum passes it.
 */
static void targets(unsigned __int128 total, const uint32_t *num, uint32_t n, uint32_t den,
		    uint64_t *k)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		k[i] = target(total, num[i], den);
}

/* The targets from *@i on that running sum @cum passes get @value. */
static inline void answer(unsigned __int128 cum, const uint64_t *k, uint32_t n, uint32_t *i,
			  uint64_t value, uint64_t *out)
{
	for (; *i < n && cum > k[*i]; (*i)++)
		out[*i] = value;
}

static void exact_quantiles(struct vma_cycles *s, enum vma_cycles_weight weight,
			    const uint32_t *num, uint32_t n, uint32_t den, uint64_t *out)
{
	unsigned __int128 sum = 0;
	uint64_t k[VMA_CYCLES_QUANTILES_MAX];
	uint32_t i, q = 0;

	exact_sort(s);
	if (weight == VMA_CYCLES_BY_COUNT) {
		targets(s->n, num, n, den, k);
		for (q = 0; q < n; q++)
			out[q] = exact_at(s, k[q] < s->n ? (uint32_t)k[q] : s->n - 1);
		return;
	}
	for (i = 0; i < s->n; i++)
		sum += exact_at(s, i);
	targets(sum, num, n, den, k);
	sum = 0;
	for (i = 0; i < s->n && q < n; i++) {
		sum += exact_at(s, i);
		answer(sum, k, n, &q, exact_at(s, i), out);
	}
	for (; q < n; q++)
		out[q] = exact_at(s, s->n - 1);
}

/* The weights of the PAGE buckets of allocated page @p into @w: counts, or sums. */
static void page_weights(const struct vma_cycles_sketch *sk, uint32_t p,
			 enum vma_cycles_weight weight, uint64_t w[PAGE])
{
	uint32_t base = ((uint32_t)sk->page[p] - 1) * PAGE, j;
	uint64_t lo, width;

	if (sk->kind == CELLS_WIDE) {
		const struct wcell *c = (const struct wcell *)sk->cells + base;

		for (j = 0; j < PAGE; j++)
			w[j] = weight == VMA_CYCLES_BY_COUNT ? c[j].count : c[j].sum;
		return;
	}
	if (weight == VMA_CYCLES_BY_COUNT) {
		for (j = 0; j < PAGE; j++)
			w[j] = packed_count(sk, base + j);
		return;
	}
	lo = bucket_lo(p * PAGE, sk->bits);
	width = bucket_width(p * PAGE, sk->bits);
	for (j = 0; j < PAGE; j++) {
		/* Below 16 buckets per power of two a page spans groups: each its own bound. */
		uint64_t at = sk->bits >= 4 ? lo + j * width : bucket_lo(p * PAGE + j, sk->bits);

		w[j] = packed_count(sk, base + j) * at + packed_off(sk, base + j);
	}
}

/* Values not yet in the buckets: their buckets, ascending, and weights. */
struct pending_weights {
	uint32_t n;
	uint32_t bucket[PENDING];
	uint64_t w[PENDING];
};

static void pending_weights(const struct vma_cycles *s, enum vma_cycles_weight weight,
			    struct pending_weights *pw)
{
	const struct vma_cycles_sketch *sk = s->u.sketch;
	uint32_t i, j;

	pw->n = s->n;
	for (i = 0; i < s->n; i++) {
		uint32_t v = sk->pending[i], b = bucket_of(v, sk->bits);

		for (j = i; j > 0 && pw->bucket[j - 1] > b; j--) {
			pw->bucket[j] = pw->bucket[j - 1];
			pw->w[j] = pw->w[j - 1];
		}
		pw->bucket[j] = b;
		pw->w[j] = weight == VMA_CYCLES_BY_COUNT ? 1 : v;
	}
}

/*
 * The weights of page @p (allocated, or holding a pending value), the
 * pending values' included, from pending value *@q on (advanced past the
 * page's).
 */
static void weights_at(const struct vma_cycles_sketch *sk, const struct pending_weights *pw,
		       uint32_t *q, uint32_t p, enum vma_cycles_weight weight, uint64_t w[PAGE])
{
	if (sk->page[p])
		page_weights(sk, p, weight, w);
	else
		memset(w, 0, sizeof(*w) * PAGE);
	for (; *q < pw->n && pw->bucket[*q] / PAGE == p; (*q)++)
		w[pw->bucket[*q] % PAGE] += pw->w[*q];
}

/* The answer for bucket @b: its midpoint, clamped to [@lo, @hi]. */
static uint64_t bucket_answer(uint32_t b, unsigned int bits, uint64_t lo, uint64_t hi)
{
	uint64_t mid = bucket_lo(b, bits) + (bucket_width(b, bits) - 1) / 2;

	if (mid < lo)
		return lo;
	return mid > hi ? hi : mid;
}

/*
 * A sketch's quantiles, the values still pending counted where they will
 * go (reading allocates nothing, so a budget's charges stay the
 * summaries' memory; those whose page is missing stay pending).
 */
static void sketch_quantiles(const struct vma_cycles *s, enum vma_cycles_weight weight,
			     const uint32_t *num, uint32_t n, uint32_t den, uint64_t *out)
{
	const struct vma_cycles_sketch *sk = s->u.sketch;
	unsigned __int128 total = 0, cum = 0;
	uint64_t k[VMA_CYCLES_QUANTILES_MAX], lo, hi, w[PAGE];
	struct pending_weights pw;
	uint32_t p, j, q, i = 0;

	pending_weights(s, weight, &pw);
	for (p = 0, q = 0; p < NPAGES; p++) {
		if (!sk->page[p] && (q == pw.n || pw.bucket[q] / PAGE != p))
			continue;
		weights_at(sk, &pw, &q, p, weight, w);
		for (j = 0; j < PAGE; j++)
			total += w[j];
	}
	if (total == 0)
		return; /* @out is zeroed */
	targets(total, num, n, den, k);
	lo = vma_cycles_min(s);
	hi = vma_cycles_max(s);
	for (p = 0, q = 0; p < NPAGES && i < n; p++) {
		if (!sk->page[p] && (q == pw.n || pw.bucket[q] / PAGE != p))
			continue;
		weights_at(sk, &pw, &q, p, weight, w);
		for (j = 0; j < PAGE && i < n; j++) {
			cum += w[j];
			if (cum > k[i]) {
				answer(cum, k, n, &i, bucket_answer(p * PAGE + j, sk->bits, lo, hi),
				       out);
			}
		}
	}
	for (; i < n; i++)
		out[i] = hi;
}

/* A compact summary's quantiles: a sketch's, on its list of buckets. */
static void compact_quantiles(const struct vma_cycles *s, enum vma_cycles_weight weight,
			      const uint32_t *num, uint32_t n, uint32_t den, uint64_t *out)
{
	const struct vma_cycles_compact *c = s->u.compact;
	unsigned __int128 total = 0, cum = 0;
	uint64_t k[VMA_CYCLES_QUANTILES_MAX];
	uint32_t i, q = 0;

	for (i = 0; i < c->nr; i++)
		total += weight == VMA_CYCLES_BY_COUNT ? compact_count(c, i) : compact_sum(c, i);
	if (total == 0)
		return; /* @out is zeroed */
	targets(total, num, n, den, k);
	for (i = 0; i < c->nr && q < n; i++) {
		cum += weight == VMA_CYCLES_BY_COUNT ? compact_count(c, i) : compact_sum(c, i);
		if (cum > k[q]) {
			answer(cum, k, n, &q,
			       bucket_answer(compact_bucket(c, i), c->bits, c->min, c->max), out);
		}
	}
	for (; q < n; q++)
		out[q] = c->max;
}

/* The numerators one walk can answer: at most VMA_CYCLES_QUANTILES_MAX, ascending. */
static bool one_walk(const uint32_t *num, uint32_t n)
{
	uint32_t i;

	if (n > VMA_CYCLES_QUANTILES_MAX)
		return false;
	for (i = 1; i < n; i++) {
		if (num[i] < num[i - 1])
			return false;
	}
	return true;
}

void vma_cycles_quantiles(struct vma_cycles *s, enum vma_cycles_weight weight,
			  const uint32_t *num, uint32_t n, uint32_t den, uint64_t *out)
{
	uint32_t i;

	if (!one_walk(num, n)) {
		for (i = 0; i < n; i++)
			vma_cycles_quantiles(s, weight, &num[i], 1, den, &out[i]);
		return;
	}
	/* 0 for every quantile a summary without samples (or den 0) is asked */
	memset(out, 0, n * sizeof(*out));
	if (den == 0 || n == 0)
		return;
	if (s->sketch) {
		/* Pending values into their buckets where that allocates nothing. */
		if (s->n)
			vma_cycles_sketch_flush_in_place(s);
		sketch_quantiles(s, weight, num, n, den, out);
	} else if (s->n) {
		exact_quantiles(s, weight, num, n, den, out);
	} else if (is_compact(s)) {
		compact_quantiles(s, weight, num, n, den, out);
	}
}

uint64_t vma_cycles_quantile(struct vma_cycles *s, enum vma_cycles_weight weight,
			     uint32_t num, uint32_t den)
{
	uint64_t v;

	vma_cycles_quantiles(s, weight, &num, 1, den, &v);
	return v;
}

bool vma_cycles_is_exact(const struct vma_cycles *s)
{
	return !s->sketch && !is_compact(s) && s->n == s->count;
}

bool vma_cycles_is_compact(const struct vma_cycles *s)
{
	return is_compact(s);
}

uint64_t vma_cycles_min(const struct vma_cycles *s)
{
	uint64_t m = UINT64_MAX;
	uint32_t i;

	if (s->sketch) {
		m = s->u.sketch->min;
		for (i = 0; i < s->n; i++) {
			if (s->u.sketch->pending[i] < m)
				m = s->u.sketch->pending[i];
		}
		return s->n || s->u.sketch->max ? m : 0;
	}
	if (s->n == 0)
		return is_compact(s) && s->u.compact->max ? s->u.compact->min : 0;
	if (s->sorted)
		return exact_at(s, 0);
	for (i = 0; i < s->n; i++) {
		if (exact_at(s, i) < m)
			m = exact_at(s, i);
	}
	return m;
}

uint64_t vma_cycles_max(const struct vma_cycles *s)
{
	uint64_t m = 0;
	uint32_t i;

	if (s->sketch) {
		m = s->u.sketch->max;
		for (i = 0; i < s->n; i++) {
			if (s->u.sketch->pending[i] > m)
				m = s->u.sketch->pending[i];
		}
		return m;
	}
	if (s->n == 0)
		return is_compact(s) ? s->u.compact->max : 0;
	if (s->sorted)
		return exact_at(s, s->n - 1);
	for (i = 0; i < s->n; i++) {
		if (exact_at(s, i) > m)
			m = exact_at(s, i);
	}
	return m;
}

/* ---- histograms ---- */

/*
 * Histogram bins with 2^@k per octave: values below 2^k get a bin each
 * (index v - 1); octave e >= k is cut into 2^k bins of width 2^(e-k).
 */
static size_t bin_index(uint64_t v, unsigned int k)
{
	unsigned int e;

	if (v < ((uint64_t)1 << k))
		return (size_t)(v - 1);
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

/*
 * vma_cycles_histogram()'s bins, with their bounds when @bounds: the
 * spread needs only their counts and sums, and a wide summary has
 * thousands of bins at 64 per octave.
 */
static int histogram(const struct vma_cycles *s, unsigned int per_octave,
		     struct vma_cycles_bin **bins, size_t *nbins, bool bounds)
{
	const struct vma_cycles_sketch *sk = s->sketch ? s->u.sketch : NULL;
	const struct vma_cycles_compact *cf = is_compact(s) ? s->u.compact : NULL;
	struct vma_cycles_bin *b;
	unsigned int k = 0;
	size_t first, n, idx;
	uint64_t lo, hi, v;
	uint32_t i, c;

	*bins = NULL;
	*nbins = 0;
	while (k < (sk ? sk->bits : cf ? cf->bits : SUB_BITS) && (2u << k) <= per_octave)
		k++;
	hi = vma_cycles_max(s);
	if (hi == 0)
		return 0;
	lo = vma_cycles_min(s);
	first = bin_index(lo, k);
	n = bin_index(hi, k) - first + 1;
	b = calloc(n, sizeof(*b));
	if (!b)
		return VMA_ERR_NOMEM;
	for (idx = 0; bounds && idx < n; idx++)
		bin_bounds(first + idx, k, &b[idx]);
	/* Exact samples, or a sketch's pending values. */
	for (i = 0; i < s->n; i++) {
		v = sk ? sk->pending[i] : exact_at(s, i);
		idx = bin_index(v, k) - first;
		b[idx].count++;
		b[idx].cycles += v;
	}
	/* A bucket never straddles a bin: bins are at least as wide and aligned. */
	for (c = 0; sk && c < NPAGES * PAGE; c++) {
		uint32_t bucket = c;
		uint64_t count;

		if (!sk->page[c / PAGE]) {
			c += PAGE - 1;
			continue;
		}
		count = cell_count(sk, bucket);

		if (!count)
			continue;
		idx = bin_index(bucket_lo(bucket, sk->bits), k) - first;
		b[idx].count += count;
		b[idx].cycles += cell_sum(sk, bucket);
	}
	for (i = 0; cf && i < cf->nr; i++) {
		idx = bin_index(bucket_lo(compact_bucket(cf, i), cf->bits), k) - first;
		b[idx].count += compact_count(cf, i);
		b[idx].cycles += compact_sum(cf, i);
	}
	*bins = b;
	*nbins = n;
	return 0;
}

int vma_cycles_histogram(const struct vma_cycles *s, unsigned int per_octave,
			 struct vma_cycles_bin **bins, size_t *nbins)
{
	return histogram(s, per_octave, bins, nbins, true);
}

/* A bin's part of the spread's sum: one expression, so that both ways below add alike. */
static inline double bin_part(uint64_t count, uint64_t cycles, double mean)
{
	double d = (double)cycles / (double)count - mean;

	return d * d * (double)count;
}

/* Bins met in ascending order, each added to the sum when the next one starts. */
struct bin_walk {
	unsigned int k;
	size_t idx;
	uint64_t count, cycles;
	double mean, var;
};

static inline void walk_add(struct bin_walk *w, uint64_t v, uint64_t count, uint64_t cycles)
{
	size_t idx = bin_index(v, w->k);

	if (idx != w->idx && w->count) {
		w->var += bin_part(w->count, w->cycles, w->mean);
		w->count = w->cycles = 0;
	}
	w->idx = idx;
	w->count += count;
	w->cycles += cycles;
}

/*
 * The spread from values met in ascending order: sorted exact samples (the
 * report's quantiles sort them), or a sketch's buckets with no value
 * pending.  Return: false for any other summary, which takes the bins.
 */
static bool spread_walk(const struct vma_cycles *s, struct bin_walk *w)
{
	const struct vma_cycles_sketch *sk = s->sketch ? s->u.sketch : NULL;
	uint32_t i, c;

	if (is_compact(s) || (sk ? s->n != 0 : !s->sorted))
		return false;
	while (w->k < (sk ? sk->bits : SUB_BITS) && (2u << w->k) <= 64)
		w->k++;
	for (i = 0; !sk && i < s->n; i++)
		walk_add(w, exact_at(s, i), 1, exact_at(s, i));
	for (c = 0; sk && c < NPAGES * PAGE; c++) {
		uint64_t count;

		if (!sk->page[c / PAGE]) {
			c += PAGE - 1;
			continue;
		}
		count = cell_count(sk, c);
		if (count)
			walk_add(w, bucket_lo(c, sk->bits), count, cell_sum(sk, c));
	}
	if (w->count)
		w->var += bin_part(w->count, w->cycles, w->mean);
	return true;
}

uint64_t vma_cycles_spread(const struct vma_cycles *s)
{
	struct vma_cycles_bin *bins = NULL;
	struct bin_walk w = { 0 };
	size_t n = 0, i;

	if (s->count < 2)
		return 0;
	w.mean = (double)s->cycles / (double)s->count;
	if (!spread_walk(s, &w)) {
		if (histogram(s, 64, &bins, &n, false))
			return 0;
		for (i = 0; i < n; i++) {
			if (bins[i].count)
				w.var += bin_part(bins[i].count, bins[i].cycles, w.mean);
		}
		free(bins);
	}
	return (uint64_t)llround(sqrt(w.var / (double)s->count));
}
