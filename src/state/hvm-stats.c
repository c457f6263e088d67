/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Accumulating closed exit arcs by reason and refinement (hvm-stats.h).
 * Exit codes are small (VMX < 100, SVM < 0x500), so reasons are indexed
 * directly; the refinements under one reason are found through a hash
 * index (the last one used is checked first).
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/hvm-stats.h"
#include "vmalyze/state.h"

/* Codes above this are kept in the last slot's neighbourhood by value. */
#define MAX_DIRECT_REASON 0x10000u

struct vma_hvm_stats *vma_hvm_stats_create(void)
{
	return calloc(1, sizeof(struct vma_hvm_stats));
}

void vma_hvm_stats_destroy(struct vma_hvm_stats *stats)
{
	uint32_t i, j;

	if (!stats)
		return;
	for (i = 0; i < stats->nr_slots; i++) {
		struct vma_exit_stats *e = stats->by_reason[i];

		if (!e)
			continue;
		vma_cycles_release(&e->cycles);
		for (j = 0; j < e->nr_subs; j++)
			vma_cycles_release(&e->subs[j].cycles);
		free(e->subs);
		free(e->index);
		free(e);
	}
	free(stats->by_reason);
	for (i = 0; i < VMA_GUEST_VECTORS; i++) {
		if (!stats->w2h[i])
			continue;
		for (j = 0; j < VMA_W2H_COUNT; j++)
			vma_cycles_release(&stats->w2h[i]->cases[j]);
		free(stats->w2h[i]);
	}
	free(stats);
}

/* reason_slot() for a reason not seen before (or out of memory: NULL). */
static __attribute__((noinline)) struct vma_exit_stats *new_reason_slot(struct vma_hvm_stats *stats,
									  uint32_t reason)
{
	uint32_t idx = reason < MAX_DIRECT_REASON ? reason : MAX_DIRECT_REASON;

	if (idx >= stats->nr_slots) {
		uint32_t n = stats->nr_slots ? stats->nr_slots : 64;
		struct vma_exit_stats **arr;

		while (n <= idx)
			n *= 2;
		arr = realloc(stats->by_reason, n * sizeof(*arr));
		if (!arr)
			return NULL;
		memset(arr + stats->nr_slots, 0, (n - stats->nr_slots) * sizeof(*arr));
		stats->by_reason = arr;
		stats->nr_slots = n;
	}
	if (!stats->by_reason[idx]) {
		stats->by_reason[idx] = calloc(1, sizeof(struct vma_exit_stats));
		if (stats->by_reason[idx])
			stats->by_reason[idx]->reason = reason;
	}
	return stats->by_reason[idx];
}

static inline struct vma_exit_stats *reason_slot(struct vma_hvm_stats *stats, uint32_t reason)
{
	if (__builtin_expect(reason < stats->nr_slots && reason < MAX_DIRECT_REASON, 1) &&
	    __builtin_expect(stats->by_reason[reason] != NULL, 1))
		return stats->by_reason[reason];
	return new_reason_slot(stats, reason);
}

static uint32_t sub_hash(uint32_t handler, uint64_t key, bool is_write)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull ^ (uint64_t)handler * 0xc2b2ae3d27d4eb4full ^
		     is_write;

	return (uint32_t)(h ^ h >> 29);
}

/* Rebuild the hash index for @cap subs (index slots: 2 * cap, a power of two). */
static bool reindex(struct vma_exit_stats *e, uint32_t cap)
{
	uint32_t slots = 2 * cap, i;
	uint32_t *index = malloc(slots * sizeof(*index));

	if (!index)
		return false;
	memset(index, 0xff, slots * sizeof(*index));
	for (i = 0; i < e->nr_subs; i++) {
		const struct vma_exit_sub *s = &e->subs[i];
		uint32_t at = sub_hash(s->handler, s->key, s->is_write) & (slots - 1);

		while (index[at] != UINT32_MAX)
			at = (at + 1) & (slots - 1);
		index[at] = i;
	}
	free(e->index);
	e->index = index;
	return true;
}

static inline void remember(struct vma_exit_stats *e, uint32_t i)
{
	e->last_sub = i;
	e->last_handler = e->subs[i].handler;
	e->last_key = e->subs[i].key;
	e->last_write = e->subs[i].is_write;
}

/*
 * The sub-summary for a refinement other than the last one found: through
 * the hash index, or added; past VMA_MAX_SUBS, new keys share the
 * handler's "other" entry.
 */
