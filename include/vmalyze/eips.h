/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counts by 64-bit key, for xenalyze's guest EIP enumerations: the EIPs an
 * external interrupt of one vector interrupted (--with-interrupt-eip-
 * enumeration, per domain), and the same EIPs by bucket of INCR bytes
 * (--histogram-interrupt-eip, per vcpu).  Sparse: memory grows with the
 * keys seen, not with the address space (xenalyze allocates 2^48 / INCR
 * counters per vcpu, and fails for a small INCR).
 */
#ifndef VMALYZE_EIPS_H
#define VMALYZE_EIPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vma_eip_count {
	uint64_t key;
	uint64_t count;
};

struct vma_eip_counts {
	struct vma_eip_count *v; /* owned, by ascending key */
	uint32_t nr;
	size_t cap;
};

/* One more of @key.  Return: VMA_OK or VMA_ERR_NOMEM (nothing counted). */
int vma_eip_counts_add(struct vma_eip_counts *c, uint64_t key);
void vma_eip_counts_release(struct vma_eip_counts *c);

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
