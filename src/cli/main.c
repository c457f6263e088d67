/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmalyze: where did the guest's time go?  Reads Xen xentrace files and
 * KVM trace.dat / raw ftrace dumps; dumps every record, or summarizes per
 * domain and vcpu.  This file maps outcomes to exit statuses (the only
 * place the program exits), and gives a large analysis a thread of its
 * own, for its heap's sake.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/batch.h"
#include "cli/heap.h"
#include "cli/options.h"
#include "cli/record.h"
#include "cli/results.h"
#include "cli/run.h"
#include "cli/signals.h"
#include "config.h"
#include "vmalyze/diag.h"
#include "vmalyze/format-check.h"
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

/* The analysis thread's stack: the main thread's usual 8 MiB, whatever RLIMIT_STACK says. */
#define ANALYSIS_STACK ((size_t)8 << 20)
/*
 * Input bytes from which the analysis gets a thread of its own: huge
 * pages save a few percent of a large run, a thread costs about a
 * millisecond here (bench/README, round thirty-seven).
 */
#define ANALYSIS_THREAD_BYTES ((off_t)32 << 20)

/* The traces' analysis: its options, its own thread's signal mask, its exit status. */
struct analysis {
	struct vma_options *opts;
	bool own_thread;
	sigset_t mask;
	int exit_status;
};

static void *analysis_main(void *arg)
{
	struct analysis *a = arg;
	bool handled;

	if (a->own_thread) {
		pthread_sigmask(SIG_SETMASK, &a->mask, NULL);
		vma_heap_advise_arena();
	}
	/* a host and its guests are one run (groups.c), the rest a batch */
	a->exit_status = vma_run_groups(a->opts, exit_status_for, &handled);
	if (!handled)
		a->exit_status = vma_batch_run(a->opts, exit_status_for);
	return NULL;
}

/* Whether the regular files among the inputs come to ANALYSIS_THREAD_BYTES. */
static bool large_inputs(const struct vma_options *opts)
{
	off_t bytes = 0;
	struct stat st;
	int i;

	for (i = 0; i < opts->nr_files && bytes < ANALYSIS_THREAD_BYTES; i++)
		if (stat(opts->files[i], &st) == 0 && S_ISREG(st.st_mode))
			bytes += st.st_size;
	return bytes >= ANALYSIS_THREAD_BYTES;
}

/*
 * A large analysis runs on a thread of its own, so that its allocations
 * come from an arena that can be on huge pages (cli/heap.h), while this
 * thread waits.  SIGINT and SIGTERM are blocked here from before the
 * thread starts, so that they reach it: one blocked in read() must see
 * them.
 */
static int analyse(struct vma_options *opts)
{
	struct analysis a = { .opts = opts, .own_thread = true };
	sigset_t stop_set;
	pthread_attr_t attr;
	pthread_t thread;
	bool started = false;

	if (large_inputs(opts) && pthread_attr_init(&attr) == 0) {
		sigemptyset(&stop_set);
		sigaddset(&stop_set, SIGINT);
		sigaddset(&stop_set, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &stop_set, &a.mask);
		pthread_attr_setstacksize(&attr, ANALYSIS_STACK);
		started = pthread_create(&thread, &attr, analysis_main, &a) == 0;
		pthread_attr_destroy(&attr);
		if (started)
			pthread_join(thread, NULL);
		pthread_sigmask(SIG_SETMASK, &a.mask, NULL);
	}
	if (!started) {
		a.own_thread = false;
		analysis_main(&a);
	}
	return a.exit_status;
}

/* `vmalyze merge SAVE...`: the aggregate of saved runs (cli/results.h). */
static int merge_main(int argc, char **argv)
{
	static char outbuf[1 << 16];
	int status;

	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	status = vma_merge_main(argc, argv, stdout, stderr);
	if ((ferror(stdout) || fflush(stdout) != 0) && status == VMA_OK)
		return vma_stdout_failed(errno);
	return exit_status_for(status, VMA_LVL_NONE);
}

int main(int argc, char **argv)
{
	static char outbuf[1 << 20];
	struct vma_options opts;
	struct vma_symbols *symbols = NULL;
	int exit_status;

	/* The event-format check's helper: this program again, started by itself. */
	if (argc == 2 && !strcmp(argv[1], VMA_FORMAT_CHECK_ARG))
		return vma_format_check_serve();
	if (argc > 1 && !strcmp(argv[1], "merge"))
		return merge_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "record"))
		return vma_record_main(argc - 1, argv + 1, vma_stop_install(), vma_xen_tbuf_open);
	if (vma_options_parse(&opts, argc, argv, stderr))
		return VMA_EXIT_USAGE;
	/* Their text is the output: a failed write is status 5 too. */
	if (opts.help || opts.version) {
		errno = 0;
		if (opts.help)
			vma_options_help(stdout);
		else
			printf("vmalyze %s\n", PACKAGE_VERSION);
		if (ferror(stdout) || fflush(stdout) != 0)
			return vma_stdout_failed(errno);
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
	/* On a Xen host its TSC frequency is the likelier clock of the traces. */
	if (!opts.cpu_hz_given)
		opts.cpu_hz = vma_record_default_hz(opts.verbosity, vma_xen_host_open);
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	opts.stop = vma_stop_install();
	if (vma_format_check_use("/proc/self/exe") != VMA_OK) {
		fprintf(stderr, "vmalyze: out of memory\n");
		vma_symbols_destroy(symbols);
		return VMA_EXIT_SYSTEM;
	}
	exit_status = analyse(&opts);
	vma_format_check_end();
	vma_symbols_destroy(symbols);
	return exit_status;
}
