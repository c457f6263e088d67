/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The option table: long name, short name, argument, help text.  It drives
 * getopt_long() and --help, so the two cannot disagree; doc/vmalyze.1 is
 * checked against it by a test.  Names follow xenalyze where the meaning
 * is the same (--summary, --dump-all, --cpu-hz, --svm-mode, --tolerance).
 */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "vmalyze/report.h"
#include "vmalyze/status.h"

enum {
	OPT_CPU_HZ = 256,
	OPT_TIMER_HZ,
	OPT_SVM_MODE,
	OPT_TOLERANCE,
	OPT_HISTOGRAM,
	OPT_JSON,
	OPT_REPORT_PCPU,
	OPT_EVENT_FORMATS,
	OPT_FORMAT,
	OPT_CSV,
	OPT_SAVE,
	OPT_LIVE,
};

struct option_doc {
	const char *name;
	int short_name;   /* or an OPT_* value for long-only options */
	int has_arg;
	const char *arg;
	const char *doc;
};

static const struct option_doc table[] = {
	{ "summary", 's', no_argument, NULL,
	  "Summary per domain and vcpu: runstates, exit reasons with cycle summaries (the default)" },
	{ "dump-all", 'a', no_argument, NULL,
	  "Dump every record, human readable, in time order across pcpus" },
	{ "cpu-hz", OPT_CPU_HZ, required_argument, "HZ",
	  "TSC frequency: 2.4G, 2400M or 2400000000 (default 2.4G)" },
	{ "timer-hz", OPT_TIMER_HZ, required_argument, "HZ",
	  "Frequency of the Arm generic timer, whose count Xen on Arm records as its TSC" },
	{ "svm-mode", OPT_SVM_MODE, no_argument, NULL,
	  "Read exit codes as AMD SVM's (only needed when a trace has too few exits to tell)" },
	{ "tolerance", OPT_TOLERANCE, required_argument, "LEVEL",
	  "Skip damage up to this level, stop above it (xenalyze's levels 1-6; "
	  "0 skips nothing; default 3)" },
	{ "histogram", OPT_HISTOGRAM, no_argument, NULL,
	  "With the summary: log-scale cycle histograms per exit reason and runstate" },
	{ "interval", 'i', required_argument, "SEC",
	  "CSV time series instead of the summary: one row per interval of SEC "
	  "seconds, domain and metric" },
	{ "json", OPT_JSON, no_argument, NULL, "The summary as JSON (schema in output.md, see vmalyze(1))" },
	{ "csv", OPT_CSV, no_argument, NULL,
	  "The summary as one CSV table: a row per trace, VM, vcpu and exit reason or runstate" },
	{ "format", OPT_FORMAT, required_argument, "NAME",
	  "Summary format by name: text, histogram, json, csv, interval (with -i)" },
	{ "save", OPT_SAVE, required_argument, "FILE",
	  "Also write the per-trace results and their aggregate to FILE, for "
	  "'vmalyze merge' (doc/batch.md)" },
	{ "report-pcpu", OPT_REPORT_PCPU, no_argument, NULL,
	  "With the summary: per-pcpu running, idle and lost time" },
	{ "live", OPT_LIVE, no_argument, NULL,
	  "A view per second of trace time per domain and vcpu, as records arrive "
	  "(for a pipe; plain lines unless stdout is a terminal)" },
	{ "event-formats", OPT_EVENT_FORMATS, required_argument, "DIR",
	  "Folder of tracefs event format files, for raw ftrace ring-buffer dumps" },
	{ "verbose", 'v', no_argument, NULL, "More messages on stderr (twice: debug)" },
	{ "quiet", 'q', no_argument, NULL, "Only errors on stderr" },
	{ "help", 'h', no_argument, NULL, "Show this help and exit" },
	{ "version", 'V', no_argument, NULL, "Show the version and exit" },
};

#define NR_OPTIONS (sizeof(table) / sizeof(table[0]))

