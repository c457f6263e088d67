/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Accumulating closed exit arcs by reason and refinement (hvm-stats.h).
 * Everything is sized by what the vcpu shows: the exit reasons it had, in
 * a code table (code-index.h), the refinements under each in a dense array
 * behind a hash index of their own (the last one used checked first), and
 * the injected vectors in a code table.  Entries stay where they were
 * added; the report gets them sorted.  No table is indexed by a code from the trace.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/grow.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/state.h"

struct vma_hvm_stats *vma_hvm_stats_create(struct vma_cycles_budget *budget)
{
	struct vma_hvm_stats *stats = calloc(1, sizeof(struct vma_hvm_stats));

	if (stats)
		stats->budget = budget;
	return stats;
}

void vma_hvm_stats_destroy(struct vma_hvm_stats *stats)
{
	uint32_t i, j;

	if (!stats)
		return;
	for (i = 0; i < stats->nr_reasons; i++) {
		struct vma_exit_stats *e = &stats->reasons[i];

		vma_cycles_release(&e->cycles, stats->budget);
		for (j = 0; j < e->nr_subs; j++)
			vma_cycles_release(&e->subs[j].cycles, stats->budget);
		free(e->subs);
		free(e->index);
	}
	free(stats->reasons);
	free(stats->reason_index.slots);
	for (i = 0; i < stats->nr_irqs; i++) {
		if (!stats->irqs[i].w2h)
			continue;
		for (j = 0; j < VMA_W2H_COUNT; j++)
			vma_cycles_release(&stats->irqs[i].w2h->cases[j], stats->budget);
		free(stats->irqs[i].w2h);
	}
	free(stats->irqs);
	free(stats->irq_index.slots);
	free(stats);
}

/* reason_slot() past the first probe (NULL: out of memory). */
static __attribute__((noinline)) struct vma_exit_stats *find_reason(struct vma_hvm_stats *st,
								     uint32_t reason)
{
	uint32_t i = vma_code_table_find(&st->reason_index, st->reasons, sizeof(*st->reasons),
					 reason);

	if (i != UINT32_MAX)
		return &st->reasons[i];
	return vma_code_table_add(&st->reasons, &st->nr_reasons, &st->cap_reasons,
				  sizeof(*st->reasons), &st->reason_index, reason);
}

/* As cheap as a table indexed by code when the first probe finds it (the usual case). */
static inline struct vma_exit_stats *reason_slot(struct vma_hvm_stats *st, uint32_t reason)
{
	struct vma_exit_stats *e = vma_code_table_first(&st->reason_index, st->reasons,
							sizeof(*st->reasons), reason);

	return __builtin_expect(e != NULL, 1) ? e : find_reason(st, reason);
}

const struct vma_exit_stats *vma_hvm_stats_reason(const struct vma_hvm_stats *st,
						  uint32_t reason)
{
	uint32_t i = vma_code_table_find(&st->reason_index, st->reasons, sizeof(*st->reasons),
					 reason);

	return i == UINT32_MAX ? NULL : &st->reasons[i];
}

static uint32_t sub_hash(uint32_t handler, uint64_t key, bool is_write)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull ^ (uint64_t)handler * 0xc2b2ae3d27d4eb4full ^
		     is_write;

	return (uint32_t)(h ^ h >> 29);
}

/* A fresh sub index of @slots empty slots, or NULL. */
static uint32_t *index_new(uint32_t slots)
{
	uint32_t *index = malloc(slots * sizeof(*index));

	if (index)
		memset(index, 0xff, slots * sizeof(*index));
	return index;
}

/* Sub @i into the index of @slots (a power of two) slots, from hash @h on. */
static void sub_put(uint32_t *index, uint32_t slots, uint32_t h, uint32_t i)
{
	uint32_t at = h & (slots - 1);

	while (index[at] != UINT32_MAX)
		at = (at + 1) & (slots - 1);
	index[at] = i;
}

/* Rebuild the hash index for @cap subs (index slots: 2 * cap, a power of two). */
static bool reindex(struct vma_exit_stats *e, uint32_t cap)
{
	uint32_t slots = 2 * cap, i;
	uint32_t *index = index_new(slots);

	if (!index)
		return false;
	for (i = 0; i < e->nr_subs; i++) {
		const struct vma_exit_sub *s = &e->subs[i];

		sub_put(index, slots, sub_hash(s->handler, s->key, s->is_write), i);
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
		size_t cap = e->cap_subs;

		if (vma_grow(e->subs, &cap, e->nr_subs + 1, 4) || cap > UINT32_MAX / 2)
			return NULL;
		e->cap_subs = (uint32_t)cap;
		if (!reindex(e, e->cap_subs))
			return NULL;
	}
	i = e->nr_subs++;
	memset(&e->subs[i], 0, sizeof(e->subs[i]));
	e->subs[i].handler = handler;
	e->subs[i].key = key;
	e->subs[i].is_write = is_write;
	sub_put(e->index, 2 * e->cap_subs, sub_hash(handler, key, is_write), i);
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
		vma_cycles_add(&s->cycles, cycles, stats->budget);
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
		vma_cycles_add(&s->cycles, cycles, stats->budget);
}

/* irq_slot() past the first probe (NULL: out of memory). */
static __attribute__((noinline)) struct vma_irq_stats *find_irq(struct vma_hvm_stats *st,
								uint32_t vector)
{
	uint32_t i = vma_code_table_find(&st->irq_index, st->irqs, sizeof(*st->irqs), vector);

	if (i != UINT32_MAX)
		return &st->irqs[i];
	return vma_code_table_add(&st->irqs, &st->nr_irqs, &st->cap_irqs, sizeof(*st->irqs),
				  &st->irq_index, vector);
}

/* The entry of @vector (at most VMA_GUEST_VECTORS); NULL: out of memory. */
static inline struct vma_irq_stats *irq_slot(struct vma_hvm_stats *st, uint32_t vector)
{
	struct vma_irq_stats *q = vma_code_table_first(&st->irq_index, st->irqs,
						       sizeof(*st->irqs), vector);

	return __builtin_expect(q != NULL, 1) ? q : find_irq(st, vector);
}

void vma_hvm_stats_count_irq(struct vma_hvm_stats *stats, uint32_t vector)
{
	struct vma_irq_stats *q =
		irq_slot(stats, vector < VMA_GUEST_VECTORS ? vector : VMA_GUEST_VECTORS);

	if (q)
		q->count++;
}

uint64_t vma_hvm_stats_irqs(const struct vma_hvm_stats *stats, uint32_t vector)
{
	uint32_t i = vma_code_table_find(&stats->irq_index, stats->irqs, sizeof(*stats->irqs),
					 vector);

	return vector > VMA_GUEST_VECTORS || i == UINT32_MAX ? 0 : stats->irqs[i].count;
}

void vma_hvm_stats_add_w2h(struct vma_hvm_stats *stats, uint32_t vector, enum vma_w2h_case c,
			   uint64_t cycles)
{
	struct vma_irq_stats *q;

	if (vector >= VMA_GUEST_VECTORS)
		return;
	q = irq_slot(stats, vector);
	if (q && !q->w2h)
		q->w2h = calloc(1, sizeof(*q->w2h));
	if (q && q->w2h)
		vma_cycles_add(&q->w2h->cases[c], cycles, stats->budget);
}
