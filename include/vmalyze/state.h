/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * State stage: the model the records are folded into.  A machine has pcpus
 * and domains (VMs); a domain has vcpus; a vcpu has runstate accounting and
 * data of one type: hvm (exit arcs), pv (event counts) or arm.
 *
 * The model follows xenalyze's semantics, so that numbers agree: a vcpu
 * runs on the pcpu the scheduler last put it on, every HVM record on that
 * pcpu is charged to it, and a vmexit..vmentry arc is closed early when the
 * vcpu becomes runnable.  Where xenalyze is wrong vmalyze differs on
 * purpose; doc/xenalyze-differences.md lists each case.
 *
 * Nothing here prints: the output stage reads this model.
 */
#ifndef VMALYZE_STATE_H
#define VMALYZE_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "vmalyze/arm-names.h"
#include "vmalyze/code-index.h"
#include "vmalyze/cr3.h"
#include "vmalyze/cycles.h"
#include "vmalyze/eips.h"
#include "vmalyze/record.h"
#include "vmalyze/shadow.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/vlapic.h"

struct vma_diag;

/* Xen's runstates first, in Xen's numbering, then xenalyze's pseudo-states. */
enum vma_runstate {
	VMA_RS_RUNNING = 0,
	VMA_RS_RUNNABLE = 1,
	VMA_RS_BLOCKED = 2,
	VMA_RS_OFFLINE = 3,
	VMA_RS_LOST = 4,   /* records were lost while in an unknown state */
	VMA_RS_QUEUED = 5, /* switched out by sched_switch, state not yet known */
	VMA_RS_INIT = 6,   /* not yet seen running */
	VMA_RS_COUNT
};

/* Why a vcpu is runnable: how it got there. */
enum vma_runnable_kind {
	VMA_RUNNABLE_WAKE = 0,    /* from blocked or offline */
	VMA_RUNNABLE_PREEMPT = 1, /* from running */
	VMA_RUNNABLE_OTHER = 2,
	VMA_RUNNABLE_COUNT
};

/* Domain runstate: what its vcpus do together (xenalyze's categories). */
enum vma_domain_runstate {
	VMA_DRS_BLOCKED = 0,
	VMA_DRS_PARTIAL_RUN,
	VMA_DRS_FULL_RUN,
	VMA_DRS_PARTIAL_CONTENTION,
	VMA_DRS_CONCURRENCY_HAZARD,
	VMA_DRS_FULL_CONTENTION,
	VMA_DRS_LOST,
	VMA_DRS_COUNT
};

enum vma_vcpu_type {
	VMA_VCPU_NONE = 0,
	VMA_VCPU_HVM,
	VMA_VCPU_PV,
	VMA_VCPU_ARM,
};

/* Domain ids xenalyze gives the idle domain and "not known yet". */
#define VMA_IDLE_DOMAIN 32767u
#define VMA_DEFAULT_DOMAIN 32768u

struct vma_pcpu;
struct vma_domain;
struct vma_hvm_stats;
struct vma_kvm_threads;

/* Handler record refining the open exit arc. */
struct vma_hvm_inflight {
	uint32_t handler;   /* TRC_HVM_* id of the first refining record, 0 if none */
	uint64_t key;       /* port, address, MSR, CR number, hypercall... */
	uint64_t value;     /* the value written (CR writes) */
	bool is_write;
	/* Shadow paging (shadow.c): the exit's fault class, a TRC_SHADOW minor, 0 none... */
	uint8_t shadow;
	bool prealloc_unpin;  /* ...a shadow unpinned to make room during it... */
	uint32_t shadow_flags; /* ...and the path flags of its fault record (VMA_SHF_*) */
};

/*
 * An arc closed early (its vcpu became runnable) whose refinement is not
 * final: the device model's answer to an I/O read arrives after the vcpu
 * is woken, before the vmentry.  It is committed at the next vmentry or
 * vmexit (doc/xenalyze-differences.md).
 */
struct vma_hvm_pending {
	bool active;
	uint32_t reason;
	uint64_t cycles;
	struct vma_hvm_inflight inflight;
};

#define VMA_GUEST_VECTORS 256
/* The injected vectors that got no entry of their own (the rows' budget, hvm-stats.h). */
#define VMA_IRQ_OTHER (VMA_GUEST_VECTORS + 1u)

