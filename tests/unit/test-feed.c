/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The feed: with a reader thread it delivers the same records, pcpu
 * announcements and stream ends, in the same order, as on one thread --
 * across many batches, with a pcpu announced from inside another stream's
 * next(), with a failing stream, and when the caller stops early; and the
 * reader thread's ring is let go when the feed stops.  The same through
 * a walk of the records where the batch holds them (vma_feed_lend_next(),
 * vma_feed_lend()), with payloads of every length; and records whose pcpu
 * is not their stream's.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/feed.h"
#include "vmalyze/grow.h"
#include "vmalyze/status.h"
#include "heap-held.h"

#define MAX_STREAMS 24

/* A walk that never stops at an item (a broken feed) loops: a failure, not a hang. */
TestSuite(feed, .timeout = 120);

/* A stream of @n records with pseudo-random increasing stamps. */
struct fake_stream {
	struct vma_stream stream;
	uint64_t tsc, seed;
	uint32_t n, next;
	int fail_at;                  /* index at which next() fails, or -1 */
	struct vma_feed *feed;
	struct fake_stream *announce; /* added when record announce_at is read */
	uint32_t announce_at;
	bool vary_words;              /* payloads of 0..VMA_REC_MAX_WORDS words, not 3 */
	uint32_t rec_pcpu;            /* the records' pcpu, if not the stream's: + 1 */
	bool overlong;                /* records claim more words than a record holds */
};

static int fake_next(struct vma_stream *s)
{
	struct fake_stream *f = (struct fake_stream *)s;

	if (f->announce && f->next == f->announce_at) {
		struct fake_stream *late = f->announce;

		f->announce = NULL;
		vma_feed_add(f->feed, &late->stream);
	}
	if ((int)f->next == f->fail_at)
		return VMA_ERR_DAMAGED;
	if (f->next >= f->n)
		return VMA_END;
	f->seed = f->seed * 6364136223846793005ull + 1442695040888963407ull;
	f->tsc += (f->seed >> 60); /* steps of 0..15: many equal stamps */
	memset(&s->rec, 0, sizeof(s->rec));
	s->rec.tsc = f->tsc;
	s->rec.pcpu = f->rec_pcpu ? f->rec_pcpu - 1 : s->pcpu;
	s->rec.offset = f->next;
	s->rec.nr_data = 3;
	s->rec.data[2] = (uint32_t)f->seed;
	if (f->vary_words) {
		uint32_t i;

		s->rec.nr_data = (uint16_t)((f->seed >> 40) % (VMA_REC_MAX_WORDS + 1));
		for (i = 0; i < VMA_REC_MAX_WORDS; i++)
			s->rec.data[i] = (uint32_t)(f->seed >> (i % 32)) + i;
		s->rec.flags = (uint16_t)(f->seed >> 50);
		s->rec.event = (uint32_t)(f->seed >> 20);
		s->rec.ctx = (uint32_t)f->next * 7;
	}
	if (f->overlong) {
		uint32_t i;

		s->rec.nr_data = VMA_REC_MAX_WORDS + 5;
		for (i = 0; i < VMA_REC_MAX_WORDS; i++)
			s->rec.data[i] = i + 1;
	}
	f->next++;
	return VMA_OK;
}

/* What a record says, its payload words only (those past nr_data are not its own). */
static uint64_t record_sum(const struct vma_record *rec)
{
	uint64_t sum = rec->offset ^ ((uint64_t)rec->event << 20) ^ ((uint64_t)rec->ctx << 40) ^
		       ((uint64_t)rec->flags << 8) ^ rec->nr_data;
	uint32_t i;

	for (i = 0; i < rec->nr_data; i++)
		sum = sum * 1000003u + rec->data[i];
	return sum;
}

/* What the caller saw, one line per event. */
struct log {
	char *text;
	size_t len, cap;
	uint32_t pcpus_seen, ends_seen;
};

static void log_add(struct log *l, const char *kind, uint32_t pcpu, uint64_t a, uint64_t b)
{
	char line[96];
	int n = snprintf(line, sizeof(line), "%s %u %llu %llu\n", kind, pcpu, (unsigned long long)a,
			 (unsigned long long)b);

	cr_assert_eq(vma_grow(l->text, &l->cap, l->len + (size_t)n + 1, 1 << 16), VMA_OK);
	memcpy(l->text + l->len, line, (size_t)n + 1);
	l->len += (size_t)n;
}

static int on_pcpu(void *arg, uint32_t pcpu)
{
	struct log *l = arg;

	l->pcpus_seen++;
	log_add(l, "pcpu", pcpu, 0, 0);
	return VMA_OK;
}

static void on_ended(void *arg, const struct vma_stream *e)
{
	struct log *l = arg;

	l->ends_seen++;
	log_add(l, "end", e->pcpu, 0, 0);
}

