/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xenalyze's options, with their spelling (long options, "--name=ARG"),
 * grouped and ordered as xenalyze's table: a row without a name starts a
 * group; an "above" row is one vmalyze's own table has (-a, -s, -i...),
 * named in its group by --help and not registered twice.  Each row names the
 * setter that takes its argument; a scatterplot's or interval mode's row
 * carries its kind, so a new one of those is one row.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/option-table.h"
#include "vmalyze/status.h"

/* A scatterplot option: its kind, and the vector or port it plots, if any. */
static int set_scatter(struct vma_options *opts, const struct vma_option_row *row, char *arg,
		       FILE *err)
{
	enum vma_scatter_kind kind = (enum vma_scatter_kind)row->value;
	uint32_t *value = kind == VMA_SCATTER_EXTINT_CYCLES ? &opts->scatter.extint_vector
			: kind == VMA_SCATTER_IO ? &opts->scatter.io_port
			: kind == VMA_SCATTER_INTERRUPT_EIP ? &opts->scatter.interrupt_vector
			: NULL;

	if (value && !vma_parse_number(arg, kind == VMA_SCATTER_IO ? 0xffff : 0xff, value)) {
		return vma_usage_error(err, "bad --%s value '%s' (%s)", row->name, arg,
				       kind == VMA_SCATTER_IO ? "a port, 0 to 0xffff"
							      : "a vector, 0 to 0xff");
	}
	opts->scatter.kinds |= 1u << kind;
	return VMA_OK;
}

/* --interval-cr3-*'s "G" or, for schedule-time, "G[,G...]": distinct frame numbers. */
static int set_gmfns(struct vma_xinterval_options *x, const struct vma_option_row *row,
		     const char *arg, FILE *err)
{
	bool list = x->mode == VMA_XINTERVAL_CR3_SCHEDULE_TIME;
	uint32_t i;

	while (arg) {
		char *end;
		uint64_t g;

		errno = 0;
		g = strtoull(arg, &end, 0);
		if (end == arg || *arg == '-' || errno || (*end && *end != ',') ||
		    x->nr_gmfns == VMA_XINTERVAL_MAX_DOMAINS) {
			return vma_usage_error(err, "bad --%s value '%s' (%s)", row->name, arg,
					       list ? "CR3 frame numbers (CR3 >> 12), comma "
						      "separated, at most 32"
						    : "a CR3 frame number (CR3 >> 12)");
		}
		for (i = 0; i < x->nr_gmfns; i++) {
			if (x->gmfns[i] == g) {
				return vma_usage_error(err, "--%s: CR3 %" PRIx64 " given twice",
						       row->name, g);
			}
		}
		x->gmfns[x->nr_gmfns++] = g;
		if (*end && !list)
			return vma_usage_error(err, "--%s takes one CR3", row->name);
		arg = *end ? end + 1 : NULL;
	}
	return VMA_OK;
}

/*
 * An --interval-domain-* option: "D" or, for total-time, "D[,D...]"; or an
 * --interval-cr3-* option, which keeps the CR3 accounting as xenalyze's do.
 */
static int set_xinterval(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			 FILE *err)
{
	struct vma_xinterval_options *x = &opts->xinterval;
	bool list = row->value == VMA_XINTERVAL_TOTAL_TIME;
	char buf[16];

	if (x->mode) {
		return vma_usage_error(err, "--%s: one --interval-domain-* or --interval-cr3-* "
				       "option per run", row->name);
	}
	x->mode = (enum vma_xinterval_mode)row->value;
	if (vma_xinterval_needs_cr3(x->mode)) {
		opts->eips.cr3 = true;
		return set_gmfns(x, row, arg, err);
	}
	while (arg) {
		const char *comma = strchr(arg, ',');
		size_t n = comma ? (size_t)(comma - arg) : strlen(arg);

		if (n >= sizeof(buf) || x->nr_domains == VMA_XINTERVAL_MAX_DOMAINS)
			return vma_usage_error(err, "bad --%s value '%s'", row->name, arg);
		memcpy(buf, arg, n);
		buf[n] = '\0';
		if (!vma_parse_number(buf, VMA_DEFAULT_DOMAIN, &x->domains[x->nr_domains])) {
			return vma_usage_error(err, "bad --%s value '%s' (%s)", row->name, buf,
					       list ? "domain ids, 0 to 32768, comma separated"
						    : "a domain id, 0 to 32768");
		}
		x->nr_domains++;
		if (comma && !list)
			return vma_usage_error(err, "--%s takes one domain", row->name);
		arg = comma ? (char *)comma + 1 : NULL;
	}
	return VMA_OK;
}

