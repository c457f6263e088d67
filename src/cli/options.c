/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The option table: long name, short name, argument, help text and the
 * setter that takes the argument.  It and xenalyze's table (options-xen.c)
 * drive getopt_long() and --help, so the two cannot disagree; doc/vmalyze.1
 * is checked against them by a test.  Names follow xenalyze where the
 * meaning is the same (--summary, --dump-all, --cpu-hz, --svm-mode,
 * --tolerance).  Which options go together is options-check.c's.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/option-table.h"
#include "vmalyze/report.h"
#include "vmalyze/status.h"

/* -i range: a microsecond to 11.5 days (at 10^12 Hz, 10^18 ticks: under 2^64). */
#define MIN_INTERVAL_SECS 1e-6
#define MAX_INTERVAL_SECS 1e6

int vma_option_set_flag(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			FILE *err)
{
	(void)arg;
	(void)err;
	*(bool *)((char *)opts + row->field) = true;
	return VMA_OK;
}

int vma_option_set_string(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			  FILE *err)
{
	(void)err;
	*(const char **)((char *)opts + row->field) = arg;
	return VMA_OK;
}

static int set_cpu_hz(struct vma_options *opts, const struct vma_option_row *row, char *arg,
		      FILE *err)
{
	(void)row;
	opts->cpu_hz = vma_parse_hz(arg);
	if (!opts->cpu_hz)
		return vma_usage_error(err, "bad --cpu-hz value '%s' (try 2.4G or 2400M)", arg);
	opts->cpu_hz_given = true;
	return VMA_OK;
}

static int set_timer_hz(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			FILE *err)
{
	(void)row;
	opts->timer_hz = vma_parse_hz(arg);
	if (!opts->timer_hz)
		return vma_usage_error(err, "bad --timer-hz value '%s' (try 50M)", arg);
	return VMA_OK;
}

static int set_tolerance(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			 FILE *err)
{
	char *end;
	long v = strtol(arg, &end, 0);

	(void)row;
	if (*end || end == arg || v < 0 || v > VMA_LVL_MAX_TOLERABLE)
		return vma_usage_error(err, "bad --tolerance '%s' (0 to 6)", arg);
	opts->tolerance = (int)v;
	return VMA_OK;
}

static int set_interval(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			FILE *err)
{
	char *end;
	double v = strtod(arg, &end);

	(void)row;
	/* Bounded so that the interval in clock ticks fits 64 bits at any --cpu-hz. */
	if (*end || end == arg || !(v >= MIN_INTERVAL_SECS) || !(v <= MAX_INTERVAL_SECS)) {
		return vma_usage_error(err, "bad --interval '%s' (seconds, from %g to %g)", arg,
				       MIN_INTERVAL_SECS, MAX_INTERVAL_SECS);
	}
	opts->interval_secs = v;
	return VMA_OK;
}

static int set_format(struct vma_options *opts, const struct vma_option_row *row, char *arg,
		      FILE *err)
{
	(void)row;
	if (!vma_renderer_find(arg))
		return vma_usage_error(err, "unknown --format '%s' (see vmalyze(1))", arg);
	opts->format = arg;
	return VMA_OK;
}

/* kvm-stat's --event: the table it prints. */
static int set_stat_event(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			  FILE *err)
{
	static const char *const kinds[] = { "exit", "mmio", "ioport", "msr", "hypercall" };
	int k = vma_pick_name(arg, kinds, 5);

	(void)row;
	if (k < 0) {
		return vma_usage_error(err, "bad --event '%s' (exit, mmio, ioport, msr or"
				       " hypercall)", arg);
	}
	opts->stat_event = (enum vma_stat_event)k;
	opts->stat_event_set = true;
	return VMA_OK;
}

