/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pipeline's own structures, shared by its files (pipeline.c, the
 * loop and its inputs; split.c, a run in two parts).  Not a contract:
 * the stages outside see pipeline.h only.
 */
#ifndef VMALYZE_PIPELINE_INTERNAL_H
#define VMALYZE_PIPELINE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "vmalyze/dispatch.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/state.h"

struct split_side;
struct run_ahead;
struct vma_record;
struct waiting_end;
struct vma_merge_run;
struct vma_stream;

/*
 * One input and the machine its records go to.  A pipeline has one, or
 * several linked inputs (a host and its guests) merged on one clock: the
 * first is the host.
 */
struct member {
	struct vma_pipeline *p;
	struct vma_input *in;
	const char *name;                /* its file, as the caller named it (borrowed) */
	bool by_path;                    /* opened by @name, not from a descriptor */
	struct vma_input_options inopts; /* the pipeline's, with this input's time map */
	struct vma_machine *machine;
	uint64_t hz;
	uint32_t rank_base;        /* this input's cpus rank after the inputs before it */
	uint32_t rank_end;         /* one past its highest cpu's rank */
	uint64_t furthest;         /* for opts.progress */
	/* pcpus announced before the machine existed */
	uint32_t *early;
	size_t nr_early, cap_early;
	/* a guest: [guest cpu] = the host's vcpu running it, NULL when not known */
	const struct vma_vcpu **host_vcpu;
	uint32_t nr_host_vcpu;
};

struct vma_pipeline {
	struct vma_pipeline_options opts;
	struct vma_diag *diag;
	struct vma_feed *feed;
	struct member *members;    /* owned, nr_members */
	uint32_t nr_members;
	struct member *announcing; /* linked inputs: whose stream the feed is taking */
	bool linked;               /* more than one input */
	struct member *speaking;   /* linked inputs: the diag's source (speak_for()) */
	uint32_t nr_streams;
	uint64_t nr_records;       /* records delivered (opts.progress, none at all) */
	bool damaged_at_open;      /* the inputs' open said something: damage (pipeline-ahead.c) */
	/* --time: the window in ticks from the first record */
	bool have_first;
	uint64_t first_tsc, from, to;
	/* A run split in two (split.c): this side's part; NULL: not split. */
	struct split_side *split;
	/* Records taken ahead of the merge (pipeline-ahead.c); NULL: none. */
	struct run_ahead *ahead;
};

/*
 * split.c.  vma_split_wanted(): whether @p's run, bare (no hooks) and
 * wanting two threads, goes in two parts.  vma_split_run(): the run so,
 * the caller's feed started on one thread; as run_loop() returns, with
 * *@interrupted.  vma_split_poll(): run_loop() asks it now and then
 * (POLL_RECORDS), @rec the last record taken: VMA_OK to go on, VMA_END to
 * stop here, or an error.
 */
bool vma_split_wanted(const struct vma_pipeline *p);
int vma_split_run(struct vma_pipeline *p, bool *interrupted);
int vma_split_poll(struct vma_pipeline *p, const struct vma_record *rec);
/* The bare record loop, one thread, its stream runs read there (pipeline.c). */
int vma_pipeline_run_bare(struct vma_pipeline *p, bool *interrupted);

/*
 * pipeline-ahead.c: a bare one-thread run of a xentrace file that takes
 * records ahead of the merge where the report cannot tell (dispatch.h,
 * vma_dispatch_ahead()), made again in time order when it could.
 * vma_ahead_wanted(): whether @p's run (bare, one thread) goes so.
 * vma_ahead_run(): the run, as vma_pipeline_run_bare().  The loop
 * (vma_pipeline_run_ahead_loop(), pipeline.c) calls ahead_take() on an
 * HVM or PV record past its run (1: folded ahead), ahead_settle() before
 * every record it takes in order and vma_ahead_settle() with NULL at the
 * end (VMA_OK, or AHEAD_AGAIN: the run must be made again in order), and
 * the feed's end of a stream asks vma_ahead_defer_end() whether it waits.
 */
struct run_ahead {
	struct vma_machine *m;
	struct vma_diag *diag;
	bool out;                  /* records taken ahead wait for records stamped before */
	uint64_t latest;           /* the latest stamp taken ahead */
	/*
	 * A record the merge gives past this stamp has vma_ahead_settle()
	 * called: the latest out, 0 while ends wait, UINT64_MAX with none out.
	 */
	uint64_t watch;
	bool again;                /* the order may have told: make the run again */
	bool allowed;              /* the machine allows it (checked now and then) */
	uint32_t until_check;      /* records taken ahead before the machine is asked again */
	struct vma_budget_mark budget; /* the machine's budget then */
	uint64_t taken;            /* records taken ahead in all (-v) */
	uint64_t gave_up_at;       /* records when the rest went in time order, 0: none */
	struct waiting_end *ends;
	size_t nr_ends, cap_ends;
	/*
	 * The records of the run's stream taken ahead one after another
	 * (dispatch.h): open (the loop's flag) while each next record of the
	 * stream goes ahead, closed (ahead_batch_end()) before any other
	 * record is taken or dispatched.
	 */
	struct vma_ahead_batch batch;
};

