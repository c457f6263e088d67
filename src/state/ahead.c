/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * When records may be taken ahead of the merge (dispatch.h,
 * vma_dispatch_ahead()): the machine's side of the rule.
 *
 * A record taken ahead is folded in before records of other pcpus
 * stamped earlier.  That gives the report of time order only if nothing
 * between them depends on their order: the record touches its vcpu and
 * pcpu alone (vma_hvm_record_ahead(), vma_pv_record_ahead()), runstates
 * change only in time order for a vcpu with records ahead (sched.c sets
 * ahead_conflict otherwise, and hvm.c when an SVM exit tells the vendor
 * after a vector was read ahead), and no decision of the memory budget
 * falls meanwhile.  The budget decides only when a part's use would pass
 * its limit (the rows' refusal, the summaries' next step); in any order
 * of the records folded while some were out, the use stays below what it
 * was when they went out plus all they charged since.  So records go out
 * while that stays a margin below the limit, and the run is made again
 * if it did not.  A refusal of the rows' part charges nothing, so its
 * mark is looked at instead: the rows' limit reached while records were
 * out has the run made again.  Once it is reached, every later charge of
 * the rows is refused (cycles.h), which no order changes: records go out
 * again, the rows' part no longer asked; but the "other" rows still
 * charged past it lower the summaries' limit, which their room counts
 * (summaries_lowest()).
 */
#include "vmalyze/state.h"

/*
 * The use of one part of the budget while records are out: below @limit
 * (when @limited), less 1/@margin of it.
 */
static bool part_room(size_t used_then, uint64_t charged_then, uint64_t charged_now,
		      bool limited, size_t limit, unsigned int margin)
{
	uint64_t most = (uint64_t)used_then + (charged_now - charged_then);

	return !limited || most + (margin ? limit / margin : 0) <= limit;
}

void vma_machine_budget_mark(const struct vma_machine *m, struct vma_budget_mark *mark)
{
	const struct vma_cycles_budget *b = &m->budget;

	*mark = (struct vma_budget_mark){ .used = b->used, .charged = b->charged,
					  .rows_used = b->rows.used, .rows_charged = b->rows.charged,
					  .step = b->step, .next_step = b->next_step,
					  .rows_reached = b->rows.reached };
}

/*
 * Where the summaries' part tightens at the lowest while records are
 * out: its next step then, and no higher than its limit less what the
 * rows hold past theirs, which forced "other" rows take from it
 * (cycles-budget.c): what they held past it then and all they charged
 * since.  (A window open for most of a run of 8,160 vcpus saw 12 MiB of
 * such rows and was made again from the start at the step they caused.)
 */
static size_t summaries_lowest(const struct vma_cycles_budget *b,
			       const struct vma_budget_mark *mark)
{
	size_t lowest = mark->next_step < b->limit ? mark->next_step : b->limit;
	uint64_t over = 0;

	if (b->rows.limit && mark->rows_used > b->rows.limit)
		over = mark->rows_used - b->rows.limit;
	if (b->rows.limit)
		over += b->rows.charged - mark->rows_charged;
	if (over >= b->limit)
		return 0;
	return b->limit - over < lowest ? b->limit - over : lowest;
}

bool vma_machine_budget_room(const struct vma_machine *m, const struct vma_budget_mark *mark,
			     unsigned int margin)
{
	const struct vma_cycles_budget *b = &m->budget;

	return b->step == mark->step && b->rows.reached == mark->rows_reached &&
	       part_room(mark->used, mark->charged, b->charged, b->limit != 0,
			 b->limit ? summaries_lowest(b, mark) : 0, margin) &&
	       (b->rows.reached || part_room(mark->rows_used, mark->rows_charged,
					     b->rows.charged, b->rows.limit != 0, b->rows.limit,
					     margin));
}

bool vma_machine_may_run_ahead(const struct vma_machine *m)
{
	const struct vma_eip_options *e = &m->options.eips;

	/* A time stamp first: vma_dispatch_ahead() does not ask for one. */
	return m->have_time && !m->kvm && !m->observer && !m->stats_paused &&
	       !m->ahead_conflict && !e->enumerate && !e->histogram &&
	       !e->cr3;
}