struct setup {
	uint32_t nr_streams;
	uint32_t records;  /* per stream */
	int fail_stream;   /* -1: none */
	int fail_at;
	uint32_t stop_after; /* caller stops after this many records; 0: never */
	bool lent;           /* read with a walk (vma_feed_lend()) */
	bool vary_words;     /* payloads of every length */
	bool foreign_pcpu;   /* the odd streams' records name another pcpu */
	bool far_second;     /* the second stream starts late: the first runs alone */
};

/*
 * Runs one host through a feed on @threads threads, whose waits spin first
 * or not (@spin); returns the log.
 */
static struct log run(const struct setup *su, unsigned int threads, bool spin, int *final)
{
	struct fake_stream fs[MAX_STREAMS];
	struct log log = { 0 };
	struct vma_feed *feed = vma_feed_create(on_pcpu, on_ended, &log);
	struct vma_feed_lend walk = { NULL, NULL };
	struct vma_stream *s;
	uint32_t i, delivered = 0, ends;
	size_t held;
	int rc;

	cr_assert_not_null(feed);
	memset(fs, 0, sizeof(fs));
	for (i = 0; i < su->nr_streams; i++) {
		fs[i].stream.next = fake_next;
		fs[i].stream.pcpu = su->nr_streams - 1 - i; /* pcpu order is not add order */
		fs[i].seed = i + 1;
		fs[i].tsc = 1000 + 3 * i;
		fs[i].n = su->records + 7 * i;
		fs[i].fail_at = (int)i == su->fail_stream ? su->fail_at : -1;
		fs[i].feed = feed;
		fs[i].vary_words = su->vary_words;
		fs[i].rec_pcpu = su->foreign_pcpu && i % 2 ? 100 + i + 1 : 0;
	}
	if (su->far_second)
		fs[1].tsc = (uint64_t)1 << 40;
	/* The last stream is found late, from inside the first one's next(). */
	fs[0].announce = &fs[su->nr_streams - 1];
	fs[0].announce_at = su->records / 2;
	for (i = 0; i + 1 < su->nr_streams; i++)
		cr_assert_eq(vma_feed_add(feed, &fs[i].stream), VMA_OK);
	cr_assert_eq(vma_feed_start(feed, threads, spin), VMA_OK);
	cr_assert_eq(vma_feed_threads(feed), threads);
	for (;;) {
		const struct vma_record *rec;

		if (su->lent) {
			rc = vma_feed_lend_next(&walk, &rec) ? VMA_OK : vma_feed_lend(feed, &walk, &rec);
			if (rc != VMA_OK)
				break;
			log_add(&log, "rec", rec->pcpu, rec->tsc, record_sum(rec));
		} else {
			rc = vma_feed_next(feed, &s);
			if (rc != VMA_OK)
				break;
			rec = &s->rec;
			if (!su->vary_words)
				cr_assert_eq(rec->nr_data, 3);
			log_add(&log, "rec", s->pcpu, rec->tsc, record_sum(rec));
			log_add(&log, "of", rec->pcpu, 0, 0);
		}
		if (++delivered == su->stop_after)
			break;
	}
	held = heap_held();
	vma_feed_stop(feed);
	/* The ring (1 MiB) goes when the feed stops: the report is built after. */
	if (threads > 1)
		cr_assert_leq(heap_held() + ((size_t)1 << 20), held, "the ring was kept");
	ends = log.ends_seen;
	cr_assert_eq(vma_feed_next(feed, &s), VMA_END, "a stopped feed delivers nothing");
	cr_assert_eq(log.ends_seen, ends, "a stopped feed tells of no more ends");
	log_add(&log, "late", 0, vma_feed_late_count(feed), 0);
	vma_feed_destroy(feed);
	*final = rc;
	return log;
}

static void same_both_ways(const struct setup *su, int want_final)
{
	int rc1, rc2, rc3;
	struct log one = run(su, 1, false, &rc1), two = run(su, 2, true, &rc2);
	struct log sleeping = run(su, 2, false, &rc3);

	cr_assert_eq(rc1, want_final);
	cr_assert_eq(rc2, rc1);
	cr_assert_eq(rc3, rc1);
	if (!su->stop_after)
		cr_assert_eq(one.pcpus_seen, su->nr_streams);
	if (!su->stop_after && su->fail_stream < 0)
		cr_assert_eq(one.ends_seen, su->nr_streams, "every stream is told ended once");
	cr_assert_eq(two.len, one.len, "logs of %zu and %zu bytes", one.len, two.len);
	cr_assert(!memcmp(one.text, two.text, one.len), "the reader thread changed the order");
	cr_assert_eq(sleeping.len, one.len, "logs of %zu and %zu bytes", one.len, sleeping.len);
	cr_assert(!memcmp(one.text, sleeping.text, one.len),
		  "the reader thread changed the order when its waits do not spin");
	free(one.text);
	free(two.text);
	free(sleeping.text);
}

