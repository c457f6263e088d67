/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The picture of a trace (--timeline, --svg): tracks of slices, kept from
 * samples of the state model the run driver takes after each record.
 *
 *   a track per pcpu:   which vcpu ran there ("d0v1"), idle
 *   a track per vcpu:   guest (running guest code), exit REASON (args: its
 *                       refinement), VMM (KVM userspace exit), preempted
 *                       (runnable), halted (HLT/WFx exits, blocked)
 *   a track per guest cpu (linked guest traces): the guest task running
 *   a counter per vcpu: exits per second, in 10 ms bins
 *
 * Written as the Chrome JSON trace-event format ("X" complete slices, "C"
 * counters, "M" track names), which Perfetto's UI and chrome://tracing
 * open, or as a static SVG picture of a time window.  Only slices inside
 * the time range are kept (clipped to it), so a long trace stays viewable.
 * The JSON is written as the samples come (its track names last), the
 * SVG at the end from the slices it can draw: memory stays flat however
 * long the trace.
 */
#ifndef VMALYZE_TIMELINE_H
#define VMALYZE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/state.h"

struct vma_timeline;

struct vma_timeline_options {
	uint64_t hz;                /* ticks per second */
	uint64_t from, to;          /* the range, in ticks after the first sample; to 0: the end */
	FILE *json;                 /* the JSON's file (borrowed), or NULL */
	bool svg;                   /* keep what vma_timeline_write_svg() draws */
	size_t svg_keep;            /* most slices kept for it (a power of two); 0: 2^19 */
};

/* Return: owned (vma_timeline_destroy()), NULL when out of memory. */
struct vma_timeline *vma_timeline_create(const struct vma_timeline_options *opts);
void vma_timeline_destroy(struct vma_timeline *tl);

/*
 * vma_timeline_sample - @v's state (of machine @m) as of time @t; a change
 * ends its slice and starts another.  @in_vmm: the caller knows @v's exit
 * went to the VMM (a KVM userspace exit since the exit), which the state
 * model does not keep when a device access refines the exit.  vma_timeline_pcpu - pcpu @pcpu runs
 * @v (NULL: nothing known) as of @t.  Return: VMA_OK or VMA_ERR_NOMEM.
 */
int vma_timeline_sample(struct vma_timeline *tl, const struct vma_machine *m,
			const struct vma_vcpu *v, bool in_vmm, uint64_t t);
int vma_timeline_pcpu(struct vma_timeline *tl, uint32_t pcpu, const struct vma_vcpu *v,
		      uint64_t t);

/*
 * vma_timeline_guest_task - cpu @cpu of guest input @guest switched to task
 * @pid named @comm at @t (pid 0: idle); @host is the host vcpu running that
 * cpu, or NULL.  Return: VMA_OK or VMA_ERR_NOMEM.
 */
int vma_timeline_guest_task(struct vma_timeline *tl, uint32_t guest, uint32_t cpu,
			    const struct vma_vcpu *host, uint32_t pid, const char *comm,
			    uint64_t t);

/*
 * vma_timeline_end - end every open slice at @end (the last record's
 * time), and the JSON (the caller checks and closes its file).
 * Return: VMA_OK or VMA_ERR_NOMEM.
 */
int vma_timeline_end(struct vma_timeline *tl, uint64_t end);

/* The SVG, after vma_timeline_end().  Return: VMA_OK or VMA_ERR_OUTPUT. */
int vma_timeline_write_svg(const struct vma_timeline *tl, FILE *out);

/* Slices kept for the SVG now (what its memory holds). */
size_t vma_timeline_kept(const struct vma_timeline *tl);

#endif /* VMALYZE_TIMELINE_H */
