/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm-trace's latency window for KVM: the largest sum of exit time inside
 * any window of a fixed span (1 ms).  That sum, as the window slides, only
 * turns from rising to falling where an exit ends at the window's end, so
 * it is computed exactly for each window that ends where an exit ends.
 *
 * Exits end in time order (the merge delivers them so), so the arcs ending
 * inside the window are a ring, oldest first.  An arc that began before
 * the window counts only its part inside it.  A vcpu's arcs never overlap,
 * but a VM's (the arcs of all its vcpus) do, so their starts are in no
 * order: arcs that still begin inside the window wait in a min-heap by
 * start, and leave it when the window's start passes them; for those that
 * began before, only their count and the sum of their starts are kept.
 * Each arc enters and leaves the ring and the heap once: O(log n) an exit.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/state-handlers.h"

static struct vma_latency_arc *heap_of(struct vma_latency_window *w)
{
	return w->ring + w->cap;
}

static void heap_push(struct vma_latency_window *w, struct vma_latency_arc a)
{
	struct vma_latency_arc *h = heap_of(w);
	uint32_t i = w->heap_len++;

	while (i > 0 && h[(i - 1) / 2].start > a.start) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = a;
}

static void heap_pop(struct vma_latency_window *w)
{
	struct vma_latency_arc *h = heap_of(w), last = h[--w->heap_len];
	uint32_t i = 0, c;

	while ((c = 2 * i + 1) < w->heap_len) {
		if (c + 1 < w->heap_len && h[c + 1].start < h[c].start)
			c++;
		if (h[c].start >= last.start)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = last;
}

/* Room for one more arc in the ring and the heap.  Return: false when out of memory. */
static bool grow(struct vma_latency_window *w)
{
	uint32_t cap = w->cap ? w->cap * 2 : 64, i;
	struct vma_latency_arc *ring;

	if (w->len < w->cap)
		return true;
	if (cap < w->cap || cap > UINT32_MAX / 2)
		return false;
	ring = malloc(2 * (size_t)cap * sizeof(*ring));
	if (!ring)
		return false;
	for (i = 0; i < w->len; i++)
		ring[i] = w->ring[(w->head + i) % w->cap];
	if (w->heap_len)
		memcpy(ring + cap, heap_of(w), w->heap_len * sizeof(*ring));
	free(w->ring);
	w->ring = ring;
	w->cap = cap;
	w->head = 0;
	return true;
}

void vma_latency_window_add(struct vma_latency_window *w, uint64_t start, uint64_t end,
			    uint64_t span)
{
	uint64_t cycles = end - start, lo = end > span ? end - span : 0, inside;
	unsigned __int128 clip;

	w->exits++;
	w->total += cycles;
	if (cycles > w->max)
		w->max = cycles;
	/* The window now starts at lo: arcs that begin by then are clipped... */
	while (w->heap_len && heap_of(w)[0].start <= lo) {
		w->clipped++;
		w->clipped_starts += heap_of(w)[0].start;
		heap_pop(w);
	}
	/* ...and those that ended by then leave (all of them were clipped). */
	while (w->len && w->ring[w->head].end <= lo) {
		const struct vma_latency_arc *a = &w->ring[w->head];

		w->sum -= a->end - a->start;
		w->clipped--;
		w->clipped_starts -= a->start;
		w->head = (w->head + 1) % w->cap;
		w->len--;
	}
	if (!grow(w))
		return;
	w->ring[(w->head + w->len) % w->cap] = (struct vma_latency_arc){ start, end };
	w->len++;
	w->sum += cycles;
	if (start <= lo) {
		w->clipped++;
		w->clipped_starts += start;
	} else {
		heap_push(w, (struct vma_latency_arc){ start, end });
	}
	/* The clipped arcs count from lo only: their parts before it come off. */
	clip = (unsigned __int128)w->clipped * lo - w->clipped_starts;
	inside = w->sum - (uint64_t)clip;
	if (inside > w->max_window)
		w->max_window = inside;
}
