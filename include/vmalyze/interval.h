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
 * the header comes first.  Intervals with no records write no rows (a gap
 * in the time stamps costs nothing).  doc/output.md has the metrics.
 *
 * The rows are rendered from reports (vma_render_interval(), report.h);
 * this clock tells the run driver when an interval ended.
 */
#ifndef VMALYZE_INTERVAL_H
#define VMALYZE_INTERVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "vmalyze/report.h"

struct vma_interval_clock {
	uint64_t length;   /* ticks per interval, at least 1 */
	uint64_t start;    /* first time stamp of the trace */
	uint64_t index;    /* the interval the last record fell in */
	bool started;
};

void vma_interval_clock_init(struct vma_interval_clock *c, uint64_t hz, double seconds);

/*
 * vma_interval_clock_tick - before the record at @tsc is processed (the
 * trace's first record at @first_tsc): true when the interval that holds
 * the records so far has ended, with *end its end in ticks since the
 * first record.  Intervals with no record in them are skipped, so this is
 * true at most once per record.
 */
bool vma_interval_clock_tick(struct vma_interval_clock *c, uint64_t first_tsc, uint64_t tsc,
			     uint64_t *end);

#endif /* VMALYZE_INTERVAL_H */
