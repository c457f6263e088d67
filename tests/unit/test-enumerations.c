/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Enumerations of the summary: interrupt EIPs (the sparse counts, and the EIPs external
 * interrupts of one vector interrupt, per domain and by bucket per vcpu,
 * from hand-built records through dispatch into the report), their text
 * lines, and the MMIO table without the VGA window.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/eips.h"
#include "vmalyze/report.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

#include "test-record-util.h"

/* Counts by key (any 64-bit value), in the order the keys came. */
Test(eips, counts_by_key_in_arrival_order)
{
	struct vma_eip_counts c = { 0 };
	static const uint64_t keys[] = { 5, 1, 5, UINT64_MAX, 0, 5, 1 };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		cr_assert_eq(vma_eip_counts_add(&c, keys[i], NULL), VMA_OK);
	cr_assert_eq(c.nr, 4);
	cr_assert_eq(c.v[0].key, 5);
	cr_assert_eq(c.v[0].count, 3);
	cr_assert_eq(c.v[1].key, 1);
	cr_assert_eq(c.v[1].count, 2);
	cr_assert_eq(c.v[2].key, UINT64_MAX);
	cr_assert_eq(c.v[3].key, 0);
	cr_assert_eq(c.other, 0);
	vma_eip_counts_release(&c, NULL);
	cr_assert_eq(c.nr, 0);
}

/*
 * A table of room for 8 keys that may not double: the other keys are
 * counted in @other, the first 8 go on counting, and the rows are given
 * back at the end.
 */
Test(eips, new_keys_past_the_rows_budget_counted_as_other)
{
	struct vma_eip_counts c = { 0 };
	struct vma_cycles_budget b;
	uint64_t k;
	uint32_t i;

	vma_cycles_budget_init(&b, 0);
	b.rows.limit = vma_key_table_bytes(8, sizeof(struct vma_eip_count));
	for (i = 0; i < 2; i++) {
		for (k = 1000; k > 0; k--)
			cr_assert_eq(vma_eip_counts_add(&c, k << 4, &b), VMA_OK);
	}
	cr_assert_eq(c.nr, 8);
	cr_assert_eq(c.other, 2 * 992);
	for (i = 0; i < 8; i++) {
		cr_assert_eq(c.v[i].key, (uint64_t)(1000 - i) << 4);
		cr_assert_eq(c.v[i].count, 2);
	}
	cr_assert(b.rows.reached);
	cr_assert_eq(b.rows.folded, 2 * 992);
	vma_eip_counts_release(&c, &b);
	cr_assert_eq(b.rows.used, 0);
}

static struct vma_machine *m;

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

/* A machine of @mo (with @diag) whose pcpu 0 runs d1v0. */
static void start(const struct vma_machine_options *mo, struct vma_diag *diag)
{
	m = vma_machine_create(diag, mo);
	cr_assert_not_null(m);
	cr_assert_eq(vma_machine_add_pcpu(m, 0), VMA_OK);
	feed(1000, TRC_SCHED_RUNSTATE_CHANGE | 1 << 8, 1, 1 << 16); /* d1v0 runs */
}

/* An external-interrupt exit of @vector at guest EIP @rip (64-bit record). */
static void extint(uint64_t tsc, uint64_t rip, uint32_t vector)
{
	feed(tsc, TRC_HVM_VMX_EXIT64, 3, 1, (uint32_t)rip, (uint32_t)(rip >> 32));
	feed(tsc + 10, TRC_HVM_INTR, 1, vector);
	feed(tsc + 50, TRC_HVM_VMENTRY, 0);
}

Test(eips, interrupted_eips_per_domain_and_bucket)
{
	struct vma_machine_options mo = {
		.eips = { .enumerate = true, .enumerate_vector = 0xfa, .histogram = true,
			  .histogram_vector = 0xfa, .histogram_increment = 1 },
	};
	struct vma_diag *diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	struct vma_report_build how = { .hz = 1000000000u, .detail = VMA_REPORT_FULL,
					.final = true };
	const struct vma_report_domain *d = NULL;
	const struct vma_report_vcpu *v;
	struct vma_report *r;
	uint32_t i;

	start(&mo, diag);
	extint(2000, 0xffffffff81000010ull, 0xfa);
	extint(3000, 0xffffffff81000010ull, 0xfa);
	extint(4000, 0xffffffff81000020ull, 0xfa);
	extint(5000, 0xffffffff81000030ull, 0xfb); /* another vector: not counted */
	vma_machine_finish(m);
	r = vma_report_create(m, &how);
	cr_assert_not_null(r);
	for (i = 0; i < r->nr_domains; i++) {
		if (r->domains[i].id == 1)
			d = &r->domains[i];
	}
	cr_assert_not_null(d);
	cr_assert(d->has_interrupt_eips);
	cr_assert_eq(d->interrupt_eip_vector, 0xfa);
	cr_assert_eq(d->interrupt_eip_total, 3);
	cr_assert_eq(d->nr_interrupt_eips, 2);
	/* The most interrupted first. */
	cr_assert_eq(d->interrupt_eips[0].eip, 0xffffffff81000010ull);
	cr_assert_eq(d->interrupt_eips[0].count, 2);
	cr_assert_eq(d->interrupt_eips[1].eip, 0xffffffff81000020ull);
	/* A bucket of one byte: xenalyze would need 2^48 counters for it. */
	cr_assert_eq(d->nr_vcpus, 1);
	v = vma_report_vcpu(r, d, 0);
	cr_assert_not_null(v);
	cr_assert(v->has_eip_histogram);
	cr_assert_eq(v->eip_histogram_increment, 1);
	cr_assert_eq(v->nr_eip_histogram, 2);
	cr_assert_eq(v->eip_histogram[0].eip, 0xffffffff81000010ull);
	cr_assert_eq(v->eip_histogram[0].count, 2);
	cr_assert_eq(v->eip_histogram[1].eip, 0xffffffff81000020ull);
	vma_report_destroy(r);
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
}

