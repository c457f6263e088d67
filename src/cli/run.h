/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The run driver: one input through every stage, into one report. */
#ifndef VMALYZE_CLI_RUN_H
#define VMALYZE_CLI_RUN_H

#include <stdio.h>

#include "cli/options.h"

struct vma_diag;

/*
 * vma_run_file - analyze @path as @opts says, writing to @out.
 * Return: VMA_OK, or the negative VMA_ERR_* that ended the input early
 * (whatever was read is still reported).
 */
int vma_run_file(const struct vma_options *opts, const char *path, struct vma_diag *diag,
		 FILE *out);

#endif /* VMALYZE_CLI_RUN_H */
