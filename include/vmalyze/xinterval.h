/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xenalyze's interval modes (--interval-domain-*, --interval-cr3-*): a row
 * per interval of -i SEC seconds (1 by default, as xenalyze), "START V V
 * ...", START the interval's start in seconds and each V one column of
 * xenalyze's layout:
 *
 *   domain-total-time=D[,D]  percent of the interval each domain D ran
 *   domain-total-time-all    the same for every domain
 *   domain-short-summary=D   D's running percent, then its HVM exit time by
 *                            xenalyze's ten categories (emulate ... other)
 *   domain-guest-interrupt=D interrupts injected into D's vcpus, by vector
 *   domain-grant-maps=D      grant maps done on D's behalf
 *   cr3-schedule-time=G[,G]  percent of the interval guest CR3 G (a frame
 *                            number, CR3 >> 12) stayed loaded
 *   cr3-schedule-time-all    the same for every guest CR3, by first load
 *   cr3-schedule-ordered     a block per interval: each CR3 with time in
 *                            it, most first, "GMFN: PERCENT" and a '*' for
 *                            one first loaded in the interval
 *   cr3-short-summary=G      G's percent, then the exit time run under it
 *                            by category, in percent of G's time
 *
 * CR3 time is credited when a stay ends (the next switch), as xenalyze
 * does; CR3s of the default domain (ran before a pcpu's first scheduling
 * record) are left out but in the ordered blocks, as in xenalyze.
 *
 * Percentages are of the interval's length (above 100 when several
 * vcpus or pcpus add up).  The header line comes first: where the columns
 * are only known at the end (all domains, the vectors seen), rows are
 * held and written then.  The last, partial interval is written too, its
 * percentages of its own length.  doc/xenalyze-differences.md lists how
 * this differs from xenalyze.
 *
 * Empty intervals get rows, as in xenalyze, but only so many: the rows
 * of empty intervals written in a run may total VMA_XINTERVAL_EMPTY_ROWS
 * plus the number of records read so far.  A gap that would take more is
 * a time jump: it is reported (file, byte offset, size of the jump, rows
 * skipped) at the level of time going backwards, so --tolerance decides
 * whether the input goes on, and its empty rows are not written.  Held
 * rows go to a temporary file, not memory: output, disk and memory stay
 * linear in the input (doc/output.md).
 *
 * The driver calls vma_xinterval_tick() before each record and
 * vma_xinterval_finish() after the machine is finished.  Domain times,
 * interrupts, grant maps and CR3 times are read from the machine's
 * counters; a domain's exit categories come through the state observer.
 */
#ifndef VMALYZE_XINTERVAL_H
#define VMALYZE_XINTERVAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/diag.h"
#include "vmalyze/hvm-short.h"
#include "vmalyze/state.h"

enum vma_xinterval_mode {
	VMA_XINTERVAL_NONE = 0,
	VMA_XINTERVAL_TOTAL_TIME,
	VMA_XINTERVAL_TOTAL_TIME_ALL,
	VMA_XINTERVAL_SHORT_SUMMARY,
	VMA_XINTERVAL_GUEST_INTERRUPT,
	VMA_XINTERVAL_GRANT_MAPS,
	VMA_XINTERVAL_CR3_SCHEDULE_TIME,
	VMA_XINTERVAL_CR3_SCHEDULE_TIME_ALL,
	VMA_XINTERVAL_CR3_SCHEDULE_ORDERED,
	VMA_XINTERVAL_CR3_SHORT_SUMMARY,
};

/* The modes that read the CR3 accounting (the machine must keep it: eips.cr3). */
static inline bool vma_xinterval_needs_cr3(enum vma_xinterval_mode mode)
{
	return mode >= VMA_XINTERVAL_CR3_SCHEDULE_TIME;
}

#define VMA_XINTERVAL_MAX_DOMAINS 32
/* Rows of empty intervals written before the records read must pay for more. */
#define VMA_XINTERVAL_EMPTY_ROWS 10000u

struct vma_xinterval_options {
	enum vma_xinterval_mode mode;
	uint32_t domains[VMA_XINTERVAL_MAX_DOMAINS]; /* the D arguments */
	uint32_t nr_domains;
	uint64_t gmfns[VMA_XINTERVAL_MAX_DOMAINS];   /* the G arguments, distinct */
	uint32_t nr_gmfns;
};

struct vma_xinterval;

/*
 * @seconds: the interval length; @hz the trace clock; @diag and @file
 * (borrowed) where a time jump is reported.  NULL when out of memory or
 * when the temporary file of held rows cannot be made (errno says).
 */
struct vma_xinterval *vma_xinterval_create(FILE *out, uint64_t hz, double seconds,
					   const struct vma_xinterval_options *opts,
					   struct vma_diag *diag, const char *file);
void vma_xinterval_destroy(struct vma_xinterval *x);

/* The observer the exit categories need; NULL when the mode needs none. */
const struct vma_state_observer *vma_xinterval_observer(struct vma_xinterval *x);

/*
 * Before the record at @tsc, read at byte @offset: rows of the intervals
 * that ended.  VMA_OK, VMA_ERR_DAMAGED (a time jump above --tolerance:
 * the input stops) or another VMA_ERR_*.
 */
int vma_xinterval_tick(struct vma_xinterval *x, const struct vma_machine *m, uint64_t tsc,
		       uint64_t offset);

/* At the end: the last interval, and the held rows under their header. */
int vma_xinterval_finish(struct vma_xinterval *x, const struct vma_machine *m);

#endif /* VMALYZE_XINTERVAL_H */
