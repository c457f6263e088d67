/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulated Xen host of vmalyze-gen.
 *
 * P pcpus run the vcpus of dom0 (PV), D guest domains (HVM or PV) and the
 * idle domain under a simple FIFO scheduler with a time slice.  The event
 * loop pops the earliest pending action of a pcpu (or a timer that wakes a
 * vcpu) and lets that pcpu write a short burst of records, much as Xen's
 * tracing would on that cpu:
 *
 *  - HVM vcpus alternate guest time and exits: vmexit, handler records,
 *    vmentry.  HLT exits usually block the vcpu inside the exit; a timer
 *    interrupt at the end of the slice may preempt it inside the exit; an
 *    interrupt exit sometimes pauses it (offline).  A vcpu descheduled in an
 *    exit writes its vmentry when it runs again, as Xen does.
 *  - PV vcpus write hypercall records (TRC_PV_HYPERCALL_V2) and block with
 *    sched_op(block) or go offline with vcpu_op(down).
 *  - Wakes happen on the vcpu's last pcpu or a random one; if that pcpu is
 *    running an HVM vcpu in guest mode, the interrupt makes it exit first.
 *  - Idle pcpus write C-state entry and exit records.
 *
 * A lost-records gap drops every burst of one pcpu for a while, then writes
 * TRC_LOST_RECORDS as Xen does, just before the first record that fits.
 *
 * Records a reader will see are reported to the analyzer view
 * (gen-observe.c), which computes the ground truth.  The record writers
 * are in gen-sim-base.c, gen-sim-hvm.c and gen-sim-pv.c.
 */
#include <stdlib.h>

#include "gen-sim.h"
#include "vmalyze/status.h"

/* ---- scheduling ---- */

static bool is_idle_pcpu(const struct sim *s, uint32_t p)
{
	const struct gen_pcpu *pc = &s->g->pcpus[p];

	return pc->cur == pc->idle && !pc->tickled;
}

/* A vcpu was queued: send an idle pcpu to fetch it. */
static void tickle(struct sim *s, uint32_t v, uint64_t now)
{
	uint32_t n = s->g->opt.pcpus;
	uint32_t p = s->g->vcpus[v].pcpu, i, start;

	if (p >= n || !is_idle_pcpu(s, p)) {
		p = GEN_NONE;
		start = (uint32_t)rnd_below(s, n);
		for (i = 0; i < n; i++) {
			if (is_idle_pcpu(s, (start + i) % n)) {
				p = (start + i) % n;
				break;
			}
		}
	}
	if (p == GEN_NONE)
		return;
	s->g->pcpus[p].tickled = true;
	set_action(s, p, A_SCHEDULE, now + rnd_range(s, s->us, 4 * s->us));
}

static uint64_t next_pv_time(struct sim *s, uint32_t p, uint64_t now)
{
	uint64_t t = now + rnd_exp(s, 15 * s->us);
	uint64_t end = s->g->pcpus[p].slice_end;

	return t < end ? t : end;
}

static void schedule_guest_exit(struct sim *s, uint32_t p, uint64_t now)
{
	uint64_t t = now + rnd_exp(s, 25 * s->us);
	uint64_t end = s->g->pcpus[p].slice_end;

	set_action(s, p, A_GUEST_EXIT, t < end ? t : end);
}

/*
 * The pcpu's vcpu stops running (to @prev_state) and the head of the run
 * queue, or the idle vcpu, takes over.  Xen writes the switch records,
 * then the two runstate changes.
 */
