/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --latency's parts shared by its files: a split of ticks by cause id,
 * and the longest wake-ups run, kept whole for the report
 * (latency-longest.c) while memory stays bounded.
 */
#ifndef VMALYZE_LATENCY_INTERNAL_H
#define VMALYZE_LATENCY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Ticks by cause id; grown as causes appear. */
struct lat_split {
	uint64_t *ticks;
	size_t n, cap;
};

/* @ticks more of @cause.  Return: VMA_OK or VMA_ERR_NOMEM. */
int lat_split_add(struct lat_split *s, uint32_t cause, uint64_t ticks);

/* @from's ticks added to @to's.  Return: VMA_OK or VMA_ERR_NOMEM. */
int lat_split_sum(struct lat_split *to, const struct lat_split *from);

/* One cause's ticks in a kept wake-up. */
struct lat_cause_ticks {
	uint32_t cause;
	uint64_t ticks;
};

/* A wake-up run, kept whole. */
struct lat_kept {
	uint64_t start, end;
	uint32_t guest, cpu, pid, tid;
	char comm[16];
	uint32_t nr;
	struct lat_cause_ticks *split; /* owned: the non-zero causes, by id */
};

static inline uint64_t lat_kept_latency(const struct lat_kept *k)
{
	return k->end - k->start;
}

/*
 * The longest wake-ups (ties: the earliest), at most @keep of them
 * holding at most LAT_KEEP_BYTES, but never fewer than @floor.  @kept is
 * a heap whose first entry is the last in the report's order; those let
 * go are counted: the longest of them @evicted_max, @at_max of them that
 * long, with their splits summed in @at_max_split, so that ties at a
 * threshold past the kept ones are still counted and summed.  A
 * zero-filled struct with @keep and @floor set is empty.
 */
struct lat_longest {
	struct lat_kept *kept;
	size_t nr, cap, bytes;
	uint32_t keep, floor;
	uint64_t evicted, evicted_max, at_max;
	struct lat_split at_max_split;
};

#define LAT_KEEP_BYTES ((size_t)16 << 20)

/*
 * lat_longest_add - the wake-up @k (its split ignored) whose ticks by
 * cause are @split, kept if it is among the longest.
 * Return: VMA_OK or VMA_ERR_NOMEM.
 */
int lat_longest_add(struct lat_longest *l, const struct lat_kept *k,
		    const struct lat_split *split);

/* lat_longest_sort - in the report's order, for lat_longest_nth() (a heap still). */
void lat_longest_sort(struct lat_longest *l);

/* The sorted set's @i-th (0: the longest), @i below l->nr. */
static inline const struct lat_kept *lat_longest_nth(const struct lat_longest *l, size_t i)
{
	return &l->kept[l->nr - 1 - i];
}

void lat_longest_free(struct lat_longest *l);

#endif /* VMALYZE_LATENCY_INTERNAL_H */
