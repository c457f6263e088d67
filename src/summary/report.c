/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report builder (report.h): walks the machine model once and fills
 * the rows every renderer reads, with the percentiles computed here.  The
 * choices of what xenalyze shows (which handlers make a sub-line, how
 * they group, which exits need no handler) are made here too, so every
 * renderer sees the same rows.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/arm-names.h"
#include "vmalyze/grow.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/report.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-names.h"

/* Summaries the report merged itself, released with it. */
struct vma_report_priv {
	struct vma_cycles **owned;
	size_t nr_owned, cap_owned;
};

struct builder {
	const struct vma_report_build *how;
	struct vma_report *r;
	bool full;
	bool failed; /* out of memory */
};

static void *alloc_rows(struct builder *b, size_t n, size_t size)
{
	void *p;

	if (!n)
		return NULL;
	p = calloc(n, size);
	if (!p)
		b->failed = true;
	return p;
}

/* A zeroed summary the report owns, or NULL when out of memory. */
static struct vma_cycles *owned_cycles(struct builder *b)
{
	struct vma_report_priv *priv = b->r->priv;
	struct vma_cycles *c;

	if (vma_grow(priv->owned, &priv->cap_owned, priv->nr_owned + 1, 64)) {
		b->failed = true;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		b->failed = true;
		return NULL;
	}
	priv->owned[priv->nr_owned++] = c;
	return c;
}

/*
 * Percentiles of a summary the report only reads.  In exact mode the
 * accumulator sorts its samples to answer; that reorders, but does not
 * change, what it holds.
 */
static void fill_stat(const struct builder *b, struct vma_report_stat *st,
		      const struct vma_cycles *c, enum vma_cycles_weight w)
{
	struct vma_cycles *s = (struct vma_cycles *)c;

	memset(st, 0, sizeof(*st));
	st->events = c->events;
	st->count = c->count;
	st->total = c->cycles;
	st->mean = vma_cycles_mean(c);
	st->weight = w;
	if (!b->full || !c->count)
		return;
	st->p5 = vma_cycles_quantile(s, w, 5, 100);
	st->p50 = vma_cycles_quantile(s, w, 50, 100);
	st->p95 = vma_cycles_quantile(s, w, 95, 100);
	st->min = vma_cycles_min(c);
	st->max = vma_cycles_max(c);
	st->dist = c;
}

static void fill_latency(struct vma_report_latency *l, const struct vma_latency_window *w)
{
	l->exits = w->exits;
	l->total = w->total;
	l->mean = w->exits ? w->total / w->exits : 0;
	l->max = w->max;
	l->max_window = w->max_window;
}

static const char *kvm_name(const struct builder *b, uint32_t id)
{
	if (!b->how->kvm_name)
		return NULL;
	return b->how->kvm_name(b->how->kvm_name_arg, id - VMA_ID_KVM_BASE);
}

static bool is_kvm_id(uint32_t id)
{
	return !vma_id_is_xen(id) && id < VMA_ID_SYNTH_BASE;
}

/* Handlers, raw and in the model's order (JSON's "handlers"). */
static void build_handlers(struct builder *b, struct vma_report_exit *x,
			   const struct vma_exit_stats *e)
{
	uint32_t k;

	x->handlers = alloc_rows(b, e->nr_subs, sizeof(*x->handlers));
	if (!x->handlers)
		return;
	for (k = 0; k < e->nr_subs; k++) {
		const struct vma_exit_sub *s = &e->subs[k];
		struct vma_report_handler *h = &x->handlers[x->nr_handlers++];
		const char *name;

		if (!s->handler)
			name = "(no handler)";
		else if (is_kvm_id(s->handler))
			name = kvm_name(b, s->handler);
		else
			name = vma_hvm_handler_name((s->handler - TRC_HVM_HANDLER) & 0xff);
		h->id = s->handler;
		h->name = name ? name : "unknown";
		h->key = s->key;
		h->is_write = s->is_write;
		fill_stat(b, &h->stat, &s->cycles, VMA_CYCLES_BY_COUNT);
	}
}

/* Exits that need no handler: no "(no handler)" sub-line for them. */
static bool handler_expected(bool svm, uint32_t reason)
{
	/* PENDING_VIRT_INTR, TPR_BELOW_THRESHOLD, PAUSE, WBINVD */
	static const uint32_t vmx_none[] = { 7, 43, 40, 54 };
	static const uint32_t svm_none[] = { 0x64, 0x77 }; /* VINTR, PAUSE */
	const uint32_t *list = svm ? svm_none : vmx_none;
	size_t i, n = svm ? 2 : 4;

	for (i = 0; i < n; i++) {
		if (list[i] == reason)
			return false;
	}
	return true;
}