static __attribute__((noinline)) struct vma_exit_sub *find_sub(struct vma_exit_stats *e,
								uint32_t handler, uint64_t key,
								bool is_write)
{
	uint32_t slots, at, i;

	for (;;) {
		if (e->index) {
			slots = 2 * e->cap_subs;
			at = sub_hash(handler, key, is_write) & (slots - 1);
			while ((i = e->index[at]) != UINT32_MAX) {
				struct vma_exit_sub *s = &e->subs[i];

				if (s->handler == handler && s->key == key &&
				    s->is_write == is_write) {
					remember(e, i);
					return s;
				}
				at = (at + 1) & (slots - 1);
			}
		}
		if (e->nr_subs < VMA_MAX_SUBS || key == VMA_SUB_OTHER)
			break;
		key = VMA_SUB_OTHER;
	}
	if (e->nr_subs == e->cap_subs) {
		uint32_t cap = e->cap_subs ? e->cap_subs * 2 : 4;
		struct vma_exit_sub *subs = realloc(e->subs, cap * sizeof(*subs));

		if (!subs)
			return NULL;
		e->subs = subs;
		e->cap_subs = cap;
		if (!reindex(e, cap))
			return NULL;
	}
	i = e->nr_subs++;
	memset(&e->subs[i], 0, sizeof(e->subs[i]));
	e->subs[i].handler = handler;
	e->subs[i].key = key;
	e->subs[i].is_write = is_write;
	slots = 2 * e->cap_subs;
	at = sub_hash(handler, key, is_write) & (slots - 1);
	while (e->index[at] != UINT32_MAX)
		at = (at + 1) & (slots - 1);
	e->index[at] = i;
	remember(e, i);
	return &e->subs[i];
}

/* The sub-summary for a refinement: most arcs repeat the last one found. */
static inline struct vma_exit_sub *sub_slot(struct vma_exit_stats *e, uint32_t handler,
					    uint64_t key, bool is_write)
{
	/* The last sub's key is kept here, so that a miss does not load the sub. */
	if (e->nr_subs && e->last_key == key && e->last_handler == handler &&
	    e->last_write == is_write)
		return &e->subs[e->last_sub];
	return find_sub(e, handler, key, is_write);
}

void vma_hvm_stats_add_exit(struct vma_hvm_stats *stats, uint32_t reason, uint64_t cycles)
{
	struct vma_exit_stats *e = reason_slot(stats, reason);

	/* The sample is kept by the sub (see struct vma_exit_stats). */
	if (e)
		vma_cycles_count(&e->cycles, cycles);
}

void vma_hvm_stats_add_sub(struct vma_hvm_stats *stats, uint32_t reason,
			   const struct vma_hvm_inflight *inflight, uint64_t cycles)
{
	struct vma_exit_stats *e = reason_slot(stats, reason);
	struct vma_exit_sub *s;

	if (!e)
		return;
	s = sub_slot(e, inflight->handler, inflight->key, inflight->is_write);
	if (s)
		vma_cycles_add(&s->cycles, cycles);
}

void vma_hvm_stats_add_arc(struct vma_hvm_stats *stats, uint32_t reason,
			   const struct vma_hvm_inflight *inflight, uint64_t cycles)
{
	struct vma_exit_stats *e = reason_slot(stats, reason);
	struct vma_exit_sub *s;

	if (!e)
		return;
	vma_cycles_count(&e->cycles, cycles);
	s = sub_slot(e, inflight->handler, inflight->key, inflight->is_write);
	if (s)
		vma_cycles_add(&s->cycles, cycles);
}

void vma_hvm_stats_add_w2h(struct vma_hvm_stats *stats, uint32_t vector, enum vma_w2h_case c,
			   uint64_t cycles)
{
	if (vector >= VMA_GUEST_VECTORS)
		return;
	if (!stats->w2h[vector])
		stats->w2h[vector] = calloc(1, sizeof(struct vma_w2h_stats));
	if (stats->w2h[vector])
		vma_cycles_add(&stats->w2h[vector]->cases[c], cycles);
}

void vma_hvm_stats_finish(struct vma_hvm_stats *stats)
{
	uint32_t i, j;

	if (!stats)
		return;
	for (i = 0; i < stats->nr_slots; i++) {
		struct vma_exit_stats *e = stats->by_reason[i];

		for (j = 0; e && j < e->nr_subs; j++)
			vma_cycles_merge_samples(&e->cycles, &e->subs[j].cycles);
	}
}
