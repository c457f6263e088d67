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

/*
 * A vcpu's first exit reasons are granted whatever the rows' budget: a
 * vcpu has a few tens at most, and its exits summed in "other" from its
 * first one would leave nothing to read (the hostile case costs 16
 * entries a vcpu, 1.7 KiB).
 */
#define FREE_REASONS 16u

/*
 * A reason's refinements are found by a scan while its table has room
 * for at most this many (most have one to four: no index to allocate),
 * through a hash index beyond.
 */
#define SUB_SCAN 8u

/* Rows' bytes a code table of @cap entries of @size holds, with its index. */
static inline size_t table_bytes(uint32_t cap, size_t size)
{
	return (size_t)cap * size + (size_t)vma_code_index_slots(cap) * sizeof(uint32_t);
}

/* What growing a full code table of @cap entries adds (vma_code_table_grown(), or one entry). */
static inline size_t growth_bytes(uint32_t cap, size_t size, bool one)
{
	uint32_t grown = one ? cap + 1 : vma_code_table_grown(cap);

	return table_bytes(grown, size) - table_bytes(cap, size);
}

/* Rows' bytes a refinement table of @cap entries holds, with its index beyond SUB_SCAN. */
static inline size_t sub_bytes(uint32_t cap)
{
	return (size_t)cap * sizeof(struct vma_exit_sub) +
	       (cap > SUB_SCAN ? (size_t)vma_code_index_slots(cap) * sizeof(uint32_t) : 0);
}

/* What growing a full refinement table adds: doubling (from 1), or one entry when @one. */
static inline size_t sub_growth(uint32_t cap, bool one)
{
	return sub_bytes(one ? cap + 1 : cap ? 2 * cap : 1) - sub_bytes(cap);
}

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
	size_t rows = 0;

	if (!stats)
		return;
	for (i = 0; i < stats->nr_reasons; i++) {
		struct vma_exit_stats *e = &stats->reasons[i];

		for (j = 0; j < e->nr_subs; j++)
			vma_cycles_release(&e->subs[j].cycles, stats->budget);
		rows += sub_bytes(e->cap_subs);
		free(e->subs);
		free(e->index);
	}
	rows += table_bytes(stats->cap_reasons, sizeof(*stats->reasons));
	free(stats->reasons);
	free(stats->reason_index.slots);
	for (i = 0; i < stats->nr_irqs; i++) {
		if (!stats->irqs[i].w2h)
			continue;
		for (j = 0; j < VMA_W2H_COUNT; j++)
			vma_cycles_release(&stats->irqs[i].w2h->cases[j], stats->budget);
		rows += sizeof(*stats->irqs[i].w2h);
		free(stats->irqs[i].w2h);
	}
	rows += table_bytes(stats->cap_irqs, sizeof(*stats->irqs));
	free(stats->irqs);
	free(stats->irq_index.slots);
	vma_rows_credit(stats->budget, rows);
	free(stats);
}

/* How a row is charged to the rows' budget. */
enum row_kind {
	ROW_KEY,   /* a key's: refused past the limit */
	ROW_FREE,  /* granted whatever the limit (a vcpu's first exit reasons) */
	ROW_OTHER, /* an "other" row: granted, and a full table grows by it alone */
};

/*
 * vma_code_table_add() of @code, its growth charged to @b as @kind says.
 * NULL when refused (ROW_KEY only) or out of memory.
 */
static void *code_row_add(struct vma_cycles_budget *b, void *entriesp, uint32_t *nr,
			  uint32_t *cap, size_t size, struct vma_code_index *x, uint32_t code,
			  enum row_kind kind)
{
	size_t bytes = *nr == *cap ? growth_bytes(*cap, size, kind == ROW_OTHER) : 0;
	void *e;

	if (bytes && kind == ROW_KEY && !vma_rows_charge(b, bytes))
		return NULL;
	if (bytes && kind != ROW_KEY)
		vma_rows_force(b, bytes);
	e = kind == ROW_OTHER ? vma_code_table_add_one(entriesp, nr, cap, size, x, code)
			      : vma_code_table_add(entriesp, nr, cap, size, x, code);
	if (!e)
		vma_rows_credit(b, bytes);
	return e;
}

/*
 * reason_slot() past the first probe (NULL: out of memory).  A reason
 * past the rows' budget joins the entry of the codes from
 * VMA_CODE_SHARED up (made with that code when it is the first).
 */
