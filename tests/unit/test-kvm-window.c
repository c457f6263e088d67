/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the KVM latency window (src/state/kvm-window.c): the
 * largest exit time inside any 1 ms window, exact for a vcpu's arcs and
 * for a VM's, whose arcs overlap and begin in no order, and across the
 * first overlap, where the window changes its way of keeping arcs.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "vmalyze/state-handlers.h"

#define MS 1000000ull

static void add(struct vma_latency_window *w, uint64_t start, uint64_t end)
{
	vma_latency_window_add(w, start, end, MS);
}

Test(kvm_window, a_long_exit_counts_one_window)
{
	struct vma_latency_window w = { 0 };

	add(&w, 0, 5 * MS);
	cr_assert_eq(w.max_window, MS);
	cr_assert_eq(w.max, 5 * MS);
	cr_assert_eq(w.exits, 1);
	free(w.ring);
}

/* A halt of one vcpu spanning a short exit of another: at most 2 vcpus x 1 ms. */
Test(kvm_window, overlapping_vcpus_are_clipped)
{
	struct vma_latency_window w = { 0 };

	add(&w, 9500000, 9600000);
	add(&w, 0, 10 * MS);
	cr_assert_eq(w.max_window, 1100000, "got %llu", (unsigned long long)w.max_window);
	free(w.ring);
}

/* Brute force: the sum inside the window that ends where arc @i ends (arcs by end). */
static uint64_t inside_at(const uint64_t (*arcs)[2], size_t i)
{
	uint64_t hi = arcs[i][1], lo = hi > MS ? hi - MS : 0, sum = 0;
	size_t j;

	for (j = 0; j <= i; j++) {
		uint64_t s = arcs[j][0] > lo ? arcs[j][0] : lo, e = arcs[j][1];

		if (e > s)
			sum += e - s;
	}
	return sum;
}

static int by_end(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/*
 * Random VMs of @vcpus vcpus, @per exits each, gaps below @gap and exits
 * mostly below @len (some up to 3 ms, spanning whole windows): after every
 * arc the largest window so far equals the brute force's.
 */
static void random_vms(int vcpus, size_t per, uint64_t gap, uint64_t len, unsigned int seed)
{
	static uint64_t arcs[4 * 400][2];
	unsigned int round;

	cr_assert_leq((size_t)vcpus * per, sizeof(arcs) / sizeof(arcs[0]));
	for (round = 0; round < 20; round++) {
		struct vma_latency_window w = { 0 };
		uint64_t best = 0;
		size_t n = 0, i;
		int v;

		for (v = 0; v < vcpus; v++) {
			uint64_t t = rand_r(&seed) % MS;

			for (i = 0; i < per; i++) {
				uint64_t g = 1000 + rand_r(&seed) % gap;
				uint64_t l = 1000 + (rand_r(&seed) % 8 ? rand_r(&seed) % len
								: rand_r(&seed) % (3 * MS));

				arcs[n][0] = t + g;
				arcs[n][1] = t + g + l;
				t = arcs[n][1];
				n++;
			}
		}
		qsort(arcs, n, sizeof(arcs[0]), by_end);
		for (i = 0; i < n; i++) {
			uint64_t in = inside_at(arcs, i);

			best = in > best ? in : best;
			add(&w, arcs[i][0], arcs[i][1]);
			cr_assert_eq(w.max_window, best, "%d vcpus, round %u, arc %zu", vcpus,
				     round, i);
		}
		cr_assert_leq(w.max_window, (uint64_t)vcpus * MS);
		free(w.ring);
	}
}

Test(kvm_window, random_vms_match_brute_force)
{
	random_vms(3, 400, 200000, 300000, 12345);
}

/* Sparse arcs: the ring empties often, and its arcs fall in and out of order. */
Test(kvm_window, sparse_vms_match_brute_force)
{
	random_vms(2, 400, 3 * MS, 600000, 777);
	random_vms(4, 300, 2 * MS, 400000, 4242);
}

/*
 * One vcpu's arcs, enough to grow the ring, then a second vcpu's that
 * overlap them: the sum goes on exact across the first overlap, whether
 * the ring's first arc had begun before the window's start or not.
 */
Test(kvm_window, the_first_overlap_keeps_the_sum)
{
	static uint64_t arcs[600][2];
	unsigned int seed = 31337, round;

	for (round = 0; round < 40; round++) {
		struct vma_latency_window w = { 0 };
		uint64_t t = 0, best = 0;
		size_t n = 0, i;

		for (i = 0; i < 300; i++) {
			t += 1000 + rand_r(&seed) % 5000;
			arcs[n][0] = t;
			t += 1000 + (round % 2 ? rand_r(&seed) % 8000 : rand_r(&seed) % 900000);
			arcs[n++][1] = t;
		}
		for (i = 0; i < 300; i++) {
			uint64_t start = arcs[150 + rand_r(&seed) % 150][0] + rand_r(&seed) % 3000;

			arcs[n][0] = start;
			arcs[n++][1] = start + 500 + rand_r(&seed) % 20000;
		}
		qsort(arcs, n, sizeof(arcs[0]), by_end);
		for (i = 0; i < n; i++) {
			uint64_t in = inside_at(arcs, i);

			best = in > best ? in : best;
			add(&w, arcs[i][0], arcs[i][1]);
			cr_assert_eq(w.max_window, best, "round %u, arc %zu", round, i);
		}
		cr_assert(w.overlap);
		free(w.ring);
	}
}

/* One vcpu: arcs in order, whatever their spacing. */
Test(kvm_window, one_vcpu_matches_brute_force)
{
	random_vms(1, 400, 20000, 300000, 99);
	random_vms(1, 400, 2 * MS, 300000, 100);
}
