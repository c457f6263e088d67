/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command-line configuration of one vmalyze run, parsed from argv by
 * vma_options_parse() from the option tables (vmalyze's, options.c, and
 * xenalyze's, options-xen.c), which also print --help.
 */
#ifndef VMALYZE_CLI_OPTIONS_H
#define VMALYZE_CLI_OPTIONS_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/diag.h"
#include "vmalyze/input.h"
#include "vmalyze/eips.h"
#include "vmalyze/scatter.h"
#include "vmalyze/report.h"
#include "vmalyze/xinterval.h"

enum vma_mode {
	VMA_MODE_SUMMARY = 0,
	VMA_MODE_DUMP,
	VMA_MODE_LIVE,          /* --live: a view per second of trace time */
	VMA_MODE_LATENCY,       /* --latency */
	VMA_MODE_PICTURE,       /* --timeline and/or --svg */
};

/* --time-offset may be given this many times. */
#define VMA_MAX_TIME_OFFSETS 16

/* --time-offset FILE=NS[,SCALE]: FILE's clock mapped onto the host's by hand. */
struct vma_time_offset {
	const char *file;
	struct vma_time_map map;
};

/* --cpu-hz when not given: xenalyze's default. */
#define VMA_DEFAULT_CPU_HZ 2400000000ull

struct vma_options {
	enum vma_mode mode;
	bool summary;           /* -s */
	bool dump;              /* -a */
	bool report;            /* print the summary (or interval) report */
	uint64_t cpu_hz;        /* --cpu-hz */
	bool cpu_hz_given;      /* else main() may take the Xen host's (record.h) */
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
	struct vma_xinterval_options xinterval; /* --interval-domain-*: mode 0 = none */
	const char *format;     /* the summary's renderer (report.h), never NULL after parsing */
	const char *event_formats;  /* --event-formats DIR */
	/* xenalyze's options (options-xen.c's table). */
	struct vma_scatter_options scatter; /* --scatterplot-*: kinds 0 = none */
	const char *symbol_file;    /* --symbol-file */
	const struct vma_symbols *symbols; /* its table, loaded by main() */
	bool show_default_domain;   /* --show-default-domain-summary */
	bool no_percentiles;        /* --sample-size=0 */
	bool dump_power_states;     /* --dump-show-power-states */
	bool dump_raw_process;      /* --dump-raw-process */
	bool dump_raw_reads;        /* --dump-raw-reads, or --dump-no-processing */
	bool dump_no_processing;    /* --dump-no-processing */
	bool dump_ipi_latency;      /* --dump-ipi-latency */
	bool dump_volume_on_lost;   /* --dump-trace-volume-on-lost-record */
	uint8_t default_paging_levels; /* --default-guest-paging-levels, 0 = not given */
	bool tsc_loop_fatal;        /* --tsc-loop-fatal */
	bool tsc_skew_correct;      /* --tsc-skew-correct */
	bool mmio_keep_vga;         /* --mmio-enumeration-skip-vga=0 */
	/* --with-interrupt-eip-enumeration, --histogram-interrupt-eip */
	struct vma_eip_options eips;
	/* --with-cr3-enumeration itself (--interval-cr3-* also set eips.cr3) */
	bool cr3_enumeration;
	unsigned int jobs;      /* -j / --jobs: traces at once, 0 = online cpus */
	bool progress;          /* --progress: the progress line even off a terminal */
	unsigned int threads;   /* --threads: 1, or 2 for a reader thread per trace */
	uint32_t top;           /* --top N: the N longest exits, 0 = off */
	size_t memory_budget;   /* --memory-budget bytes: 0 the default, SIZE_MAX no limit */
	/* Traces analysed at once, which share memory_budget (the batch driver's -j); 0: one */
	unsigned int traces_at_once;
	struct vma_report_filter filter; /* --domain/--vm, --vcpu, --time */
	enum vma_stat_event stat_event; /* --event (kvm-stat) */
	enum vma_stat_sort stat_sort;   /* --sort (kvm-stat) */
	bool stat_event_set, stat_sort_set;
	bool latency;           /* --latency */
	const char *timeline;   /* --timeline FILE.json */
	const char *svg;        /* --svg FILE */
	uint64_t range_from_ns, range_to_ns; /* --time-range, since the first record; to 0: end */
	bool time_range;        /* --time-range given */
	uint64_t threshold_ns;  /* --threshold, 0: the guest's p99 */
	const char *latency_start, *latency_end; /* --latency-events START,END, or NULL */
	struct vma_time_offset time_offsets[VMA_MAX_TIME_OFFSETS]; /* --time-offset */
	int nr_time_offsets;
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

/* The --time-offset mapping given for trace @path, or NULL. */
const struct vma_time_map *vma_options_time_map(const struct vma_options *opts, const char *path);

/*
 * --memory-budget's default: a machine's default budgets for its
 * distributions and its rows together (cycles.h), 32 MiB.
 */
#define VMA_MEMORY_BUDGET_DEFAULT (VMA_CYCLES_BUDGET_DEFAULT + VMA_ROWS_BUDGET_DEFAULT)

/*
 * vma_options_budgets - what one of @machines machines analysed at once
 * (the traces of -j, times the linked traces of one run) may hold of
 * --memory-budget: an equal share each, of which an eighth for the tables
 * of rows and the rest for the distributions (state.h's rows_budget and
 * summary_budget); both SIZE_MAX when there is no limit.  A function of
 * the command line only, so the output never depends on timing.
 */
void vma_options_budgets(const struct vma_options *opts, unsigned int machines,
			 size_t *summaries, size_t *rows);

/*
 * vma_options_reorder_cap - what the reorder stage of one of @inputs
 * streamed xentraces read at once (a pipe, a FIFO, an archive member;
 * the traces of -j, times the linked traces of one run) may hold:
 * VMA_REORDER_CAP_DEFAULT shared equally, at least 2 MiB each.
 */
size_t vma_options_reorder_cap(const struct vma_options *opts, unsigned int inputs);

/* Parses "2.4G", "2400M", "2400000000" (Hz).  Returns 0 on a bad value. */
uint64_t vma_parse_hz(const char *text);

#endif /* VMALYZE_CLI_OPTIONS_H */
