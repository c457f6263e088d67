/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --format kvm-stat: perf kvm stat report's tables, host-wide, per VM and
 * per vcpu, for the table --event picks (exit reasons, MMIO addresses, I/O
 * ports, MSRs or hypercalls), in the order --sort picks, with the
 * percentiles and spread perf does not print.  A renderer over the report
 * model (report.h), which sums the VM and host-wide rows (.totals).
 *
 * Times are microseconds with two decimals, as perf prints them (a TSC
 * clock's cycles through its hz); the exact integers are in the JSON and
 * CSV summaries.  Avg carries perf's "( +- N% )", the standard error of
 * the mean relative to it; Stddev, after perf's columns, is the population
 * standard deviation of the samples.
 */
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/summary-internal.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/status.h"
#include "vmalyze/strbuf.h"

/* One row of a table, whatever it counts. */
struct row {
	char label[48];
	uint64_t key;
	const struct vma_report_stat *stat;
};

struct table {
	struct row *rows;
	size_t n;
};

static const char *const event_titles[] = {
	[VMA_STAT_EXIT] = "VM-EXIT",        [VMA_STAT_MMIO] = "MMIO Access",
	[VMA_STAT_IOPORT] = "IO Port Access", [VMA_STAT_MSR] = "MSR Access",
	[VMA_STAT_HYPERCALL] = "Hypercall",
};

static int by_sort(const void *pa, const void *pb, enum vma_stat_sort sort)
{
	const struct row *a = pa, *b = pb;
	uint64_t x = 0, y = 0;

	switch (sort) {
	case VMA_SORT_COUNT:
		x = a->stat->events, y = b->stat->events;
		break;
	case VMA_SORT_TIME:
		x = a->stat->total, y = b->stat->total;
		break;
	case VMA_SORT_MAX:
		x = a->stat->max, y = b->stat->max;
		break;
	}
	if (x != y)
		return x > y ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return strcmp(a->label, b->label);
}

static int by_count(const void *a, const void *b)
{
	return by_sort(a, b, VMA_SORT_COUNT);
}

static int by_time(const void *a, const void *b)
{
	return by_sort(a, b, VMA_SORT_TIME);
}

static int by_max(const void *a, const void *b)
{
	return by_sort(a, b, VMA_SORT_MAX);
}

static int add_exits(struct table *t, const struct vma_report_exit *x, uint32_t n)
{
	uint32_t i;

	t->rows = calloc(n ? n : 1, sizeof(*t->rows));
	if (!t->rows)
		return VMA_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		struct row *r = &t->rows[t->n++];

		if (x[i].name)
			snprintf(r->label, sizeof(r->label), "%s", x[i].name);
		else
			snprintf(r->label, sizeof(r->label), "exit %u", x[i].code);
		r->key = x[i].code;
		r->stat = &x[i].stat;
	}
	return VMA_OK;
}

/* perf's labels: 0xADDR:R/W for MMIO and MSRs, 0xPORT:PIN/POUT, the hypercall number. */
static int add_addresses(struct table *t, enum vma_stat_event ev,
			 const struct vma_report_address *a, uint32_t n)
{
	uint32_t i;

	t->rows = calloc(n ? n : 1, sizeof(*t->rows));
	if (!t->rows)
		return VMA_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		struct row *r = &t->rows[t->n++];
		const char *dir = ev == VMA_STAT_IOPORT ? (a[i].is_write ? "POUT" : "PIN")
							 : a[i].is_write ? "W" : "R";

		if (a[i].addr == VMA_SUB_OTHER && ev == VMA_STAT_HYPERCALL)
			snprintf(r->label, sizeof(r->label), "other");
		else if (a[i].addr == VMA_SUB_OTHER)
			snprintf(r->label, sizeof(r->label), "other:%s", dir);
		else if (ev == VMA_STAT_HYPERCALL)
			snprintf(r->label, sizeof(r->label), "%" PRIu64, a[i].addr);
		else
			snprintf(r->label, sizeof(r->label), "%#" PRIx64 ":%s", a[i].addr, dir);
		r->key = a[i].addr;
		r->stat = &a[i].stat;
	}
	return VMA_OK;
}

/* The rows --event picks out of an exit list and four address lists. */
static int pick(struct table *t, enum vma_stat_event ev, const struct vma_report_exit *x,
		uint32_t nx, const struct vma_report_address *const addr[4], const uint32_t na[4])
{
	if (ev == VMA_STAT_EXIT)
		return add_exits(t, x, nx);
	return add_addresses(t, ev, addr[ev - 1], na[ev - 1]);
}

/* Microseconds of @ticks in the report's clock. */
static double us(const struct vma_report *r, uint64_t ticks)
{
	return (double)ticks / ((double)r->hz / 1e6); /* ns: ticks / 1000, exactly */
}

/*
 * perf's "+-": the standard error of the mean (sample standard deviation
 * over sqrt(n)) as a percentage of the mean, from the population one.
 */
static double rel_error(const struct vma_report_stat *s)
{
	if (s->count < 2 || !s->mean)
		return 0.0;
	return 100.0 * (double)s->stddev / sqrt((double)(s->count - 1)) / (double)s->mean;
}

static void print_table(const struct vma_summary_ctx *c, enum vma_stat_event ev,
			enum vma_stat_sort sort, struct table *t)
{
	static int (*const cmp[])(const void *, const void *) = { by_count, by_time, by_max };
	const struct vma_report *r = c->report;
	uint64_t samples = 0, time = 0;
	FILE *out = c->out;
	size_t i;

