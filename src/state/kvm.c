/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * KVM records into the same model as Xen's.
 *
 * A VM is a host process and a vcpu one of its threads.  x86 kvm_entry
 * (and kvm_exit on newer kernels) names the vcpu; the thread that wrote it
 * is then known to be that vcpu.  Records of a thread not yet tied to a
 * vcpu are counted and otherwise ignored, as perf kvm does.  arm64 events
 * name no vcpu: each thread that enters a guest is a vcpu of its own,
 * numbered in order of appearance.  Without GUEST information from the
 * trace, vcpus of different VMs that share an id go to different VMs in
 * order of appearance (doc/kvm.md).
 *
 * An exit opens an arc, kvm_pio / kvm_mmio / kvm_msr / kvm_cpuid /
 * kvm_hypercall / kvm_userspace_exit refine it, kvm_entry closes it; a
 * sched_switch that leaves the vcpu thread runnable closes it early, as
 * for Xen.  The arcs go into the same per-reason summaries as Xen exits,
 * plus a latency window (the largest sum of exit latency in any 1 ms).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/kvm-window.h"
#include "vmalyze/diag.h"
#include "vmalyze/grow.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/state-handlers.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

struct thread_slot {
	uint32_t pid;
	struct vma_vcpu *vcpu; /* borrowed: owned by its domain; NULL while unknown */
	bool used;
	uint32_t vm_at;        /* where its VM was in the last pcpu's kvm_vms (pcpu_vm_add) */
	/* An exit seen before the thread named its vcpu, replayed when it does. */
	bool pending_exit;
	struct vma_record pending;
};

/* pid -> vcpu, open addressing; also the arm64 vcpu numbering. */
struct vma_kvm_threads {
	struct thread_slot *slots;
	uint32_t cap, used;
	uint32_t arm_vcpus;
	uint32_t free_vm;      /* every VM below it has a bound vcpu */
	uint64_t unattributed; /* records of threads not known to be vcpus */
	/*
	 * The slot of each pcpu's last thread (by pcpu % 16): a pcpu runs one
	 * for a while.  NULL when none; all NULL again when the table grows.
	 */
	struct thread_slot *recent[16];
};

static uint32_t pid_hash(uint32_t pid)
{
	return pid * 2654435761u;
}

static struct thread_slot *thread_find(struct vma_kvm_threads *t, uint32_t pid, bool add)
{
	uint32_t at, i;

	if (!t->cap || (add && 2 * (t->used + 1) > t->cap)) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		struct thread_slot *slots = calloc(cap, sizeof(*slots));

		if (!slots)
			return NULL;
		for (i = 0; i < t->cap; i++) {
			if (!t->slots[i].used)
				continue;
			at = pid_hash(t->slots[i].pid) & (cap - 1);
			while (slots[at].used)
				at = (at + 1) & (cap - 1);
			slots[at] = t->slots[i];
		}
		free(t->slots);
		t->slots = slots;
		t->cap = cap;
		memset(t->recent, 0, sizeof(t->recent));
	}
	at = pid_hash(pid) & (t->cap - 1);
	while (t->slots[at].used) {
		if (t->slots[at].pid == pid)
			return &t->slots[at];
		at = (at + 1) & (t->cap - 1);
	}
	if (!add)
		return NULL;
	t->slots[at].pid = pid;
	t->slots[at].used = true;
	t->used++;
	return &t->slots[at];
}

/* thread_find(t, pid, false), the slot the pid hashes to tried inline. */
static inline struct thread_slot *thread_lookup(struct vma_kvm_threads *t, uint32_t pid)
{
	struct thread_slot *slot;

	if (!t->cap)
		return NULL;
	slot = &t->slots[pid_hash(pid) & (t->cap - 1)];
	if (!slot->used || slot->pid == pid)
		return slot->used ? slot : NULL;
	return thread_find(t, pid, false);
}

/* thread_find(t, pid, true), first trying the last thread seen on @pcpu. */
static struct thread_slot *thread_on(struct vma_kvm_threads *t, uint32_t pcpu, uint32_t pid)
{
	struct thread_slot **recent = &t->recent[pcpu % 16], *slot = *recent;

	if (slot && slot->pid == pid)
		return slot;
	slot = thread_find(t, pid, true);
	/* found or added after the table grew: recent[] has no stale slot */
	*recent = slot;
	return slot;
}

