/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Live view (live.h).  At the end of each second of trace time every
 * vcpu's counters are compared with a snapshot of the previous second's
 * end, as interval mode does per domain; the worst exit of the second is
 * noted as arcs close, since the summaries keep no per-second maximum.
 *
 * Runstate time is taken as it accrues, not when a stretch ends: the
 * snapshot holds each runstate's cycles plus the open stretch up to the
 * second's end, so a stretch spanning seconds is shared out among them and
 * the shares of a second never add up past 100%, a last partial second
 * included.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/code-index.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/live.h"
#include "vmalyze/status.h"
#include "vmalyze/xen-names.h"

#define TOP_REASONS 3

struct vcpu_snap {
	uint64_t key;              /* the vcpu's address: first, a key table's key */
	uint64_t *events;          /* per exit reason (model's order), at the last second's end */
	uint32_t nr;
	uint64_t exit_cycles;
	uint64_t rs[VMA_RS_COUNT]; /* accrued up to the last second's end */
	uint64_t worst;            /* longest exit of this second, cycles */
	uint32_t worst_reason;
};

struct vma_live {
	FILE *out;
	uint64_t hz;
	bool terminal;
	bool started;
	uint64_t start, index;     /* first time stamp; seconds written */
	struct vcpu_snap *snaps;   /* a key table (code-index.h), by vcpu */
	uint32_t nr_snaps;
	size_t cap_snaps;
	struct vma_code_index snap_index;
	size_t last_hit;
};

struct vma_live *vma_live_create(FILE *out, uint64_t hz, bool terminal)
{
	struct vma_live *lv = calloc(1, sizeof(*lv));

	if (!lv)
		return NULL;
	lv->out = out;
	lv->hz = hz ? hz : 1;
	lv->terminal = terminal;
	return lv;
}

void vma_live_destroy(struct vma_live *lv)
{
	size_t i;

	if (!lv)
		return;
	for (i = 0; i < lv->nr_snaps; i++)
		free(lv->snaps[i].events);
	free(lv->snaps);
	free(lv->snap_index.slots);
	free(lv);
}

/* @v's snapshot, made when new; found by hash (a scan was most of a run of thousands of vcpus). */
static struct vcpu_snap *snap_of(struct vma_live *lv, const struct vma_vcpu *v)
{
	uint64_t key = (uint64_t)(uintptr_t)v;
	uint32_t i;
	bool refused;

	if (lv->last_hit < lv->nr_snaps && lv->snaps[lv->last_hit].key == key)
		return &lv->snaps[lv->last_hit];
	/* No budget: a snapshot a vcpu, as many as the machine has. */
	i = vma_key_table_get(NULL, &lv->snaps, &lv->nr_snaps, &lv->cap_snaps, sizeof(*lv->snaps),
			      &lv->snap_index, key, false, &refused);
	if (i == UINT32_MAX)
		return NULL;
	lv->last_hit = i;
	return &lv->snaps[i];
}

