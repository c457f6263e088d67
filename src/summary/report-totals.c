/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's VM and host-wide totals (perf kvm stat's tables, KVM's
 * JSON): the vcpus' exit and address rows summed per key, their
 * distributions merged into summaries the report owns.  They are summed
 * when the report is made, before any renderer visits a vcpu (kvm-stat
 * prints the host's table first), from the machine's summaries with no
 * vcpu rows built.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/grow.h"
#include "summary/report-build.h"

/* A row of totals being summed: its key and the merge of its members. */
struct acc {
	uint64_t key;
	bool is_write;
	const char *name;
	struct vma_cycles *sum;
	uint64_t bare_events;  /* events of members with no distribution (all zero-length) */
};

struct acc_set {
	struct acc *rows;
	size_t n, cap;
};

/* The row of (@key, @is_write) in @set, added when new; NULL when out of memory. */
static struct acc *acc_row(struct vma_report_builder *b, struct acc_set *set, uint64_t key,
			   bool is_write, const char *name)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		if (set->rows[i].key == key && set->rows[i].is_write == is_write)
			break;
	}
	if (i == set->n) {
		if (vma_grow(set->rows, &set->cap, set->n + 1, 16)) {
			b->failed = true;
			return NULL;
		}
		memset(&set->rows[i], 0, sizeof(set->rows[i]));
		set->rows[i].key = key;
		set->rows[i].is_write = is_write;
		set->rows[i].name = name;
		set->rows[i].sum = vma_report_owned_cycles(b);
		if (!set->rows[i].sum)
			return NULL;
		set->n++;
	}
	return &set->rows[i];
}

static void acc_add(struct vma_report_builder *b, struct acc_set *set, uint64_t key, bool is_write,
		    const char *name, const struct vma_report_stat *st)
{
	struct acc *a = acc_row(b, set, key, is_write, name);

	if (!a)
		return;
	if (st->dist)
		vma_cycles_merge(a->sum, st->dist, NULL);
	else
		a->bare_events += st->events;
}

/*
 * An exit reason of a vcpu into @set: its counters, and its samples,
 * which its subs keep (struct vma_exit_stats), straight into the row's
 * sum: the same as adding the whole summary.
 */
static void acc_reason(struct vma_report_builder *b, struct acc_set *set, const char *name,
		       const struct vma_exit_stats *e)
{
	struct acc *a = acc_row(b, set, e->reason, false, name);
	struct vma_cycles counts = vma_cycles_of_counts(&e->cycles);
	uint32_t k;

	if (!a)
		return;
	if (!e->cycles.count) {
		a->bare_events += e->cycles.events;
		return;
	}
	vma_cycles_merge(a->sum, &counts, NULL);
	for (k = 0; k < e->nr_subs; k++)
		vma_cycles_merge_samples(a->sum, &e->subs[k].cycles, NULL);
}

static int by_acc_key(const void *pa, const void *pb)
{
	const struct acc *x = pa, *y = pb;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (int)x->is_write - (int)y->is_write;
}

static void acc_stat(struct vma_report_builder *b, struct vma_report_stat *st, const struct acc *a)
{
	vma_report_fill_stat(b, st, a->sum, VMA_CYCLES_BY_COUNT);
	st->events += a->bare_events;
}

static void acc_exits(struct vma_report_builder *b, struct acc_set *set,
		      struct vma_report_exit **out, uint32_t *nr)
{
	size_t i;

	if (set->n > 1) /* none: the rows may be NULL, which qsort may not get */
		qsort(set->rows, set->n, sizeof(*set->rows), by_acc_key);
	*out = vma_report_rows(b, set->n, sizeof(**out));
	for (i = 0; *out && i < set->n; i++) {
		(*out)[i].code = (uint32_t)set->rows[i].key;
		(*out)[i].name = set->rows[i].name;
		acc_stat(b, &(*out)[i].stat, &set->rows[i]);
	}
	*nr = *out ? (uint32_t)set->n : 0;
	free(set->rows);
}

static void acc_addresses(struct vma_report_builder *b, struct acc_set *set,
			  struct vma_report_address **out, uint32_t *nr)
{
	size_t i;

	if (set->n > 1) /* none: the rows may be NULL, which qsort may not get */
		qsort(set->rows, set->n, sizeof(*set->rows), by_acc_key);
	*out = vma_report_rows(b, set->n, sizeof(**out));
	for (i = 0; *out && i < set->n; i++) {
		(*out)[i].addr = set->rows[i].key;
		(*out)[i].is_write = set->rows[i].is_write;
		acc_stat(b, &(*out)[i].stat, &set->rows[i]);
	}
	*nr = *out ? (uint32_t)set->n : 0;
	free(set->rows);
}

