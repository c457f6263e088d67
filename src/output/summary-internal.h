/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared between the text summary's files; not a contract of the stage. */
#ifndef VMALYZE_OUTPUT_SUMMARY_INTERNAL_H
#define VMALYZE_OUTPUT_SUMMARY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/cycles.h"
#include "vmalyze/report.h"
#include "vmalyze/state.h"

struct vma_summary_ctx {
	const struct vma_report_options *opts;
	uint64_t hz;
	uint64_t total_cycles; /* the whole trace: the base of the % column */
	bool svm;
	bool kvm;              /* KVM trace: no Xen-only sections */
	const char *unit;      /* "cyc", or "ns" when the clock counts nanoseconds */
};

/*
 * Percentiles of a summary the report only reads.  In exact mode the
 * accumulator sorts its samples to answer; that reorders, but does not
 * change, what it holds, so the report's read-only view is kept.
 */
static inline uint64_t vma_report_pct(const struct vma_cycles *s, unsigned int pct)
{
	return vma_cycles_percentile((struct vma_cycles *)s, pct);
}

static inline uint64_t vma_report_tpct(const struct vma_cycles *s, unsigned int pct)
{
	return vma_cycles_time_percentile((struct vma_cycles *)s, pct);
}

void vma_summary_cycle_line(FILE *out, const struct vma_summary_ctx *c, const char *desc,
			    const struct vma_cycles *s);
void vma_summary_exit_line(FILE *out, const struct vma_summary_ctx *c, const char *prefix,
			   const struct vma_cycles *s);
void vma_summary_hvm(FILE *out, const struct vma_summary_ctx *c, const struct vma_vcpu *v);
void vma_summary_histogram(FILE *out, const struct vma_summary_ctx *c,
			   const struct vma_cycles *s, bool time_weighted);
void vma_format_hz(char *buf, size_t len, uint64_t hz);

#endif /* VMALYZE_OUTPUT_SUMMARY_INTERNAL_H */