/* kvm-stat's --sort: the order of its rows. */
static int set_stat_sort(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			 FILE *err)
{
	static const char *const keys[] = { "count", "time", "max" };
	int k = vma_pick_name(arg, keys, 3);

	(void)row;
	if (k < 0)
		return vma_usage_error(err, "bad --sort '%s' (count, time or max)", arg);
	opts->stat_sort = (enum vma_stat_sort)k;
	opts->stat_sort_set = true;
	return VMA_OK;
}

static int set_top(struct vma_options *opts, const struct vma_option_row *row, char *arg,
		   FILE *err)
{
	(void)row;
	if (!vma_parse_u32(arg, &opts->top) || !opts->top || opts->top > 1000000)
		return vma_usage_error(err, "bad --top '%s' (1 to 1000000)", arg);
	return VMA_OK;
}

/* Bounds of --memory-budget besides 0 (no limit). */
#define BUDGET_MIN ((uint64_t)1 << 20)
#define BUDGET_MAX ((uint64_t)1 << 40)

static int set_memory_budget(struct vma_options *opts, const struct vma_option_row *row,
			     char *arg, FILE *err)
{
	uint64_t v;

	(void)row;
	if (!vma_parse_bytes(arg, &v) || (v && (v < BUDGET_MIN || v > BUDGET_MAX)) ||
	    v > SIZE_MAX) {
		return vma_usage_error(err, "bad --memory-budget '%s' (0: no limit, or 1M to 1T)",
				       arg);
	}
	opts->memory_budget = v ? (size_t)v : SIZE_MAX;
	return VMA_OK;
}

static int set_domain(struct vma_options *opts, const struct vma_option_row *row, char *arg,
		      FILE *err)
{
	(void)row;
	if (!vma_parse_u32(arg, &opts->filter.domain))
		return vma_usage_error(err, "bad --domain/--vm '%s' (a number)", arg);
	opts->filter.domain_set = true;
	return VMA_OK;
}

static int set_vcpu(struct vma_options *opts, const struct vma_option_row *row, char *arg,
		    FILE *err)
{
	(void)row;
	if (!vma_parse_u32(arg, &opts->filter.vcpu))
		return vma_usage_error(err, "bad --vcpu '%s' (a number)", arg);
	opts->filter.vcpu_set = true;
	return VMA_OK;
}

static int set_time(struct vma_options *opts, const struct vma_option_row *row, char *arg,
		    FILE *err)
{
	(void)row;
	if (!vma_parse_time_window(arg, &opts->filter)) {
		return vma_usage_error(err, "bad --time '%s' (START,END in seconds, START < END;"
				       " END may be empty)", arg);
	}
	return VMA_OK;
}

static int set_jobs(struct vma_options *opts, const struct vma_option_row *row, char *arg,
		    FILE *err)
{
	char *end;
	long v = strtol(arg, &end, 10);

	(void)row;
	if (*end || end == arg || v < 1 || v > 1024)
		return vma_usage_error(err, "bad --jobs '%s' (1 to 1024)", arg);
	opts->jobs = (unsigned int)v;
	return VMA_OK;
}

static int set_threads(struct vma_options *opts, const struct vma_option_row *row, char *arg,
		       FILE *err)
{
	(void)row;
	if (strcmp(arg, "1") && strcmp(arg, "2"))
		return vma_usage_error(err, "bad --threads '%s' (1 or 2)", arg);
	opts->threads = (unsigned int)(*arg - '0');
	return VMA_OK;
}

static int set_latency_events(struct vma_options *opts, const struct vma_option_row *row,
			      char *arg, FILE *err)
{
	char *comma = strchr(arg, ',');

	(void)row;
	if (!comma || comma == arg || !comma[1] || strchr(comma + 1, ',')) {
		return vma_usage_error(err, "bad --latency-events '%s' (A,B: two guest event "
				       "names)", arg);
	}
	*comma = '\0';
	opts->latency_start = arg;
	opts->latency_end = comma + 1;
	return VMA_OK;
}

