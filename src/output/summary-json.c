/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The summary as one JSON document (--json); the schema is in
 * doc/output.md.  A renderer over the report model (report.h): the same
 * rows and numbers as the text summary, with the raw counts and cycles
 * where the text rounds to seconds.
 */
#include <inttypes.h>

#include "config.h"
#include "output/summary-internal.h"
#include "vmalyze/aggregate.h"
#include "vmalyze/report.h"
#include "vmalyze/status.h"
#include "output/json-string.h"
#include "vmalyze/strbuf.h"

static const char *unit_name(const struct vma_report *r)
{
	return r->unit == VMA_REPORT_NS ? "ns" : "cycles";
}

/*
 * A duration summary in a clock of @hz; its percentiles are weighted as
 * the builder chose.  "cycles" and "avg_cycles" keep their names for
 * scripts; with @unit (KVM reports) "unit" says what they count (ns or
 * cycles) and min, max and stddev follow (doc/output.md).
 */
static void json_stat_unit(FILE *out, uint64_t hz, const char *unit,
			   const struct vma_report_stat *s)
{
	vma_fprintf(out,
		"{\"events\":%" PRIu64 ",\"count\":%" PRIu64 ",\"cycles\":%" PRIu64
		",\"seconds\":%.9f,\"avg_cycles\":%" PRIu64 ",\"p5\":%" PRIu64 ",\"p50\":%" PRIu64
		",\"p95\":%" PRIu64 ",\"percentiles\":\"%s\"",
		s->events, s->count, s->total, (double)s->total / (double)hz, s->mean, s->p5,
		s->p50, s->p95,
		s->weight == VMA_CYCLES_BY_TIME ? "time-weighted" : "count-weighted");
	if (unit) {
		vma_fprintf(out, ",\"unit\":\"%s\",\"min\":%" PRIu64 ",\"max\":%" PRIu64
			     ",\"stddev\":%" PRIu64, unit, s->min, s->max, s->stddev);
	}
	fputc('}', out);
}

static void json_stat_hz(FILE *out, uint64_t hz, const struct vma_report_stat *s)
{
	json_stat_unit(out, hz, NULL, s);
}

static void json_stat(FILE *out, const struct vma_report *r, const struct vma_report_stat *s)
{
	json_stat_unit(out, r->hz, r->kvm ? unit_name(r) : NULL, s);
}

/* Interrupted EIPs or their buckets, @key each, and the array's and object's ends. */
static void json_eips(FILE *out, const char *key, const struct vma_report_eip *e, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (e[i].other)
			vma_fprintf(out, "%s{\"%s\":\"other\"", i ? "," : "", key);
		else
			vma_fprintf(out, "%s{\"%s\":%" PRIu64, i ? "," : "", key, e[i].eip);
		vma_fprintf(out, ",\"count\":%" PRIu64 "}", e[i].count);
	}
	vma_fprintf(out, "]}");
}

/* --with-cr3-enumeration: the domain's CR3s by first load (doc/output.md). */
static void json_cr3s(FILE *out, const struct vma_report *r, const struct vma_report_domain *d)
{
	uint32_t i, j;

	vma_fprintf(out, ",\"cr3s\":[");
	for (i = 0; i < d->nr_cr3s; i++) {
		const struct vma_report_cr3 *c = &d->cr3s[i];

		vma_fprintf(out, "%s{\"gmfn\":%" PRIu64 ",\"id\":%u,\"first_seconds\":%.9f,"
			     "\"last_seconds\":%.9f,\"switches\":%" PRIu64 ",\"flushes\":%" PRIu64
			     ",\"run_cycles\":%" PRIu64 ",\"total\":",
			i ? "," : "", c->gmfn, c->id, vma_report_seconds(r, c->first),
			vma_report_seconds(r, c->last), c->switches, c->flushes, c->run_time);
		json_stat(out, r, &c->total);
		vma_fprintf(out, ",\"guest\":");
		json_stat(out, r, &c->guest);
		vma_fprintf(out, ",\"hv\":");
		json_stat(out, r, &c->hv);
		vma_fprintf(out, ",\"hv_by_category\":{");
		for (j = 0; j < VMA_XCAT_COUNT; j++) {
			vma_fprintf(out, "%s\"%s\":", j ? "," : "", vma_xinterval_category_name(j));
			json_stat(out, r, &c->hv_by[j]);
		}
		fputs("}}", out);
	}
	fputc(']', out);
}

