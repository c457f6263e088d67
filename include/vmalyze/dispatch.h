/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dispatch stage: the triage table.  Each record is sent, by its class,
 * to the state stage's handler for that class, after the checks the class
 * needs (a current vcpu on the pcpu, not the idle domain, vcpu data of the
 * right type).  The handlers fill a struct vma_outcome that tells dump
 * mode how the record was taken.
 */
#ifndef VMALYZE_DISPATCH_H
#define VMALYZE_DISPATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "vmalyze/record.h"

struct vma_machine;

/*
 * How a record was taken: what dump mode needs beyond the record.  16
 * bytes, the flags together: dispatch clears one for every record.
 */
struct vma_outcome {
	uint64_t arc_cycles;
	bool unprocessed;   /* the class's checks failed: the record was not used */
	bool orphan;        /* a handler record that needs an open exit had none */
	bool arc_closed;    /* vmentry: an arc was open and is closed now */
	bool svm;           /* exit codes of this record are SVM's */
};

/*
 * vma_dispatch - fold one record into @machine.
 * Return: VMA_OK, or a negative VMA_ERR_* when processing must stop
 * (out of memory, or a problem above the tolerance).
 */
int vma_dispatch(struct vma_machine *machine, const struct vma_record *rec,
		 struct vma_outcome *out);

/*
 * vma_dispatch_ahead - fold @rec into @machine, as vma_dispatch(), ahead
 * of records of other pcpus stamped before it, if the result cannot tell:
 * an HVM or PV record that touches only its vcpu and pcpu
 * (vma_hvm_record_ahead(), vma_pv_record_ahead()).
 * Its vcpu keeps its stamp, so that a change of its runstate from another
 * pcpu stamped no later sets the machine's ahead_conflict.  The caller
 * asks the machine first (vma_machine_may_run_ahead()), and checks the
 * conflict, the budget (vma_machine_budget_room()) and the messages
 * while records it took ahead wait for those stamped before them
 * (pipeline-ahead.c).  @hvm: the caller found @rec's class
 * (vma_xen_class()) HVM, else it is PV; no other class goes ahead.
 * Return: 1 when folded, 0 when @rec may not go ahead (nothing done), or
 * an error as vma_dispatch().
 */
int vma_dispatch_ahead(struct vma_machine *machine, const struct vma_record *rec, bool hvm,
		       struct vma_outcome *out);

#endif /* VMALYZE_DISPATCH_H */
