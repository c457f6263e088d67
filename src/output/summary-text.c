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
#include "vmalyze/histogram.h"
#include "vmalyze/status.h"

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

	if (!c->histogram || !s->count || !s->dist || vma_cycles_histogram(s->dist, 1, &bins, &nbins))
		return;
	vma_histogram_print(c->out, bins, nbins, s->weight, VMA_HISTOGRAM_WIDTH);
	free(bins);
}

/* "NAME: count secs avg {p5|p50|p95}", time-weighted percentiles. */
void vma_summary_cycle_line(const struct vma_summary_ctx *c, const char *desc,
			    const struct vma_report_stat *s)
{
	if (!s->count)
		return;
	if (c->no_percentiles) {
		fprintf(c->out, "%s: %7" PRIu64 " %5.2fs %6" PRIu64 "\n", desc, s->count,
			vma_report_seconds(c->report, s->total), s->mean);
		histogram(c, s);
		return;
	}
	fprintf(c->out, "%s: %7" PRIu64 " %5.2fs %6" PRIu64 " {%6" PRIu64 "|%6" PRIu64 "|%6" PRIu64
			"}\n",
		desc, s->count, vma_report_seconds(c->report, s->total), s->mean, s->p5, s->p50,
		s->p95);
	histogram(c, s);
}

/* "NAME: count avg {p5|p50|p95}", count-weighted (cpu affinity). */
static void affinity_line(const struct vma_summary_ctx *c, const char *desc,
			  const struct vma_report_stat *s)
{
	if (!s->count)
		return;
	if (c->no_percentiles) {
		fprintf(c->out, "%s: %7" PRIu64 " %6" PRIu64 "\n", desc, s->count, s->mean);
		return;
	}
	fprintf(c->out, "%s: %7" PRIu64 " %6" PRIu64 " {%6" PRIu64 "|%6" PRIu64 "|%6" PRIu64 "}\n",
		desc, s->count, s->mean, s->p5, s->p50, s->p95);
}

/* "PREFIX count secs pct% avg cyc {p5|p50|p95}", count-weighted (exits). */
void vma_summary_exit_line(const struct vma_summary_ctx *c, const char *prefix,
			   const struct vma_report_stat *s)
{
	uint64_t whole = c->report->total;

	if (!s->events)
		return;
	if (c->no_percentiles) {
		fprintf(c->out, "%s %7" PRIu64 " %5.2fs %5.2f%% %5" PRIu64 " %s\n", prefix, s->events,
			vma_report_seconds(c->report, s->total),
			whole ? (double)s->total * 100.0 / (double)whole : 0.0, s->mean, c->unit);
		histogram(c, s);
		return;
	}
	fprintf(c->out,
		"%s %7" PRIu64 " %5.2fs %5.2f%% %5" PRIu64 " %s {%5" PRIu64 "|%5" PRIu64 "|%5" PRIu64
		"}\n",
		prefix, s->events, vma_report_seconds(c->report, s->total),
		whole ? (double)s->total * 100.0 / (double)whole : 0.0, s->mean, c->unit, s->p5,
		s->p50, s->p95);
	histogram(c, s);
}

