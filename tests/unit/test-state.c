/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state stage through dispatch: exit arcs (exit, handlers, entry),
 * closing on runnable, late I/O refinements, lost records, arcs open at
 * the end of the trace, runstate accounting and vendor detection.
 * Records are built by hand; each test states its timeline.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/state-handlers.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

#include "test-record-util.h"

static struct vma_diag *diag;
static struct vma_machine *m;

static void setup(void)
{
	diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	m = vma_machine_create(diag, NULL);
	cr_assert_not_null(m);
	cr_assert_eq(vma_machine_add_pcpu(m, 0), VMA_OK);
}

static void teardown(void)
{
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
}

/* Feed one record with @n payload words; returns how dispatch took it. */
static struct vma_outcome feed(uint64_t tsc, uint32_t event, int n, ...)
{
	struct vma_record rec;
	struct vma_outcome out;
	va_list ap;

	va_start(ap, n);
	vt_record(&rec, 0, tsc, event, n, ap);
	va_end(ap);
	cr_assert_eq(vma_dispatch(m, &rec, &out), VMA_OK);
	return out;
}

/* TRC_SCHED_RUNSTATE_CHANGE for dDvV from @old to @new. */
static void runstate(uint64_t tsc, uint32_t dom, uint32_t vcpu, uint32_t old, uint32_t new)
{
	feed(tsc, TRC_SCHED_RUNSTATE_CHANGE | old << 8 | new << 4, 1, dom << 16 | vcpu);
}

static void vmexit(uint64_t tsc, uint32_t reason)
{
	feed(tsc, TRC_HVM_VMX_EXIT64, 3, reason, 0x1000u, 0u);
}

static const struct vma_exit_stats *exit_stats(uint32_t reason)
{
	struct vma_vcpu *v = vma_vcpu_get(m, 1, 0);

	cr_assert_eq(v->type, VMA_VCPU_HVM);
	cr_assert_not_null(v->hvm.stats);
	return vma_hvm_stats_reason(v->hvm.stats, reason);
}

static const struct vma_exit_sub *find_sub(const struct vma_exit_stats *e, uint32_t handler)
{
	uint32_t i;

	for (i = 0; i < e->nr_subs; i++) {
		if (e->subs[i].handler == handler)
			return &e->subs[i];
	}
	return NULL;
}

/* d1v0 starts running on pcpu 0 at 100 (it leaves INIT). */
static void start_running(void)
{
	runstate(100, 1, 0, 1, 0);
	cr_assert_eq(vma_pcpu_of(m, 0)->current, vma_vcpu_get(m, 1, 0));
}

TestSuite(state, .init = setup, .fini = teardown);

/* The one runstate table: Xen's numbering, then xenalyze's pseudo-states. */
Test(state, runstate_names)
{
	cr_expect_str_eq(vma_vcpu_runstate_name(VMA_RS_RUNNING), "running");
	cr_expect_str_eq(vma_vcpu_runstate_name(1), "runnable");
	cr_expect_str_eq(vma_vcpu_runstate_name(2), "blocked");
	cr_expect_str_eq(vma_vcpu_runstate_name(3), "offline");
	cr_expect_str_eq(vma_vcpu_runstate_name(4), "lost");
	cr_expect_str_eq(vma_vcpu_runstate_name(5), "queued");
	cr_expect_str_eq(vma_vcpu_runstate_name(6), "init");
	cr_expect_str_eq(vma_vcpu_runstate_name(VMA_RS_COUNT), "?");
}