static void do_switch(struct sim *s, uint32_t p, int prev_state)
{
	struct gen *g = s->g;
	struct gen_pcpu *pc = &g->pcpus[p];
	uint32_t prev = pc->cur, next = rq_pop(s);
	struct gen_vcpu *pv = &g->vcpus[prev], *nv;
	uint32_t words[4];
	uint64_t now;

	if (next == GEN_NONE)
		next = pc->idle;
	nv = &g->vcpus[next];
	words[0] = pv->dom;
	words[1] = pv->vid;
	words[2] = cycles_to_ns(s, s->bt - pv->since);
	rec(s, TRC_SCHED_SWITCH_INFPREV, words, 3);
	words[0] = nv->dom;
	words[1] = nv->vid;
	words[2] = nv->state == RS_RUNNABLE ? cycles_to_ns(s, s->bt - nv->since) : 0;
	words[3] = next == pc->idle ? 0 : cycles_to_ns(s, s->slice);
	rec(s, TRC_SCHED_SWITCH_INFNEXT, words, 4);
	words[0] = pv->dom;
	words[1] = pv->vid;
	words[2] = nv->dom;
	words[3] = nv->vid;
	rec(s, TRC_SCHED_SWITCH, words, 4);
	rec_runstate(s, prev, RS_RUNNING, prev_state);
	now = s->bt;
	rec_runstate(s, next, RS_RUNNABLE, RS_RUNNING);
	pc->cur = next;
	nv->pcpu = p;
	if (prev_state == RS_RUNNABLE && prev != pc->idle) {
		rq_push(s, prev);
		tickle(s, prev, now);
	}
	if (next == pc->idle) {
		rec_pm_entry(s, 1 + (uint32_t)rnd_below(s, 3));
		set_action(s, p, A_IDLE_TICK, s->bt + rnd_exp(s, 2000 * s->us));
		return;
	}
	pc->scheduled = true;
	pc->slice_end = now + s->slice;
	if (nv->kind == GEN_HVM) {
		set_action(s, p, A_RESUME, s->bt + rnd_range(s, s->us, 3 * s->us));
	} else {
		set_action(s, p, A_PV, next_pv_time(s, p, s->bt));
	}
}

/* ---- lost-record gaps ---- */

static bool gap_due(struct sim *s, uint64_t now)
{
	uint64_t trig = s->gap_trigger[s->gap_next];

	if (s->g->opt.size)
		return vma_xtw_bytes(s->g->w) >= trig;
	return now >= trig;
}

static void arm_gap(struct sim *s)
{
	uint32_t n = s->g->opt.pcpus, start = (uint32_t)rnd_below(s, n), i;

	for (i = 0; i < n; i++) {
		struct gen_pcpu *pc = &s->g->pcpus[(start + i) % n];

		if (pc->scheduled) {
			pc->gap_pending = true;
			s->gap_armed = true;
			return;
		}
	}
}

/* Write the lost record that ends a gap, as Xen does before the next record. */
static void end_gap(struct sim *s, uint32_t p, uint64_t now)
{
	struct gen *g = s->g;
	struct gen_pcpu *pc = &g->pcpus[p];
	struct gen_vcpu *cur = &g->vcpus[pc->cur];
	int ret;

	ret = vma_xtw_lost(g->w, p, now, pc->gap_dropped, cur->dom, cur->vid, pc->gap_first);
	if (ret && !s->err)
		s->err = ret;
	vma_gen_obs_tsc(g, p, now);
	vma_gen_obs_lost_end(g, p, now, pc->cur);
	pc->in_gap = false;
	pc->lost_records++;
	g->gaps_done++;
	s->gap_armed = false;
	s->gap_next++;
}

/* Start a burst of records on @p at @t or later; returns its time. */
static uint64_t burst(struct sim *s, uint32_t p, uint64_t t)
{
	struct gen_pcpu *pc = &s->g->pcpus[p];

	if (t <= s->clock)
		t = s->clock + 1;
	s->bp = p;
	s->bt = t;
	s->drop = false;
	if (!s->gap_armed && s->gap_next < s->g->opt.lost && gap_due(s, t))
		arm_gap(s);
	if (pc->in_gap) {
		if (t >= pc->gap_until) {
			end_gap(s, p, t);
			step(s);
		} else {
			s->drop = true;
		}
	} else if (pc->gap_pending) {
		pc->gap_pending = false;
		pc->in_gap = true;
		pc->gap_first = t;
		pc->gap_until = t + rnd_range(s, 50 * s->us, 1000 * s->us);
		pc->gap_dropped = 0;
		vma_gen_obs_lost_start(s->g, p, t);
		s->drop = true;
	}
	return s->bt;
}

