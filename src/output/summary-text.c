/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text summary, in xenalyze's sections and line layouts so that
 * scripts written for `xenalyze -s` keep working:
 *
 *   Total time: ... / --- Log volume summary --- / |-- Domain N --| with its
 *   runstates, then -- vN -- per vcpu: runstates, cpu affinity, exit reasons
 *   (with one sub-line per handler), guest interrupts, I/O and MMIO
 *   addresses, or PV event counts.
 *
 * A renderer over the report model (report.h) only.  Column formats are
 * xenalyze's.  What differs on purpose (handler
 * sub-lines under every vcpu, not only the first one to hit them, for
 * instance) is listed in doc/xenalyze-differences.md.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/summary-internal.h"
#include "vmalyze/dump.h"
#include "vmalyze/symbols.h"
#include "vmalyze/histogram.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-names.h"
#include "vmalyze/status.h"
#include "vmalyze/strbuf.h"

/* "2.40 GHz"; a frequency below 1 kHz has no prefix letter. */
static void format_hz(char *buf, size_t len, uint64_t hz)
{
	double v = (double)hz;
	const char *prefix = "";

	if (hz > 1000000000ull) {
		v /= 1e9;
		prefix = "G";
	} else if (hz > 1000000ull) {
		v /= 1e6;
		prefix = "M";
	} else if (hz > 1000ull) {
		v /= 1e3;
		prefix = "k";
	}
	snprintf(buf, len, "%1.2f %sHz", v, prefix);
}

/*
 * --histogram: the summary's distribution under its line, one bar per
 * power of two of cycles, weighted as the line's percentiles are.
 */
static void histogram(const struct vma_summary_ctx *c, const struct vma_report_stat *s)
{
	struct vma_cycles_bin *bins = NULL;
	size_t nbins = 0;

	if (!c->histogram || !s->count || !s->dist ||
	    vma_cycles_histogram(s->dist, 1, &bins, &nbins))
		return;
	vma_histogram_print(c->out, bins, nbins, s->weight, VMA_HISTOGRAM_WIDTH);
	free(bins);
}

/*
 * The summary's most frequent lines (a vcpu's runstates, affinities, exit
 * reasons and their handlers: tens of thousands on a large host) are put
 * together column by column rather than through a format string, whose
 * parsing was most of their cost.  Their columns are numbers and the unit,
 * under 200 bytes, so the buffer on the stack is never outgrown.
 */
struct line {
	struct vma_strbuf sb;
	char buf[256];
};

static void line_start(struct line *l)
{
	l->buf[0] = '\0';
	l->sb = (struct vma_strbuf){ .buf = l->buf, .cap = sizeof(l->buf), .borrowed = true };
}

/* " %*llu" */
static void put_column(struct line *l, uint64_t v, unsigned int width)
{
	vma_sb_putc(&l->sb, ' ');
	vma_sb_put_u64_pad(&l->sb, v, width, ' ');
}

/* " %*.*fs": @ticks in seconds */
static void put_secs(struct line *l, const struct vma_summary_ctx *c, uint64_t ticks)
{
	unsigned int digits = (unsigned int)vma_summary_secs_digits(c->report);

	vma_sb_putc(&l->sb, ' ');
	vma_sb_put_fixed(&l->sb, vma_report_seconds(c->report, ticks), digits, digits + 3);
	vma_sb_putc(&l->sb, 's');
}

/* " {%*llu|%*llu|%*llu}" */
static void put_percentiles(struct line *l, const struct vma_report_stat *s, unsigned int width)
{
	vma_sb_put(&l->sb, " {", 2);
	vma_sb_put_u64_pad(&l->sb, s->p5, width, ' ');
	vma_sb_putc(&l->sb, '|');
	vma_sb_put_u64_pad(&l->sb, s->p50, width, ' ');
	vma_sb_putc(&l->sb, '|');
	vma_sb_put_u64_pad(&l->sb, s->p95, width, ' ');
	vma_sb_putc(&l->sb, '}');
}

