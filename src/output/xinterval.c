/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xenalyze's interval modes (xinterval.h).  Every column is the change of
 * a cumulative counter over the interval: the machine's (a domain's
 * running time, grant maps done for it, interrupts injected into its
 * vcpus) or this module's own (exit time by category, from the observer).
 * Like xenalyze, an interval ends before the first record more than its
 * length past its start, and running time is credited when a running
 * stretch ends.  A gap of more empty intervals than the rows allowed so
 * far is reported as a time jump and its rows skipped (xinterval.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/grow.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xinterval.h"
#include "vmalyze/strbuf.h"

/*
 * One column: what it counts (a domain id, a vector or a CR3's frame) and
 * its value at the last row; a CR3 of schedule-time-all is entry @sub of
 * domain @did's list.
 */
struct column {
	uint64_t key;
	uint32_t did, sub;
	uint64_t last;
};

/* cr3-schedule-ordered: a CR3's totals at the last block, by CR3 id. */
struct cr3_last {
	uint64_t cycles, count;
};

/* A CR3 with time in the interval, for the sort. */
struct cr3_rank {
	const struct vma_cr3 *c;
	uint64_t cycles, count;
};

/* A held row as written to the spill file, followed by its nr values. */
struct row {
	uint64_t start, len;
	uint64_t nr;
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
	/* Held rows (the modes whose columns are known at the end), in a temporary file. */
	FILE *spill;
	bool failed;          /* out of memory or spill write failed: rows were lost */
	int spill_errno;
	/* Time jumps: empty rows written against what the records read allow. */
	struct vma_diag *diag;
	const char *file;
	uint64_t records, empty_rows;
	/* short-summary: exit time of the domain by category, cumulative. */
	uint64_t category[VMA_XCAT_COUNT];
	/* cr3-schedule-time-all: CR3 ids below this one have their columns. */
	uint32_t cr3_ids_seen;
	/* cr3-schedule-ordered */
	struct cr3_last *ord;
	size_t cap_ord;
	struct cr3_rank *rank;
	size_t cap_rank;
	struct vma_state_observer observer;
};

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
	       x->opts.mode == VMA_XINTERVAL_GUEST_INTERRUPT ||
	       x->opts.mode == VMA_XINTERVAL_CR3_SCHEDULE_TIME_ALL;
}

/* Counts, not times: written as integers. */
static bool counts(const struct vma_xinterval *x)
{
	return x->opts.mode == VMA_XINTERVAL_GUEST_INTERRUPT ||
	       x->opts.mode == VMA_XINTERVAL_GRANT_MAPS;
}

struct vma_xinterval *vma_xinterval_create(FILE *out, uint64_t hz, double seconds,
					   const struct vma_xinterval_options *opts,
					   struct vma_diag *diag, const char *file)
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
	x->diag = diag;
	x->file = file;
	x->observer = (struct vma_state_observer){ .arg = x, .arc_close = on_arc_close };
	/* The written modes' columns are known now: cols[i] holds column i's last value. */
	if (!held(x)) {
		size_t n = opts->mode == VMA_XINTERVAL_TOTAL_TIME ? opts->nr_domains
			 : opts->mode == VMA_XINTERVAL_CR3_SCHEDULE_TIME ? opts->nr_gmfns
			 : opts->mode == VMA_XINTERVAL_SHORT_SUMMARY ||
			   opts->mode == VMA_XINTERVAL_CR3_SHORT_SUMMARY ? 1 + VMA_XCAT_COUNT : 1;

		x->cols = calloc(n, sizeof(*x->cols));
		if (!x->cols) {
			free(x);
			return NULL;
		}
		x->nr_cols = x->cap_cols = n;
	} else {
		/* Memory stays flat however many rows a long trace holds. */
		x->spill = tmpfile();
		if (!x->spill) {
			int e = errno;

			free(x);
			errno = e;
			return NULL;
		}
	}
	return x;
}

