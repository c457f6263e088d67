/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * HVM exit arcs.
 *
 * A vmexit opens an arc on the vcpu running on the pcpu (the record names
 * no vcpu); handler records that follow refine it (the port of an I/O
 * exit, the hypercall of a VMCALL...); the vmentry closes it, and its
 * cycles go to the exit reason's summary and to the handler's.  The arc is
 * also closed when the vcpu becomes runnable (see sched.c), and dropped
 * when records are lost.
 *
 * Handler records that do not belong to an exit (injections, interrupt
 * windows) are taken at any time; those that do are ignored, and shown
 * with '!' in dump mode, when no arc is open.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/grow.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/state-handlers.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-events.h"

#define HANDLER_ID(ev) ((ev) & ~(uint32_t)TRC_64_FLAG)

bool vma_vcpu_set_type(struct vma_vcpu *v, enum vma_vcpu_type type)
{
	if (v->type == type)
		return true;
	if (v->type != VMA_VCPU_NONE)
		return false;
	v->type = type;
	/* arm vcpus (KVM arm64) keep their exit arcs in the same structure. */
	if (type == VMA_VCPU_HVM || type == VMA_VCPU_ARM) {
		memset(&v->hvm, 0, sizeof(v->hvm));
		v->hvm.no_stats = v->no_stats;
		v->hvm.stats_paused = v->stats_paused;
		v->hvm.budget = v->budget;
	} else if (type == VMA_VCPU_PV) {
		memset(&v->pv, 0, sizeof(v->pv));
	}
	return true;
}

static struct vma_hvm_stats *stats_of(struct vma_hvm *h)
{
	/* -a alone prints no summary: its arcs need no statistics. */
	if (!h->stats && !h->no_stats && !h->stats_paused)
		h->stats = vma_hvm_stats_create(h->budget);
	return h->stats;
}

/* commit_pending() of a refinement that is pending. */
static __attribute__((noinline)) void commit_pending_now(struct vma_hvm *h)
{
	if (stats_of(h)) {
		vma_hvm_stats_add_sub(h->stats, h->pending.reason, &h->pending.inflight,
				      h->pending.cycles);
	}
	h->pending.active = false;
}

/* Commit the refinement of an arc that was closed early (seldom: inline, the work not). */
static inline void commit_pending(struct vma_hvm *h)
{
	if (__builtin_expect(h->pending.active, 0))
		commit_pending_now(h);
}

void vma_hvm_invalidate(struct vma_vcpu *v)
{
	commit_pending(&v->hvm);
	v->hvm.vmexit_valid = false;
	v->hvm.exit_tsc = 0;
	if (v->hvm.w2h) {
		struct vma_hvm_w2h *w = v->hvm.w2h;

		w->waking = false;
		w->vector = 0;
		w->interrupts = 0;
		w->wanting_tsc = 0;
		memset(w->started, 0, sizeof(w->started));
		memset(w->unstamped, 0, sizeof(w->unstamped));
		w->nr_starts = 0;
	}
}

void vma_hvm_runstate_change(const struct vma_machine *m, struct vma_vcpu *v,
			     enum vma_runstate old_state, enum vma_runstate new_state,
			     uint64_t tsc)
{
	struct vma_hvm_w2h *w = v->hvm.w2h;
	uint32_t i, word, j = 0;

	if (v->state == VMA_RS_LOST)
		return;
	if (new_state == VMA_RS_RUNNABLE && old_state == VMA_RS_BLOCKED) {
		if (!w)
			w = v->hvm.w2h = calloc(1, sizeof(*w));
		if (w)
			w->waking = true;
		return;
	}
	if (!w || (new_state == VMA_RS_RUNNING && old_state == VMA_RS_RUNNABLE))
		return;
	if (w->waking && old_state == VMA_RS_RUNNING && new_state != VMA_RS_OFFLINE)
		w->waking = false;
	if (new_state != VMA_RS_BLOCKED || old_state != VMA_RS_RUNNING || !w->interrupts)
		return;
	/* Halting: every interrupt since the wake gets its time to halt. */
	for (word = 0; word < VMA_GUEST_VECTORS / 64; word++) {
		for (; w->started[word]; w->started[word] &= w->started[word] - 1) {
			uint64_t start, t, bit = w->started[word] & -w->started[word];
			bool is_wake = (w->is_wake[word] & bit) != 0;

			i = 64 * word + (uint32_t)__builtin_ctzll(w->started[word]);
			start = w->starts[j++].tsc; /* the started vectors, in this order */
			t = start == 1 || tsc < start ? 0 : tsc - start;
			if (t && __builtin_expect(m->observer != NULL, 0) && m->observer->halt)
				m->observer->halt(m->observer->arg, v, i, is_wake, t, tsc);
			if (t && stats_of(&v->hvm)) {
				if (is_wake) {
					if (w->interrupts == 1) {
						vma_hvm_stats_add_w2h(v->hvm.stats, i,
								      VMA_W2H_WAKE_ALONE, t);
					}
					vma_hvm_stats_add_w2h(v->hvm.stats, i, VMA_W2H_WAKE_ANY, t);
				} else {
					vma_hvm_stats_add_w2h(v->hvm.stats, i, VMA_W2H_INTR, t);
				}
			}
			w->is_wake[word] &= ~bit;
		}
		w->unstamped[word] = 0;
	}
	w->nr_starts = 0;
	w->interrupts = 0;
	w->vector = 0;
}