/* ---- actions ---- */

static void act_schedule(struct sim *s, uint32_t p, uint64_t t)
{
	struct gen_pcpu *pc = &s->g->pcpus[p];

	pc->tickled = false;
	burst(s, p, t);
	if (!s->rq_len) {
		/* Someone else took the work: back to sleep. */
		if (!pc->cstate)
			rec_pm_entry(s, 1 + (uint32_t)rnd_below(s, 3));
		set_action(s, p, A_IDLE_TICK, s->bt + rnd_exp(s, 2000 * s->us));
		return;
	}
	if (pc->cstate)
		rec_pm_exit(s);
	do_switch(s, p, RS_RUNNABLE);
}

static void act_idle_tick(struct sim *s, uint32_t p, uint64_t t)
{
	burst(s, p, t);
	if (s->g->pcpus[p].cstate)
		rec_pm_exit(s);
	rec_pm_entry(s, 1 + (uint32_t)rnd_below(s, 3));
	set_action(s, p, A_IDLE_TICK, s->bt + rnd_exp(s, 2000 * s->us));
}

static void act_resume(struct sim *s, uint32_t p, uint64_t t)
{
	uint32_t v = s->g->pcpus[p].cur;

	burst(s, p, t);
	if (rnd_below(s, 4) == 0)
		rec_inj_virq(s);
	rec_vmentry(s, v);
	schedule_guest_exit(s, p, s->bt);
}

static void act_guest_exit(struct sim *s, uint32_t p, uint64_t t)
{
	struct gen_pcpu *pc = &s->g->pcpus[p];
	uint32_t v = pc->cur;
	enum gen_exit ex;
	uint64_t busy;
	uint32_t vec = 0xf9; /* LOCAL_TIMER */

	t = burst(s, p, t);
	if (t >= pc->slice_end) {
		ex = EX_EXTINT;
		rec_vmexit(s, v, ex);
		rec_intr(s, vec);
		busy = rnd_range(s, s->us, 3 * s->us);
	} else {
		ex = pick_exit(s);
		rec_vmexit(s, v, ex);
		busy = rec_exit_handlers(s, v, ex);
		if (ex == EX_EXTINT && rnd_below(s, 400) == 0) {
			/* An IPI asking this vcpu to pause. */
			s->g->vcpus[v].exit_offline = true;
		}
	}
	set_action(s, p, A_EXIT_DONE, s->bt + busy);
}

static void act_exit_done(struct sim *s, uint32_t p, uint64_t t)
{
	struct gen_pcpu *pc = &s->g->pcpus[p];
	uint32_t v = pc->cur;
	struct gen_vcpu *vc = &s->g->vcpus[v];

	t = burst(s, p, t);
	if (t >= pc->slice_end) {
		if (s->rq_len) {
			do_switch(s, p, RS_RUNNABLE);
			return;
		}
		pc->slice_end = t + s->slice;
	}
	if (vc->exit_block) {
		rec_vcpu_event(s, TRC_SCHED_BLOCK, v);
		do_switch(s, p, RS_BLOCKED);
		arm_wake(s, v, s->bt + rnd_exp(s, 300 * s->us));
		return;
	}
	if (vc->exit_offline) {
		rec_vcpu_event(s, TRC_SCHED_SLEEP, v);
		do_switch(s, p, RS_OFFLINE);
		arm_wake(s, v, s->bt + rnd_exp(s, 2000 * s->us));
		return;
	}
	if (vc->exit == EX_VINTR || rnd_below(s, 8) == 0)
		rec_inj_virq(s);
	rec_vmentry(s, v);
	schedule_guest_exit(s, p, s->bt);
}

