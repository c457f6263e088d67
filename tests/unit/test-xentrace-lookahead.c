/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The quick look at a xentrace file's first records (input.h,
 * vma_xentrace_lookahead_clear()): it asks about each pcpu's first N
 * records of the class asked for, exactly those, with their payload as
 * written, across windows larger than its buffer and windows of a few
 * records; a match among them, and anything the reader would report, is
 * "not sure"; a match past them, or of another class, is not.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmalyze/input.h"
#include "vmalyze/trace-ids.h"
#include "xtw-file.h"

#define PCPUS 3u
#define ASKED TRC_HVM_VMX_EXIT
#define OTHER TRC_HVM_VMENTRY
#define MATCH_WORD 0xdeadu

/* What the match function saw (one test at a time). */
static struct {
	uint32_t calls[PCPUS];
	bool order_kept;
} seen;

/* Records carry their pcpu's sequence number in their first word. */
static bool note(const struct vma_record *rec)
{
	cr_assert_lt(rec->pcpu, PCPUS);
	if (rec->nr_data == 0 || rec->data[0] != seen.calls[rec->pcpu])
		seen.order_kept = false;
	seen.calls[rec->pcpu]++;
	return rec->nr_data > 1 && rec->data[1] == MATCH_WORD;
}

static bool look(const char *path, uint32_t records, uint32_t mask, uint32_t value)
{
	const struct vma_lookahead_query q = {
		.records = records, .class_mask = mask, .class_value = value, .match = note,
	};

	memset(&seen, 0, sizeof(seen));
	seen.order_kept = true;
	return vma_xentrace_lookahead_clear(path, &q);
}

/*
 * @counts[p] records on pcpu p, interleaved, of 1 to 7 words (the first
 * the pcpu's sequence number; a time stamp on most), in windows of
 * @window bytes; record @match_at of pcpu 1 carries MATCH_WORD.
 */
static void write_trace(char *path, size_t window, const uint32_t *counts, uint32_t match_at)
{
	struct vma_xtw_options o = { .window_bytes = window };
	struct vma_xtw *w = vma_xtw_new_memory(&o);
	uint32_t next[PCPUS] = { 0 }, left = 0, p, i = 0;
	uint64_t tsc = 1000;

	cr_assert_not_null(w);
	for (p = 0; p < PCPUS; p++)
		left += counts[p];
	for (; left; i++) {
		uint32_t words[7] = { 0 }, n = 1 + i % 7;

		p = i % PCPUS;
		if (next[p] == counts[p])
			continue;
		words[0] = next[p];
		if (p == 1 && next[p] == match_at)
			words[1] = MATCH_WORD;
		if (i % 5)
			cr_assert_eq(vma_xtw_record(w, p, ASKED, tsc += 10, words, n), 0);
		else
			cr_assert_eq(vma_xtw_record_notsc(w, p, ASKED, words, n), 0);
		next[p]++;
		left--;
	}
	xtw_to_temp_file(w, "/tmp/vmalyze-la-XXXXXX", path);
}

/* A look that went round in circles would hang: a time limit makes it fail. */
TestSuite(xentrace_lookahead, .timeout = 60);

Test(xentrace_lookahead, each_pcpu_is_read_to_its_own_first_records)
{
	const uint32_t counts[PCPUS] = { 30000, 500, 20000 };
	/* Windows larger than the look's 64 KiB reads, then of a few records. */
	const size_t windows[] = { 200 * 1024, 256 };
	char path[64];

	for (size_t k = 0; k < sizeof(windows) / sizeof(windows[0]); k++) {
		write_trace(path, windows[k], counts, UINT32_MAX);
		cr_assert(look(path, 20000, 0, 0));
		cr_assert(seen.order_kept, "window %zu: records out of order", windows[k]);
		cr_assert_eq(seen.calls[0], 20000);
		cr_assert_eq(seen.calls[1], 500);
		cr_assert_eq(seen.calls[2], 20000);
		unlink(path);
	}
}

