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
 * Column formats are xenalyze's.  What differs on purpose (handler
 * sub-lines under every vcpu, not only the first one to hit them, for
 * instance) is listed in doc/xenalyze-differences.md.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/summary-internal.h"
#include "vmalyze/histogram.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/report.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-names.h"

static const char *const volume_names[VMA_VOL_COUNT] = {
	[VMA_VOL_GEN] = "gen",       [VMA_VOL_SCHED] = "sched", [VMA_VOL_DOM0OP] = "dom0op",
	[VMA_VOL_HVM] = "hvm",       [VMA_VOL_MEM] = "mem",     [VMA_VOL_PV] = "pv",
	[VMA_VOL_SHADOW] = "shadow", [VMA_VOL_HW] = "hw",
	[VMA_VOL_HVM_VMENTRY] = "vmentry", [VMA_VOL_HVM_VMEXIT] = "vmexit",
	[VMA_VOL_HVM_HANDLER] = "handler", [VMA_VOL_HVM_EMUL] = "emul",
};

void vma_format_hz(char *buf, size_t len, uint64_t hz)
{
	double v = (double)hz;
	char suffix = ' ';

	if (hz > 1000000000ull) {
		v /= 1e9;
		suffix = 'G';
	} else if (hz > 1000000ull) {
		v /= 1e6;
		suffix = 'M';
	} else if (hz > 1000ull) {
		v /= 1e3;
		suffix = 'k';
	}
	snprintf(buf, len, "%1.2f %cHz", v, suffix);
}

/* "NAME: count secs avg {p5|p50|p95}", time-weighted percentiles. */
void vma_summary_cycle_line(FILE *out, const struct vma_summary_ctx *c, const char *desc,
		       const struct vma_cycles *s)
{
	uint64_t n = s->count;

	if (!n)
		return;
	fprintf(out, "%s: %7" PRIu64 " %5.2fs %6" PRIu64 " {%6" PRIu64 "|%6" PRIu64 "|%6" PRIu64
		     "}\n",
		desc, n, (double)s->cycles / (double)c->hz, s->cycles / n,
		vma_report_tpct(s, 5), vma_report_tpct(s, 50),
		vma_report_tpct(s, 95));
	if (c->opts->histogram)
		vma_summary_histogram(out, c, s, true);
}

/* "NAME: count avg {p5|p50|p95}", count-weighted (cpu affinity). */
static void affinity_line(FILE *out, const char *desc, const struct vma_cycles *s)
{
	uint64_t n = s->count;

	if (!n)
		return;
	fprintf(out, "%s: %7" PRIu64 " %6" PRIu64 " {%6" PRIu64 "|%6" PRIu64 "|%6" PRIu64 "}\n",
		desc, n, s->cycles / n, vma_report_pct(s, 5),
		vma_report_pct(s, 50), vma_report_pct(s, 95));
}

/* "PREFIX count secs pct% avg cyc {p5|p50|p95}", count-weighted (exits). */
void vma_summary_exit_line(FILE *out, const struct vma_summary_ctx *c, const char *prefix,
			   const struct vma_cycles *s)
{
	uint64_t events = s->events, n = s->count;
	uint64_t total = s->cycles;

	if (!events)
		return;
	fprintf(out,
		"%s %7" PRIu64 " %5.2fs %5.2f%% %5" PRIu64 " %s {%5" PRIu64 "|%5" PRIu64 "|%5" PRIu64
		"}\n",
		prefix, events, (double)total / (double)c->hz,
		c->total_cycles ? (double)total * 100.0 / (double)c->total_cycles : 0.0,
		n ? total / n : 0, c->unit, vma_report_pct(s, 5), vma_report_pct(s, 50),
		vma_report_pct(s, 95));
	if (c->opts->histogram)
		vma_summary_histogram(out, c, s, false);
}

/*
 * --histogram: the summary's distribution under its line, one bar per
 * power of two of cycles, weighted as the line's percentiles are.
 */
