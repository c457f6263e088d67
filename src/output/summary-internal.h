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
	const struct vma_symbols *symbols; /* may be NULL */
	bool mmio_skip_vga;    /* --mmio-enumeration-skip-vga=1 (Xen only) */
};

/* Seconds columns: xenalyze's two decimals, nanoseconds' nine for a ns clock. */
static inline int vma_summary_secs_digits(const struct vma_report *r)
{
	return r->unit == VMA_REPORT_NS ? 6 : 2;
}

/* `VM 0 "guest" (qemu-system-x86, pid 483882)`: a KVM VM as the trace tells it. */
void vma_summary_vm_name(char *buf, size_t len, const struct vma_report_domain *d);
/* ` (thread 483890 "CPU 0/KVM")`, or "" when the vcpu's thread is not known. */
void vma_summary_thread(char *buf, size_t len, const struct vma_report_vcpu *v);
/* What refined a worst exit: "port 0x70 in", "msr 0x6e0 write", "-"... */
void vma_summary_refinement(char *buf, size_t len, const struct vma_report_worst *w);
/* --top's list, when the report has one. */
void vma_summary_worst(const struct vma_summary_ctx *c);

void vma_summary_cycle_line(const struct vma_summary_ctx *c, const char *desc,
			    const struct vma_report_stat *s);
void vma_summary_exit_line(const struct vma_summary_ctx *c, const char *prefix,
			   const struct vma_report_stat *s);
void vma_summary_hvm(const struct vma_summary_ctx *c, const struct vma_report_vcpu *v);

#endif /* VMALYZE_OUTPUT_SUMMARY_INTERNAL_H */
