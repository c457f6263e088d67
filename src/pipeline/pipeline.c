/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pipeline (pipeline.h).  The machine is made once the input is open,
 * when its family and clock are known; the streams the input announced
 * while opening are added to it then, later ones as they come.  The merge
 * is reached through the feed (feed.h), which may run it, and the readers,
 * on a thread of their own: the feed then tells of new streams on this
 * thread, in order with the records.
 */
#include <stdlib.h>
#include <unistd.h>

#include "vmalyze/diag.h"
#include "vmalyze/grow.h"
#include "vmalyze/kvm-input.h"
#include "vmalyze/feed.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

#include "pipeline-internal.h"

/*
 * Linked inputs: the state's messages, which name no file, are about @mb's
 * file from now on.  (One input is the diag's source from the start.)
 */
static void speak_for(struct vma_pipeline *p, struct member *mb)
{
	if (p->linked && p->speaking != mb) {
		p->speaking = mb;
		vma_diag_set_source(p->diag, mb ? mb->name : NULL);
	}
}

/* The member whose input delivered @stream: the only one, or a short search. */
static struct member *member_of(const struct vma_pipeline *p, const struct vma_input *in)
{
	uint32_t i;

	for (i = 1; i < p->nr_members; i++) {
		if (p->members[i].in == in)
			return &p->members[i];
	}
	return p->members;
}

/*
 * A new stream, told by the feed on the caller's thread before its records.
 * Linked inputs run on one thread, so the stream is the one being added.
 */
static int on_new_pcpu(void *arg, uint32_t pcpu)
{
	struct vma_pipeline *p = arg;
	struct member *mb = p->nr_members > 1 ? p->announcing : p->members;

	p->nr_streams++;
	speak_for(p, mb);
	if (mb->machine)
		return vma_machine_add_pcpu(mb->machine, pcpu);
	if (!p->opts.no_state) {
		if (vma_grow(mb->early, &mb->cap_early, mb->nr_early + 1, 16))
			return VMA_ERR_NOMEM;
		mb->early[mb->nr_early++] = pcpu;
	}
	return VMA_OK;
}

/* A stream ran out (told by the feed, before the next record): its pcpu is done. */
static void on_stream_ended(void *arg, const struct vma_stream *ended)
{
	struct member *mb = member_of(arg, ended->input);

	speak_for(arg, mb);
	if (mb->machine && !(mb->p->ahead && vma_ahead_defer_end(mb->p->ahead, ended->pcpu)))
		vma_machine_pcpu_end(mb->machine, ended->pcpu);
}

/*
 * The input's new_stream: the caller may wrap the stream; the feed takes
 * it, ranked after the cpus of the inputs before this one.
 */
static int on_new_stream(void *arg, struct vma_stream *stream)
{
	struct member *mb = arg;
	struct vma_pipeline *p = mb->p;
	uint32_t pcpu = stream->pcpu, rank = mb->rank_base + pcpu;

	if (p->opts.wrap_stream && !(stream = p->opts.wrap_stream(p->opts.wrap_arg, stream)))
		return VMA_ERR_NOMEM;
	if (p->nr_members == 1)
		return vma_feed_add(p->feed, stream);
	if (rank < mb->rank_base)
		rank = UINT32_MAX; /* cpu ids this large tie last */
	if (rank >= mb->rank_end)
		mb->rank_end = rank == UINT32_MAX ? rank : rank + 1;
	p->announcing = mb;
	return vma_feed_add_ranked(p->feed, stream, rank);
}

static uint64_t ticks_per_second(const struct vma_pipeline_options *o, const struct vma_input *in)
{
	if (in->clock == VMA_CLOCK_NS)
		return 1000000000ull;
	if (o->timer_hz)
		return o->timer_hz;
	return o->cpu_hz ? o->cpu_hz : 1;
}

/* --timer-hz is the Arm generic timer's: say when it cannot apply to a KVM trace. */
static int check_timer_hz(const struct vma_pipeline *p, const struct vma_input *in)
{
	const struct vma_kvm_file_info *info = vma_kvm_file_info(in);

	if (!p->opts.timer_hz || in->family != VMA_FAMILY_KVM)
		return VMA_OK;
	if (in->clock == VMA_CLOCK_NS) {
		vma_diag_report(p->diag, VMA_LVL_WARN, in->path, UINT64_MAX,
				"--timer-hz has no effect: this trace's time stamps are "
				"nanoseconds");
	} else if (info && !info->arm64) {
		vma_diag_report(p->diag, VMA_LVL_INPUT, in->path, UINT64_MAX,
				"--timer-hz is the Arm generic timer's rate, but this is an x86"
				" trace, counted in TSC cycles: give --cpu-hz only");
		return VMA_ERR_USAGE;
	}
	return VMA_OK;
}

