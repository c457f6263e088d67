/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The summary as one CSV table (--csv): a row per trace, VM, vcpu and
 * exit reason or runstate, and after a batch the aggregate's rows, under
 * one header line.  Columns in doc/output.md; quoting as RFC 4180 says
 * (a field with a comma, quote or line break is quoted, quotes doubled),
 * so pandas, DuckDB and spreadsheets load it as is.
 */
#include <inttypes.h>
#include <string.h>

#include "vmalyze/aggregate.h"
#include "vmalyze/report.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/strbuf.h"

static const char header[] =
	"scope,file,member,platform,domain,vm,vcpu,kind,code,name,events,count,total,seconds,"
	"avg,p5,p50,p95,max,unit,hz,percentiles,vmm_pid,grouping,thread_id,thread_name\n";

/* One field and its separator; NULL is the empty field. */
static void field(FILE *out, const char *s, bool last)
{
	if (s && strpbrk(s, ",\"\r\n")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else if (s) {
		fputs(s, out);
	}
	fputc(last ? '\n' : ',', out);
}

/* Where a row belongs: the columns before kind. */
struct row_where {
	const char *scope, *file, *member, *platform;
	const struct vma_report_domain *dom; /* NULL: no domain, vm, vcpu */
	uint32_t vcpu;
	const struct vma_report_vcpu *v;     /* KVM's thread columns; NULL: none */
};

/* KVM: who the VM and vcpu are (empty for Xen and aggregate rows). */
static void kvm_columns(FILE *out, const struct row_where *w)
{
	const struct vma_report_domain *d = w->dom;

	if (d && d->pid)
		vma_fprintf(out, "%u,", d->pid);
	else
		fputc(',', out);
	field(out, d ? d->grouping : NULL, false);
	if (w->v && w->v->thread_id)
		vma_fprintf(out, "%u,", w->v->thread_id);
	else
		fputc(',', out);
	field(out, w->v ? w->v->thread_name : NULL, true);
}

static void row(FILE *out, const struct row_where *w, const char *kind, const char *code,
		const char *name, const struct vma_report_stat *s, enum vma_report_unit unit,
		uint64_t hz)
{
	field(out, w->scope, false);
	field(out, w->file, false);
	field(out, w->member, false);
	field(out, w->platform, false);
	if (w->dom) {
		vma_fprintf(out, "%u,", w->dom->id);
		field(out, w->dom->name ? w->dom->name : w->dom->comm, false);
		vma_fprintf(out, "%u,", w->vcpu);
	} else {
		fputs(",,,", out);
	}
	field(out, kind, false);
	field(out, code, false);
	field(out, name, false);
	vma_fprintf(out, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.9f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",",
		s->events, s->count, s->total, (double)s->total / (double)hz, s->mean, s->p5,
		s->p50,
		s->p95, s->max, unit == VMA_REPORT_NS ? "ns" : "cycles", hz);
	field(out, s->weight == VMA_CYCLES_BY_TIME ? "time" : "count", false);
	kvm_columns(out, w);
}

static void vcpu_rows(FILE *out, const struct vma_report *r, struct row_where *w,
		      const struct vma_report_vcpu *v)
{
	char code[16];
	uint32_t i;

	w->vcpu = v->id;
	w->v = v;
	for (i = 0; i < VMA_RS_COUNT; i++) {
		if (v->runstates[i].events) {
			row(out, w, "runstate", NULL, vma_vcpu_runstate_name((enum vma_runstate)i),
			    &v->runstates[i], r->unit, r->hz);
		}
	}
	for (i = 0; i < v->nr_exits; i++) {
		const struct vma_report_exit *x = &v->exits[i];

		if (!x->stat.events)
			continue;
		snprintf(code, sizeof(code), "%u", x->code);
		row(out, w, "exit", code, x->name, &x->stat, r->unit, r->hz);
	}
}

int vma_render_csv_header(FILE *out)
{
	fputs(header, out);
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}

int vma_render_csv(struct vma_render *ctx, const struct vma_report *r)
{
	struct row_where w = { "trace", ctx->file, ctx->member, vma_report_platform(r), NULL, 0,
				NULL };
	FILE *out = ctx->out;
	uint32_t d, v;

	if (!r->final)
		return VMA_OK;
	if (ctx->index == 0)
		fputs(header, out);
	for (d = 0; d < r->nr_domains; d++) {
		w.dom = &r->domains[d];
		for (v = 0; v < w.dom->nr_vcpus; v++) {
			const struct vma_report_vcpu *rv = vma_report_vcpu(r, w.dom, v);

			if (!rv)
				return VMA_ERR_NOMEM;
			vcpu_rows(out, r, &w, rv);
		}
	}
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}

/* The aggregate's rows; the header only when no trace printed it (a merge). */
int vma_render_aggregate_csv(FILE *out, const struct vma_aggregate_view *v, bool with_header)
{
	char code[16];
	uint32_t i;

	if (with_header)
		fputs(header, out);
	for (i = 0; i < v->nr_reasons; i++) {
		const struct vma_aggregate_reason *a = &v->reasons[i];
		struct row_where w = { "aggregate", NULL, NULL, a->platform, NULL, 0, NULL };

		snprintf(code, sizeof(code), "%u", a->code);
		row(out, &w, "exit", code, a->name, &a->stat, a->unit, a->hz);
	}
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}
