/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xen-guest: a trace.dat recorded inside a Xen HVM guest with a TSC clock
 * (trace-cmd record -C x86-tsc), for putting on a xentrace's clock with
 * --guest-tsc: guest TSC = host TSC x MUL / DIV + OFFSET, as Xen sets a
 * vcpu's TSC.  Each cpu switches tasks every STEP host cycles from HOST_TSC;
 * the truth is the host time stamp of every record.
 */
#ifndef VMALYZE_XEN_GUEST_H
#define VMALYZE_XEN_GUEST_H

#include <stddef.h>
#include <stdint.h>

struct vma_xguest_opts {
	uint64_t host_tsc;         /* the first record's host TSC */
	int64_t offset;            /* guest TSC = host TSC x mul / div + offset */
	uint32_t mul, div;         /* 0: 1 */
	uint32_t nr_cpus;          /* 0: 2 */
	uint32_t per_cpu;          /* records per cpu; 0: 50 */
	uint64_t step;             /* host cycles between a cpu's records; 0: 10000 */
};

/* One record, in file order: its cpu and host TSC. */
struct vma_xguest_rec {
	uint32_t cpu;
	uint64_t host_tsc;
};

/*
 * vma_xguest_build - the trace.dat image (v7, x86-tsc clock, a TSC2NSEC
 * option vmalyze must not apply on a Xen host's TSC) and its records.
 * Return: 0 with *file and *recs owned (free()), or -1.
 */
int vma_xguest_build(const struct vma_xguest_opts *opts, unsigned char **file, size_t *len,
		     struct vma_xguest_rec **recs, size_t *nr_recs);

#endif /* VMALYZE_XEN_GUEST_H */
