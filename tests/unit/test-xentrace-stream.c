/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The xentrace reader on a pipe (xentrace-stream.c): the same records in
 * the same order as from the file; the reorder cap, which pauses a pcpu
 * and reports the lateness of its records when they come; data that is
 * not a trace refused from its first bytes while the writer goes on; damage
 * on a pipe; a stop request ending a pipe that stays open; a trace.dat on
 * a pipe copied to a temporary file within its cap.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmalyze/diag.h"
#include "vmalyze/grow.h"
#include "vmalyze/input.h"
#include "vmalyze/merge.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "xtwriter.h"

struct rec {
	uint64_t tsc, offset;
	uint32_t event, pcpu, data0;
	uint16_t flags;
};

struct seen {
	struct rec *r;
	size_t n, cap;
	int status, open_status;
	uint64_t late;
	bool interrupted;
	enum vma_level worst;
};

static bool same_rec(const struct rec *a, const struct rec *b)
{
	return a->tsc == b->tsc && a->offset == b->offset && a->event == b->event &&
	       a->pcpu == b->pcpu && a->data0 == b->data0 && a->flags == b->flags;
}

static int add_stream(void *arg, struct vma_stream *s)
{
	return vma_merge_add(arg, s);
}

/* Read @name through the reader and the merge. */
static void read_all(const char *name, struct seen *seen, int tolerance,
		     struct vma_input_options *opts)
{
	struct vma_diag *diag = vma_diag_create(tolerance, VMA_VERB_QUIET);
	struct vma_merge *m = vma_merge_create();
	struct vma_input *in = NULL;
	struct vma_stream *s;
	int rc;

	memset(seen, 0, sizeof(*seen));
	seen->open_status = vma_input_open(name, opts, diag, add_stream, m, &in);
	if (seen->open_status == VMA_OK) {
		while ((rc = vma_merge_next(m, &s)) == VMA_OK) {
			cr_assert_eq(vma_grow(seen->r, &seen->cap, seen->n + 1, 1024), VMA_OK);
			seen->r[seen->n++] = (struct rec){
				s->rec.tsc, s->rec.offset, s->rec.event, s->rec.pcpu,
				s->rec.nr_data ? s->rec.data[0] : 0, s->rec.flags,
			};
			while (vma_merge_pop_ended(m))
				;
		}
		seen->status = rc;
		seen->late = vma_merge_late_count(m);
		seen->interrupted = in->interrupted;
	}
	seen->worst = vma_diag_worst(diag);
	vma_input_close(in);
	vma_merge_destroy(m);
	vma_diag_destroy(diag);
}

static char file_path[64];

static void write_file(const void *bytes, size_t len)
{
	FILE *f;

	strcpy(file_path, "/tmp/vmalyze-test-XXXXXX");
	cr_assert_geq(mkstemp(file_path), 0);
	f = fopen(file_path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(bytes, 1, len, f), len);
	fclose(f);
}

/*
 * A pipe whose writer (a child) writes @len bytes of @bytes in pieces of
 * @piece bytes, then, when @linger, keeps it open for ten seconds.
 * @endless: writes zeros until the reader goes away.  Its name is written
 * to @name (/dev/fd/N).
 */
static pid_t pipe_from(const void *bytes, size_t len, size_t piece, bool linger, bool endless,
		       char *name, size_t name_len)
{
	int fds[2];
	pid_t pid;

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		static const unsigned char zeros[4096];
		const unsigned char *p = bytes;

		close(fds[0]);
		signal(SIGPIPE, SIG_DFL);
		while (endless) {
			if (write(fds[1], zeros, sizeof(zeros)) < 0)
				_exit(0);
		}
		while (len) {
			size_t n = len < piece ? len : piece;
			ssize_t w = write(fds[1], p, n);

			if (w <= 0)
				_exit(1);
			p += w;
			len -= (size_t)w;
		}
		if (linger)
			sleep(10);
		_exit(0);
	}
	close(fds[1]);
	snprintf(name, name_len, "/dev/fd/%d", fds[0]);
	return pid;
}

