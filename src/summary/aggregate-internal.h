/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The aggregate's storage, shared by aggregate.c and its save file's code. */
#ifndef VMALYZE_SUMMARY_AGGREGATE_INTERNAL_H
#define VMALYZE_SUMMARY_AGGREGATE_INTERNAL_H

#include <stddef.h>

#include "vmalyze/aggregate.h"

/* What tells exit reasons apart (aggregate.h). */
struct vma_agg_key {
	const char *platform; /* interned: vma_agg_platform_intern() */
	uint32_t code;
	enum vma_report_unit unit;
	uint64_t hz;
};

/* One exit reason of one trace, with its own distribution. */
struct vma_agg_exit {
	struct vma_agg_key key;
	char *name;           /* NULL when unnamed */
	struct vma_cycles dist;
};

struct vma_agg_vm {
	uint32_t id;
	char *name;
	uint64_t exits;
};

struct vma_agg_trace {
	uint64_t seq;         /* order of arrival: the last tie-break */
	char *file, *member;
	int status;
	bool failed;
	const char *platform;
	enum vma_report_unit unit;
	uint64_t hz, records, lost_records, total;
	struct vma_agg_vm *vms;
	size_t nr_vms;
	struct vma_agg_exit *exits; /* sorted by key */
	size_t nr_exits;
	int origin;           /* which load brought it (-1: this run) */
};

struct vma_aggregate {
	struct vma_aggregate_options opts;
	struct vma_agg_trace *traces;
	size_t nr_traces, cap_traces;
	uint64_t seq;
	int loads;            /* save files loaded so far */
	struct vma_aggregate_view *view; /* the last view built, owned */
	void *view_mem;       /* what it points into */
};

/* The interned platform name equal to @name, or NULL. */
const char *vma_agg_platform_intern(const char *name);
int vma_agg_key_cmp(const struct vma_agg_key *a, const struct vma_agg_key *b);
/* Append an empty trace; NULL when out of memory. */
struct vma_agg_trace *vma_agg_trace_new(struct vma_aggregate *agg);
/* Sort @t's exits by key (after they were gathered or loaded). */
void vma_agg_trace_sort(struct vma_agg_trace *t);
/* Drop the last trace (after a failed load) and what it owns. */
void vma_agg_trace_drop_last(struct vma_aggregate *agg);

#endif /* VMALYZE_SUMMARY_AGGREGATE_INTERNAL_H */
