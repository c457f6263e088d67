/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The merge stage: time order across streams, the documented tie-break,
 * streams that join late or are empty, and a stream that fails.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "vmalyze/merge.h"
#include "vmalyze/status.h"

/* A stream over a fixed array of time stamps. */
struct fake_stream {
	struct vma_stream stream;
	const uint64_t *tscs;
	size_t n, next;
	int fail_at;     /* index at which next() fails, or -1 */
	struct vma_merge *merge;
	struct fake_stream *announce; /* stream to add when record announce_at is read */
	size_t announce_at;
	size_t pause_every;  /* next() pauses once before every record numbered a multiple of it */
	size_t paused_at;    /* the record it paused before, plus one */
	bool paused;         /* returned VMA_PAUSED, not added again yet */
};

static int fake_next(struct vma_stream *s)
{
	struct fake_stream *f = (struct fake_stream *)s;

	if (f->announce && f->next == f->announce_at) {
		struct fake_stream *late = f->announce;

		f->announce = NULL;
		vma_merge_add(f->merge, &late->stream);
	}
	if ((int)f->next == f->fail_at)
		return VMA_ERR_DAMAGED;
	if (f->pause_every && f->next % f->pause_every == 0 && f->paused_at != f->next + 1 &&
	    f->next < f->n) {
		f->paused_at = f->next + 1;
		f->paused = true;
		return VMA_PAUSED;
	}
	if (f->next >= f->n)
		return VMA_END;
	memset(&s->rec, 0, sizeof(s->rec));
	s->rec.tsc = f->tscs[f->next];
	s->rec.pcpu = s->pcpu;
	s->rec.offset = f->next;
	f->next++;
	return VMA_OK;
}

static void fake_init(struct fake_stream *f, uint32_t pcpu, const uint64_t *tscs, size_t n)
{
	memset(f, 0, sizeof(*f));
	f->stream.next = fake_next;
	f->stream.pcpu = pcpu;
	f->tscs = tscs;
	f->n = n;
	f->fail_at = -1;
}

/* @late joins @m while @by reads its record number @at (from inside next()). */
static void announce_at(struct fake_stream *by, size_t at, struct vma_merge *m,
			struct fake_stream *late)
{
	by->merge = m;
	by->announce = late;
	by->announce_at = at;
}

/* Drains the merge into (pcpu, index) pairs; returns the final status. */
static int drain(struct vma_merge *m, uint32_t *pcpus, uint64_t *idx, uint64_t *tscs, size_t max,
		 size_t *got)
{
	struct vma_stream *s;
	int rc;

	*got = 0;
	while ((rc = vma_merge_next(m, &s)) == VMA_OK) {
		cr_assert_lt(*got, max);
		pcpus[*got] = s->rec.pcpu;
		idx[*got] = s->rec.offset;
		tscs[*got] = s->rec.tsc;
		(*got)++;
	}
	return rc;
}

/*
 * drain() the way the pipeline reads Xen's streams: the runs' records
 * read by calling the stream's next() here (merge.h).  @shift_at: before
 * taking record @shift_at, shift pcpu 0 by @shift (as the skew correction
 * does, from inside the analysis of a record).
 */
static int drain_runs(struct vma_merge *m, uint32_t *pcpus, uint64_t *idx, uint64_t *tscs,
		      size_t max, size_t *got, size_t shift_at, int64_t shift)
{
	struct vma_merge_run *run = NULL;
	struct vma_stream *s = NULL;
	int rc;

	*got = 0;
	for (;;) {
		if (*got == shift_at)
			vma_merge_shift(m, 0, shift);
		if (run) {
			rc = s->next(s);
			if (rc == VMA_OK && run->stream && s->rec.tsc >= run->last &&
			    s->rec.tsc <= run->limit)
				run->last = s->rec.tsc;
			else
				rc = vma_merge_next_from(m, rc, &s, &run);
		} else {
			rc = vma_merge_next_run(m, &s, &run);
		}
		if (rc != VMA_OK)
			return rc;
		cr_assert_lt(*got, max);
		pcpus[*got] = s->rec.pcpu;
		idx[*got] = s->rec.offset;
		tscs[*got] = s->rec.tsc;
		(*got)++;
	}
}

