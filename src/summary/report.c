/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report builder (report.h): walks the machine model once and fills
 * the rows every renderer reads, with the percentiles computed here.  The
 * choices of what xenalyze shows (which handlers make a sub-line, how
 * they group, which exits need no handler) are made here too, so every
 * renderer sees the same rows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/arm-names.h"
#include "vmalyze/grow.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/report.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/worst.h"
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
	bool spread; /* stddev too: only the outputs that print it pay for it */
	bool failed; /* out of memory */
	const struct vma_eip_options *eips; /* the machine's enumerations */
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

/* Spread of the samples, from the finest histogram: each bin at its exact mean. */
static uint64_t stddev_of(const struct vma_cycles *c)
{
	struct vma_cycles_bin *bins = NULL;
	double mean, var = 0;
	size_t n = 0, i;

	if (c->count < 2 || vma_cycles_histogram(c, 64, &bins, &n))
		return 0;
	mean = (double)c->cycles / (double)c->count;
	for (i = 0; i < n; i++) {
		double d;

		if (!bins[i].count)
			continue;
		d = (double)bins[i].cycles / (double)bins[i].count - mean;
		var += d * d * (double)bins[i].count;
	}
	free(bins);
	return (uint64_t)llround(sqrt(var / (double)c->count));
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
	if (b->spread)
		st->stddev = stddev_of(c);
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
		ev->lists_traps = id == TRC_PV_TRAP;
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
	rv->traps = alloc_rows(b, pv->nr_traps, sizeof(*rv->traps));
	for (i = 0; rv->traps && i < pv->nr_traps; i++) {
		if (pv->traps[i])
			rv->traps[rv->nr_traps++] = (struct vma_report_trap){ i, pv->traps[i] };
	}
}

static int eip_by_count(const void *pa, const void *pb)
{
	const struct vma_report_eip *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return a->eip < b->eip ? -1 : a->eip > b->eip;
}