static int set_threshold(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			 FILE *err)
{
	(void)row;
	opts->threshold_ns = vma_parse_duration_ns(arg);
	if (!opts->threshold_ns)
		return vma_usage_error(err, "bad --threshold '%s' (try 100us or 2ms)", arg);
	return VMA_OK;
}

static int set_time_range(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			  FILE *err)
{
	(void)row;
	if (vma_parse_range(arg, &opts->range_from_ns, &opts->range_to_ns)) {
		return vma_usage_error(err, "bad --time-range '%s' (FROM,TO after the first "
				       "record: 10ms,20ms; either may be empty)", arg);
	}
	opts->time_range = true;
	return VMA_OK;
}

static int set_time_offset(struct vma_options *opts, const struct vma_option_row *row,
			   char *arg, FILE *err)
{
	(void)row;
	if (opts->nr_time_offsets == VMA_MAX_TIME_OFFSETS) {
		return vma_usage_error(err, "--time-offset is given more than %d times",
				       VMA_MAX_TIME_OFFSETS);
	}
	if (vma_parse_time_offset(arg, &opts->time_offsets[opts->nr_time_offsets])) {
		return vma_usage_error(err, "bad --time-offset '%s' (FILE=NS or FILE=NS,SCALE: "
				       "guest.dat=-1500,1.000002)", arg);
	}
	opts->nr_time_offsets++;
	return VMA_OK;
}

static int set_guest_tsc(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			 FILE *err)
{
	(void)row;
	if (opts->nr_time_offsets == VMA_MAX_TIME_OFFSETS) {
		return vma_usage_error(err, "--time-offset and --guest-tsc are given more than %d "
				       "times", VMA_MAX_TIME_OFFSETS);
	}
	if (vma_parse_guest_tsc(arg, &opts->time_offsets[opts->nr_time_offsets])) {
		return vma_usage_error(err, "bad --guest-tsc '%s' (FILE, FILE@dN, FILE@dN=CYCLES "
				       "or FILE@dN=CYCLES,SCALE: guest.dat@d1=-52000,1.0001)", arg);
	}
	opts->nr_time_offsets++;
	return VMA_OK;
}

static int set_verbose(struct vma_options *opts, const struct vma_option_row *row, char *arg,
		       FILE *err)
{
	(void)row;
	(void)arg;
	(void)err;
	if (opts->verbosity < VMA_VERB_DEBUG)
		opts->verbosity++;
	return VMA_OK;
}

static int set_quiet(struct vma_options *opts, const struct vma_option_row *row, char *arg,
		     FILE *err)
{
	(void)row;
	(void)arg;
	(void)err;
	opts->verbosity = VMA_VERB_QUIET;
	return VMA_OK;
}