/* What a sub-line means; subs that mean the same are one sub-line. */
static void classify(const struct builder *b, const struct vma_exit_sub *s,
		     struct vma_report_subline *l)
{
	uint32_t minor = s->handler ? s->handler - TRC_HVM_HANDLER : 0;

	memset(l, 0, sizeof(*l));
	l->key = s->key;
	if (is_kvm_id(s->handler)) {
		l->kind = VMA_SUB_KVM;
		l->name = kvm_name(b, s->handler);
		return;
	}
	switch (s->handler) {
	case 0:
		l->kind = VMA_SUB_NONE;
		l->key = 0;
		return;
	case TRC_HVM_CR_WRITE:
		l->kind = VMA_SUB_CR;
		return;
	case TRC_HVM_VMMCALL:
		l->kind = VMA_SUB_HYPERCALL;
		l->name = s->key == VMA_SUB_OTHER ? "other" : vma_hypercall_name((uint32_t)s->key);
		return;
	case TRC_HVM_IOMEM_READ:
	case TRC_HVM_IOMEM_WRITE:
		l->kind = VMA_SUB_MMIO;
		l->key = 0;
		return;
	}
	l->kind = VMA_SUB_HANDLER;
	l->minor = minor;
	l->name = vma_hvm_handler_name(minor & 0xff);
}

static bool same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_subline(const struct vma_report_subline *a, const struct vma_report_subline *b)
{
	if (a->kind != b->kind || !same_name(a->name, b->name))
		return false;
	switch (a->kind) {
	case VMA_SUB_CR:
	case VMA_SUB_KVM:
		return a->key == b->key;
	case VMA_SUB_HYPERCALL:
		return a->name || a->key == b->key;
	case VMA_SUB_HANDLER:
		return a->name || a->minor == b->minor;
	case VMA_SUB_NONE:
	case VMA_SUB_MMIO:
		break;
	}
	return true;
}

static int by_handler_key(const void *pa, const void *pb)
{
	const struct vma_exit_sub *x = *(const struct vma_exit_sub *const *)pa;
	const struct vma_exit_sub *y = *(const struct vma_exit_sub *const *)pb;

	if (x->handler != y->handler)
		return x->handler < y->handler ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (int)x->is_write - (int)y->is_write;
}

/*
 * xenalyze's sub-lines: handlers in id order, keys ascending, those of
 * the same meaning summed; external interrupts as a count per vector; I/O
 * ports left to the address table.
 */
static void build_sublines(struct builder *b, struct vma_report_exit *x,
			   const struct vma_exit_stats *e)
{
	const struct vma_exit_sub **order;
	struct vma_report_subline *lines;
	bool *done;
	uint32_t i, j, n = e->nr_subs;

	if (!n)
		return;
	order = calloc(n, sizeof(*order));
	done = calloc(n, sizeof(*done));
	lines = calloc(n, sizeof(*lines));
	x->vectors = alloc_rows(b, n, sizeof(*x->vectors));
	if (!order || !done || !lines || !x->vectors) {
		b->failed = true;
		free(lines);
		goto out;
	}
	x->sublines = lines;
	for (i = 0; i < n; i++)
		order[i] = &e->subs[i];
	qsort(order, n, sizeof(*order), by_handler_key);
	for (i = 0; i < n; i++) {
		const struct vma_exit_sub *s = order[i];
		struct vma_report_subline *l = &lines[x->nr_sublines];
		struct vma_report_subline other;
		struct vma_cycles *sum = NULL;
		uint32_t members = 0, first = i;

		if (s->handler == TRC_HVM_INTR) {
			x->vectors[x->nr_vectors].vector = s->key;
			x->vectors[x->nr_vectors++].events = s->cycles.events;
			continue;
		}
		if (done[i] || s->handler == TRC_HVM_IOPORT_READ ||
		    s->handler == TRC_HVM_IOPORT_WRITE)
			continue;
		/* KVM refinement events are optional: their absence says nothing. */
		if (!s->handler && (b->r->kvm || !handler_expected(b->r->svm, e->reason)))
			continue;
		classify(b, s, l);
		for (j = i; j < n; j++) {
			if (done[j])
				continue;
			classify(b, order[j], &other);
			if (!same_subline(l, &other))
				continue;
			done[j] = true;
			if (++members == 1) {
				first = j;
				continue;
			}
			if (members == 2) {
				sum = owned_cycles(b);
				if (!sum)
					goto out;
				vma_cycles_merge(sum, &order[first]->cycles);
			}
			vma_cycles_merge(sum, &order[j]->cycles);
		}
		fill_stat(b, &l->stat, sum ? sum : &order[first]->cycles, VMA_CYCLES_BY_COUNT);
		x->nr_sublines++;
	}
out:
	free(order);
	free(done);
}