/*
 * Vector @vec (not started) gets start time @tsc; false when out of memory,
 * or when the start times have no room left within the rows' budget of
 * @b (cycles.h): up to 256 a vcpu, so 8,192 vcpus could hold 32 MiB.
 */
static bool w2h_start(struct vma_hvm_w2h *w, uint32_t vec, uint64_t tsc,
		      struct vma_cycles_budget *b)
{
	uint32_t at = w->nr_starts;
	bool refused;

	if (!vma_rows_grow(b, &w->starts, &w->cap_starts, w->nr_starts, sizeof(*w->starts), 4,
			   &refused))
		return false;
	/* Few vectors wait at once: the place is found from the end. */
	while (at && w->starts[at - 1].vector > vec)
		at--;
	if (at < w->nr_starts) {
		memmove(&w->starts[at + 1], &w->starts[at],
			(w->nr_starts - at) * sizeof(*w->starts));
	}
	w->starts[at].vector = vec;
	w->starts[at].tsc = tsc;
	w->nr_starts++;
	w->started[vec / 64] |= (uint64_t)1 << (vec % 64);
	return true;
}

/* An interrupt injected: the wake vector if it is the first since a wake. */
static void w2h_inject(struct vma_hvm *h, uint32_t vec)
{
	struct vma_hvm_w2h *w = h->w2h;

	if (vec >= VMA_GUEST_VECTORS)
		return;
	if (!w)
		w = h->w2h = calloc(1, sizeof(*w));
	if (!w)
		return;
	if (w->waking && w->vector == 0) {
		w->vector = vec;
		w->is_wake[vec / 64] |= (uint64_t)1 << (vec % 64);
	}
	/* The start time is 1 until the next vmentry sets it. */
	if (!(w->started[vec / 64] & (uint64_t)1 << (vec % 64)) && w2h_start(w, vec, 1, h->budget)) {
		w->unstamped[vec / 64] |= (uint64_t)1 << (vec % 64);
		w->wanting_tsc++;
		w->interrupts++;
	}
}

void vma_hvm_count_open_exit(struct vma_vcpu *v)
{
	if (stats_of(&v->hvm))
		vma_hvm_stats_add_exit(v->hvm.stats, v->hvm.exit_reason, 0);
}

void vma_hvm_count_injection(struct vma_vcpu *v, uint32_t vec)
{
	if (v->hvm.no_stats)
		return;
	if (stats_of(&v->hvm))
		vma_hvm_stats_count_irq(v->hvm.stats, vec);
	w2h_inject(&v->hvm, vec);
}

/* w2h_vmentry() with vectors waiting: they get their start time. */
static __attribute__((noinline)) void w2h_stamp(struct vma_hvm_w2h *w, uint64_t tsc)
{
	uint32_t i, word, j = 0;
	uint64_t bits, bit;

	/* The vectors whose start_tsc is 1, in order, as long as some are wanted. */
	for (word = 0; word < VMA_GUEST_VECTORS / 64 && w->wanting_tsc; word++) {
		for (bits = w->unstamped[word]; bits && w->wanting_tsc; bits &= bits - 1) {
			bit = bits & -bits;
			i = 64 * word + (uint32_t)__builtin_ctzll(bits);
			/* w->starts is in vector order too: @j only moves forward. */
			while (w->starts[j].vector != i)
				j++;
			w->wanting_tsc--;
			if (tsc != 1)
				w->unstamped[word] &= ~bit;
			if (tsc != 0) {
				w->starts[j++].tsc = tsc;
				continue;
			}
			w->started[word] &= ~bit;
			w->nr_starts--;
			memmove(&w->starts[j], &w->starts[j + 1],
				(w->nr_starts - j) * sizeof(*w->starts));
		}
	}
}

