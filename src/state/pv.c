/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PV vcpus: counts of PV events and of hypercalls by number.  PV records
 * open no arcs, so there is no timing, as in xenalyze.
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
	bump(&pv->hypercalls, &pv->nr_hypercalls, vma_xf_hc1_eax(rec));
}

/* v2: word 0 is the hypercall number plus argument flags. */
static void hypercall_v2(struct vma_pv *pv, const struct vma_record *rec)
{
	count(pv, rec);
	bump(&pv->hypercalls, &pv->nr_hypercalls, vma_xf_hc2_op(rec) & 0xfffff);
}

static pv_event_fn *const pv_state[VMA_XE_COUNT] = {
#define PV_STATE(sym, id, name, words, flags, state, describe) [VMA_XE_##sym] = state,
	VMA_XEN_PV_EVENTS(PV_STATE)
#undef PV_STATE
};

int vma_pv_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		  struct vma_outcome *out)
{
	struct vma_pv *pv = &p->current->pv;
	enum vma_xe_index row = vma_xen_event_index_in(VMA_XEN_CLASS_PV, rec->event);

	/* Dispatch let an untyped vcpu through: its first PV record types it. */
	if (p->current->type != VMA_VCPU_PV)
		vma_vcpu_set_type(p->current, VMA_VCPU_PV);
	if (row == VMA_XE_NONE || !pv_state[row])
		count(pv, rec);
	else if (vma_xen_event_short(row, rec))
		vma_state_refuse_short(m, row, rec, out);
	else
		pv_state[row](pv, rec);
	return VMA_OK;
}
