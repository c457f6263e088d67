/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live view (--live): every second of trace time, per domain and vcpu
 * that did something in it: exits per second, the share of the second
 * spent in exits, runstate shares, the worst (longest) exit of the
 * second, and the busiest exit reasons.  On a terminal the screen is
 * redrawn in place (top-like); otherwise one plain line per vcpu and
 * second, for scripts:
 *
 *   live 3.000 d1v0 exits/s=1234 in_exits=12.5% running=60.1% runnable=2.0%
 *     blocked=37.9% worst=123.456us:HLT top=HLT:500/s,IO_INSTRUCTION:300/s
 *
 * (one line; doc/output.md has the fields).  The shares are of the
 * interval's real length (a last, partial second or a gap in the trace
 * included), and runstate time counts in the seconds it was spent in: a
 * stretch spanning seconds is shared out among them (unlike interval mode,
 * which credits it where it ends), so the runstates add up to 100% at most.
 * A vcpu that neither exited nor ran nor waited to run is left out.
 */
#ifndef VMALYZE_LIVE_H
#define VMALYZE_LIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/dispatch.h"
#include "vmalyze/record.h"
#include "vmalyze/state.h"

struct vma_live;

/* @terminal: redraw in place.  Return: owned (vma_live_destroy()), NULL when out of memory. */
struct vma_live *vma_live_create(FILE *out, uint64_t hz, bool terminal);
void vma_live_destroy(struct vma_live *live);

/* Before @tsc's record is processed: write the seconds that ended. */
int vma_live_advance(struct vma_live *live, const struct vma_machine *m, uint64_t tsc);

/* After a record was processed: note an exit it closed. */
void vma_live_note(struct vma_live *live, const struct vma_machine *m,
		   const struct vma_record *rec, const struct vma_outcome *outcome);

/* At the end of the input: write the last, partial second. */
int vma_live_finish(struct vma_live *live, const struct vma_machine *m);

#endif /* VMALYZE_LIVE_H */