/*
 * Wake-to-halt: after a blocked vcpu is woken, the first interrupt
 * injected is its wake vector; the time from the vmentry that delivers an
 * interrupt to the vcpu's next halt (running->blocked) is charged to that
 * vector (xenalyze's definition).
 */
struct vma_hvm_w2h {
	bool waking;
	uint32_t vector;        /* wake vector of this wait, 0 = none yet */
	uint32_t interrupts;    /* interrupts injected since the wake */
	uint32_t wanting_tsc;   /* of those, waiting for their vmentry */
	/* Bit i: vector i has a start time, and that time is still 1 (until the vmentry). */
	uint64_t started[VMA_GUEST_VECTORS / 64];
	uint64_t unstamped[VMA_GUEST_VECTORS / 64];
	uint64_t is_wake[VMA_GUEST_VECTORS / 64]; /* bit i: vector i is the wake vector */
	/* owned: the start times of the started vectors, by vector (a few, not 256) */
	struct vma_w2h_start {
		uint64_t tsc;  /* 1 until the vmentry */
		uint32_t vector;
	} *starts;
	uint32_t nr_starts;
	size_t cap_starts;
};

struct vma_hvm {
	bool vmexit_valid;  /* an arc is open */
	uint32_t exit_reason;
	uint64_t rip;
	uint64_t exit_tsc;
	uint64_t entry_tsc;
	struct vma_hvm_inflight inflight;
	struct vma_hvm_pending pending;
	/* Guest state some dump texts show. */
	uint64_t cr3;                /* last CR3 written, 0 if not seen */
	uint64_t last_rdtsc;         /* value of the last RDTSC handler record */
	uint8_t paging_levels;       /* 4 after a 64-bit exit, 2 after a 32-bit one */
	bool mmio_in_arc;            /* an MMIO record with data in the open exit */
	bool no_stats;               /* the vcpu's no_stats: @stats stays NULL */
	/* the vcpu's stats_paused: @stats stays NULL, the arcs' state is kept */
	bool stats_paused;
	struct vma_cycles_budget *budget; /* the vcpu's, for @stats */
	struct vma_hvm_w2h *w2h;     /* owned; NULL until the first injection */
	struct vma_hvm_stats *stats; /* owned; NULL until the first closed arc */
	struct vma_eip_counts eip_histogram; /* --histogram-interrupt-eip: by bucket */
	struct vma_cr3_vcpu cr3_enum; /* --with-cr3-enumeration (cr3.h) */
	struct vma_cycles ipi_latency; /* IPIs delivered to it, from their send (vlapic.h) */
};

/* A count by number (a code table's entry, code-index.h). */
struct vma_pv_count {
	uint32_t number;
	uint64_t count;
};

/*
 * PV event counts (no timing: PV records carry no arcs).  Hypercall and
 * trap numbers go up to 0xffff in a damaged trace: their tables hold the
 * numbers seen, in the order seen (vma_code_table_sorted() for order),
 * charged to the rows of the machine's budget (cycles.h); when it
 * refuses, a new number is counted in the VMA_PV_OTHER entry.
 */
#define VMA_PV_OTHER VMA_CODE_SHARED
struct vma_pv {
	uint64_t *counts;   /* owned, indexed by PV event minor number (at most 256) */
	uint32_t nr_counts;
	struct vma_pv_count *hypercalls; /* owned, by hypercall number */
	uint32_t nr_hypercalls, cap_hypercalls;
	struct vma_code_index hypercall_index;
	struct vma_pv_count *traps;      /* owned, TRC_PV_TRAP records by trap number */
	uint32_t nr_traps, cap_traps;
	struct vma_code_index trap_index;
};

/*
 * vm-trace's figures for KVM: exits, their total and largest latency, and
 * the largest sum of exit latency inside any window (1 ms): for a vcpu at
 * most the window, for a VM at most its vcpus times the window.  Holds
 * the arcs that end inside the last window (see kvm-window.c).
 */
