/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report builder (report.h): walks the machine model once and fills
 * the rows every renderer reads, with the percentiles computed here, so
 * every renderer sees the same rows.  This file builds the machine's,
 * pcpus' and domains' rows and owns the report's memory; a vcpu's rows
 * are report-vcpu.c's, the VM and host-wide totals report-totals.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/arm-names.h"
#include "vmalyze/grow.h"
#include "vmalyze/report.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/worst.h"
#include "vmalyze/xen-names.h"
#include "summary/report-build.h"

/* Which machine vcpus a domain row's vcpu rows come from. */
struct source {
	const struct vma_domain *d;
	uint32_t *vids;       /* indices into d->vcpus, one per kept vcpu */
};

/*
 * What the report owns besides its rows, and what it needs to build a
 * vcpu's rows after vma_report_create() returned: the machine (through
 * the builder's sources), a copy of the build's settings, and the one
 * vcpu whose rows exist now.
 */
struct vma_report_priv {
	struct vma_report_owned owned;      /* the totals' merged summaries */
	struct vma_report_owned vcpu_owned; /* those of the vcpu held */
	struct vma_report_build how;
	struct vma_report_builder b;
	struct source *sources;             /* by domain row */
	struct source default_source;
	struct vma_report_vcpu cur;         /* the vcpu visited last ... */
	const struct vma_report_domain *cur_domain; /* ... of this domain (NULL: none) */
	uint32_t cur_index;
};

void *vma_report_rows(struct vma_report_builder *b, size_t n, size_t size)
{
	void *p;

	if (!n)
		return NULL;
	p = calloc(n, size);
	if (!p)
		b->failed = true;
	return p;
}

static struct vma_cycles *owned_new(struct vma_report_builder *b, struct vma_report_owned *o)
{
	struct vma_cycles *c;

	if (vma_grow(o->v, &o->cap, o->nr + 1, 64)) {
		b->failed = true;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		b->failed = true;
		return NULL;
	}
	o->v[o->nr++] = c;
	return c;
}

struct vma_cycles *vma_report_owned_cycles(struct vma_report_builder *b)
{
	return owned_new(b, b->owned);
}

struct vma_cycles *vma_report_vcpu_cycles(struct vma_report_builder *b)
{
	return owned_new(b, b->vcpu_owned);
}

/* @parts' samples (@n summaries, @stride bytes apart) into @t. */
static void merge_parts(struct vma_cycles *t, const void *parts, size_t stride, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		vma_cycles_merge_samples(t, (const struct vma_cycles *)((const char *)parts +
									 i * stride), NULL);
	}
}

const struct vma_cycles *vma_report_whole(struct vma_report_builder *b,
					  const struct vma_cycles *whole, const void *parts,
					  size_t stride, uint32_t n)
{
	struct vma_cycles *t;

	if (!b->full || !whole->count)
		return whole;
	t = vma_report_vcpu_cycles(b);
	if (!t)
		return whole;
	vma_cycles_merge(t, whole, NULL);
	merge_parts(t, parts, stride, n);
	return t;
}

void vma_report_owned_release(struct vma_report_owned *o)
{
	size_t k;

	for (k = 0; k < o->nr; k++) {
		vma_cycles_release(o->v[k], NULL);
		free(o->v[k]);
	}
	o->nr = 0;
}

/*
 * Percentiles of a summary the report only reads.  In exact mode the
 * accumulator sorts its samples to answer; that reorders, but does not
 * change, what it holds.
 */
void vma_report_stat_fill(struct vma_report_stat *st, const struct vma_cycles *c,
			  enum vma_cycles_weight w, bool full)
{
	static const uint32_t pct[3] = { 5, 50, 95 };
	struct vma_cycles *s = (struct vma_cycles *)c;
	uint64_t q[3];

	memset(st, 0, sizeof(*st));
	st->events = c->events;
	st->count = c->count;
	st->total = c->cycles;
	st->mean = vma_cycles_mean(c);
	st->weight = w;
	if (!full || !c->count)
		return;
	/* One walk of the samples for the three (vma_cycles_quantiles()). */
	vma_cycles_quantiles(s, w, pct, 3, 100, q);
	st->p5 = q[0];
	st->p50 = q[1];
	st->p95 = q[2];
	st->min = vma_cycles_min(c);
	st->max = vma_cycles_max(c);
	st->dist = c;
}

