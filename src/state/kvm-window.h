/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm-trace's latency window for KVM, kept by this header's functions,
 * which kvm.c inlines where an exit closes (kvm-window.c has the rare
 * paths): the largest sum of exit time inside any window of a fixed span
 * (1 ms).  That sum, as the window slides, only turns from rising to
 * falling where an exit ends at the window's end, so it is computed
 * exactly for each window that ends where an exit ends.
 *
 * The arcs that end inside the window [lo, end] wait in a ring in the
 * order they came (the merge delivers exits in time order, so by end), and
 * leave it when lo passes their end.  Only an arc that begins before lo
 * counts less than its whole latency: its part before lo is left out.
 *
 * While each arc begins after the one before it ended (always a vcpu's
 * arcs, and a VM's until two of its vcpus' exits overlap), at most the
 * ring's first arc begins before lo: the sum is the ring's latency less
 * that arc's part before lo, and each start is kept beside its end.
 *
 * Once an arc begins before the one before it ended, the arcs begun by lo
 * are any of the ring's.  The sum of their parts inside is then the
 * latency of every arc added, less, for each arc begun by lo, its part
 * before lo (lo - start), of which an arc also ended by lo gives back
 * (lo - end):
 *
 *	added + (starts of the arcs begun by lo - ends of those ended by lo)
 *	      - lo x (arcs begun by lo - arcs ended by lo)
 *
 * all modulo 2^64, which is exact: the figure it gives is a 64-bit sum.
 * An arc counts as begun when lo passes its start and as ended when lo
 * passes its end, once each; the starts still ahead of lo wait in a
 * second ring, ascending.  A start goes back past the later starts of the
 * arcs that lie inside its own arc: each arc lies inside at most one arc
 * of each other vcpu, so that costs fewer than the VM's vcpus per exit,
 * where a heap costs its depth and a cache miss per level on every exit.
 * The first way's state is the second's at the first overlap: the starts
 * not begun by lo already wait in order, beside their ends.  Both rings'
 * capacity is a power of two, so positions wrap with a mask.
 */
#ifndef VMALYZE_STATE_KVM_WINDOW_H
#define VMALYZE_STATE_KVM_WINDOW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "vmalyze/state.h"

/* Room for one more arc, the ring of ends being full.  Return: false when out of memory. */
bool vma_latency_grow(struct vma_latency_window *w);

/* The first arc that began before the one before it ended: from now on the second way. */
void vma_latency_overlapped(struct vma_latency_window *w);

/* Adds @start to the starts' ring, in order (see above). */
static inline __attribute__((always_inline)) void
vma_latency_starts_insert(struct vma_latency_window *w, uint64_t start)
{
	uint64_t *st = w->ring + w->cap;
	uint32_t mask = w->cap - 1, at = w->starts_head + w->starts_len;

	while (at != w->starts_head && st[(at - 1) & mask] > start) {
		st[at & mask] = st[(at - 1) & mask];
		at--;
	}
	st[at & mask] = start;
	w->starts_len++;
}

/* An arc [@start, @end] that begins after the last one ended, the window starting at @lo. */
static inline __attribute__((always_inline)) void
vma_latency_add_after(struct vma_latency_window *w, uint64_t start, uint64_t end, uint64_t lo)
{
	uint64_t sum = w->sum, first;
	uint32_t mask = w->cap - 1, at = w->head, n = w->len;

	/* the arcs that ended by lo leave */
	while (n && w->ring[at] <= lo) {
		sum -= w->ring[at] - w->ring[w->cap + at];
		at = (at + 1) & mask;
		n--;
	}
	w->head = at;
	w->len = n;
	w->sum = sum;
	w->lo = lo;
	w->last_end = end;
	if (n == w->cap && !vma_latency_grow(w))
		return;
	at = (w->head + n) & (w->cap - 1);
	w->ring[at] = end;
	w->ring[w->cap + at] = start;
	w->len = n + 1;
	sum += end - start;
	w->sum = sum;
	w->added += end - start;
	/* the first arc's part before lo is outside */
	first = w->ring[w->cap + w->head];
	if (first < lo)
		sum -= lo - first;
	if (sum > w->max_window)
		w->max_window = sum;
}

