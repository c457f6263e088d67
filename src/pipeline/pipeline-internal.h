/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pipeline's own structures, shared by its files (pipeline.c, the
 * loop and its inputs; split.c, a run in two parts).  Not a contract:
 * the stages outside see pipeline.h only.
 */
#ifndef VMALYZE_PIPELINE_INTERNAL_H
#define VMALYZE_PIPELINE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "vmalyze/pipeline.h"

struct split_side;

/*
 * One input and the machine its records go to.  A pipeline has one, or
 * several linked inputs (a host and its guests) merged on one clock: the
 * first is the host.
 */
struct member {
	struct vma_pipeline *p;
	struct vma_input *in;
	const char *name;                /* its file, as the caller named it (borrowed) */
	bool by_path;                    /* opened by @name, not from a descriptor */
	struct vma_input_options inopts; /* the pipeline's, with this input's time map */
	struct vma_machine *machine;
	uint64_t hz;
	uint32_t rank_base;        /* this input's cpus rank after the inputs before it */
	uint32_t rank_end;         /* one past its highest cpu's rank */
	uint64_t furthest;         /* for opts.progress */
	/* pcpus announced before the machine existed */
	uint32_t *early;
	size_t nr_early, cap_early;
	/* a guest: [guest cpu] = the host's vcpu running it, NULL when not known */
	const struct vma_vcpu **host_vcpu;
	uint32_t nr_host_vcpu;
};

struct vma_pipeline {
	struct vma_pipeline_options opts;
	struct vma_diag *diag;
	struct vma_feed *feed;
	struct member *members;    /* owned, nr_members */
	uint32_t nr_members;
	struct member *announcing; /* linked inputs: whose stream the feed is taking */
	bool linked;               /* more than one input */
	struct member *speaking;   /* linked inputs: the diag's source (speak_for()) */
	uint32_t nr_streams;
	uint64_t nr_records;       /* records delivered (opts.progress, none at all) */
	/* --time: the window in ticks from the first record */
	bool have_first;
	uint64_t first_tsc, from, to;
	/* A run split in two (split.c): this side's part; NULL: not split. */
	struct split_side *split;
};

/*
 * split.c.  vma_split_wanted(): whether @p's run, bare (no hooks) and
 * wanting two threads, goes in two parts.  vma_split_run(): the run so,
 * the caller's feed started on one thread; as run_loop() returns, with
 * *@interrupted.  vma_split_poll(): run_loop() asks it now and then
 * (POLL_RECORDS), @rec the last record taken: VMA_OK to go on, VMA_END to
 * stop here, or an error.
 */
bool vma_split_wanted(const struct vma_pipeline *p);
int vma_split_run(struct vma_pipeline *p, bool *interrupted);
int vma_split_poll(struct vma_pipeline *p, const struct vma_record *rec);
/* The bare record loop, one thread, its stream runs read there (pipeline.c). */
int vma_pipeline_run_bare(struct vma_pipeline *p, bool *interrupted);

#endif /* VMALYZE_PIPELINE_INTERNAL_H */