Test(merge, orders_by_time_across_streams)
{
	static const uint64_t a[] = { 1, 4, 9 }, b[] = { 2, 3, 10 }, c[] = { 5 };
	struct fake_stream fa, fb, fc;
	struct vma_merge *m = vma_merge_create();
	uint32_t pcpus[8];
	uint64_t idx[8], tscs[8];
	size_t got, i;

	fake_init(&fa, 0, a, 3);
	fake_init(&fb, 1, b, 3);
	fake_init(&fc, 2, c, 1);
	vma_merge_add(m, &fa.stream);
	vma_merge_add(m, &fb.stream);
	vma_merge_add(m, &fc.stream);
	cr_assert_eq(drain(m, pcpus, idx, tscs, 8, &got), VMA_END);
	cr_assert_eq(got, 7);
	for (i = 1; i < got; i++)
		cr_assert_leq(tscs[i - 1], tscs[i]);
	cr_assert_eq(vma_merge_late_count(m), 0);
	vma_merge_destroy(m);
}

/*
 * A stamp out of the tree's keys' range turns it to wide nodes (once two
 * streams wait: with one, no match is played); streams that join once the
 * stamps in play fit again bring the keys back.
 */
Test(merge, stamps_out_of_the_keys_range_then_a_late_join)
{
	static const uint64_t big = UINT64_C(1) << 62;
	static const uint64_t a[] = { 10, 30, big };
	static const uint64_t b[] = { 20, 40, big + 5, big + 8, big + 12, big + 14 };
	static const uint64_t c[] = { big + 7, big + 9, big + 13 };
	static const uint64_t d[] = { 25, big + 6 };
	struct fake_stream fa, fb, fc, fd;
	struct vma_merge *m = vma_merge_create();
	uint64_t tscs[16];
	struct vma_stream *s;
	size_t got = 0, i;

	fake_init(&fa, 0, a, 3);
	fake_init(&fb, 1, b, 6);
	fake_init(&fc, 2, c, 3);
	fake_init(&fd, 3, d, 2);
	/* pcpu 2 is announced while pcpu 1 reads big + 8, after a's big ended a */
	announce_at(&fb, 3, m, &fc);
	vma_merge_add(m, &fa.stream);
	vma_merge_add(m, &fb.stream);
	vma_merge_add(m, &fd.stream);
	while (vma_merge_next(m, &s) == VMA_OK) {
		cr_assert_lt(got, 16);
		tscs[got++] = s->rec.tsc;
		if (s->rec.tsc == big + 5)
			cr_assert(vma_merge_wide(m), "big is out of range from 10");
	}
	cr_assert_eq(got, 14);
	for (i = 1; i < got; i++)
		cr_assert_lt(tscs[i - 1], tscs[i], "record %zu", i);
	cr_assert_not(vma_merge_wide(m), "the join dealt the keys again");
	vma_merge_destroy(m);
}

/*
 * Two streams (one waits, the other aside) trade places with no match
 * played and no key made, however far their stamps run from the tree's
 * base; a third that joins then finds them in order.  Read plainly and in
 * runs.
 */
Test(merge, two_streams_far_from_the_keys_base_then_a_join)
{
	static const uint64_t big = UINT64_C(1) << 62;
	static const uint64_t a[] = { 10, big, big + 2, big + 4, big + 9 };
	static const uint64_t b[] = { 20, big + 1, big + 3, big + 6, big + 8 };
	static const uint64_t c[] = { big + 5, big + 7 };
	static const uint32_t want_pcpu[] = { 0, 1, 0, 1, 0, 1, 0, 2, 1, 2, 1, 0 };
	uint32_t pcpus[16];
	uint64_t idx[16], tscs[16];
	struct fake_stream f[3];
	size_t got, i;

	for (int runs = 0; runs < 2; runs++) {
		struct vma_merge *m = vma_merge_create();

		fake_init(&f[0], 0, a, 5);
		fake_init(&f[1], 1, b, 5);
		fake_init(&f[2], 2, c, 2);
		/* pcpu 2 is announced while pcpu 1 reads big + 3 */
		announce_at(&f[1], 2, m, &f[2]);
		vma_merge_add(m, &f[0].stream);
		vma_merge_add(m, &f[1].stream);
		cr_assert_eq(runs ? drain_runs(m, pcpus, idx, tscs, 16, &got, SIZE_MAX, 0)
				  : drain(m, pcpus, idx, tscs, 16, &got),
			     VMA_END);
		cr_assert_eq(got, 12);
		for (i = 0; i < got; i++) {
			cr_assert_eq(pcpus[i], want_pcpu[i], "record %zu, runs %d", i, runs);
			if (i)
				cr_assert_lt(tscs[i - 1], tscs[i], "record %zu, runs %d", i, runs);
		}
		vma_merge_destroy(m);
	}
}

