/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PV vcpus: counts of PV events, of hypercalls and of traps by number.  PV records
 * open no arcs, so there is no timing, as in xenalyze.  Event minors are at
 * most 255 (a dense table); hypercall and trap numbers are kept as seen.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/state-handlers.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

/* bump() for an @idx past the table: it grows to hold it (out of memory: not counted). */
static __attribute__((noinline)) void bump_grown(uint64_t **arr, uint32_t *nr, uint32_t idx)
{
	uint32_t n = *nr ? *nr : 16;
	uint64_t *a;

	if (idx > 0xffff)
		return;
	while (n <= idx)
		n *= 2;
	a = realloc(*arr, n * sizeof(*a));
	if (!a)
		return;
	memset(a + *nr, 0, (n - *nr) * sizeof(*a));
	*arr = a;
	*nr = n;
	a[idx]++;
}

/* Count @idx in a dense table; every PV record does, so the usual case is inline. */
static inline void bump(uint64_t **arr, uint32_t *nr, uint32_t idx)
{
	if (__builtin_expect(idx < *nr, 1))
		(*arr)[idx]++;
	else
		bump_grown(arr, nr, idx);
}

/* Rows' bytes of a table of @cap numbers (cycles.h's rows budget), with its index. */
static size_t table_bytes(uint32_t cap)
{
	return (size_t)cap * sizeof(struct vma_pv_count) +
	       (size_t)vma_code_index_slots(cap) * sizeof(uint32_t);
}

/*
 * A new number's entry, the table's growth charged to @b; when @b
 * refuses it, the VMA_PV_OTHER entry: the least counted number's entry
 * made into it (its count is the other entry's from now), so that the
 * floor costs no memory.
 */
static struct vma_pv_count *add_number(struct vma_cycles_budget *b, struct vma_pv_count **arr,
				       uint32_t *nr, uint32_t *cap, struct vma_code_index *x,
				       uint32_t number)
{
	size_t bytes = table_bytes(vma_code_table_grown(*cap)) - table_bytes(*cap);
	struct vma_pv_count *c;
	uint32_t i;

	if (*nr < *cap || vma_rows_charge(b, bytes)) {
		c = vma_code_table_add(arr, nr, cap, sizeof(**arr), x, number);
		if (!c && *nr == *cap)
			vma_rows_credit(b, bytes);
		return c;
	}
	vma_rows_fold(b);
	i = vma_code_table_find(x, *arr, sizeof(**arr), VMA_PV_OTHER);
	if (i != UINT32_MAX)
		return &(*arr)[i];
	if (*nr) {
		uint32_t best = 0;

		for (i = 1; i < *nr; i++)
			best = (*arr)[i].count < (*arr)[best].count ? i : best;
		vma_code_table_rekey(x, *arr, sizeof(**arr), *nr, best, VMA_PV_OTHER);
		return &(*arr)[best];
	}
	bytes = table_bytes(*cap + 1) - table_bytes(*cap);
	vma_rows_force(b, bytes);
	c = vma_code_table_add_one(arr, nr, cap, sizeof(**arr), x, VMA_PV_OTHER);
	if (!c)
		vma_rows_credit(b, bytes);
	return c;
}

/* bump_number() of a @number whose entry the first probe did not find. */
static __attribute__((noinline)) void bump_number_found(struct vma_cycles_budget *b,
							struct vma_pv_count **arr, uint32_t *nr,
							uint32_t *cap, struct vma_code_index *x,
							uint32_t number)
{
	uint32_t i = vma_code_table_find(x, *arr, sizeof(**arr), number);
	struct vma_pv_count *c = i != UINT32_MAX ? &(*arr)[i]
						 : add_number(b, arr, nr, cap, x, number);

	if (c)
		c->count++;
}

/*
 * Count @number (at most 0xffff, as the dense tables once held) in a code
 * table: inline while the first probe finds it, as for most hypercalls.
 */
static inline void bump_number(struct vma_cycles_budget *b, struct vma_pv_count **arr,
			       uint32_t *nr, uint32_t *cap, struct vma_code_index *x,
			       uint32_t number)
{
	struct vma_pv_count *c;

	if (number > 0xffff)
		return;
	c = vma_code_table_first(x, *arr, sizeof(**arr), number);
	if (__builtin_expect(c != NULL, 1))
		c->count++;
	else
		bump_number_found(b, arr, nr, cap, x, number);
}

void vma_pv_release(struct vma_pv *pv, struct vma_cycles_budget *b)
{
	vma_rows_credit(b, table_bytes(pv->cap_hypercalls) + table_bytes(pv->cap_traps));
	free(pv->counts);
	free(pv->hypercalls);
	free(pv->hypercall_index.slots);
	free(pv->traps);
	free(pv->trap_index.slots);
}

