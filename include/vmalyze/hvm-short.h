/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xenalyze's HVM short summary: ten categories of an exit arc's time, by
 * the handler record that refined it; the first five are shadow page
 * faults', by their class.  Used by the interval modes (xinterval.h) and
 * the CR3 enumeration (cr3.h).
 */
#ifndef VMALYZE_HVM_SHORT_H
#define VMALYZE_HVM_SHORT_H

enum vma_xinterval_category {
	VMA_XCAT_EMULATE = 0,
	VMA_XCAT_UNSYNC,
	VMA_XCAT_FIXUP,
	VMA_XCAT_MMIO,
	VMA_XCAT_PROPAGATE,
	VMA_XCAT_CR3,
	VMA_XCAT_VMCALL,
	VMA_XCAT_INTR,
	VMA_XCAT_HLT,
	VMA_XCAT_OTHER,
	VMA_XCAT_COUNT
};

struct vma_hvm_inflight;

/* The category of an exit arc refined by @in (TRC_HVM_* handler, key). */
enum vma_xinterval_category vma_xinterval_category(const struct vma_hvm_inflight *in);

/* xenalyze's name of @cat: "emulate" ... "other". */
const char *vma_xinterval_category_name(enum vma_xinterval_category cat);

#endif /* VMALYZE_HVM_SHORT_H */
