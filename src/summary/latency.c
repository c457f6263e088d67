/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Blame (latency.h).  Each host vcpu thread is in one cause at a time,
 * from its records (exit, refinement, userspace exit, entry, host
 * sched_switch); when the cause changes, the time since the last change
 * goes to the thread's total and to every open wake-up on the guest cpu
 * the thread runs.  A wake-up opens at sched_waking (sched_wakeup in a
 * guest trace that does not record it) and closes at the
 * sched_switch that runs the task; it is kept whole (its split by cause)
 * until the report, which needs every latency for the p99.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/arm-names.h"
#include "vmalyze/grow.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/latency.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/xen-names.h"

/* VMX and SVM halt exits. */
#define VMX_EXIT_HLT 12u
#define SVM_EXIT_HLT 0x78u

enum { CAUSE_UNKNOWN = 0, CAUSE_GUEST, CAUSE_VMM, CAUSE_HALTED, CAUSE_BLOCKED, CAUSE_PREEMPTED };

static const char *const fixed_causes[] = {
	[CAUSE_UNKNOWN] = "unknown",
	[CAUSE_GUEST] = "guest",
	[CAUSE_VMM] = "VMM",
	[CAUSE_HALTED] = "halted",
	[CAUSE_BLOCKED] = "blocked on host",
	[CAUSE_PREEMPTED] = "preempted",
};

/* Ticks by cause id; grown as causes appear. */
struct split {
	uint64_t *ticks;
	size_t n, cap;
};

struct thread {
	uint32_t tid;
	bool in_exit, in_vmm, halt_exit, off_cpu;
	uint32_t exit_cause;        /* the cause while in the exit (with its refinement) */
	uint32_t reason_cause;      /* the exit's reason without refinement */
	uint32_t cause;             /* now */
	uint64_t since;
	bool started;
	struct split total;
};

struct wake {
	bool open;
	uint32_t guest, cpu, pid;
	char comm[16];
	uint32_t task;              /* a marked interval: the guest thread of its start */
	uint64_t start, end;
	uint32_t tid;               /* host thread charged, 0 none */
	struct split split;
};

struct tie {
	uint32_t guest, cpu, tid;
};

struct vma_latency {
	struct vma_latency_options opts;
	char **causes;              /* owned names, by cause id */
	size_t nr_causes, cap_causes;
	struct thread *threads;     /* by tid, sorted */
	size_t nr_threads, cap_threads;
	struct tie *ties;
	size_t nr_ties, cap_ties;
	struct wake *open;          /* wake-ups not yet run (few at a time) */
	size_t nr_open, cap_open;
	struct wake *done;          /* every wake-up run */
	size_t nr_done, cap_done;
	bool have_guest;
	bool *waking;               /* [guest]: it records sched_waking */
	size_t cap_waking;
};

static int split_add(struct split *s, uint32_t cause, uint64_t ticks)
{
	size_t old = s->cap;

	if (!ticks)
		return VMA_OK;
	if (vma_grow(s->ticks, &s->cap, (size_t)cause + 1, 8))
		return VMA_ERR_NOMEM;
	if (s->cap > old)
		memset(s->ticks + old, 0, (s->cap - old) * sizeof(*s->ticks));
	if (cause >= s->n)
		s->n = (size_t)cause + 1;
	s->ticks[cause] += ticks;
	return VMA_OK;
}