/* A host recording with guests says which threads are whose vcpus. */
static int map_guest_threads(struct member *mb)
{
	const struct vma_kvm_file_info *info = vma_kvm_file_info(mb->in);
	uint32_t g, c;
	int rc;

	for (g = 0; info && g < info->nr_guests; g++) {
		rc = vma_machine_name_vm(mb->machine, g, info->guests[g].name);
		if (rc)
			return rc;
		for (c = 0; c < info->guests[g].nr_vcpus; c++) {
			if (!info->guests[g].vcpu_pid[c])
				continue;
			rc = vma_machine_map_thread(mb->machine, info->guests[g].vcpu_pid[c], g, c);
			if (rc)
				return rc;
		}
	}
	return VMA_OK;
}

/* KVM thread names, from the trace's saved cmdlines. */
static const char *thread_name(const void *arg, uint32_t pid)
{
	return vma_kvm_comm(arg, pid);
}

/*
 * The state stage found a pcpu's clock skewed: the merge moves its later
 * records (--tsc-skew-correct, which runs the feed on one thread: a reader
 * thread would have merged them already).
 */
static void tsc_offset(void *arg, uint32_t pcpu, int64_t offset)
{
	struct vma_pipeline *p = arg;

	if (!vma_feed_shift(p->feed, pcpu, offset)) {
		vma_diag_warn_once(p->diag, "tsc-skew-threads", "TSC skew between pcpus is not "
				   "corrected with a reader thread: run with --threads 1 to "
				   "correct it");
	}
}

static int make_machine(struct vma_pipeline *p, struct member *mb)
{
	struct vma_machine_options mopts = {
		.force_svm = p->opts.force_svm,
		.default_paging_levels = p->opts.default_paging_levels,
		.no_stats = p->opts.no_stats,
		.summary_budget = p->opts.summary_budget,
		.rows_budget = p->opts.rows_budget,
		.eips = p->opts.eips,
		.tsc_loop_fatal = p->opts.tsc_loop_fatal,
	};
	size_t i;
	int rc;

	/* Xen's runstate records show skew; one input's pcpus are one clock domain. */
	if (mb->in->family == VMA_FAMILY_XEN && p->opts.tsc_skew_correct) {
		mopts.tsc_offset = tsc_offset;
		mopts.tsc_offset_arg = p;
	}
	if (mb->in->family == VMA_FAMILY_KVM) {
		mopts.kvm = true;
		mopts.kvm_window = mb->hz / 1000; /* vm-trace's 1 ms window */
		mopts.thread_name = thread_name;
		mopts.thread_name_arg = mb->in;
	}
	speak_for(p, mb);
	mb->machine = vma_machine_create(p->diag, &mopts);
	if (!mb->machine)
		return VMA_ERR_NOMEM;
	for (i = 0; i < mb->nr_early; i++) {
		rc = vma_machine_add_pcpu(mb->machine, mb->early[i]);
		if (rc)
			return rc;
	}
	return mb->in->family == VMA_FAMILY_KVM ? map_guest_threads(mb) : VMA_OK;
}

/*
 * A guest on a Xen host's TSC (--guest-tsc) needs a host whose clock is
 * cycles; a Xen host's guest needs its clock in cycles, not nanoseconds.
 */
static int check_guest_clock(struct vma_pipeline *p, struct member *mb)
{
	const struct vma_input *host = p->members[0].in;
	bool cycles = mb->inopts.time_map.cycles;

	if (cycles && host->clock != VMA_CLOCK_CYCLES) {
		vma_diag_report(p->diag, VMA_LVL_INPUT, mb->in->path, UINT64_MAX,
				"--guest-tsc puts a guest on a host's TSC, and %s's clock is not "
				"one",
				host->path);
		return VMA_ERR_USAGE;
	}
	if (!cycles && host->family == VMA_FAMILY_XEN) {
		vma_diag_report(p->diag, VMA_LVL_INPUT, mb->in->path, UINT64_MAX,
				"is put on a xentrace's clock with --guest-tsc, in TSC cycles");
		return VMA_ERR_USAGE;
	}
	return VMA_OK;
}

