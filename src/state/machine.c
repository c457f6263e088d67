/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The machine model's containers: pcpus, domains and vcpus, created on
 * first sight and grown on demand (no fixed limit on pcpus or vcpus).
 * Domains are kept sorted by id, as the summary lists them.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/state-handlers.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"

static const char *const runstate_names[VMA_RS_COUNT] = {
	[VMA_RS_RUNNING] = "running", [VMA_RS_RUNNABLE] = "runnable",
	[VMA_RS_BLOCKED] = "blocked", [VMA_RS_OFFLINE] = "offline",
	[VMA_RS_LOST] = "lost",       [VMA_RS_QUEUED] = "queued",
	[VMA_RS_INIT] = "init",
};

static const char *const volume_names[VMA_VOL_COUNT] = {
	[VMA_VOL_GEN] = "gen",       [VMA_VOL_SCHED] = "sched", [VMA_VOL_DOM0OP] = "dom0op",
	[VMA_VOL_HVM] = "hvm",       [VMA_VOL_MEM] = "mem",     [VMA_VOL_PV] = "pv",
	[VMA_VOL_SHADOW] = "shadow", [VMA_VOL_HW] = "hw",       [VMA_VOL_OTHER] = "other",
	[VMA_VOL_HVM_VMENTRY] = "vmentry", [VMA_VOL_HVM_VMEXIT] = "vmexit",
	[VMA_VOL_HVM_HANDLER] = "handler", [VMA_VOL_HVM_EMUL] = "emul",
};

const char *vma_volume_class_name(enum vma_volume_class c)
{
	return c < VMA_VOL_COUNT ? volume_names[c] : NULL;
}

static const char *const runnable_names[VMA_RUNNABLE_COUNT] = {
	[VMA_RUNNABLE_WAKE] = "wake",
	[VMA_RUNNABLE_PREEMPT] = "preempt",
	[VMA_RUNNABLE_OTHER] = "other",
};

static const char *const domain_runstate_names[VMA_DRS_COUNT] = {
	[VMA_DRS_BLOCKED] = "blocked",
	[VMA_DRS_PARTIAL_RUN] = "partial run",
	[VMA_DRS_FULL_RUN] = "full run",
	[VMA_DRS_PARTIAL_CONTENTION] = "partial contention",
	[VMA_DRS_CONCURRENCY_HAZARD] = "concurrency_hazard",
	[VMA_DRS_FULL_CONTENTION] = "full_contention",
	[VMA_DRS_LOST] = "lost",
};

const char *vma_vcpu_runstate_name(enum vma_runstate state)
{
	return state < VMA_RS_COUNT ? runstate_names[state] : "?";
}

const char *vma_runnable_kind_name(enum vma_runnable_kind kind)
{
	return kind < VMA_RUNNABLE_COUNT ? runnable_names[kind] : "?";
}

const char *vma_domain_runstate_name(enum vma_domain_runstate state)
{
	return state < VMA_DRS_COUNT ? domain_runstate_names[state] : "?";
}

struct vma_machine *vma_machine_create(struct vma_diag *diag,
				       const struct vma_machine_options *options)
{
	struct vma_machine *m = calloc(1, sizeof(*m));
	size_t budget;

	if (!m)
		return NULL;
	m->diag = diag;
	if (options)
		m->options = *options;
	m->svm = m->options.force_svm;
	m->vendor_known = m->options.force_svm;
	m->kvm = m->options.kvm;
	m->kvm_window = m->options.kvm_window;
	budget = m->options.summary_budget ? m->options.summary_budget : VMA_CYCLES_BUDGET_DEFAULT;
	vma_cycles_budget_init(&m->budget, budget == SIZE_MAX ? 0 : budget);
	m->budget.counts_only = m->options.no_stats;
	budget = m->options.rows_budget ? m->options.rows_budget : VMA_ROWS_BUDGET_DEFAULT;
	m->budget.rows.limit = budget == SIZE_MAX ? 0 : budget;
	m->budget.records = &m->records;
	m->budget.tsc = &m->last_tsc;
	m->default_domain = vma_domain_get(m, VMA_DEFAULT_DOMAIN);
	if (!m->default_domain) {
		vma_machine_destroy(m);
		return NULL;
	}
	return m;
}

static void vcpu_destroy(struct vma_vcpu *v, struct vma_cycles_budget *b);

static void latency_free(struct vma_latency_pair *l)
{
	if (l) {
		free(l->all.ring);
		free(l->nohalt.ring);
	}
	free(l);
}

static void domain_destroy(struct vma_domain *d, struct vma_cycles_budget *b)
{
	uint32_t i;

	for (i = 0; i < d->nr_vcpus; i++)
		vcpu_destroy(d->vcpus[i], b);
	for (i = 0; i < VMA_DRS_COUNT; i++)
		vma_cycles_release(&d->runstates[i], b);
	vma_cycles_release(&d->total_time, b);
	vma_eip_counts_release(&d->interrupt_eips, b);
	vma_cr3_list_release(&d->cr3s, b);
	vma_eip_cycles_release(&d->emulate_eips, b);
	latency_free(d->latency);
	free(d->mem);
	free(d->vcpus);
	free(d);
}