Test(state, arc_exit_handler_entry)
{
	struct vma_outcome o;
	const struct vma_exit_sub *s;

	start_running();
	o = feed(200, TRC_HVM_VMX_EXIT64, 3, 30u, 0x1000u, 0u); /* IO_INSTRUCTION */
	cr_assert_not(o.unprocessed);
	cr_assert(vma_vcpu_get(m, 1, 0)->hvm.vmexit_valid);
	o = feed(210, TRC_HVM_IOPORT_WRITE, 2, 0x80u, 0x1u);
	cr_assert_not(o.orphan);
	o = feed(260, TRC_HVM_VMENTRY, 0);
	cr_assert(o.arc_closed);
	cr_assert_eq(o.arc_cycles, 60);
	cr_assert_eq(exit_stats(30)->cycles.count, 1);
	cr_assert_eq(exit_stats(30)->cycles.cycles, 60);
	s = find_sub(exit_stats(30), TRC_HVM_IOPORT_WRITE);
	cr_assert_not_null(s);
	cr_assert_eq(s->key, 0x80);
	cr_assert(s->is_write);
}

Test(state, runnable_closes_the_arc_and_blocked_time_stays_in_it)
{
	struct vma_outcome o;

	start_running();
	vmexit(300, 12);              /* HLT */
	runstate(310, 1, 0, 0, 2);    /* running -> blocked inside the exit */
	runstate(500, 1, 0, 2, 1);    /* blocked -> runnable: arc closes here */
	runstate(600, 1, 0, 1, 0);    /* runnable -> running */
	o = feed(610, TRC_HVM_VMENTRY, 0);
	cr_assert_not(o.arc_closed, "nothing left to close");
	cr_assert_eq(exit_stats(12)->cycles.count, 1);
	cr_assert_eq(exit_stats(12)->cycles.cycles, 200, "300..500, not the wait for a pcpu");
}

Test(state, late_io_read_refines_an_arc_closed_early)
{
	struct vma_outcome o;
	const struct vma_exit_sub *s;

	start_running();
	vmexit(700, 30);
	runstate(710, 1, 0, 0, 2);
	runstate(800, 1, 0, 2, 1);    /* closes the arc: 100 cycles */
	runstate(803, 1, 0, 1, 0);    /* running again; the device model answers */
	o = feed(805, TRC_HVM_IOPORT_READ, 2, 0xc206u, 0x14au);
	cr_assert(o.orphan, "shown as xenalyze shows it: no open exit");
	feed(815, TRC_HVM_VMENTRY, 0);
	s = find_sub(exit_stats(30), TRC_HVM_IOPORT_READ);
	cr_assert_not_null(s, "the read explains the arc");
	cr_assert_eq(s->key, 0xc206);
	cr_assert_eq(s->cycles.cycles, 100);
	cr_assert_null(find_sub(exit_stats(30), 0), "no (no handler) entry");
}

Test(state, lost_records_drop_the_open_arc)
{
	struct vma_outcome o;

	start_running();
	vmexit(200, 30);
	feed(260, TRC_HVM_VMENTRY, 0);
	vmexit(900, 1);
	/* 5 records lost from 950; Xen wrote the record at 1000. */
	feed(950, TRC_LOST_RECORDS, 4, 5u, 1u, 950u, 0u);
	cr_assert(vma_pcpu_of(m, 0)->lost.active);
	feed(1000, VMA_SYNTH_LOST_END, 4, 5u, 1u, 950u, 0u);
	cr_assert_not(vma_pcpu_of(m, 0)->lost.active);
	cr_assert_eq(m->lost_records, 5);
	o = feed(1010, TRC_HVM_VMENTRY, 0);
	cr_assert_not(o.arc_closed);
	cr_assert(exit_stats(1) == NULL || exit_stats(1)->cycles.count == 0);
	cr_assert_eq(vma_pcpu_of(m, 0)->time_lost.cycles, 50);
}

Test(state, arc_open_at_the_end_is_not_counted)
{
	start_running();
	vmexit(200, 30);
	feed(260, TRC_HVM_VMENTRY, 0);
	vmexit(1100, 10);
	vma_machine_finish(m);
	cr_assert(exit_stats(10) == NULL || exit_stats(10)->cycles.count == 0);
	cr_assert_eq(exit_stats(30)->cycles.count, 1);
}

