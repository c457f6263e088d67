/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Batch results on the command line: the run's aggregate, --save, vmalyze merge. */
#ifndef VMALYZE_CLI_RESULTS_H
#define VMALYZE_CLI_RESULTS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/options.h"

struct vma_aggregate;

/*
 * True when the run keeps an aggregate: a summary of @several traces (more
 * than one PATH, a folder or an archive), or --save.
 */
bool vma_results_wanted(const struct vma_options *opts, bool several);

/* True when the format names each trace itself (JSON Lines, CSV): no "=== FILE ===" lines. */
bool vma_results_names_traces(const struct vma_options *opts);

/*
 * vma_results_finish - after the last trace: the aggregate in the run's
 * format when there were @several traces (@rendered of them were shown),
 * then the save file when --save asked.
 * Return: VMA_OK, VMA_ERR_OUTPUT or VMA_ERR_NOMEM (after a message on @err).
 */
int vma_results_finish(const struct vma_options *opts, struct vma_aggregate *agg,
		       unsigned int rendered, bool several, FILE *out, FILE *err);

/*
 * vma_merge_main - `vmalyze merge [OPTION]... SAVE...` (@argv[0] is "merge"):
 * the aggregate of the saved runs, as one run over all their traces would
 * have printed it.
 * Return: VMA_OK; VMA_ERR_USAGE (bad options, or saves that may not be
 * merged: the same trace twice, another version, other --cpu-hz);
 * VMA_ERR_IO or VMA_ERR_FORMAT (a save unreadable or damaged);
 * VMA_ERR_NOMEM or VMA_ERR_OUTPUT.
 */
int vma_merge_main(int argc, char **argv, FILE *out, FILE *err);

#endif /* VMALYZE_CLI_RESULTS_H */