/* A vmentry delivers the interrupts injected before it. */
static inline void w2h_vmentry(struct vma_hvm *h, uint64_t tsc)
{
	struct vma_hvm_w2h *w = h->w2h;

	if (!w)
		return;
	w->waking = false;
	if (w->wanting_tsc)
		w2h_stamp(w, tsc);
}

/*
 * Close the open arc.  At a vmentry the refinement is final; when the vcpu
 * merely became runnable, a late handler record may still refine it.
 */
static inline uint64_t close_arc(struct vma_machine *m, struct vma_vcpu *v,
				 uint64_t tsc, bool final)
{
	struct vma_hvm *h = &v->hvm;
	uint64_t cycles = 0;

	if (h->exit_tsc && h->exit_tsc <= tsc && !h->no_stats) {
		cycles = tsc - h->exit_tsc;
		if (__builtin_expect(h->inflight.shadow != 0, 0))
			vma_shadow_arc_close(m, v, cycles);
		if (__builtin_expect(m->observer != NULL, 0) && m->observer->arc_close)
			m->observer->arc_close(m->observer->arg, v, tsc, cycles);
		v->domain->changed = m->records;
		if (final) {
			if (stats_of(h))
				vma_hvm_stats_add_arc(h->stats, h->exit_reason, &h->inflight,
						      cycles);
		} else {
			/* Paused statistics (a run's seam) keep the pending arc all the same. */
			if (stats_of(h))
				vma_hvm_stats_add_exit(h->stats, h->exit_reason, cycles);
			h->pending.active = true;
			h->pending.reason = h->exit_reason;
			h->pending.cycles = cycles;
			h->pending.inflight = h->inflight;
		}
	}
	if (__builtin_expect(m->options.eips.cr3, 0))
		vma_cr3_arc_close(m, v, tsc);
	if (h->inflight.handler == TRC_HVM_CR_WRITE && h->inflight.key == 3)
		h->cr3 = h->inflight.value;
	h->exit_tsc = 0;
	h->vmexit_valid = false;
	return cycles;
}

/*
 * close_arc(final) at a vmentry, ending with the statistics' call so that
 * it is a tail call: the stores close_arc() makes after that call come
 * first, as they touch nothing it reads (the arc's reason, refinement and
 * length).  With CR3 enumeration, whose sums share the rows' budget, the
 * order of close_arc() stays.  @fast: the caller knows there are
 * statistics, no shadow refinement, no observer and no CR3 enumeration.
 */
static inline __attribute__((always_inline)) int close_arc_at_entry(struct vma_machine *m,
								     struct vma_vcpu *v,
								     uint64_t tsc, const bool fast)
{
	struct vma_hvm *h = &v->hvm;
	uint64_t cycles = 0;
	bool add;

	if (!fast && __builtin_expect(m->options.eips.cr3, 0)) {
		close_arc(m, v, tsc, true);
		h->entry_tsc = tsc;
		return VMA_OK;
	}
	add = h->exit_tsc && h->exit_tsc <= tsc && (fast || !h->no_stats);
	if (add) {
		cycles = tsc - h->exit_tsc;
		if (!fast && __builtin_expect(h->inflight.shadow != 0, 0))
			vma_shadow_arc_close(m, v, cycles);
		if (!fast && __builtin_expect(m->observer != NULL, 0) && m->observer->arc_close)
			m->observer->arc_close(m->observer->arg, v, tsc, cycles);
		v->domain->changed = m->records;
	}
	if (h->inflight.handler == TRC_HVM_CR_WRITE && h->inflight.key == 3)
		h->cr3 = h->inflight.value;
	h->exit_tsc = 0;
	h->vmexit_valid = false;
	h->entry_tsc = tsc;
	if (add && (fast || stats_of(h)))
		return vma_hvm_stats_add_arc(h->stats, h->exit_reason, &h->inflight, cycles);
	return VMA_OK;
}

