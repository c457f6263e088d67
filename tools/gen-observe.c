/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The analyzer view of vmalyze-gen: what a correct analyzer can know from
 * the records that reach the file, and what it must therefore report.
 *
 * The simulation calls these hooks for every record it writes (never for
 * the records a lost-record gap drops), in time-stamp order, with the facts
 * the record carries.  The rules are xenalyze's accounting rules, which the
 * truth file header spells out:
 *
 *  - a vcpu's runstate intervals are counted from the first time it is seen
 *    entering "running"; an interval ends at the next change the analyzer
 *    accepts; the interval still open at the end of the trace is not
 *    counted;
 *  - an exit arc runs from a vmexit to the next vmentry on the same vcpu; a
 *    change of that vcpu to runnable closes it early, so time spent blocked
 *    or offline inside the exit counts and time spent waiting runnable does
 *    not; the vmexit record names no vcpu: it belongs to the vcpu the last
 *    scheduling record put on its pcpu;
 *  - a lost-records gap on a pcpu starts at its first_tsc: the pcpu's vcpu
 *    and every known vcpu that is not running enter "lost", and a vcpu that
 *    stops running anywhere while a gap is open does too; a lost vcpu stays
 *    lost until it is seen entering running (or is named by the lost record
 *    as the pcpu's vcpu when the gap ends); entering lost discards the
 *    vcpu's open exit arc.
 *
 * Anything the rules do not expect (a transition from a state the analyzer
 * does not hold) is a generator bug, recorded in g->anomaly.
 */
#include <stdarg.h>
#include <stdio.h>

#include "gen.h"

static void anomaly(struct gen *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void anomaly(struct gen *g, const char *fmt, ...)
{
	va_list ap;

	if (g->nr_anomalies++ == 0) {
		va_start(ap, fmt);
		vsnprintf(g->anomaly, sizeof(g->anomaly), fmt, ap);
		va_end(ap);
	}
}

static bool is_vcpu(const struct gen *g, uint32_t v)
{
	return v < g->nr_vcpus;
}

/* End the current interval (when it has a start) and begin @new_state. */
static void rs_update(struct gen_vcpu *v, int new_state, uint64_t tsc)
{
	struct gen_view *a = &v->view;

	if (a->since && a->since < tsc && a->state < GEN_NR_RS) {
		v->tally.rs_count[a->state]++;
		v->tally.rs_cycles[a->state] += tsc - a->since;
	}
	a->state = (uint8_t)new_state;
	a->since = tsc;
}

static void close_arc(struct gen_vcpu *v, uint64_t tsc)
{
	struct gen_view *a = &v->view;

	if (a->arc_tsc && a->arc_tsc <= tsc) {
		uint64_t arc = tsc - a->arc_tsc;

		v->tally.exit_count[a->arc_slot]++;
		v->tally.exit_cycles[a->arc_slot] += arc;
		if (a->vmcall < GEN_MAX_HCALL) {
			v->tally.vmcall_count[a->vmcall]++;
			v->tally.vmcall_cycles[a->vmcall] += arc;
		}
	}
	a->arc_open = false;
	a->arc_tsc = 0;
	a->vmcall = GEN_NONE;
}

static void lose_vcpu(struct gen_vcpu *v, uint64_t tsc)
{
	v->view.arc_open = false;
	rs_update(v, RS_LOST, tsc);
}

/* A vcpu stops running on @p. */
static void prev_update(struct gen *g, uint32_t p, uint32_t vi, int new_state, uint64_t tsc)
{
	struct gen_vcpu *v = &g->vcpus[vi];
	struct gen_pcpu *pc = &g->pcpus[p];

	if (v->view.pcpu != p || pc->view_cur != vi || v->view.state != RS_RUNNING) {
		anomaly(g, "d%uv%u leaves running on p%u, but the view has it %s on p%u",
			v->dom, v->vid, p, v->view.state == RS_RUNNING ? "running" : "not running",
			v->view.pcpu);
		v->view.since = 0;
	}
	pc->view_cur = GEN_NONE;
	rs_update(v, new_state, tsc);
}

/* A vcpu starts running on @p. */
static void next_update(struct gen *g, uint32_t p, uint32_t vi, uint64_t tsc)
{
	struct gen_vcpu *v = &g->vcpus[vi];
	struct gen_pcpu *pc = &g->pcpus[p];

	if (pc->view_cur != GEN_NONE) {
		if (!pc->view_valid_schedule) {
			/* xenalyze: "seen_valid_schedule 0.  Ignoring." */
			if (is_vcpu(g, pc->view_cur))
				rs_update(&g->vcpus[pc->view_cur], RS_LOST, tsc);
			pc->view_cur = GEN_NONE;
		} else {
			anomaly(g, "p%u gets d%uv%u while it still runs another vcpu", p, v->dom,
				v->vid);
		}
	}
	if (v->view.activated) {
		if (v->view.state == RS_RUNNING) {
			anomaly(g, "d%uv%u starts running twice", v->dom, v->vid);
			v->view.since = 0;
		}
	} else {
		v->view.activated = true;
	}
	rs_update(v, RS_RUNNING, tsc);
	v->view.pcpu = p;
	pc->view_cur = vi;
	pc->view_valid_schedule = true;
}

/* First scheduling record of a vcpu still in INIT. */
static void vcpu_start(struct gen *g, uint32_t p, uint32_t vi, int old, int new_state,
		       uint64_t tsc)
{
	struct gen_vcpu *v = &g->vcpus[vi];
	struct gen_pcpu *pc = &g->pcpus[p];

	if (old == RS_RUNNING) {
		if (pc->view_cur != g->view_default) {
			anomaly(g, "d%uv%u first seen leaving running on p%u after a schedule",
				v->dom, v->vid, p);
		}
		pc->view_cur = GEN_NONE;
	}
	if (new_state != RS_RUNNING)
		return;
	rs_update(v, RS_RUNNING, tsc);
	pc->view_cur = vi;
	v->view.pcpu = p;
}

void vma_gen_obs_runstate(struct gen *g, uint32_t p, uint32_t vi, int old, int new_state,
			  uint64_t tsc)
{
	struct gen_vcpu *v = &g->vcpus[vi];
	struct gen_view *a = &v->view;

	a->known = true;
	if (a->state == RS_INIT) {
		vcpu_start(g, p, vi, old, new_state, tsc);
		return;
	}
	if (new_state == RS_RUNNABLE && a->hvm && a->arc_open)
		close_arc(v, tsc);
	if (a->state != old) {
		if (a->state == RS_LOST) {
			if (new_state != RS_RUNNING)
				return;
		} else {
			anomaly(g, "d%uv%u changes %d->%d but the view has it in %d", v->dom,
				v->vid, old, new_state, a->state);
			return;
		}
	}
	if (old == RS_RUNNING || a->state == RS_RUNNING) {
		prev_update(g, p, vi, new_state, tsc);
		if (g->view_lost_cpus && v->dom != GEN_IDLE_DOMAIN)
			lose_vcpu(v, tsc);
	} else if (new_state == RS_RUNNING) {
		next_update(g, p, vi, tsc);
	} else {
		rs_update(v, new_state, tsc);
	}
}

/* The vcpu a record without a vcpu id belongs to, or GEN_NONE. */
static uint32_t current_guest(struct gen *g, uint32_t p, const char *what)
{
	uint32_t cur = g->pcpus[p].view_cur;

	if (!is_vcpu(g, cur) || g->vcpus[cur].dom == GEN_IDLE_DOMAIN) {
		anomaly(g, "%s on p%u with no guest vcpu in view", what, p);
		return GEN_NONE;
	}
	return cur;
}

void vma_gen_obs_vmexit(struct gen *g, uint32_t p, enum gen_exit ex, uint64_t tsc)
{
	uint32_t cur = current_guest(g, p, "vmexit");
	struct gen_view *a;

	if (cur == GEN_NONE)
		return;
	a = &g->vcpus[cur].view;
	a->hvm = true;
	a->arc_open = true;
	a->arc_tsc = tsc;
	a->arc_slot = g->exit_slot[ex];
	a->vmcall = GEN_NONE;
}

void vma_gen_obs_vmcall(struct gen *g, uint32_t p, uint32_t nr)
{
	uint32_t cur = current_guest(g, p, "vmcall");

	if (cur != GEN_NONE && g->vcpus[cur].view.arc_open)
		g->vcpus[cur].view.vmcall = nr;
}

void vma_gen_obs_vmentry(struct gen *g, uint32_t p, uint64_t tsc)
{
	uint32_t cur = current_guest(g, p, "vmentry");
	struct gen_vcpu *v;

	if (cur == GEN_NONE)
		return;
	v = &g->vcpus[cur];
	v->view.hvm = true;
	if (v->view.arc_open)
		close_arc(v, tsc);
}

void vma_gen_obs_hypercall(struct gen *g, uint32_t p, uint32_t op)
{
	uint32_t cur = current_guest(g, p, "hypercall");

	if (cur != GEN_NONE && op < GEN_MAX_HCALL)
		g->vcpus[cur].tally.hcall[op]++;
}

void vma_gen_obs_lost_start(struct gen *g, uint32_t p, uint64_t first_tsc)
{
	struct gen_pcpu *pc = &g->pcpus[p];
	uint32_t i;

	if (pc->view_cur != GEN_NONE) {
		if (is_vcpu(g, pc->view_cur)) {
			g->vcpus[pc->view_cur].view.arc_open = false;
			prev_update(g, p, pc->view_cur, RS_LOST, first_tsc);
		} else {
			pc->view_cur = GEN_NONE;
		}
	}
	if (pc->view_lost) {
		anomaly(g, "second gap on p%u before the first ended", p);
	} else {
		g->view_lost_cpus++;
	}
	pc->view_lost = true;
	pc->view_lost_tsc = first_tsc;
	/* Any vcpu not seen running may have run on the lost pcpu. */
	for (i = 0; i < g->nr_vcpus; i++) {
		struct gen_vcpu *v = &g->vcpus[i];

		if (v->view.known && v->view.state != RS_RUNNING)
			lose_vcpu(v, first_tsc);
	}
}

void vma_gen_obs_lost_end(struct gen *g, uint32_t p, uint64_t tsc, uint32_t vi)
{
	struct gen_pcpu *pc = &g->pcpus[p];

	if (!pc->view_lost || tsc <= pc->view_lost_tsc) {
		anomaly(g, "gap end on p%u without a gap before it", p);
		return;
	}
	if (pc->view_cur != GEN_NONE)
		anomaly(g, "gap end on p%u, which has a vcpu in view", p);
	g->vcpus[vi].view.known = true;
	next_update(g, p, vi, tsc);
	pc->view_valid_schedule = false;
	pc->view_lost = false;
	g->view_lost_cpus--;
}

/*
 * The end of each pcpu's records: xenalyze puts the vcpu it runs in "lost"
 * at the pcpu's last time stamp, which closes that vcpu's running interval
 * and drops its open arc.  No record of another pcpu can name that vcpu
 * after that time (it is running), so doing this at the very end gives the
 * same tallies as doing it at each pcpu's end.
 */
void vma_gen_obs_finish(struct gen *g)
{
	uint32_t p;

	for (p = 0; p < g->opt.pcpus; p++) {
		uint32_t cur = g->pcpus[p].view_cur;

		if (is_vcpu(g, cur))
			lose_vcpu(&g->vcpus[cur], g->pcpus[p].last_tsc);
	}
}
