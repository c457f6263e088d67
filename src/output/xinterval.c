/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xenalyze's interval modes (xinterval.h).  Every column is the change of
 * a cumulative counter over the interval: the machine's (a domain's
 * running time, grant maps done for it, interrupts injected into its
 * vcpus) or this module's own (exit time by category, from the observer).
 * Like xenalyze, an interval ends before the first record more than its
 * length past its start, and running time is credited when a running
 * stretch ends.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "vmalyze/grow.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xinterval.h"

static const char *const category_names[VMA_XCAT_COUNT] = {
	"emulate", "unsync", "fixup", "mmio", "propagate", "cr3", "vmcall", "intr", "hlt", "other",
};

/* One column: what it counts (a domain id or a vector) and its value at the last row. */
struct column {
	uint32_t key;
	uint64_t last;
};

/* A held row: its values are vals[first .. first + nr). */
struct row {
	uint64_t start, len;
	size_t first;
	uint32_t nr;
};

struct vma_xinterval {
	FILE *out;
	uint64_t hz, length;
	struct vma_xinterval_options opts;
	bool started, header_done;
	uint64_t origin;      /* the first record's time stamp */
	uint64_t index;       /* the interval records are in now */
	struct column *cols;
	size_t nr_cols, cap_cols;
	/* Held rows (the modes whose columns are known at the end). */
	struct row *rows;
	size_t nr_rows, cap_rows;
	uint64_t *vals;
	size_t nr_vals, cap_vals;
	bool failed;          /* out of memory: rows were lost */
	/* short-summary: exit time of the domain by category, cumulative. */
	uint64_t category[VMA_XCAT_COUNT];
	struct vma_state_observer observer;
};

enum vma_xinterval_category vma_xinterval_category(const struct vma_hvm_inflight *in)
{
	switch (in->handler) {
	case TRC_HVM_VMMCALL:
		return VMA_XCAT_VMCALL;
	case TRC_HVM_INTR:
		return VMA_XCAT_INTR;
	case TRC_HVM_HLT:
		return VMA_XCAT_HLT;
	case TRC_HVM_CR_WRITE:
		return in->key == 3 ? VMA_XCAT_CR3 : VMA_XCAT_OTHER;
	}
	return VMA_XCAT_OTHER;
}

static void on_arc_close(void *arg, const struct vma_vcpu *v, uint64_t tsc, uint64_t cycles)
{
	struct vma_xinterval *x = arg;

	(void)tsc;
	if (cycles && v->domain->did == x->opts.domains[0])
		x->category[vma_xinterval_category(&v->hvm.inflight)] += cycles;
}

static bool held(const struct vma_xinterval *x)
{
	return x->opts.mode == VMA_XINTERVAL_TOTAL_TIME_ALL ||
	       x->opts.mode == VMA_XINTERVAL_GUEST_INTERRUPT;
}

/* Counts, not times: written as integers. */
static bool counts(const struct vma_xinterval *x)
{
	return x->opts.mode == VMA_XINTERVAL_GUEST_INTERRUPT ||
	       x->opts.mode == VMA_XINTERVAL_GRANT_MAPS;
}

struct vma_xinterval *vma_xinterval_create(FILE *out, uint64_t hz, double seconds,
					   const struct vma_xinterval_options *opts)
{
	struct vma_xinterval *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->out = out;
	x->hz = hz;
	x->length = (uint64_t)(seconds * (double)hz);
	if (!x->length)
		x->length = 1;
	x->opts = *opts;
	x->observer = (struct vma_state_observer){ .arg = x, .arc_close = on_arc_close };
	/* The written modes' columns are known now: cols[i] holds column i's last value. */
	if (!held(x)) {
		size_t n = opts->mode == VMA_XINTERVAL_TOTAL_TIME ? opts->nr_domains
			 : opts->mode == VMA_XINTERVAL_SHORT_SUMMARY ? 1 + VMA_XCAT_COUNT : 1;

		x->cols = calloc(n, sizeof(*x->cols));
		if (!x->cols) {
			free(x);
			return NULL;
		}
		x->nr_cols = x->cap_cols = n;
	}
	return x;
}