void vma_xinterval_destroy(struct vma_xinterval *x)
{
	if (!x)
		return;
	free(x->cols);
	free(x->ord);
	free(x->rank);
	if (x->spill)
		fclose(x->spill);
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
			n += vma_hvm_stats_irqs(v->hvm.stats, vec);
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
	x->cols[x->nr_cols] = (struct column){ .key = key };
	return &x->cols[x->nr_cols++];
}

/* A CR3's time loaded, summed over the domains that load @gmfn (not the default domain). */
static uint64_t cr3_time(const struct vma_machine *m, uint64_t gmfn, int category)
{
	uint64_t n = 0;
	uint32_t i, j;

	for (i = 0; i < m->nr_domains; i++) {
		const struct vma_cr3_list *l = &m->domains[i]->cr3s;

		if (m->domains[i]->did == VMA_DEFAULT_DOMAIN)
			continue;
		for (j = 0; j < l->nr; j++) {
			if (l->v[j].gmfn == gmfn) {
				n += category < 0 ? l->v[j].total.cycles
						  : l->v[j].hv_by[category].cycles;
			}
		}
	}
	return n;
}

/*
 * cr3-schedule-time-all: a column for each CR3 first loaded since the last
 * row, in order of first load (machine-wide ids).  A domain's list is by
 * first load too, so its new CR3s are at its end.
 */
static bool add_cr3_columns(struct vma_xinterval *x, const struct vma_machine *m)
{
	size_t first = x->nr_cols, i, j;
	uint32_t d, k;

	if (x->cr3_ids_seen == m->next_cr3_id)
		return true;
	for (d = 0; d < m->nr_domains; d++) {
		const struct vma_domain *dom = m->domains[d];

		if (dom->did == VMA_DEFAULT_DOMAIN)
			continue;
		for (k = dom->cr3s.nr; k > 0 && dom->cr3s.v[k - 1].id >= x->cr3_ids_seen; k--)
			;
		for (; k < dom->cr3s.nr; k++) {
			if (vma_grow(x->cols, &x->cap_cols, x->nr_cols + 1, 16))
				return false;
			x->cols[x->nr_cols++] = (struct column){
				.key = dom->cr3s.v[k].id, .did = dom->did, .sub = k };
		}
	}
	/* Few at a time: an insertion sort by id, then the key becomes the frame. */
	for (i = first + 1; i < x->nr_cols; i++) {
		struct column c = x->cols[i];

		for (j = i; j > first && x->cols[j - 1].key > c.key; j--)
			x->cols[j] = x->cols[j - 1];
		x->cols[j] = c;
	}
	for (i = first; i < x->nr_cols; i++) {
		const struct vma_domain *dom = find_domain(m, x->cols[i].did);

		x->cols[i].key = dom->cr3s.v[x->cols[i].sub].gmfn;
	}
	x->cr3_ids_seen = m->next_cr3_id;
	return true;
}

/* The columns of a held mode: the ones seen by now, new ones at the end. */
static bool add_columns(struct vma_xinterval *x, const struct vma_machine *m)
{
	uint32_t i;

	if (x->opts.mode == VMA_XINTERVAL_CR3_SCHEDULE_TIME_ALL)
		return add_cr3_columns(x, m);
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
			   const struct column *c)
{
	if (x->opts.mode == VMA_XINTERVAL_GUEST_INTERRUPT)
		return injected(find_domain(m, x->opts.domains[0]), (uint32_t)c->key);
	if (x->opts.mode == VMA_XINTERVAL_CR3_SCHEDULE_TIME_ALL)
		return find_domain(m, c->did)->cr3s.v[c->sub].total.cycles;
	return run_cycles(m, (uint32_t)c->key);
}

static uint64_t take(uint64_t *last, uint64_t now)
{
	uint64_t d = now >= *last ? now - *last : 0;

	*last = now;
	return d;
}

static void write_start(struct vma_xinterval *x, uint64_t start)
{
	vma_fprintf(x->out, "%" PRIu64 ".%09" PRIu64, start / x->hz,
		(uint64_t)((unsigned __int128)(start % x->hz) * 1000000000u / x->hz));
}

