/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The xentrace reader, through the pipeline's read-and-merge mode (no
 * state), on files built in memory with tools/xtwriter: windows of many
 * pcpus, a pcpu whose first window comes late, records without TSC, lost
 * records, wrap records, any pcpu number, and damage: a truncated window,
 * garbage in a window header, a record overrunning its window, an empty
 * and a foreign file.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmalyze/diag.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "xtwriter.h"

#define MAX_SEEN 4096

struct seen {
	uint32_t event[MAX_SEEN], pcpu[MAX_SEEN], nr[MAX_SEEN], data0[MAX_SEEN];
	uint64_t tsc[MAX_SEEN];
	uint16_t flags[MAX_SEEN];
	size_t n;
	int status;       /* how the merge ended */
	int open_status;
	uint32_t streams;
};

static char path[64];

static void write_file(const void *bytes, size_t len)
{
	FILE *f;

	strcpy(path, "/tmp/vmalyze-test-XXXXXX");
	cr_assert_geq(mkstemp(path), 0);
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(bytes, 1, len, f), len);
	fclose(f);
}

static int see_record(void *arg, const struct vma_machine *m, const struct vma_stream *s,
		      const struct vma_outcome *out)
{
	struct seen *seen = arg;

	(void)m;
	(void)out;
	cr_assert_lt(seen->n, MAX_SEEN);
	seen->event[seen->n] = s->rec.event;
	seen->pcpu[seen->n] = s->rec.pcpu;
	seen->nr[seen->n] = s->rec.nr_data;
	seen->data0[seen->n] = s->rec.nr_data ? s->rec.data[0] : 0;
	seen->tsc[seen->n] = s->rec.tsc;
	seen->flags[seen->n] = s->rec.flags;
	seen->n++;
	return VMA_OK;
}

/* Read the file at path through the reader and the merge (no state). */
static void read_all(struct seen *seen, int tolerance)
{
	struct vma_diag *diag = vma_diag_create(tolerance, VMA_VERB_QUIET);
	struct vma_pipeline_options opts = { .no_state = true };
	struct vma_pipeline_hooks hooks = { .arg = seen, .after = see_record };
	struct vma_pipeline *p = NULL;

	memset(seen, 0, sizeof(*seen));
	seen->open_status = vma_pipeline_open(path, &opts, diag, &p);
	if (seen->open_status == VMA_OK) {
		seen->status = vma_pipeline_run(p, &hooks);
		if (seen->status == VMA_OK)
			seen->status = VMA_END;
		seen->streams = vma_pipeline_streams(p);
	}
	vma_pipeline_close(p);
	vma_diag_destroy(diag);
	unlink(path);
}

static void write_writer(struct vma_xtw *w)
{
	const unsigned char *data;
	size_t len;

	cr_assert_eq(vma_xtw_finish(w), 0);
	data = vma_xtw_data(w, &len);
	write_file(data, len);
}

static struct vma_xtw *small_windows(void)
{
	struct vma_xtw_options o = { .window_bytes = 64 };

	return vma_xtw_new_memory(&o);
}

Test(xentrace, merges_pcpus_in_time_order)
{
	struct vma_xtw *w = small_windows();
	struct seen seen;
	uint32_t word = 7;
	size_t i;

	/* Three pcpus, interleaved stamps; small windows so there are many. */
	for (i = 0; i < 30; i++)
		cr_assert_eq(vma_xtw_record(w, (uint32_t)(i % 3), TRC_SCHED_WAKE, 1000 + 10 * i,
					    &word, 1), 0);
	write_writer(w);
	vma_xtw_free(w);
	read_all(&seen, 3);
	cr_assert_eq(seen.open_status, VMA_OK);
	cr_assert_eq(seen.status, VMA_END);
	cr_assert_eq(seen.streams, 3);
	cr_assert_eq(seen.n, 30);
	for (i = 0; i < seen.n; i++) {
		cr_assert_eq(seen.tsc[i], 1000 + 10 * i, "record %zu out of order", i);
		cr_assert_eq(seen.pcpu[i], i % 3);
		cr_assert(seen.flags[i] & VMA_REC_HAS_TSC);
	}
}

