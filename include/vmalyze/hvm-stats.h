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

#include "vmalyze/code-index.h"
#include "vmalyze/cycles.h"
#include "vmalyze/state.h"

struct vma_hvm_inflight;

/*
 * Memory follows what the trace shows (doc/design.md, "Memory"): a vcpu
 * with no closed arc has no vma_hvm_stats at all; one that has costs
 * sizeof(struct vma_hvm_stats), plus per exit reason seen a vma_exit_stats
 * and 8 bytes of index, per refinement seen a vma_exit_sub and 8 bytes of
 * index, per interrupt vector injected a vma_irq_stats and, once it has a
 * wake-to-halt time, a vma_w2h_stats, and 8 bytes of index.  The cycle
 * summaries' own samples are cycles.h's.  Those tables are charged to
 * the rows of the machine's budget (struct vma_rows_budget, cycles.h):
 * when it refuses, a new refinement goes to its handler's "other" entry
 * (key VMA_SUB_OTHER), a new vector to the VMA_IRQ_OTHER entry (its
 * wake-to-halt times too, when the vector's own summaries are refused),
 * a new exit reason to the entry of the codes from VMA_CODE_SHARED up.
 */
struct vma_exit_sub {
	uint64_t key;
	uint32_t handler; /* TRC_HVM_* handler id without the 64-bit flag; 0 = none */
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

/*
 * Exit codes from this one up share one vma_exit_stats (its reason is the
 * first such code seen): real codes are far below (VMX < 100, SVM < 0x500).
 */
#define VMA_EXIT_CODE_SHARED VMA_CODE_SHARED

/*
 * One exit reason.  What an arc reads and writes (the last refinement's
 * key, the subs, the counters) is in the first 64 bytes.
 */
struct vma_exit_stats {
	uint32_t reason; /* first: a code table's code (code-index.h) */
	uint32_t nr_subs;
	/* The sub found last, and its key: most arcs repeat it. */
	uint64_t last_key;
	uint32_t last_handler;
	uint32_t last_sub;
	uint32_t cap_subs;
	bool last_write;
	struct vma_exit_sub *subs; /* owned, by first appearance */
	/*
	 * Every arc of the reason: only its counters are kept, each arc's
	 * sample goes to exactly one of the subs, and the report merges
	 * them for its percentiles (one sample add per arc instead of two,
	 * and no second copy of the samples, report.h).
	 */
	struct vma_cycles_counts cycles;
	uint32_t *index;           /* owned: open-addressing hash of subs; NULL: found by a scan */
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

/* Injections of one vector (VMA_GUEST_VECTORS: any larger one; or VMA_IRQ_OTHER). */
struct vma_irq_stats {
	uint32_t vector; /* first: a code table's code (code-index.h) */
	uint64_t count;
	struct vma_w2h_stats *w2h; /* owned, NULL = no wake-to-halt time */
};

struct vma_hvm_stats {
	/*
	 * Exit reasons by first appearance (nr_reasons of them), a code table:
	 * readers read only, and sort with vma_code_table_sorted().
	 */
	struct vma_exit_stats *reasons; /* owned */
	uint32_t nr_reasons, cap_reasons;
	struct vma_code_index reason_index;
	/* Injected vectors by first injection; readers: read only. */
	struct vma_irq_stats *irqs;    /* owned, nr_irqs of them */
	uint32_t nr_irqs, cap_irqs;
	struct vma_code_index irq_index;
	/* borrowed: what the summaries and (its rows) the tables are charged to */
	struct vma_cycles_budget *budget;
	bool folded_reasons; /* reasons past the rows' budget are in the shared entry */
};

/*
 * @budget: what its summaries are charged to (the machine's), or NULL.
 * Return: owned (vma_hvm_stats_destroy()), NULL when out of memory.
 */
struct vma_hvm_stats *vma_hvm_stats_create(struct vma_cycles_budget *budget);
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

/* Both at once, for an arc whose refinement is final.  Return: VMA_OK (a handler's last call). */
int vma_hvm_stats_add_arc(struct vma_hvm_stats *stats, uint32_t reason,
			  const struct vma_hvm_inflight *inflight, uint64_t cycles);

/* A wake-to-halt time of @cycles for interrupt @vector. */
void vma_hvm_stats_add_w2h(struct vma_hvm_stats *stats, uint32_t vector, enum vma_w2h_case c,
			   uint64_t cycles);

/* An injection of @vector (any above VMA_GUEST_VECTORS counts as VMA_GUEST_VECTORS). */
void vma_hvm_stats_count_irq(struct vma_hvm_stats *stats, uint32_t vector);

/* Injections of @vector (VMA_GUEST_VECTORS: the larger ones); 0 when none. */
uint64_t vma_hvm_stats_irqs(const struct vma_hvm_stats *stats, uint32_t vector);

/* The summary of exit @reason, or NULL when it was never seen. */
const struct vma_exit_stats *vma_hvm_stats_reason(const struct vma_hvm_stats *stats,
						  uint32_t reason);

/*
 * vma_hvm_stats_prepend - the statistics of an earlier part of the same
 * vcpu's trace (@earlier, unchanged; NULL: none) go before *@stats (NULL:
 * none), which becomes a table of both charged to @budget: each row as
 * the whole run would have made it, in the order it would have.  For
 * tables that never reached the rows' budget (vma_machine_prepend()).
 * Return: VMA_OK, or VMA_ERR_NOMEM (*@stats unchanged).
 */
int vma_hvm_stats_prepend(struct vma_hvm_stats **stats, const struct vma_hvm_stats *earlier,
			  struct vma_cycles_budget *budget);

#endif /* VMALYZE_HVM_STATS_H */