static void act_pv(struct sim *s, uint32_t p, uint64_t t)
{
	struct gen_pcpu *pc = &s->g->pcpus[p];
	uint32_t v = pc->cur, r;

	t = burst(s, p, t);
	if (t >= pc->slice_end) {
		if (s->rq_len) {
			do_switch(s, p, RS_RUNNABLE);
			return;
		}
		pc->slice_end = t + s->slice;
	}
	r = (uint32_t)rnd_below(s, 1000);
	if (r < 50) {
		rec_hypercall(s, 29, 1, 0, 0); /* sched_op(block) */
		rec_vcpu_event(s, TRC_SCHED_BLOCK, v);
		do_switch(s, p, RS_BLOCKED);
		arm_wake(s, v, s->bt + rnd_exp(s, 400 * s->us));
		return;
	}
	if (r < 51) {
		rec_hypercall(s, 24, 2, s->g->vcpus[v].vid, 0); /* vcpu_op(down) */
		rec_vcpu_event(s, TRC_SCHED_SLEEP, v);
		do_switch(s, p, RS_OFFLINE);
		arm_wake(s, v, s->bt + rnd_exp(s, 2000 * s->us));
		return;
	}
	if (rec_pv_hypercall(s, v) && s->rq_len) {
		do_switch(s, p, RS_RUNNABLE); /* a yield gives way when others wait */
		return;
	}
	set_action(s, p, A_PV, next_pv_time(s, p, s->bt));
}

/* A blocked or offline vcpu becomes runnable; the interrupt lands on some pcpu. */
static void ev_wake(struct sim *s, uint32_t v, uint64_t t)
{
	struct gen *g = s->g;
	struct gen_vcpu *vc = &g->vcpus[v];
	uint32_t w = vc->pcpu;
	struct gen_pcpu *wc;
	int old = vc->state;

	if (old != RS_BLOCKED && old != RS_OFFLINE)
		return;
	if (w >= g->opt.pcpus || rnd_below(s, 10) < 3)
		w = (uint32_t)rnd_below(s, g->opt.pcpus);
	wc = &g->pcpus[w];
	t = burst(s, w, t);
	if (wc->action == A_GUEST_EXIT) {
		/* The HVM vcpu there takes the interrupt as an exit. */
		rec_vmexit(s, wc->cur, EX_EXTINT);
		rec_intr(s, 0xf9);
		set_action(s, w, A_EXIT_DONE, s->bt + rnd_range(s, 2 * s->us, 6 * s->us));
	} else if (wc->cur == wc->idle && wc->cstate) {
		rec_pm_exit(s);
	}
	rec_vcpu_event(s, TRC_SCHED_WAKE, v);
	rec_runstate(s, v, old, RS_RUNNABLE);
	rq_push(s, v);
	tickle(s, v, s->bt);
	if (wc->cur == wc->idle && !wc->tickled && !wc->cstate)
		rec_pm_entry(s, 1 + (uint32_t)rnd_below(s, 3));
}

/* ---- setup and main loop ---- */

