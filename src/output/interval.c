/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interval mode (interval.h): a renderer over the reports the run driver
 * builds at each interval's end.  Each report's per-domain counters are
 * compared with the ones of the previous interval written, and the
 * differences that are not zero are written.  Running time is credited to a domain when a
 * running stretch ends, so a stretch that spans intervals is counted in
 * the one where it ends.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/grow.h"
#include "vmalyze/interval.h"
#include "vmalyze/status.h"
#include "vmalyze/strbuf.h"

/* What a (domain, metric) counter was at the last interval written. */
struct snapshot {
	uint32_t did;
	uint32_t metric; /* an exit code, or METRIC_RUN / METRIC_EXITS */
	uint64_t last;
};

struct code_sum {
	uint32_t code;
	uint64_t events;
	const char *name; /* the exit table's (static), NULL when it has none */
};

#define METRIC_RUN UINT32_MAX
#define METRIC_EXITS (UINT32_MAX - 1)

struct interval_state {
	bool header;
	uint64_t last_end; /* end of the last interval written, ticks since the start */
	struct snapshot *snaps;
	size_t nr_snaps, cap_snaps;
	/*
	 * Exits of one domain by code, summed over its HVM vcpus, ascending
	 * (scratch): as many as codes seen, whatever their values.
	 */
	struct code_sum *sums;
	size_t cap_sums;
};

/*
 * The change of a counter since the last interval, and remember it.  The
 * snapshots are sorted by (domain, metric): a lookup is a binary search,
 * as a trace can hold thousands of domains and each has its metrics.
 */
static uint64_t delta(struct interval_state *st, uint32_t did, uint32_t metric, uint64_t now)
{
	size_t lo = 0, hi = st->nr_snaps, mid;
	uint64_t d;

	while (lo < hi) {
		const struct snapshot *sn;

		mid = lo + (hi - lo) / 2;
		sn = &st->snaps[mid];
		if (sn->did < did || (sn->did == did && sn->metric < metric))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == st->nr_snaps || st->snaps[lo].did != did || st->snaps[lo].metric != metric) {
		if (vma_grow(st->snaps, &st->cap_snaps, st->nr_snaps + 1, 64))
			return 0;
		memmove(st->snaps + lo + 1, st->snaps + lo,
			(st->nr_snaps - lo) * sizeof(*st->snaps));
		st->snaps[lo] = (struct snapshot){ did, metric, 0 };
		st->nr_snaps++;
	}
	d = now - st->snaps[lo].last;
	st->snaps[lo].last = now;
	return d;
}

static void write_time(FILE *out, const struct vma_report *r, uint64_t ticks)
{
	vma_fprintf(out, "%" PRIu64 ".%09" PRIu64, ticks / r->hz,
		(uint64_t)((unsigned __int128)(ticks % r->hz) * 1000000000u / r->hz));
}

static int by_code(const void *a, const void *b)
{
	const struct code_sum *x = a, *y = b;

	return x->code < y->code ? -1 : x->code > y->code;
}

/*
 * Sum a domain's exits by code into st->sums, ascending, and set *@nr to how
 * many codes.  A table indexed by code would follow the largest code in the
 * trace (2^32 from a damaged record).  The vcpus are read one at a time,
 * their rows gone after (vma_report_vcpu()): the names are kept with the
 * sums.  Return: false when out of memory.
 */
static bool sum_exits(struct interval_state *st, const struct vma_report *r,
		      const struct vma_report_domain *d, size_t *nr)
{
	size_t n = 0, i, out = 0;
	uint32_t v, j;

	for (v = 0; v < d->nr_vcpus; v++) {
		const struct vma_report_vcpu *rv = vma_report_vcpu(r, d, v);

		if (!rv)
			return false;
		if (rv->type != VMA_VCPU_HVM || !rv->nr_exits)
			continue;
		if (vma_grow(st->sums, &st->cap_sums, n + rv->nr_exits, 64))
			return false;
		for (j = 0; j < rv->nr_exits; j++) {
			st->sums[n++] = (struct code_sum){ rv->exits[j].code,
							   rv->exits[j].stat.events,
							   rv->exits[j].name };
		}
	}
	if (n > 1)
		qsort(st->sums, n, sizeof(*st->sums), by_code); /* none: sums may be NULL */
	for (i = 0; i < n; i++) {
		if (out && st->sums[out - 1].code == st->sums[i].code)
			st->sums[out - 1].events += st->sums[i].events;
		else
			st->sums[out++] = st->sums[i];
	}
	*nr = out;
	return true;
}

