/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The run driver: one input through every stage, into one report. */
#ifndef VMALYZE_CLI_RUN_H
#define VMALYZE_CLI_RUN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/options.h"

struct vma_diag;
struct vma_aggregate;

/*
 * A trace's place in a run of several (the batch results, aggregate.h):
 * the aggregate its end-of-trace report goes to, its path inside an
 * archive, and how many traces the run's renderer has shown before it.
 */
struct vma_run_batch {
	struct vma_aggregate *agg; /* NULL: no aggregate */
	pthread_mutex_t *agg_lock; /* NULL, or held around adds to agg (traces side by side) */
	const char *member;        /* NULL for a plain file */
	bool several;              /* the run has several traces: documents name them */
	unsigned int rendered;     /* traces rendered so far; vma_run_trace() counts */
};

/*
 * vma_run_file - analyze @path as @opts says, writing to @out.
 * Return: VMA_OK, or the negative VMA_ERR_* that ended the input early
 * (whatever was read is still reported).
 */
int vma_run_file(const struct vma_options *opts, const char *path, struct vma_diag *diag,
		 FILE *out);

/*
 * vma_run_trace - vma_run_file() for one trace of a batch: its report also
 * goes to @batch->agg (when set), and a trace that cannot be read is added
 * there as failed.
 * Return: as vma_run_file(); VMA_ERR_NOMEM when the aggregate could not grow.
 */
int vma_run_trace(const struct vma_options *opts, const char *path, struct vma_run_batch *batch,
		  struct vma_diag *diag, FILE *out);

/* Where one run reads its trace. */
struct vma_run_source {
	const char *path;   /* opened when fd < 0 ("-": standard input); the results' file */
	int fd;             /* >= 0: an open descriptor, owned by the run from now on */
	const char *name;   /* with fd: the name in messages (ARCHIVE:MEMBER) */
	/* NULL, or set now and then to about how many bytes of the file were read */
	_Atomic uint64_t *progress;
};

/* vma_run_source - vma_run_trace() for any source (@batch may be NULL). */
int vma_run_source(const struct vma_options *opts, const struct vma_run_source *src,
		   struct vma_run_batch *batch, struct vma_diag *diag, FILE *out);
struct vma_pipeline;

/*
 * vma_open_linked - @nr linked traces (vma_link_traces(): @paths[0] the
 * host, then its guests) opened as one pipeline with the command line's
 * reader options and time maps (linked.c); @report: a report will be built
 * from the state (else the state keeps no statistics).  Return: as
 * vma_run_file().
 */
int vma_open_linked(const struct vma_options *opts, const char *const *paths, uint32_t nr,
		    bool report, struct vma_diag *diag, struct vma_pipeline **p);

/* A duration of the command line's (--threshold, --time-range) in ticks of @hz. */
uint64_t vma_run_ticks(uint64_t ns, uint64_t hz);

/*
 * vma_run_linked - the dump (-a) of @nr linked traces (vma_link_traces()):
 * @paths[0] the host, then its guests, merged on one clock (linked.c).
 * Return: as vma_run_file().
 */
int vma_run_linked(const struct vma_options *opts, const char *const *paths, uint32_t nr,
		   struct vma_diag *diag, FILE *out);

/*
 * vma_run_latency - the --latency report of a host and its guests (@paths
 * as vma_run_linked(); a host alone gives its vcpu threads' split).
 * Return: as vma_run_file().
 */
int vma_run_latency(const struct vma_options *opts, const char *const *paths, uint32_t nr,
		    struct vma_diag *diag, FILE *out);

/*
 * vma_run_picture - --timeline and --svg of a trace, or of a host and its
 * guests (@paths as vma_run_linked()), written to the files they name
 * (picture.c).  Return: as vma_run_file(); VMA_ERR_IO when a file cannot
 * be written.
 */
int vma_run_picture(const struct vma_options *opts, const char *const *paths, uint32_t nr,
		    struct vma_diag *diag);

/*
 * vma_run_groups - --latency, --timeline/--svg, and the dump when some of
 * the traces given are linked (vma_link_traces()): each group of linked
 * traces one run, in the order given (groups.c).  *@handled false: nothing
 * was run (the batch driver runs the rest).
 * Return: the highest exit status, mapped by @exit_status_for.
 */
int vma_run_groups(const struct vma_options *opts, int (*exit_status_for)(int, enum vma_level),
		   bool *handled);

#endif /* VMALYZE_CLI_RUN_H */
