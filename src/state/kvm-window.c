/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm-trace's latency window for KVM: the largest sum of exit time inside
 * any window of a fixed span (1 ms).  That sum, as the window slides, only
 * turns from rising to falling where an exit ends at the window's end, so
 * it is computed exactly for each window that ends where an exit ends.
 *
 * Exits end in time order (the merge delivers them so), so the arcs ending
 * inside the window are a ring, oldest first.  An arc that began before
 * the window counts only its part inside it: for those arcs ("clipped")
 * only their count and the sum of their parts before the window's start
 * are kept, moved on by the count times the start's step (all modulo
 * 2^64: exact, as the figure it comes off from is a 64-bit sum).
 *
 * Which arcs are clipped: while the arcs in the ring also begin in order
 * (always for a vcpu, whose arcs never overlap, and for a VM whenever its
 * vcpus' exits do not overlap), the clipped ones are the ring's first
 * `clipped`, and the window's start passing the next one's start moves it
 * in.  When an arc begins before the last one that is not clipped, the
 * starts of the arcs still beginning inside the window go into a second
 * ring, ascending, and leave it from the front when the window's start
 * passes them; a start is moved back past the later starts of the arcs
 * that lie inside its own arc.  Each arc lies inside at most one arc of
 * each other vcpu, so the moves add up to fewer than the VM's vcpus per
 * exit, where a heap costs its depth and a cache miss per level on every
 * exit.  Once every arc in the ring is clipped, their order is back.  Both
 * rings' capacity is a power of two, so positions wrap with a mask.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/state-handlers.h"

static inline uint64_t *starts_of(struct vma_latency_window *w)
{
	return (uint64_t *)(w->ring + w->cap);
}

/* Room for one more arc in both rings, which are full.  Return: false when out of memory. */
static bool grow(struct vma_latency_window *w)
{
	uint32_t cap = w->cap ? w->cap * 2 : 64, i;
	struct vma_latency_arc *ring;
	uint64_t *starts;

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
static inline __attribute__((always_inline)) void starts_insert(struct vma_latency_window *w,
									 uint64_t start)
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

/* The starts of the ring's unclipped arcs into the starts' ring, which the order now needs. */
static void unorder(struct vma_latency_window *w, uint32_t clipped)
{
	uint64_t *st = starts_of(w);
	uint32_t mask = w->cap - 1, i;

	w->starts_head = 0;
	w->starts_len = w->len - clipped;
	for (i = 0; i < w->starts_len; i++)
		st[i] = w->ring[(w->head + clipped + i) & mask].start;
	w->unordered = true;
}

/*
 * One arc [@start, @end] into @w, whose window now starts at @lo; inlined
 * into both entry points, the four windows of an exit sharing @lo.
 */
static inline __attribute__((always_inline)) void add_arc(struct vma_latency_window *w,
							 uint64_t start, uint64_t end,
							 uint64_t lo)
{
	uint64_t cycles = end - start;
	/* the clipped arcs' parts before the window's start, now that it moved to lo */
	uint64_t sum = w->sum, excess = w->excess + (uint64_t)w->clipped * (lo - w->lo), inside;
	uint32_t clipped = w->clipped, mask = w->cap - 1, head = w->head, len = w->len;
	const struct vma_latency_arc *ring = w->ring;

	w->exits++;
	w->total += cycles;
	if (cycles > w->max)
		w->max = cycles;
	w->lo = lo;
	/* The window now starts at lo: arcs that begin by then are clipped... */
	if (!w->unordered) {
		while (clipped < len && ring[(head + clipped) & mask].start <= lo) {
			excess += lo - ring[(head + clipped) & mask].start;
			clipped++;
		}
	} else {
		const uint64_t *st = starts_of(w);
		uint32_t at = w->starts_head, n = w->starts_len;

		while (n && st[at] <= lo) {
			clipped++;
			excess += lo - st[at];
			at = (at + 1) & mask;
			n--;
		}
		w->starts_head = at;
		w->starts_len = n;
		w->unordered = n != 0;
	}
	/* ...and those that ended by then leave (all of them were clipped). */
	while (len && ring[head].end <= lo) {
		sum -= ring[head].end - ring[head].start;
		clipped--;
		excess -= lo - ring[head].start;
		head = (head + 1) & mask;
		len--;
	}
	w->head = head;
	w->len = len;
	w->sum = sum;
	w->clipped = clipped;
	w->excess = excess;
	if (len == w->cap && !grow(w))
		return;
	mask = w->cap - 1;
	head = w->head;
	/* out of order: begins before the last arc that begins inside the window */
	if (!w->unordered && clipped < len && start < w->ring[(head + len - 1) & mask].start)
		unorder(w, clipped);
	w->ring[(head + len) & mask] = (struct vma_latency_arc){ start, end };
	w->len = len + 1;
	w->sum = sum + cycles;
	if (start <= lo) {
		w->clipped = clipped + 1;
		w->excess = excess + (lo - start);
	} else if (w->unordered) {
		starts_insert(w, start);
	}
	/* The clipped arcs count from lo only: their parts before it come off. */
	inside = w->sum - w->excess;
	if (inside > w->max_window)
		w->max_window = inside;
}

void vma_latency_window_add(struct vma_latency_window *w, uint64_t start, uint64_t end,
			    uint64_t span)
{
	add_arc(w, start, end, end > span ? end - span : 0);
}

/* A vcpu's or VM's windows, made at its first closed exit (Xen's have none); NULL: no memory. */
static struct vma_latency_pair *pair_of(struct vma_latency_pair **pair)
{
	if (__builtin_expect(*pair == NULL, 0))
		*pair = calloc(1, sizeof(**pair));
	return *pair;
}

void vma_kvm_windows_add(struct vma_vcpu *v, bool halt, uint64_t start, uint64_t end,
			 uint64_t span)
{
	uint64_t lo = end > span ? end - span : 0;
	struct vma_latency_pair *pv = pair_of(&v->latency), *pd = pair_of(&v->domain->latency);

	if (pv)
		add_arc(&pv->all, start, end, lo);
	if (pd)
		add_arc(&pd->all, start, end, lo);
	if (halt)
		return;
	if (pv)
		add_arc(&pv->nohalt, start, end, lo);
	if (pd)
		add_arc(&pd->nohalt, start, end, lo);
}
