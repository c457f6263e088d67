/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state stage's side of the Xen event table (xen-events.h): a record
 * too short for its row is not used, as the dump does not decode it.
 */
#include "vmalyze/diag.h"
#include "vmalyze/state-handlers.h"
#include "vmalyze/status.h"

int vma_state_refuse_short(struct vma_machine *m, enum vma_xe_index row,
			   const struct vma_record *rec, struct vma_outcome *out)
{
	const struct vma_xen_event *e = &vma_xen_events[row];

	vma_diag_warn_once(m->diag, "record-size",
			   "%s record 0x%x with %u payload words, %s %u; not processed", e->name,
			   rec->event, rec->nr_data,
			   (e->flags & VMA_XE_EXACT) ? "instead of" : "fewer than its", e->words);
	out->unprocessed = true;
	return VMA_OK;
}