/* @label, then the columns, and the end of the line. */
static void line_write(struct line *l, const struct vma_summary_ctx *c, const char *label)
{
	vma_sb_putc(&l->sb, '\n');
	fputs(label, c->out);
	if (!vma_sb_failed(&l->sb))
		fwrite(l->sb.buf, 1, l->sb.len, c->out);
	vma_sb_free(&l->sb);
}

/* "NAME: count secs avg {p5|p50|p95}", time-weighted percentiles. */
void vma_summary_cycle_line(const struct vma_summary_ctx *c, const char *desc,
			    const struct vma_report_stat *s)
{
	struct line l;

	if (!s->count)
		return;
	line_start(&l);
	vma_sb_putc(&l.sb, ':');
	put_column(&l, s->count, 7);
	put_secs(&l, c, s->total);
	put_column(&l, s->mean, 6);
	if (!c->no_percentiles)
		put_percentiles(&l, s, 6);
	line_write(&l, c, desc);
	histogram(c, s);
}

/* "NAME: count avg {p5|p50|p95}", count-weighted (cpu affinity). */
static void affinity_line(const struct vma_summary_ctx *c, const char *desc,
			  const struct vma_report_stat *s)
{
	struct line l;

	if (!s->count)
		return;
	line_start(&l);
	vma_sb_putc(&l.sb, ':');
	put_column(&l, s->count, 7);
	put_column(&l, s->mean, 6);
	if (!c->no_percentiles)
		put_percentiles(&l, s, 6);
	line_write(&l, c, desc);
}

/* "PREFIX count secs pct% avg cyc {p5|p50|p95}", count-weighted (exits). */
void vma_summary_exit_line(const struct vma_summary_ctx *c, const char *prefix,
			   const struct vma_report_stat *s)
{
	uint64_t whole = c->report->total;
	struct line l;

	if (!s->events)
		return;
	line_start(&l);
	put_column(&l, s->events, 7);
	put_secs(&l, c, s->total);
	vma_sb_putc(&l.sb, ' ');
	vma_sb_put_fixed(&l.sb, whole ? (double)s->total * 100.0 / (double)whole : 0.0, 2, 5);
	vma_sb_putc(&l.sb, '%');
	put_column(&l, s->mean, 5);
	vma_sb_putc(&l.sb, ' ');
	vma_sb_puts(&l.sb, c->unit);
	if (!c->no_percentiles)
		put_percentiles(&l, s, 5);
	line_write(&l, c, prefix);
	histogram(c, s);
}

static void volume_section(const struct vma_summary_ctx *c)
{
	const struct vma_report *r = c->report;
	FILE *out = c->out;
	uint32_t i, j;

	vma_fprintf(out, "--- Log volume summary ---\n");
	for (i = 0; i < r->nr_pcpus; i++) {
		const struct vma_report_pcpu *p = &r->pcpus[i];
		bool any = false;

		for (j = 0; j <= VMA_VOL_HW; j++)
			any |= p->volume[j] != 0;
		if (!any)
			continue;
		vma_fprintf(out, " - cpu %u -\n", p->id);
		for (j = 0; j <= VMA_VOL_HW; j++) {
			uint32_t k;

			if (!p->volume[j])
				continue;
			vma_fprintf(out, " %-6s: %10" PRIu64 "\n", vma_volume_class_name(j),
				p->volume[j]);
			if (j != VMA_VOL_HVM)
				continue;
			for (k = VMA_VOL_HVM_VMENTRY; k <= VMA_VOL_HVM_EMUL; k++) {
				if (p->volume[k]) {
					vma_fprintf(out, " +-%-7s: %10" PRIu64 "\n",
						vma_volume_class_name(k), p->volume[k]);
				}
			}
		}
	}
}

