/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pipeline's progress counter (options.progress, what the batch's
 * progress line reads while a trace is analysed): on each of the record
 * loop's paths -- with hooks or bare (-s), on one thread or with the
 * reader thread, the bare one then lent its records in place -- it only
 * grows, stays within the file, and ends at the same offset, since every
 * path looks at it at the same records.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "vmalyze/diag.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/status.h"

static const char *trace(const char *name)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/traces/%s", top ? top : TOP_SRCDIR, name);
	return path;
}

/* What the after hook saw of the counter while the records went by. */
struct watch {
	_Atomic uint64_t *progress;
	uint64_t last, size, records, moves;
	bool shrank, past_end;
};

static int watch_record(void *arg, const struct vma_machine *m, const struct vma_stream *s,
			const struct vma_outcome *out)
{
	struct watch *w = arg;
	uint64_t now = atomic_load_explicit(w->progress, memory_order_relaxed);

	(void)m;
	(void)s;
	(void)out;
	w->records++;
	if (now < w->last)
		w->shrank = true;
	if (now > w->size)
		w->past_end = true;
	w->moves += now != w->last;
	w->last = now;
	return VMA_OK;
}

/* Run @name on @threads threads, watched by a hook unless @bare; return the final count. */
static uint64_t run(const char *name, unsigned int threads, bool bare, struct watch *w)
{
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	_Atomic uint64_t progress = 0;
	struct vma_pipeline_options opts = { .cpu_hz = 2400000000ull,
					     .progress = &progress,
					     .threads = threads };
	struct vma_pipeline_hooks hooks = { .arg = w, .after = watch_record };
	struct vma_pipeline *p;
	struct stat st;

	cr_assert_not_null(diag);
	cr_assert_eq(stat(trace(name), &st), 0, "%s", trace(name));
	*w = (struct watch){ .progress = &progress, .size = (uint64_t)st.st_size };
	cr_assert_eq(vma_pipeline_open(trace(name), &opts, diag, &p), VMA_OK);
	cr_assert_eq(vma_pipeline_run(p, bare ? NULL : &hooks), VMA_OK);
	vma_pipeline_close(p);
	vma_diag_destroy(diag);
	return atomic_load(&progress);
}

/*
 * @moves: how often at least the counter must move on the way: a
 * compressed trace.dat's records are placed at their chunk's offset, so a
 * small one moves once per chunk.
 */
static void every_path_agrees(const char *name, uint64_t moves)
{
	struct watch w1, w2, b1, b2;
	uint64_t hooked1 = run(name, 1, false, &w1), hooked2 = run(name, 2, false, &w2);
	uint64_t bare1 = run(name, 1, true, &b1), bare2 = run(name, 2, true, &b2);

	/* Enough records for several looks at the counter (one per 256 records). */
	cr_assert_gt(w1.records, 1024, "%s: %llu records", name, (unsigned long long)w1.records);
	cr_assert_eq(w1.records, w2.records);
	cr_assert(!w1.shrank && !w2.shrank, "%s: the progress went back", name);
	cr_assert(!w1.past_end && !w2.past_end, "%s: progress past the file's end", name);
	cr_assert_geq(w1.moves, moves, "%s: the progress moved %llu times", name,
		      (unsigned long long)w1.moves);
	cr_assert_gt(hooked1, w1.size / 2, "%s: ended at %llu of %llu", name,
		     (unsigned long long)hooked1, (unsigned long long)w1.size);
	cr_assert_leq(hooked1, w1.size);
	cr_assert_eq(hooked2, hooked1, "%s: two threads %llu, one %llu", name,
		     (unsigned long long)hooked2, (unsigned long long)hooked1);
	cr_assert_eq(bare1, hooked1, "%s: bare %llu, hooked %llu", name,
		     (unsigned long long)bare1, (unsigned long long)hooked1);
	cr_assert_eq(bare2, hooked1, "%s: bare on two threads (lent records) %llu, hooked %llu",
		     name, (unsigned long long)bare2, (unsigned long long)hooked1);
}

Test(progress, every_loop_path_vmx)
{
	every_path_agrees("gen-vmx-4cpu.xentrace", 3);
}

Test(progress, every_loop_path_pv_lost)
{
	every_path_agrees("gen-pv-lost.xentrace", 3);
}

Test(progress, every_loop_path_trace_dat)
{
	every_path_agrees("real/kvm-svm-host.dat", 1);
}

Test(progress, every_loop_path_xen_capture)
{
	every_path_agrees("real/xen417-pvh-pv-record.xentrace", 3);
}
