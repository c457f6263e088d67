/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command-line configuration of one vmalyze run, parsed from argv by
 * vma_options_parse() from one option table, which also prints --help.
 */
#ifndef VMALYZE_CLI_OPTIONS_H
#define VMALYZE_CLI_OPTIONS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/diag.h"

enum vma_mode {
	VMA_MODE_SUMMARY = 0,
	VMA_MODE_DUMP,
	VMA_MODE_LIVE,          /* --live: a view per second of trace time */
};

/* --cpu-hz when not given: xenalyze's default. */
#define VMA_DEFAULT_CPU_HZ 2400000000ull

struct vma_options {
	enum vma_mode mode;
	bool summary;           /* -s */
	bool dump;              /* -a */
	uint64_t cpu_hz;        /* --cpu-hz */
	uint64_t timer_hz;      /* --timer-hz: ARM generic timer */
	bool svm_mode;          /* --svm-mode */
	int tolerance;          /* --tolerance */
	enum vma_verbosity verbosity;
	bool histogram;         /* --histogram */
	bool json;              /* --json */
	bool csv;               /* --csv */
	const char *save;       /* --save FILE: the batch results, for vmalyze merge */
	bool report_pcpu;       /* --report-pcpu */
	bool live;              /* --live */
	double interval_secs;   /* -i / --interval, 0 = off */
	const char *format;     /* the summary's renderer (report.h), never NULL after parsing */
	const char *event_formats;  /* --event-formats DIR */
	bool help, version;
	/* Set by SIGINT/SIGTERM: inputs end early and are reported (main.c). */
	volatile sig_atomic_t *stop;
	char **files;           /* borrowed from argv */
	int nr_files;
};

/*
 * vma_options_parse - fill @opts from @argv.
 * Return: VMA_OK, or VMA_ERR_USAGE after a message on @err.
 */
int vma_options_parse(struct vma_options *opts, int argc, char **argv, FILE *err);

void vma_options_help(FILE *out);

/* Parses "2.4G", "2400M", "2400000000" (Hz).  Returns 0 on a bad value. */
uint64_t vma_parse_hz(const char *text);

#endif /* VMALYZE_CLI_OPTIONS_H */