static void vcpu_runstates(const struct vma_summary_ctx *c, const struct vma_report_vcpu *v)
{
	char desc[40];
	uint32_t i, j;
	bool any = !c->report->kvm;

	for (i = 0; i < VMA_RS_COUNT; i++)
		any |= v->runstates[i].count != 0;
	if (any)
		vma_fprintf(c->out, " Runstates:\n");
	for (i = 0; i < VMA_RS_COUNT; i++) {
		vma_snprintf(desc, sizeof(desc), "  %8s", vma_vcpu_runstate_name(i));
		vma_summary_cycle_line(c, desc, &v->runstates[i]);
		if (i != VMA_RS_RUNNABLE)
			continue;
		for (j = 0; j < VMA_RUNNABLE_COUNT; j++) {
			vma_snprintf(desc, sizeof(desc), "    %8s", vma_runnable_kind_name(j));
			vma_summary_cycle_line(c, desc, &v->runnable[j]);
		}
	}
	affinity_line(c, " cpu affinity", &v->affinity);
	for (i = 0; i < v->nr_affinity_pcpu; i++) {
		if (v->affinity_pcpu_ids[i] == VMA_PCPU_OTHER)
			vma_snprintf(desc, sizeof(desc), "   [other]");
		else
			vma_snprintf(desc, sizeof(desc), "   [%u]", v->affinity_pcpu_ids[i]);
		affinity_line(c, desc, &v->affinity_pcpu[i]);
	}
}

static void pv_section(FILE *out, const struct vma_report_vcpu *v)
{
	uint32_t i, j;

	if (!v->nr_pv_events)
		return;
	vma_fprintf(out, "PV events:\n");
	for (i = 0; i < v->nr_pv_events; i++) {
		const struct vma_report_pv_event *ev = &v->pv_events[i];

		if (ev->name) {
			vma_fprintf(out, "  %s  %" PRIu64 "\n", ev->name, ev->count + ev->subcalls);
		} else {
			vma_fprintf(out, "  pv_event %u  %" PRIu64 "\n", ev->minor,
				ev->count + ev->subcalls);
		}
		for (j = 0; ev->lists_traps && j < v->nr_traps; j++) {
			if (v->traps[j].trap == VMA_PV_OTHER)
				vma_fprintf(out, "    [other] %" PRIu64 "\n", v->traps[j].count);
			else
				vma_fprintf(out, "    [%u] %" PRIu64 "\n", v->traps[j].trap,
					v->traps[j].count);
		}
		if (!ev->lists_hypercalls)
			continue;
		for (j = 0; j < v->nr_hypercalls; j++) {
			const struct vma_report_hypercall *h = &v->hypercalls[j];
			char unknown[24];
			const char *hname = h->name;

			if (!hname) {
				vma_snprintf(unknown, sizeof(unknown), "hypercall %u", h->op);
				hname = unknown;
			}
			if (h->op == VMA_PV_OTHER)
				vma_fprintf(out, "    %-29s[other]: %6" PRIu64 "\n", hname,
					    h->count);
			else
				vma_fprintf(out, "    %-29s[%2u]: %6" PRIu64 "\n", hname, h->op,
					    h->count);
		}
	}
}

static void mem_section(FILE *out, const struct vma_domain_mem *mem)
{
	static const char *const grant_names[VMA_GRANT_OPS] = {
		"grant-map", "grant-unmap", "grant-transfer",
	};
	static const char *const ctx_names[VMA_POD_CTX_COUNT] = { "unknown", "fault", "balloon" };
	uint32_t i, j;

	vma_fprintf(out, " Grant table ops:\n  Done by:\n");
	for (i = 0; i < VMA_GRANT_OPS; i++) {
		if (mem->grant_done[i])
			vma_fprintf(out, "   %-14s: %" PRIu64 "\n", grant_names[i],
				    mem->grant_done[i]);
	}
	vma_fprintf(out, "  Done for:\n");
	for (i = 0; i < VMA_GRANT_OPS; i++) {
		if (mem->grant_done_for[i]) {
			vma_fprintf(out, "   %-14s: %" PRIu64 "\n", grant_names[i],
				mem->grant_done_for[i]);
		}
	}
	vma_fprintf(out, " Populate-on-demand:\n  Populated:\n");
	for (i = 0; i < VMA_POD_ORDERS; i++) {
		if (mem->pod_populate[i])
			vma_fprintf(out, "   [%u] %" PRIu64 "\n", i, mem->pod_populate[i]);
	}
	vma_fprintf(out, "  Reclaim order:\n");
	for (i = 0; i < VMA_POD_ORDERS; i++) {
		if (mem->pod_reclaim[i])
			vma_fprintf(out, "   [%u] %" PRIu64 "\n", i, mem->pod_reclaim[i]);
	}
	vma_fprintf(out, "  Reclaim contexts:\n");
	for (j = 0; j < VMA_POD_CTX_COUNT; j++) {
		uint64_t n = 0;

		for (i = 0; i < VMA_POD_ORDERS; i++)
			n += mem->pod_context[j][i];
		if (!n)
			continue;
		vma_fprintf(out, "   * [%s] %" PRIu64 "\n", ctx_names[j], n);
		for (i = 0; i < VMA_POD_ORDERS; i++) {
			if (mem->pod_context[j][i])
				vma_fprintf(out, "    [%u] %" PRIu64 "\n", i,
					    mem->pod_context[j][i]);
		}
	}
}