static void build_exits(struct builder *b, struct vma_report_vcpu *rv, const struct vma_vcpu *v)
{
	const struct vma_hvm_stats *st = v->hvm.stats;
	uint32_t r, n = 0;

	for (r = 0; r < st->nr_slots; r++)
		n += st->by_reason[r] != NULL;
	rv->exits = alloc_rows(b, n, sizeof(*rv->exits));
	if (!rv->exits)
		return;
	for (r = 0; r < st->nr_slots; r++) {
		const struct vma_exit_stats *e = st->by_reason[r];
		struct vma_report_exit *x;

		if (!e)
			continue;
		x = &rv->exits[rv->nr_exits++];
		x->code = e->reason;
		x->name = v->type == VMA_VCPU_ARM ? vma_arm_exit_name(e->reason)
						  : vma_hvm_exit_name(b->r->svm, e->reason);
		fill_stat(b, &x->stat, &e->cycles, VMA_CYCLES_BY_COUNT);
		if (!b->full)
			continue;
		build_handlers(b, x, e);
		build_sublines(b, x, e);
	}
}

static int by_address(const void *pa, const void *pb)
{
	const struct vma_report_address *x = pa, *y = pb;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->is_write - (int)y->is_write;
}

/* Accesses by address and direction, summed over the exit reasons. */
static void build_addresses(struct builder *b, const struct vma_hvm_stats *st, uint32_t read_id,
			    uint32_t write_id, struct vma_report_address **out, uint32_t *nr)
{
	struct vma_report_address *rows = NULL;
	struct vma_cycles **sums = NULL;
	size_t n = 0, cap_rows = 0, cap_sums = 0, i;
	uint32_t r, k;

	for (r = 0; r < st->nr_slots; r++) {
		const struct vma_exit_stats *e = st->by_reason[r];

		for (k = 0; e && k < e->nr_subs; k++) {
			const struct vma_exit_sub *s = &e->subs[k];

			if (s->handler != read_id && s->handler != write_id)
				continue;
			for (i = 0; i < n; i++) {
				if (rows[i].addr == s->key && rows[i].is_write == s->is_write)
					break;
			}
			if (i == n) {
				if (vma_grow(rows, &cap_rows, n + 1, 16) ||
				    vma_grow(sums, &cap_sums, n + 1, 16)) {
					b->failed = true;
					goto out;
				}
				memset(&rows[n], 0, sizeof(rows[n]));
				rows[n].addr = s->key;
				rows[n].is_write = s->is_write;
				sums[n] = owned_cycles(b);
				if (!sums[n])
					goto out;
				n++;
			}
			vma_cycles_merge(sums[i], &s->cycles);
		}
	}
	for (i = 0; i < n; i++)
		fill_stat(b, &rows[i].stat, sums[i], VMA_CYCLES_BY_COUNT);
	if (n)
		qsort(rows, n, sizeof(*rows), by_address);
	*out = rows;
	*nr = (uint32_t)n;
	rows = NULL;
out:
	free(rows);
	free(sums);
}

static void build_irqs(struct builder *b, struct vma_report_vcpu *rv,
		       const struct vma_hvm_stats *st)
{
	uint32_t r, k, n = 0;

	for (r = 0; r <= VMA_GUEST_VECTORS; r++)
		n += st->guest_irqs[r] != 0;
	rv->irqs = alloc_rows(b, n, sizeof(*rv->irqs));
	if (!rv->irqs)
		return;
	for (r = 0; r <= VMA_GUEST_VECTORS; r++) {
		struct vma_report_irq *q;

		if (!st->guest_irqs[r])
			continue;
		q = &rv->irqs[rv->nr_irqs++];
		q->vector = r;
		q->count = st->guest_irqs[r];
		q->has_w2h = r < VMA_GUEST_VECTORS && st->w2h[r];
		for (k = 0; q->has_w2h && k < VMA_REPORT_W2H_CASES; k++)
			fill_stat(b, &q->w2h[k], &st->w2h[r]->cases[k], VMA_CYCLES_BY_TIME);
	}
}