void vma_report_fill_stat(const struct vma_report_builder *b, struct vma_report_stat *st,
			  const struct vma_cycles *c, enum vma_cycles_weight w)
{
	vma_report_stat_fill(st, c, w, b->full);
	if (b->full && c->count && b->spread)
		st->stddev = vma_cycles_spread(c);
}

void vma_report_fill_latency(struct vma_report_latency *l, const struct vma_latency_window *w)
{
	static const struct vma_latency_window none;

	if (!w)
		w = &none;
	l->exits = w->exits;
	l->total = w->total;
	l->mean = w->exits ? w->total / w->exits : 0;
	l->max = w->max;
	l->max_window = w->max_window;
}

static const char *grouping_name(enum vma_kvm_grouping g)
{
	switch (g) {
	case VMA_KVM_GROUP_GUEST:
		return "guest-option";
	case VMA_KVM_GROUP_VCPU_IDS:
		return "vcpu-ids";
	case VMA_KVM_GROUP_HEURISTIC:
		return "heuristic";
	case VMA_KVM_GROUP_NONE:
		break;
	}
	return NULL;
}

static bool selects(const struct vma_report_builder *b, const struct vma_domain *d, uint32_t vid)
{
	return vma_report_filter_selects(b->how->filter, d->did, d->kvm.vmm_pid, vid);
}

/* Does @d have a vcpu the filter keeps? */
static bool domain_selected(const struct vma_report_builder *b, const struct vma_domain *d)
{
	uint32_t i;

	if (!b->how->filter || !b->how->filter->vcpu_set)
		return selects(b, d, 0);
	for (i = 0; i < d->nr_vcpus; i++) {
		if (d->vcpus[i] && selects(b, d, i))
			return true;
	}
	return false;
}

static uint64_t since_first(const struct vma_report_builder *b, uint64_t tsc)
{
	return tsc > b->r->first_tsc ? tsc - b->r->first_tsc : 0;
}

static void build_cr3s(struct vma_report_builder *b, struct vma_report_domain *rd,
		       const struct vma_domain *d)
{
	uint32_t i, j;

	rd->has_cr3s = true;
	rd->cr3s = vma_report_rows(b, d->cr3s.nr, sizeof(*rd->cr3s));
	for (i = 0; rd->cr3s && i < d->cr3s.nr; i++) {
		const struct vma_cr3 *c = &d->cr3s.v[i];
		struct vma_report_cr3 *rc = &rd->cr3s[rd->nr_cr3s++];

		rc->gmfn = c->gmfn;
		rc->other = c->gmfn == VMA_CR3_OTHER;
		rc->id = c->id;
		rc->first = since_first(b, c->first_tsc);
		rc->last = c->last_tsc ? since_first(b, c->last_tsc) : 0;
		rc->run_time = c->run_time;
		vma_report_fill_stat(b, &rc->total, &c->total, VMA_CYCLES_BY_TIME);
		vma_report_fill_stat(b, &rc->guest, &c->guest, VMA_CYCLES_BY_TIME);
		vma_report_fill_stat(b, &rc->hv, &c->hv, VMA_CYCLES_BY_TIME);
		for (j = 0; j < VMA_XCAT_COUNT; j++)
			vma_report_fill_stat(b, &rc->hv_by[j], &c->hv_by[j], VMA_CYCLES_BY_TIME);
		rc->switches = c->switches;
		rc->flushes = c->flushes;
	}
}

/* xenalyze's order of an EIP list (eip_compare()): most cycles, then most counted. */
static int emulate_eip_order(const void *pa, const void *pb)
{
	const struct vma_report_emulate_eip *a = pa, *b = pb;

	if (a->stat.total != b->stat.total)
		return a->stat.total < b->stat.total ? 1 : -1;
	if (a->stat.count != b->stat.count)
		return a->stat.count < b->stat.count ? 1 : -1;
	if (a->other != b->other)
		return a->other ? 1 : -1;
	return a->eip < b->eip ? -1 : a->eip > b->eip;
}