static int write_interval(FILE *out, struct interval_state *st, const struct vma_report *r,
			  uint64_t end)
{
	uint32_t i, code;
	size_t k, codes;

	for (i = 0; i < r->nr_domains; i++) {
		const struct vma_report_domain *d = &r->domains[i];
		uint64_t run, exits = 0, n;

		if (d->id == VMA_IDLE_DOMAIN)
			continue;
		/*
		 * Zero rows are left out: only domains whose counters moved, which
		 * takes a record, write rows, so the output stays linear in the
		 * input however many domains sit idle through many intervals.
		 */
		run = delta(st, d->id, METRIC_RUN, d->run_time.total);
		if (run) {
			write_time(out, r, end);
			vma_fprintf(out, ",%u,run_seconds,%.9f\n", d->id,
				    vma_report_seconds(r, run));
		}
		if (!sum_exits(st, r, d, &codes))
			return VMA_ERR_NOMEM;
		for (k = 0; k < codes; k++) {
			const char *name;

			code = st->sums[k].code;
			exits += st->sums[k].events;
			n = delta(st, d->id, code, st->sums[k].events);
			if (!n)
				continue;
			write_time(out, r, end);
			name = st->sums[k].name;
			if (name)
				vma_fprintf(out, ",%u,exit:%s,%" PRIu64 "\n", d->id, name, n);
			else
				vma_fprintf(out, ",%u,exit:%u,%" PRIu64 "\n", d->id, code, n);
		}
		if (!codes)
			continue; /* no HVM vcpu: no exits to report */
		n = delta(st, d->id, METRIC_EXITS, exits);
		if (!n)
			continue;
		write_time(out, r, end);
		vma_fprintf(out, ",%u,exits,%" PRIu64 "\n", d->id, n);
	}
	st->last_end = end;
	return VMA_OK;
}

void vma_interval_clock_init(struct vma_interval_clock *c, uint64_t hz, double seconds)
{
	c->length = (uint64_t)(seconds * (double)hz);
	if (!c->length)
		c->length = 1;
	c->started = false;
	c->start = c->index = 0;
}

bool vma_interval_clock_tick(struct vma_interval_clock *c, uint64_t first_tsc, uint64_t tsc,
			     uint64_t *end)
{
	uint64_t now;

	if (!c->started) {
		c->started = true;
		c->start = first_tsc;
	}
	if (tsc < c->start)
		return false; /* a late record, older than the first one */
	now = (tsc - c->start) / c->length;
	if (now <= c->index)
		return false;
	/* The interval that held records ends; the empty ones after it are skipped. */
	*end = (c->index + 1) * c->length;
	c->index = now;
	return true;
}

int vma_render_interval(struct vma_render *ctx, const struct vma_report *r)
{
	struct interval_state *st = ctx->priv;
	int rc = VMA_OK;

	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return VMA_ERR_NOMEM;
		ctx->priv = st;
	}
	if (!st->header) {
		vma_fprintf(ctx->out, "time,domain,metric,value\n");
		st->header = true;
	}
	/* The last interval is partial: it ends with the trace, if after the last one written. */
	if (!r->final)
		rc = write_interval(ctx->out, st, r, r->at);
	else if (r->total > st->last_end)
		rc = write_interval(ctx->out, st, r, r->total);
	if (rc == VMA_OK && ferror(ctx->out))
		rc = VMA_ERR_OUTPUT;
	return rc;
}

void vma_render_interval_release(struct vma_render *ctx)
{
	struct interval_state *st = ctx->priv;

	if (!st)
		return;
	free(st->snaps);
	free(st->sums);
	free(st);
	ctx->priv = NULL;
}