/* The id of cause @name, interned.  UINT32_MAX when out of memory. */
static uint32_t cause_id(struct vma_latency *lat, const char *name)
{
	size_t i;

	for (i = 0; i < lat->nr_causes; i++) {
		if (!strcmp(lat->causes[i], name))
			return (uint32_t)i;
	}
	if (vma_grow(lat->causes, &lat->cap_causes, lat->nr_causes + 1, 16))
		return UINT32_MAX;
	lat->causes[lat->nr_causes] = strdup(name);
	if (!lat->causes[lat->nr_causes])
		return UINT32_MAX;
	return (uint32_t)lat->nr_causes++;
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
	for (i = 0; i < sizeof(fixed_causes) / sizeof(fixed_causes[0]); i++) {
		if (cause_id(lat, fixed_causes[i]) != i) {
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
	for (i = 0; i < lat->nr_causes; i++)
		free(lat->causes[i]);
	for (i = 0; i < lat->nr_threads; i++)
		free(lat->threads[i].total.ticks);
	for (i = 0; i < lat->nr_open; i++)
		free(lat->open[i].split.ticks);
	for (i = 0; i < lat->nr_done; i++)
		free(lat->done[i].split.ticks);
	free(lat->causes);
	free(lat->threads);
	free(lat->ties);
	free(lat->open);
	free(lat->done);
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

int vma_latency_tie(struct vma_latency *lat, uint32_t guest, uint32_t cpu, uint32_t tid)
{
	if (vma_grow(lat->ties, &lat->cap_ties, lat->nr_ties + 1, 8) ||
	    !thread_of(lat, tid, true))
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
	rc = split_add(&th->total, th->cause, now - th->since);
	for (i = 0; i < lat->nr_open && rc == VMA_OK; i++) {
		struct wake *w = &lat->open[i];
		uint64_t from = w->start > th->since ? w->start : th->since;

		if (w->tid == th->tid && now > from)
			rc = split_add(&w->split, th->cause, now - from);
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
	return cause_id(lat, buf);
}

/* "exit REASON REFINE": the exit's device access. */
static uint32_t refined(struct vma_latency *lat, const struct thread *th, const char *what,
			uint64_t key)
{
	char buf[128];

	if (th->halt_exit || th->reason_cause >= lat->nr_causes)
		return th->exit_cause;
	snprintf(buf, sizeof(buf), "%s %s %#llx", lat->causes[th->reason_cause], what,
		 (unsigned long long)key);
	return cause_id(lat, buf);
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
	return cause_id(lat, buf);
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
		th = thread_of(lat, rec->ctx, true);
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
	if (!th) {
		return rec->event == VMA_KVM_EXIT || rec->event == VMA_KVM_ENTRY ? VMA_ERR_NOMEM
										  : VMA_OK;
	}
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
	if (!w) {
		if (vma_grow(lat->open, &lat->cap_open, lat->nr_open + 1, 16))
			return VMA_ERR_NOMEM;
		w = &lat->open[lat->nr_open++];
		memset(w, 0, sizeof(*w));
	}
	/* opened again before it closed: the wait starts over, as trace-cmd report -w */
	free(w->split.ticks);
	*w = (struct wake){ .open = true, .guest = guest, .pid = key, .start = t, .cpu = cpu };
	w->tid = tid_of(lat, guest, cpu);
	*out = w;
	return VMA_OK;
}

static int wake(struct vma_latency *lat, uint32_t guest, const struct vma_record *rec)
{
	struct wake *w;
	int rc = open_interval(lat, guest, vma_kvm_word(rec, VMA_KVM_SCHED_WAKEUP_PID),
			       vma_kvm_word(rec, VMA_KVM_SCHED_WAKEUP_TARGET_CPU), rec->tsc, &w);

	if (rc == VMA_OK)
		take_comm(w->comm, rec, VMA_KVM_SCHED_WAKEUP_COMM);
	return rc;
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
		rc = split_add(&w->split, CAUSE_UNKNOWN, t - w->start - charged);
	if (rc || vma_grow(lat->done, &lat->cap_done, lat->nr_done + 1, 64))
		return rc ? rc : VMA_ERR_NOMEM;
	w->open = false;
	w->end = t;
	lat->done[lat->nr_done++] = *w;
	*w = lat->open[--lat->nr_open];
	return VMA_OK;
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
	if (rc == VMA_OK)
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

/* @s as shares, largest first.  Return: VMA_OK or VMA_ERR_NOMEM. */
static int shares(const struct vma_latency *lat, const struct split *s,
		  struct vma_lat_share **out, uint32_t *nr)
{
	size_t i, n = 0;

	*out = NULL;
	*nr = 0;
	for (i = 0; i < s->n; i++)
		n += s->ticks[i] != 0;
	if (!n)
		return VMA_OK;
	*out = calloc(n, sizeof(**out));
	if (!*out)
		return VMA_ERR_NOMEM;
	for (i = 0; i < s->n; i++) {
		if (s->ticks[i])
			(*out)[(*nr)++] = (struct vma_lat_share){ lat->causes[i], s->ticks[i] };
	}
	qsort(*out, *nr, sizeof(**out), by_ticks_desc);
	return VMA_OK;
}

static int by_latency_desc(const void *a, const void *b)
{
	const struct wake *x = a, *y = b;
	uint64_t lx = x->end - x->start, ly = y->end - y->start;

	if (lx != ly)
		return lx < ly ? 1 : -1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The latency at rank @q of @n sorted worst first (nearest rank). */
static uint64_t rank(const struct wake *sorted, size_t n, double q)
{
	size_t k = (size_t)((1.0 - q) * (double)n);

	if (k >= n)
		k = n - 1;
	return sorted[k].end - sorted[k].start;
}

static int fill_wakeups(struct vma_latency *lat, struct vma_lat_report *r)
{
	struct split agg = { 0 };
	size_t i, n = lat->nr_done;
	int rc = VMA_OK;

	r->wakeups = n;
	if (!n)
		return VMA_OK;
	qsort(lat->done, n, sizeof(*lat->done), by_latency_desc);
	r->max = lat->done[0].end - lat->done[0].start;
	r->p50 = rank(lat->done, n, 0.50);
	r->p99 = rank(lat->done, n, 0.99);
	r->threshold_is_p99 = !lat->opts.threshold;
	r->threshold = lat->opts.threshold ? lat->opts.threshold : r->p99;
	for (i = 0; i < n && lat->done[i].end - lat->done[i].start >= r->threshold; i++) {
		const struct split *s = &lat->done[i].split;
		size_t c;

		for (c = 0; c < s->n && rc == VMA_OK; c++)
			rc = split_add(&agg, (uint32_t)c, s->ticks[c]);
		r->aggregate_ticks += lat->done[i].end - lat->done[i].start;
	}
	r->above = i;
	r->nr_worst = (uint32_t)(r->above < lat->opts.worst ? r->above : lat->opts.worst);
	r->worst = r->nr_worst ? calloc(r->nr_worst, sizeof(*r->worst)) : NULL;
	if (r->nr_worst && !r->worst)
		rc = VMA_ERR_NOMEM;
	for (i = 0; rc == VMA_OK && i < r->nr_worst; i++) {
		const struct wake *w = &lat->done[i];
		struct vma_lat_interval *o = &r->worst[i];

		*o = (struct vma_lat_interval){ .start = w->start, .end = w->end,
						.guest = w->guest, .cpu = w->cpu,
						.pid = w->pid & MARK_KEY ? w->task : w->pid,
						.host_tid = w->tid };
		memcpy(o->comm, w->comm, sizeof(o->comm));
		rc = shares(lat, &w->split, &o->split, &o->nr_split);
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
