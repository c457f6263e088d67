/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scheduler records (TRC_SCHED): runstate changes, the generic scheduler's
 * verbose records, and the per-scheduler records of credit, credit2, RTDS
 * and null, in xenalyze's dump wording.  ARINC653 emits no trace records.
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>

#include "output/xen-describe-internal.h"
#include "vmalyze/xen-events.h"
#include "vmalyze/state.h"

/* Many records pack a vcpu as {vcpu:16, domain:16} in one word. */
static uint32_t lo16(uint32_t w)
{
	return w & 0xffffu;
}

static uint32_t hi16(uint32_t w)
{
	return w >> 16;
}

/* Nanoseconds as xenalyze prints them: "<us>.<ns rest>us", rest unpadded. */
#define NS_AS_US_MAX (10u + 1u + 3u + 2u)

static char *xp_ns_as_us(char *p, uint32_t ns)
{
	/* "%u.%uus" */
	p = xp_u64(p, ns / 1000);
	*p++ = '.';
	p = xp_u64(p, ns % 1000);
	return xp_lit(p, "us");
}

static void ns_as_us(struct xd_out *o, uint32_t ns)
{
	char *p = xd_reserve(o, NS_AS_US_MAX);

	if (p)
		xd_commit(o, xp_ns_as_us(p, ns));
}

/*
 * A load scaled by 2^shift (credit2's fixed point) as a percentage, "%4.3f"
 * of the double xenalyze computes, ldexp(load * 100.0, -shift).  printf
 * prints that double's exact value rounded to even; while load * 100 is
 * below 2^53 it is exact, the double is load * 100 / 2^shift exactly, and
 * its thousandths are an integer division rounded the same way.  Larger
 * loads, never seen in practice, go through printf.
 */
static void load_percent(struct xd_out *o, uint64_t load, uint32_t shift)
{
	unsigned int sh = shift & 0xffu;
	uint64_t milli, rest, half;

	if (load >= (UINT64_C(1) << 53) / 100) {
		xd_printf(o, "%4.3f", ldexp((double)load * 100.0, -(int)sh));
		return;
	}
	/* below 2^63: load * 100 < 2^53 */
	milli = load * 100 * 1000;
	if (sh >= 64) {
		/* under 2^63 / 2^64 = 0.5 thousandths */
		milli = 0;
	} else if (sh > 0) {
		rest = milli & ((UINT64_C(1) << sh) - 1);
		half = UINT64_C(1) << (sh - 1);
		milli >>= sh;
		if (rest > half || (rest == half && (milli & 1)))
			milli++;
	}
	/* "%4.3f": at least "0.000", wider than 4 */
	xd_u64(o, milli / 1000);
	xd_putc(o, '.');
	xd_u64_pad(o, milli % 1000, 3, '0');
}

/* The state stage's runstate names (Xen's numbering); NULL past them, for the raw fallback. */
static const char *state_name(uint32_t state)
{
	return state < VMA_RS_COUNT ? vma_vcpu_runstate_name(state) : NULL;
}

/* TRC_SCHED_MIN: the change is in the id (vma_xf_runstate()). */
static bool runstate(struct xd_out *o, const struct vma_record *rec)
{
	struct vma_xf_runstate rs = vma_xf_runstate(rec);
	const char *old_name = NULL, *new_name = NULL;
	size_t old_len = 0, new_len = 0;
	struct xd_kept *k;
	bool kept;
	char *p, *change;

	if (rs.fit != VMA_XF_RUNSTATE_OK)
		return false;
	k = o->kept ? &o->kept->runstate[rs.old_state][rs.new_state] : NULL;
	kept = xd_kept_ready(k);
	if (!kept) {
		old_name = state_name(rs.old_state);
		new_name = state_name(rs.new_state);
		if (!old_name || !new_name)
			return false;
		old_len = strlen(old_name);
		new_len = strlen(new_name);
	}
	if (vma_xf_runstate_continue(rec))
		xd_lit(o, "runstate_continue");
	else
		xd_lit(o, "runstate_change");
	if (vma_xf_runstate_has_counters(rec))
		xd_printf(o, " {%lld,%lld}", (long long)xd_q(rec, 1), (long long)xd_q(rec, 3));
	p = xd_reserve(o, 1 + XP_VCPU_MAX + 1 + (kept ? XD_KEPT_MAX : old_len + 2 + new_len));
	if (!p)
		return true;
	/* " d%uv%u %s->%s" */
	*p++ = ' ';
	p = xp_vcpu(p, vma_xf_runstate_dom(rec), vma_xf_runstate_vcpu(rec));
	*p++ = ' ';
	if (kept) {
		p = xp_kept(p, k);
	} else {
		change = p;
		p = xp_put(p, old_name, old_len);
		p = xp_lit(p, "->");
		p = xp_put(p, new_name, new_len);
		if (k)
			xd_keep(k, change, (size_t)(p - change));
	}
	xd_commit(o, p);
	return true;
}