static const struct vma_option_row table[] = {
	{ "summary", 's', NULL,
	  "Summary per domain and vcpu: runstates, exit reasons with cycle summaries (the default)",
	  VMA_OPTION_FLAG(summary) },
	{ "dump-all", 'a', NULL,
	  "Dump every record, human readable, in time order across pcpus (with -s: then the "
	  "summary)",
	  VMA_OPTION_FLAG(dump) },
	{ "cpu-hz", 0, "HZ",
	  "TSC frequency: 2.4G, 2400M or 2400000000 (default 2.4G, or a Xen dom0's own TSC)",
	  .set = set_cpu_hz },
	{ "timer-hz", 0, "HZ",
	  "Frequency of the Arm generic timer, whose count Xen on Arm records as its TSC",
	  .set = set_timer_hz },
	{ "svm-mode", 0, NULL,
	  "Read exit codes as AMD SVM's (only needed when a trace has too few exits to tell)",
	  VMA_OPTION_FLAG(svm_mode) },
	{ "tolerance", 0, "LEVEL",
	  "Skip damage up to this level, stop above it (xenalyze's levels 1-6; "
	  "0 skips nothing; default 3)",
	  .set = set_tolerance },
	{ "histogram", 0, NULL,
	  "With the summary: log-scale cycle histograms per exit reason and runstate",
	  VMA_OPTION_FLAG(histogram) },
	{ "interval", 'i', "SEC",
	  "CSV time series instead of the summary: one row per interval of SEC "
	  "seconds, domain and metric (with an --interval-domain-* option: its "
	  "interval length, default 1)",
	  .set = set_interval },
	{ "json", 0, NULL,
	  "The summary as JSON (schema in output.md, see vmalyze(1))",
	  VMA_OPTION_FLAG(json) },
	{ "csv", 0, NULL,
	  "The summary as one CSV table: a row per trace, VM, vcpu and exit reason or runstate",
	  VMA_OPTION_FLAG(csv) },
	{ "format", 0, "NAME",
	  "Summary format by name: text, histogram, json, csv, interval (with -i), "
	  "kvm-stat (perf kvm stat's tables)",
	  .set = set_format },
	{ "save", 0, "FILE",
	  "Also write the per-trace results and their aggregate to FILE, for "
	  "'vmalyze merge' (doc/batch.md)",
	  VMA_OPTION_STRING(save) },
	{ "event", 0, "KIND",
	  "kvm-stat: table of exit (default), mmio, ioport, msr or hypercall",
	  .set = set_stat_event },
	{ "sort", 0, "KEY",
	  "kvm-stat: order rows by count (default), time or max",
	  .set = set_stat_sort },
	{ "top", 0, "N",
	  "With the summary: the N longest exits, with time stamp, vcpu, reason, rip",
	  .set = set_top },
	{ "memory-budget", 0, "SIZE",
	  "Memory the distributions and rows of one trace may hold, shared by traces at once "
	  "(default 32M; 0: no limit); past it percentiles get coarser, new keys go to "
	  "\"other\" rows, and the summary says so",
	  .set = set_memory_budget },
	{ "domain", 0, "ID",
	  "Only this domain (Xen) or VM (KVM: its number or its VMM's pid)",
	  .set = set_domain },
	{ "vm", 0, "ID",
	  "The same as --domain",
	  .set = set_domain },
	{ "vcpu", 0, "ID",
	  "Only this vcpu (of each domain kept); not with --report-pcpu",
	  .set = set_vcpu },
	{ "time", 0, "START,END",
	  "Only the records from START to END seconds after the trace's first (END may "
	  "be empty: to the end)",
	  .set = set_time },
	{ "report-pcpu", 0, NULL,
	  "With the summary: per-pcpu running, idle and lost time",
	  VMA_OPTION_FLAG(report_pcpu) },
	{ "live", 0, NULL,
	  "A view per second of trace time per domain and vcpu, as records arrive "
	  "(for a pipe; plain lines unless stdout is a terminal)",
	  VMA_OPTION_FLAG(live) },
	{ "event-formats", 0, "DIR",
	  "Folder of tracefs event format files, for raw ftrace ring-buffer dumps",
	  VMA_OPTION_STRING(event_formats) },
	{ "jobs", 'j', "N",
	  "Analyze up to N traces at once, as memory allows (default: the number of "
	  "online cpus); the output is the same for every N unless a trace reaches "
	  "its share of --memory-budget",
	  .set = set_jobs },
	{ "progress", 0, NULL,
	  "Progress line on stderr even when it is not a terminal (on a terminal it "
	  "is shown unless -q)",
	  VMA_OPTION_FLAG(progress) },
	{ "threads", 0, "N",
	  "1: one thread per trace; 2: read and merge on a second thread (default 2 "
	  "with two cpus, for one trace at a time: a KVM trace of 1 MiB of events or "
	  "more, or a xentrace of 16 MiB or more)",
	  .set = set_threads },
	{ "time-offset", 0, "FILE=NS",
	  "Put trace.dat FILE on the first trace's clock by hand, its times + NS "
	  "nanoseconds (FILE=NS,SCALE: times x SCALE + NS); with -a, dumped with it",
	  .set = set_time_offset },
	{ "guest-tsc", 0, "FILE@dN=C,S",
	  "Put trace.dat FILE, recorded with a TSC clock inside Xen domain N, on the "
	  "first trace's (a xentrace's) TSC: guest TSC = host TSC x S + C cycles "
	  "(@dN, =C and ,S may be left out: no domain, 0, 1; FILE's TIME_SHIFT "
	  "applies first); with -a, dumped with it",
	  .set = set_guest_tsc },
	{ "latency", 0, NULL,
	  "Guest wake-up latencies split by what the host did (HOST.dat GUEST.dat); "
	  "text, --json or --csv",
	  VMA_OPTION_FLAG(latency) },
	{ "threshold", 0, "TIME",
	  "With --latency: list wake-ups from TIME (100us, 2ms; default the guest's p99)",
	  .set = set_threshold },
	{ "latency-events", 0, "A,B",
	  "With --latency: the intervals from each guest event A to the next B on its "
	  "cpu, instead of the wake-ups",
	  .set = set_latency_events },
	{ "timeline", 0, "FILE",
	  "Write a Chrome JSON trace (Perfetto UI, chrome://tracing): tracks per pcpu, "
	  "vcpu and guest cpu",
	  VMA_OPTION_STRING(timeline) },
	{ "svg", 0, "FILE",
	  "Write an SVG picture of the time range: pcpus and vcpus as rows, states as colours",
	  VMA_OPTION_STRING(svg) },
	{ "time-range", 0, "FROM,TO",
	  "With --timeline and --svg: only FROM to TO after the first record (10ms,20ms)",
	  .set = set_time_range },
	{ "tsc-skew-correct", 0, NULL,
	  "Xen: move the records of a pcpu whose TSC is found behind, as xenalyze does "
	  "(by default skew is reported, not corrected); one thread per trace",
	  VMA_OPTION_FLAG(tsc_skew_correct) },
	{ "verbose", 'v', NULL,
	  "More messages on stderr (twice: debug)",
	  .set = set_verbose },
	{ "quiet", 'q', NULL,
	  "Only errors on stderr",
	  .set = set_quiet },
	{ "help", 'h', NULL,
	  "Show this help and exit",
	  VMA_OPTION_FLAG(help) },
	{ "version", 'V', NULL,
	  "Show the version and exit",
	  VMA_OPTION_FLAG(version) },
};

