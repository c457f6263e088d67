/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the KVM latency window (src/state/kvm-window.c): the
 * largest exit time inside any 1 ms window, exact for a vcpu's arcs and
 * for a VM's, whose arcs overlap and begin in no order.
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

/* Brute force: every window that ends where an arc ends. */
static uint64_t expected(const uint64_t (*arcs)[2], size_t n)
{
	uint64_t best = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		uint64_t hi = arcs[i][1], lo = hi > MS ? hi - MS : 0, sum = 0;

		for (j = 0; j <= i; j++) {
			uint64_t s = arcs[j][0] > lo ? arcs[j][0] : lo, e = arcs[j][1];

			if (e > s)
				sum += e - s;
		}
		if (sum > best)
			best = sum;
	}
	return best;
}

static int by_end(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[1] < y[1] ? -1 : x[1] > y[1];
}

Test(kvm_window, random_vms_match_brute_force)
{
	enum { VCPUS = 3, PER = 400 };
	static uint64_t arcs[VCPUS * PER][2];
	unsigned int seed = 12345, round;

	for (round = 0; round < 20; round++) {
		struct vma_latency_window w = { 0 };
		size_t n = 0, i;
		int v;

		for (v = 0; v < VCPUS; v++) {
			uint64_t t = rand_r(&seed) % MS;

			for (i = 0; i < PER; i++) {
				/* gaps and exits from 1 us to 3 ms: some span whole windows */
				uint64_t gap = 1000 + rand_r(&seed) % 200000;
				uint64_t len = 1000 + (rand_r(&seed) % 8 ? rand_r(&seed) % 300000
								  : rand_r(&seed) % (3 * MS));

				arcs[n][0] = t + gap;
				arcs[n][1] = t + gap + len;
				t = arcs[n][1];
				n++;
			}
		}
		qsort(arcs, n, sizeof(arcs[0]), by_end);
		for (i = 0; i < n; i++)
			add(&w, arcs[i][0], arcs[i][1]);
		cr_assert_eq(w.max_window, expected(arcs, n), "round %u", round);
		cr_assert_leq(w.max_window, VCPUS * MS);
		free(w.ring);
	}
}