	for (i = 0; i < t->n; i++) {
		samples += t->rows[i].stat->events;
		time += t->rows[i].stat->total;
	}
	if (t->n > 1) /* none: the rows may be NULL, which qsort may not get */
		qsort(t->rows, t->n, sizeof(*t->rows), cmp[sort]);
	/* perf's columns, then vmalyze's spread and percentiles */
	vma_fprintf(out, "%20s %10s %9s %9s %11s %11s %16s %9s %11s %11s %11s %11s\n\n",
		event_titles[ev], "Samples", "Samples%", "Time%", "Min Time", "Max Time",
		"Avg time", "", "Stddev", "P5", "P50", "P95");
	for (i = 0; i < t->n; i++) {
		const struct vma_report_stat *s = t->rows[i].stat;

		vma_fprintf(out,
			"%20s %10" PRIu64 " %8.2f%% %8.2f%% %9.2fus %9.2fus %9.2fus ( +-%7.2f%% )"
			" %9.2fus %9.2fus %9.2fus %9.2fus\n",
			t->rows[i].label, s->events,
			samples ? 100.0 * (double)s->events / (double)samples : 0.0,
			time ? 100.0 * (double)s->total / (double)time : 0.0, us(r, s->min),
			us(r, s->max), us(r, s->mean), rel_error(s), us(r, s->stddev),
			us(r, s->p5), us(r, s->p50), us(r, s->p95));
	}
	vma_fprintf(out, "\nTotal Samples:%" PRIu64 ", Total events handled time:%.2fus.\n\n",
		samples, us(r, time));
}

static int section(const struct vma_summary_ctx *c, const struct vma_render_options *o,
		   const char *title, const struct vma_report_exit *x, uint32_t nx,
		   const struct vma_report_address *const addr[4], const uint32_t na[4])
{
	struct table t = { 0 };
	int rc;

	rc = pick(&t, o->stat_event, x, nx, addr, na);
	if (rc == VMA_OK) {
		vma_fprintf(c->out, "Analyze events for %s:\n\n", title);
		print_table(c, o->stat_event, o->stat_sort, &t);
	}
	free(t.rows);
	return rc;
}

/* "VM 0 (qemu-system-x86, pid 483882)"; a Xen domain is "domain N". */
static void vm_title(char *buf, size_t len, const struct vma_report *r,
		     const struct vma_report_domain *d)
{
	if (!r->kvm)
		snprintf(buf, len, "domain %u", d->id);
	else
		vma_summary_vm_name(buf, len, d);
}

/* The table of one vcpu (@v NULL: out of memory), under VM title @vm. */
static int vcpu_section(const struct vma_summary_ctx *c, const struct vma_render_options *o,
			const char *vm, const struct vma_report_vcpu *v)
{
	char title[256], thread[96] = "";

	if (!v)
		return VMA_ERR_NOMEM;
	if (!v->nr_exits)
		return VMA_OK;
	{
		const struct vma_report_address *const va[4] = { v->mmio, v->io, v->msr, v->hcall };
		const uint32_t vn[4] = { v->nr_mmio, v->nr_io, v->nr_msr, v->nr_hcall };

		vma_summary_thread(thread, sizeof(thread), v);
		snprintf(title, sizeof(title), "%s, VCPU %u%s", vm, v->id, thread);
		return section(c, o, title, v->exits, v->nr_exits, va, vn);
	}
}

int vma_render_kvm_stat(struct vma_render *ctx, const struct vma_report *r)
{
	struct vma_summary_ctx c = {
		.out = ctx->out,
		.report = r,
		.unit = r->unit == VMA_REPORT_NS ? "ns" : "cyc",
	};
	const struct vma_render_options *o = ctx->opts;
	char title[256], vm[160];
	uint32_t i, j;
	int rc;

	if (!r->final)
		return VMA_OK;
	{
		const struct vma_report_totals *t = &r->totals;
		const struct vma_report_address *const addr[4] = { t->mmio, t->io, t->msr,
								   t->hcall };
		const uint32_t na[4] = { t->nr_mmio, t->nr_io, t->nr_msr, t->nr_hcall };

		rc = section(&c, o, r->filtered ? "the VMs and VCPUs kept (--vm, --vcpu)"
			     : "all VMs, all VCPUs", t->exits, t->nr_exits, addr, na);
	}
	for (i = 0; rc == VMA_OK && i < r->nr_domains; i++) {
		const struct vma_report_domain *d = &r->domains[i];
		const struct vma_report_totals *t = &d->totals;
		const struct vma_report_address *const addr[4] = { t->mmio, t->io, t->msr,
								   t->hcall };
		const uint32_t na[4] = { t->nr_mmio, t->nr_io, t->nr_msr, t->nr_hcall };

		if (!t->nr_exits)
			continue;
		vm_title(vm, sizeof(vm), r, d);
		snprintf(title, sizeof(title), "%s, %s", vm,
			 r->filtered ? "the VCPUs kept" : "all VCPUs");
		rc = section(&c, o, title, t->exits, t->nr_exits, addr, na);
		for (j = 0; rc == VMA_OK && j < d->nr_vcpus; j++)
			rc = vcpu_section(&c, o, vm, vma_report_vcpu(r, d, j));
	}
	if (rc == VMA_OK)
		vma_summary_worst(&c);
	if (rc)
		return rc;
	return ferror(ctx->out) ? VMA_ERR_OUTPUT : VMA_OK;
}