Test(xentrace, late_pcpu_with_older_records_is_merged_in_order)
{
	struct vma_xtw *w = small_windows();
	struct seen seen;
	uint32_t word = 1;
	size_t i;

	/* pcpu 0 writes many windows before pcpu 5's first (older) records. */
	for (i = 0; i < 20; i++)
		vma_xtw_record(w, 0, TRC_SCHED_WAKE, 2000 + i, &word, 1);
	vma_xtw_flush_all(w);
	vma_xtw_record(w, 5, TRC_SCHED_WAKE, 1500, &word, 1);
	vma_xtw_record(w, 5, TRC_SCHED_WAKE, 2010, &word, 1);
	write_writer(w);
	vma_xtw_free(w);
	read_all(&seen, 3);
	cr_assert_eq(seen.n, 22);
	cr_assert_eq(seen.pcpu[0], 5, "the oldest record comes first");
	for (i = 1; i < seen.n; i++) {
		cr_assert_leq(seen.tsc[i - 1], seen.tsc[i]);
		cr_assert_not(seen.flags[i] & VMA_REC_LATE);
	}
}

Test(xentrace, record_without_tsc_takes_the_last_one)
{
	struct vma_xtw *w = small_windows();
	uint32_t words[3] = { 1, 2, 3 };
	struct seen seen;

	vma_xtw_record(w, 0, TRC_HVM_VMX_EXIT64, 500, words, 3);
	vma_xtw_record_notsc(w, 0, TRC_HVM_CPUID, words, 2);
	write_writer(w);
	vma_xtw_free(w);
	read_all(&seen, 3);
	cr_assert_eq(seen.n, 2);
	cr_assert_eq(seen.tsc[1], 500);
	cr_assert_not(seen.flags[1] & VMA_REC_HAS_TSC);
	cr_assert_eq(seen.nr[1], 2);
	cr_assert_eq(seen.data0[1], 1);
}

Test(xentrace, lost_records_have_a_start_and_an_end)
{
	struct vma_xtw *w = small_windows();
	uint32_t word = 0;
	struct seen seen;

	vma_xtw_record(w, 0, TRC_SCHED_WAKE, 100, &word, 1);
	vma_xtw_lost(w, 0, 400, 12, 1, 0, 150);
	vma_xtw_record(w, 0, TRC_SCHED_WAKE, 500, &word, 1);
	write_writer(w);
	vma_xtw_free(w);
	read_all(&seen, 3);
	cr_assert_eq(seen.n, 4);
	cr_assert_eq(seen.event[1], TRC_LOST_RECORDS);
	cr_assert_eq(seen.tsc[1], 150, "delivered at the first lost record's time");
	cr_assert_eq(seen.data0[1], 12);
	cr_assert_eq(seen.event[2], VMA_SYNTH_LOST_END);
	cr_assert_eq(seen.tsc[2], 400, "and ended at the time it was written");
	cr_assert(seen.flags[2] & VMA_REC_SYNTHETIC);
}

Test(xentrace, wrap_records_and_large_pcpu_numbers)
{
	struct vma_xtw *w = small_windows();
	uint32_t word = 0;
	struct seen seen;

	vma_xtw_record(w, 300, TRC_SCHED_WAKE, 100, &word, 1);
	vma_xtw_wrap(w, 300, 16, 110);
	vma_xtw_record(w, 1000, TRC_SCHED_WAKE, 120, &word, 1);
	write_writer(w);
	vma_xtw_free(w);
	read_all(&seen, 3);
	cr_assert_eq(seen.streams, 2);
	cr_assert_eq(seen.n, 3);
	cr_assert_eq(seen.event[1], TRC_TRACE_WRAP_BUFFER);
	cr_assert_eq(seen.pcpu[2], 1000);
}

/* A file with two complete windows then one cut in the middle. */
static void truncated_file(void)
{
	struct vma_xtw *w = small_windows();
	uint32_t word = 0;
	const unsigned char *data;
	size_t len;
	int i;

	for (i = 0; i < 12; i++)
		vma_xtw_record(w, 0, TRC_SCHED_WAKE, 100 + (uint64_t)i, &word, 1);
	vma_xtw_finish(w);
	data = vma_xtw_data(w, &len);
	write_file(data, len - 10);
	vma_xtw_free(w);
}