void vma_live_note(struct vma_live *lv, const struct vma_machine *m,
		   const struct vma_record *rec, const struct vma_outcome *outcome)
{
	const struct vma_pcpu *p;
	struct vcpu_snap *s;

	if (!outcome->arc_closed || rec->pcpu >= m->nr_pcpus)
		return;
	p = m->pcpus[rec->pcpu];
	if (!p || !p->current)
		return;
	s = snap_of(lv, p->current);
	if (s && outcome->arc_cycles > s->worst) {
		s->worst = outcome->arc_cycles;
		s->worst_reason = p->current->hvm.exit_reason;
	}
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void put_reason(FILE *out, bool svm, uint32_t r)
{
	const char *name = vma_hvm_exit_name(svm, r);

	if (name)
		fputs(name, out);
	else
		fprintf(out, "%u", r);
}

/* @v's cycles in runstate @rs up to @at: the stretches ended and the open one. */
static uint64_t accrued(const struct vma_vcpu *v, enum vma_runstate rs, uint64_t at)
{
	uint64_t cycles = v->runstates[rs].cycles;

	if (v->state == rs && v->state_tsc > 0 && at > v->state_tsc)
		cycles += at - v->state_tsc;
	return cycles;
}

/*
 * One vcpu's second (or the @length ticks before @now, time stamp @at);
 * updates its snapshot.  Nothing when it was idle: no exit, not running
 * nor waiting to run.
 */
static void write_vcpu(struct vma_live *lv, const struct vma_machine *m,
		       const struct vma_domain *d, const struct vma_vcpu *v, uint64_t now,
		       uint64_t length, uint64_t at)
{
	const struct vma_hvm_stats *st = v->type == VMA_VCPU_HVM ? v->hvm.stats : NULL;
	struct vcpu_snap *s = snap_of(lv, v);
	uint64_t exits = 0, exit_cycles = 0, rs[VMA_RS_COUNT];
	uint32_t top[TOP_REASONS], nr_top = 0, r, i;
	uint64_t top_n[TOP_REASONS];
	double secs = (double)length / (double)lv->hz;

	if (!s)
		return;
	if (st && st->nr_reasons > s->nr) {
		uint64_t *e = realloc(s->events, st->nr_reasons * sizeof(*e));

		if (!e)
			return;
		memset(e + s->nr, 0, (st->nr_reasons - s->nr) * sizeof(*e));
		s->events = e;
		s->nr = st->nr_reasons;
	}
	for (r = 0; st && r < st->nr_reasons; r++) {
		const struct vma_exit_stats *x = &st->reasons[r];
		uint64_t n;

		n = x->cycles.events - s->events[r];
		s->events[r] = x->cycles.events;
		exit_cycles += x->cycles.cycles;
		exits += n;
		/* Keep the TOP_REASONS busiest, largest first, the lower code first on a tie. */
		for (i = 0; n && i < nr_top &&
			    (top_n[i] > n || (top_n[i] == n && top[i] < x->reason)); i++)
			;
		if (n && i < TOP_REASONS) {
			uint32_t k = nr_top < TOP_REASONS ? nr_top : TOP_REASONS - 1;

			for (; k > i; k--) {
				top[k] = top[k - 1];
				top_n[k] = top_n[k - 1];
			}
			top[i] = x->reason;
			top_n[i] = n;
			if (nr_top < TOP_REASONS)
				nr_top++;
		}
	}
	for (i = 0; i < VMA_RS_COUNT; i++) {
		uint64_t c = accrued(v, (enum vma_runstate)i, at);

		/* A late record can credit less than was accrued: nothing, not a wrap. */
		rs[i] = c > s->rs[i] ? c - s->rs[i] : 0;
		s->rs[i] = c;
	}
	exit_cycles -= s->exit_cycles;
	s->exit_cycles += exit_cycles;
	if (!exits && !rs[VMA_RS_RUNNING] && !rs[VMA_RS_RUNNABLE]) {
		s->worst = 0;
		return;
	}
	fprintf(lv->out, "%s%" PRIu64 ".%03" PRIu64 " d%uv%u exits/s=%.0f in_exits=%.1f%%",
		lv->terminal ? "" : "live ", now / lv->hz, now % lv->hz * 1000 / lv->hz, d->did,
		v->vid, (double)exits / secs, pct(exit_cycles, length));
	fprintf(lv->out, " running=%.1f%% runnable=%.1f%% blocked=%.1f%% offline=%.1f%%",
		pct(rs[VMA_RS_RUNNING], length), pct(rs[VMA_RS_RUNNABLE], length),
		pct(rs[VMA_RS_BLOCKED], length), pct(rs[VMA_RS_OFFLINE], length));
	if (s->worst) {
		fprintf(lv->out, " worst=%.3fus:", (double)s->worst * 1e6 / (double)lv->hz);
		put_reason(lv->out, m->svm, s->worst_reason);
	}
	for (i = 0; i < nr_top; i++) {
		fputs(i ? "," : " top=", lv->out);
		put_reason(lv->out, m->svm, top[i]);
		fprintf(lv->out, ":%.0f/s", (double)top_n[i] / secs);
	}
	fputc('\n', lv->out);
	s->worst = 0;
}

static void write_second(struct vma_live *lv, const struct vma_machine *m, uint64_t now,
			 uint64_t length)
{
	uint32_t i, j;

	if (lv->terminal) {
		fprintf(lv->out, "\033[H\033[2J" /* home, clear */
				 "vmalyze --live  %" PRIu64 ".%03" PRIu64 " s of trace time"
				 "  (per vcpu, over the last %.3f s)\n",
			now / lv->hz, now % lv->hz * 1000 / lv->hz,
			(double)length / (double)lv->hz);
	}
	for (i = 0; i < m->nr_domains; i++) {
		const struct vma_domain *d = m->domains[i];

		if (d->did == VMA_DEFAULT_DOMAIN || d->did == VMA_IDLE_DOMAIN)
			continue;
		for (j = 0; j < d->nr_vcpus; j++) {
			if (d->vcpus[j])
				write_vcpu(lv, m, d, d->vcpus[j], now, length, lv->start + now);
		}
	}
	fflush(lv->out);
}

int vma_live_advance(struct vma_live *lv, const struct vma_machine *m, uint64_t tsc)
{
	if (!m->have_time)
		return VMA_OK;
	if (!lv->started) {
		lv->started = true;
		lv->start = m->first_tsc;
	}
	if (tsc >= lv->start + (lv->index + 1) * lv->hz) {
		/* A gap in the trace is one view, not one per empty second. */
		uint64_t index = (tsc - lv->start) / lv->hz;

		write_second(lv, m, index * lv->hz, (index - lv->index) * lv->hz);
		lv->index = index;
	}
	return ferror(lv->out) ? VMA_ERR_OUTPUT : VMA_OK;
}

int vma_live_finish(struct vma_live *lv, const struct vma_machine *m)
{
	if (m->have_time && m->last_tsc > lv->start + lv->index * lv->hz) {
		write_second(lv, m, m->last_tsc - lv->start,
			     m->last_tsc - lv->start - lv->index * lv->hz);
	}
	return ferror(lv->out) ? VMA_ERR_OUTPUT : VMA_OK;
}
