/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The option table: long name, short name, argument, help text.  It drives
 * getopt_long() and --help, so the two cannot disagree; doc/vmalyze.1 is
 * checked against it by a test.  Names follow xenalyze where the meaning
 * is the same (--summary, --dump-all, --cpu-hz, --svm-mode, --tolerance).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	OPT_TOP,
	OPT_DOMAIN,
	OPT_VCPU,
	OPT_TIME,
	OPT_SORT,
	OPT_EVENT,
	OPT_LIVE,
	OPT_PROGRESS,
	OPT_THREADS,
	OPT_TIME_OFFSET,
	OPT_GUEST_TSC,
	OPT_LATENCY,
	OPT_THRESHOLD,
	OPT_LATENCY_EVENTS,
	OPT_TIMELINE,
	OPT_SVG,
	OPT_TIME_RANGE,
	OPT_TSC_SKEW_CORRECT,
	OPT_XENALYZE, /* xenalyze's options: OPT_XENALYZE + their table index */
};

/*
 * Threads per trace by default: a reader thread when this process may use
 * two cpus and analyzes one trace at a time (several at once, --jobs,
 * already keep the cpus busy).
 */
static unsigned int default_threads(const struct vma_options *opts)
{
	cpu_set_t set;

	if (opts->nr_files > 1 && opts->jobs > 1)
		return 1;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) >= 2)
		return 2;
	return 1;
}

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
	  "Dump every record, human readable, in time order across pcpus (with -s: then the summary)" },
	{ "cpu-hz", OPT_CPU_HZ, required_argument, "HZ",
	  "TSC frequency: 2.4G, 2400M or 2400000000 (default 2.4G, or a Xen dom0's own TSC)" },
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
	  "seconds, domain and metric (with an --interval-domain-* option: its "
	  "interval length, default 1)" },
	{ "json", OPT_JSON, no_argument, NULL, "The summary as JSON (schema in output.md, see vmalyze(1))" },
	{ "csv", OPT_CSV, no_argument, NULL,
	  "The summary as one CSV table: a row per trace, VM, vcpu and exit reason or runstate" },
	{ "format", OPT_FORMAT, required_argument, "NAME",
	  "Summary format by name: text, histogram, json, csv, interval (with -i), "
	  "kvm-stat (perf kvm stat's tables)" },
	{ "save", OPT_SAVE, required_argument, "FILE",
	  "Also write the per-trace results and their aggregate to FILE, for "
	  "'vmalyze merge' (doc/batch.md)" },
	{ "event", OPT_EVENT, required_argument, "KIND",
	  "kvm-stat: table of exit (default), mmio, ioport, msr or hypercall" },
	{ "sort", OPT_SORT, required_argument, "KEY",
	  "kvm-stat: order rows by count (default), time or max" },
	{ "top", OPT_TOP, required_argument, "N",
	  "With the summary: the N longest exits, with time stamp, vcpu, reason, rip" },
	{ "domain", OPT_DOMAIN, required_argument, "ID",
	  "Only this domain (Xen) or VM (KVM: its number or its VMM's pid)" },
	{ "vm", OPT_DOMAIN, required_argument, "ID", "The same as --domain" },
	{ "vcpu", OPT_VCPU, required_argument, "ID",
	  "Only this vcpu (of each domain kept); not with --report-pcpu" },
	{ "time", OPT_TIME, required_argument, "START,END",
	  "Only the records from START to END seconds after the trace's first (END may "
	  "be empty: to the end)" },
	{ "report-pcpu", OPT_REPORT_PCPU, no_argument, NULL,
	  "With the summary: per-pcpu running, idle and lost time" },
	{ "live", OPT_LIVE, no_argument, NULL,
	  "A view per second of trace time per domain and vcpu, as records arrive "
	  "(for a pipe; plain lines unless stdout is a terminal)" },
	{ "event-formats", OPT_EVENT_FORMATS, required_argument, "DIR",
	  "Folder of tracefs event format files, for raw ftrace ring-buffer dumps" },
	{ "jobs", 'j', required_argument, "N",
	  "Analyze N traces at once (default: the number of online cpus); the output "
	  "is the same for every N" },
	{ "progress", OPT_PROGRESS, no_argument, NULL,
	  "Progress line on stderr even when it is not a terminal (on a terminal it "
	  "is shown unless -q)" },
	{ "threads", OPT_THREADS, required_argument, "N",
	  "1: one thread per trace; 2: read and merge on a second thread (default 2 "
	  "with two cpus, for one trace at a time)" },
	{ "time-offset", OPT_TIME_OFFSET, required_argument, "FILE=NS",
	  "Put trace.dat FILE on the first trace's clock by hand, its times + NS "
	  "nanoseconds (FILE=NS,SCALE: times x SCALE + NS); with -a, dumped with it" },
	{ "guest-tsc", OPT_GUEST_TSC, required_argument, "FILE@dN=C,S",
	  "Put trace.dat FILE, recorded with a TSC clock inside Xen domain N, on the "
	  "first trace's (a xentrace's) TSC: guest TSC = host TSC x S + C cycles "
	  "(@dN, =C and ,S may be left out: no domain, 0, 1; FILE's TIME_SHIFT "
	  "applies first); with -a, dumped with it" },
	{ "latency", OPT_LATENCY, no_argument, NULL,
	  "Guest wake-up latencies split by what the host did (HOST.dat GUEST.dat); "
	  "text, --json or --csv" },
	{ "threshold", OPT_THRESHOLD, required_argument, "TIME",
	  "With --latency: list wake-ups from TIME (100us, 2ms; default the guest's p99)" },
	{ "latency-events", OPT_LATENCY_EVENTS, required_argument, "A,B",
	  "With --latency: the intervals from each guest event A to the next B on its "
	  "cpu, instead of the wake-ups" },
	{ "timeline", OPT_TIMELINE, required_argument, "FILE",
	  "Write a Chrome JSON trace (Perfetto UI, chrome://tracing): tracks per pcpu, "
	  "vcpu and guest cpu" },
	{ "svg", OPT_SVG, required_argument, "FILE",
	  "Write an SVG picture of the time range: pcpus and vcpus as rows, states as colours" },
	{ "time-range", OPT_TIME_RANGE, required_argument, "FROM,TO",
	  "With --timeline and --svg: only FROM to TO after the first record (10ms,20ms)" },
	{ "tsc-skew-correct", OPT_TSC_SKEW_CORRECT, no_argument, NULL,
	  "Xen: move the records of a pcpu whose TSC is found behind, as xenalyze does "
	  "(by default skew is reported, not corrected); one thread per trace" },
	{ "verbose", 'v', no_argument, NULL, "More messages on stderr (twice: debug)" },
	{ "quiet", 'q', no_argument, NULL, "Only errors on stderr" },
	{ "help", 'h', no_argument, NULL, "Show this help and exit" },
	{ "version", 'V', no_argument, NULL, "Show the version and exit" },
};

