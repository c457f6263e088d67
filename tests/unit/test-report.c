/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report model and its interval clock: the builder's rows agree with
 * each other on a generated trace (an exit's handlers add up to it, every
 * distribution's figures are ordered), KVM event names come from the
 * driver's callback, and interval mode writes no rows for empty intervals,
 * so a jump of the time stamps to near 2^64 costs one group of rows.  The
 * renderers work on a report made by hand, with no machine behind it, and
 * a built report holds one vcpu's rows at a time, its totals summed from
 * the machine equal to those rows added up.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "cli/run.h"
#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/interval.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/report.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "test-record-util.h"
#include "xtw-file.h"

static const char *trace(const char *name)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/traces/%s", top ? top : TOP_SRCDIR, name);
	return path;
}

static void check_stat(const struct vma_report_stat *s)
{
	cr_assert_leq(s->count, s->events);
	if (!s->count)
		return;
	cr_assert_not_null(s->dist);
	cr_assert_eq(s->mean, s->total / s->count);
	cr_assert_leq(s->min, s->p5);
	cr_assert_leq(s->p5, s->p50);
	cr_assert_leq(s->p50, s->p95);
	cr_assert_leq(s->p95, s->max);
}

static const char *fixed_name(const void *arg, uint32_t kind)
{
	(void)kind;
	return arg;
}

static struct vma_report *build(struct vma_pipeline *p)
{
	struct vma_report_build how = {
		.hz = vma_pipeline_hz(p),
		.detail = VMA_REPORT_FULL,
		.final = true,
		.kvm_name = fixed_name,
		.kvm_name_arg = "named-by-driver",
	};

	return vma_report_create(vma_pipeline_machine(p), &how);
}

Test(report, rows_agree_with_each_other)
{
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	struct vma_pipeline_options opts = { .cpu_hz = 2400000000ull };
	struct vma_pipeline *p;
	struct vma_report *r;
	uint32_t d, v, x, k, exits = 0;

	cr_assert_eq(vma_pipeline_open(trace("gen-vmx-4cpu.xentrace"), &opts, diag, &p), VMA_OK);
	cr_assert_eq(vma_pipeline_run(p, NULL), VMA_OK);
	r = build(p);
	cr_assert_not_null(r);
	cr_assert(r->final && !r->kvm && !r->has_events);
	cr_assert_gt(r->nr_domains, 0);
	for (d = 0; d < r->nr_domains; d++) {
		for (v = 0; v < r->domains[d].nr_vcpus; v++) {
			const struct vma_report_vcpu *vc = vma_report_vcpu(r, &r->domains[d], v);

			cr_assert_not_null(vc);
			for (k = 0; k < VMA_RS_COUNT; k++)
				check_stat(&vc->runstates[k]);
			for (x = 0; x < vc->nr_exits; x++) {
				const struct vma_report_exit *e = &vc->exits[x];
				uint64_t events = 0, total = 0;

				check_stat(&e->stat);
				if (x)
					cr_assert_gt(e->code, vc->exits[x - 1].code);
				/* Every arc went to exactly one handler. */
				for (k = 0; k < e->nr_handlers; k++) {
					check_stat(&e->handlers[k].stat);
					events += e->handlers[k].stat.events;
					total += e->handlers[k].stat.total;
				}
				cr_assert_eq(total, e->stat.total, "exit %u", e->code);
				cr_assert_leq(events, e->stat.events);
				for (k = 0; k < e->nr_sublines; k++)
					check_stat(&e->sublines[k].stat);
				exits++;
			}
		}
	}
	cr_assert_gt(exits, 0);
	vma_report_destroy(r);
	vma_pipeline_close(p);
	vma_diag_destroy(diag);
}

Test(report, kvm_names_come_from_the_callback)
{
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	struct vma_pipeline_options opts = { .cpu_hz = 2400000000ull };
	struct vma_pipeline *p;
	struct vma_report *r;
	uint32_t i;

	cr_assert_eq(vma_pipeline_open(trace("kvm/vmx-v6.dat"), &opts, diag, &p), VMA_OK);
	cr_assert_eq(vma_pipeline_run(p, NULL), VMA_OK);
	r = build(p);
	cr_assert_not_null(r);
	cr_assert(r->kvm && r->has_events && r->unit == VMA_REPORT_CYCLES);
	cr_assert_gt(r->nr_events, 0);
	for (i = 0; i < r->nr_events; i++)
		cr_assert_str_eq(r->events[i].name, "named-by-driver");
	vma_report_destroy(r);
	vma_pipeline_close(p);
	vma_diag_destroy(diag);
}

