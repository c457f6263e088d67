/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HVM part of a vcpu's text summary: exit reasons with a sub-line per
 * handler, guest interrupt counts, IPI latency, and the I/O port and MMIO
 * address tables, from the report's rows.  Sub-lines are printed under every vcpu
 * that has them (xenalyze prints them only under the first vcpu that
 * registered a handler).
 */
#include <inttypes.h>
#include <string.h>

#include "output/summary-internal.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/strbuf.h"

/* The label of a sub-line, as xenalyze writes each kind. */
static void sub_label(char *buf, size_t len, const struct vma_report_subline *l)
{
	switch (l->kind) {
	case VMA_SUB_NONE:
		vma_snprintf(buf, len, "   (no handler) ");
		return;
	case VMA_SUB_KVM:
		/* KVM refinements without a Xen equivalent: name and key. */
		if (l->key == VMA_SUB_OTHER)
			vma_snprintf(buf, len, "   %s other ", l->name ? l->name : "(unknown)");
		else
			vma_snprintf(buf, len, "   %s %" PRIu64 " ", l->name ? l->name : "(unknown)",
				     l->key);
		return;
	case VMA_SUB_CR:
		if (l->key == VMA_SUB_OTHER)
			vma_snprintf(buf, len, "   cr other ");
		else
			vma_snprintf(buf, len, "   cr%" PRIu64 " ", l->key);
		return;
	case VMA_SUB_HYPERCALL:
		if (l->name)
			vma_snprintf(buf, len, "    [%10s] ", l->name);
		else
			vma_snprintf(buf, len, "    [%10" PRIu64 "] ", l->key);
		return;
	case VMA_SUB_MMIO:
		vma_snprintf(buf, len, "   mmio ");
		return;
	case VMA_SUB_SHADOW:
		/* Under a "page_fault" line, as xenalyze's hvm_pf_xen_summary(). */
		if (l->name)
			vma_snprintf(buf, len, "     %-25s ", l->name);
		else if (l->key == VMA_SUB_OTHER)
			vma_snprintf(buf, len, "     %-25s ", "other");
		else
			vma_snprintf(buf, len, "     [%23" PRIu64 "] ", l->key);
		return;
	case VMA_SUB_HANDLER:
		break;
	}
	if (l->name)
		vma_snprintf(buf, len, "   %s ", l->name);
	else
		vma_snprintf(buf, len, "   hvm_handler %u ", l->minor);
}

static void exit_rows(const struct vma_summary_ctx *c, const struct vma_report_exit *x)
{
	uint32_t i;

	for (i = 0; i < x->nr_sublines; i++) {
		char label[64];

		if (x->sublines[i].kind == VMA_SUB_SHADOW &&
		    (!i || x->sublines[i - 1].kind != VMA_SUB_SHADOW))
			vma_fprintf(c->out, "   page_fault\n");
		sub_label(label, sizeof(label), &x->sublines[i]);
		vma_summary_exit_line(c, label, &x->sublines[i].stat);
	}
	/* External interrupts: a count per vector, as xenalyze prints them. */
	for (i = 0; i < x->nr_vectors; i++) {
		if (x->vectors[i].vector == VMA_SUB_OTHER) {
			vma_fprintf(c->out, "            [other]: %" PRIu64 "\n",
				    x->vectors[i].events);
		} else {
			vma_fprintf(c->out, "            [%3" PRIu64 "]: %" PRIu64 "\n",
				x->vectors[i].vector, x->vectors[i].events);
		}
	}
}

/* The legacy VGA window, which xenalyze leaves out of the MMIO table by default. */
#define VGA_FIRST 0xa0000u
#define VGA_LAST 0xbffffu

static bool is_vga(const struct vma_report_address *a)
{
	return a->addr >= VGA_FIRST && a->addr <= VGA_LAST;
}

