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
#include "vmalyze/state.h"

/*
 * Scheduler-class event ids.  Xen defines them privately in each
 * scheduler's source (xen/common/sched/credit.c, credit2.c, rt.c, null.c),
 * not in the public trace.h, so they are spelled out once here.
 */
#define TRC_CSCHED_SCHED_TASKLET     TRC_SCHED_CLASS_EVT(CSCHED, 1)
#define TRC_CSCHED_ACCOUNT_START     TRC_SCHED_CLASS_EVT(CSCHED, 2)
#define TRC_CSCHED_ACCOUNT_STOP      TRC_SCHED_CLASS_EVT(CSCHED, 3)
#define TRC_CSCHED_STOLEN_UNIT       TRC_SCHED_CLASS_EVT(CSCHED, 4)
#define TRC_CSCHED_PICKED_CPU        TRC_SCHED_CLASS_EVT(CSCHED, 5)
#define TRC_CSCHED_TICKLE            TRC_SCHED_CLASS_EVT(CSCHED, 6)
#define TRC_CSCHED_BOOST_START       TRC_SCHED_CLASS_EVT(CSCHED, 7)
#define TRC_CSCHED_BOOST_END         TRC_SCHED_CLASS_EVT(CSCHED, 8)
#define TRC_CSCHED_SCHEDULE          TRC_SCHED_CLASS_EVT(CSCHED, 9)
#define TRC_CSCHED_RATELIMIT         TRC_SCHED_CLASS_EVT(CSCHED, 10)
#define TRC_CSCHED_STEAL_CHECK       TRC_SCHED_CLASS_EVT(CSCHED, 11)

#define TRC_CSCHED2_TICK             TRC_SCHED_CLASS_EVT(CSCHED2, 1)
#define TRC_CSCHED2_RUNQ_POS         TRC_SCHED_CLASS_EVT(CSCHED2, 2)
#define TRC_CSCHED2_CREDIT_BURN      TRC_SCHED_CLASS_EVT(CSCHED2, 3)
#define TRC_CSCHED2_CREDIT_ADD       TRC_SCHED_CLASS_EVT(CSCHED2, 4)
#define TRC_CSCHED2_TICKLE_CHECK     TRC_SCHED_CLASS_EVT(CSCHED2, 5)
#define TRC_CSCHED2_TICKLE           TRC_SCHED_CLASS_EVT(CSCHED2, 6)
#define TRC_CSCHED2_CREDIT_RESET     TRC_SCHED_CLASS_EVT(CSCHED2, 7)
#define TRC_CSCHED2_SCHED_TASKLET    TRC_SCHED_CLASS_EVT(CSCHED2, 8)
#define TRC_CSCHED2_UPDATE_LOAD      TRC_SCHED_CLASS_EVT(CSCHED2, 9)
#define TRC_CSCHED2_RUNQ_ASSIGN      TRC_SCHED_CLASS_EVT(CSCHED2, 10)
#define TRC_CSCHED2_UPDATE_UNIT_LOAD TRC_SCHED_CLASS_EVT(CSCHED2, 11)
#define TRC_CSCHED2_UPDATE_RUNQ_LOAD TRC_SCHED_CLASS_EVT(CSCHED2, 12)
#define TRC_CSCHED2_TICKLE_NEW       TRC_SCHED_CLASS_EVT(CSCHED2, 13)
#define TRC_CSCHED2_RUNQ_MAX_WEIGHT  TRC_SCHED_CLASS_EVT(CSCHED2, 14)
#define TRC_CSCHED2_MIGRATE          TRC_SCHED_CLASS_EVT(CSCHED2, 15)
#define TRC_CSCHED2_LOAD_CHECK       TRC_SCHED_CLASS_EVT(CSCHED2, 16)
#define TRC_CSCHED2_LOAD_BALANCE     TRC_SCHED_CLASS_EVT(CSCHED2, 17)
#define TRC_CSCHED2_PICKED_CPU       TRC_SCHED_CLASS_EVT(CSCHED2, 19)
#define TRC_CSCHED2_RUNQ_CANDIDATE   TRC_SCHED_CLASS_EVT(CSCHED2, 20)
#define TRC_CSCHED2_SCHEDULE         TRC_SCHED_CLASS_EVT(CSCHED2, 21)
#define TRC_CSCHED2_RATELIMIT        TRC_SCHED_CLASS_EVT(CSCHED2, 22)
#define TRC_CSCHED2_RUNQ_CAND_CHECK  TRC_SCHED_CLASS_EVT(CSCHED2, 23)

