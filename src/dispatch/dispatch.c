/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The triage table: every record goes, by its class, to one state handler,
 * after the checks that class needs.  A failed check leaves the record
 * shown with '!' and otherwise ignored, with a warning once per kind.
 * The checks only read the model; a vcpu's first typed record is typed by
 * its handler.
 *
 * Xen classes are one-hot bits in the 12-bit main field of the event id
 * (vma_xen_class()); a record with no bit or several (TRC_GUEST records,
 * garbage) has no handler and is only counted and shown.  KVM ids and the readers'
 * synthetic records lie above the 28 bits of Xen ids.
 */
#include <stdbool.h>
#include <stddef.h>

#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/state-handlers.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

typedef int (*class_handler)(struct vma_machine *, struct vma_pcpu *,
			     const struct vma_record *, struct vma_outcome *);

struct triage {
	const char *name;
	class_handler handler;
	enum vma_volume_class volume;
	bool needs_current;        /* a vcpu must be known to run on the pcpu */
	bool not_idle;             /* ...and not be an idle vcpu */
	enum vma_vcpu_type type;   /* ...whose data is of this type (NONE: any) */
};

/* By class (vma_xen_class()). */
static const struct triage xen_classes[VMA_XEN_CLASSES] = {
	[VMA_XEN_CLASS_GEN] = { "gen", vma_gen_record, VMA_VOL_GEN, false, false, VMA_VCPU_NONE },
	[VMA_XEN_CLASS_SCHED] = { "sched", vma_sched_record, VMA_VOL_SCHED, false, false,
				  VMA_VCPU_NONE },
	[VMA_XEN_CLASS_DOM0OP] = { "dom0op", NULL, VMA_VOL_DOM0OP, false, false, VMA_VCPU_NONE },
	[VMA_XEN_CLASS_HVM] = { "hvm", vma_hvm_record, VMA_VOL_HVM, true, true, VMA_VCPU_HVM },
	[VMA_XEN_CLASS_MEM] = { "mem", vma_mem_record, VMA_VOL_MEM, false, false, VMA_VCPU_NONE },
	[VMA_XEN_CLASS_PV] = { "pv", vma_pv_record, VMA_VOL_PV, true, true, VMA_VCPU_PV },
	[VMA_XEN_CLASS_SHADOW] = { "shadow", vma_shadow_record, VMA_VOL_SHADOW, true, true,
				   VMA_VCPU_HVM },
	[VMA_XEN_CLASS_HW] = { "hw", NULL, VMA_VOL_HW, false, false, VMA_VCPU_NONE },
};

static inline uint32_t record_bytes(const struct vma_record *rec)
{
	return 4 + ((rec->flags & VMA_REC_HAS_TSC) ? 8 : 0) + 4u * rec->nr_data;
}

/* HVM volume by kind, counted for records the HVM handler takes. */
static inline void account_hvm_volume(struct vma_pcpu *p, const struct vma_record *rec,
				      uint32_t bytes)
{
	switch (VMA_TRC_SUB(rec->event)) {
	case 1:
		p->volume[rec->event == TRC_HVM_VMENTRY ? VMA_VOL_HVM_VMENTRY
							 : VMA_VOL_HVM_VMEXIT] += bytes;
		break;
	case 2:
		p->volume[VMA_VOL_HVM_HANDLER] += bytes;
		break;
	case 4:
		p->volume[VMA_VOL_HVM_EMUL] += bytes;
		break;
	}
}

/* A failed check: warn once per kind; the record is shown, not used. */
static __attribute__((noinline, cold)) int check_failed(struct vma_machine *m,
							 struct vma_pcpu *p,
							 const struct triage *t,
							 const struct vma_record *rec,
							 struct vma_outcome *out)
{
	struct vma_vcpu *v = p->current;

