/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Blame (latency.h).  Each host vcpu thread is in one cause at a time,
 * from its records (exit, refinement, userspace exit, entry, host
 * sched_switch); when the cause changes, the time since the last change
 * goes to the thread's total and to every open wake-up on the guest cpu
 * the thread runs.  A wake-up opens at sched_waking (sched_wakeup in a
 * guest trace that does not record it) and closes at the sched_switch
 * that runs the task.  Memory does not grow with the trace: every latency
 * goes to a distribution (exact for the first EXACT_LATENCIES), only the
 * longest wake-ups are kept whole (their split) for the report, and the
 * causes, threads and waiting wake-ups are bounded (doc/output.md).
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/arm-names.h"
#include "vmalyze/cycles.h"
#include "vmalyze/grow.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/latency.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/strtab.h"
#include "vmalyze/xen-names.h"
#include "latency-internal.h"

/* VMX and SVM halt exits. */
#define VMX_EXIT_HLT 12u
#define SVM_EXIT_HLT 0x78u

/*
 * Bounds.  Causes named: past them a refinement or a preemptor is left out
 * of a new cause's name ("exit REASON", "preempted"), a new exit reason is
 * "exit other".  Host threads followed (ties and vcpu threads), and
 * wake-ups waiting at once: past them a new one is not followed.
 */
#define CAUSES_MAX 1024u
#define THREADS_MAX 1024u
#define OPEN_MAX 1024u
/* Latencies the distribution keeps exactly (8 MiB at most): the p50's. */
#define EXACT_LATENCIES (1u << 20)
/* The longest wake-ups kept whole. */
#define KEEP_DEFAULT 65536u

enum {
	CAUSE_UNKNOWN = 0,
	CAUSE_GUEST,
	CAUSE_VMM,
	CAUSE_HALTED,
	CAUSE_BLOCKED,
	CAUSE_PREEMPTED,
	CAUSE_EXIT_OTHER,
};

static const char *const fixed_causes[] = {
	[CAUSE_UNKNOWN] = "unknown",
	[CAUSE_GUEST] = "guest",
	[CAUSE_VMM] = "VMM",
	[CAUSE_HALTED] = "halted",
	[CAUSE_BLOCKED] = "blocked on host",
	[CAUSE_PREEMPTED] = "preempted",
	[CAUSE_EXIT_OTHER] = "exit other",
};

struct thread {
	uint32_t tid;
	bool in_exit, in_vmm, halt_exit, off_cpu;
	uint32_t exit_cause;        /* the cause while in the exit (with its refinement) */
	uint32_t reason_cause;      /* the exit's reason without refinement */
	uint32_t cause;             /* now */
	uint64_t since;
	bool started;
	struct lat_split total;
};

struct wake {
	uint32_t guest, cpu, pid;
	char comm[16];
	uint32_t task;              /* a marked interval: the guest thread of its start */
	uint64_t start;
	uint32_t tid;               /* host thread charged, 0 none */
	struct lat_split split;
};

struct tie {
	uint32_t guest, cpu, tid;
};

struct vma_latency {
	struct vma_latency_options opts;
	struct vma_strtab causes;   /* their names, by cause id */
	struct thread *threads;     /* by tid, sorted */
	size_t nr_threads, cap_threads;
	struct tie *ties;
	size_t nr_ties, cap_ties;
	struct wake *open;          /* wake-ups not yet run (few at a time) */
	size_t nr_open, cap_open;
	uint64_t nr_wakeups;        /* every wake-up run */
	uint64_t unfollowed;        /* wake-ups past OPEN_MAX waiting */
	uint64_t records_unfollowed; /* host records of threads past THREADS_MAX */
	struct vma_cycles latencies; /* of every wake-up run */
	struct lat_longest longest; /* the longest wake-ups run, kept whole */
	/* With options.threshold: the wake-ups at or above it, summed as they run. */
	uint64_t above, above_ticks;
	struct lat_split above_split;
	bool have_guest;
	bool *waking;               /* [guest]: it records sched_waking */
	size_t cap_waking;
};

