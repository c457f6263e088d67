/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A vcpu's rows of the report (report.h): its exits with their handler
 * sub-lines, I/O, MMIO, MSR and hypercall addresses, IRQs, PV events and
 * EIP tables.  Which handlers make a sub-line, how they group and which
 * exits need no handler are xenalyze's choices, made here for every
 * renderer.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/arm-names.h"
#include "vmalyze/grow.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-names.h"
#include "summary/report-build.h"

static const char *kvm_name(const struct vma_report_builder *b, uint32_t id)
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
static void build_handlers(struct vma_report_builder *b, struct vma_report_exit *x,
			   const struct vma_exit_stats *e)
{
	uint32_t k;

	x->handlers = vma_report_rows(b, e->nr_subs, sizeof(*x->handlers));
	if (!x->handlers)
		return;
	for (k = 0; k < e->nr_subs; k++) {
		const struct vma_exit_sub *s = &e->subs[k];
		struct vma_report_handler *h = &x->handlers[x->nr_handlers++];
		const char *name;

		if (!s->handler)
			name = "(no handler)";
		else if (s->handler == TRC_SHADOW)
			name = "page_fault";
		else if (is_kvm_id(s->handler))
			name = kvm_name(b, s->handler);
		else
			name = vma_hvm_handler_name((s->handler - TRC_HVM_HANDLER) & 0xff);
		h->id = s->handler;
		h->name = name ? name : "unknown";
		h->key = s->key;
		h->is_write = s->is_write;
		vma_report_fill_stat(b, &h->stat, &s->cycles, VMA_CYCLES_BY_COUNT);
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
static void classify(const struct vma_report_builder *b, const struct vma_exit_sub *s,
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
	case TRC_SHADOW:
		l->kind = VMA_SUB_SHADOW;
		l->name = vma_shadow_fault_name((uint32_t)s->key);
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
	case VMA_SUB_SHADOW:
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
static void build_sublines(struct vma_report_builder *b, struct vma_report_exit *x,
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
	x->vectors = vma_report_rows(b, n, sizeof(*x->vectors));
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
				sum = vma_report_vcpu_cycles(b);
				if (!sum)
					goto out;
				vma_cycles_merge(sum, &order[first]->cycles, NULL);
			}
			vma_cycles_merge(sum, &order[j]->cycles, NULL);
		}
		vma_report_fill_stat(b, &l->stat, sum ? sum : &order[first]->cycles,
				     VMA_CYCLES_BY_COUNT);
		x->nr_sublines++;
	}
out:
	free(order);
	free(done);
}

/*
 * A code table's @n entries by ascending code (the model keeps them as
 * they came); owned by the caller, NULL when out of memory (b->failed).
 */
static const void **by_code(struct vma_report_builder *b, const void *entries, size_t size,
			    uint32_t n)
{
	const void **order = calloc(n ? n : 1, sizeof(*order));

	if (!order) {
		b->failed = true;
		return NULL;
	}
	vma_code_table_sorted(entries, size, n, order);
	return order;
}

const struct vma_hvm_stats *vma_report_exit_table(const struct vma_vcpu *v)
{
	return v->type == VMA_VCPU_HVM || v->type == VMA_VCPU_ARM ? v->hvm.stats : NULL;
}

const char *vma_report_exit_name(const struct vma_report_builder *b, const struct vma_vcpu *v,
				 uint32_t reason)
{
	const struct vma_hvm_stats *st = vma_report_exit_table(v);

	/* the shared entry, where reasons past the rows' budget went */
	if (st && st->folded_reasons && reason >= VMA_CODE_SHARED)
		return "other";
	return v->type == VMA_VCPU_ARM ? vma_arm_exit_name(reason)
				       : vma_hvm_exit_name(b->r->svm, reason);
}

