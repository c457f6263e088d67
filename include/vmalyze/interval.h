/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interval mode (-i SEC): a CSV time series, in long form so it can be
 * written as the trace is read, whatever domains and exit reasons appear:
 *
 *   time,domain,metric,value
 *   0.500000000,14,run_seconds,0.123456789
 *   0.500000000,14,exits,1234
 *   0.500000000,14,exit:HLT,56
 *
 * One group of rows per interval and domain, at the interval's end time;
 * the header comes first.  doc/output.md has the metrics.
 */
#ifndef VMALYZE_INTERVAL_H
#define VMALYZE_INTERVAL_H

#include <stdint.h>
#include <stdio.h>

#include "vmalyze/state.h"

struct vma_interval;

/* Return: owned (vma_interval_destroy()); NULL when out of memory. */
struct vma_interval *vma_interval_create(FILE *out, uint64_t hz, double seconds);
void vma_interval_destroy(struct vma_interval *iv);

/* Before @tsc's record is processed: write the intervals that ended. */
int vma_interval_advance(struct vma_interval *iv, const struct vma_machine *m, uint64_t tsc);

/* At the end of the trace: write the last, partial interval. */
int vma_interval_finish(struct vma_interval *iv, const struct vma_machine *m);

#endif /* VMALYZE_INTERVAL_H */