void vma_kvm_threads_destroy(struct vma_kvm_threads *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t);
}

static struct vma_kvm_threads *threads_of(struct vma_machine *m)
{
	if (!m->kvm_threads)
		m->kvm_threads = calloc(1, sizeof(*m->kvm_threads));
	return m->kvm_threads;
}

/*
 * The VM of a new vcpu thread.  Threads of one process get nearby ids, so
 * the thread joins the VM whose known vcpu threads have the closest id
 * (within PID_NEAR) and whose vcpu @vcpu_id is still free; otherwise it
 * starts a new VM.  A trace's GUEST information, when present, settles it
 * instead (vma_machine_map_thread).
 */
#define PID_NEAR 1024u
#define MAX_VCPU_ID 65536u

static bool vcpu_taken(const struct vma_domain *d, uint32_t vcpu_id)
{
	const struct vma_vcpu *v = vma_vcpu_find(d, vcpu_id);

	return v && v->kvm_bound;
}

static bool domain_bound(const struct vma_domain *d)
{
	uint32_t i;

	for (i = 0; i < d->nr_vcpus; i++) {
		if (d->vcpus[i]->kvm_bound)
			return true;
	}
	return false;
}

/*
 * Bounded work per new thread, however many threads and VMs there are:
 * the pids within PID_NEAR are looked up (nearest first) rather than every
 * thread scanned, and new VMs are searched from the lowest one that may be
 * free (a bound vcpu stays bound).
 */
static struct vma_vcpu *claim_vcpu(struct vma_machine *m, struct vma_kvm_threads *t,
				   uint32_t pid, uint32_t vcpu_id)
{
	uint32_t best_vm = UINT32_MAX, dist, vm, side;
	struct vma_vcpu *v;

	for (dist = 1; dist < PID_NEAR && best_vm == UINT32_MAX; dist++) {
		for (side = 0; side < 2 && best_vm == UINT32_MAX; side++) {
			uint32_t near = side ? pid + dist : pid - dist;
			const struct thread_slot *s;

			if (side ? near < pid : near > pid)
				continue; /* past the ends of the pid range */
			s = thread_find(t, near, false);
			if (s && s->vcpu && !vcpu_taken(s->vcpu->domain, vcpu_id))
				best_vm = s->vcpu->domain->did;
		}
	}
	if (best_vm == UINT32_MAX) {
		/* A new VM: the lowest id with no vcpu bound yet. */
		for (vm = t->free_vm; vm < VMA_IDLE_DOMAIN; vm++) {
			struct vma_domain *d = vma_domain_get(m, vm);

			if (!d)
				return NULL;
			if (!domain_bound(d))
				break;
		}
		t->free_vm = vm;
		best_vm = vm;
	}
	v = vma_vcpu_get(m, best_vm, vcpu_id);
	if (v)
		v->kvm_bound = true;
	return v;
}

int vma_machine_map_thread(struct vma_machine *m, uint32_t pid, uint32_t vm, uint32_t vcpu_id)
{
	struct vma_kvm_threads *t = threads_of(m);
	struct thread_slot *slot;
	struct vma_vcpu *v;
	uint64_t refused;

	if (!t || !(slot = thread_find(t, pid, true)))
		return VMA_ERR_NOMEM;
	refused = m->refused;
	v = vma_vcpu_get(m, vm, vcpu_id);
	if (!v)
		return m->refused != refused ? VMA_OK : VMA_ERR_NOMEM; /* past the limits */
	v->kvm_bound = true;
	v->kvm_guest_mapped = true;
	v->kvm_tid = pid;
	slot->vcpu = v;
	return VMA_OK;
}

int vma_machine_name_vm(struct vma_machine *m, uint32_t vm, const char *name)
{
	uint64_t refused = m->refused;
	struct vma_domain *d = vma_domain_get(m, vm);

	if (!d)
		return m->refused != refused ? VMA_OK : VMA_ERR_NOMEM; /* past the limits */
	snprintf(d->kvm.name, sizeof(d->kvm.name), "%s", name ? name : "");
	return VMA_OK;
}