Test(state, handler_without_exit_is_ignored)
{
	struct vma_outcome o;

	start_running();
	o = feed(150, TRC_HVM_CPUID, 5, 0u, 1u, 2u, 3u, 4u);
	cr_assert(o.orphan);
	o = feed(160, TRC_HVM_INJ_VIRQ, 2, 243u, 0u);
	cr_assert_not(o.orphan, "injections need no exit");
	cr_assert_eq(vma_hvm_stats_irqs(vma_vcpu_get(m, 1, 0)->hvm.stats, 243), 1);
}

Test(state, runstate_times_and_runnable_kinds)
{
	struct vma_vcpu *v;

	start_running();
	runstate(300, 1, 0, 0, 1);    /* preempted: running 100..300 */
	runstate(350, 1, 0, 1, 0);    /* runnable (preempt) 300..350 */
	runstate(400, 1, 0, 0, 2);    /* blocked from 400 */
	runstate(700, 1, 0, 2, 1);    /* blocked 400..700; runnable (wake) */
	runstate(720, 1, 0, 1, 0);
	v = vma_vcpu_get(m, 1, 0);
	cr_assert_eq(v->runstates[VMA_RS_RUNNING].count, 2);
	cr_assert_eq(v->runstates[VMA_RS_RUNNING].cycles, 200 + 50);
	cr_assert_eq(v->runstates[VMA_RS_BLOCKED].cycles, 300);
	cr_assert_eq(v->runnable[VMA_RUNNABLE_PREEMPT].cycles, 50);
	cr_assert_eq(v->runnable[VMA_RUNNABLE_WAKE].cycles, 20);
	cr_assert_eq(v->domain->total_time.cycles, 250);
}

Test(state, first_change_not_running_leaves_init)
{
	struct vma_vcpu *v;

	runstate(100, 1, 0, 2, 1);    /* blocked -> runnable: not yet seen running */
	v = vma_vcpu_get(m, 1, 0);
	cr_assert_eq(v->state, VMA_RS_INIT);
	cr_assert_eq(vma_pcpu_of(m, 0)->current->domain->did, VMA_DEFAULT_DOMAIN);
	runstate(150, 1, 0, 1, 0);
	cr_assert_eq(v->state, VMA_RS_RUNNING);
}

Test(state, pcpu_end_loses_its_vcpu)
{
	start_running();
	vma_pcpu_of(m, 0)->last_tsc = 400;
	vma_machine_pcpu_end(m, 0);
	cr_assert_eq(vma_vcpu_get(m, 1, 0)->state, VMA_RS_LOST);
	cr_assert_eq(vma_vcpu_get(m, 1, 0)->runstates[VMA_RS_RUNNING].cycles, 300);
}

Test(state, vendor_from_xen_4_17_exit_codes)
{
	start_running();
	cr_assert_not(m->svm);
	feed(200, TRC_HVM_VMX_EXIT64, 3, 0x7bu, 0u, 0u); /* VMEXIT_IOIO: SVM only */
	cr_assert(m->svm);
}

Test(state, vendor_from_xen_4_19_svm_id)
{
	struct vma_outcome o;

	start_running();
	o = feed(200, TRC_HVM_SVM_EXIT64, 3, 0x72u, 0u, 0u); /* VMEXIT_CPUID */
	cr_assert(o.svm);
	cr_assert(m->svm);
}

Test(state, checks_refuse_hvm_records_on_a_pv_vcpu)
{
	struct vma_outcome o;

	start_running();
	feed(150, TRC_PV_HYPERCALL_V2, 1, 17u);
	o = feed(160, TRC_HVM_VMX_EXIT64, 3, 1u, 0u, 0u);
	cr_assert(o.unprocessed);
	cr_assert_eq(vma_vcpu_get(m, 1, 0)->type, VMA_VCPU_PV);
	cr_assert_eq(vma_vcpu_get(m, 1, 0)->pv.nr_hypercalls, 1);
	cr_assert_eq(vma_vcpu_get(m, 1, 0)->pv.hypercalls[0].number, 17);
	cr_assert_eq(vma_vcpu_get(m, 1, 0)->pv.hypercalls[0].count, 1);
}

