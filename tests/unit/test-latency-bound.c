/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --latency's memory bound (latency.h, options.keep): a run that keeps
 * only the longest wake-ups gives the report of a run that keeps them all
 * while the p99 is among them; past that, ties and a raised threshold are
 * said.  Records are fed to the analysis directly: one host vcpu thread
 * in guest code, an exit of its own in each wake-up, and a guest whose
 * wake-ups are run one at a time.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/kvm-events.h"
#include "vmalyze/latency.h"
#include "vmalyze/status.h"

#define TID 3000u
#define VMX_EXTERNAL_INTERRUPT 1u
#define VMX_IO_INSTRUCTION 30u

static struct vma_record rec(uint32_t event, uint64_t tsc)
{
	struct vma_record r = { .tsc = tsc, .event = event, .ctx = TID, .nr_data = 12 };

	return r;
}

static void host(struct vma_latency *lat, uint32_t event, uint64_t tsc, uint32_t reason)
{
	struct vma_record r = rec(event, tsc);

	r.data[VMA_KVM_EXIT_REASON] = reason;
	r.data[VMA_KVM_EXIT_ISA] = VMA_KVM_ISA_VMX;
	cr_assert_eq(vma_latency_host(lat, &r), VMA_OK);
}

static void guest(struct vma_latency *lat, uint32_t event, uint64_t tsc, uint32_t pid)
{
	struct vma_record r = rec(event, tsc);

	if (event == VMA_KVM_SCHED_SWITCH) {
		r.data[VMA_KVM_SCHED_SWITCH_NEXT_PID] = pid;
	} else {
		r.data[VMA_KVM_SCHED_WAKEUP_PID] = pid;
		r.data[VMA_KVM_SCHED_WAKEUP_TARGET_CPU] = 0;
		memcpy(&r.data[VMA_KVM_SCHED_WAKEUP_COMM], "task", 4);
	}
	cr_assert_eq(vma_latency_guest(lat, 1, &r), VMA_OK);
}

/*
 * @n wake-ups, the i-th lasting @len(i) ticks, one after the other: each
 * spends its second quarter in an exit (of one of two reasons), so that
 * the splits differ.
 */
/* The report borrows the analysis's names: both are freed by done(). */
struct run {
	struct vma_latency *lat;
	struct vma_lat_report *r;
};

static void done(struct run *x)
{
	vma_lat_report_free(x->r);
	vma_latency_destroy(x->lat);
}

static struct vma_lat_report *run(struct run *x, uint32_t n, uint64_t (*len)(uint32_t),
				  uint32_t keep, uint64_t threshold)
{
	struct vma_latency_options o = { .hz = 1000000000u, .keep = keep,
					 .threshold = threshold };
	struct vma_latency *lat = vma_latency_create(&o);
	struct vma_lat_report *r;
	uint64_t t = 1000;
	uint32_t i;

	cr_assert_not_null(lat);
	cr_assert_eq(vma_latency_tie(lat, 1, 0, TID), VMA_OK);
	host(lat, VMA_KVM_ENTRY, t, 0);
	for (i = 0; i < n; i++) {
		uint64_t l = len(i);

		t += 100;
		guest(lat, VMA_KVM_SCHED_WAKING, t, 100 + i);
		host(lat, VMA_KVM_EXIT, t + l / 4, i % 3 ? VMX_EXTERNAL_INTERRUPT : VMX_IO_INSTRUCTION);
		host(lat, VMA_KVM_ENTRY, t + l / 2, 0);
		guest(lat, VMA_KVM_SCHED_SWITCH, t + l, 100 + i);
		t += l;
	}
	r = vma_latency_report(lat, t + 100);
	cr_assert_not_null(r);
	*x = (struct run){ lat, r };
	return r;
}

static void same_shares(const struct vma_lat_share *a, uint32_t na, const struct vma_lat_share *b,
			uint32_t nb)
{
	uint32_t i;

	cr_assert_eq(na, nb);
	for (i = 0; i < na; i++) {
		cr_assert_str_eq(a[i].cause, b[i].cause);
		cr_assert_eq(a[i].ticks, b[i].ticks, "%s: %lu, not %lu", a[i].cause,
			     (unsigned long)a[i].ticks, (unsigned long)b[i].ticks);
	}
}

