/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xenalyze's HVM short-summary categories (hvm-short.h). */
#include "vmalyze/hvm-short.h"
#include "vmalyze/state.h"
#include "vmalyze/trace-ids.h"

static const char *const category_names[VMA_XCAT_COUNT] = {
	"emulate", "unsync", "fixup", "mmio", "propagate", "cr3", "vmcall", "intr", "hlt", "other",
};

enum vma_xinterval_category vma_xinterval_category(const struct vma_hvm_inflight *in)
{
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
