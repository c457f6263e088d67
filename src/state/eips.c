/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counts by key (eips.h): a sorted array, found by binary search.  The
 * keys are guest EIPs or EIP buckets of one vector's interrupts: few
 * enough distinct ones that inserting in place is cheap.  The state
 * stage counts an external-interrupt exit's EIP here when its handler
 * record names the vector (xenalyze's hvm_intr_process()).
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/eips.h"
#include "vmalyze/state.h"
#include "vmalyze/grow.h"
#include "vmalyze/status.h"

int vma_eip_counts_add(struct vma_eip_counts *c, uint64_t key)
{
	uint32_t lo = 0, hi = c->nr;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->v[mid].key == key) {
			c->v[mid].count++;
			return VMA_OK;
		}
		if (c->v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (c->nr == UINT32_MAX || vma_grow(c->v, &c->cap, (size_t)c->nr + 1, 16))
		return VMA_ERR_NOMEM;
	memmove(&c->v[lo + 1], &c->v[lo], (c->nr - lo) * sizeof(*c->v));
	c->v[lo] = (struct vma_eip_count){ key, 1 };
	c->nr++;
	return VMA_OK;
}

void vma_interrupt_eip_note(struct vma_machine *m, struct vma_vcpu *v, uint32_t vector)
{
	const struct vma_eip_options *o = &m->options.eips;
	bool failed = false;

	if (o->enumerate && vector == o->enumerate_vector)
		failed |= vma_eip_counts_add(&v->domain->interrupt_eips, v->hvm.rip) != VMA_OK;
	if (o->histogram && vector == o->histogram_vector) {
		failed |= vma_eip_counts_add(&v->hvm.eip_histogram,
					     v->hvm.rip / o->histogram_increment) != VMA_OK;
	}
	if (failed) {
		vma_diag_warn_once(m->diag, "eips-nomem", "Out of memory: interrupt EIPs "
				   "are missing from their enumeration");
	}
}

void vma_eip_counts_release(struct vma_eip_counts *c)
{
	free(c->v);
	*c = (struct vma_eip_counts){ 0 };
}
