/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scatterplots and IPI latencies from hand-built records through dispatch:
 * the points each --scatterplot-* kind draws, their layout and values (at
 * 1 GHz a tick is a nanosecond), symbols after EIPs, the lines of
 * --dump-ipi-latency, and --default-guest-paging-levels.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/ipi.h"
#include "vmalyze/report.h"
#include "vmalyze/scatter.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/symbols.h"
#include "vmalyze/trace-ids.h"

#include "test-record-util.h"

static struct vma_diag *diag;
static struct vma_machine *m;
static struct vma_scatter *sc;
static struct vma_ipi *ipi;
static char *text;
static size_t text_len;
static FILE *out;

static void start(uint32_t kinds, const struct vma_scatter_options *extra,
		  const struct vma_machine_options *mopts)
{
	struct vma_scatter_options o = { 0 };

	if (extra)
		o = *extra;
	o.kinds = kinds;
	diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	m = vma_machine_create(diag, mopts);
	cr_assert_not_null(m);
	cr_assert_eq(vma_machine_add_pcpu(m, 0), VMA_OK);
	cr_assert_eq(vma_machine_add_pcpu(m, 1), VMA_OK);
	out = open_memstream(&text, &text_len);
	cr_assert_not_null(out);
	sc = vma_scatter_create(out, 1000000000u, m, &o);
	cr_assert_not_null(sc);
	m->observer = vma_scatter_observer(sc);
	ipi = vma_ipi_create(out, 1000000000u, m);
	cr_assert_not_null(ipi);
}

