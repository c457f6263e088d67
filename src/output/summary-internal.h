/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared between the text summary's files; not a contract of the stage. */
#ifndef VMALYZE_OUTPUT_SUMMARY_INTERNAL_H
#define VMALYZE_OUTPUT_SUMMARY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/report.h"

struct vma_summary_ctx {
	FILE *out;
	const struct vma_report *report;
	bool histogram;        /* histograms under the lines */
	bool no_percentiles;   /* --sample-size=0: lines without {p5|p50|p95} */
	const char *unit;      /* "cyc", or "ns" when the clock counts nanoseconds */
};

void vma_summary_cycle_line(const struct vma_summary_ctx *c, const char *desc,
			    const struct vma_report_stat *s);
void vma_summary_exit_line(const struct vma_summary_ctx *c, const char *prefix,
			   const struct vma_report_stat *s);
void vma_summary_hvm(const struct vma_summary_ctx *c, const struct vma_report_vcpu *v);

#endif /* VMALYZE_OUTPUT_SUMMARY_INTERNAL_H */
