/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scheduling state: which vcpu runs on which pcpu, and how long each vcpu
 * and domain spends in each runstate.
 *
 * Only TRC_SCHED_RUNSTATE_CHANGE and _CONTINUE move state; the other
 * scheduler records are for dump mode.  The rules are xenalyze's:
 *
 *  - A vcpu is in INIT until it is first seen running.  Its first records
 *    may predate the trace's view of it, so a first change that does not
 *    make it run leaves it in INIT, and "running->running" backdates it to
 *    its pcpu's first record.
 *  - A runstate change whose old state disagrees with ours is remembered;
 *    when the change it should have followed comes later from another
 *    pcpu, that pcpu's clock is ahead of the first one's, and the first
 *    one's later time stamps are moved forward (skew.c, as xenalyze).
 *  - A vcpu that becomes runnable has its open exit arc closed, so time
 *    spent waiting for a pcpu is not charged to the exit.
 *  - While any pcpu is inside a lost-records gap, a vcpu that stops
 *    running goes to LOST: we cannot know what happened to it.
 *  - When a pcpu's records end, the vcpu on it goes to LOST.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/state-handlers.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-events.h"

/* The domain's state from how many of its vcpus are in each runstate. */
static enum vma_domain_runstate domain_runstate(struct vma_domain *d, bool *valid)
{
	const uint32_t *counts = d->vcpus_in;
	uint32_t known = d->nr_vcpus - counts[VMA_RS_INIT];

	*valid = true;
	if (counts[VMA_RS_LOST] == known)
		return VMA_DRS_LOST;
	if (counts[VMA_RS_RUNNING]) {
		if (counts[VMA_RS_RUNNABLE])
			return VMA_DRS_CONCURRENCY_HAZARD;
		if (counts[VMA_RS_BLOCKED] || counts[VMA_RS_OFFLINE])
			return VMA_DRS_PARTIAL_RUN;
		return VMA_DRS_FULL_RUN;
	}
	if (counts[VMA_RS_RUNNABLE]) {
		if (counts[VMA_RS_BLOCKED] || counts[VMA_RS_OFFLINE])
			return VMA_DRS_PARTIAL_CONTENTION;
		return VMA_DRS_FULL_CONTENTION;
	}
	if (counts[VMA_RS_BLOCKED] || counts[VMA_RS_OFFLINE])
		return VMA_DRS_BLOCKED;
	/* Only lost, queued and init mixes: no meaningful domain state. */
	*valid = false;
	return VMA_DRS_BLOCKED;
}

/*
 * @v's runstate, or its arcs for one, change at @tsc.  Records of @v taken
 * ahead of the merge (dispatch.h) assumed the state it had then, which a
 * change from another pcpu stamped before them (or with their stamp) may
 * not keep: the order of the two could tell.
 */
static inline void runstate_touch(struct vma_machine *m, const struct vma_vcpu *v, uint64_t tsc)
{
	if (__builtin_expect(v->ahead_tsc >= tsc, 0) && v->ahead_tsc &&
	    (v->ahead_tsc > tsc || v->ahead_pcpu != m->dispatching))
		m->ahead_conflict = true;
}

static void runstate_update(struct vma_machine *m, struct vma_vcpu *v,
			    enum vma_runstate next, uint64_t tsc)
{
	struct vma_domain *d = v->domain;

	runstate_touch(m, v, tsc);
	if (__builtin_expect(m->observer != NULL, 0) && m->observer->runstate)
		m->observer->runstate(m->observer->arg, v, next, tsc);
	if (v->state_tsc > 0 && v->state_tsc < tsc) {
		uint64_t cycles = tsc - v->state_tsc;
		struct vma_cycles *rs = &v->runstates[v->state];

		/*
		 * A stretch that two summaries share is sampled by one only;
		 * the report merges the parts' samples for the other.
		 */
		if (v->state == VMA_RS_RUNNING) {
			vma_cycles_add(rs, cycles, v->budget);
			vma_cycles_count(&d->total_time, cycles);
			d->changed = m->records;
		} else if (v->state == VMA_RS_RUNNABLE && v->runnable_kind < VMA_RUNNABLE_COUNT) {
			vma_cycles_count(rs, cycles);
			vma_cycles_add(&v->runnable[v->runnable_kind], cycles, v->budget);
		} else {
			vma_cycles_add(rs, cycles, v->budget);
		}
	}
	if (next == VMA_RS_RUNNABLE) {
		if (v->state == VMA_RS_RUNNING)
			v->runnable_kind = VMA_RUNNABLE_PREEMPT;
		else if (v->state == VMA_RS_BLOCKED || v->state == VMA_RS_OFFLINE)
			v->runnable_kind = VMA_RUNNABLE_WAKE;
		else
			v->runnable_kind = VMA_RUNNABLE_OTHER;
	} else {
		v->runnable_kind = VMA_RUNNABLE_COUNT;
	}
	vma_vcpu_set_state(v, next);
	v->state_tsc = tsc;

