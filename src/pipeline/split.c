/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A run in two parts, on two threads.  The caller's thread analyses the
 * records before a seam; a second thread opens the same file again and
 * takes every record from the first with its machine's summaries paused
 * (state.h), which costs about half of a full analysis, resumes them at
 * the seam and analyses the rest in full.  Both merges deliver the same
 * records in the same order, so the seam falls on the same record: the
 * first poll (POLL_RECORDS) after a record at or past the seam's offset.
 * The second machine's state at the seam is then the one the caller's
 * machine has there, by construction; the first part's summaries are
 * joined to the second's (vma_machine_prepend()) and the report is the
 * one a single thread makes, byte for byte.
 *
 * The second part is given up, and the caller's thread goes on past the
 * seam alone, whenever it could differ: it said anything after the seam
 * (a warning, damage, late records: its messages go nowhere, and the
 * first part's are the caller's), its run failed or was interrupted, a
 * budget of either machine was reached (vma_machine_joinable()), or a
 * machine grew past SPLIT_MACHINE_BYTES (two machines live at once).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "vmalyze/diag.h"
#include "vmalyze/status.h"

#include "pipeline-internal.h"

/* A machine's summaries and rows past this end the split (peak memory). */
#define SPLIT_MACHINE_BYTES ((size_t)12 << 20)

struct split {
	struct vma_pipeline *first, *second;
	struct vma_diag *diag;           /* the second part's, writing nowhere */
	FILE *sink;
	uint64_t seam;                   /* file offset of the seam */
	pthread_t thread;
	bool started;
	int status;                      /* the second part's run */
	bool second_seamed;              /* it passed the seam */
	bool gave_up;                    /* it stopped before the end */
	uint64_t said_at_seam;           /* its diag's count at the seam */
	atomic_bool cancel;              /* the first part tells the second to stop */
	bool joined;                     /* the report is the joined machine's */
	/* -v: each part's CPU time, ns (the second's to its end, the first's to the seam) */
	uint64_t first_ns, second_ns, second_seam_ns;
};

static uint64_t thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

struct split_side {
	struct split *s;
	bool second;
};

/* Summaries and rows a machine holds (what grows with the trace, not its state). */
static size_t machine_bytes(const struct vma_machine *m)
{
	return m->budget.used + m->budget.rows.used;
}

bool vma_split_wanted(const struct vma_pipeline *p)
{
	const struct vma_pipeline_options *o = &p->opts;
	const struct member *mb = p->members;
	const struct vma_input *in = mb->in;
	struct stat st;

	/* Only when asked: on two cpus it is no faster than a reader thread (doc/design.md). */
	if (!(o->split_at > 0 && o->split_at < 1))
		return false;
	if (p->nr_members != 1 || !mb->machine || mb->machine->observer ||
	    !vma_machine_joinable(mb->machine) ||
	    in->family != VMA_FAMILY_XEN || in->streaming || o->time_set ||
	    o->tsc_skew_correct || o->wrap_stream || o->no_state || o->no_stats)
		return false;
	/* Opened again by name: a plain file, read as it is (no decompression). */
	return mb->by_path && stat(mb->name, &st) == 0 && S_ISREG(st.st_mode) &&
	       (uint64_t)st.st_size == in->size;
}

/* The second part's thread: every record, its summaries from the seam on. */
static void *second_part(void *arg)
{
	struct split *s = arg;

	s->status = vma_pipeline_run(s->second, NULL);
	s->second_ns = thread_ns();
	return NULL;
}

/* The second part at its poll: the seam, its size, or the first part's word to stop. */
static int second_poll(struct split *s, struct vma_pipeline *q, const struct vma_record *rec)
{
	struct vma_machine *m = q->members->machine;

	if (atomic_load_explicit(&s->cancel, memory_order_relaxed) ||
	    machine_bytes(m) > SPLIT_MACHINE_BYTES) {
		s->gave_up = true;
		return VMA_END;
	}
	if (!s->second_seamed && rec->offset >= s->seam) {
		s->second_seamed = true;
		s->second_seam_ns = thread_ns();
		s->said_at_seam = vma_diag_said(s->diag);
		return vma_machine_resume_summaries(m);
	}
	return VMA_OK;
}