Test(feed, same_order_over_many_batches)
{
	struct setup su = { .nr_streams = 6, .records = 9000, .fail_stream = -1 };

	same_both_ways(&su, VMA_END);
}

Test(feed, same_order_with_many_streams)
{
	/* More streams than the merge's sorted array holds: its tree. */
	struct setup su = { .nr_streams = MAX_STREAMS, .records = 3000, .fail_stream = -1 };

	same_both_ways(&su, VMA_END);
}

Test(feed, a_failing_stream_ends_the_feed_in_the_same_place)
{
	struct setup su = { .nr_streams = 5, .records = 20000, .fail_stream = 2, .fail_at = 12345 };

	same_both_ways(&su, VMA_ERR_DAMAGED);
}

Test(feed, the_caller_may_stop_early)
{
	/* The reader thread is then blocked on a full ring: stop must free it. */
	struct setup su = { .nr_streams = 4, .records = 100000, .fail_stream = -1,
			    .stop_after = 50 };

	same_both_ways(&su, VMA_OK);
}

Test(feed, one_thread_is_one_thread)
{
	struct setup su = { .nr_streams = 2, .records = 10, .fail_stream = -1 };
	int rc;
	struct log l = run(&su, 1, false, &rc);

	cr_assert_eq(rc, VMA_END);
	free(l.text);
}

Test(feed, lent_records_are_the_records)
{
	/* Every payload length: items of every size, a record ending at a batch's end. */
	struct setup su = { .nr_streams = 6, .records = 9000, .fail_stream = -1, .lent = true,
			    .vary_words = true };

	same_both_ways(&su, VMA_END);
}

Test(feed, lent_records_up_to_a_failure)
{
	struct setup su = { .nr_streams = 5, .records = 20000, .fail_stream = 2, .fail_at = 12345,
			    .lent = true, .vary_words = true };

	same_both_ways(&su, VMA_ERR_DAMAGED);
}

/*
 * The first stream reads a long run (the second starts much later) when
 * it announces the last one, whose records are older: the run ends there,
 * on the reader thread as on the caller's, and the new stream's records
 * come next either way.
 */
Test(feed, a_stream_announced_in_a_run_ends_the_run)
{
	struct setup su = { .nr_streams = 3, .records = 4000, .fail_stream = -1,
			    .far_second = true };

	same_both_ways(&su, VMA_END);
}

Test(feed, a_record_of_another_pcpu_keeps_its_stream)
{
	/* The stream's pcpu travels beside such a record (and not into the next one). */
	struct setup su = { .nr_streams = 7, .records = 5000, .fail_stream = -1,
			    .vary_words = true, .foreign_pcpu = true };

	same_both_ways(&su, VMA_END);
}

/*
 * A record claiming more words than a record holds reaches the caller
 * through the ring with the words it holds, lent or unpacked, over many
 * batches (the one-thread feed hands the reader's record as it is).
 */
Test(feed, an_overlong_record_keeps_the_words_it_has)
{
	for (int lent = 0; lent < 2; lent++) {
		struct fake_stream fs = { .stream = { .next = fake_next, .pcpu = 3 },
					  .seed = 1, .tsc = 1000, .n = 5000, .fail_at = -1,
					  .overlong = true };
		struct vma_feed *feed = vma_feed_create(NULL, NULL, NULL);
		struct vma_feed_lend walk = { NULL, NULL };
		uint32_t n = 0, i;
		int rc;

		cr_assert_not_null(feed);
		cr_assert_eq(vma_feed_add(feed, &fs.stream), VMA_OK);
		cr_assert_eq(vma_feed_start(feed, 2, false), VMA_OK);
		for (;;) {
			const struct vma_record *rec;
			struct vma_stream *s;

			if (lent) {
				rc = vma_feed_lend_next(&walk, &rec) ? VMA_OK
								     : vma_feed_lend(feed, &walk, &rec);
			} else {
				rc = vma_feed_next(feed, &s);
				rec = rc == VMA_OK ? &s->rec : NULL;
			}
			if (rc != VMA_OK)
				break;
			cr_assert_eq(rec->nr_data, VMA_REC_MAX_WORDS, "record %u", n);
			for (i = 0; i < VMA_REC_MAX_WORDS; i++)
				cr_assert_eq(rec->data[i], i + 1, "record %u word %u", n, i);
			n++;
		}
		cr_assert_eq(rc, VMA_END);
		cr_assert_eq(n, 5000);
		vma_feed_stop(feed);
		vma_feed_destroy(feed);
	}
}
