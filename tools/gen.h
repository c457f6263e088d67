/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmalyze-gen internals: the simulated Xen host (gen-sim*.c), the analyzer
 * view that turns the records a reader can see into the ground truth
 * (gen-observe.c), and the command line and truth file (vmalyze-gen.c).
 *
 * The simulation runs one global clock: every action of a pcpu writes a
 * short burst of records, and bursts never overlap in time, so time stamps
 * never tie across pcpus and a reader merging the streams by time stamp
 * meets every record that has one in the order the simulation wrote it.
 */
#ifndef VMALYZE_GEN_H
#define VMALYZE_GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "xtwriter.h"

#define GEN_IDLE_DOMAIN 32767u
#define GEN_MAX_HCALL 64u   /* hypercall numbers tallied (xenalyze keeps 56) */
#define GEN_MAX_SLOTS 16u   /* distinct exit codes of one vendor */
#define GEN_NONE UINT32_MAX

enum gen_vendor {
	GEN_VMX = 0,    /* TRC_HVM_VMX_EXIT[64], VMX codes */
	GEN_SVM = 1,    /* TRC_HVM_SVM_EXIT[64] (Xen >= 4.19), SVM codes */
	GEN_SVM417 = 2, /* TRC_HVM_VMEXIT[64] with SVM codes (Xen <= 4.18) */
};

enum gen_kind {
	GEN_IDLE = 0,
	GEN_HVM = 1,
	GEN_PV = 2,
};

/* Runstates; the first four are Xen's own numbers. */
enum gen_rs {
	RS_RUNNING = 0,
	RS_RUNNABLE = 1,
	RS_BLOCKED = 2,
	RS_OFFLINE = 3,
	RS_LOST = 4,   /* analyzer view only */
	RS_INIT = 5,   /* analyzer view only: not yet seen running */
};
#define GEN_NR_RS 5

/* The kinds of HVM exit the simulation makes. */
enum gen_exit {
	EX_EXTINT,
	EX_VINTR,
	EX_CPUID,
	EX_HLT,
	EX_VMCALL,
	EX_CR0,
	EX_CR3,
	EX_CR4,
	EX_IO,
	EX_MSR_READ,
	EX_MSR_WRITE,
	EX_MMIO,
	EX_PF,
	EX_MAX
};

struct gen_options {
	uint64_t seed;
	uint32_t pcpus, domains, vcpus, dom0_vcpus, pv_domains;
	enum gen_vendor vendor;
	double duration;     /* simulated seconds; 0 with --size */
	uint64_t size;       /* stop after this many bytes; 0 with --duration */
	uint32_t lost;       /* lost-record gaps to inject */
	double no_tsc_ratio; /* share of TSC-less HVM handler records */
	uint64_t cpu_hz;
	uint32_t window;     /* window payload bytes */
	bool shadow;         /* HVM guests use shadow paging: page faults write shadow records */
};

/* What a correct analyzer reports for one vcpu. */
struct gen_tally {
	uint64_t rs_count[GEN_NR_RS], rs_cycles[GEN_NR_RS];
	uint64_t exit_count[GEN_MAX_SLOTS], exit_cycles[GEN_MAX_SLOTS];
	uint64_t vmcall_count[GEN_MAX_HCALL], vmcall_cycles[GEN_MAX_HCALL];
	uint64_t hcall[GEN_MAX_HCALL];
};

/* The analyzer's idea of one vcpu (see gen-observe.c for the rules). */
struct gen_view {
	bool known;         /* named by a record the reader saw */
	bool activated;
	bool hvm;           /* has had an HVM record */
	bool arc_open;      /* a vmexit was seen and not closed */
	uint8_t state;      /* enum gen_rs */
	uint8_t arc_slot;
	uint32_t pcpu;      /* GEN_NONE when never placed */
	uint32_t vmcall;    /* hypercall of the open arc, GEN_NONE if none */
	uint64_t since;     /* start of the current interval, 0 = unknown */
	uint64_t arc_tsc;
};