/* Every number and line of @a and @b the same. */
static void same_report(const struct vma_lat_report *a, const struct vma_lat_report *b)
{
	uint32_t i;

	cr_assert_eq(a->wakeups, b->wakeups);
	cr_assert_eq(a->p50, b->p50, "p50 %lu, not %lu", (unsigned long)a->p50,
		     (unsigned long)b->p50);
	cr_assert_eq(a->p99, b->p99, "p99 %lu, not %lu", (unsigned long)a->p99,
		     (unsigned long)b->p99);
	cr_assert(a->p50_exact && b->p50_exact && a->p99_exact && b->p99_exact);
	cr_assert_eq(a->max, b->max);
	cr_assert_eq(a->threshold, b->threshold);
	cr_assert(!a->threshold_raised && !b->threshold_raised);
	cr_assert_eq(a->above, b->above);
	cr_assert_eq(a->aggregate_ticks, b->aggregate_ticks);
	same_shares(a->aggregate, a->nr_aggregate, b->aggregate, b->nr_aggregate);
	cr_assert_eq(a->nr_worst, b->nr_worst);
	for (i = 0; i < a->nr_worst; i++) {
		cr_assert_eq(a->worst[i].start, b->worst[i].start);
		cr_assert_eq(a->worst[i].pid, b->worst[i].pid);
		same_shares(a->worst[i].split, a->worst[i].nr_split, b->worst[i].split,
			    b->worst[i].nr_split);
	}
}

/* 3,000 distinct latencies in a scrambled order; every 30th is 0 (run as it woke). */
static uint64_t scrambled(uint32_t i)
{
	return i % 30 == 7 ? 0 : 1000 + (uint64_t)(i * 7919u % 3000u) * 10;
}

Test(latency_bound, keeping_40_gives_the_whole_report_while_the_p99_is_among_them)
{
	/* p99: the 31st longest of 3,000; p50 from the distribution, zeros counted */
	struct run x, y;
	struct vma_lat_report *all = run(&x, 3000, scrambled, 0, 0);
	struct vma_lat_report *some = run(&y, 3000, scrambled, 40, 0);

	cr_assert_eq(all->above, 31);
	cr_assert_eq(all->nr_worst, 10);
	same_report(all, some);
	done(&x);
	done(&y);
}

Test(latency_bound, a_threshold_of_the_users_sums_every_wakeup_above_it_as_they_run)
{
	struct run x, y;
	struct vma_lat_report *all = run(&x, 3000, scrambled, 0, 25000);
	struct vma_lat_report *some = run(&y, 3000, scrambled, 40, 25000);

	cr_assert_gt(all->above, 400);
	same_report(all, some);
	done(&x);
	done(&y);
}

static uint64_t tied(uint32_t i)
{
	return i < 2000 ? 5000 : 2000 + i;
}

Test(latency_bound, ties_at_the_p99_past_the_kept_are_counted_and_summed)
{
	/* 2,000 of 3,000 wake-ups last 5,000 ticks, the p99 and the longest */
	struct run x, y;
	struct vma_lat_report *r = run(&x, 3000, tied, 40, 0);
	struct vma_lat_report *all = run(&y, 3000, tied, 0, 0);

	cr_assert_eq(r->p99, 5000);
	cr_assert(r->p99_exact && !r->threshold_raised);
	cr_assert_eq(r->above, 2000);
	cr_assert_eq(r->aggregate_ticks, 2000 * 5000);
	cr_assert_eq(r->nr_aggregate, 3);
	/* the first woken of the ties are the ones kept and listed */
	cr_assert_eq(r->worst[0].pid, 100);
	cr_assert_eq(r->worst[9].pid, 109);
	same_report(all, r);
	done(&x);
	done(&y);
}

static uint64_t distinct(uint32_t i)
{
	return 1000 + (uint64_t)(i * 7919u % 10000u);
}

