/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Accumulating closed exit arcs by reason and refinement (hvm-stats.h).
 * Everything is sized by what the vcpu shows: the exit reasons it had, in
 * a dense array behind a hash index, the refinements under each the same
 * way (the last one used checked first), and the injected vectors in an
 * array by vector behind a map from vector to entry.  No table is indexed by a code from the trace.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/grow.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/state.h"

struct vma_hvm_stats *vma_hvm_stats_create(void)
{
	return calloc(1, sizeof(struct vma_hvm_stats));
}

void vma_hvm_stats_destroy(struct vma_hvm_stats *stats)
{
	uint32_t i, j;

	if (!stats)
		return;
	for (i = 0; i < stats->nr_reasons; i++) {
		struct vma_exit_stats *e = &stats->reasons[i];

		vma_cycles_release(&e->cycles);
		for (j = 0; j < e->nr_subs; j++)
			vma_cycles_release(&e->subs[j].cycles);
		free(e->subs);
		free(e->index);
	}
	free(stats->reasons);
	free(stats->index);
	for (i = 0; i < stats->nr_irqs; i++) {
		if (!stats->irqs[i].w2h)
			continue;
		for (j = 0; j < VMA_W2H_COUNT; j++)
			vma_cycles_release(&stats->irqs[i].w2h->cases[j]);
		free(stats->irqs[i].w2h);
	}
	free(stats->irqs);
	free(stats->irq_map);
	free(stats);
}

/* The code a reason is found by: codes from VMA_EXIT_CODE_SHARED up share one. */
static inline uint32_t reason_key(uint32_t reason)
{
	return reason < VMA_EXIT_CODE_SHARED ? reason : VMA_EXIT_CODE_SHARED;
}

/*
 * Fibonacci hashing: runs of codes (VMX 0..70, SVM 0x60..0x7f) spread
 * over the slots; the index's slot is the top bits of this.
 */
static inline uint32_t reason_hash(uint32_t key)
{
	return key * 0x9e3779b1u;
}

/* The slot of @key in an index of 2 * cap_reasons slots, 2^(32 - shift). */
static inline uint32_t reason_at(const struct vma_hvm_stats *st, uint32_t key)
{
	return reason_hash(key) >> st->index_shift;
}

/* Entry @i into an open-addressing @index of @slots (a power of two), from slot @at on. */
static void index_put(uint32_t *index, uint32_t slots, uint32_t at, uint32_t i)
{
	while (index[at] != UINT32_MAX)
		at = (at + 1) & (slots - 1);
	index[at] = i;
}

/* A fresh index of @slots empty slots, or NULL. */
static uint32_t *index_new(uint32_t slots)
{
	uint32_t *index = malloc(slots * sizeof(*index));

	if (index)
		memset(index, 0xff, slots * sizeof(*index));
	return index;
}

/* A new reason's summary, its index grown with the array (NULL: out of memory). */
static struct vma_exit_stats *add_reason(struct vma_hvm_stats *st, uint32_t reason)
{
	struct vma_exit_stats *e;
	size_t cap = st->cap_reasons;
	uint32_t i;

	if (st->nr_reasons == st->cap_reasons) {
		uint32_t *index;

		if (vma_grow(st->reasons, &cap, st->nr_reasons + 1, 8) || cap > UINT32_MAX / 2)
			return NULL;
		index = index_new(2 * (uint32_t)cap);
		if (!index)
			return NULL;
		st->cap_reasons = (uint32_t)cap;
		st->index_shift = (uint32_t)__builtin_clz(2 * st->cap_reasons) + 1;
		for (i = 0; i < st->nr_reasons; i++)
			index_put(index, 2 * st->cap_reasons,
				  reason_at(st, reason_key(st->reasons[i].reason)), i);
		free(st->index);
		st->index = index;
	}
	i = st->nr_reasons++;
	e = &st->reasons[i];
	memset(e, 0, sizeof(*e));
	e->reason = reason;
	index_put(st->index, 2 * st->cap_reasons, reason_at(st, reason_key(reason)), i);
	return e;
}

/* reason_slot() past the first probe (NULL: out of memory). */
static __attribute__((noinline)) struct vma_exit_stats *find_reason(struct vma_hvm_stats *st,
								     uint32_t reason)
{
	uint32_t key = reason_key(reason), slots = 2 * st->cap_reasons, at, i;

	if (st->index) {
		for (at = reason_at(st, key); (i = st->index[at]) != UINT32_MAX;
		     at = (at + 1) & (slots - 1)) {
			if (reason_key(st->reasons[i].reason) == key)
				return &st->reasons[i];
		}
	}
	return add_reason(st, reason);
}