/* a's 12 comes after its 13: late, whether read in a run or not */
static const uint64_t run_a[] = { 1, 3, 5, 7, 9, 11, 13, 12, 60, 61 };
static const uint64_t run_b[] = { 40, 41, 42, 50 };
/* announced while a reads its 5, inside a run: c's 4 goes first */
static const uint64_t run_c[] = { 4, 6, 20, 45 };

/* Streams of run_a and run_b in @m, run_c announced by the first. */
static void run_streams(struct vma_merge *m, struct fake_stream f[3])
{
	fake_init(&f[0], 0, run_a, 10);
	fake_init(&f[1], 1, run_b, 4);
	fake_init(&f[2], 2, run_c, 4);
	announce_at(&f[0], 2, m, &f[2]);
	vma_merge_add(m, &f[0].stream);
	vma_merge_add(m, &f[1].stream);
}

/*
 * Runs read by the caller give vma_merge_next()'s order when a stream
 * joins from inside a run's next() and when a shift comes mid-run.
 */
Test(merge, runs_match_plain_reads_across_joins_and_shifts)
{
	uint32_t pp[64], rp[64];
	uint64_t pi[64], pt[64], ri[64], rt[64];
	size_t shift_at, got_plain, got_runs;

	for (shift_at = 0; shift_at < 24; shift_at++) {
		struct fake_stream f[3], g[3];
		struct vma_merge *m = vma_merge_create(), *n = vma_merge_create();
		struct vma_stream *s;
		int rc;

		run_streams(m, f);
		got_plain = 0;
		for (;;) {
			if (got_plain == shift_at)
				vma_merge_shift(m, 0, 7);
			rc = vma_merge_next(m, &s);
			if (rc != VMA_OK)
				break;
			pp[got_plain] = s->rec.pcpu;
			pi[got_plain] = s->rec.offset;
			pt[got_plain++] = s->rec.tsc;
		}
		cr_assert_eq(rc, VMA_END);

		run_streams(n, g);
		cr_assert_eq(drain_runs(n, rp, ri, rt, 64, &got_runs, shift_at, 7), VMA_END);
		cr_assert_eq(got_runs, got_plain, "shift at %zu", shift_at);
		cr_assert_arr_eq(rp, pp, got_plain * sizeof(*pp), "shift at %zu", shift_at);
		cr_assert_arr_eq(ri, pi, got_plain * sizeof(*pi), "shift at %zu", shift_at);
		cr_assert_arr_eq(rt, pt, got_plain * sizeof(*pt), "shift at %zu", shift_at);
		cr_assert_eq(vma_merge_late_count(n), vma_merge_late_count(m), "shift at %zu",
			     shift_at);
		if (shift_at > got_plain) /* not shifted: a's 12 is late */
			cr_assert_eq(vma_merge_late_count(m), 1);
		vma_merge_destroy(m);
		vma_merge_destroy(n);
	}
}

