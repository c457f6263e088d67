/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm-trace's latency window for KVM: the largest sum of exit time inside
 * any window of a fixed span (1 ms).  That sum, as the window slides, only
 * turns from rising to falling where an exit ends at the window's end, so
 * it is computed exactly for each window that ends where an exit ends.
 *
 * Exits end in time order (the merge delivers them so), so the arcs ending
 * inside the window are a ring, oldest first.  An arc that began before
 * the window counts only its part inside it.  The starts of the arcs that
 * still begin inside the window are kept in a second ring, ascending, and
 * leave it from the front when the window's start passes them; for the
 * arcs that began before, only their count and the sum of their starts are
 * kept.  A vcpu's arcs never overlap, so their starts come in order and
 * join the starts' ring at its back.  A VM's (the arcs of all its vcpus)
 * do overlap: a start is moved back past the later starts of the arcs
 * that lie inside its own arc.  Each arc lies inside at most one arc of
 * each other vcpu, so the moves add up to fewer than the VM's vcpus per
 * exit (usually none), where a heap costs its depth and a cache miss per
 * level on every exit.  Both rings' capacity is a power of two, so
 * positions wrap with a mask.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/state-handlers.h"

static inline uint64_t *starts_of(struct vma_latency_window *w)
{
	return (uint64_t *)(w->ring + w->cap);
}

/* Room for one more arc in both rings.  Return: false when out of memory. */
static bool grow(struct vma_latency_window *w)
{
	uint32_t cap = w->cap ? w->cap * 2 : 64, i;
	struct vma_latency_arc *ring;
	uint64_t *starts;

	if (w->len < w->cap)
		return true;
	if (cap < w->cap || cap > UINT32_MAX / 2)
		return false;
	ring = malloc((size_t)cap * (sizeof(*ring) + sizeof(*starts)));
	if (!ring)
		return false;
	starts = (uint64_t *)(ring + cap);
	for (i = 0; i < w->len; i++)
		ring[i] = w->ring[(w->head + i) & (w->cap - 1)];
	for (i = 0; i < w->starts_len; i++)
		starts[i] = starts_of(w)[(w->starts_head + i) & (w->cap - 1)];
	free(w->ring);
	w->ring = ring;
	w->cap = cap;
	w->head = 0;
	w->starts_head = 0;
	return true;
}

/* Adds @start to the starts' ring, in order (see above). */
static void starts_insert(struct vma_latency_window *w, uint64_t start)
{
	uint64_t *st = starts_of(w);
	uint32_t mask = w->cap - 1, at = w->starts_head + w->starts_len;

	while (at != w->starts_head && st[(at - 1) & mask] > start) {
		st[at & mask] = st[(at - 1) & mask];
		at--;
	}
	st[at & mask] = start;
	w->starts_len++;
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
	while (w->starts_len) {
		uint64_t first = starts_of(w)[w->starts_head];

		if (first > lo)
			break;
		w->clipped++;
		w->clipped_starts += first;
		w->starts_head = (w->starts_head + 1) & (w->cap - 1);
		w->starts_len--;
	}
	/* ...and those that ended by then leave (all of them were clipped). */
	while (w->len && w->ring[w->head].end <= lo) {
		const struct vma_latency_arc *a = &w->ring[w->head];

		w->sum -= a->end - a->start;
		w->clipped--;
		w->clipped_starts -= a->start;
		w->head = (w->head + 1) & (w->cap - 1);
		w->len--;
	}
	if (!grow(w))
		return;
	w->ring[(w->head + w->len) & (w->cap - 1)] = (struct vma_latency_arc){ start, end };
	w->len++;
	w->sum += cycles;
	if (start <= lo) {
		w->clipped++;
		w->clipped_starts += start;
	} else {
		starts_insert(w, start);
	}
	/* The clipped arcs count from lo only: their parts before it come off. */
	clip = (unsigned __int128)w->clipped * lo - w->clipped_starts;
	inside = w->sum - (uint64_t)clip;
	if (inside > w->max_window)
		w->max_window = inside;
}