	if (d->did == VMA_DEFAULT_DOMAIN)
		return;
	if (d->runstate_valid && d->runstate_tsc > 0 && d->runstate_tsc < tsc)
		vma_cycles_add(&d->runstates[d->runstate], tsc - d->runstate_tsc, v->budget);
	d->runstate = domain_runstate(d, &d->runstate_valid);
	d->runstate_tsc = tsc;
}

/* A pcpu stops running what it ran: account the stretch as idle or busy. */
static void pcpu_stretch_end(struct vma_machine *m, struct vma_pcpu *p, uint64_t tsc)
{
	if (p->time_tsc && p->current) {
		if (p->current->domain->did == VMA_IDLE_DOMAIN)
			vma_cycles_add(&p->time_idle, tsc - p->time_tsc, &m->budget);
		else
			vma_cycles_add(&p->time_running, tsc - p->time_tsc, &m->budget);
	}
	p->time_tsc = 0;
}

static void lose_vcpu(struct vma_machine *m, struct vma_vcpu *v, uint64_t tsc)
{
	if (v->type == VMA_VCPU_HVM || v->type == VMA_VCPU_ARM)
		vma_hvm_invalidate(v);
	runstate_update(m, v, VMA_RS_LOST, tsc);
}

/* Where @pcpu is or would go in @v's sorted affinity table. */
static uint32_t affinity_find(const struct vma_vcpu *v, uint32_t pcpu)
{
	uint32_t lo = 0, hi = v->nr_affinity;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v->affinity_ids[mid] < pcpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct vma_cycles *affinity_slot(struct vma_vcpu *v, uint32_t pcpu);

/*
 * The VMA_PCPU_OTHER entry of @v's full table, whose growth the rows'
 * budget refused: its least used entry becomes it (and goes last), so
 * that the floor costs no memory; a table with none grows by one.
 */
static struct vma_cycles *affinity_other(struct vma_vcpu *v)
{
	uint32_t i, best = 0, n = v->nr_affinity;
	struct vma_cycles c;

	if (n && v->affinity_ids[n - 1] == VMA_PCPU_OTHER)
		return &v->affinity_pcpu[n - 1];
	if (!n)
		return affinity_slot(v, VMA_PCPU_OTHER);
	for (i = 1; i < n; i++) {
		if (v->affinity_pcpu[i].events < v->affinity_pcpu[best].events)
			best = i;
	}
	c = v->affinity_pcpu[best];
	memmove(v->affinity_pcpu + best, v->affinity_pcpu + best + 1,
		(n - best - 1) * sizeof(*v->affinity_pcpu));
	memmove(v->affinity_ids + best, v->affinity_ids + best + 1,
		(n - best - 1) * sizeof(*v->affinity_ids));
	v->affinity_pcpu[n - 1] = c;
	v->affinity_ids[n - 1] = VMA_PCPU_OTHER;
	return &v->affinity_pcpu[n - 1];
}

/*
 * The vcpu's entry for @pcpu, made on first use: the table holds the pcpus
 * the vcpu ran on, sorted, so a pcpu numbered 2^20 costs one entry.  Pcpus
 * 0..n-1 all seen, the usual case, sit at their own index.  When the
 * rows' budget (cycles.h) refuses the table's growth, a new pcpu goes to
 * the VMA_PCPU_OTHER entry, last (affinity_other()).
 */
static struct vma_cycles *affinity_slot(struct vma_vcpu *v, uint32_t pcpu)
{
	const size_t row = sizeof(*v->affinity_pcpu) + sizeof(*v->affinity_ids);
	uint32_t lo;

	if (pcpu < v->nr_affinity && v->affinity_ids[pcpu] == pcpu)
		return &v->affinity_pcpu[pcpu];
	lo = affinity_find(v, pcpu);
	if (lo < v->nr_affinity && v->affinity_ids[lo] == pcpu)
		return &v->affinity_pcpu[lo];
	if (v->nr_affinity == v->cap_affinity) {
		/* The "other" entry, which the budget does not refuse: room for it alone. */
		uint32_t cap = pcpu == VMA_PCPU_OTHER ? v->cap_affinity + 1
			       : v->cap_affinity ? v->cap_affinity * 2 : 4;
		size_t bytes = (cap - v->cap_affinity) * row;
		struct vma_cycles *a;
		uint32_t *ids;

		if (pcpu != VMA_PCPU_OTHER && !vma_rows_charge(v->budget, bytes)) {
			vma_rows_fold(v->budget);
			return affinity_other(v);
		}
		if (pcpu == VMA_PCPU_OTHER)
			vma_rows_force(v->budget, bytes);
		a = realloc(v->affinity_pcpu, cap * sizeof(*a));
		if (!a) {
			vma_rows_credit(v->budget, bytes);
			return NULL;
		}
		v->affinity_pcpu = a;
		ids = realloc(v->affinity_ids, cap * sizeof(*ids));
		if (!ids) {
			vma_rows_credit(v->budget, bytes);
			return NULL;
		}
		v->affinity_ids = ids;
		v->cap_affinity = cap;
	}
	memmove(v->affinity_pcpu + lo + 1, v->affinity_pcpu + lo,
		(v->nr_affinity - lo) * sizeof(*v->affinity_pcpu));
	memmove(v->affinity_ids + lo + 1, v->affinity_ids + lo,
		(v->nr_affinity - lo) * sizeof(*v->affinity_ids));
	memset(&v->affinity_pcpu[lo], 0, sizeof(*v->affinity_pcpu));
	v->affinity_ids[lo] = pcpu;
	v->nr_affinity++;
	return &v->affinity_pcpu[lo];
}

static void affinity_account(struct vma_vcpu *v, uint32_t pcpu, uint64_t tsc)
{
	struct vma_cycles *slot;

	if (!v->pcpu_tsc)
		return;
	slot = affinity_slot(v, pcpu);
	if (slot) {
		/* affinity_all only counts: the report merges the pcpus' samples. */
		vma_cycles_count(&v->affinity_all, tsc - v->pcpu_tsc);
		vma_cycles_add(slot, tsc - v->pcpu_tsc, v->budget);
	} else {
		vma_cycles_add(&v->affinity_all, tsc - v->pcpu_tsc, v->budget);
	}
}

/* @prev stops running on @p at @tsc and goes to @next_state. */
static void vcpu_prev_update(struct vma_machine *m, struct vma_pcpu *p, struct vma_vcpu *prev,
			     uint64_t tsc, enum vma_runstate next_state)
{
	if (prev->pcpu != p || p->current != prev || prev->state != VMA_RS_RUNNING) {
		vma_diag_warn_once(m->diag, "sched-prev-mismatch",
				   "Strange: d%uv%u stops running on pcpu %u, but it was not "
				   "known to run there; its running time is not counted",
				   prev->domain->did, prev->vid, p->id);
		prev->state_tsc = 0;
	}
	pcpu_stretch_end(m, p, tsc);
	p->current = NULL;
	vma_pcpu_changed(m, p);
	runstate_update(m, prev, next_state, tsc);
}

/* @next starts running on @p at @tsc. */
static void vcpu_next_update(struct vma_machine *m, struct vma_pcpu *p, struct vma_vcpu *next,
			     uint64_t tsc)
{
	if (p->current) {
		if (!p->lost.seen_valid_schedule) {
			runstate_update(m, p->current, VMA_RS_LOST, tsc);
		} else {
			vma_diag_warn_once(m->diag, "sched-next-busy",
					   "Strange: d%uv%u starts running on pcpu %u while "
					   "d%uv%u still runs there",
					   next->domain->did, next->vid, p->id,
					   p->current->domain->did, p->current->vid);
			runstate_update(m, p->current, VMA_RS_LOST, tsc);
		}
		p->current = NULL;
		vma_pcpu_changed(m, p);
	}
	if (next->activated) {
		if (next->state == VMA_RS_RUNNING && next->domain->did != VMA_DEFAULT_DOMAIN)
			next->state_tsc = 0;
		if (next->pcpu != p) {
			/*
			 * Charge the stay to the pcpu it was on; xenalyze
			 * charges it to the new one (doc/xenalyze-differences.md).
			 */
			affinity_account(next, next->pcpu ? next->pcpu->id : p->id, tsc);
			next->pcpu_tsc = tsc;
		}
	} else {
		next->activated = true;
		next->pcpu_tsc = tsc;
	}
	runstate_update(m, next, VMA_RS_RUNNING, tsc);
	if (__builtin_expect(m->observer != NULL, 0) && m->observer->switch_in)
		m->observer->switch_in(m->observer->arg, next, p, tsc);
	next->pcpu = p;
	p->current = next;
	vma_pcpu_changed(m, p);
	p->time_tsc = tsc;
	p->lost.seen_valid_schedule = true;
}

/* The first change seen for a vcpu still in INIT. */
static void vcpu_start(struct vma_machine *m, struct vma_pcpu *p, struct vma_vcpu *v,
		       enum vma_runstate old_state, enum vma_runstate new_state, uint64_t tsc)
{
	if (old_state == VMA_RS_RUNNING) {
		if (!p->current || p->current->domain->did != VMA_DEFAULT_DOMAIN) {
			vma_diag_warn_once(m->diag, "sched-start-not-default",
					   "Strange: d%uv%u was running on pcpu %u before the "
					   "trace saw any vcpu there, but pcpu %u already runs one",
					   v->domain->did, v->vid, p->id, p->id);
			return;
		}
		runstate_update(m, p->current, VMA_RS_QUEUED, p->first_tsc);
		p->current = NULL;
		vma_pcpu_changed(m, p);
	}
	if (new_state != VMA_RS_RUNNING) {
		v->delayed_init = true;
		return;
	}
	v->delayed_init = false;
	if (old_state == VMA_RS_RUNNING)
		tsc = p->first_tsc; /* it ran since before the first record */
	runstate_update(m, v, VMA_RS_RUNNING, tsc);
	p->time_tsc = tsc;
	p->current = v;
	vma_pcpu_changed(m, p);
	v->pcpu = p;
}

/*
 * TRC_SCHED_RUNSTATE_CHANGE carries the old and new runstates in the event
 * id; _CONTINUE means running->running (vma_xf_runstate(), which the dump
 * reads them through too).
 */
/* A runstate record either stage refuses: of another type, or without its vcpu. */
static __attribute__((noinline, cold)) int runstate_refused(struct vma_machine *m,
							     const struct vma_record *rec,
							     enum vma_xf_runstate_fit fit,
							     struct vma_outcome *out)
{
	if (fit == VMA_XF_RUNSTATE_BAD_TYPE) {
		vma_diag_warn_once(m->diag, "sched-runstate-type",
				   "Unexpected runstate record 0x%x; not processed", rec->event);
	}
	out->unprocessed = true;
	return VMA_OK;
}

/*
 * A runstate change.  Out of line: its frame is for it alone, not for
 * every scheduler record (credit2's make most of a trace; they only count).
 */
static __attribute__((noinline)) int runstate_record(struct vma_machine *m, struct vma_pcpu *p,
						     const struct vma_record *rec,
						     struct vma_outcome *out)
{
	bool is_continue = vma_xf_runstate_continue(rec);
	struct vma_xf_runstate rs = vma_xf_runstate(rec);
	enum vma_runstate old_state, new_state;
	struct vma_vcpu *v;
	uint32_t did, vid;
	uint64_t refused;

	if (__builtin_expect(rs.fit != VMA_XF_RUNSTATE_OK, 0))
		return runstate_refused(m, rec, rs.fit, out);
	/* Xen has running .. offline; the dump still names the others. */
	if (rs.old_state > VMA_RS_OFFLINE || rs.new_state > VMA_RS_OFFLINE) {
		vma_diag_warn_once(m->diag, "sched-runstate-value",
				   "Runstate record 0x%x names an unknown runstate; "
				   "not processed", rec->event);
		return VMA_OK;
	}
	/* Xen's runstates are the first of ours, in its numbering. */
	old_state = (enum vma_runstate)rs.old_state;
	new_state = (enum vma_runstate)rs.new_state;
	did = vma_xf_runstate_dom(rec);
	vid = vma_xf_runstate_vcpu(rec);
	refused = m->refused;
	v = vma_vcpu_get(m, did, vid);
	if (!v)
		return m->refused != refused ? vma_machine_refused(m, rec->offset) : VMA_ERR_NOMEM;
	runstate_touch(m, v, rec->tsc);

	if (v->state == VMA_RS_INIT) {
		vcpu_start(m, p, v, old_state, new_state, rec->tsc);
		return VMA_OK;
	}

	if (new_state == VMA_RS_RUNNABLE && v->type == VMA_VCPU_HVM && v->hvm.vmexit_valid)
		vma_hvm_close_arc(m, v, rec->tsc);
	if (v->type == VMA_VCPU_HVM)
		vma_hvm_runstate_change(m, v, old_state, new_state, rec->tsc);

	if (v->state != old_state) {
		if (v->state == VMA_RS_LOST) {
			if (new_state != VMA_RS_RUNNING)
				return VMA_OK;
		} else if (v->last_oldstate.wrong == new_state &&
			   v->last_oldstate.actual == old_state) {
			/* The change that explains the remembered one: TSC skew. */
			if (rec->tsc < v->last_oldstate.tsc) {
				vma_diag_warn_once(m->diag, "sched-tsc-skew-back",
						   "TSC skew: d%uv%u's change comes before the one "
						   "it explains; not applied", did, vid);
				return VMA_OK;
			}
			v->last_oldstate.wrong = VMA_RS_INIT; /* explained */
			return vma_tsc_skew(m, p, v->last_oldstate.pcpu,
					    rec->tsc - v->last_oldstate.tsc, rec);
		} else {
			/* Possible TSC skew between pcpus; see the comment on top. */
			vma_diag_warn_once(m->diag, "sched-tsc-skew",
					   "Runstate change %s->%s for d%uv%u, which is %s: "
					   "possible TSC skew between pcpus",
					   vma_vcpu_runstate_name(old_state),
					   vma_vcpu_runstate_name(new_state),
					   did, vid, vma_vcpu_runstate_name(v->state));
			v->last_oldstate.wrong = old_state;
			v->last_oldstate.actual = v->state;
			v->last_oldstate.tsc = rec->tsc;
			v->last_oldstate.pcpu = p->id;
			if (v->state == VMA_RS_RUNNING)
				return VMA_OK;
		}
	}

	if (is_continue) {
		if (v->state == VMA_RS_LOST) {
			if (p->current)
				vcpu_prev_update(m, p, p->current, rec->tsc, VMA_RS_LOST);
			vcpu_next_update(m, p, v, rec->tsc);
		}
		runstate_update(m, v, VMA_RS_RUNNING, rec->tsc);
	} else if (old_state == VMA_RS_RUNNING || v->state == VMA_RS_RUNNING) {
		struct vma_pcpu *where = old_state == VMA_RS_RUNNING ? p : v->pcpu;

		vcpu_prev_update(m, where ? where : p, v, rec->tsc, new_state);
		if (m->lost_pcpus && v->domain->did != VMA_IDLE_DOMAIN)
			lose_vcpu(m, v, rec->tsc);
	} else if (new_state == VMA_RS_RUNNING) {
		vcpu_next_update(m, p, v, rec->tsc);
	} else {
		runstate_update(m, v, new_state, rec->tsc);
	}
	return VMA_OK;
}

int vma_sched_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		     struct vma_outcome *out)
{
	m->dispatching = p->id; /* for runstate_touch(): records change runstates here only */
	if (VMA_TRC_SUB(rec->event) == VMA_TRC_SUB(TRC_SCHED_MIN))
		return runstate_record(m, p, rec, out);
	return VMA_OK;
}

