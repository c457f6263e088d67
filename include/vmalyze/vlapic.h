/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IPI latency, kept by the state stage (vlapic.c): an IPI a guest vcpu
 * sends to the vcpus of its domain by writing its local APIC's ICR with
 * the "all but self" or "all" shorthand (xAPIC MMIO at 0xfee00300, or
 * x2APIC MSR 0x830) is outstanding for each target until the vmentry
 * that delivers its vector, injected since.  The latency, from the first
 * send the delivery answers to that vmentry, goes to the target's
 * summary (struct vma_hvm's ipi_latency); the deliveries a vmentry made
 * are listed for the dump's --dump-ipi-latency lines (ipi.h) until the
 * next vmentry.  A vcpu's list is a table of rows of the machine's budget
 * (cycles.h): past the rows' limit an IPI that finds no room in it is not
 * followed (not timed), as a new key goes to "other" in the other tables.
 */
#ifndef VMALYZE_VLAPIC_H
#define VMALYZE_VLAPIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vma_vcpu;

/* A vector sent to a vcpu and not yet delivered: in that vcpu's list (16 bytes). */
struct vma_ipi_outstanding {
	uint64_t first_tsc;
	uint32_t sends;
	uint8_t vec;      /* an ICR's vector field: 8 bits */
	bool injected;
};

/* One delivery of the last vmentry that made any. */
struct vma_ipi_delivery {
	const struct vma_vcpu *v;
	uint32_t vec, sends;
	uint64_t latency;
};

/*
 * The IPIs outstanding for one vcpu, by vector (a vcpu's own list, few at
 * a time in real traces; up to one per vector when a guest sends vectors
 * it never takes).  The bitmap says which vectors the list holds, so that
 * an injection of any other (a timer's, a device's: most of them) needs
 * no scan.
 */
struct vma_vcpu_ipis {
	struct vma_ipi_outstanding *list; /* owned */
	size_t nr, cap;
	uint32_t injected;                /* of them, injected since their send */
	uint64_t held[4];                 /* bit vec: vec is in the list */
};

struct vma_vlapic {
	struct vma_ipi_delivery *done;    /* owned: the deliveries of record done_record */
	size_t nr_done, cap_done;
	uint64_t done_record;             /* machine record count when they were made */
};

#endif /* VMALYZE_VLAPIC_H */
