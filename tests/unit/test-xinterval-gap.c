/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xenalyze's interval modes across time jumps, end to end: traces built
 * with xtwriter, one with a window whose time stamps are near 2^64 and
 * one with a forward gap of a day, run in every --interval-domain-* mode
 * at -i 0.01.  Each must write a bounded number of rows, warn once per
 * jump naming the file, the byte offset and the rows skipped, and stop
 * the input only when --tolerance is below the jump's level.
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
#include "vmalyze/xinterval.h"
#include "xtwriter.h"

#define HZ 1000000000ull /* --cpu-hz below: a tick is a nanosecond */

static char path[] = "/tmp/vmalyze-xgap-XXXXXX";

/* Domain 1's vcpu 0 runs and blocks every millisecond from @t0, @n times. */
static void stretch(struct vma_xtw *w, uint64_t t0, int n)
{
	uint32_t word = 1u << 16;
	int i;

	for (i = 0; i < n; i++) {
		uint64_t t = t0 + (uint64_t)i * 1000000u;

		cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_RUNSTATE_CHANGE | 1u << 8 | 0u << 4,
					    t, &word, 1), 0);
		cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_RUNSTATE_CHANGE | 0u << 8 | 2u << 4,
					    t + 500000u, &word, 1), 0);
		cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_RUNSTATE_CHANGE | 2u << 8 | 1u << 4,
					    t + 900000u, &word, 1), 0);
	}
}

/* @second: where the second stretch of records starts. */
static void write_trace(uint64_t second)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	const unsigned char *data;
	size_t len;
	int fd;

	cr_assert_not_null(w);
	stretch(w, 1000000u, 50);
	cr_assert_eq(vma_xtw_flush_pcpu(w, 0), 0);
	stretch(w, second, 50);
	cr_assert_eq(vma_xtw_finish(w), 0);
	data = vma_xtw_data(w, &len);
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	vma_xtw_free(w);
}

struct result {
	int status;
	size_t lines;
	char *err;
};

static struct result run(const char *mode, const char *tolerance)
{
	const char *args[] = { "vmalyze", "--cpu-hz", "1000000000", "--tolerance", tolerance,
			       "-i", "0.01", mode, path, NULL };
	char **argv = (char **)args;
	struct result r = { 0 };
	struct vma_options opts;
	struct vma_diag *diag;
	size_t err_len;
	char line[4096];
	FILE *out, *err;

	err = open_memstream(&r.err, &err_len);
	cr_assert_not_null(err);
	diag = vma_diag_create_to(err, (enum vma_level)atoi(tolerance), VMA_VERB_NORMAL);
	cr_assert_not_null(diag);
	cr_assert_eq(vma_options_parse(&opts, 9, argv, stderr), VMA_OK);
	out = tmpfile();
	cr_assert_not_null(out);
	r.status = vma_run_file(&opts, path, diag, out);
	rewind(out);
	while (fgets(line, sizeof(line), out))
		r.lines++;
	fclose(out);
	vma_diag_destroy(diag);
	fclose(err);
	return r;
}

static const char *const modes[] = {
	"--interval-domain-total-time=1", "--interval-domain-total-time-all",
	"--interval-domain-short-summary=1", "--interval-domain-guest-interrupt=1",
	"--interval-domain-grant-maps=1",
};

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s++;
	}
	return n;
}

static void check_jump(uint64_t second)
{
	size_t i;

	write_trace(second);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct result r = run(modes[i], "3");

		cr_assert_eq(r.status, VMA_OK, "%s: status %d", modes[i], r.status);
		/* A header, about 5 rows for each 50 ms stretch: nothing for the gap. */
		cr_assert_leq(r.lines, 16, "%s: %zu lines", modes[i], r.lines);
		cr_assert_geq(r.lines, 7, "%s: %zu lines", modes[i], r.lines);
		cr_assert_eq(count(r.err, "Time jumps forward"), 1, "%s: %s", modes[i], r.err);
		cr_assert(strstr(r.err, path), "%s: %s", modes[i], r.err);
		cr_assert(strstr(r.err, ": offset "), "%s: %s", modes[i], r.err);
		cr_assert(strstr(r.err, "empty interval rows skipped"), "%s: %s", modes[i], r.err);
		free(r.err);
		/* Below the jump's level (VMA_LVL_SANITY) the input stops. */
		r = run(modes[i], "2");
		cr_assert_eq(r.status, VMA_ERR_DAMAGED, "%s: status %d", modes[i], r.status);
		cr_assert(strstr(r.err, "Time jumps forward"), "%s: %s", modes[i], r.err);
		free(r.err);
	}
	unlink(path);
}

Test(xinterval_gap, a_window_near_2_to_the_64, .timeout = 30)
{
	check_jump(UINT64_MAX - 200000000u);
}

Test(xinterval_gap, a_forward_gap_of_a_day, .timeout = 30)
{
	check_jump(86400 * HZ);
}

/* An idle stretch within the allowance keeps its rows, as in xenalyze. */
Test(xinterval_gap, an_idle_stretch_keeps_its_rows, .timeout = 30)
{
	size_t i;

	/* 1,000 empty intervals of 10 ms. */
	write_trace(10 * HZ + 1000000u);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct result r = run(modes[i], "3");

		cr_assert_eq(r.status, VMA_OK, "%s: status %d", modes[i], r.status);
		cr_assert_geq(r.lines, 1000, "%s: %zu lines", modes[i], r.lines);
		cr_assert_null(strstr(r.err, "Time jumps"), "%s: %s", modes[i], r.err);
		free(r.err);
	}
	unlink(path);
}