static void address_table(const struct vma_summary_ctx *c, const struct vma_report_address *rows,
			  uint32_t nr, const char *title, bool skip_vga)
{
	uint32_t i, shown = 0;

	for (i = 0; i < nr; i++)
		shown += !(skip_vga && is_vga(&rows[i]));
	if (!shown)
		return;
	vma_fprintf(c->out, "%s\n", title);
	for (i = 0; i < nr; i++) {
		char prefix[VMA_FMT_PAD_MAX(8) + 8];
		char *p = prefix;

		if (skip_vga && is_vga(&rows[i]))
			continue;
		/* "%8llx:[w] " or "   other:[w] ", without snprintf(): a table has hundreds */
		if (rows[i].addr == VMA_SUB_OTHER) {
			memcpy(p, "   other", 8);
			p += 8;
		} else {
			p = vma_fmt_x64_pad(p, rows[i].addr, 8, ' ');
		}
		memcpy(p, rows[i].is_write ? ":[w] " : ":[r] ", 6);
		vma_summary_exit_line(c, prefix, &rows[i].stat);
	}
}

void vma_summary_hvm(const struct vma_summary_ctx *c, const struct vma_report_vcpu *v)
{
	static const char *const cases[VMA_REPORT_W2H_CASES] = {
		"   * wake to halt alone", "   * wake to halt any  ", "   * intr to halt      ",
	};
	FILE *out = c->out;
	uint32_t i, k;

	if (!v->has_exits)
		return;
	vma_fprintf(out, "Exit reasons:\n");
	for (i = 0; i < v->nr_exits; i++) {
		const struct vma_report_exit *x = &v->exits[i];
		char prefix[48];

		/* Names longer than 20 columns push the numbers right, as in xenalyze. */
		if (x->name)
			vma_snprintf(prefix, sizeof(prefix), " %-20s ", x->name);
		else
			vma_snprintf(prefix, sizeof(prefix), " %20u ", x->code);
		vma_summary_exit_line(c, prefix, &x->stat);
		exit_rows(c, x);
	}
	/* KVM: an empty section is not printed (Xen's layout keeps the header). */
	if (v->nr_irqs || !c->report->kvm)
		vma_fprintf(out, "Guest interrupt counts:\n");
	for (i = 0; i < v->nr_irqs; i++) {
		const struct vma_report_irq *q = &v->irqs[i];

		if (q->vector == VMA_GUEST_VECTORS) {
			vma_fprintf(out, "  [%u+] %" PRIu64 "\n", VMA_GUEST_VECTORS, q->count);
			continue;
		}
		if (q->vector == VMA_IRQ_OTHER)
			vma_fprintf(out, "  [other] %" PRIu64 "\n", q->count);
		else
			vma_fprintf(out, "  [%3u] %" PRIu64 "\n", q->vector, q->count);
		for (k = 0; q->has_w2h && k < VMA_REPORT_W2H_CASES; k++)
			vma_summary_cycle_line(c, cases[k], &q->w2h[k]);
	}
	if (v->has_eip_histogram) {
		vma_fprintf(out, "Interrupt eip histogram:\n");
		for (i = 0; i < v->nr_eip_histogram; i++) {
			uint64_t first = v->eip_histogram[i].eip, incr = v->eip_histogram_increment;
			uint64_t last = first > UINT64_MAX - (incr - 1) ? UINT64_MAX :
				first + incr - 1;

			if (v->eip_histogram[i].other)
				vma_fprintf(out, "[other]: %" PRIu64 "\n", v->eip_histogram[i].count);
			else
				vma_fprintf(out, "[%" PRIx64 "-%" PRIx64 "]: %" PRIu64 "\n", first,
					    last, v->eip_histogram[i].count);
		}
	}
	/* Where xenalyze's would be, had its update not been compiled out. */
	if (v->ipi_latency.events)
		vma_summary_exit_line(c, "IPI latency ", &v->ipi_latency);
	address_table(c, v->io, v->nr_io, "IO address summary:", false);
	address_table(c, v->mmio, v->nr_mmio, "MMIO address summary:",
		      c->mmio_skip_vga && !c->report->kvm);
	address_table(c, v->msr, v->nr_msr, "MSR summary:", false);
	address_table(c, v->hcall, v->nr_hcall, "Hypercall summary:", false);
}
