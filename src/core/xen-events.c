/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rows of the Xen HVM event table (xen-events.h): the columns both
 * stages share.  The state and describe columns are expanded by their
 * own stages.
 */
#include "vmalyze/xen-events.h"

#define ROW(cls_, sym, id_, name_, words_, flags_)                                      \
	[VMA_XE_##sym] = { .id = (id_), .name = (name_), .words = (words_), .flags = (flags_), \
			   .cls = (cls_) },
#define GEN(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_GEN, sym, id, name, words, flags)
#define DOM0(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_DOM0OP, sym, id, name, words, flags)
#define HVM(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_HVM, sym, id, name, words, flags)
#define MEM(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_MEM, sym, id, name, words, flags)
#define PV(sym, id, name, words, flags, state, describe) \
	ROW(VMA_XEN_CLASS_PV, sym, id, name, words, flags)

const struct vma_xen_event vma_xen_events[VMA_XE_COUNT] = {
	VMA_XEN_GEN_EVENTS(GEN)
	VMA_XEN_DOM0_EVENTS(DOM0)
	VMA_XEN_HVM_EVENTS(HVM)
	VMA_XEN_MEM_EVENTS(MEM)
	VMA_XEN_PV_EVENTS(PV)
};

/*
 * The key table.  A designated initializer per row: two rows of one key
 * would be an initializer overridden, which -Woverride-init (in -Wextra)
 * reports; the unit tests check every row is found by its id.
 */
#define KEYROW(cls_, sym, id_) [VMA_XE_KEY(cls_, id_)] = VMA_XE_##sym + 1,
#define GEN_KEY(sym, id, name, words, flags, state, describe) KEYROW(VMA_XEN_CLASS_GEN, sym, id)
#define DOM0_KEY(sym, id, name, words, flags, state, describe) \
	KEYROW(VMA_XEN_CLASS_DOM0OP, sym, id)
#define HVM_KEY(sym, id, name, words, flags, state, describe) KEYROW(VMA_XEN_CLASS_HVM, sym, id)
#define MEM_KEY(sym, id, name, words, flags, state, describe) KEYROW(VMA_XEN_CLASS_MEM, sym, id)
#define PV_KEY(sym, id, name, words, flags, state, describe) KEYROW(VMA_XEN_CLASS_PV, sym, id)

const uint8_t vma_xen_event_by_key[VMA_XE_KEYS] = {
	/* The synthetic end of a gap gets a key too, unused: it has no class. */
	VMA_XEN_GEN_EVENTS(GEN_KEY)
	VMA_XEN_DOM0_EVENTS(DOM0_KEY)
	VMA_XEN_HVM_EVENTS(HVM_KEY)
	VMA_XEN_MEM_EVENTS(MEM_KEY)
	VMA_XEN_PV_EVENTS(PV_KEY)
};
