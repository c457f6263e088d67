/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rows of the Xen HVM event table (xen-events.h): the columns both
 * stages share.  The state and describe columns are expanded by their
 * own stages.
 */
#include "vmalyze/xen-events.h"

const struct vma_xen_event vma_xen_events[VMA_XE_COUNT] = {
#define VMA_XE_ROW(sym, id_, name_, words_, flags_, state, describe) \
	[VMA_XE_##sym] = { .id = (id_), .name = (name_), .words = (words_), .flags = (flags_) },
	VMA_XEN_HVM_EVENTS(VMA_XE_ROW)
#undef VMA_XE_ROW
};
