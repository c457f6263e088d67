/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state stage's per-class record handlers, called by the dispatch
 * stage's triage table once the class's checks passed.  Each returns
 * VMA_OK or a negative VMA_ERR_* and fills @out for dump mode.
 */
#ifndef VMALYZE_STATE_HANDLERS_H
#define VMALYZE_STATE_HANDLERS_H

#include "vmalyze/dispatch.h"
#include "vmalyze/state.h"
#include "vmalyze/xen-events.h"

/* TRC_GEN: lost records, buffer wrap. */
int vma_gen_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		   struct vma_outcome *out);
/* TRC_SCHED: runstates, switches, scheduler class records. */
int vma_sched_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		     struct vma_outcome *out);
/* TRC_HVM: vmexit, handlers, vmentry (p->current is an HVM vcpu). */
int vma_hvm_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		   struct vma_outcome *out);
/*
 * vma_hvm_record_ahead - vma_hvm_record() of a record taken ahead of the
 * merge (dispatch.h): only if it touches nothing but p->current (an HVM
 * vcpu) and its pcpu: nothing another vcpu's records read or write (IPIs,
 * runstates), nothing of the machine (an exit that tells the vendor is
 * not taken; a vector read before the vendor is known is noted in
 * ahead_vendor_read).  Else nothing is done and it returns VMA_NOT_LOCAL.
 */
#define VMA_NOT_LOCAL 1
int vma_hvm_record_ahead(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
			 struct vma_outcome *out);
/* TRC_PV: hypercalls, traps (p->current is a PV vcpu). */
int vma_pv_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		  struct vma_outcome *out);
/*
 * vma_pv_record_ahead - vma_pv_record() of a record taken ahead of the
 * merge: a PV record only counts, in its vcpu's tables, so it goes unless
 * it would type its vcpu or be refused as short (a message).  Else
 * nothing is done and it returns VMA_NOT_LOCAL.
 */
int vma_pv_record_ahead(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
			struct vma_outcome *out);

/* TRC_SHADOW: shadow page faults, refining the open exit (p->current is an HVM vcpu). */
int vma_shadow_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		      struct vma_outcome *out);

/* TRC_MEM: grant-table operations, populate-on-demand. */
int vma_mem_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		   struct vma_outcome *out);

/* KVM records (ids VMA_KVM_*): exits, entries, refinements, scheduling. */
int vma_kvm_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		   struct vma_outcome *out);
void vma_kvm_threads_destroy(struct vma_kvm_threads *threads);
/*
 * KVM at the end of the trace: how each VM's threads were grouped, their
 * names and the VMM's, and warnings about what the trace could not say.
 */
void vma_kvm_finish(struct vma_machine *m);

/* One exit arc [@start, @end] into @w, whose window is @span ticks (kvm-window.c). */
void vma_latency_window_add(struct vma_latency_window *w, uint64_t start, uint64_t end,
			    uint64_t span);

/*
 * A record too short for its row of the Xen event table: warned about
 * once, marked unprocessed in @out, not used (the dump prints it raw).
 * Return: VMA_OK, so that a handler may end with it (a tail call).
 */
int vma_state_refuse_short(struct vma_machine *m, enum vma_xe_index row,
			   const struct vma_record *rec, struct vma_outcome *out)
	__attribute__((cold));

/*
 * vma_tsc_skew - the change @rec on @p explains an earlier one on pcpu
 * @behind, @lag ticks before it: @behind's clock is behind (skew.c).
 * Return: VMA_OK, VMA_ERR_NOMEM, or VMA_ERR_DAMAGED for a loop with
 * --tsc-loop-fatal.
 */
int vma_tsc_skew(struct vma_machine *m, struct vma_pcpu *p, uint32_t behind, uint64_t lag,
		 const struct vma_record *rec);

/* Closes @v's open arc at a vmentry: its refinement is final. */
void vma_hvm_close_arc_final(struct vma_machine *m, struct vma_vcpu *v, uint64_t tsc);

/* Counts @v's open exit as an exit of no known length (end of a KVM trace). */
void vma_hvm_count_open_exit(struct vma_vcpu *v);

/* Counts an interrupt injected into @v (guest interrupt counts, wake-to-halt). */
void vma_hvm_count_injection(struct vma_vcpu *v, uint32_t vector);

/*
 * Moves @v to @state at @tsc outside Xen's runstate records (KVM threads);
 * becoming runnable closes an open exit arc, as for Xen.
 */
void vma_vcpu_runstate(struct vma_machine *m, struct vma_vcpu *v, enum vma_runstate state,
		       uint64_t tsc);

/* Sets the vcpu's data type on its first typed record; false on a clash. */
bool vma_vcpu_set_type(struct vma_vcpu *v, enum vma_vcpu_type type);

/*
 * Closes @v's open exit arc at @tsc into its summaries (vmentry, or the
 * vcpu becoming runnable).  Returns the arc's cycles.
 */
uint64_t vma_hvm_close_arc(struct vma_machine *m, struct vma_vcpu *v, uint64_t tsc);

/*
 * Wake-to-halt bookkeeping for a runstate change of HVM vcpu @v, called
 * before the change is applied (v->state is still the old state).
 */
void vma_hvm_runstate_change(const struct vma_machine *m, struct vma_vcpu *v,
			     enum vma_runstate old_state, enum vma_runstate new_state,
			     uint64_t tsc);

/* Forgets what is open on @v (lost records). */
void vma_hvm_invalidate(struct vma_vcpu *v);

/* Frees what @pv owns; its tables were charged to @b's rows (pv.c). */
void vma_pv_release(struct vma_pv *pv, struct vma_cycles_budget *b);
/*
 * The counts of an earlier part of the same vcpu's trace (@earlier,
 * unchanged) go before @pv's, as one run would have counted them
 * (vma_machine_prepend()).  Return: VMA_OK, or VMA_ERR_NOMEM (@pv unchanged).
 */
int vma_pv_prepend(struct vma_pv *pv, const struct vma_pv *earlier, struct vma_cycles_budget *b);

#endif /* VMALYZE_STATE_HANDLERS_H */
