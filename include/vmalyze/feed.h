/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Feed: the merged record stream as the analysis sees it, produced either on
 * the caller's thread (the readers and the merge run inside vma_feed_next())
 * or on a reader thread of its own, which reads and merges ahead while the
 * caller analyzes.  Both deliver the same records, pcpu announcements and
 * stream ends in the same order, so the analysis cannot tell them apart and
 * its output is the same byte for byte.
 *
 * With a reader thread, records travel in batches through a bounded ring
 * (1 MiB, whatever the trace size): the reader fills a batch
 * with copies of the records it merged, the caller takes whole batches.
 * Everything the reader thread touches besides the feed (the input, its
 * streams, the merge) is the reader's alone until vma_feed_stop(); the
 * diagnostics sink is shared, and is safe for that (see diag.h).
 *
 * Use: create, give vma_feed_add() as the new_stream callback of
 * vma_input_open(), vma_feed_start(), then vma_feed_next() until it returns
 * VMA_END or an error; vma_feed_stop() before closing the input.
 */
#ifndef VMALYZE_FEED_H
#define VMALYZE_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmalyze/input.h"
#include "vmalyze/merge.h"

struct vma_feed;

/*
 * Called on the caller's thread when a stream of pcpu @pcpu is announced,
 * before any of its records (or a later record of another pcpu) is delivered.
 * Return: VMA_OK or a negative VMA_ERR_*, which vma_feed_next() returns.
 */
typedef int (*vma_feed_pcpu_fn)(void *arg, uint32_t pcpu);

/*
 * Called on the caller's thread, inside vma_feed_next(), when a stream ran
 * out of records: after the records it delivered and before the record (or
 * the VMA_END) that call returns.  Only @stream's pcpu and input may be read.
 */
typedef void (*vma_feed_ended_fn)(void *arg, const struct vma_stream *stream);

/* Largest useful thread count: one reading and merging, one analyzing. */
#define VMA_FEED_MAX_THREADS 2u

/*
 * vma_feed_create - an empty feed; @on_pcpu(@arg, pcpu) is called for every
 * stream announced, @on_ended(@arg, stream) (when not NULL) for every
 * stream that ends.
 * Return: owned, free with vma_feed_destroy(); NULL when out of memory.
 */
struct vma_feed *vma_feed_create(vma_feed_pcpu_fn on_pcpu, vma_feed_ended_fn on_ended,
				 void *arg);

/* Stops the reader thread if it still runs, then frees the feed. */
void vma_feed_destroy(struct vma_feed *feed);

/*
 * vma_feed_add - take @stream in (the new_stream callback of
 * vma_input_open(), with the feed as its argument).
 * Return: VMA_OK or a negative VMA_ERR_*.
 */
int vma_feed_add(void *feed, struct vma_stream *stream);

/*
 * vma_feed_add_ranked - vma_feed_add() with @rank in place of the
 * stream's pcpu in the merge's tie-break (vma_merge_add_ranked()): the
 * cpus of linked files rank after those of the files before them.
 */
int vma_feed_add_ranked(struct vma_feed *feed, struct vma_stream *stream, uint32_t rank);

/*
 * vma_feed_start - begin delivering, on @threads threads: 1, the caller's
 * only; 2 (or more), a reader thread besides.  @spin: a side that finds
 * nothing to do watches the other for a moment before it sleeps; only
 * when each of the two threads can have a cpu of its own (else the
 * spinning thread takes the cpu the other one needs).
 * Return: VMA_OK, or VMA_ERR_NOMEM when the thread could not be started
 * (the feed then runs on the caller's thread, and still works).
 */
int vma_feed_start(struct vma_feed *feed, unsigned int threads, bool spin);

/*
 * vma_feed_next - the next record in time order, as vma_merge_next().
 * *out is borrowed and valid until the next call.  It may be a copy of the
 * stream that delivered the record: its rec, input and pcpu are those of
 * that stream, and its next() must not be called.
 * Return: VMA_OK, VMA_END, or a negative VMA_ERR_* (then stop reading).
 */
int vma_feed_next(struct vma_feed *feed, struct vma_stream **out);

/* vma_feed_runs - whether vma_feed_next_run() can open runs (vma_merge_runs(); one thread). */
bool vma_feed_runs(const struct vma_feed *feed);