/*
 * The id of cause @name, interned; @fallback once CAUSES_MAX are named.
 * UINT32_MAX when out of memory.
 */
static uint32_t cause_id(struct vma_latency *lat, const char *name, uint32_t fallback)
{
	uint32_t id = vma_strtab_find(&lat->causes, name);

	if (id != UINT32_MAX)
		return id;
	if (vma_strtab_count(&lat->causes) >= CAUSES_MAX)
		return fallback;
	return vma_strtab_intern(&lat->causes, name);
}

struct vma_latency *vma_latency_create(const struct vma_latency_options *opts)
{
	struct vma_latency *lat = calloc(1, sizeof(*lat));
	size_t i;

	if (!lat)
		return NULL;
	lat->opts = *opts;
	if (!lat->opts.worst)
		lat->opts.worst = 10;
	/* never fewer kept than listed: the heap's floor */
	lat->longest.keep = lat->opts.keep ? lat->opts.keep : KEEP_DEFAULT;
	lat->longest.floor = lat->opts.worst;
	vma_cycles_init(&lat->latencies, EXACT_LATENCIES);
	for (i = 0; i < sizeof(fixed_causes) / sizeof(fixed_causes[0]); i++) {
		if (vma_strtab_intern(&lat->causes, fixed_causes[i]) != i) {
			vma_latency_destroy(lat);
			return NULL;
		}
	}
	return lat;
}

void vma_latency_destroy(struct vma_latency *lat)
{
	size_t i;

	if (!lat)
		return;
	vma_strtab_free(&lat->causes);
	for (i = 0; i < lat->nr_threads; i++)
		free(lat->threads[i].total.ticks);
	for (i = 0; i < lat->nr_open; i++)
		free(lat->open[i].split.ticks);
	vma_cycles_release(&lat->latencies, NULL);
	free(lat->above_split.ticks);
	lat_longest_free(&lat->longest);
	free(lat->threads);
	free(lat->ties);
	free(lat->open);
	free(lat->waking);
	free(lat);
}

/* The thread @tid, created when @create.  NULL when absent or out of memory. */
static struct thread *thread_of(struct vma_latency *lat, uint32_t tid, bool create)
{
	size_t lo = 0, hi = lat->nr_threads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lat->threads[mid].tid == tid)
			return &lat->threads[mid];
		if (lat->threads[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!create || vma_grow(lat->threads, &lat->cap_threads, lat->nr_threads + 1, 16))
		return NULL;
	memmove(&lat->threads[lo + 1], &lat->threads[lo],
		(lat->nr_threads - lo) * sizeof(*lat->threads));
	lat->threads[lo] = (struct thread){ .tid = tid, .cause = CAUSE_UNKNOWN };
	lat->nr_threads++;
	return &lat->threads[lo];
}

/*
 * Thread @tid in *@out, made when new and there is room (else NULL: not
 * followed).  Return: VMA_ERR_NOMEM, or VMA_OK.
 */
static int follow(struct vma_latency *lat, uint32_t tid, struct thread **out)
{
	bool room = lat->nr_threads < THREADS_MAX;

	*out = thread_of(lat, tid, room);
	return *out || !room ? VMA_OK : VMA_ERR_NOMEM;
}

int vma_latency_tie(struct vma_latency *lat, uint32_t guest, uint32_t cpu, uint32_t tid)
{
	struct thread *th;
	int rc = follow(lat, tid, &th);

	if (rc || !th)
		return rc;
	if (vma_grow(lat->ties, &lat->cap_ties, lat->nr_ties + 1, 8))
		return VMA_ERR_NOMEM;
	lat->ties[lat->nr_ties++] = (struct tie){ guest, cpu, tid };
	return VMA_OK;
}

