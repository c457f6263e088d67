/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The batch driver: every PATH of the command line (traces, folders,
 * compressed traces, archives) analysed, up to --jobs traces at once, the
 * output in input order whatever the number of jobs.
 */
#ifndef VMALYZE_CLI_BATCH_H
#define VMALYZE_CLI_BATCH_H

#include "cli/options.h"
#include "vmalyze/diag.h"

/* main()'s mapping of a run's status and worst diagnostic to an exit status. */
typedef int (*vma_exit_status_fn)(int status, enum vma_level worst);

/*
 * vma_batch_run - analyse opts->files, writing to stdout.
 * Return: the highest exit status of any trace (@exit_status_for of each),
 * VMA_EXIT_SYSTEM when the output could not be written.
 */
int vma_batch_run(const struct vma_options *opts, vma_exit_status_fn exit_status_for);

/*
 * vma_stdout_failed - after a failed write to stdout, say so with the
 * system's reason: errno of the failure may be gone by now, but flushing
 * what is still buffered fails again with it (@saved: errno when the
 * failure was noticed, or 0).
 * Return: VMA_EXIT_SYSTEM.
 */
int vma_stdout_failed(int saved);

#endif /* VMALYZE_CLI_BATCH_H */
