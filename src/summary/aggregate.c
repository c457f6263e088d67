/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Batch results across traces (contract in vmalyze/aggregate.h): each
 * trace's exits per reason and per VM, copied from its report, and the
 * sorted view the aggregate renderers read.
 */
#include <stdlib.h>
#include <string.h>

#include "summary/aggregate-internal.h"
#include "vmalyze/grow.h"
#include "vmalyze/status.h"

static const char *const platforms[] = {
	"kvm-arm", "kvm-svm", "kvm-vmx", "xen-svm", "xen-vmx",
};

const char *vma_agg_platform_intern(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(platforms) / sizeof(platforms[0]); i++) {
		if (!strcmp(platforms[i], name))
			return platforms[i];
	}
	return NULL;
}

const char *vma_report_platform(const struct vma_report *r)
{
	if (r->kvm && r->arm)
		return "kvm-arm";
	if (r->kvm)
		return r->svm ? "kvm-svm" : "kvm-vmx";
	return r->svm ? "xen-svm" : "xen-vmx";
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

int vma_agg_key_cmp(const struct vma_agg_key *a, const struct vma_agg_key *b)
{
	int c = strcmp(a->platform, b->platform);

	if (c)
		return c;
	if (a->code != b->code)
		return a->code < b->code ? -1 : 1;
	if (a->unit != b->unit)
		return a->unit < b->unit ? -1 : 1;
	return cmp_u64(a->hz, b->hz);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct vma_aggregate *vma_aggregate_create(const struct vma_aggregate_options *opts)
{
	struct vma_aggregate *agg = calloc(1, sizeof(*agg));

	if (agg)
		agg->opts = *opts;
	return agg;
}

/* Memory of one view: the sorted traces and their rows, the merged distributions. */
struct view_mem {
	struct vma_aggregate_trace *traces;
	struct vma_aggregate_reason *reasons;
	struct vma_aggregate_exit *exits;
	struct vma_aggregate_vm *vms;
	struct vma_cycles *dists; /* one per reason */
	uint32_t nr_dists;
};

static void view_mem_free(struct view_mem *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; m->dists && i < m->nr_dists; i++)
		vma_cycles_release(&m->dists[i], NULL);
	free(m->traces);
	free(m->reasons);
	free(m->exits);
	free(m->vms);
	free(m->dists);
	free(m);
}

static void view_free(struct vma_aggregate *agg)
{
	view_mem_free(agg->view_mem);
	free(agg->view);
	agg->view = NULL;
	agg->view_mem = NULL;
}

static void trace_release(struct vma_agg_trace *t)
{
	size_t i;

	free(t->file);
	free(t->member);
	for (i = 0; i < t->nr_vms; i++)
		free(t->vms[i].name);
	free(t->vms);
	for (i = 0; i < t->nr_exits; i++) {
		free(t->exits[i].name);
		vma_cycles_release(&t->exits[i].dist, NULL);
	}
	free(t->exits);
}

void vma_aggregate_destroy(struct vma_aggregate *agg)
{
	size_t i;

	if (!agg)
		return;
	view_free(agg);
	for (i = 0; i < agg->nr_traces; i++)
		trace_release(&agg->traces[i]);
	free(agg->traces);
	free(agg);
}

struct vma_agg_trace *vma_agg_trace_new(struct vma_aggregate *agg)
{
	struct vma_agg_trace *t;

	view_free(agg);
	if (vma_grow(agg->traces, &agg->cap_traces, agg->nr_traces + 1, 16))
		return NULL;
	t = &agg->traces[agg->nr_traces++];
	memset(t, 0, sizeof(*t));
	t->seq = agg->seq++;
	t->origin = -1;
	return t;
}

void vma_agg_trace_drop_last(struct vma_aggregate *agg)
{
	trace_release(&agg->traces[--agg->nr_traces]);
}

static int exit_cmp(const void *a, const void *b)
{
	const struct vma_agg_exit *x = a, *y = b;

	return vma_agg_key_cmp(&x->key, &y->key);
}

void vma_agg_trace_sort(struct vma_agg_trace *t)
{
	if (t->nr_exits > 1)
		qsort(t->exits, t->nr_exits, sizeof(*t->exits), exit_cmp);
}

/* The trace's exit of @key, added when new; NULL when out of memory. */
static struct vma_agg_exit *trace_exit(struct vma_agg_trace *t, size_t *cap,
				       const struct vma_agg_key *key, const char *name)
{
	struct vma_agg_exit *x;
	size_t i;

	/* A trace has a few dozen reasons at most: a linear search is enough. */
	for (i = 0; i < t->nr_exits; i++) {
		if (!vma_agg_key_cmp(&t->exits[i].key, key))
			return &t->exits[i];
	}
	if (vma_grow(t->exits, cap, t->nr_exits + 1, 8))
		return NULL;
	x = &t->exits[t->nr_exits];
	memset(x, 0, sizeof(*x));
	x->key = *key;
	x->name = dup_or_null(name);
	if (name && !x->name)
		return NULL;
	t->nr_exits++;
	return x;
}

static int add_exits(struct vma_agg_trace *t, const struct vma_report *r)
{
	size_t cap_exits = 0, cap_vms = 0;
	uint32_t d, v, e;

	for (d = 0; d < r->nr_domains; d++) {
		const struct vma_report_domain *dom = &r->domains[d];
		uint64_t exits = 0;

		for (v = 0; v < dom->nr_vcpus; v++) {
			const struct vma_report_vcpu *vc = vma_report_vcpu(r, dom, v);

			if (!vc)
				return VMA_ERR_NOMEM;
			for (e = 0; e < vc->nr_exits; e++) {
				const struct vma_report_exit *x = &vc->exits[e];
				struct vma_agg_key key = { t->platform, x->code, r->unit, r->hz };
				struct vma_agg_exit *ax;

				if (!x->stat.events)
					continue;
				ax = trace_exit(t, &cap_exits, &key, x->name);
				if (!ax)
					return VMA_ERR_NOMEM;
				/* A reason with only zero-length exits has no distribution. */
				if (x->stat.dist) {
					if (vma_cycles_merge(&ax->dist, x->stat.dist, NULL))
						return VMA_ERR_NOMEM;
				} else {
					ax->dist.events += x->stat.events;
				}
				exits += x->stat.events;
			}
		}
		if (!exits)
			continue;
		if (vma_grow(t->vms, &cap_vms, t->nr_vms + 1, 4))
			return VMA_ERR_NOMEM;
		t->vms[t->nr_vms] = (struct vma_agg_vm){ dom->id, dup_or_null(dom->name), exits };
		if (dom->name && !t->vms[t->nr_vms].name)
			return VMA_ERR_NOMEM;
		t->nr_vms++;
	}
	vma_agg_trace_sort(t);
	return VMA_OK;
}

int vma_aggregate_add(struct vma_aggregate *agg, const struct vma_report *r, const char *file,
		      const char *member, int status)
{
	struct vma_agg_trace *t = vma_agg_trace_new(agg);
	int rc;

	if (!t)
		return VMA_ERR_NOMEM;
	t->file = strdup(file);
	t->member = dup_or_null(member);
	t->status = status;
	t->failed = !r;
	if (!t->file || (member && !t->member)) {
		vma_agg_trace_drop_last(agg);
		return VMA_ERR_NOMEM;
	}
	if (!r)
		return VMA_OK;
	t->platform = vma_report_platform(r);
	t->unit = r->unit;
	t->hz = r->hz;
	t->records = r->records;
	t->lost_records = r->lost_records;
	t->total = r->total;
	rc = add_exits(t, r);
	if (rc)
		vma_agg_trace_drop_last(agg);
	return rc;
}

/* ---- the view ---- */

static int str_cmp_null(const char *a, const char *b)
{
	if (!a || !b) {
		return a ? 1 : b ? -1 : 0; /* a plain file sorts before archive members */
	}
	return strcmp(a, b);
}

static int trace_cmp(const void *pa, const void *pb)
{
	const struct vma_agg_trace *a = *(const struct vma_agg_trace *const *)pa;
	const struct vma_agg_trace *b = *(const struct vma_agg_trace *const *)pb;
	int c = strcmp(a->file, b->file);

	if (c)
		return c;
	c = str_cmp_null(a->member, b->member);
	return c ? c : cmp_u64(a->seq, b->seq);
}

/* Keep @r's VMA_AGGREGATE_WORST highest p95s, ties to the earlier trace. */
static void note_worst(struct vma_aggregate_reason *r, uint32_t trace, uint64_t p95)
{
	uint32_t i = r->nr_worst;

	if (i == VMA_AGGREGATE_WORST) {
		if (p95 <= r->worst[i - 1].p95)
			return;
		i--;
	} else {
		r->nr_worst++;
	}
	while (i > 0 && r->worst[i - 1].p95 < p95) {
		r->worst[i] = r->worst[i - 1];
		i--;
	}
	r->worst[i] = (struct vma_aggregate_worst){ trace, p95 };
}

/* The distinct exit keys of every trace, sorted; each trace's exits point to theirs. */
static int gather_reasons(struct vma_agg_trace **order, size_t n, struct view_mem *m,
			  uint32_t *nr_reasons)
{
	size_t i, j, cap = 0, nr = 0;
	struct vma_agg_exit **keys = NULL;

	for (i = 0; i < n; i++) {
		for (j = 0; j < order[i]->nr_exits; j++) {
			if (vma_grow(keys, &cap, nr + 1, 32)) {
				free(keys);
				return VMA_ERR_NOMEM;
			}
			keys[nr++] = &order[i]->exits[j];
		}
	}
	m->reasons = calloc(nr ? nr : 1, sizeof(*m->reasons));
	m->dists = calloc(nr ? nr : 1, sizeof(*m->dists));
	m->nr_dists = (uint32_t)nr;
	if (!m->reasons || !m->dists) {
		free(keys);
		return VMA_ERR_NOMEM;
	}
	/* Insertion into a sorted, distinct list: reasons are few. */
	*nr_reasons = 0;
	for (i = 0; i < nr; i++) {
		uint32_t lo = 0, hi = *nr_reasons, mid;
		struct vma_agg_key probe;
		int c = 1;

		while (lo < hi) {
			mid = (lo + hi) / 2;
			probe = (struct vma_agg_key){ m->reasons[mid].platform,
						      m->reasons[mid].code,
						  m->reasons[mid].unit, m->reasons[mid].hz };
			c = vma_agg_key_cmp(&keys[i]->key, &probe);
			if (c == 0)
				break;
			if (c < 0)
				hi = mid;
			else
				lo = mid + 1;
		}
		if (lo < hi)
			continue;
		memmove(&m->reasons[lo + 1], &m->reasons[lo],
			(*nr_reasons - lo) * sizeof(*m->reasons));
		m->reasons[lo] = (struct vma_aggregate_reason){
			.platform = keys[i]->key.platform, .code = keys[i]->key.code,
			.name = keys[i]->name, .unit = keys[i]->key.unit, .hz = keys[i]->key.hz,
		};
		(*nr_reasons)++;
	}
	free(keys);
	return VMA_OK;
}

static uint32_t reason_index(const struct view_mem *m, uint32_t nr, const struct vma_agg_key *key)
{
	uint32_t lo = 0, hi = nr, mid;

	while (lo < hi) {
		struct vma_agg_key probe;
		int c;

		mid = (lo + hi) / 2;
		probe = (struct vma_agg_key){ m->reasons[mid].platform, m->reasons[mid].code,
					  m->reasons[mid].unit, m->reasons[mid].hz };
		c = vma_agg_key_cmp(key, &probe);
		if (c == 0)
			return mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return nr; /* not reached: every key was gathered */
}

static int fill_traces(struct vma_agg_trace **order, size_t n, struct view_mem *m,
		       uint32_t nr_reasons)
{
	size_t i, j, nx = 0, nv = 0;

	for (i = 0; i < n; i++) {
		nx += order[i]->nr_exits;
		nv += order[i]->nr_vms;
	}
	m->exits = calloc(nx ? nx : 1, sizeof(*m->exits));
	m->vms = calloc(nv ? nv : 1, sizeof(*m->vms));
	if (!m->exits || !m->vms)
		return VMA_ERR_NOMEM;
	nx = nv = 0;
	for (i = 0; i < n; i++) {
		struct vma_agg_trace *t = order[i];
		struct vma_aggregate_trace *vt = &m->traces[i];

		*vt = (struct vma_aggregate_trace){
			.file = t->file, .member = t->member, .status = t->status,
			.failed = t->failed, .platform = t->platform, .unit = t->unit, .hz = t->hz,
			.records = t->records, .lost_records = t->lost_records, .total = t->total,
			.vms = &m->vms[nv], .nr_vms = (uint32_t)t->nr_vms,
			.exits = &m->exits[nx], .nr_exits = (uint32_t)t->nr_exits,
		};
		for (j = 0; j < t->nr_vms; j++) {
			m->vms[nv++] = (struct vma_aggregate_vm){ t->vms[j].id, t->vms[j].name,
								  t->vms[j].exits };
		}
		for (j = 0; j < t->nr_exits; j++) {
			struct vma_aggregate_exit *x = &m->exits[nx++];
			uint32_t k = reason_index(m, nr_reasons, &t->exits[j].key);
			struct vma_aggregate_reason *r = &m->reasons[k];

			x->reason = k;
			vma_report_stat_fill(&x->stat, &t->exits[j].dist, VMA_CYCLES_BY_COUNT,
					     true);
			if (vma_cycles_merge(&m->dists[k], &t->exits[j].dist, NULL))
				return VMA_ERR_NOMEM;
			r->nr_traces++;
			if (!r->name)
				r->name = t->exits[j].name;
			if (x->stat.count)
				note_worst(r, (uint32_t)i, x->stat.p95);
		}
	}
	for (i = 0; i < nr_reasons; i++)
		vma_report_stat_fill(&m->reasons[i].stat, &m->dists[i], VMA_CYCLES_BY_COUNT, true);
	return VMA_OK;
}

const struct vma_aggregate_view *vma_aggregate_view(struct vma_aggregate *agg)
{
	struct view_mem *m;
	struct vma_aggregate_view *v;
	struct vma_agg_trace **order;
	size_t i, n = agg->nr_traces;
	uint32_t nr_reasons = 0;
	int rc;

	view_free(agg);
	v = calloc(1, sizeof(*v));
	m = calloc(1, sizeof(*m));
	order = calloc(n ? n : 1, sizeof(*order));
	if (!v || !m || !order)
		goto fail;
	for (i = 0; i < n; i++) {
		order[i] = &agg->traces[i];
		v->nr_failed += agg->traces[i].status != VMA_OK;
		v->records += agg->traces[i].records;
		v->lost_records += agg->traces[i].lost_records;
	}
	qsort(order, n, sizeof(*order), trace_cmp);
	m->traces = calloc(n ? n : 1, sizeof(*m->traces));
	if (!m->traces)
		goto fail;
	rc = gather_reasons(order, n, m, &nr_reasons);
	if (rc == VMA_OK)
		rc = fill_traces(order, n, m, nr_reasons);
	if (rc)
		goto fail;
	v->nr_traces = (uint32_t)n;
	v->traces = m->traces;
	v->nr_reasons = nr_reasons;
	v->reasons = m->reasons;
	free(order);
	agg->view = v;
	agg->view_mem = m;
	return v;
fail:
	view_mem_free(m);
	free(v);
	free(order);
	return NULL;
}