static void write_value(struct vma_xinterval *x, uint64_t v, uint64_t len)
{
	if (counts(x))
		vma_fprintf(x->out, " %" PRIu64, v);
	else
		vma_fprintf(x->out, " %.2f", len ? (double)v * 100.0 / (double)len : 0.0);
}

static void write_header(struct vma_xinterval *x)
{
	size_t i;

	fputs("time", x->out);
	switch (x->opts.mode) {
	case VMA_XINTERVAL_TOTAL_TIME:
		for (i = 0; i < x->opts.nr_domains; i++)
			vma_fprintf(x->out, " %u", x->opts.domains[i]);
		break;
	case VMA_XINTERVAL_CR3_SCHEDULE_TIME:
		for (i = 0; i < x->opts.nr_gmfns; i++)
			vma_fprintf(x->out, " %" PRIx64, x->opts.gmfns[i]);
		break;
	case VMA_XINTERVAL_CR3_SCHEDULE_ORDERED:
		fputs(" gmfn: percent (* first loaded in the interval)", x->out);
		break;
	case VMA_XINTERVAL_SHORT_SUMMARY:
	case VMA_XINTERVAL_CR3_SHORT_SUMMARY:
		fputs(x->opts.mode == VMA_XINTERVAL_SHORT_SUMMARY ? " running" : " guest", x->out);
		for (i = 0; i < VMA_XCAT_COUNT; i++)
			vma_fprintf(x->out, " %s", vma_xinterval_category_name(i));
		break;
	case VMA_XINTERVAL_GRANT_MAPS:
		fputs(" grant_maps", x->out);
		break;
	default:
		for (i = 0; i < x->nr_cols; i++) {
			if (x->cols[i].key == VMA_GUEST_VECTORS &&
			    x->opts.mode == VMA_XINTERVAL_GUEST_INTERRUPT)
				fputs(" >255", x->out);
			else if (x->opts.mode == VMA_XINTERVAL_CR3_SCHEDULE_TIME_ALL &&
				 x->cols[i].key == VMA_CR3_OTHER)
				fputs(" other", x->out);
			else if (x->opts.mode == VMA_XINTERVAL_CR3_SCHEDULE_TIME_ALL)
				vma_fprintf(x->out, " %" PRIx64, x->cols[i].key);
			else
				vma_fprintf(x->out, " %" PRIu64, x->cols[i].key);
		}
		break;
	}
	fputc('\n', x->out);
}

/* Most time first, then most stays; ties by first load, for a stable order. */
static int rank_order(const void *pa, const void *pb)
{
	const struct cr3_rank *a = pa, *b = pb;

	if (a->cycles != b->cycles)
		return a->cycles < b->cycles ? 1 : -1;
	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return a->c->id < b->c->id ? -1 : a->c->id > b->c->id;
}

/*
 * cr3-schedule-ordered: the interval's start, then each CR3 with time in
 * it (every domain's), a line each, the first on the start's line.  An
 * interval with none is its start alone.
 */
static bool write_ordered(struct vma_xinterval *x, const struct vma_machine *m, uint64_t start,
			  uint64_t len)
{
	size_t nr = 0, old = x->cap_ord, i;
	uint32_t d, k;

	if (vma_grow(x->ord, &x->cap_ord, m->next_cr3_id, 16))
		return false;
	if (x->cap_ord > old)
		memset(x->ord + old, 0, (x->cap_ord - old) * sizeof(*x->ord));
	for (d = 0; d < m->nr_domains; d++) {
		const struct vma_cr3_list *l = &m->domains[d]->cr3s;

		for (k = 0; k < l->nr; k++) {
			const struct vma_cr3 *c = &l->v[k];
			struct cr3_last *last = &x->ord[c->id];
			struct cr3_rank r = { c, c->total.cycles - last->cycles,
					      c->total.count - last->count };

			*last = (struct cr3_last){ c->total.cycles, c->total.count };
			if (!r.cycles)
				continue;
			if (vma_grow(x->rank, &x->cap_rank, nr + 1, 16))
				return false;
			x->rank[nr++] = r;
		}
	}
	if (nr > 1)
		qsort(x->rank, nr, sizeof(*x->rank), rank_order);
	write_start(x, start);
	for (i = 0; i < nr; i++) {
		const struct vma_cr3 *c = x->rank[i].c;

		if (c->gmfn == VMA_CR3_OTHER)
			vma_fprintf(x->out, " %8s:", "other");
		else
			vma_fprintf(x->out, " %8" PRIx64 ":", c->gmfn);
		vma_fprintf(x->out, " %.2f %c\n", (double)x->rank[i].cycles * 100.0 / (double)len,
			    c->first_tsc > x->origin + start ? '*' : ' ');
	}
	if (!nr)
		fputc('\n', x->out);
	return true;
}