/*
 * 300 EIPs, each interrupted once, in descending order, under @rows: the
 * histogram's buckets come out by address, the list by count, and any
 * "other" row last.
 */
static struct vma_report *descending_eips(size_t rows, struct vma_diag *diag,
					  const struct vma_report_domain **d,
					  const struct vma_report_vcpu **v)
{
	struct vma_machine_options mo = {
		.eips = { .enumerate = true, .enumerate_vector = 0xfa, .histogram = true,
			  .histogram_vector = 0xfa, .histogram_increment = 16 },
		.rows_budget = rows,
	};
	struct vma_report_build how = { .hz = 1000000000u, .detail = VMA_REPORT_FULL,
					.final = true };
	struct vma_report *r;
	uint32_t i;

	start(&mo, diag);
	for (i = 0; i < 300; i++)
		extint(2000 + 100 * i, 0x400000 - 16 * i, 0xfa);
	/* One more at the first EIP: the list's first row. */
	extint(40000, 0x400000, 0xfa);
	vma_machine_finish(m);
	r = vma_report_create(m, &how);
	cr_assert_not_null(r);
	*d = &r->domains[r->nr_domains - 1];
	cr_assert_eq((*d)->id, 1);
	*v = vma_report_vcpu(r, *d, 0);
	cr_assert_not_null(*v);
	return r;
}

Test(eips, buckets_by_address_list_by_count_other_last)
{
	struct vma_diag *diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	const struct vma_report_domain *d;
	const struct vma_report_vcpu *v;
	struct vma_report *r = descending_eips(SIZE_MAX, diag, &d, &v);
	uint32_t i;

	cr_assert_eq(d->interrupt_eip_total, 301);
	cr_assert_eq(d->nr_interrupt_eips, 300);
	cr_assert_eq(v->nr_eip_histogram, 300);
	cr_assert_eq(d->interrupt_eips[0].eip, 0x400000);
	cr_assert_eq(d->interrupt_eips[0].count, 2);
	/* Equal counts: by address. */
	for (i = 2; i < 300; i++)
		cr_assert_lt(d->interrupt_eips[i - 1].eip, d->interrupt_eips[i].eip);
	for (i = 1; i < 300; i++) {
		cr_assert_lt(v->eip_histogram[i - 1].eip, v->eip_histogram[i].eip);
		cr_assert_not(v->eip_histogram[i].other);
	}
	vma_report_destroy(r);
	vma_machine_destroy(m);
	/* 4 KiB of rows: some 100 keys each, the rest in "other", last. */
	r = descending_eips(4096, diag, &d, &v);
	cr_assert_lt(d->nr_interrupt_eips, 300);
	cr_assert(d->interrupt_eips[d->nr_interrupt_eips - 1].other);
	cr_assert_eq(d->interrupt_eips[0].eip, 0x400000);
	cr_assert_eq(d->interrupt_eip_total, 301);
	cr_assert(v->eip_histogram[v->nr_eip_histogram - 1].other);
	for (i = 1; i + 1 < v->nr_eip_histogram; i++)
		cr_assert_lt(v->eip_histogram[i - 1].eip, v->eip_histogram[i].eip);
	vma_report_destroy(r);
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
}

/* The text summary of one Xen domain 1 with one HVM vcpu, as @opts render it. */
static char *render_text(struct vma_report_vcpu *v, struct vma_report_domain *d,
			 const struct vma_render_options *opts)
{
	struct vma_report r = { .hz = 1000000000u, .final = true };
	struct vma_render ctx = { .opts = opts };
	char *text = NULL;
	size_t len = 0;

	v->type = VMA_VCPU_HVM;
	v->has_exits = true;
	d->id = 1;
	d->vcpus = v;
	d->nr_vcpus = 1;
	r.domains = d;
	r.nr_domains = 1;
	ctx.out = open_memstream(&text, &len);
	cr_assert_not_null(ctx.out);
	cr_assert_eq(vma_render_text(&ctx, &r), VMA_OK);
	fclose(ctx.out);
	return text;
}