#define NR_OPTIONS (sizeof(table) / sizeof(table[0]))

/* -i range: a microsecond to 11.5 days (at 10^12 Hz, 10^18 ticks: under 2^64). */
#define MIN_INTERVAL_SECS 1e-6
#define MAX_INTERVAL_SECS 1e6

/*
 * xenalyze's options that the table above does not have, same spelling
 * (long options, "--name=ARG"), grouped as xenalyze's --help groups them.
 * An entry without a name starts a group.  A scatterplot option sets its
 * kind; its argument, if any, is the vector or port it plots.
 */
struct xen_option {
	const char *name;
	const char *arg;
	const char *doc;
	int scatter;      /* enum vma_scatter_kind + 1, 0 for other options */
};

static const struct xen_option xen_table[] = {
	{ NULL, NULL, "Extra processing: scatterplots, a point a line (no summary unless -s):", 0 },
	{ "scatterplot-runstate", NULL,
	  "Runstate steps of each vcpu: \"DvV SEC Y\", Y 3 running, 2 runnable, 0 blocked, "
	  "1 offline, -1 lost, -2 init", VMA_SCATTER_RUNSTATE + 1 },
	{ "scatterplot-runstate-time", NULL,
	  "Time spent in each runstate stretch: \"DvV SEC DURATION-SEC\"",
	  VMA_SCATTER_RUNSTATE_TIME + 1 },
	{ "scatterplot-pcpu", NULL, "Which pcpu each guest vcpu runs on: \"DvV SEC PCPU\"",
	  VMA_SCATTER_PCPU + 1 },
	{ "scatterplot-vmexit-eip", NULL, "Guest EIP of every vmexit: \"SEC 0xEIP [sym+0xoff]\"",
	  VMA_SCATTER_VMEXIT_EIP + 1 },
	{ "scatterplot-wake-to-halt", NULL,
	  "Cycles from a wake's interrupt delivery to the next halt: \"SEC CYCLES\"",
	  VMA_SCATTER_WAKE_TO_HALT + 1 },
	{ "scatterplot-extint-cycles", "VEC",
	  "Cycles of each external-interrupt exit for vector VEC: \"dDvV SEC CYCLES\"",
	  VMA_SCATTER_EXTINT_CYCLES + 1 },
	{ "scatterplot-io", "PORT", "Cycles of each read of I/O port PORT: \"SEC CYCLES\"",
	  VMA_SCATTER_IO + 1 },
	{ "scatterplot-interrupt-eip", "VEC",
	  "Guest EIP interrupted by vector VEC: \"dDvV SEC 0xEIP [sym+0xoff]\"",
	  VMA_SCATTER_INTERRUPT_EIP + 1 },
	{ "scatterplot-cr3-switch", NULL, "CR3 switches (not flushes): \"SEC GMFN\"",
	  VMA_SCATTER_CR3_SWITCH + 1 },
	{ "scatterplot-rdtsc", NULL, "Values RDTSC exits return: \"DvV SEC VALUE\"",
	  VMA_SCATTER_RDTSC + 1 },
	{ "scatterplot-irq", NULL, "Host IRQs handled: \"iIRQ SEC PCPU\"", VMA_SCATTER_IRQ + 1 },
	{ NULL, NULL, "Interval (a row per -i SEC, default 1 s; header first; no summary unless -s):",
	  0 },
	{ "interval-domain-total-time", "D[,D...]",
	  "Percent of each interval that each domain D ran: \"START P P...\"", 0 },
	{ "interval-domain-total-time-all", NULL,
	  "The same for every domain (the header, written last, names them)", 0 },
	{ "interval-domain-short-summary", "D",
	  "Domain D's running percent, then its HVM exit time by category (emulate unsync "
	  "fixup mmio propagate cr3 vmcall intr hlt other), in percent of the interval", 0 },
	{ "interval-domain-guest-interrupt", "D",
	  "Interrupts injected into domain D's vcpus, a column per vector seen", 0 },
	{ "interval-domain-grant-maps", "D", "Grant maps done on domain D's behalf", 0 },
	{ NULL, NULL, "Dump:", 0 },
	{ "dump-raw-reads", NULL,
	  "Each record as it is read, before the merge: \"R pPCPU oOFFSET\" and its raw words; "
	  "an output of its own", 0 },
	{ "dump-no-processing", NULL,
	  "Only --dump-raw-reads: records are read, not analyzed", 0 },
	{ "dump-raw-process", NULL,
	  "Each record's raw words as it is processed (\"*  ID N TSC [ words ] | file words |\"), "
	  "before its -a line; an output of its own", 0 },
	{ "dump-ipi-latency", NULL,
	  "Latency of each IPI a guest sends to its vcpus through the APIC ICR, from the send "
	  "to the vmentry delivering it: \" [vla] dDvV vec N ipis C, latency CYC (S s)\"", 0 },
	{ "dump-trace-volume-on-lost-record", NULL,
	  "With -a: after a lost-records record, its pcpu's trace volume by class since its "
	  "previous one", 0 },
	{ "dump-show-power-states", NULL,
	  "With -a: an idle pcpu's column shows its C-state digit instead of '-'", 0 },
	{ NULL, NULL, "Summary:", 0 },
	{ "sample-size", "N",
	  "xenalyze's first sample array size; 0: no {p5|p50|p95} in the summary.  vmalyze's "
	  "summaries grow on demand, bounded: other values change nothing", 0 },
	{ "sample-max", "N",
	  "xenalyze's cap on samples kept per summary.  vmalyze's percentiles are exact up to "
	  "1024 samples and within 0.79% above, in bounded memory, whatever N", 0 },
	{ "with-pio-enumeration", NULL,
	  "The I/O port table of each HVM vcpu (IO address summary); on by default, as in "
	  "xenalyze", 0 },
	{ "with-mmio-enumeration", NULL,
	  "The MMIO address table of each HVM vcpu; on by default in vmalyze (xenalyze: off)", 0 },
	{ "mmio-enumeration-skip-vga", "0|1",
	  "1 (the default, as xenalyze): Xen MMIO tables leave out the VGA window "
	  "0xa0000-0xbffff; 0 keeps it", 0 },
	{ "with-interrupt-eip-enumeration", "VEC",
	  "Per domain, the guest EIPs that external interrupts of vector VEC interrupted, most "
	  "often first (Intel: AMD's records carry no vector)", 0 },
	{ "with-cr3-enumeration", NULL,
	  "Per HVM domain, each guest CR3 by first load: the time it stayed loaded, the guest and "
	  "hypervisor time run under it, its switches and flushes", 0 },
	{ "histogram-interrupt-eip", "VEC[,INCR]",
	  "Per HVM vcpu, the same EIPs counted by bucket of INCR bytes (default 0x1000000); "
	  "buckets seen only, any INCR", 0 },
	{ "show-default-domain-summary", NULL,
	  "Also summarize the vcpus of the default domain (what ran before a pcpu's first "
	  "scheduling record)", 0 },
	{ NULL, NULL, "Guest info:", 0 },
	{ "default-guest-paging-levels", "L",
	  "Paging levels (2, 3 or 4) of HVM guests until a 64-bit exit shows 4; for the "
	  "dump's shadow page-fault walks (default: 2, as xenalyze)", 0 },
	{ "symbol-file", "FILE",
	  "\"address name\" lines (any order; System.map works): guest EIPs in "
	  "scatterplots and the dump's vmexits get their symbol and offset", 0 },
	{ NULL, NULL, "Other:", 0 },
	{ "tsc-loop-fatal", NULL,
	  "Stop reading a trace whose TSC skew corrections loop (by default their offsets "
	  "go back to 0 and reading goes on)", 0 },
};