void vma_hvm_stats_destroy(struct vma_hvm_stats *stats);

static void vcpu_destroy(struct vma_vcpu *v, struct vma_cycles_budget *b)
{
	uint32_t i;

	if (!v)
		return;
	for (i = 0; i < VMA_RS_COUNT; i++)
		vma_cycles_release(&v->runstates[i], b);
	for (i = 0; i < VMA_RUNNABLE_COUNT; i++)
		vma_cycles_release(&v->runnable[i], b);
	vma_cycles_release(&v->affinity_all, b);
	for (i = 0; i < v->nr_affinity; i++)
		vma_cycles_release(&v->affinity_pcpu[i], b);
	vma_rows_credit(b, (size_t)v->cap_affinity *
			   (sizeof(*v->affinity_pcpu) + sizeof(*v->affinity_ids)));
	free(v->affinity_pcpu);
	free(v->affinity_ids);
	vma_rows_credit(b, v->ipis.cap * sizeof(*v->ipis.list));
	free(v->ipis.list);
	latency_free(v->latency);
	if (v->type == VMA_VCPU_HVM || v->type == VMA_VCPU_ARM) {
		vma_hvm_stats_destroy(v->hvm.stats);
		if (v->hvm.w2h) {
			vma_rows_credit(b, v->hvm.w2h->cap_starts * sizeof(*v->hvm.w2h->starts));
			free(v->hvm.w2h->starts);
		}
		free(v->hvm.w2h);
		vma_eip_counts_release(&v->hvm.eip_histogram, b);
		vma_cycles_release(&v->hvm.ipi_latency, b);
	} else if (v->type == VMA_VCPU_PV) {
		vma_pv_release(&v->pv, b);
	}
	free(v);
}

void vma_machine_destroy(struct vma_machine *m)
{
	uint32_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr_domains; i++)
		domain_destroy(m->domains[i], &m->budget);
	free(m->domains);
	for (i = 0; i < m->nr_pcpus; i++) {
		struct vma_pcpu *p = m->pcpus[i];

		if (!p)
			continue;
		vma_cycles_release(&p->time_running, &m->budget);
		vma_cycles_release(&p->time_idle, &m->budget);
		vma_cycles_release(&p->time_lost, &m->budget);
		free(p->kvm_vms);
		free(p->downstream);
		free(p);
	}
	free(m->pcpus);
	free(m->columns);
	vma_vlapic_release(&m->vlapic);
	vma_kvm_threads_destroy(m->kvm_threads);
	free(m->kvm_counts);
	vma_cycles_budget_release(&m->budget);
	free(m);
}

/* Grow an array of pointers to hold index @idx, zero-filling new slots. */
static bool grow_ptrs(void ***arr, uint32_t *nr, uint32_t idx)
{
	uint32_t n = *nr ? *nr : 4;
	void **a;

	if (idx < *nr)
		return true;
	/* Past 2^31 doubling would wrap to 0: no such table is made. */
	if (idx >= UINT32_MAX / 2)
		return false;
	while (n <= idx)
		n *= 2;
	a = realloc(*arr, n * sizeof(*a));
	if (!a)
		return false;
	memset(a + *nr, 0, (n - *nr) * sizeof(*a));
	*arr = a;
	*nr = n;
	return true;
}