#define NR_OPTIONS (sizeof(table) / sizeof(table[0]))

void vma_options_budgets(const struct vma_options *opts, unsigned int machines,
			 size_t *summaries, size_t *rows)
{
	size_t total = opts->memory_budget ? opts->memory_budget : VMA_MEMORY_BUDGET_DEFAULT;
	unsigned int at_once = opts->traces_at_once ? opts->traces_at_once : 1;
	size_t share;

	if (total == SIZE_MAX) {
		*summaries = *rows = SIZE_MAX;
		return;
	}
	share = total / at_once / (machines ? machines : 1);
	*rows = share / 8;
	*summaries = share - *rows;
	/* 0 would ask the machine for its defaults: a share too small to split is a byte */
	*rows = *rows ? *rows : 1;
	*summaries = *summaries ? *summaries : 1;
}

size_t vma_options_reorder_cap(const struct vma_options *opts, unsigned int inputs)
{
	unsigned int at_once = opts->traces_at_once ? opts->traces_at_once : 1;
	size_t share = VMA_REORDER_CAP_DEFAULT / at_once / (inputs ? inputs : 1);

	return share < ((size_t)2 << 20) ? (size_t)2 << 20 : share;
}

const struct vma_time_map *vma_options_time_map(const struct vma_options *opts, const char *path)
{
	int i;

	for (i = 0; i < opts->nr_time_offsets; i++) {
		if (!strcmp(opts->time_offsets[i].file, path))
			return &opts->time_offsets[i].map;
	}
	return NULL;
}

/* Help lines stay within 80 columns: the text is wrapped at spaces. */
#define HELP_LEFT 29
#define HELP_WIDTH 80