static void volume_section(const struct vma_summary_ctx *c)
{
	const struct vma_report *r = c->report;
	FILE *out = c->out;
	uint32_t i, j;

	fprintf(out, "--- Log volume summary ---\n");
	for (i = 0; i < r->nr_pcpus; i++) {
		const struct vma_report_pcpu *p = &r->pcpus[i];
		bool any = false;

		for (j = 0; j <= VMA_VOL_HW; j++)
			any |= p->volume[j] != 0;
		if (!any)
			continue;
		fprintf(out, " - cpu %u -\n", p->id);
		for (j = 0; j <= VMA_VOL_HW; j++) {
			uint32_t k;

			if (!p->volume[j])
				continue;
			fprintf(out, " %-6s: %10" PRIu64 "\n", vma_volume_class_name(j),
				p->volume[j]);
			if (j != VMA_VOL_HVM)
				continue;
			for (k = VMA_VOL_HVM_VMENTRY; k <= VMA_VOL_HVM_EMUL; k++) {
				if (p->volume[k]) {
					fprintf(out, " +-%-7s: %10" PRIu64 "\n",
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

	fprintf(c->out, " Runstates:\n");
	for (i = 0; i < VMA_RS_COUNT; i++) {
		snprintf(desc, sizeof(desc), "  %8s", vma_vcpu_runstate_name(i));
		vma_summary_cycle_line(c, desc, &v->runstates[i]);
		if (i != VMA_RS_RUNNABLE)
			continue;
		for (j = 0; j < VMA_RUNNABLE_COUNT; j++) {
			snprintf(desc, sizeof(desc), "    %8s", vma_runnable_kind_name(j));
			vma_summary_cycle_line(c, desc, &v->runnable[j]);
		}
	}
	affinity_line(c, " cpu affinity", &v->affinity);
	for (i = 0; i < v->nr_affinity_pcpu; i++) {
		snprintf(desc, sizeof(desc), "   [%u]", i);
		affinity_line(c, desc, &v->affinity_pcpu[i]);
	}
}

static void pv_section(FILE *out, const struct vma_report_vcpu *v)
{
	uint32_t i, j;

	if (!v->nr_pv_events)
		return;
	fprintf(out, "PV events:\n");
	for (i = 0; i < v->nr_pv_events; i++) {
		const struct vma_report_pv_event *ev = &v->pv_events[i];

		if (ev->name)
			fprintf(out, "  %s  %" PRIu64 "\n", ev->name, ev->count + ev->subcalls);
		else
			fprintf(out, "  pv_event %u  %" PRIu64 "\n", ev->minor, ev->count + ev->subcalls);
		if (!ev->lists_hypercalls)
			continue;
		for (j = 0; j < v->nr_hypercalls; j++) {
			const struct vma_report_hypercall *h = &v->hypercalls[j];
			char unknown[24];
			const char *hname = h->name;

			if (!hname) {
				snprintf(unknown, sizeof(unknown), "hypercall %u", h->op);
				hname = unknown;
			}
			fprintf(out, "    %-29s[%2u]: %6" PRIu64 "\n", hname, h->op, h->count);
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

	fprintf(out, " Grant table ops:\n  Done by:\n");
	for (i = 0; i < VMA_GRANT_OPS; i++) {
		if (mem->grant_done[i])
			fprintf(out, "   %-14s: %" PRIu64 "\n", grant_names[i], mem->grant_done[i]);
	}
	fprintf(out, "  Done for:\n");
	for (i = 0; i < VMA_GRANT_OPS; i++) {
		if (mem->grant_done_for[i])
			fprintf(out, "   %-14s: %" PRIu64 "\n", grant_names[i], mem->grant_done_for[i]);
	}
	fprintf(out, " Populate-on-demand:\n  Populated:\n");
	for (i = 0; i < VMA_POD_ORDERS; i++) {
		if (mem->pod_populate[i])
			fprintf(out, "   [%u] %" PRIu64 "\n", i, mem->pod_populate[i]);
	}
	fprintf(out, "  Reclaim order:\n");
	for (i = 0; i < VMA_POD_ORDERS; i++) {
		if (mem->pod_reclaim[i])
			fprintf(out, "   [%u] %" PRIu64 "\n", i, mem->pod_reclaim[i]);
	}
	fprintf(out, "  Reclaim contexts:\n");
	for (j = 0; j < VMA_POD_CTX_COUNT; j++) {
		uint64_t n = 0;

		for (i = 0; i < VMA_POD_ORDERS; i++)
			n += mem->pod_context[j][i];
		if (!n)
			continue;
		fprintf(out, "   * [%s] %" PRIu64 "\n", ctx_names[j], n);
		for (i = 0; i < VMA_POD_ORDERS; i++) {
			if (mem->pod_context[j][i])
				fprintf(out, "    [%u] %" PRIu64 "\n", i, mem->pod_context[j][i]);
		}
	}
}

/*
 * vm-trace's figures (KVM): exits, average and largest exit-to-entry
 * latency, and the largest latency summed over any 1 ms.
 */
static void latency_line(const struct vma_summary_ctx *c, const char *desc,
			 const struct vma_report_latency *l)
{
	if (!l->exits)
		return;
	fprintf(c->out, "%s: exits %" PRIu64 " avg %" PRIu64 " %s max %" PRIu64
			" %s max in 1 ms %" PRIu64 " %s\n",
		desc, l->exits, l->mean, c->unit, l->max, c->unit, l->max_window, c->unit);
}

static void vcpu_sections(const struct vma_summary_ctx *c, const struct vma_report_domain *d);

static void domain_section(const struct vma_summary_ctx *c, const struct vma_report_domain *d)
{
	char desc[40];
	uint32_t i;

	fprintf(c->out, "|-- Domain %u --|\n", d->id);
	fprintf(c->out, " Runstates:\n");
	for (i = 0; i < VMA_DRS_COUNT; i++) {
		snprintf(desc, sizeof(desc), "  %8s", vma_domain_runstate_name(i));
		vma_summary_cycle_line(c, desc, &d->runstates[i]);
	}
	if (!c->report->kvm)
		mem_section(c->out, &d->mem);
	else
		latency_line(c, " Exit latency", &d->latency);
	vcpu_sections(c, d);
}

static void vcpu_sections(const struct vma_summary_ctx *c, const struct vma_report_domain *d)
{
	uint32_t i;

	for (i = 0; i < d->nr_vcpus; i++) {
		const struct vma_report_vcpu *v = &d->vcpus[i];

		fprintf(c->out, "-- v%u --\n", v->id);
		vcpu_runstates(c, v);
		if (c->report->kvm)
			latency_line(c, " Exit latency", &v->latency);
		if (v->type == VMA_VCPU_HVM || v->type == VMA_VCPU_ARM)
			vma_summary_hvm(c, v);
		else if (v->type == VMA_VCPU_PV)
			pv_section(c->out, v);
	}
}

static void pcpu_section(const struct vma_summary_ctx *c)
{
	const struct vma_report *r = c->report;
	uint32_t i, active = 0;

	for (i = 0; i < r->nr_pcpus; i++) {
		const struct vma_report_pcpu *p = &r->pcpus[i];

		fprintf(c->out, "pcpu %u\n", p->id);
		vma_summary_cycle_line(c, " running", &p->running);
		vma_summary_cycle_line(c, "    idle", &p->idle);
		vma_summary_cycle_line(c, "    lost", &p->lost);
		if (p->running.count)
			active++;
	}
	fprintf(c->out, "Total active cpus: %u\n", active);
}

static int render(struct vma_render *ctx, const struct vma_report *r, bool histograms)
{
	struct vma_summary_ctx c = {
		.out = ctx->out,
		.report = r,
		.histogram = histograms,
		.no_percentiles = ctx->opts->no_percentiles,
		.unit = r->unit == VMA_REPORT_NS ? "ns" : "cyc",
	};
	FILE *out = ctx->out;
	char hz[32];
	uint32_t i;

	if (!r->final)
		return VMA_OK;
	format_hz(hz, sizeof(hz), r->hz);
	if (r->unit == VMA_REPORT_NS) {
		fprintf(out, "Total time: %.2f seconds (trace clock in nanoseconds)\n",
			vma_report_seconds(r, r->total));
	} else {
		fprintf(out, "Total time: %.2f seconds (using cpu speed %s)\n",
			vma_report_seconds(r, r->total), hz);
	}
	if (!r->kvm)
		volume_section(&c);
	/* Only its vcpus, first, as xenalyze shows it. */
	if (r->default_domain) {
		fprintf(out, "|-- Default domain --|\n");
		vcpu_sections(&c, r->default_domain);
	}
	for (i = 0; i < r->nr_domains; i++)
		domain_section(&c, &r->domains[i]);
	if (r->has_events) {
		fprintf(out, "KVM events:\n");
		for (i = 0; i < r->nr_events; i++)
			fprintf(out, "  %-32s %10" PRIu64 "\n", r->events[i].name, r->events[i].count);
	}
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
