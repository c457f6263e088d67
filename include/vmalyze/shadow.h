/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shadow paging, as far as the summary goes (shadow.c): a domain's
 * shadow emulations by the guest EIP that faulted (xenalyze's "Emulate
 * eip list"), each with its count and the cycles of its exit arcs.  A
 * shadow record refines the open exit (struct vma_hvm_inflight: its
 * fault class, path flags, an unpin), which gives the exit its short-
 * summary category (hvm-short.h) and the --scatterplot-unpin-promote
 * points.
 */
#ifndef VMALYZE_SHADOW_H
#define VMALYZE_SHADOW_H

#include <stddef.h>
#include <stdint.h>

#include "vmalyze/code-index.h"
#include "vmalyze/cycles.h"

struct vma_eip_cycles {
	uint64_t eip;
	struct vma_cycles cycles;
};

/* Charged to the rows of the machine's budget (cycles.h); past it new EIPs go to @other. */
struct vma_eip_cycles_list {
	struct vma_eip_cycles *v; /* owned, in the order EIPs came (code-index.h's key table) */
	uint32_t nr;
	size_t cap;
	struct vma_code_index index;
	struct vma_eip_cycles *other; /* owned: the EIPs that got no entry; NULL: none */
};

void vma_eip_cycles_release(struct vma_eip_cycles_list *l, struct vma_cycles_budget *b);

#endif /* VMALYZE_SHADOW_H */