struct vma_latency_window {
	uint64_t exits, total, max;
	uint64_t max_window;
	uint64_t added;               /* the latency of the arcs added to the ring */
	/*
	 * While each arc begins after the one before ended: the latency of
	 * the arcs in the ring.  Once one did not (overlap): the starts of the
	 * arcs begun by the window's start, less the ends of those ended by it.
	 */
	uint64_t sum;
	uint64_t lo, last_end;        /* the window's start, the end of the last arc */
	/*
	 * owned: a ring of cap ends, in the order added, then a ring of cap
	 * starts: while no arc overlaps, each beside its end; after, those
	 * not begun by the window's start, ascending
	 */
	uint64_t *ring;
	uint32_t head, len, cap;
	uint32_t starts_head, starts_len; /* after an overlap only */
	uint32_t open;                /* after an overlap: arcs begun by lo, less those ended */
	bool overlap;
};

/* KVM: the windows with and without HLT/WFx exits (made at the first exit closed). */
struct vma_latency_pair {
	struct vma_latency_window all, nohalt;
};

/* How the vcpu threads of a KVM VM were known to belong together. */
enum vma_kvm_grouping {
	VMA_KVM_GROUP_NONE = 0,    /* not a KVM VM */
	VMA_KVM_GROUP_GUEST,       /* the trace's GUEST option names its threads */
	VMA_KVM_GROUP_VCPU_IDS,    /* one VM: its threads named distinct vcpu ids */
	VMA_KVM_GROUP_HEURISTIC,   /* by nearby thread ids (several VMs, or arm64) */
};

#define VMA_KVM_COMM_LEN 16  /* the kernel's TASK_COMM_LEN */
#define VMA_KVM_NAME_LEN 64

/* A KVM VM: the process that runs it, as far as the trace tells. */
struct vma_kvm_vm {
	enum vma_kvm_grouping grouping;
	char name[VMA_KVM_NAME_LEN];  /* the GUEST option's name, "" when none */
	uint32_t vmm_pid;             /* the VMM process, 0 when not known */
	char vmm_comm[VMA_KVM_COMM_LEN]; /* its name, "" when not known */
};

/* arm64 exit reasons (VMA_ARM_REASON_EXCEPTION) are in arm-names.h. */

/* The cpu-affinity entry of the pcpus that got none of their own (no pcpu has this id). */
#define VMA_PCPU_OTHER UINT32_MAX

struct vma_vcpu {
	struct vma_domain *domain; /* borrowed: owns this vcpu */
	uint32_t vid;
	enum vma_vcpu_type type;
	bool idle;                 /* of the idle domain (set at creation, for dispatch) */
	bool no_stats;             /* the machine's no_stats (set at creation) */
	bool stats_paused;         /* the machine's summaries are paused (set at creation) */
	struct vma_cycles_budget *budget; /* borrowed: the machine's (set at creation) */
	struct vma_vcpu_ipis ipis; /* IPIs sent to it, not yet delivered (vlapic.c) */
	/* Scheduling. */
	enum vma_runstate state;
	enum vma_runnable_kind runnable_kind;
	uint64_t state_tsc;        /* when the current state began; 0 = unknown */
	struct vma_pcpu *pcpu;     /* borrowed: where it runs or last ran */
	bool activated;
	bool delayed_init;
	uint64_t pcpu_tsc;         /* when it arrived on its current pcpu */
	/* Possible TSC skew: the last transition that disagreed with our state. */
	struct {
		enum vma_runstate wrong, actual;
		uint64_t tsc;
		uint32_t pcpu;
	} last_oldstate;
	/* Accounting. */
	struct vma_cycles runstates[VMA_RS_COUNT];
	struct vma_cycles runnable[VMA_RUNNABLE_COUNT];
	struct vma_cycles affinity_all;
	/*
	 * Per pcpu it ran on, sorted by pcpu: as many as seen, whatever their
	 * ids; past the rows' budget (cycles.h) new ones go to VMA_PCPU_OTHER.
	 */
	struct vma_cycles *affinity_pcpu; /* owned, nr_affinity entries */
	uint32_t *affinity_ids;           /* owned: the pcpu of each entry */
	uint32_t nr_affinity, cap_affinity;
	bool kvm_bound;            /* KVM: a host thread is this vcpu */
	bool kvm_guest_mapped;     /* KVM: ... named by the trace's GUEST option */
	uint32_t kvm_tid;          /* KVM: that thread's id, 0 before it is known */
	uint32_t kvm_entry_pcpu;   /* KVM: where its last kvm_entry ran */
	char kvm_comm[VMA_KVM_COMM_LEN]; /* KVM: its name, "" when not known */
	struct vma_latency_pair *latency; /* owned; KVM, NULL until an exit closes */
	union {
		struct vma_hvm hvm;
		struct vma_pv pv;
	};
	/*
	 * Its latest record taken ahead of the merge (vma_dispatch_ahead()):
	 * the stamp, 0 if none, and the pcpu that had it.  Last, so that the
	 * fields the records touch keep their lines.
	 */
	uint64_t ahead_tsc;
	uint32_t ahead_pcpu;
};

