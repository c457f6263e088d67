/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rows of a machine's memory budget (cycles.h, struct
 * vma_rows_budget): tables that grow with the distinct keys a trace shows
 * charge their rows to one budget shared by every vcpu; past its limit
 * new keys are summed in "other" rows, so the rows stay bounded while
 * every count and sum stays exact; below it nothing differs from no
 * limit; the report says when it was reached (text, JSON); and IPIs
 * outstanding are such a table.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/report.h"
#include "vmalyze/state-handlers.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

#define NV 64       /* vcpus sharing one budget */
#define KEYS 200    /* distinct ports each, under one exit reason (< VMA_MAX_SUBS) */
#define ROUNDS 3
#define LIMIT (64u << 10)

static struct vma_hvm_inflight refinement(uint32_t handler, uint64_t key, bool is_write)
{
	struct vma_hvm_inflight in;

	memset(&in, 0, sizeof(in));
	in.handler = handler;
	in.key = key;
	in.is_write = is_write;
	return in;
}

/*
 * Vcpu @v of @st: ROUNDS times, KEYS ports read and written (exit 30),
 * a cpuid (exit 10), and an injection of one of 200 vectors with a
 * wake-to-halt time each.
 */
static void feed(struct vma_hvm_stats *st, uint32_t v)
{
	uint32_t k, i;

	for (k = 0; k < ROUNDS; k++) {
		for (i = 0; i < KEYS; i++) {
			struct vma_hvm_inflight io = refinement(TRC_HVM_IOPORT_READ + (i & 1),
								0x1000u + v * KEYS + i, i & 1);
			struct vma_hvm_inflight cpuid = refinement(TRC_HVM_CPUID, 1, false);
			uint32_t vec = 32 + (i + v) % 200;

			vma_hvm_stats_add_arc(st, 30, &io, i + 1);
			vma_hvm_stats_add_arc(st, 10, &cpuid, 7);
			vma_hvm_stats_count_irq(st, vec);
			vma_hvm_stats_add_w2h(st, vec, VMA_W2H_INTR, 100 + i);
		}
	}
}

struct sums {
	uint64_t events, cycles, subs, other_subs;
	uint64_t irqs, irq_rows, w2h_events, w2h_cycles;
};

/* What @st holds, summed over its rows; its reasons' counters checked against their subs. */
static void sum_up(const struct vma_hvm_stats *st, struct sums *s)
{
	uint32_t r, k;

	for (r = 0; r < st->nr_reasons; r++) {
		const struct vma_exit_stats *e = &st->reasons[r];
		uint64_t events = 0, cycles = 0;

		for (k = 0; k < e->nr_subs; k++) {
			events += e->subs[k].cycles.events;
			cycles += e->subs[k].cycles.cycles;
			s->other_subs += e->subs[k].key == VMA_SUB_OTHER;
		}
		cr_assert_eq(events, e->cycles.events, "reason %u: its subs' events", e->reason);
		cr_assert_eq(cycles, e->cycles.cycles, "reason %u: its subs' cycles", e->reason);
		s->events += e->cycles.events;
		s->cycles += e->cycles.cycles;
		s->subs += e->nr_subs;
	}
	for (r = 0; r < st->nr_irqs; r++) {
		s->irqs += st->irqs[r].count;
		s->irq_rows++;
		if (st->irqs[r].w2h) {
			s->w2h_events += st->irqs[r].w2h->cases[VMA_W2H_INTR].events;
			s->w2h_cycles += st->irqs[r].w2h->cases[VMA_W2H_INTR].cycles;
		}
	}
}

/* NV vcpus fed as feed() says, charged to a budget whose rows' limit is @limit (0: none). */
static void run(size_t limit, struct vma_cycles_budget *b, struct vma_hvm_stats **st)
{
	uint32_t v;

	vma_cycles_budget_init(b, 0);
	b->rows.limit = limit;
	for (v = 0; v < NV; v++) {
		st[v] = vma_hvm_stats_create(b);
		cr_assert_not_null(st[v]);
	}
	for (v = 0; v < NV; v++)
		feed(st[v], v);
}

