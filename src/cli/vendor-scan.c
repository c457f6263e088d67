/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The first pass of a Xen dump (vendor-scan.h).  A VMX trace never shows
 * its vendor, so its dump held its first VMA_DUMP_VENDOR_LOOKAHEAD lines
 * (some 5 MB) before writing any: fresh memory, on a VM half the time of
 * a small dump (bench/README, round eighteen), and a pipe to less or head
 * saw nothing meanwhile.  Reading those records a first time, without the
 * state stage, costs a few milliseconds.
 *
 * First each pcpu's first records, straight from the file (the input
 * stage's vma_xentrace_lookahead_clear(): a superset of the look-ahead's,
 * as the merge never reorders a stream); a VMX trace is done there, in
 * a third to a half of the time the reader and the merge take
 * (bench/README, round twenty).  When that is not sure (a record that may be evidence,
 * damage), the records as the run will have them: the readers and the
 * merge give the same records in the same order without the state (only
 * the skew correction moves a stream, and the caller leaves it out), and
 * a stricter tolerance in the run would only stop it sooner.  Either sees
 * a superset of what the state stage would take as evidence.
 */
#include <signal.h>
#include <stdio.h>

#include "cli/vendor-scan.h"
#include "vmalyze/diag.h"
#include "vmalyze/dump.h"
#include "vmalyze/input.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

struct scan {
	volatile sig_atomic_t stop; /* the pipeline looks every few hundred records */
	uint32_t records;
	bool evidence;
};

static int scan_record(void *arg, const struct vma_machine *m, const struct vma_stream *stream,
		       const struct vma_outcome *out)
{
	struct scan *sc = arg;

	if (vma_vendor_svm_evidence(&stream->rec))
		sc->evidence = true;
	if (sc->evidence || ++sc->records >= VMA_DUMP_VENDOR_LOOKAHEAD)
		sc->stop = 1;
	return VMA_OK;
}

/* Through the reader and the merge, as the run: exact, and a few milliseconds. */
static bool merged_lookahead_clear(const char *path, const struct vma_pipeline_options *opts)
{
	struct scan sc = { 0 };
	struct vma_pipeline_options o = *opts;
	struct vma_pipeline_hooks hooks = { .arg = &sc, .after = scan_record };
	struct vma_pipeline *p = NULL;
	struct vma_diag *diag;
	bool clear = false;
	FILE *null;

	o.no_state = true;
	o.threads = 1;
	o.progress = NULL;
	o.wrap_stream = NULL;
	o.input.stop = &sc.stop;
	null = fopen("/dev/null", "w");
	if (!null)
		return false;
	/* The most tolerant: the run itself says what is wrong with the trace. */
	diag = vma_diag_create_to(null, VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	if (diag && vma_pipeline_open(path, &o, diag, &p) == VMA_OK &&
	    !vma_pipeline_input(p)->streaming && vma_pipeline_run(p, &hooks) == VMA_OK) {
		/* Stopped at the look-ahead's end, or the trace ended before it. */
		clear = !sc.evidence && (sc.records >= VMA_DUMP_VENDOR_LOOKAHEAD || !sc.stop);
	}
	vma_pipeline_close(p);
	vma_diag_destroy(diag);
	fclose(null);
	return clear;
}

bool vma_vendor_scan_clear(const char *path, const struct vma_pipeline_options *opts)
{
	const struct vma_lookahead_query quick = {
		.records = VMA_DUMP_VENDOR_LOOKAHEAD,
		.class_mask = VMA_VENDOR_EVIDENCE_MASK,
		.class_value = VMA_VENDOR_EVIDENCE_CLASS,
		.match = vma_vendor_svm_evidence,
	};

	return vma_xentrace_lookahead_clear(path, &quick) || merged_lookahead_clear(path, opts);
}
