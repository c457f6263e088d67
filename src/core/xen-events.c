/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rows of the Xen event table (xen-events.h): the columns both
 * stages share.  The state and describe columns are expanded by their
 * own stages.
 */
#include "vmalyze/xen-events.h"

#define ROW(cls_, sym, id_, name_, words_, flags_)                                      \
	[VMA_XE_##sym] = { .id = (id_), .name = (name_), .words = (words_), .flags = (flags_), \
			   .cls = (cls_) },
#define GEN(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_GEN, sym, id, name, words, flags)
#define SCHED(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_SCHED, sym, id, name, words, flags)
#define HW(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_HW, sym, id, name, words, flags)
#define DOM0(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_DOM0OP, sym, id, name, words, flags)
#define HVM(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_HVM, sym, id, name, words, flags)
#define MEM(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_MEM, sym, id, name, words, flags)
#define PV(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_PV, sym, id, name, words, flags)
#define SHADOW(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_SHADOW, sym, id, name, words, flags)

const struct vma_xen_event vma_xen_events[VMA_XE_COUNT] = {
	VMA_XEN_GEN_EVENTS(GEN)
	VMA_XEN_SCHED_EVENTS(SCHED)
	VMA_XEN_DOM0_EVENTS(DOM0)
	VMA_XEN_HVM_EVENTS(HVM)
	VMA_XEN_MEM_EVENTS(MEM)
	VMA_XEN_PV_EVENTS(PV)
	VMA_XEN_SHADOW_EVENTS(SHADOW)
	VMA_XEN_HW_EVENTS(HW)
};

enum vma_xe_index vma_xen_event_index(uint32_t event)
{
	/* A shadow record's row is its id without the guest's paging levels. */
	if (VMA_TRC_MAIN(event) == VMA_TRC_MAIN(TRC_SHADOW))
		event &= ~0xf00u;
	switch (event) {
#define CASE(sym, id, name, words, flags, state, describe) \
	case (id):                                         \
		return VMA_XE_##sym;
		VMA_XEN_EVENTS(CASE)
#undef CASE
	}
	return VMA_XE_NONE;
}