/*
 * Open member @mb: @path, or @fd (>= 0, owned) named @name, with @map
 * (NULL: none) putting its clock on the first input's by hand.
 */
static int open_member(struct vma_pipeline *p, struct member *mb, const char *path, int fd,
		       const char *name, const struct vma_time_map *map)
{
	int rc;

	mb->p = p;
	mb->name = fd >= 0 ? name : path;
	mb->by_path = fd < 0;
	mb->rank_base = mb->rank_end = mb == p->members ? 0 : mb[-1].rank_end;
	mb->inopts = p->opts.input;
	if (map)
		mb->inopts.time_map = *map;
	if (fd >= 0)
		rc = vma_input_open_fd(fd, name, &mb->inopts, p->diag, on_new_stream, mb, &mb->in);
	else
		rc = vma_input_open(path, &mb->inopts, p->diag, on_new_stream, mb, &mb->in);
	if (rc == VMA_OK && (mb->inopts.time_map.offset || mb->inopts.time_map.scale_den) &&
	    mb->in->family != VMA_FAMILY_KVM) {
		vma_diag_report(p->diag, VMA_LVL_INPUT, mb->in->path, UINT64_MAX,
				"--time-offset applies to trace.dat files, not to this trace");
		rc = VMA_ERR_USAGE;
	}
	if (rc == VMA_OK && mb != p->members)
		rc = check_guest_clock(p, mb);
	if (rc == VMA_OK)
		rc = check_timer_hz(p, mb->in);
	if (rc == VMA_OK) {
		mb->hz = ticks_per_second(&p->opts, mb->in);
		if (!p->opts.no_state)
			rc = make_machine(p, mb);
	}
	return rc;
}

/* --guest-tsc FILE@dN: guest cpu c is vcpu c of the Xen host's domain N. */
static int tie_xen_domain(struct member *host, struct member *mb,
			  const struct vma_kvm_file_info *gi)
{
	uint32_t c, n = gi ? gi->cpu_count : 0;

	if (!host->machine || !n)
		return VMA_OK;
	mb->host_vcpu = calloc(n, sizeof(*mb->host_vcpu));
	if (!mb->host_vcpu)
		return VMA_ERR_NOMEM;
	mb->nr_host_vcpu = n;
	for (c = 0; c < n; c++) {
		mb->host_vcpu[c] = vma_vcpu_get(host->machine, mb->inopts.time_map.domain, c);
		if (!mb->host_vcpu[c])
			return VMA_ERR_NOMEM;
	}
	return VMA_OK;
}

/*
 * Tie guest @mb to the host (member 0): its cpu c is the host's vcpu c of
 * the GUEST option naming its trace id, and host exits of those threads
 * name their rips with its symbols.
 */
static int link_guest(struct vma_pipeline *p, struct member *mb)
{
	struct member *host = p->members;
	const struct vma_kvm_file_info *hi = vma_kvm_file_info(host->in);
	const struct vma_kvm_file_info *gi = vma_kvm_file_info(mb->in);
	const struct vma_kvm_guest *guest;
	uint32_t g, c;

	if (mb->inopts.time_map.has_domain)
		return tie_xen_domain(host, mb, gi);
	for (g = 0; hi && gi && g < hi->nr_guests; g++) {
		if (hi->guests[g].trace_id == gi->trace_id)
			break;
	}
	if (!hi || !gi || g == hi->nr_guests)
		return VMA_OK;
	guest = &hi->guests[g];
	if (host->machine && guest->nr_vcpus) {
		mb->host_vcpu = calloc(guest->nr_vcpus, sizeof(*mb->host_vcpu));
		if (!mb->host_vcpu)
			return VMA_ERR_NOMEM;
		mb->nr_host_vcpu = guest->nr_vcpus;
		for (c = 0; c < guest->nr_vcpus; c++) {
			if (!guest->vcpu_pid[c])
				continue;
			mb->host_vcpu[c] = vma_vcpu_get(host->machine, g, c);
			if (!mb->host_vcpu[c])
				return VMA_ERR_NOMEM;
		}
	}
	return vma_kvm_link_guest(host->in, mb->in, guest->vcpu_pid, guest->nr_vcpus);
}

/* A pipeline of @nr inputs: @paths, or one @fd (>= 0, owned) named @name. */
static int open_all(const char *const *paths, uint32_t nr, int fd, const char *name,
		    const struct vma_pipeline_options *opts, struct vma_diag *diag,
		    struct vma_pipeline **out)
{
	struct vma_pipeline *p = calloc(1, sizeof(*p));
	uint64_t said;
	uint32_t i;
	int rc = VMA_OK;