static void build_pv(struct builder *b, struct vma_report_vcpu *rv, const struct vma_pv *pv)
{
	uint32_t i, sub = TRC_PV_HYPERCALL_SUBCALL - TRC_PV_SUBCALL;

	rv->pv_events = alloc_rows(b, pv->nr_counts, sizeof(*rv->pv_events));
	rv->hypercalls = alloc_rows(b, pv->nr_hypercalls, sizeof(*rv->hypercalls));
	for (i = 0; rv->pv_events && i < pv->nr_counts; i++) {
		struct vma_report_pv_event *ev = &rv->pv_events[rv->nr_pv_events];
		uint32_t id = i + TRC_PV_ENTRY;

		ev->minor = i;
		ev->name = vma_pv_event_name(i);
		ev->count = pv->counts[i];
		/* As xenalyze: the v2 hypercall line includes multicall subcalls. */
		if (id == TRC_PV_HYPERCALL_V2 && sub < pv->nr_counts)
			ev->subcalls = pv->counts[sub];
		ev->lists_hypercalls = id == TRC_PV_HYPERCALL_V2 || id == TRC_PV_HYPERCALL;
		if (ev->count || ev->subcalls)
			rv->nr_pv_events++;
	}
	for (i = 0; rv->hypercalls && i < pv->nr_hypercalls; i++) {
		if (!pv->hypercalls[i])
			continue;
		rv->hypercalls[rv->nr_hypercalls].op = i;
		rv->hypercalls[rv->nr_hypercalls].name = vma_hypercall_name(i);
		rv->hypercalls[rv->nr_hypercalls++].count = pv->hypercalls[i];
	}
}

static void build_vcpu(struct builder *b, struct vma_report_vcpu *rv, const struct vma_vcpu *v)
{
	uint32_t i;

	rv->id = v->vid;
	rv->type = v->type;
	for (i = 0; i < VMA_RS_COUNT; i++)
		fill_stat(b, &rv->runstates[i], &v->runstates[i], VMA_CYCLES_BY_TIME);
	for (i = 0; i < VMA_RUNNABLE_COUNT; i++)
		fill_stat(b, &rv->runnable[i], &v->runnable[i], VMA_CYCLES_BY_TIME);
	fill_stat(b, &rv->affinity, &v->affinity_all, VMA_CYCLES_BY_COUNT);
	rv->affinity_pcpu = alloc_rows(b, v->nr_affinity, sizeof(*rv->affinity_pcpu));
	for (i = 0; rv->affinity_pcpu && i < v->nr_affinity; i++)
		fill_stat(b, &rv->affinity_pcpu[i], &v->affinity_pcpu[i], VMA_CYCLES_BY_COUNT);
	rv->nr_affinity_pcpu = rv->affinity_pcpu ? v->nr_affinity : 0;
	fill_latency(&rv->latency, &v->latency);
	if (v->type == VMA_VCPU_HVM || v->type == VMA_VCPU_ARM) {
		const struct vma_hvm_stats *st = v->hvm.stats;

		rv->has_exits = st != NULL;
		if (!st)
			return;
		build_exits(b, rv, v);
		if (!b->full)
			return;
		build_irqs(b, rv, st);
		build_addresses(b, st, TRC_HVM_IOPORT_READ, TRC_HVM_IOPORT_WRITE, &rv->io, &rv->nr_io);
		build_addresses(b, st, TRC_HVM_IOMEM_READ, TRC_HVM_IOMEM_WRITE, &rv->mmio,
				&rv->nr_mmio);
	} else if (v->type == VMA_VCPU_PV && b->full) {
		build_pv(b, rv, &v->pv);
	}
}

static void build_domain(struct builder *b, struct vma_report_domain *rd,
			 const struct vma_domain *d)
{
	uint32_t i, n = 0;

	rd->id = d->did;
	for (i = 0; i < VMA_DRS_COUNT; i++)
		fill_stat(b, &rd->runstates[i], &d->runstates[i], VMA_CYCLES_BY_TIME);
	fill_stat(b, &rd->run_time, &d->total_time, VMA_CYCLES_BY_TIME);
	rd->mem = d->mem;
	fill_latency(&rd->latency, &d->latency);
	for (i = 0; i < d->nr_vcpus; i++)
		n += d->vcpus[i] != NULL;
	rd->vcpus = alloc_rows(b, n, sizeof(*rd->vcpus));
	for (i = 0; rd->vcpus && i < d->nr_vcpus; i++) {
		if (d->vcpus[i])
			build_vcpu(b, &rd->vcpus[rd->nr_vcpus++], d->vcpus[i]);
	}
}

