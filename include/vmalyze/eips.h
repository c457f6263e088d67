/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counts by 64-bit key, for xenalyze's guest EIP enumerations: the EIPs an
 * external interrupt of one vector interrupted (--with-interrupt-eip-
 * enumeration, per domain), and the same EIPs by bucket of INCR bytes
 * (--histogram-interrupt-eip, per vcpu).  Sparse: memory grows with the
 * keys seen, not with the address space (xenalyze allocates 2^48 / INCR
 * counters per vcpu, and fails for a small INCR).  A guest's interrupted
 * EIPs can be as many as its interrupts: the counts are a key table
 * (code-index.h), rows of the machine's budget; past it a new key is
 * counted in @other.  Readers sort.
 */
#ifndef VMALYZE_EIPS_H
#define VMALYZE_EIPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmalyze/code-index.h"

struct vma_cycles_budget;

struct vma_eip_count {
	uint64_t key;
	uint64_t count;
};

struct vma_eip_counts {
	struct vma_eip_count *v; /* owned, in the order keys came */
	uint32_t nr;
	size_t cap;
	struct vma_code_index index;
	uint64_t other;          /* counts of keys the rows' budget gave no entry */
};

/*
 * One more of @key, a new key's entry charged to @b's rows.
 * Return: VMA_OK or VMA_ERR_NOMEM (nothing counted).
 */
int vma_eip_counts_add(struct vma_eip_counts *c, uint64_t key, struct vma_cycles_budget *b);
/* Frees @c, its rows charged to @b. */
void vma_eip_counts_release(struct vma_eip_counts *c, struct vma_cycles_budget *b);

/* What the machine enumerates (struct vma_machine_options). */
struct vma_eip_options {
	bool enumerate;          /* --with-interrupt-eip-enumeration=VEC */
	uint8_t enumerate_vector;
	bool histogram;          /* --histogram-interrupt-eip=VEC[,INCR] */
	uint8_t histogram_vector;
	uint64_t histogram_increment; /* > 0 */
	bool cr3;                /* --with-cr3-enumeration: per-CR3 times (cr3.h) */
};

#endif /* VMALYZE_EIPS_H */