void vma_summary_histogram(FILE *out, const struct vma_summary_ctx *c,
			   const struct vma_cycles *s, bool time_weighted)
{
	struct vma_cycles_bin *bins = NULL;
	size_t nbins = 0;

	if (!s->count || vma_cycles_histogram(s, 1, &bins, &nbins))
		return;
	vma_histogram_print(out, bins, nbins,
			    time_weighted ? VMA_CYCLES_BY_TIME : VMA_CYCLES_BY_COUNT,
			    VMA_HISTOGRAM_WIDTH);
	free(bins);
}

static void volume_section(FILE *out, const struct vma_machine *m)
{
	uint32_t i, j;

	fprintf(out, "--- Log volume summary ---\n");
	for (i = 0; i < m->nr_pcpus; i++) {
		const struct vma_pcpu *p = m->pcpus[i];
		bool any = false;

		if (!p)
			continue;
		for (j = 0; j <= VMA_VOL_HW; j++)
			any |= p->volume[j] != 0;
		if (!any)
			continue;
		fprintf(out, " - cpu %u -\n", i);
		for (j = 0; j <= VMA_VOL_HW; j++) {
			uint32_t k;

			if (!p->volume[j])
				continue;
			fprintf(out, " %-6s: %10" PRIu64 "\n", volume_names[j], p->volume[j]);
			if (j != VMA_VOL_HVM)
				continue;
			for (k = VMA_VOL_HVM_VMENTRY; k <= VMA_VOL_HVM_EMUL; k++) {
				if (p->volume[k])
					fprintf(out, " +-%-7s: %10" PRIu64 "\n", volume_names[k],
						p->volume[k]);
			}
		}
	}
}

static void vcpu_runstates(FILE *out, const struct vma_summary_ctx *c, const struct vma_vcpu *v)
{
	char desc[40];
	uint32_t i, j;

	fprintf(out, " Runstates:\n");
	for (i = 0; i < VMA_RS_COUNT; i++) {
		snprintf(desc, sizeof(desc), "  %8s", vma_vcpu_runstate_name(i));
		vma_summary_cycle_line(out, c, desc, &v->runstates[i]);
		if (i != VMA_RS_RUNNABLE)
			continue;
		for (j = 0; j < VMA_RUNNABLE_COUNT; j++) {
			snprintf(desc, sizeof(desc), "    %8s", vma_runnable_kind_name(j));
			vma_summary_cycle_line(out, c, desc, &v->runnable[j]);
		}
	}
	affinity_line(out, " cpu affinity", &v->affinity_all);
	for (i = 0; i < v->nr_affinity; i++) {
		snprintf(desc, sizeof(desc), "   [%u]", i);
		affinity_line(out, desc, &v->affinity_pcpu[i]);
	}
}

