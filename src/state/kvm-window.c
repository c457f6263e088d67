/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm-trace's latency window for KVM: the out-of-line parts of
 * kvm-window.h (which says how the window is kept), and the one-window
 * entry point the unit tests drive.
 */
#include <stdlib.h>
#include <string.h>

#include "state/kvm-window.h"
#include "vmalyze/state-handlers.h"

bool vma_latency_grow(struct vma_latency_window *w)
{
	uint32_t cap = w->cap ? w->cap * 2 : 64, mask = w->cap - 1, i;
	uint64_t *ring;

	if (cap < w->cap || cap > UINT32_MAX / 2)
		return false;
	ring = malloc((size_t)cap * 2 * sizeof(*ring));
	if (!ring)
		return false;
	for (i = 0; i < w->len; i++)
		ring[i] = w->ring[(w->head + i) & mask];
	if (!w->overlap) {
		for (i = 0; i < w->len; i++)
			ring[cap + i] = w->ring[w->cap + ((w->head + i) & mask)];
	} else {
		for (i = 0; i < w->starts_len; i++)
			ring[cap + i] = w->ring[w->cap + ((w->starts_head + i) & mask)];
	}
	free(w->ring);
	w->ring = ring;
	w->cap = cap;
	w->head = 0;
	w->starts_head = 0;
	return true;
}

void vma_latency_overlapped(struct vma_latency_window *w)
{
	uint64_t part = 0;

	w->open = 0;
	if (w->len && w->ring[w->cap + w->head] <= w->lo) {
		part = w->lo - w->ring[w->cap + w->head];
		w->open = 1;
	}
	w->starts_head = (w->head + w->open) & (w->cap - 1);
	w->starts_len = w->len - w->open;
	/* the same sum inside, ring latency - part = added + sum - open x lo */
	w->sum = w->sum - part - w->added + (uint64_t)w->open * w->lo;
	w->overlap = true;
}

void vma_latency_window_add(struct vma_latency_window *w, uint64_t start, uint64_t end,
			    uint64_t span)
{
	vma_latency_add_arc(w, start, end, end > span ? end - span : 0);
}