	*out = NULL;
	if (p) {
		p->feed = vma_feed_create(on_new_pcpu, on_stream_ended, p);
		/* every member at once: the streams' callbacks keep their addresses */
		p->members = calloc(nr ? nr : 1, sizeof(*p->members));
	}
	if (!p || !p->feed || !p->members) {
		if (fd >= 0)
			close(fd);
		vma_pipeline_close(p);
		return VMA_ERR_NOMEM;
	}
	p->opts = *opts;
	p->opts.time_maps = NULL; /* the caller's; each member keeps a copy of its own */
	p->diag = diag;
	p->linked = nr > 1;
	said = vma_diag_said(diag);
	for (i = 0; i < nr && rc == VMA_OK; i++) {
		p->nr_members = i + 1;
		rc = open_member(p, &p->members[i], fd >= 0 ? NULL : paths[i], i ? -1 : fd, name,
				 opts->time_maps ? opts->time_maps[i] : NULL);
	}
	p->damaged_at_open = vma_diag_said(diag) != said;
	for (i = 1; i < p->nr_members && rc == VMA_OK; i++)
		rc = link_guest(p, &p->members[i]);
	if (rc) {
		vma_pipeline_close(p);
		return rc;
	}
	/* The state's messages name no file: with one input, it is that one. */
	if (p->nr_members == 1)
		vma_diag_set_source(diag, p->members[0].in->path);
	*out = p;
	return VMA_OK;
}

int vma_pipeline_open(const char *path, const struct vma_pipeline_options *opts,
		      struct vma_diag *diag, struct vma_pipeline **out)
{
	return open_all(&path, 1, -1, NULL, opts, diag, out);
}

int vma_pipeline_open_fd(int fd, const char *name, const struct vma_pipeline_options *opts,
			 struct vma_diag *diag, struct vma_pipeline **out)
{
	return open_all(NULL, 1, fd, name, opts, diag, out);
}

int vma_pipeline_open_linked(const char *const *paths, uint32_t nr_paths,
			     const struct vma_pipeline_options *opts, struct vma_diag *diag,
			     struct vma_pipeline **out)
{
	return open_all(paths, nr_paths, -1, NULL, opts, diag, out);
}

/* Progress: the furthest record offset so far, as a share of the file read. */
static void note_progress(struct vma_pipeline *p, const struct vma_input *in, uint64_t offset)
{
	struct member *mb = p->members;

	if (offset > mb->furthest && offset <= mb->in->size && in == mb->in)
		mb->furthest = offset;
	atomic_store_explicit(p->opts.progress, mb->furthest, memory_order_relaxed);
}

/* --time: is @tsc outside the window?  The window is placed at the first record. */
static bool outside_window(struct vma_pipeline *p, uint64_t tsc)
{
	if (!p->have_first) {
		double hz = (double)p->members[0].hz;

		p->have_first = true;
		p->first_tsc = tsc;
		p->from = (uint64_t)(p->opts.time_start * hz);
		p->to = p->opts.time_end > 0 ? (uint64_t)(p->opts.time_end * hz) : UINT64_MAX;
	}
	if (tsc < p->first_tsc)
		return p->from > 0;
	return tsc - p->first_tsc < p->from || tsc - p->first_tsc > p->to;
}

/* Records between two looks at the stop flag and the progress counter. */
#define POLL_RECORDS 256u

/*
 * The next record of the run @*run (of @stream), read here without the
 * merge while it is in the run; else the merge's next record, and the
 * run that one opens (feed.h, merge.h).
 */
static inline __attribute__((always_inline)) int run_next(struct vma_feed *feed,
							  struct vma_merge_run **run,
							  struct vma_stream **stream)
{
	struct vma_stream *s = *stream;
	int rc = s->next(s);
	uint64_t tsc = s->rec.tsc;

	if (__builtin_expect(rc == VMA_OK && (*run)->stream && tsc >= (*run)->last &&
			     tsc <= (*run)->limit, 1)) {
		(*run)->last = tsc;
		return VMA_OK;
	}
	return vma_feed_next_from(feed, rc, stream, run);
}

/*
 * run_next() taking records ahead of the merge: a record past the run's
 * limit (stamped after the first waiting stream's) goes ahead when
 * ahead_take() folds it (AHEAD_TAKEN), else to the merge.  *@batch: the
 * stream's records taken ahead since the last that was not (closed
 * before any other goes on).
 */
