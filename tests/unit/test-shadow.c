/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shadow-paging records (TRC_SHADOW, shadow.h): their table rows' sizes
 * and fields at each paging level, and hand-built records through
 * dispatch: the exit's category by fault class, the emulate EIP list,
 * orphans and short records, and --scatterplot-unpin-promote's points.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/hvm-short.h"
#include "vmalyze/scatter.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-events.h"
#include "vmalyze/xen-names.h"

#include "test-record-util.h"

#define LEVELS(l) ((uint32_t)((l) - 2) << 8)

static struct vma_record make(uint32_t event, int n, ...)
{
	struct vma_record rec;
	va_list ap;

	va_start(ap, n);
	vt_record(&rec, 0, 1, event, n, ap);
	va_end(ap);
	return rec;
}

static bool short_for_row(const struct vma_record *rec)
{
	return vma_xen_event_short(vma_xen_event_index(rec->event), rec);
}

Test(shadow, rows_by_id_without_the_levels)
{
	enum vma_xe_index i = vma_xen_event_index(TRC_SHADOW_EMULATE | LEVELS(4));

	cr_assert_neq(i, VMA_XE_NONE);
	cr_assert_str_eq(vma_xen_events[i].name, "emulate");
	cr_assert_eq(vma_xen_events[i].cls, VMA_XEN_CLASS_SHADOW);
	cr_assert_str_eq(vma_shadow_fault_name(6), "fixup");
	cr_assert_null(vma_shadow_fault_name(13)); /* an event of a fault, not a class */
}

Test(shadow, sizes_follow_the_paging_levels)
{
	/* emulate {gl1e, wval; va; flags}: 4 words at 2 levels, 6 at 3 (PAE), 7 at 4. */
	struct vma_record r2 = make(TRC_SHADOW_EMULATE | LEVELS(2), 4, 1, 2, 3, 4);
	struct vma_record r3 = make(TRC_SHADOW_EMULATE | LEVELS(3), 5, 1, 2, 3, 4, 5);
	struct vma_record r4 = make(TRC_SHADOW_EMULATE | LEVELS(4), 7, 1, 2, 3, 4, 5, 6, 7);
	/* fixup {gl1e; va; flags}: Xen packs it, 5 words at 4 levels (xenalyze wants 6). */
	struct vma_record f4 = make(TRC_SHADOW_FIXUP | LEVELS(4), 5, 1, 2, 3, 4, 5);
	struct vma_record bad = make(TRC_SHADOW_FIXUP | LEVELS(7), 5, 1, 2, 3, 4, 5);

	cr_assert_not(short_for_row(&r2));
	cr_assert(short_for_row(&r3));
	cr_assert_not(short_for_row(&r4));
	cr_assert_not(short_for_row(&f4));
	cr_assert(short_for_row(&bad));
}

Test(shadow, fields_at_four_levels)
{
	struct vma_record e = make(TRC_SHADOW_EMULATE | LEVELS(4), 7, 0x1067u, 0x8u, 0x1467u, 0x9u,
				   0x2000u, 0x7f00u, 0xe0000200u | (1u << 13));
	struct vma_record f = make(TRC_SHADOW_FIXUP | LEVELS(2), 3, 0x5067u, 0xc0001000u,
				   1u << 18);

	cr_assert_eq(vma_xf_sh_emul_gl1e(&e), 0x800001067ull);
	cr_assert_eq(vma_xf_sh_emul_wval(&e), 0x900001467ull);
	cr_assert_eq(vma_xf_sh_emul_va(&e), 0x7f0000002000ull);
	/* The top 3 bits are the emulation count. */
	cr_assert_eq(vma_xf_sh_emul_flags(&e), 0x200u | (1u << 13));
	cr_assert_eq(vma_xf_sh_fault_gl1e(&f), 0x5067u);
	cr_assert_eq(vma_xf_sh_fault_va(&f), 0xc0001000u);
	cr_assert_eq(vma_xf_sh_fault_flags(&f), VMA_SHF_UNSYNC);
}