/* The five tables of struct vma_report_totals, being summed. */
struct acc_totals {
	struct acc_set exits, io, mmio, msr, hcall;
};

static void acc_address_rows(struct vma_report_builder *b, struct acc_set *set,
			     const struct vma_report_address *rows, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		acc_add(b, set, rows[i].addr, rows[i].is_write, NULL, &rows[i].stat);
}

static void acc_totals_add(struct vma_report_builder *b, struct acc_totals *t,
			   const struct vma_report_exit *exits, uint32_t nr_exits,
			   const struct vma_report_address *const rows[4], const uint32_t nr[4])
{
	struct acc_set *sets[4] = { &t->io, &t->mmio, &t->msr, &t->hcall };
	uint32_t i;

	for (i = 0; i < nr_exits; i++)
		acc_add(b, &t->exits, exits[i].code, false, exits[i].name, &exits[i].stat);
	for (i = 0; i < 4; i++)
		acc_address_rows(b, sets[i], rows[i], nr[i]);
}

static void acc_totals_end(struct vma_report_builder *b, struct acc_totals *t,
			   struct vma_report_totals *out)
{
	acc_exits(b, &t->exits, &out->exits, &out->nr_exits);
	acc_addresses(b, &t->io, &out->io, &out->nr_io);
	acc_addresses(b, &t->mmio, &out->mmio, &out->nr_mmio);
	acc_addresses(b, &t->msr, &out->msr, &out->nr_msr);
	acc_addresses(b, &t->hcall, &out->hcall, &out->nr_hcall);
}

/* The exit and address rows of @t, added to @into. */
static void acc_totals_merge(struct vma_report_builder *b, struct acc_totals *into,
			     const struct vma_report_totals *t)
{
	const struct vma_report_address *const rows[4] = { t->io, t->mmio, t->msr, t->hcall };
	const uint32_t nr[4] = { t->nr_io, t->nr_mmio, t->nr_msr, t->nr_hcall };

	acc_totals_add(b, into, t->exits, t->nr_exits, rows, nr);
}

/* What the totals take of a machine summary: its events and distribution. */
static struct vma_report_stat sum_of(const struct vma_cycles *c)
{
	return (struct vma_report_stat){ .events = c->events, .dist = c->count ? c : NULL };
}

/* An address sub of a vcpu into its VM's table @t. */
static void acc_sub(struct vma_report_builder *b, void *arg, unsigned int t,
		    const struct vma_exit_sub *s)
{
	struct acc_totals *dom = arg;
	struct acc_set *sets[VMA_REPORT_ADDRESS_TABLES] = { &dom->io, &dom->mmio, &dom->msr,
							    &dom->hcall };
	const struct vma_report_stat st = sum_of(&s->cycles);

	if (!b->failed)
		acc_add(b, sets[t], s->key, s->is_write, NULL, &st);
}

/*
 * Vcpu @j of @d into @dom, straight from the machine's summaries, with no
 * vcpu rows built: its exit reasons, and its address subs as they are
 * (merging is exact in any grouping, cycles.h, so this is the sum of its
 * address rows).
 */
static void acc_vcpu(struct vma_report_builder *b, struct acc_totals *dom,
		     const struct vma_report_domain *d, uint32_t j)
{
	const struct vma_vcpu *v = vma_report_source_vcpu(b->r, d, j);
	const struct vma_hvm_stats *st;
	uint32_t r;

	if (!v) {
		b->failed = true;
		return;
	}
	st = vma_report_exit_table(v);
	for (r = 0; st && r < st->nr_reasons; r++) {
		const struct vma_exit_stats *e = &st->reasons[r];

		acc_reason(b, &dom->exits, vma_report_exit_name(b, v, e->reason), e);
	}
	vma_report_address_subs(b, v, acc_sub, dom);
}

/* perf kvm stat's VM and host-wide tables: the vcpus' exits and addresses summed. */
void vma_report_build_totals(struct vma_report_builder *b)
{
	struct vma_report *r = b->r;
	struct acc_totals host = { 0 };
	uint32_t i, j;

	for (i = 0; i < r->nr_domains; i++) {
		struct vma_report_domain *d = &r->domains[i];
		struct acc_totals dom = { 0 };

		for (j = 0; j < d->nr_vcpus; j++)
			acc_vcpu(b, &dom, d, j);
		acc_totals_end(b, &dom, &d->totals);
		acc_totals_merge(b, &host, &d->totals);
	}
	acc_totals_end(b, &host, &r->totals);
}

void vma_report_free_totals(struct vma_report_totals *t)
{
	free(t->exits);
	free(t->io);
	free(t->mmio);
	free(t->msr);
	free(t->hcall);
}