static void build_machine_rows(struct builder *b, const struct vma_machine *m)
{
	struct vma_report *r = b->r;
	uint32_t i, n = 0;

	for (i = 0; i < m->nr_pcpus; i++)
		n += m->pcpus[i] != NULL;
	r->pcpus = alloc_rows(b, n, sizeof(*r->pcpus));
	for (i = 0; r->pcpus && i < m->nr_pcpus; i++) {
		const struct vma_pcpu *p = m->pcpus[i];
		struct vma_report_pcpu *rp;

		if (!p)
			continue;
		rp = &r->pcpus[r->nr_pcpus++];
		rp->id = i;
		fill_stat(b, &rp->running, &p->time_running, VMA_CYCLES_BY_TIME);
		fill_stat(b, &rp->idle, &p->time_idle, VMA_CYCLES_BY_TIME);
		fill_stat(b, &rp->lost, &p->time_lost, VMA_CYCLES_BY_TIME);
		memcpy(rp->volume, p->volume, sizeof(rp->volume));
	}
	if (b->how->default_domain && m->default_domain) {
		r->default_domain = alloc_rows(b, 1, sizeof(*r->default_domain));
		if (r->default_domain)
			build_domain(b, r->default_domain, m->default_domain);
	}
	r->domains = alloc_rows(b, m->nr_domains, sizeof(*r->domains));
	for (i = 0; r->domains && i < m->nr_domains; i++) {
		if (m->domains[i]->did != VMA_DEFAULT_DOMAIN)
			build_domain(b, &r->domains[r->nr_domains++], m->domains[i]);
	}
	r->has_events = m->kvm && b->how->kvm_name;
	if (!r->has_events || !b->full)
		return;
	r->events = alloc_rows(b, m->nr_kvm_counts, sizeof(*r->events));
	for (i = 0; r->events && i < m->nr_kvm_counts; i++) {
		const char *name;

		if (!m->kvm_counts[i])
			continue;
		name = b->how->kvm_name(b->how->kvm_name_arg, i);
		r->events[r->nr_events].name = name ? name : "(unknown)";
		r->events[r->nr_events++].count = m->kvm_counts[i];
	}
}

struct vma_report *vma_report_create(const struct vma_machine *m,
				     const struct vma_report_build *how)
{
	struct vma_report *r = calloc(1, sizeof(*r));
	struct builder b = { how, r, how->detail == VMA_REPORT_FULL, false };

	if (!r)
		return NULL;
	r->priv = calloc(1, sizeof(*r->priv));
	if (!r->priv) {
		free(r);
		return NULL;
	}
	r->unit = how->unit;
	r->hz = how->hz ? how->hz : 1;
	r->kvm = m->kvm;
	r->svm = m->svm;
	r->final = how->final;
	r->at = how->at;
	r->total = m->have_time ? m->last_tsc - m->first_tsc : 0;
	r->records = m->records;
	r->lost_records = m->lost_records;
	build_machine_rows(&b, m);
	if (b.failed) {
		vma_report_destroy(r);
		return NULL;
	}
	return r;
}

static void free_vcpu(struct vma_report_vcpu *v)
{
	uint32_t i;

	for (i = 0; i < v->nr_exits; i++) {
		free(v->exits[i].handlers);
		free(v->exits[i].sublines);
		free(v->exits[i].vectors);
	}
	free(v->exits);
	free(v->affinity_pcpu);
	free(v->irqs);
	free(v->io);
	free(v->mmio);
	free(v->pv_events);
	free(v->hypercalls);
}

void vma_report_destroy(struct vma_report *r)
{
	uint32_t i, j;
	size_t k;

	if (!r)
		return;
	for (i = 0; i < r->nr_domains; i++) {
		for (j = 0; j < r->domains[i].nr_vcpus; j++)
			free_vcpu(&r->domains[i].vcpus[j]);
		free(r->domains[i].vcpus);
	}
	free(r->domains);
	if (r->default_domain) {
		for (j = 0; j < r->default_domain->nr_vcpus; j++)
			free_vcpu(&r->default_domain->vcpus[j]);
		free(r->default_domain->vcpus);
		free(r->default_domain);
	}
	free(r->pcpus);
	free(r->events);
	for (k = 0; r->priv && k < r->priv->nr_owned; k++) {
		vma_cycles_release(r->priv->owned[k]);
		free(r->priv->owned[k]);
	}
	if (r->priv)
		free(r->priv->owned);
	free(r->priv);
	free(r);
}