Test(rows_budget, keys_past_the_limit_are_summed_in_other_rows)
{
	struct vma_hvm_stats *st[NV];
	struct vma_cycles_budget b;
	struct sums s = { 0 };
	uint64_t io_cycles = 0;
	uint32_t v, i;

	run(LIMIT, &b, st);
	for (v = 0; v < NV; v++)
		sum_up(st[v], &s);
	for (i = 0; i < KEYS; i++)
		io_cycles += i + 1;
	/* Every arc, injection and wake-to-halt time is there. */
	cr_assert_eq(s.events, (uint64_t)NV * ROUNDS * KEYS * 2);
	cr_assert_eq(s.cycles, (uint64_t)NV * ROUNDS * (io_cycles + 7 * KEYS));
	cr_assert_eq(s.irqs, (uint64_t)NV * ROUNDS * KEYS);
	cr_assert_eq(s.w2h_events, (uint64_t)NV * ROUNDS * KEYS);
	cr_assert_eq(s.w2h_cycles, (uint64_t)NV * ROUNDS * (io_cycles + 99 * KEYS));
	/* ... in fewer rows: the budget refused some, and said so. */
	cr_assert(vma_rows_reached(&b), "a budget of %u bytes was not reached", LIMIT);
	cr_assert_gt(b.rows.folded, 0);
	cr_assert_gt(s.other_subs, 0, "no port went to an other row");
	cr_assert_lt(s.subs, (uint64_t)NV * KEYS, "every port has its own row");
	/*
	 * Bounded: what was granted past the limit is a vcpu's first exit
	 * reasons and its "other" rows, at most one of each table (under 1
	 * KiB a vcpu here), and the rows held are well under what every key
	 * would take.
	 */
	cr_assert_leq(b.rows.peak, LIMIT + b.rows.over);
	cr_assert_leq(b.rows.over, (size_t)NV * 1024, "over by %zu", b.rows.over);
	cr_assert_lt(s.subs * sizeof(struct vma_exit_sub), 2 * (size_t)LIMIT);
	for (v = 0; v < NV; v++)
		vma_hvm_stats_destroy(st[v]);
	cr_assert_eq(b.rows.used, 0, "charges and credits disagree by %zu", b.rows.used);
}

/*
 * One vcpu's refinements alone: eight keys fill the table, then the limit
 * falls below what it holds.  Each arc of a new key is then one fold,
 * into the "other" entry that the least used key became, and the table
 * grows no more.
 */
Test(rows_budget, new_refinements_past_the_limit_fold_in_place)
{
	struct vma_cycles_budget b;
	struct vma_hvm_stats *st;
	const struct vma_exit_stats *e;
	uint64_t folded, used, others = 0, events = 0;
	uint32_t i, k;

	vma_cycles_budget_init(&b, 0);
	st = vma_hvm_stats_create(&b);
	cr_assert_not_null(st);
	/* Key 0x60 once, the others twice: 0x60 is the least used. */
	for (i = 0; i < 8; i++) {
		struct vma_hvm_inflight io = refinement(TRC_HVM_IOPORT_READ, 0x60 + i, false);

		for (k = 0; k < (i ? 2u : 1u); k++)
			vma_hvm_stats_add_arc(st, 30, &io, 10 + i);
	}
	e = &st->reasons[0];
	cr_assert_eq(e->nr_subs, 8);
	cr_assert_eq(e->cap_subs, 8, "the table is not full: %u slots", e->cap_subs);
	b.rows.limit = 1;
	folded = b.rows.folded;
	used = b.rows.used;
	for (k = 0; k < 50; k++) {
		struct vma_hvm_inflight io = refinement(TRC_HVM_IOPORT_READ, 0x1000 + k, false);

		vma_hvm_stats_add_arc(st, 30, &io, 5);
	}
	cr_assert(vma_rows_reached(&b));
	cr_assert_eq(b.rows.folded - folded, 50, "%llu folds for 50 new keys",
		     (unsigned long long)(b.rows.folded - folded));
	cr_assert_eq(b.rows.used, used, "the table grew past its budget");
	cr_assert_eq(e->nr_subs, 8);
	for (i = 0; i < e->nr_subs; i++) {
		others += e->subs[i].key == VMA_SUB_OTHER;
		events += e->subs[i].cycles.events;
		/* the least used key is the one that became the other entry */
		cr_assert_neq(e->subs[i].key, 0x60);
	}
	cr_assert_eq(others, 1);
	cr_assert_eq(events, 1 + 7 * 2 + 50);
	vma_hvm_stats_destroy(st);
}