/* An arc [@start, @end] into @w after an overlap, the window starting at @lo. */
static inline __attribute__((always_inline)) void
vma_latency_add_overlapping(struct vma_latency_window *w, uint64_t start, uint64_t end, uint64_t lo)
{
	uint64_t sum = w->sum, inside;
	uint32_t open = w->open, mask = w->cap - 1, at, n;

	/* The window now starts at lo: the arcs that begin by then have begun... */
	at = w->starts_head;
	n = w->starts_len;
	while (n && w->ring[w->cap + at] <= lo) {
		sum += w->ring[w->cap + at];
		open++;
		at = (at + 1) & mask;
		n--;
	}
	w->starts_head = at;
	w->starts_len = n;
	/* ...and those that end by then have ended. */
	at = w->head;
	n = w->len;
	while (n && w->ring[at] <= lo) {
		sum -= w->ring[at];
		open--;
		at = (at + 1) & mask;
		n--;
	}
	w->head = at;
	w->len = n;
	w->sum = sum;
	w->open = open;
	if (n == w->cap && !vma_latency_grow(w))
		return;
	w->ring[(w->head + n) & (w->cap - 1)] = end;
	w->len = n + 1;
	if (start <= lo) {
		open++;
		sum += start;
		w->open = open;
		w->sum = sum;
	} else {
		vma_latency_starts_insert(w, start);
	}
	w->added += end - start;
	inside = w->added + sum - (uint64_t)open * lo;
	if (inside > w->max_window)
		w->max_window = inside;
}

/*
 * One arc [@start, @end] into @w, whose window now starts at @lo; inlined
 * into vma_kvm_windows_add(), the four windows of an exit sharing @lo.
 */
static inline __attribute__((always_inline)) void
vma_latency_add_arc(struct vma_latency_window *w, uint64_t start, uint64_t end, uint64_t lo)
{
	uint64_t cycles = end - start;

	w->exits++;
	w->total += cycles;
	if (cycles > w->max)
		w->max = cycles;
	if (__builtin_expect(!w->overlap && start >= w->last_end, 1)) {
		vma_latency_add_after(w, start, end, lo);
		return;
	}
	if (!w->overlap)
		vma_latency_overlapped(w);
	vma_latency_add_overlapping(w, start, end, lo);
}

/* A vcpu's or VM's windows, made at its first closed exit (Xen's have none); NULL: no memory. */
static inline struct vma_latency_pair *vma_latency_pair_of(struct vma_latency_pair **pair)
{
	if (__builtin_expect(*pair == NULL, 0))
		*pair = calloc(1, sizeof(**pair));
	return *pair;
}

/*
 * vma_kvm_windows_add - an exit arc of @v into its and its VM's windows,
 * and unless @halt their no-halt ones; inline in kvm.c's entry handling.
 */
static inline __attribute__((always_inline)) void
vma_kvm_windows_add(struct vma_vcpu *v, bool halt, uint64_t start, uint64_t end, uint64_t span)
{
	uint64_t lo = end > span ? end - span : 0;
	struct vma_latency_pair *pv = vma_latency_pair_of(&v->latency),
				 *pd = vma_latency_pair_of(&v->domain->latency);

	if (pv)
		vma_latency_add_arc(&pv->all, start, end, lo);
	if (pd)
		vma_latency_add_arc(&pd->all, start, end, lo);
	if (halt)
		return;
	if (pv)
		vma_latency_add_arc(&pv->nohalt, start, end, lo);
	if (pd)
		vma_latency_add_arc(&pd->nohalt, start, end, lo);
}

#endif /* VMALYZE_STATE_KVM_WINDOW_H */
