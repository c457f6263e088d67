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

struct vma_pipeline {
	struct vma_pipeline_options opts;
	struct vma_diag *diag;
	struct vma_input *in;
	struct vma_feed *feed;
	struct vma_machine *machine;
	uint64_t hz;
	uint32_t nr_streams;
	uint64_t nr_records, furthest; /* for opts.progress */
	/* --time: the window in ticks from the first record */
	bool have_first;
	uint64_t first_tsc, from, to;
	/* pcpus announced before the machine existed */
	uint32_t *early;
	size_t nr_early, cap_early;
};

/* A new stream, told by the feed on the caller's thread before its records. */
static int on_new_pcpu(void *arg, uint32_t pcpu)
{
	struct vma_pipeline *p = arg;

	p->nr_streams++;
	if (p->machine)
		return vma_machine_add_pcpu(p->machine, pcpu);
	if (!p->opts.no_state) {
		if (vma_grow(p->early, &p->cap_early, p->nr_early + 1, 16))
			return VMA_ERR_NOMEM;
		p->early[p->nr_early++] = pcpu;
	}
	return VMA_OK;
}

/* The input's new_stream: the caller may wrap the stream; the feed takes it. */
static int on_new_stream(void *arg, struct vma_stream *stream)
{
	struct vma_pipeline *p = arg;

	if (p->opts.wrap_stream && !(stream = p->opts.wrap_stream(p->opts.wrap_arg, stream)))
		return VMA_ERR_NOMEM;
	return vma_feed_add(p->feed, stream);
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
static int check_timer_hz(const struct vma_pipeline *p)
{
	const struct vma_kvm_file_info *info = vma_kvm_file_info(p->in);

	if (!p->opts.timer_hz || p->in->family != VMA_FAMILY_KVM)
		return VMA_OK;
	if (p->in->clock == VMA_CLOCK_NS) {
		vma_diag_report(p->diag, VMA_LVL_WARN, p->in->path, UINT64_MAX,
				"--timer-hz has no effect: this trace's time stamps are nanoseconds");
	} else if (info && !info->arm64) {
		vma_diag_report(p->diag, VMA_LVL_INPUT, p->in->path, UINT64_MAX,
				"--timer-hz is the Arm generic timer's rate, but this is an x86"
				" trace, counted in TSC cycles: give --cpu-hz only");
		return VMA_ERR_USAGE;
	}
	return VMA_OK;
}

/* A host recording with guests says which threads are whose vcpus. */
static int map_guest_threads(struct vma_pipeline *p)
{
	const struct vma_kvm_file_info *info = vma_kvm_file_info(p->in);
	uint32_t g, c;
	int rc;

	for (g = 0; info && g < info->nr_guests; g++) {
		rc = vma_machine_name_vm(p->machine, g, info->guests[g].name);
		if (rc)
			return rc;
		for (c = 0; c < info->guests[g].nr_vcpus; c++) {
			if (!info->guests[g].vcpu_pid[c])
				continue;
			rc = vma_machine_map_thread(p->machine, info->guests[g].vcpu_pid[c], g, c);
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

static int make_machine(struct vma_pipeline *p)
{
	struct vma_machine_options mopts = {
		.force_svm = p->opts.force_svm,
		.default_paging_levels = p->opts.default_paging_levels,
	};
	size_t i;
	int rc;

	if (p->in->family == VMA_FAMILY_KVM) {
		mopts.kvm = true;
		mopts.kvm_window = p->hz / 1000; /* vm-trace's 1 ms window */
		mopts.thread_name = thread_name;
		mopts.thread_name_arg = p->in;
	}
	p->machine = vma_machine_create(p->diag, &mopts);
	if (!p->machine)
		return VMA_ERR_NOMEM;
	for (i = 0; i < p->nr_early; i++) {
		rc = vma_machine_add_pcpu(p->machine, p->early[i]);
		if (rc)
			return rc;
	}
	return p->in->family == VMA_FAMILY_KVM ? map_guest_threads(p) : VMA_OK;
}

/* Open @path, or @fd (>= 0, owned) named @name. */
static int open_either(const char *path, int fd, const char *name,
		       const struct vma_pipeline_options *opts, struct vma_diag *diag,
		       struct vma_pipeline **out)
{
	struct vma_pipeline *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p || !(p->feed = vma_feed_create(on_new_pcpu, p))) {
		if (fd >= 0)
			close(fd);
		free(p);
		return VMA_ERR_NOMEM;
	}
	p->opts = *opts;
	p->diag = diag;
	if (fd >= 0)
		rc = vma_input_open_fd(fd, name, &p->opts.input, diag, on_new_stream, p, &p->in);
	else
		rc = vma_input_open(path, &p->opts.input, diag, on_new_stream, p, &p->in);
	if (rc == VMA_OK)
		rc = check_timer_hz(p);
	if (rc == VMA_OK) {
		p->hz = ticks_per_second(&p->opts, p->in);
		if (!p->opts.no_state)
			rc = make_machine(p);
	}
	if (rc) {
		vma_pipeline_close(p);
		return rc;
	}
	*out = p;
	return VMA_OK;
}

int vma_pipeline_open(const char *path, const struct vma_pipeline_options *opts,
		      struct vma_diag *diag, struct vma_pipeline **out)
{
	return open_either(path, -1, NULL, opts, diag, out);
}

int vma_pipeline_open_fd(int fd, const char *name, const struct vma_pipeline_options *opts,
			 struct vma_diag *diag, struct vma_pipeline **out)
{
	return open_either(NULL, fd, name, opts, diag, out);
}

/* Progress: the furthest record offset so far, as a share of the file read. */
static void note_progress(struct vma_pipeline *p, const struct vma_stream *stream)
{
	if (stream->rec.offset > p->furthest && stream->rec.offset <= p->in->size)
		p->furthest = stream->rec.offset;
	atomic_store_explicit(p->opts.progress, p->furthest, memory_order_relaxed);
}

/* --time: is @tsc outside the window?  The window is placed at the first record. */
static bool outside_window(struct vma_pipeline *p, uint64_t tsc)
{
	if (!p->have_first) {
		double hz = (double)p->hz;

		p->have_first = true;
		p->first_tsc = tsc;
		p->from = (uint64_t)(p->opts.time_start * hz);
		p->to = p->opts.time_end > 0 ? (uint64_t)(p->opts.time_end * hz) : UINT64_MAX;
	}
	if (tsc < p->first_tsc)
		return p->from > 0;
	return tsc - p->first_tsc < p->from || tsc - p->first_tsc > p->to;
}

/*
 * The record loop, made twice by the compiler: with --time's window test
 * and without, so that a run without --time pays nothing for it.
 */
static inline __attribute__((always_inline)) int run_loop(struct vma_pipeline *p,
							   const struct vma_pipeline_hooks *h,
							   const bool windowed, bool *interrupted)
{
	struct vma_stream *stream, *ended;
	struct vma_outcome outcome;
	int rc;

	for (;;) {
		/* SIGINT/SIGTERM: the input ends here, and what was read is reported. */
		if (p->opts.input.stop && *p->opts.input.stop) {
			*interrupted = true;
			return VMA_OK;
		}
		rc = vma_feed_next(p->feed, &stream);
		while ((ended = vma_feed_pop_ended(p->feed))) {
			if (p->machine)
				vma_machine_pcpu_end(p->machine, ended->pcpu);
		}
		if (rc == VMA_END)
			return VMA_OK;
		if (rc < 0)
			return rc;
		if (p->opts.progress && (++p->nr_records & 0xffff) == 0)
			note_progress(p, stream);
		if (windowed && outside_window(p, stream->rec.tsc))
			continue;
		if (h->before) {
			rc = h->before(h->arg, p->machine, stream);
			if (rc < 0)
				return rc;
		}
		if (p->machine) {
			rc = vma_dispatch(p->machine, &stream->rec, &outcome);
			if (rc < 0)
				return rc;
		}
		if (h->after) {
			rc = h->after(h->arg, p->machine, stream, p->machine ? &outcome : NULL);
			if (rc < 0)
				return rc;
		}
	}
}

int vma_pipeline_run(struct vma_pipeline *p, const struct vma_pipeline_hooks *hooks)
{
	static const struct vma_pipeline_hooks none;
	const struct vma_pipeline_hooks *h = hooks ? hooks : &none;
	unsigned int threads = p->opts.threads;
	bool interrupted = false;
	int status;

	/*
	 * One thread for a pipe: its reader waits for data and has the caller
	 * flush meanwhile (options.idle), and a record must not wait in a
	 * batch for a thousand others.  One thread when the hooks describe
	 * records from the reader's buffers, or when the caller wraps the
	 * streams (its wrapper runs inside next(), on the reader's thread).
	 * A reader thread that cannot start leaves a working one-thread feed.
	 */
	if (p->in->streaming || (h->describe && p->in->ops->describe) || p->opts.wrap_stream)
		threads = 1;
	(void)vma_feed_start(p->feed, threads);
	status = p->opts.time_set ? run_loop(p, h, true, &interrupted)
				  : run_loop(p, h, false, &interrupted);
	vma_feed_stop(p->feed);
	if (interrupted)
		p->in->interrupted = true; /* the reader thread, if any, is done with it */
	if (p->in->interrupted) {
		vma_diag_report(p->diag, VMA_LVL_WARN, p->in->path, UINT64_MAX,
				"Interrupted: the report covers the records read so far");
	}
	if (vma_feed_late_count(p->feed)) {
		vma_diag_report(p->diag, VMA_LVL_WARN, p->in->path, UINT64_MAX,
				"%llu records of pcpus that started late (or were paused by the "
				"reorder stage) were older than records already processed; they "
				"were processed out of time order",
				(unsigned long long)vma_feed_late_count(p->feed));
	}
	if (p->machine)
		vma_machine_finish(p->machine);
	return status;
}

void vma_pipeline_close(struct vma_pipeline *p)
{
	if (!p)
		return;
	vma_feed_destroy(p->feed); /* first: its reader thread may still use the input */
	vma_input_close(p->in);
	vma_machine_destroy(p->machine);
	free(p->early);
	free(p);
}

struct vma_machine *vma_pipeline_machine(const struct vma_pipeline *p)
{
	return p->machine;
}

const struct vma_input *vma_pipeline_input(const struct vma_pipeline *p)
{
	return p->in;
}

uint64_t vma_pipeline_hz(const struct vma_pipeline *p)
{
	return p->hz;
}

uint64_t vma_pipeline_first_tsc(const struct vma_pipeline *p)
{
	return p->first_tsc;
}

uint32_t vma_pipeline_streams(const struct vma_pipeline *p)
{
	return p->nr_streams;
}