static void build_exits(struct vma_report_builder *b, struct vma_report_vcpu *rv,
			const struct vma_vcpu *v)
{
	const struct vma_hvm_stats *st = v->hvm.stats;
	struct vma_cycles counts;
	const void **order;
	uint32_t r;

	rv->exits = vma_report_rows(b, st->nr_reasons, sizeof(*rv->exits));
	order = rv->exits ? by_code(b, st->reasons, sizeof(*st->reasons), st->nr_reasons) : NULL;
	if (!order)
		return;
	for (r = 0; r < st->nr_reasons; r++) {
		const struct vma_exit_stats *e = order[r];
		struct vma_report_exit *x;

		x = &rv->exits[rv->nr_exits++];
		x->code = e->reason;
		x->name = vma_report_exit_name(b, v, e->reason);
		counts = vma_cycles_of_counts(&e->cycles);
		vma_report_fill_stat(b, &x->stat,
				     vma_report_whole(b, &counts, e->subs ? &e->subs[0].cycles : NULL,
						      sizeof(*e->subs), e->nr_subs),
				     VMA_CYCLES_BY_COUNT);
		if (!b->full)
			continue;
		build_handlers(b, x, e);
		build_sublines(b, x, e);
	}
	free(order);
}

/* The address tables, in report.h's order (io, mmio, msr, hcall): the handlers of each. */
static const struct {
	uint32_t read, write;
	bool kvm_only;
} address_tables[VMA_REPORT_ADDRESS_TABLES] = {
	{ TRC_HVM_IOPORT_READ, TRC_HVM_IOPORT_WRITE, false },
	{ TRC_HVM_IOMEM_READ, TRC_HVM_IOMEM_WRITE, false },
	{ TRC_HVM_MSR_READ, TRC_HVM_MSR_WRITE, true },
	{ VMA_KVM_HYPERCALL, VMA_KVM_HYPERCALL, true },
};

/* How many address tables a vcpu of this trace has. */
static unsigned int address_table_count(const struct vma_report_builder *b)
{
	return b->r->kvm ? VMA_REPORT_ADDRESS_TABLES : 2;
}

void vma_report_address_subs(struct vma_report_builder *b, const struct vma_vcpu *v,
			     vma_report_sub_fn fn, void *arg)
{
	const struct vma_hvm_stats *st = vma_report_exit_table(v);
	unsigned int t;
	uint32_t r, k;

	if (!st)
		return;
	for (t = 0; t < address_table_count(b); t++) {
		for (r = 0; r < st->nr_reasons; r++) {
			const struct vma_exit_stats *e = &st->reasons[r];

			for (k = 0; k < e->nr_subs; k++) {
				const struct vma_exit_sub *s = &e->subs[k];

				if (s->handler == address_tables[t].read ||
				    s->handler == address_tables[t].write)
					fn(b, arg, t, s);
			}
		}
	}
}

/* Address rows being made: rows[i] sums into sums[i]. */
struct address_rows {
	struct vma_report_address *rows[VMA_REPORT_ADDRESS_TABLES];
	struct vma_cycles **sums[VMA_REPORT_ADDRESS_TABLES];
	size_t n[VMA_REPORT_ADDRESS_TABLES], cap_rows[VMA_REPORT_ADDRESS_TABLES];
	size_t cap_sums[VMA_REPORT_ADDRESS_TABLES];
};

/* Sub @s into its address row of table @t. */
static void address_add(struct vma_report_builder *b, void *arg, unsigned int t,
			const struct vma_exit_sub *s)
{
	struct address_rows *a = arg;
	struct vma_report_address *rows = a->rows[t];
	size_t i, n = a->n[t];

	if (b->failed)
		return;
	for (i = 0; i < n; i++) {
		if (rows[i].addr == s->key && rows[i].is_write == s->is_write)
			break;
	}
	if (i == n) {
		if (vma_grow(a->rows[t], &a->cap_rows[t], n + 1, 16) ||
		    vma_grow(a->sums[t], &a->cap_sums[t], n + 1, 16)) {
			b->failed = true;
			return;
		}
		rows = a->rows[t];
		memset(&rows[n], 0, sizeof(rows[n]));
		rows[n].addr = s->key;
		rows[n].is_write = s->is_write;
		a->sums[t][n] = vma_report_vcpu_cycles(b);
		if (!a->sums[t][n])
			return;
		a->n[t]++;
	}
	vma_cycles_merge(a->sums[t][i], &s->cycles, NULL);
}

static int by_address(const void *pa, const void *pb)
{
	const struct vma_report_address *x = pa, *y = pb;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->is_write - (int)y->is_write;
}