Test(enumerations, mmio_table_leaves_out_vga_unless_asked)
{
#define ONE { .events = 1, .count = 1, .total = 100, .mean = 100, .min = 100, .max = 100 }
	struct vma_report_address mmio[] = {
		{ .addr = 0xa0000, .stat = ONE }, { .addr = 0xbffff, .is_write = true, .stat = ONE },
		{ .addr = 0xfee00020, .stat = ONE },
	};
	struct vma_report_vcpu v = { .mmio = mmio, .nr_mmio = 3 };
	struct vma_report_domain d = { 0 };
	struct vma_render_options skip = { 0 }, keep = { .mmio_keep_vga = true };
	char *text = render_text(&v, &d, &skip);

	cr_assert(strstr(text, "MMIO address summary:\nfee00020:[r]"), "%s", text);
	cr_assert_null(strstr(text, "a0000:"));
	cr_assert_null(strstr(text, "bffff:"));
	free(text);
	text = render_text(&v, &d, &keep);
	cr_assert(strstr(text, "MMIO address summary:\n   a0000:[r] "), "%s", text);
	cr_assert(strstr(text, "   bffff:[w]"), "%s", text);
	free(text);
	/* Only VGA rows: no table at all. */
	v.nr_mmio = 2;
	text = render_text(&v, &d, &skip);
	cr_assert_null(strstr(text, "MMIO address summary"));
	free(text);
}

Test(enumerations, eip_lines_in_xenalyze_layout)
{
	struct vma_report_eip eips[] = { { 0xffffffff81000010ull, 3, false }, { 0x1000, 1, false } };
	struct vma_report_eip buckets[] = { { 0x1000, 1, false },
					    { 0xfffffffffffff000ull, 2, false } };
	struct vma_report_vcpu v = { .has_eip_histogram = true, .eip_histogram_vector = 250,
				     .eip_histogram_increment = 0x1000,
				     .eip_histogram = buckets, .nr_eip_histogram = 2 };
	struct vma_report_domain d = { .has_interrupt_eips = true, .interrupt_eip_vector = 250,
				       .interrupt_eip_total = 4, .interrupt_eips = eips,
				       .nr_interrupt_eips = 2 };
	struct vma_render_options o = { 0 };
	char *text = render_text(&v, &d, &o);

	cr_assert(strstr(text, "Guest interrupt counts:\nInterrupt eip histogram:\n"
			       "[1000-1fff]: 1\n[fffffffffffff000-ffffffffffffffff]: 2\n"), "%s", text);
	cr_assert(strstr(text, "Interrupt eip list (vector 250)\n   Total samples: 4\n"
			       "   ffffffff81000010                                             :"
			       "        3 75.00%\n"
			       "           1000                                             :"
			       "        1 25.00%\n"), "%s", text);
	free(text);
	/* The keys that got no row of their own. */
	eips[1] = (struct vma_report_eip){ 0, 1, true };
	buckets[1] = (struct vma_report_eip){ 0, 2, true };
	text = render_text(&v, &d, &o);
	cr_assert(strstr(text, "[1000-1fff]: 1\n[other]: 2\n"), "%s", text);
	cr_assert(strstr(text, "        3 75.00%\n"
			       "          other                                             :"
			       "        1 25.00%\n"), "%s", text);
	free(text);
}

Test(enumerations, pv_traps_under_trap)
{
	struct vma_diag *diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	struct vma_report_build how = { .hz = 1000000000u, .detail = VMA_REPORT_FULL,
					.final = true };
	struct vma_render_options o = { 0 };
	struct vma_render ctx = { .opts = &o };
	struct vma_report *r;
	char *text = NULL;
	size_t len = 0;

	m = vma_machine_create(diag, NULL);
	cr_assert_not_null(m);
	cr_assert_eq(vma_machine_add_pcpu(m, 0), VMA_OK);
	feed(1000, TRC_SCHED_RUNSTATE_CHANGE | 1 << 8, 1, 0); /* d0v0 runs */
	/* 64-bit: eip in two words; trapnr 14 with an error code; 32-bit: trap 6. */
	feed(2000, TRC_PV_TRAP | TRC_64_FLAG, 3, 0x81000000, 0xffffffff, 14 | 1u << 15 | 2u << 16);
	feed(3000, TRC_PV_TRAP | TRC_64_FLAG, 3, 0x81000000, 0xffffffff, 14);
	feed(4000, TRC_PV_TRAP, 2, 0xc0100000, 6);
	feed(5000, TRC_PV_TRAP | TRC_64_FLAG, 3, 0x81000000, 0xffffffff, 300); /* > 19: kept */
	vma_machine_finish(m);
	r = vma_report_create(m, &how);
	cr_assert_not_null(r);
	ctx.out = open_memstream(&text, &len);
	cr_assert_not_null(ctx.out);
	cr_assert_eq(vma_render_text(&ctx, r), VMA_OK);
	fclose(ctx.out);
	cr_assert(strstr(text, "PV events:\n  trap  4\n    [6] 1\n    [14] 2\n    [300] 1\n"),
		  "%s", text);
	free(text);
	vma_report_destroy(r);
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
}