/* --- Through dispatch: d1v0 on pcpu 0, a 2-level guest, at 1 GHz --- */

static struct vma_diag *diag;
static struct vma_machine *m;
static struct vma_scatter *sc;
static char *text;
static size_t text_len;
static FILE *out;
static struct vma_outcome last;

static void start(bool cr3)
{
	struct vma_machine_options mo = { .eips = { .cr3 = cr3 } };
	struct vma_scatter_options so = { .kinds = 1u << VMA_SCATTER_UNPIN_PROMOTE };

	diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	m = vma_machine_create(diag, &mo);
	cr_assert_not_null(m);
	cr_assert_eq(vma_machine_add_pcpu(m, 0), VMA_OK);
	out = open_memstream(&text, &text_len);
	cr_assert_not_null(out);
	sc = vma_scatter_create(out, 1000000000u, m, &so);
	cr_assert_not_null(sc);
	m->observer = vma_scatter_observer(sc);
}

static void feed(uint64_t tsc, uint32_t event, int n, ...)
{
	struct vma_record rec;
	va_list ap;

	va_start(ap, n);
	vt_record(&rec, 0, tsc, event, n, ap);
	va_end(ap);
	cr_assert_eq(vma_dispatch(m, &rec, &last), VMA_OK);
	vma_scatter_record(sc, &rec, &last);
}

static const char *finish(void)
{
	vma_scatter_flush(sc);
	cr_assert_eq(vma_scatter_status(sc), VMA_OK);
	vma_scatter_destroy(sc);
	fclose(out);
	return text;
}

static void teardown(void)
{
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
	free(text);
	text = NULL;
}

/* A page-fault exit at @tsc at guest EIP @rip; the caller adds its shadow records. */
static void pf_exit(uint64_t tsc, uint32_t rip)
{
	feed(tsc, TRC_HVM_VMX_EXIT, 2, 0u, rip);
}

static enum vma_xinterval_category category(void)
{
	return vma_xinterval_category(&vma_vcpu_get(m, 1, 0)->hvm.inflight);
}

Test(shadow, exit_categories_by_fault_class, .fini = teardown)
{
	start(false);
	feed(1000, TRC_SCHED_RUNSTATE_CHANGE | 1 << 8, 1, 1u << 16);
	pf_exit(2000, 0xc0100000u);
	feed(2010, TRC_SHADOW_EMULATE | LEVELS(2), 4, 0x1067u, 0x1027u, 0xc0200000u, 0u);
	/* A later fault record does not change the exit's class (xenalyze's first wins). */
	feed(2020, TRC_SHADOW_FIXUP | LEVELS(2), 3, 0x1067u, 0xc0200000u, 0u);
	cr_assert_eq(category(), VMA_XCAT_EMULATE);
	feed(2100, TRC_HVM_VMENTRY, 0);
	pf_exit(3000, 0xc0100000u);
	feed(3010, TRC_SHADOW_FIXUP | LEVELS(2), 3, 0x1067u, 0xc0200000u, VMA_SHF_UNSYNC);
	cr_assert_eq(category(), VMA_XCAT_UNSYNC);
	feed(3100, TRC_HVM_VMENTRY, 0);
	pf_exit(4000, 0xc0100004u);
	feed(4010, TRC_SHADOW_MMIO | LEVELS(2), 1, 0xfee00000u);
	cr_assert_eq(category(), VMA_XCAT_MMIO);
	feed(4100, TRC_HVM_VMENTRY, 0);
	pf_exit(5000, 0xc0100000u);
	feed(5010, TRC_SHADOW_EMULATE | LEVELS(2), 4, 0x1067u, 0x1027u, 0xc0200000u, 0u);
	feed(5400, TRC_HVM_VMENTRY, 0);
	pf_exit(6000, 0xc0100008u);
	feed(6010, TRC_SHADOW_EMULATE_UNSHADOW_USER | LEVELS(2), 3, 0x55u, 0x1000u, 0u);
	cr_assert_eq(category(), VMA_XCAT_PROPAGATE);
	feed(6100, TRC_HVM_VMENTRY, 0);
	finish();
	/* The emulations, by EIP: 100 and 400 cycles at c0100000. */
	{
		const struct vma_eip_cycles_list *l = &vma_vcpu_get(m, 1, 0)->domain->emulate_eips;

		cr_assert_eq(l->nr, 1);
		cr_assert_eq(l->v[0].eip, 0xc0100000u);
		cr_assert_eq(l->v[0].cycles.events, 2);
		cr_assert_eq(l->v[0].cycles.cycles, 500);
	}
	cr_assert_eq(vma_vcpu_get(m, 1, 0)->hvm.paging_levels, 2);
}