/* The vcpu a thread is, learning it from @vcpu_id when the record names one. */
static __attribute__((noinline)) struct vma_vcpu *
vcpu_of_thread_slow(struct vma_machine *m, struct thread_slot **slotp, uint32_t pcpu,
		    uint32_t pid, uint32_t vcpu_id, bool arm)
{
	struct vma_kvm_threads *t = threads_of(m);
	struct thread_slot *slot;
	struct vma_vcpu *v;

	*slotp = NULL;
	if (!t)
		return NULL;
	slot = thread_on(t, pcpu, pid);
	if (!slot)
		return NULL;
	*slotp = slot;
	if (slot->vcpu)
		return slot->vcpu;
	/* KVM allows a few thousand vcpus; a larger id is a damaged record. */
	if (vcpu_id >= MAX_VCPU_ID && vcpu_id != VMA_KVM_NO_VCPU) {
		vma_diag_warn_once(m->diag, "kvm-vcpu-id",
				   "KVM record with vcpu id %u, too large to be real; its thread "
				   "stays unattributed", vcpu_id);
		return NULL;
	}
	if (vcpu_id == VMA_KVM_NO_VCPU && !arm)
		return NULL;
	v = claim_vcpu(m, t, pid, arm ? t->arm_vcpus++ : vcpu_id);
	if (!v || !vma_vcpu_set_type(v, arm ? VMA_VCPU_ARM : VMA_VCPU_HVM))
		return NULL;
	v->kvm_tid = pid;
	slot->vcpu = v;
	return v;
}

/*
 * vcpu_of_thread_slow(), the usual cases first: @pcpu's last thread, a
 * known vcpu; or a thread that is no vcpu (yet) and a record that cannot
 * make it one (a host thread's events: QEMU's, the kernel's).
 */
static inline struct vma_vcpu *vcpu_of_thread(struct vma_machine *m, struct thread_slot **slotp,
					      uint32_t pcpu, uint32_t pid, uint32_t vcpu_id,
					      bool arm)
{
	const struct vma_kvm_threads *t = m->kvm_threads;

	if (t) {
		struct thread_slot *slot = t->recent[pcpu % 16];

		if (slot && slot->pid == pid &&
		    (slot->vcpu || (vcpu_id == VMA_KVM_NO_VCPU && !arm))) {
			*slotp = slot;
			return slot->vcpu;
		}
	}
	return vcpu_of_thread_slow(m, slotp, pcpu, pid, vcpu_id, arm);
}

/*
 * The words of a kvm_exit or kvm_entry the state reads: all within the
 * payload the readers always write (kvm-events.h), so once a record has
 * them they are read as they are; one that has fewer is padded first.
 */
#define EXIT_WORDS VMA_KVM_EXIT_ARM_WORDS  /* the fewer of both layouts: up to the arm trap */
#define ENTRY_WORDS (VMA_KVM_ENTRY_VCPU + 1)

/* A copy of @rec in @copy whose words past its payload are 0, as vma_kvm_word() reads them. */
static __attribute__((noinline)) const struct vma_record *padded(const struct vma_record *rec,
								  struct vma_record *copy)
{
	uint32_t n = rec->nr_data < VMA_REC_MAX_WORDS ? rec->nr_data : VMA_REC_MAX_WORDS;

	*copy = *rec;
	memset(copy->data + n, 0, (VMA_REC_MAX_WORDS - n) * sizeof(copy->data[0]));
	return copy;
}

/*
 * arm64 exits: the exception class for traps (the adapter says which ret
 * is a trap on this kernel), else the exception type.  @rec has EXIT_WORDS.
 */
static uint32_t arm_reason(const struct vma_record *rec)
{
	return rec->data[VMA_KVM_EXIT_ARM_TRAP] ? rec->data[VMA_KVM_EXIT_ARM_EC]
		: VMA_ARM_REASON_EXCEPTION + rec->data[VMA_KVM_EXIT_REASON];
}

/* HLT and WFx exits: the guest idles; the figures without them show the rest. */
static bool is_halt(const struct vma_machine *m, const struct vma_vcpu *v, uint32_t reason)
{
	if (v->type == VMA_VCPU_ARM)
		return reason == 0x01; /* ESR_ELx.EC WFx (WFI/WFE) */
	if (m->svm)
		return reason == 0x78 || reason == 0xa6; /* VMEXIT_HLT, VMEXIT_IDLE_HLT */
	return reason == 12; /* EXIT_REASON_HLT */
}