/* --with-cr3-enumeration: the CR3 accounting, and the CR3 lists in the summary. */
static int set_cr3_enumeration(struct vma_options *opts, const struct vma_option_row *row,
			       char *arg, FILE *err)
{
	(void)row;
	(void)arg;
	(void)err;
	opts->eips.cr3 = true;
	opts->cr3_enumeration = true;
	return VMA_OK;
}

/* --dump-no-processing: the raw reads and nothing else. */
static int set_no_processing(struct vma_options *opts, const struct vma_option_row *row,
			     char *arg, FILE *err)
{
	(void)row;
	(void)arg;
	(void)err;
	opts->dump_raw_reads = true;
	opts->dump_no_processing = true;
	return VMA_OK;
}

/* xenalyze's sample array sizes: a count, 0 or more. */
static bool sample_count(const struct vma_option_row *row, const char *arg, uint32_t *n,
			 FILE *err)
{
	if (vma_parse_number(arg, INT32_MAX, n))
		return true;
	vma_usage_error(err, "bad --%s value '%s' (a count, 0 or more)", row->name, arg);
	return false;
}

/* --sample-size=0 drops the percentiles; other sizes change nothing here. */
static int set_sample_size(struct vma_options *opts, const struct vma_option_row *row,
			   char *arg, FILE *err)
{
	uint32_t n;

	if (!sample_count(row, arg, &n, err))
		return VMA_ERR_USAGE;
	opts->no_percentiles = n == 0;
	return VMA_OK;
}

/* vmalyze's percentiles are bounded by design: the cap is checked, not needed. */
static int set_sample_max(struct vma_options *opts, const struct vma_option_row *row,
			  char *arg, FILE *err)
{
	uint32_t n;

	(void)opts;
	return sample_count(row, arg, &n, err) ? VMA_OK : VMA_ERR_USAGE;
}

/* Both tables (I/O ports, MMIO) are always made: the options ask for what is on already. */
static int set_always_on(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			 FILE *err)
{
	(void)opts;
	(void)row;
	(void)arg;
	(void)err;
	return VMA_OK;
}

static int set_skip_vga(struct vma_options *opts, const struct vma_option_row *row, char *arg,
			FILE *err)
{
	if (strcmp(arg, "0") && strcmp(arg, "1"))
		return vma_usage_error(err, "bad --%s value '%s' (0 or 1)", row->name, arg);
	opts->mmio_keep_vga = !strcmp(arg, "0");
	return VMA_OK;
}

static int set_eip_enumeration(struct vma_options *opts, const struct vma_option_row *row,
			       char *arg, FILE *err)
{
	uint32_t vec;

	if (!vma_parse_number(arg, 0xff, &vec)) {
		return vma_usage_error(err, "bad --%s value '%s' (a vector, 0 to 0xff)", row->name,
				       arg);
	}
	opts->eips.enumerate = true;
	opts->eips.enumerate_vector = (uint8_t)vec;
	return VMA_OK;
}

