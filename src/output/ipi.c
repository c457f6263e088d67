/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IPI latency.  xenalyze's version (3366-3578) opens an entry for every
 * vector injected, sent or not, and measures from a send time it never
 * set (0): on the VMX reference trace every line it prints is of a vector
 * no vcpu sent ("ipis 0") with a latency of the whole TSC.  Here only a
 * vector that was sent is followed, and its latency is the time from the
 * first unanswered send to the vmentry after its injection.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/event-lines.h"
#include "vmalyze/grow.h"
#include "vmalyze/ipi.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

#define APIC_ICR_GPA 0xfee00300ull
#define X2APIC_ICR_MSR 0x830u
#define ICR_SHORTHAND(icr) (((icr) >> 18) & 3u)
#define ICR_ALL_INCLUDING_SELF 2u
#define ICR_ALL_EXCLUDING_SELF 3u

/* A vector sent to a vcpu and not yet delivered. */
struct outstanding {
	const struct vma_vcpu *v;
	uint32_t vec;
	uint32_t sends;
	uint64_t first_tsc;
	bool injected;
};

struct vma_ipi {
	uint64_t hz;
	const struct vma_machine *machine; /* borrowed */
	struct outstanding *list;          /* owned; few at a time */
	size_t nr, cap;
	struct vma_event_lines out;
};

struct vma_ipi *vma_ipi_create(FILE *out, uint64_t hz, const struct vma_machine *machine)
{
	struct vma_ipi *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->hz = hz ? hz : 1;
	t->machine = machine;
	vma_event_lines_init(&t->out, out);
	return t;
}

void vma_ipi_destroy(struct vma_ipi *t)
{
	if (!t)
		return;
	vma_event_lines_free(&t->out);
	free(t->list);
	free(t);
}

static struct outstanding *find(struct vma_ipi *t, const struct vma_vcpu *v, uint32_t vec)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		if (t->list[i].v == v && t->list[i].vec == vec)
			return &t->list[i];
	}
	return NULL;
}

static void send(struct vma_ipi *t, const struct vma_vcpu *v, uint32_t vec, uint64_t tsc)
{
	struct outstanding *o;

	/* Nothing is known of a vcpu inside a lost-records gap. */
	if (v->state == VMA_RS_LOST)
		return;
	o = find(t, v, vec);
	if (!o) {
		if (vma_grow(t->list, &t->cap, t->nr + 1, 16)) {
			t->out.status = VMA_ERR_NOMEM;
			return;
		}
		o = &t->list[t->nr++];
		*o = (struct outstanding){ .v = v, .vec = vec, .first_tsc = tsc };
	}
	o->sends++;
}

/* An ICR write by @from: an IPI to the vcpus its shorthand names. */
static void icr_write(struct vma_ipi *t, const struct vma_vcpu *from, uint32_t icr, uint64_t tsc)
{
	const struct vma_domain *d = from->domain;
	uint32_t shorthand = ICR_SHORTHAND(icr), i;

	if (shorthand != ICR_ALL_EXCLUDING_SELF && shorthand != ICR_ALL_INCLUDING_SELF)
		return;
	for (i = 0; i < d->nr_vcpus; i++) {
		const struct vma_vcpu *v = d->vcpus[i];

		if (v && (v != from || shorthand == ICR_ALL_INCLUDING_SELF))
			send(t, v, icr & 0xffu, tsc);
	}
}

static void put_seconds(struct vma_ipi *t, uint64_t cycles)
{
	uint64_t secs = cycles / t->hz;
	uint64_t ns = (uint64_t)((unsigned __int128)(cycles % t->hz) * 1000000000u / t->hz);

	vma_sb_printf(&t->out.sb, "%" PRIu64 ".%09" PRIu64, secs, ns);
}

/* A vmentry of @v delivers what was injected into it. */
static void vmentry(struct vma_ipi *t, const struct vma_vcpu *v, uint64_t tsc)
{
	size_t i = 0;

	while (i < t->nr) {
		struct outstanding *o = &t->list[i];
		uint64_t lat;

		if (o->v != v || !o->injected) {
			i++;
			continue;
		}
		lat = tsc >= o->first_tsc ? tsc - o->first_tsc : 0;
		vma_sb_printf(&t->out.sb, " [vla] d%uv%u vec %u ipis %u, latency %" PRIu64 " (",
			      v->domain->did, v->vid, o->vec, o->sends, lat);
		put_seconds(t, lat);
		vma_sb_puts(&t->out.sb, " s)");
		vma_event_lines_end(&t->out);
		*o = t->list[--t->nr];
	}
}

/* Forget what was outstanding for vcpus now in a lost-records gap. */
static void lost(struct vma_ipi *t)
{
	size_t i = 0;

	while (i < t->nr) {
		if (t->list[i].v->state == VMA_RS_LOST)
			t->list[i] = t->list[--t->nr];
		else
			i++;
	}
}

void vma_ipi_record(struct vma_ipi *t, const struct vma_record *rec, const struct vma_outcome *out)
{
	const struct vma_machine *m = t->machine;
	const struct vma_pcpu *p = rec->pcpu < m->nr_pcpus ? m->pcpus[rec->pcpu] : NULL;
	uint32_t base = rec->event & ~(uint32_t)TRC_64_FLAG;
	bool wide = rec->event & TRC_64_FLAG;
	const struct vma_vcpu *v;

	if (rec->event == TRC_LOST_RECORDS) {
		lost(t);
		return;
	}
	if (VMA_TRC_MAIN(rec->event) != VMA_TRC_MAIN(TRC_HVM) || out->unprocessed || !p ||
	    !(v = p->current) || v->type != VMA_VCPU_HVM)
		return;
	switch (base) {
	case TRC_HVM_VMENTRY:
		if (t->nr)
			vmentry(t, v, rec->tsc);
		break;
	case TRC_HVM_INJ_VIRQ:
		if (t->nr && rec->nr_data) {
			struct outstanding *o = find(t, v, rec->data[0]);

			if (o)
				o->injected = true;
		}
		break;
	case TRC_HVM_IOMEM_WRITE:
		/* {gpa; data}, gpa of 2 words in the 64-bit variant; data in full records only. */
		if (!out->orphan && rec->nr_data == (wide ? 4 : 2) &&
		    (wide ? vma_rec_u64(rec, 0) : rec->data[0]) == APIC_ICR_GPA)
			icr_write(t, v, rec->data[wide ? 2 : 1], rec->tsc);
		break;
	case TRC_HVM_MSR_WRITE:
		/* {msr; value low; value high} */
		if (!out->orphan && rec->nr_data >= 2 && rec->data[0] == X2APIC_ICR_MSR)
			icr_write(t, v, rec->data[1], rec->tsc);
		break;
	}
}

void vma_ipi_hold(struct vma_ipi *t)
{
	t->out.hold = true;
}

bool vma_ipi_pending(const struct vma_ipi *t)
{
	return vma_event_lines_pending(&t->out);
}

void vma_ipi_flush(struct vma_ipi *t)
{
	vma_event_lines_flush(&t->out);
}

int vma_ipi_status(const struct vma_ipi *t)
{
	return vma_event_lines_status(&t->out);
}