static void refine(struct vma_hvm *h, uint32_t handler, uint64_t key, bool is_write)
{
	/* The device access explains an exit better than the trip to userspace. */
	if (h->inflight.handler && h->inflight.handler != VMA_KVM_USERSPACE_EXIT)
		return;
	if (h->inflight.handler == VMA_KVM_USERSPACE_EXIT && handler == VMA_KVM_USERSPACE_EXIT)
		return;
	h->inflight.handler = handler;
	h->inflight.key = key;
	h->inflight.is_write = is_write;
}

/* pcpu_vm_add() for a VM not at @p->kvm_vms[*at]: found or added, and *at set. */
static __attribute__((noinline)) void pcpu_vm_find(struct vma_pcpu *p, const struct vma_vcpu *v,
						   uint32_t *at, uint64_t guest, uint64_t exits)
{
	uint32_t i = 0;

	while (i < p->nr_kvm_vms && p->kvm_vms[i].did != v->domain->did)
		i++;
	if (i == p->nr_kvm_vms) {
		if (vma_grow(p->kvm_vms, &p->cap_kvm_vms, i + 1, 4))
			return;
		memset(&p->kvm_vms[i], 0, sizeof(p->kvm_vms[i]));
		p->kvm_vms[i].did = v->domain->did;
		p->nr_kvm_vms++;
	}
	*at = i;
	p->kvm_vms[i].guest += guest;
	p->kvm_vms[i].exits += exits;
}

/*
 * --report-pcpu: @guest and @exits ticks of @v's VM on host cpu @p (NULL:
 * none); @at remembers where the VM was found (a thread's VM is most often
 * where it was on the pcpu before).
 */
static inline void pcpu_vm_add(struct vma_pcpu *p, const struct vma_vcpu *v, uint32_t *at,
			       uint64_t guest, uint64_t exits)
{
	if (!p)
		return;
	if (__builtin_expect(*at < p->nr_kvm_vms && p->kvm_vms[*at].did == v->domain->did, 1)) {
		p->kvm_vms[*at].guest += guest;
		p->kvm_vms[*at].exits += exits;
		return;
	}
	pcpu_vm_find(p, v, at, guest, exits);
}

/* A kvm_exit record (with EXIT_WORDS) of pcpu @p (rec->pcpu's) opens @v's arc. */
static inline __attribute__((always_inline)) void kvm_exit(struct vma_machine *m,
							  struct vma_pcpu *p,
							  struct vma_vcpu *v,
							  struct thread_slot *slot,
							  const struct vma_record *rec)
{
	struct vma_hvm *h = &v->hvm;
	uint32_t isa = rec->data[VMA_KVM_EXIT_ISA], reason = rec->data[VMA_KVM_EXIT_REASON];
	bool arm = isa == VMA_KVM_ISA_ARM64;

	/* Guest mode since the last entry, when it was on this cpu. */
	if (!h->vmexit_valid && h->entry_tsc && h->entry_tsc <= rec->tsc &&
	    v->kvm_entry_pcpu == rec->pcpu)
		pcpu_vm_add(p, v, &slot->vm_at, rec->tsc - h->entry_tsc, 0);
	if (h->vmexit_valid) {
		/* A second exit without an entry: the first is counted, not timed. */
		vma_hvm_count_open_exit(v);
		v->domain->changed = m->records;
		vma_hvm_invalidate(v);
	}
	/* The kernel says VMX or SVM in every x86 exit: --svm-mode cannot overrule it. */
	if (!arm && (!m->vendor_known || m->svm != (isa == VMA_KVM_ISA_SVM))) {
		if (m->options.force_svm && isa != VMA_KVM_ISA_SVM) {
			vma_diag_warn_once(m->diag, "kvm-svm-mode",
					   "--svm-mode ignored: this KVM trace's kvm_exit records"
					   " say their exits are VMX");
		}
		m->svm = isa == VMA_KVM_ISA_SVM;
		m->vendor_known = true;
	}
	h->vmexit_valid = true;
	/* VMX keeps flag bits above the basic reason. */
	h->exit_reason = arm ? arm_reason(rec) : isa == VMA_KVM_ISA_VMX ? reason & 0xffff : reason;
	h->rip = vma_rec_u64(rec, VMA_KVM_EXIT_RIP);
	h->exit_tsc = rec->tsc;
	memset(&h->inflight, 0, sizeof(h->inflight));
}

