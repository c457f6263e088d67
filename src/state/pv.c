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

int vma_pv_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		  struct vma_outcome *out)
{
	struct vma_pv *pv = &p->current->pv;
	uint32_t minor = rec->event & 0xff;  /* 64-bit flag dropped */
	uint32_t id = rec->event & ~(uint32_t)TRC_64_FLAG;

	/* Dispatch let an untyped vcpu through: its first PV record types it. */
	if (p->current->type != VMA_VCPU_PV)
		vma_vcpu_set_type(p->current, VMA_VCPU_PV);

	bump(&pv->counts, &pv->nr_counts, minor);
	if (id == TRC_PV_HYPERCALL_V2 || id == TRC_PV_HYPERCALL_SUBCALL) {
		/* v2: word 0 is the hypercall number plus argument flags. */
		if (rec->nr_data)
			bump(&pv->hypercalls, &pv->nr_hypercalls, rec->data[0] & 0xfffff);
	} else if (id == TRC_PV_HYPERCALL) {
		/* v1: eip (1 or 2 words), then the hypercall number. */
		uint32_t at = (rec->event & TRC_64_FLAG) ? 2 : 1;

		if (rec->nr_data > at)
			bump(&pv->hypercalls, &pv->nr_hypercalls, rec->data[at]);
	}
	return VMA_OK;
}