/* Grant-table operations (TRC_MEM minors 1-3) and populate-on-demand. */
#define VMA_GRANT_OPS 3
#define VMA_POD_ORDERS 5   /* 4k, 2M, 1G, and "non-canonical" */
enum vma_pod_context { VMA_POD_CTX_UNKNOWN, VMA_POD_CTX_FAULT, VMA_POD_CTX_BALLOON,
		       VMA_POD_CTX_COUNT };

struct vma_domain_mem {
	uint64_t grant_done[VMA_GRANT_OPS];     /* by this domain's vcpus */
	uint64_t grant_done_for[VMA_GRANT_OPS]; /* on this domain's behalf */
	uint64_t pod_populate[VMA_POD_ORDERS];
	uint64_t pod_reclaim[VMA_POD_ORDERS];
	uint64_t pod_context[VMA_POD_CTX_COUNT][VMA_POD_ORDERS];
};

struct vma_domain {
	uint32_t did;
	/* The machine's record count when its run time or exit counts last moved. */
	uint64_t changed;
	struct vma_domain_mem *mem; /* owned, NULL until its first memory record (mem.c) */
	struct vma_vcpu **vcpus; /* owned, the vcpus seen, sorted by id (no NULLs) */
	uint32_t nr_vcpus;       /* vcpus in vcpus[] */
	uint32_t cap_vcpus;      /* slots allocated */
	/* How many of vcpus[] are in each runstate (vma_vcpu_set_state()). */
	uint32_t vcpus_in[VMA_RS_COUNT];
	enum vma_domain_runstate runstate;
	bool runstate_valid;
	uint64_t runstate_tsc;
	struct vma_cycles runstates[VMA_DRS_COUNT];
	struct vma_cycles total_time; /* time any of its vcpus ran */
	struct vma_latency_pair *latency; /* owned; KVM, over all its vcpus, NULL before */
	struct vma_kvm_vm kvm;     /* KVM: which process it is */
	struct vma_eip_counts interrupt_eips; /* --with-interrupt-eip-enumeration */
	struct vma_cr3_list cr3s;  /* --with-cr3-enumeration, by first load */
	struct vma_eip_cycles_list emulate_eips; /* shadow emulations by guest EIP (shadow.c) */
};

/* The one place a vcpu's runstate changes: its domain's counts follow. */
static inline void vma_vcpu_set_state(struct vma_vcpu *v, enum vma_runstate next)
{
	v->domain->vcpus_in[v->state]--;
	v->domain->vcpus_in[next]++;
	v->state = next;
}

/* Trace volume by class, per pcpu (xenalyze's log volume summary). */
enum vma_volume_class {
	VMA_VOL_GEN = 0,
	VMA_VOL_SCHED,
	VMA_VOL_DOM0OP,
	VMA_VOL_HVM,
	VMA_VOL_MEM,
	VMA_VOL_PV,
	VMA_VOL_SHADOW,
	VMA_VOL_HW,
	VMA_VOL_OTHER,
	VMA_VOL_HVM_VMENTRY,
	VMA_VOL_HVM_VMEXIT,
	VMA_VOL_HVM_HANDLER,
	VMA_VOL_HVM_EMUL,
	VMA_VOL_COUNT
};

/* KVM: one VM's time on a host cpu: in guest mode (entry to exit) and in exits. */
struct vma_pcpu_vm {
	uint32_t did;
	uint64_t guest, exits;
};