static void build_emulate_eips(struct vma_report_builder *b, struct vma_report_domain *rd,
			       const struct vma_eip_cycles_list *l)
{
	uint32_t i;

	uint32_t n = l->nr + (l->other != NULL);

	rd->emulate_eips = vma_report_rows(b, n, sizeof(*rd->emulate_eips));
	if (!rd->emulate_eips)
		return;
	for (i = 0; i < n; i++) {
		const struct vma_eip_cycles *e = i < l->nr ? &l->v[i] : l->other;

		rd->emulate_eips[i].eip = i < l->nr ? e->eip : 0;
		rd->emulate_eips[i].other = i == l->nr;
		vma_report_fill_stat(b, &rd->emulate_eips[i].stat, &e->cycles, VMA_CYCLES_BY_COUNT);
		rd->emulate_eip_total += e->cycles.events;
	}
	rd->nr_emulate_eips = n;
	qsort(rd->emulate_eips, n, sizeof(*rd->emulate_eips), emulate_eip_order);
}

/*
 * A domain's run time with its vcpus' running times' samples (state.h):
 * a summary the report owns, whose samples are those of the vcpus'.
 */
static const struct vma_cycles *domain_run_time(struct vma_report_builder *b,
						const struct vma_domain *d)
{
	struct vma_cycles *t;
	uint32_t i;

	if (!b->full || !d->total_time.count)
		return &d->total_time;
	t = vma_report_owned_cycles(b);
	if (!t)
		return &d->total_time;
	vma_cycles_merge(t, &d->total_time, NULL);
	for (i = 0; i < d->nr_vcpus; i++) {
		if (d->vcpus[i])
			merge_parts(t, &d->vcpus[i]->runstates[VMA_RS_RUNNING], 0, 1);
	}
	return t;
}

static void build_domain(struct vma_report_builder *b, struct vma_report_domain *rd,
			 struct source *src, const struct vma_domain *d)
{
	uint32_t i, n = 0;

	rd->id = d->did;
	rd->name = d->kvm.name[0] ? d->kvm.name : NULL;
	rd->pid = d->kvm.vmm_pid;
	rd->comm = d->kvm.vmm_comm[0] ? d->kvm.vmm_comm : NULL;
	rd->grouping = grouping_name(d->kvm.grouping);
	vma_report_fill_latency(&rd->latency_nohalt, d->latency ? &d->latency->nohalt : NULL);
	for (i = 0; i < VMA_DRS_COUNT; i++)
		vma_report_fill_stat(b, &rd->runstates[i], &d->runstates[i], VMA_CYCLES_BY_TIME);
	vma_report_fill_stat(b, &rd->run_time, domain_run_time(b, d), VMA_CYCLES_BY_TIME);
	if (d->mem)
		rd->mem = *d->mem;
	vma_report_fill_latency(&rd->latency, d->latency ? &d->latency->all : NULL);
	if (b->full && b->eips->enumerate && !b->r->kvm) {
		rd->has_interrupt_eips = true;
		rd->interrupt_eip_vector = b->eips->enumerate_vector;
		rd->interrupt_eips = vma_report_eip_rows(b, &d->interrupt_eips, 1, true,
							 &rd->interrupt_eip_total,
							 &rd->nr_interrupt_eips);
	}
	if (b->full && !b->r->kvm)
		build_emulate_eips(b, rd, &d->emulate_eips);
	if (b->full && b->eips->cr3 && !b->r->kvm)
		build_cr3s(b, rd, d);
	/* The vcpus' rows are built when visited (vma_report_vcpu()): only which. */
	for (i = 0; i < d->nr_vcpus; i++)
		n += d->vcpus[i] && selects(b, d, i);
	src->d = d;
	src->vids = vma_report_rows(b, n, sizeof(*src->vids));
	for (i = 0; src->vids && i < d->nr_vcpus; i++) {
		if (!d->vcpus[i] || !selects(b, d, i))
			continue;
		src->vids[rd->nr_vcpus++] = i;
		b->r->arm |= d->vcpus[i]->type == VMA_VCPU_ARM;
	}
}

