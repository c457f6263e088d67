/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counts by key (eips.h): a key table, in the order keys came.  The keys
 * are guest EIPs or EIP buckets of one vector's interrupts.  The state
 * stage counts an external-interrupt exit's EIP here when its handler
 * record names the vector (xenalyze's hvm_intr_process()).
 */
#include <stdlib.h>

#include "vmalyze/cycles.h"
#include "vmalyze/diag.h"
#include "vmalyze/eips.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"

int vma_eip_counts_add(struct vma_eip_counts *c, uint64_t key, struct vma_cycles_budget *b)
{
	bool refused;
	uint32_t i = vma_key_table_get(b, &c->v, &c->nr, &c->cap, sizeof(*c->v), &c->index, key,
				       false, &refused);

	if (i != UINT32_MAX)
		c->v[i].count++;
	else if (refused)
		c->other++;
	return i != UINT32_MAX || refused ? VMA_OK : VMA_ERR_NOMEM;
}

void vma_interrupt_eip_note(struct vma_machine *m, struct vma_vcpu *v, uint32_t vector)
{
	const struct vma_eip_options *o = &m->options.eips;
	bool failed = false;

	if (o->enumerate && vector == o->enumerate_vector)
		failed |= vma_eip_counts_add(&v->domain->interrupt_eips, v->hvm.rip,
					     &m->budget) != VMA_OK;
	if (o->histogram && vector == o->histogram_vector) {
		failed |= vma_eip_counts_add(&v->hvm.eip_histogram,
					     v->hvm.rip / o->histogram_increment, &m->budget) != VMA_OK;
	}
	if (failed) {
		vma_diag_warn_once(m->diag, "eips-nomem", "Out of memory: interrupt EIPs "
				   "are missing from their enumeration");
	}
}

void vma_eip_counts_release(struct vma_eip_counts *c, struct vma_cycles_budget *b)
{
	vma_rows_credit(b, vma_key_table_bytes(c->cap, sizeof(*c->v)));
	free(c->v);
	free(c->index.slots);
	*c = (struct vma_eip_counts){ 0 };
}