struct vma_pcpu {
	uint32_t id;
	bool active;
	struct vma_vcpu *current;  /* borrowed: running vcpu, NULL when unknown */
	uint64_t first_tsc, last_tsc;
	struct {
		bool active;
		bool domain_valid;
		bool seen_valid_schedule;
		uint32_t did, vid;
		uint64_t tsc;
	} lost;
	uint64_t time_tsc;          /* start of the current running/idle stretch */
	struct vma_cycles time_running, time_idle, time_lost;
	uint64_t volume[VMA_VOL_COUNT]; /* bytes of trace records */
	struct vma_pcpu_vm *kvm_vms;    /* owned: KVM, by first appearance */
	uint32_t nr_kvm_vms;
	size_t cap_kvm_vms;
	/* TSC skew correction (skew.c): added to this pcpu's later time stamps. */
	int64_t tsc_offset;
	uint64_t *downstream;       /* owned bitmap: pcpus whose offsets were set against it */
	uint32_t nr_downstream;     /* its words */
};

/*
 * Observer of model events that no summary keeps, for outputs that print
 * them as they happen (scatterplots).  The model calls each callback that
 * is set, before it applies the change, and never depends on it: an
 * observer only reads what it is given.
 */
struct vma_state_observer {
	void *arg;
	/* @v goes from v->state (since v->state_tsc) to @next at @tsc. */
	void (*runstate)(void *arg, const struct vma_vcpu *v, enum vma_runstate next,
			 uint64_t tsc);
	/* @v is switched in on @to at @tsc; it last ran on v->pcpu (NULL: nowhere). */
	void (*switch_in)(void *arg, const struct vma_vcpu *v, const struct vma_pcpu *to,
			  uint64_t tsc);
	/* @v's open arc (v->hvm: reason, inflight, cr3 before it) closes at @tsc. */
	void (*arc_close)(void *arg, const struct vma_vcpu *v, uint64_t tsc, uint64_t cycles);
	/* @v halts at @tsc; interrupt @vector ran @cycles since its vmentry. */
	void (*halt)(void *arg, const struct vma_vcpu *v, uint32_t vector, bool is_wake,
		     uint64_t cycles, uint64_t tsc);
};

struct vma_machine_options {
	bool force_svm;     /* --svm-mode: Xen 4.17/4.18 traces of AMD hosts */
	bool kvm;           /* records come from KVM (ftrace) inputs */
	uint64_t kvm_window; /* KVM latency window in trace ticks (vm-trace's 1 ms) */
	/* KVM: the name the trace saved for host thread @pid, or NULL (may be unset) */
	const char *(*thread_name)(const void *arg, uint32_t pid);
	const void *thread_name_arg;
	/* --default-guest-paging-levels: of HVM guests until a 64-bit exit; 0 none. */
	uint8_t default_paging_levels;
	struct vma_eip_options eips; /* interrupt EIP enumerations, eips.h */
	/*
	 * TSC skew correction (skew.c): @tsc_offset is told each new offset
	 * of a pcpu's time stamps, for the records after the current ones;
	 * NULL: skew is detected and reported, nothing is moved.
	 */
	void (*tsc_offset)(void *arg, uint32_t pcpu, int64_t offset);
	void *tsc_offset_arg;
	bool tsc_loop_fatal;        /* --tsc-loop-fatal: a loop of corrections stops the input */
	/* No report is built from this machine (-a alone): exits keep no statistics. */
	bool no_stats;
	/* Bytes the summaries' samples may hold (cycles.h): 0 the default, SIZE_MAX no limit. */
	size_t summary_budget;
	/* Bytes the tables of rows may hold (cycles.h's rows): 0 the default, SIZE_MAX no limit. */
	size_t rows_budget;
};

/* Slots of the machine's domain cache: a large host's domains each have their own. */
#define VMA_DOMAIN_CACHE 256u

