/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CR3 enumeration (cr3.h): hand-built VMX records through dispatch
 * into the report, to the cycle -- which CR3 each stretch of guest and
 * hypervisor time belongs to, switches against flushes, ids in order of
 * first load, and nothing kept without --with-cr3-enumeration.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/report.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

#include "test-record-util.h"

static struct vma_machine *m;
static struct vma_diag *diag;

static void feed(uint64_t tsc, uint32_t event, int n, ...)
{
	struct vma_record rec;
	struct vma_outcome o;
	va_list ap;

	va_start(ap, n);
	vt_record(&rec, 0, tsc, event, n, ap);
	va_end(ap);
	cr_assert_eq(vma_dispatch(m, &rec, &o), VMA_OK);
}

static void cr3_write(uint64_t tsc, uint32_t cr3, uint64_t len)
{
	vt_cr3_write(feed, tsc, cr3, len);
}

static void plain_exit(uint64_t tsc, uint64_t len)
{
	vt_plain_exit(feed, tsc, len);
}

static struct vma_report *run(bool enumerate)
{
	struct vma_machine_options mo = { .eips = { .cr3 = enumerate } };
	struct vma_report_build how = { .hz = 1000000000u, .detail = VMA_REPORT_FULL,
					.final = true };
	struct vma_report *r;

	diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	m = vma_machine_create(diag, &mo);
	cr_assert_not_null(m);
	cr_assert_eq(vma_machine_add_pcpu(m, 0), VMA_OK);
	feed(1000, TRC_SCHED_RUNSTATE_CHANGE | 1 << 8, 1, 1 << 16); /* d1v0 runs */
	cr3_write(2000, 0x5000, 100);   /* switch to 5 (id 0) */
	plain_exit(2500, 40);           /* guest 400 under 5, hv 40 */
	cr3_write(3000, 0x5000, 20);    /* guest 460 under 5; a flush, hv 20 */
	cr3_write(4000, 0x7000, 30);    /* guest 980 under 5; switch to 7 (id 1), hv 30 */
	plain_exit(5000, 10);           /* guest 970 under 7, hv 10 */
	cr3_write(6000, 0x5123, 50);    /* guest 990 under 7; back to 5 (same frame) */
	vma_machine_finish(m);
	r = vma_report_create(m, &how);
	cr_assert_not_null(r);
	return r;
}

static const struct vma_report_domain *domain1(const struct vma_report *r)
{
	uint32_t i;

	for (i = 0; i < r->nr_domains; i++) {
		if (r->domains[i].id == 1)
			return &r->domains[i];
	}
	cr_assert_fail("no domain 1");
	return NULL;
}

Test(cr3, times_switches_and_flushes_per_cr3)
{
	struct vma_report *r = run(true);
	const struct vma_report_domain *d = domain1(r);
	const struct vma_report_cr3 *a, *b;

	cr_assert(d->has_cr3s);
	cr_assert_eq(d->nr_cr3s, 2);
	a = &d->cr3s[0];
	b = &d->cr3s[1];
	cr_assert_eq(a->gmfn, 5);
	cr_assert_eq(a->id, 0);
	cr_assert_eq(b->gmfn, 7);
	cr_assert_eq(b->id, 1);
	cr_assert_eq(a->switches, 2);
	cr_assert_eq(a->flushes, 1);
	cr_assert_eq(b->switches, 1);
	cr_assert_eq(b->flushes, 0);
	/* Stays are closed at the next switch, at its vmentry. */
	cr_assert_eq(a->total.count, 1);
	cr_assert_eq(a->total.total, 4030 - 2100);
	cr_assert_eq(b->total.total, 6050 - 4030);
	cr_assert_eq(a->first, 2100 - 1000);
	cr_assert_eq(a->last, 4030 - 1000);
	/* Guest time is counted from each vmentry to the next vmexit. */
	cr_assert_eq(a->guest.count, 3);
	cr_assert_eq(a->guest.total, 400 + 460 + 980);
	cr_assert_eq(b->guest.total, 970 + 990);
	/* The exit that switches is the new CR3's hypervisor time... */
	cr_assert_eq(a->hv.count, 4);
	cr_assert_eq(a->hv.total, 100 + 40 + 20 + 50);
	cr_assert_eq(b->hv.total, 30 + 10);
	cr_assert_eq(a->run_time, a->guest.total + a->hv.total);
	/* ...but xenalyze's cr3 category files it under the one left. */
	cr_assert_eq(a->hv_by[VMA_XCAT_CR3].total, 20 + 30);
	cr_assert_eq(b->hv_by[VMA_XCAT_CR3].total, 50);
	cr_assert_eq(a->hv_by[VMA_XCAT_OTHER].total, 40);
	cr_assert_eq(b->hv_by[VMA_XCAT_OTHER].total, 10);
	vma_report_destroy(r);
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
}