Test(merge, equal_stamps_current_stream_continues_then_lower_pcpu)
{
	/* pcpu 1 is first (stamp 1); at stamp 5 it keeps going before pcpu 0. */
	static const uint64_t p0[] = { 5, 5 }, p1[] = { 1, 5, 5 }, p2[] = { 5 };
	struct fake_stream f0, f1, f2;
	struct vma_merge *m = vma_merge_create();
	uint32_t pcpus[8];
	uint64_t idx[8], tscs[8];
	size_t got;

	fake_init(&f0, 0, p0, 2);
	fake_init(&f1, 1, p1, 3);
	fake_init(&f2, 2, p2, 1);
	vma_merge_add(m, &f2.stream);
	vma_merge_add(m, &f1.stream);
	vma_merge_add(m, &f0.stream);
	cr_assert_eq(drain(m, pcpus, idx, tscs, 8, &got), VMA_END);
	cr_assert_eq(got, 6);
	/* 1@1, then pcpu 1 continues through its 5s, then pcpu 0, then pcpu 2. */
	cr_assert_eq(pcpus[0], 1);
	cr_assert_eq(pcpus[1], 1);
	cr_assert_eq(pcpus[2], 1);
	cr_assert_eq(pcpus[3], 0);
	cr_assert_eq(pcpus[4], 0);
	cr_assert_eq(pcpus[5], 2);
	vma_merge_destroy(m);
}

/* KVM streams: equal stamps go by pcpu even against the stream that goes on (trace-cmd). */
Test(merge, equal_stamps_of_kvm_streams_go_by_pcpu)
{
	static const uint64_t p0[] = { 5, 5 }, p1[] = { 1, 5, 5 }, p2[] = { 5 };
	struct vma_input kvm = { .family = VMA_FAMILY_KVM };
	struct fake_stream f0, f1, f2;
	struct vma_merge *m = vma_merge_create();
	static const uint32_t want[] = { 1, 0, 0, 1, 1, 2 };
	uint32_t pcpus[8];
	uint64_t idx[8], tscs[8];
	size_t got, i;

	fake_init(&f0, 0, p0, 2);
	fake_init(&f1, 1, p1, 3);
	fake_init(&f2, 2, p2, 1);
	f0.stream.input = f1.stream.input = f2.stream.input = &kvm;
	vma_merge_add(m, &f2.stream);
	vma_merge_add(m, &f1.stream);
	vma_merge_add(m, &f0.stream);
	cr_assert_eq(drain(m, pcpus, idx, tscs, 8, &got), VMA_END);
	cr_assert_eq(got, 6);
	for (i = 0; i < got; i++)
		cr_assert_eq(pcpus[i], want[i], "record %zu from pcpu %u", i, pcpus[i]);
	vma_merge_destroy(m);
}

Test(merge, empty_streams_are_dropped)
{
	static const uint64_t a[] = { 3 };
	struct fake_stream fa, fe;
	struct vma_merge *m = vma_merge_create();
	uint32_t pcpus[4];
	uint64_t idx[4], tscs[4];
	size_t got;

	fake_init(&fa, 0, a, 1);
	fake_init(&fe, 1, NULL, 0);
	cr_assert_eq(vma_merge_add(m, &fe.stream), VMA_OK);
	vma_merge_add(m, &fa.stream);
	cr_assert_eq(drain(m, pcpus, idx, tscs, 4, &got), VMA_END);
	cr_assert_eq(got, 1);
	vma_merge_destroy(m);
}

/*
 * A record read in a run past the first waiting stream's swaps the two:
 * the run the delivered record opens starts at its stamp, so that the
 * next record of its stream, older (b's 9 after its 10), is late,
 * whether the records are read in runs or one by one.
 */
Test(merge, a_swap_opens_its_run_at_the_delivered_record)
{
	static const uint64_t a[] = { 1, 2, 50, 51 }, b[] = { 10, 9, 60 };
	static const uint64_t want[] = { 1, 2, 10, 9, 50, 51, 60 };
	struct fake_stream f[2];
	uint32_t pcpus[8];
	uint64_t idx[8], tscs[8];
	size_t got, i;
	int runs;

	for (runs = 0; runs < 2; runs++) {
		struct vma_merge *m = vma_merge_create();

		fake_init(&f[0], 0, a, 4);
		fake_init(&f[1], 1, b, 3);
		vma_merge_add(m, &f[0].stream);
		vma_merge_add(m, &f[1].stream);
		if (runs)
			cr_assert_eq(drain_runs(m, pcpus, idx, tscs, 8, &got, SIZE_MAX, 0), VMA_END);
		else
			cr_assert_eq(drain(m, pcpus, idx, tscs, 8, &got), VMA_END);
		cr_assert_eq(got, 7);
		for (i = 0; i < got; i++)
			cr_assert_eq(tscs[i], want[i], "runs %d: record %zu", runs, i);
		cr_assert_eq(vma_merge_late_count(m), 1, "runs %d: b's 9 comes after its 10", runs);
		vma_merge_destroy(m);
	}
}