static uint32_t tid_of(const struct vma_latency *lat, uint32_t guest, uint32_t cpu)
{
	size_t i;

	for (i = 0; i < lat->nr_ties; i++) {
		if (lat->ties[i].guest == guest && lat->ties[i].cpu == cpu)
			return lat->ties[i].tid;
	}
	return 0;
}

/* Charge @th's current cause up to @now, to itself and its guest cpu's wake-ups. */
static int charge(struct vma_latency *lat, struct thread *th, uint64_t now)
{
	size_t i;
	int rc = VMA_OK;

	/* before the thread's first record nothing is known: the wake-up's rest is unknown */
	if (!th->started || now <= th->since)
		return VMA_OK;
	rc = lat_split_add(&th->total, th->cause, now - th->since);
	for (i = 0; i < lat->nr_open && rc == VMA_OK; i++) {
		struct wake *w = &lat->open[i];
		uint64_t from = w->start > th->since ? w->start : th->since;

		if (w->tid == th->tid && now > from)
			rc = lat_split_add(&w->split, th->cause, now - from);
	}
	th->since = now;
	return rc;
}

/* The exit's cause: its reason's name, "halted" for HLT. */
static uint32_t exit_cause(struct vma_latency *lat, struct thread *th, const struct vma_record *rec)
{
	uint32_t isa = vma_kvm_word(rec, VMA_KVM_EXIT_ISA);
	uint32_t reason = vma_kvm_word(rec, VMA_KVM_EXIT_REASON);
	const char *name;
	char buf[64];

	if (isa == VMA_KVM_ISA_ARM64) {
		reason = vma_kvm_word(rec, VMA_KVM_EXIT_ARM_TRAP) ?
			vma_kvm_word(rec, VMA_KVM_EXIT_ARM_EC) : VMA_ARM_REASON_EXCEPTION + reason;
		name = vma_arm_exit_name(reason);
	} else {
		if (isa != VMA_KVM_ISA_SVM)
			reason &= 0xffffu; /* VMX flag bits */
		th->halt_exit = reason == (isa == VMA_KVM_ISA_SVM ? SVM_EXIT_HLT : VMX_EXIT_HLT);
		if (th->halt_exit)
			return CAUSE_HALTED;
		name = vma_hvm_exit_name(isa == VMA_KVM_ISA_SVM, reason);
	}
	if (name)
		snprintf(buf, sizeof(buf), "exit %s", name);
	else
		snprintf(buf, sizeof(buf), "exit %#x", reason);
	return cause_id(lat, buf, CAUSE_EXIT_OTHER);
}

/* "exit REASON REFINE": the exit's device access. */
static uint32_t refined(struct vma_latency *lat, const struct thread *th, const char *what,
			uint64_t key)
{
	char buf[128];

	if (th->halt_exit || th->reason_cause >= vma_strtab_count(&lat->causes))
		return th->exit_cause;
	snprintf(buf, sizeof(buf), "%s %s %#llx", vma_strtab_get(&lat->causes, th->reason_cause),
		 what, (unsigned long long)key);
	return cause_id(lat, buf, th->reason_cause);
}

static uint32_t cause_now(const struct thread *th)
{
	if (th->in_vmm)
		return CAUSE_VMM;
	if (th->in_exit)
		return th->exit_cause;
	return CAUSE_GUEST;
}

/* Switched out: by whom, or asleep. */
static uint32_t switched_out(struct vma_latency *lat, const struct thread *th,
			     const struct vma_record *rec)
{
	char comm[17] = "", buf[64];
	uint32_t i;

	if (vma_kvm_word(rec, VMA_KVM_SCHED_SWITCH_PREV_STATE) != 0) {
		if (th->in_vmm)
			return CAUSE_VMM;
		return th->in_exit && th->halt_exit ? CAUSE_HALTED : CAUSE_BLOCKED;
	}
	for (i = 0; i < 16; i++) {
		comm[i] = (char)(vma_kvm_word(rec, VMA_KVM_SCHED_SWITCH_NEXT_COMM + i / 4) >>
				 (8 * (i % 4)));
	}
	if (!comm[0])
		return CAUSE_PREEMPTED;
	snprintf(buf, sizeof(buf), "preempted by %s", comm);
	return cause_id(lat, buf, CAUSE_PREEMPTED);
}