/* Below its limit the budget changes nothing: the same tables as with none. */
Test(rows_budget, below_the_limit_nothing_changes)
{
	struct vma_hvm_stats *a[NV], *c[NV];
	struct vma_cycles_budget none, big;
	uint32_t v, r, k;

	run(0, &none, a);
	run((size_t)1 << 30, &big, c);
	cr_assert_not(vma_rows_reached(&big));
	cr_assert_eq(none.rows.used, big.rows.used);
	cr_assert_eq(big.rows.over, 0);
	for (v = 0; v < NV; v++) {
		cr_assert_eq(a[v]->nr_reasons, c[v]->nr_reasons);
		cr_assert_eq(a[v]->nr_irqs, c[v]->nr_irqs);
		for (r = 0; r < a[v]->nr_reasons; r++) {
			const struct vma_exit_stats *x = &a[v]->reasons[r], *y = &c[v]->reasons[r];

			cr_assert_eq(x->reason, y->reason);
			cr_assert_eq(x->nr_subs, y->nr_subs);
			for (k = 0; k < x->nr_subs; k++) {
				cr_assert_eq(x->subs[k].key, y->subs[k].key);
				cr_assert_neq(x->subs[k].key, VMA_SUB_OTHER);
				cr_assert_eq(x->subs[k].cycles.cycles, y->subs[k].cycles.cycles);
			}
		}
		for (r = 0; r < a[v]->nr_irqs; r++) {
			cr_assert_eq(a[v]->irqs[r].vector, c[v]->irqs[r].vector);
			cr_assert_eq(a[v]->irqs[r].count, c[v]->irqs[r].count);
		}
		vma_hvm_stats_destroy(a[v]);
		vma_hvm_stats_destroy(c[v]);
	}
}

static const char *trace(const char *name)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/traces/%s", top ? top : TOP_SRCDIR, name);
	return path;
}

/* A report of @name read with a rows' budget of @rows bytes (SIZE_MAX: none), rendered. */
static char *render(const char *name, size_t rows, const char *format, struct vma_pipeline **p,
		    struct vma_report **r)
{
	struct vma_pipeline_options opts = { .cpu_hz = 2400000000ull, .rows_budget = rows };
	struct vma_report_build how = { .hz = 2400000000ull, .detail = VMA_REPORT_FULL,
					.final = true };
	struct vma_diag *diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	struct vma_render_options ro = { 0 };
	struct vma_render ctx = { .opts = &ro };
	const struct vma_renderer *rd = vma_renderer_find(format);
	char *buf = NULL;
	size_t len = 0;

	cr_assert_not_null(rd);
	cr_assert_eq(vma_pipeline_open(trace(name), &opts, diag, p), VMA_OK);
	cr_assert_eq(vma_pipeline_run(*p, NULL), VMA_OK);
	*r = vma_report_create(vma_pipeline_machine(*p), &how);
	cr_assert_not_null(*r);
	ctx.out = open_memstream(&buf, &len);
	cr_assert_eq(rd->render(&ctx, *r), VMA_OK);
	if (rd->release)
		rd->release(&ctx);
	fclose(ctx.out);
	return buf;
}

/* Per vcpu of @m: its exits' events and cycles, its injections and its cpu affinity. */
static void vcpu_totals(const struct vma_machine *m, uint64_t *out, size_t n)
{
	size_t at = 0;
	uint32_t d, j, r;

	for (d = 0; d < m->nr_domains; d++) {
		for (j = 0; j < m->domains[d]->nr_vcpus; j++) {
			const struct vma_vcpu *v = m->domains[d]->vcpus[j];
			const struct vma_hvm_stats *st =
				v->type == VMA_VCPU_HVM ? v->hvm.stats : NULL;
			uint64_t ev = 0, cy = 0, irqs = 0;

			for (r = 0; st && r < st->nr_reasons; r++) {
				ev += st->reasons[r].cycles.events;
				cy += st->reasons[r].cycles.cycles;
			}
			for (r = 0; st && r < st->nr_irqs; r++)
				irqs += st->irqs[r].count;
			cr_assert_leq(at + 5, n);
			out[at++] = ev;
			out[at++] = cy;
			out[at++] = irqs;
			out[at++] = v->affinity_all.events;
			out[at++] = v->affinity_all.cycles;
		}
	}
}

