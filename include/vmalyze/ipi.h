/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IPI latency (xenalyze's --dump-ipi-latency): from a guest's IPI to each
 * vcpu it targets, sent by writing the local APIC's ICR with the "all but
 * self" or "all" shorthand (xAPIC MMIO at 0xfee00300, or x2APIC MSR
 * 0x830), to the vmentry that delivers the vector to that vcpu.  One line
 * per delivery:
 *
 *   " [vla] dDvV vec N ipis C, latency CYCLES (S.NNNNNNNNN s)"
 *
 * C is how many sends the delivery answers.  The state stage measures
 * them (vlapic.h); this reads its deliveries after each vmentry's
 * dispatch, read-only.
 */
#ifndef VMALYZE_IPI_H
#define VMALYZE_IPI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/dispatch.h"
#include "vmalyze/state.h"

struct vma_ipi;

/* Return: owned (vma_ipi_destroy()); NULL when out of memory. */
struct vma_ipi *vma_ipi_create(FILE *out, uint64_t hz, const struct vma_machine *machine);
void vma_ipi_destroy(struct vma_ipi *ipi);

/* Follows one record, once @out says how dispatch took it. */
void vma_ipi_record(struct vma_ipi *ipi, const struct vma_record *rec,
		    const struct vma_outcome *out);

/* As vma_scatter_hold() and the rest (scatter.h): for dump mode. */
void vma_ipi_hold(struct vma_ipi *ipi);
bool vma_ipi_pending(const struct vma_ipi *ipi);
void vma_ipi_flush(struct vma_ipi *ipi);
int vma_ipi_status(const struct vma_ipi *ipi);

#endif /* VMALYZE_IPI_H */
