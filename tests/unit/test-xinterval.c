/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xenalyze's interval modes from hand-built records through dispatch (at
 * 1 GHz a tick is a nanosecond; intervals of 1 us): a domain's running
 * percent per interval, the last partial interval, guest-interrupt columns
 * under a header written first, and the exit categories; the CR3 modes
 * from CR3 writes: stays credited at the switch away, columns by first
 * load, the ordered blocks and a CR3's categories of its own time.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xinterval.h"

#include "test-record-util.h"

static struct vma_diag *diag;
static struct vma_machine *m;
static struct vma_xinterval *xi;
static char *text;
static size_t text_len;
static FILE *out;

static void start_with(const struct vma_xinterval_options *o)
{
	struct vma_machine_options mo = { .eips = { .cr3 = vma_xinterval_needs_cr3(o->mode) } };

	diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	m = vma_machine_create(diag, &mo);
	cr_assert_not_null(m);
	cr_assert_eq(vma_machine_add_pcpu(m, 0), VMA_OK);
	out = open_memstream(&text, &text_len);
	cr_assert_not_null(out);
	xi = vma_xinterval_create(out, 1000000000u, 0.000001, o, diag, "unit");
	cr_assert_not_null(xi);
	m->observer = vma_xinterval_observer(xi);
}

static void start(enum vma_xinterval_mode mode, uint32_t dom)
{
	struct vma_xinterval_options o = { .mode = mode, .domains = { dom }, .nr_domains = 1 };

	start_with(&o);
}

static const char *finish(void)
{
	vma_machine_finish(m);
	cr_assert_eq(vma_xinterval_finish(xi, m), VMA_OK);
	vma_xinterval_destroy(xi);
	fclose(out);
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
	return text;
}

static void teardown(void)
{
	free(text);
	text = NULL;
}

static void feed(uint64_t tsc, uint32_t event, int n, ...)
{
	struct vma_record rec;
	struct vma_outcome o;
	va_list ap;

	va_start(ap, n);
	vt_record(&rec, 0, tsc, event, n, ap);
	va_end(ap);
	cr_assert_eq(vma_xinterval_tick(xi, m, tsc, 0), VMA_OK);
	cr_assert_eq(vma_dispatch(m, &rec, &o), VMA_OK);
}

static void runstate(uint64_t tsc, uint32_t dom, uint32_t old, uint32_t new)
{
	feed(tsc, TRC_SCHED_RUNSTATE_CHANGE | old << 8 | new << 4, 1, dom << 16);
}

#define RUNNING 0
#define RUNNABLE 1
#define BLOCKED 2

Test(xinterval, running_percent_and_the_partial_interval, .fini = teardown)
{
	start(VMA_XINTERVAL_TOTAL_TIME, 1);
	runstate(1000, 1, RUNNABLE, RUNNING);
	runstate(1500, 1, RUNNING, BLOCKED);   /* 500 ns of the first microsecond */
	runstate(2600, 1, BLOCKED, RUNNABLE);  /* ends it; 600 ns of the second */
	cr_assert_str_eq(finish(), "time 1\n0.000000000 50.00\n0.000001000 0.00\n");
}

Test(xinterval, empty_intervals_have_rows, .fini = teardown)
{
	start(VMA_XINTERVAL_GRANT_MAPS, 1);
	runstate(1000, 1, RUNNABLE, RUNNING);
	feed(1200, TRC_MEM_PAGE_GRANT_MAP, 1, 1);
	feed(3500, TRC_MEM_PAGE_GRANT_MAP, 1, 1);
	feed(3600, TRC_MEM_PAGE_GRANT_MAP, 1, 1);
	cr_assert_str_eq(finish(), "time grant_maps\n0.000000000 1\n0.000001000 0\n"
				   "0.000002000 2\n");
}

Test(xinterval, vectors_as_seen_under_a_header_first, .fini = teardown)
{
	start(VMA_XINTERVAL_GUEST_INTERRUPT, 1);
	runstate(1000, 1, RUNNABLE, RUNNING);
	feed(1100, TRC_HVM_VMX_EXIT, 2, 1, 0x1000);
	feed(1200, TRC_HVM_INJ_VIRQ, 2, 243, 0);
	feed(1300, TRC_HVM_VMENTRY, 0);
	feed(2100, TRC_HVM_VMX_EXIT, 2, 1, 0x1000);
	feed(2200, TRC_HVM_INJ_VIRQ, 2, 33, 0);
	feed(2300, TRC_HVM_INJ_VIRQ, 2, 33, 0);
	feed(2400, TRC_HVM_VMENTRY, 0);
	cr_assert_str_eq(finish(), "time 243 33\n0.000000000 1 0\n0.000001000 0 2\n");
}

