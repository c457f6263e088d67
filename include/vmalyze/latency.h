/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Blame (--latency): where a guest's wake-up latency went on the host.
 * For every guest task wake-up (sched_waking of a task to the sched_switch
 * that runs it; sched_wakeup where sched_waking is not recorded) the
 * interval is split by what the host thread running the woken task's vcpu
 * (its target cpu) was doing meanwhile:
 *
 *   guest                 running guest code
 *   exit REASON [REFINE]  in an exit (REFINE: "port 0x3f8", "mmio 0x...",
 *                         "msr 0x...")
 *   VMM                   in the VMM: after kvm_userspace_exit, before the
 *                         next kvm_entry
 *   preempted by COMM     switched out runnable on the host (host
 *                         sched_switch; "preempted" when COMM is unknown)
 *   halted                in a HLT exit, or switched out asleep in one
 *   blocked on host       switched out asleep outside HLT and the VMM
 *   unknown               nothing seen of the thread yet, or no host
 *                         thread is known for the guest cpu
 *
 * The same causes split each host vcpu thread's whole traced time, which
 * needs no guest trace.  Memory is bounded whatever the trace's length
 * (struct vma_latency_options.keep).  The analysis reads records only (the KVM
 * vocabulary's payload words, kvm-events.h): host records, guest records
 * and which host thread runs which guest cpu, in time order.
 */
#ifndef VMALYZE_LATENCY_H
#define VMALYZE_LATENCY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/record.h"

struct vma_latency;

/* One cause's share of an interval or of a thread's time, in trace ticks. */
struct vma_lat_share {
	const char *cause;          /* borrowed from the analysis */
	uint64_t ticks;
};

/* One wake-up: woken at @start, run at @end (or one of the user's intervals). */
struct vma_lat_interval {
	uint64_t start, end;
	uint32_t guest;             /* the guest input, 1 for the first */
	uint32_t cpu;               /* its target cpu */
	uint32_t pid;
	char comm[16];
	uint32_t host_tid;          /* the host thread of that cpu, 0 when not known */
	struct vma_lat_share *split; /* owned, largest first */
	uint32_t nr_split;
};

/* A host vcpu thread's whole traced time by cause. */
struct vma_lat_thread {
	uint32_t tid;
	uint64_t ticks;
	struct vma_lat_share *split; /* owned, largest first */
	uint32_t nr_split;
};

struct vma_lat_report {
	uint64_t hz;                /* trace ticks per second */
	bool have_guest;
	const char *marked, *marked_end; /* the user's intervals' events, or NULL: wake-ups */
	uint64_t wakeups;           /* every wake-up seen run */
	uint64_t unfollowed;        /* wake-ups not followed: too many waiting at once */
	uint64_t records_unfollowed; /* host records not followed: too many threads */
	uint64_t p50, p99, max;     /* of their latencies, in ticks */
	bool p50_exact, p99_exact;  /* else within the distribution's error (cycles.h) */
	uint64_t threshold;         /* the report's, in ticks */
	bool threshold_is_p99;      /* no --threshold: the guest's own p99 */
	/*
	 * The p99 was below the longest wake-ups kept (past 100 times
	 * options.keep): the threshold is the longest of those let go.
	 */
	bool threshold_raised;
	uint64_t above;             /* wake-ups at or above it */
	struct vma_lat_interval *worst; /* owned, worst first */
	uint32_t nr_worst;
	struct vma_lat_share *aggregate; /* owned: the causes over all above it */
	uint32_t nr_aggregate;
	uint64_t aggregate_ticks;
	struct vma_lat_thread *threads; /* owned, by tid */
	uint32_t nr_threads;
};

struct vma_latency_options {
	uint64_t hz;                /* ticks per second of the time stamps */
	/*
	 * The intervals are the user's: from each record of one guest event
	 * to the next of another on the same guest cpu (vma_latency_mark()),
	 * not the wake-ups.  The names, for the report.
	 */
	const char *marked;         /* "START" or NULL */
	const char *marked_end;     /* "END" */
	uint64_t threshold;         /* ticks; 0: the p99 of the guest's wake-ups */
	uint32_t worst;             /* intervals to list; 0: 10 */
	/*
	 * The longest intervals kept whole (with their split) for the
	 * report, at least @worst; 0: 65,536 (and 16 MiB).  The p99 and the
	 * aggregate above it are exact while the wake-ups are at most 100
	 * times this.
	 */
	uint32_t keep;
};

/* Return: owned (vma_latency_destroy()), NULL when out of memory. */
struct vma_latency *vma_latency_create(const struct vma_latency_options *opts);
void vma_latency_destroy(struct vma_latency *lat);

/* Host thread @tid runs cpu @cpu of guest input @guest (1 for the first). */
int vma_latency_tie(struct vma_latency *lat, uint32_t guest, uint32_t cpu, uint32_t tid);

/*
 * vma_latency_host / vma_latency_guest - the next record in time order, of
 * the host or of guest input @guest (its rec->pcpu is the guest cpu).
 * Return: VMA_OK or VMA_ERR_NOMEM.
 */
int vma_latency_host(struct vma_latency *lat, const struct vma_record *rec);
int vma_latency_guest(struct vma_latency *lat, uint32_t guest, const struct vma_record *rec);

/*
 * vma_latency_mark - with options.marked: @rec of guest input @guest is
 * one of the user's events, @start the first (it opens its cpu's interval
 * again) or the second (it closes it).  Return: VMA_OK or VMA_ERR_NOMEM.
 */
int vma_latency_mark(struct vma_latency *lat, uint32_t guest, const struct vma_record *rec,
		     bool start);

/*
 * vma_latency_report - the report at time @end (the last record's stamp).
 * Return: owned (vma_lat_report_free()), NULL when out of memory.
 */
struct vma_lat_report *vma_latency_report(struct vma_latency *lat, uint64_t end);
void vma_lat_report_free(struct vma_lat_report *r);

/* Renderers (src/output/latency-render.c).  Return: VMA_OK or VMA_ERR_OUTPUT. */
int vma_lat_render_text(FILE *out, const struct vma_lat_report *r);
int vma_lat_render_json(FILE *out, const struct vma_lat_report *r);
int vma_lat_render_csv(FILE *out, const struct vma_lat_report *r);

#endif /* VMALYZE_LATENCY_H */