static inline __attribute__((always_inline)) int run_next_ahead(struct vma_pipeline *p,
								struct vma_feed *feed,
								struct vma_merge_run **run,
								struct vma_stream **stream,
								bool *batch)
{
	struct vma_stream *s = *stream;
	int rc = s->next(s);
	uint64_t tsc = s->rec.tsc;

	if (__builtin_expect(rc == VMA_OK && (*run)->stream && tsc >= (*run)->last, 1)) {
		int cls;

		if (tsc <= (*run)->limit) {
			ahead_batch_end(p->ahead, batch);
			(*run)->last = tsc;
			return VMA_OK;
		}
		/* Only an HVM or PV record may go: a call saved for the others. */
		cls = vma_xen_class(s->rec.event);
		if (cls == VMA_XEN_CLASS_HVM || cls == VMA_XEN_CLASS_PV) {
			rc = ahead_take(p->ahead, &s->rec, cls == VMA_XEN_CLASS_HVM, batch);
			if (rc > 0)
				return AHEAD_TAKEN;
			if (rc < 0) {
				ahead_batch_end(p->ahead, batch);
				return rc;
			}
		}
	}
	ahead_batch_end(p->ahead, batch);
	return vma_feed_next_from(feed, rc, stream, run);
}

/* How the record loop takes its records from the feed. */
enum fetch {
	FETCH_PLAIN, /* vma_feed_next() */
	FETCH_RUNS,  /* the runs of Xen's streams read here, else vma_feed_next_run() */
	FETCH_LENT,  /* vma_feed_lend(): the records where the reader thread left them */
	FETCH_AHEAD, /* FETCH_RUNS, records past a run taken ahead of the merge (bare) */
};

/*
 * The record loop, made several times by the compiler: with --time's
 * window test, without it, and bare (no hooks, one machine: the
 * summary's case), each way of taking the records (@fetch) that it can
 * meet, so that a run pays only for the tests its options need.  It
 * starts from @stream and @run: NULL, or where a loop taking records
 * ahead of the merge gave up (vma_pipeline_run_in_order_from()).
 */
static inline __attribute__((always_inline)) int run_loop_from(struct vma_pipeline *p,
								const struct vma_pipeline_hooks *h,
								const bool windowed, const bool bare,
								const enum fetch fetch,
								bool *interrupted,
								struct vma_stream *stream,
								struct vma_merge_run *run)
{
	const bool lent = fetch == FETCH_LENT;
	/*
	 * Read once: the calls below could change anything behind @p and @h
	 * as far as the compiler knows, and would have them read again.
	 */
	struct vma_feed *feed = p->feed;
	struct member *only = p->nr_members > 1 ? NULL : p->members;
	/*
	 * A pipe's records already read cannot be read again: on SIGINT or
	 * SIGTERM they still go to the report, and its reader reads no more
	 * (vma_input_read()), so what is left to take is bounded.
	 */
	const bool drain = only && only->in->streaming;
	/* @bare: one input with a machine and no hooks (-s): nothing to test per record. */
	struct vma_machine *bare_machine = bare ? p->members->machine : NULL;
	__typeof__(h->before) before = h->before;
	__typeof__(h->after) after = h->after;
	__typeof__(h->around) around = h->around;
	void *arg = h->arg;
	struct vma_feed_lend lend = { NULL, NULL }; /* @lent: the records of the batch */
	const struct vma_record *rec = NULL;
	struct vma_outcome outcome;
	struct member *mb;
	uint32_t poll = 1;
	bool batch = false; /* FETCH_AHEAD: run_next_ahead()'s */
	int rc;