struct vma_machine {
	struct vma_diag *diag;     /* borrowed */
	struct vma_machine_options options;
	const struct vma_state_observer *observer; /* borrowed; NULL: none */
	struct vma_pcpu **pcpus;   /* owned, indexed by pcpu id */
	uint32_t nr_pcpus;         /* slots in pcpus[] */
	uint32_t max_pcpu;         /* highest active pcpu + 1 */
	char *columns;             /* owned, nr_pcpus long: vma_pcpu_column() of each pcpu */
	struct vma_domain **domains; /* owned, sorted by did */
	uint32_t nr_domains, cap_domains;
	/* borrowed: by did % VMA_DOMAIN_CACHE, for vma_domain_get(); a host's domains fit */
	struct vma_domain *domain_cache[VMA_DOMAIN_CACHE];
	struct vma_domain *default_domain; /* borrowed from domains[] */
	uint64_t first_tsc, last_tsc;
	bool have_time;
	bool svm;                  /* exit codes are AMD SVM's */
	bool vendor_known;
	uint32_t lost_pcpus;       /* pcpus inside a lost-records gap */
	uint64_t records;
	uint64_t lost_records;     /* records the tracer said it dropped */
	uint32_t next_cr3_id;      /* the id of the next new CR3 (cr3.c) */
	struct vma_vlapic vlapic;  /* IPIs outstanding and just delivered (vlapic.c) */
	bool finished;             /* vma_machine_finish() was called */
	bool kvm;                  /* records come from KVM (ftrace) inputs */
	uint64_t kvm_window;       /* KVM latency window in trace ticks (1 ms) */
	struct vma_kvm_threads *kvm_threads; /* owned: host thread -> vcpu */
	/* KVM records by kind: [0..VMA_KVM_KINDS) normalized ids, then other events. */
	uint64_t *kvm_counts;      /* owned */
	uint32_t nr_kvm_counts;
	uint32_t nr_guest_vcpus;   /* vcpus of every domain but the default one */
	uint64_t refused;          /* lookups refused past VMA_MAX_DOMAINS / VMA_MAX_VCPUS */
	bool refusal_reported;
	/* What every summary of the model is charged to (cycles.h), on the machine's clock. */
	struct vma_cycles_budget budget;
	bool stats_paused;         /* vma_machine_pause_summaries() until the seam */
	/* The pcpu of the record changing runstates (sched.c: the Xen records that do). */
	uint32_t dispatching;
	/*
	 * A record changed the runstate of a vcpu that had a record taken
	 * ahead of the merge at its stamp or later, from another pcpu: the
	 * order of the two may have mattered (vma_dispatch_ahead()).
	 */
	bool ahead_conflict;
	/*
	 * A record taken ahead read a key the vendor decides while it was not
	 * known: if an SVM exit tells it later, that is a conflict (hvm.c).
	 */
	bool ahead_vendor_read;
};

/*
 * Domains (KVM: VMs) and vcpus besides the default domain's (one per pcpu)
 * a machine holds at most.  Each costs a few KiB of state and of summary:
 * a trace naming more (Xen allows 32,752 domains, but no host runs that
 * many) is damaged or hostile, and these keep it within the 64 MiB bound
 * of doc/exit-status.md.  Records of further ones are skipped.
 */
#define VMA_MAX_DOMAINS 4096u
#define VMA_MAX_VCPUS 8192u

/* KVM event counts: kinds below this are VMA_KVM_* ids minus VMA_ID_KVM_BASE;
 * kind VMA_KVM_KINDS + i counts the input's other event number i. */
#define VMA_KVM_KINDS 32u

/* Return: owned, free with vma_machine_destroy(); NULL when out of memory. */
struct vma_machine *vma_machine_create(struct vma_diag *diag,
				       const struct vma_machine_options *options);
void vma_machine_destroy(struct vma_machine *machine);

/* Called by the driver for each pcpu stream the merge will deliver. */
int vma_machine_add_pcpu(struct vma_machine *machine, uint32_t pcpu);

/*
 * Lookups that create on demand; NULL when out of memory or past
 * VMA_MAX_DOMAINS / VMA_MAX_VCPUS (then machine->refused grows).
 */
struct vma_domain *vma_domain_get(struct vma_machine *machine, uint32_t did);
struct vma_vcpu *vma_vcpu_get_slow(struct vma_machine *machine, uint32_t did, uint32_t vid);

/*
 * vma_vcpu_get(): a vcpu of a domain in the cache, at its own index (every
 * runstate record names one), without a call; else vma_vcpu_get_slow().
 */