uint64_t vma_parse_hz(const char *text)
{
	char *end;
	double v;

	if (!text || !*text)
		return 0;
	v = strtod(text, &end);
	if (end == text || !(v > 0) || !isfinite(v))
		return 0;
	switch (*end) {
	case 'G':
	case 'g':
		v *= 1e9;
		end++;
		break;
	case 'M':
	case 'm':
		v *= 1e6;
		end++;
		break;
	case 'K':
	case 'k':
		v *= 1e3;
		end++;
		break;
	}
	if (!strcasecmp(end, "hz"))
		end += 2;
	if (*end || v < 1e3 || v > 1e12)
		return 0;
	return (uint64_t)llround(v);
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

void vma_options_help(FILE *out)
{
	size_t i;

	fprintf(out, "Usage: vmalyze [OPTION]... FILE...\n"
		     "       vmalyze merge [--json | --csv] [--save FILE] SAVE...\n"
		     "       vmalyze record [OPTION]... [-- COMMAND...]  (see vmalyze record --help)\n"
		     "Analyze Xen xentrace files and KVM trace-cmd trace.dat or raw ftrace\n"
		     "ring-buffer dumps: where did the guest's time go?  FILE - reads standard input.\n"
		     "\n");
	for (i = 0; i < NR_OPTIONS; i++) {
		char left[64];

		if (table[i].short_name < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", table[i].short_name,
				 table[i].name, table[i].arg ? " " : "",
				 table[i].arg ? table[i].arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", table[i].name,
				 table[i].arg ? " " : "", table[i].arg ? table[i].arg : "");
		fprintf(out, "  %-*s ", HELP_LEFT - 3, left);
		put_wrapped(out, table[i].doc);
	}
	fprintf(out, "\n"
		     "Exit status: 0 all input read cleanly; 1 bad command line; 2 an input could\n"
		     "not be read or is not a trace; 3 damage was skipped within --tolerance;\n"
		     "4 damage above --tolerance stopped an input early; 5 out of memory or the\n"
		     "output could not be written.  See vmalyze(1).\n");
}

static int usage_error(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(FILE *err, const char *fmt, ...)
{
	va_list ap;

	fprintf(err, "vmalyze: ");
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fprintf(err, "\nTry 'vmalyze --help' for more information.\n");
	return VMA_ERR_USAGE;
}

/*
 * The summary's renderer (report.h): --format NAME, or the one -i or
 * --json picks, text by default; --histogram turns text into histogram.
 * Two that disagree, or an interval series with no interval, are usage
 * errors.
 */
static int pick_format(struct vma_options *opts, FILE *err)
{
	const char *implied = opts->interval_secs > 0 ? "interval" : opts->json ? "json"
			      : opts->csv ? "csv" : NULL;

	if (opts->format && implied && strcmp(opts->format, implied))
		return usage_error(err, "--format %s and --%s choose different outputs", opts->format,
				   implied);
	if (!opts->format)
		opts->format = implied ? implied : "text";
	if (!strcmp(opts->format, "text") && opts->histogram)
		opts->format = "histogram";
	if (vma_renderer_find(opts->format)->per_interval && !(opts->interval_secs > 0))
		return usage_error(err, "--format %s needs -i SEC (the interval length)",
				   opts->format);
	return VMA_OK;
}

int vma_options_parse(struct vma_options *opts, int argc, char **argv, FILE *err)
{
	struct option longopts[NR_OPTIONS + 1];
	char shortopts[2 * NR_OPTIONS + 2];
	size_t i, n = 0;
	int c;

	memset(opts, 0, sizeof(*opts));
	opts->cpu_hz = VMA_DEFAULT_CPU_HZ;
	opts->tolerance = VMA_DEFAULT_TOLERANCE;
	shortopts[n++] = ':';
	for (i = 0; i < NR_OPTIONS; i++) {
		longopts[i] = (struct option){ table[i].name, table[i].has_arg, NULL,
					       table[i].short_name };
		if (table[i].short_name < 256) {
			shortopts[n++] = (char)table[i].short_name;
			if (table[i].has_arg == required_argument)
				shortopts[n++] = ':';
		}
	}
	longopts[NR_OPTIONS] = (struct option){ 0 };
	shortopts[n] = '\0';

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			opts->summary = true;
			break;
		case 'a':
			opts->dump = true;
			break;
		case OPT_CPU_HZ:
			opts->cpu_hz = vma_parse_hz(optarg);
			if (!opts->cpu_hz)
				return usage_error(err, "bad --cpu-hz value '%s' (try 2.4G or 2400M)",
						   optarg);
			break;
		case OPT_TIMER_HZ:
			opts->timer_hz = vma_parse_hz(optarg);
			if (!opts->timer_hz)
				return usage_error(err, "bad --timer-hz value '%s' (try 50M)", optarg);
			break;
		case OPT_SVM_MODE:
			opts->svm_mode = true;
			break;
		case OPT_TOLERANCE: {
			char *end;
			long v = strtol(optarg, &end, 0);

			if (*end || end == optarg || v < 0 || v > VMA_LVL_MAX_TOLERABLE)
				return usage_error(err, "bad --tolerance '%s' (0 to 6)", optarg);
			opts->tolerance = (int)v;
			break;
		}
		case OPT_HISTOGRAM:
			opts->histogram = true;
			break;
		case 'i': {
			char *end;
			double v = strtod(optarg, &end);

			if (*end || end == optarg || !(v > 0) || !isfinite(v))
				return usage_error(err, "bad --interval '%s' (seconds, > 0)", optarg);
			opts->interval_secs = v;
			break;
		}
		case OPT_JSON:
			opts->json = true;
			break;
		case OPT_CSV:
			opts->csv = true;
			break;
		case OPT_SAVE:
			opts->save = optarg;
			break;
		case OPT_FORMAT:
			if (!vma_renderer_find(optarg))
				return usage_error(err, "unknown --format '%s' (see vmalyze(1))", optarg);
			opts->format = optarg;
			break;
		case OPT_REPORT_PCPU:
			opts->report_pcpu = true;
			break;
		case OPT_EVENT_FORMATS:
			opts->event_formats = optarg;
			break;
		case OPT_LIVE:
			opts->live = true;
			break;
		case 'v':
			if (opts->verbosity < VMA_VERB_DEBUG)
				opts->verbosity++;
			break;
		case 'q':
			opts->verbosity = VMA_VERB_QUIET;
			break;
		case 'h':
			opts->help = true;
			return VMA_OK;
		case 'V':
			opts->version = true;
			return VMA_OK;
		case ':':
			return usage_error(err, "option '%s' needs an argument", argv[optind - 1]);
		default:
			return usage_error(err, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (opts->summary && opts->dump)
		return usage_error(err, "%s", "choose one of -s (summary) and -a (dump)");
	if (opts->dump && (opts->json || opts->interval_secs > 0 || opts->histogram))
		return usage_error(err, "%s",
				   "--json, --interval and --histogram go with the summary, not -a");
	if ((opts->json || opts->csv) && opts->interval_secs > 0)
		return usage_error(err, "%s", "choose one of --json, --csv and --interval");
	if (opts->json && opts->csv)
		return usage_error(err, "%s", "choose one of --json and --csv");
	if (opts->save && (opts->dump || opts->interval_secs > 0))
		return usage_error(err, "%s", "--save goes with the summary, not -a or -i");
	if (opts->dump && opts->csv)
		return usage_error(err, "%s", "--csv goes with the summary, not -a");
	if (opts->dump && opts->format)
		return usage_error(err, "%s", "--format goes with the summary, not -a");
	if (opts->live && (opts->summary || opts->dump || opts->json || opts->csv || opts->save ||
			   opts->interval_secs > 0 || opts->histogram || opts->report_pcpu ||
			   opts->format))
		return usage_error(err, "%s", "--live is a mode of its own: not with -s, -a, --json, "
				   "--csv, --save, --format, --interval, --histogram or --report-pcpu");
	if (!opts->live && pick_format(opts, err))
		return VMA_ERR_USAGE;
	/* --live has no renderer: several files are headed as in text. */
	if (opts->live)
		opts->format = "text";
	opts->mode = opts->live ? VMA_MODE_LIVE : opts->dump ? VMA_MODE_DUMP : VMA_MODE_SUMMARY;
	opts->files = argv + optind;
	opts->nr_files = argc - optind;
	if (opts->nr_files == 0)
		return usage_error(err, "%s", "no trace file given (use - for standard input)");
	return VMA_OK;
}