/*
 * vm-trace's figures (KVM): exits, average and largest exit-to-entry
 * latency, and the largest latency summed over any 1 ms; then the same
 * without halt exits (HLT, WFx), the guest's own idle.
 */
static void latency_lines(const struct vma_summary_ctx *c, const struct vma_report_latency *l,
			  const struct vma_report_latency *nohalt)
{
	static const char *const desc[2] = { " Exit latency", " Exit latency without halts" };
	const struct vma_report_latency *rows[2] = { l, nohalt };
	uint32_t i;

	if (!l->exits)
		return;
	for (i = 0; i < 2; i++) {
		vma_fprintf(c->out, "%s: exits %" PRIu64 " avg %" PRIu64 " %s max %" PRIu64
				" %s max in 1 ms %" PRIu64 " %s\n",
			desc[i], rows[i]->exits, rows[i]->mean, c->unit, rows[i]->max, c->unit,
			rows[i]->max_window, c->unit);
	}
}

void vma_summary_vm_name(char *buf, size_t len, const struct vma_report_domain *d)
{
	int n = snprintf(buf, len, "VM %u", d->id);

	if (n < 0 || (size_t)n >= len)
		return;
	if (d->name)
		n += snprintf(buf + n, len - (size_t)n, " \"%s\"", d->name);
	if (n < 0 || (size_t)n >= len)
		return;
	if (d->pid) {
		snprintf(buf + n, len - (size_t)n, " (%s, pid %u)", d->comm ? d->comm : "?",
			 d->pid);
	} else {
		snprintf(buf + n, len - (size_t)n, " (VMM not known)");
	}
}

void vma_summary_thread(char *buf, size_t len, const struct vma_report_vcpu *v)
{
	buf[0] = '\0';
	if (!v->thread_id)
		return;
	if (v->thread_name)
		snprintf(buf, len, " (thread %u \"%s\")", v->thread_id, v->thread_name);
	else
		snprintf(buf, len, " (thread %u)", v->thread_id);
}

void vma_summary_refinement(char *buf, size_t len, const struct vma_report_worst *w)
{
	const char *name;

	switch (w->handler) {
	case 0:
		snprintf(buf, len, "-");
		return;
	case TRC_HVM_IOPORT_READ:
	case TRC_HVM_IOPORT_WRITE:
		snprintf(buf, len, "port %#" PRIx64 " %s", w->key, w->is_write ? "out" : "in");
		return;
	case TRC_HVM_IOMEM_READ:
	case TRC_HVM_IOMEM_WRITE:
		snprintf(buf, len, "mmio %#" PRIx64 " %s", w->key, w->is_write ? "write" : "read");
		return;
	case TRC_HVM_MSR_READ:
	case TRC_HVM_MSR_WRITE:
		snprintf(buf, len, "msr %#" PRIx64 " %s", w->key, w->is_write ? "write" : "read");
		return;
	case TRC_HVM_CPUID:
		snprintf(buf, len, "cpuid %#" PRIx64, w->key);
		return;
	case TRC_HVM_CR_WRITE:
		snprintf(buf, len, "cr%" PRIu64 " write", w->key);
		return;
	case VMA_KVM_HYPERCALL:
	case TRC_HVM_VMMCALL:
		snprintf(buf, len, "hypercall %" PRIu64, w->key);
		return;
	case VMA_KVM_USERSPACE_EXIT:
		snprintf(buf, len, "userspace exit %" PRIu64, w->key);
		return;
	}
	/* Another Xen handler, by name as the sub-lines call it. */
	name = vma_id_is_xen(w->handler) ?
		vma_hvm_handler_name((w->handler - TRC_HVM_HANDLER) & 0xff) : NULL;
	if (name && w->key)
		snprintf(buf, len, "%s %#" PRIx64, name, w->key);
	else if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "event %#x key %#" PRIx64, w->handler, w->key);
}