static const struct vma_domain *domain_of(const struct vma_machine *m, uint32_t did)
{
	uint32_t i;

	for (i = 0; i < m->nr_domains; i++) {
		if (m->domains[i]->did == did)
			return m->domains[i];
	}
	return NULL;
}

/* Is VM or domain @did kept (--domain/--vm; --vcpu does not split a VM's rows)? */
static bool domain_kept(const struct vma_report_builder *b, const struct vma_machine *m,
			uint32_t did)
{
	const struct vma_report_filter *f = b->how->filter;
	const struct vma_domain *d;

	if (!f || !f->domain_set || f->domain == did)
		return true;
	d = domain_of(m, did);
	return d && d->kvm.vmm_pid && d->kvm.vmm_pid == f->domain;
}

/* --top: the kept exits of the selected vcpus, longest first. */
static void build_worst(struct vma_report_builder *b, const struct vma_machine *m)
{
	struct vma_report *r = b->r;
	struct vma_report_worst *all;
	uint32_t n = vma_worst_size(b->how->worst), i;

	all = vma_report_rows(b, n, sizeof(*all));
	if (!all)
		return;
	n = vma_worst_sorted(b->how->worst, all);
	for (i = 0; i < n; i++) {
		const struct vma_domain *d = domain_of(m, all[i].domain);
		const struct vma_vcpu *v = d && all[i].vcpu < d->nr_vcpus ? d->vcpus[all[i].vcpu]
			: NULL;
		struct vma_report_worst *w = &all[r->nr_worst];

		if (!vma_report_filter_selects(b->how->filter, all[i].domain,
					       d ? d->kvm.vmm_pid : 0, all[i].vcpu))
			continue;
		*w = all[i];
		w->reason_name = v && v->type == VMA_VCPU_ARM ? vma_arm_exit_name(w->reason)
			: vma_hvm_exit_name(r->svm, w->reason);
		r->nr_worst++;
	}
	r->worst = all;
}

static int by_vm(const void *pa, const void *pb)
{
	const struct vma_report_pcpu_vm *x = pa, *y = pb;

	return x->domain < y->domain ? -1 : x->domain > y->domain;
}

/* KVM: the VMs' guest and exit time on a host cpu, of the VMs the filter keeps. */
static void build_pcpu_vms(struct vma_report_builder *b, const struct vma_machine *m,
			   struct vma_report_pcpu *rp, const struct vma_pcpu *p)
{
	uint32_t i;

	rp->vms = vma_report_rows(b, p->nr_kvm_vms, sizeof(*rp->vms));
	for (i = 0; rp->vms && i < p->nr_kvm_vms; i++) {
		if (!domain_kept(b, m, p->kvm_vms[i].did))
			continue;
		rp->vms[rp->nr_vms].domain = p->kvm_vms[i].did;
		rp->vms[rp->nr_vms].guest = p->kvm_vms[i].guest;
		rp->vms[rp->nr_vms++].exits = p->kvm_vms[i].exits;
	}
	if (rp->nr_vms)
		qsort(rp->vms, rp->nr_vms, sizeof(*rp->vms), by_vm);
}