/* Accesses by address and direction, summed over the exit reasons: io, mmio, msr, hcall. */
static void build_addresses(struct vma_report_builder *b, struct vma_report_vcpu *rv,
			    const struct vma_vcpu *v)
{
	struct vma_report_address **out[VMA_REPORT_ADDRESS_TABLES] = { &rv->io, &rv->mmio,
									&rv->msr, &rv->hcall };
	uint32_t *nr[VMA_REPORT_ADDRESS_TABLES] = { &rv->nr_io, &rv->nr_mmio, &rv->nr_msr,
						    &rv->nr_hcall };
	struct address_rows a = { 0 };
	unsigned int t;
	size_t i;

	vma_report_address_subs(b, v, address_add, &a);
	for (t = 0; t < VMA_REPORT_ADDRESS_TABLES; t++) {
		for (i = 0; !b->failed && i < a.n[t]; i++) {
			vma_report_fill_stat(b, &a.rows[t][i].stat, a.sums[t][i],
					     VMA_CYCLES_BY_COUNT);
		}
		if (!b->failed && a.n[t])
			qsort(a.rows[t], a.n[t], sizeof(*a.rows[t]), by_address);
		if (b->failed) {
			free(a.rows[t]);
		} else {
			*out[t] = a.rows[t];
			*nr[t] = (uint32_t)a.n[t];
		}
		free(a.sums[t]);
	}
}

static void build_irqs(struct vma_report_builder *b, struct vma_report_vcpu *rv,
		       const struct vma_hvm_stats *st)
{
	const void **order;
	uint32_t r, k, n = 0;

	/* the "other" entry may hold only wake-to-halt times of vectors counted elsewhere */
	for (r = 0; r < st->nr_irqs; r++)
		n += st->irqs[r].count || (st->irqs[r].vector == VMA_IRQ_OTHER && st->irqs[r].w2h);
	rv->irqs = vma_report_rows(b, n, sizeof(*rv->irqs));
	order = rv->irqs ? by_code(b, st->irqs, sizeof(*st->irqs), st->nr_irqs) : NULL;
	if (!order)
		return;
	for (r = 0; r < st->nr_irqs; r++) {
		const struct vma_irq_stats *s = order[r];
		struct vma_report_irq *q;

		if (!s->count && !(s->vector == VMA_IRQ_OTHER && s->w2h))
			continue;
		q = &rv->irqs[rv->nr_irqs++];
		q->vector = s->vector;
		q->count = s->count;
		q->has_w2h = (s->vector < VMA_GUEST_VECTORS || s->vector == VMA_IRQ_OTHER) && s->w2h;
		for (k = 0; q->has_w2h && k < VMA_REPORT_W2H_CASES; k++)
			vma_report_fill_stat(b, &q->w2h[k], &s->w2h->cases[k], VMA_CYCLES_BY_TIME);
	}
	free(order);
}

static void build_pv(struct vma_report_builder *b, struct vma_report_vcpu *rv,
		     const struct vma_pv *pv)
{
	uint32_t i, sub = TRC_PV_HYPERCALL_SUBCALL - TRC_PV_SUBCALL;
	const struct vma_pv_count *const *order;

	rv->pv_events = vma_report_rows(b, pv->nr_counts, sizeof(*rv->pv_events));
	rv->hypercalls = vma_report_rows(b, pv->nr_hypercalls, sizeof(*rv->hypercalls));
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
	order = (const void *)by_code(b, pv->hypercalls, sizeof(*pv->hypercalls),
				      pv->nr_hypercalls);
	for (i = 0; order && rv->hypercalls && i < pv->nr_hypercalls; i++) {
		rv->hypercalls[rv->nr_hypercalls].op = order[i]->number;
		rv->hypercalls[rv->nr_hypercalls].name = order[i]->number == VMA_PV_OTHER
			? "other" : vma_hypercall_name(order[i]->number);
		rv->hypercalls[rv->nr_hypercalls++].count = order[i]->count;
	}
	free((void *)order);
	rv->traps = vma_report_rows(b, pv->nr_traps, sizeof(*rv->traps));
	order = (const void *)by_code(b, pv->traps, sizeof(*pv->traps), pv->nr_traps);
	for (i = 0; order && rv->traps && i < pv->nr_traps; i++) {
		rv->traps[rv->nr_traps++] =
			(struct vma_report_trap){ order[i]->number, order[i]->count };
	}
	free((void *)order);
}

static int eip_by_key(const void *pa, const void *pb)
{
	const struct vma_report_eip *a = pa, *b = pb;

	return a->eip < b->eip ? -1 : a->eip > b->eip;
}

static int eip_by_count(const void *pa, const void *pb)
{
	const struct vma_report_eip *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return eip_by_key(pa, pb);
}