/* @th's cause after @rec, one of its own records. */
static uint32_t next_cause(struct vma_latency *lat, struct thread *th,
			   const struct vma_record *rec)
{
	switch (rec->event) {
	case VMA_KVM_EXIT:
		th->in_exit = true;
		th->in_vmm = false;
		th->reason_cause = th->exit_cause = exit_cause(lat, th, rec);
		break;
	case VMA_KVM_ENTRY:
		th->in_exit = th->in_vmm = th->halt_exit = false;
		break;
	case VMA_KVM_USERSPACE_EXIT:
		th->in_vmm = th->in_exit;
		break;
	case VMA_KVM_PIO:
		if (th->in_exit) {
			th->exit_cause = refined(lat, th, "port",
						 vma_kvm_word(rec, VMA_KVM_PIO_PORT));
		}
		break;
	case VMA_KVM_MMIO:
		if (th->in_exit) {
			th->exit_cause = refined(lat, th, "mmio",
						 vma_kvm_word64(rec, VMA_KVM_MMIO_GPA));
		}
		break;
	case VMA_KVM_MSR:
		if (th->in_exit) {
			th->exit_cause = refined(lat, th, "msr",
						 vma_kvm_word(rec, VMA_KVM_MSR_ECX));
		}
		break;
	default:
		break;
	}
	if (th->exit_cause == UINT32_MAX)
		return UINT32_MAX;
	return th->off_cpu ? th->cause : cause_now(th);
}

static int set_cause(struct vma_latency *lat, struct thread *th, uint32_t cause, uint64_t now)
{
	int rc;

	if (cause == UINT32_MAX)
		return VMA_ERR_NOMEM;
	if (!th->started) {
		th->started = true;
		th->since = now;
		rc = VMA_OK;
	} else {
		rc = charge(lat, th, now);
	}
	th->cause = cause;
	return rc;
}

int vma_latency_host(struct vma_latency *lat, const struct vma_record *rec)
{
	struct thread *th;
	uint32_t cause;
	int rc = VMA_OK;

	if (rec->event == VMA_KVM_SCHED_SWITCH) {
		uint32_t prev = vma_kvm_word(rec, VMA_KVM_SCHED_SWITCH_PREV_PID);
		uint32_t next = vma_kvm_word(rec, VMA_KVM_SCHED_SWITCH_NEXT_PID);

		if ((th = thread_of(lat, prev, false))) {
			rc = set_cause(lat, th, switched_out(lat, th, rec), rec->tsc);
			th->off_cpu = true;
		}
		if (rc == VMA_OK && (th = thread_of(lat, next, false))) {
			th->off_cpu = false;
			rc = set_cause(lat, th, cause_now(th), rec->tsc);
		}
		return rc;
	}
	switch (rec->event) {
	case VMA_KVM_EXIT:
	case VMA_KVM_ENTRY:
		/* a thread that enters or exits a guest is a vcpu thread */
		rc = follow(lat, rec->ctx, &th);
		lat->records_unfollowed += !th && rc == VMA_OK;
		if (!th)
			return rc;
		break;
	case VMA_KVM_USERSPACE_EXIT:
	case VMA_KVM_PIO:
	case VMA_KVM_MMIO:
	case VMA_KVM_MSR:
		th = thread_of(lat, rec->ctx, false);
		break;
	default:
		return VMA_OK;
	}
	if (!th)
		return VMA_OK;
	cause = next_cause(lat, th, rec);
	if (cause == UINT32_MAX)
		return VMA_ERR_NOMEM;
	/* a refinement names the whole exit, from its start: nothing is charged yet */
	if (rec->event == VMA_KVM_PIO || rec->event == VMA_KVM_MMIO || rec->event == VMA_KVM_MSR) {
		if (th->started)
			th->cause = cause;
		return VMA_OK;
	}
	return set_cause(lat, th, cause, rec->tsc);
}