void vma_summary_worst(const struct vma_summary_ctx *c)
{
	const struct vma_report *r = c->report;
	uint32_t i;

	if (!r->worst)
		return;
	vma_fprintf(c->out, "Longest exits (%u):\n", r->nr_worst);
	vma_fprintf(c->out, "  %17s %*s %14s %6s %5s %-28s %18s  %s\n", "time", r->kvm ? 17 : 0,
		r->kvm ? "trace time" : "", "length", r->kvm ? "vm" : "domain", "vcpu", "reason",
		"rip", "refinement");
	for (i = 0; i < r->nr_worst; i++) {
		const struct vma_report_worst *w = &r->worst[i];
		uint64_t rel = w->tsc >= r->first_tsc ? w->tsc - r->first_tsc : 0;
		char abs[32] = "", reason[32], what[64], at[32];

		/* KVM: trace-cmd's own stamp too, as the dump prints it */
		if (r->kvm && r->unit == VMA_REPORT_NS) {
			snprintf(abs, sizeof(abs), "%" PRIu64 ".%06" PRIu64, w->tsc / 1000000000u,
				 w->tsc % 1000000000u / 1000u);
		} else if (r->kvm) {
			snprintf(abs, sizeof(abs), "%" PRIu64, w->tsc);
		}
		if (w->reason_name)
			snprintf(reason, sizeof(reason), "%s", w->reason_name);
		else
			snprintf(reason, sizeof(reason), "%u", w->reason);
		vma_summary_refinement(what, sizeof(what), w);
		vma_format_time(at, sizeof(at), rel, r->hz);
		vma_fprintf(c->out,
			    "  %17s %*s %11" PRIu64 " %-2s %6u %5u %-28s %#18" PRIx64 "  %s\n",
			at, r->kvm ? 17 : 0, abs, w->ticks, c->unit, w->domain,
			w->vcpu, reason, w->rip, what);
	}
}

static int vcpu_sections(const struct vma_summary_ctx *c, const struct vma_report_domain *d);

/* xenalyze's EIP list: the samples, then each EIP's count and share. */
static void interrupt_eips(const struct vma_summary_ctx *c, const struct vma_report_domain *d)
{
	uint32_t i;

	vma_fprintf(c->out, "Interrupt eip list (vector %u)\n", d->interrupt_eip_vector);
	if (!d->nr_interrupt_eips)
		return;
	vma_fprintf(c->out, "   Total samples: %" PRIu64 "\n", d->interrupt_eip_total);
	for (i = 0; i < d->nr_interrupt_eips; i++) {
		const struct vma_report_eip *e = &d->interrupt_eips[i];
		char eip[24], sym[160] = "";

		if (e->other)
			snprintf(eip, sizeof(eip), "%12s", "other");
		else
			snprintf(eip, sizeof(eip), "%12" PRIx64, e->eip);
		if (!e->other && vma_symbols_format(c->symbols, e->eip, sym + 1, sizeof(sym) - 1))
			sym[0] = ' ';
		vma_fprintf(c->out, "   %s%-45s:  %7" PRIu64 " %5.2f%%\n", eip, sym, e->count,
			    (double)e->count * 100.0 / (double)d->interrupt_eip_total);
	}
}