	if (!v) {
		vma_diag_warn_once(m->diag, "dispatch-no-current",
				   "%s record 0x%x on pcpu %u with no vcpu known to run there; "
				   "not processed", t->name, rec->event, p->id);
	} else if (t->not_idle && v->domain->did == VMA_IDLE_DOMAIN) {
		vma_diag_warn_once(m->diag, "dispatch-idle",
				   "%s record 0x%x for the idle domain on pcpu %u; not processed",
				   t->name, rec->event, p->id);
	} else {
		vma_diag_warn_once(m->diag, "dispatch-type",
				   "%s record 0x%x for d%uv%u, whose records so far were of "
				   "another type; not processed",
				   t->name, rec->event, v->domain->did, v->vid);
	}
	out->unprocessed = true;
	return VMA_OK;
}

/* The record passed its class's checks: to the class's handler. */
static inline int handle(struct vma_machine *m, struct vma_pcpu *p, const struct triage *t,
			 const struct vma_record *rec, struct vma_outcome *out, uint32_t bytes)
{
	if (t->volume == VMA_VOL_HVM)
		account_hvm_volume(p, rec, bytes);
	return t->handler(m, p, rec, out);
}

/*
 * A class that needs a vcpu, and the running one is missing, idle or of
 * another type (or untyped): the checks in their order.
 */
static __attribute__((noinline)) int check_vcpu(struct vma_machine *m, struct vma_pcpu *p,
						const struct triage *t,
						const struct vma_record *rec,
						struct vma_outcome *out, uint32_t bytes)
{
	struct vma_vcpu *v = p->current;

	if (!v)
		return check_failed(m, p, t, rec, out);
	/* HVM emulation records are taken whatever runs. */
	if (t->volume == VMA_VOL_HVM && VMA_TRC_SUB(rec->event) == VMA_TRC_SUB(TRC_HVM_EMUL))
		return handle(m, p, t, rec, out, bytes);
	if (t->not_idle && v->idle)
		return check_failed(m, p, t, rec, out);
	/*
	 * An untyped vcpu passes (the handler gives it the class's type), as
	 * does any class type.
	 */
	if (t->type != VMA_VCPU_NONE && v->type != VMA_VCPU_NONE && v->type != t->type)
		return check_failed(m, p, t, rec, out);
	return handle(m, p, t, rec, out, bytes);
}

/*
 * The class's checks, then its handler.  Every call here is a tail call,
 * so that the path of most records needs no stack frame.  Classes that
 * need a vcpu all want it typed and not idle: one test passes a vcpu
 * that is both, every other case is check_vcpu()'s.
 */
static inline int check_and_handle(struct vma_machine *m, struct vma_pcpu *p,
				   const struct triage *t, const struct vma_record *rec,
				   struct vma_outcome *out, uint32_t bytes)
{
	struct vma_vcpu *v = p->current;

	if (!t->needs_current)
		return t->handler(m, p, rec, out);
	if (__builtin_expect(!v || v->idle || v->type != t->type, 0))
		return check_vcpu(m, p, t, rec, out, bytes);
	return handle(m, p, t, rec, out, bytes);
}

/* Records that are not of one Xen class: KVM, synthetic, unknown. */
static __attribute__((noinline)) int dispatch_other(struct vma_machine *m, struct vma_pcpu *p,
						    const struct vma_record *rec,
						    struct vma_outcome *out)
{
	if (vma_id_is_kvm(rec->event))
		return vma_kvm_record(m, p, rec, out);
	if (rec->event == VMA_SYNTH_LOST_END) {
		p->volume[VMA_VOL_GEN] += record_bytes(rec);
		return vma_gen_record(m, p, rec, out);
	}
	p->volume[VMA_VOL_OTHER] += record_bytes(rec);
	return VMA_OK;
}

/* A record of a pcpu not seen before: add the pcpu, then dispatch. */
static __attribute__((noinline)) int dispatch_new_pcpu(struct vma_machine *m,
						       const struct vma_record *rec,
						       struct vma_outcome *out)
{
	int rc = vma_machine_add_pcpu(m, rec->pcpu);

	return rc ? rc : vma_dispatch(m, rec, out);
}