/* "VEC[,INCR]": the vector, and the bucket size in bytes. */
static int set_eip_histogram(struct vma_options *opts, const struct vma_option_row *row,
			     char *arg, FILE *err)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	char vec_text[16];
	uint32_t vec;
	char *end;

	if (n >= sizeof(vec_text))
		return vma_usage_error(err, "bad --%s value '%s'", row->name, arg);
	memcpy(vec_text, arg, n);
	vec_text[n] = '\0';
	if (!vma_parse_number(vec_text, 0xff, &vec)) {
		return vma_usage_error(err, "bad --%s vector '%s' (0 to 0xff)", row->name,
				       vec_text);
	}
	opts->eips.histogram = true;
	opts->eips.histogram_vector = (uint8_t)vec;
	opts->eips.histogram_increment = 0x1000000; /* xenalyze's default */
	if (comma) {
		errno = 0;
		opts->eips.histogram_increment = strtoull(comma + 1, &end, 0);
		if (!comma[1] || *end || comma[1] == '-' || errno ||
		    !opts->eips.histogram_increment) {
			return vma_usage_error(err, "bad --%s increment '%s' (bytes, 1 or more)",
					       row->name, comma + 1);
		}
	}
	return VMA_OK;
}

static int set_paging_levels(struct vma_options *opts, const struct vma_option_row *row,
			     char *arg, FILE *err)
{
	uint32_t levels;

	if (!vma_parse_number(arg, 4, &levels) || levels < 2)
		return vma_usage_error(err, "bad --%s value '%s' (2, 3 or 4)", row->name, arg);
	opts->default_paging_levels = (uint8_t)levels;
	return VMA_OK;
}