/*
 * The state column of the PV rows of the Xen event table; @b: the
 * machine's budget.  Each returns VMA_OK, so that every step of a PV
 * record is a tail call and the usual path needs no stack frame.
 */
typedef int pv_event_fn(struct vma_pv *pv, struct vma_cycles_budget *b,
			const struct vma_record *rec);

/* count() past the end of the table of minors, out of line. */
static __attribute__((noinline)) int count_grown(struct vma_pv *pv, const struct vma_record *rec)
{
	bump_grown(&pv->counts, &pv->nr_counts, rec->event & 0xff);
	return VMA_OK;
}

/* Every PV record counts as an event of its minor number (64-bit flag dropped). */
static inline int count(struct vma_pv *pv, struct vma_cycles_budget *b,
			const struct vma_record *rec)
{
	uint32_t minor = rec->event & 0xff;

	(void)b;
	if (__builtin_expect(minor >= pv->nr_counts, 0))
		return count_grown(pv, rec);
	pv->counts[minor]++;
	return VMA_OK;
}

/* count_number() but for a minor and a number both found at once. */
static __attribute__((noinline)) int count_number_slow(struct vma_pv *pv,
							struct vma_cycles_budget *b,
							const struct vma_record *rec,
							struct vma_pv_count **arr, uint32_t *nr,
							uint32_t *cap, struct vma_code_index *x,
							uint32_t number)
{
	bump(&pv->counts, &pv->nr_counts, rec->event & 0xff);
	bump_number(b, arr, nr, cap, x, number);
	return VMA_OK;
}

/*
 * Count the record's minor and @number (a hypercall's, a trap's): inline
 * when both are counted already, the rest out of line.
 */
static inline int count_number(struct vma_pv *pv, struct vma_cycles_budget *b,
			       const struct vma_record *rec, struct vma_pv_count **arr,
			       uint32_t *nr, uint32_t *cap, struct vma_code_index *x,
			       uint32_t number)
{
	uint32_t minor = rec->event & 0xff;
	struct vma_pv_count *c = number <= 0xffff ? vma_code_table_first(x, *arr, sizeof(**arr),
									 number)
						  : NULL;

	if (__builtin_expect(minor >= pv->nr_counts || c == NULL, 0))
		return count_number_slow(pv, b, rec, arr, nr, cap, x, number);
	pv->counts[minor]++;
	c->count++;
	return VMA_OK;
}

static inline int hypercall_v1(struct vma_pv *pv, struct vma_cycles_budget *b,
			       const struct vma_record *rec)
{
	return count_number(pv, b, rec, &pv->hypercalls, &pv->nr_hypercalls, &pv->cap_hypercalls,
			    &pv->hypercall_index, vma_xf_hc1_eax(rec));
}

/* v2: word 0 is the hypercall number plus argument flags. */
static inline int hypercall_v2(struct vma_pv *pv, struct vma_cycles_budget *b,
			       const struct vma_record *rec)
{
	return count_number(pv, b, rec, &pv->hypercalls, &pv->nr_hypercalls, &pv->cap_hypercalls,
			    &pv->hypercall_index, vma_xf_hc2_op(rec) & 0xfffff);
}

/* The trap number (15 bits; xenalyze keeps 0 to 19 only). */
static inline int pv_trap(struct vma_pv *pv, struct vma_cycles_budget *b,
			  const struct vma_record *rec)
{
	return count_number(pv, b, rec, &pv->traps, &pv->nr_traps, &pv->cap_traps, &pv->trap_index,
			    vma_xf_trap_info(rec) & 0x7fff);
}

/* A record of a PV row, its columns passed as constants by the switch below. */
static inline __attribute__((always_inline)) int
pv_row(struct vma_machine *m, struct vma_pv *pv, const struct vma_record *rec,
       struct vma_outcome *out, enum vma_xe_index row, unsigned int words, unsigned int flags,
       pv_event_fn *state)
{
	if (__builtin_expect(vma_xe_short(rec, words, flags), 0))
		return vma_state_refuse_short(m, row, rec, out);
	return state(pv, &m->budget, rec);
}

/*
 * Dispatch let an untyped vcpu through: its first PV record types it.  A
 * vcpu of another type (which dispatch refuses) is not counted: typing
 * it fails, and the record must not come back here.
 */
static __attribute__((noinline)) int first_pv_record(struct vma_machine *m, struct vma_pcpu *p,
						     const struct vma_record *rec,
						     struct vma_outcome *out)
{
	if (!vma_vcpu_set_type(p->current, VMA_VCPU_PV)) {
		out->unprocessed = true;
		return VMA_OK;
	}
	return vma_pv_record(m, p, rec, out);
}