#define NR_XEN_OPTIONS (sizeof(xen_table) / sizeof(xen_table[0]))
#define NR_LONGOPTS (NR_OPTIONS + NR_XEN_OPTIONS)

/* A vector or port argument: 0 to @max, decimal or 0x hex. */
static bool parse_number(const char *text, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (!text || !*text || *text == '-')
		return false;
	v = strtoul(text, &end, 0);
	if (*end || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* "100us", "2ms", "1.5s", "500ns" (a bare number is nanoseconds): 0 when malformed. */
static uint64_t parse_duration_ns(const char *text)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v = strtod(text, &end);
	size_t i;

	if (end == text || !(v > 0) || !isfinite(v))
		return 0;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit) && v * units[i].ns < 1.8e19)
			return (uint64_t)(v * units[i].ns + 0.5);
	}
	return 0;
}

/* "FROM,TO" of --time-range: each a duration, 0 or empty (to: the end).  Return: 0/-1. */
static int parse_range(const char *arg, uint64_t *from, uint64_t *to)
{
	const char *comma = strchr(arg, ',');
	char part[64];
	size_t n;

	if (!comma || (size_t)(comma - arg) >= sizeof(part))
		return -1;
	n = (size_t)(comma - arg);
	memcpy(part, arg, n);
	part[n] = '\0';
	*from = !n || !strcmp(part, "0") ? 0 : parse_duration_ns(part);
	*to = !comma[1] || !strcmp(comma + 1, "0") ? 0 : parse_duration_ns(comma + 1);
	if ((n && strcmp(part, "0") && !*from) || (comma[1] && strcmp(comma + 1, "0") && !*to))
		return -1;
	return *to && *to <= *from ? -1 : 0;
}

/*
 * "FILE=NS[,SCALE]": NS a signed count of nanoseconds, SCALE a decimal
 * fraction kept exact as digits over a power of ten.  The last '=' splits,
 * so a file name may hold one.  Return: 0, or -1 when malformed.
 */
