/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory bounds of the xentrace reader on a seekable file: pcpus that only
 * have empty windows get no stream, and a pcpu far ahead of another
 * in time does not make the reader queue all of its windows (past the
 * lazy walk's budget the pcpu behind walks the chain alone): the records
 * still come in exact time order.  A stream's buffer goes as it ends.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmalyze/diag.h"
#include "vmalyze/input.h"
#include "vmalyze/merge.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "heap-held.h"
#include "xtwriter.h"

static char path[64];

static void write_file(struct vma_xtw *w)
{
	const unsigned char *data;
	size_t len;
	FILE *f;

	cr_assert_eq(vma_xtw_finish(w), 0);
	data = vma_xtw_data(w, &len);
	strcpy(path, "/tmp/vmalyze-test-XXXXXX");
	cr_assert_geq(mkstemp(path), 0);
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

struct count {
	struct vma_merge *merge;
	uint32_t streams;
};

static int add(void *arg, struct vma_stream *s)
{
	struct count *c = arg;

	c->streams++;
	return vma_merge_add(c->merge, s);
}

Test(xentrace_bounds, pcpus_with_only_empty_windows_cost_little)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	struct vma_input_options o = { 0 };
	struct count c = { vma_merge_create(), 0 };
	struct vma_input *in;
	struct vma_stream *s;
	size_t before, after, n = 0;
	uint32_t cpu, word = 1;

	for (cpu = 0; cpu < 65536; cpu++)
		cr_assert_eq(vma_xtw_cpu_change(w, cpu, 0), 0);
	cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_WAKE, 100, &word, 1), 0);
	write_file(w);
	vma_xtw_free(w);

	before = heap_held();
	cr_assert_eq(vma_input_open(path, &o, diag, add, &c, &in), VMA_OK);
	after = heap_held();
	/* Only pcpu 0 has a record: the 65535 others make no stream at all. */
	cr_assert_eq(c.streams, 1);
	/* Once a read buffer per pcpu (1 GiB), then a stream each (48 MiB). */
	cr_assert_lt(after - before, 1u << 20, "%zu KiB for 65536 empty pcpus",
		     (after - before) >> 10);
	while (vma_merge_next(c.merge, &s) == VMA_OK)
		n++;
	cr_assert_eq(n, 1);
	vma_input_close(in);
	vma_merge_destroy(c.merge);
	vma_diag_destroy(diag);
	unlink(path);
}

Test(xentrace_bounds, a_pcpu_far_ahead_is_read_in_order_past_the_queue_budget, .timeout = 120)
{
	struct vma_xtw_options wo = { .window_bytes = 64 };
	struct vma_xtw *w = vma_xtw_new_memory(&wo);
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	struct vma_input_options o = { 0 };
	struct count c = { vma_merge_create(), 0 };
	/* More windows of the pcpu behind than the index (64 Ki) and lazy (512 Ki) budgets. */
	const uint32_t n = 700000;
	uint64_t last = 0, seen[2] = { 0, 0 };
	struct vma_input *in;
	struct vma_stream *s;
	uint32_t i;

	/* One record per window, windows alternating: pcpu 0 is stamped far ahead. */
	for (i = 0; i < n; i++) {
		cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_WAKE, 1000000000000ull + i, &i, 1), 0);
		cr_assert_eq(vma_xtw_flush_pcpu(w, 0), 0);
		cr_assert_eq(vma_xtw_record(w, 1, TRC_SCHED_WAKE, 1000ull + i, &i, 1), 0);
		cr_assert_eq(vma_xtw_flush_pcpu(w, 1), 0);
	}
	write_file(w);
	vma_xtw_free(w);

	cr_assert_eq(vma_input_open(path, &o, diag, add, &c, &in), VMA_OK);
	while (vma_merge_next(c.merge, &s) == VMA_OK) {
		cr_assert_geq(s->rec.tsc, last, "out of order after %lu records",
			      (unsigned long)(seen[0] + seen[1]));
		cr_assert_eq(s->rec.data[0], seen[s->rec.pcpu], "pcpu %u skipped a window",
			     s->rec.pcpu);
		last = s->rec.tsc;
		seen[s->rec.pcpu]++;
	}
	cr_assert_eq(seen[0], n);
	cr_assert_eq(seen[1], n);
	cr_assert_eq(vma_merge_late_count(c.merge), 0);
	cr_assert_eq(vma_diag_worst(diag), VMA_LVL_NONE);
	vma_input_close(in);
	vma_merge_destroy(c.merge);
	vma_diag_destroy(diag);
	unlink(path);
}

Test(xentrace_bounds, streams_let_their_buffers_go_as_they_end)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	struct vma_input_options o = { 0 };
	struct count c = { vma_merge_create(), 0 };
	const uint32_t pcpus = 4, per_pcpu = 2000;
	size_t reading, ended, n = 0;
	struct vma_input *in;
	struct vma_stream *s;
	uint32_t i, cpu, word = 7;

	for (i = 0; i < per_pcpu; i++) {
		for (cpu = 0; cpu < pcpus; cpu++)
			cr_assert_eq(vma_xtw_record(w, cpu, TRC_SCHED_SWITCH, 1000 + 4 * i + cpu,
						    &word, 1), 0);
	}
	write_file(w);
	vma_xtw_free(w);
	cr_assert_eq(vma_input_open(path, &o, diag, add, &c, &in), VMA_OK);
	cr_assert_eq(c.streams, pcpus);
	/* Past every stream's first record, each has its read buffer. */
	for (i = 0; i < 2 * pcpus; i++, n++)
		cr_assert_eq(vma_merge_next(c.merge, &s), VMA_OK);
	reading = heap_held();
	while (vma_merge_next(c.merge, &s) == VMA_OK)
		n++;
	ended = heap_held();
	cr_assert_eq(n, (size_t)pcpus * per_pcpu);
	/* A 32 KiB buffer a pcpu (few pcpus), gone before the input is closed. */
	cr_assert_leq(ended + ((size_t)pcpus << 15), reading,
		      "%zu KiB held while reading, %zu after", reading >> 10, ended >> 10);
	vma_input_close(in);
	vma_merge_destroy(c.merge);
	vma_diag_destroy(diag);
	unlink(path);
}