Test(xentrace, truncated_window_stops_above_the_tolerance)
{
	struct seen seen;

	truncated_file();
	read_all(&seen, 3);
	cr_assert_eq(seen.open_status, VMA_OK);
	cr_assert_eq(seen.status, VMA_ERR_DAMAGED);
	cr_assert_gt(seen.n, 0, "the records before the damage are read");
}

Test(xentrace, truncated_window_read_to_its_last_complete_record_when_tolerated)
{
	struct seen seen;

	truncated_file();
	read_all(&seen, 6);
	cr_assert_eq(seen.status, VMA_END);
	cr_assert_eq(seen.n, 11, "only the record cut in two is lost");
}

/* Two pcpus' windows with 24 bytes of junk between them. */
static void junk_between_windows(void)
{
	struct vma_xtw_options o = { .window_bytes = 64 };
	struct vma_xtw *w = vma_xtw_new_memory(&o);
	static const unsigned char junk[24] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4 };
	uint32_t word = 0;
	int i;

	for (i = 0; i < 4; i++)
		vma_xtw_record(w, 0, TRC_SCHED_WAKE, 100 + (uint64_t)i, &word, 1);
	vma_xtw_flush_all(w);
	vma_xtw_raw(w, junk, sizeof(junk));
	for (i = 0; i < 4; i++)
		vma_xtw_record(w, 1, TRC_SCHED_WAKE, 200 + (uint64_t)i, &word, 1);
	write_writer(w);
	vma_xtw_free(w);
}

Test(xentrace, garbage_window_header_is_skipped_with_resync)
{
	struct seen seen;

	junk_between_windows();
	read_all(&seen, 6);
	cr_assert_eq(seen.status, VMA_END);
	cr_assert_eq(seen.n, 8, "both pcpus' records around the junk");

	/* Same bytes, default tolerance: the scan stops at the junk. */
	junk_between_windows();
	read_all(&seen, 3);
	cr_assert_eq(seen.status, VMA_ERR_DAMAGED);
	cr_assert_eq(seen.n, 4);
}

Test(xentrace, record_overrunning_its_window_is_reported)
{
	struct vma_xtw_options o = { .window_bytes = 64 };
	struct vma_xtw *w = vma_xtw_new_memory(&o);
	uint32_t word = 0;
	/* A header claiming 7 words and a TSC, in a window with 8 bytes left. */
	uint32_t bad[2] = { vma_xtw_header(TRC_SCHED_WAKE, 7, true), 0 };
	struct seen seen;

	vma_xtw_record(w, 0, TRC_SCHED_WAKE, 100, &word, 1);
	vma_xtw_pcpu_raw(w, 0, bad, sizeof(bad));
	write_writer(w);
	vma_xtw_free(w);
	read_all(&seen, 6);
	cr_assert_eq(seen.n, 1);
	cr_assert_eq(seen.status, VMA_END);
}

/*
 * The same in a run of small windows, which the reader takes from one
 * block: the bytes after the overrunning record are there (the next
 * windows), so only its size tells that it leaves its window.
 */
Test(xentrace, record_overrunning_its_window_inside_a_block_is_reported)
{
	struct vma_xtw_options o = { .window_bytes = 64 };
	struct vma_xtw *w = vma_xtw_new_memory(&o);
	uint32_t word = 0, i;
	uint32_t bad[2] = { vma_xtw_header(TRC_SCHED_WAKE, 7, true), 0 };
	struct seen seen;

	vma_xtw_record(w, 0, TRC_SCHED_WAKE, 100, &word, 1);
	vma_xtw_pcpu_raw(w, 0, bad, sizeof(bad));
	cr_assert_eq(vma_xtw_flush_pcpu(w, 0), 0);
	for (i = 0; i < 12; i++)
		cr_assert_eq(vma_xtw_record(w, 1, TRC_SCHED_WAKE, 200 + i, &word, 1), 0);
	write_writer(w);
	vma_xtw_free(w);
	read_all(&seen, 6);
	cr_assert_eq(seen.n, 13);
	for (i = 0; i < seen.n; i++)
		cr_assert_eq(seen.nr[i], 1, "record %u has %u words", i, seen.nr[i]);
	cr_assert_eq(seen.status, VMA_END);
}

