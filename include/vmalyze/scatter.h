/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scatterplots (xenalyze's --scatterplot-* options): text lines for gnuplot
 * and textscan, printed as the events happen, in xenalyze's line layouts
 * ("DvV SECONDS VALUE", doc/output.md).  Times are seconds since the first
 * record, exact (xenalyze's drift by 0.024% at 2.4 GHz).
 */
#ifndef VMALYZE_SCATTER_H
#define VMALYZE_SCATTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/dispatch.h"
#include "vmalyze/state.h"

struct vma_symbols;

enum vma_scatter_kind {
	VMA_SCATTER_RUNSTATE = 0,
	VMA_SCATTER_RUNSTATE_TIME,
	VMA_SCATTER_PCPU,
	VMA_SCATTER_VMEXIT_EIP,
	VMA_SCATTER_WAKE_TO_HALT,
	VMA_SCATTER_EXTINT_CYCLES,  /* of one vector */
	VMA_SCATTER_IO,             /* port reads of one port */
	VMA_SCATTER_INTERRUPT_EIP,  /* of one vector */
	VMA_SCATTER_CR3_SWITCH,
	VMA_SCATTER_RDTSC,
	VMA_SCATTER_IRQ,
	VMA_SCATTER_UNPIN_PROMOTE,  /* shadow paging */
	VMA_SCATTER_COUNT
};

struct vma_scatter_options {
	uint32_t kinds;              /* bit (1u << enum vma_scatter_kind) per plot */
	uint32_t extint_vector;      /* VMA_SCATTER_EXTINT_CYCLES */
	uint32_t io_port;            /* VMA_SCATTER_IO */
	uint32_t interrupt_vector;   /* VMA_SCATTER_INTERRUPT_EIP */
	const struct vma_symbols *symbols; /* borrowed; NULL: none */
};

struct vma_scatter;

/*
 * vma_scatter_create - plots of @opts for @machine, to @out, times in
 * seconds of @hz ticks.  Set vma_scatter_observer() as the machine's
 * observer and call vma_scatter_record() after each record's dispatch.
 * Return: owned (vma_scatter_destroy()); NULL when out of memory.
 */
struct vma_scatter *vma_scatter_create(FILE *out, uint64_t hz,
				       const struct vma_machine *machine,
				       const struct vma_scatter_options *opts);
void vma_scatter_destroy(struct vma_scatter *s);

const struct vma_state_observer *vma_scatter_observer(struct vma_scatter *s);

/* The plots drawn from a record itself, once @out says how it was taken. */
void vma_scatter_record(struct vma_scatter *s, const struct vma_record *rec,
			const struct vma_outcome *out);

/*
 * vma_scatter_hold - keep the lines until vma_scatter_flush(), for a
 * caller that orders them with its own output (dump mode: a record's dump
 * line first, then its points).  Without it lines go out in batches.
 */
void vma_scatter_hold(struct vma_scatter *s);

/* Whether lines are held; vma_scatter_flush() writes them to the output. */
bool vma_scatter_pending(const struct vma_scatter *s);
void vma_scatter_flush(struct vma_scatter *s);

/* Return: VMA_OK, VMA_ERR_NOMEM or VMA_ERR_OUTPUT (a write failed). */
int vma_scatter_status(const struct vma_scatter *s);

#endif /* VMALYZE_SCATTER_H */