static void put_wrapped(FILE *out, const char *text)
{
	size_t room = HELP_WIDTH - HELP_LEFT;

	while (strlen(text) > room) {
		size_t cut = room;

		while (cut > 0 && text[cut] != ' ')
			cut--;
		if (cut == 0)
			break;
		fprintf(out, "%.*s\n%*s", (int)cut, text, HELP_LEFT, "");
		text += cut + 1;
	}
	fprintf(out, "%s\n", text);
}

/* An option of xenalyze's that table[] has: its name in its group, "(above)". */
static void help_above(FILE *out, const char *name)
{
	char left[64];
	size_t i;

	for (i = 0; i < NR_OPTIONS && strcmp(table[i].name, name); i++)
		;
	if (i < NR_OPTIONS && table[i].short_name)
		snprintf(left, sizeof(left), "-%c, --%s", table[i].short_name, name);
	else
		snprintf(left, sizeof(left), "    --%s", name);
	fprintf(out, "  %-*s (above)\n", HELP_LEFT - 3, left);
}

void vma_options_help(FILE *out)
{
	size_t i, nr_xen;
	const struct vma_option_row *xen_table = vma_xen_option_rows(&nr_xen);

	fprintf(out, "Usage: vmalyze [OPTION]... PATH...\n"
		     "       vmalyze merge [--json | --csv] [--save FILE] SAVE...\n"
		     "       vmalyze record [OPTION]... [-- COMMAND...]  (see vmalyze record "
		     "--help)\nAnalyze Xen xentrace files and KVM trace-cmd trace.dat or raw "
		     "ftrace\nring-buffer dumps: where did the guest's time go?  A PATH is a "
		     "trace, a\nfolder of them, a compressed trace or an archive (tar, zip, cpio) "
		     "of\ntraces; - reads standard input.\n"
		     "\n");
	for (i = 0; i < NR_OPTIONS; i++) {
		char left[64];

		if (table[i].short_name) {
			snprintf(left, sizeof(left), "-%c, --%s%s%s", table[i].short_name,
				 table[i].name, table[i].arg ? " " : "",
				 table[i].arg ? table[i].arg : "");
		} else {
			snprintf(left, sizeof(left), "    --%s%s%s", table[i].name,
				 table[i].arg ? " " : "", table[i].arg ? table[i].arg : "");
		}
		fprintf(out, "  %-*s ", HELP_LEFT - 3, left);
		put_wrapped(out, table[i].doc);
	}
	fprintf(out, "\nxenalyze's options, in its groups and order, its spelling (OPTION=ARG);\n"
		     "those above are named in their group:\n");
	for (i = 0; i < nr_xen; i++) {
		char left[64];

		if (!xen_table[i].name) {
			/* a group heading: one short line */
			fprintf(out, " %s\n", xen_table[i].doc);
			continue;
		}
		if (xen_table[i].above) {
			help_above(out, xen_table[i].name);
			continue;
		}
		snprintf(left, sizeof(left), "    --%s%s%s", xen_table[i].name,
			 xen_table[i].arg ? "=" : "", xen_table[i].arg ? xen_table[i].arg : "");
		/* Most of xenalyze's names are too long for the column: the text goes below. */
		if (strlen(left) > HELP_LEFT - 3)
			fprintf(out, "  %s\n%*s", left, HELP_LEFT, "");
		else
			fprintf(out, "  %-*s ", HELP_LEFT - 3, left);
		put_wrapped(out, xen_table[i].doc);
	}
	fprintf(out, "\n"
		     "Exit status: 0 all input read cleanly; 1 bad command line; 2 an input could\n"
		     "not be read, is not a trace or holds no trace record; 3 damage was skipped\n"
		     "within --tolerance; 4 damage above --tolerance stopped an input early;\n"
		     "5 out of memory or the output could not be written.  Several traces: the\n"
		     "worst of theirs.  See vmalyze(1).\n"
		     "\n"
		     "Environment: TMPDIR, where temporary files go; VMALYZE_SPLIT_AT=SHARE,\n"
		     "experimental: with --threads 2, a summary of a xentrace file in two parts\n"
		     "split at SHARE of the file (vmalyze(1), ENVIRONMENT).\n");
}