static void take_comm(char comm[16], const struct vma_record *rec, enum vma_kvm_word w)
{
	uint32_t i;

	for (i = 0; i < 15; i++)
		comm[i] = (char)(vma_kvm_word(rec, w + i / 4) >> (8 * (i % 4)));
	comm[15] = '\0';
}

/* Intervals named by the user (vma_latency_mark()) are keyed by cpu, never a pid. */
#define MARK_KEY 0x80000000u

/* Open the interval of @key (a pid, or MARK_KEY | cpu) of @guest at @t, charged to @cpu. */
static int open_interval(struct vma_latency *lat, uint32_t guest, uint32_t key, uint32_t cpu,
			 uint64_t t, struct wake **out)
{
	struct wake *w = NULL;
	size_t i;

	for (i = 0; i < lat->nr_open && !w; i++) {
		if (lat->open[i].guest == guest && lat->open[i].pid == key)
			w = &lat->open[i];
	}
	*out = NULL;
	if (!w && lat->nr_open >= OPEN_MAX) {
		lat->unfollowed++;
		return VMA_OK;
	}
	if (!w) {
		if (vma_grow(lat->open, &lat->cap_open, lat->nr_open + 1, 16))
			return VMA_ERR_NOMEM;
		w = &lat->open[lat->nr_open++];
		memset(w, 0, sizeof(*w));
	}
	/* opened again before it closed: the wait starts over, as trace-cmd report -w */
	free(w->split.ticks);
	*w = (struct wake){ .guest = guest, .pid = key, .start = t, .cpu = cpu };
	w->tid = tid_of(lat, guest, cpu);
	*out = w;
	return VMA_OK;
}

static int wake(struct vma_latency *lat, uint32_t guest, const struct vma_record *rec)
{
	struct wake *w;
	int rc = open_interval(lat, guest, vma_kvm_word(rec, VMA_KVM_SCHED_WAKEUP_PID),
			       vma_kvm_word(rec, VMA_KVM_SCHED_WAKEUP_TARGET_CPU), rec->tsc, &w);

	if (w)
		take_comm(w->comm, rec, VMA_KVM_SCHED_WAKEUP_COMM);
	return rc;
}

/* Wake-up @w, run at @end, among the longest kept. */
static int keep(struct vma_latency *lat, const struct wake *w, uint64_t end)
{
	struct lat_kept k = { .start = w->start, .end = end, .guest = w->guest, .cpu = w->cpu,
			      .pid = w->pid & MARK_KEY ? w->task : w->pid, .tid = w->tid };

	memcpy(k.comm, w->comm, sizeof(k.comm));
	return lat_longest_add(&lat->longest, &k, &w->split);
}

/* Wake-up @w ran at @end: its latency counted, summed when above the threshold, kept. */
static int wakeup_run(struct vma_latency *lat, const struct wake *w, uint64_t end)
{
	uint64_t latency = end - w->start;

	lat->nr_wakeups++;
	vma_cycles_add(&lat->latencies, latency, NULL);
	if (lat->opts.threshold && latency >= lat->opts.threshold) {
		int rc = lat_split_sum(&lat->above_split, &w->split);

		if (rc)
			return rc;
		lat->above++;
		lat->above_ticks += latency;
	}
	return keep(lat, w, end);
}