uint64_t vma_hvm_close_arc(struct vma_machine *m, struct vma_vcpu *v, uint64_t tsc)
{
	return close_arc(m, v, tsc, false);
}

void vma_hvm_close_arc_final(struct vma_machine *m, struct vma_vcpu *v, uint64_t tsc)
{
	commit_pending(&v->hvm);
	close_arc(m, v, tsc, true);
	v->hvm.entry_tsc = tsc;
}

/* The lowest SVM exit code above every VMX basic exit reason (INTR). */
#define SVM_ONLY_CODES 0x60u

_Static_assert((TRC_HVM_SVM_EXIT & VMA_VENDOR_EVIDENCE_MASK) == VMA_VENDOR_EVIDENCE_CLASS &&
		       (TRC_HVM_VMX_EXIT & VMA_VENDOR_EVIDENCE_MASK) == VMA_VENDOR_EVIDENCE_CLASS &&
		       !((TRC_64_FLAG | TRC_HVM_NESTEDFLAG) & VMA_VENDOR_EVIDENCE_MASK),
	       "vma_vendor_svm_evidence() says yes only to its class");

bool vma_vendor_svm_evidence(const struct vma_record *rec)
{
	uint32_t base = rec->event & ~(uint32_t)(TRC_64_FLAG | TRC_HVM_NESTEDFLAG);

	return base == TRC_HVM_SVM_EXIT || (base == TRC_HVM_VMX_EXIT && rec->nr_data &&
					    vma_xf_exit_reason(rec) >= SVM_ONLY_CODES);
}

/* Once a run: out of line, so that every exit's vma_vendor_note() stays inline. */
static __attribute__((noinline, cold)) void vendor_is_svm(struct vma_machine *m)
{
	m->svm = true;
	m->vendor_known = true;
	/* Keys read the other way ahead of it: the run is made again. */
	if (m->ahead_vendor_read)
		m->ahead_conflict = true;
}

void vma_vendor_note(struct vma_machine *m, const struct vma_record *rec)
{
	if (m->vendor_known)
		return;
	if (vma_vendor_svm_evidence(rec))
		vendor_is_svm(m);
}

/* Xen >= 4.19 names the vendor in the id; older Xen uses one id for both. */
static bool exit_is_svm(const struct vma_machine *m, uint32_t event)
{
	uint32_t base = event & ~(uint32_t)(TRC_64_FLAG | TRC_HVM_NESTEDFLAG);

	if (base == TRC_HVM_SVM_EXIT)
		return true;
	return m->svm;
}

/*
 * The state column of the HVM event table (xen-events.h).  Each returns
 * VMA_OK, so that a record's usual path ends in tail calls and needs no
 * stack frame.
 */
typedef int hvm_event_fn(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec,
			 struct vma_outcome *out);

/* A vmexit opens an arc (hvm_row() told the vendor first). */
static inline __attribute__((always_inline)) int open_arc(struct vma_machine *m,
							   struct vma_vcpu *v,
							   const struct vma_record *rec,
							   const bool fast)
{
	struct vma_hvm *h = &v->hvm;
	uint8_t dflt = m->options.default_paging_levels;

	/*
	 * 64-bit exits mean a 4-level guest; a 32-bit one after that, the
	 * user's default levels if not 4, else 2 (xenalyze's guess).
	 */
	if (!h->paging_levels)
		h->paging_levels = dflt;
	if (vma_xe_wide(rec))
		h->paging_levels = 4;
	else if (h->paging_levels == 4)
		h->paging_levels = dflt && dflt != 4 ? dflt : 2;
	h->mmio_in_arc = false;
	if (!fast)
		commit_pending(h);
	h->vmexit_valid = true;
	h->exit_reason = vma_xf_exit_reason(rec);
	h->rip = vma_xf_exit_rip(rec);
	h->exit_tsc = rec->tsc;
	if (!fast && __builtin_expect(m->options.eips.cr3, 0))
		vma_cr3_vmexit(m, v, rec->tsc);
	h->entry_tsc = 0;
	memset(&h->inflight, 0, sizeof(h->inflight));
	return VMA_OK;
}