/*
 * The time stamps a record moves on: the machine's and its pcpu's.
 * @timed: the machine has its first stamp already (records taken ahead).
 */
static inline __attribute__((always_inline)) void account_time(struct vma_machine *m,
							       struct vma_pcpu *p,
							       const struct vma_record *rec,
							       const bool timed)
{
	uint64_t tsc = rec->tsc;

	if (!timed && __builtin_expect(!m->have_time, 0) && tsc) {
		m->first_tsc = tsc;
		m->have_time = true;
	}
	if (tsc > m->last_tsc)
		m->last_tsc = tsc;
	if (rec->flags & VMA_REC_HAS_TSC) {
		if (__builtin_expect(!p->first_tsc, 0))
			p->first_tsc = tsc;
		p->last_tsc = tsc;
	}
}

/* What every record counts for, before its class's handler. */
static inline __attribute__((always_inline)) void account(struct vma_machine *m,
							  struct vma_pcpu *p,
							  const struct vma_record *rec,
							  struct vma_outcome *out)
{
	*out = (struct vma_outcome){ .svm = m->svm };
	m->records++;
	account_time(m, p, rec, false);
}

int vma_dispatch(struct vma_machine *m, const struct vma_record *rec, struct vma_outcome *out)
{
	struct vma_pcpu *p = vma_pcpu_of(m, rec->pcpu);
	const struct triage *t;
	uint32_t bytes;
	int cls;

	if (__builtin_expect(!p, 0))
		return dispatch_new_pcpu(m, rec, out);
	account(m, p, rec, out);
	cls = vma_xen_class(rec->event);
	bytes = record_bytes(rec);
	/*
	 * One case per class, so that each row of the table is a constant:
	 * its checks fold away and its handler is a direct call.
	 */
	switch (cls) {
#define CLASS_CASE(c)                                            \
	case (c):                                                \
		t = &xen_classes[c];                             \
		p->volume[t->volume] += bytes;                   \
		if (!t->handler)                                 \
			return VMA_OK;                           \
		return check_and_handle(m, p, t, rec, out, bytes);
		CLASS_CASE(VMA_XEN_CLASS_GEN)
		CLASS_CASE(VMA_XEN_CLASS_SCHED)
		CLASS_CASE(VMA_XEN_CLASS_DOM0OP)
		CLASS_CASE(VMA_XEN_CLASS_HVM)
		CLASS_CASE(VMA_XEN_CLASS_MEM)
		CLASS_CASE(VMA_XEN_CLASS_PV)
		CLASS_CASE(VMA_XEN_CLASS_SHADOW)
		CLASS_CASE(VMA_XEN_CLASS_HW)
#undef CLASS_CASE
		_Static_assert(VMA_XEN_CLASSES == 8, "a class without its case");
	default:
		return dispatch_other(m, p, rec, out);
	}
}

/* The volumes of a record taken ahead (HVM or PV: @cls), which no handler reads, once taken. */
static inline __attribute__((always_inline)) void account_taken_volume(struct vma_pcpu *p,
								       const struct vma_record *rec,
								       const int cls)
{
	uint32_t bytes = record_bytes(rec);

	p->volume[xen_classes[cls].volume] += bytes;
	if (cls == VMA_XEN_CLASS_HVM)
		account_hvm_volume(p, rec, bytes);
}

/*
 * vma_dispatch_ahead() of a record of class @cls (HVM or PV, a constant:
 * one copy each), its vcpu @v running, typed or not, and not idle.
 */
static inline __attribute__((always_inline)) int take_ahead(struct vma_machine *m,
							     struct vma_pcpu *p,
							     struct vma_vcpu *v,
							     const struct vma_record *rec,
							     struct vma_outcome *out, const int cls)
{
	int rc;