/*
 * xenalyze's emulate EIP list (dump_eip()): the samples, then each EIP's
 * cycle summary (or, with no cycles, its count and share).  xenalyze
 * prints the heading for every domain; vmalyze for those with some.
 */
static void emulate_eips(const struct vma_summary_ctx *c, const struct vma_report_domain *d)
{
	uint32_t i;

	vma_fprintf(c->out, "Emulate eip list\n");
	vma_fprintf(c->out, "   Total samples: %" PRIu64 "\n", d->emulate_eip_total);
	for (i = 0; i < d->nr_emulate_eips; i++) {
		const struct vma_report_emulate_eip *e = &d->emulate_eips[i];
		char sym[160] = "", prefix[224];

		if (e->other) {
			snprintf(prefix, sizeof(prefix), "   %12s%-45s: ", "other", "");
		} else {
			if (vma_symbols_format(c->symbols, e->eip, sym + 1, sizeof(sym) - 1))
				sym[0] = ' ';
			snprintf(prefix, sizeof(prefix), "   %12" PRIx64 "%-45s: ", e->eip, sym);
		}
		if (e->stat.total) {
			vma_summary_exit_line(c, prefix, &e->stat);
		} else {
			vma_fprintf(c->out, "%s %7" PRIu64 " %5.2f%%\n", prefix, e->stat.events,
				(double)e->stat.events * 100.0 / (double)d->emulate_eip_total);
		}
	}
}

/* xenalyze's print_cycle_percent_summary(): "DESC: count secs pct% avg {p5|p50|p95}" of @whole. */
static void percent_line(const struct vma_summary_ctx *c, const char *desc,
			 const struct vma_report_stat *s, uint64_t whole)
{
	int digits = vma_summary_secs_digits(c->report);
	double pct = whole ? (double)s->total * 100.0 / (double)whole : 0.0;

	if (!s->count)
		return;
	vma_fprintf(c->out, "%s: %7" PRIu64 " %*.*fs %5.2f%% %6" PRIu64, desc, s->count, digits + 3,
		digits, vma_report_seconds(c->report, s->total), pct, s->mean);
	if (!c->no_percentiles)
		vma_fprintf(c->out, " {%6" PRIu64 "|%6" PRIu64 "|%6" PRIu64 "}", s->p5, s->p50,
			    s->p95);
	fputc('\n', c->out);
}

/* xenalyze's CR3 list: each CR3 by first load, its times and its loads. */
static void cr3_list(const struct vma_summary_ctx *c, const struct vma_report_domain *d)
{
	char desc[48], first[32], last[32];
	uint32_t i, j;

	if (!d->nr_cr3s)
		return;
	vma_fprintf(c->out, "    cr3 values:\n");
	for (i = 0; i < d->nr_cr3s; i++) {
		const struct vma_report_cr3 *r = &d->cr3s[i];

		if (r->other)
			snprintf(desc, sizeof(desc), "  %8s (id %u)", "other", r->id);
		else
			snprintf(desc, sizeof(desc), "  %8" PRIx64 " (id %u)", r->gmfn, r->id);
		vma_summary_cycle_line(c, desc, &r->total);
		percent_line(c, "          guest", &r->guest, r->run_time);
		percent_line(c, "          hv   ", &r->hv, r->run_time);
		for (j = 0; j < VMA_XCAT_COUNT; j++) {
			snprintf(desc, sizeof(desc), "           + %s",
				 vma_xinterval_category_name(j));
			percent_line(c, desc, &r->hv_by[j], r->run_time);
		}
		vma_format_time(first, sizeof(first), r->first, c->report->hz);
		vma_format_time(last, sizeof(last), r->last, c->report->hz);
		vma_fprintf(c->out, "            Seen: %14s-%14s switch %" PRIu64 " flush "
									      "%" PRIu64 "\n",
			first, last, r->switches, r->flushes);
	}
}