/*
 * The DESCRIBE column of the scheduler rows, given the row's name; the
 * row's size is checked before.
 */
typedef bool sched_describe_fn(struct xd_out *o, const struct vma_record *rec,
			       const char *name);

/* {domain}: "<name> dN". */
static bool dom_op(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	xd_printf(o, "%s d%u", name, rec->data[0]);
	return true;
}

/* {domid, vcpuid}: "<name> dNvM". */
static bool vcpu_action(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	size_t n = strlen(name);
	char *p = xd_reserve(o, n + 1 + XP_VCPU_MAX);

	if (!p)
		return true;
	p = xp_put(p, name, n);
	*p++ = ' ';
	xd_commit(o, xp_vcpu(p, rec->data[0], rec->data[1]));
	return true;
}

/* {domid, vcpuid, reason} */
static bool shutdown(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "%s d%uv%u, reason = %u", name, d[0], d[1], d[2]);
	return true;
}

/* Records xenalyze skips without a line; printed plainly here. */
static bool silent_plain(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	o->layout = VMA_XEN_DUMP_SILENT;
	xd_puts(o, name);
	if (rec->nr_data) {
		xd_puts(o, " [");
		xd_words(o, rec);
		xd_puts(o, " ]");
	}
	return true;
}

/* Records whose text is their name. */
static bool plain(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	xd_puts(o, name);
	return true;
}

/* {prev domid, vcpuid, next domid, vcpuid} */
static bool sched_switch(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;
	char *p = xd_reserve(o, 18 + XP_VCPU_MAX + 6 + XP_VCPU_MAX);

	if (!p)
		return true;
	/* "sched_switch prev d%uv%u next d%uv%u" */
	p = xp_lit(p, "sched_switch prev ");
	p = xp_vcpu(p, d[0], d[1]);
	p = xp_lit(p, " next ");
	xd_commit(o, xp_vcpu(p, d[2], d[3]));
	return true;
}

/* {domid, vcpuid, ns run} */
static bool switch_infprev(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;
	char *p = xd_reserve(o, 19 + XP_U64_MAX + 1 + XP_S64_MAX + 10 + NS_AS_US_MAX);

	if (!p)
		return true;
	/* "sched_switch prev d%uv%d, run for " (a signed vcpu, as xenalyze has it) */
	p = xp_lit(p, "sched_switch prev d");
	p = xp_u64(p, d[0]);
	*p++ = 'v';
	p = xp_s64(p, (int32_t)d[1]);
	p = xp_lit(p, ", run for ");
	xd_commit(o, xp_ns_as_us(p, d[2]));
	return true;
}

/* {domid, vcpuid, ns waited, int ns slice} */
static bool switch_infnext(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;
	char *p = xd_reserve(o, 18 + XP_VCPU_MAX + 19 + NS_AS_US_MAX + 13 + NS_AS_US_MAX);

	if (!p)
		return true;
	p = xp_lit(p, "sched_switch next ");
	p = xp_vcpu(p, d[0], d[1]);
	if (d[2] != 0) {
		p = xp_lit(p, ", was runnable for ");
		p = xp_ns_as_us(p, d[2]);
	}
	if ((int32_t)d[3] > 0) {
		p = xp_lit(p, ", next slice ");
		p = xp_ns_as_us(p, d[3]);
	}
	xd_commit(o, p);
	return true;
}

/* {domid, vcpuid, ns run, int ns slice} */
static bool switch_infcont(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;
	char *p = xd_reserve(o, 22 + XP_VCPU_MAX + 10 + NS_AS_US_MAX + 13 + NS_AS_US_MAX);

	if (!p)
		return true;
	p = xp_lit(p, "sched_switch continue ");
	p = xp_vcpu(p, d[0], d[1]);
	p = xp_lit(p, ", run for ");
	p = xp_ns_as_us(p, d[2]);
	if ((int32_t)d[3] > 0) {
		p = xp_lit(p, ", next slice ");
		p = xp_ns_as_us(p, d[3]);
	}
	xd_commit(o, p);
	return true;
}