/* Long options' codes: OPT_OWN + a row of table[], OPT_XEN + a row of xenalyze's. */
#define OPT_OWN 256
#define OPT_XEN 512
_Static_assert(OPT_OWN + NR_OPTIONS <= OPT_XEN, "the option table outgrows its codes");

/* getopt_long()'s view of both tables, into @longopts and @shortopts. */
static void getopt_tables(struct option *longopts, char *shortopts,
			  const struct vma_option_row *xen, size_t nr_xen)
{
	size_t i, n = 0, nr_long = 0;

	shortopts[n++] = ':';
	for (i = 0; i < NR_OPTIONS; i++) {
		int has_arg = table[i].arg ? required_argument : no_argument;

		longopts[nr_long++] = (struct option){ table[i].name, has_arg, NULL,
						       OPT_OWN + (int)i };
		if (table[i].short_name) {
			shortopts[n++] = (char)table[i].short_name;
			if (has_arg == required_argument)
				shortopts[n++] = ':';
		}
	}
	/* Group headings are not options, and "above" rows are table[]'s. */
	for (i = 0; i < nr_xen; i++) {
		if (xen[i].name && !xen[i].above) {
			longopts[nr_long++] = (struct option){
				xen[i].name, xen[i].arg ? required_argument : no_argument, NULL,
				OPT_XEN + (int)i };
		}
	}
	longopts[nr_long] = (struct option){ 0 };
	shortopts[n] = '\0';
}

/* The row getopt_long() returned @c for, or NULL for an unknown option. */
static const struct vma_option_row *row_of(int c, const struct vma_option_row *xen,
					   size_t nr_xen)
{
	size_t i;

	if (c >= OPT_XEN && c < OPT_XEN + (int)nr_xen)
		return &xen[c - OPT_XEN];
	if (c >= OPT_OWN && c < OPT_OWN + (int)NR_OPTIONS)
		return &table[c - OPT_OWN];
	for (i = 0; i < NR_OPTIONS; i++) {
		if (table[i].short_name && table[i].short_name == c)
			return &table[i];
	}
	return NULL;
}

/* Each option given, through its row's setter; --help and --version end the reading. */
static int read_options(struct vma_options *opts, int argc, char **argv,
			const struct option *longopts, const char *shortopts,
			const struct vma_option_row *xen, size_t nr_xen, FILE *err)
{
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct vma_option_row *row;
		int rc;

		if (c == ':') {
			return vma_usage_error(err, "option '%s' needs an argument",
					       argv[optind - 1]);
		}
		row = row_of(c, xen, nr_xen);
		if (!row)
			return vma_usage_error(err, "unknown option '%s'", argv[optind - 1]);
		rc = row->set(opts, row, optarg, err);
		if (rc)
			return rc;
		if (opts->help || opts->version)
			return VMA_OK;
	}
	return vma_options_settle(opts, argc - optind, argv + optind, err);
}

int vma_options_parse(struct vma_options *opts, int argc, char **argv, FILE *err)
{
	struct option longopts[NR_OPTIONS + VMA_XEN_OPTIONS_MAX + 1];
	char shortopts[2 * NR_OPTIONS + 2];
	size_t nr_xen;
	const struct vma_option_row *xen = vma_xen_option_rows(&nr_xen);

	memset(opts, 0, sizeof(*opts));
	opts->cpu_hz = VMA_DEFAULT_CPU_HZ;
	opts->tolerance = VMA_DEFAULT_TOLERANCE;
	getopt_tables(longopts, shortopts, xen, nr_xen);
	return read_options(opts, argc, argv, longopts, shortopts, xen, nr_xen, err);
}
