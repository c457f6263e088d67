/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xenalyze's HVM short-summary categories (hvm-short.h). */
#include "vmalyze/hvm-short.h"
#include "vmalyze/state.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-events.h"

static const char *const category_names[VMA_XCAT_COUNT] = {
	"emulate", "unsync", "fixup", "mmio", "propagate", "cr3", "vmcall", "intr", "hlt", "other",
};

/* A shadow page fault's category, by its class (xenalyze's shadow_*_postprocess()). */
static enum vma_xinterval_category shadow_category(const struct vma_hvm_inflight *in)
{
	switch (TRC_SHADOW + in->shadow) {
	case TRC_SHADOW_EMULATE:
		return VMA_XCAT_EMULATE;
	case TRC_SHADOW_FIXUP:
		return (in->shadow_flags & VMA_SHF_UNSYNC) ? VMA_XCAT_UNSYNC : VMA_XCAT_FIXUP;
	case TRC_SHADOW_MMIO:
	case TRC_SHADOW_FAST_MMIO:
		return VMA_XCAT_MMIO;
	default:
		/* Propagation, and the classes xenalyze counts with it (unshadow, dying...). */
		return VMA_XCAT_PROPAGATE;
	}
}

enum vma_xinterval_category vma_xinterval_category(const struct vma_hvm_inflight *in)
{
	if (in->shadow)
		return shadow_category(in);
	switch (in->handler) {
	case TRC_HVM_VMMCALL:
		return VMA_XCAT_VMCALL;
	case TRC_HVM_INTR:
		return VMA_XCAT_INTR;
	case TRC_HVM_HLT:
		return VMA_XCAT_HLT;
	case TRC_HVM_CR_WRITE:
		return in->key == 3 ? VMA_XCAT_CR3 : VMA_XCAT_OTHER;
	}
	return VMA_XCAT_OTHER;
}

const char *vma_xinterval_category_name(enum vma_xinterval_category cat)
{
	return cat < VMA_XCAT_COUNT ? category_names[cat] : "?";
}