/*
 * cr3-short-summary=G: G's time, then the exit time run under it by
 * category in percent of that time.  Exit time of an interval in which no
 * stay of G ended waits for the row of the one that does: each row's
 * categories are shares of the stays it reports.
 */
static void write_cr3_short(struct vma_xinterval *x, const struct vma_machine *m, uint64_t len)
{
	uint64_t gmfn = x->opts.gmfns[0];
	uint64_t stay = take(&x->cols[0].last, cr3_time(m, gmfn, -1));
	uint32_t i;

	write_value(x, stay, len);
	for (i = 0; i < VMA_XCAT_COUNT; i++) {
		write_value(x, stay ? take(&x->cols[i + 1].last, cr3_time(m, gmfn, (int)i)) : 0,
			    stay);
	}
}

/* The interval [start, start + len) ended: its row, written or held. */
static void end_interval(struct vma_xinterval *x, const struct vma_machine *m, uint64_t start,
			 uint64_t len)
{
	uint32_t i;

	if (held(x)) {
		struct row r = { start, len, 0 };

		if (x->failed)
			return;
		if (!add_columns(x, m)) {
			x->failed = true;
			return;
		}
		r.nr = x->nr_cols;
		if (fwrite(&r, sizeof(r), 1, x->spill) != 1)
			goto spill_failed;
		for (i = 0; i < x->nr_cols; i++) {
			uint64_t v = take(&x->cols[i].last, column_now(x, m, &x->cols[i]));

			if (fwrite(&v, sizeof(v), 1, x->spill) != 1)
				goto spill_failed;
		}
		return;
spill_failed:
		x->failed = true;
		x->spill_errno = errno ? errno : EIO;
		return;
	}
	if (!x->header_done) {
		write_header(x);
		x->header_done = true;
	}
	if (x->opts.mode == VMA_XINTERVAL_CR3_SCHEDULE_ORDERED) {
		if (!write_ordered(x, m, start, len))
			x->failed = true;
		return;
	}
	write_start(x, start);
	switch (x->opts.mode) {
	case VMA_XINTERVAL_TOTAL_TIME:
		for (i = 0; i < x->opts.nr_domains; i++) {
			write_value(x, take(&x->cols[i].last, run_cycles(m, x->opts.domains[i])),
				    len);
		}
		break;
	case VMA_XINTERVAL_SHORT_SUMMARY:
		write_value(x, take(&x->cols[0].last, run_cycles(m, x->opts.domains[0])), len);
		for (i = 0; i < VMA_XCAT_COUNT; i++)
			write_value(x, take(&x->cols[i + 1].last, x->category[i]), len);
		break;
	case VMA_XINTERVAL_GRANT_MAPS: {
		const struct vma_domain *d = find_domain(m, x->opts.domains[0]);
		uint64_t maps = d && d->mem ? d->mem->grant_done_for[0] : 0;

		write_value(x, take(&x->cols[0].last, maps), len);
		break;
	}
	case VMA_XINTERVAL_CR3_SCHEDULE_TIME:
		for (i = 0; i < x->opts.nr_gmfns; i++) {
			write_value(x, take(&x->cols[i].last, cr3_time(m, x->opts.gmfns[i], -1)),
				    len);
		}
		break;
	case VMA_XINTERVAL_CR3_SHORT_SUMMARY:
		write_cr3_short(x, m, len);
		break;
	default:
		break;
	}
	fputc('\n', x->out);
}

