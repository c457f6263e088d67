/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kvm-pair: a KVM host trace.dat and its guest's, recorded as `trace-cmd
 * record -A` would (the host's GUEST option names the guest's trace id and
 * vcpu thread, the guest's TIME_SHIFT maps its clock onto the host's), with
 * the truth of --latency: for each guest wake-up, what the vcpu thread did
 * on the host meanwhile, by cause, and the thread's whole time by cause.
 * The scenario is fixed: an MMIO exit to the VMM, a host preemption, a
 * halt; times are chosen so each cause's share is known by construction.
 */
#ifndef VMALYZE_KVM_PAIR_H
#define VMALYZE_KVM_PAIR_H

#include <stddef.h>
#include <stdint.h>

#define VMA_PAIR_MAX_CAUSES 4

/* Ticks (ns) of one cause. */
struct vma_pair_share {
	const char *cause;         /* as latency.h names it */
	uint64_t ns;
};

/* One guest wake-up and its truth. */
struct vma_pair_wakeup {
	uint64_t start, end;       /* host clock, ns */
	uint32_t pid;
	const char *comm;
	struct vma_pair_share split[VMA_PAIR_MAX_CAUSES]; /* largest first */
};

struct vma_pair_truth {
	uint32_t host_tid;                   /* the vcpu thread */
	int64_t guest_offset;                /* host time = guest time + this */
	const struct vma_pair_wakeup *wakeups; /* static */
	size_t nr_wakeups;
	const struct vma_pair_share *thread; /* the thread's whole time, largest first */
	size_t nr_thread;
	uint64_t first, last;                /* the first and last record, host clock */
};

/*
 * vma_pair_build - the host and guest trace.dat images (v7, uncompressed)
 * and their truth.  Return: 0 with *host and *guest owned (free()), or -1.
 */
int vma_pair_build(unsigned char **host, size_t *host_len, unsigned char **guest,
		   size_t *guest_len, struct vma_pair_truth *truth);

/*
 * vma_pair_build_repeated - the scenario @times over, every 1 ms (a
 * measure of --latency on long traces); @truth is the first time's.
 */
int vma_pair_build_repeated(unsigned char **host, size_t *host_len, unsigned char **guest,
			    size_t *guest_len, struct vma_pair_truth *truth, uint32_t times);

#endif /* VMALYZE_KVM_PAIR_H */
