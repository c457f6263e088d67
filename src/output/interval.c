/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interval mode (interval.h).  At each interval's end the per-domain
 * counters of the model are compared with a snapshot taken at the previous
 * end, and the differences are written.  Running time is credited to a
 * domain when a running stretch ends, so a stretch that spans intervals
 * is counted in the one where it ends.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "vmalyze/hvm-stats.h"
#include "vmalyze/interval.h"
#include "vmalyze/status.h"
#include "vmalyze/xen-names.h"

/* What a (domain, metric) counter was at the last interval's end. */
struct snapshot {
	uint32_t did;
	uint32_t reason; /* UINT32_MAX: running time; UINT32_MAX - 1: all exits */
	uint64_t last;
};

#define METRIC_RUN UINT32_MAX
#define METRIC_EXITS (UINT32_MAX - 1)

struct vma_interval {
	FILE *out;
	uint64_t hz;
	uint64_t length;   /* cycles per interval */
	uint64_t start;    /* first time stamp of the trace */
	uint64_t index;    /* intervals written */
	bool started;
	struct snapshot *snaps;
	size_t nr_snaps, cap_snaps;
};

struct vma_interval *vma_interval_create(FILE *out, uint64_t hz, double seconds)
{
	struct vma_interval *iv = calloc(1, sizeof(*iv));

	if (!iv)
		return NULL;
	iv->out = out;
	iv->hz = hz;
	iv->length = (uint64_t)(seconds * (double)hz);
	if (!iv->length)
		iv->length = 1;
	fprintf(out, "time,domain,metric,value\n");
	return iv;
}

void vma_interval_destroy(struct vma_interval *iv)
{
	if (!iv)
		return;
	free(iv->snaps);
	free(iv);
}

/* The change of a counter since the last interval, and remember it. */
static uint64_t delta(struct vma_interval *iv, uint32_t did, uint32_t reason, uint64_t now)
{
	uint64_t d;
	size_t i;

	for (i = 0; i < iv->nr_snaps; i++) {
		if (iv->snaps[i].did == did && iv->snaps[i].reason == reason)
			break;
	}
	if (i == iv->nr_snaps) {
		if (iv->nr_snaps == iv->cap_snaps) {
			size_t cap = iv->cap_snaps ? iv->cap_snaps * 2 : 64;
			struct snapshot *s = realloc(iv->snaps, cap * sizeof(*s));

			if (!s)
				return 0;
			iv->snaps = s;
			iv->cap_snaps = cap;
		}
		iv->snaps[i] = (struct snapshot){ did, reason, 0 };
		iv->nr_snaps++;
	}
	d = now - iv->snaps[i].last;
	iv->snaps[i].last = now;
	return d;
}

static void write_time(struct vma_interval *iv, uint64_t cycles)
{
	fprintf(iv->out, "%" PRIu64 ".%09" PRIu64, cycles / iv->hz,
		(uint64_t)((unsigned __int128)(cycles % iv->hz) * 1000000000u / iv->hz));
}

static void write_interval(struct vma_interval *iv, const struct vma_machine *m, uint64_t end)
{
	uint32_t i, j, r;

	for (i = 0; i < m->nr_domains; i++) {
		const struct vma_domain *d = m->domains[i];
		uint64_t run, exits = 0, n;
		uint32_t slots = 0;

		if (d->did == VMA_DEFAULT_DOMAIN || d->did == VMA_IDLE_DOMAIN)
			continue;
		run = delta(iv, d->did, METRIC_RUN, d->total_time.cycles);
		write_time(iv, end);
		fprintf(iv->out, ",%u,run_seconds,%.9f\n", d->did, (double)run / (double)iv->hz);
		/* Exits per reason, summed over the domain's vcpus. */
		for (j = 0; j < d->nr_vcpus; j++) {
			const struct vma_vcpu *v = d->vcpus[j];

			if (v && v->type == VMA_VCPU_HVM && v->hvm.stats &&
			    v->hvm.stats->nr_slots > slots)
				slots = v->hvm.stats->nr_slots;
		}
		for (r = 0; r < slots; r++) {
			bool seen = false;

			n = 0;
			for (j = 0; j < d->nr_vcpus; j++) {
				const struct vma_vcpu *v = d->vcpus[j];

				if (!v || v->type != VMA_VCPU_HVM || !v->hvm.stats ||
				    r >= v->hvm.stats->nr_slots || !v->hvm.stats->by_reason[r])
					continue;
				n += v->hvm.stats->by_reason[r]->cycles.events;
				seen = true;
			}
			if (!seen)
				continue;
			exits += n;
			n = delta(iv, d->did, r, n);
			if (!n)
				continue;
			write_time(iv, end);
			fprintf(iv->out, ",%u,exit:", d->did);
			if (vma_hvm_exit_name(m->svm, r))
				fprintf(iv->out, "%s,%" PRIu64 "\n", vma_hvm_exit_name(m->svm, r), n);
			else
				fprintf(iv->out, "%u,%" PRIu64 "\n", r, n);
		}
		if (!slots)
			continue; /* no HVM vcpu: no exits to report */
		n = delta(iv, d->did, METRIC_EXITS, exits);
		write_time(iv, end);
		fprintf(iv->out, ",%u,exits,%" PRIu64 "\n", d->did, n);
	}
}

int vma_interval_advance(struct vma_interval *iv, const struct vma_machine *m, uint64_t tsc)
{
	if (!m->have_time)
		return VMA_OK;
	if (!iv->started) {
		iv->started = true;
		iv->start = m->first_tsc;
	}
	while (tsc >= iv->start + (iv->index + 1) * iv->length) {
		iv->index++;
		write_interval(iv, m, iv->index * iv->length);
	}
	return ferror(iv->out) ? VMA_ERR_OUTPUT : VMA_OK;
}

int vma_interval_finish(struct vma_interval *iv, const struct vma_machine *m)
{
	if (m->have_time && m->last_tsc > iv->start + iv->index * iv->length)
		write_interval(iv, m, m->last_tsc - iv->start);
	return ferror(iv->out) ? VMA_ERR_OUTPUT : VMA_OK;
}