/* vmexit() with a refinement pending or CR3s enumerated: calls to make. */
static __attribute__((noinline)) int vmexit_calls(struct vma_machine *m, struct vma_vcpu *v,
						  const struct vma_record *rec)
{
	return open_arc(m, v, rec, false);
}

static inline __attribute__((always_inline)) int vmexit(struct vma_machine *m,
							 struct vma_vcpu *v,
							 const struct vma_record *rec,
							 struct vma_outcome *out)
{
	/* The usual path makes no call, so that vma_hvm_record() needs no frame. */
	if (__builtin_expect(v->hvm.pending.active || m->options.eips.cr3, 0))
		return vmexit_calls(m, v, rec);
	return open_arc(m, v, rec, true);
}

/* A vmentry closes the arc, its refinement final. */
static inline __attribute__((always_inline)) int enter(struct vma_machine *m,
							struct vma_vcpu *v,
							const struct vma_record *rec,
							struct vma_outcome *out, const bool fast)
{
	struct vma_hvm *h = &v->hvm;

	if (!fast) {
		w2h_vmentry(h, rec->tsc);
		if (__builtin_expect(v->ipis.injected != 0, 0))
			vma_vlapic_vmentry(m, v, rec->tsc);
	} else if (h->w2h) {
		h->w2h->waking = false; /* w2h_vmentry() with no vector to stamp */
	}
	if (!h->vmexit_valid) {
		if (!fast)
			commit_pending(h);
		return VMA_OK;
	}
	out->arc_closed = true;
	out->arc_cycles = rec->tsc >= h->exit_tsc ? rec->tsc - h->exit_tsc : 0;
	return close_arc_at_entry(m, v, rec->tsc, fast);
}

/* vmentry() with interrupts to stamp, IPIs, a pending refinement, no statistics yet... */
static __attribute__((noinline)) int vmentry_calls(struct vma_machine *m, struct vma_vcpu *v,
						   const struct vma_record *rec,
						   struct vma_outcome *out)
{
	return enter(m, v, rec, out, false);
}

static inline __attribute__((always_inline)) int vmentry(struct vma_machine *m,
							  struct vma_vcpu *v,
							  const struct vma_record *rec,
							  struct vma_outcome *out)
{
	const struct vma_hvm *h = &v->hvm;

	/*
	 * The usual path makes only the statistics' call, last: no frame.
	 * Anything that calls out before it goes the whole way out of line.
	 * These are the tests enter() and close_arc_at_entry() leave out
	 * when @fast: a call added there needs its test here.
	 */
	if (__builtin_expect((h->w2h && h->w2h->wanting_tsc) || v->ipis.injected != 0 ||
			     h->pending.active || !h->stats || h->inflight.shadow != 0 ||
			     m->observer != NULL || m->options.eips.cr3, 0))
		return vmentry_calls(m, v, rec, out);
	return enter(m, v, rec, out, true);
}

/*
 * What a handler record tells about the arc: its key (port, address, MSR,
 * CR number, hypercall, vector) and direction.  Only the first refining
 * record of an arc is kept, as xenalyze does.
 */
static bool is_io(uint32_t id)
{
	return id == TRC_HVM_IOPORT_READ || id == TRC_HVM_IOPORT_WRITE ||
	       id == TRC_HVM_IOMEM_READ || id == TRC_HVM_IOMEM_WRITE;
}

static int refine_arc(struct vma_hvm_inflight *in, const struct vma_record *rec, bool svm)
{
	uint32_t id = HANDLER_ID(rec->event);

	/* The device access explains a nested or shadow page-fault exit better. */
	if (in->handler && !(is_io(id) && (in->handler == TRC_HVM_NPF ||
					   in->handler == TRC_SHADOW)))
		return VMA_OK;
	in->handler = id;
	in->key = 0;
	switch (id) {
	case TRC_HVM_IOPORT_READ:
	case TRC_HVM_IOPORT_WRITE:
		in->key = vma_xf_io_port(rec);
		in->is_write = vma_xf_io_write(rec);
		break;
	case TRC_HVM_IOMEM_READ:
	case TRC_HVM_IOMEM_WRITE:
		in->key = vma_xf_mmio_gpa(rec);
		in->is_write = vma_xf_mmio_write(rec);
		break;
	case TRC_HVM_CR_WRITE:
		in->key = vma_xf_cr(rec);
		in->value = vma_xf_cr_value(rec);
		in->is_write = true;
		break;
	case TRC_HVM_CR_READ:
		in->key = vma_xf_cr(rec);
		in->is_write = false;
		break;
	case TRC_HVM_MSR_READ:
	case TRC_HVM_MSR_WRITE:
		in->key = vma_xf_msr(rec);
		in->is_write = id == TRC_HVM_MSR_WRITE;
		break;
	case TRC_HVM_VMMCALL:
		in->key = vma_xf_vmcall_eax(rec);
		in->is_write = false;
		break;
	case TRC_HVM_INTR:
		in->key = vma_xf_intr_vector(rec, svm);
		break;
	default:
		/* NPF: the faulting address is in the dump; one "npf" line sums them. */
		break;
	}
	return VMA_OK;
}