Test(merge, late_stream_older_records_are_flagged)
{
	static const uint64_t a[] = { 10, 20, 30 }, late[] = { 15, 25 };
	struct fake_stream fa, fl;
	struct vma_merge *m = vma_merge_create();
	struct vma_stream *s;
	size_t n = 0, flagged = 0;
	uint64_t prev = 0;

	fake_init(&fa, 0, a, 3);
	fake_init(&fl, 1, late, 2);
	/* pcpu 1 is announced while pcpu 0's third record is read. */
	announce_at(&fa, 2, m, &fl);
	vma_merge_add(m, &fa.stream);
	while (vma_merge_next(m, &s) == VMA_OK) {
		if (s->rec.flags & VMA_REC_LATE)
			flagged++;
		else
			cr_assert_geq(s->rec.tsc, prev);
		if (!(s->rec.flags & VMA_REC_LATE))
			prev = s->rec.tsc;
		n++;
	}
	cr_assert_eq(n, 5);
	cr_assert_eq(flagged, 1, "15 arrives after 20 was delivered; 25 is not older than 20");
	cr_assert_eq(vma_merge_late_count(m), 1);
	vma_merge_destroy(m);
}

Test(merge, failing_stream_reports_after_the_others_drain)
{
	static const uint64_t a[] = { 1, 2, 3, 4 }, b[] = { 1, 2, 3, 4 };
	struct fake_stream fa, fb;
	struct vma_merge *m = vma_merge_create();
	uint32_t pcpus[8];
	uint64_t idx[8], tscs[8];
	size_t got;

	fake_init(&fa, 0, a, 4);
	fake_init(&fb, 1, b, 4);
	fb.fail_at = 2;
	vma_merge_add(m, &fa.stream);
	vma_merge_add(m, &fb.stream);
	cr_assert_eq(drain(m, pcpus, idx, tscs, 8, &got), VMA_ERR_DAMAGED);
	cr_assert_eq(got, 6, "all of pcpu 0 and pcpu 1's first two records");
	vma_merge_destroy(m);
}

Test(merge, ended_streams_are_reported_once)
{
	static const uint64_t a[] = { 1 }, b[] = { 2, 3 };
	struct fake_stream fa, fb;
	struct vma_merge *m = vma_merge_create();
	struct vma_stream *s;
	int ended_a = 0, ended_b = 0;

	fake_init(&fa, 0, a, 1);
	fake_init(&fb, 1, b, 2);
	vma_merge_add(m, &fa.stream);
	vma_merge_add(m, &fb.stream);
	for (;;) {
		struct vma_stream *e;
		int rc = vma_merge_next(m, &s);

		while ((e = vma_merge_pop_ended(m))) {
			ended_a += e == &fa.stream;
			ended_b += e == &fb.stream;
		}
		if (rc != VMA_OK)
			break;
	}
	cr_assert_eq(ended_a, 1);
	cr_assert_eq(ended_b, 1);
	vma_merge_destroy(m);
}

/*
 * Streams that pause before every other record and are added again, as a
 * live pipe's reader does with pcpus gone quiet, for hours: every record
 * comes once and in its stream's order, and the merge holds one leaf a
 * stream, not one a pause.
 */