/* Close the interval of @key of @guest at @t, if one is open. */
static int close_interval(struct vma_latency *lat, uint32_t guest, uint32_t key, uint64_t t)
{
	struct thread *th;
	struct wake *w;
	uint64_t charged = 0;
	size_t i, c;
	int rc;

	for (i = 0; i < lat->nr_open; i++) {
		if (lat->open[i].guest == guest && lat->open[i].pid == key)
			break;
	}
	if (i == lat->nr_open)
		return VMA_OK;
	w = &lat->open[i];
	th = w->tid ? thread_of(lat, w->tid, false) : NULL;
	rc = th ? charge(lat, th, t) : VMA_OK;
	/* what no host record explains (before the thread's first one) is unknown */
	for (c = 0; c < w->split.n; c++)
		charged += w->split.ticks[c];
	if (rc == VMA_OK && t - w->start > charged)
		rc = lat_split_add(&w->split, CAUSE_UNKNOWN, t - w->start - charged);
	if (rc == VMA_OK)
		rc = wakeup_run(lat, w, t);
	free(w->split.ticks);
	*w = lat->open[--lat->nr_open];
	return rc;
}

static int run(struct vma_latency *lat, uint32_t guest, const struct vma_record *rec)
{
	return close_interval(lat, guest, vma_kvm_word(rec, VMA_KVM_SCHED_SWITCH_NEXT_PID),
			      rec->tsc);
}

int vma_latency_mark(struct vma_latency *lat, uint32_t guest, const struct vma_record *rec,
		     bool start)
{
	struct wake *w;
	int rc;

	lat->have_guest = true;
	if (!start)
		return close_interval(lat, guest, MARK_KEY | rec->pcpu, rec->tsc);
	rc = open_interval(lat, guest, MARK_KEY | rec->pcpu, rec->pcpu, rec->tsc, &w);
	if (w)
		w->task = rec->ctx;
	return rc;
}

int vma_latency_guest(struct vma_latency *lat, uint32_t guest, const struct vma_record *rec)
{
	lat->have_guest = true;
	if (lat->opts.marked)
		return VMA_OK; /* the user's events make the intervals (vma_latency_mark()) */
	/* a wake-up starts at sched_waking; sched_wakeup only where none is recorded */
	if (rec->event == VMA_KVM_SCHED_WAKING) {
		size_t old = lat->cap_waking;

		if (vma_grow(lat->waking, &lat->cap_waking, (size_t)guest + 1, 4))
			return VMA_ERR_NOMEM;
		memset(lat->waking + old, 0, (lat->cap_waking - old) * sizeof(*lat->waking));
		lat->waking[guest] = true;
		return wake(lat, guest, rec);
	}
	if (rec->event == VMA_KVM_SCHED_WAKEUP && !(guest < lat->cap_waking && lat->waking[guest]))
		return wake(lat, guest, rec);
	if (rec->event == VMA_KVM_SCHED_SWITCH)
		return run(lat, guest, rec);
	return VMA_OK;
}

/* ---- the report ---------------------------------------------------------- */

static int by_ticks_desc(const void *a, const void *b)
{
	const struct vma_lat_share *x = a, *y = b;

	if (x->ticks != y->ticks)
		return x->ticks < y->ticks ? 1 : -1;
	return strcmp(x->cause, y->cause);
}

/* Room for @n shares in *@out.  Return: VMA_OK or VMA_ERR_NOMEM. */
static int shares_new(struct vma_lat_share **out, uint32_t *nr, size_t n)
{
	*out = NULL;
	*nr = 0;
	if (n && !(*out = calloc(n, sizeof(**out))))
		return VMA_ERR_NOMEM;
	return VMA_OK;
}

/* @s as shares, largest first.  Return: VMA_OK or VMA_ERR_NOMEM. */
static int shares(const struct vma_latency *lat, const struct lat_split *s,
		  struct vma_lat_share **out, uint32_t *nr)
{
	size_t i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->ticks[i] != 0;
	if (shares_new(out, nr, n))
		return VMA_ERR_NOMEM;
	for (i = 0; i < s->n; i++) {
		if (s->ticks[i])
			(*out)[(*nr)++] = (struct vma_lat_share){
				vma_strtab_get(&lat->causes, (uint32_t)i), s->ticks[i] };
	}
	qsort(*out, *nr, sizeof(**out), by_ticks_desc);
	return VMA_OK;
}

