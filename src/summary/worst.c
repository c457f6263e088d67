/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The N longest exits (worst.h): a binary min-heap ordered by length. */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/worst.h"

struct vma_worst {
	uint32_t cap, len;
	struct vma_report_worst *heap;
};

struct vma_worst *vma_worst_create(uint32_t n)
{
	struct vma_worst *w = calloc(1, sizeof(*w));

	if (!w || !n)
		goto fail;
	w->heap = calloc(n, sizeof(*w->heap));
	if (!w->heap)
		goto fail;
	w->cap = n;
	return w;
fail:
	free(w);
	return NULL;
}

void vma_worst_destroy(struct vma_worst *w)
{
	if (!w)
		return;
	free(w->heap);
	free(w);
}

/* True when @a ranks below @b: shorter, or as long and later. */
static int below(const struct vma_report_worst *a, const struct vma_report_worst *b)
{
	if (a->ticks != b->ticks)
		return a->ticks < b->ticks;
	return a->tsc > b->tsc;
}

static void swap(struct vma_report_worst *a, struct vma_report_worst *b)
{
	struct vma_report_worst t = *a;

	*a = *b;
	*b = t;
}

static void sift_down(struct vma_worst *w, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, low = i;

		if (l < w->len && below(&w->heap[l], &w->heap[low]))
			low = l;
		if (r < w->len && below(&w->heap[r], &w->heap[low]))
			low = r;
		if (low == i)
			return;
		swap(&w->heap[i], &w->heap[low]);
		i = low;
	}
}

void vma_worst_add(struct vma_worst *w, const struct vma_report_worst *exit)
{
	uint32_t i;

	if (w->len < w->cap) {
		i = w->len++;
		w->heap[i] = *exit;
		while (i && below(&w->heap[i], &w->heap[(i - 1) / 2])) {
			swap(&w->heap[i], &w->heap[(i - 1) / 2]);
			i = (i - 1) / 2;
		}
		return;
	}
	if (!below(&w->heap[0], exit))
		return;
	w->heap[0] = *exit;
	sift_down(w, 0);
}

uint32_t vma_worst_size(const struct vma_worst *w)
{
	return w ? w->len : 0;
}

static int longest_first(const void *pa, const void *pb)
{
	const struct vma_report_worst *a = pa, *b = pb;

	if (below(a, b))
		return 1;
	return below(b, a) ? -1 : 0;
}

uint32_t vma_worst_sorted(const struct vma_worst *w, struct vma_report_worst *out)
{
	if (!w || !w->len)
		return 0;
	memcpy(out, w->heap, w->len * sizeof(*out));
	qsort(out, w->len, sizeof(*out), longest_first);
	return w->len;
}
