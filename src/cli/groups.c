/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Runs over traces that are one system (run.h): which traces given on the
 * command line are linked is vma_link_traces()'s decision; each group (a
 * host and its guests, or a trace alone) is one run, in the order given,
 * under a "=== HOST + GUEST ===" line when there are several.  --latency
 * and the pictures always run here; the dump only when some traces are
 * linked, else the batch driver runs it as any other batch.
 */
#include <stdlib.h>

#include "cli/run.h"
#include "vmalyze/diag.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/status.h"

/* host_of[] of the command line's traces.  Return: VMA_OK or VMA_ERR_NOMEM. */
static int link_all(const struct vma_options *opts, uint32_t *host_of)
{
	/* the files' ids only: no record is described */
	struct vma_input_options inopts = { .event_formats_dir = opts->event_formats,
					    .fields_only = true };
	bool *by_hand = calloc((size_t)opts->nr_files, sizeof(*by_hand));
	int i, rc;

	if (!by_hand)
		return VMA_ERR_NOMEM;
	for (i = 0; i < opts->nr_files; i++)
		by_hand[i] = vma_options_time_map(opts, opts->files[i]) != NULL;
	rc = vma_link_traces((const char *const *)opts->files, (uint32_t)opts->nr_files, &inopts,
			     by_hand, host_of);
	free(by_hand);
	return rc;
}

/* One group: trace @i and the traces linked to it.  Return: its status. */
static int run_group(const struct vma_options *opts, const uint32_t *host_of, int i,
		     bool headed, struct vma_diag *diag)
{
	const char **paths = calloc((size_t)opts->nr_files, sizeof(*paths));
	uint32_t nr = 0, k;
	int j, status;

	if (!paths)
		return VMA_ERR_NOMEM;
	paths[nr++] = opts->files[i];
	for (j = 0; j < opts->nr_files; j++) {
		if (j != i && host_of[j] == (uint32_t)i)
			paths[nr++] = opts->files[j];
	}
	if (headed) {
		printf("%s=== %s", i ? "\n" : "", paths[0]);
		for (k = 1; k < nr; k++)
			printf(" + %s", paths[k]);
		printf(" ===\n");
	}
	if (opts->mode == VMA_MODE_LATENCY)
		status = vma_run_latency(opts, paths, nr, diag, stdout);
	else if (opts->mode == VMA_MODE_PICTURE)
		status = vma_run_picture(opts, paths, nr, diag);
	else if (nr > 1)
		status = vma_run_linked(opts, paths, nr, diag, stdout);
	else
		status = vma_run_file(opts, paths[0], diag, stdout);
	free(paths);
	return status;
}

int vma_run_groups(const struct vma_options *opts, int (*exit_status_for)(int, enum vma_level),
		   bool *handled)
{
	uint32_t *host_of;
	int i, groups = 0, exit_status = 0;
	bool linked = false;

	*handled = false;
	if (opts->mode == VMA_MODE_SUMMARY || opts->mode == VMA_MODE_LIVE ||
	    (opts->mode == VMA_MODE_DUMP && opts->nr_files < 2))
		return 0;
	host_of = calloc((size_t)opts->nr_files, sizeof(*host_of));
	if (!host_of || link_all(opts, host_of)) {
		free(host_of);
		fprintf(stderr, "vmalyze: out of memory\n");
		*handled = true;
		return exit_status_for(VMA_ERR_NOMEM, VMA_LVL_NONE);
	}
	for (i = 0; i < opts->nr_files; i++) {
		linked |= host_of[i] != (uint32_t)i;
		groups += host_of[i] == (uint32_t)i;
	}
	if (opts->mode == VMA_MODE_DUMP && !linked) {
		free(host_of);
		return 0;
	}
	*handled = true;
	for (i = 0; i < opts->nr_files; i++) {
		struct vma_diag *diag;
		int status, code;

		if (host_of[i] != (uint32_t)i)
			continue; /* run with its host */
		diag = vma_diag_create((enum vma_level)opts->tolerance, opts->verbosity);
		if (!diag) {
			fprintf(stderr, "vmalyze: out of memory\n");
			exit_status = exit_status_for(VMA_ERR_NOMEM, VMA_LVL_NONE);
			break;
		}
		status = run_group(opts, host_of, i, groups > 1, diag);
		vma_diag_flush_counts(diag);
		code = exit_status_for(status, vma_diag_worst(diag));
		if (status < 0 && status != VMA_ERR_IO && status != VMA_ERR_FORMAT &&
		    status != VMA_ERR_DAMAGED && status != VMA_ERR_USAGE) {
			fprintf(stderr, "vmalyze: %s: %s\n", opts->files[i],
				vma_status_str(status));
		}
		vma_diag_destroy(diag);
		if (fflush(stdout) != 0) {
			fprintf(stderr, "vmalyze: cannot write the output\n");
			code = exit_status_for(VMA_ERR_OUTPUT, VMA_LVL_NONE);
		}
		if (code > exit_status)
			exit_status = code;
	}
	free(host_of);
	return exit_status;
}
