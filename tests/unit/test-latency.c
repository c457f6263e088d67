/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host and guest on one timeline, on the generated pair of tools/kvm-pair.h
 * (an agent recording: GUEST option and TIME_SHIFT) whose truth the
 * generator states: the link decision, the merged order and clock, the
 * guest cpu tied to its host thread, and --latency's split of each guest
 * wake-up and of the vcpu thread's time by cause, to the nanosecond.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kvm-pair.h"
#include "vmalyze/diag.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/latency.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"

struct pair {
	char host[64], guest[64];
	struct vma_pair_truth truth;
};

static void write_file(char *path, const unsigned char *data, size_t len)
{
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void make_pair(struct pair *p)
{
	unsigned char *h, *g;
	size_t hl, gl;

	cr_assert_eq(vma_pair_build(&h, &hl, &g, &gl, &p->truth), 0);
	snprintf(p->host, sizeof(p->host), "/tmp/vma-pair-host-XXXXXX");
	snprintf(p->guest, sizeof(p->guest), "/tmp/vma-pair-guest-XXXXXX");
	write_file(p->host, h, hl);
	write_file(p->guest, g, gl);
	free(h);
	free(g);
}

static void drop_pair(struct pair *p)
{
	unlink(p->host);
	unlink(p->guest);
}

Test(link, the_guest_named_by_the_hosts_guest_option_is_linked_whatever_the_order)
{
	struct pair p;
	const char *hg[2], *gh[3];
	uint32_t host_of[3];

	make_pair(&p);
	hg[0] = p.host;
	hg[1] = p.guest;
	cr_assert_eq(vma_link_traces(hg, 2, &(struct vma_input_options){ 0 }, NULL, host_of), 0);
	cr_expect_eq(host_of[0], 0);
	cr_expect_eq(host_of[1], 0);
	gh[0] = p.guest;
	gh[1] = p.host;
	gh[2] = p.guest; /* the same file twice: each copy is the host's guest */
	cr_assert_eq(vma_link_traces(gh, 3, &(struct vma_input_options){ 0 }, NULL, host_of), 0);
	cr_expect_eq(host_of[0], 1);
	cr_expect_eq(host_of[1], 1);
	cr_expect_eq(host_of[2], 1);
	/* a guest alone is no one's */
	cr_assert_eq(vma_link_traces(gh, 1, &(struct vma_input_options){ 0 }, NULL, host_of), 0);
	cr_expect_eq(host_of[0], 0);
	drop_pair(&p);
}

/* What the run driver does for --latency (src/cli/linked.c), and the order seen. */
struct run {
	const struct vma_pipeline *p;
	struct vma_latency *lat;
	uint64_t last;
	uint64_t prev;
	unsigned out_of_order, guest_records, host_records;
	uint64_t first_guest;
};

static int after(void *arg, const struct vma_machine *m, const struct vma_stream *s,
		 const struct vma_outcome *out)
{
	struct run *r = arg;
	uint32_t i = vma_pipeline_input_index(r->p, s->input);

	(void)m;
	(void)out;
	r->out_of_order += s->rec.tsc < r->prev;
	r->prev = s->rec.tsc;
	if (s->rec.tsc > r->last)
		r->last = s->rec.tsc;
	if (i) {
		if (!r->guest_records++)
			r->first_guest = s->rec.tsc;
		return vma_latency_guest(r->lat, i, &s->rec);
	}
	r->host_records++;
	return vma_latency_host(r->lat, &s->rec);
}

static struct vma_lat_report *run_latency(struct pair *p, uint64_t threshold, struct run *r)
{
	const char *paths[2] = { p->host, p->guest };
	struct vma_diag *diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	struct vma_pipeline_options popts = { 0 };
	struct vma_pipeline_hooks hooks = { .arg = r, .after = after };
	struct vma_pipeline *pl;
	const struct vma_vcpu *v;
	struct vma_lat_report *rep;

	cr_assert_not_null(diag);
	cr_assert_eq(vma_pipeline_open_linked(paths, 2, &popts, diag, &pl), VMA_OK);
	r->p = pl;
	v = vma_pipeline_host_vcpu(pl, 1, 0);
	cr_assert_not_null(v, "guest cpu 0 is tied to no host vcpu");
	cr_expect_eq(v->kvm_tid, p->truth.host_tid);
	cr_expect_null(vma_pipeline_host_vcpu(pl, 1, 1));
	r->lat = vma_latency_create(&(struct vma_latency_options){ .hz = 1000000000u,
								   .threshold = threshold });
	cr_assert_not_null(r->lat);
	cr_assert_eq(vma_latency_tie(r->lat, 1, 0, v->kvm_tid), VMA_OK);
	cr_assert_eq(vma_pipeline_run(pl, &hooks), VMA_OK);
	rep = vma_latency_report(r->lat, r->last);
	cr_assert_not_null(rep);
	vma_pipeline_close(pl);
	vma_diag_destroy(diag);
	return rep;
}

static void expect_split(const struct vma_lat_share *got, uint32_t n,
			 const struct vma_pair_share *want, size_t nw, const char *what)
{
	size_t i;

	for (i = 0; i < nw && want[i].cause; i++) {
		cr_expect_lt(i, n, "%s: %s missing", what, want[i].cause);
		if (i >= n)
			return;
		cr_expect_str_eq(got[i].cause, want[i].cause, "%s: cause %zu", what, i);
		cr_expect_eq(got[i].ticks, want[i].ns, "%s: %s: %llu ns, not %llu", what,
			     want[i].cause, (unsigned long long)got[i].ticks,
			     (unsigned long long)want[i].ns);
	}
	cr_expect_eq(n, i, "%s: %u causes, not %zu", what, n, i);
}

Test(latency, each_wakeup_is_split_as_the_generator_says)
{
	struct pair p;
	struct run r = { 0 };
	struct vma_lat_report *rep;
	const struct vma_pair_truth *t;
	uint32_t k;
	size_t i;

	make_pair(&p);
	t = &p.truth;
	/* every wake-up listed: the threshold is below the shortest */
	rep = run_latency(&p, 1, &r);
	cr_expect_eq(r.out_of_order, 0);
	cr_expect_eq(r.host_records, 13);
	cr_expect_eq(r.guest_records, 3 * t->nr_wakeups);
	/* the guest's records come on the host clock: TIME_SHIFT applied */
	cr_expect_eq(r.first_guest, t->wakeups[0].start);
	cr_expect_eq(r.last, t->last);
	cr_assert(rep->have_guest);
	cr_expect_eq(rep->wakeups, t->nr_wakeups);
	cr_expect_eq(rep->above, t->nr_wakeups);
	cr_assert_eq(rep->nr_worst, t->nr_wakeups);
	for (k = 0; k < rep->nr_worst; k++) {
		const struct vma_lat_interval *w = &rep->worst[k];

		for (i = 0; i < t->nr_wakeups; i++) {
			if (t->wakeups[i].start == w->start)
				break;
		}
		cr_assert_lt(i, t->nr_wakeups, "a wake-up the generator did not write");
		cr_expect_eq(w->end, t->wakeups[i].end);
		cr_expect_eq(w->pid, t->wakeups[i].pid);
		cr_expect_str_eq(w->comm, t->wakeups[i].comm);
		cr_expect_eq(w->host_tid, t->host_tid);
		expect_split(w->split, w->nr_split, t->wakeups[i].split, VMA_PAIR_MAX_CAUSES,
			     t->wakeups[i].comm);
	}
	/* worst first */
	for (k = 1; k < rep->nr_worst; k++)
		cr_expect_geq(rep->worst[k - 1].end - rep->worst[k - 1].start,
			      rep->worst[k].end - rep->worst[k].start);
	cr_assert_eq(rep->nr_threads, 1);
	cr_expect_eq(rep->threads[0].tid, t->host_tid);
	cr_expect_eq(rep->threads[0].ticks, t->last - t->first);
	expect_split(rep->threads[0].split, rep->threads[0].nr_split, t->thread, t->nr_thread,
		     "the vcpu thread");
	vma_lat_report_free(rep);
	vma_latency_destroy(r.lat);
	drop_pair(&p);
}

Test(latency, the_default_threshold_is_the_guests_p99_and_the_aggregate_sums_those_above)
{
	struct pair p;
	struct run r = { 0 };
	struct vma_lat_report *rep;
	uint64_t sum = 0;
	uint32_t k;

	make_pair(&p);
	rep = run_latency(&p, 0, &r);
	/* four wake-ups: the p99 by nearest rank is the worst, 300 us */
	cr_expect(rep->threshold_is_p99);
	cr_expect_eq(rep->p99, 300000);
	cr_expect_eq(rep->max, 300000);
	cr_expect_eq(rep->threshold, 300000);
	cr_expect_eq(rep->above, 1);
	cr_expect_eq(rep->aggregate_ticks, 300000);
	for (k = 0; k < rep->nr_aggregate; k++)
		sum += rep->aggregate[k].ticks;
	cr_expect_eq(sum, rep->aggregate_ticks);
	cr_assert_geq(rep->nr_aggregate, 1);
	cr_expect_str_eq(rep->aggregate[0].cause, "preempted by stress");
	vma_lat_report_free(rep);
	vma_latency_destroy(r.lat);
	drop_pair(&p);
}