Test(xinterval, exit_time_by_category, .fini = teardown)
{
	start(VMA_XINTERVAL_SHORT_SUMMARY, 1);
	runstate(1000, 1, RUNNABLE, RUNNING);
	feed(1100, TRC_HVM_VMX_EXIT, 2, 12, 0x1000);   /* a halt: 300 ns */
	feed(1150, TRC_HVM_HLT, 1, 0);
	feed(1400, TRC_HVM_VMENTRY, 0);
	feed(1500, TRC_HVM_VMX_EXIT, 2, 18, 0x1000);   /* a vmcall: 100 ns */
	feed(1550, TRC_HVM_VMMCALL, 1, 0);
	feed(1600, TRC_HVM_VMENTRY, 0);
	feed(1700, TRC_HVM_VMX_EXIT, 2, 10, 0x1000);   /* cpuid, "other": 200 ns */
	feed(1900, TRC_HVM_VMENTRY, 0);
	runstate(2000, 1, RUNNING, BLOCKED);
	feed(2500, TRC_HVM_VMENTRY, 0);
	cr_assert_str_eq(finish(),
			 "time running emulate unsync fixup mmio propagate cr3 vmcall intr hlt other\n"
			 "0.000000000 100.00 0.00 0.00 0.00 0.00 0.00 0.00 10.00 0.00 30.00 20.00\n"
			 "0.000001000 0.00 0.00 0.00 0.00 0.00 0.00 0.00 0.00 0.00 0.00 0.00\n");
}

Test(xinterval, categories)
{
	struct vma_hvm_inflight in = { .handler = TRC_HVM_CR_WRITE, .key = 3 };

	cr_assert_eq(vma_xinterval_category(&in), VMA_XCAT_CR3);
	in.key = 0;
	cr_assert_eq(vma_xinterval_category(&in), VMA_XCAT_OTHER);
	in.handler = TRC_HVM_INTR;
	cr_assert_eq(vma_xinterval_category(&in), VMA_XCAT_INTR);
	in.handler = 0;
	cr_assert_eq(vma_xinterval_category(&in), VMA_XCAT_OTHER);
}

static void cr3_write(uint64_t tsc, uint32_t cr3, uint64_t len)
{
	vt_cr3_write(feed, tsc, cr3, len);
}

static void plain_exit(uint64_t tsc, uint64_t len)
{
	vt_plain_exit(feed, tsc, len);
}

/*
 * Intervals [1000, 2000), [2000, 3000) and the partial [3000, 3990):
 * CR3 5 from 1200 to 2300 (1100, credited in the second), 7 from 2300 to
 * 3150 (850, in the third), 5 again to 3550 (400), 9 from 3550 to 3750
 * (200, loaded and left in the third), 5 loaded at the end.
 */
static const char *cr3_run(enum vma_xinterval_mode mode, int n, ...)
{
	struct vma_xinterval_options o = { .mode = mode, .nr_gmfns = (uint32_t)n };
	va_list ap;
	int i;

	va_start(ap, n);
	for (i = 0; i < n; i++)
		o.gmfns[i] = va_arg(ap, uint64_t);
	va_end(ap);
	start_with(&o);
	runstate(1000, 1, RUNNABLE, RUNNING);
	cr3_write(1100, 0x5000, 100);
	plain_exit(1500, 100);          /* other, 100 under 5 */
	cr3_write(2100, 0x7000, 200);   /* cr3, 200 under 5 (the one left) */
	cr3_write(3100, 0x5000, 50);    /* under 7 */
	cr3_write(3500, 0x9000, 50);    /* cr3, 50 under 5 */
	cr3_write(3700, 0x5000, 50);    /* under 9 */
	plain_exit(3900, 90);           /* other, 90 under 5 */
	return finish();
}

Test(xinterval, cr3_time_credited_at_the_switch_away, .fini = teardown)
{
	cr_assert_str_eq(cr3_run(VMA_XINTERVAL_CR3_SCHEDULE_TIME, 2, (uint64_t)7, (uint64_t)5),
			 "time 7 5\n0.000000000 0.00 0.00\n0.000001000 0.00 110.00\n"
			 "0.000002000 85.86 40.40\n");
}

Test(xinterval, every_cr3_by_first_load, .fini = teardown)
{
	cr_assert_str_eq(cr3_run(VMA_XINTERVAL_CR3_SCHEDULE_TIME_ALL, 0),
			 "time 5 7 9\n0.000000000 0.00 0.00 0.00\n0.000001000 110.00 0.00 0.00\n"
			 "0.000002000 40.40 85.86 20.20\n");
}

Test(xinterval, cr3s_ordered_by_time, .fini = teardown)
{
	cr_assert_str_eq(cr3_run(VMA_XINTERVAL_CR3_SCHEDULE_ORDERED, 0),
			 "time gmfn: percent (* first loaded in the interval)\n"
			 "0.000000000\n"
			 "0.000001000        5: 110.00  \n"
			 "0.000002000        7: 85.86  \n"
			 "        5: 40.40  \n"
			 "        9: 20.20 *\n");
}

Test(xinterval, cr3_categories_of_its_own_time, .fini = teardown)
{
	/* The first interval's exit time under 5 waits for the row its stay ends in. */
	cr_assert_str_eq(cr3_run(VMA_XINTERVAL_CR3_SHORT_SUMMARY, 1, (uint64_t)5),
			 "time guest emulate unsync fixup mmio propagate cr3 vmcall intr hlt other\n"
			 "0.000000000 0.00 0.00 0.00 0.00 0.00 0.00 0.00 0.00 0.00 0.00 0.00\n"
			 "0.000001000 110.00 0.00 0.00 0.00 0.00 0.00 18.18 0.00 0.00 0.00 9.09\n"
			 "0.000002000 40.40 0.00 0.00 0.00 0.00 0.00 12.50 0.00 0.00 0.00 22.50\n");
}
