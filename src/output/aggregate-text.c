/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text section that ends a batch's summary (and is all `vmalyze merge`
 * prints): exit reasons across traces, the traces with the worst p95 of
 * each, exits per second of each VM, the failures.  Layout in
 * doc/output.md.
 */
#include <inttypes.h>

#include "vmalyze/aggregate.h"
#include "vmalyze/status.h"
#include "vmalyze/strbuf.h"

static void trace_name(FILE *out, const struct vma_aggregate_trace *t)
{
	fputs(t->file, out);
	if (t->member)
		vma_fprintf(out, ":%s", t->member);
}

static const char *unit_of(enum vma_report_unit unit)
{
	return unit == VMA_REPORT_NS ? "ns" : "cyc";
}

static void reasons(FILE *out, const struct vma_aggregate_view *v)
{
	uint32_t i;

	vma_fprintf(out, "--- Exit reasons across traces ---\n");
	for (i = 0; i < v->nr_reasons; i++) {
		const struct vma_aggregate_reason *r = &v->reasons[i];
		const struct vma_report_stat *s = &r->stat;

		vma_fprintf(out,
			" %-8s %-24s %5u %9" PRIu64 " %12.6fs %8" PRIu64 " %s "
									 "{%8" PRIu64 "|%8" PRIu64
			"|%8" PRIu64 "} max %" PRIu64 ", %u trace%s\n",
			r->platform, r->name ? r->name : "(unnamed)", r->code, s->events,
			(double)s->total / (double)r->hz, s->mean, unit_of(r->unit), s->p5, s->p50,
			s->p95, s->max, r->nr_traces, r->nr_traces == 1 ? "" : "s");
	}
}

static void worst(FILE *out, const struct vma_aggregate_view *v)
{
	uint32_t i, k;

	vma_fprintf(out, "--- Worst p95 per exit reason ---\n");
	for (i = 0; i < v->nr_reasons; i++) {
		const struct vma_aggregate_reason *r = &v->reasons[i];

		if (!r->nr_worst)
			continue;
		vma_fprintf(out, " %-8s %-24s %5u:", r->platform, r->name ? r->name : "(unnamed)",
			r->code);
		for (k = 0; k < r->nr_worst; k++) {
			vma_fprintf(out, "%s %" PRIu64 " %s ", k ? "," : "", r->worst[k].p95,
				unit_of(r->unit));
			trace_name(out, &v->traces[r->worst[k].trace]);
		}
		fputc('\n', out);
	}
}

static void vms(FILE *out, const struct vma_aggregate_view *v)
{
	uint32_t i, j;

	vma_fprintf(out, "--- Exits per second per VM ---\n");
	for (i = 0; i < v->nr_traces; i++) {
		const struct vma_aggregate_trace *t = &v->traces[i];
		double secs = t->hz ? (double)t->total / (double)t->hz : 0.0;

		for (j = 0; j < t->nr_vms; j++) {
			const struct vma_aggregate_vm *vm = &t->vms[j];

			fputc(' ', out);
			trace_name(out, t);
			vma_fprintf(out, " d%u", vm->id);
			if (vm->name)
				vma_fprintf(out, " (%s)", vm->name);
			vma_fprintf(out, ": %" PRIu64 " exits in %.6fs, %.1f/s\n", vm->exits, secs,
				secs > 0 ? (double)vm->exits / secs : 0.0);
		}
	}
}

static void failures(FILE *out, const struct vma_aggregate_view *v)
{
	uint32_t i;

	vma_fprintf(out, "--- Failures ---\n");
	if (!v->nr_failed)
		vma_fprintf(out, " (none)\n");
	for (i = 0; i < v->nr_traces; i++) {
		const struct vma_aggregate_trace *t = &v->traces[i];

		if (t->status == VMA_OK)
			continue;
		fputc(' ', out);
		trace_name(out, t);
		vma_fprintf(out, ": %s (%s)\n", vma_status_str(t->status),
			t->failed ? "not reported" : "what was read is reported");
	}
}

int vma_render_aggregate_text(FILE *out, const struct vma_aggregate_view *v)
{
	vma_fprintf(out, "=== aggregate: %u trace%s, %u failed, %" PRIu64 " records, %" PRIu64
		" lost ===\n",
		v->nr_traces, v->nr_traces == 1 ? "" : "s", v->nr_failed, v->records,
		v->lost_records);
	reasons(out, v);
	worst(out, v);
	vms(out, v);
	failures(out, v);
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}
