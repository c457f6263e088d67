/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run in two parts (state.h): a machine's summaries paused until a seam
 * and emptied there, its state kept; and the summaries of the part before
 * the seam joined to those of the part after it, as one machine taking
 * every record would have made them.  Summaries join exactly whatever
 * the split (vma_cycles_merge()); the tables of rows are built again,
 * the earlier part's rows first, so that each row has the place its first
 * appearance gives it.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/hvm-stats.h"
#include "vmalyze/shadow.h"
#include "vmalyze/state-handlers.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"

/* Bytes of rows one entry of a vcpu's cpu-affinity table holds. */
#define AFFINITY_ROW (sizeof(struct vma_cycles) + sizeof(uint32_t))

void vma_machine_pause_summaries(struct vma_machine *m)
{
	m->stats_paused = true;
	m->budget.counts_only = true;
}

static void empty(struct vma_cycles *s, uint32_t n, struct vma_cycles_budget *b)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		vma_cycles_release(&s[i], b);
}

static void affinity_free(struct vma_vcpu *v, struct vma_cycles_budget *b)
{
	empty(v->affinity_pcpu, v->nr_affinity, b);
	vma_rows_credit(b, (size_t)v->cap_affinity * AFFINITY_ROW);
	free(v->affinity_pcpu);
	free(v->affinity_ids);
	v->affinity_pcpu = NULL;
	v->affinity_ids = NULL;
	v->nr_affinity = v->cap_affinity = 0;
}

static void vcpu_resume(struct vma_vcpu *v, struct vma_cycles_budget *b)
{
	empty(v->runstates, VMA_RS_COUNT, b);
	empty(v->runnable, VMA_RUNNABLE_COUNT, b);
	empty(&v->affinity_all, 1, b);
	affinity_free(v, b);
	v->stats_paused = false;
	if (v->type == VMA_VCPU_HVM || v->type == VMA_VCPU_ARM) {
		vma_hvm_stats_destroy(v->hvm.stats);
		v->hvm.stats = NULL;
		empty(&v->hvm.ipi_latency, 1, b);
		v->hvm.stats_paused = false;
	} else if (v->type == VMA_VCPU_PV) {
		vma_pv_release(&v->pv, b);
		memset(&v->pv, 0, sizeof(v->pv));
	}
}

static void domain_resume(struct vma_domain *d, struct vma_cycles_budget *b)
{
	uint32_t i;

	empty(d->runstates, VMA_DRS_COUNT, b);
	empty(&d->total_time, 1, b);
	free(d->mem);
	d->mem = NULL;
	vma_eip_cycles_release(&d->emulate_eips, b);
	for (i = 0; i < d->nr_vcpus; i++)
		vcpu_resume(d->vcpus[i], b);
}

int vma_machine_resume_summaries(struct vma_machine *m)
{
	uint32_t i;

	for (i = 0; i < m->nr_pcpus; i++) {
		struct vma_pcpu *p = m->pcpus[i];

		if (!p)
			continue;
		empty(&p->time_running, 1, &m->budget);
		empty(&p->time_idle, 1, &m->budget);
		empty(&p->time_lost, 1, &m->budget);
		memset(p->volume, 0, sizeof(p->volume));
	}
	for (i = 0; i < m->nr_domains; i++)
		domain_resume(m->domains[i], &m->budget);
	m->budget.rows.uncapped = true;
	m->stats_paused = false;
	m->budget.counts_only = m->options.no_stats;
	return VMA_OK;
}

/* Summaries the join does not rebuild: their tables' order is not first appearance. */
static bool domain_joinable(const struct vma_domain *d)
{
	return d->emulate_eips.nr == 0 && !d->emulate_eips.other && !d->latency;
}

bool vma_machine_joinable(const struct vma_machine *m)
{
	const struct vma_eip_options *e = &m->options.eips;
	uint32_t i;

	if (m->kvm || m->budget.step || vma_rows_reached(&m->budget) || m->budget.rows.folded ||
	    m->refused ||
	    e->enumerate || e->histogram || e->cr3 || m->options.no_stats)
		return false;
	for (i = 0; i < m->nr_domains; i++) {
		if (!domain_joinable(m->domains[i]))
			return false;
	}
	return true;
}

static int join(struct vma_cycles *s, const struct vma_cycles *earlier, uint32_t n,
		struct vma_cycles_budget *b)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (vma_cycles_merge(&s[i], &earlier[i], b))
			return VMA_ERR_NOMEM;
	}
	return VMA_OK;
}

