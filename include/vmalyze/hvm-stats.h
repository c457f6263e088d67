/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-vcpu HVM exit statistics: one cycle summary per exit reason, and
 * under each reason one per refinement (the handler that explained the
 * exit and its key: port, address, MSR, CR, hypercall, vector).
 */
#ifndef VMALYZE_HVM_STATS_H
#define VMALYZE_HVM_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "vmalyze/cycles.h"
#include "vmalyze/state.h"

struct vma_hvm_inflight;

struct vma_exit_sub {
	uint32_t handler; /* TRC_HVM_* handler id without the 64-bit flag; 0 = none */
	uint64_t key;
	bool is_write;
	struct vma_cycles cycles;
};

/*
 * Distinct refinements kept per exit reason.  A guest touching more
 * distinct ports or MMIO addresses than this under one exit reason has the
 * rest summed under key VMA_SUB_OTHER, so memory does not grow with the
 * trace.
 */
#define VMA_MAX_SUBS 256u
#define VMA_SUB_OTHER UINT64_MAX

struct vma_exit_stats {
	uint32_t reason;
	/*
	 * Every arc of the reason.  While records are read only its counters
	 * are kept: each arc's sample goes to exactly one of the subs, and
	 * vma_hvm_stats_finish() gathers them here (the same summary, one
	 * sample add per arc instead of two).
	 */
	struct vma_cycles cycles;
	struct vma_exit_sub *subs; /* owned */
	uint32_t nr_subs, cap_subs;
	uint32_t *index;           /* owned: open-addressing hash of subs, 2 * cap_subs slots */
	/* The sub found last, and its key: most arcs repeat it. */
	uint32_t last_sub;
	uint32_t last_handler;
	uint64_t last_key;
	bool last_write;
};

/* Wake-to-halt cases, per vector (xenalyze's names in the summary). */
enum vma_w2h_case {
	VMA_W2H_WAKE_ALONE = 0, /* the wake interrupt was the only one before the halt */
	VMA_W2H_WAKE_ANY,       /* the wake interrupt, whatever else came */
	VMA_W2H_INTR,           /* another interrupt */
	VMA_W2H_COUNT
};

struct vma_w2h_stats {
	struct vma_cycles cases[VMA_W2H_COUNT];
};

struct vma_hvm_stats {
	struct vma_w2h_stats *w2h[VMA_GUEST_VECTORS]; /* owned, NULL = never */
	struct vma_exit_stats **by_reason; /* owned, indexed by exit code, NULL = never seen */
	uint32_t nr_slots;
	uint64_t guest_irqs[VMA_GUEST_VECTORS + 1]; /* injections by vector; last: larger */
};

/* Return: owned (vma_hvm_stats_destroy()), NULL when out of memory. */
struct vma_hvm_stats *vma_hvm_stats_create(void);
void vma_hvm_stats_destroy(struct vma_hvm_stats *stats);

/*
 * One closed arc of @cycles for exit @reason.  An arc of non-zero cycles
 * must also be given to vma_hvm_stats_add_sub(), which keeps its sample;
 * an exit of no known length (0 cycles) need not.
 */
void vma_hvm_stats_add_exit(struct vma_hvm_stats *stats, uint32_t reason, uint64_t cycles);

/* The same arc's refinement (may come later than the arc, see state.h). */
void vma_hvm_stats_add_sub(struct vma_hvm_stats *stats, uint32_t reason,
			   const struct vma_hvm_inflight *inflight, uint64_t cycles);

/* Both at once, for an arc whose refinement is final. */
void vma_hvm_stats_add_arc(struct vma_hvm_stats *stats, uint32_t reason,
			   const struct vma_hvm_inflight *inflight, uint64_t cycles);

/*
 * Completes the exit reasons' summaries from their subs, once every arc
 * has been added (vma_machine_finish()); call it once.
 */
void vma_hvm_stats_finish(struct vma_hvm_stats *stats);

/* A wake-to-halt time of @cycles for interrupt @vector. */
void vma_hvm_stats_add_w2h(struct vma_hvm_stats *stats, uint32_t vector, enum vma_w2h_case c,
			   uint64_t cycles);

#endif /* VMALYZE_HVM_STATS_H */