static int parse_time_offset(char *arg, struct vma_time_offset *t)
{
	char *eq = strrchr(arg, '='), *end;
	uint64_t num = 0, den = 1;
	const char *s;
	long long ns;
	bool dot = false, digit = false;

	if (!eq || eq == arg)
		return -1;
	errno = 0;
	ns = strtoll(eq + 1, &end, 10);
	if (end == eq + 1 || errno || (*end && *end != ','))
		return -1;
	t->map = (struct vma_time_map){ .offset = ns };
	if (*end == ',') {
		for (s = end + 1; *s; s++) {
			if (*s == '.' && !dot) {
				dot = true;
				continue;
			}
			if (!isdigit((unsigned char)*s) || num > UINT64_MAX / 100 ||
			    (dot && den > UINT64_MAX / 100))
				return -1;
			num = num * 10 + (uint64_t)(*s - '0');
			if (dot)
				den *= 10;
			digit = true;
		}
		if (!digit || !num)
			return -1;
		t->map.scale_num = num;
		t->map.scale_den = den;
	}
	*eq = '\0';
	t->file = arg;
	return 0;
}

/*
 * "FILE[@dN][=OFFSET[,SCALE]]": guest TSC = host TSC x SCALE + OFFSET
 * cycles, as Xen sets a vcpu's TSC; kept as its inverse, the map from the
 * guest's stamps to the host's.  Return: 0, or -1 when malformed.
 */
static int parse_guest_tsc(char *arg, struct vma_time_offset *t)
{
	char *at, *end;
	unsigned long dom;
	int64_t o;

	if (parse_time_offset(arg, t)) {
		t->map = (struct vma_time_map){ 0 };
		t->file = arg;
	}
	o = t->map.offset;
	if (t->map.scale_den) {
		uint64_t num = t->map.scale_num, den = t->map.scale_den;
		__int128 back = (__int128)o * den;

		/* host = (guest - OFFSET) / SCALE, the offset rounded to a cycle */
		t->map.scale_num = den;
		t->map.scale_den = num;
		back = back >= 0 ? (back + num / 2) / num : (back - num / 2) / num;
		t->map.offset = -(int64_t)back;
	} else {
		t->map.offset = o == INT64_MIN ? INT64_MAX : -o;
	}
	t->map.cycles = true;
	at = strrchr(arg, '@');
	if (at && at[1] == 'd' && isdigit((unsigned char)at[2])) {
		errno = 0;
		dom = strtoul(at + 2, &end, 10);
		if (*end || errno || dom > 0x7fff)
			return -1;
		t->map.has_domain = true;
		t->map.domain = (uint32_t)dom;
		*at = '\0';
	}
	return *t->file ? 0 : -1;
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

	fprintf(out, "Usage: vmalyze [OPTION]... PATH...\n"
		     "       vmalyze merge [--json | --csv] [--save FILE] SAVE...\n"
		     "       vmalyze record [OPTION]... [-- COMMAND...]  (see vmalyze record --help)\n"
		     "Analyze Xen xentrace files and KVM trace-cmd trace.dat or raw ftrace\n"
		     "ring-buffer dumps: where did the guest's time go?  A PATH is a trace, a\n"
		     "folder of them, a compressed trace or an archive (tar, zip, cpio) of\n"
		     "traces; - reads standard input.\n"
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
	fprintf(out, "\nxenalyze's options (with -s, -a, -i, --cpu-hz, --tolerance and\n"
		     "--report-pcpu above), in its groups, its spelling (OPTION=ARG):\n");
	for (i = 0; i < NR_XEN_OPTIONS; i++) {
		char left[64];

		if (!xen_table[i].name) {
			fprintf(out, " %s\n", xen_table[i].doc); /* a group heading: one short line */
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
		     "worst of theirs.  See vmalyze(1).\n");
}

/* A whole decimal number in [0, UINT32_MAX]; false when @text is not one. */
static bool parse_u32(const char *text, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*text))
		return false;
	v = strtoull(text, &end, 10);
	if (*end || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* "START,END" or "START," in seconds, START < END. */
static bool parse_time(const char *text, struct vma_report_filter *f)
{
	char *end;

	f->start = strtod(text, &end);
	if (end == text || *end != ',' || !(f->start >= 0) || !isfinite(f->start))
		return false;
	text = end + 1;
	f->end = 0;
	if (*text) {
		f->end = strtod(text, &end);
		if (*end || !isfinite(f->end) || !(f->end > f->start))
			return false;
	}
	f->time_set = true;
	return true;
}

/* @text among @names: its index, or -1. */
static int pick_name(const char *text, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(text, names[i]))
			return i;
	}
	return -1;
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
	const char *implied = opts->interval_secs > 0 && !opts->xinterval.mode ? "interval"
			      : opts->json ? "json"
			      : opts->csv ? "csv" : NULL;

	if (opts->format && implied && strcmp(opts->format, implied))
		return usage_error(err, "--format %s and --%s choose different outputs", opts->format,
				   implied);
	if (!opts->format)
		opts->format = implied ? implied : "text";
	if (!strcmp(opts->format, "text") && opts->histogram)
		opts->format = "histogram";
	if (vma_renderer_find(opts->format)->per_interval &&
	    !(opts->interval_secs > 0 && !opts->xinterval.mode))
		return usage_error(err, "--format %s needs -i SEC (the interval length)",
				   opts->format);
	return VMA_OK;
}

