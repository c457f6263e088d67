/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cycle summaries to and from storage (the struct vma_cycles_image of
 * cycles.h), for saved batch results that merge exactly across runs.
 *
 * Only cycles.h is used, and the one accessor of exact samples
 * (cycles-internal.h).  An exact summary is stored as its samples.  A
 * sketch is stored as its buckets (count and exact sum each) with its
 * minimum and maximum, which is all a sketch's results are computed from;
 * importing it adds, in each bucket, values that fall in that bucket and
 * sum to its sum (the minimum and maximum among them as they were), so
 * the rebuilt sketch has the same buckets, extremes and counters.  That
 * costs one vma_cycles_add() per sample (a few ns each) but needs nothing
 * of the sketch's private layout.
 *
 * Why merging is then exact and order-independent: a summary's state is
 * either the multiset of its samples (exact) or, once the samples number
 * more than its exact limit (or a budget made it a sketch sooner), the
 * buckets of that multiset at the sketch's resolution.  vma_cycles_merge()
 * keeps that (same multiset; same buckets at the coarser resolution, the
 * result a sketch when either side is), so any grouping and order of
 * merges of the same summaries gives the same results.  A sketch's image
 * keeps its resolution (@per_octave), so that a collapsed sketch imported
 * merges as collapsed as it was.
 */
#include <stdlib.h>
#include <string.h>

#include "cycles-internal.h"
#include "vmalyze/cycles.h"
#include "vmalyze/status.h"

void vma_cycles_image_release(struct vma_cycles_image *img)
{
	free(img->samples);
	free(img->bins);
	memset(img, 0, sizeof(*img));
}

int vma_cycles_export(const struct vma_cycles *s, struct vma_cycles_image *img)
{
	struct vma_cycles_bin *bins = NULL;
	size_t nbins = 0, i, j;
	uint64_t n;
	uint32_t k;

	memset(img, 0, sizeof(*img));
	if (vma_cycles_failed(s))
		return VMA_ERR_NOMEM;
	/* Counted but not sampled (vma_cycles_count() without its parts): not storable. */
	if (!s->sketch && !is_compact(s) && s->n != s->count)
		return VMA_ERR_FORMAT;
	img->events = s->events;
	img->count = s->count;
	img->cycles = s->cycles;
	img->exact_limit = exact_limit(s);
	img->exact = vma_cycles_is_exact(s);
	img->compact = is_compact(s);
	img->per_octave = vma_cycles_per_octave(s);
	img->min = vma_cycles_min(s);
	img->max = vma_cycles_max(s);
	if (img->exact) {
		if (s->n == 0)
			return 0;
		img->samples = malloc(sizeof(*img->samples) * s->n);
		if (!img->samples)
			return VMA_ERR_NOMEM;
		for (k = 0; k < s->n; k++)
			img->samples[k] = exact_at(s, k);
		img->nr_samples = s->n;
		return 0;
	}
	if (vma_cycles_histogram(s, img->per_octave, &bins, &nbins))
		return VMA_ERR_NOMEM;
	/* Keep the non-empty buckets only: a sketch's range has gaps. */
	for (i = j = 0; i < nbins; i++) {
		if (bins[i].count)
			bins[j++] = bins[i];
	}
	img->bins = bins;
	img->nr_bins = j;
	/* The same check for a compact form: its buckets must hold every sample counted. */
	for (i = 0, n = 0; i < j; i++)
		n += bins[i].count;
	if (img->compact && n != s->count) {
		vma_cycles_image_release(img);
		return VMA_ERR_FORMAT;
	}
	return 0;
}

/*
 * Add @c values of [lo, hi) summing to @sum, @pins of them (the minimum,
 * the maximum) given.  The others are as equal as integers allow, so they
 * stay in the bucket and within the extremes when the bucket is genuine.
 */
static int add_bucket(struct vma_cycles *s, const struct vma_cycles_bin *b, const uint64_t *pins,
		      unsigned int nr_pins, uint64_t lo_bound, uint64_t hi_bound)
{
	uint64_t rest = b->cycles, k = b->count - nr_pins, q, r, i;
	unsigned int p;

	for (p = 0; p < nr_pins; p++) {
		if (pins[p] < b->lo || pins[p] > b->hi - 1 || pins[p] > rest)
			return VMA_ERR_FORMAT;
		rest -= pins[p];
		vma_cycles_add(s, pins[p], NULL);
	}
	if (k == 0)
		return rest ? VMA_ERR_FORMAT : 0;
	q = rest / k;
	r = rest % k;
	if (q < b->lo || q < lo_bound || q + (r != 0) > hi_bound || q + (r != 0) > b->hi - 1)
		return VMA_ERR_FORMAT;
	for (i = 0; i < k; i++)
		vma_cycles_add(s, q + (i < r), NULL);
	return 0;
}