static void build_machine_rows(struct vma_report_builder *b, const struct vma_machine *m)
{
	struct vma_report *r = b->r;
	uint32_t i, n = 0;

	for (i = 0; i < m->nr_pcpus; i++)
		n += m->pcpus[i] != NULL;
	r->pcpus = vma_report_rows(b, n, sizeof(*r->pcpus));
	for (i = 0; r->pcpus && i < m->nr_pcpus; i++) {
		const struct vma_pcpu *p = m->pcpus[i];
		struct vma_report_pcpu *rp;

		if (!p)
			continue;
		rp = &r->pcpus[r->nr_pcpus++];
		rp->id = i;
		vma_report_fill_stat(b, &rp->running, &p->time_running, VMA_CYCLES_BY_TIME);
		vma_report_fill_stat(b, &rp->idle, &p->time_idle, VMA_CYCLES_BY_TIME);
		vma_report_fill_stat(b, &rp->lost, &p->time_lost, VMA_CYCLES_BY_TIME);
		memcpy(rp->volume, p->volume, sizeof(rp->volume));
		build_pcpu_vms(b, m, rp, p);
	}
	if (b->how->default_domain && m->default_domain) {
		r->default_domain = vma_report_rows(b, 1, sizeof(*r->default_domain));
		if (r->default_domain) {
			build_domain(b, r->default_domain, &r->priv->default_source,
				     m->default_domain);
		}
	}
	r->domains = vma_report_rows(b, m->nr_domains, sizeof(*r->domains));
	r->priv->sources = vma_report_rows(b, m->nr_domains, sizeof(*r->priv->sources));
	for (i = 0; r->domains && r->priv->sources && i < m->nr_domains; i++) {
		if (m->domains[i]->did != VMA_DEFAULT_DOMAIN && domain_selected(b, m->domains[i]) &&
		    (!b->how->changed_since || m->domains[i]->changed > b->how->changed_since)) {
			build_domain(b, &r->domains[r->nr_domains], &r->priv->sources[r->nr_domains],
				     m->domains[i]);
			r->nr_domains++;
		}
	}
	r->has_events = m->kvm && b->how->kvm_name;
	if (!r->has_events || !b->full)
		return;
	r->events = vma_report_rows(b, m->nr_kvm_counts, sizeof(*r->events));
	for (i = 0; r->events && i < m->nr_kvm_counts; i++) {
		const char *name;

		if (!m->kvm_counts[i])
			continue;
		name = b->how->kvm_name(b->how->kvm_name_arg, i);
		r->events[r->nr_events].name = name ? name : "(unknown)";
		r->events[r->nr_events++].count = m->kvm_counts[i];
	}
}

/* What the machine's summaries gave up to their memory budget (cycles.h). */
static void build_precision(struct vma_report_precision *p, const struct vma_machine *m)
{
	const struct vma_cycles_budget *b = &m->budget;

	if (!b->step)
		return;
	p->reduced = true;
	p->budget = b->limit;
	p->at = m->have_time && b->reached_tsc > m->first_tsc ? b->reached_tsc - m->first_tsc : 0;
	p->at_record = b->reached_record;
	p->per_octave = vma_cycles_budget_per_octave(b);
	p->error = vma_cycles_error_bound(p->per_octave);
	p->exact_limit = b->exact_limit;
	p->early = b->early;
	p->compact = b->compact;
	p->compacts = b->compacts;
	p->peak = b->peak;
}

/* What the machine's tables of rows gave up to their part of the budget (cycles.h). */
static void build_folding(struct vma_report_folding *f, const struct vma_machine *m)
{
	const struct vma_rows_budget *b = &m->budget.rows;

	if (!vma_rows_reached(&m->budget))
		return;
	f->reduced = true;
	f->budget = b->limit;
	f->at = m->have_time && b->reached_tsc > m->first_tsc ? b->reached_tsc - m->first_tsc : 0;
	f->at_record = b->reached_record;
	f->events = b->folded;
	f->peak = b->peak;
}

struct vma_report *vma_report_create(const struct vma_machine *m,
				     const struct vma_report_build *how)
{
	struct vma_report *r = calloc(1, sizeof(*r));
	struct vma_report_builder *b;

	if (!r)
		return NULL;
	r->priv = calloc(1, sizeof(*r->priv));
	if (!r->priv) {
		free(r);
		return NULL;
	}
	r->priv->how = *how;
	b = &r->priv->b;
	*b = (struct vma_report_builder){ .how = &r->priv->how, .r = r,
		.full = how->detail == VMA_REPORT_FULL, .eips = &m->options.eips,
		.owned = &r->priv->owned, .vcpu_owned = &r->priv->vcpu_owned };
	/* KVM's JSON and kvm-stat print the spread; Xen's text and JSON do not. */
	b->spread = b->full && (m->kvm || how->totals);
	r->unit = how->unit;
	r->hz = how->hz ? how->hz : 1;
	r->kvm = m->kvm;
	r->svm = m->svm;
	r->final = how->final;
	r->at = how->at;
	r->total = m->have_time ? m->last_tsc - m->first_tsc : 0;
	r->first_tsc = how->origin ? how->origin : m->have_time ? m->first_tsc : 0;
	r->records = m->records;
	r->lost_records = m->lost_records;
	r->vendor_known = m->vendor_known;
	build_precision(&r->precision, m);
	build_folding(&r->folding, m);
	r->filtered = how->filter && (how->filter->domain_set || how->filter->vcpu_set);
	build_machine_rows(b, m);
	if (b->full && (how->totals || (how->kvm_totals && m->kvm)) && !b->failed)
		vma_report_build_totals(b);
	if (how->worst && !b->failed)
		build_worst(b, m);
	r->priv->how.worst = NULL; /* read here only: it need not outlive the call */
	if (b->failed) {
		vma_report_destroy(r);
		return NULL;
	}
	return r;
}