/* The exit kept for a thread that had not named its vcpu yet, now that it has. */
static __attribute__((noinline)) void replay_exit(struct vma_machine *m, struct vma_vcpu *v,
						  struct thread_slot *slot)
{
	slot->pending_exit = false;
	kvm_exit(m, vma_pcpu_of(m, slot->pending.pcpu), v, slot, &slot->pending);
}

/* A kvm_entry record of pcpu @p (rec->pcpu's) closes @v's arc. */
static void kvm_entry(struct vma_machine *m, struct vma_pcpu *p, struct vma_vcpu *v,
		      struct thread_slot *slot, const struct vma_record *rec,
		      struct vma_outcome *out)
{
	struct vma_hvm *h = &v->hvm;
	uint64_t cycles;
	bool halt;

	if (!h->vmexit_valid)
		return;
	cycles = rec->tsc >= h->exit_tsc ? rec->tsc - h->exit_tsc : 0;
	halt = is_halt(m, v, h->exit_reason);
	out->arc_closed = true;
	out->arc_cycles = cycles;
	vma_hvm_close_arc_final(m, v, rec->tsc);
	v->kvm_entry_pcpu = rec->pcpu;
	pcpu_vm_add(p, v, &slot->vm_at, 0, cycles);
	vma_kvm_windows_add(v, halt, rec->tsc - cycles, rec->tsc, m->kvm_window);
}

/* The thread name a sched_switch gives (16 bytes from word @w): the latest wins. */
static inline void take_comm(struct vma_vcpu *v, const struct vma_record *rec, enum vma_kvm_word w)
{
	char comm[VMA_KVM_COMM_LEN];
	uint32_t i;

	/* byte i is in bits 8 * (i % 4) of word w + i / 4: in order on a little-endian host */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
	    (uint32_t)w + VMA_KVM_COMM_LEN / 4 <= rec->nr_data) {
		if (!(rec->data[w] & 0xff))
			return;
		memcpy(v->kvm_comm, &rec->data[w], VMA_KVM_COMM_LEN - 1);
		v->kvm_comm[VMA_KVM_COMM_LEN - 1] = '\0';
		return;
	}
	for (i = 0; i < VMA_KVM_COMM_LEN - 1; i++)
		comm[i] = (char)(vma_kvm_word(rec, w + i / 4) >> (8 * (i % 4)));
	comm[VMA_KVM_COMM_LEN - 1] = '\0';
	if (comm[0])
		memcpy(v->kvm_comm, comm, sizeof(comm));
}

/* A vcpu thread's scheduling: running, preempted (runnable) or blocked. */
static void sched_switch(struct vma_machine *m, const struct vma_record *rec)
{
	struct vma_kvm_threads *t = m->kvm_threads;
	struct thread_slot *prev, *next;

	if (!t || rec->nr_data < VMA_KVM_WORDS_SCHED_SWITCH)
		return;
	/* prev most often ran the pcpu's last KVM records; next runs the pcpu's next ones */
	prev = t->recent[rec->pcpu % 16];
	if (!prev || prev->pid != rec->data[VMA_KVM_SCHED_SWITCH_PREV_PID])
		prev = thread_lookup(t, rec->data[VMA_KVM_SCHED_SWITCH_PREV_PID]);
	next = thread_lookup(t, rec->data[VMA_KVM_SCHED_SWITCH_NEXT_PID]);
	if (next)
		t->recent[rec->pcpu % 16] = next;
	if (prev && prev->vcpu)
		take_comm(prev->vcpu, rec, VMA_KVM_SCHED_SWITCH_PREV_COMM);
	if (next && next->vcpu)
		take_comm(next->vcpu, rec, VMA_KVM_SCHED_SWITCH_NEXT_COMM);
	if (prev && prev->vcpu) {
		/* prev_state 0 (TASK_RUNNING) means preempted. */
		enum vma_runstate st = rec->data[VMA_KVM_SCHED_SWITCH_PREV_STATE] == 0
			? VMA_RS_RUNNABLE : VMA_RS_BLOCKED;

		vma_vcpu_runstate(m, prev->vcpu, st, rec->tsc);
	}
	if (next && next->vcpu)
		vma_vcpu_runstate(m, next->vcpu, VMA_RS_RUNNING, rec->tsc);
}

/* The vocabulary's ids count in the first VMA_KVM_KINDS slots, other events after. */
_Static_assert(VMA_KVM_NR_IDS <= VMA_KVM_KINDS, "VMA_KVM_KINDS is too small for the KVM ids");