Test(xentrace_lookahead, a_match_among_them_is_not_sure_and_one_past_them_is_clear)
{
	const uint32_t counts[PCPUS] = { 3000, 3000, 3000 };
	char path[64];

	write_trace(path, 4096, counts, 999);
	cr_assert_not(look(path, 1000, 0, 0));
	unlink(path);
	write_trace(path, 4096, counts, 1000);
	cr_assert(look(path, 1000, 0, 0));
	cr_assert_eq(seen.calls[1], 1000);
	unlink(path);
}

Test(xentrace_lookahead, records_of_another_class_are_not_asked_about)
{
	const uint32_t counts[PCPUS] = { 100, 100, 100 };
	char path[64];

	write_trace(path, 4096, counts, 5);
	cr_assert_not(look(path, 1000, 0x0fffffffu, ASKED));
	cr_assert(look(path, 1000, 0x0fffffffu, OTHER));
	cr_assert_eq(seen.calls[0] + seen.calls[1] + seen.calls[2], 0);
	unlink(path);
}

/*
 * A record on pcpu 0, then @tail written as given (at the end of its
 * window, or after it), then unless @last a window of 8 records of pcpu 1.
 */
static void write_with_tail(char *path, const void *tail, size_t n, bool in_window, bool last)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint32_t word = 0;

	cr_assert_not_null(w);
	cr_assert_eq(vma_xtw_record(w, 0, ASKED, 100, &word, 1), 0);
	if (in_window)
		cr_assert_eq(vma_xtw_pcpu_raw(w, 0, tail, n), 0);
	cr_assert_eq(vma_xtw_flush_all(w), 0);
	if (!in_window)
		cr_assert_eq(vma_xtw_raw(w, tail, n), 0);
	for (word = 0; !last && word < 8; word++)
		cr_assert_eq(vma_xtw_record(w, 1, ASKED, 200 + word, &word, 1), 0);
	cr_assert_eq(vma_xtw_flush_all(w), 0);
	xtw_to_temp_file(w, "/tmp/vmalyze-la-XXXXXX", path);
}

Test(xentrace_lookahead, what_the_reader_would_report_is_not_sure)
{
	const uint32_t garbage[3] = { 0x12345678u, 0, 0 };
	/* A header whose seven words run past its window. */
	const uint32_t overrun = vma_xtw_header(ASKED, 7, true);
	const uint32_t far_cpu[3] = { (2u << 28) | TRC_TRACE_CPU_CHANGE, 5000, 0 };
	const uint32_t cut[3] = { (2u << 28) | TRC_TRACE_CPU_CHANGE, 0, 4096 };
	char path[64];

	write_with_tail(path, NULL, 0, false, false);
	cr_assert(look(path, 1000, 0, 0));
	cr_assert(seen.calls[0] == 1 && seen.calls[1] == 8);
	unlink(path);
	write_with_tail(path, garbage, sizeof(garbage), false, false);
	cr_assert_not(look(path, 1000, 0, 0));
	unlink(path);
	write_with_tail(path, &overrun, sizeof(overrun), true, false);
	cr_assert_not(look(path, 1000, 0, 0));
	unlink(path);
	write_with_tail(path, far_cpu, sizeof(far_cpu), false, false);
	cr_assert_not(look(path, 1000, 0, 0));
	unlink(path);
	/* A window that runs past the end of the file, of a pcpu read far enough. */
	write_with_tail(path, cut, sizeof(cut), false, true);
	cr_assert_not(look(path, 1, 0, 0));
	unlink(path);
}

Test(xentrace_lookahead, only_a_regular_file_is_looked_at)
{
	char dir[] = "/tmp/vmalyze-la-XXXXXX", fifo[64];

	cr_assert_not(look("/nonexistent/vmalyze-la", 1000, 0, 0));
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not(look(dir, 1000, 0, 0));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	/* No writer: an open that waited for one would hang here. */
	cr_assert_not(look(fifo, 1000, 0, 0));
	unlink(fifo);
	rmdir(dir);
}