struct vma_report_eip *vma_report_eip_rows(struct vma_report_builder *b,
					   const struct vma_eip_counts *c, uint64_t scale,
					   bool by_count, uint64_t *total, uint32_t *nr)
{
	uint32_t n = c->nr + (c->other != 0), i;
	struct vma_report_eip *rows = vma_report_rows(b, n, sizeof(*rows));

	*total = c->other;
	*nr = rows ? n : 0;
	for (i = 0; rows && i < c->nr; i++) {
		rows[i] = (struct vma_report_eip){ c->v[i].key * scale, c->v[i].count, false };
		*total += c->v[i].count;
	}
	if (rows && c->nr > 1)
		qsort(rows, c->nr, sizeof(*rows), by_count ? eip_by_count : eip_by_key);
	if (rows && c->other)
		rows[c->nr] = (struct vma_report_eip){ 0, c->other, true };
	return rows;
}

/* An HVM vcpu's rows besides exits and addresses: IRQs, IPIs, the EIP histogram. */
static void build_vcpu_extras(struct vma_report_builder *b, struct vma_report_vcpu *rv,
			      const struct vma_vcpu *v)
{
	uint64_t total;

	build_irqs(b, rv, v->hvm.stats);
	vma_report_fill_stat(b, &rv->ipi_latency, &v->hvm.ipi_latency, VMA_CYCLES_BY_COUNT);
	if (!b->eips->histogram || v->type != VMA_VCPU_HVM)
		return;
	rv->has_eip_histogram = true;
	rv->eip_histogram_vector = b->eips->histogram_vector;
	rv->eip_histogram_increment = b->eips->histogram_increment;
	rv->eip_histogram = vma_report_eip_rows(b, &v->hvm.eip_histogram,
						b->eips->histogram_increment, false, &total,
						&rv->nr_eip_histogram);
}

void vma_report_build_vcpu(struct vma_report_builder *b, struct vma_report_vcpu *rv,
			   const struct vma_vcpu *v)
{
	uint32_t i;

	b->held++;
	rv->id = v->vid;
	rv->type = v->type;
	for (i = 0; i < VMA_RS_COUNT; i++) {
		/* runnable: the samples are its kinds' (state.h) */
		vma_report_fill_stat(b, &rv->runstates[i],
				     i != VMA_RS_RUNNABLE ? &v->runstates[i]
				     : vma_report_whole(b, &v->runstates[i], v->runnable,
							sizeof(*v->runnable), VMA_RUNNABLE_COUNT),
				     VMA_CYCLES_BY_TIME);
	}
	for (i = 0; i < VMA_RUNNABLE_COUNT; i++)
		vma_report_fill_stat(b, &rv->runnable[i], &v->runnable[i], VMA_CYCLES_BY_TIME);
	vma_report_fill_stat(b, &rv->affinity,
			     vma_report_whole(b, &v->affinity_all, v->affinity_pcpu,
					      sizeof(*v->affinity_pcpu), v->nr_affinity),
			     VMA_CYCLES_BY_COUNT);
	rv->affinity_pcpu = vma_report_rows(b, v->nr_affinity, sizeof(*rv->affinity_pcpu));
	rv->affinity_pcpu_ids = vma_report_rows(b, v->nr_affinity, sizeof(*rv->affinity_pcpu_ids));
	for (i = 0; rv->affinity_pcpu && rv->affinity_pcpu_ids && i < v->nr_affinity; i++) {
		vma_report_fill_stat(b, &rv->affinity_pcpu[i], &v->affinity_pcpu[i],
				     VMA_CYCLES_BY_COUNT);
		rv->affinity_pcpu_ids[i] = v->affinity_ids[i];
	}
	rv->nr_affinity_pcpu = rv->affinity_pcpu && rv->affinity_pcpu_ids ? v->nr_affinity : 0;
	vma_report_fill_latency(&rv->latency, v->latency ? &v->latency->all : NULL);
	vma_report_fill_latency(&rv->latency_nohalt, v->latency ? &v->latency->nohalt : NULL);
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
		build_vcpu_extras(b, rv, v);
		build_addresses(b, rv, v);
	} else if (v->type == VMA_VCPU_PV && b->full) {
		build_pv(b, rv, &v->pv);
	}
}

void vma_report_free_vcpu(struct vma_report_builder *b, struct vma_report_vcpu *v)
{
	uint32_t i;

	b->held--;
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