/* The second part is done: whether its machine, joined to the first's, is the run's. */
static bool second_part_joins(struct split *s)
{
	struct vma_machine *first = s->first->members->machine;
	struct vma_machine *second = s->second->members->machine;

	if (s->status != VMA_OK || !s->second_seamed || s->gave_up ||
	    s->second->members->in->interrupted || vma_diag_said(s->diag) != s->said_at_seam ||
	    !vma_machine_joinable(first) || !vma_machine_joinable(second))
		return false;
	return vma_machine_prepend(second, first) == VMA_OK;
}

/* The second part is given up: its thread stops, its pipeline and machine go at once. */
static void stop_second(struct split *s)
{
	if (s->started) {
		atomic_store(&s->cancel, true);
		pthread_join(s->thread, NULL);
		s->started = false;
	}
	vma_pipeline_close(s->second);
	s->second = NULL;
}

int vma_split_poll(struct vma_pipeline *p, const struct vma_record *rec)
{
	struct split *s = p->split->s;

	if (p->split->second)
		return second_poll(s, p, rec);
	if (machine_bytes(p->members->machine) > SPLIT_MACHINE_BYTES) {
		stop_second(s);
		p->split = NULL;
		return VMA_OK;
	}
	if (rec->offset < s->seam)
		return VMA_OK;
	/* The seam: the first part waits for the second, then ends here or goes on. */
	s->first_ns = thread_ns();
	pthread_join(s->thread, NULL);
	s->started = false;
	p->split = NULL;
	s->joined = second_part_joins(s);
	vma_diag_info(p->diag, "%s: the seam, after record %llu: the first part ran %.3f s "
		      "(CPU) to it; the second %.3f s to it and %.3f s after it",
		      p->members->in->path, (unsigned long long)p->nr_records,
		      (double)s->first_ns / 1e9, (double)s->second_seam_ns / 1e9,
		      (double)(s->second_ns - s->second_seam_ns) / 1e9);
	if (s->joined) {
		vma_diag_info(p->diag, "%s: the two parts are joined", p->members->in->path);
		return VMA_END;
	}
	vma_diag_info(p->diag, "%s: the second part could not be joined exactly; reading on "
		      "from the seam on one thread", p->members->in->path);
	stop_second(s);
	return VMA_OK;
}

/* The second part's pipeline: the same file and options, its own diag, one thread. */
static int open_second(struct split *s, struct vma_pipeline *p)
{
	struct vma_pipeline_options o = p->opts;
	int rc;

	s->sink = fopen("/dev/null", "w");
	if (!s->sink)
		return VMA_ERR_IO;
	s->diag = vma_diag_create_beside(p->diag, s->sink);
	if (!s->diag)
		return VMA_ERR_NOMEM;
	o.threads = 1;
	o.progress = NULL;
	rc = vma_pipeline_open(p->members->name, &o, s->diag, &s->second);
	if (rc)
		return rc;
	if (s->second->nr_members != 1 || !s->second->members->machine)
		return VMA_ERR_FORMAT;
	vma_machine_pause_summaries(s->second->members->machine);
	return VMA_OK;
}

/* The first part's machine gives way to the joined one, which covers every record. */
static void take_joined(struct vma_pipeline *p, struct vma_pipeline *q)
{
	struct vma_machine *m = p->members->machine;

	p->members->machine = q->members->machine;
	q->members->machine = m;
	p->nr_records = q->nr_records;
}

int vma_split_run(struct vma_pipeline *p, bool *interrupted)
{
	struct split s;
	struct split_side first = { &s, false }, second = { &s, true };
	int rc;

	memset(&s, 0, sizeof(s));
	atomic_init(&s.cancel, false);
	s.first = p;
	s.seam = (uint64_t)(p->opts.split_at * (double)p->members->in->size);
	rc = open_second(&s, p);
	if (rc == VMA_OK) {
		s.second->split = &second;
		s.started = pthread_create(&s.thread, NULL, second_part, &s) == 0;
	}
	if (s.started) {
		p->split = &first;
		vma_diag_info(p->diag, "%s: read and analysed in two parts, on two threads",
			      p->members->in->path);
	} else {
		vma_diag_info(p->diag, "%s: read and analysed on one thread", p->members->in->path);
	}
	rc = vma_pipeline_run_bare(p, interrupted);
	p->split = NULL;
	if (s.joined && rc == VMA_OK)
		take_joined(p, s.second);
	/* Ended before the seam (an error, SIGINT, or no record past it): the second stops. */
	stop_second(&s);
	vma_diag_destroy(s.diag);
	if (s.sink)
		fclose(s.sink);
	return rc;
}