/* A generated trace through the pipeline: the same totals in fewer rows, and the report says so. */
Test(rows_budget, a_trace_keeps_its_totals_and_the_report_says_so)
{
	static uint64_t with[4096], without[4096];
	struct vma_pipeline *p, *q;
	struct vma_report *r, *s;
	char *text = render("gen-vmx-4cpu.xentrace", 2048, "text", &p, &r);
	char *free_text = render("gen-vmx-4cpu.xentrace", SIZE_MAX, "text", &q, &s);
	char *json;

	cr_assert(r->folding.reduced);
	cr_assert_gt(r->folding.events, 0);
	cr_assert_eq(r->folding.budget, 2048);
	cr_assert(strstr(text, "Memory budget of 0.0 MiB for rows reached at "), "%s", text);
	cr_assert(strstr(text, "other"), "no other row");
	cr_assert_not(s->folding.reduced);
	cr_assert_null(strstr(free_text, "for rows reached"));
	memset(with, 0, sizeof(with));
	memset(without, 0, sizeof(without));
	vcpu_totals(vma_pipeline_machine(p), with, 4096);
	vcpu_totals(vma_pipeline_machine(q), without, 4096);
	cr_assert_arr_eq(with, without, sizeof(with), "a vcpu's totals changed");
	vma_report_destroy(r);
	vma_pipeline_close(p);
	free(text);
	json = render("gen-vmx-4cpu.xentrace", 2048, "json", &p, &r);
	cr_assert(strstr(json, ",\"rows\":{\"memory_budget\":2048,\"reached_seconds\":"), "%.400s",
		  json);
	cr_assert_null(strstr(free_text, "\"rows\""));
	vma_report_destroy(r);
	vma_pipeline_close(p);
	vma_report_destroy(s);
	vma_pipeline_close(q);
	free(json);
	free(free_text);
}

/*
 * IPIs outstanding are rows too: a domain whose 16 vcpus each get all 256
 * vectors by broadcast and never take them holds 256 entries a vcpu with
 * no limit, and past a limit an IPI that finds no room is not followed.
 */
static size_t ipi_room(size_t limit, uint64_t *folded)
{
	struct vma_machine_options o = { .rows_budget = limit ? limit : SIZE_MAX };
	struct vma_diag *diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	struct vma_machine *m = vma_machine_create(diag, &o);
	struct vma_vcpu *v[16];
	size_t room = 0;
	uint32_t i, vec;

	cr_assert_not_null(m);
	for (i = 0; i < 16; i++) {
		v[i] = vma_vcpu_get(m, 1, i);
		cr_assert_not_null(v[i]);
	}
	/* "all but self" shorthand (ICR bits 18-19 = 3) with each vector */
	for (vec = 0; vec < 256; vec++)
		vma_vlapic_icr_write(m, v[0], 3u << 18 | vec, 1000 + vec);
	for (i = 0; i < 16; i++)
		room += v[i]->ipis.cap * sizeof(*v[i]->ipis.list);
	*folded = m->budget.rows.folded;
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
	return room;
}

/*
 * @room_of(limit, &folded) is the room a host held with a rows' limit
 * (0: none): @unlimited without one, and no more than an 8 KiB limit with
 * one, past which what found no room is counted as folded keys.
 */
static void held_as_rows(size_t (*room_of)(size_t, uint64_t *), size_t unlimited)
{
	uint64_t folded;
	size_t room = room_of(0, &folded);

	cr_expect_eq(room, unlimited, "%zu", room);
	cr_expect_eq(folded, 0);
	room = room_of(8u << 10, &folded);
	cr_expect_leq(room, 8u << 10, "past the limit no room is added (%zu)", room);
	cr_expect_gt(folded, 0, "what found no room is counted as folded keys");
}

Test(rows_budget, ipis_outstanding_are_rows)
{
	held_as_rows(ipi_room, 15u * 256 * sizeof(struct vma_ipi_outstanding));
}

/*
 * So are the start times of interrupts waiting for a halt (wake-to-halt):
 * 16 vcpus each injected every vector hold 256 of them a vcpu with no
 * limit; past a limit a vector with no room gets no time to halt.
 */
static size_t w2h_room(size_t limit, uint64_t *folded)
{
	struct vma_machine_options o = { .rows_budget = limit ? limit : SIZE_MAX };
	struct vma_diag *diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	struct vma_machine *m = vma_machine_create(diag, &o);
	struct vma_vcpu *v;
	size_t room = 0, used;
	uint32_t i, vec;

	cr_assert_not_null(m);
	for (i = 0; i < 16; i++) {
		v = vma_vcpu_get(m, 1, i);
		cr_assert_not_null(v);
		cr_assert(vma_vcpu_set_type(v, VMA_VCPU_HVM));
		for (vec = 0; vec < 256; vec++)
			vma_hvm_count_injection(v, vec);
		cr_assert_not_null(v->hvm.w2h);
		room += v->hvm.w2h->cap_starts * sizeof(*v->hvm.w2h->starts);
	}
	*folded = m->budget.rows.folded;
	used = m->budget.rows.used;
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
	cr_assert_geq(used, room, "the start times are charged to the rows");
	return room;
}

Test(rows_budget, wake_to_halt_start_times_are_rows)
{
	held_as_rows(w2h_room, 16u * 256 * sizeof(struct vma_w2h_start));
}