Test(xentrace, empty_and_foreign_files_are_refused)
{
	struct seen seen;
	static const char text[] = "this is not a trace, just some text\n";

	write_file("", 0);
	read_all(&seen, 6);
	cr_assert_eq(seen.open_status, VMA_ERR_FORMAT);
	write_file(text, sizeof(text));
	read_all(&seen, 6);
	cr_assert_eq(seen.open_status, VMA_ERR_FORMAT);
	strcpy(path, "/nonexistent/vmalyze/trace");
	read_all(&seen, 6);
	cr_assert_eq(seen.open_status, VMA_ERR_IO);
}

/*
 * A file cut while it is read (its size was taken at open): the reader
 * reports where it ends and stops as for damage, not with a silent read
 * error.  @tolerance 3 stops (VMA_ERR_DAMAGED), 6 ends the streams.
 */
static void read_shrinking(struct seen *seen, int tolerance, struct vma_diag **diagp)
{
	struct vma_diag *diag = vma_diag_create(tolerance, VMA_VERB_QUIET);
	struct vma_pipeline_options opts = { .no_state = true };
	struct vma_pipeline_hooks hooks = { .arg = seen, .after = see_record };
	struct vma_pipeline *p = NULL;

	memset(seen, 0, sizeof(*seen));
	seen->open_status = vma_pipeline_open(path, &opts, diag, &p);
	cr_assert_eq(seen->open_status, VMA_OK);
	cr_assert_eq(truncate(path, (off_t)(vma_pipeline_input(p)->size / 3)), 0);
	seen->status = vma_pipeline_run(p, &hooks);
	if (seen->status == VMA_OK)
		seen->status = VMA_END;
	vma_pipeline_close(p);
	*diagp = diag;
}

Test(xentrace, file_shrinking_while_read_is_damage_not_silence)
{
	struct vma_xtw_options o = { .window_bytes = 256 };
	uint32_t pcpu, i, word = 0;
	struct vma_diag *diag;
	struct seen seen;
	int tol;

	for (tol = 3; tol <= 6; tol += 3) {
		struct vma_xtw *w = vma_xtw_new_memory(&o);

		for (i = 0; i < 2 * MAX_SEEN; i++) {
			pcpu = i % 4;
			cr_assert_eq(vma_xtw_record(w, pcpu, TRC_SCHED_WAKE, 100 + i, &word, 1), 0);
		}
		write_writer(w);
		vma_xtw_free(w);
		read_shrinking(&seen, tol, &diag);
		cr_assert_lt(seen.n, MAX_SEEN);
		cr_assert_eq(vma_diag_worst(diag), VMA_LVL_FILE);
		cr_assert_eq(seen.status, tol == 3 ? VMA_ERR_DAMAGED : VMA_END);
		vma_diag_destroy(diag);
		unlink(path);
	}
}

/*
 * A host of 4 pcpus, each running an HVM vcpu of its own, @n exits and
 * entries taking turns among them: their records go ahead of the merge.
 */
static void write_turns(uint32_t n)
{
	const uint32_t to_running = TRC_SCHED_RUNSTATE_CHANGE | 1 << 8 | 0 << 4;
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint64_t tsc = 1000;
	uint32_t i, cpu;

	for (cpu = 0; cpu < 4; cpu++) {
		uint32_t vcpu = (cpu + 1) << 16;

		cr_assert_eq(vma_xtw_record(w, cpu, to_running, tsc + cpu, &vcpu, 1), 0);
	}
	for (i = 0; i < n; i++) {
		uint32_t exit[2] = { 1 + i % 3, 0x1000 + i };

		tsc += 100;
		cpu = i % 4;
		cr_assert_eq(vma_xtw_record(w, cpu, TRC_HVM_VMX_EXIT64 & ~TRC_64_FLAG, tsc, exit,
					    2), 0);
		cr_assert_eq(vma_xtw_record(w, cpu, TRC_HVM_VMENTRY, tsc + 30 + i % 7, NULL, 0),
			     0);
	}
	write_writer(w);
	vma_xtw_free(w);
}

