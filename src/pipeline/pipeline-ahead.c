/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Records taken ahead of the merge, on a bare one-thread run of a
 * xentrace file (-s).
 *
 * The merge costs most where the pcpus take turns every few records: each
 * turn is a step of its tree.  Yet most records touch only their vcpu and
 * pcpu (an exit, its handler records, the entry; a PV record's counts),
 * and folding such a record before records of other pcpus stamped
 * earlier gives the same report, unless one of those changes the vcpu's
 * runstate, a budget's decision falls meanwhile, or a message is said.
 * So a record past its run's limit is folded at once when
 * vma_dispatch_ahead() allows it; the run goes on, and the records
 * stamped before it follow in the merge's order as ever.  Until the merge
 * has passed the latest stamp taken ahead (the records are "out", a
 * window open), this file watches what could tell:
 *
 *  - a runstate changed from another pcpu on a vcpu with records out
 *    (the machine's ahead_conflict, sched.c);
 *  - a decision of the budget that could have fallen in some order
 *    (vma_machine_budget_room(): the use when records went out plus all
 *    charged since passed a limit);
 *  - any message: the diag holds them while a window is open;
 *  - an SVM exit telling the vendor after an interrupt's vector was read
 *    ahead while it was not known (an ahead_conflict too, hvm.c);
 *  - a stream that ended with records out: its end (the vcpu it ran goes
 *    to LOST) waits here for the merge to reach its last stamp, as the
 *    merge would have told it there; two ends, or an end and a record of
 *    another pcpu, with one stamp could go either way, and tell.
 *
 * Any of these and the run is made again, from the start of the file, in
 * the merge's order: its messages up to where the first try left the
 * order are not said twice (vma_diag_rewind()).  A report that cannot
 * tell costs one run; one that could, a part of a run more.
 */
#include <stdlib.h>

#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/feed.h"
#include "vmalyze/grow.h"
#include "vmalyze/input.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"

#include "pipeline-internal.h"

/* The end of a pcpu's stream, waiting for the merge to reach its last stamp. */
struct waiting_end {
	uint32_t pcpu;
	uint64_t tsc;
};

/*
 * Streams the merge needs for a step it saves to cost more than the test
 * of a record to take ahead: a step replays log2(streams) levels of the
 * tree.  With 4 streams, HVM records alone cost more than they saved (3%
 * more instructions on bench/run's 4-pcpu host, bench/README round
 * forty), HVM and PV records 1-8% less (round forty-one).  With 2, 5-12%
 * less on bench/xtsim's 2-pcpu host and 8% on a real 2-pcpu capture, once
 * the warm-up below and ahead_gives_up() keep the runs that would lose in
 * time order (round forty-eight; vmalyze-gen's 2-pcpu host gives up).
 */
#define AHEAD_MIN_STREAMS 2u
/*
 * Records that could go ahead which a run folds in time order first.  At
 * a trace's start the state learns which vcpu runs where from the first
 * records, and a runstate record of another pcpu then corrects it: had
 * records of that vcpu gone ahead, the run would be made again (a real
 * 2-pcpu capture was, at its 1,127th record, which cost it 3.6%; after
 * a warm-up of 256 to 2,048 it was not, in 300,000 records).
 */
#define AHEAD_WARMUP 4096u

bool vma_ahead_wanted(const struct vma_pipeline *p)
{
	const struct member *mb = p->members;

	/*
	 * A file whose scan at open found damage (a cut last window, mostly)
	 * goes in time order: what the state says near it (skew, vcpus lost)
	 * would come while records are out, and the run be made again.
	 */
	return !p->opts.in_order && !p->damaged_at_open && p->nr_streams >= AHEAD_MIN_STREAMS &&
	       p->nr_members == 1 && mb->by_path && mb->machine &&
	       mb->in->family == VMA_FAMILY_XEN && !mb->in->streaming &&
	       !p->opts.tsc_skew_correct && !p->opts.time_set && !p->split &&
	       !p->opts.wrap_stream;
}

/*
 * Records taken ahead between two questions to the machine; and the
 * margin, 1/AHEAD_MARGIN of each limit of the budget, that what they
 * charge meanwhile, and what the records still out charge before the
 * merge passes them, must stay within (else the run is made again).
 * The questions only stop records going out early: when the merge has
 * passed them, vma_ahead_settle() asks the budget with no margin, and a
 * limit passed has the run made again.  So how often they are asked
 * weighs a question's cost (some 80 instructions) against runs made
 * again on small budgets.
 */
#define AHEAD_CHECK_EVERY 64u
#define AHEAD_MARGIN 8u

/*
 * Asked every AHEAD_CHECK_EVERY records: whether more may go out, the
 * budget's use a margin (1/AHEAD_MARGIN of its limit) below the limit
 * even if all they charged were held at once.  Past it none goes out
 * until the merge has passed those out, and the budget is looked at anew.
 */
bool vma_ahead_recheck(struct run_ahead *a)
{
	a->until_check = AHEAD_CHECK_EVERY;
	a->allowed = !a->again && vma_machine_may_run_ahead(a->m) &&
		     (!a->out || vma_machine_budget_room(a->m, &a->budget, AHEAD_MARGIN));
	return a->allowed;
}

/*
 * The first record out since the merge passed the last: the budget as it
 * is now (with its margin left, else none goes out for a while), and the
 * messages held until it is in.
 */
bool vma_ahead_open(struct run_ahead *a)
{
	vma_machine_budget_mark(a->m, &a->budget);
	if (!vma_machine_budget_room(a->m, &a->budget, AHEAD_MARGIN)) {
		/* The budget near its limit: asked again a while later. */
		a->allowed = false;
		a->until_check = AHEAD_CHECK_EVERY;
		return false;
	}
	a->out = true;
	vma_diag_hold(a->diag, true);
	return true;
}

void vma_ahead_close_unused(struct run_ahead *a)
{
	a->out = false;
	a->watch = UINT64_MAX;
	vma_diag_hold(a->diag, false);
}

bool vma_ahead_defer_end(struct run_ahead *a, uint32_t pcpu)
{
	const struct vma_pcpu *p = vma_pcpu_of(a->m, pcpu);

	if (!a->out || !p)
		return false;
	if (vma_grow(a->ends, &a->cap_ends, a->nr_ends + 1, 4)) {
		a->again = true; /* out of memory: told now, the end could tell */
		return false;
	}
	a->ends[a->nr_ends++] = (struct waiting_end){ pcpu, p->last_tsc };
	a->watch = 0;
	return true;
}

/*
 * The ends stamped before @rec (all of them at the end: NULL), earliest
 * first; one stamped as @rec is of another pcpu, or two stamped alike,
 * could go either way: the run is made again.
 */
static void tell_ends(struct run_ahead *a, const struct vma_record *rec)
{
	while (a->nr_ends) {
		size_t i, first = 0, kept = 0;

		for (i = 1; i < a->nr_ends; i++) {
			if (a->ends[i].tsc < a->ends[first].tsc)
				first = i;
		}
		for (i = 0; i < a->nr_ends; i++) {
			if (i != first && a->ends[i].tsc == a->ends[first].tsc)
				a->again = true;
		}
		if (rec && a->ends[first].tsc >= rec->tsc) {
			if (a->ends[first].tsc == rec->tsc)
				a->again = true;
			return;
		}
		vma_machine_pcpu_end(a->m, a->ends[first].pcpu);
		for (i = 0; i < a->nr_ends; i++) {
			if (i != first)
				a->ends[kept++] = a->ends[i];
		}
		a->nr_ends = kept;
	}
}

int vma_ahead_settle(struct run_ahead *a, const struct vma_record *rec)
{
	if (!a->out)
		return VMA_OK;
	tell_ends(a, rec);
	if (rec && rec->tsc <= a->latest && !a->again && !a->m->ahead_conflict) {
		a->watch = a->nr_ends ? 0 : a->latest;
		return VMA_OK;
	}
	/* The merge passed every record out (or found why not to wait for it). */
	a->out = false;
	a->watch = UINT64_MAX;
	vma_diag_hold(a->diag, false);
	if (a->again || a->m->ahead_conflict || vma_diag_held(a->diag) ||
	    !vma_machine_budget_room(a->m, &a->budget, 0))
		return AHEAD_AGAIN;
	/* Stopped for the budget: looked at anew when records go out again. */
	if (!a->allowed)
		a->until_check = 1;
	a->allowed = true;
	return VMA_OK;
}

/*
 * The file of @p is not as it was opened (@q: opened again, NULL when it
 * could not be): it changed while the first try read it, which said so,
 * but held, as records were out.  It is read again as it is now, and every
 * message of that said: neither the first try's messages come again first
 * nor are those at open the first open's.
 */
static int changed_since_open(struct vma_pipeline *p, struct vma_pipeline **q,
			      const struct vma_pipeline_options *opts)
{
	const struct vma_input *in = p->members->in;
	const char *now = !*q ? "is no longer what was opened"
			      : (*q)->members->in->size > in->size ? "is longer now" : "is shorter now";

	vma_diag_unmute(p->diag);
	vma_diag_report(p->diag, VMA_LVL_WARN, in->path, UINT64_MAX,
			"The file %s (%llu bytes when it was opened): it changed while "
			"being read and is read again, in time order, as it is now (read a copy "
			"that is not being written to)",
			now, (unsigned long long)in->size);
	vma_pipeline_close(*q);
	*q = NULL;
	return vma_pipeline_open(p->members->name, opts, p->diag, q);
}

/*
 * The run again, in the merge's order: the file opened anew (its messages
 * at open were said by the first), its machine the run's.
 */
static int run_again(struct vma_pipeline *p, const struct vma_diag_mark *mark,
		     bool *interrupted)
{
	struct vma_pipeline_options opts = p->opts;
	struct vma_pipeline *q = NULL;
	int rc;

	if (!vma_diag_rewind(p->diag, mark))
		return VMA_ERR_NOMEM;
	opts.in_order = true;
	vma_diag_hold(p->diag, true);
	rc = vma_pipeline_open(p->members->name, &opts, p->diag, &q);
	vma_diag_hold(p->diag, false);
	vma_diag_rewind(p->diag, mark);
	if (rc && rc != VMA_ERR_NOMEM) {
		vma_pipeline_close(q);
		q = NULL;
	}
	if ((rc && rc != VMA_ERR_NOMEM) || (!rc && q->members->in->size != p->members->in->size))
		rc = changed_since_open(p, &q, &opts);
	if (rc) {
		vma_pipeline_close(q);
		return rc;
	}
	/*
	 * The first try's machine, merge and reader go now: held beside the
	 * second's, they could pass the memory bound (the reader and merge
	 * alone were 1.7 MiB of a host of 8,160 vcpus made again near its
	 * budget).  Its input stays, for its name and size.
	 */
	vma_machine_destroy(p->members->machine);
	p->members->machine = NULL;
	vma_feed_destroy(p->feed);
	p->feed = NULL;
	vma_input_release(p->members->in);
	(void)vma_feed_start(q->feed, 1, false);
	rc = vma_pipeline_run_bare(q, interrupted);
	/* q's machine and feed (its late records, its times) are the run's. */
	p->members->machine = q->members->machine;
	q->members->machine = NULL;
	p->feed = q->feed;
	q->feed = NULL;
	p->nr_records = q->nr_records;
	vma_pipeline_close(q);
	return rc;
}

int vma_ahead_run(struct vma_pipeline *p, bool *interrupted)
{
	struct run_ahead a = { .m = p->members->machine, .diag = p->diag, .allowed = false,
				.until_check = AHEAD_WARMUP, .watch = UINT64_MAX };
	struct vma_diag_mark mark;
	int rc;

	vma_diag_mark(p->diag, &mark);
	p->ahead = &a;
	rc = vma_pipeline_run_ahead_loop(p, interrupted);
	/* An error while records were out: what was held is said by the run again. */
	if (rc < 0 && a.out && vma_diag_held(p->diag))
		rc = AHEAD_AGAIN;
	if (rc == VMA_OK && *interrupted)
		(void)vma_ahead_settle(&a, NULL); /* the report covers what was read */
	p->ahead = NULL;
	vma_diag_hold(p->diag, false);
	free(a.ends);
	if (rc == AHEAD_AGAIN && !*interrupted) {
		unsigned long long stopped_at = p->nr_records;

		rc = run_again(p, &mark, interrupted);
		/* After the run again: its messages were the first try's, muted, first. */
		vma_diag_info(p->diag, "%s: read again in time order: taking records ahead of "
			      "the merge could have changed the report (the first try stopped "
			      "at record %llu)", p->members->in->path, stopped_at);
	} else {
		if (rc == AHEAD_AGAIN)
			rc = VMA_OK; /* interrupted: the report covers what was read */
		if (a.gave_up_at) {
			vma_diag_info(p->diag, "%s: %llu records taken ahead of the merge, the "
				      "rest in time order from record %llu (fewer than a quarter "
				      "had gone)", p->members->in->path, (unsigned long long)a.taken,
				      (unsigned long long)a.gave_up_at);
		} else {
			vma_diag_info(p->diag, "%s: %llu records taken ahead of the merge",
				      p->members->in->path, (unsigned long long)a.taken);
		}
	}
	vma_diag_mark_release(&mark);
	return rc;
}