static int refine(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec,
		  struct vma_outcome *out)
{
	return refine_arc(&v->hvm.inflight, rec, out->svm);
}

/* An external interrupt: its vector, and the EIP it interrupted when enumerated (eips.h). */
static __attribute__((noinline)) int intr_exit(struct vma_machine *m, struct vma_vcpu *v,
					       const struct vma_record *rec,
					       struct vma_outcome *out)
{
	refine_arc(&v->hvm.inflight, rec, out->svm);
	/* SVM's record has no vector. */
	if (__builtin_expect(m->options.eips.enumerate || m->options.eips.histogram, 0) &&
	    !out->svm && rec->nr_data)
		vma_interrupt_eip_note(m, v, vma_xf_intr_vector(rec, false));
	return VMA_OK;
}

static int rdtsc(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec,
		 struct vma_outcome *out)
{
	v->hvm.last_rdtsc = vma_xf_rdtsc_value(rec);
	return refine_arc(&v->hvm.inflight, rec, out->svm);
}

/* The local APIC's ICR: as xAPIC MMIO, and as x2APIC MSR (vlapic.h). */
#define APIC_ICR_GPA 0xfee00300ull
#define X2APIC_ICR_MSR 0x830u

static __attribute__((noinline)) int mmio(struct vma_machine *m, struct vma_vcpu *v,
					  const struct vma_record *rec, struct vma_outcome *out)
{
	refine_arc(&v->hvm.inflight, rec, out->svm);
	if (vma_xf_mmio_has_data(rec)) {
		v->hvm.mmio_in_arc = true;
		if (vma_xf_mmio_write(rec) && vma_xf_mmio_gpa(rec) == APIC_ICR_GPA)
			vma_vlapic_icr_write(m, v, vma_xf_mmio_data(rec), rec->tsc);
	}
	return VMA_OK;
}

static __attribute__((noinline)) int msr_write(struct vma_machine *m, struct vma_vcpu *v,
					       const struct vma_record *rec,
					       struct vma_outcome *out)
{
	refine_arc(&v->hvm.inflight, rec, out->svm);
	if (vma_xf_msr(rec) == X2APIC_ICR_MSR)
		vma_vlapic_icr_write(m, v, (uint32_t)vma_xf_msr_value(rec), rec->tsc);
	return VMA_OK;
}

/* An injected interrupt (the record stands alone: no exit needed). */
static __attribute__((noinline)) int inj_virq(struct vma_machine *m, struct vma_vcpu *v,
					      const struct vma_record *rec, struct vma_outcome *out)
{
	uint32_t vec = vma_xf_virq_vector(rec);

	vma_vlapic_inject(v, vec);
	if (v->hvm.no_stats)
		return VMA_OK;
	if (stats_of(&v->hvm))
		vma_hvm_stats_count_irq(v->hvm.stats, vec);
	w2h_inject(&v->hvm, vec);
	return VMA_OK;
}

/* Records the dump shows and the analysis does not use. */
static int nothing(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec,
		   struct vma_outcome *out)
{
	return VMA_OK;
}

/* A handler record of no row: it refines the open exit, with no key. */
static void unknown_handler(struct vma_vcpu *v, const struct vma_record *rec,
			    struct vma_outcome *out)
{
	struct vma_hvm_inflight *in = &v->hvm.inflight;

	if (!v->hvm.vmexit_valid) {
		out->orphan = true;
		return;
	}
	if (in->handler)
		return;
	in->handler = HANDLER_ID(rec->event);
	in->key = 0;
}

