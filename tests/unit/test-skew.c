/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TSC skew correction, end to end: a xentrace file from the project's
 * writer whose pcpu 1 clock runs 1,000,000 ticks behind pcpu 0's.  A vcpu
 * woken on pcpu 0 is seen running on pcpu 1 first; the wake that explains
 * it moves pcpu 1's later records forward by twice the lag (xenalyze's
 * correction, with --tsc-skew-correct; by default it is only reported),
 * and a second correction in the other direction is a loop: offsets
 * reset, or the input stops with --tsc-loop-fatal.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "cli/run.h"
#include "vmalyze/diag.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "xtw-file.h"

#define RUNNING 0u
#define RUNNABLE 1u
#define BLOCKED 2u

static void runstate(struct vma_xtw *w, uint32_t pcpu, uint64_t tsc, uint32_t dom,
		     uint32_t old, uint32_t new)
{
	uint32_t word = dom << 16;

	cr_assert_eq(vma_xtw_record(w, pcpu, TRC_SCHED_RUNSTATE_CHANGE | old << 8 | new << 4, tsc,
				    &word, 1), 0);
}

enum ending {
	END_PLAIN,
	END_LOOP, /* a second correction, the other way: a loop */
	END_HUGE, /* a second correction of p1 whose sum passes INT64_MAX */
};

/* The trace, in a temporary file named into @path, ending as @end says. */
static void write_trace(char *path, enum ending end)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint32_t word = 1u << 16;

	cr_assert_not_null(w);
	runstate(w, 1, 1000100, 2, RUNNABLE, RUNNING);
	runstate(w, 0, 2000000, 1, RUNNABLE, RUNNING);
	runstate(w, 0, 2020000, 1, RUNNING, BLOCKED);
	runstate(w, 1, 2050000, 2, RUNNING, RUNNABLE);
	runstate(w, 1, 2100000, 1, RUNNABLE, RUNNING);  /* ran before its wake: suspect */
	cr_assert_eq(vma_xtw_record(w, 1, TRC_SCHED_WAKE, 2150000, &word, 1), 0);
	runstate(w, 0, 3000000, 1, BLOCKED, RUNNABLE);  /* the wake: p1 is 900000 behind */
	runstate(w, 1, 3200000, 1, RUNNING, BLOCKED);   /* read before the correction */
	runstate(w, 1, 3300000, 2, RUNNABLE, RUNNING);  /* moved to 5100000 */
	runstate(w, 0, 4000000, 3, RUNNABLE, RUNNING);
	if (end == END_LOOP) {
		/* p1 is now 800000 ahead: a vcpu woken on it runs on p0 "first". */
		runstate(w, 0, 4050000, 3, RUNNING, BLOCKED);
		runstate(w, 1, 4000000, 3, BLOCKED, RUNNABLE); /* moved to 5800000 */
		runstate(w, 0, 5200000, 3, RUNNABLE, RUNNING);
		/* p0 goes on: a pcpu whose records end puts its vcpu in LOST. */
		cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_WAKE, 6000000, &word, 1), 0);
	} else if (end == END_HUGE) {
		runstate(w, 0, 4050000, 3, RUNNING, BLOCKED);
		runstate(w, 0, 4100000, 4, RUNNABLE, RUNNING);
		runstate(w, 0, 4150000, 4, RUNNING, BLOCKED);
		runstate(w, 1, 4180000, 2, RUNNING, RUNNABLE);
		runstate(w, 1, 4200000, 4, RUNNABLE, RUNNING); /* ran before its wake */
		/* The wake 2^62 - 100 ticks later: twice that on top of 1800000. */
		runstate(w, 0, 4200000 + (1ull << 62) - 100, 4, BLOCKED, RUNNABLE);
		/* p1 goes on past it, so that its vcpu is not LOST by then. */
		cr_assert_eq(vma_xtw_record(w, 1, TRC_SCHED_WAKE, 4300000 + (1ull << 62), &word, 1),
			     0);
	}
	xtw_to_temp_file(w, "/tmp/vmalyze-skew-XXXXXX", path);
}

