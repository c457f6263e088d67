/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory records: grant-table operations, counted for the domain whose
 * vcpu did them and for the domain they were done for, and
 * populate-on-demand populate and reclaim counts by page order.
 * (xenalyze prints these tables but never fills the grant ones:
 * doc/xenalyze-differences.md.)
 */
#include <stdlib.h>

#include "vmalyze/state-handlers.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

/* Xen's orders are 0, 9 and 18 (4k, 2M, 1G); anything else is kept apart. */
static uint32_t canonical_order(uint32_t order)
{
	return order % 9 || order / 9 > 2 ? VMA_POD_ORDERS - 1 : order / 9;
}

/* Why a page was reclaimed: what the vcpu was doing (the dump's rule too). */
static enum vma_pod_context reclaim_context(const struct vma_machine *m, const struct vma_vcpu *v)
{
	bool hvm = v && v->type == VMA_VCPU_HVM;

	switch (vma_xen_pod_reason(hvm && v->hvm.vmexit_valid, hvm ? v->hvm.exit_reason : 0,
				   m->svm)) {
	case VMA_POD_REASON_FAULT:
		return VMA_POD_CTX_FAULT;
	case VMA_POD_REASON_BALLOON:
		return VMA_POD_CTX_BALLOON;
	default:
		return VMA_POD_CTX_UNKNOWN;
	}
}

/* The state column of the MEM rows of the Xen event table. */
typedef void mem_event_fn(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec);

/* @d's memory counters, made at its first memory record (NULL: none, or out of memory). */
static struct vma_domain_mem *mem_of(struct vma_domain *d)
{
	if (d && !d->mem)
		d->mem = calloc(1, sizeof(*d->mem));
	return d ? d->mem : NULL;
}

static void grant(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec)
{
	uint32_t op = rec->event - TRC_MEM_PAGE_GRANT_MAP;
	struct vma_domain_mem *dm;

	if (v && v->domain->did != VMA_DEFAULT_DOMAIN && (dm = mem_of(v->domain)))
		dm->grant_done[op]++;
	if ((dm = mem_of(vma_domain_get(m, vma_xf_grant_domain(rec)))))
		dm->grant_done_for[op]++;
}

static void pod_populate(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec)
{
	struct vma_domain_mem *dm = v ? mem_of(v->domain) : NULL;

	if (dm)
		dm->pod_populate[canonical_order(vma_xf_pod_order(rec))]++;
}

static void pod_reclaim(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec)
{
	uint32_t order = canonical_order(vma_xf_pod_order(rec));
	struct vma_domain_mem *dm = v ? mem_of(v->domain) : NULL;

	if (!dm)
		return;
	dm->pod_reclaim[order]++;
	dm->pod_context[reclaim_context(m, v)][order]++;
}

/* Memory records the dump shows and the analysis does not count. */
static void nothing(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec)
{
}

static mem_event_fn *const mem_state[VMA_XE_COUNT] = {
#define MEM_STATE(sym, id, name, words, flags, state, describe) [VMA_XE_##sym] = state,
	VMA_XEN_MEM_EVENTS(MEM_STATE)
#undef MEM_STATE
};

int vma_mem_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		   struct vma_outcome *out)
{
	enum vma_xe_index row = vma_xen_event_index(rec->event);

	if (row == VMA_XE_NONE || !mem_state[row])
		return VMA_OK;
	if (vma_xen_event_short(row, rec))
		vma_state_refuse_short(m, row, rec, out);
	else
		mem_state[row](m, p->current, rec);
	return VMA_OK;
}