/* A record of @n payload words, for a handler called directly. */
static void make(struct vma_record *rec, uint64_t tsc, uint32_t event, int n, ...)
{
	va_list ap;

	va_start(ap, n);
	vt_record(rec, 0, tsc, event, n, ap);
	va_end(ap);
}

/*
 * A class handler given a vcpu of another type (which dispatch refuses)
 * neither retypes it nor comes back to itself: the PV and HVM handlers
 * try to type an untyped vcpu and handle the record again.
 */
Test(state, handlers_leave_a_vcpu_of_another_type_alone, .timeout = 10)
{
	struct vma_record rec;
	struct vma_outcome out = { 0 };
	struct vma_vcpu *v;

	start_running();
	feed(150, TRC_HVM_VMX_EXIT64, 3, 1u, 0u, 0u);
	v = vma_vcpu_get(m, 1, 0);
	cr_assert_eq(v->type, VMA_VCPU_HVM);
	make(&rec, 160, TRC_PV_HYPERCALL_V2, 1, 17u);
	cr_assert_eq(vma_pv_record(m, vma_pcpu_of(m, 0), &rec, &out), VMA_OK);
	cr_assert(out.unprocessed);
	cr_assert_eq(v->type, VMA_VCPU_HVM);

	/* and the other way round, on a PV vcpu */
	runstate(170, 2, 0, 1, 0);
	feed(180, TRC_PV_HYPERCALL_V2, 1, 17u);
	v = vma_vcpu_get(m, 2, 0);
	cr_assert_eq(v->type, VMA_VCPU_PV);
	memset(&out, 0, sizeof(out));
	make(&rec, 190, TRC_HVM_VMX_EXIT64, 3, 1u, 0u, 0u);
	cr_assert_eq(vma_hvm_record(m, vma_pcpu_of(m, 0), &rec, &out), VMA_OK);
	cr_assert_eq(v->type, VMA_VCPU_PV);
	cr_assert_eq(v->pv.nr_hypercalls, 1);
	cr_assert_eq(v->pv.hypercalls[0].count, 1);
}

/* The count of @number in a PV table (0 when absent). */
static uint64_t pv_number_count(const struct vma_pv_count *t, uint32_t n, uint32_t number)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (t[i].number == number)
			return t[i].count;
	}
	return 0;
}

/*
 * PV counts against a tally kept here: minors, hypercall numbers (v1 and
 * v2, numbers past 0xffff counted as events only) and trap numbers, in a
 * random mix that keeps meeting new numbers and old ones.
 */
Test(state, pv_counts_match_a_tally)
{
	enum { RECORDS = 20000, NUMBERS = 0x10000 };
	static uint64_t minors[256], calls[NUMBERS], traps[0x8000];
	const struct vma_pv *pv;
	uint32_t seed = 7, i, n;

	start_running();
	for (i = 0; i < RECORDS; i++) {
		uint32_t r, kind;

		seed = seed * 1103515245u + 12345u;
		r = seed >> 8;
		kind = r % 5;
		/* numbers: mostly a few, sometimes one of many, now and then past 0xffff */
		if (r % 7 == 0)
			n = (r >> 4) % 3000;
		else if (r % 11 == 0)
			n = 0x10000 + (r >> 4) % 50;
		else
			n = (r >> 4) % 6;
		switch (kind) {
		case 0:
			feed(200 + i, TRC_PV_HYPERCALL_V2, 1, n);
			minors[TRC_PV_HYPERCALL_V2 & 0xff]++;
			if (n <= 0xffff)
				calls[n]++;
			break;
		case 1:
			feed(200 + i, TRC_PV_HYPERCALL, 2, 0x1000u, n);
			minors[TRC_PV_HYPERCALL & 0xff]++;
			if (n <= 0xffff)
				calls[n]++;
			break;
		case 2:
			feed(200 + i, TRC_PV_TRAP, 2, 0x1000u, n & 0x7fff);
			minors[TRC_PV_TRAP & 0xff]++;
			traps[n & 0x7fff]++;
			break;
		case 3:
			feed(200 + i, TRC_PV_PAGE_FAULT, 0);
			minors[TRC_PV_PAGE_FAULT & 0xff]++;
			break;
		default:
			feed(200 + i, TRC_PV_HYPERCALL_SUBCALL, 1, n);
			minors[TRC_PV_HYPERCALL_SUBCALL & 0xff]++;
			if (n <= 0xffff)
				calls[n]++;
			break;
		}
	}
	pv = &vma_vcpu_get(m, 1, 0)->pv;
	for (i = 0; i < 256; i++)
		cr_assert_eq(i < pv->nr_counts ? pv->counts[i] : 0, minors[i], "minor %u", i);
	for (i = 0; i < NUMBERS; i++) {
		cr_assert_eq(pv_number_count(pv->hypercalls, pv->nr_hypercalls, i), calls[i],
			     "hypercall %u", i);
	}
	for (i = 0; i < 0x8000; i++)
		cr_assert_eq(pv_number_count(pv->traps, pv->nr_traps, i), traps[i], "trap %u", i);
}

