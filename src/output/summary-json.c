/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The summary as one JSON document (--json); the schema is in
 * doc/output.md.  Same model and same numbers as the text summary, with
 * the raw counts and cycles where the text rounds to seconds.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "output/summary-internal.h"
#include "vmalyze/arm-names.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-names.h"

static void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

/*
 * A cycle summary.  @time_weighted picks the percentile definition:
 * runstates use time-weighted percentiles, exits count-weighted ones.
 */
static void json_cycles(FILE *out, const struct vma_summary_ctx *c, const struct vma_cycles *s,
			bool time_weighted)
{
	uint64_t n = s->count, total = s->cycles;
	uint64_t (*pct)(const struct vma_cycles *, unsigned int) =
		time_weighted ? vma_report_tpct : vma_report_pct;

	fprintf(out,
		"{\"events\":%" PRIu64 ",\"count\":%" PRIu64 ",\"cycles\":%" PRIu64
		",\"seconds\":%.9f,\"avg_cycles\":%" PRIu64 ",\"p5\":%" PRIu64 ",\"p50\":%" PRIu64
		",\"p95\":%" PRIu64 ",\"percentiles\":\"%s\"}",
		s->events, n, total, (double)total / (double)c->hz, n ? total / n : 0,
		pct(s, 5), pct(s, 50), pct(s, 95), time_weighted ? "time-weighted" : "count-weighted");
}

static void json_hvm(FILE *out, const struct vma_summary_ctx *c, const struct vma_hvm_stats *st,
		     bool arm)
{
	bool first = true;
	uint32_t r, k;

	fprintf(out, ",\"exits\":[");
	for (r = 0; st && r < st->nr_slots; r++) {
		const struct vma_exit_stats *e = st->by_reason[r];
		const char *name;

		if (!e)
			continue;
		name = arm ? vma_arm_exit_name(e->reason) : vma_hvm_exit_name(c->svm, e->reason);
		fprintf(out, "%s{\"code\":%u,\"name\":", first ? "" : ",", e->reason);
		if (name)
			json_string(out, name);
		else
			fprintf(out, "null");
		fprintf(out, ",\"cycles\":");
		json_cycles(out, c, &e->cycles, false);
		fprintf(out, ",\"handlers\":[");
		for (k = 0; k < e->nr_subs; k++) {
			const struct vma_exit_sub *s = &e->subs[k];
			const char *hname = !s->handler ? "(no handler)"
					    : vma_id_is_kvm(s->handler) ? vma_kvm_event_name(s->handler)
					    : vma_hvm_handler_name((s->handler - TRC_HVM_HANDLER) & 0xff);

			fprintf(out, "%s{\"handler\":", k ? "," : "");
			json_string(out, hname ? hname : "unknown");
			fprintf(out, ",\"key\":%" PRIu64 ",\"write\":%s,\"cycles\":", s->key,
				s->is_write ? "true" : "false");
			json_cycles(out, c, &s->cycles, false);
			fputc('}', out);
		}
		fprintf(out, "]}");
		first = false;
	}
	fprintf(out, "],\"guest_interrupts\":{");
	first = true;
	for (r = 0; st && r <= VMA_GUEST_VECTORS; r++) {
		if (!st->guest_irqs[r])
			continue;
		fprintf(out, "%s\"%u%s\":%" PRIu64, first ? "" : ",", r,
			r == VMA_GUEST_VECTORS ? "+" : "", st->guest_irqs[r]);
		first = false;
	}
	fputc('}', out);
}

static void json_pv(FILE *out, const struct vma_pv *pv)
{
	uint32_t i;
	bool first = true;

	fprintf(out, ",\"pv_events\":{");
	for (i = 0; i < pv->nr_counts; i++) {
		const char *name = vma_pv_event_name(i);
		char buf[32];

		if (!pv->counts[i])
			continue;
		if (!name) {
			snprintf(buf, sizeof(buf), "pv_event %u", i);
			name = buf;
		}
		fprintf(out, "%s", first ? "" : ",");
		json_string(out, name);
		fprintf(out, ":%" PRIu64, pv->counts[i]);
		first = false;
	}
	fprintf(out, "},\"hypercalls\":{");
	first = true;
	for (i = 0; i < pv->nr_hypercalls; i++) {
		if (!pv->hypercalls[i])
			continue;
		fprintf(out, "%s\"%u\":%" PRIu64, first ? "" : ",", i, pv->hypercalls[i]);
		first = false;
	}
	fputc('}', out);
}

static const char *type_name(enum vma_vcpu_type t)
{
	switch (t) {
	case VMA_VCPU_HVM:
		return "hvm";
	case VMA_VCPU_PV:
		return "pv";
	case VMA_VCPU_ARM:
		return "arm";
	case VMA_VCPU_NONE:
		break;
	}
	return "none";
}