/* Count @rec by kind (the summary's "KVM events" table). */
static void count_event(struct vma_machine *m, const struct vma_record *rec)
{
	uint32_t kind = rec->event - VMA_ID_KVM_BASE, index;

	if (rec->event == VMA_KVM_OTHER) {
		index = vma_kvm_word(rec, VMA_KVM_OTHER_INDEX);
		kind = index == UINT32_MAX ? VMA_KVM_OTHER - VMA_ID_KVM_BASE :
			VMA_KVM_KINDS + index;
	}
	if (kind >= m->nr_kvm_counts) {
		size_t cap = m->nr_kvm_counts;

		/* event tables are small: a bigger index is a damaged record */
		if (kind >= (1u << 20) ||
		    vma_grow(m->kvm_counts, &cap, (size_t)kind + 1, VMA_KVM_KINDS * 2)) {
			return;
		}
		memset(m->kvm_counts + m->nr_kvm_counts, 0,
		       (cap - m->nr_kvm_counts) * sizeof(*m->kvm_counts));
		m->nr_kvm_counts = (uint32_t)cap;
	}
	m->kvm_counts[kind]++;
}

/* ---- refining events: what the open exit did ---- */

static void on_pio(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec,
		   struct vma_outcome *out)
{
	bool out_dir = vma_kvm_word(rec, VMA_KVM_PIO_RW) != 0;

	(void)m, (void)out;
	refine(&v->hvm, out_dir ? TRC_HVM_IOPORT_WRITE : TRC_HVM_IOPORT_READ,
	       vma_kvm_word(rec, VMA_KVM_PIO_PORT), out_dir);
}

static void on_mmio(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec,
		    struct vma_outcome *out)
{
	bool write = vma_kvm_word(rec, VMA_KVM_MMIO_TYPE) == 2;

	(void)m, (void)out;
	refine(&v->hvm, write ? TRC_HVM_IOMEM_WRITE : TRC_HVM_IOMEM_READ,
	       vma_kvm_word64(rec, VMA_KVM_MMIO_GPA), write);
}

static void on_msr(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec,
		   struct vma_outcome *out)
{
	bool write = vma_kvm_word(rec, VMA_KVM_MSR_WRITE) != 0;

	(void)m, (void)out;
	refine(&v->hvm, write ? TRC_HVM_MSR_WRITE : TRC_HVM_MSR_READ,
	       vma_kvm_word(rec, VMA_KVM_MSR_ECX), write);
}

static void on_cpuid(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec,
		     struct vma_outcome *out)
{
	(void)m, (void)out;
	refine(&v->hvm, TRC_HVM_CPUID, vma_kvm_word(rec, VMA_KVM_CPUID_FUNCTION), false);
}

static void on_hypercall(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec,
			 struct vma_outcome *out)
{
	(void)m, (void)out;
	refine(&v->hvm, VMA_KVM_HYPERCALL, vma_kvm_word64(rec, VMA_KVM_HYPERCALL_NR), false);
}

static void on_userspace_exit(struct vma_machine *m, struct vma_vcpu *v,
			      const struct vma_record *rec, struct vma_outcome *out)
{
	(void)m, (void)out;
	refine(&v->hvm, VMA_KVM_USERSPACE_EXIT, vma_kvm_word(rec, VMA_KVM_USERSPACE_EXIT_REASON),
	       false);
}

static void on_inj_virq(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec,
			struct vma_outcome *out)
{
	(void)m, (void)out;
	vma_hvm_count_injection(v, vma_kvm_word(rec, VMA_KVM_INJ_VIRQ_VECTOR));
}

typedef void (*vcpu_handler)(struct vma_machine *, struct vma_vcpu *, const struct vma_record *,
			     struct vma_outcome *);

/*
 * The state handler of each id of the vocabulary (kvm-events.h) that acts
 * on the vcpu of its thread; refining ones only while an exit is open.
 * kvm_exit and kvm_entry are vma_kvm_record()'s own cases; ids without a
 * handler are only counted.
 */