/* The dump's pcpu columns the state keeps agree with the pcpus at every step. */
static void columns_agree(void)
{
	uint32_t i;

	for (i = 0; i < m->nr_pcpus; i++)
		cr_assert_eq(m->columns[i], vma_pcpu_column(m->pcpus[i]), "pcpu %u: '%c' kept, '%c' now",
			     i, m->columns[i], vma_pcpu_column(m->pcpus[i]));
}

Test(state, pcpu_columns_follow_current_lost_and_end)
{
	cr_assert_eq(m->columns[0], '.', "the default domain until a schedule record");
	cr_assert_eq(vma_machine_add_pcpu(m, 5), VMA_OK);
	cr_assert_eq(m->columns[3], ' ', "a pcpu not seen");
	cr_assert_eq(m->columns[5], '.');
	start_running();
	cr_assert_eq(m->columns[0], '|');
	columns_agree();
	feed(950, TRC_LOST_RECORDS, 4, 5u, 1u, 950u, 0u);
	cr_assert_eq(m->columns[0], 'l');
	feed(1000, VMA_SYNTH_LOST_END, 4, 5u, 1u, 950u, 0u);
	columns_agree();
	runstate(1100, 1, 0, 0, 2);
	runstate(1100, VMA_IDLE_DOMAIN, 0, 1, 0);
	cr_assert_eq(m->columns[0], '-');
	columns_agree();
	vma_pcpu_of(m, 0)->last_tsc = 1200;
	vma_machine_pcpu_end(m, 0);
	cr_assert_eq(m->columns[0], ' ', "an ended pcpu");
	columns_agree();
}

/* Memory counters are made at a domain's first memory record: none before, none for others. */
Test(state, memory_counters_only_where_memory_records_are)
{
	start_running();
	cr_assert_null(vma_domain_get(m, 1)->mem);
	feed(200, TRC_MEM_PAGE_GRANT_MAP, 1, 2u);
	feed(210, TRC_MEM_PAGE_GRANT_UNMAP, 1, 2u);
	feed(220, TRC_MEM_PAGE_GRANT_MAP, 1, 2u);
	cr_assert_not_null(vma_domain_get(m, 1)->mem);
	cr_assert_eq(vma_domain_get(m, 1)->mem->grant_done[0], 2, "maps done by d1");
	cr_assert_eq(vma_domain_get(m, 1)->mem->grant_done[1], 1);
	cr_assert_eq(vma_domain_get(m, 2)->mem->grant_done_for[0], 2, "maps done for d2");
	cr_assert_eq(vma_domain_get(m, 2)->mem->grant_done[0], 0);
	cr_assert_null(vma_domain_get(m, 3)->mem);
}