Test(cr3, nothing_without_the_option)
{
	struct vma_report *r = run(false);
	const struct vma_report_domain *d = domain1(r);

	cr_assert_not(d->has_cr3s);
	cr_assert_eq(d->nr_cr3s, 0);
	vma_report_destroy(r);
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
}

/*
 * A domain of @n CR3s written in turn, then again in reverse, under
 * @rows: the last one twice in a row (a flush), every other one switched
 * to twice.
 */
static struct vma_report *many(uint32_t n, size_t rows)
{
	struct vma_machine_options mo = { .eips = { .cr3 = true }, .rows_budget = rows };
	struct vma_report_build how = { .hz = 1000000000u, .detail = VMA_REPORT_FULL,
					.final = true };
	uint64_t tsc = 2000;
	uint32_t i;

	diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	m = vma_machine_create(diag, &mo);
	cr_assert_not_null(m);
	cr_assert_eq(vma_machine_add_pcpu(m, 0), VMA_OK);
	feed(1000, TRC_SCHED_RUNSTATE_CHANGE | 1 << 8, 1, 1 << 16); /* d1v0 runs */
	for (i = 0; i < 2 * n; i++, tsc += 1000)
		cr3_write(tsc, (i < n ? i + 1 : 2 * n - i) << 12, 100);
	vma_machine_finish(m);
	return vma_report_create(m, &how);
}

static void finish(struct vma_report *r)
{
	vma_report_destroy(r);
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
}

/* The index finds every CR3 again as the list grows (8, 16, 32, 64 entries). */
Test(cr3, every_cr3_found_again)
{
	struct vma_report *r = many(40, SIZE_MAX);
	const struct vma_report_domain *d = domain1(r);
	uint32_t i;

	cr_assert_eq(d->nr_cr3s, 40);
	for (i = 0; i < 40; i++) {
		cr_assert_eq(d->cr3s[i].gmfn, i + 1);
		cr_assert_not(d->cr3s[i].other);
		cr_assert_eq(d->cr3s[i].switches, i == 39 ? 1 : 2, "cr3 %u: %lu switches", i + 1,
			     (unsigned long)d->cr3s[i].switches);
	}
	cr_assert_eq(d->cr3s[39].flushes, 1);
	finish(r);
}

/*
 * Past the rows' budget a new CR3 goes to the domain's "other" entry,
 * made once, last: every switch, flush and cycle is still counted.
 */
Test(cr3, new_cr3s_past_the_rows_budget_go_to_other)
{
	struct vma_report *r = many(40, 8 * 1024), *all;
	const struct vma_report_domain *d = domain1(r), *a;
	uint64_t switches = 0, flushes = 0, guest = 0, hv = 0, a_guest = 0, a_hv = 0;
	const struct vma_report_cr3 *o;
	uint32_t i;

	cr_assert_gt(d->nr_cr3s, 1);
	cr_assert_lt(d->nr_cr3s, 40, "%u entries under 8 KiB of rows", d->nr_cr3s);
	o = &d->cr3s[d->nr_cr3s - 1];
	cr_assert(o->other);
	cr_assert_eq(o->gmfn, VMA_CR3_OTHER);
	/* CR3 40, last written, has no entry of its own: its flush is the other entry's. */
	cr_assert_eq(o->flushes, 1);
	for (i = 0; i < d->nr_cr3s; i++) {
		cr_assert_eq(d->cr3s[i].other, i == d->nr_cr3s - 1);
		if (!d->cr3s[i].other)
			cr_assert_eq(d->cr3s[i].gmfn, i + 1);
		switches += d->cr3s[i].switches;
		flushes += d->cr3s[i].flushes;
		guest += d->cr3s[i].guest.total;
		hv += d->cr3s[i].hv.total;
	}
	cr_assert_eq(switches, 79);
	cr_assert_eq(flushes, 1);
	cr_assert(r->folding.reduced);
	cr_assert_geq(r->folding.events, 1);
	finish(r);
	all = many(40, SIZE_MAX);
	a = domain1(all);
	for (i = 0; i < a->nr_cr3s; i++) {
		a_guest += a->cr3s[i].guest.total;
		a_hv += a->cr3s[i].hv.total;
	}
	cr_assert_eq(guest, a_guest);
	cr_assert_eq(hv, a_hv);
	finish(all);
}