static const struct {
	vcpu_handler fn;
	bool needs_exit;
} handlers[VMA_KVM_NR_IDS] = {
	[VMA_KVM_PIO - VMA_ID_KVM_BASE] = { on_pio, true },
	[VMA_KVM_MMIO - VMA_ID_KVM_BASE] = { on_mmio, true },
	[VMA_KVM_MSR - VMA_ID_KVM_BASE] = { on_msr, true },
	[VMA_KVM_CPUID - VMA_ID_KVM_BASE] = { on_cpuid, true },
	[VMA_KVM_HYPERCALL - VMA_ID_KVM_BASE] = { on_hypercall, true },
	[VMA_KVM_USERSPACE_EXIT - VMA_ID_KVM_BASE] = { on_userspace_exit, true },
	[VMA_KVM_INJ_VIRQ - VMA_ID_KVM_BASE] = { on_inj_virq, false },
};

/* Events lost on this cpu: what was open here is unknown now. */
static void lost(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec)
{
	uint64_t n = vma_kvm_word64(rec, VMA_KVM_LOST_COUNT);

	if (p->current && p->current->type != VMA_VCPU_NONE) {
		vma_hvm_invalidate(p->current);
		p->current->hvm.entry_tsc = 0; /* guest time across the gap is unknown */
	}
	m->lost_records += n == UINT64_MAX ? 0 : n;
}

int vma_kvm_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		   struct vma_outcome *out)
{
	struct thread_slot *slot = NULL;
	uint32_t kind = rec->event - VMA_ID_KVM_BASE;
	uint64_t refused = m->refused;
	bool arm_exit = false;
	struct vma_record copy;
	struct vma_vcpu *v;

	count_event(m, rec);
	switch (rec->event) {
	case VMA_KVM_SCHED_SWITCH:
		sched_switch(m, rec);
		return VMA_OK;
	case VMA_KVM_LOST:
		lost(m, p, rec);
		return VMA_OK;
	case VMA_KVM_EXIT:
		if (__builtin_expect(rec->nr_data < EXIT_WORDS, 0))
			rec = padded(rec, &copy);
		arm_exit = rec->data[VMA_KVM_EXIT_ISA] == VMA_KVM_ISA_ARM64;
		v = vcpu_of_thread(m, &slot, rec->pcpu, rec->ctx, rec->data[VMA_KVM_EXIT_VCPU],
				   arm_exit);
		break;
	case VMA_KVM_ENTRY:
		if (__builtin_expect(rec->nr_data < ENTRY_WORDS, 0))
			rec = padded(rec, &copy);
		v = vcpu_of_thread(m, &slot, rec->pcpu, rec->ctx, rec->data[VMA_KVM_ENTRY_VCPU],
				   false);
		break;
	default:
		v = vcpu_of_thread(m, &slot, rec->pcpu, rec->ctx, VMA_KVM_NO_VCPU, false);
		break;
	}
	/* the column changes with the vcpu only: active and lost say so themselves */
	if (p->current != v) {
		p->current = v;
		vma_pcpu_changed(m, p);
	}
	if (!v && m->refused != refused && vma_machine_refused(m, rec->offset))
		return VMA_ERR_DAMAGED;
	if (!v) {
		/* Keep an exit of a thread not yet known: its entry may name it. */
		if (rec->event == VMA_KVM_EXIT && slot) {
			slot->pending_exit = true;
			slot->pending = *rec;
		} else if (rec->event == VMA_KVM_ENTRY && m->kvm_threads) {
			m->kvm_threads->unattributed++;
		}
		return VMA_OK;
	}
	/* A thread the trace's GUEST information named: typed by its first arc. */
	if (v->type == VMA_VCPU_NONE) {
		if (rec->event != VMA_KVM_EXIT && rec->event != VMA_KVM_ENTRY)
			return VMA_OK;
		vma_vcpu_set_type(v, arm_exit ? VMA_VCPU_ARM : VMA_VCPU_HVM);
	}
	if (rec->event == VMA_KVM_ENTRY && slot->pending_exit)
		replay_exit(m, v, slot);
	out->svm = m->svm;
	switch (rec->event) {
	case VMA_KVM_EXIT:
		kvm_exit(m, p, v, slot, rec);
		return VMA_OK;
	case VMA_KVM_ENTRY:
		kvm_entry(m, p, v, slot, rec, out);
		return VMA_OK;
	}
	if (kind < VMA_KVM_NR_IDS && handlers[kind].fn &&
	    (!handlers[kind].needs_exit || v->hvm.vmexit_valid))
		handlers[kind].fn(m, v, rec, out);
	return VMA_OK;
}