static int setup(struct sim *s)
{
	struct gen *g = s->g;
	uint32_t i, p;
	uint64_t t0;

	seed_rng(s, g->opt.seed);
	s->us = g->opt.cpu_hz / 1000000;
	if (s->us < 10)
		s->us = 10;
	s->slice = 2000 * s->us;
	s->pass_every = 100000 * s->us;
	fill_exit_table(s);
	s->hcall_weights_total = pv_hcall_weights();
	s->rq = calloc(g->nr_vcpus, sizeof(*s->rq));
	s->gap_trigger = calloc(g->opt.lost + 1, sizeof(*s->gap_trigger));
	if (!s->rq || !s->gap_trigger || pq_init(&s->pq, g->opt.pcpus + g->nr_vcpus))
		return VMA_ERR_NOMEM;
	/* A host that has been up a while: time stamps above 2^32. */
	t0 = g->opt.cpu_hz * (60 + rnd_below(s, 86400));
	s->clock = t0;
	s->next_pass = t0 + s->pass_every;
	s->stop = g->opt.size ? UINT64_MAX :
		  t0 + (uint64_t)(g->opt.duration * (double)g->opt.cpu_hz);
	for (i = 0; i < g->opt.lost; i++) {
		if (g->opt.size) {
			s->gap_trigger[i] = g->opt.size / (g->opt.lost + 1) * (i + 1);
		} else {
			s->gap_trigger[i] = t0 + (s->stop - t0) / (g->opt.lost + 1) * (i + 1);
		}
	}
	/* Guest and dom0 vcpus wait in the run queue, in random order. */
	for (i = g->opt.pcpus; i < g->nr_vcpus; i++)
		rq_push(s, i);
	for (i = s->rq_len; i > 1; i--) {
		uint32_t j = (uint32_t)rnd_below(s, i), tmp = s->rq[i - 1];

		s->rq[i - 1] = s->rq[j];
		s->rq[j] = tmp;
	}
	for (i = 0; i < g->nr_vcpus; i++) {
		g->vcpus[i].since = t0;
		g->vcpus[i].rip_base = 0xffffffff81000000ull + 0x10000ull * rnd_below(s, 64);
	}
	for (p = 0; p < g->opt.pcpus; p++) {
		uint64_t when = t0 + 1 + rnd_below(s, 20 * s->us);

		if (p < s->rq_len) {
			g->pcpus[p].tickled = true;
			set_action(s, p, A_SCHEDULE, when);
		} else {
			set_action(s, p, A_IDLE_TICK, when);
		}
	}
	return s->err;
}

/* Run the action of pcpu @p due at @t. */
static void dispatch(struct sim *s, uint32_t p, uint64_t t)
{
	struct gen_pcpu *pc = &s->g->pcpus[p];
	enum action a = (enum action)pc->action;

	pc->action = A_NONE;
	switch (a) {
	case A_SCHEDULE:
		act_schedule(s, p, t);
		break;
	case A_RESUME:
		act_resume(s, p, t);
		break;
	case A_GUEST_EXIT:
		act_guest_exit(s, p, t);
		break;
	case A_EXIT_DONE:
		act_exit_done(s, p, t);
		break;
	case A_PV:
		act_pv(s, p, t);
		break;
	case A_IDLE_TICK:
		act_idle_tick(s, p, t);
		break;
	default:
		break;
	}
}

int vma_gen_run(struct gen *g)
{
	struct sim s = { .g = g };
	uint32_t p;
	int ret;

	ret = setup(&s);
	while (!ret && s.pq.len && !s.err) {
		uint32_t id = s.pq.heap[0].id;
		uint64_t when = s.pq.heap[0].key;
		uint64_t now = when > s.clock ? when : s.clock + 1;

		if (now > s.stop || (g->opt.size && vma_xtw_bytes(g->w) >= g->opt.size))
			break;
		if (now >= s.next_pass) {
			/* xentrace's periodic pass over all cpus. */
			s.err = vma_xtw_flush_all(g->w);
			s.next_pass += s.pass_every;
		}
		if (id < g->opt.pcpus) {
			/* A new action of this pcpu replaces the entry in place. */
			dispatch(&s, id, when);
			if (g->pcpus[id].action == A_NONE)
				pq_remove(&s.pq, id);
		} else {
			pq_remove(&s.pq, id);
			ev_wake(&s, id - g->opt.pcpus, when);
		}
	}
	/* A gap still open at the end gets its lost record, so readers know. */
	for (p = 0; p < g->opt.pcpus && !s.err && !ret; p++) {
		if (g->pcpus[p].in_gap) {
			end_gap(&s, p, s.clock + 1);
			s.clock++;
		}
	}
	g->end_time = s.clock;
	vma_gen_obs_finish(g);
	if (!ret)
		ret = s.err;
	free(s.pq.heap);
	free(s.pq.pos);
	free(s.rq);
	free(s.gap_trigger);
	return ret;
}