	for (;;) {
		/*
		 * Every POLL_RECORDS records (and before the first), SIGINT/SIGTERM:
		 * the input ends here, and what was read is reported.
		 */
		if (__builtin_expect(--poll == 0, 0)) {
			poll = POLL_RECORDS;
			/* The stop below ends the run: a batch's stamps are set first. */
			if (fetch == FETCH_AHEAD)
				ahead_batch_end(p->ahead, &batch);
			if (p->opts.input.stop && *p->opts.input.stop) {
				*interrupted = true;
				if (!drain)
					return VMA_OK;
			}
			/* A part of a split run: its seam, or the other part's end. */
			if (p->split && rec) {
				rc = vma_split_poll(p, rec);
				if (rc)
					return rc == VMA_END ? VMA_OK : rc;
			}
			/* Few records go ahead: the rest in time order, without the tests. */
			if (fetch == FETCH_AHEAD && ahead_gives_up(p->ahead, p->nr_records))
				return vma_pipeline_run_in_order_from(p, interrupted, stream, run);
		}
		/*
		 * @lent: the record alone, where the reader thread left it (bare
		 * runs), walked here while the batch's items are records (a
		 * call per record took 38 instructions, the walk 21); else the
		 * run's next record, or the merge's.
		 */
		if (lent) {
			rc = vma_feed_lend_next(&lend, &rec) ? VMA_OK
							     : vma_feed_lend(feed, &lend, &rec);
		} else if (fetch == FETCH_PLAIN) {
			rc = vma_feed_next(feed, &stream);
		} else if (fetch == FETCH_AHEAD && run) {
			rc = run_next_ahead(p, feed, &run, &stream, &batch);
			if (rc == AHEAD_TAKEN) {
				p->nr_records++;
				if (__builtin_expect(poll == POLL_RECORDS, 0) && p->opts.progress)
					note_progress(p, stream->input, stream->rec.offset);
				continue;
			}
		} else if (run) {
			rc = run_next(feed, &run, &stream);
		} else {
			rc = vma_feed_next_run(feed, &stream, &run);
		}
		if (rc == VMA_END)
			return fetch == FETCH_AHEAD ? vma_ahead_settle(p->ahead, NULL) : VMA_OK;
		if (rc < 0)
			return rc;
		if (!lent)
			rec = &stream->rec;
		p->nr_records++; /* always: a run with none is reported */
		if (__builtin_expect(poll == POLL_RECORDS, 0) && p->opts.progress)
			note_progress(p, lent ? only->in : stream->input, rec->offset);
		if (windowed && outside_window(p, rec->tsc))
			continue;
		if (bare) {
			if (fetch == FETCH_AHEAD) {
				rc = ahead_settle(p->ahead, rec);
				if (rc)
					return rc;
			}
			rc = vma_dispatch(bare_machine, rec, &outcome);
			if (rc < 0)
				return rc;
			continue;
		}
		if (!only) {
			mb = member_of(p, stream->input);
			speak_for(p, mb);
		} else {
			mb = only;
		}
		if (around && mb->machine) {
			rc = around(arg, mb->machine, stream, vma_dispatch);
			if (rc < 0)
				return rc;
			continue;
		}
		if (before) {
			rc = before(arg, mb->machine, stream);
			if (rc < 0)
				return rc;
		}
		if (mb->machine) {
			rc = vma_dispatch(mb->machine, &stream->rec, &outcome);
			if (rc < 0)
				return rc;
		}
		if (after) {
			rc = after(arg, mb->machine, stream, mb->machine ? &outcome : NULL);
			if (rc < 0)
				return rc;
		}
	}
}

static inline __attribute__((always_inline)) int run_loop(struct vma_pipeline *p,
							   const struct vma_pipeline_hooks *h,
							   const bool windowed, const bool bare,
							   const enum fetch fetch, bool *interrupted)
{
	return run_loop_from(p, h, windowed, bare, fetch, interrupted, NULL, NULL);
}

/* -v: which of the two threads bounded the run, and by how much. */
static void report_threads(struct vma_pipeline *p, const struct vma_input *in)
{
	struct vma_feed_times t;

	if (!vma_feed_times(p->feed, &t))
		return;
	vma_diag_info(p->diag, "%s: the reader thread ran %.3f s (CPU), waiting %.3f s of it or "
		      "asleep for the analysis; the analysis ran %.3f s, waiting %.3f s for "
		      "records", in->path, (double)t.reader_cpu_ns / 1e9,
		      (double)t.reader_wait_ns / 1e9, (double)t.caller_cpu_ns / 1e9,
		      (double)t.caller_wait_ns / 1e9);
}

/*
 * options.threads 0: a reader thread where it pays (VMA_THREADS_AUTO_BYTES,
 * VMA_THREADS_AUTO_KVM_BYTES), with @cpus to run on.
 */
static unsigned int auto_threads(const struct vma_input *in, unsigned int cpus)
{
	uint64_t least = in->family == VMA_FAMILY_KVM ? VMA_THREADS_AUTO_KVM_BYTES
						       : VMA_THREADS_AUTO_BYTES;

	if (cpus < 2)
		return 1;
	return in->data_bytes != UINT64_MAX && in->data_bytes >= least ? 2 : 1;
}