#define TRC_RTDS_TICKLE              TRC_SCHED_CLASS_EVT(RTDS, 1)
#define TRC_RTDS_RUNQ_PICK           TRC_SCHED_CLASS_EVT(RTDS, 2)
#define TRC_RTDS_BUDGET_BURN         TRC_SCHED_CLASS_EVT(RTDS, 3)
#define TRC_RTDS_BUDGET_REPLENISH    TRC_SCHED_CLASS_EVT(RTDS, 4)
#define TRC_RTDS_SCHED_TASKLET       TRC_SCHED_CLASS_EVT(RTDS, 5)
#define TRC_RTDS_SCHEDULE            TRC_SCHED_CLASS_EVT(RTDS, 6)

#define TRC_SNULL_PICKED_CPU         TRC_SCHED_CLASS_EVT(SNULL, 1)
#define TRC_SNULL_UNIT_ASSIGN        TRC_SCHED_CLASS_EVT(SNULL, 2)
#define TRC_SNULL_UNIT_DEASSIGN      TRC_SCHED_CLASS_EVT(SNULL, 3)
#define TRC_SNULL_MIGRATE            TRC_SCHED_CLASS_EVT(SNULL, 4)
#define TRC_SNULL_SCHEDULE           TRC_SCHED_CLASS_EVT(SNULL, 5)
#define TRC_SNULL_TASKLET            TRC_SCHED_CLASS_EVT(SNULL, 6)

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
static void ns_as_us(struct xd_out *o, uint32_t ns)
{
	/* "%u.%uus" */
	xd_u64(o, ns / 1000);
	xd_putc(o, '.');
	xd_u64(o, ns % 1000);
	xd_lit(o, "us");
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

/*
 * TRC_SCHED_MIN: the event number itself encodes the transition,
 * minor = old:4 new:4 type:4 (1 change, 2 continue).  Payload {vcpu:16,
 * dom:16}, optionally followed by two 64-bit performance counters.
 */
static bool runstate(struct xd_out *o, const struct vma_record *rec)
{
	uint32_t type = rec->event & 0xfu;
	uint32_t new_state = (rec->event >> 4) & 0xfu;
	uint32_t old_state = (rec->event >> 8) & 0xfu;
	const char *old_name, *new_name;

	if ((type != 1 && type != 2) || rec->nr_data < 1)
		return false;
	if (type == 2) {
		old_state = new_state = 0; /* running->running */
	}
	old_name = state_name(old_state);
	new_name = state_name(new_state);
	if (!old_name || !new_name)
		return false;
	if (type == 2)
		xd_lit(o, "runstate_continue");
	else
		xd_lit(o, "runstate_change");
	if (rec->nr_data == 5)
		xd_printf(o, " {%lld,%lld}", (long long)xd_q(rec, 1), (long long)xd_q(rec, 3));
	/* " d%uv%u %s->%s" */
	xd_putc(o, ' ');
	xd_vcpu(o, hi16(rec->data[0]), lo16(rec->data[0]));
	xd_putc(o, ' ');
	xd_puts(o, old_name);
	xd_lit(o, "->");
	xd_puts(o, new_name);
	return true;
}

/* {domid, vcpuid}: "<action> dNvM". */
static void vcpu_action(struct xd_out *o, const struct vma_record *rec, const char *action)
{
	xd_puts(o, action);
	xd_putc(o, ' ');
	xd_vcpu(o, rec->data[0], rec->data[1]);
}

/* Records xenalyze skips without a line; printed plainly here. */
static void silent_plain(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	o->layout = VMA_XEN_DUMP_SILENT;
	xd_puts(o, name);
	if (rec->nr_data) {
		xd_puts(o, " [");
		xd_words(o, rec);
		xd_puts(o, " ]");
	}
}

static bool verbose(struct xd_out *o, const struct vma_record *rec)
{
	const uint32_t *d = rec->data;
	unsigned int n = rec->nr_data;

	switch (rec->event) {
	case TRC_SCHED_DOM_ADD:
		if (n < 1)
			return false;
		xd_printf(o, "sched_init_domain d%u", d[0]);
		return true;
	case TRC_SCHED_DOM_REM:
		if (n < 1)
			return false;
		xd_printf(o, "sched_destroy_domain d%u", d[0]);
		return true;
	case TRC_SCHED_SLEEP:
	case TRC_SCHED_WAKE:
	case TRC_SCHED_YIELD:
	case TRC_SCHED_BLOCK:
		if (n < 2)
			return false;
		vcpu_action(o, rec,
			    rec->event == TRC_SCHED_SLEEP ? "vcpu_sleep" :
			    rec->event == TRC_SCHED_WAKE ? "vcpu_wake" :
			    rec->event == TRC_SCHED_YIELD ? "vcpu_yield" : "vcpu_block");
		return true;
	case TRC_SCHED_SHUTDOWN:
	case TRC_SCHED_SHUTDOWN_CODE:
		if (n < 3)
			return false;
		xd_printf(o, "%s d%uv%u, reason = %u",
			  rec->event == TRC_SCHED_SHUTDOWN ? "sched_shutdown" :
			  "sched_shutdown_code", d[0], d[1], d[2]);
		return true;
	case TRC_SCHED_ADJDOM:
		if (n < 1)
			return false;
		xd_printf(o, "sched_adjust d%u", d[0]);
		return true;
	case TRC_SCHED_SWITCH:
		if (n < 4)
			return false;
		/* "sched_switch prev d%uv%u next d%uv%u" */
		xd_lit(o, "sched_switch prev ");
		xd_vcpu(o, d[0], d[1]);
		xd_lit(o, " next ");
		xd_vcpu(o, d[2], d[3]);
		return true;
	case TRC_SCHED_SWITCH_INFPREV:
		/* {domid, vcpuid, ns run} */
		if (n < 3)
			return false;
		/* "sched_switch prev d%uv%d, run for " (a signed vcpu, as xenalyze has it) */
		xd_lit(o, "sched_switch prev d");
		xd_u64(o, d[0]);
		xd_putc(o, 'v');
		xd_s64(o, (int32_t)d[1]);
		xd_lit(o, ", run for ");
		ns_as_us(o, d[2]);
		return true;
	case TRC_SCHED_SWITCH_INFNEXT:
		/* {domid, vcpuid, ns waited, int ns slice} */
		if (n < 4)
			return false;
		xd_lit(o, "sched_switch next ");
		xd_vcpu(o, d[0], d[1]);
		if (d[2] != 0) {
			xd_lit(o, ", was runnable for ");
			ns_as_us(o, d[2]);
		}
		if ((int32_t)d[3] > 0) {
			xd_lit(o, ", next slice ");
			ns_as_us(o, d[3]);
		}
		return true;
	case TRC_SCHED_SWITCH_INFCONT:
		/* {domid, vcpuid, ns run, int ns slice} */
		if (n < 4)
			return false;
		xd_lit(o, "sched_switch continue ");
		xd_vcpu(o, d[0], d[1]);
		xd_lit(o, ", run for ");
		ns_as_us(o, d[2]);
		if ((int32_t)d[3] > 0) {
			xd_lit(o, ", next slice ");
			ns_as_us(o, d[3]);
		}
		return true;
	case TRC_SCHED_CTL:
		silent_plain(o, rec, "sched_ctl");
		return true;
	case TRC_SCHED_S_TIMER_FN:
		silent_plain(o, rec, "sched_s_timer_fn");
		return true;
	case TRC_SCHED_T_TIMER_FN:
		silent_plain(o, rec, "sched_t_timer_fn");
		return true;
	case TRC_SCHED_DOM_TIMER_FN:
		silent_plain(o, rec, "sched_dom_timer_fn");
		return true;
	default:
		return false;
	}
}

/* Credit (the original credit scheduler). */
static bool csched(struct xd_out *o, const struct vma_record *rec)
{
	const uint32_t *d = rec->data;
	unsigned int n = rec->nr_data;

	switch (rec->event) {
	case TRC_CSCHED_SCHED_TASKLET:
		xd_puts(o, "csched:sched_tasklet");
		return true;
	case TRC_CSCHED_ACCOUNT_START:
	case TRC_CSCHED_ACCOUNT_STOP:
		if (n < 3)
			return false;
		xd_printf(o, "csched:acct_%s d%uv%u, active_vcpus %u",
			  rec->event == TRC_CSCHED_ACCOUNT_START ? "start" : "stop",
			  d[0], d[1], d[2]);
		return true;
	case TRC_CSCHED_STOLEN_UNIT:
		if (n < 3)
			return false;
		xd_printf(o, "csched:stolen_vcpu d%uv%u from cpu %u", d[1], d[2], d[0]);
		return true;
	case TRC_CSCHED_PICKED_CPU:
		if (n < 3)
			return false;
		xd_printf(o, "csched:pick_cpu %u for d%uv%u", d[2], d[0], d[1]);
		return true;
	case TRC_CSCHED_TICKLE:
		if (n < 1)
			return false;
		xd_printf(o, "csched:runq_tickle, cpu %u", d[0]);
		return true;
	case TRC_CSCHED_BOOST_START:
	case TRC_CSCHED_BOOST_END:
		if (n < 2)
			return false;
		xd_printf(o, "csched: d%uv%u %s", d[0], d[1],
			  rec->event == TRC_CSCHED_BOOST_START ? "boosted" : "unboosted");
		return true;
	case TRC_CSCHED_SCHEDULE:
		/* {cpu:16, tasklet:8, idle:8} */
		if (n < 1)
			return false;
		xd_printf(o, "csched:schedule cpu %u%s%s", lo16(d[0]),
			  ((d[0] >> 16) & 0xffu) ? ", tasklet scheduled" : "",
			  (d[0] >> 24) ? ", idle" : ", busy");
		return true;
	case TRC_CSCHED_RATELIMIT:
		/* {vcpu:16, dom:16; runtime ns} */
		if (n < 2)
			return false;
		xd_printf(o, "csched:ratelimit, d%uv%u run only ", hi16(d[0]), lo16(d[0]));
		ns_as_us(o, d[1]);
		return true;
	case TRC_CSCHED_STEAL_CHECK:
		if (n < 2)
			return false;
		xd_printf(o, "csched:load_balance %s %u", d[1] ? "checking" : "skipping", d[0]);
		return true;
	default:
		return false;
	}
}

/* Credit2: records with a {vcpu:16, dom:16} first word. */
static bool csched2_vcpu(struct xd_out *o, const struct vma_record *rec)
{
	const uint32_t *d = rec->data;
	unsigned int n = rec->nr_data;

	if (n < 1)
		return false;
	switch (rec->event) {
	case TRC_CSCHED2_RUNQ_POS:
		if (n < 2)
			return false;
		/* "csched2:runq_insert d%uv%u, position %u" */
		xd_lit(o, "csched2:runq_insert ");
		xd_vcpu(o, hi16(d[0]), lo16(d[0]));
		xd_lit(o, ", position ");
		xd_u64(o, d[1]);
		return true;
	case TRC_CSCHED2_CREDIT_BURN:
		/* {vcpu; int credit, budget, delta} */
		if (n < 4)
			return false;
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
	case TRC_CSCHED2_TICKLE_CHECK:
		/* xenalyze ends this line with an extra empty line. */
		if (n < 3)
			return false;
		xd_printf(o, "csched2:tickle_check d%uv%u, credit = %d, score = %d", hi16(d[0]),
			  lo16(d[0]), (int)d[1], (int)d[2]);
		return true;
	case TRC_CSCHED2_CREDIT_RESET:
		if (n < 3)
			return false;
		/* "csched2:reset_credits d%uv%u, credit_start = %d, credit_end = %d" */
		xd_lit(o, "csched2:reset_credits ");
		xd_vcpu(o, hi16(d[0]), lo16(d[0]));
		xd_lit(o, ", credit_start = ");
		xd_s64(o, (int32_t)d[1]);
		xd_lit(o, ", credit_end = ");
		xd_s64(o, (int32_t)d[2]);
		return true;
	case TRC_CSCHED2_RUNQ_ASSIGN:
		if (n < 2)
			return false;
		xd_printf(o, "csched2:runq_assign d%uv%u on rq# %u", hi16(d[0]), lo16(d[0]),
			  lo16(d[1]));
		return true;
	case TRC_CSCHED2_TICKLE_NEW:
		if (n < 3)
			return false;
		/* "csched2:runq_tickle_new d%uv%u, processor = %u, credit = %d" */
		xd_lit(o, "csched2:runq_tickle_new ");
		xd_vcpu(o, hi16(d[0]), lo16(d[0]));
		xd_lit(o, ", processor = ");
		xd_u64(o, d[1]);
		xd_lit(o, ", credit = ");
		xd_s64(o, (int32_t)d[2]);
		return true;
	case TRC_CSCHED2_MIGRATE:
		/* {vcpu; rqi:16, trqi:16} */
		if (n < 2)
			return false;
		xd_printf(o, "csched2:migrate d%uv%u rq# %u --> rq# %u", hi16(d[0]), lo16(d[0]),
			  lo16(d[1]), hi16(d[1]));
		return true;
	case TRC_CSCHED2_RUNQ_CANDIDATE:
		/* {vcpu; tickled cpu or -1; int credit} */
		if (n < 3)
			return false;
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
	case TRC_CSCHED2_RATELIMIT:
		if (n < 2)
			return false;
		xd_printf(o, "csched2:ratelimit, d%uv%u run only ", hi16(d[0]), lo16(d[0]));
		ns_as_us(o, d[1]);
		return true;
	case TRC_CSCHED2_RUNQ_CAND_CHECK:
		xd_lit(o, "csched2:runq_cand_check ");
		xd_vcpu(o, hi16(d[0]), lo16(d[0]));
		return true;
	default:
		return false;
	}
}

static bool csched2(struct xd_out *o, const struct vma_record *rec)
{
	const uint32_t *d = rec->data;
	unsigned int n = rec->nr_data;

	switch (rec->event) {
	case TRC_CSCHED2_TICK:
		silent_plain(o, rec, "csched2:tick");
		return true;
	case TRC_CSCHED2_CREDIT_ADD:
		silent_plain(o, rec, "csched2:credit_add");
		return true;
	case TRC_CSCHED2_TICKLE:
		if (n < 1)
			return false;
		xd_lit(o, "csched2:runq_tickle cpu ");
		xd_u64(o, lo16(d[0]));
		return true;
	case TRC_CSCHED2_SCHED_TASKLET:
		xd_puts(o, "csched2:sched_tasklet");
		return true;
	case TRC_CSCHED2_UPDATE_LOAD:
		xd_puts(o, "csched2:update_load");
		return true;
	case TRC_CSCHED2_UPDATE_UNIT_LOAD:
		/* {u64 load; vcpu:16, dom:16; shift} */
		if (n < 4)
			return false;
		/* "csched2:update_vcpu_load d%uv%u, vcpu_load = %4.3f%% (%llu)" */
		xd_lit(o, "csched2:update_vcpu_load ");
		xd_vcpu(o, hi16(d[2]), lo16(d[2]));
		xd_lit(o, ", vcpu_load = ");
		load_percent(o, xd_q(rec, 0), d[3]);
		xd_lit(o, "% (");
		xd_u64(o, xd_q(rec, 0));
		xd_putc(o, ')');
		return true;
	case TRC_CSCHED2_UPDATE_RUNQ_LOAD:
		/* {u64 rq_avgload, b_avgload; load:16, rq_id:8, shift:8} */
		if (n < 5)
			return false;
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
	case TRC_CSCHED2_RUNQ_MAX_WEIGHT:
		if (n < 1)
			return false;
		xd_printf(o, "csched2:update_max_weight rq# %u, max_weight = %u", lo16(d[0]),
			  hi16(d[0]));
		return true;
	case TRC_CSCHED2_LOAD_CHECK:
		if (n < 2)
			return false;
		xd_printf(o, "csched2:load_balance_check lrq# %u, orq# %u, delta = %u",
			  lo16(d[0]), hi16(d[0]), d[1]);
		return true;
	case TRC_CSCHED2_LOAD_BALANCE:
		/* {u64 lb_avgload, ob_avgload; lrqi:16, orqi:16} */
		if (n < 5)
			return false;
		xd_printf(o, "csched2:load_balance_begin lrq# %u, avg_load = %" PRIu64
			  " -- orq# %u, avg_load = %" PRIu64, lo16(d[4]), xd_q(rec, 0), hi16(d[4]),
			  xd_q(rec, 2));
		return true;
	case TRC_CSCHED2_PICKED_CPU:
		/* {u64 b_avgload; vcpu:16, dom:16; rqi:16, cpu:16} */
		if (n < 4)
			return false;
		xd_printf(o, "csched2:picked_cpu d%uv%u, rq# %u, cpu %u", hi16(d[2]), lo16(d[2]),
			  lo16(d[3]), hi16(d[3]));
		return true;
	case TRC_CSCHED2_SCHEDULE:
		/* {cpu:16, rqi:16; tasklet:8, idle:8, smt_idle:8, tickled:8} */
		if (n < 2)
			return false;
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
	default:
		return csched2_vcpu(o, rec);
	}
}

static bool rtds(struct xd_out *o, const struct vma_record *rec)
{
	const uint32_t *d = rec->data;
	unsigned int n = rec->nr_data;

	switch (rec->event) {
	case TRC_RTDS_TICKLE:
		if (n < 1)
			return false;
		xd_printf(o, "rtds:runq_tickle cpu %u", lo16(d[0]));
		return true;
	case TRC_RTDS_RUNQ_PICK:
		/* {vcpu:16, dom:16; u64 deadline, budget} packed */
		if (n < 5)
			return false;
		xd_printf(o, "rtds:runq_pick d%uv%u, deadline = %" PRIu64 ", budget = %" PRIu64,
			  hi16(d[0]), lo16(d[0]), xd_q(rec, 1), xd_q(rec, 3));
		return true;
	case TRC_RTDS_BUDGET_BURN:
		/* {vcpu:16, dom:16; u64 budget; int delta} packed */
		if (n < 4)
			return false;
		xd_printf(o, "rtds:burn_budget d%uv%u, budget = %" PRIu64 ", delta = %d",
			  hi16(d[0]), lo16(d[0]), xd_q(rec, 1), (int)d[3]);
		return true;
	case TRC_RTDS_BUDGET_REPLENISH:
		/* {vcpu:16, dom:16; priority; u64 deadline, budget} packed */
		if (n < 6)
			return false;
		xd_printf(o, "rtds:repl_budget d%uv%u, deadline = %" PRIu64 ", budget = %" PRIu64
			  ", priority = %u", hi16(d[0]), lo16(d[0]), xd_q(rec, 2), xd_q(rec, 4),
			  d[1]);
		return true;
	case TRC_RTDS_SCHED_TASKLET:
		xd_puts(o, "rtds:sched_tasklet");
		return true;
	case TRC_RTDS_SCHEDULE:
		/* {cpu:16, tasklet:8, idle:4, tickled:4} */
		if (n < 1)
			return false;
		xd_printf(o, "rtds:schedule cpu %u, %s%s%s", lo16(d[0]),
			  ((d[0] >> 16) & 0xffu) ? ", tasklet scheduled" : "",
			  ((d[0] >> 24) & 0xfu) ? ", idle" : ", busy",
			  (d[0] >> 28) ? ", tickled" : ", not tickled");
		return true;
	default:
		return false;
	}
}

static bool snull(struct xd_out *o, const struct vma_record *rec)
{
	const uint32_t *d = rec->data;
	unsigned int n = rec->nr_data;

	switch (rec->event) {
	case TRC_SNULL_PICKED_CPU:
		/* {u16 vcpu, dom; u32 cpu} */
		if (n < 2)
			return false;
		xd_printf(o, "null:picked_cpu d%uv%u, cpu %u", hi16(d[0]), lo16(d[0]), d[1]);
		return true;
	case TRC_SNULL_UNIT_ASSIGN:
	case TRC_SNULL_UNIT_DEASSIGN:
		if (n < 2)
			return false;
		xd_printf(o, "null:vcpu_%s d%uv%u %s cpu %u",
			  rec->event == TRC_SNULL_UNIT_ASSIGN ? "assign" : "deassign",
			  hi16(d[0]), lo16(d[0]),
			  rec->event == TRC_SNULL_UNIT_ASSIGN ? "to" : "from", d[1]);
		return true;
	case TRC_SNULL_MIGRATE:
		/* {u16 vcpu, dom; u16 cpu, new_cpu} */
		if (n < 2)
			return false;
		xd_printf(o, "null:migrate d%uv%u, cpu %u, new_cpu %u", hi16(d[0]), lo16(d[0]),
			  lo16(d[1]), hi16(d[1]));
		return true;
	case TRC_SNULL_SCHEDULE:
		/* {u16 tasklet, cpu; s16 vcpu, dom} */
		if (n < 2)
			return false;
		xd_printf(o, "null:schedule cpu %u%s", hi16(d[0]),
			  lo16(d[0]) ? ", tasklet scheduled" : "");
		if ((int16_t)lo16(d[1]) != -1) {
			xd_printf(o, ", vcpu d%uv%d", (unsigned int)(int)(int16_t)hi16(d[1]),
				  (int)(int16_t)lo16(d[1]));
		} else {
			xd_puts(o, ", no vcpu");
		}
		return true;
	case TRC_SNULL_TASKLET:
		xd_puts(o, "null:sched_tasklet");
		return true;
	default:
		return false;
	}
}

bool xd_sched(struct xd_out *o, const struct vma_record *rec)
{
	switch (VMA_TRC_SUB(rec->event)) {
	case VMA_TRC_SUB(TRC_SCHED_MIN):
		return runstate(o, rec);
	case VMA_TRC_SUB(TRC_SCHED_VERBOSE):
		return verbose(o, rec);
	case VMA_TRC_SUB(TRC_SCHED_CLASS):
		switch ((rec->event & TRC_SCHED_ID_MASK) >> TRC_SCHED_ID_SHIFT) {
		case TRC_SCHED_CSCHED:
			return csched(o, rec);
		case TRC_SCHED_CSCHED2:
			return csched2(o, rec);
		case TRC_SCHED_RTDS:
			return rtds(o, rec);
		case TRC_SCHED_SNULL:
			return snull(o, rec);
		default:
			return false;
		}
	default:
		return false;
	}
}