/*
 * Lost records.  The reader delivers TRC_LOST_RECORDS at the time of the
 * first lost record and VMA_SYNTH_LOST_END at the time Xen wrote it.  In
 * between, nothing is known about the pcpu: its vcpu and every vcpu not
 * running anywhere go to LOST, and open exit arcs are dropped.
 */
static void lost_begin(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec)
{
	uint64_t first_tsc = rec->tsc;
	uint32_t i, j;

	m->lost_records += vma_xf_lost_count(rec);
	if (p->current) {
		if (p->current->type == VMA_VCPU_HVM)
			vma_hvm_invalidate(p->current);
		vcpu_prev_update(m, p, p->current, first_tsc, VMA_RS_LOST);
	}
	if (!p->lost.active)
		m->lost_pcpus++;
	p->lost.active = true;
	vma_pcpu_changed(m, p);
	p->lost.tsc = first_tsc;
	for (i = 0; i < m->nr_domains; i++) {
		struct vma_domain *d = m->domains[i];

		if (d->did == VMA_DEFAULT_DOMAIN)
			continue;
		for (j = 0; j < d->nr_vcpus; j++) {
			if (d->vcpus[j] && d->vcpus[j]->state != VMA_RS_RUNNING)
				lose_vcpu(m, d->vcpus[j], first_tsc);
		}
	}
	p->lost.domain_valid = true;
	p->lost.did = vma_xf_lost_did(rec);
	p->lost.vid = vma_xf_lost_vid(rec);
	vma_vlapic_lost(m);
}

