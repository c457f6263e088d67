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

#endif /* VMALYZE_CLI_RUN_H */