static const struct vma_option_row xen_table[] = {
	{ .doc = "Dump:" },
	{ "dump-all", .above = true },
	{ "dump-raw-reads", 0, NULL,
	  "Each record as it is read, before the merge: \"R pPCPU oOFFSET\" and its raw words; "
	  "an output of its own",
	  VMA_OPTION_FLAG(dump_raw_reads) },
	{ "dump-no-processing", 0, NULL,
	  "Only --dump-raw-reads: records are read, not analyzed",
	  .set = set_no_processing },
	{ "dump-raw-process", 0, NULL,
	  "Each record's raw words as it is processed (\"*  ID N TSC [ words ] | file words |\"), "
	  "before its -a line; an output of its own",
	  VMA_OPTION_FLAG(dump_raw_process) },
	{ "dump-ipi-latency", 0, NULL,
	  "Latency of each IPI a guest sends to its vcpus through the APIC ICR, from the send "
	  "to the vmentry delivering it: \" [vla] dDvV vec N ipis C, latency CYC (S s)\"",
	  VMA_OPTION_FLAG(dump_ipi_latency) },
	{ "dump-trace-volume-on-lost-record", 0, NULL,
	  "With -a: after a lost-records record, its pcpu's trace volume by class since its "
	  "previous one",
	  VMA_OPTION_FLAG(dump_volume_on_lost) },
	{ "dump-show-power-states", 0, NULL,
	  "With -a: an idle pcpu's column shows its C-state digit instead of '-'",
	  VMA_OPTION_FLAG(dump_power_states) },
	{ .doc = "Extra processing: enumerations, and scatterplots (no summary unless -s):" },
	{ "with-cr3-enumeration", 0, NULL,
	  "Per HVM domain, each guest CR3 by first load: the time it stayed loaded, the guest and "
	  "hypervisor time run under it, its switches and flushes",
	  .set = set_cr3_enumeration },
	{ "with-pio-enumeration", 0, NULL,
	  "The I/O port table of each HVM vcpu (IO address summary); on by default, as in "
	  "xenalyze",
	  .set = set_always_on },
	{ "with-mmio-enumeration", 0, NULL,
	  "The MMIO address table of each HVM vcpu; on by default in vmalyze (xenalyze: off)",
	  .set = set_always_on },
	{ "with-interrupt-eip-enumeration", 0, "VEC",
	  "Per domain, the guest EIPs that external interrupts of vector VEC interrupted, most "
	  "often first (Intel: AMD's records carry no vector)",
	  .set = set_eip_enumeration },
	{ "scatterplot-interrupt-eip", 0, "VEC",
	  "Guest EIP interrupted by vector VEC: \"dDvV SEC 0xEIP [sym+0xoff]\"",
	  .set = set_scatter, .value = VMA_SCATTER_INTERRUPT_EIP },
	{ "scatterplot-extint-cycles", 0, "VEC",
	  "Cycles of each external-interrupt exit for vector VEC: \"dDvV SEC CYCLES\"",
	  .set = set_scatter, .value = VMA_SCATTER_EXTINT_CYCLES },
	{ "scatterplot-unpin-promote", 0, NULL,
	  "Shadow paging, at each emulation or fixup exit: \"SEC Y\", Y -10 an early unshadow, "
	  "0 an unpin, 2 a promotion (with the CR3 accounting: the CR3's id)",
	  .set = set_scatter, .value = VMA_SCATTER_UNPIN_PROMOTE },
	{ "scatterplot-cr3-switch", 0, NULL,
	  "CR3 switches (not flushes): \"SEC GMFN\"",
	  .set = set_scatter, .value = VMA_SCATTER_CR3_SWITCH },
	{ "scatterplot-wake-to-halt", 0, NULL,
	  "Cycles from a wake's interrupt delivery to the next halt: \"SEC CYCLES\"",
	  .set = set_scatter, .value = VMA_SCATTER_WAKE_TO_HALT },
	{ "scatterplot-vmexit-eip", 0, NULL,
	  "Guest EIP of every vmexit: \"SEC 0xEIP [sym+0xoff]\"",
	  .set = set_scatter, .value = VMA_SCATTER_VMEXIT_EIP },
	{ "scatterplot-io", 0, "PORT",
	  "Cycles of each read of I/O port PORT: \"SEC CYCLES\"",
	  .set = set_scatter, .value = VMA_SCATTER_IO },
	{ "scatterplot-runstate", 0, NULL,
	  "Runstate steps of each vcpu: \"DvV SEC Y\", Y 3 running, 2 runnable, 0 blocked, "
	  "1 offline, -1 lost, -2 init",
	  .set = set_scatter, .value = VMA_SCATTER_RUNSTATE },
	{ "scatterplot-runstate-time", 0, NULL,
	  "Time spent in each runstate stretch: \"DvV SEC DURATION-SEC\"",
	  .set = set_scatter, .value = VMA_SCATTER_RUNSTATE_TIME },
	{ "scatterplot-pcpu", 0, NULL,
	  "Which pcpu each guest vcpu runs on: \"DvV SEC PCPU\"",
	  .set = set_scatter, .value = VMA_SCATTER_PCPU },
	{ "scatterplot-rdtsc", 0, NULL,
	  "Values RDTSC exits return: \"DvV SEC VALUE\"",
	  .set = set_scatter, .value = VMA_SCATTER_RDTSC },
	{ "scatterplot-irq", 0, NULL,
	  "Host IRQs handled: \"iIRQ SEC PCPU\"",
	  .set = set_scatter, .value = VMA_SCATTER_IRQ },
	{ "histogram-interrupt-eip", 0, "VEC[,INCR]",
	  "Per HVM vcpu, the same EIPs counted by bucket of INCR bytes (default 0x1000000); "
	  "buckets seen only, any INCR",
	  .set = set_eip_histogram },
	{ .doc = "Interval (a row per -i SEC, default 1 s; header first; no summary unless -s):" },
	{ "interval", .above = true },
	{ "interval-cr3-schedule-time", 0, "G[,G...]",
	  "Percent of each interval that guest CR3 G (a frame: CR3 >> 12, hex with 0x) stayed "
	  "loaded, credited at the switch away from it",
	  .set = set_xinterval, .value = VMA_XINTERVAL_CR3_SCHEDULE_TIME },
	{ "interval-cr3-schedule-time-all", 0, NULL,
	  "The same for every guest CR3, by first load (the header, written last, names them)",
	  .set = set_xinterval, .value = VMA_XINTERVAL_CR3_SCHEDULE_TIME_ALL },
	{ "interval-cr3-schedule-ordered", 0, NULL,
	  "Every CR3 with time in the interval, most first, a line each: \"GMFN: PERCENT\", "
	  "'*' when first loaded in it (all of them: xenalyze's help says top 10)",
	  .set = set_xinterval, .value = VMA_XINTERVAL_CR3_SCHEDULE_ORDERED },
	{ "interval-cr3-short-summary", 0, "G",
	  "CR3 G's percent, then the exit time run under it by category, in percent of G's "
	  "time",
	  .set = set_xinterval, .value = VMA_XINTERVAL_CR3_SHORT_SUMMARY },
	{ "interval-domain-total-time", 0, "D[,D...]",
	  "Percent of each interval that each domain D ran: \"START P P...\"",
	  .set = set_xinterval, .value = VMA_XINTERVAL_TOTAL_TIME },
	{ "interval-domain-total-time-all", 0, NULL,
	  "The same for every domain (the header, written last, names them)",
	  .set = set_xinterval, .value = VMA_XINTERVAL_TOTAL_TIME_ALL },
	{ "interval-domain-short-summary", 0, "D",
	  "Domain D's running percent, then its HVM exit time by category (emulate unsync "
	  "fixup mmio propagate cr3 vmcall intr hlt other), in percent of the interval",
	  .set = set_xinterval, .value = VMA_XINTERVAL_SHORT_SUMMARY },
	{ "interval-domain-guest-interrupt", 0, "D",
	  "Interrupts injected into domain D's vcpus, a column per vector seen",
	  .set = set_xinterval, .value = VMA_XINTERVAL_GUEST_INTERRUPT },
	{ "interval-domain-grant-maps", 0, "D",
	  "Grant maps done on domain D's behalf",
	  .set = set_xinterval, .value = VMA_XINTERVAL_GRANT_MAPS },
	{ .doc = "Summary:" },
	{ "show-default-domain-summary", 0, NULL,
	  "Also summarize the vcpus of the default domain (what ran before a pcpu's first "
	  "scheduling record)",
	  VMA_OPTION_FLAG(show_default_domain) },
	{ "mmio-enumeration-skip-vga", 0, "0|1",
	  "1 (the default, as xenalyze): Xen MMIO tables leave out the VGA window "
	  "0xa0000-0xbffff; 0 keeps it",
	  .set = set_skip_vga },
	{ "sample-size", 0, "N",
	  "xenalyze's first sample array size; 0: no {p5|p50|p95} in the summary.  vmalyze's "
	  "summaries grow on demand, bounded: other values change nothing",
	  .set = set_sample_size },
	{ "sample-max", 0, "N",
	  "xenalyze's cap on samples kept per summary.  vmalyze's percentiles are exact up to "
	  "1024 samples and within 0.79% above, in bounded memory, whatever N",
	  .set = set_sample_max },
	{ "summary", .above = true },
	{ "report-pcpu", .above = true },
	{ .doc = "Guest info:" },
	{ "default-guest-paging-levels", 0, "L",
	  "Paging levels (2, 3 or 4) of HVM guests until a 64-bit exit shows 4; for the "
	  "dump's shadow page-fault walks (default: 2, as xenalyze)",
	  .set = set_paging_levels },
	{ "symbol-file", 0, "FILE",
	  "\"address name\" lines (any order; System.map works): guest EIPs in "
	  "scatterplots and the dump's vmexits get their symbol and offset",
	  VMA_OPTION_STRING(symbol_file) },
	{ .doc = "Hardware info:" },
	{ "cpu-hz", .above = true },
	{ .doc = "Other:" },
	{ "progress", .above = true },
	{ "tsc-loop-fatal", 0, NULL,
	  "Stop reading a trace whose TSC skew corrections loop (by default their offsets "
	  "go back to 0 and reading goes on)",
	  VMA_OPTION_FLAG(tsc_loop_fatal) },
	{ "tolerance", .above = true },
};

_Static_assert(sizeof(xen_table) / sizeof(xen_table[0]) <= VMA_XEN_OPTIONS_MAX,
	       "xenalyze's option table outgrows VMA_XEN_OPTIONS_MAX");

const struct vma_option_row *vma_xen_option_rows(size_t *nr)
{
	*nr = sizeof(xen_table) / sizeof(xen_table[0]);
	return xen_table;
}