void vma_xinterval_destroy(struct vma_xinterval *x)
{
	if (!x)
		return;
	free(x->cols);
	free(x->rows);
	free(x->vals);
	free(x);
}

const struct vma_state_observer *vma_xinterval_observer(struct vma_xinterval *x)
{
	return x->opts.mode == VMA_XINTERVAL_SHORT_SUMMARY ? &x->observer : NULL;
}

static const struct vma_domain *find_domain(const struct vma_machine *m, uint32_t did)
{
	uint32_t lo = 0, hi = m->nr_domains;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->domains[mid]->did == did)
			return m->domains[mid];
		if (m->domains[mid]->did < did)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static uint64_t run_cycles(const struct vma_machine *m, uint32_t did)
{
	const struct vma_domain *d = find_domain(m, did);

	return d ? d->total_time.cycles : 0;
}

/* Interrupts injected into @d's vcpus with vector @vec (VMA_GUEST_VECTORS: larger). */
static uint64_t injected(const struct vma_domain *d, uint32_t vec)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; d && i < d->nr_vcpus; i++) {
		const struct vma_vcpu *v = d->vcpus[i];

		if (v && v->type == VMA_VCPU_HVM && v->hvm.stats)
			n += v->hvm.stats->guest_irqs[vec];
	}
	return n;
}

static struct column *column(struct vma_xinterval *x, uint32_t key)
{
	size_t i;

	for (i = 0; i < x->nr_cols; i++) {
		if (x->cols[i].key == key)
			return &x->cols[i];
	}
	if (vma_grow(x->cols, &x->cap_cols, x->nr_cols + 1, 16))
		return NULL;
	x->cols[x->nr_cols] = (struct column){ key, 0 };
	return &x->cols[x->nr_cols++];
}

/* The columns of a held mode: the ones seen by now, new ones at the end. */
static bool add_columns(struct vma_xinterval *x, const struct vma_machine *m)
{
	uint32_t i;

	if (x->opts.mode == VMA_XINTERVAL_TOTAL_TIME_ALL) {
		for (i = 0; i < m->nr_domains; i++) {
			if (!column(x, m->domains[i]->did))
				return false;
		}
		return true;
	}
	const struct vma_domain *d = find_domain(m, x->opts.domains[0]);

	for (i = 0; d && i <= VMA_GUEST_VECTORS; i++) {
		if (injected(d, i) && !column(x, i))
			return false;
	}
	return true;
}

static uint64_t column_now(const struct vma_xinterval *x, const struct vma_machine *m,
			   uint32_t key)
{
	if (x->opts.mode == VMA_XINTERVAL_GUEST_INTERRUPT)
		return injected(find_domain(m, x->opts.domains[0]), key);
	return run_cycles(m, key);
}

static uint64_t take(uint64_t *last, uint64_t now)
{
	uint64_t d = now >= *last ? now - *last : 0;

	*last = now;
	return d;
}

static void write_start(struct vma_xinterval *x, uint64_t start)
{
	fprintf(x->out, "%" PRIu64 ".%09" PRIu64, start / x->hz,
		(uint64_t)((unsigned __int128)(start % x->hz) * 1000000000u / x->hz));
}

static void write_value(struct vma_xinterval *x, uint64_t v, uint64_t len)
{
	if (counts(x))
		fprintf(x->out, " %" PRIu64, v);
	else
		fprintf(x->out, " %.2f", (double)v * 100.0 / (double)len);
}

static void write_header(struct vma_xinterval *x)
{
	size_t i;

	fputs("time", x->out);
	switch (x->opts.mode) {
	case VMA_XINTERVAL_TOTAL_TIME:
		for (i = 0; i < x->opts.nr_domains; i++)
			fprintf(x->out, " %u", x->opts.domains[i]);
		break;
	case VMA_XINTERVAL_SHORT_SUMMARY:
		fputs(" running", x->out);
		for (i = 0; i < VMA_XCAT_COUNT; i++)
			fprintf(x->out, " %s", category_names[i]);
		break;
	case VMA_XINTERVAL_GRANT_MAPS:
		fputs(" grant_maps", x->out);
		break;
	default:
		for (i = 0; i < x->nr_cols; i++) {
			if (x->cols[i].key == VMA_GUEST_VECTORS &&
			    x->opts.mode == VMA_XINTERVAL_GUEST_INTERRUPT)
				fputs(" >255", x->out);
			else
				fprintf(x->out, " %u", x->cols[i].key);
		}
		break;
	}
	fputc('\n', x->out);
}

