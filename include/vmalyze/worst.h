/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --top N: the N longest exits of a trace, kept in a min-heap of N (the
 * shortest of them on top, replaced when a longer one closes), so memory
 * is bounded whatever the trace's length.  Fed with each exit as it
 * closes at its vmentry (Xen) or kvm_entry (KVM); the report builder
 * copies the list out longest first.
 */
#ifndef VMALYZE_WORST_H
#define VMALYZE_WORST_H

#include <stdint.h>

#include "vmalyze/report.h"

struct vma_worst;

/* Return: owned (vma_worst_destroy()), NULL when out of memory; @n > 0. */
struct vma_worst *vma_worst_create(uint32_t n);
void vma_worst_destroy(struct vma_worst *w);

/* One closed exit; kept when it is among the N longest so far (ties: the earlier). */
void vma_worst_add(struct vma_worst *w, const struct vma_report_worst *exit);

/*
 * vma_worst_sorted - the kept exits, longest first (equal lengths: earlier
 * first) into @out, which has room for vma_worst_size() rows.
 * Return: how many were written.
 */
uint32_t vma_worst_sorted(const struct vma_worst *w, struct vma_report_worst *out);
uint32_t vma_worst_size(const struct vma_worst *w);

#endif /* VMALYZE_WORST_H */