/* vm-trace's figures, under @key. */
static void json_latency(FILE *out, const struct vma_report *r, const char *key,
			 const struct vma_report_latency *l)
{
	vma_fprintf(out, ",\"%s\":{\"unit\":\"%s\",\"exits\":%" PRIu64 ",\"avg\":%" PRIu64
		     ",\"max\":%" PRIu64 ",\"max_in_1ms\":%" PRIu64 "}",
		key, unit_name(r), l->exits, l->mean, l->max, l->max_window);
}

static void json_string_or_null(FILE *out, const char *s)
{
	if (s)
		vma_json_string(out, s);
	else
		vma_fprintf(out, "null");
}

static void json_exit(FILE *out, const struct vma_report *r, const struct vma_report_exit *x)
{
	uint32_t k;

	vma_fprintf(out, "{\"code\":%u,\"name\":", x->code);
	if (x->name)
		vma_json_string(out, x->name);
	else
		vma_fprintf(out, "null");
	vma_fprintf(out, ",\"cycles\":");
	json_stat(out, r, &x->stat);
	vma_fprintf(out, ",\"handlers\":[");
	for (k = 0; k < x->nr_handlers; k++) {
		const struct vma_report_handler *h = &x->handlers[k];

		vma_fprintf(out, "%s{\"handler\":", k ? "," : "");
		vma_json_string(out, h->name);
		vma_fprintf(out, ",\"key\":%" PRIu64 ",\"write\":%s,\"cycles\":", h->key,
			h->is_write ? "true" : "false");
		json_stat(out, r, &h->stat);
		fputc('}', out);
	}
	vma_fprintf(out, "]}");
}

static void json_hvm(FILE *out, const struct vma_report *r, const struct vma_report_vcpu *v)
{
	uint32_t i;

	vma_fprintf(out, ",\"exits\":[");
	for (i = 0; i < v->nr_exits; i++) {
		if (i)
			fputc(',', out);
		json_exit(out, r, &v->exits[i]);
	}
	vma_fprintf(out, "],\"guest_interrupts\":{");
	for (i = 0; i < v->nr_irqs; i++) {
		if (v->irqs[i].vector == VMA_IRQ_OTHER) {
			vma_fprintf(out, "%s\"other\":%" PRIu64, i ? "," : "", v->irqs[i].count);
			continue;
		}
		vma_fprintf(out, "%s\"%u%s\":%" PRIu64, i ? "," : "", v->irqs[i].vector,
			v->irqs[i].vector == VMA_GUEST_VECTORS ? "+" : "", v->irqs[i].count);
	}
	fputc('}', out);
	if (v->ipi_latency.events) {
		vma_fprintf(out, ",\"ipi_latency\":");
		json_stat(out, r, &v->ipi_latency);
	}
	if (v->has_eip_histogram) {
		vma_fprintf(out,
			    ",\"interrupt_eip_histogram\":{\"vector\":%u,\"increment\":%" PRIu64
			     ",\"buckets\":[", v->eip_histogram_vector, v->eip_histogram_increment);
		json_eips(out, "start", v->eip_histogram, v->nr_eip_histogram);
	}
}