/* The interval [start, start + len) ended: its row, written or held. */
static void end_interval(struct vma_xinterval *x, const struct vma_machine *m, uint64_t start,
			 uint64_t len)
{
	uint32_t i;

	if (held(x)) {
		struct row *r;

		if (x->failed || !add_columns(x, m) ||
		    vma_grow(x->rows, &x->cap_rows, x->nr_rows + 1, 64) ||
		    vma_grow(x->vals, &x->cap_vals, x->nr_vals + x->nr_cols, 256)) {
			x->failed = true;
			return;
		}
		r = &x->rows[x->nr_rows++];
		*r = (struct row){ start, len, x->nr_vals, (uint32_t)x->nr_cols };
		for (i = 0; i < x->nr_cols; i++)
			x->vals[x->nr_vals++] = take(&x->cols[i].last,
						     column_now(x, m, x->cols[i].key));
		return;
	}
	if (!x->header_done) {
		write_header(x);
		x->header_done = true;
	}
	write_start(x, start);
	switch (x->opts.mode) {
	case VMA_XINTERVAL_TOTAL_TIME:
		for (i = 0; i < x->opts.nr_domains; i++)
			write_value(x, take(&x->cols[i].last, run_cycles(m, x->opts.domains[i])), len);
		break;
	case VMA_XINTERVAL_SHORT_SUMMARY:
		write_value(x, take(&x->cols[0].last, run_cycles(m, x->opts.domains[0])), len);
		for (i = 0; i < VMA_XCAT_COUNT; i++)
			write_value(x, take(&x->cols[i + 1].last, x->category[i]), len);
		break;
	case VMA_XINTERVAL_GRANT_MAPS: {
		const struct vma_domain *d = find_domain(m, x->opts.domains[0]);

		write_value(x, take(&x->cols[0].last, d ? d->mem.grant_done_for[0] : 0), len);
		break;
	}
	default:
		break;
	}
	fputc('\n', x->out);
}

int vma_xinterval_tick(struct vma_xinterval *x, const struct vma_machine *m, uint64_t tsc)
{
	if (!m->have_time)
		return VMA_OK;
	if (!x->started) {
		x->started = true;
		x->origin = m->first_tsc;
	}
	if (tsc < x->origin)
		return VMA_OK; /* a late record: it belongs to the first interval */
	while (tsc - x->origin > (x->index + 1) * x->length) {
		end_interval(x, m, x->index * x->length, x->length);
		x->index++;
	}
	return x->failed ? VMA_ERR_NOMEM : ferror(x->out) ? VMA_ERR_OUTPUT : VMA_OK;
}

int vma_xinterval_finish(struct vma_xinterval *x, const struct vma_machine *m)
{
	uint64_t end, start;
	size_t i, j;
	int rc;

	if (m->have_time && m->last_tsc > m->first_tsc) {
		rc = vma_xinterval_tick(x, m, m->last_tsc);
		if (rc)
			return rc;
		end = m->last_tsc - x->origin;
		start = x->index * x->length;
		/* The last interval, partial or not, ends with the trace. */
		if (end > start)
			end_interval(x, m, start, end - start);
	}
	if (x->failed)
		return VMA_ERR_NOMEM;
	if (!x->header_done) {
		write_header(x);
		x->header_done = true;
	}
	/* Rows held from before a column was seen have 0 there. */
	for (i = 0; i < x->nr_rows; i++) {
		const struct row *r = &x->rows[i];

		write_start(x, r->start);
		for (j = 0; j < x->nr_cols; j++)
			write_value(x, j < r->nr ? x->vals[r->first + j] : 0, r->len);
		fputc('\n', x->out);
	}
	return ferror(x->out) ? VMA_ERR_OUTPUT : VMA_OK;
}