static void lost_end(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec)
{
	if (!p->lost.active || rec->tsc <= p->lost.tsc)
		return;
	vma_cycles_add(&p->time_lost, rec->tsc - p->lost.tsc, &m->budget);
	if (p->lost.domain_valid && !p->current) {
		struct vma_vcpu *v = vma_vcpu_get(m, p->lost.did, p->lost.vid);

		if (v) {
			vcpu_next_update(m, p, v, rec->tsc);
			p->lost.seen_valid_schedule = false;
		}
	}
	p->lost.domain_valid = false;
	p->lost.active = false;
	vma_pcpu_changed(m, p);
	if (m->lost_pcpus)
		m->lost_pcpus--;
}

/* Trace-buffer records the dump shows and the analysis does not use. */
static void nothing(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec)
{
}

/* The state column of the GEN rows of the Xen event table. */
typedef void gen_event_fn(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec);

static gen_event_fn *const gen_state[VMA_XE_COUNT] = {
#define GEN_STATE(sym, id, name, words, flags, state, describe) [VMA_XE_##sym] = state,
	VMA_XEN_GEN_EVENTS(GEN_STATE)
#undef GEN_STATE
};

int vma_gen_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		   struct vma_outcome *out)
{
	enum vma_xe_index row = vma_xen_event_index(rec->event);

	if (row == VMA_XE_NONE || !gen_state[row])
		return VMA_OK;
	m->dispatching = p->id; /* lost records change runstates too */
	if (vma_xen_event_short(row, rec))
		vma_state_refuse_short(m, row, rec, out);
	else
		gen_state[row](m, p, rec);
	return VMA_OK;
}