static void json_pv(FILE *out, const struct vma_report_vcpu *v)
{
	bool first = true;
	uint32_t i;

	vma_fprintf(out, ",\"pv_events\":{");
	for (i = 0; i < v->nr_pv_events; i++) {
		const struct vma_report_pv_event *ev = &v->pv_events[i];
		char buf[32];

		if (!ev->count)
			continue; /* a line that only the subcalls made */
		if (!first)
			fputc(',', out);
		if (ev->name) {
			vma_json_string(out, ev->name);
		} else {
			snprintf(buf, sizeof(buf), "pv_event %u", ev->minor);
			vma_json_string(out, buf);
		}
		vma_fprintf(out, ":%" PRIu64, ev->count);
		first = false;
	}
	vma_fprintf(out, "},\"hypercalls\":{");
	for (i = 0; i < v->nr_hypercalls; i++) {
		if (v->hypercalls[i].op == VMA_PV_OTHER)
			vma_fprintf(out, "%s\"other\":%" PRIu64, i ? "," : "",
				    v->hypercalls[i].count);
		else
			vma_fprintf(out, "%s\"%u\":%" PRIu64, i ? "," : "", v->hypercalls[i].op,
				v->hypercalls[i].count);
	}
	fputc('}', out);
	if (!v->nr_traps)
		return; /* most PV traces: no trap records */
	vma_fprintf(out, ",\"traps\":{");
	for (i = 0; i < v->nr_traps; i++) {
		if (v->traps[i].trap == VMA_PV_OTHER)
			vma_fprintf(out, "%s\"other\":%" PRIu64, i ? "," : "", v->traps[i].count);
		else
			vma_fprintf(out, "%s\"%u\":%" PRIu64, i ? "," : "", v->traps[i].trap,
				v->traps[i].count);
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

static void json_vcpu(FILE *out, const struct vma_report *r, const struct vma_report_vcpu *v)
{
	uint32_t i;

	vma_fprintf(out, "{\"id\":%u,\"type\":\"%s\",\"runstates\":{", v->id, type_name(v->type));
	for (i = 0; i < VMA_RS_COUNT; i++) {
		vma_fprintf(out, "%s\"%s\":", i ? "," : "", vma_vcpu_runstate_name(i));
		json_stat(out, r, &v->runstates[i]);
	}
	vma_fprintf(out, "},\"runnable\":{");
	for (i = 0; i < VMA_RUNNABLE_COUNT; i++) {
		vma_fprintf(out, "%s\"%s\":", i ? "," : "", vma_runnable_kind_name(i));
		json_stat(out, r, &v->runnable[i]);
	}
	vma_fprintf(out, "},\"cpu_affinity\":");
	json_stat(out, r, &v->affinity);
	if (v->type == VMA_VCPU_HVM || v->type == VMA_VCPU_ARM)
		json_hvm(out, r, v);
	if (r->kvm && v->thread_id) {
		vma_fprintf(out, ",\"thread_id\":%u,\"thread_name\":", v->thread_id);
		json_string_or_null(out, v->thread_name);
		vma_fprintf(out, ",\"guest_mapped\":%s", v->guest_mapped ? "true" : "false");
	}
	if (v->latency.exits) {
		json_latency(out, r, "exit_latency", &v->latency);
		json_latency(out, r, "exit_latency_nohalt", &v->latency_nohalt);
	} else if (v->type == VMA_VCPU_PV) {
		json_pv(out, v);
	}
	fputc('}', out);
}

/* One address table of @t under @key: perf kvm stat's --event rows. */
static void json_addresses(FILE *out, const struct vma_report *r, const char *key,
			   const struct vma_report_address *a, uint32_t n)
{
	uint32_t i;

	vma_fprintf(out, ",\"%s\":[", key);
	for (i = 0; i < n; i++) {
		vma_fprintf(out, "%s{\"key\":%" PRIu64 ",\"write\":%s,\"cycles\":", i ? "," : "",
			a[i].addr, a[i].is_write ? "true" : "false");
		json_stat(out, r, &a[i].stat);
		fputc('}', out);
	}
	fputc(']', out);
}

/*
 * KVM: the exit reasons and addresses summed over several vcpus (a VM's,
 * or every one kept), the rows kvm-stat's VM and host-wide tables print,
 * in exact integers of the clock's unit.
 */
static void json_totals(FILE *out, const struct vma_report *r, const struct vma_report_totals *t)
{
	uint32_t i;

	if (!r->kvm)
		return;
	vma_fprintf(out, ",\"exit_totals\":{\"unit\":\"%s\",\"exits\":[", unit_name(r));
	for (i = 0; i < t->nr_exits; i++) {
		const struct vma_report_exit *x = &t->exits[i];

		vma_fprintf(out, "%s{\"code\":%u,\"name\":", i ? "," : "", x->code);
		json_string_or_null(out, x->name);
		vma_fprintf(out, ",\"cycles\":");
		json_stat(out, r, &x->stat);
		fputc('}', out);
	}
	fputc(']', out);
	json_addresses(out, r, "mmio", t->mmio, t->nr_mmio);
	json_addresses(out, r, "io", t->io, t->nr_io);
	json_addresses(out, r, "msr", t->msr, t->nr_msr);
	json_addresses(out, r, "hypercalls", t->hcall, t->nr_hcall);
	fputc('}', out);
}

/* One domain's object, its vcpus one at a time.  Return: VMA_OK or VMA_ERR_NOMEM. */
static int json_domain(FILE *out, const struct vma_report *r, const struct vma_report_domain *d)
{
	uint32_t i;

	vma_fprintf(out, "{\"id\":%u,", d->id);
	if (r->kvm) {
		vma_fprintf(out, "\"name\":");
		json_string_or_null(out, d->name);
		vma_fprintf(out, ",\"vmm_pid\":%u,\"vmm_name\":", d->pid);
		json_string_or_null(out, d->comm);
		vma_fprintf(out, ",\"grouping\":");
		json_string_or_null(out, d->grouping);
		fputc(',', out);
	}
	vma_fprintf(out, "\"runstates\":{");
	for (i = 0; i < VMA_DRS_COUNT; i++) {
		vma_fprintf(out, "%s\"%s\":", i ? "," : "", vma_domain_runstate_name(i));
		json_stat(out, r, &d->runstates[i]);
	}
	fputc('}', out);
	if (d->latency.exits) {
		json_latency(out, r, "exit_latency", &d->latency);
		json_latency(out, r, "exit_latency_nohalt", &d->latency_nohalt);
	}
	json_totals(out, r, &d->totals);
	vma_fprintf(out, ",\"vcpus\":[");
	for (i = 0; i < d->nr_vcpus; i++) {
		const struct vma_report_vcpu *v = vma_report_vcpu(r, d, i);

		if (!v)
			return VMA_ERR_NOMEM;
		if (i)
			fputc(',', out);
		json_vcpu(out, r, v);
	}
	fputc(']', out);
	if (d->nr_emulate_eips) {
		vma_fprintf(out, ",\"emulate_eips\":[");
		for (i = 0; i < d->nr_emulate_eips; i++) {
			if (d->emulate_eips[i].other) {
				vma_fprintf(out, "%s{\"eip\":\"other\",\"cycles\":", i ? "," : "");
			} else {
				vma_fprintf(out, "%s{\"eip\":%" PRIu64 ",\"cycles\":", i ? "," : "",
					d->emulate_eips[i].eip);
			}
			json_stat(out, r, &d->emulate_eips[i].stat);
			fputc('}', out);
		}
		fputc(']', out);
	}
	if (d->has_interrupt_eips) {
		vma_fprintf(out,
			",\"interrupt_eips\":{\"vector\":%u,\"samples\":%" PRIu64 ",\"eips\":[",
			d->interrupt_eip_vector, d->interrupt_eip_total);
		json_eips(out, "eip", d->interrupt_eips, d->nr_interrupt_eips);
	}
	if (d->has_cr3s)
		json_cr3s(out, r, d);
	fputc('}', out);
	return VMA_OK;
}

/* KVM: each VM's time on this host cpu, in guest mode and in exits. */
static void json_pcpu_vms(FILE *out, const struct vma_report *r, const struct vma_report_pcpu *p)
{
	uint32_t i;

	if (!r->kvm)
		return;
	vma_fprintf(out, ",\"vms\":[");
	for (i = 0; i < p->nr_vms; i++) {
		vma_fprintf(out,
			    "%s{\"vm\":%u,\"unit\":\"%s\",\"guest\":%" PRIu64 ",\"exits\":%" PRIu64
			     "}", i ? "," : "", p->vms[i].domain, unit_name(r), p->vms[i].guest,
			p->vms[i].exits);
	}
	fputc(']', out);
}

/* --top: "worst_exits", longest first; time stamps in the trace's own clock. */
static void json_worst(FILE *out, const struct vma_report *r)
{
	uint32_t i;

	if (!r->worst)
		return;
	vma_fprintf(out, ",\"worst_exits\":[");
	for (i = 0; i < r->nr_worst; i++) {
		const struct vma_report_worst *w = &r->worst[i];
		char what[64];

		vma_fprintf(out, "%s{\"tsc\":%" PRIu64 ",\"seconds\":%.9f,\"unit\":\"%s\""
			     ",\"length\":%" PRIu64 ",\"domain\":%u,\"vcpu\":%u,\"reason\":%u"
			     ",\"reason_name\":",
			i ? "," : "", w->tsc,
			vma_report_seconds(r, w->tsc >= r->first_tsc ? w->tsc - r->first_tsc : 0),
			unit_name(r), w->ticks, w->domain, w->vcpu, w->reason);
		json_string_or_null(out, w->reason_name);
		vma_summary_refinement(what, sizeof(what), w);
		vma_fprintf(out, ",\"rip\":%" PRIu64 ",\"refinement\":", w->rip);
		vma_json_string(out, what);
		vma_fprintf(out, ",\"key\":%" PRIu64 ",\"write\":%s}", w->key,
			w->is_write ? "true" : "false");
	}
	fputc(']', out);
}

/* "precision": what the memory budget took, only when it took something. */
static void precision_json(FILE *out, const struct vma_report *r)
{
	const struct vma_report_precision *p = &r->precision;

	if (!p->reduced)
		return;
	vma_fprintf(out,
		",\"precision\":{\"memory_budget\":%" PRIu64 ",\"reached_seconds\":%.9f"
		",\"reached_record\":%" PRIu64 ",\"buckets_per_octave\":%u,\"relative_error\":%.7f"
		",\"exact_limit\":%u,\"early_sketches\":%" PRIu64 ",\"compact_summaries\":%" PRIu64
		",\"peak_bytes\":%" PRIu64 "}",
		p->budget, vma_report_seconds(r, p->at), p->at_record, p->per_octave, p->error,
		p->exact_limit, p->early, p->compacts, p->peak);
}

/* "rows": what the rows' part of the memory budget took, only when it took something. */
static void folding_json(FILE *out, const struct vma_report *r)
{
	const struct vma_report_folding *f = &r->folding;

	if (!f->reduced)
		return;
	vma_fprintf(out,
		",\"rows\":{\"memory_budget\":%" PRIu64 ",\"reached_seconds\":%.9f"
		",\"reached_record\":%" PRIu64 ",\"other_events\":%" PRIu64
		",\"peak_bytes\":%" PRIu64 "}",
		f->budget, vma_report_seconds(r, f->at), f->at_record, f->events, f->peak);
}

int vma_render_json(struct vma_render *ctx, const struct vma_report *r)
{
	FILE *out = ctx->out;
	uint32_t i;

	if (!r->final)
		return VMA_OK;
	fputc('{', out);
	if (ctx->batch) {
		vma_fprintf(out, "\"file\":");
		vma_json_string(out, ctx->file);
		vma_fprintf(out, ",\"member\":");
		if (ctx->member)
			vma_json_string(out, ctx->member);
		else
			vma_fprintf(out, "null");
		fputc(',', out);
	}
	vma_fprintf(out,
		    "\"vmalyze\":\"%s\",\"schema\":1,\"clock\":{\"unit\":\"%s\",\"hz\":%" PRIu64
		     "},", PACKAGE_VERSION, unit_name(r), r->hz);
	/* A KVM trace without exits does not say its vendor. */
	if (!r->kvm || r->vendor_known)
		vma_fprintf(out, "\"vendor\":\"%s\",", r->svm ? "svm" : "vmx");
	vma_fprintf(out,
		"\"total_cycles\":%" PRIu64 ",\"total_seconds\":%.9f"
		",\"records\":%" PRIu64 ",\"lost_records\":%" PRIu64,
		r->total, vma_report_seconds(r, r->total), r->records, r->lost_records);
	precision_json(out, r);
	folding_json(out, r);
	vma_fprintf(out, ",\"pcpus\":[");
	for (i = 0; i < r->nr_pcpus; i++) {
		const struct vma_report_pcpu *p = &r->pcpus[i];

		vma_fprintf(out, "%s{\"id\":%u,\"running\":", i ? "," : "", p->id);
		json_stat(out, r, &p->running);
		vma_fprintf(out, ",\"idle\":");
		json_stat(out, r, &p->idle);
		vma_fprintf(out, ",\"lost\":");
		json_stat(out, r, &p->lost);
		json_pcpu_vms(out, r, p);
		fputc('}', out);
	}
	vma_fprintf(out, "],\"domains\":[");
	/* --show-default-domain-summary: the default domain first. */
	if (r->default_domain && json_domain(out, r, r->default_domain))
		return VMA_ERR_NOMEM;
	for (i = 0; i < r->nr_domains; i++) {
		if (i || r->default_domain)
			fputc(',', out);
		if (json_domain(out, r, &r->domains[i]))
			return VMA_ERR_NOMEM;
	}
	vma_fprintf(out, "]");
	if (r->has_events) {
		vma_fprintf(out, ",\"kvm_events\":{");
		for (i = 0; i < r->nr_events; i++) {
			if (i)
				fputc(',', out);
			vma_json_string(out, r->events[i].name);
			vma_fprintf(out, ":%" PRIu64, r->events[i].count);
		}
		fputc('}', out);
	}
	json_totals(out, r, &r->totals);
	json_worst(out, r);
	vma_fprintf(out, "}\n");
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}

/*
 * The aggregate document that ends a batch's JSON Lines: the traces'
 * totals, every exit reason across traces with its worst traces, the
 * exits per second of each VM of each trace, and the failures.
 */
int vma_render_aggregate_json(FILE *out, const struct vma_aggregate_view *v)
{
	uint32_t i, j, k;
	bool first = true;

	vma_fprintf(out,
		"{\"aggregate\":true,\"vmalyze\":\"%s\",\"schema\":1,\"traces\":%u,\"failed\":%u"
		",\"records\":%" PRIu64 ",\"lost_records\":%" PRIu64 ",\"exit_reasons\":[",
		PACKAGE_VERSION, v->nr_traces, v->nr_failed, v->records, v->lost_records);
	for (i = 0; i < v->nr_reasons; i++) {
		const struct vma_aggregate_reason *r = &v->reasons[i];

		vma_fprintf(out, "%s{\"platform\":\"%s\",\"code\":%u,\"name\":", i ? "," : "",
			r->platform, r->code);
		json_string_or_null(out, r->name);
		vma_fprintf(out,
			",\"clock\":{\"unit\":\"%s\",\"hz\":%" PRIu64 "},\"traces\":%u,\"cycles\":",
			r->unit == VMA_REPORT_NS ? "ns" : "cycles", r->hz, r->nr_traces);
		json_stat_hz(out, r->hz, &r->stat);
		vma_fprintf(out, ",\"max\":%" PRIu64 ",\"worst_p95\":[", r->stat.max);
		for (k = 0; k < r->nr_worst; k++) {
			const struct vma_aggregate_trace *t = &v->traces[r->worst[k].trace];

			vma_fprintf(out, "%s{\"file\":", k ? "," : "");
			vma_json_string(out, t->file);
			vma_fprintf(out, ",\"member\":");
			json_string_or_null(out, t->member);
			vma_fprintf(out, ",\"p95\":%" PRIu64 "}", r->worst[k].p95);
		}
		vma_fprintf(out, "]}");
	}
	vma_fprintf(out, "],\"vms\":[");
	for (i = 0; i < v->nr_traces; i++) {
		const struct vma_aggregate_trace *t = &v->traces[i];
		double secs = t->hz ? (double)t->total / (double)t->hz : 0.0;

		for (j = 0; j < t->nr_vms; j++) {
			vma_fprintf(out, "%s{\"file\":", first ? "" : ",");
			first = false;
			vma_json_string(out, t->file);
			vma_fprintf(out, ",\"member\":");
			json_string_or_null(out, t->member);
			vma_fprintf(out, ",\"domain\":%u,\"name\":", t->vms[j].id);
			json_string_or_null(out, t->vms[j].name);
			vma_fprintf(out,
				",\"exits\":%" PRIu64 ",\"seconds\":%.9f,"
				"\"exits_per_second\":%.3f}",
				t->vms[j].exits, secs,
				secs > 0 ? (double)t->vms[j].exits / secs : 0.0);
		}
	}
	vma_fprintf(out, "],\"failures\":[");
	first = true;
	for (i = 0; i < v->nr_traces; i++) {
		const struct vma_aggregate_trace *t = &v->traces[i];

		if (t->status == VMA_OK)
			continue;
		vma_fprintf(out, "%s{\"file\":", first ? "" : ",");
		first = false;
		vma_json_string(out, t->file);
		vma_fprintf(out, ",\"member\":");
		json_string_or_null(out, t->member);
		vma_fprintf(out, ",\"status\":");
		vma_json_string(out, vma_status_str(t->status));
		vma_fprintf(out, ",\"reported\":%s}", t->failed ? "false" : "true");
	}
	vma_fprintf(out, "]}\n");
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}