/* Credit (the original credit scheduler). */
static bool csched_acct(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "%s d%uv%u, active_vcpus %u", name, d[0], d[1], d[2]);
	return true;
}

static bool csched_stolen(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "csched:stolen_vcpu d%uv%u from cpu %u", d[1], d[2], d[0]);
	return true;
}

static bool csched_pick(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "csched:pick_cpu %u for d%uv%u", d[2], d[0], d[1]);
	return true;
}

static bool csched_tickle(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	xd_printf(o, "csched:runq_tickle, cpu %u", rec->data[0]);
	return true;
}

static bool csched_boost(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "csched: d%uv%u %s", d[0], d[1],
		  rec->event == TRC_CSCHED_BOOST_START ? "boosted" : "unboosted");
	return true;
}

/* {cpu:16, tasklet:8, idle:8} */
static bool csched_schedule(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	uint32_t w = rec->data[0];

	xd_printf(o, "csched:schedule cpu %u%s%s", lo16(w),
		  ((w >> 16) & 0xffu) ? ", tasklet scheduled" : "",
		  (w >> 24) ? ", idle" : ", busy");
	return true;
}

/* {vcpu:16, dom:16; runtime ns} */
static bool csched_ratelimit(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "csched:ratelimit, d%uv%u run only ", hi16(d[0]), lo16(d[0]));
	ns_as_us(o, d[1]);
	return true;
}

static bool csched_steal(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "csched:load_balance %s %u", d[1] ? "checking" : "skipping", d[0]);
	return true;
}

/* Credit2: most records start with a {vcpu:16, dom:16} word. */
static bool csched2_runq_pos(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	/* "csched2:runq_insert d%uv%u, position %u" */
	xd_lit(o, "csched2:runq_insert ");
	xd_vcpu(o, hi16(d[0]), lo16(d[0]));
	xd_lit(o, ", position ");
	xd_u64(o, d[1]);
	return true;
}

/* {vcpu; int credit, budget, delta} */
static bool csched2_burn(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	/* "csched2:burn_credits d%uv%u, credit = %d, budget = %d, delta = %d" */
	xd_lit(o, "csched2:burn_credits ");
	xd_vcpu(o, hi16(d[0]), lo16(d[0]));
	xd_lit(o, ", credit = ");
	xd_s64(o, (int32_t)d[1]);
	if ((int32_t)d[2] != INT_MIN) {
		xd_lit(o, ", budget = ");
		xd_s64(o, (int32_t)d[2]);
	}
	xd_lit(o, ", delta = ");
	xd_s64(o, (int32_t)d[3]);
	return true;
}

static bool csched2_tickle_check(struct xd_out *o, const struct vma_record *rec,
				 const char *name)
{
	const uint32_t *d = rec->data;

	/* xenalyze ends this line with an extra empty line. */
	xd_printf(o, "csched2:tickle_check d%uv%u, credit = %d, score = %d", hi16(d[0]),
		  lo16(d[0]), (int)d[1], (int)d[2]);
	return true;
}

static bool csched2_reset(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	/* "csched2:reset_credits d%uv%u, credit_start = %d, credit_end = %d" */
	xd_lit(o, "csched2:reset_credits ");
	xd_vcpu(o, hi16(d[0]), lo16(d[0]));
	xd_lit(o, ", credit_start = ");
	xd_s64(o, (int32_t)d[1]);
	xd_lit(o, ", credit_end = ");
	xd_s64(o, (int32_t)d[2]);
	return true;
}

static bool csched2_runq_assign(struct xd_out *o, const struct vma_record *rec,
				const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "csched2:runq_assign d%uv%u on rq# %u", hi16(d[0]), lo16(d[0]), lo16(d[1]));
	return true;
}

static bool csched2_tickle_new(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	/* "csched2:runq_tickle_new d%uv%u, processor = %u, credit = %d" */
	xd_lit(o, "csched2:runq_tickle_new ");
	xd_vcpu(o, hi16(d[0]), lo16(d[0]));
	xd_lit(o, ", processor = ");
	xd_u64(o, d[1]);
	xd_lit(o, ", credit = ");
	xd_s64(o, (int32_t)d[2]);
	return true;
}

/* {vcpu; rqi:16, trqi:16} */
static bool csched2_migrate(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "csched2:migrate d%uv%u rq# %u --> rq# %u", hi16(d[0]), lo16(d[0]),
		  lo16(d[1]), hi16(d[1]));
	return true;
}

