/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IPI latency (vlapic.h).  xenalyze's version (3366-3578) opens an entry
 * for every vector injected, sent or not, measures from a send time it
 * never set, and keeps no summary of it (its update is compiled out).
 * Here only a vector that was sent is followed, its latency runs from the
 * first unanswered send to the vmentry after its injection, and each
 * target vcpu sums them.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/grow.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"

#define ICR_SHORTHAND(icr) (((icr) >> 18) & 3u)
#define ICR_ALL_INCLUDING_SELF 2u
#define ICR_ALL_EXCLUDING_SELF 3u

static inline bool held(const struct vma_vcpu_ipis *q, uint32_t vec)
{
	return vec < 256 && (q->held[vec / 64] >> (vec % 64) & 1);
}

static inline void hold(struct vma_vcpu_ipis *q, uint32_t vec, bool on)
{
	uint64_t bit = (uint64_t)1 << (vec % 64);

	q->held[vec / 64] = on ? q->held[vec / 64] | bit : q->held[vec / 64] & ~bit;
}

static struct vma_ipi_outstanding *find(struct vma_vcpu_ipis *q, uint32_t vec)
{
	size_t i;

	if (!held(q, vec))
		return NULL;
	for (i = 0; i < q->nr; i++) {
		if (q->list[i].vec == vec)
			return &q->list[i];
	}
	return NULL;
}

static void send(struct vma_machine *m, struct vma_vcpu *v, uint32_t vec, uint64_t tsc)
{
	struct vma_vcpu_ipis *q = &v->ipis;
	struct vma_ipi_outstanding *o;

	/* Nothing is known of a vcpu inside a lost-records gap. */
	if (v->state == VMA_RS_LOST)
		return;
	o = find(q, vec);
	if (!o) {
		bool refused;

		/*
		 * The room is a table of rows (cycles.h): past the rows'
		 * budget, an IPI to a vcpu with no room left is not timed.
		 */
		if (!vma_rows_grow(&m->budget, &q->list, &q->cap, q->nr, sizeof(*q->list), 4,
				   &refused)) {
			if (!refused)
				vma_diag_warn_once(m->diag, "ipi-nomem", "Out of memory: IPIs are "
						   "missing from the IPI latencies");
			return;
		}
		o = &q->list[q->nr++];
		*o = (struct vma_ipi_outstanding){ .vec = (uint8_t)vec, .first_tsc = tsc };
		hold(q, o->vec, true);
	}
	o->sends++;
}

void vma_vlapic_icr_write(struct vma_machine *m, const struct vma_vcpu *from, uint32_t icr,
			  uint64_t tsc)
{
	const struct vma_domain *d = from->domain;
	uint32_t shorthand = ICR_SHORTHAND(icr), i;

	if (shorthand != ICR_ALL_EXCLUDING_SELF && shorthand != ICR_ALL_INCLUDING_SELF)
		return;
	for (i = 0; i < d->nr_vcpus; i++) {
		struct vma_vcpu *v = d->vcpus[i];

		if (v && (v != from || shorthand == ICR_ALL_INCLUDING_SELF))
			send(m, v, icr & 0xffu, tsc);
	}
}

void vma_vlapic_inject(struct vma_vcpu *v, uint32_t vec)
{
	struct vma_ipi_outstanding *o = v->ipis.nr ? find(&v->ipis, vec) : NULL;

	if (o && !o->injected) {
		o->injected = true;
		v->ipis.injected++;
	}
}

void vma_vlapic_vmentry(struct vma_machine *m, struct vma_vcpu *v, uint64_t tsc)
{
	struct vma_vlapic *vl = &m->vlapic;
	struct vma_vcpu_ipis *q = &v->ipis;
	size_t i = 0;

	while (q->injected && i < q->nr) {
		struct vma_ipi_outstanding *o = &q->list[i];
		uint64_t lat;

		if (!o->injected) {
			i++;
			continue;
		}
		lat = tsc >= o->first_tsc ? tsc - o->first_tsc : 0;
		vma_cycles_add(&v->hvm.ipi_latency, lat, &m->budget);
		if (vl->done_record != m->records) {
			vl->done_record = m->records;
			vl->nr_done = 0;
		}
		if (!vma_grow(vl->done, &vl->cap_done, vl->nr_done + 1, 4)) {
			vl->done[vl->nr_done++] =
				(struct vma_ipi_delivery){ v, o->vec, o->sends, lat };
		}
		q->injected--;
		hold(q, o->vec, false);
		*o = q->list[--q->nr];
	}
}

/* A lost-records gap: what was outstanding for the vcpus in it is forgotten. */
void vma_vlapic_lost(struct vma_machine *m)
{
	uint32_t i, j;

	for (i = 0; i < m->nr_domains; i++) {
		const struct vma_domain *d = m->domains[i];

		for (j = 0; j < d->nr_vcpus; j++) {
			struct vma_vcpu *v = d->vcpus[j];

			if (v->ipis.nr && v->state == VMA_RS_LOST) {
				v->ipis.nr = v->ipis.injected = 0;
				memset(v->ipis.held, 0, sizeof(v->ipis.held));
			}
		}
	}
}

void vma_vlapic_release(struct vma_vlapic *vl)
{
	free(vl->done);
	*vl = (struct vma_vlapic){ 0 };
}