/* An --interval-domain-* option: "D" or, for total-time, "D[,D...]". */
static int xinterval_option(struct vma_options *opts, const struct xen_option *o,
			    const char *arg, FILE *err)
{
	static const char *const names[] = {
		[VMA_XINTERVAL_TOTAL_TIME] = "interval-domain-total-time",
		[VMA_XINTERVAL_TOTAL_TIME_ALL] = "interval-domain-total-time-all",
		[VMA_XINTERVAL_SHORT_SUMMARY] = "interval-domain-short-summary",
		[VMA_XINTERVAL_GUEST_INTERRUPT] = "interval-domain-guest-interrupt",
		[VMA_XINTERVAL_GRANT_MAPS] = "interval-domain-grant-maps",
	};
	struct vma_xinterval_options *x = &opts->xinterval;
	bool list;
	char buf[16];
	size_t i;

	if (x->mode)
		return usage_error(err, "--%s: one --interval-domain-* option per run", o->name);
	for (i = 1; i < sizeof(names) / sizeof(names[0]) && strcmp(names[i], o->name); i++)
		;
	x->mode = (enum vma_xinterval_mode)i;
	list = x->mode == VMA_XINTERVAL_TOTAL_TIME;
	while (arg) {
		const char *comma = strchr(arg, ',');
		size_t n = comma ? (size_t)(comma - arg) : strlen(arg);

		if (n >= sizeof(buf) || x->nr_domains == VMA_XINTERVAL_MAX_DOMAINS)
			return usage_error(err, "bad --%s value '%s'", o->name, arg);
		memcpy(buf, arg, n);
		buf[n] = '\0';
		if (!parse_number(buf, VMA_DEFAULT_DOMAIN, &x->domains[x->nr_domains]))
			return usage_error(err, "bad --%s value '%s' (%s)", o->name, buf,
					   list ? "domain ids, 0 to 32768, comma separated"
						: "a domain id, 0 to 32768");
		x->nr_domains++;
		if (comma && !list)
			return usage_error(err, "--%s takes one domain", o->name);
		arg = comma ? comma + 1 : NULL;
	}
	return VMA_OK;
}

/* One of xenalyze's options, from xen_table[]. */
static int xen_option(struct vma_options *opts, const struct xen_option *o, const char *arg,
		      FILE *err)
{
	if (!strncmp(o->name, "interval-domain-", 16))
		return xinterval_option(opts, o, arg, err);
	if (o->scatter) {
		enum vma_scatter_kind kind = (enum vma_scatter_kind)(o->scatter - 1);
		uint32_t *value = kind == VMA_SCATTER_EXTINT_CYCLES ? &opts->scatter.extint_vector
				: kind == VMA_SCATTER_IO ? &opts->scatter.io_port
				: kind == VMA_SCATTER_INTERRUPT_EIP ? &opts->scatter.interrupt_vector
				: NULL;

		if (value && !parse_number(arg, kind == VMA_SCATTER_IO ? 0xffff : 0xff, value))
			return usage_error(err, "bad --%s value '%s' (%s)", o->name, arg,
					   kind == VMA_SCATTER_IO ? "a port, 0 to 0xffff"
								  : "a vector, 0 to 0xff");
		opts->scatter.kinds |= 1u << kind;
		return VMA_OK;
	}
	if (!strcmp(o->name, "tsc-loop-fatal")) {
		opts->tsc_loop_fatal = true;
		return VMA_OK;
	}
	if (!strcmp(o->name, "symbol-file")) {
		opts->symbol_file = arg;
		return VMA_OK;
	}
	if (!strcmp(o->name, "dump-raw-reads") || !strcmp(o->name, "dump-no-processing")) {
		opts->dump_raw_reads = true;
		opts->dump_no_processing |= !strcmp(o->name, "dump-no-processing");
		return VMA_OK;
	}
	if (!strcmp(o->name, "dump-raw-process")) {
		opts->dump_raw_process = true;
		return VMA_OK;
	}
	if (!strcmp(o->name, "dump-ipi-latency")) {
		opts->dump_ipi_latency = true;
		return VMA_OK;
	}
	if (!strcmp(o->name, "dump-trace-volume-on-lost-record")) {
		opts->dump_volume_on_lost = true;
		return VMA_OK;
	}
	if (!strcmp(o->name, "dump-show-power-states")) {
		opts->dump_power_states = true;
		return VMA_OK;
	}
	if (!strcmp(o->name, "sample-size") || !strcmp(o->name, "sample-max")) {
		uint32_t n;

		if (!parse_number(arg, INT32_MAX, &n))
			return usage_error(err, "bad --%s value '%s' (a count, 0 or more)", o->name,
					   arg);
		if (!strcmp(o->name, "sample-size"))
			opts->no_percentiles = n == 0;
		return VMA_OK;
	}
	/* Both tables are always made: the options ask for what is on already. */
	if (!strcmp(o->name, "with-pio-enumeration") || !strcmp(o->name, "with-mmio-enumeration"))
		return VMA_OK;
	if (!strcmp(o->name, "mmio-enumeration-skip-vga")) {
		if (strcmp(arg, "0") && strcmp(arg, "1"))
			return usage_error(err, "bad --%s value '%s' (0 or 1)", o->name, arg);
		opts->mmio_keep_vga = !strcmp(arg, "0");
		return VMA_OK;
	}
	if (!strcmp(o->name, "with-interrupt-eip-enumeration")) {
		uint32_t vec;

		if (!parse_number(arg, 0xff, &vec))
			return usage_error(err, "bad --%s value '%s' (a vector, 0 to 0xff)", o->name,
					   arg);
		opts->eips.enumerate = true;
		opts->eips.enumerate_vector = (uint8_t)vec;
		return VMA_OK;
	}
	if (!strcmp(o->name, "with-cr3-enumeration")) {
		opts->eips.cr3 = true;
		return VMA_OK;
	}
	if (!strcmp(o->name, "histogram-interrupt-eip")) {
		const char *comma = strchr(arg, ',');
		size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
		char vec_text[16];
		uint32_t vec;
		char *end;

		if (n >= sizeof(vec_text))
			return usage_error(err, "bad --%s value '%s'", o->name, arg);
		memcpy(vec_text, arg, n);
		vec_text[n] = '\0';
		if (!parse_number(vec_text, 0xff, &vec))
			return usage_error(err, "bad --%s vector '%s' (0 to 0xff)", o->name, vec_text);
		opts->eips.histogram = true;
		opts->eips.histogram_vector = (uint8_t)vec;
		opts->eips.histogram_increment = 0x1000000; /* xenalyze's default */
		if (comma) {
			errno = 0;
			opts->eips.histogram_increment = strtoull(comma + 1, &end, 0);
			if (!comma[1] || *end || comma[1] == '-' || errno ||
			    !opts->eips.histogram_increment)
				return usage_error(err, "bad --%s increment '%s' (bytes, 1 or more)",
						   o->name, comma + 1);
		}
		return VMA_OK;
	}
	if (!strcmp(o->name, "show-default-domain-summary")) {
		opts->show_default_domain = true;
		return VMA_OK;
	}
	if (!strcmp(o->name, "default-guest-paging-levels")) {
		uint32_t levels;

		if (!parse_number(arg, 4, &levels) || levels < 2)
			return usage_error(err, "bad --%s value '%s' (2, 3 or 4)", o->name, arg);
		opts->default_paging_levels = (uint8_t)levels;
		return VMA_OK;
	}
	return usage_error(err, "option '--%s' is not implemented", o->name);
}

