/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --latency's splits and its longest wake-ups (latency-internal.h): a heap
 * that lets go the shortest, so that a long trace's wake-ups cost memory
 * only for those the report lists or sums.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/grow.h"
#include "vmalyze/status.h"
#include "latency-internal.h"

int lat_split_add(struct lat_split *s, uint32_t cause, uint64_t ticks)
{
	size_t old = s->cap;

	if (!ticks)
		return VMA_OK;
	if (vma_grow(s->ticks, &s->cap, (size_t)cause + 1, 8))
		return VMA_ERR_NOMEM;
	if (s->cap > old)
		memset(s->ticks + old, 0, (s->cap - old) * sizeof(*s->ticks));
	if (cause >= s->n)
		s->n = (size_t)cause + 1;
	s->ticks[cause] += ticks;
	return VMA_OK;
}

int lat_split_sum(struct lat_split *to, const struct lat_split *from)
{
	size_t c;
	int rc = VMA_OK;

	for (c = 0; c < from->n && rc == VMA_OK; c++)
		rc = lat_split_add(to, (uint32_t)c, from->ticks[c]);
	return rc;
}

/* @a comes before @b in the report: longer, or as long and earlier. */
static inline bool before(const struct lat_kept *a, const struct lat_kept *b)
{
	uint64_t la = lat_kept_latency(a), lb = lat_kept_latency(b);

	return la != lb ? la > lb : a->start < b->start;
}

/* The heap: no entry comes after its parent in the report. */
static void sift_up(struct lat_kept *h, size_t i)
{
	while (i) {
		size_t up = (i - 1) / 2;
		struct lat_kept t;

		if (!before(&h[up], &h[i]))
			return;
		t = h[up];
		h[up] = h[i];
		h[i] = t;
		i = up;
	}
}

static void sift_down(struct lat_kept *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, last = i;
		struct lat_kept t;

		if (l < n && before(&h[last], &h[l]))
			last = l;
		if (l + 1 < n && before(&h[last], &h[l + 1]))
			last = l + 1;
		if (last == i)
			return;
		t = h[last];
		h[last] = h[i];
		h[i] = t;
		i = last;
	}
}

static inline size_t kept_bytes(const struct lat_kept *k)
{
	return sizeof(*k) + k->nr * sizeof(*k->split);
}

/* The heap's first entry, the last in the report's order, is let go. */
static int evict(struct lat_longest *l)
{
	struct lat_kept *h = l->kept;
	uint64_t latency = lat_kept_latency(&h[0]);
	uint32_t c;
	int rc = VMA_OK;

	if (!l->evicted || latency > l->evicted_max) {
		l->evicted_max = latency;
		l->at_max = 0;
		if (l->at_max_split.n)
			memset(l->at_max_split.ticks, 0, l->at_max_split.n * sizeof(uint64_t));
	}
	if (latency == l->evicted_max) {
		l->at_max++;
		for (c = 0; c < h[0].nr && rc == VMA_OK; c++)
			rc = lat_split_add(&l->at_max_split, h[0].split[c].cause, h[0].split[c].ticks);
	}
	l->evicted++;
	l->bytes -= kept_bytes(&h[0]);
	free(h[0].split);
	h[0] = h[--l->nr];
	sift_down(h, l->nr, 0);
	return rc;
}

int lat_longest_add(struct lat_longest *l, const struct lat_kept *k,
		    const struct lat_split *split)
{
	struct lat_kept *to;
	size_t c, n = 0;
	int rc = VMA_OK;

	if (vma_grow(l->kept, &l->cap, l->nr + 1, 64))
		return VMA_ERR_NOMEM;
	for (c = 0; c < split->n; c++)
		n += split->ticks[c] != 0;
	to = &l->kept[l->nr];
	*to = *k;
	to->nr = 0;
	to->split = n ? malloc(n * sizeof(*to->split)) : NULL;
	if (n && !to->split)
		return VMA_ERR_NOMEM;
	for (c = 0; c < split->n; c++) {
		if (split->ticks[c])
			to->split[to->nr++] = (struct lat_cause_ticks){ (uint32_t)c, split->ticks[c] };
	}
	l->bytes += kept_bytes(to);
	sift_up(l->kept, l->nr++);
	while (rc == VMA_OK && l->nr > l->floor && (l->nr > l->keep || l->bytes > LAT_KEEP_BYTES))
		rc = evict(l);
	return rc;
}

/* qsort(): the heap's order, whole: the report's last first. */
static int by_report_order(const void *a, const void *b)
{
	const struct lat_kept *x = a, *y = b;

	return before(y, x) ? -1 : before(x, y);
}

void lat_longest_sort(struct lat_longest *l)
{
	qsort(l->kept, l->nr, sizeof(*l->kept), by_report_order);
}

void lat_longest_free(struct lat_longest *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->kept[i].split);
	free(l->kept);
	free(l->at_max_split.ticks);
	l->kept = NULL;
	l->nr = l->cap = 0;
	l->at_max_split = (struct lat_split){ 0 };
}