static int status(const struct vma_xinterval *x)
{
	if (x->failed)
		return x->spill_errno ? VMA_ERR_OUTPUT : VMA_ERR_NOMEM;
	return ferror(x->out) ? VMA_ERR_OUTPUT : VMA_OK;
}

/*
 * The interval records are in jumps from x->index to @target, over
 * @empty intervals that saw none, more than the records allow: the
 * interval that had records is written, the empty ones are not.
 */
static bool time_jump(struct vma_xinterval *x, const struct vma_machine *m, uint64_t target,
		      uint64_t empty, uint64_t offset)
{
	uint64_t gap = (target - x->index) * x->length;

	end_interval(x, m, x->index * x->length, x->length);
	x->index = target;
	return vma_diag_report(x->diag, VMA_LVL_SANITY, x->file, offset,
			       "Time jumps forward by %" PRIu64 ".%09" PRIu64 " s (%" PRIu64
			       " ticks): %" PRIu64 " empty interval rows skipped",
			       gap / x->hz,
			       (uint64_t)((unsigned __int128)(gap % x->hz) * 1000000000u / x->hz),
			       gap, empty);
}

int vma_xinterval_tick(struct vma_xinterval *x, const struct vma_machine *m, uint64_t tsc,
		       uint64_t offset)
{
	uint64_t d, target, empty;

	if (!m->have_time)
		return VMA_OK;
	if (!x->started) {
		x->started = true;
		x->origin = m->first_tsc;
	}
	x->records++;
	if (tsc < x->origin)
		return VMA_OK; /* a late record: it belongs to the first interval */
	/* The record's interval: the first whose end is at or after it. */
	d = tsc - x->origin;
	target = d ? (d - 1) / x->length : 0;
	if (target <= x->index)
		return VMA_OK;
	empty = target - x->index - 1;
	/* empty_rows never passes the allowance, which only grows. */
	if (empty > VMA_XINTERVAL_EMPTY_ROWS + x->records - x->empty_rows) {
		if (!time_jump(x, m, target, empty, offset))
			return VMA_ERR_DAMAGED;
		return status(x);
	}
	x->empty_rows += empty;
	while (x->index < target) {
		end_interval(x, m, x->index * x->length, x->length);
		x->index++;
	}
	return status(x);
}

int vma_xinterval_finish(struct vma_xinterval *x, const struct vma_machine *m)
{
	uint64_t end, start;
	size_t j;
	int rc;

	if (m->have_time && m->last_tsc > m->first_tsc) {
		/* The last record's time was ticked already: no jump can be found here. */
		x->records--;
		rc = vma_xinterval_tick(x, m, m->last_tsc, UINT64_MAX);
		if (rc)
			return rc;
		end = m->last_tsc - x->origin;
		start = x->index * x->length;
		/* The last interval, partial or not, ends with the trace. */
		if (end > start)
			end_interval(x, m, start, end - start);
	}
	if (x->failed)
		return status(x);
	if (!x->header_done) {
		write_header(x);
		x->header_done = true;
	}
	if (!x->spill)
		return status(x);
	/* Rows held from before a column was seen have 0 there. */
	if (fflush(x->spill) || fseek(x->spill, 0, SEEK_SET))
		goto spill_failed;
	for (;;) {
		struct row r;

		if (fread(&r, sizeof(r), 1, x->spill) != 1)
			break;
		write_start(x, r.start);
		for (j = 0; j < x->nr_cols; j++) {
			uint64_t v = 0;

			if (j < r.nr && fread(&v, sizeof(v), 1, x->spill) != 1)
				goto spill_failed;
			write_value(x, v, r.len);
		}
		fputc('\n', x->out);
	}
	if (ferror(x->spill))
		goto spill_failed;
	return status(x);
spill_failed:
	x->failed = true;
	x->spill_errno = errno ? errno : EIO;
	return VMA_ERR_OUTPUT;
}