static void pv_section(FILE *out, const struct vma_vcpu *v)
{
	const struct vma_pv *pv = &v->pv;
	uint32_t i, j;

	if (!pv->nr_counts)
		return;
	fprintf(out, "PV events:\n");
	for (i = 0; i < pv->nr_counts; i++) {
		uint64_t n = pv->counts[i];
		const char *name;

		/* As xenalyze: the v2 hypercall line includes multicall subcalls. */
		if (i + TRC_PV_ENTRY == TRC_PV_HYPERCALL_V2 &&
		    TRC_PV_HYPERCALL_SUBCALL - TRC_PV_SUBCALL < pv->nr_counts)
			n += pv->counts[TRC_PV_HYPERCALL_SUBCALL - TRC_PV_SUBCALL];

		if (!n)
			continue;
		name = vma_pv_event_name(i);
		if (name)
			fprintf(out, "  %s  %" PRIu64 "\n", name, n);
		else
			fprintf(out, "  pv_event %u  %" PRIu64 "\n", i, n);
		if (i + TRC_PV_ENTRY != TRC_PV_HYPERCALL_V2 && i + TRC_PV_ENTRY != TRC_PV_HYPERCALL)
			continue;
		for (j = 0; j < pv->nr_hypercalls; j++) {
			const char *hname = vma_hypercall_name(j);
			char unknown[24];

			if (!pv->hypercalls[j])
				continue;
			if (!hname) {
				snprintf(unknown, sizeof(unknown), "hypercall %u", j);
				hname = unknown;
			}
			fprintf(out, "    %-29s[%2u]: %6" PRIu64 "\n", hname, j, pv->hypercalls[j]);
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
static void latency_line(FILE *out, const struct vma_summary_ctx *c, const char *desc,
			 const struct vma_latency_window *w)
{
	if (!w->exits)
		return;
	fprintf(out, "%s: exits %" PRIu64 " avg %" PRIu64 " %s max %" PRIu64
		     " %s max in 1 ms %" PRIu64 " %s\n",
		desc, w->exits, w->total / w->exits, c->unit, w->max, c->unit, w->max_window,
		c->unit);
}

static void domain_section(FILE *out, const struct vma_summary_ctx *c, const struct vma_domain *d)
{
	char desc[40];
	uint32_t i;

	fprintf(out, "|-- Domain %u --|\n", d->did);
	fprintf(out, " Runstates:\n");
	for (i = 0; i < VMA_DRS_COUNT; i++) {
		snprintf(desc, sizeof(desc), "  %8s", vma_domain_runstate_name(i));
		vma_summary_cycle_line(out, c, desc, &d->runstates[i]);
	}
	if (!c->kvm)
		mem_section(out, &d->mem);
	else
		latency_line(out, c, " Exit latency", &d->latency);
	for (i = 0; i < d->nr_vcpus; i++) {
		const struct vma_vcpu *v = d->vcpus[i];

		if (!v)
			continue;
		fprintf(out, "-- v%u --\n", v->vid);
		vcpu_runstates(out, c, v);
		if (c->kvm)
			latency_line(out, c, " Exit latency", &v->latency);
		if (v->type == VMA_VCPU_HVM || v->type == VMA_VCPU_ARM)
			vma_summary_hvm(out, c, v);
		else if (v->type == VMA_VCPU_PV)
			pv_section(out, v);
	}
}

static void pcpu_section(FILE *out, const struct vma_summary_ctx *c, const struct vma_machine *m)
{
	uint32_t i, active = 0;

	for (i = 0; i < m->nr_pcpus; i++) {
		const struct vma_pcpu *p = m->pcpus[i];

		if (!p)
			continue;
		fprintf(out, "pcpu %u\n", i);
		vma_summary_cycle_line(out, c, " running", &p->time_running);
		vma_summary_cycle_line(out, c, "    idle", &p->time_idle);
		vma_summary_cycle_line(out, c, "    lost", &p->time_lost);
		if (p->time_running.count)
			active++;
	}
	fprintf(out, "Total active cpus: %u\n", active);
}

int vma_report_text(FILE *out, const struct vma_machine *m, const struct vma_report_options *opts)
{
	struct vma_summary_ctx c = {
		.opts = opts,
		.hz = opts->cpu_hz ? opts->cpu_hz : 1,
		.svm = m->svm,
		.kvm = m->kvm,
		.unit = opts->clock_ns ? "ns" : "cyc",
		.total_cycles = m->have_time ? m->last_tsc - m->first_tsc : 0,
	};
	char hz[32];
	uint32_t i;

	vma_format_hz(hz, sizeof(hz), c.hz);
	if (opts->clock_ns)
		fprintf(out, "Total time: %.2f seconds (trace clock in nanoseconds)\n",
			(double)c.total_cycles / (double)c.hz);
	else
		fprintf(out, "Total time: %.2f seconds (using cpu speed %s)\n",
			(double)c.total_cycles / (double)c.hz, hz);
	if (!m->kvm)
		volume_section(out, m);
	for (i = 0; i < m->nr_domains; i++) {
		if (m->domains[i]->did != VMA_DEFAULT_DOMAIN)
			domain_section(out, &c, m->domains[i]);
	}
	if (m->kvm && opts->kvm_event_name) {
		fprintf(out, "KVM events:\n");
		for (i = 0; i < m->nr_kvm_counts; i++) {
			const char *name = opts->kvm_event_name(opts->kvm_event_name_arg, i);

			if (m->kvm_counts[i])
				fprintf(out, "  %-32s %10" PRIu64 "\n", name ? name : "(unknown)",
					m->kvm_counts[i]);
		}
	}
	if (opts->report_pcpu)
		pcpu_section(out, &c, m);
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}
