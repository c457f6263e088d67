/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per guest CR3 accounting (--with-cr3-enumeration, xenalyze's CR3 list):
 * each page-table base an HVM domain's vcpus load, with the time it stayed
 * loaded (from one switch to the next), the guest and hypervisor time of
 * the vmexit arcs run under it, and how often it was switched to or
 * reloaded (a write of the value already loaded: a TLB flush).  The state
 * stage feeds it from the arc close (cr3.c).
 *
 * A guest loads a CR3 per process it runs, so a long trace of a busy
 * guest has thousands: a domain's list is a table of rows (cycles.h),
 * found through a hash index and charged to the machine's rows budget.
 * Past it, CR3s loaded for the first time share the domain's "other"
 * entry (gmfn VMA_CR3_OTHER).
 */
#ifndef VMALYZE_CR3_H
#define VMALYZE_CR3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmalyze/code-index.h"
#include "vmalyze/cycles.h"
#include "vmalyze/hvm-short.h"

struct vma_cr3 {
	uint64_t gmfn;          /* the CR3 value >> 12, never 0 */
	uint32_t id;            /* machine-wide, in order of first load */
	uint64_t first_tsc;     /* its first load */
	uint64_t last_tsc;      /* the last switch away from it, 0: never */
	uint64_t run_time;      /* guest + hypervisor cycles of its arcs */
	struct vma_cycles total; /* each stay, from a switch to it to the next switch */
	struct vma_cycles guest; /* each vmentry to vmexit under it */
	struct vma_cycles hv;    /* each vmexit arc under it */
	struct vma_cycles hv_by[VMA_XCAT_COUNT]; /* the same by short-summary category */
	uint64_t switches, flushes;
};

/* The "other" entry's gmfn (a gmfn is below 2^52). */
#define VMA_CR3_OTHER UINT64_MAX

/* A domain's CR3s, by first load. */
struct vma_cr3_list {
	struct vma_cr3 *v;      /* owned */
	uint32_t nr;
	size_t cap;
	struct vma_code_index index; /* by gmfn (code-index.h's key tables) */
};

/* A vcpu's side: what it has loaded. */
struct vma_cr3_vcpu {
	uint64_t val;           /* the CR3 last written, 0: none seen */
	bool loaded;            /* cur is valid */
	uint32_t cur;           /* index of the loaded CR3 in its domain's list */
	uint64_t since;         /* when it was switched to */
};

/* Frees @l, its rows and summaries charged to @b (cycles.h). */
void vma_cr3_list_release(struct vma_cr3_list *l, struct vma_cycles_budget *b);

#endif /* VMALYZE_CR3_H */