/*
 * vma_pv_record(), and with @ahead vma_pv_record_ahead(): a record that
 * would type its vcpu or be refused as short is left, nothing done (a
 * count is all the others do, in tables of their own vcpu).
 */
static inline __attribute__((always_inline)) int pv_record(struct vma_machine *m,
							    struct vma_pcpu *p,
							    const struct vma_record *rec,
							    struct vma_outcome *out,
							    const bool ahead)
{
	struct vma_pv *pv = &p->current->pv;

	if (__builtin_expect(p->current->type != VMA_VCPU_PV, 0))
		return ahead ? VMA_NOT_LOCAL : first_pv_record(m, p, rec, out);
#define PV_ROW(sym, words, flags, state)                                           \
	do {                                                                       \
		if (ahead && vma_xe_short(rec, words, flags))                      \
			return VMA_NOT_LOCAL;                                      \
		return pv_row(m, pv, rec, out, VMA_XE_##sym, words, flags, state); \
	} while (0)
	/*
	 * Hypercalls (Xen's v2 records, of either width), most of a PV
	 * guest's records, before the switch: its sparse ids make a tree of
	 * tests (the other rows' tests fold away here).
	 */
#define PV_HYPERCALL(sym, id, name, words, flags, state, describe)                 \
	if (((id) & ~TRC_64_FLAG) == TRC_PV_HYPERCALL_V2 && rec->event == (id))   \
		PV_ROW(sym, words, flags, state);
	VMA_XEN_PV_EVENTS(PV_HYPERCALL)
#undef PV_HYPERCALL
	switch (rec->event) {
#define PV_CASE(sym, id, name, words, flags, state, describe) \
	case (id):                                            \
		PV_ROW(sym, words, flags, state);
		VMA_XEN_PV_EVENTS(PV_CASE)
#undef PV_CASE
#undef PV_ROW
	default:
		return count(pv, &m->budget, rec);
	}
}

int vma_pv_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		  struct vma_outcome *out)
{
	return pv_record(m, p, rec, out, false);
}

int vma_pv_record_ahead(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
			struct vma_outcome *out)
{
	return pv_record(m, p, rec, out, true);
}

/* Add the counts of @from's table to the table at *@arr, new numbers after its own. */
static int numbers_add(struct vma_cycles_budget *b, struct vma_pv_count **arr, uint32_t *nr,
		       uint32_t *cap, struct vma_code_index *x, const struct vma_pv_count *from,
		       uint32_t nr_from)
{
	uint32_t i, k;

	for (i = 0; i < nr_from; i++) {
		struct vma_pv_count *c;

		k = vma_code_table_find(x, *arr, sizeof(**arr), from[i].number);
		c = k != UINT32_MAX ? &(*arr)[k] : add_number(b, arr, nr, cap, x, from[i].number);
		if (!c)
			return VMA_ERR_NOMEM;
		c->count += from[i].count;
	}
	return VMA_OK;
}

int vma_pv_prepend(struct vma_pv *pv, const struct vma_pv *earlier, struct vma_cycles_budget *b)
{
	struct vma_pv both;
	uint32_t i;

	memset(&both, 0, sizeof(both));
	if (numbers_add(b, &both.hypercalls, &both.nr_hypercalls, &both.cap_hypercalls,
			&both.hypercall_index, earlier->hypercalls, earlier->nr_hypercalls) ||
	    numbers_add(b, &both.hypercalls, &both.nr_hypercalls, &both.cap_hypercalls,
			&both.hypercall_index, pv->hypercalls, pv->nr_hypercalls) ||
	    numbers_add(b, &both.traps, &both.nr_traps, &both.cap_traps, &both.trap_index,
			earlier->traps, earlier->nr_traps) ||
	    numbers_add(b, &both.traps, &both.nr_traps, &both.cap_traps, &both.trap_index,
			pv->traps, pv->nr_traps)) {
		vma_pv_release(&both, b);
		return VMA_ERR_NOMEM;
	}
	/* The dense counts: as long as the longer of the two. */
	both.nr_counts = pv->nr_counts > earlier->nr_counts ? pv->nr_counts : earlier->nr_counts;
	if (both.nr_counts) {
		both.counts = calloc(both.nr_counts, sizeof(*both.counts));
		if (!both.counts) {
			vma_pv_release(&both, b);
			return VMA_ERR_NOMEM;
		}
	}
	for (i = 0; i < pv->nr_counts; i++)
		both.counts[i] += pv->counts[i];
	for (i = 0; i < earlier->nr_counts; i++)
		both.counts[i] += earlier->counts[i];
	vma_pv_release(pv, b);
	*pv = both;
	return VMA_OK;
}