/* shares() of a kept wake-up's split. */
static int kept_shares(const struct vma_latency *lat, const struct lat_kept *k,
		       struct vma_lat_share **out, uint32_t *nr)
{
	uint32_t i;

	if (shares_new(out, nr, k->nr))
		return VMA_ERR_NOMEM;
	for (i = 0; i < k->nr; i++)
		(*out)[(*nr)++] = (struct vma_lat_share){
			vma_strtab_get(&lat->causes, k->split[i].cause), k->split[i].ticks };
	qsort(*out, *nr, sizeof(**out), by_ticks_desc);
	return VMA_OK;
}

/* The report's @i-th wake-up (0: the longest), once sorted. */
static inline const struct lat_kept *nth(const struct vma_latency *lat, size_t i)
{
	return lat_longest_nth(&lat->longest, i);
}

/*
 * The latency at rank @q of the wake-ups, worst first (nearest rank):
 * from the kept ones when it is among them, else from the distribution
 * (exact while it is, *@exact says).
 */
static uint64_t rank(struct vma_latency *lat, double q, bool *exact)
{
	uint64_t n = lat->nr_wakeups, k = (uint64_t)((1.0 - q) * (double)n), a, zeros;
	struct vma_cycles *d = &lat->latencies;

	if (k >= n)
		k = n - 1;
	*exact = true;
	if (k < lat->longest.nr)
		return lat_kept_latency(nth(lat, k));
	*exact = vma_cycles_is_exact(d);
	/* ascending rank a; zero latencies are the distribution's events, not its count */
	a = n - 1 - k;
	zeros = d->events - d->count;
	if (a < zeros)
		return 0;
	a -= zeros;
	if (d->count > UINT32_MAX)
		return vma_cycles_quantile(d, VMA_CYCLES_BY_COUNT,
					   (uint32_t)((double)a / (double)d->count * 2147483648.0),
					   2147483648u);
	return vma_cycles_quantile(d, VMA_CYCLES_BY_COUNT, (uint32_t)a, (uint32_t)d->count);
}

/* The wake-ups at or above the threshold, from the kept ones: their number, summed into @agg. */
static int sum_kept(struct vma_latency *lat, struct vma_lat_report *r, struct lat_split *agg,
		    size_t *m)
{
	size_t i, c;
	int rc = VMA_OK;

	for (i = 0; i < lat->longest.nr && lat_kept_latency(nth(lat, i)) >= r->threshold; i++) {
		const struct lat_kept *k = nth(lat, i);

		for (c = 0; c < k->nr && rc == VMA_OK; c++)
			rc = lat_split_add(agg, k->split[c].cause, k->split[c].ticks);
		r->aggregate_ticks += lat_kept_latency(k);
	}
	*m = i;
	return rc;
}