#define AHEAD_AGAIN 3 /* not a status: VMA_OK, VMA_END and errors */
#define AHEAD_TAKEN 4 /* run_loop(): the record was folded ahead, take the next */
bool vma_ahead_wanted(const struct vma_pipeline *p);
int vma_ahead_run(struct vma_pipeline *p, bool *interrupted);
int vma_pipeline_run_ahead_loop(struct vma_pipeline *p, bool *interrupted);
/* The run's loop in time order from @stream and @run, where ahead_gives_up() stopped it. */
int vma_pipeline_run_in_order_from(struct vma_pipeline *p, bool *interrupted,
				   struct vma_stream *stream, struct vma_merge_run *run);
bool vma_ahead_open(struct run_ahead *a);
bool vma_ahead_recheck(struct run_ahead *a);
void vma_ahead_close_unused(struct run_ahead *a);
int vma_ahead_settle(struct run_ahead *a, const struct vma_record *rec);

/* @n records went out ahead, the latest stamped @latest: the window's watch follows. */
static inline void ahead_count(struct run_ahead *a, uint64_t n, uint64_t latest)
{
	a->taken += n;
	if (latest > a->latest)
		a->latest = latest;
	if (!a->nr_ends)
		a->watch = a->latest;
}

/*
 * @rec, past its run, of class HVM (@hvm) or PV, folded ahead of the
 * merge if it may go: 1 if it went, 0 if not, or an error.
 */
static inline int ahead_take(struct run_ahead *a, const struct vma_record *rec, bool hvm,
			     bool *batch)
{
	struct vma_outcome out;
	bool opened;
	int rc;

	/* The budget grows: the machine is asked again every so often. */
	if (__builtin_expect(!--a->until_check, 0) ? !vma_ahead_recheck(a) : !a->allowed)
		return 0;
	/* The next record of @batch's stream: records are out already. */
	if (*batch)
		return vma_dispatch_ahead_more(&a->batch, rec, hvm);
	opened = !a->out;
	if (opened && !vma_ahead_open(a))
		return 0;
	rc = vma_dispatch_ahead(a->m, rec, hvm, &out);
	if (rc > 0) {
		ahead_count(a, 1, rec->tsc);
		*batch = vma_dispatch_ahead_open(a->m, rec, &a->batch);
	} else if (rc == 0 && opened) {
		vma_ahead_close_unused(a); /* nothing went out: nothing was said meanwhile */
	}
	return rc;
}

/*
 * Close @batch (the loop's flag), if open: the stamps of its records set,
 * and the records counted as ahead_take() counts them.
 */
static inline void ahead_batch_end(struct run_ahead *a, bool *batch)
{
	if (!*batch)
		return;
	*batch = false;
	if (!a->batch.n)
		return;
	ahead_count(a, a->batch.n, a->batch.latest);
	vma_dispatch_ahead_close(&a->batch);
}

/* vma_ahead_settle() where it has something to do. */
static inline int ahead_settle(struct run_ahead *a, const struct vma_record *rec)
{
	if (__builtin_expect(rec->tsc <= a->watch, 1))
		return 0;
	return vma_ahead_settle(a, rec);
}

bool vma_ahead_defer_end(struct run_ahead *a, uint32_t pcpu);

/*
 * Asked by the loop every few hundred records: past AHEAD_TRIAL records,
 * with none out and no end waiting, whether fewer than 1/AHEAD_SHARE of
 * them went ahead.  Then the tests cost more than the steps of the merge
 * they save (bench/README, round forty-eight: a real 8-pcpu capture where
 * 3% go ahead, 3% slower; a real 2-pcpu one let go ahead, 16%, 2-5%
 * slower; hosts where half and more go, up to 30% faster), and the rest
 * of the run goes in time order, which is the merge's order whatever went
 * before.
 */
#define AHEAD_TRIAL (1u << 16)
#define AHEAD_SHARE 4u
static inline bool ahead_gives_up(struct run_ahead *a, uint64_t records)
{
	if (records < AHEAD_TRIAL || a->out || a->nr_ends || a->taken * AHEAD_SHARE >= records)
		return false;
	a->gave_up_at = records;
	return true;
}

#endif /* VMALYZE_PIPELINE_INTERNAL_H */