/*
 * One record of a row of the HVM list, the row's columns passed as the
 * constants they are by vma_hvm_record()'s switch: each case compiles to
 * its own checks and a direct call of its state handler.
 */
static inline __attribute__((always_inline)) int
hvm_row(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec,
	struct vma_outcome *out, enum vma_xe_index row, unsigned int words, unsigned int flags,
	hvm_event_fn *state)
{
	/* Exits tell the vendor, short ones too; Xen >= 4.19's SVM exits say it. */
	if (state == vmexit) {
		if (!m->vendor_known)
			vma_vendor_note(m, rec);
		out->svm = exit_is_svm(m, rec->event);
	}
	if ((flags & VMA_XE_EXIT) && !v->hvm.vmexit_valid) {
		/* Shown as xenalyze shows it; still explains an early-closed arc. */
		out->orphan = true;
		if (v->hvm.pending.active && is_io(HANDLER_ID(rec->event)) &&
		    !vma_xe_short(rec, words, flags))
			return refine_arc(&v->hvm.pending.inflight, rec, out->svm);
		return VMA_OK;
	}
	if (__builtin_expect(vma_xe_short(rec, words, flags), 0))
		return vma_state_refuse_short(m, row, rec, out);
	return state(m, v, rec, out);
}

/*
 * Records of no row of the HVM list: emulation records (whatever runs),
 * nested ones, unknown handlers; out of vma_hvm_record()'s common path.
 */
static __attribute__((noinline)) int hvm_other(struct vma_machine *m, struct vma_vcpu *v,
					       const struct vma_record *rec,
					       struct vma_outcome *out)
{
	enum vma_xe_index row;

	out->svm = exit_is_svm(m, rec->event);
	if (VMA_TRC_SUB(rec->event) == VMA_TRC_SUB(TRC_HVM_EMUL)) {
		/* Not analysed (whatever runs); judged like the others, so the dump agrees. */
		row = vma_xen_event_index(rec->event);
		if (row != VMA_XE_NONE && vma_xen_event_short(row, rec))
			vma_state_refuse_short(m, row, rec, out);
		return VMA_OK;
	}
	/* Dispatch let an untyped vcpu through: its first HVM record types it. */
	if (v->type != VMA_VCPU_HVM)
		vma_vcpu_set_type(v, VMA_VCPU_HVM);
	if (rec->event & TRC_HVM_NESTEDFLAG) {
		/* Nested exits are shown, not yet folded into arcs. */
		vma_diag_warn_once(m->diag, "hvm-nested",
				   "Nested-virtualization HVM records are shown but not "
				   "analysed yet");
		return VMA_OK;
	}
	if (VMA_TRC_SUB(rec->event) == VMA_TRC_SUB(TRC_HVM_HANDLER))
		unknown_handler(v, rec, out);
	return VMA_OK;
}