Test(merge, paused_streams_added_again_keep_their_leaves)
{
	enum { STREAMS = 3, PER = 100000 };
	static uint64_t tsc[STREAMS][PER];
	struct fake_stream f[STREAMS];
	size_t want[STREAMS] = { 0 }, got = 0;
	struct vma_merge *m = vma_merge_create();
	struct vma_stream *s;
	uint32_t i;
	size_t k;
	int rc;

	for (i = 0; i < STREAMS; i++) {
		for (k = 0; k < PER; k++)
			tsc[i][k] = STREAMS * k + i;
		fake_init(&f[i], i, tsc[i], PER);
		f[i].pause_every = 2;
		vma_merge_add(m, &f[i].stream);
	}
	for (;;) {
		bool again = false;

		rc = vma_merge_next(m, &s);
		if (rc == VMA_OK) {
			cr_assert_eq(s->rec.offset, want[s->pcpu], "pcpu %u", s->pcpu);
			want[s->pcpu]++;
			got++;
		}
		for (i = 0; i < STREAMS; i++) {
			if (f[i].paused) {
				f[i].paused = false;
				again = true;
				cr_assert_eq(vma_merge_add(m, &f[i].stream), VMA_OK);
			}
		}
		if (rc != VMA_OK && !again)
			break;
	}
	cr_assert_eq(rc, VMA_END);
	cr_assert_eq(got, (size_t)STREAMS * PER);
	cr_assert_eq(vma_merge_streams(m), STREAMS);
	vma_merge_destroy(m);
}

/*
 * A paused stream added again keeps its place in the tie-break: of two
 * streams of one pcpu with equal stamps, the one added first goes first,
 * however often it paused.  A stream added twice is read once.
 */
Test(merge, paused_stream_keeps_its_place_among_equal_stamps)
{
	static const uint64_t a[] = { 10, 20 }, b[] = { 15, 20 }, c[] = { 18, 30 };
	static const uint32_t want_pcpu[] = { 0, 0, 1, 0, 0, 1 };
	static const uint64_t want_tsc[] = { 10, 15, 18, 20, 20, 30 };
	struct fake_stream fa, fb, fc;
	struct vma_merge *m = vma_merge_create();
	struct vma_stream *s, *order[6];
	size_t got = 0;
	int rc;

	fake_init(&fa, 0, a, 2);
	fake_init(&fb, 0, b, 2);
	fake_init(&fc, 1, c, 2);
	fa.pause_every = 1;
	fa.paused_at = 1; /* not before its first record */
	vma_merge_add(m, &fa.stream);
	vma_merge_add(m, &fb.stream);
	vma_merge_add(m, &fc.stream);
	cr_assert_eq(vma_merge_add(m, &fc.stream), VMA_OK);
	while ((rc = vma_merge_next(m, &s)) == VMA_OK) {
		cr_assert_lt(got, 6);
		cr_assert_eq(s->rec.pcpu, want_pcpu[got], "record %zu", got);
		cr_assert_eq(s->rec.tsc, want_tsc[got], "record %zu", got);
		order[got++] = s;
		if (fa.paused) {
			fa.paused = false;
			fa.pause_every = 0;
			vma_merge_add(m, &fa.stream);
		}
	}
	cr_assert_eq(rc, VMA_END);
	cr_assert_eq(got, 6);
	cr_assert_eq(order[3], &fa.stream, "the stream added first, paused or not");
	cr_assert_eq(order[4], &fb.stream);
	cr_assert_eq(vma_merge_streams(m), 3);
	vma_merge_destroy(m);
}

/*
 * Random streams with many equal stamps, from 2 streams (the sorted array)
 * to 40 (the tree of losers), against a brute-force merge of the contract:
 * the smallest stamp first; on equal stamps the stream that delivered last
 * goes on (not for KVM streams), otherwise the lower pcpu, then the stream
 * added first.
 */
/*
 * Streams of 2 to 40 pcpus with ties everywhere, against a brute-force
 * minimum.  @base is added to every stamp; with @jump the last half of
 * every fifth stream's stamps lies past 2^63, so that the tree meets
 * stamps too large for its keys midway (merge.c: the wide nodes).
 */