/* vmalyze -a --cpu-hz=1G [@extra] [@extra2] @path: the status, stdout and stderr (owned). */
static int run(const char *path, const char *extra, const char *extra2, char **out_text,
	       char **err_text)
{
	char a[] = "-a", hz[] = "--cpu-hz=1G", name[] = "vmalyze";
	char *argv[6] = { name, a, hz };
	int argc = 3;
	struct vma_options opts;
	size_t out_len;
	FILE *out = open_memstream(out_text, &out_len);
	FILE *err = tmpfile(); /* the logger writes past a memory stream's view */
	struct vma_diag *diag;
	long err_len;
	int rc;

	if (extra)
		argv[argc++] = (char *)extra;
	if (extra2)
		argv[argc++] = (char *)extra2;
	argv[argc++] = (char *)path;
	cr_assert(out && err);
	diag = vma_diag_create_to(err, VMA_DEFAULT_TOLERANCE, VMA_VERB_NORMAL);
	cr_assert_not_null(diag);
	cr_assert_eq(vma_options_parse(&opts, argc, argv, stderr), VMA_OK);
	rc = vma_run_file(&opts, path, diag, out);
	vma_diag_destroy(diag);
	fclose(out);
	fflush(err);
	err_len = ftell(err);
	rewind(err);
	*err_text = calloc(1, (size_t)err_len + 1);
	cr_assert_not_null(*err_text);
	cr_assert_eq(fread(*err_text, 1, (size_t)err_len, err), (size_t)err_len);
	fclose(err);
	return rc;
}

Test(skew, a_pcpu_behind_is_moved_forward)
{
	char path[64], *out, *err;
	const char *d3, *d2;

	write_trace(path, END_PLAIN);
	cr_assert_eq(run(path, "--tsc-skew-correct", NULL, &out, &err), VMA_OK);
	cr_assert(strstr(err, "TSC skew detected p0->p1, 900000 cycles: p1's offset goes from 0 "
			      "to 1800000\n"), "%s", err);
	/* p1's last record, at 3300000 + 1800000, now comes after p0's at 4000000. */
	d3 = strstr(out, "d3v0");
	d2 = strstr(out, "0.004099900");
	cr_assert(d3 && d2 && d3 < d2, "%s", out);
	free(out);
	free(err);
	/* By default: reported, nothing moved (the uncorrected order: d2v0's line first). */
	cr_assert_eq(run(path, NULL, NULL, &out, &err), VMA_OK);
	unlink(path);
	cr_assert(strstr(err, "p1's offset would go from 0 to 1800000 (not corrected without "
			      "--tsc-skew-correct)"), "%s", err);
	d3 = strstr(out, "d3v0");
	d2 = strstr(out, "0.002299900");
	cr_assert(d3 && d2 && d2 < d3, "%s", out);
	free(out);
	free(err);
}

Test(skew, a_loop_resets_or_stops)
{
	char path[64], *out, *err;
	int rc;

	write_trace(path, END_LOOP);
	cr_assert_eq(run(path, "--tsc-skew-correct", NULL, &out, &err), VMA_OK);
	cr_assert(strstr(err, "TSC skew dependency loop detected (p1->p0): every pcpu's offset "
			      "goes back to 0"), "%s", err);
	free(out);
	free(err);
	rc = run(path, "--tsc-skew-correct", "--tsc-loop-fatal", &out, &err);
	cr_assert_eq(rc, VMA_ERR_DAMAGED, "status %d: %s", rc, err);
	cr_assert(strstr(err, "TSC skew dependency loop detected (p1->p0) at the record at "
			      "byte "), "%s", err);
	cr_assert(strstr(err, "; stopping (--tsc-loop-fatal)"), "%s", err);
	cr_assert_null(strstr(err, "goes back to 0"), "%s", err);
	unlink(path);
	free(out);
	free(err);
}

/* A fuzzed trace's lag made the signed sum overflow; the offset wraps, as xenalyze's does. */
Test(skew, a_huge_lag_wraps_the_offset)
{
	char path[64], *out, *err;

	write_trace(path, END_HUGE);
	cr_assert_eq(run(path, NULL, NULL, &out, &err), VMA_OK);
	cr_assert(strstr(err, "TSC skew detected p0->p1, 4611686018427387804 cycles: p1's offset "
			      "would go from 1800000 to -9223372036852976008 "), "%s", err);
	free(out);
	free(err);
	/*
	 * Applied, the first correction moves p1's suspect record, the lag is
	 * 3600000 less and the sum just fits; p1's last record, read before
	 * it, keeps the first offset.
	 */
	cr_assert_eq(run(path, "--tsc-skew-correct", NULL, &out, &err), VMA_OK);
	unlink(path);
	cr_assert(strstr(err, "p1's offset goes from 1800000 to 9223372036852975608\n"), "%s",
		  err);
	cr_assert(strstr(out, "4611686018.432487804  x d4v0   28004"), "%s", out);
	free(out);
	free(err);
}