static struct source *source_of(const struct vma_report *r, const struct vma_report_domain *d)
{
	uintptr_t at = (uintptr_t)d, first = (uintptr_t)r->domains;

	if (d == r->default_domain)
		return &r->priv->default_source;
	if (!r->priv->sources || at < first || at >= first + r->nr_domains * sizeof(*d))
		return NULL;
	return &r->priv->sources[d - r->domains];
}

const struct vma_vcpu *vma_report_source_vcpu(const struct vma_report *r,
					      const struct vma_report_domain *d, uint32_t j)
{
	const struct source *src = source_of(r, d);

	if (!src || !src->vids || j >= d->nr_vcpus)
		return NULL;
	return src->d->vcpus[src->vids[j]];
}

static void release_vcpu(struct vma_report_priv *p)
{
	if (!p->cur_domain)
		return;
	vma_report_free_vcpu(&p->b, &p->cur);
	memset(&p->cur, 0, sizeof(p->cur));
	vma_report_owned_release(&p->vcpu_owned);
	p->cur_domain = NULL;
}

const struct vma_report_vcpu *vma_report_vcpu(const struct vma_report *r,
					      const struct vma_report_domain *d, uint32_t j)
{
	struct vma_report_priv *p = r->priv;
	const struct vma_vcpu *v;

	if (d->vcpus) /* rows in place: a report made by hand */
		return j < d->nr_vcpus ? &d->vcpus[j] : NULL;
	if (!p)
		return NULL;
	if (p->cur_domain == d && p->cur_index == j)
		return &p->cur;
	v = vma_report_source_vcpu(r, d, j);
	if (!v)
		return NULL;
	release_vcpu(p);
	p->b.failed = false;
	vma_report_build_vcpu(&p->b, &p->cur, v);
	p->cur_domain = d;
	p->cur_index = j;
	if (p->b.failed) {
		release_vcpu(p);
		return NULL;
	}
	return &p->cur;
}

uint32_t vma_report_vcpus_held(const struct vma_report *r)
{
	return r->priv ? r->priv->b.held : 0;
}

static void free_domain(struct vma_report_domain *d)
{
	vma_report_free_totals(&d->totals);
	free(d->interrupt_eips);
	free(d->emulate_eips);
	free(d->cr3s);
}

void vma_report_destroy(struct vma_report *r)
{
	struct vma_report_priv *p;
	uint32_t i;

	if (!r)
		return;
	p = r->priv;
	if (p) {
		release_vcpu(p);
		for (i = 0; p->sources && i < r->nr_domains; i++)
			free(p->sources[i].vids);
		free(p->sources);
		free(p->default_source.vids);
		vma_report_owned_release(&p->owned);
		free(p->owned.v);
		free(p->vcpu_owned.v);
		free(p);
	}
	for (i = 0; i < r->nr_domains; i++)
		free_domain(&r->domains[i]);
	vma_report_free_totals(&r->totals);
	free(r->worst);
	free(r->domains);
	if (r->default_domain) {
		free_domain(r->default_domain);
		free(r->default_domain);
	}
	for (i = 0; i < r->nr_pcpus; i++)
		free(r->pcpus[i].vms);
	free(r->pcpus);
	free(r->events);
	free(r);
}

bool vma_report_filter_selects(const struct vma_report_filter *f, uint32_t did, uint32_t pid,
			       uint32_t vid)
{
	if (!f)
		return true;
	if (f->domain_set && f->domain != did && !(pid && f->domain == pid))
		return false;
	return !f->vcpu_set || f->vcpu == vid;
}