/*
 * vma_feed_next_run - vma_feed_next(), and the run its record opens
 * (vma_merge_next_run()); *@run is always NULL with a reader thread,
 * which merges on its own.  After a run was opened, the next record
 * comes from vma_feed_next_from().
 */
int vma_feed_next_run(struct vma_feed *feed, struct vma_stream **out,
		      struct vma_merge_run **run);

/* vma_feed_next_from - vma_merge_next_from() of the feed's merge. */
int vma_feed_next_from(struct vma_feed *feed, int rc, struct vma_stream **out,
		       struct vma_merge_run **run);

/*
 * For a caller that needs only the records: with a reader thread, the
 * record items of a batch, which it walks itself, each lent where it lies
 * in the ring, not copied (vma_feed_lend_next()).  A record item is the
 * record's fixed part and its payload words, 8-byte aligned; an item that
 * is not a record has an nr_data no record has.  The walk stops there and
 * at @end, and vma_feed_lend() goes on from it.  A lent record is valid
 * until the next one is taken; its words past nr_data are not the
 * record's.
 */
struct vma_feed_lend {
	const unsigned char *at;  /* the next item */
	const unsigned char *end; /* the end of the items there are */
};

/* Bytes of a record item of @words payload words. */
static inline uint32_t vma_feed_item_size(uint32_t words)
{
	return (uint32_t)offsetof(struct vma_record, data) + ((4u * words + 7) & ~7u);
}

/*
 * vma_feed_lend_next - the next record of @lend's walk, lent where it
 * lies.  Return: false at an item that is not a record or at the end:
 * then vma_feed_lend().
 */
static inline bool vma_feed_lend_next(struct vma_feed_lend *lend, const struct vma_record **out)
{
	const struct vma_record *rec = (const struct vma_record *)lend->at;

	if (__builtin_expect(lend->at >= lend->end || rec->nr_data > VMA_REC_MAX_WORDS, 0))
		return false;
	lend->at += vma_feed_item_size(rec->nr_data);
	*out = rec;
	return true;
}

/*
 * vma_feed_lend - vma_feed_next()'s record, from where @lend's walk stopped
 * (zeroed: from the feed's start), the items that are not records acted
 * on, the next batch taken when one ends; @lend is then set to walk the
 * rest of the batch.  Without a reader thread each record is the merge's
 * and @lend walks none.  A caller walks with one @lend, and takes records
 * in no other way meanwhile.
 */
int vma_feed_lend(struct vma_feed *feed, struct vma_feed_lend *lend,
		  const struct vma_record **out);

/*
 * vma_feed_stop - stop the reader thread, if any, and wait for it; after
 * that the input may be closed and vma_feed_late_count() is final.  The
 * feed delivers nothing more: vma_feed_next() returns VMA_END.
 */
void vma_feed_stop(struct vma_feed *feed);

/*
 * vma_feed_shift - vma_merge_shift() of the feed's merge, when it runs on
 * the caller's thread.  Return: false with a reader thread, which has
 * merged records ahead: they cannot be moved any more.
 */
bool vma_feed_shift(struct vma_feed *feed, uint32_t pcpu, int64_t offset);

/*
 * Where a reader thread's run spent its time, to tell which side bounds
 * it: each thread's CPU time from vma_feed_start() to vma_feed_stop(),
 * and the wall time each waited for the other (spinning or asleep): the
 * reader for a free batch, the caller for a full one.
 */
struct vma_feed_times {
	uint64_t reader_cpu_ns;
	uint64_t reader_wait_ns;
	uint64_t caller_cpu_ns;
	uint64_t caller_wait_ns;
};

/* vma_feed_times - @out once a reader thread was stopped.  Return: false without one. */
bool vma_feed_times(const struct vma_feed *feed, struct vma_feed_times *out);

/* Records delivered out of time order (see merge.h). */
uint64_t vma_feed_late_count(const struct vma_feed *feed);

/* Threads the feed runs on: 1, or 2 once the reader thread was started. */
unsigned int vma_feed_threads(const struct vma_feed *feed);

/*
 * vma_feed_cpus - how many cpus this process may run on (its affinity), at
 * least 1: a reader thread overlaps the analysis from two on, and its
 * waits may spin when the runs at once leave two cpus to each.
 */
unsigned int vma_feed_cpus(void);

#endif /* VMALYZE_FEED_H */