/* As cheap as a table indexed by code when the first probe finds it (the usual case). */
static inline struct vma_exit_stats *reason_slot(struct vma_hvm_stats *st, uint32_t reason)
{
	if (__builtin_expect(st->index != NULL, 1)) {
		uint32_t i = st->index[reason_at(st, reason)];

		if (__builtin_expect(i != UINT32_MAX && st->reasons[i].reason == reason, 1))
			return &st->reasons[i];
	}
	return find_reason(st, reason);
}

const struct vma_exit_stats *vma_hvm_stats_reason(const struct vma_hvm_stats *st,
						  uint32_t reason)
{
	uint32_t key = reason_key(reason), slots = 2 * st->cap_reasons, at, i;

	if (!st->index)
		return NULL;
	for (at = reason_at(st, key); (i = st->index[at]) != UINT32_MAX;
	     at = (at + 1) & (slots - 1)) {
		if (reason_key(st->reasons[i].reason) == key)
			return &st->reasons[i];
	}
	return NULL;
}

static int by_code(const void *pa, const void *pb)
{
	uint32_t a = reason_key((*(const struct vma_exit_stats *const *)pa)->reason);
	uint32_t b = reason_key((*(const struct vma_exit_stats *const *)pb)->reason);

	return a < b ? -1 : a > b;
}

void vma_hvm_stats_sorted(const struct vma_hvm_stats *st, const struct vma_exit_stats **out)
{
	uint32_t i;

	for (i = 0; i < st->nr_reasons; i++)
		out[i] = &st->reasons[i];
	if (st->nr_reasons > 1)
		qsort(out, st->nr_reasons, sizeof(*out), by_code);
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
	uint32_t *index = index_new(slots);

	if (!index)
		return false;
	for (i = 0; i < e->nr_subs; i++) {
		const struct vma_exit_sub *s = &e->subs[i];

		index_put(index, slots, sub_hash(s->handler, s->key, s->is_write) & (slots - 1), i);
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
	index_put(e->index, 2 * e->cap_subs,
		  sub_hash(handler, key, is_write) & (2 * e->cap_subs - 1), i);
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

/* irq_slot() for a vector not seen before (NULL: out of memory). */
static __attribute__((noinline)) struct vma_irq_stats *add_irq(struct vma_hvm_stats *st,
							       uint32_t vector)
{
	size_t cap = st->cap_irqs;
	uint32_t at, i;

	if (!st->irq_map) {
		st->irq_map = calloc(VMA_GUEST_VECTORS + 1, sizeof(*st->irq_map));
		if (!st->irq_map)
			return NULL;
	}
	if (vma_grow(st->irqs, &cap, st->nr_irqs + 1, 2))
		return NULL;
	st->cap_irqs = (uint32_t)cap;
	/* Kept in vector order, the report's: the entries after it move up one. */
	for (at = st->nr_irqs; at && st->irqs[at - 1].vector > vector; at--)
		;
	memmove(&st->irqs[at + 1], &st->irqs[at], (st->nr_irqs - at) * sizeof(*st->irqs));
	memset(&st->irqs[at], 0, sizeof(*st->irqs));
	st->irqs[at].vector = vector;
	st->nr_irqs++;
	for (i = at; i < st->nr_irqs; i++)
		st->irq_map[st->irqs[i].vector] = (uint16_t)(i + 1);
	return &st->irqs[at];
}

/* A vector's entry in st->irqs (the map is made on the first injection); NULL: out of memory. */
static inline struct vma_irq_stats *irq_slot(struct vma_hvm_stats *st, uint32_t vector)
{
	if (__builtin_expect(st->irq_map && st->irq_map[vector], 1))
		return &st->irqs[st->irq_map[vector] - 1];
	return add_irq(st, vector);
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
	if (vector > VMA_GUEST_VECTORS || !stats->irq_map || !stats->irq_map[vector])
		return 0;
	return stats->irqs[stats->irq_map[vector] - 1].count;
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
		vma_cycles_add(&q->w2h->cases[c], cycles);
}

void vma_hvm_stats_finish(struct vma_hvm_stats *stats)
{
	uint32_t i, j;

	if (!stats)
		return;
	for (i = 0; i < stats->nr_reasons; i++) {
		struct vma_exit_stats *e = &stats->reasons[i];

		for (j = 0; j < e->nr_subs; j++)
			vma_cycles_merge_samples(&e->cycles, &e->subs[j].cycles);
	}
}
