/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which options go together, checked once every option is read, and the
 * defaults that depend on the whole command line (the summary's renderer,
 * the mode, jobs and threads).  The checks run in one fixed order, so a
 * command line with several faults always gets the same message.
 */
#include <string.h>
#include <unistd.h>

#include "cli/option-table.h"
#include "vmalyze/report.h"
#include "vmalyze/status.h"

/*
 * Threads per trace by default: one when several traces run at once
 * (--jobs already keeps the cpus busy); else 0, which the pipeline makes
 * a reader thread where it pays (two cpus, and a trace that gains:
 * VMA_THREADS_AUTO_BYTES of xentrace, VMA_THREADS_AUTO_KVM_BYTES of KVM
 * event data).
 */
static unsigned int default_threads(const struct vma_options *opts)
{
	return opts->nr_files > 1 && opts->jobs > 1 ? 1 : 0;
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

	if (opts->format && implied && strcmp(opts->format, implied)) {
		return vma_usage_error(err, "--format %s and --%s choose different outputs",
				       opts->format, implied);
	}
	if (!opts->format)
		opts->format = implied ? implied : "text";
	if (!strcmp(opts->format, "text") && opts->histogram)
		opts->format = "histogram";
	if (vma_renderer_find(opts->format)->per_interval &&
	    !(opts->interval_secs > 0 && !opts->xinterval.mode)) {
		return vma_usage_error(err, "--format %s needs -i SEC (the interval length)",
				       opts->format);
	}
	return VMA_OK;
}

/* -a's own options, and --dump-no-processing, which reads without analyzing. */
static int check_dump(const struct vma_options *opts, FILE *err)
{
	/* As xenalyze: -s and -a together print the dump, then the summary. */
	if (opts->dump && !opts->summary && (opts->json || opts->interval_secs > 0 ||
					     opts->histogram)) {
		return vma_usage_error(err, "%s", "--json, --interval and --histogram go with the "
				       "summary (-a with them needs -s too)");
	}
	if (!opts->dump && (opts->dump_volume_on_lost || opts->dump_power_states)) {
		return vma_usage_error(err, "%s", opts->dump_volume_on_lost
				       ? "--dump-trace-volume-on-lost-record goes with -a"
				       : "--dump-show-power-states goes with -a");
	}
	if (opts->dump_no_processing &&
	    (opts->summary || opts->dump || opts->json || opts->interval_secs > 0 ||
	     opts->histogram || opts->scatter.kinds || opts->dump_raw_process ||
	     opts->dump_ipi_latency || opts->report_pcpu)) {
		return vma_usage_error(err, "%s", "--dump-no-processing reads without analyzing: "
				       "it goes with no output but --dump-raw-reads");
	}
	return VMA_OK;
}

/* One output on stdout: the summary formats exclude each other and -a. */
static int check_one_output(const struct vma_options *opts, FILE *err)
{
	if ((opts->json || opts->csv) && opts->interval_secs > 0)
		return vma_usage_error(err, "%s", "choose one of --json, --csv and --interval");
	if (opts->json && opts->csv)
		return vma_usage_error(err, "%s", "choose one of --json and --csv");
	if (opts->save && (opts->dump || opts->interval_secs > 0))
		return vma_usage_error(err, "%s", "--save goes with the summary, not -a or -i");
	if (opts->dump && opts->csv)
		return vma_usage_error(err, "%s", "--csv goes with the summary, not -a");
	/* Interval rows are written as time passes: they cannot share stdout with -a. */
	if (opts->dump && opts->interval_secs > 0)
		return vma_usage_error(err, "%s", "--interval goes with the summary, not -a");
	if (opts->dump && !opts->summary && opts->format) {
		return vma_usage_error(err, "%s", "--format goes with the summary (-a with it "
				       "needs -s too)");
	}
	return VMA_OK;
}