Test(shadow, orphans_and_short_records, .fini = teardown)
{
	start(false);
	feed(1000, TRC_SCHED_RUNSTATE_CHANGE | 1 << 8, 1, 1u << 16);
	feed(1100, TRC_SHADOW_FIXUP | LEVELS(2), 3, 0x1067u, 0xc0200000u, 0u);
	cr_assert(last.orphan);
	pf_exit(2000, 0xc0100000u);
	feed(2010, TRC_SHADOW_EMULATE | LEVELS(2), 3, 0x1067u, 0x1027u, 0xc0200000u);
	cr_assert(last.unprocessed);
	cr_assert_eq(vma_vcpu_get(m, 1, 0)->hvm.inflight.shadow, 0);
	feed(2100, TRC_HVM_VMENTRY, 0);
	finish();
	cr_assert_eq(vma_vcpu_get(m, 1, 0)->domain->emulate_eips.nr, 0);
}

/* An emulation with an unpin and an early unshadow, a promoting fixup, a plain emulation. */
static void unpin_promote_run(void)
{
	feed(1000, TRC_SCHED_RUNSTATE_CHANGE | 1 << 8, 1, 1u << 16);
	feed(1500, TRC_HVM_VMX_EXIT, 2, 28u, 0x1000u);      /* CR3 5000 (id 0) */
	feed(1510, TRC_HVM_CR_WRITE, 2, 3u, 0x5000u);
	feed(1600, TRC_HVM_VMENTRY, 0);
	pf_exit(2000, 0xc0100000u);
	feed(2005, TRC_SHADOW_PREALLOC_UNPIN | LEVELS(2), 2, 0x77u, 0u);
	feed(2010, TRC_SHADOW_EMULATE | LEVELS(2), 4, 0x1067u, 0x1027u, 0xc0200000u,
	     VMA_SHF_EARLY_UNSHADOW);
	feed(2100, TRC_HVM_VMENTRY, 0);
	pf_exit(3000, 0xc0100000u);
	feed(3010, TRC_SHADOW_FIXUP | LEVELS(2), 3, 0x1067u, 0xc0200000u, VMA_SHF_PROMOTE);
	feed(3100, TRC_HVM_VMENTRY, 0);
	pf_exit(4000, 0xc0100000u);
	feed(4010, TRC_SHADOW_EMULATE | LEVELS(2), 4, 0x1067u, 0x1027u, 0xc0200000u, 0u);
	feed(4100, TRC_HVM_VMENTRY, 0);
}

Test(shadow, unpin_promote_points, .fini = teardown)
{
	start(false);
	unpin_promote_run();
	cr_assert_str_eq(finish(), "0.000001000 -10\n0.000001000 0\n0.000002000 2\n");
}

Test(shadow, promotions_plot_the_cr3_id_with_the_cr3_accounting, .fini = teardown)
{
	start(true);
	unpin_promote_run();
	cr_assert_str_eq(finish(), "0.000001000 -10\n0.000001000 0\n0.000002000 0\n");
}