static int fill_wakeups(struct vma_latency *lat, struct vma_lat_report *r)
{
	struct lat_split agg = { 0 };
	size_t i, m = 0;
	int rc = VMA_OK;

	r->wakeups = lat->nr_wakeups;
	r->unfollowed = lat->unfollowed;
	if (!lat->nr_wakeups)
		return VMA_OK;
	lat_longest_sort(&lat->longest);
	r->max = lat_kept_latency(nth(lat, 0));
	r->p50 = rank(lat, 0.50, &r->p50_exact);
	r->p99 = rank(lat, 0.99, &r->p99_exact);
	r->threshold_is_p99 = !lat->opts.threshold;
	r->threshold = lat->opts.threshold ? lat->opts.threshold : r->p99;
	/* past the kept ones the p99 is no threshold the aggregate can be exact for */
	if (!lat->opts.threshold && lat->longest.evicted && lat->longest.evicted_max > r->threshold) {
		r->threshold = lat->longest.evicted_max;
		r->threshold_raised = true;
	}
	if (lat->opts.threshold) {
		for (i = 0; i < lat->longest.nr && lat_kept_latency(nth(lat, i)) >= r->threshold; i++)
			;
		m = i;
		r->above = lat->above;
		r->aggregate_ticks = lat->above_ticks;
		rc = lat_split_sum(&agg, &lat->above_split);
	} else {
		rc = sum_kept(lat, r, &agg, &m);
		r->above = m;
		/* the ties at the threshold that were let go */
		if (rc == VMA_OK && lat->longest.evicted && lat->longest.evicted_max == r->threshold) {
			r->above += lat->longest.at_max;
			r->aggregate_ticks += lat->longest.at_max * r->threshold;
			rc = lat_split_sum(&agg, &lat->longest.at_max_split);
		}
	}
	r->nr_worst = (uint32_t)(m < lat->opts.worst ? m : lat->opts.worst);
	r->worst = r->nr_worst ? calloc(r->nr_worst, sizeof(*r->worst)) : NULL;
	if (r->nr_worst && !r->worst)
		rc = VMA_ERR_NOMEM;
	for (i = 0; rc == VMA_OK && i < r->nr_worst; i++) {
		const struct lat_kept *k = nth(lat, i);
		struct vma_lat_interval *o = &r->worst[i];

		*o = (struct vma_lat_interval){ .start = k->start, .end = k->end,
						.guest = k->guest, .cpu = k->cpu,
						.pid = k->pid, .host_tid = k->tid };
		memcpy(o->comm, k->comm, sizeof(o->comm));
		rc = kept_shares(lat, k, &o->split, &o->nr_split);
	}
	if (rc == VMA_OK)
		rc = shares(lat, &agg, &r->aggregate, &r->nr_aggregate);
	free(agg.ticks);
	return rc;
}

struct vma_lat_report *vma_latency_report(struct vma_latency *lat, uint64_t end)
{
	struct vma_lat_report *r = calloc(1, sizeof(*r));
	size_t i;
	int rc = VMA_OK;

	if (!r)
		return NULL;
	r->hz = lat->opts.hz;
	r->have_guest = lat->have_guest;
	r->marked = lat->opts.marked;
	r->marked_end = lat->opts.marked_end;
	r->records_unfollowed = lat->records_unfollowed;
	/* the time since each thread's last change is its current cause's */
	for (i = 0; i < lat->nr_threads && rc == VMA_OK; i++) {
		if (lat->threads[i].started)
			rc = charge(lat, &lat->threads[i], end);
	}
	if (rc == VMA_OK)
		rc = fill_wakeups(lat, r);
	r->threads = lat->nr_threads ? calloc(lat->nr_threads, sizeof(*r->threads)) : NULL;
	if (lat->nr_threads && !r->threads)
		rc = VMA_ERR_NOMEM;
	for (i = 0; rc == VMA_OK && i < lat->nr_threads; i++) {
		const struct thread *th = &lat->threads[i];
		struct vma_lat_thread *o = &r->threads[r->nr_threads];
		size_t c;

		if (!th->started)
			continue;
		o->tid = th->tid;
		for (c = 0; c < th->total.n; c++)
			o->ticks += th->total.ticks[c];
		rc = shares(lat, &th->total, &o->split, &o->nr_split);
		r->nr_threads++;
	}
	if (rc) {
		vma_lat_report_free(r);
		return NULL;
	}
	return r;
}

void vma_lat_report_free(struct vma_lat_report *r)
{
	uint32_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_worst; i++)
		free(r->worst[i].split);
	for (i = 0; i < r->nr_threads; i++)
		free(r->threads[i].split);
	free(r->worst);
	free(r->aggregate);
	free(r->threads);
	free(r);
}