static int domain_section(const struct vma_summary_ctx *c, const struct vma_report_domain *d)
{
	char desc[40];
	uint32_t i;
	bool any = !c->report->kvm;

	if (c->report->kvm) {
		char name[160];

		vma_summary_vm_name(name, sizeof(name), d);
		vma_fprintf(c->out, "|-- %s --|\n", name);
		if (d->grouping)
			vma_fprintf(c->out, " vcpus grouped by: %s\n", d->grouping);
	} else {
		vma_fprintf(c->out, "|-- Domain %u --|\n", d->id);
	}
	for (i = 0; i < VMA_DRS_COUNT; i++)
		any |= d->runstates[i].count != 0;
	if (any)
		vma_fprintf(c->out, " Runstates:\n");
	for (i = 0; i < VMA_DRS_COUNT; i++) {
		snprintf(desc, sizeof(desc), "  %8s", vma_domain_runstate_name(i));
		vma_summary_cycle_line(c, desc, &d->runstates[i]);
	}
	if (!c->report->kvm)
		mem_section(c->out, &d->mem);
	else
		latency_lines(c, &d->latency, &d->latency_nohalt);
	if (vcpu_sections(c, d))
		return VMA_ERR_NOMEM;
	if (d->nr_emulate_eips)
		emulate_eips(c, d);
	if (d->has_interrupt_eips)
		interrupt_eips(c, d);
	if (d->has_cr3s)
		cr3_list(c, d);
	return VMA_OK;
}

/* The vcpus' sections, one vcpu's rows at a time.  Return: VMA_OK or VMA_ERR_NOMEM. */
static int vcpu_sections(const struct vma_summary_ctx *c, const struct vma_report_domain *d)
{
	uint32_t i;

	for (i = 0; i < d->nr_vcpus; i++) {
		const struct vma_report_vcpu *v = vma_report_vcpu(c->report, d, i);
		char thread[96];

		if (!v)
			return VMA_ERR_NOMEM;
		vma_summary_thread(thread, sizeof(thread), v);
		vma_fprintf(c->out, "-- v%u%s --\n", v->id, thread);
		vcpu_runstates(c, v);
		if (c->report->kvm)
			latency_lines(c, &v->latency, &v->latency_nohalt);
		if (v->type == VMA_VCPU_HVM || v->type == VMA_VCPU_ARM)
			vma_summary_hvm(c, v);
		else if (v->type == VMA_VCPU_PV)
			pv_section(c->out, v);
	}
	return VMA_OK;
}

/* KVM: per host cpu, each VM's time in guest mode and in exits, of the whole trace. */
static void kvm_pcpu_section(const struct vma_summary_ctx *c)
{
	const struct vma_report *r = c->report;
	uint32_t i, j, active = 0;

	for (i = 0; i < r->nr_pcpus; i++) {
		const struct vma_report_pcpu *p = &r->pcpus[i];

		if (!p->nr_vms)
			continue;
		active++;
		vma_fprintf(c->out, "pcpu %u\n", p->id);
		for (j = 0; j < p->nr_vms; j++) {
			const struct vma_report_pcpu_vm *v = &p->vms[j];
			double whole = r->total ? (double)r->total : 1.0;

			vma_fprintf(c->out,
				    "  VM %u: guest %12.6fs %6.2f%%  exits %12.6fs %6.2f%%\n",
				v->domain, vma_report_seconds(r, v->guest),
				100.0 * (double)v->guest / whole, vma_report_seconds(r, v->exits),
				100.0 * (double)v->exits / whole);
		}
	}
	vma_fprintf(c->out, "Total active cpus: %u\n", active);
}

static void pcpu_section(const struct vma_summary_ctx *c)
{
	const struct vma_report *r = c->report;
	uint32_t i, active = 0;

	if (r->kvm) {
		kvm_pcpu_section(c);
		return;
	}

	for (i = 0; i < r->nr_pcpus; i++) {
		const struct vma_report_pcpu *p = &r->pcpus[i];

		vma_fprintf(c->out, "pcpu %u\n", p->id);
		vma_summary_cycle_line(c, " running", &p->running);
		vma_summary_cycle_line(c, "    idle", &p->idle);
		vma_summary_cycle_line(c, "    lost", &p->lost);
		if (p->running.count)
			active++;
	}
	vma_fprintf(c->out, "Total active cpus: %u\n", active);
}

