/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A Xen dump's vendor look-ahead without the wait: a first pass over the
 * records the look-ahead would hold (dump.h).
 */
#ifndef VMALYZE_CLI_VENDOR_SCAN_H
#define VMALYZE_CLI_VENDOR_SCAN_H

#include <stdbool.h>

#include "vmalyze/pipeline.h"

/*
 * vma_vendor_scan_clear - tell whether none of the records of the trace at
 * @path that the dump's look-ahead reaches could show SVM's exit codes
 * (vma_vendor_svm_evidence()): each pcpu's first records read straight
 * from the file when that settles it, else the records read with @opts
 * (the run's own) through the reader and the merge alone.  The caller
 * makes sure the run reads the same records in the same order (a file,
 * not a pipe; no --time window, no TSC skew correction, one trace) and
 * that each of them makes one dump line.  False on evidence, and
 * whenever the pass could not be made or did not reach as far (its
 * messages are dropped).
 */
bool vma_vendor_scan_clear(const char *path, const struct vma_pipeline_options *opts);

#endif /* VMALYZE_CLI_VENDOR_SCAN_H */