Test(interval, clock_skips_empty_intervals)
{
	struct vma_interval_clock c;
	uint64_t end = 0;

	vma_interval_clock_init(&c, 1000, 0.001); /* one tick per interval */
	cr_assert_not(vma_interval_clock_tick(&c, 100, 100, &end));
	cr_assert(vma_interval_clock_tick(&c, 100, 101, &end));
	cr_assert_eq(end, 1);
	/* A jump to near 2^64: one interval ends, the empty ones are skipped. */
	cr_assert(vma_interval_clock_tick(&c, 100, UINT64_MAX - 5, &end));
	cr_assert_eq(end, 2);
	cr_assert_not(vma_interval_clock_tick(&c, 100, UINT64_MAX - 5, &end));
	/* A late record older than the first one ends nothing. */
	cr_assert_not(vma_interval_clock_tick(&c, 100, 50, &end));
}

/* -s -i 0.001 over a trace whose time stamps jump by ~2^64 ticks. */
Test(interval, a_time_stamp_gap_costs_one_group_of_rows, .timeout = 20)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	char path[] = "/tmp/vmalyze-report-XXXXXX", line[256];
	char a0[] = "vmalyze", a1[] = "-s", a2[] = "-i", a3[] = "0.001";
	char *argv[] = { a0, a1, a2, a3, path, NULL };
	struct vma_options opts;
	uint32_t word = 1;
	size_t lines = 0;
	FILE *out;

	cr_assert_not_null(w);
	cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_WAKE, 1000, &word, 1), 0);
	cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_WAKE, 2000, &word, 1), 0);
	cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_WAKE, UINT64_MAX - 4096, &word, 1), 0);
	xtw_to_temp_file(w, "/tmp/vmalyze-report-XXXXXX", path);

	cr_assert_eq(vma_options_parse(&opts, 5, argv, stderr), VMA_OK);
	out = tmpfile();
	cr_assert_not_null(out);
	cr_assert_eq(vma_run_file(&opts, path, diag, out), VMA_OK);
	rewind(out);
	while (fgets(line, sizeof(line), out))
		lines++;
	/* The header and at most a couple of groups: nothing per empty interval. */
	cr_assert_lt(lines, 10, "%zu lines", lines);
	fclose(out);
	unlink(path);
	vma_diag_destroy(diag);
}

/* Renderers read the model only: a report made by hand, with no machine. */
static struct vma_report_exit hand_exit = {
	.code = 52,
	.name = "VMX_PREEMPTION_TIMER_EXPIRED",
	.stat = { .events = 145, .count = 145, .total = 290, .mean = 2, .min = 1, .max = 3,
		  .p5 = 1, .p50 = 2, .p95 = 3 },
};
static struct vma_report_vcpu hand_vcpu = {
	.id = 0, .type = VMA_VCPU_HVM, .has_exits = true, .exits = &hand_exit, .nr_exits = 1,
};
static struct vma_report_domain hand_domain = { .id = 7, .vcpus = &hand_vcpu, .nr_vcpus = 1 };

static char *render_to_string(const char *format, struct vma_report *r)
{
	struct vma_render_options ro = { 0 };
	struct vma_render ctx = { .opts = &ro };
	const struct vma_renderer *rd = vma_renderer_find(format);
	char *buf = NULL;
	size_t len = 0;

	cr_assert_not_null(rd);
	ctx.out = open_memstream(&buf, &len);
	cr_assert_not_null(ctx.out);
	cr_assert_eq(rd->render(&ctx, r), VMA_OK);
	if (rd->release)
		rd->release(&ctx);
	fclose(ctx.out);
	return buf;
}

Test(report, renderers_need_no_machine)
{
	struct vma_report r = {
		.hz = 1000, .final = true, .total = 1000, .records = 3,
		.domains = &hand_domain, .nr_domains = 1,
	};
	char *text = render_to_string("text", &r), *json = render_to_string("json", &r);

	/* One space before a prefix-less unit. */
	cr_assert(strstr(text, "Total time: 1.00 seconds (using cpu speed 1000.00 Hz)\n"), "%s",
		  text);
	cr_assert(strstr(text, "|-- Domain 7 --|\n"), "%s", text);
	/* A name longer than the 20-column field pushes the numbers, as in xenalyze. */
	cr_assert(strstr(text, " VMX_PREEMPTION_TIMER_EXPIRED      145  0.29s 29.00%     2 cyc "
			       "{    1|    2|    3}\n"),
		  "%s", text);
	cr_assert(strstr(json, "{\"code\":52,\"name\":\"VMX_PREEMPTION_TIMER_EXPIRED\",\"cycles\":"
			       "{\"events\":145,\"count\":145,\"cycles\":290,"), "%s", json);
	free(text);
	free(json);
}