static inline struct vma_vcpu *vma_vcpu_get(struct vma_machine *machine, uint32_t did,
					    uint32_t vid)
{
	const struct vma_domain *d = machine->domain_cache[did % VMA_DOMAIN_CACHE];

	if (d && d->did == did && vid < d->nr_vcpus && d->vcpus[vid]->vid == vid)
		return d->vcpus[vid];
	return vma_vcpu_get_slow(machine, did, vid);
}
/*
 * vma_machine_refused - a lookup for the record at byte @offset was refused
 * (the limits above): the first refusal is reported (level 6).
 * Return: VMA_OK (skip the record), or VMA_ERR_DAMAGED above the tolerance.
 */
int vma_machine_refused(struct vma_machine *machine, uint64_t offset);
/*
 * A pcpu's column in the dump, from its state: ' ' inactive or nothing
 * known running, 'l' in a lost-records gap, '.' the default domain, '-'
 * idle, '|' a guest.  The state keeps machine->columns in step (through
 * vma_pcpu_changed()), so a dump line copies the columns, not walks pcpus.
 */
static inline char vma_pcpu_column(const struct vma_pcpu *p)
{
	if (!p || !p->active)
		return ' ';
	if (p->lost.active)
		return 'l';
	if (!p->current)
		return ' ';
	if (p->current->domain->did == VMA_DEFAULT_DOMAIN)
		return '.';
	if (p->current->domain->did == VMA_IDLE_DOMAIN)
		return '-';
	return '|';
}

/* Called wherever p->active, p->lost.active or p->current changes. */
static inline void vma_pcpu_changed(struct vma_machine *machine, const struct vma_pcpu *p)
{
	machine->columns[p->id] = vma_pcpu_column(p);
}

/* A domain of @machine already seen, or NULL: never creates. */
struct vma_domain *vma_domain_find(const struct vma_machine *machine, uint32_t did);
/* A vcpu of @domain already seen, or NULL: never creates. */
struct vma_vcpu *vma_vcpu_find(const struct vma_domain *domain, uint32_t vid);
static inline struct vma_pcpu *vma_pcpu_of(struct vma_machine *machine, uint32_t id)
{
	return id < machine->nr_pcpus ? machine->pcpus[id] : 0;
}

/*
 * vma_machine_map_thread - KVM: host thread @pid is vcpu @vcpu_id of VM
 * @vm (from the trace's GUEST information, when it has some).
 */
int vma_machine_map_thread(struct vma_machine *machine, uint32_t pid, uint32_t vm,
			   uint32_t vcpu_id);

/* vma_machine_name_vm - KVM: VM @vm is the guest the trace's GUEST option calls @name. */
int vma_machine_name_vm(struct vma_machine *machine, uint32_t vm, const char *name);

/* The records of pcpu @pcpu ended: the vcpu on it goes to LOST. */
void vma_machine_pcpu_end(struct vma_machine *machine, uint32_t pcpu);

/*
 * vma_machine_finish - close what is open at the end of the trace (running
 * stretches, cpu affinity) so the summaries cover the whole trace.  Calls
 * after the first do nothing.  Some summaries only count, their samples
 * kept by their parts (an exit reason's by its handlers', a vcpu's
 * runnable time by its kinds', its cpu affinity by its pcpus', a domain's
 * total time by its vcpus' running times): the report merges the parts
 * for their percentiles, so the samples are never held twice.
 */
void vma_machine_finish(struct vma_machine *machine);

/*
 * vma_vendor_note - look at a record for evidence of the exit-code vendor.
 * Xen 4.19 and later name SVM in the vmexit id; Xen 4.17 and 4.18 use one
 * id for both vendors, and only SVM has exit codes of 0x60 and above
 * (VMX basic exit reasons stop well below).  Sets machine->svm on evidence.
 */
void vma_vendor_note(struct vma_machine *machine, const struct vma_record *rec);

/*
 * vma_vendor_svm_evidence - whether @rec, were the state stage to take it,
 * would tell vma_vendor_note() the trace is SVM's.  A record the state
 * stage does not take (no vcpu known to run, not an HVM one) tells it
 * nothing, so this says yes to more records than vma_vendor_note() uses.
 */
bool vma_vendor_svm_evidence(const struct vma_record *rec);
/* Every record it says yes to has (event & ..._MASK) == ..._CLASS: HVM entry/exit. */
#define VMA_VENDOR_EVIDENCE_MASK 0x0ffff000u
#define VMA_VENDOR_EVIDENCE_CLASS TRC_HVM_ENTRYEXIT