/* The precision given up to the memory budget, when it was (vma_report_precision). */
static void precision_line(FILE *out, const struct vma_report *r)
{
	const struct vma_report_precision *p = &r->precision;

	if (!p->reduced)
		return;
	vma_fprintf(out,
		"Memory budget of %.1f MiB for distributions reached at %.2f seconds "
		"(record %" PRIu64 "): sketch percentiles within %.2f%% (%u bucket%s per "
		"power of two), exact samples at most %u",
		p->budget / 1048576.0, vma_report_seconds(r, p->at), p->at_record,
		vma_report_error_percent(p->error), p->per_octave, p->per_octave == 1 ? "" : "s",
		p->exact_limit);
	/* Past its last level: how many summaries are lists of buckets (cycles.h). */
	if (p->compact)
		vma_fprintf(out, ", %" PRIu64 " summaries in compact form", p->compacts);
	vma_fprintf(out, "; peak %.1f MiB\n", p->peak / 1048576.0);
}

/* The rows given up to the memory budget, when they were (vma_report_folding). */
static void folding_line(FILE *out, const struct vma_report *r)
{
	const struct vma_report_folding *f = &r->folding;

	if (!f->reduced)
		return;
	vma_fprintf(out,
		"Memory budget of %.1f MiB for rows reached at %.2f seconds (record %" PRIu64
		"): new keys summed in \"other\" rows, %" PRIu64 " events; peak %.1f MiB\n",
		f->budget / 1048576.0, vma_report_seconds(r, f->at), f->at_record, f->events,
		f->peak / 1048576.0);
}

static int render(struct vma_render *ctx, const struct vma_report *r, bool histograms)
{
	struct vma_summary_ctx c = {
		.out = ctx->out,
		.report = r,
		.histogram = histograms,
		.no_percentiles = ctx->opts->no_percentiles,
		.unit = r->unit == VMA_REPORT_NS ? "ns" : "cyc",
		.symbols = ctx->opts->symbols,
		.mmio_skip_vga = !ctx->opts->mmio_keep_vga,
	};
	FILE *out = ctx->out;
	char hz[32];
	uint32_t i;

	if (!r->final)
		return VMA_OK;
	format_hz(hz, sizeof(hz), r->hz);
	if (r->unit == VMA_REPORT_NS) {
		vma_fprintf(out, "Total time: %.9f seconds (trace clock in nanoseconds)\n",
			vma_report_seconds(r, r->total));
	} else {
		vma_fprintf(out, "Total time: %.2f seconds (using cpu speed %s)\n",
			vma_report_seconds(r, r->total), hz);
	}
	precision_line(out, r);
	folding_line(out, r);
	if (!r->kvm)
		volume_section(&c);
	/* Only its vcpus, first, as xenalyze shows it. */
	if (r->default_domain) {
		vma_fprintf(out, "|-- Default domain --|\n");
		if (vcpu_sections(&c, r->default_domain))
			return VMA_ERR_NOMEM;
	}
	for (i = 0; i < r->nr_domains; i++) {
		if (domain_section(&c, &r->domains[i]))
			return VMA_ERR_NOMEM;
	}
	if (r->has_events && r->nr_events) {
		vma_fprintf(out, "KVM events:\n");
		for (i = 0; i < r->nr_events; i++) {
			vma_fprintf(out, "  %-32s %10" PRIu64 "\n", r->events[i].name,
				r->events[i].count);
		}
	}
	vma_summary_worst(&c);
	if (ctx->opts->report_pcpu)
		pcpu_section(&c);
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}

int vma_render_text(struct vma_render *ctx, const struct vma_report *r)
{
	return render(ctx, r, ctx->opts->histogram);
}

/* --histogram: the text summary with a histogram under every timed line. */
int vma_render_histogram(struct vma_render *ctx, const struct vma_report *r)
{
	return render(ctx, r, true);
}