static void dispatch_on(struct vma_machine *m, uint32_t pcpu, uint64_t tsc, uint32_t event,
			int n, ...)
{
	struct vma_record rec;
	struct vma_outcome o;
	va_list ap;

	va_start(ap, n);
	vt_record(&rec, pcpu, tsc, event, n, ap);
	va_end(ap);
	cr_assert_eq(vma_dispatch(m, &rec, &o), VMA_OK);
}

/* A running stretch of d@did v0 on @pcpu from @tsc: its domain's run time moves at its end. */
static void run_stretch(struct vma_machine *m, uint32_t pcpu, uint32_t did, uint64_t tsc)
{
	dispatch_on(m, pcpu, tsc, TRC_SCHED_RUNSTATE_CHANGE | 1u << 8 | 0u << 4, 1, did << 16);
	dispatch_on(m, pcpu, tsc + 1000, TRC_SCHED_RUNSTATE_CHANGE | 0u << 8 | 1u << 4, 1,
		    did << 16);
}

static bool has_domain(const struct vma_report *r, uint32_t did)
{
	uint32_t i;

	for (i = 0; i < r->nr_domains; i++) {
		if (r->domains[i].id == did)
			return true;
	}
	return false;
}

/* -i builds each interval's report of the domains whose counters moved in it only. */
Test(report, changed_since_keeps_only_the_domains_that_moved)
{
	struct vma_diag *diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	struct vma_machine *m = vma_machine_create(diag, NULL);
	struct vma_report_build how = { .hz = 1000000000, .detail = VMA_REPORT_COUNTS };
	struct vma_report *r;

	cr_assert_not_null(m);
	cr_assert_eq(vma_machine_add_pcpu(m, 0), VMA_OK);
	cr_assert_eq(vma_machine_add_pcpu(m, 1), VMA_OK);
	run_stretch(m, 0, 1, 1000);
	how.changed_since = m->records;
	run_stretch(m, 1, 2, 5000);
	r = vma_report_create(m, &how);
	cr_assert_not_null(r);
	cr_assert(has_domain(r, 2));
	cr_assert_not(has_domain(r, 1), "d1 did not move since, but has rows");
	vma_report_destroy(r);
	how.changed_since = 0;
	r = vma_report_create(m, &how);
	cr_assert(has_domain(r, 1) && has_domain(r, 2));
	vma_report_destroy(r);
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
}

/* The full report, with the totals, of generated trace @name, read through *@p. */
static struct vma_report *totals_report(const char *name, struct vma_diag *diag,
					struct vma_pipeline **p)
{
	struct vma_pipeline_options opts = { .cpu_hz = 2400000000ull };
	struct vma_report_build how = { .hz = 2400000000ull, .detail = VMA_REPORT_FULL,
					.final = true, .totals = true };
	struct vma_report *r;

	cr_assert_eq(vma_pipeline_open(trace(name), &opts, diag, p), VMA_OK);
	cr_assert_eq(vma_pipeline_run(*p, NULL), VMA_OK);
	r = vma_report_create(vma_pipeline_machine(*p), &how);
	cr_assert_not_null(r);
	return r;
}

/* A vcpu's first exit as the rows show it, to compare two visits. */
struct vcpu_seen {
	uint32_t id, nr_exits;
	uint64_t first_events, first_p50;
};

static struct vcpu_seen seen(const struct vma_report_vcpu *v)
{
	struct vcpu_seen s = { v->id, v->nr_exits, 0, 0 };

	if (v->nr_exits) {
		s.first_events = v->exits[0].stat.events;
		s.first_p50 = v->exits[0].stat.p50;
	}
	return s;
}

/*
 * The report holds one vcpu's rows at a time (issue 12: a large host's
 * rows were most of the memory): none after it is made, even with the
 * totals summed over every vcpu, one while a renderer reads a vcpu, and a
 * vcpu visited again has the same rows.
 */