/*
 * A waiting side of the feed spins when each run at once has two cpus: with
 * fewer, the spinning thread holds a cpu that another run's thread needs
 * (-j 2 --threads 2 on two cpus: 1.98 s against 1.37 s, bench/README).
 */
static bool spin_pays(const struct vma_pipeline_options *o, unsigned int cpus)
{
	unsigned int runs = o->runs_at_once ? o->runs_at_once : 1;

	return cpus / 2 >= runs;
}

static int run_end(struct vma_pipeline *p, struct vma_input *in, int status, bool interrupted);

int vma_pipeline_run(struct vma_pipeline *p, const struct vma_pipeline_hooks *hooks)
{
	static const struct vma_pipeline_hooks none;
	const struct vma_pipeline_hooks *h = hooks ? hooks : &none;
	struct vma_input *in = p->members[0].in;
	unsigned int threads = p->opts.threads, cpus = vma_feed_cpus();
	bool interrupted = false, bare, spin, runs;
	int status;

	if (threads == 0)
		threads = auto_threads(in, cpus);
	/*
	 * One thread for a pipe: its reader waits for data and has the caller
	 * flush meanwhile (options.idle), and a record must not wait in a
	 * batch for a thousand others.  One thread when the hooks describe
	 * records from the reader's buffers, or when the caller wraps the
	 * streams (its wrapper runs inside next(), on the reader's thread).
	 * A reader thread that cannot start leaves a working one-thread feed.
	 */
	if (in->streaming || (h->describe && in->ops->describe) || p->opts.wrap_stream ||
	    p->nr_members > 1)
		threads = 1; /* linked inputs too: new streams must reach their own machine */
	/* Skew correction moves records not merged yet: none may be merged ahead. */
	if (p->opts.tsc_skew_correct)
		threads = 1;
	bare = !h->before && !h->after && !h->around && p->nr_members == 1 && p->members->machine;
	if (threads > 1 && bare && vma_split_wanted(p)) {
		(void)vma_feed_start(p->feed, 1, false);
		status = vma_split_run(p, &interrupted);
		return run_end(p, in, status, interrupted);
	}
	spin = threads > 1 && spin_pays(&p->opts, cpus);
	(void)vma_feed_start(p->feed, threads, spin);
	if (vma_feed_threads(p->feed) < 2) {
		vma_diag_info(p->diag, "%s: read and analysed on one thread", in->path);
	} else {
		vma_diag_info(p->diag, "%s: read and merged on a second thread%s", in->path,
			      spin ? "" : ", which sleeps when it waits");
	}
	/* Xen's streams go on in runs the loop reads itself (merge.h); KVM's do not. */
	runs = vma_feed_runs(p->feed);
	if (p->opts.time_set)
		status = runs ? run_loop(p, h, true, false, FETCH_RUNS, &interrupted)
			      : run_loop(p, h, true, false, FETCH_PLAIN, &interrupted);
	else if (bare && vma_feed_threads(p->feed) > 1)
		status = run_loop(p, h, false, true, FETCH_LENT, &interrupted);
	else if (bare && runs && vma_ahead_wanted(p))
		status = vma_ahead_run(p, &interrupted);
	else if (bare)
		status = runs ? run_loop(p, h, false, true, FETCH_RUNS, &interrupted)
			      : run_loop(p, h, false, true, FETCH_PLAIN, &interrupted);
	else
		status = runs ? run_loop(p, h, false, false, FETCH_RUNS, &interrupted)
			      : run_loop(p, h, false, false, FETCH_PLAIN, &interrupted);
	return run_end(p, in, status, interrupted);
}

int vma_pipeline_run_ahead_loop(struct vma_pipeline *p, bool *interrupted)
{
	static const struct vma_pipeline_hooks none;

	return run_loop(p, &none, false, true, FETCH_AHEAD, interrupted);
}

int vma_pipeline_run_in_order_from(struct vma_pipeline *p, bool *interrupted,
				   struct vma_stream *stream, struct vma_merge_run *run)
{
	static const struct vma_pipeline_hooks none;

	return run_loop_from(p, &none, false, true, FETCH_RUNS, interrupted, stream, run);
}

int vma_pipeline_run_bare(struct vma_pipeline *p, bool *interrupted)
{
	static const struct vma_pipeline_hooks none;

	return vma_feed_runs(p->feed) ? run_loop(p, &none, false, true, FETCH_RUNS, interrupted)
				       : run_loop(p, &none, false, true, FETCH_PLAIN, interrupted);
}