static void json_vcpu(FILE *out, const struct vma_summary_ctx *c, const struct vma_vcpu *v)
{
	uint32_t i;

	fprintf(out, "{\"id\":%u,\"type\":\"%s\",\"runstates\":{", v->vid, type_name(v->type));
	for (i = 0; i < VMA_RS_COUNT; i++) {
		fprintf(out, "%s\"%s\":", i ? "," : "", vma_vcpu_runstate_name(i));
		json_cycles(out, c, &v->runstates[i], true);
	}
	fprintf(out, "},\"runnable\":{");
	for (i = 0; i < VMA_RUNNABLE_COUNT; i++) {
		fprintf(out, "%s\"%s\":", i ? "," : "", vma_runnable_kind_name(i));
		json_cycles(out, c, &v->runnable[i], true);
	}
	fprintf(out, "},\"cpu_affinity\":");
	json_cycles(out, c, &v->affinity_all, false);
	if (v->type == VMA_VCPU_HVM || v->type == VMA_VCPU_ARM)
		json_hvm(out, c, v->hvm.stats, v->type == VMA_VCPU_ARM);
	if (v->latency.exits)
		fprintf(out, ",\"exit_latency\":{\"exits\":%" PRIu64 ",\"avg\":%" PRIu64
			     ",\"max\":%" PRIu64 ",\"max_in_1ms\":%" PRIu64 "}",
			v->latency.exits, v->latency.total / v->latency.exits, v->latency.max,
			v->latency.max_window);
	else if (v->type == VMA_VCPU_PV)
		json_pv(out, &v->pv);
	fputc('}', out);
}

static void json_domain(FILE *out, const struct vma_summary_ctx *c, const struct vma_domain *d)
{
	bool first = true;
	uint32_t i;

	fprintf(out, "{\"id\":%u,\"runstates\":{", d->did);
	for (i = 0; i < VMA_DRS_COUNT; i++) {
		fprintf(out, "%s\"%s\":", i ? "," : "", vma_domain_runstate_name(i));
		json_cycles(out, c, &d->runstates[i], true);
	}
	fprintf(out, "},\"vcpus\":[");
	for (i = 0; i < d->nr_vcpus; i++) {
		if (!d->vcpus[i])
			continue;
		if (!first)
			fputc(',', out);
		json_vcpu(out, c, d->vcpus[i]);
		first = false;
	}
	fprintf(out, "]}");
}

int vma_report_json(FILE *out, const struct vma_machine *m, const struct vma_report_options *opts)
{
	struct vma_summary_ctx c = {
		.opts = opts,
		.hz = opts->cpu_hz ? opts->cpu_hz : 1,
		.svm = m->svm,
		.kvm = m->kvm,
		.unit = opts->clock_ns ? "ns" : "cyc",
		.total_cycles = m->have_time ? m->last_tsc - m->first_tsc : 0,
	};
	bool first = true;
	uint32_t i;

	fprintf(out,
		"{\"vmalyze\":\"%s\",\"schema\":1,\"clock\":{\"unit\":\"%s\",\"hz\":%" PRIu64
		"},\"vendor\":\"%s\",\"total_cycles\":%" PRIu64 ",\"total_seconds\":%.9f"
		",\"records\":%" PRIu64 ",\"lost_records\":%" PRIu64 ",\"pcpus\":[",
		PACKAGE_VERSION, opts->clock_ns ? "ns" : "cycles", c.hz, m->svm ? "svm" : "vmx",
		c.total_cycles, (double)c.total_cycles / (double)c.hz, m->records, m->lost_records);
	for (i = 0; i < m->nr_pcpus; i++) {
		const struct vma_pcpu *p = m->pcpus[i];

		if (!p)
			continue;
		fprintf(out, "%s{\"id\":%u,\"running\":", first ? "" : ",", i);
		json_cycles(out, &c, &p->time_running, true);
		fprintf(out, ",\"idle\":");
		json_cycles(out, &c, &p->time_idle, true);
		fprintf(out, ",\"lost\":");
		json_cycles(out, &c, &p->time_lost, true);
		fputc('}', out);
		first = false;
	}
	fprintf(out, "],\"domains\":[");
	first = true;
	for (i = 0; i < m->nr_domains; i++) {
		if (m->domains[i]->did == VMA_DEFAULT_DOMAIN)
			continue;
		if (!first)
			fputc(',', out);
		json_domain(out, &c, m->domains[i]);
		first = false;
	}
	fprintf(out, "]");
	if (m->kvm && opts->kvm_event_name) {
		fprintf(out, ",\"kvm_events\":{");
		first = true;
		for (i = 0; i < m->nr_kvm_counts; i++) {
			const char *name = opts->kvm_event_name(opts->kvm_event_name_arg, i);

			if (!m->kvm_counts[i])
				continue;
			fprintf(out, "%s", first ? "" : ",");
			json_string(out, name ? name : "(unknown)");
			fprintf(out, ":%" PRIu64, m->kvm_counts[i]);
			first = false;
		}
		fputc('}', out);
	}
	fprintf(out, "}\n");
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}