static void random_ties(bool kvm, uint64_t base, bool jump)
{
	enum { MAX_STREAMS = 40, PER = 60 };
	static uint64_t tsc[MAX_STREAMS][PER];
	static uint32_t got_pcpu[MAX_STREAMS * PER];
	static uint64_t got_idx[MAX_STREAMS * PER], got_tsc[MAX_STREAMS * PER];
	static uint32_t run_pcpu[MAX_STREAMS * PER];
	static uint64_t run_idx[MAX_STREAMS * PER], run_tsc[MAX_STREAMS * PER];
	struct vma_input input = { .family = kvm ? VMA_FAMILY_KVM : VMA_FAMILY_XEN };
	struct fake_stream f[MAX_STREAMS];
	uint32_t seed = 12345, nstreams, i, j;
	size_t got, k;

	for (nstreams = 2; nstreams <= MAX_STREAMS; nstreams += 3) {
		struct vma_merge *m = vma_merge_create();
		size_t pos[MAX_STREAMS] = { 0 };
		uint32_t pcpu[MAX_STREAMS], last = UINT32_MAX;

		for (i = 0; i < nstreams; i++) {
			uint64_t t = 0;

			for (j = 0; j < PER; j++) {
				seed = seed * 1103515245u + 12345u;
				t += (seed >> 16) % 3; /* steps of 0, 1 or 2: ties everywhere */
				tsc[i][j] = base + t;
				if (jump && i % 5 == 0 && j >= PER / 2)
					tsc[i][j] += UINT64_C(1) << 63;
			}
			/* pcpus out of insertion order, some shared */
			pcpu[i] = (i * 7u) % (nstreams / 2 + 1);
			fake_init(&f[i], pcpu[i], tsc[i], PER);
			f[i].stream.input = &input;
			vma_merge_add(m, &f[i].stream);
		}
		cr_assert_eq(drain(m, got_pcpu, got_idx, got_tsc, MAX_STREAMS * PER, &got), VMA_END);
		cr_assert_eq(got, (size_t)nstreams * PER);
		for (k = 0; k < got; k++) {
			uint32_t best = UINT32_MAX;

			for (i = 0; i < nstreams; i++) {
				if (pos[i] == PER)
					continue;
				if (best == UINT32_MAX || tsc[i][pos[i]] < tsc[best][pos[best]] ||
				    (tsc[i][pos[i]] == tsc[best][pos[best]] && i != best &&
				     ((!kvm && i == last) ||
				      ((kvm || best != last) && pcpu[i] < pcpu[best]))))
					best = i;
			}
			cr_assert_eq(got_tsc[k], tsc[best][pos[best]], "%u streams, record %zu", nstreams,
				     k);
			cr_assert_eq(got_pcpu[k], pcpu[best], "%u streams, record %zu", nstreams, k);
			cr_assert_eq(got_idx[k], pos[best], "%u streams, record %zu", nstreams, k);
			pos[best]++;
			last = best;
		}
		/*
		 * Only stamps past 2^63 do not fit (40 streams: 8 rank bits);
		 * two streams play no match (one waits), so make no key.
		 */
		cr_assert_eq(vma_merge_wide(m), jump && nstreams > 2, "%u streams", nstreams);
		vma_merge_destroy(m);

		/* Read in runs, the same records in the same order. */
		m = vma_merge_create();
		for (i = 0; i < nstreams; i++) {
			fake_init(&f[i], pcpu[i], tsc[i], PER);
			f[i].stream.input = &input;
			vma_merge_add(m, &f[i].stream);
		}
		cr_assert_eq(drain_runs(m, run_pcpu, run_idx, run_tsc, MAX_STREAMS * PER, &k,
					SIZE_MAX, 0), VMA_END);
		cr_assert_eq(k, got);
		cr_assert_arr_eq(run_pcpu, got_pcpu, got * sizeof(*got_pcpu));
		cr_assert_arr_eq(run_idx, got_idx, got * sizeof(*got_idx));
		cr_assert_arr_eq(run_tsc, got_tsc, got * sizeof(*got_tsc));
		vma_merge_destroy(m);
	}
}

Test(merge, random_ties_match_brute_force)
{
	random_ties(false, 0, false);
}

/* KVM streams, trace-cmd's order: equal stamps by pcpu, the stream that goes on too. */
Test(merge, random_ties_of_kvm_streams_match_brute_force)
{
	random_ties(true, 0, false);
}

/* Stamps too large for the tree's keys from the start, or from midway. */
Test(merge, random_ties_of_huge_stamps_match_brute_force)
{
	random_ties(false, UINT64_MAX - 1000, false);
	random_ties(true, UINT64_MAX - 1000, false);
	random_ties(false, 0, true);
	random_ties(true, 0, true);
	random_ties(false, UINT64_C(1) << 58, false);
}