/* No nested id is a row: vma_hvm_record() leaves them all to hvm_other(). */
#define NOT_NESTED(sym, id, ...) \
	_Static_assert(!((id) & TRC_HVM_NESTEDFLAG), "the row " #sym " has a nested id");
VMA_XEN_HVM_EVENTS(NOT_NESTED)
#undef NOT_NESTED

/*
 * vma_hvm_record() of a vcpu not typed HVM: dispatch lets an untyped one
 * through (its first HVM record types it), and any vcpu for emulation
 * records, which type no one (hvm_other()).  A vcpu that cannot be typed
 * (of another type, which dispatch refuses) goes to hvm_other() too, so
 * that no record comes back here.
 */
static __attribute__((noinline)) int hvm_record_untyped(struct vma_machine *m,
							 struct vma_pcpu *p,
							 const struct vma_record *rec,
							 struct vma_outcome *out)
{
	if (VMA_TRC_SUB(rec->event) == VMA_TRC_SUB(TRC_HVM_EMUL) ||
	    !vma_vcpu_set_type(p->current, VMA_VCPU_HVM))
		return hvm_other(m, p->current, rec, out);
	return vma_hvm_record(m, p, rec, out);
}

/*
 * Whether record @rec of the row (@words, @flags, @state, @id) would touch
 * only @v and its pcpu, to be taken ahead of the merge: not IPIs (an
 * injection, a write of the ICR, an entry that delivers one), nor
 * emulation or short records, nor the close of a shadow arc, nor an exit
 * that tells the vendor (vendor_read_ahead()).
 */
static inline __attribute__((always_inline)) bool
row_local(const struct vma_machine *m, const struct vma_vcpu *v, const struct vma_record *rec,
	  unsigned int words, unsigned int flags, hvm_event_fn *state, uint32_t id)
{
	if (VMA_TRC_SUB(id) == VMA_TRC_SUB(TRC_HVM_EMUL) || state == inj_virq ||
	    vma_xe_short(rec, words, flags))
		return false;
	if (state == vmentry)
		return !v->ipis.injected && !v->hvm.inflight.shadow;
	if (state == mmio)
		return !vma_xf_mmio_has_data(rec) || !vma_xf_mmio_write(rec) ||
		       vma_xf_mmio_gpa(rec) != APIC_ICR_GPA;
	if (state == msr_write)
		return vma_xf_msr(rec) != X2APIC_ICR_MSR;
	/* An exit that tells the vendor changes how interrupts after it are read. */
	return state != vmexit || m->vendor_known || !vma_vendor_svm_evidence(rec);
}

/*
 * An interrupt's key is the only thing the vendor changes in the records
 * taken ahead (the exits that tell it are not taken): SVM's record has no
 * vector (Xen writes none), VMX's has.  One with a vector read while the
 * vendor is not known has vma_vendor_note() call the run's order into
 * question if the vendor turns out SVM's.
 */
static inline void vendor_read_ahead(struct vma_machine *m, const struct vma_record *rec)
{
	if (!m->vendor_known && rec->nr_data)
		m->ahead_vendor_read = true;
}

/*
 * vma_hvm_record(), and with @ahead vma_hvm_record_ahead(): a record that
 * is not its row's local kind (row_local()) is left, nothing done.
 */
static inline __attribute__((always_inline)) int hvm_record(struct vma_machine *m,
							     struct vma_pcpu *p,
							     const struct vma_record *rec,
							     struct vma_outcome *out,
							     const bool ahead)
{
	struct vma_vcpu *v = p->current;

	if (__builtin_expect(v->type != VMA_VCPU_HVM, 0))
		return ahead ? VMA_NOT_LOCAL : hvm_record_untyped(m, p, rec, out);
	/*
	 * Rows of the HVM list (emulation rows go the way of every emulation
	 * record: hvm_other()); no nested id is a row.  out->svm, as dispatch
	 * set it, is the machine's vendor: only exit rows can tell otherwise
	 * (hvm_row()).
	 */
#define HVM_ROW(sym, id, words, flags, state)                                    \
	do {                                                                      \
		if (ahead && !row_local(m, v, rec, words, flags, state, id))      \
			return VMA_NOT_LOCAL;                                     \
		if (ahead && state == intr_exit)                                  \
			vendor_read_ahead(m, rec);                                \
		if (VMA_TRC_SUB(id) == VMA_TRC_SUB(TRC_HVM_EMUL))                 \
			return hvm_other(m, v, rec, out);                         \
		return hvm_row(m, v, rec, out, VMA_XE_##sym, words, flags, state); \
	} while (0)
	/*
	 * A vmentry, every arc's end, before the switch: its sparse ids make
	 * a tree of tests (the other rows' tests fold away here).
	 */
#define HVM_VMENTRY(sym, id, name, words, flags, state, describe)              \
	if ((id) == TRC_HVM_VMENTRY && rec->event == (id))                         \
		HVM_ROW(sym, id, words, flags, state);
	VMA_XEN_HVM_EVENTS(HVM_VMENTRY)
#undef HVM_VMENTRY
	switch (rec->event) {
#define HVM_CASE(sym, id, name, words, flags, state, describe)                  \
	case (id):                                                                \
		HVM_ROW(sym, id, words, flags, state);
		VMA_XEN_HVM_EVENTS(HVM_CASE)
#undef HVM_CASE
#undef HVM_ROW
	default:
		return ahead ? VMA_NOT_LOCAL : hvm_other(m, v, rec, out);
	}
}

int vma_hvm_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		   struct vma_outcome *out)
{
	return hvm_record(m, p, rec, out, false);
}

int vma_hvm_record_ahead(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
			 struct vma_outcome *out)
{
	return hvm_record(m, p, rec, out, true);
}