static __attribute__((noinline)) struct vma_exit_stats *find_reason(struct vma_hvm_stats *st,
								     uint32_t reason)
{
	uint32_t i = vma_code_table_find(&st->reason_index, st->reasons, sizeof(*st->reasons),
					 reason);
	struct vma_exit_stats *e;

	if (i != UINT32_MAX)
		return &st->reasons[i];
	e = code_row_add(st->budget, &st->reasons, &st->nr_reasons, &st->cap_reasons,
			 sizeof(*st->reasons), &st->reason_index, reason,
			 reason >= VMA_CODE_SHARED ? ROW_OTHER
			 : st->nr_reasons < FREE_REASONS ? ROW_FREE : ROW_KEY);
	if (e || st->nr_reasons < st->cap_reasons)
		return e;
	vma_rows_fold(st->budget);
	st->folded_reasons = true;
	i = vma_code_table_find(&st->reason_index, st->reasons, sizeof(*st->reasons),
				VMA_CODE_SHARED);
	if (i != UINT32_MAX)
		return &st->reasons[i];
	return code_row_add(st->budget, &st->reasons, &st->nr_reasons, &st->cap_reasons,
			    sizeof(*st->reasons), &st->reason_index, VMA_CODE_SHARED, ROW_OTHER);
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

/*
 * A slot of the sub index holds the sub's number in its low half and the
 * top half of its hash in the high one, so that a probe passes the slots
 * of other subs without reading them (a cache miss each, with keys that
 * rarely repeat).  A table holds fewer than SUB_NUMBER subs (VMA_MAX_SUBS
 * and an "other" row per handler and direction past it; add_sub() stops
 * there), so no slot is UINT32_MAX, the empty one.
 */
#define SUB_TAG 0xffff0000u
#define SUB_NUMBER 0x0000ffffu

/* With the cap lifted (struct vma_rows_budget's uncapped), a table holds at most this many. */
#define UNCAPPED_SUBS 4096u

_Static_assert(UNCAPPED_SUBS < SUB_NUMBER, "sub numbers fit a slot's low half");

/* Sub @i into the index of @slots (vma_code_index_slots()) slots, from hash @h on. */
static void sub_put(uint32_t *index, uint32_t slots, uint32_t h, uint32_t i)
{
	uint32_t at = h & (slots - 1);

	while (index[at] != UINT32_MAX)
		at = (at + 1) & (slots - 1);
	index[at] = (h & SUB_TAG) | i;
}

/* Put every sub of @e into @index, of @slots empty slots. */
static void index_fill(const struct vma_exit_stats *e, uint32_t *index, uint32_t slots)
{
	uint32_t i;

	for (i = 0; i < e->nr_subs; i++) {
		const struct vma_exit_sub *s = &e->subs[i];

		sub_put(index, slots, sub_hash(s->handler, s->key, s->is_write), i);
	}
}

/*
 * The hash index for @cap subs (its slots: vma_code_index_slots()),
 * rebuilt; none while @cap is at most SUB_SCAN.
 */
static bool reindex(struct vma_exit_stats *e, uint32_t cap)
{
	uint32_t slots = vma_code_index_slots(cap);
	uint32_t *index;

	if (cap <= SUB_SCAN)
		return true;
	index = index_new(slots);
	if (!index)
		return false;
	index_fill(e, index, slots);
	free(e->index);
	e->index = index;
	return true;
}

/* The sub of (@handler, @key, @is_write) in @e, or UINT32_MAX. */
static uint32_t sub_find(const struct vma_exit_stats *e, uint32_t handler, uint64_t key,
			 bool is_write)
{
	uint32_t slots, at, i, h, slot;

	if (!e->index) {
		for (i = 0; i < e->nr_subs; i++) {
			const struct vma_exit_sub *s = &e->subs[i];

			if (s->handler == handler && s->key == key && s->is_write == is_write)
				return i;
		}
		return UINT32_MAX;
	}
	slots = vma_code_index_slots(e->cap_subs);
	h = sub_hash(handler, key, is_write);
	for (at = h & (slots - 1); (slot = e->index[at]) != UINT32_MAX;
	     at = (at + 1) & (slots - 1)) {
		const struct vma_exit_sub *s = &e->subs[slot & SUB_NUMBER];

		if ((slot & SUB_TAG) == (h & SUB_TAG) && s->handler == handler && s->key == key &&
		    s->is_write == is_write)
			return slot & SUB_NUMBER;
	}
	return UINT32_MAX;
}

/*
 * A full table whose growth the rows' budget refused needs an "other"
 * entry for (@handler, @is_write): its least used entry of that handler
 * and direction becomes it (its events are the other entry's from now),
 * so that the floor costs no memory.  Return: that entry, or UINT32_MAX
 * when the handler has none in the table.
 */
static uint32_t rekey_other(struct vma_exit_stats *e, uint32_t handler, bool is_write)
{
	uint32_t i, best = UINT32_MAX, slots = vma_code_index_slots(e->cap_subs);

	for (i = 0; i < e->nr_subs; i++) {
		const struct vma_exit_sub *s = &e->subs[i];

		if (s->handler != handler || s->is_write != is_write || s->key == VMA_SUB_OTHER)
			continue;
		if (best == UINT32_MAX || s->cycles.events < e->subs[best].cycles.events)
			best = i;
	}
	if (best == UINT32_MAX)
		return best;
	e->subs[best].key = VMA_SUB_OTHER;
	if (e->index) {
		memset(e->index, 0xff, slots * sizeof(*e->index));
		index_fill(e, e->index, slots);
	}
	return best;
}

static inline void remember(struct vma_exit_stats *e, uint32_t i)
{
	e->last_sub = i;
	e->last_handler = e->subs[i].handler;
	e->last_key = e->subs[i].key;
	e->last_write = e->subs[i].is_write;
}

/*
 * (@handler, @key, @is_write) is not in @e's table: it is added, or past
 * VMA_MAX_SUBS, or when the rows' budget refuses the table's growth, it
 * shares the handler's "other" entry.  Return: the entry, or NULL when
 * memory ran out.
 */
static __attribute__((noinline)) struct vma_exit_sub *add_sub(struct vma_cycles_budget *b,
							       struct vma_exit_stats *e,
							       uint32_t handler, uint64_t key,
							       bool is_write)
{
	size_t bytes = sub_growth(e->cap_subs, false);
	bool charged = false, folded = false;
	uint32_t i;

	for (;;) {
		if (key == VMA_SUB_OTHER)
			break;
		if (e->nr_subs >= VMA_MAX_SUBS &&
		    !(b && b->rows.uncapped && e->nr_subs < UNCAPPED_SUBS)) {
			/* Past even the lifted cap: the parts will not be joined. */
			if (b && b->rows.uncapped)
				vma_rows_fold(b);
			key = VMA_SUB_OTHER;
		} else if (e->nr_subs < e->cap_subs || (charged = vma_rows_charge(b, bytes))) {
			break;
		} else {
			key = VMA_SUB_OTHER;
			folded = true;
		}
		i = sub_find(e, handler, key, is_write);
		if (i != UINT32_MAX) {
			if (folded)
				vma_rows_fold(b);
			remember(e, i);
			return &e->subs[i];
		}
	}
	if (folded)
		vma_rows_fold(b);
	if (folded && e->nr_subs == e->cap_subs &&
	    (i = rekey_other(e, handler, is_write)) != UINT32_MAX) {
		remember(e, i);
		return &e->subs[i];
	}
	if (e->nr_subs == e->cap_subs) {
		size_t cap = e->cap_subs;

		/* An "other" entry the budget did not grant: room for it alone. */
		if (!charged) {
			bytes = sub_growth(e->cap_subs, true);
			vma_rows_force(b, bytes);
		}
		if ((charged ? vma_grow(e->subs, &cap, e->nr_subs + 1, 1)
			     : vma_grow_one(e->subs, &cap)) ||
		    cap > SUB_NUMBER || !reindex(e, (uint32_t)cap)) {
			/* the table keeps its capacity (the array may be larger) */
			vma_rows_credit(b, bytes);
			return NULL;
		}
		e->cap_subs = (uint32_t)cap;
	}
	i = e->nr_subs++;
	memset(&e->subs[i], 0, sizeof(e->subs[i]));
	e->subs[i].handler = handler;
	e->subs[i].key = key;
	e->subs[i].is_write = is_write;
	if (e->index)
		sub_put(e->index, vma_code_index_slots(e->cap_subs), sub_hash(handler, key, is_write),
			i);
	remember(e, i);
	return &e->subs[i];
}

/*
 * The sub-summary for a refinement other than the last one found: by a
 * scan or through the hash index; added (add_sub()) when it is new.
 * Apart from add_sub(), so that a key found costs no stack frame.
 */
static __attribute__((noinline)) struct vma_exit_sub *find_sub(struct vma_cycles_budget *b,
								struct vma_exit_stats *e,
								uint32_t handler, uint64_t key,
								bool is_write)
{
	uint32_t i = sub_find(e, handler, key, is_write);

	if (__builtin_expect(i == UINT32_MAX, 0))
		return add_sub(b, e, handler, key, is_write);
	remember(e, i);
	return &e->subs[i];
}

/* The sub-summary for a refinement: most arcs repeat the last one found. */
static inline struct vma_exit_sub *sub_slot(struct vma_cycles_budget *b, struct vma_exit_stats *e,
					    uint32_t handler, uint64_t key, bool is_write)
{
	/* The last sub's key is kept here, so that a miss does not load the sub. */
	if (e->nr_subs && e->last_key == key && e->last_handler == handler &&
	    e->last_write == is_write)
		return &e->subs[e->last_sub];
	return find_sub(b, e, handler, key, is_write);
}

void vma_hvm_stats_add_exit(struct vma_hvm_stats *stats, uint32_t reason, uint64_t cycles)
{
	struct vma_exit_stats *e = reason_slot(stats, reason);

	/* The sample is kept by the sub (see struct vma_exit_stats). */
	if (e)
		vma_cycles_counts_add(&e->cycles, cycles);
}

void vma_hvm_stats_add_sub(struct vma_hvm_stats *stats, uint32_t reason,
			   const struct vma_hvm_inflight *inflight, uint64_t cycles)
{
	struct vma_exit_stats *e = reason_slot(stats, reason);
	struct vma_exit_sub *s;

	if (!e)
		return;
	s = sub_slot(stats->budget, e, inflight->handler, inflight->key, inflight->is_write);
	if (s)
		vma_cycles_add(&s->cycles, cycles, stats->budget);
}

int vma_hvm_stats_add_arc(struct vma_hvm_stats *stats, uint32_t reason,
			  const struct vma_hvm_inflight *inflight, uint64_t cycles)
{
	struct vma_exit_stats *e = reason_slot(stats, reason);
	struct vma_exit_sub *s;

	if (!e)
		return VMA_OK;
	vma_cycles_counts_add(&e->cycles, cycles);
	s = sub_slot(stats->budget, e, inflight->handler, inflight->key, inflight->is_write);
	if (s)
		vma_cycles_add(&s->cycles, cycles, stats->budget);
	return VMA_OK;
}

/* Whether vector entry @a is a better one than @b to make the "other" one. */
static bool rather(const struct vma_irq_stats *a, const struct vma_irq_stats *b)
{
	/* wake-to-halt summaries come with it: the other entry needs none made */
	if (!a->w2h != !b->w2h)
		return a->w2h != NULL;
	return a->count < b->count;
}

/*
 * The "other" vectors' entry, made when first wanted: from the least
 * injected vector below VMA_GUEST_VECTORS with wake-to-halt summaries
 * when it is for those (@w2h) or the table is full, or without (its
 * counts and summaries are the other entry's from now); else in the
 * table's room, or by growing the table by one entry.  NULL: out of
 * memory.
 */
static struct vma_irq_stats *other_irq(struct vma_hvm_stats *st, bool w2h)
{
	uint32_t i = vma_code_table_find(&st->irq_index, st->irqs, sizeof(*st->irqs),
					 VMA_IRQ_OTHER), best = UINT32_MAX;

	if (i != UINT32_MAX)
		return &st->irqs[i];
	for (i = 0; i < st->nr_irqs; i++) {
		if (st->irqs[i].vector < VMA_GUEST_VECTORS &&
		    (best == UINT32_MAX || rather(&st->irqs[i], &st->irqs[best])))
			best = i;
	}
	if (best != UINT32_MAX && st->nr_irqs < st->cap_irqs && !(w2h && st->irqs[best].w2h))
		best = UINT32_MAX;
	if (best != UINT32_MAX) {
		vma_code_table_rekey(&st->irq_index, st->irqs, sizeof(*st->irqs), st->nr_irqs, best,
				     VMA_IRQ_OTHER);
		return &st->irqs[best];
	}
	return code_row_add(st->budget, &st->irqs, &st->nr_irqs, &st->cap_irqs, sizeof(*st->irqs),
			    &st->irq_index, VMA_IRQ_OTHER, ROW_OTHER);
}

/*
 * irq_slot() past the first probe (NULL: out of memory); a vector past
 * the rows' budget goes to the "other" entry.
 */
static __attribute__((noinline)) struct vma_irq_stats *find_irq(struct vma_hvm_stats *st,
								uint32_t vector)
{
	uint32_t i = vma_code_table_find(&st->irq_index, st->irqs, sizeof(*st->irqs), vector);
	struct vma_irq_stats *q;

	if (i != UINT32_MAX)
		return &st->irqs[i];
	q = code_row_add(st->budget, &st->irqs, &st->nr_irqs, &st->cap_irqs, sizeof(*st->irqs),
			 &st->irq_index, vector, ROW_KEY);
	if (q || st->nr_irqs < st->cap_irqs)
		return q;
	vma_rows_fold(st->budget);
	return other_irq(st, false);
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
	if (q && !q->w2h) {
		/* Past the rows' budget: the "other" entry's summaries, always made. */
		bool other = q->vector == VMA_IRQ_OTHER;

		if (!other && !vma_rows_charge(stats->budget, sizeof(*q->w2h))) {
			vma_rows_fold(stats->budget);
			q = other_irq(stats, true);
			other = true;
		}
		if (q && !q->w2h) {
			if (other)
				vma_rows_force(stats->budget, sizeof(*q->w2h));
			q->w2h = calloc(1, sizeof(*q->w2h));
			if (!q->w2h)
				vma_rows_credit(stats->budget, sizeof(*q->w2h));
		}
	}
	if (q && q->w2h)
		vma_cycles_add(&q->w2h->cases[c], cycles, stats->budget);
}

/*
 * Add @from's summaries to @st, as if @from's arcs had come after @st's:
 * a row new to @st goes after its rows.  NULL-free; the caller checked
 * that neither table reached the rows' budget (the rows' "other" entries
 * are then only VMA_MAX_SUBS's, which add_sub() makes as a run would).
 */
static int stats_add(struct vma_hvm_stats *st, const struct vma_hvm_stats *from)
{
	struct vma_cycles_budget *b = st->budget;
	uint32_t i, j, c;

	for (i = 0; i < from->nr_reasons; i++) {
		const struct vma_exit_stats *f = &from->reasons[i];
		struct vma_exit_stats *e = find_reason(st, f->reason);

		if (!e)
			return VMA_ERR_NOMEM;
		e->cycles.events += f->cycles.events;
		e->cycles.count += f->cycles.count;
		e->cycles.cycles += f->cycles.cycles;
		for (j = 0; j < f->nr_subs; j++) {
			const struct vma_exit_sub *fs = &f->subs[j];
			struct vma_exit_sub *s = find_sub(b, e, fs->handler, fs->key, fs->is_write);

			if (!s || vma_cycles_merge(&s->cycles, &fs->cycles, b))
				return VMA_ERR_NOMEM;
		}
	}
	for (i = 0; i < from->nr_irqs; i++) {
		const struct vma_irq_stats *f = &from->irqs[i];
		struct vma_irq_stats *q = find_irq(st, f->vector);

		if (!q)
			return VMA_ERR_NOMEM;
		q->count += f->count;
		if (!f->w2h)
			continue;
		if (!q->w2h) {
			vma_rows_force(b, sizeof(*q->w2h));
			q->w2h = calloc(1, sizeof(*q->w2h));
			if (!q->w2h) {
				vma_rows_credit(b, sizeof(*q->w2h));
				return VMA_ERR_NOMEM;
			}
		}
		for (c = 0; c < VMA_W2H_COUNT; c++) {
			if (vma_cycles_merge(&q->w2h->cases[c], &f->w2h->cases[c], b))
				return VMA_ERR_NOMEM;
		}
	}
	return VMA_OK;
}

int vma_hvm_stats_prepend(struct vma_hvm_stats **stats, const struct vma_hvm_stats *earlier,
			  struct vma_cycles_budget *budget)
{
	struct vma_hvm_stats *st;

	if (!earlier)
		return VMA_OK;
	st = vma_hvm_stats_create(budget);
	if (!st)
		return VMA_ERR_NOMEM;
	if (stats_add(st, earlier) || (*stats && stats_add(st, *stats))) {
		vma_hvm_stats_destroy(st);
		return VMA_ERR_NOMEM;
	}
	vma_hvm_stats_destroy(*stats);
	*stats = st;
	return VMA_OK;
}