	/*
	 * The class's case of vma_dispatch(), its checks passed (the handler
	 * checks the type).  The count first, which arcs' ends read; the time
	 * stamps once taken: the handlers of these records do not read them,
	 * and the budget, which does when it decides, decides nothing while
	 * records are out (else the run is made again).  Of the outcome,
	 * these handlers read only the vendor; its other fields no one reads.
	 */
	out->svm = m->svm;
	m->records++;
	rc = cls == VMA_XEN_CLASS_HVM ? vma_hvm_record_ahead(m, p, rec, out)
				      : vma_pv_record_ahead(m, p, rec, out);
	if (rc == VMA_NOT_LOCAL) {
		/* Not taken: the count is undone, for the merge to take it. */
		m->records--;
		return 0;
	}
	if (rc < 0)
		return rc;
	account_time(m, p, rec, true); /* vma_machine_may_run_ahead(): a stamp seen */
	account_taken_volume(p, rec, cls);
	v->ahead_tsc = rec->tsc;
	v->ahead_pcpu = rec->pcpu;
	return 1;
}

int vma_dispatch_ahead(struct vma_machine *m, const struct vma_record *rec, bool hvm,
		       struct vma_outcome *out)
{
	struct vma_pcpu *p = vma_pcpu_of(m, rec->pcpu);
	struct vma_vcpu *v = p ? p->current : NULL;

	/* vma_machine_may_run_ahead() wants the machine to have a time stamp. */
	if (!v || v->idle)
		return 0;
	/* The class the caller found: not looked up again. */
	return hvm ? take_ahead(m, p, v, rec, out, VMA_XEN_CLASS_HVM)
		   : take_ahead(m, p, v, rec, out, VMA_XEN_CLASS_PV);
}

bool vma_dispatch_ahead_open(struct vma_machine *m, const struct vma_record *rec,
			     struct vma_ahead_batch *b)
{
	struct vma_pcpu *p = vma_pcpu_of(m, rec->pcpu);

	/* A pcpu's first stamp is set by the record that has it: one by one. */
	if (!p || !p->first_tsc)
		return false;
	*b = (struct vma_ahead_batch){ .m = m, .p = p };
	return true;
}

/*
 * take_ahead() of a record of @b's pcpu, whose vcpu runs still (only a
 * scheduling record changes it, and those end a batch): the count and
 * the vendor now, as there; the stamps kept for the batch's close.
 */
static inline __attribute__((always_inline)) int take_more(struct vma_ahead_batch *b,
							    const struct vma_record *rec,
							    const int cls)
{
	int rc;

	b->out.svm = b->m->svm;
	b->m->records++;
	rc = cls == VMA_XEN_CLASS_HVM ? vma_hvm_record_ahead(b->m, b->p, rec, &b->out)
				      : vma_pv_record_ahead(b->m, b->p, rec, &b->out);
	/* @b's members read again: only @b and @rec are kept across the call. */
	if (rc == VMA_NOT_LOCAL) {
		b->m->records--;
		return 0;
	}
	if (rc < 0)
		return rc;
	account_taken_volume(b->p, rec, cls);
	if (rec->tsc > b->latest)
		b->latest = rec->tsc;
	if (rec->flags & VMA_REC_HAS_TSC) {
		b->stamped = true;
		b->stamp = rec->tsc;
	}
	b->last = rec->tsc;
	b->n++;
	return 1;
}

int vma_dispatch_ahead_more(struct vma_ahead_batch *b, const struct vma_record *rec, bool hvm)
{
	return hvm ? take_more(b, rec, VMA_XEN_CLASS_HVM) : take_more(b, rec, VMA_XEN_CLASS_PV);
}

void vma_dispatch_ahead_close(struct vma_ahead_batch *b)
{
	struct vma_machine *m = b->m;
	struct vma_pcpu *p = b->p;
	struct vma_vcpu *v;

	if (!b->n)
		return;
	/* account_time() of each record in turn, and take_ahead()'s vcpu stamp of the last. */
	if (b->latest > m->last_tsc)
		m->last_tsc = b->latest;
	if (b->stamped)
		p->last_tsc = b->stamp;
	v = p->current;
	v->ahead_tsc = b->last;
	v->ahead_pcpu = p->id;
	b->n = 0; /* a second close sets nothing */
}