static void finish_pipe(pid_t pid, const char *name)
{
	close(atoi(name + strlen("/dev/fd/")));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Three pcpus in step, small windows; pcpu 2 joins a third of the way in. */
static size_t mixed_records;

static const unsigned char *mixed_trace(struct vma_xtw **w, size_t *len)
{
	struct vma_xtw_options o = { .window_bytes = 64 };
	uint32_t i, word;

	*w = vma_xtw_new_memory(&o);
	cr_assert_not_null(*w);
	mixed_records = 0;
	for (i = 0; i < 3000; i++) {
		uint32_t cpu = i % 3;

		if (cpu == 2 && i < 1000)
			continue;
		word = i;
		cr_assert_eq(vma_xtw_record(*w, cpu, TRC_SCHED_WAKE, 1000 + 7 * (uint64_t)i, &word,
					    1), 0);
		mixed_records++;
		if (i % 50 == 0) {
			cr_assert_eq(vma_xtw_record_notsc(*w, cpu, TRC_SCHED_SWITCH, &word, 1), 0);
			mixed_records++;
		}
	}
	cr_assert_eq(vma_xtw_finish(*w), 0);
	return vma_xtw_data(*w, len);
}

Test(xentrace_stream, pipe_gives_the_records_of_the_file_in_the_same_order)
{
	struct vma_input_options opts = { 0 };
	struct seen file, piped;
	struct vma_xtw *w;
	char name[32];
	size_t len, i;
	const unsigned char *data = mixed_trace(&w, &len);
	pid_t pid;

	write_file(data, len);
	read_all(file_path, &file, VMA_DEFAULT_TOLERANCE, &opts);
	unlink(file_path);
	pid = pipe_from(data, len, 100, false, false, name, sizeof(name));
	read_all(name, &piped, VMA_DEFAULT_TOLERANCE, &opts);
	finish_pipe(pid, name);

	cr_assert_eq(piped.open_status, VMA_OK);
	cr_assert_eq(piped.status, VMA_END);
	cr_assert_eq(file.n, mixed_records);
	cr_assert_eq(piped.n, file.n);
	for (i = 0; i < file.n; i++)
		cr_assert(same_rec(&file.r[i], &piped.r[i]),
			  "record %zu differs (tsc %lu vs %lu)", i, (unsigned long)file.r[i].tsc,
			  (unsigned long)piped.r[i].tsc);
	cr_assert_eq(piped.late, 0);
	free(file.r);
	free(piped.r);
	vma_xtw_free(w);
}

/* Pcpu 0 stamped far ahead of pcpu 1, their windows alternating. */
static const unsigned char *skewed_trace(struct vma_xtw **w, size_t *len, uint32_t n)
{
	struct vma_xtw_options o = { .window_bytes = 64 };
	uint32_t i;

	*w = vma_xtw_new_memory(&o);
	cr_assert_not_null(*w);
	for (i = 0; i < n; i++) {
		cr_assert_eq(vma_xtw_record(*w, 0, TRC_SCHED_WAKE, 1000000000ull + i, &i, 1), 0);
		cr_assert_eq(vma_xtw_record(*w, 1, TRC_SCHED_WAKE, 1000ull + i, &i, 1), 0);
		if (i % 3 == 2)
			cr_assert_eq(vma_xtw_flush_all(*w), 0);
	}
	cr_assert_eq(vma_xtw_finish(*w), 0);
	return vma_xtw_data(*w, len);
}

Test(xentrace_stream, reorder_cap_pauses_a_pcpu_and_reports_its_late_records)
{
	struct vma_input_options opts = { .reorder_cap = 8192 };
	struct seen piped;
	struct vma_xtw *w;
	char name[32];
	size_t len, i, per_cpu[2] = { 0, 0 }, flagged = 0;
	const unsigned char *data = skewed_trace(&w, &len, 6000);
	pid_t pid = pipe_from(data, len, 4096, false, false, name, sizeof(name));

	read_all(name, &piped, VMA_DEFAULT_TOLERANCE, &opts);
	finish_pipe(pid, name);

	cr_assert_eq(piped.open_status, VMA_OK);
	cr_assert_eq(piped.status, VMA_END);
	/* Every record once, none lost to the cap. */
	cr_assert_eq(piped.n, 12000);
	for (i = 0; i < piped.n; i++) {
		per_cpu[piped.r[i].pcpu]++;
		flagged += !!(piped.r[i].flags & VMA_REC_LATE);
		/* A pcpu's own records keep their order. */
		if (i && piped.r[i].pcpu == 1 && piped.r[i - 1].pcpu == 1)
			cr_assert_gt(piped.r[i].tsc, piped.r[i - 1].tsc);
	}
	cr_assert_eq(per_cpu[0], 6000);
	cr_assert_eq(per_cpu[1], 6000);
	/* Late records are flagged, counted and reported within the tolerance. */
	cr_assert_gt(piped.late, 0);
	cr_assert_eq(flagged, piped.late);
	cr_assert_eq(piped.worst, VMA_LVL_SANITY);
	free(piped.r);

	/* With the default cap the same stream is in exact time order. */
	opts.reorder_cap = 0;
	pid = pipe_from(data, len, 4096, false, false, name, sizeof(name));
	read_all(name, &piped, VMA_DEFAULT_TOLERANCE, &opts);
	finish_pipe(pid, name);
	cr_assert_eq(piped.n, 12000);
	cr_assert_eq(piped.late, 0);
	for (i = 1; i < piped.n; i++)
		cr_assert_geq(piped.r[i].tsc, piped.r[i - 1].tsc);
	free(piped.r);
	vma_xtw_free(w);
}

Test(xentrace_stream, lateness_above_the_tolerance_stops_the_input)
{
	struct vma_input_options opts = { .reorder_cap = 8192 };
	struct seen piped;
	struct vma_xtw *w;
	char name[32];
	size_t len;
	const unsigned char *data = skewed_trace(&w, &len, 6000);
	pid_t pid = pipe_from(data, len, 4096, false, false, name, sizeof(name));

	read_all(name, &piped, VMA_LVL_WARN, &opts);
	finish_pipe(pid, name);
	cr_assert_eq(piped.open_status, VMA_OK);
	cr_assert_eq(piped.status, VMA_ERR_DAMAGED);
	cr_assert_lt(piped.n, 12000);
	free(piped.r);
	vma_xtw_free(w);
}

Test(xentrace_stream, zeros_are_refused_at_once_while_the_writer_goes_on, .timeout = 10)
{
	struct vma_input_options opts = { 0 };
	struct seen piped;
	char name[32];
	pid_t pid = pipe_from(NULL, 0, 0, false, true, name, sizeof(name));

	read_all(name, &piped, VMA_DEFAULT_TOLERANCE, &opts);
	finish_pipe(pid, name);
	cr_assert_eq(piped.open_status, VMA_ERR_FORMAT);
	cr_assert_eq(piped.worst, VMA_LVL_INPUT);
}

Test(xentrace_stream, truncated_window_on_a_pipe)
{
	struct vma_input_options opts = { 0 };
	struct seen piped;
	struct vma_xtw *w;
	char name[32];
	size_t len;
	const unsigned char *data = mixed_trace(&w, &len);
	pid_t pid = pipe_from(data, len - 30, 512, false, false, name, sizeof(name));

	read_all(name, &piped, VMA_DEFAULT_TOLERANCE, &opts);
	finish_pipe(pid, name);
	cr_assert_eq(piped.status, VMA_ERR_DAMAGED);
	cr_assert_eq(piped.worst, VMA_LVL_FILE);
	free(piped.r);

	pid = pipe_from(data, len - 30, 512, false, false, name, sizeof(name));
	read_all(name, &piped, VMA_LVL_FILE, &opts);
	finish_pipe(pid, name);
	cr_assert_eq(piped.status, VMA_END);
	cr_assert_gt(piped.n, mixed_records - 10);
	free(piped.r);
	vma_xtw_free(w);
}

Test(xentrace_stream, garbage_between_windows_is_skipped_when_tolerated)
{
	struct vma_input_options opts = { 0 };
	struct vma_xtw_options o = { .window_bytes = 64 };
	struct vma_xtw *w = vma_xtw_new_memory(&o);
	static const unsigned char junk[40] = { 0xff, 0xff, 0xff, 0xff, 1, 2, 3 };
	struct seen piped;
	const unsigned char *data;
	char name[32];
	uint32_t i;
	size_t len;
	pid_t pid;

	for (i = 0; i < 100; i++) {
		cr_assert_eq(vma_xtw_record(w, i % 2, TRC_SCHED_WAKE, 100 + i, &i, 1), 0);
		if (i == 49) {
			cr_assert_eq(vma_xtw_flush_all(w), 0);
			cr_assert_eq(vma_xtw_raw(w, junk, sizeof(junk)), 0);
		}
	}
	cr_assert_eq(vma_xtw_finish(w), 0);
	data = vma_xtw_data(w, &len);
	pid = pipe_from(data, len, 64, false, false, name, sizeof(name));
	read_all(name, &piped, VMA_LVL_FILE, &opts);
	finish_pipe(pid, name);
	cr_assert_eq(piped.status, VMA_END);
	cr_assert_eq(piped.n, 100);
	cr_assert_eq(piped.worst, VMA_LVL_FILE);
	free(piped.r);
	vma_xtw_free(w);
}

static volatile sig_atomic_t stop_flag;

static void on_alarm(int sig)
{
	stop_flag = sig;
}

Test(xentrace_stream, stop_request_ends_a_pipe_that_stays_open, .timeout = 20)
{
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART: reads return */
	struct vma_input_options opts = { .stop = &stop_flag };
	struct seen piped;
	struct vma_xtw *w;
	char name[32];
	size_t len;
	const unsigned char *data = mixed_trace(&w, &len);
	pid_t pid = pipe_from(data, len, 4096, true, false, name, sizeof(name));

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm(3);
	read_all(name, &piped, VMA_DEFAULT_TOLERANCE, &opts);
	finish_pipe(pid, name);
	cr_assert_eq(piped.open_status, VMA_OK);
	cr_assert(piped.interrupted);
	cr_assert_eq(piped.status, VMA_END);
	/* Everything written before the writer went quiet was read. */
	cr_assert_eq(piped.n, mixed_records);
	free(piped.r);
	vma_xtw_free(w);
}

/* trace.dat is read by offset: on a pipe it is copied, within the cap. */
Test(xentrace_stream, tracedat_on_a_pipe_is_copied_within_the_cap)
{
	struct vma_input_options opts = { 0 };
	struct seen file, piped;
	FILE *f = fopen(TRACES_DIR "/kvm/vmx-v6.dat", "rb");
	unsigned char *data;
	char name[32];
	long len;
	pid_t pid;

	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	data = malloc((size_t)len);
	cr_assert_eq(fread(data, 1, (size_t)len, f), (size_t)len);
	fclose(f);

	read_all(TRACES_DIR "/kvm/vmx-v6.dat", &file, VMA_DEFAULT_TOLERANCE, &opts);
	pid = pipe_from(data, (size_t)len, 4096, false, false, name, sizeof(name));
	read_all(name, &piped, VMA_DEFAULT_TOLERANCE, &opts);
	finish_pipe(pid, name);
	cr_assert_eq(piped.open_status, VMA_OK);
	cr_assert_gt(file.n, 100);
	cr_assert_eq(piped.n, file.n);
	for (size_t i = 0; i < file.n; i++)
		cr_assert(same_rec(&piped.r[i], &file.r[i]), "record %zu differs", i);
	free(piped.r);

	/* A cap below its size: refused, not copied without end. */
	opts.spool_cap = (uint64_t)len / 2;
	pid = pipe_from(data, (size_t)len, 4096, false, false, name, sizeof(name));
	read_all(name, &piped, VMA_DEFAULT_TOLERANCE, &opts);
	finish_pipe(pid, name);
	cr_assert_eq(piped.open_status, VMA_ERR_IO);
	cr_assert_eq(piped.worst, VMA_LVL_INPUT);
	free(file.r);
	free(data);
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A writer that goes quiet: what it wrote is released within about two seconds. */
Test(xentrace_stream, a_quiet_input_does_not_hold_records_back, .timeout = 30)
{
	struct vma_xtw_options o = { .window_bytes = 64 };
	struct vma_xtw *w = vma_xtw_new_memory(&o);
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	struct vma_input_options opts = { 0 };
	struct vma_merge *m = vma_merge_create();
	const unsigned char *data;
	struct vma_input *in;
	struct vma_stream *s;
	size_t first_len, len, n = 0;
	double t0, part_a_done = 0;
	char name[32];
	uint32_t i;
	pid_t pid;
	int fds[2];

	/* Part A: both pcpus, pcpu 1 a little ahead; part B: both again, later. */
	for (i = 0; i < 200; i++) {
		cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_WAKE, 1000 + 10 * i, &i, 1), 0);
		cr_assert_eq(vma_xtw_record(w, 1, TRC_SCHED_WAKE, 1005 + 10 * i, &i, 1), 0);
	}
	cr_assert_eq(vma_xtw_flush_all(w), 0);
	vma_xtw_data(w, &first_len);
	for (i = 200; i < 400; i++) {
		cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_WAKE, 1000 + 10 * i, &i, 1), 0);
		cr_assert_eq(vma_xtw_record(w, 1, TRC_SCHED_WAKE, 1005 + 10 * i, &i, 1), 0);
	}
	cr_assert_eq(vma_xtw_finish(w), 0);
	data = vma_xtw_data(w, &len);

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(fds[0]);
		if (write(fds[1], data, first_len) != (ssize_t)first_len)
			_exit(1);
		sleep(5);
		if (write(fds[1], data + first_len, len - first_len) != (ssize_t)(len - first_len))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	snprintf(name, sizeof(name), "/dev/fd/%d", fds[0]);
	t0 = seconds();
	cr_assert_eq(vma_input_open(name, &opts, diag, add_stream, m, &in), VMA_OK);
	while (vma_merge_next(m, &s) == VMA_OK) {
		if (s->rec.tsc == 1005 + 10 * 199)
			part_a_done = seconds() - t0;
		n++;
	}
	cr_assert_eq(n, 800);
	/* Read-ahead (1 s) and the quiet pause (1 s), not the writer's 5 s. */
	cr_assert_gt(part_a_done, 0);
	cr_assert_lt(part_a_done, 4.0, "part A released after %.1f s", part_a_done);
	vma_input_close(in);
	vma_merge_destroy(m);
	vma_diag_destroy(diag);
	close(fds[0]);
	waitpid(pid, NULL, 0);
	vma_xtw_free(w);
}
