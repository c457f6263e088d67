/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmalyze: where did the guest's time go?  Reads Xen xentrace files and
 * KVM trace.dat / raw ftrace dumps; dumps every record, or summarizes per
 * domain and vcpu.  This file maps outcomes to exit statuses: the only
 * place the program exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "cli/record.h"
#include "cli/results.h"
#include "cli/run.h"
#include "cli/signals.h"
#include "config.h"
#include "vmalyze/aggregate.h"
#include "vmalyze/diag.h"
#include "vmalyze/status.h"
#include "vmalyze/symbols.h"

static int exit_status_for(int status, enum vma_level worst)
{
	switch (status) {
	case VMA_OK:
		break;
	case VMA_ERR_IO:
	case VMA_ERR_FORMAT:
		return VMA_EXIT_UNREADABLE;
	case VMA_ERR_DAMAGED:
		return VMA_EXIT_STOPPED;
	case VMA_ERR_USAGE:
		return VMA_EXIT_USAGE;
	default:
		return VMA_EXIT_SYSTEM;
	}
	return worst >= VMA_LVL_RECORD ? VMA_EXIT_TOLERATED : VMA_EXIT_OK;
}

/* `vmalyze merge SAVE...`: the aggregate of saved runs (cli/results.h). */
static int merge_main(int argc, char **argv)
{
	static char outbuf[1 << 16];
	int status;

	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	status = vma_merge_main(argc, argv, stdout, stderr);
	if (fflush(stdout) != 0 && status == VMA_OK) {
		fprintf(stderr, "vmalyze: cannot write the output\n");
		status = VMA_ERR_OUTPUT;
	}
	return exit_status_for(status, VMA_LVL_NONE);
}

int main(int argc, char **argv)
{
	static char outbuf[1 << 20];
	struct vma_options opts;
	struct vma_run_batch batch = { 0 };
	struct vma_symbols *symbols = NULL;
	int i, exit_status = VMA_EXIT_OK;

	if (argc > 1 && !strcmp(argv[1], "merge"))
		return merge_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "record"))
		return vma_record_main(argc - 1, argv + 1, vma_stop_install(), vma_xen_tbuf_open);
	if (vma_options_parse(&opts, argc, argv, stderr))
		return VMA_EXIT_USAGE;
	if (opts.help) {
		vma_options_help(stdout);
		return VMA_EXIT_OK;
	}
	if (opts.version) {
		printf("vmalyze %s\n", PACKAGE_VERSION);
		return VMA_EXIT_OK;
	}
	if (opts.symbol_file) {
		int rc = vma_symbols_load(opts.symbol_file, &symbols, stderr);

		if (rc == VMA_ERR_NOMEM)
			fprintf(stderr, "vmalyze: out of memory\n");
		if (rc)
			return rc == VMA_ERR_NOMEM ? VMA_EXIT_SYSTEM : VMA_EXIT_USAGE;
		opts.symbols = symbols;
	}
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	batch.several = opts.nr_files > 1;
	if (vma_results_wanted(&opts)) {
		struct vma_aggregate_options aopts = { opts.cpu_hz, opts.timer_hz };

		batch.agg = vma_aggregate_create(&aopts);
		if (!batch.agg) {
			fprintf(stderr, "vmalyze: out of memory\n");
			return VMA_EXIT_SYSTEM;
		}
	}
	opts.stop = vma_stop_install();

	for (i = 0; i < opts.nr_files && !*opts.stop; i++) {
		struct vma_diag *diag = vma_diag_create((enum vma_level)opts.tolerance,
							opts.verbosity);
		int status, code;

		if (!diag) {
			fprintf(stderr, "vmalyze: out of memory\n");
			vma_aggregate_destroy(batch.agg);
			vma_symbols_destroy(symbols);
			return VMA_EXIT_SYSTEM;
		}
		if (opts.nr_files > 1 && !vma_results_names_traces(&opts))
			printf("%s=== %s ===\n", i ? "\n" : "", opts.files[i]);
		status = vma_run_trace(&opts, opts.files[i], &batch, diag, stdout);
		vma_diag_flush_counts(diag);
		code = exit_status_for(status, vma_diag_worst(diag));
		if (status < 0 && status != VMA_ERR_IO && status != VMA_ERR_FORMAT &&
		    status != VMA_ERR_DAMAGED)
			fprintf(stderr, "vmalyze: %s: %s\n", opts.files[i], vma_status_str(status));
		vma_diag_destroy(diag);
		if (fflush(stdout) != 0) {
			fprintf(stderr, "vmalyze: cannot write the output\n");
			vma_aggregate_destroy(batch.agg);
			vma_symbols_destroy(symbols);
			return VMA_EXIT_SYSTEM;
		}
		if (code > exit_status)
			exit_status = code;
	}
	vma_symbols_destroy(symbols);
	if (batch.agg) {
		int status = vma_results_finish(&opts, batch.agg, batch.rendered, stdout, stderr);

		vma_aggregate_destroy(batch.agg);
		if (status == VMA_OK && fflush(stdout) != 0) {
			fprintf(stderr, "vmalyze: cannot write the output\n");
			status = VMA_ERR_OUTPUT;
		}
		if (status != VMA_OK)
			return VMA_EXIT_SYSTEM;
	}
	return exit_status;
}