/* What vma_pipeline_run() does once the records are taken. */
static int run_end(struct vma_pipeline *p, struct vma_input *in, int status, bool interrupted)
{
	uint32_t i;

	vma_feed_stop(p->feed);
	report_threads(p, in);
	if (interrupted)
		in->interrupted = true; /* the reader thread, if any, is done with it */
	/*
	 * Read to its end: all of it.  (The counter moves by the records it
	 * looks at, one in POLL_RECORDS, which the order of the loop's paths
	 * picks.)
	 */
	if (status == VMA_OK && !in->interrupted && p->opts.progress && in->size)
		note_progress(p, in, in->size);
	if (in->interrupted) {
		vma_diag_report(p->diag, VMA_LVL_WARN, in->path, UINT64_MAX,
				"Interrupted: the report covers the records read so far");
	}
	if (vma_feed_late_count(p->feed)) {
		vma_diag_report(p->diag, VMA_LVL_WARN, in->path, UINT64_MAX,
				"%llu records of pcpus that started late (or were paused by the "
				"reorder stage) were older than records already processed; they "
				"were processed out of time order",
				(unsigned long long)vma_feed_late_count(p->feed));
	}
	/* Headers with no record after them: nothing in it, as for an empty file (status 2). */
	if (p->nr_records == 0 && status == VMA_OK && !in->interrupted &&
	    !vma_diag_stopped(p->diag)) {
		if (vma_diag_worst(p->diag) >= VMA_LVL_RECORD) {
			vma_diag_report(p->diag, VMA_LVL_INPUT, in->path, UINT64_MAX,
					"No trace record could be read: the damage reported "
					"above left nothing to report");
		} else {
			vma_diag_report(p->diag, VMA_LVL_INPUT, in->path, UINT64_MAX,
					"Holds no trace records, only headers or empty pages: "
					"nothing to report (was tracing on while it was "
					"recorded?)");
		}
		status = VMA_ERR_FORMAT;
	}
	for (i = 0; i < p->nr_members; i++) {
		speak_for(p, &p->members[i]);
		if (p->members[i].machine)
			vma_machine_finish(p->members[i].machine);
	}
	speak_for(p, NULL); /* what follows is about no one file */
	return status;
}

void vma_pipeline_close(struct vma_pipeline *p)
{
	uint32_t i;

	if (!p)
		return;
	vma_feed_destroy(p->feed); /* first: its reader thread may still use the input */
	for (i = 0; i < p->nr_members; i++) {
		struct member *mb = &p->members[i];

		vma_input_close(mb->in);
		vma_machine_destroy(mb->machine);
		free(mb->early);
		free(mb->host_vcpu);
	}
	free(p->members);
	free(p);
}

struct vma_machine *vma_pipeline_machine(const struct vma_pipeline *p)
{
	return p->members[0].machine;
}

const struct vma_input *vma_pipeline_input(const struct vma_pipeline *p)
{
	return p->members[0].in;
}

uint64_t vma_pipeline_hz(const struct vma_pipeline *p)
{
	return p->members[0].hz;
}

uint64_t vma_pipeline_first_tsc(const struct vma_pipeline *p)
{
	return p->first_tsc;
}

uint32_t vma_pipeline_streams(const struct vma_pipeline *p)
{
	return p->nr_streams;
}

uint32_t vma_pipeline_nr_inputs(const struct vma_pipeline *p)
{
	return p->nr_members;
}

uint32_t vma_pipeline_input_index(const struct vma_pipeline *p, const struct vma_input *in)
{
	uint32_t i;

	for (i = 0; i < p->nr_members; i++) {
		if (p->members[i].in == in)
			return i;
	}
	return 0;
}

const struct vma_input *vma_pipeline_input_at(const struct vma_pipeline *p, uint32_t i)
{
	return i < p->nr_members ? p->members[i].in : NULL;
}

struct vma_machine *vma_pipeline_machine_at(const struct vma_pipeline *p, uint32_t i)
{
	return i < p->nr_members ? p->members[i].machine : NULL;
}

const struct vma_vcpu *vma_pipeline_host_vcpu(const struct vma_pipeline *p, uint32_t i,
					      uint32_t cpu)
{
	if (i == 0 || i >= p->nr_members || cpu >= p->members[i].nr_host_vcpu)
		return NULL;
	return p->members[i].host_vcpu[cpu];
}