/* {vcpu; tickled cpu or -1; int credit} */
static bool csched2_candidate(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	/* "csched2:runq_candidate d%uv%u, credit = %d, cpu %u was tickled" */
	xd_lit(o, "csched2:runq_candidate ");
	xd_vcpu(o, hi16(d[0]), lo16(d[0]));
	xd_lit(o, ", credit = ");
	xd_s64(o, (int32_t)d[2]);
	if (d[1] == UINT32_MAX) {
		xd_lit(o, ", no cpu was tickled");
	} else {
		xd_lit(o, ", cpu ");
		xd_u64(o, d[1]);
		xd_lit(o, " was tickled");
	}
	return true;
}

static bool csched2_ratelimit(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "csched2:ratelimit, d%uv%u run only ", hi16(d[0]), lo16(d[0]));
	ns_as_us(o, d[1]);
	return true;
}

static bool csched2_cand_check(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	xd_lit(o, "csched2:runq_cand_check ");
	xd_vcpu(o, hi16(rec->data[0]), lo16(rec->data[0]));
	return true;
}

static bool csched2_tickle(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	xd_lit(o, "csched2:runq_tickle cpu ");
	xd_u64(o, lo16(rec->data[0]));
	return true;
}

/* {u64 load; vcpu:16, dom:16; shift} */
static bool csched2_unit_load(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	/* "csched2:update_vcpu_load d%uv%u, vcpu_load = %4.3f%% (%llu)" */
	xd_lit(o, "csched2:update_vcpu_load ");
	xd_vcpu(o, hi16(d[2]), lo16(d[2]));
	xd_lit(o, ", vcpu_load = ");
	load_percent(o, xd_q(rec, 0), d[3]);
	xd_lit(o, "% (");
	xd_u64(o, xd_q(rec, 0));
	xd_putc(o, ')');
	return true;
}

/* {u64 rq_avgload, b_avgload; load:16, rq_id:8, shift:8} */
static bool csched2_runq_load(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	/*
	 * "csched2:update_rq_load rq# %u, load = %u, avgload = %4.3f%% (%llu),
	 * b_avgload = %4.3f%% (%llu)"
	 */
	xd_lit(o, "csched2:update_rq_load rq# ");
	xd_u64(o, (d[4] >> 16) & 0xffu);
	xd_lit(o, ", load = ");
	xd_u64(o, lo16(d[4]));
	xd_lit(o, ", avgload = ");
	load_percent(o, xd_q(rec, 0), d[4] >> 24);
	xd_lit(o, "% (");
	xd_u64(o, xd_q(rec, 0));
	xd_lit(o, "), b_avgload = ");
	load_percent(o, xd_q(rec, 2), d[4] >> 24);
	xd_lit(o, "% (");
	xd_u64(o, xd_q(rec, 2));
	xd_putc(o, ')');
	return true;
}

static bool csched2_max_weight(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "csched2:update_max_weight rq# %u, max_weight = %u", lo16(d[0]), hi16(d[0]));
	return true;
}

static bool csched2_load_check(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "csched2:load_balance_check lrq# %u, orq# %u, delta = %u", lo16(d[0]),
		  hi16(d[0]), d[1]);
	return true;
}

/* {u64 lb_avgload, ob_avgload; lrqi:16, orqi:16} */
static bool csched2_load_balance(struct xd_out *o, const struct vma_record *rec,
				 const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "csched2:load_balance_begin lrq# %u, avg_load = %" PRIu64
		  " -- orq# %u, avg_load = %" PRIu64, lo16(d[4]), xd_q(rec, 0), hi16(d[4]),
		  xd_q(rec, 2));
	return true;
}

/* {u64 b_avgload; vcpu:16, dom:16; rqi:16, cpu:16} */
static bool csched2_picked_cpu(struct xd_out *o, const struct vma_record *rec,
			       const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "csched2:picked_cpu d%uv%u, rq# %u, cpu %u", hi16(d[2]), lo16(d[2]),
		  lo16(d[3]), hi16(d[3]));
	return true;
}