/* Rows of @c, keys times @scale; the most counted first when @by_count, else by key. */
static struct vma_report_eip *eip_rows(struct builder *b, const struct vma_eip_counts *c,
				       uint64_t scale, bool by_count, uint64_t *total)
{
	struct vma_report_eip *rows = alloc_rows(b, c->nr, sizeof(*rows));
	uint32_t i;

	*total = 0;
	for (i = 0; rows && i < c->nr; i++) {
		rows[i] = (struct vma_report_eip){ c->v[i].key * scale, c->v[i].count };
		*total += c->v[i].count;
	}
	if (rows && by_count)
		qsort(rows, c->nr, sizeof(*rows), eip_by_count);
	return rows;
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
	rv->affinity_pcpu_ids = alloc_rows(b, v->nr_affinity, sizeof(*rv->affinity_pcpu_ids));
	for (i = 0; rv->affinity_pcpu && rv->affinity_pcpu_ids && i < v->nr_affinity; i++) {
		fill_stat(b, &rv->affinity_pcpu[i], &v->affinity_pcpu[i], VMA_CYCLES_BY_COUNT);
		rv->affinity_pcpu_ids[i] = v->affinity_ids[i];
	}
	rv->nr_affinity_pcpu = rv->affinity_pcpu && rv->affinity_pcpu_ids ? v->nr_affinity : 0;
	fill_latency(&rv->latency, &v->latency);
	fill_latency(&rv->latency_nohalt, &v->latency_nohalt);
	rv->thread_id = v->kvm_tid;
	rv->thread_name = v->kvm_comm[0] ? v->kvm_comm : NULL;
	rv->guest_mapped = v->kvm_guest_mapped;
	if (v->type == VMA_VCPU_HVM || v->type == VMA_VCPU_ARM) {
		const struct vma_hvm_stats *st = v->hvm.stats;

		rv->has_exits = st != NULL;
		if (!st)
			return;
		build_exits(b, rv, v);
		if (!b->full)
			return;
		build_irqs(b, rv, st);
		if (b->eips->histogram && v->type == VMA_VCPU_HVM) {
			uint64_t total;

			rv->has_eip_histogram = true;
			rv->eip_histogram_vector = b->eips->histogram_vector;
			rv->eip_histogram_increment = b->eips->histogram_increment;
			rv->eip_histogram = eip_rows(b, &v->hvm.eip_histogram,
						     b->eips->histogram_increment, false, &total);
			rv->nr_eip_histogram = rv->eip_histogram ? v->hvm.eip_histogram.nr : 0;
		}
		build_addresses(b, st, TRC_HVM_IOPORT_READ, TRC_HVM_IOPORT_WRITE, &rv->io, &rv->nr_io);
		build_addresses(b, st, TRC_HVM_IOMEM_READ, TRC_HVM_IOMEM_WRITE, &rv->mmio,
				&rv->nr_mmio);
		if (!b->r->kvm)
			return;
		build_addresses(b, st, TRC_HVM_MSR_READ, TRC_HVM_MSR_WRITE, &rv->msr, &rv->nr_msr);
		build_addresses(b, st, VMA_KVM_HYPERCALL, VMA_KVM_HYPERCALL, &rv->hcall,
				&rv->nr_hcall);
	} else if (v->type == VMA_VCPU_PV && b->full) {
		build_pv(b, rv, &v->pv);
	}
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

static bool selects(const struct builder *b, const struct vma_domain *d, uint32_t vid)
{
	return vma_report_filter_selects(b->how->filter, d->did, d->kvm.vmm_pid, vid);
}

/* Does @d have a vcpu the filter keeps? */
static bool domain_selected(const struct builder *b, const struct vma_domain *d)
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

static uint64_t since_first(const struct builder *b, uint64_t tsc)
{
	return tsc > b->r->first_tsc ? tsc - b->r->first_tsc : 0;
}

static void build_cr3s(struct builder *b, struct vma_report_domain *rd, const struct vma_domain *d)
{
	uint32_t i, j;

	rd->has_cr3s = true;
	rd->cr3s = alloc_rows(b, d->cr3s.nr, sizeof(*rd->cr3s));
	for (i = 0; rd->cr3s && i < d->cr3s.nr; i++) {
		const struct vma_cr3 *c = &d->cr3s.v[i];
		struct vma_report_cr3 *rc = &rd->cr3s[rd->nr_cr3s++];

		rc->gmfn = c->gmfn;
		rc->id = c->id;
		rc->first = since_first(b, c->first_tsc);
		rc->last = c->last_tsc ? since_first(b, c->last_tsc) : 0;
		rc->run_time = c->run_time;
		fill_stat(b, &rc->total, &c->total, VMA_CYCLES_BY_TIME);
		fill_stat(b, &rc->guest, &c->guest, VMA_CYCLES_BY_TIME);
		fill_stat(b, &rc->hv, &c->hv, VMA_CYCLES_BY_TIME);
		for (j = 0; j < VMA_XCAT_COUNT; j++)
			fill_stat(b, &rc->hv_by[j], &c->hv_by[j], VMA_CYCLES_BY_TIME);
		rc->switches = c->switches;
		rc->flushes = c->flushes;
	}
}

static void build_domain(struct builder *b, struct vma_report_domain *rd,
			 const struct vma_domain *d)
{
	uint32_t i, n = 0;

	rd->id = d->did;
	rd->name = d->kvm.name[0] ? d->kvm.name : NULL;
	rd->pid = d->kvm.vmm_pid;
	rd->comm = d->kvm.vmm_comm[0] ? d->kvm.vmm_comm : NULL;
	rd->grouping = grouping_name(d->kvm.grouping);
	fill_latency(&rd->latency_nohalt, &d->latency_nohalt);
	for (i = 0; i < VMA_DRS_COUNT; i++)
		fill_stat(b, &rd->runstates[i], &d->runstates[i], VMA_CYCLES_BY_TIME);
	fill_stat(b, &rd->run_time, &d->total_time, VMA_CYCLES_BY_TIME);
	rd->mem = d->mem;
	fill_latency(&rd->latency, &d->latency);
	if (b->full && b->eips->enumerate && !b->r->kvm) {
		rd->has_interrupt_eips = true;
		rd->interrupt_eip_vector = b->eips->enumerate_vector;
		rd->interrupt_eips = eip_rows(b, &d->interrupt_eips, 1, true,
					      &rd->interrupt_eip_total);
		rd->nr_interrupt_eips = rd->interrupt_eips ? d->interrupt_eips.nr : 0;
	}
	if (b->full && b->eips->cr3 && !b->r->kvm)
		build_cr3s(b, rd, d);
	for (i = 0; i < d->nr_vcpus; i++)
		n += d->vcpus[i] != NULL;
	rd->vcpus = alloc_rows(b, n, sizeof(*rd->vcpus));
	for (i = 0; rd->vcpus && i < d->nr_vcpus; i++) {
		if (d->vcpus[i] && selects(b, d, i))
			build_vcpu(b, &rd->vcpus[rd->nr_vcpus++], d->vcpus[i]);
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
static bool domain_kept(const struct builder *b, const struct vma_machine *m, uint32_t did)
{
	const struct vma_report_filter *f = b->how->filter;
	const struct vma_domain *d;

	if (!f || !f->domain_set || f->domain == did)
		return true;
	d = domain_of(m, did);
	return d && d->kvm.vmm_pid && d->kvm.vmm_pid == f->domain;
}

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

static void acc_add(struct builder *b, struct acc_set *set, uint64_t key, bool is_write,
		    const char *name, const struct vma_report_stat *st)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		if (set->rows[i].key == key && set->rows[i].is_write == is_write)
			break;
	}
	if (i == set->n) {
		if (vma_grow(set->rows, &set->cap, set->n + 1, 16)) {
			b->failed = true;
			return;
		}
		memset(&set->rows[i], 0, sizeof(set->rows[i]));
		set->rows[i].key = key;
		set->rows[i].is_write = is_write;
		set->rows[i].name = name;
		set->rows[i].sum = owned_cycles(b);
		if (!set->rows[i].sum)
			return;
		set->n++;
	}
	if (st->dist)
		vma_cycles_merge(set->rows[i].sum, st->dist);
	else
		set->rows[i].bare_events += st->events;
}

static int by_acc_key(const void *pa, const void *pb)
{
	const struct acc *x = pa, *y = pb;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (int)x->is_write - (int)y->is_write;
}

static void acc_stat(struct builder *b, struct vma_report_stat *st, const struct acc *a)
{
	fill_stat(b, st, a->sum, VMA_CYCLES_BY_COUNT);
	st->events += a->bare_events;
}

static void acc_exits(struct builder *b, struct acc_set *set, struct vma_report_exit **out,
		      uint32_t *nr)
{
	size_t i;

	if (set->n > 1) /* none: the rows may be NULL, which qsort may not get */
		qsort(set->rows, set->n, sizeof(*set->rows), by_acc_key);
	*out = alloc_rows(b, set->n, sizeof(**out));
	for (i = 0; *out && i < set->n; i++) {
		(*out)[i].code = (uint32_t)set->rows[i].key;
		(*out)[i].name = set->rows[i].name;
		acc_stat(b, &(*out)[i].stat, &set->rows[i]);
	}
	*nr = *out ? (uint32_t)set->n : 0;
	free(set->rows);
}

static void acc_addresses(struct builder *b, struct acc_set *set, struct vma_report_address **out,
			  uint32_t *nr)
{
	size_t i;

	if (set->n > 1) /* none: the rows may be NULL, which qsort may not get */
		qsort(set->rows, set->n, sizeof(*set->rows), by_acc_key);
	*out = alloc_rows(b, set->n, sizeof(**out));
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

static void acc_address_rows(struct builder *b, struct acc_set *set,
			     const struct vma_report_address *rows, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		acc_add(b, set, rows[i].addr, rows[i].is_write, NULL, &rows[i].stat);
}

static void acc_totals_add(struct builder *b, struct acc_totals *t,
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

static void acc_totals_end(struct builder *b, struct acc_totals *t, struct vma_report_totals *out)
{
	acc_exits(b, &t->exits, &out->exits, &out->nr_exits);
	acc_addresses(b, &t->io, &out->io, &out->nr_io);
	acc_addresses(b, &t->mmio, &out->mmio, &out->nr_mmio);
	acc_addresses(b, &t->msr, &out->msr, &out->nr_msr);
	acc_addresses(b, &t->hcall, &out->hcall, &out->nr_hcall);
}

/* perf kvm stat's VM and host-wide tables: the vcpus' rows summed. */
static void build_totals(struct builder *b)
{
	struct vma_report *r = b->r;
	struct acc_totals host = { 0 };
	uint32_t i, j;

	for (i = 0; i < r->nr_domains; i++) {
		struct vma_report_domain *d = &r->domains[i];
		struct acc_totals dom = { 0 };

		for (j = 0; j < d->nr_vcpus; j++) {
			const struct vma_report_vcpu *v = &d->vcpus[j];
			const struct vma_report_address *const rows[4] = { v->io, v->mmio, v->msr,
									  v->hcall };
			const uint32_t nr[4] = { v->nr_io, v->nr_mmio, v->nr_msr, v->nr_hcall };

			acc_totals_add(b, &dom, v->exits, v->nr_exits, rows, nr);
		}
		acc_totals_end(b, &dom, &d->totals);
		{
			const struct vma_report_totals *t = &d->totals;
			const struct vma_report_address *const rows[4] = { t->io, t->mmio, t->msr,
									  t->hcall };
			const uint32_t nr[4] = { t->nr_io, t->nr_mmio, t->nr_msr, t->nr_hcall };

			acc_totals_add(b, &host, t->exits, t->nr_exits, rows, nr);
		}
	}
	acc_totals_end(b, &host, &r->totals);
}

static void free_totals(struct vma_report_totals *t)
{
	free(t->exits);
	free(t->io);
	free(t->mmio);
	free(t->msr);
	free(t->hcall);
}

/* --top: the kept exits of the selected vcpus, longest first. */
static void build_worst(struct builder *b, const struct vma_machine *m)
{
	struct vma_report *r = b->r;
	struct vma_report_worst *all;
	uint32_t n = vma_worst_size(b->how->worst), i;

	all = alloc_rows(b, n, sizeof(*all));
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
static void build_pcpu_vms(struct builder *b, const struct vma_machine *m,
			   struct vma_report_pcpu *rp, const struct vma_pcpu *p)
{
	uint32_t i;

	rp->vms = alloc_rows(b, p->nr_kvm_vms, sizeof(*rp->vms));
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
		build_pcpu_vms(b, m, rp, p);
	}
	if (b->how->default_domain && m->default_domain) {
		r->default_domain = alloc_rows(b, 1, sizeof(*r->default_domain));
		if (r->default_domain)
			build_domain(b, r->default_domain, m->default_domain);
	}
	r->domains = alloc_rows(b, m->nr_domains, sizeof(*r->domains));
	for (i = 0; r->domains && i < m->nr_domains; i++) {
		if (m->domains[i]->did != VMA_DEFAULT_DOMAIN && domain_selected(b, m->domains[i]))
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
	struct builder b = { .how = how, .r = r, .full = how->detail == VMA_REPORT_FULL,
			     .eips = &m->options.eips };

	if (!r)
		return NULL;
	/* KVM's JSON and kvm-stat print the spread; Xen's text and JSON do not. */
	b.spread = b.full && (m->kvm || how->totals);
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
	r->first_tsc = how->origin ? how->origin : m->have_time ? m->first_tsc : 0;
	r->records = m->records;
	r->lost_records = m->lost_records;
	r->vendor_known = m->vendor_known;
	r->filtered = how->filter && (how->filter->domain_set || how->filter->vcpu_set);
	build_machine_rows(&b, m);
	if (b.full && (how->totals || (how->kvm_totals && m->kvm)) && !b.failed)
		build_totals(&b);
	if (how->worst && !b.failed)
		build_worst(&b, m);
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
	free(v->affinity_pcpu_ids);
	free(v->irqs);
	free(v->io);
	free(v->mmio);
	free(v->msr);
	free(v->hcall);
	free(v->pv_events);
	free(v->hypercalls);
	free(v->traps);
	free(v->eip_histogram);
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
		free_totals(&r->domains[i].totals);
		free(r->domains[i].interrupt_eips);
		free(r->domains[i].cr3s);
	}
	free_totals(&r->totals);
	free(r->worst);
	free(r->domains);
	if (r->default_domain) {
		for (j = 0; j < r->default_domain->nr_vcpus; j++)
			free_vcpu(&r->default_domain->vcpus[j]);
		free(r->default_domain->vcpus);
		free(r->default_domain->interrupt_eips);
		free(r->default_domain->cr3s);
		free(r->default_domain);
	}
	for (i = 0; i < r->nr_pcpus; i++)
		free(r->pcpus[i].vms);
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

bool vma_report_filter_selects(const struct vma_report_filter *f, uint32_t did, uint32_t pid,
			       uint32_t vid)
{
	if (!f)
		return true;
	if (f->domain_set && f->domain != did && !(pid && f->domain == pid))
		return false;
	return !f->vcpu_set || f->vcpu == vid;
}