/* d1v0's wake-to-halt summaries of vector @vec, case @c (NULL: none). */
static const struct vma_cycles *w2h(uint32_t vec, enum vma_w2h_case c)
{
	const struct vma_hvm_stats *st = vma_vcpu_get(m, 1, 0)->hvm.stats;
	uint32_t i;

	for (i = 0; st && i < st->nr_irqs; i++) {
		if (st->irqs[i].vector == vec)
			return st->irqs[i].w2h ? &st->irqs[i].w2h->cases[c] : NULL;
	}
	return NULL;
}

/*
 * Start times are kept only for the vectors waiting (by vector, not 256 of
 * them): d1v0 wakes, gets 0x90 (its wake vector), 0x31 and 0xef before a
 * vmentry at 1000 and 0x40 before one at 2000, and halts at 5000.
 */
Test(state, wake_to_halt_by_vector)
{
	static const uint32_t first[] = { 0x90, 0x31, 0xef };
	uint32_t i;

	start_running();
	vmexit(110, 1); /* an HVM vcpu from its first exit */
	feed(150, TRC_HVM_VMENTRY, 0);
	runstate(200, 1, 0, 0, 2);  /* blocked */
	runstate(300, 1, 0, 2, 1);  /* woken */
	runstate(400, 1, 0, 1, 0);
	vmexit(500, 1);
	for (i = 0; i < 3; i++)
		feed(600 + i, TRC_HVM_INJ_VIRQ, 2, first[i], 0u);
	feed(600, TRC_HVM_INJ_VIRQ, 2, 0x31u, 0u); /* again: one start time */
	feed(1000, TRC_HVM_VMENTRY, 0);
	vmexit(1500, 1);
	feed(1600, TRC_HVM_INJ_VIRQ, 2, 0x40u, 0u);
	feed(2000, TRC_HVM_VMENTRY, 0);
	runstate(5000, 1, 0, 0, 2); /* halts */
	cr_assert_not_null(w2h(0x90, VMA_W2H_WAKE_ANY));
	cr_assert_eq(w2h(0x90, VMA_W2H_WAKE_ANY)->cycles, 4000);
	cr_assert_eq(w2h(0x90, VMA_W2H_WAKE_ALONE)->count, 0, "not the only interrupt");
	cr_assert_eq(w2h(0x90, VMA_W2H_INTR)->count, 0);
	cr_assert_eq(w2h(0x31, VMA_W2H_INTR)->cycles, 4000);
	cr_assert_eq(w2h(0x31, VMA_W2H_INTR)->count, 1);
	cr_assert_eq(w2h(0xef, VMA_W2H_INTR)->cycles, 4000);
	cr_assert_eq(w2h(0x40, VMA_W2H_INTR)->cycles, 3000);
	cr_assert_eq(vma_vcpu_get(m, 1, 0)->hvm.w2h->nr_starts, 0, "all consumed by the halt");
	/* Alone this time: woken, one interrupt, a halt. */
	runstate(6000, 1, 0, 2, 1);
	runstate(6100, 1, 0, 1, 0);
	vmexit(6200, 1);
	feed(6300, TRC_HVM_INJ_VIRQ, 2, 0x31u, 0u);
	feed(6400, TRC_HVM_VMENTRY, 0);
	runstate(6900, 1, 0, 0, 2);
	cr_assert_eq(w2h(0x31, VMA_W2H_WAKE_ALONE)->cycles, 500);
	cr_assert_eq(w2h(0x31, VMA_W2H_INTR)->count, 1, "unchanged");
}

/* A pcpu number past 2^31 is refused at once (its table's doubling would wrap and never end). */
Test(state, huge_pcpu_number_is_refused_not_looped_on, .timeout = 10)
{
	cr_assert_eq(vma_machine_add_pcpu(m, 4278190081u), VMA_ERR_NOMEM);
	cr_assert_eq(vma_machine_add_pcpu(m, 1u << 31), VMA_ERR_NOMEM);
	cr_assert_eq(vma_machine_add_pcpu(m, 7), VMA_OK);
}
