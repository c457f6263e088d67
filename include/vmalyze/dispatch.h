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

struct vma_pcpu;

/*
 * A batch: the records of one pcpu that follow one vma_dispatch_ahead()
 * took, taken ahead one after another with its lookups made once.  Their
 * handlers read none of the time stamps a record moves on (the machine's,
 * its pcpu's) nor its vcpu's stamp, so those are set once, when the batch
 * closes; it must close before any other record is dispatched.  The
 * caller may read @n and @latest before the close; the rest is dispatch's.
 */
struct vma_ahead_batch {
	struct vma_machine *m;
	struct vma_pcpu *p;
	uint32_t n;            /* records taken since it opened */
	bool stamped;          /* one of them had a time stamp: @stamp, the last */
	uint64_t stamp;
	uint64_t latest;       /* the latest stamp taken (records without one carry the last) */
	uint64_t last;         /* the last record's */
	struct vma_outcome out;
};

/*
 * vma_dispatch_ahead_open - open @batch on @rec's pcpu, after
 * vma_dispatch_ahead() took @rec.  Return: false when it cannot (the
 * pcpu's first stamp not seen yet): vma_dispatch_ahead() takes each.
 */
bool vma_dispatch_ahead_open(struct vma_machine *machine, const struct vma_record *rec,
			     struct vma_ahead_batch *batch);

/*
 * vma_dispatch_ahead_more - vma_dispatch_ahead() of @rec, the next record
 * of @batch's pcpu, of class HVM (@hvm) or PV.
 * Return: 1 when folded, 0 when it may not go ahead (nothing done; close
 * the batch before it is dispatched), or an error.
 */
int vma_dispatch_ahead_more(struct vma_ahead_batch *batch, const struct vma_record *rec,
			    bool hvm);

/*
 * vma_dispatch_ahead_close - the stamps of @batch's records, as
 * vma_dispatch_ahead() would have set them record by record.
 */
void vma_dispatch_ahead_close(struct vma_ahead_batch *batch);

#endif /* VMALYZE_DISPATCH_H */
