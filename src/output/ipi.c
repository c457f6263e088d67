/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --dump-ipi-latency's lines.  The state stage follows the IPIs and
 * measures them (vlapic.h); after each vmentry this prints the deliveries
 * it made.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "vmalyze/event-lines.h"
#include "vmalyze/ipi.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

struct vma_ipi {
	uint64_t hz;
	const struct vma_machine *machine; /* borrowed */
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
	free(t);
}

static void put_seconds(struct vma_ipi *t, uint64_t cycles)
{
	uint64_t secs = cycles / t->hz;
	uint64_t ns = (uint64_t)((unsigned __int128)(cycles % t->hz) * 1000000000u / t->hz);

	vma_sb_printf(&t->out.sb, "%" PRIu64 ".%09" PRIu64, secs, ns);
}

void vma_ipi_record(struct vma_ipi *t, const struct vma_record *rec, const struct vma_outcome *out)
{
	const struct vma_vlapic *vl = &t->machine->vlapic;
	size_t i;

	(void)out;
	/* The deliveries are the vmentry's when it was the record just dispatched. */
	if (rec->event != TRC_HVM_VMENTRY || vl->done_record != t->machine->records)
		return;
	for (i = 0; i < vl->nr_done; i++) {
		const struct vma_ipi_delivery *d = &vl->done[i];

		vma_sb_printf(&t->out.sb, " [vla] d%uv%u vec %u ipis %u, latency %" PRIu64 " (",
			      d->v->domain->did, d->v->vid, d->vec, d->sends, d->latency);
		put_seconds(t, d->latency);
		vma_sb_puts(&t->out.sb, " s)");
		vma_event_lines_end(&t->out);
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