void vma_vcpu_runstate(struct vma_machine *m, struct vma_vcpu *v, enum vma_runstate state,
		       uint64_t tsc)
{
	if (v->state == state)
		return;
	if (state == VMA_RS_RUNNABLE && v->type != VMA_VCPU_NONE && v->type != VMA_VCPU_PV &&
	    v->hvm.vmexit_valid)
		vma_hvm_close_arc(m, v, tsc);
	runstate_update(m, v, state, tsc);
}

void vma_machine_pcpu_end(struct vma_machine *m, uint32_t id)
{
	struct vma_pcpu *p = vma_pcpu_of(m, id);

	/* A KVM cpu's last thread says nothing of its vcpu's state after. */
	if (!p || !p->active || m->kvm)
		return;
	m->dispatching = id;
	if (p->current) {
		pcpu_stretch_end(m, p, p->last_tsc);
		lose_vcpu(m, p->current, p->last_tsc);
	}
	p->active = false;
	vma_pcpu_changed(m, p);
}

void vma_machine_finish(struct vma_machine *m)
{
	uint32_t i, j;

	if (m->finished)
		return;
	m->finished = true;
	for (i = 0; i < m->nr_domains; i++) {
		struct vma_domain *d = m->domains[i];

		for (j = 0; j < d->nr_vcpus; j++) {
			struct vma_vcpu *v = d->vcpus[j];

			if (v && (v->type == VMA_VCPU_HVM || v->type == VMA_VCPU_ARM)) {
				/*
				 * Arcs open at the end are not timed.  For KVM the exit
				 * is still counted (as an event of no cycles), so exit
				 * counts equal the trace's kvm_exit records.
				 */
				if (m->kvm && v->hvm.vmexit_valid)
					vma_hvm_count_open_exit(v);
				vma_hvm_invalidate(v);
			}
			if (v && v->pcpu_tsc && v->pcpu && m->last_tsc > v->pcpu_tsc) {
				affinity_account(v, v->pcpu->id, m->last_tsc);
				v->pcpu_tsc = 0;
			}
		}
	}
	if (m->kvm)
		vma_kvm_finish(m);
}
