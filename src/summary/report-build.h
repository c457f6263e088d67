/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the report builder (src/summary/report*.c only): the state of one
 * build and the helpers its files share.  report.c builds the machine's,
 * domains' and pcpus' rows and, on request, one vcpu's at a time
 * (vma_report_vcpu()); report-vcpu.c makes a vcpu's rows, report-totals.c
 * the VM and host-wide sums kvm-stat and KVM's JSON print.
 */
#ifndef VMALYZE_SUMMARY_REPORT_BUILD_H
#define VMALYZE_SUMMARY_REPORT_BUILD_H

#include "vmalyze/hvm-stats.h"
#include "vmalyze/report.h"
#include "vmalyze/state.h"

/* Summaries merged by the builder, released together. */
struct vma_report_owned {
	struct vma_cycles **v;
	size_t nr, cap;
};

struct vma_report_builder {
	const struct vma_report_build *how;
	struct vma_report *r;
	bool full;
	bool spread; /* stddev too: only the outputs that print it pay for it */
	bool failed; /* out of memory */
	const struct vma_eip_options *eips; /* the machine's enumerations */
	struct vma_report_owned *owned;      /* the report's own: the totals */
	struct vma_report_owned *vcpu_owned; /* the vcpu being built: its merged rows */
	uint32_t held;                       /* vcpus built and not yet freed */
};

/* @n zeroed rows of @size, NULL for none; out of memory sets b->failed. */
void *vma_report_rows(struct vma_report_builder *b, size_t n, size_t size);

/*
 * A zeroed summary the report owns until it is destroyed (the totals), or
 * NULL when out of memory.
 */
struct vma_cycles *vma_report_owned_cycles(struct vma_report_builder *b);
/* The same, owned by the vcpu being built: released with its rows. */
struct vma_cycles *vma_report_vcpu_cycles(struct vma_report_builder *b);
/* Release the summaries of @o (keeping @o itself for reuse). */
void vma_report_owned_release(struct vma_report_owned *o);

/*
 * vma_report_whole - @whole, a summary the state only counts, with the
 * samples of its @n parts (@parts, @stride bytes apart; state.h, the
 * machine's finish), merged into a summary the vcpu being built owns
 * (so @whole may be the caller's copy of counters).  @whole itself when
 * the build is not full or it has no sample (no row keeps it then), or
 * out of memory (b->failed).
 */
const struct vma_cycles *vma_report_whole(struct vma_report_builder *b,
					  const struct vma_cycles *whole, const void *parts,
					  size_t stride, uint32_t n);

/* @st from the summary @c: counts, and with a full build percentiles and spread. */
void vma_report_fill_stat(const struct vma_report_builder *b, struct vma_report_stat *st,
			  const struct vma_cycles *c, enum vma_cycles_weight w);

/* @w NULL: no window (a vcpu or VM that closed no KVM exit). */
void vma_report_fill_latency(struct vma_report_latency *l, const struct vma_latency_window *w);

/*
 * Rows of @c (*@nr of them), keys times @scale; the most counted first
 * when @by_count, else by key; the "other" row, if any, last.
 */
struct vma_report_eip *vma_report_eip_rows(struct vma_report_builder *b,
					   const struct vma_eip_counts *c, uint64_t scale,
					   bool by_count, uint64_t *total, uint32_t *nr);

/* The exit table of @v: HVM and Arm vcpus that have one; else NULL. */
const struct vma_hvm_stats *vma_report_exit_table(const struct vma_vcpu *v);

/* The name of exit @reason of @v; NULL when the vendor's table has none. */
const char *vma_report_exit_name(const struct vma_report_builder *b, const struct vma_vcpu *v,
				 uint32_t reason);

/* The address tables of a vcpu's rows: io, mmio, msr, hcall (the last two KVM's only). */
#define VMA_REPORT_ADDRESS_TABLES 4

typedef void (*vma_report_sub_fn)(struct vma_report_builder *b, void *arg, unsigned int table,
				  const struct vma_exit_sub *s);

/*
 * Each handler sub of @v that makes a row of address table @table, by
 * table, then exit reason, then sub, as the rows are summed.
 */
void vma_report_address_subs(struct vma_report_builder *b, const struct vma_vcpu *v,
			     vma_report_sub_fn fn, void *arg);

/* @rv's rows from @v; the merged ones go to b->vcpu_owned.  Free with the next. */
void vma_report_build_vcpu(struct vma_report_builder *b, struct vma_report_vcpu *rv,
			   const struct vma_vcpu *v);
void vma_report_free_vcpu(struct vma_report_builder *b, struct vma_report_vcpu *v);

/* The machine's vcpu that row @j of domain @d (j < d->nr_vcpus) is built from. */
const struct vma_vcpu *vma_report_source_vcpu(const struct vma_report *r,
					      const struct vma_report_domain *d, uint32_t j);

/*
 * perf kvm stat's VM and host-wide tables: the vcpus' rows summed, each
 * vcpu's built (sums only), added and released in turn.
 */
void vma_report_build_totals(struct vma_report_builder *b);
void vma_report_free_totals(struct vma_report_totals *t);

#endif /* VMALYZE_SUMMARY_REPORT_BUILD_H */