/* Where domain @did is or would go in @m's sorted table. */
static uint32_t domain_slot(const struct vma_machine *m, uint32_t did)
{
	uint32_t lo = 0, hi = m->nr_domains;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (m->domains[mid]->did < did)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct vma_domain *vma_domain_find(const struct vma_machine *m, uint32_t did)
{
	uint32_t i = domain_slot(m, did);

	return i < m->nr_domains && m->domains[i]->did == did ? m->domains[i] : NULL;
}

struct vma_domain *vma_domain_get(struct vma_machine *m, uint32_t did)
{
	struct vma_domain **cached = &m->domain_cache[did % VMA_DOMAIN_CACHE];
	uint32_t lo;
	struct vma_domain *d;

	/* Runstate records name a domain each: most are among the last few. */
	if (*cached && (*cached)->did == did)
		return *cached;
	lo = domain_slot(m, did);
	if (lo < m->nr_domains && m->domains[lo]->did == did)
		return *cached = m->domains[lo];
	/* The default domain, made first, is not one of them: never refused. */
	if (m->nr_domains > VMA_MAX_DOMAINS) {
		m->refused++;
		return NULL;
	}
	if (m->nr_domains == m->cap_domains) {
		uint32_t cap = m->cap_domains ? m->cap_domains * 2 : 8;
		struct vma_domain **arr = realloc(m->domains, cap * sizeof(*arr));

		if (!arr)
			return NULL;
		m->domains = arr;
		m->cap_domains = cap;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->did = did;
	memmove(m->domains + lo + 1, m->domains + lo,
		(m->nr_domains - lo) * sizeof(*m->domains));
	m->domains[lo] = d;
	m->nr_domains++;
	return *cached = d;
}

/*
 * Where vcpu @vid is or would go in @d's sorted table.  Vcpus 0..n-1 all
 * seen, the usual case, sit at their own index: no search.
 */
static uint32_t vcpu_slot(const struct vma_domain *d, uint32_t vid)
{
	uint32_t lo = 0, hi = d->nr_vcpus;

	if (vid < d->nr_vcpus && d->vcpus[vid]->vid == vid)
		return vid;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->vcpus[mid]->vid < vid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct vma_vcpu *vma_vcpu_find(const struct vma_domain *d, uint32_t vid)
{
	uint32_t at = vcpu_slot(d, vid);

	return at < d->nr_vcpus && d->vcpus[at]->vid == vid ? d->vcpus[at] : NULL;
}

/*
 * The table holds only the vcpus seen (a vcpu id can be as high as 65535
 * in any domain): memory follows the records, not the ids in them.
 */
struct vma_vcpu *vma_vcpu_get_slow(struct vma_machine *m, uint32_t did, uint32_t vid)
{
	struct vma_domain *d = vma_domain_get(m, did);
	struct vma_vcpu *v;
	uint32_t at;

	if (!d)
		return NULL;
	at = vcpu_slot(d, vid);
	if (at < d->nr_vcpus && d->vcpus[at]->vid == vid)
		return d->vcpus[at];
	if (did != VMA_DEFAULT_DOMAIN && m->nr_guest_vcpus >= VMA_MAX_VCPUS) {
		m->refused++;
		return NULL;
	}
	if (d->nr_vcpus == d->cap_vcpus) {
		uint32_t cap = d->cap_vcpus ? d->cap_vcpus * 2 : 4;
		struct vma_vcpu **arr = realloc(d->vcpus, cap * sizeof(*arr));

		if (!arr)
			return NULL;
		d->vcpus = arr;
		d->cap_vcpus = cap;
	}
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->domain = d;
	v->idle = d->did == VMA_IDLE_DOMAIN;
	v->no_stats = m->options.no_stats;
	v->stats_paused = m->stats_paused;
	v->budget = &m->budget;
	v->vid = vid;
	v->state = VMA_RS_INIT;
	d->vcpus_in[VMA_RS_INIT]++;
	v->last_oldstate.wrong = VMA_RS_INIT;
	memmove(d->vcpus + at + 1, d->vcpus + at, (d->nr_vcpus - at) * sizeof(*d->vcpus));
	d->vcpus[at] = v;
	d->nr_vcpus++;
	m->nr_guest_vcpus += did != VMA_DEFAULT_DOMAIN;
	return v;
}

int vma_machine_refused(struct vma_machine *m, uint64_t offset)
{
	if (m->refusal_reported)
		return VMA_OK;
	m->refusal_reported = true;
	/* The file is the diag's source (vma_diag_set_source()). */
	if (!vma_diag_report(m->diag, VMA_LVL_LIMIT, NULL, offset,
			     "Record naming a domain or vcpu past the first %u domains and %u "
			     "vcpus: the trace is likely damaged; records of further domains and "
			     "vcpus are skipped (--tolerance %d reads on without them)",
			     VMA_MAX_DOMAINS, VMA_MAX_VCPUS, VMA_LVL_LIMIT))
		return VMA_ERR_DAMAGED;
	return VMA_OK;
}

int vma_machine_add_pcpu(struct vma_machine *m, uint32_t id)
{
	struct vma_pcpu *p;
	struct vma_vcpu *v;
	uint32_t old_nr = m->nr_pcpus;

	if (!grow_ptrs((void ***)&m->pcpus, &m->nr_pcpus, id))
		return VMA_ERR_NOMEM;
	if (m->nr_pcpus != old_nr) {
		char *columns = realloc(m->columns, m->nr_pcpus);

		if (!columns)
			return VMA_ERR_NOMEM;
		memset(columns + old_nr, ' ', m->nr_pcpus - old_nr);
		m->columns = columns;
	}
	if (m->pcpus[id])
		return VMA_OK;
	p = calloc(1, sizeof(*p));
	if (!p)
		return VMA_ERR_NOMEM;
	p->id = id;
	p->active = true;
	m->pcpus[id] = p;
	if (id + 1 > m->max_pcpu)
		m->max_pcpu = id + 1;
	/*
	 * Until the first scheduling record, whatever runs on a pcpu is
	 * unknown: charge it to vcpu <pcpu> of the default domain.
	 */
	v = vma_vcpu_get(m, VMA_DEFAULT_DOMAIN, id);
	if (!v)
		return VMA_ERR_NOMEM;
	v->activated = true;
	v->pcpu = p;
	vma_vcpu_set_state(v, VMA_RS_RUNNING);
	p->current = v;
	vma_pcpu_changed(m, p);
	return VMA_OK;
}