static int import_sketch(struct vma_cycles *s, const struct vma_cycles_image *img)
{
	uint64_t count = 0, pins[2];
	unsigned __int128 sum = 0;
	size_t i;
	int rc;

	if (!img->nr_bins || img->min == 0 || img->min > img->max)
		return VMA_ERR_FORMAT;
	for (i = 0; i < img->nr_bins; i++) {
		const struct vma_cycles_bin *b = &img->bins[i];
		unsigned int n = 0;

		if (!b->count || b->lo == 0 || b->hi <= b->lo ||
		    (i && b->lo < img->bins[i - 1].hi)) {
			return VMA_ERR_FORMAT;
		}
		if (i == 0)
			pins[n++] = img->min;
		if (i + 1 == img->nr_bins && (i > 0 || b->count > 1))
			pins[n++] = img->max;
		if (n > b->count)
			return VMA_ERR_FORMAT;
		rc = add_bucket(s, b, pins, n, img->min, img->max);
		if (rc)
			return rc;
		count += b->count;
		sum += b->cycles;
	}
	if (count != img->count || sum != img->cycles)
		return VMA_ERR_FORMAT;
	/* A compact form was one from its first value; a sketch is made as collapsed as it was. */
	return img->compact ? 0 : vma_cycles_coarsen(s, img->per_octave, NULL);
}

static int import_exact(struct vma_cycles *s, const struct vma_cycles_image *img)
{
	unsigned __int128 sum = 0;
	size_t i;

	if (img->nr_samples != img->count || img->count > img->exact_limit)
		return VMA_ERR_FORMAT;
	for (i = 0; i < img->nr_samples; i++) {
		if (img->samples[i] == 0)
			return VMA_ERR_FORMAT;
		sum += img->samples[i];
		vma_cycles_add(s, img->samples[i], NULL);
	}
	return sum == img->cycles ? 0 : VMA_ERR_FORMAT;
}

/* True when @s exports to the same buckets as @img: the bins were the sketch's. */
static bool same_buckets(const struct vma_cycles *s, const struct vma_cycles_image *img)
{
	struct vma_cycles_image again;
	bool same;

	if (vma_cycles_export(s, &again))
		return false;
	same = !again.exact && again.compact == img->compact &&
	       again.per_octave == img->per_octave &&
	       again.nr_bins == img->nr_bins && again.min == img->min &&
	       again.max == img->max &&
	       (!img->nr_bins || !memcmp(again.bins, img->bins, sizeof(*img->bins) * img->nr_bins));
	vma_cycles_image_release(&again);
	return same;
}

int vma_cycles_import(struct vma_cycles *s, const struct vma_cycles_image *img)
{
	int rc;

	vma_cycles_release(s, NULL);
	if (img->exact_limit < 4 || img->exact_limit > VMA_CYCLES_EXACT_MAX ||
	    (img->exact_limit & (img->exact_limit - 1)) || img->events < img->count) {
		return VMA_ERR_FORMAT;
	}
	/*
	 * A sketch's resolution is one of the budget's steps: 64, 32, 16, 8 or
	 * 4; a compact form's 4, 2 or 1; exact: 0.
	 */
	if (img->exact ? img->per_octave != 0 || img->compact
		       : img->per_octave < (img->compact ? 1u : VMA_CYCLES_SKETCH_SUB_MIN) ||
				 img->per_octave > (img->compact ? VMA_CYCLES_SKETCH_SUB_MIN
								 : VMA_CYCLES_SKETCH_SUB) ||
				 (img->per_octave & (img->per_octave - 1))) {
		return VMA_ERR_FORMAT;
	}
	vma_cycles_init(s, img->exact_limit);
	rc = img->compact ? vma_cycles_compact(s, img->per_octave, NULL) : 0;
	/* A compact form made before its first sample holds none. */
	if (rc == 0 && img->compact && img->count == 0)
		rc = img->nr_bins || img->cycles || img->min || img->max ? VMA_ERR_FORMAT : 0;
	else if (rc == 0)
		rc = img->exact ? import_exact(s, img) : import_sketch(s, img);
	if (rc == 0 && vma_cycles_failed(s))
		rc = VMA_ERR_NOMEM;
	if (rc == 0 && !img->exact && !same_buckets(s, img))
		rc = VMA_ERR_FORMAT;
	if (rc) {
		vma_cycles_release(s, NULL);
		return rc;
	}
	s->events = img->events;
	return 0;
}