int vma_options_parse(struct vma_options *opts, int argc, char **argv, FILE *err)
{
	struct option longopts[NR_LONGOPTS + 1];
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
	for (i = 0; i < NR_XEN_OPTIONS; i++)
		longopts[NR_OPTIONS + i] = (struct option){
			xen_table[i].name ? xen_table[i].name : "",
			xen_table[i].arg ? required_argument : no_argument, NULL,
			OPT_XENALYZE + (int)i };
	longopts[NR_LONGOPTS] = (struct option){ 0 };
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
			opts->cpu_hz_given = true;
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

			/* Bounded so that the interval in clock ticks fits 64 bits at any --cpu-hz. */
			if (*end || end == optarg || !(v >= MIN_INTERVAL_SECS) ||
			    !(v <= MAX_INTERVAL_SECS))
				return usage_error(err, "bad --interval '%s' (seconds, from %g to %g)",
						   optarg, MIN_INTERVAL_SECS, MAX_INTERVAL_SECS);
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
		case OPT_TOP:
			if (!parse_u32(optarg, &opts->top) || !opts->top || opts->top > 1000000)
				return usage_error(err, "bad --top '%s' (1 to 1000000)", optarg);
			break;
		case OPT_DOMAIN:
			if (!parse_u32(optarg, &opts->filter.domain))
				return usage_error(err, "bad --domain/--vm '%s' (a number)", optarg);
			opts->filter.domain_set = true;
			break;
		case OPT_VCPU:
			if (!parse_u32(optarg, &opts->filter.vcpu))
				return usage_error(err, "bad --vcpu '%s' (a number)", optarg);
			opts->filter.vcpu_set = true;
			break;
		case OPT_TIME:
			if (!parse_time(optarg, &opts->filter))
				return usage_error(err, "bad --time '%s' (START,END in seconds, START < END;"
						   " END may be empty)", optarg);
			break;
		case OPT_EVENT: {
			static const char *const kinds[] = { "exit", "mmio", "ioport", "msr",
							     "hypercall" };
			int k = pick_name(optarg, kinds, 5);

			if (k < 0)
				return usage_error(err, "bad --event '%s' (exit, mmio, ioport, msr or"
						   " hypercall)", optarg);
			opts->stat_event = (enum vma_stat_event)k;
			opts->stat_event_set = true;
			break;
		}
		case OPT_SORT: {
			static const char *const keys[] = { "count", "time", "max" };
			int k = pick_name(optarg, keys, 3);

			if (k < 0)
				return usage_error(err, "bad --sort '%s' (count, time or max)", optarg);
			opts->stat_sort = (enum vma_stat_sort)k;
			opts->stat_sort_set = true;
			break;
		}
		case OPT_EVENT_FORMATS:
			opts->event_formats = optarg;
			break;
		case OPT_LIVE:
			opts->live = true;
			break;
		case 'j': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 1 || v > 1024)
				return usage_error(err, "bad --jobs '%s' (1 to 1024)", optarg);
			opts->jobs = (unsigned int)v;
			break;
		}
		case OPT_PROGRESS:
			opts->progress = true;
			break;
		case OPT_TSC_SKEW_CORRECT:
			opts->tsc_skew_correct = true;
			break;
		case OPT_THREADS:
			if (strcmp(optarg, "1") && strcmp(optarg, "2"))
				return usage_error(err, "bad --threads '%s' (1 or 2)", optarg);
			opts->threads = (unsigned int)(*optarg - '0');
			break;
		case OPT_LATENCY:
			opts->latency = true;
			break;
		case OPT_LATENCY_EVENTS: {
			char *comma = strchr(optarg, ',');

			if (!comma || comma == optarg || !comma[1] || strchr(comma + 1, ','))
				return usage_error(err, "bad --latency-events '%s' (A,B: two "
						   "guest event names)", optarg);
			*comma = '\0';
			opts->latency_start = optarg;
			opts->latency_end = comma + 1;
			break;
		}
		case OPT_THRESHOLD:
			opts->threshold_ns = parse_duration_ns(optarg);
			if (!opts->threshold_ns)
				return usage_error(err, "bad --threshold '%s' (try 100us or 2ms)",
						   optarg);
			break;
		case OPT_TIMELINE:
			opts->timeline = optarg;
			break;
		case OPT_SVG:
			opts->svg = optarg;
			break;
		case OPT_TIME_RANGE:
			if (parse_range(optarg, &opts->range_from_ns, &opts->range_to_ns))
				return usage_error(err, "bad --time-range '%s' (FROM,TO after the "
						   "first record: 10ms,20ms; either may be empty)", optarg);
			opts->time_range = true;
			break;
		case OPT_TIME_OFFSET:
			if (opts->nr_time_offsets == VMA_MAX_TIME_OFFSETS)
				return usage_error(err, "--time-offset is given more than %d times",
						   VMA_MAX_TIME_OFFSETS);
			if (parse_time_offset(optarg, &opts->time_offsets[opts->nr_time_offsets]))
				return usage_error(err, "bad --time-offset '%s' (FILE=NS or "
						   "FILE=NS,SCALE: guest.dat=-1500,1.000002)", optarg);
			opts->nr_time_offsets++;
			break;
		case OPT_GUEST_TSC:
			if (opts->nr_time_offsets == VMA_MAX_TIME_OFFSETS)
				return usage_error(err, "--time-offset and --guest-tsc are given "
						   "more than %d times", VMA_MAX_TIME_OFFSETS);
			if (parse_guest_tsc(optarg, &opts->time_offsets[opts->nr_time_offsets]))
				return usage_error(err, "bad --guest-tsc '%s' (FILE, FILE@dN, "
						   "FILE@dN=CYCLES or FILE@dN=CYCLES,SCALE: "
						   "guest.dat@d1=-52000,1.0001)", optarg);
			opts->nr_time_offsets++;
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
			if (c >= OPT_XENALYZE && c < OPT_XENALYZE + (int)NR_XEN_OPTIONS &&
			    xen_table[c - OPT_XENALYZE].name) {
				int rc = xen_option(opts, &xen_table[c - OPT_XENALYZE], optarg, err);

				if (rc)
					return rc;
				break;
			}
			return usage_error(err, "unknown option '%s'", argv[optind - 1]);
		}
	}
	/* As xenalyze: -s and -a together print the dump, then the summary. */
	if (opts->dump && !opts->summary && (opts->json || opts->interval_secs > 0 ||
					     opts->histogram))
		return usage_error(err, "%s",
				   "--json, --interval and --histogram go with the summary "
				   "(-a with them needs -s too)");
	if (!opts->dump && (opts->dump_volume_on_lost || opts->dump_power_states))
		return usage_error(err, "%s", opts->dump_volume_on_lost
				   ? "--dump-trace-volume-on-lost-record goes with -a"
				   : "--dump-show-power-states goes with -a");
	if (opts->dump_no_processing &&
	    (opts->summary || opts->dump || opts->json || opts->interval_secs > 0 ||
	     opts->histogram || opts->scatter.kinds || opts->dump_raw_process ||
	     opts->dump_ipi_latency || opts->report_pcpu))
		return usage_error(err, "%s", "--dump-no-processing reads without analyzing: "
				   "it goes with no output but --dump-raw-reads");
	if ((opts->json || opts->csv) && opts->interval_secs > 0)
		return usage_error(err, "%s", "choose one of --json, --csv and --interval");
	if (opts->json && opts->csv)
		return usage_error(err, "%s", "choose one of --json and --csv");
	if (opts->save && (opts->dump || opts->interval_secs > 0))
		return usage_error(err, "%s", "--save goes with the summary, not -a or -i");
	if (opts->dump && opts->csv)
		return usage_error(err, "%s", "--csv goes with the summary, not -a");
	/* Interval rows are written as time passes: they cannot share stdout with -a. */
	if (opts->dump && opts->interval_secs > 0)
		return usage_error(err, "%s", "--interval goes with the summary, not -a");
	if (opts->dump && !opts->summary && opts->format)
		return usage_error(err, "%s", "--format goes with the summary (-a with it needs -s too)");
	if (opts->live && (opts->summary || opts->dump || opts->json || opts->csv || opts->save ||
			   opts->interval_secs > 0 || opts->histogram || opts->report_pcpu ||
			   opts->format))
		return usage_error(err, "%s", "--live is a mode of its own: not with -s, -a, --json, "
				   "--csv, --save, --format, --interval, --histogram or --report-pcpu");
	if (opts->live && (opts->scatter.kinds || opts->dump_raw_process || opts->dump_raw_reads ||
			   opts->dump_ipi_latency || opts->no_percentiles ||
			   opts->show_default_domain))
		return usage_error(err, "%s", "--live is a mode of its own: not with xenalyze's "
				   "output options");
	if (opts->time_range && !opts->timeline && !opts->svg)
		return usage_error(err, "%s", "--time-range goes with --timeline and --svg");
	if ((opts->timeline || opts->svg) &&
	    (opts->dump || opts->summary || opts->latency || opts->live || opts->histogram ||
	     opts->json || opts->csv || opts->interval_secs > 0 || opts->save ||
	     opts->report_pcpu || opts->format || opts->scatter.kinds || opts->dump_raw_process ||
	     opts->dump_raw_reads || opts->dump_ipi_latency))
		return usage_error(err, "%s", "--timeline and --svg write pictures: only "
				   "--time-range goes with them");
	if ((opts->threshold_ns || opts->latency_start) && !opts->latency)
		return usage_error(err, "%s", "--threshold and --latency-events go with --latency");
	if (opts->latency && (opts->dump || opts->summary || opts->live || opts->histogram ||
			      opts->interval_secs > 0 || opts->save || opts->report_pcpu ||
			      opts->scatter.kinds || opts->dump_raw_process || opts->dump_raw_reads ||
			      opts->dump_ipi_latency ||
			      (opts->format && strcmp(opts->format, "text"))))
		return usage_error(err, "%s", "--latency is its own report: only --json, --csv "
				   "and --threshold go with it");
	if (opts->xinterval.mode) {
		/* Its rows go out as time passes. */
		if (opts->dump || opts->live || opts->json || opts->csv || opts->format)
			return usage_error(err, "%s", "--interval-domain-* options go with -s and "
					   "the text summary, not -a, --live, --json, --csv or --format");
		if (!(opts->interval_secs > 0))
			opts->interval_secs = 1.0; /* xenalyze's default */
	}
	if (!opts->live && pick_format(opts, err))
		return VMA_ERR_USAGE;
	/* --live has no renderer: several files are headed as in text. */
	if (opts->live)
		opts->format = "text";
	if (!strcmp(opts->format, "json") || !strcmp(opts->format, "csv")) {
		if (opts->no_percentiles)
			return usage_error(err, "%s", "--sample-size=0 takes the text summary's "
					   "percentiles away; JSON and CSV keep them");
		if (opts->dump_ipi_latency || opts->scatter.kinds || opts->dump_raw_process ||
		    opts->dump_raw_reads || (opts->dump && opts->summary))
			return usage_error(err, "%s", "JSON and CSV cannot share the output with "
					   "other lines (-a, --scatterplot-*, --dump-*)");
	}
	opts->mode = opts->live ? VMA_MODE_LIVE : opts->latency ? VMA_MODE_LATENCY
		   : opts->timeline || opts->svg ? VMA_MODE_PICTURE
		   : opts->dump ? VMA_MODE_DUMP : VMA_MODE_SUMMARY;
	/* Scatterplots replace the summary, unless it is asked for. */
	opts->report = (opts->mode == VMA_MODE_SUMMARY || opts->mode == VMA_MODE_DUMP) &&
		       (opts->summary || (opts->interval_secs > 0 && !opts->xinterval.mode) ||
			(!opts->dump && !opts->scatter.kinds && !opts->dump_raw_process &&
			 !opts->dump_raw_reads && !opts->xinterval.mode));
	if ((opts->stat_event_set || opts->stat_sort_set) && strcmp(opts->format, "kvm-stat"))
		return usage_error(err, "%s", "--event and --sort go with --format kvm-stat");
	if (opts->top && !opts->report)
		return usage_error(err, "%s", "--top goes with the summary (-a with it needs -s too)");
	if (opts->live && (opts->filter.domain_set || opts->filter.vcpu_set))
		return usage_error(err, "%s", "--live shows every domain: not with --domain, --vm or"
				   " --vcpu");
	/* The state keeps a host cpu's time per VM, not per vcpu. */
	if (opts->report_pcpu && opts->filter.vcpu_set)
		return usage_error(err, "%s", "--report-pcpu's rows are per host cpu and VM, not per"
				   " vcpu: --vcpu cannot split them (use --vm, or leave one out)");
	if (opts->top && vma_renderer_find(opts->format)->per_interval)
		return usage_error(err, "--top has no place in --format %s", opts->format);
	if ((opts->mode == VMA_MODE_LATENCY || opts->mode == VMA_MODE_PICTURE) &&
	    (opts->filter.domain_set || opts->filter.vcpu_set || opts->filter.time_set))
		return usage_error(err, "%s", opts->mode == VMA_MODE_LATENCY
				   ? "--latency reports every guest: not with --domain, --vm, --vcpu "
				     "or --time"
				   : "--timeline and --svg take their window from --time-range: not "
				     "with --domain, --vm, --vcpu or --time");
	/* They add to the text summary (and JSON): without one they would do nothing. */
	if ((opts->eips.enumerate || opts->eips.histogram || opts->eips.cr3) &&
	    !(opts->report && (!strcmp(opts->format, "text") ||
			       !strcmp(opts->format, "histogram") || !strcmp(opts->format, "json"))))
		return usage_error(err, "%s", "--with-interrupt-eip-enumeration, "
				   "--histogram-interrupt-eip and --with-cr3-enumeration go with the "
				   "summary (text or JSON)");
	/* xenalyze plots CR3 ids instead of frames then: one meaning per option here. */
	if (opts->eips.cr3 && (opts->scatter.kinds & (1u << VMA_SCATTER_CR3_SWITCH)))
		return usage_error(err, "%s", "--scatterplot-cr3-switch plots CR3 frames: not "
				   "with --with-cr3-enumeration");
	opts->files = argv + optind;
	opts->nr_files = argc - optind;
	if (opts->nr_files == 0)
		return usage_error(err, "%s", "no trace file given (use - for standard input)");
	if (opts->jobs == 0) {
#ifdef __SANITIZE_ADDRESS__
		/*
		 * ASan's allocator can deadlock a child forked by a threaded
		 * process (trace.dat formats are checked in a forked child), so
		 * a sanitized build takes one trace at a time unless told.
		 */
		opts->jobs = 1;
#else
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		opts->jobs = cpus < 1 ? 1 : cpus > 1024 ? 1024 : (unsigned int)cpus;
#endif
	}
	if (opts->threads == 0)
		opts->threads = default_threads(opts);
	for (c = 0; c < opts->nr_time_offsets; c++) {
		const char *f = opts->time_offsets[c].file;
		const char *name = opts->time_offsets[c].map.cycles ? "--guest-tsc" : "--time-offset";
		int k;

		for (k = 0; k < opts->nr_files && strcmp(opts->files[k], f); k++)
			;
		if (k == opts->nr_files)
			return usage_error(err, "%s names '%s', which is not a trace given", name,
					   f);
		if (!strcmp(f, "-"))
			return usage_error(err, "%s cannot name standard input", name);
		/* only a run of linked traces has the xentrace whose TSC and vcpus it names */
		if (opts->time_offsets[c].map.cycles && opts->mode != VMA_MODE_DUMP &&
		    opts->mode != VMA_MODE_PICTURE)
			return usage_error(err, "%s", "--guest-tsc is for -a, --timeline and --svg");
		for (k = 0; k < c; k++) {
			if (!strcmp(opts->time_offsets[k].file, f))
				return usage_error(err, "'%s' is given a clock twice (--time-offset, "
						   "--guest-tsc)", f);
		}
	}
	return VMA_OK;
}
