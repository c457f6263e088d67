/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the report builder (src/summary/report*.c only): the state of one
 * build and the helpers its files share.  report.c builds the machine's,
 * domains' and pcpus' rows, report-vcpu.c a vcpu's, report-totals.c the
 * VM and host-wide sums kvm-stat and KVM's JSON print.
 */
#ifndef VMALYZE_SUMMARY_REPORT_BUILD_H
#define VMALYZE_SUMMARY_REPORT_BUILD_H

#include "vmalyze/report.h"
#include "vmalyze/state.h"

struct vma_report_builder {
	const struct vma_report_build *how;
	struct vma_report *r;
	bool full;
	bool spread; /* stddev too: only the outputs that print it pay for it */
	bool failed; /* out of memory */
	const struct vma_eip_options *eips; /* the machine's enumerations */
};

/* @n zeroed rows of @size, NULL for none; out of memory sets b->failed. */
void *vma_report_rows(struct vma_report_builder *b, size_t n, size_t size);

/* A zeroed summary the report owns, or NULL when out of memory. */
struct vma_cycles *vma_report_owned_cycles(struct vma_report_builder *b);

/* @st from the summary @c: counts, and with a full build percentiles and spread. */
void vma_report_fill_stat(const struct vma_report_builder *b, struct vma_report_stat *st,
			  const struct vma_cycles *c, enum vma_cycles_weight w);

/* @w NULL: no window (a vcpu or VM that closed no KVM exit). */
void vma_report_fill_latency(struct vma_report_latency *l, const struct vma_latency_window *w);

/* Rows of @c, keys times @scale; the most counted first when @by_count, else by key. */
struct vma_report_eip *vma_report_eip_rows(struct vma_report_builder *b,
					   const struct vma_eip_counts *c, uint64_t scale,
					   bool by_count, uint64_t *total);

void vma_report_build_vcpu(struct vma_report_builder *b, struct vma_report_vcpu *rv,
			   const struct vma_vcpu *v);
void vma_report_free_vcpu(struct vma_report_vcpu *v);

/* perf kvm stat's VM and host-wide tables: the vcpus' rows summed. */
void vma_report_build_totals(struct vma_report_builder *b);
void vma_report_free_totals(struct vma_report_totals *t);

#endif /* VMALYZE_SUMMARY_REPORT_BUILD_H */