/* The union of two cpu-affinity tables, sorted by pcpu as each is. */
static int affinity_join(struct vma_vcpu *v, const struct vma_vcpu *e, struct vma_cycles_budget *b)
{
	uint32_t n = v->nr_affinity + e->nr_affinity, i = 0, j = 0, k = 0;
	struct vma_cycles *a;
	uint32_t *ids;

	if (!e->nr_affinity)
		return VMA_OK;
	a = calloc(n, sizeof(*a));
	ids = calloc(n, sizeof(*ids));
	if (!a || !ids) {
		free(a);
		free(ids);
		return VMA_ERR_NOMEM;
	}
	while (i < v->nr_affinity || j < e->nr_affinity) {
		bool mine = i < v->nr_affinity &&
			    (j == e->nr_affinity || v->affinity_ids[i] <= e->affinity_ids[j]);
		bool theirs = j < e->nr_affinity &&
			      (i == v->nr_affinity || e->affinity_ids[j] <= v->affinity_ids[i]);

		ids[k] = mine ? v->affinity_ids[i] : e->affinity_ids[j];
		if (mine)
			a[k] = v->affinity_pcpu[i++]; /* moved: its samples go with it */
		if (theirs && vma_cycles_merge(&a[k], &e->affinity_pcpu[j++], b)) {
			free(a);
			free(ids);
			return VMA_ERR_NOMEM;
		}
		k++;
	}
	vma_rows_credit(b, (size_t)v->cap_affinity * AFFINITY_ROW);
	vma_rows_force(b, (size_t)k * AFFINITY_ROW);
	free(v->affinity_pcpu);
	free(v->affinity_ids);
	v->affinity_pcpu = a;
	v->affinity_ids = ids;
	v->nr_affinity = v->cap_affinity = k;
	return VMA_OK;
}

static int vcpu_join(struct vma_vcpu *v, const struct vma_vcpu *e, struct vma_cycles_budget *b)
{
	if (join(v->runstates, e->runstates, VMA_RS_COUNT, b) ||
	    join(v->runnable, e->runnable, VMA_RUNNABLE_COUNT, b) ||
	    join(&v->affinity_all, &e->affinity_all, 1, b) || affinity_join(v, e, b))
		return VMA_ERR_NOMEM;
	if (e->type == VMA_VCPU_NONE)
		return VMA_OK;
	if (v->type != e->type)
		return VMA_ERR_FORMAT;
	if (e->type == VMA_VCPU_PV)
		return vma_pv_prepend(&v->pv, &e->pv, b);
	if (join(&v->hvm.ipi_latency, &e->hvm.ipi_latency, 1, b))
		return VMA_ERR_NOMEM;
	return vma_hvm_stats_prepend(&v->hvm.stats, e->hvm.stats, b);
}

static void mem_join(struct vma_domain_mem *m, const struct vma_domain_mem *e)
{
	uint32_t i, j;

	for (i = 0; i < VMA_GRANT_OPS; i++) {
		m->grant_done[i] += e->grant_done[i];
		m->grant_done_for[i] += e->grant_done_for[i];
	}
	for (i = 0; i < VMA_POD_ORDERS; i++) {
		m->pod_populate[i] += e->pod_populate[i];
		m->pod_reclaim[i] += e->pod_reclaim[i];
		for (j = 0; j < VMA_POD_CTX_COUNT; j++)
			m->pod_context[j][i] += e->pod_context[j][i];
	}
}

static int domain_join(struct vma_domain *d, const struct vma_domain *e,
		       struct vma_cycles_budget *b)
{
	uint32_t i;
	int rc;

	if (join(d->runstates, e->runstates, VMA_DRS_COUNT, b) ||
	    join(&d->total_time, &e->total_time, 1, b))
		return VMA_ERR_NOMEM;
	if (e->mem) {
		if (!d->mem)
			d->mem = calloc(1, sizeof(*d->mem));
		if (!d->mem)
			return VMA_ERR_NOMEM;
		mem_join(d->mem, e->mem);
	}
	for (i = 0; i < e->nr_vcpus; i++) {
		struct vma_vcpu *v = vma_vcpu_find(d, e->vcpus[i]->vid);

		/* The later part read every record: it knows every vcpu. */
		if (!v)
			return VMA_ERR_FORMAT;
		rc = vcpu_join(v, e->vcpus[i], b);
		if (rc)
			return rc;
	}
	return VMA_OK;
}

int vma_machine_prepend(struct vma_machine *m, const struct vma_machine *earlier)
{
	uint32_t i, c;
	int rc;

	/* The joined tables are capped where the whole run's were. */
	m->budget.rows.uncapped = false;
	for (i = 0; i < earlier->nr_pcpus; i++) {
		const struct vma_pcpu *e = earlier->pcpus[i];
		struct vma_pcpu *p = vma_pcpu_of(m, i);

		if (!e)
			continue;
		if (!p)
			return VMA_ERR_FORMAT;
		if (join(&p->time_running, &e->time_running, 1, &m->budget) ||
		    join(&p->time_idle, &e->time_idle, 1, &m->budget) ||
		    join(&p->time_lost, &e->time_lost, 1, &m->budget))
			return VMA_ERR_NOMEM;
		for (c = 0; c < VMA_VOL_COUNT; c++)
			p->volume[c] += e->volume[c];
	}
	for (i = 0; i < earlier->nr_domains; i++) {
		struct vma_domain *d = vma_domain_find(m, earlier->domains[i]->did);

		if (!d)
			return VMA_ERR_FORMAT;
		rc = domain_join(d, earlier->domains[i], &m->budget);
		if (rc)
			return rc;
	}
	/* Joined, the summaries must fit where one run's would have. */
	return vma_machine_joinable(m) ? VMA_OK : VMA_ERR_FORMAT;
}
