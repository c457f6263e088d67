/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory records: grant-table operations, counted for the domain whose
 * vcpu did them and for the domain they were done for, and
 * populate-on-demand populate and reclaim counts by page order.
 * (xenalyze prints these tables but never fills the grant ones:
 * doc/xenalyze-differences.md.)
 */
#include "vmalyze/state-handlers.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

/* Xen's orders are 0, 9 and 18 (4k, 2M, 1G); anything else is kept apart. */
static uint32_t canonical_order(uint32_t order)
{
	return order % 9 || order / 9 > 2 ? VMA_POD_ORDERS - 1 : order / 9;
}

/* Why a page was reclaimed: what the vcpu was doing. */
static enum vma_pod_context reclaim_context(const struct vma_machine *m, const struct vma_vcpu *v)
{
	if (!v || v->type != VMA_VCPU_HVM || !v->hvm.vmexit_valid || m->svm)
		return VMA_POD_CTX_UNKNOWN;
	switch (v->hvm.exit_reason) {
	case 0:  /* EXCEPTION_NMI */
	case 48: /* EPT_VIOLATION */
		return VMA_POD_CTX_FAULT;
	case 18: /* VMCALL */
		return VMA_POD_CTX_BALLOON;
	}
	return VMA_POD_CTX_UNKNOWN;
}

int vma_mem_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		   struct vma_outcome *out)
{
	struct vma_vcpu *v = p->current;
	struct vma_domain *d;

	switch (rec->event) {
	case TRC_MEM_PAGE_GRANT_MAP:
	case TRC_MEM_PAGE_GRANT_UNMAP:
	case TRC_MEM_PAGE_GRANT_TRANSFER: {
		uint32_t op = rec->event - TRC_MEM_PAGE_GRANT_MAP;

		if (v && v->domain->did != VMA_DEFAULT_DOMAIN)
			v->domain->mem.grant_done[op]++;
		if (rec->nr_data && (d = vma_domain_get(m, rec->data[0] & 0xffff)))
			d->mem.grant_done_for[op]++;
		break;
	}
	case TRC_MEM_POD_POPULATE:
		/* {u64 gfn, u64 mfn, u32 domain, u32 order} */
		if (rec->nr_data >= 6 && v)
			v->domain->mem.pod_populate[canonical_order(rec->data[5])]++;
		break;
	case TRC_MEM_POD_ZERO_RECLAIM:
		if (rec->nr_data >= 6 && v) {
			uint32_t order = canonical_order(rec->data[5]);

			v->domain->mem.pod_reclaim[order]++;
			v->domain->mem.pod_context[reclaim_context(m, v)][order]++;
		}
		break;
	}
	return VMA_OK;
}