/* An external interrupt of @vector interrupted @v at v->hvm.rip (eips.h). */
void vma_interrupt_eip_note(struct vma_machine *machine, struct vma_vcpu *v, uint32_t vector);

/*
 * With --with-cr3-enumeration (cr3.h): @v exits at @tsc, its guest time
 * since v->hvm.entry_tsc goes to the CR3 loaded; its arc closes at @tsc,
 * a CR3 write it carried takes effect and its cycles go to the CR3 loaded.
 */
void vma_cr3_vmexit(struct vma_machine *m, struct vma_vcpu *v, uint64_t tsc);

/* An exit arc of @cycles closes: a shadow emulation's goes to the domain's EIP list (shadow.c). */
void vma_shadow_arc_close(struct vma_machine *machine, struct vma_vcpu *v, uint64_t cycles);

/* IPI latency (vlapic.h): a write of @v's ICR, an injection, a vmentry, a lost-records gap. */
void vma_vlapic_icr_write(struct vma_machine *machine, const struct vma_vcpu *v, uint32_t icr,
			  uint64_t tsc);
void vma_vlapic_inject(struct vma_vcpu *v, uint32_t vec);
void vma_vlapic_vmentry(struct vma_machine *machine, struct vma_vcpu *v, uint64_t tsc);
void vma_vlapic_lost(struct vma_machine *machine);
void vma_vlapic_release(struct vma_vlapic *vl);
void vma_cr3_arc_close(struct vma_machine *machine, struct vma_vcpu *v, uint64_t tsc);

/*
 * A run in two parts (the pipeline's split, pipeline.h): one machine takes
 * the records before a seam; another takes every record from the first,
 * its summaries paused (vma_machine_pause_summaries(), before the first
 * record) until the seam, where vma_machine_resume_summaries() empties
 * them and keeps the state; after the last record it takes the first
 * machine's summaries with vma_machine_prepend().  The second machine then
 * holds what one machine taking every record would hold, the same rows in
 * the same order, as long as vma_machine_joinable() holds for both (no
 * budget reached: what a budget gives up depends on the whole run).
 * Paused, the state is kept as ever (open arcs, pending refinements,
 * wake-to-halt starts) and the summaries only count, holding no sample.
 */
void vma_machine_pause_summaries(struct vma_machine *m);
/* Return: VMA_OK. */
int vma_machine_resume_summaries(struct vma_machine *m);
/* Whether @m's summaries can be joined exactly with another part's. */
bool vma_machine_joinable(const struct vma_machine *m);

/*
 * Records taken ahead of the merge (ahead.c, dispatch.h): whether @m
 * allows it (a time stamp seen, its options and observers; no conflict
 * yet).  While records are out, vma_machine_budget_room() tells whether
 * no decision of the budget could have fallen in any order since
 * vma_machine_budget_mark() noted it when they went out, with 1/@margin
 * of each limit to spare (0: none).
 */
struct vma_budget_mark {
	size_t used, rows_used, next_step;
	uint64_t charged, rows_charged;
	uint8_t step;
	bool rows_reached;
};
bool vma_machine_may_run_ahead(const struct vma_machine *m);
void vma_machine_budget_mark(const struct vma_machine *m, struct vma_budget_mark *mark);
bool vma_machine_budget_room(const struct vma_machine *m, const struct vma_budget_mark *mark,
			     unsigned int margin);
/*
 * vma_machine_prepend - @earlier's summaries (those of the records before
 * the seam, unchanged) join @m's, before them.  Return: VMA_OK;
 * VMA_ERR_NOMEM; or VMA_ERR_FORMAT when the parts cannot be one run's (a
 * pcpu, domain or vcpu of @earlier that @m lacks, or of another type; the
 * joined summaries past @m's budget): @m is then not to be used.
 */
int vma_machine_prepend(struct vma_machine *m, const struct vma_machine *earlier);

/* Names for output. */
const char *vma_vcpu_runstate_name(enum vma_runstate state);
const char *vma_runnable_kind_name(enum vma_runnable_kind kind);
const char *vma_domain_runstate_name(enum vma_domain_runstate state);
const char *vma_volume_class_name(enum vma_volume_class c);

#endif /* VMALYZE_STATE_H */