/* --live, --timeline/--svg and --latency are modes of their own. */
static int check_modes(const struct vma_options *opts, FILE *err)
{
	if (opts->live && (opts->summary || opts->dump || opts->json || opts->csv || opts->save ||
			   opts->interval_secs > 0 || opts->histogram || opts->report_pcpu ||
			   opts->format)) {
		return vma_usage_error(err, "%s", "--live is a mode of its own: not with -s, -a, "
				       "--json, --csv, --save, --format, --interval, --histogram "
				       "or --report-pcpu");
	}
	if (opts->live && (opts->scatter.kinds || opts->dump_raw_process || opts->dump_raw_reads ||
			   opts->dump_ipi_latency || opts->no_percentiles ||
			   opts->show_default_domain)) {
		return vma_usage_error(err, "%s", "--live is a mode of its own: not with "
				       "xenalyze's output options");
	}
	if (opts->time_range && !opts->timeline && !opts->svg)
		return vma_usage_error(err, "%s", "--time-range goes with --timeline and --svg");
	if ((opts->timeline || opts->svg) &&
	    (opts->dump || opts->summary || opts->latency || opts->live || opts->histogram ||
	     opts->json || opts->csv || opts->interval_secs > 0 || opts->save ||
	     opts->report_pcpu || opts->format || opts->scatter.kinds || opts->dump_raw_process ||
	     opts->dump_raw_reads || opts->dump_ipi_latency)) {
		return vma_usage_error(err, "%s", "--timeline and --svg write pictures: only "
				       "--time-range goes with them");
	}
	if ((opts->threshold_ns || opts->latency_start) && !opts->latency) {
		return vma_usage_error(err, "%s", "--threshold and --latency-events go with "
				       "--latency");
	}
	if (opts->latency && (opts->dump || opts->summary || opts->live || opts->histogram ||
			      opts->interval_secs > 0 || opts->save || opts->report_pcpu ||
			      opts->scatter.kinds || opts->dump_raw_process ||
			      opts->dump_raw_reads || opts->dump_ipi_latency ||
			      (opts->format && strcmp(opts->format, "text")))) {
		return vma_usage_error(err, "%s", "--latency is its own report: only --json, --csv "
				       "and --threshold go with it");
	}
	return VMA_OK;
}

/* The renderer, then what it cannot show; then the mode and whether a report is printed. */
static int settle_format_and_mode(struct vma_options *opts, FILE *err)
{
	if (opts->xinterval.mode) {
		/* Its rows go out as time passes. */
		if (opts->dump || opts->live || opts->json || opts->csv || opts->format) {
			return vma_usage_error(err, "%s", "--interval-domain-* and "
					       "--interval-cr3-* options go with -s and the text "
					       "summary, not -a, --live, --json, --csv or "
					       "--format");
		}
		if (!(opts->interval_secs > 0))
			opts->interval_secs = 1.0; /* xenalyze's default */
	}
	if (!opts->live && pick_format(opts, err))
		return VMA_ERR_USAGE;
	/* --live has no renderer: several files are headed as in text. */
	if (opts->live)
		opts->format = "text";
	if (!strcmp(opts->format, "json") || !strcmp(opts->format, "csv")) {
		if (opts->no_percentiles) {
			return vma_usage_error(err, "%s", "--sample-size=0 takes the text "
					       "summary's percentiles away; JSON and CSV keep "
					       "them");
		}
		if (opts->dump_ipi_latency || opts->scatter.kinds || opts->dump_raw_process ||
		    opts->dump_raw_reads || (opts->dump && opts->summary)) {
			return vma_usage_error(err, "%s", "JSON and CSV cannot share the output "
					       "with other lines (-a, --scatterplot-*, --dump-*)");
		}
	}
	opts->mode = opts->live ? VMA_MODE_LIVE : opts->latency ? VMA_MODE_LATENCY
		   : opts->timeline || opts->svg ? VMA_MODE_PICTURE
		   : opts->dump ? VMA_MODE_DUMP : VMA_MODE_SUMMARY;
	/* Scatterplots replace the summary, unless it is asked for. */
	opts->report = (opts->mode == VMA_MODE_SUMMARY || opts->mode == VMA_MODE_DUMP) &&
		       (opts->summary || (opts->interval_secs > 0 && !opts->xinterval.mode) ||
			(!opts->dump && !opts->scatter.kinds && !opts->dump_raw_process &&
			 !opts->dump_raw_reads && !opts->xinterval.mode));
	return VMA_OK;
}

