/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Batch results on the command line: the aggregate that ends a run over
 * several traces (or one with --save), in the run's format, the save
 * file, and `vmalyze merge`, which prints the same aggregate from saved
 * files (doc/batch.md).
 */
#include <errno.h>
#include <string.h>

#include "cli/results.h"
#include "vmalyze/aggregate.h"
#include "vmalyze/status.h"

bool vma_results_wanted(const struct vma_options *opts, bool several)
{
	return opts->mode == VMA_MODE_SUMMARY && opts->report && !(opts->interval_secs > 0) &&
	       (several || opts->save);
}

bool vma_results_names_traces(const struct vma_options *opts)
{
	return !strcmp(opts->format, "json") || !strcmp(opts->format, "csv");
}

static int render(const char *format, const struct vma_aggregate_view *v, bool with_header,
		  FILE *out)
{
	if (!strcmp(format, "json"))
		return vma_render_aggregate_json(out, v);
	if (!strcmp(format, "csv"))
		return vma_render_aggregate_csv(out, v, with_header);
	return vma_render_aggregate_text(out, v);
}

static int save(struct vma_aggregate *agg, const char *path, FILE *err)
{
	FILE *f = fopen(path, "wb");
	int rc;

	if (!f) {
		fprintf(err, "vmalyze: %s: %s\n", path, strerror(errno));
		return VMA_ERR_OUTPUT;
	}
	rc = vma_aggregate_save(agg, f);
	if (fclose(f) != 0 && rc == VMA_OK)
		rc = VMA_ERR_OUTPUT;
	if (rc == VMA_ERR_NOMEM) {
		fprintf(err, "vmalyze: %s: out of memory\n", path);
	} else if (rc) {
		fprintf(err, "vmalyze: %s: cannot write the save file\n", path);
	}
	return rc;
}

int vma_results_finish(const struct vma_options *opts, struct vma_aggregate *agg,
		       unsigned int rendered, bool several, FILE *out, FILE *err)
{
	const struct vma_aggregate_view *v;
	int rc = VMA_OK;

	/* One trace keeps its single document: the aggregate only goes to the save. */
	if (several) {
		v = vma_aggregate_view(agg);
		if (!v) {
			fprintf(err, "vmalyze: out of memory\n");
			return VMA_ERR_NOMEM;
		}
		if (!vma_results_names_traces(opts) && rendered)
			fputc('\n', out);
		rc = render(opts->format, v, rendered == 0, out);
	}
	if (rc == VMA_OK && opts->save)
		rc = save(agg, opts->save, err);
	return rc;
}

int vma_merge_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct vma_aggregate_options aopts = { 0 };
	const struct vma_aggregate_view *v;
	struct vma_aggregate *agg;
	struct vma_options opts;
	int i, rc;

	if (vma_options_parse(&opts, argc, argv, err))
		return VMA_ERR_USAGE;
	if (opts.help) {
		vma_options_help(out);
		return VMA_OK;
	}
	if (opts.version) {
		fprintf(err, "vmalyze merge: --version is 'vmalyze --version'\n");
		return VMA_ERR_USAGE;
	}
	/* What a merge cannot honour: the saves fixed the options and the clock. */
	if (opts.dump || opts.summary || opts.histogram || opts.report_pcpu || opts.svm_mode ||
	    opts.event_formats || opts.cpu_hz != VMA_DEFAULT_CPU_HZ || opts.timer_hz ||
	    opts.tolerance != VMA_DEFAULT_TOLERANCE || !strcmp(opts.format, "histogram")) {
		fprintf(err, "vmalyze merge: only --json, --csv, --format text|json|csv, --save, "
			     "-v and -q apply to a merge (the saves fixed the rest)\n");
		return VMA_ERR_USAGE;
	}
	agg = vma_aggregate_create(&aopts);
	if (!agg) {
		fprintf(err, "vmalyze: out of memory\n");
		return VMA_ERR_NOMEM;
	}
	for (i = 0; i < opts.nr_files; i++) {
		rc = vma_aggregate_load(agg, opts.files[i], err);
		if (rc) {
			vma_aggregate_destroy(agg);
			return rc;
		}
	}
	v = vma_aggregate_view(agg);
	rc = v ? render(opts.format, v, true, out) : VMA_ERR_NOMEM;
	if (rc == VMA_OK && opts.save)
		rc = save(agg, opts.save, err);
	vma_aggregate_destroy(agg);
	return rc;
}
