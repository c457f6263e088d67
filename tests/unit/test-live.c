/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live view (live.h) over a machine fed by hand: runstate shares are
 * of the time spent in each state within the view, over the view's real
 * length, so a stretch spanning views is shared out and the shares add up
 * to 100% at most -- a gap in the trace and a last partial second
 * included.  Clock: 1000 ticks a second.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/live.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

#define HZ 1000u

static struct vma_diag *diag;
static struct vma_machine *m;
static struct vma_live *live;
static char *text;
static size_t text_len;
static FILE *out;

static void setup(void)
{
	diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	m = vma_machine_create(diag, NULL);
	cr_assert_not_null(m);
	cr_assert_eq(vma_machine_add_pcpu(m, 0), VMA_OK);
	out = open_memstream(&text, &text_len);
	cr_assert_not_null(out);
	live = vma_live_create(out, HZ, false);
	cr_assert_not_null(live);
}

static void teardown(void)
{
	vma_live_destroy(live);
	fclose(out);
	free(text);
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
}

/* dDOMv0 goes from @old to @new at @tsc, as run.c drives the view. */
static void runstate_of(uint64_t tsc, uint32_t dom, uint32_t old, uint32_t new)
{
	struct vma_record rec = { 0 };
	struct vma_outcome outcome;

	rec.tsc = tsc;
	rec.event = TRC_SCHED_RUNSTATE_CHANGE | old << 8 | new << 4;
	rec.flags = VMA_REC_HAS_TSC;
	rec.nr_data = 1;
	rec.data[0] = dom << 16 | 0u;
	cr_assert_eq(vma_live_advance(live, m, tsc), VMA_OK);
	cr_assert_eq(vma_dispatch(m, &rec, &outcome), VMA_OK);
	vma_live_note(live, m, &rec, &outcome);
}

static void runstate(uint64_t tsc, uint32_t old, uint32_t new)
{
	runstate_of(tsc, 1, old, new);
}

struct shares {
	char time[16];
	double running, runnable, blocked, offline;
};

/* The view lines of d1v0, in order. */
static size_t views(struct shares *sh, size_t max)
{
	char *copy, *line, *save = NULL;
	size_t n = 0;

	fflush(out);
	copy = strdup(text ? text : "");
	cr_assert_not_null(copy);
	for (line = strtok_r(copy, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *r = strstr(line, " running="), *q = strstr(line, " runnable="),
			   *b = strstr(line, " blocked="), *o = strstr(line, " offline=");

		if (!strstr(line, " d1v0 "))
			continue; /* another vcpu's line */
		cr_assert(r && q && b && o, "a view line without runstates: %s", line);
		cr_assert_eq(sscanf(line, "live %15s d1v0 ", sh[n].time), 1, "%s", line);
		sh[n].running = strtod(r + 9, NULL);
		sh[n].runnable = strtod(q + 10, NULL);
		sh[n].blocked = strtod(b + 9, NULL);
		sh[n].offline = strtod(o + 9, NULL);
		n++;
	}
	free(copy);
	return n;
}

/*
 * The views start at the first record (100): 2.000 is 100..2100 (one view
 * over the gap: no record from 500 to 2700), 3.000 is 2100..3100 and the
 * last, partial one 3100..3207.  d1v0 runs 100..500, waits 500..2700, runs
 * 2700..3150 and waits to the end.  Credited when stretches end, 3.000
 * would show runnable 2200 ticks of 1000, and the last view running 450 of
 * 107.
 */
Test(live, shares_are_of_the_time_spent_in_the_view, .init = setup, .fini = teardown)
{
	struct shares sh[8];
	size_t n, i;

	runstate(100, VMA_RS_BLOCKED, VMA_RS_RUNNING);
	runstate(500, VMA_RS_RUNNING, VMA_RS_RUNNABLE);
	runstate(2700, VMA_RS_RUNNABLE, VMA_RS_RUNNING);
	runstate(3150, VMA_RS_RUNNING, VMA_RS_RUNNABLE);
	runstate_of(3207, 2, VMA_RS_BLOCKED, VMA_RS_RUNNING); /* the trace's end */
	vma_machine_finish(m);
	cr_assert_eq(vma_live_finish(live, m), VMA_OK);

	n = views(sh, 8);
	cr_assert_eq(n, 3, "%s", text);
	cr_assert_str_eq(sh[0].time, "2.000");
	cr_assert_float_eq(sh[0].running, 20.0, 0.05, "%s", text);
	cr_assert_float_eq(sh[0].runnable, 80.0, 0.05, "%s", text);
	cr_assert_str_eq(sh[1].time, "3.000");
	cr_assert_float_eq(sh[1].runnable, 60.0, 0.05, "%s", text);
	cr_assert_float_eq(sh[1].running, 40.0, 0.05, "%s", text);
	/* The last, partial view: 50 ticks running and 57 waiting, of 107. */
	cr_assert_str_eq(sh[2].time, "3.107");
	cr_assert_float_eq(sh[2].running, 46.7, 0.05, "%s", text);
	cr_assert_float_eq(sh[2].runnable, 53.3, 0.05, "%s", text);
	for (i = 0; i < n; i++)
		cr_assert_leq(sh[i].running + sh[i].runnable + sh[i].blocked + sh[i].offline,
			      100.05, "view %zu adds up past 100%%: %s", i, text);
}

/* A vcpu blocked through a view, without exits, is left out of it. */
Test(live, a_vcpu_idle_for_a_view_is_left_out, .init = setup, .fini = teardown)
{
	struct shares sh[8];

	runstate(100, VMA_RS_RUNNABLE, VMA_RS_RUNNING);
	runstate(600, VMA_RS_RUNNING, VMA_RS_BLOCKED);
	runstate_of(1500, 2, VMA_RS_BLOCKED, VMA_RS_RUNNING); /* time goes on */
	vma_machine_finish(m);
	cr_assert_eq(vma_live_finish(live, m), VMA_OK);
	cr_assert_eq(views(sh, 8), 1, "%s", text);
	cr_assert_str_eq(sh[0].time, "1.000");
	cr_assert_float_eq(sh[0].running, 50.0, 0.05, "%s", text);
	cr_assert_float_eq(sh[0].blocked, 50.0, 0.05, "%s", text);
}