Test(report, holds_one_vcpus_rows_at_a_time)
{
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	const struct vma_report_vcpu *v;
	struct vcpu_seen first = { 0 }, again;
	struct vma_pipeline *p;
	struct vma_report *r;
	uint32_t d, j, visited = 0, fd = 0, fj = 0;

	r = totals_report("gen-vmx-4cpu.xentrace", diag, &p);
	cr_assert_eq(vma_report_vcpus_held(r), 0, "rows held before any visit");
	cr_assert_gt(r->totals.nr_exits, 0);
	for (d = 0; d < r->nr_domains; d++) {
		cr_assert_null(r->domains[d].vcpus, "domain %u holds its vcpus' rows", d);
		for (j = 0; j < r->domains[d].nr_vcpus; j++) {
			v = vma_report_vcpu(r, &r->domains[d], j);
			cr_assert_not_null(v);
			cr_assert_eq(vma_report_vcpus_held(r), 1, "after %u visits", visited + 1);
			visited++;
			if (first.nr_exits || !v->nr_exits)
				continue;
			first = seen(v);
			fd = d;
			fj = j;
		}
	}
	cr_assert_geq(visited, 4, "too few vcpus to tell");
	cr_assert_gt(first.nr_exits, 0);
	v = vma_report_vcpu(r, &r->domains[fd], fj);
	cr_assert_not_null(v);
	again = seen(v);
	cr_assert(!memcmp(&first, &again, sizeof(first)), "a second visit differs");
	cr_assert_eq(vma_report_vcpus_held(r), 1);
	cr_assert_null(vma_report_vcpu(r, &r->domains[fd], r->domains[fd].nr_vcpus));
	vma_report_destroy(r);
	vma_pipeline_close(p);
	vma_diag_destroy(diag);
}

/* Events and ticks of exit @code in rows @x (@n of them); 0 when absent. */
static void exit_sum(const struct vma_report_exit *x, uint32_t n, uint32_t code,
		     uint64_t *events, uint64_t *total)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (x[i].code != code)
			continue;
		*events += x[i].stat.events;
		*total += x[i].stat.total;
	}
}

static uint64_t totals_events(const struct vma_report_address *a, uint32_t n)
{
	uint64_t events = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		events += a[i].stat.events;
	return events;
}

/* Events of every vcpu's I/O (or, with @mmio, MMIO) rows, visited one by one. */
static uint64_t address_events(const struct vma_report *r, bool mmio)
{
	uint64_t events = 0;
	uint32_t d, j;

	for (d = 0; d < r->nr_domains; d++) {
		for (j = 0; j < r->domains[d].nr_vcpus; j++) {
			const struct vma_report_vcpu *v = vma_report_vcpu(r, &r->domains[d], j);

			cr_assert_not_null(v);
			events += mmio ? totals_events(v->mmio, v->nr_mmio)
				: totals_events(v->io, v->nr_io);
		}
	}
	return events;
}

/*
 * The VM and host-wide totals are summed from the machine, not from the
 * vcpu rows (which do not exist yet): each VM's row of an exit reason is
 * its vcpus' rows of it added up, and the host's is its VMs'.
 */
Test(report, totals_are_the_vcpus_rows_summed)
{
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	struct vma_pipeline *p;
	struct vma_report *r;
	uint32_t d, j, k, checked = 0;

	r = totals_report("gen-svm-4cpu.xentrace", diag, &p);
	for (k = 0; k < r->totals.nr_exits; k++) {
		const struct vma_report_exit *t = &r->totals.exits[k];
		uint64_t host_events = 0, host_total = 0;

		for (d = 0; d < r->nr_domains; d++) {
			const struct vma_report_domain *dom = &r->domains[d];
			uint64_t events = 0, total = 0, dom_events = 0, dom_total = 0;

			for (j = 0; j < dom->nr_vcpus; j++) {
				const struct vma_report_vcpu *v = vma_report_vcpu(r, dom, j);

				cr_assert_not_null(v);
				exit_sum(v->exits, v->nr_exits, t->code, &events, &total);
			}
			exit_sum(dom->totals.exits, dom->totals.nr_exits, t->code, &dom_events,
				 &dom_total);
			cr_assert_eq(dom_events, events, "domain %u exit %u", dom->id, t->code);
			cr_assert_eq(dom_total, total, "domain %u exit %u", dom->id, t->code);
			host_events += events;
			host_total += total;
		}
		cr_assert_eq(t->stat.events, host_events, "exit %u", t->code);
		cr_assert_eq(t->stat.total, host_total, "exit %u", t->code);
		cr_assert_not_null(t->name);
		checked++;
	}
	cr_assert_gt(checked, 1);
	cr_assert_eq(address_events(r, false), totals_events(r->totals.io, r->totals.nr_io));
	cr_assert_eq(address_events(r, true), totals_events(r->totals.mmio, r->totals.nr_mmio));
	cr_assert_gt(r->totals.nr_io + r->totals.nr_mmio, 0);
	vma_report_destroy(r);
	vma_pipeline_close(p);
	vma_diag_destroy(diag);
}