Test(latency_bound, past_100_times_the_kept_the_threshold_is_raised_to_what_was_let_go)
{
	/* p99 is the 101st longest of 10,000; the 40 kept are the longest */
	struct run x;
	struct vma_lat_report *r = run(&x, 10000, distinct, 40, 0);
	uint64_t sum = 0;
	uint32_t i;

	cr_assert_eq(r->p99, 1000 + 9899);
	cr_assert(r->p99_exact);
	cr_assert(r->threshold_raised);
	cr_assert_eq(r->threshold, 1000 + 9959, "threshold %lu", (unsigned long)r->threshold);
	cr_assert_eq(r->above, 41);
	/* the 41 longest: 1,000 + 9,959 to 1,000 + 9,999 */
	cr_assert_eq(r->aggregate_ticks, 41 * 1000 + 41 * 9979);
	for (i = 0; i < r->nr_aggregate; i++)
		sum += r->aggregate[i].ticks;
	cr_assert_eq(sum, r->aggregate_ticks);
	cr_assert_eq(r->max, 1000 + 9999);
	done(&x);
}

/* An analysis with the default bounds, its report at @end, and both freed. */
static struct vma_latency *fresh(void)
{
	struct vma_latency *lat = vma_latency_create(&(struct vma_latency_options){
		.hz = 1000000000u });

	cr_assert_not_null(lat);
	return lat;
}

static struct vma_lat_report *report(struct vma_latency *lat, uint64_t end)
{
	struct vma_lat_report *r = vma_latency_report(lat, end);

	cr_assert_not_null(r);
	return r;
}

static void finish(struct vma_latency *lat, struct vma_lat_report *r)
{
	vma_lat_report_free(r);
	vma_latency_destroy(lat);
}

Test(latency_bound, wakeups_past_1024_waiting_at_once_are_counted_not_followed)
{
	struct vma_latency *lat = fresh();
	struct vma_lat_report *r;
	uint32_t i;

	for (i = 0; i < 1100; i++)
		guest(lat, VMA_KVM_SCHED_WAKING, 1000 + i, 100 + i);
	guest(lat, VMA_KVM_SCHED_SWITCH, 5000, 100);
	guest(lat, VMA_KVM_SCHED_SWITCH, 5001, 100 + 1099);
	r = report(lat, 6000);
	cr_assert_eq(r->wakeups, 1);
	cr_assert_eq(r->max, 4000);
	cr_assert_eq(r->unfollowed, 76);
	finish(lat, r);
}

Test(latency_bound, causes_past_1024_are_named_without_their_refinement)
{
	struct vma_latency *lat = fresh();
	struct vma_lat_report *r;
	uint64_t t = 1000, sum = 0;
	uint32_t i, folded = 0;

	for (i = 0; i < 2000; i++, t += 100) {
		struct vma_record m = rec(VMA_KVM_MMIO, t + 1);

		host(lat, VMA_KVM_EXIT, t, 49); /* EPT_MISCONFIG */
		m.data[VMA_KVM_MMIO_GPA] = 0xfe000000u + 8 * i;
		cr_assert_eq(vma_latency_host(lat, &m), VMA_OK);
		host(lat, VMA_KVM_ENTRY, t + 10, 0);
	}
	r = report(lat, t);
	cr_assert_eq(r->nr_threads, 1);
	/* the fixed causes, then refined ones up to 1024 names; the rest in the reason's */
	cr_assert_leq(r->threads[0].nr_split, 1024);
	for (i = 0; i < r->threads[0].nr_split; i++) {
		sum += r->threads[0].split[i].ticks;
		if (!strcmp(r->threads[0].split[i].cause, "exit EPT_MISCONFIG")) {
			folded = 1;
			cr_assert_geq(r->threads[0].split[i].ticks, 10 * (2000 - 1024));
		}
	}
	cr_assert(folded);
	cr_assert_eq(sum, r->threads[0].ticks);
	cr_assert_eq(r->threads[0].ticks, t - 1000);
	finish(lat, r);
}

Test(latency_bound, records_of_host_threads_past_1024_are_counted_not_followed)
{
	struct vma_latency *lat = fresh();
	struct vma_lat_report *r;
	uint32_t i;

	for (i = 0; i < 2200; i++) {
		struct vma_record e = rec(i % 2 ? VMA_KVM_EXIT : VMA_KVM_ENTRY, 1000 + i);

		e.ctx = 5000 + i / 2;
		cr_assert_eq(vma_latency_host(lat, &e), VMA_OK);
	}
	r = report(lat, 3000);
	cr_assert_eq(r->nr_threads, 1024);
	cr_assert_eq(r->records_unfollowed, 2 * 76);
	finish(lat, r);
}