/* The options that shape the summary need one, of a kind that has their place. */
static int check_report(const struct vma_options *opts, FILE *err)
{
	if ((opts->stat_event_set || opts->stat_sort_set) && strcmp(opts->format, "kvm-stat"))
		return vma_usage_error(err, "%s", "--event and --sort go with --format kvm-stat");
	if (opts->top && !opts->report) {
		return vma_usage_error(err, "%s", "--top goes with the summary (-a with it needs "
				       "-s too)");
	}
	if (opts->live && (opts->filter.domain_set || opts->filter.vcpu_set)) {
		return vma_usage_error(err, "%s", "--live shows every domain: not with --domain, "
				       "--vm or --vcpu");
	}
	/* The state keeps a host cpu's time per VM, not per vcpu. */
	if (opts->report_pcpu && opts->filter.vcpu_set) {
		return vma_usage_error(err, "%s", "--report-pcpu's rows are per host cpu and VM, "
				       "not per vcpu: --vcpu cannot split them (use --vm, or leave "
				       "one out)");
	}
	if (opts->top && vma_renderer_find(opts->format)->per_interval)
		return vma_usage_error(err, "--top has no place in --format %s", opts->format);
	if ((opts->mode == VMA_MODE_LATENCY || opts->mode == VMA_MODE_PICTURE) &&
	    (opts->filter.domain_set || opts->filter.vcpu_set || opts->filter.time_set)) {
		return vma_usage_error(err, "%s", opts->mode == VMA_MODE_LATENCY
				       ? "--latency reports every guest: not with --domain, --vm, "
					 "--vcpu or --time"
				       : "--timeline and --svg take their window from "
					 "--time-range: not with --domain, --vm, --vcpu or --time");
	}
	/*
	 * They add to the text summary (and JSON): without one they would do
	 * nothing -- but for the CR3 ids the CR3 accounting gives
	 * --scatterplot-unpin-promote's promotions, as in xenalyze.
	 */
	if ((opts->eips.enumerate || opts->eips.histogram ||
	     (opts->cr3_enumeration &&
	      !(opts->scatter.kinds & (1u << VMA_SCATTER_UNPIN_PROMOTE)))) &&
	    !(opts->report && (!strcmp(opts->format, "text") ||
			       !strcmp(opts->format, "histogram") ||
			       !strcmp(opts->format, "json")))) {
		return vma_usage_error(err, "%s", "--with-interrupt-eip-enumeration, "
				       "--histogram-interrupt-eip and --with-cr3-enumeration go "
				       "with the summary (text or JSON)");
	}
	/* xenalyze plots CR3 ids instead of frames then: one meaning per option here. */
	if (opts->eips.cr3 && (opts->scatter.kinds & (1u << VMA_SCATTER_CR3_SWITCH))) {
		return vma_usage_error(err, "%s", "--scatterplot-cr3-switch plots CR3 frames: not "
				       "with --with-cr3-enumeration or --interval-cr3-*");
	}
	return VMA_OK;
}

/* Traces at once by default: the online cpus. */
static unsigned int default_jobs(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	return cpus < 1 ? 1 : cpus > 1024 ? 1024 : (unsigned int)cpus;
}

/* Each --time-offset and --guest-tsc names a trace given, once, and fits the mode. */
static int check_time_offsets(const struct vma_options *opts, FILE *err)
{
	int c, k;

	for (c = 0; c < opts->nr_time_offsets; c++) {
		const char *f = opts->time_offsets[c].file;
		const char *name = opts->time_offsets[c].map.cycles ? "--guest-tsc"
								    : "--time-offset";

		for (k = 0; k < opts->nr_files && strcmp(opts->files[k], f); k++)
			;
		if (k == opts->nr_files) {
			return vma_usage_error(err, "%s names '%s', which is not a trace given",
					       name, f);
		}
		if (!strcmp(f, "-"))
			return vma_usage_error(err, "%s cannot name standard input", name);
		/* only a run of linked traces has the xentrace whose TSC and vcpus it names */
		if (opts->time_offsets[c].map.cycles && opts->mode != VMA_MODE_DUMP &&
		    opts->mode != VMA_MODE_PICTURE) {
			return vma_usage_error(err, "%s", "--guest-tsc is for -a, --timeline and "
					       "--svg");
		}
		for (k = 0; k < c; k++) {
			if (!strcmp(opts->time_offsets[k].file, f)) {
				return vma_usage_error(err, "'%s' is given a clock twice "
						       "(--time-offset, --guest-tsc)", f);
			}
		}
	}
	return VMA_OK;
}

int vma_options_settle(struct vma_options *opts, int nr_files, char **files, FILE *err)
{
	int rc = check_dump(opts, err);

	if (!rc)
		rc = check_one_output(opts, err);
	if (!rc)
		rc = check_modes(opts, err);
	if (!rc)
		rc = settle_format_and_mode(opts, err);
	if (!rc)
		rc = check_report(opts, err);
	if (rc)
		return rc;
	opts->files = files;
	opts->nr_files = nr_files;
	if (opts->nr_files == 0)
		return vma_usage_error(err, "%s", "no trace file given (use - for standard input)");
	if (opts->jobs == 0)
		opts->jobs = default_jobs();
	if (opts->threads == 0)
		opts->threads = default_threads(opts);
	return check_time_offsets(opts, err);
}
