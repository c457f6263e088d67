/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The batch driver (see batch.h).  The PATHs are first expanded into jobs:
 * a file each, folders walked in byte order of the names.  Worker threads
 * take the jobs in that order; a job is a trace, or a container whose
 * members are analysed one after the other (libarchive reads an archive in
 * order).  Each job's stdout and stderr are held back (memory within a
 * budget shared by the run, then an unlinked temporary file) and written
 * out by the main thread in job order, which also draws the progress
 * line.  So the output does not depend on --jobs.  With one worker the
 * output goes straight out: nothing to reorder; with one trace and no
 * progress line the main thread runs it (drive_here()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/batch.h"
#include "cli/heap.h"
#include "cli/progress.h"
#include "cli/results.h"
#include "cli/run.h"
#include "cli/spill.h"
#include "vmalyze/aggregate.h"
#include "vmalyze/grow.h"
#include "vmalyze/input.h"
#include "vmalyze/source.h"
#include "vmalyze/status.h"

/*
 * Held-back output of all jobs together, in memory; more goes to disk.
 * Small: it comes on top of the traces' memory budgets (a 200-vcpu
 * host's JSON with histograms is 30 MB; 200 x 16 hosts two at once,
 * -j 2, peaked at 68.7 MB with 8 MiB here, 63.0 with 2, 62.1 MiB with
 * 1), and the disk costs little.
 */
#define HOLD_BUDGET (1u << 20)
/*
 * Another trace starts while others run only if the resident size, with
 * the new one counted as taking what the running ones take on average,
 * stays under START_GATE (more with a larger --memory-budget), and once
 * each running one has read a quarter of its file or SETTLE_BYTES:
 * besides its share of the budget a trace holds its own read buffers and
 * per-vcpu state (about 15 MB on a 200 x 16 host), which would otherwise
 * add up with -j past 64 MiB.  The shares, and so the output, still
 * depend only on -j and the inputs.
 */
#define START_GATE ((size_t)48 << 20)
#define SETTLE_BYTES ((uint64_t)16 << 20)
#define GATE_TICK_MS 20
/* How far the workers may run ahead of the output (temporary files open). */
#define AHEAD_PER_WORKER 16
#define PROGRESS_TICK_MS 200
#define PROGRESS_LINE_MS 1000 /* off a terminal: a line a second */

struct job {
	char *path;            /* owned */
	uint64_t size;         /* bytes on disk, for the progress line */
	bool walked;           /* found in a folder: a file that is no trace is skipped */
	int walk_errno;        /* a folder that could not be read */
	struct vma_spill *out, *err;
	bool printed;          /* wrote a trace header */
	unsigned int rendered; /* traces whose summary it rendered */
	int exit_code;
	_Atomic uint64_t progress; /* bytes of the file read so far */
	bool started;          /* under the batch lock */
	bool done;             /* under the batch lock */
};

struct batch {
	const struct vma_options *opts;
	vma_exit_status_fn exit_status_for;
	struct job *jobs;
	size_t nr_jobs, cap_jobs;
	/* more than one input, a folder or an archive: headers, the aggregate */
	bool several;
	bool names_traces;     /* JSON Lines or CSV: the documents name the traces, no headers */
	struct vma_aggregate *agg; /* the batch results; NULL when not wanted */
	pthread_mutex_t agg_lock;
	unsigned int rendered; /* direct: traces rendered so far (the CSV header's place) */
	bool direct;           /* one worker: output straight to stdout */
	bool printed_any;      /* direct: a header is out already */
	struct vma_spill_budget budget;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t next_job, emitted, ahead;
	size_t start_gate;     /* resident bytes (START_GATE), 0: no gate */
	bool stop;             /* the output failed: start no more jobs */
	bool output_failed;
	int output_errno;     /* errno of the first failed write to stdout, once known */
	_Atomic unsigned long traces;
	_Atomic uint64_t bytes_done; /* of finished jobs */
};

static int add_job(struct batch *b, const char *path, bool walked, uint64_t size, int walk_errno)
{
	struct job *j;

	if (vma_grow(b->jobs, &b->cap_jobs, b->nr_jobs + 1, 64))
		return VMA_ERR_NOMEM;
	j = &b->jobs[b->nr_jobs];
	memset(j, 0, sizeof(*j));
	j->path = strdup(path);
	if (!j->path)
		return VMA_ERR_NOMEM;
	j->walked = walked;
	j->size = size;
	j->walk_errno = walk_errno;
	b->nr_jobs++;
	return VMA_OK;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Every regular file under @dir, in byte order of the names, folders
 * entered where they come.  Links to files are followed, links to folders
 * not (no loops); fifos, sockets and devices are left out.
 */
static int walk(struct batch *b, const char *dir)
{
	char **names = NULL;
	size_t nr = 0, cap = 0, i;
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = VMA_OK;

	if (!d)
		return add_job(b, dir, true, 0, errno ? errno : EIO);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (vma_grow(names, &cap, nr + 1, 32) || !(names[nr] = strdup(de->d_name))) {
			rc = VMA_ERR_NOMEM;
			break;
		}
		nr++;
	}
	closedir(d);
	if (names)
		qsort(names, nr, sizeof(*names), by_name);
	for (i = 0; i < nr && rc == VMA_OK; i++) {
		size_t n = strlen(dir) + strlen(names[i]) + 2;
		char *path = malloc(n);
		struct stat st, lst;

		if (!path) {
			rc = VMA_ERR_NOMEM;
			break;
		}
		snprintf(path, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
		if (stat(path, &st) < 0) {
			rc = add_job(b, path, true, 0, 0); /* a dangling link: its run says why */
		} else if (S_ISDIR(st.st_mode)) {
			rc = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) ? VMA_OK
									   : walk(b, path);
		} else if (S_ISREG(st.st_mode)) {
			rc = add_job(b, path, true, (uint64_t)st.st_size, 0);
		}
		free(path);
	}
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int expand_paths(struct batch *b)
{
	int i, rc = VMA_OK;

	for (i = 0; i < b->opts->nr_files && rc == VMA_OK; i++) {
		const char *path = b->opts->files[i];
		struct stat st;

		if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			b->several = true;
			rc = walk(b, path);
		} else {
			rc = add_job(b, path, false,
				     strcmp(path, "-") && stat(path, &st) == 0 &&
				     S_ISREG(st.st_mode)
					     ? (uint64_t)st.st_size
					     : 0,
				     0);
		}
	}
	if (b->opts->nr_files > 1)
		b->several = true;
	return rc;
}

static void header(struct batch *b, struct job *j, FILE *out, const char *name)
{
	bool gap = j->printed || (b->direct && b->printed_any);

	if (b->names_traces)
		return;

	fprintf(out, "%s=== %s ===\n", gap ? "\n" : "", name);
	j->printed = true;
	if (b->direct)
		b->printed_any = true;
}

static int max_code(int a, int b)
{
	return a > b ? a : b;
}

/* One trace through the run driver; its exit status. */
static int run_trace(struct batch *b, struct job *j, struct vma_run_source *src,
		     const char *member, bool with_header, FILE *out, FILE *err)
{
	/* side by side, no trace knows whether it is the first: see drive() */
	struct vma_run_batch rb = {
		.agg = b->agg, .agg_lock = &b->agg_lock, .member = member,
		.several = b->several, .rendered = b->direct ? b->rendered : 1,
	};
	unsigned int before = rb.rendered;
	const char *name = src->fd >= 0 ? src->name : src->path;
	struct vma_diag *diag = vma_diag_create_to(err, (enum vma_level)b->opts->tolerance,
						   b->opts->verbosity);
	int status, code;

	if (!diag) {
		if (src->fd >= 0)
			close(src->fd);
		fprintf(err, "vmalyze: out of memory\n");
		return VMA_EXIT_SYSTEM;
	}
	/*
	 * A file that cannot be opened gets no header: tried first (the run
	 * opens it again; a FIFO or device is left to the run, which reads it
	 * once).
	 */
	if (src->fd < 0 && strcmp(src->path, "-")) {
		struct stat st;
		int fd, failed = 0;

		if (stat(src->path, &st) < 0) {
			failed = errno;
		} else if (S_ISREG(st.st_mode)) {
			fd = open(src->path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				failed = errno;
			else
				close(fd);
		}
		if (failed) {
			vma_diag_report(diag, VMA_LVL_INPUT, src->path, UINT64_MAX,
					"Cannot open: %s", strerror(failed));
			code = b->exit_status_for(VMA_ERR_IO, vma_diag_worst(diag));
			vma_diag_destroy(diag);
			atomic_fetch_add(&b->traces, 1);
			return code;
		}
	}
	if (with_header)
		header(b, j, out, name);
	errno = 0;
	status = vma_run_source(b->opts, src, &rb, diag, out);
	/* the renderers stop at the failed write: errno is still its reason */
	if (status == VMA_ERR_OUTPUT && out == stdout && !b->output_errno)
		b->output_errno = errno;
	j->rendered += rb.rendered - before;
	if (b->direct)
		b->rendered = rb.rendered;
	vma_diag_flush_counts(diag);
	code = b->exit_status_for(status, vma_diag_worst(diag));
	if (status < 0 && status != VMA_ERR_IO && status != VMA_ERR_FORMAT &&
	    status != VMA_ERR_DAMAGED)
		fprintf(err, "vmalyze: %s: %s\n", name, vma_status_str(status));
	vma_diag_destroy(diag);
	atomic_fetch_add(&b->traces, 1);
	return code;
}

/* The batch results, when the run keeps them and has none yet. */
static int ensure_aggregate(struct batch *b)
{
	struct vma_aggregate_options aopts = { b->opts->cpu_hz, b->opts->timer_hz };

	if (b->agg || !vma_results_wanted(b->opts, b->several))
		return VMA_OK;
	b->agg = vma_aggregate_create(&aopts);
	if (!b->agg) {
		fprintf(stderr, "vmalyze: out of memory\n");
		return VMA_ERR_NOMEM;
	}
	return VMA_OK;
}

/* A member that could not be read at all, in the results. */
static int add_failed(struct batch *b, const char *file, const char *member, int status)
{
	int rc;

	if (!b->agg)
		return VMA_OK;
	pthread_mutex_lock(&b->agg_lock);
	rc = vma_aggregate_add(b->agg, NULL, file, member, status);
	pthread_mutex_unlock(&b->agg_lock);
	return rc;
}

static int run_members(struct batch *b, struct job *j, struct vma_source *src,
		       struct vma_diag *diag, FILE *out, FILE *err)
{
	struct vma_member *m = malloc(sizeof(*m));
	int code = VMA_EXIT_OK, rc, fd;
	bool any = false;

	if (!m)
		return b->exit_status_for(VMA_ERR_NOMEM, VMA_LVL_SYSTEM);
	while ((rc = vma_source_next(src, m)) != VMA_END) {
		struct vma_run_source rs = { .fd = -1 };

		any = true;

		if (rc < 0) {
			code = max_code(code, b->exit_status_for(rc, vma_diag_worst(diag)));
			break;
		}
		if (m->status < 0) {
			/* not even its first bytes: a failed trace of the results */
			code = max_code(code, b->exit_status_for(m->status, vma_diag_worst(diag)));
			if (add_failed(b, j->path, m->name, m->status))
				code = VMA_EXIT_SYSTEM;
			continue;
		}
		/* a lone compressed file named on the command line: the input stage says why */
		if (!vma_input_recognise(m->head, m->head_len) && (m->name || j->walked)) {
			vma_diag_info(diag, "%s: skipped: not a trace", m->shown);
			continue;
		}
		/* one archive named alone (direct: one job): several traces after all */
		if (m->name && !b->several) {
			b->several = true;
			if (ensure_aggregate(b))
				code = VMA_EXIT_SYSTEM;
		}
		rc = vma_source_start(src, &fd);
		if (rc < 0) {
			code = max_code(code, b->exit_status_for(rc, vma_diag_worst(diag)));
			break;
		}
		rs.fd = fd;
		rs.name = m->shown;
		rs.path = j->path;
		code = max_code(code, run_trace(b, j, &rs, m->name, b->several || m->name, out,
						err));
		rc = vma_source_finish(src);
		if (rc < 0)
			code = max_code(code, b->exit_status_for(rc, vma_diag_worst(diag)));
	}
	free(m);
	/* nothing in it: said as for an empty file, unless a folder walk found it */
	if (rc == VMA_END && !any && j->walked) {
		vma_diag_info(diag, "%s: skipped: nothing in it", j->path);
	} else if (rc == VMA_END && !any) {
		rc = vma_source_report_empty(src);
		code = max_code(code, b->exit_status_for(rc, vma_diag_worst(diag)));
		if (add_failed(b, j->path, NULL, rc))
			code = VMA_EXIT_SYSTEM;
		atomic_fetch_add(&b->traces, 1);
	}
	return code;
}

enum head_kind {
	HEAD_TRACE,  /* a trace, or unreadable: the input stage says why */
	HEAD_EMPTY,
	HEAD_OTHER,  /* perhaps a container */
};

static enum head_kind head_kind(const char *path)
{
	unsigned char head[VMA_INPUT_PROBE_BYTES];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return HEAD_TRACE;
	got = pread(fd, head, sizeof(head), 0);
	close(fd);
	if (got < 0)
		return HEAD_TRACE;
	if (got == 0)
		return HEAD_EMPTY;
	return vma_input_recognise(head, (size_t)got) ? HEAD_TRACE : HEAD_OTHER;
}

static int run_job(struct batch *b, struct job *j, FILE *out, FILE *err)
{
	struct vma_run_source rs = { .path = j->path, .fd = -1, .progress = &j->progress };
	struct vma_source *src;
	struct vma_diag *diag;
	enum head_kind kind;
	struct stat st;
	int rc, code;

	/* Standard input, fifos and devices are read once, by the input stage. */
	if (!strcmp(j->path, "-") || stat(j->path, &st) < 0 || !S_ISREG(st.st_mode))
		return run_trace(b, j, &rs, NULL, b->several, out, err);
	kind = head_kind(j->path);
	if (kind == HEAD_TRACE || (kind == HEAD_EMPTY && !j->walked))
		return run_trace(b, j, &rs, NULL, b->several, out, err);

	diag = vma_diag_create_to(err, (enum vma_level)b->opts->tolerance, b->opts->verbosity);
	if (!diag) {
		fprintf(err, "vmalyze: out of memory\n");
		return VMA_EXIT_SYSTEM;
	}
	rc = kind == HEAD_EMPTY ? VMA_ERR_FORMAT
				: vma_source_open(j->path, diag, &j->progress, &src);
	if (rc == VMA_ERR_FORMAT && j->walked) {
		vma_diag_info(diag, "%s: skipped: not a trace", j->path);
		code = VMA_EXIT_OK;
	} else if (rc == VMA_ERR_FORMAT) {
		/* named on the command line: the input stage says what it is not */
		code = run_trace(b, j, &rs, NULL, b->several, out, err);
	} else if (rc < 0) {
		code = b->exit_status_for(rc, vma_diag_worst(diag));
	} else {
		code = run_members(b, j, src, diag, out, err);
		vma_source_close(src);
	}
	vma_diag_flush_counts(diag);
	vma_diag_destroy(diag);
	return code;
}

static int run_walk_error(struct batch *b, struct job *j, FILE *err)
{
	struct vma_diag *diag = vma_diag_create_to(err, (enum vma_level)b->opts->tolerance,
						   b->opts->verbosity);
	int code;

	if (!diag)
		return VMA_EXIT_SYSTEM;
	vma_diag_report(diag, VMA_LVL_INPUT, j->path, UINT64_MAX, "Cannot read the folder: %s",
			strerror(j->walk_errno));
	code = b->exit_status_for(VMA_ERR_IO, vma_diag_worst(diag));
	vma_diag_destroy(diag);
	return code;
}

static void do_job(struct batch *b, struct job *j)
{
	FILE *out = stdout, *err = stderr;

	if (!b->direct) {
		j->out = vma_spill_create(&b->budget);
		j->err = vma_spill_create(&b->budget);
		if (!j->out || !j->err) {
			j->exit_code = VMA_EXIT_SYSTEM;
			return;
		}
		out = vma_spill_stream(j->out);
		err = vma_spill_stream(j->err);
		setvbuf(out, NULL, _IOFBF, 1 << 16);
	}
	j->exit_code = j->walk_errno ? run_walk_error(b, j, err) : run_job(b, j, out, err);
	if (!b->direct) {
		/* the main thread copies these out: nothing left in their buffers */
		fflush(out);
		fflush(err);
	}
	if (b->direct && (ferror(stdout) || fflush(stdout) != 0)) {
		if (!b->output_errno)
			b->output_errno = errno;
		b->output_failed = true;
	}
}

/* SIGINT or SIGTERM (signals.h): traces running end early, no new one starts. */
static bool interrupted(const struct batch *b)
{
	return b->opts->stop && *b->opts->stop;
}

/* Bytes resident in memory now (0 when /proc cannot tell). */
static size_t resident_bytes(void)
{
	unsigned long long size, resident;
	FILE *f = fopen("/proc/self/statm", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu", &size, &resident);
	fclose(f);
	return n == 2 ? (size_t)resident * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

/* Under the lock: whether another trace may start now (START_GATE). */
static bool may_start(const struct batch *b)
{
	size_t running = 0, i, rss;

	if (!b->start_gate)
		return true;
	for (i = b->emitted; i < b->next_job; i++) {
		const struct job *j = &b->jobs[i];
		uint64_t settle = j->size / 4 < SETTLE_BYTES ? j->size / 4 : SETTLE_BYTES;

		if (!j->started || j->done)
			continue;
		running++;
		if (atomic_load_explicit(&j->progress, memory_order_relaxed) < settle)
			return false;
	}
	if (!running)
		return true;
	/* the new trace counted as taking what the running ones take on average */
	rss = resident_bytes();
	return rss + rss / running < b->start_gate;
}

static void wait_ms(struct batch *b, long ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += ms * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&b->cond, &b->lock, &until);
}

static void *worker(void *arg)
{
	struct batch *b = arg;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		struct job *j;

		while (!b->stop && !interrupted(b) && b->next_job < b->nr_jobs) {
			if (b->next_job >= b->emitted + b->ahead)
				pthread_cond_wait(&b->cond, &b->lock);
			else if (!may_start(b))
				wait_ms(b, GATE_TICK_MS);
			else
				break;
		}
		if (b->stop || interrupted(b) || b->next_job >= b->nr_jobs)
			break;
		j = &b->jobs[b->next_job++];
		j->started = true;
		pthread_mutex_unlock(&b->lock);
		do_job(b, j);
		/*
		 * The trace's freed memory back to the system when memory
		 * may hold the next one back, not kept in this thread's arena
		 * (below that, faulting the pages in again costs more).
		 */
		if (b->start_gate && resident_bytes() > b->start_gate / 2)
			malloc_trim(0);
		atomic_fetch_add(&b->bytes_done, j->size);
		pthread_mutex_lock(&b->lock);
		j->done = true;
		if (b->output_failed)
			b->stop = true;
		pthread_cond_broadcast(&b->cond);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* The progress line: on a terminal redrawn in place, else a line at a time. */
struct bar {
	bool on, tty, drawn;
	struct timespec start, last;
};

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Called with the batch lock held. */
static void bar_draw(struct batch *b, struct bar *bar, bool last)
{
	struct vma_progress p = { .inputs = b->nr_jobs };
	struct timespec now;
	char line[256];
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!bar->on || (!last && !bar->tty && since(&bar->last, &now) * 1000 < PROGRESS_LINE_MS))
		return;
	bar->last = now;
	p.seconds = since(&bar->start, &now);
	p.traces = atomic_load(&b->traces);
	p.bytes_done = atomic_load(&b->bytes_done);
	for (i = 0; i < b->nr_jobs; i++)
		p.bytes += b->jobs[i].size;
	for (i = b->emitted; i < b->next_job; i++) {
		uint64_t got = atomic_load_explicit(&b->jobs[i].progress, memory_order_relaxed);

		if (b->jobs[i].done)
			continue;
		p.bytes_done += got < b->jobs[i].size ? got : b->jobs[i].size;
	}
	for (i = 0; i < b->nr_jobs; i++)
		p.inputs_done += b->jobs[i].done;
	vma_progress_format(line, sizeof(line), &p);
	if (bar->tty)
		fprintf(stderr, "\r%s\033[K", line);
	else
		fprintf(stderr, "%s\n", line);
	bar->drawn = bar->tty;
	fflush(stderr);
}

static void bar_clear(struct bar *bar)
{
	if (bar->drawn)
		fputs("\r\033[K", stderr);
	bar->drawn = false;
}

/* Job @i's held-back output, after the jobs before it.  False: stdout failed. */
static bool emit(struct batch *b, struct job *j, struct bar *bar)
{
	bool ok = true;

	if (b->direct)
		return !b->output_failed;
	if (j->printed && b->printed_any)
		putchar('\n');
	b->printed_any |= j->printed;
	/* side by side, no trace wrote the CSV header: it goes before the first rows */
	if (j->rendered && !b->rendered && !strcmp(b->opts->format, "csv") &&
	    vma_render_csv_header(stdout))
		ok = false;
	b->rendered += j->rendered;
	if (j->out && vma_spill_copy(j->out, stdout))
		ok = false;
	if (ferror(stdout) || fflush(stdout) != 0)
		ok = false;
	if (j->err && !vma_spill_empty(j->err)) {
		bar_clear(bar);
		vma_spill_copy(j->err, stderr);
		fflush(stderr);
	}
	vma_spill_destroy(j->out);
	vma_spill_destroy(j->err);
	j->out = j->err = NULL;
	return ok;
}

static void wait_tick(struct batch *b)
{
	wait_ms(b, PROGRESS_TICK_MS);
}

/*
 * A worker on a thread of its own: its traces' state on huge pages, as the
 * analysis thread's (main.c).  drive_here() calls worker() without it: its
 * thread is main()'s, whose heap no advice reaches, or the analysis
 * thread, advised already, and the advice costs a read of
 * /proc/self/maps.
 */
static void *worker_thread(void *arg)
{
	vma_heap_advise_arena();
	return worker(arg);
}

/*
 * One trace and no progress line: the main thread would only wait, so it
 * runs the job itself.  A thread costs more than it looks on a small
 * trace (its creation, its malloc arena, the waits): 0.4-0.9 ms a run,
 * 2-9% of the CPU time of the captures in ../shared/traces (bench/README,
 * round twenty-three).
 */
static int drive_here(struct batch *b, struct bar *bar)
{
	struct job *j = &b->jobs[0];
	int exit_status = VMA_EXIT_OK;

	worker(b);
	if (!j->done)
		return exit_status; /* interrupted before it started */
	if (!emit(b, j, bar)) {
		if (!b->output_errno)
			b->output_errno = errno;
		b->output_failed = true;
		exit_status = VMA_EXIT_SYSTEM;
	}
	return max_code(exit_status, j->exit_code);
}

static int drive(struct batch *b, size_t nr_workers, pthread_t *threads, struct bar *bar)
{
	int exit_status = VMA_EXIT_OK;
	sigset_t stop_set, old_set;
	size_t i, started = 0;

	if (b->nr_jobs == 1 && !bar->on)
		return drive_here(b, bar);
	for (i = 0; i < nr_workers; i++) {
		if (pthread_create(&threads[i], NULL, worker_thread, b) != 0)
			break;
		started++;
	}
	if (!started) {
		fprintf(stderr, "vmalyze: cannot start a thread\n");
		return VMA_EXIT_SYSTEM;
	}
	/* SIGINT and SIGTERM go to a worker: one blocked in read() must see them */
	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGINT);
	sigaddset(&stop_set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_set, &old_set);
	pthread_mutex_lock(&b->lock);
	for (i = 0; i < b->nr_jobs && !b->stop; i++) {
		struct job *j = &b->jobs[i];

		while (!j->done && !(i >= b->next_job && interrupted(b))) {
			bar_draw(b, bar, false);
			wait_tick(b);
		}
		if (!j->done)
			break; /* interrupted before it started */
		pthread_mutex_unlock(&b->lock);
		if (!emit(b, j, bar)) {
			if (!b->output_errno)
				b->output_errno = errno;
			b->output_failed = true;
			exit_status = VMA_EXIT_SYSTEM;
		}
		exit_status = max_code(exit_status, j->exit_code);
		pthread_mutex_lock(&b->lock);
		b->emitted++;
		if (b->output_failed)
			b->stop = true;
		pthread_cond_broadcast(&b->cond);
	}
	bar_draw(b, bar, true);
	pthread_mutex_unlock(&b->lock);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	pthread_sigmask(SIG_SETMASK, &old_set, NULL);
	bar_clear(bar);
	return exit_status;
}

int vma_stdout_failed(int saved)
{
	clearerr(stdout);
	errno = 0;
	if (fflush(stdout) != 0 && errno)
		saved = errno;
	fprintf(stderr, "vmalyze: cannot write to standard output: %s\n",
		saved ? strerror(saved) : "write error");
	return VMA_EXIT_SYSTEM;
}

int vma_batch_run(const struct vma_options *opts, vma_exit_status_fn exit_status_for)
{
	struct vma_options shared = *opts;
	struct batch b = { .opts = &shared, .exit_status_for = exit_status_for };
	struct bar bar = { 0 };
	pthread_t *threads;
	size_t nr_workers, i;
	int exit_status;

	b.budget.cap = HOLD_BUDGET;
	if (expand_paths(&b)) {
		fprintf(stderr, "vmalyze: out of memory\n");
		exit_status = VMA_EXIT_SYSTEM;
		goto out;
	}
	nr_workers = opts->jobs < b.nr_jobs ? opts->jobs : b.nr_jobs;
	/* --live draws as records arrive: nothing may be held back */
	if (opts->mode == VMA_MODE_LIVE && nr_workers > 1)
		nr_workers = 1;
	if (nr_workers == 0) {
		fprintf(stderr, "vmalyze: no trace found in %s%s: no files\n", opts->files[0],
			opts->nr_files > 1 ? " and the other inputs" : "");
		exit_status = VMA_EXIT_UNREADABLE;
		goto out;
	}
	b.direct = nr_workers == 1;
	/*
	 * Traces at once keep the cpus busy: by default each is then read on
	 * its analysis's thread, a folder's traces too (options-check.c sees
	 * only the paths given).
	 */
	if (nr_workers > 1 && shared.threads == 0)
		shared.threads = 1;
	/*
	 * The traces that run at once share --memory-budget: a share each,
	 * fixed by the command line (-j and the traces found), not by timing.
	 */
	shared.traces_at_once = (unsigned int)nr_workers;
	if (nr_workers > 1 && opts->memory_budget != SIZE_MAX) {
		size_t budget = opts->memory_budget ? opts->memory_budget :
			VMA_MEMORY_BUDGET_DEFAULT;

		b.start_gate = START_GATE + (budget > VMA_MEMORY_BUDGET_DEFAULT ?
					     budget - VMA_MEMORY_BUDGET_DEFAULT : 0);
	}
	b.names_traces = vma_results_names_traces(opts);
	pthread_mutex_init(&b.agg_lock, NULL);
	if (ensure_aggregate(&b)) {
		exit_status = VMA_EXIT_SYSTEM;
		goto out;
	}
	b.ahead = nr_workers * AHEAD_PER_WORKER;
	/* Not by itself when stdout is the same terminal: it would cut into the report. */
	bar.tty = isatty(STDERR_FILENO);
	bar.on = opts->progress ||
		 (bar.tty && !isatty(STDOUT_FILENO) && opts->verbosity != VMA_VERB_QUIET &&
		  opts->mode != VMA_MODE_LIVE);
	clock_gettime(CLOCK_MONOTONIC, &bar.start);
	bar.last = bar.start;
	threads = calloc(nr_workers, sizeof(*threads));
	if (!threads) {
		fprintf(stderr, "vmalyze: out of memory\n");
		exit_status = VMA_EXIT_SYSTEM;
		goto out;
	}
	pthread_mutex_init(&b.lock, NULL);
	pthread_cond_init(&b.cond, NULL);
	exit_status = drive(&b, nr_workers, threads, &bar);
	if (b.agg && !b.output_failed &&
	    vma_results_finish(opts, b.agg, b.rendered, b.several, stdout, stderr) != VMA_OK)
		exit_status = VMA_EXIT_SYSTEM;
	if (!b.output_failed && (ferror(stdout) || fflush(stdout) != 0)) {
		if (!b.output_errno)
			b.output_errno = errno;
		b.output_failed = true;
	}
	if (!b.output_failed && exit_status == VMA_EXIT_OK && atomic_load(&b.traces) == 0) {
		/* every file was skipped: the user pointed at the wrong place */
		fprintf(stderr, "vmalyze: no trace found in %s%s (-v tells what was skipped)\n",
			opts->files[0], opts->nr_files > 1 ? " and the other inputs" : "");
		exit_status = VMA_EXIT_UNREADABLE;
	}
	if (b.output_failed)
		exit_status = vma_stdout_failed(b.output_errno);
	pthread_cond_destroy(&b.cond);
	pthread_mutex_destroy(&b.lock);
	pthread_mutex_destroy(&b.agg_lock);
	free(threads);
out:
	vma_aggregate_destroy(b.agg);
	for (i = 0; i < b.nr_jobs; i++) {
		vma_spill_destroy(b.jobs[i].out);
		vma_spill_destroy(b.jobs[i].err);
		free(b.jobs[i].path);
	}
	free(b.jobs);
	return exit_status;
}