struct gen_vcpu {
	uint16_t dom, vid;
	uint8_t kind;       /* enum gen_kind */
	bool is64;          /* HVM: long mode, 64-bit record variants */
	uint8_t state;      /* enum gen_rs, the simulated truth */
	bool in_exit;       /* HVM: vmexit written, vmentry not yet */
	bool exit_block;    /* HVM: the open exit ends with the vcpu blocking */
	bool exit_offline;  /* HVM: ... going offline */
	uint8_t exit;       /* enum gen_exit of the open exit */
	uint32_t pcpu;      /* where it runs or last ran */
	uint64_t since;     /* simulated time of the last runstate change */
	uint64_t rip_base;
	struct gen_view view;
	struct gen_tally tally;
};

struct gen_pcpu {
	uint32_t cur;       /* running vcpu (the idle vcpu when idle) */
	uint32_t idle;      /* this pcpu's idle vcpu */
	uint8_t action;     /* pending action, enum in gen-sim.h */
	uint8_t cstate;     /* C-state while idle, 0 when awake */
	bool tickled;
	bool scheduled;     /* has run a guest at least once */
	uint64_t slice_end;
	/* lost-record gap */
	bool gap_pending, in_gap;
	uint64_t gap_first, gap_until;
	uint32_t gap_dropped;
	/* analyzer view */
	uint32_t view_cur;  /* GEN_NONE, or a vcpu index, or view_default */
	bool view_lost;
	bool view_valid_schedule;
	uint64_t view_lost_tsc;
	uint64_t lost_records; /* TRC_LOST_RECORDS written on this pcpu */
	uint64_t last_tsc;     /* time stamp of its last record */
};

struct gen {
	struct gen_options opt;
	struct vma_xtw *w;
	struct gen_vcpu *vcpus;
	uint32_t nr_vcpus;
	struct gen_pcpu *pcpus;
	uint32_t view_default;   /* marker for xenalyze's "default domain" vcpu */
	uint32_t view_lost_cpus; /* pcpus inside a gap, as the analyzer sees them */
	/* exit code slots of the vendor */
	uint32_t slot_code[GEN_MAX_SLOTS];
	uint32_t nr_slots;
	uint8_t exit_slot[EX_MAX];
	/* totals */
	uint64_t first_tsc, last_tsc;
	uint64_t dropped, gaps_done;
	uint64_t end_time;
	/* first inconsistency the analyzer view met (a generator bug) */
	char anomaly[256];
	uint64_t nr_anomalies;
};

/* gen-sim.c and gen-sim-hvm.c */
int vma_gen_run(struct gen *g);
uint32_t vma_gen_exit_code(enum gen_vendor vendor, enum gen_exit ex);

/* gen-observe.c: called for every record a reader will see, in file time order. */
void vma_gen_obs_runstate(struct gen *g, uint32_t pcpu, uint32_t v, int old, int new_state,
			  uint64_t tsc);
void vma_gen_obs_vmexit(struct gen *g, uint32_t pcpu, enum gen_exit ex, uint64_t tsc);
void vma_gen_obs_vmcall(struct gen *g, uint32_t pcpu, uint32_t nr);
void vma_gen_obs_vmentry(struct gen *g, uint32_t pcpu, uint64_t tsc);
void vma_gen_obs_hypercall(struct gen *g, uint32_t pcpu, uint32_t op);
void vma_gen_obs_lost_start(struct gen *g, uint32_t pcpu, uint64_t first_tsc);
void vma_gen_obs_lost_end(struct gen *g, uint32_t pcpu, uint64_t tsc, uint32_t v);
void vma_gen_obs_finish(struct gen *g);

/* Every time stamp written, for the first/last time stamps of the truth. */
static inline void vma_gen_obs_tsc(struct gen *g, uint32_t pcpu, uint64_t tsc)
{
	g->pcpus[pcpu].last_tsc = tsc;
	if (tsc > g->last_tsc)
		g->last_tsc = tsc;
	if (!g->first_tsc)
		g->first_tsc = tsc;
}

#endif /* VMALYZE_GEN_H */