/* {cpu:16, rqi:16; tasklet:8, idle:8, smt_idle:8, tickled:8} */
static bool csched2_schedule(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	/* "csched2:schedule cpu %u, rq# %u", then the flags */
	xd_lit(o, "csched2:schedule cpu ");
	xd_u64(o, lo16(d[0]));
	xd_lit(o, ", rq# ");
	xd_u64(o, hi16(d[0]));
	if (d[1] & 0xffu)
		xd_lit(o, ", tasklet scheduled");
	if ((d[1] >> 8) & 0xffu) {
		/* the SMT sibling's state only matters for an idle cpu */
		if ((d[1] >> 16) & 0xffu)
			xd_lit(o, ", idle, SMT idle");
		else
			xd_lit(o, ", idle, SMT busy");
	} else {
		xd_lit(o, ", busy");
	}
	if (d[1] >> 24)
		xd_lit(o, ", tickled");
	else
		xd_lit(o, ", not tickled");
	return true;
}

/* RTDS */
static bool rtds_tickle(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	xd_printf(o, "rtds:runq_tickle cpu %u", lo16(rec->data[0]));
	return true;
}

/* {vcpu:16, dom:16; u64 deadline, budget} packed */
static bool rtds_pick(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "rtds:runq_pick d%uv%u, deadline = %" PRIu64 ", budget = %" PRIu64,
		  hi16(d[0]), lo16(d[0]), xd_q(rec, 1), xd_q(rec, 3));
	return true;
}

/* {vcpu:16, dom:16; u64 budget; int delta} packed */
static bool rtds_burn(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "rtds:burn_budget d%uv%u, budget = %" PRIu64 ", delta = %d", hi16(d[0]),
		  lo16(d[0]), xd_q(rec, 1), (int)d[3]);
	return true;
}

/* {vcpu:16, dom:16; priority; u64 deadline, budget} packed */
static bool rtds_repl(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "rtds:repl_budget d%uv%u, deadline = %" PRIu64 ", budget = %" PRIu64
		  ", priority = %u", hi16(d[0]), lo16(d[0]), xd_q(rec, 2), xd_q(rec, 4), d[1]);
	return true;
}

/* {cpu:16, tasklet:8, idle:4, tickled:4} */
static bool rtds_schedule(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	uint32_t w = rec->data[0];

	xd_printf(o, "rtds:schedule cpu %u, %s%s%s", lo16(w),
		  ((w >> 16) & 0xffu) ? ", tasklet scheduled" : "",
		  ((w >> 24) & 0xfu) ? ", idle" : ", busy",
		  (w >> 28) ? ", tickled" : ", not tickled");
	return true;
}

/* null: {u16 vcpu, dom; u32 cpu} */
static bool snull_picked(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "null:picked_cpu d%uv%u, cpu %u", hi16(d[0]), lo16(d[0]), d[1]);
	return true;
}

static bool snull_assign(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;
	bool assign = rec->event == TRC_SNULL_UNIT_ASSIGN;

	xd_printf(o, "%s d%uv%u %s cpu %u", name, hi16(d[0]), lo16(d[0]), assign ? "to" : "from",
		  d[1]);
	return true;
}

/* {u16 vcpu, dom; u16 cpu, new_cpu} */
static bool snull_migrate(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "null:migrate d%uv%u, cpu %u, new_cpu %u", hi16(d[0]), lo16(d[0]),
		  lo16(d[1]), hi16(d[1]));
	return true;
}

/* {u16 tasklet, cpu; s16 vcpu, dom} */
static bool snull_schedule(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "null:schedule cpu %u%s", hi16(d[0]), lo16(d[0]) ? ", tasklet scheduled" : "");
	if ((int16_t)lo16(d[1]) != -1) {
		xd_printf(o, ", vcpu d%uv%d", (unsigned int)(int)(int16_t)hi16(d[1]),
			  (int)(int16_t)lo16(d[1]));
	} else {
		xd_puts(o, ", no vcpu");
	}
	return true;
}

/* A record of a scheduler row, its columns passed as constants by xd_sched()'s switch. */
static inline __attribute__((always_inline)) bool
sched_row(struct xd_out *o, const struct vma_record *rec, const char *name, unsigned int words,
	  unsigned int flags, sched_describe_fn *describe)
{
	if (vma_xe_short(rec, words, flags))
		return false;
	return describe(o, rec, name);
}

bool xd_sched(struct xd_out *o, const struct vma_record *rec)
{
	if (VMA_TRC_SUB(rec->event) == VMA_TRC_SUB(TRC_SCHED_MIN))
		return runstate(o, rec);
	switch (rec->event) {
#define SCHED_CASE(sym, id, name, words, flags, state, describe) \
	case (id):                                                \
		return sched_row(o, rec, name, words, flags, describe);
		VMA_XEN_SCHED_EVENTS(SCHED_CASE)
#undef SCHED_CASE
	}
	return false;
}