/* What was plotted; ends the run. */
static const char *finish(void)
{
	vma_scatter_flush(sc);
	cr_assert_eq(vma_scatter_status(sc), VMA_OK);
	vma_scatter_destroy(sc);
	cr_assert_eq(vma_ipi_status(ipi), VMA_OK);
	vma_ipi_destroy(ipi);
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

static void feed(uint32_t pcpu, uint64_t tsc, uint32_t event, int n, ...)
{
	struct vma_record rec;
	struct vma_outcome o;
	va_list ap;

	va_start(ap, n);
	vt_record(&rec, pcpu, tsc, event, n, ap);
	va_end(ap);
	cr_assert_eq(vma_dispatch(m, &rec, &o), VMA_OK);
	vma_scatter_record(sc, &rec, &o);
	vma_ipi_record(ipi, &rec, &o);
}

static void runstate(uint32_t pcpu, uint64_t tsc, uint32_t dom, uint32_t vcpu, uint32_t old,
		     uint32_t new)
{
	feed(pcpu, tsc, TRC_SCHED_RUNSTATE_CHANGE | old << 8 | new << 4, 1, dom << 16 | vcpu);
}

#define RUNNING 0
#define RUNNABLE 1
#define BLOCKED 2

Test(scatter, runstate_steps, .fini = teardown)
{
	start(1u << VMA_SCATTER_RUNSTATE, NULL, NULL);
	runstate(0, 1000, 1, 0, RUNNABLE, RUNNING);  /* leaves init */
	runstate(0, 3500, 1, 0, RUNNING, BLOCKED);
	runstate(0, 1003500, 1, 0, BLOCKED, RUNNABLE);
	cr_assert_str_eq(finish(), "1v0 0.000000000 -2\n1v0 0.000000000 3\n"
				   "1v0 0.000002500 3\n1v0 0.000002500 0\n"
				   "1v0 0.001002500 0\n1v0 0.001002500 2\n");
}

Test(scatter, runstate_time_is_the_stretch, .fini = teardown)
{
	start(1u << VMA_SCATTER_RUNSTATE_TIME, NULL, NULL);
	runstate(0, 1000, 1, 0, RUNNABLE, RUNNING);
	runstate(0, 3500, 1, 0, RUNNING, BLOCKED);
	runstate(0, 2000003500ull, 1, 0, BLOCKED, RUNNABLE);
	/* Leaving init has no stretch to plot; then 2.5 us running, 2 s blocked. */
	cr_assert_str_eq(finish(), "1v0 0.000002500 0.000002500\n"
				   "1v0 2.000002500 2.000000000\n");
}

Test(scatter, pcpu_of_each_switch_in, .fini = teardown)
{
	start(1u << VMA_SCATTER_PCPU, NULL, NULL);
	runstate(0, 1000, 1, 0, RUNNABLE, RUNNING);  /* leaves init: no switch-in */
	runstate(0, 2000, 1, 0, RUNNING, RUNNABLE);
	runstate(1, 3000, 1, 0, RUNNABLE, RUNNING);  /* moves to pcpu 1 */
	runstate(1, 4000, 1, 0, RUNNING, RUNNABLE);
	runstate(1, 5000, 1, 0, RUNNABLE, RUNNING);  /* stays */
	runstate(0, 6000, VMA_IDLE_DOMAIN, 0, RUNNABLE, RUNNING);
	runstate(0, 7000, VMA_IDLE_DOMAIN, 0, RUNNING, RUNNABLE);
	runstate(0, 8000, VMA_IDLE_DOMAIN, 0, RUNNABLE, RUNNING); /* idle: not plotted */
	cr_assert_str_eq(finish(), "1v0 0.000002000 0\n1v0 0.000002000 1\n"
				   "1v0 0.000004000 1\n1v0 0.000004000 1\n");
}

/* d1v0 runs on pcpu 0 from t=1000; its records follow. */
static void hvm_guest(void)
{
	runstate(0, 1000, 1, 0, RUNNABLE, RUNNING);
}

Test(scatter, vmexit_eip_in_hex_with_symbols, .fini = teardown)
{
	struct vma_scatter_options o = { 0 };
	struct vma_symbols *syms;
	const char *map = "ffffffff81000000 T _text\n";
	FILE *f = fmemopen((void *)map, strlen(map), "r");

	cr_assert_eq(vma_symbols_read(f, "map", &syms, stderr), VMA_OK);
	fclose(f);
	o.symbols = syms;
	start(1u << VMA_SCATTER_VMEXIT_EIP, &o, NULL);
	hvm_guest();
	feed(0, 2000, TRC_HVM_VMX_EXIT64, 3, 1u, 0x81000040u, 0xffffffffu);
	feed(0, 2500, TRC_HVM_VMENTRY, 0);
	feed(0, 3000, TRC_HVM_VMX_EXIT, 2, 1u, 0x8000u); /* 32-bit, below _text */
	cr_assert_str_eq(finish(), "0.000001000 0xffffffff81000040 _text+0x40\n"
				   "0.000002000 0x8000\n");
	vma_symbols_destroy(syms);
}

Test(scatter, extint_cycles_of_one_vector, .fini = teardown)
{
	struct vma_scatter_options o = { .extint_vector = 0xfa };

	start(1u << VMA_SCATTER_EXTINT_CYCLES, &o, NULL);
	hvm_guest();
	feed(0, 2000, TRC_HVM_VMX_EXIT64, 3, 1u, 0x1000u, 0u);
	feed(0, 2100, TRC_HVM_INTR, 1, 0xfau);
	feed(0, 2700, TRC_HVM_VMENTRY, 0);
	feed(0, 3000, TRC_HVM_VMX_EXIT64, 3, 1u, 0x1000u, 0u);
	feed(0, 3100, TRC_HVM_INTR, 1, 0xfbu);   /* another vector */
	feed(0, 3400, TRC_HVM_VMENTRY, 0);
	cr_assert_str_eq(finish(), "d1v0 0.000001700 700\n");
}

Test(scatter, io_reads_of_one_port_and_cr3_switches, .fini = teardown)
{
	struct vma_scatter_options o = { .io_port = 0x1f0 };

	start(1u << VMA_SCATTER_IO | 1u << VMA_SCATTER_CR3_SWITCH, &o, NULL);
	hvm_guest();
	feed(0, 2000, TRC_HVM_VMX_EXIT64, 3, 30u, 0x1000u, 0u);
	feed(0, 2100, TRC_HVM_IOPORT_READ, 2, 0x1f0u, 0u);
	feed(0, 2900, TRC_HVM_VMENTRY, 0);
	feed(0, 3000, TRC_HVM_VMX_EXIT64, 3, 30u, 0x1000u, 0u);
	feed(0, 3100, TRC_HVM_IOPORT_WRITE, 2, 0x1f0u, 0u);  /* a write: not plotted */
	feed(0, 3200, TRC_HVM_VMENTRY, 0);
	feed(0, 4000, TRC_HVM_VMX_EXIT64, 3, 28u, 0x1000u, 0u);
	feed(0, 4100, TRC_HVM_CR_WRITE, 2, 3u, 0x12345000u);
	feed(0, 4200, TRC_HVM_VMENTRY, 0);
	feed(0, 5000, TRC_HVM_VMX_EXIT64, 3, 28u, 0x1000u, 0u);
	feed(0, 5100, TRC_HVM_CR_WRITE, 2, 3u, 0x12345000u); /* same CR3: a flush */
	feed(0, 5200, TRC_HVM_VMENTRY, 0);
	cr_assert_str_eq(finish(), "0.000001000 900\n0.000003000 74565\n");
}

Test(scatter, interrupt_eip_rdtsc_irq, .fini = teardown)
{
	struct vma_scatter_options o = { .interrupt_vector = 0xfa };

	start(1u << VMA_SCATTER_INTERRUPT_EIP | 1u << VMA_SCATTER_RDTSC | 1u << VMA_SCATTER_IRQ,
	      &o, NULL);
	hvm_guest();
	feed(0, 2000, TRC_HVM_VMX_EXIT64, 3, 1u, 0x81000040u, 0xffffffffu);
	feed(0, 2100, TRC_HVM_INTR, 1, 0xfau);
	feed(0, 2200, TRC_HVM_VMENTRY, 0);
	feed(0, 3000, TRC_HVM_VMX_EXIT64, 3, 16u, 0x1000u, 0u);
	feed(0, 3100, TRC_HVM_RDTSC, 2, 0x89abcdefu, 0x1u);
	feed(0, 3200, TRC_HVM_VMENTRY, 0);
	feed(1, 4000, TRC_HW_IRQ_HANDLED, 3, 0x1cu, 100u, 900u);
	cr_assert_str_eq(finish(), "d1v0 0.000001000 0xffffffff81000040\n"
				   "1v0 0.000002100 6604705263\n"
				   "i1c 0.000003000 1\n");
}

Test(scatter, nothing_asked_nothing_plotted, .fini = teardown)
{
	start(0, NULL, NULL);
	hvm_guest();
	feed(0, 2000, TRC_HVM_VMX_EXIT64, 3, 1u, 0x1000u, 0u);
	feed(0, 2100, TRC_HVM_INTR, 1, 0xfau);
	feed(0, 2700, TRC_HVM_VMENTRY, 0);
	runstate(0, 3000, 1, 0, RUNNING, BLOCKED);
	cr_assert_str_eq(finish(), "");
}

Test(scatter, default_guest_paging_levels)
{
	struct vma_machine_options mo = { .default_paging_levels = 3 };
	struct vma_vcpu *v;

	start(0, NULL, &mo);
	hvm_guest();
	v = vma_vcpu_get(m, 1, 0);
	feed(0, 2000, TRC_HVM_VMX_EXIT, 2, 1u, 0x1000u);
	cr_assert_eq(v->hvm.paging_levels, 3);
	feed(0, 2100, TRC_HVM_VMENTRY, 0);
	feed(0, 3000, TRC_HVM_VMX_EXIT64, 3, 1u, 0x1000u, 0u);
	cr_assert_eq(v->hvm.paging_levels, 4);
	feed(0, 3100, TRC_HVM_VMENTRY, 0);
	feed(0, 4000, TRC_HVM_VMX_EXIT, 2, 1u, 0x1000u);
	cr_assert_eq(v->hvm.paging_levels, 3);
	finish();
	free(text);
	text = NULL;
}

/* d1v0 on pcpu 0, d1v1 on pcpu 1, both HVM. */
static void two_vcpus(void)
{
	runstate(0, 1000, 1, 0, RUNNABLE, RUNNING);
	runstate(1, 1100, 1, 1, RUNNABLE, RUNNING);
	feed(1, 1200, TRC_HVM_VMX_EXIT64, 3, 12u, 0x1000u, 0u);  /* v1 is HVM too */
	feed(1, 1300, TRC_HVM_VMENTRY, 0);
}

#define ICR_ALL_BUT_SELF (3u << 18)

/* d1v0 writes the xAPIC ICR at @tsc. */
static void icr_mmio(uint64_t tsc, uint32_t icr)
{
	feed(0, tsc, TRC_HVM_VMX_EXIT64, 3, 48u, 0x1000u, 0u);
	feed(0, tsc + 10, TRC_HVM_IOMEM_WRITE, 2, 0xfee00300u, icr);
	feed(0, tsc + 100, TRC_HVM_VMENTRY, 0);
}

/* d1v1 gets vector @vec injected, and a vmentry at @tsc. */
static void deliver(uint64_t tsc, uint32_t vec)
{
	feed(1, tsc - 200, TRC_HVM_VMX_EXIT64, 3, 1u, 0x1000u, 0u);
	feed(1, tsc - 100, TRC_HVM_INJ_VIRQ, 2, vec, 0u);
	feed(1, tsc, TRC_HVM_VMENTRY, 0);
}

Test(ipi, from_the_send_to_the_delivering_vmentry, .fini = teardown)
{
	start(0, NULL, NULL);
	two_vcpus();
	icr_mmio(10000, ICR_ALL_BUT_SELF | 0xd1);
	deliver(15010, 0xd1);
	deliver(16000, 0xd1); /* nothing outstanding any more */
	cr_assert_str_eq(finish(), " [vla] d1v1 vec 209 ipis 1, latency 5000 (0.000005000 s)\n");
}

Test(ipi, several_sends_one_delivery, .fini = teardown)
{
	start(0, NULL, NULL);
	two_vcpus();
	icr_mmio(10000, ICR_ALL_BUT_SELF | 0xfb);
	icr_mmio(11000, ICR_ALL_BUT_SELF | 0xfb);
	/* x2APIC: the ICR is MSR 0x830. */
	feed(0, 12000, TRC_HVM_VMX_EXIT64, 3, 32u, 0x1000u, 0u);
	feed(0, 12010, TRC_HVM_MSR_WRITE, 3, 0x830u, ICR_ALL_BUT_SELF | 0xfb, 0u);
	feed(0, 12100, TRC_HVM_VMENTRY, 0);
	deliver(2000010010ull, 0xfb);
	cr_assert_str_eq(finish(), " [vla] d1v1 vec 251 ipis 3, latency 2000000000 (2.000000000 s)\n");
}

Test(ipi, only_what_was_sent_to_others, .fini = teardown)
{
	start(0, NULL, NULL);
	two_vcpus();
	deliver(5000, 0xef);                 /* injected, never sent: xenalyze prints it */
	icr_mmio(10000, 0xd1);               /* no shorthand: a fixed destination */
	deliver(12000, 0xd1);
	icr_mmio(20000, ICR_ALL_BUT_SELF | 0xd2);
	feed(0, 21000, TRC_HVM_VMX_EXIT64, 3, 1u, 0x1000u, 0u);
	feed(0, 21100, TRC_HVM_INJ_VIRQ, 2, 0xd2u, 0u);  /* the sender is not a target */
	feed(0, 21200, TRC_HVM_VMENTRY, 0);
	cr_assert_str_eq(finish(), "");
}

/* The summary's side: each delivery's latency in the target vcpu's summary, and its report row. */
Test(ipi, latencies_summed_per_target_vcpu, .fini = teardown)
{
	struct vma_report_build how = { .hz = 1000000000u, .detail = VMA_REPORT_FULL,
					.final = true };
	const struct vma_vcpu *v0, *v1;
	const struct vma_report_vcpu *rv;
	struct vma_report *r;
	uint32_t i;

	start(0, NULL, NULL);
	two_vcpus();
	icr_mmio(10000, ICR_ALL_BUT_SELF | 0xd1);
	deliver(15010, 0xd1);                    /* 5000 */
	icr_mmio(20000, ICR_ALL_BUT_SELF | 0xd1);
	icr_mmio(21000, ICR_ALL_BUT_SELF | 0xd1);
	deliver(22010, 0xd1);                    /* 2000, from the first of two sends */
	deliver(23000, 0xd1);                    /* nothing outstanding */
	/* All, self included: d1v0 is a target too. */
	icr_mmio(30000, (2u << 18) | 0xd2);
	feed(0, 30500, TRC_HVM_VMX_EXIT64, 3, 1u, 0x1000u, 0u);
	feed(0, 30600, TRC_HVM_INJ_VIRQ, 2, 0xd2u, 0u);
	feed(0, 30700, TRC_HVM_VMENTRY, 0);      /* 690, from the write at 30010 */
	v0 = vma_vcpu_get(m, 1, 0);
	v1 = vma_vcpu_get(m, 1, 1);
	cr_assert_eq(v1->hvm.ipi_latency.count, 2);
	cr_assert_eq(v1->hvm.ipi_latency.cycles, 7000);
	cr_assert_eq(v0->hvm.ipi_latency.count, 1);
	cr_assert_eq(v0->hvm.ipi_latency.cycles, 690);
	vma_machine_finish(m);
	r = vma_report_create(m, &how);
	cr_assert_not_null(r);
	for (i = 0; i < r->nr_domains && r->domains[i].id != 1; i++)
		;
	cr_assert_lt(i, r->nr_domains);
	rv = vma_report_vcpu(r, &r->domains[i], 1);
	cr_assert_not_null(rv);
	cr_assert_eq(rv->ipi_latency.events, 2);
	cr_assert_eq(rv->ipi_latency.mean, 3500);
	cr_assert_eq(rv->ipi_latency.p95, 5000);
	rv = vma_report_vcpu(r, &r->domains[i], 0);
	cr_assert_not_null(rv);
	cr_assert_eq(rv->ipi_latency.total, 690);
	vma_report_destroy(r);
	finish();
}
