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

static bool bump(uint64_t **arr, uint32_t *nr, uint32_t idx)
{
	if (idx >= *nr) {
		uint32_t n = *nr ? *nr : 16;
		uint64_t *a;

		if (idx > 0xffff)
			return false;
		while (n <= idx)
			n *= 2;
		a = realloc(*arr, n * sizeof(*a));
		if (!a)
			return false;
		memset(a + *nr, 0, (n - *nr) * sizeof(*a));
		*arr = a;
		*nr = n;
	}
	(*arr)[idx]++;
	return true;
}

/* Count @number (at most 0xffff, as the dense tables once held) in a code table. */
static void bump_number(struct vma_pv_count **arr, uint32_t *nr, uint32_t *cap,
			struct vma_code_index *x, uint32_t number)
{
	uint32_t i;
	struct vma_pv_count *c;

	if (number > 0xffff)
		return;
	c = vma_code_table_first(x, *arr, sizeof(**arr), number);
	if (__builtin_expect(c == NULL, 0)) {
		i = vma_code_table_find(x, *arr, sizeof(**arr), number);
		c = i != UINT32_MAX ? &(*arr)[i]
				    : vma_code_table_add(arr, nr, cap, sizeof(**arr), x, number);
	}
	if (c)
		c->count++;
}

/* The state column of the PV rows of the Xen event table. */
typedef void pv_event_fn(struct vma_pv *pv, const struct vma_record *rec);

/* Every PV record counts as an event of its minor number (64-bit flag dropped). */
static void count(struct vma_pv *pv, const struct vma_record *rec)
{
	bump(&pv->counts, &pv->nr_counts, rec->event & 0xff);
}

static void hypercall_v1(struct vma_pv *pv, const struct vma_record *rec)
{
	count(pv, rec);
	bump_number(&pv->hypercalls, &pv->nr_hypercalls, &pv->cap_hypercalls,
		    &pv->hypercall_index, vma_xf_hc1_eax(rec));
}

/* v2: word 0 is the hypercall number plus argument flags. */
static void hypercall_v2(struct vma_pv *pv, const struct vma_record *rec)
{
	count(pv, rec);
	bump_number(&pv->hypercalls, &pv->nr_hypercalls, &pv->cap_hypercalls,
		    &pv->hypercall_index, vma_xf_hc2_op(rec) & 0xfffff);
}

/* The trap number (15 bits; xenalyze keeps 0 to 19 only). */
static void pv_trap(struct vma_pv *pv, const struct vma_record *rec)
{
	count(pv, rec);
	bump_number(&pv->traps, &pv->nr_traps, &pv->cap_traps, &pv->trap_index,
		    vma_xf_trap_info(rec) & 0x7fff);
}

/* A record of a PV row, its columns passed as constants by the switch below. */
static inline __attribute__((always_inline)) void
pv_row(struct vma_machine *m, struct vma_pv *pv, const struct vma_record *rec,
       struct vma_outcome *out, enum vma_xe_index row, unsigned int words, unsigned int flags,
       pv_event_fn *state)
{
	if (__builtin_expect(vma_xe_short(rec, words, flags), 0))
		vma_state_refuse_short(m, row, rec, out);
	else
		state(pv, rec);
}

int vma_pv_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		  struct vma_outcome *out)
{
	struct vma_pv *pv = &p->current->pv;

	/* Dispatch let an untyped vcpu through: its first PV record types it. */
	if (p->current->type != VMA_VCPU_PV)
		vma_vcpu_set_type(p->current, VMA_VCPU_PV);
	switch (rec->event) {
#define PV_CASE(sym, id, name, words, flags, state, describe) \
	case (id):                                             \
		pv_row(m, pv, rec, out, VMA_XE_##sym, words, flags, state); \
		break;
		VMA_XEN_PV_EVENTS(PV_CASE)
#undef PV_CASE
	default:
		count(pv, rec);
		break;
	}
	return VMA_OK;
}
