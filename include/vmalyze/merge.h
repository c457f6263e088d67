/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Merge stage: orders the records of many per-pcpu streams (of one or more
 * inputs) into one stream by time stamp.
 *
 * Tie-break, for records with equal time stamps on different streams: the
 * stream that delivered the previous record goes on delivering (as
 * xenalyze reads Xen traces); otherwise the stream with the lower pcpu
 * number (then the one added first) comes first.  Once a stream of a KVM
 * input is added, the lower pcpu comes first even against the stream that
 * goes on, as `trace-cmd report` orders them.  Records of one stream are
 * never reordered.
 *
 * A stream added while merging (a pcpu that a reader found late) joins at
 * its first record; if that record is older than one already delivered, it
 * is delivered anyway, flagged VMA_REC_LATE, and counted.  A stream whose
 * next() returns VMA_PAUSED leaves without being reported ended; its
 * reader adds it again (vma_merge_add) when it has records, or when its
 * input ended meanwhile: then it is reported ended.  Added again, it keeps
 * its place among streams of equal stamps and pcpu (the order they were
 * first added in).  A stream added while the merge still holds it is read
 * once: the second add does nothing.
 */
#ifndef VMALYZE_MERGE_H
#define VMALYZE_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "vmalyze/input.h"

struct vma_merge;

/* Return: owned, free with vma_merge_destroy(); NULL when out of memory. */
struct vma_merge *vma_merge_create(void);
void vma_merge_destroy(struct vma_merge *merge);

/*
 * vma_merge_add - add @stream and read its first record.  Suitable as the
 * new_stream callback of vma_input_open() (with the merge as its argument).
 * Return: VMA_OK (also when the stream turned out to be empty) or a
 * negative VMA_ERR_*.
 */
int vma_merge_add(void *merge, struct vma_stream *stream);

/*
 * vma_merge_add_ranked - vma_merge_add() with @rank in place of the
 * stream's pcpu in the tie-break: streams of several linked files rank
 * each file's cpus after those of the files added before it, as
 * `trace-cmd report -i HOST -i GUEST` orders equal stamps.
 */
int vma_merge_add_ranked(struct vma_merge *merge, struct vma_stream *stream, uint32_t rank);

/*
 * vma_merge_next - the next record in time order.
 * Return: VMA_OK with *out set to the stream whose rec is that record
 * (borrowed, valid until the next call), VMA_END when every stream is
 * exhausted, or the negative VMA_ERR_* a stream failed with (that stream is
 * dropped; the others can still be read).
 */
int vma_merge_next(struct vma_merge *merge, struct vma_stream **out);

/*
 * A run: the records that the stream which delivered the last record may
 * go on delivering without the merge, those stamped from @last to @limit
 * (the first waiting stream's stamp).  The caller calls @stream's next()
 * itself; a record in the run is the next record, and its stamp becomes
 * @last; anything else (a status other than VMA_OK, a stamp out of the
 * run, @stream set to NULL by a stream that joined or a shift made since
 * the run opened) goes to vma_merge_next_from().
 */
struct vma_merge_run {
	struct vma_stream *stream;
	uint64_t last;
	uint64_t limit;
};

/*
 * vma_merge_runs - whether records can open runs: not when streams of
 * KVM's order of equal stamps were added (those go by pcpu, the stream
 * that goes on too).  A hint for callers; vma_merge_next_run() knows.
 */
bool vma_merge_runs(const struct vma_merge *merge);

/*
 * vma_merge_next_run - vma_merge_next(), and the run its record opens:
 * *@run is NULL when there is none (no stream goes on, KVM's order of
 * equal stamps, streams about to join).  The run is the merge's: after
 * one was opened, the next record must come from vma_merge_next_from().
 */
int vma_merge_next_run(struct vma_merge *merge, struct vma_stream **out,
		       struct vma_merge_run **run);

/*
 * vma_merge_next_from - vma_merge_next_run() when the caller, in a run,
 * has called the run stream's next() itself and got @rc: the merge takes
 * that record (or status) as if it had read it.
 */
int vma_merge_next_from(struct vma_merge *merge, int rc, struct vma_stream **out,
			struct vma_merge_run **run);

/*
 * vma_merge_pop_ended - a stream that ran out of records since the last
 * call, or NULL.  Call it after vma_merge_next(): the streams it returns
 * ended before the record just delivered.  Not with vma_merge_on_ended().
 */
struct vma_stream *vma_merge_pop_ended(struct vma_merge *merge);

/* Told of a stream that ran out of records (@stream is borrowed). */
typedef void (*vma_merge_ended_fn)(void *arg, const struct vma_stream *stream);

/*
 * vma_merge_on_ended - from now on, hand each stream that runs out to @fn,
 * inside the vma_merge_next() call that finds it ended (before the record
 * that call delivers), instead of keeping it for vma_merge_pop_ended():
 * a caller then pays nothing per record for the few ends.  NULL: keep them.
 */
void vma_merge_on_ended(struct vma_merge *merge, vma_merge_ended_fn fn, void *arg);

/*
 * vma_merge_shift - add @offset to the time stamps of pcpu @pcpu's streams
 * from their next record on (TSC skew correction; records already read
 * keep theirs).  Replaces the offset set before.
 */
void vma_merge_shift(struct vma_merge *merge, uint32_t pcpu, int64_t offset);

/* Number of records delivered out of time order (VMA_REC_LATE). */
uint64_t vma_merge_late_count(const struct vma_merge *merge);

/*
 * Whether the merge now compares (stamp, stream) pairs in two steps,
 * some stamp in play being out of its one-word keys' range (merge.c).
 * The order is the same either way; the tests check which way it went.
 */
bool vma_merge_wide(const struct vma_merge *merge);

/*
 * Number of streams the merge holds or held: each once, however often it
 * paused and was added again.
 */
uint32_t vma_merge_streams(const struct vma_merge *merge);

#endif /* VMALYZE_MERGE_H */
