/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Batch results: what a run over several traces says about all of them
 * together, built from each trace's report (report.h) as it is done, and
 * saved to a file that `vmalyze merge` combines with others.
 *
 * Per trace the aggregate keeps its identity (file, member inside an
 * archive), its status, its counters, its exits per VM, and per exit
 * reason the whole distribution of that trace's exits (all its vcpus
 * together).  Across traces it sums each exit reason's distributions with
 * vma_cycles_merge(), which is exact and independent of grouping and order
 * (cycles-merge.c says why); every list it hands to a renderer is sorted
 * by content, never by arrival, so a run over all traces and a merge of
 * saved shards of them, in any split, render byte for byte the same.
 *
 * Exit reasons are told apart by platform ("xen-vmx", "xen-svm", "kvm-vmx",
 * "kvm-svm", "kvm-arm"), code and clock (unit and hz): durations of
 * different clocks are never summed.
 *
 * Not thread-safe: one driver adds the traces (a parallel driver adds
 * them in input order as they finish).
 */
#ifndef VMALYZE_AGGREGATE_H
#define VMALYZE_AGGREGATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/cycles.h"
#include "vmalyze/report.h"

/* The options a run's numbers depend on: saves that differ do not merge. */
struct vma_aggregate_options {
	uint64_t cpu_hz;      /* --cpu-hz; 0: taken from the first save file loaded */
	uint64_t timer_hz;    /* --timer-hz, 0 when not given */
};

/* One VM of one trace: its exits (every exit event, zero-length ones too). */
struct vma_aggregate_vm {
	uint32_t id;
	const char *name;     /* KVM: the VMM's name; NULL for Xen domains */
	uint64_t exits;
};

/* One exit reason of one trace, over all its vcpus. */
struct vma_aggregate_exit {
	uint32_t reason;      /* index into struct vma_aggregate_view.reasons */
	struct vma_report_stat stat;
};

struct vma_aggregate_trace {
	const char *file;
	const char *member;   /* path inside the archive; NULL for a plain file */
	int status;           /* VMA_OK or the VMA_ERR_* that ended it */
	bool failed;          /* not read at all: no report, only the status */
	const char *platform; /* NULL when failed */
	enum vma_report_unit unit;
	uint64_t hz, records, lost_records, total;
	struct vma_aggregate_vm *vms;      /* by id; VMs with exits only */
	uint32_t nr_vms;
	struct vma_aggregate_exit *exits;  /* by reason */
	uint32_t nr_exits;
};

/* The traces with the highest p95 of a reason: at most this many. */
#define VMA_AGGREGATE_WORST 3

struct vma_aggregate_worst {
	uint32_t trace;       /* index into struct vma_aggregate_view.traces */
	uint64_t p95;
};

struct vma_aggregate_reason {
	const char *platform;
	uint32_t code;
	const char *name;     /* NULL when no table names it */
	enum vma_report_unit unit;
	uint64_t hz;
	struct vma_report_stat stat;       /* over every trace: count-weighted */
	uint32_t nr_traces;                /* traces that had this exit */
	struct vma_aggregate_worst worst[VMA_AGGREGATE_WORST];
	uint32_t nr_worst;
};

/*
 * What the aggregate renderers read: traces by (file, member), failed
 * ones included; reasons by (platform, code, unit, hz).  Valid until the
 * next vma_aggregate_add() or load, or the aggregate's destruction.
 */
struct vma_aggregate_view {
	uint32_t nr_traces;
	uint32_t nr_failed;   /* traces whose status is not VMA_OK (read in part or not at all) */
	uint64_t records, lost_records;
	const struct vma_aggregate_trace *traces;
	uint32_t nr_reasons;
	const struct vma_aggregate_reason *reasons;
};

struct vma_aggregate;

/* Return: owned (vma_aggregate_destroy()), or NULL when out of memory. */
struct vma_aggregate *vma_aggregate_create(const struct vma_aggregate_options *opts);
void vma_aggregate_destroy(struct vma_aggregate *agg);

/*
 * vma_aggregate_add - account one trace.
 * @report: its end-of-trace report (VMA_REPORT_FULL), or NULL when the
 *	trace could not be read at all; copied, not kept.
 * @file, @member: its path, and its path inside an archive (or NULL).
 * @status: VMA_OK or the VMA_ERR_* that ended it (whatever was read is
 *	still in @report).
 * Return: VMA_OK or VMA_ERR_NOMEM.
 */
int vma_aggregate_add(struct vma_aggregate *agg, const struct vma_report *report,
		      const char *file, const char *member, int status);

/* The aggregate's contents, sorted, with percentiles computed; NULL when out of memory. */
const struct vma_aggregate_view *vma_aggregate_view(struct vma_aggregate *agg);

/*
 * Saving (the format: doc/save-format.md).  vma_aggregate_save() writes
 * every trace with its whole distributions to @out, then their sum by
 * exit reason.  vma_aggregate_load() adds the traces of the save file
 * @path; it refuses a file from another vmalyze version or other options,
 * and a trace (file and member) some earlier load already added (a save
 * merged with itself, or shards that overlap).  Errors go to @err naming
 * the file and the byte offset.
 * Return: VMA_OK; VMA_ERR_IO (cannot open or read), VMA_ERR_FORMAT (not a
 * save file, or a damaged one), VMA_ERR_USAGE (a file that may not be
 * merged with the others), VMA_ERR_NOMEM.  The save: VMA_ERR_OUTPUT, or
 * VMA_ERR_FORMAT for a distribution lacking samples (vma_cycles_export()).
 */
int vma_aggregate_save(struct vma_aggregate *agg, FILE *out);
int vma_aggregate_load(struct vma_aggregate *agg, const char *path, FILE *err);

/* The platform of @report's exit reasons: "xen-vmx", "kvm-arm"... */
const char *vma_report_platform(const struct vma_report *report);

/*
 * Aggregate renderers (src/output/): the text section that ends a batch's
 * summary, the aggregate document that ends its JSON Lines, the aggregate
 * rows of its CSV table (with the header line when no trace printed it).
 * Return: VMA_OK or VMA_ERR_OUTPUT.
 */
int vma_render_aggregate_text(FILE *out, const struct vma_aggregate_view *v);
int vma_render_aggregate_json(FILE *out, const struct vma_aggregate_view *v);
int vma_render_aggregate_csv(FILE *out, const struct vma_aggregate_view *v, bool with_header);

#endif /* VMALYZE_AGGREGATE_H */