Test(xentrace, file_shrinking_while_read_ahead_is_said)
{
	static const unsigned int cut[] = { 10, 25, 50, 75, 95 };
	unsigned int i;

	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		struct vma_pipeline_options opts = { .threads = 1 };
		struct vma_pipeline *p = NULL;
		enum vma_level worst;
		struct vma_diag *diag;
		char *said = NULL;
		size_t len = 0;
		FILE *err;
		int rc;

		write_turns(40000);
		err = open_memstream(&said, &len);
		cr_assert_not_null(err);
		diag = vma_diag_create_to(err, VMA_DEFAULT_TOLERANCE, VMA_VERB_NORMAL);
		cr_assert_eq(vma_pipeline_open(path, &opts, diag, &p), VMA_OK);
		cr_assert_eq(truncate(path, (off_t)(vma_pipeline_input(p)->size * cut[i] / 100)),
			     0);
		rc = vma_pipeline_run(p, &(struct vma_pipeline_hooks){ 0 });
		vma_pipeline_close(p);
		worst = vma_diag_worst(diag);
		vma_diag_destroy(diag);
		fclose(err);
		cr_assert(strstr(said, path) &&
				  (strstr(said, "shrank while being read") ||
				   strstr(said, "changed while being read")),
			  "cut to %u%%: status %d and said \"%s\"", cut[i], rc, said);
		cr_assert_geq(worst, VMA_LVL_WARN);
		free(said);
		unlink(path);
	}
}

/* Order and count of every record, for files past MAX_SEEN records. */
struct tally {
	uint64_t last_tsc, records, per_pcpu[128];
	bool ordered;
};

static int tally_record(void *arg, const struct vma_machine *m, const struct vma_stream *s,
			const struct vma_outcome *out)
{
	struct tally *t = arg;

	(void)m;
	(void)out;
	if (s->rec.tsc < t->last_tsc)
		t->ordered = false;
	t->last_tsc = s->rec.tsc;
	t->records++;
	if (s->rec.pcpu < 128)
		t->per_pcpu[s->rec.pcpu]++;
	return VMA_OK;
}

/*
 * Small windows are read through the reader's block cache.  Here 40 pcpus
 * read at once, each from its own block (70 KiB of a later pcpu's records
 * lie between their windows): more blocks than the cache has, so that the
 * pcpus it cannot serve read their windows themselves.  Twice, so that
 * blocks are let go and taken again.
 */
Test(xentrace, small_windows_of_more_pcpus_than_cached_blocks)
{
	struct vma_xtw_options o = { .window_bytes = 128 * 1024 };
	struct vma_diag *diag = vma_diag_create(3, VMA_VERB_QUIET);
	struct vma_pipeline_options opts = { .no_state = true };
	struct tally t = { .ordered = true };
	struct vma_pipeline_hooks hooks = { .arg = &t, .after = tally_record };
	struct vma_pipeline *p = NULL;
	uint32_t words[7] = { 0 }, round, pcpu, i;
	uint64_t late = 1000000000ull;
	struct vma_xtw *w = vma_xtw_new_memory(&o);
	int rc;

	for (round = 0; round < 2; round++) {
		for (pcpu = 0; pcpu < 40; pcpu++) {
			for (i = 0; i < 20; i++)
				cr_assert_eq(vma_xtw_record(w, pcpu, TRC_SCHED_WAKE,
							    1000 + round * 100000 + pcpu + 40 * i,
							    words, 1), 0);
			cr_assert_eq(vma_xtw_flush_pcpu(w, pcpu), 0);
			for (i = 0; i < 1792; i++)
				cr_assert_eq(vma_xtw_record(w, 100, TRC_SCHED_WAKE, late++, words, 7),
					     0);
			cr_assert_eq(vma_xtw_flush_pcpu(w, 100), 0);
		}
	}
	write_writer(w);
	vma_xtw_free(w);
	cr_assert_eq(vma_pipeline_open(path, &opts, diag, &p), VMA_OK);
	rc = vma_pipeline_run(p, &hooks);
	cr_assert(rc == VMA_OK || rc == VMA_END, "run: %d", rc);
	vma_pipeline_close(p);
	cr_assert_eq(vma_diag_worst(diag), VMA_LVL_NONE);
	vma_diag_destroy(diag);
	unlink(path);
	cr_assert(t.ordered, "records out of time order");
	cr_assert_eq(t.records, 2 * 40 * 20 + 2 * 40 * 1792);
	for (pcpu = 0; pcpu < 40; pcpu++)
		cr_assert_eq(t.per_pcpu[pcpu], 40, "pcpu %u", pcpu);
	cr_assert_eq(t.per_pcpu[100], 2 * 40 * 1792);
}
