/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `vmalyze record` end to end against simulated trace buffers (tbuf-sim.h)
 * that replay a real trace file window by window while the capture loop
 * waits: the file written holds the same records in the same order as the
 * trace replayed; --live prints what `vmalyze --live` prints on that
 * trace; lost records give exit status 3; -T and COMMAND's exit stop it;
 * tracing is disabled and every page unmapped at the end.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli/options.h"
#include "cli/record.h"
#include "cli/run.h"
#include "tbuf-sim.h"
#include "vmalyze/diag.h"
#include "vmalyze/grow.h"
#include "vmalyze/input.h"
#include "vmalyze/merge.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

#ifndef TRACES_DIR
#error TRACES_DIR must name the traces folder of the project
#endif
#define SOURCE TRACES_DIR "/gen-vmx-4cpu.xentrace"

/* argv strings: getopt's prototype wants them writable, the literals are not. */
#define ARG(text) ((char *)(text))

static struct sim *current;
static volatile sig_atomic_t stop_flag;

struct replay {
	unsigned char *data;
	size_t len, off;
	bool lose;        /* write a lost-record marker at the first wait */
	bool stale;       /* the buffers hold an earlier session's tail when enabled */
};

static int open_sim(struct vma_diag *diag, const struct vma_tbuf_ops **ops, void **hv)
{
	*ops = &sim_ops;
	*hv = current;
	return VMA_OK;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p;
	long n;

	cr_assert_not_null(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	p = malloc((size_t)n);
	cr_assert_not_null(p);
	cr_assert_eq(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Xen at work: a few of the source's windows go into their pcpus' buffers. */
static void replay_some(struct sim *s)
{
	struct replay *r = s->arg;
	int windows = 3;

	if (r->lose) {
		uint32_t lost[7] = { TRC_LOST_RECORDS | (4u << 28) | (1u << 31), 1, 0, 5, 0, 1, 0 };

		produce(s, 0, lost, sizeof(lost));
		r->lose = false;
	}
	while (windows-- > 0 && r->off + 12 <= r->len) {
		uint32_t cpu = le32(r->data + r->off + 4), size = le32(r->data + r->off + 8);

		cr_assert_lt(cpu, s->nr_cpus);
		if (sim_room(s, cpu) < size)
			return; /* the consumer has not caught up: next time */
		produce(s, cpu, r->data + r->off + 12, size);
		r->off += 12 + size;
	}
	if (r->off + 12 > r->len)
		stop_flag = 1; /* all replayed: as if the user pressed Ctrl-C */
}

/* An earlier session's tail: it had lost records. */
static void leave_tail(struct sim *s)
{
	uint32_t lost[7] = { TRC_LOST_RECORDS | (4u << 28) | (1u << 31), 1, 0, 7, 0, 1, 0 };

	produce(s, 1, lost, sizeof(lost));
	produce_rec(s, 1, TRC_SCHED_WAKE, 5, 1);
}

struct seq {
	uint64_t *key;
	size_t n, cap;
};

static int add(void *m, struct vma_stream *s)
{
	return vma_merge_add(m, s);
}

/* Every record of @path: (tsc, pcpu, event, first word) folded into one key each. */
static void records_of(const char *path, struct seq *q)
{
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	struct vma_merge *m = vma_merge_create();
	struct vma_input_options o = { 0 };
	struct vma_input *in;
	struct vma_stream *st;

	memset(q, 0, sizeof(*q));
	cr_assert_eq(vma_input_open(path, &o, diag, add, m, &in), VMA_OK, "%s", path);
	while (vma_merge_next(m, &st) == VMA_OK) {
		cr_assert_eq(vma_grow(q->key, &q->cap, q->n + 1, 4096), VMA_OK);
		q->key[q->n++] = st->rec.tsc * 1000003u ^ (uint64_t)st->rec.pcpu << 56 ^
				 (uint64_t)st->rec.event << 20 ^ (st->rec.nr_data ? st->rec.data[0] : 0);
	}
	vma_input_close(in);
	vma_merge_destroy(m);
	vma_diag_destroy(diag);
}

static int run_record(char **argv, int argc, struct replay *r)
{
	current = sim_new(4);
	current->arg = r;
	current->on_wait = r ? replay_some : NULL;
	current->on_enable = r && r->stale ? leave_tail : NULL;
	stop_flag = 0;
	return vma_record_main(argc, argv, &stop_flag, open_sim);
}

static void check_cleaned_up(void)
{
	cr_assert_eq(current->disables, 1, "tracing disabled once");
	cr_assert_eq(current->maps, current->unmaps, "every page unmapped");
	cr_assert_eq(current->closes, 1);
	sim_free(current);
}

Test(record, the_file_holds_the_records_of_the_trace_replayed)
{
	char out[] = "/tmp/vmalyze-record-XXXXXX";
	struct replay r = { 0 };
	struct seq want, got;
	char *argv[] = { ARG("record"), ARG("-o"), out, NULL };
	int fd = mkstemp(out);

	cr_assert_geq(fd, 0);
	close(fd);
	r.data = slurp(SOURCE, &r.len);
	cr_assert_eq(run_record(argv, 3, &r), VMA_EXIT_OK);
	cr_assert_gt(current->waits, 3);
	check_cleaned_up();
	records_of(SOURCE, &want);
	records_of(out, &got);
	cr_assert_eq(got.n, want.n);
	cr_assert(!memcmp(got.key, want.key, want.n * sizeof(*want.key)));
	unlink(out);
	free(want.key);
	free(got.key);
	free(r.data);
}

Test(record, lost_records_give_exit_status_3)
{
	char out[] = "/tmp/vmalyze-record-XXXXXX";
	struct replay r = { .lose = true };
	char *argv[] = { ARG("record"), ARG("-q"), ARG("-o"), out, NULL };
	int fd = mkstemp(out);

	cr_assert_geq(fd, 0);
	close(fd);
	r.data = slurp(SOURCE, &r.len);
	cr_assert_eq(run_record(argv, 4, &r), VMA_EXIT_TOLERATED);
	check_cleaned_up();
	unlink(out);
	free(r.data);
}

/* -D: the tail left in the buffers is not captured, nor its lost records counted. */
Test(record, discard_buffers_leaves_out_the_earlier_sessions_tail)
{
	char out[] = "/tmp/vmalyze-record-XXXXXX";
	struct replay r = { .stale = true };
	struct seq want, got;
	char *keep[] = { ARG("record"), ARG("-q"), ARG("-o"), out, NULL };
	char *discard[] = { ARG("record"), ARG("-q"), ARG("-D"), ARG("-o"), out, NULL };
	int fd = mkstemp(out);

	cr_assert_geq(fd, 0);
	close(fd);
	r.data = slurp(SOURCE, &r.len);
	cr_assert_eq(run_record(keep, 4, &r), VMA_EXIT_TOLERATED, "the tail's lost records");
	check_cleaned_up();
	r.off = 0;
	cr_assert_eq(run_record(discard, 5, &r), VMA_EXIT_OK);
	check_cleaned_up();
	records_of(SOURCE, &want);
	records_of(out, &got);
	cr_assert_eq(got.n, want.n, "only the replayed records");
	cr_assert(!memcmp(got.key, want.key, want.n * sizeof(*want.key)));
	unlink(out);
	free(want.key);
	free(got.key);
	free(r.data);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

Test(record, stops_after_T_and_when_the_command_exits, .timeout = 30)
{
	char *timed[] = { ARG("record"), ARG("-T"), ARG("0.3"), ARG("-o"), ARG("/dev/null"), NULL };
	char *command[] = { ARG("record"), ARG("-T"), ARG("20"), ARG("-o"), ARG("/dev/null"),
			    ARG("--"), ARG("true"), NULL };
	double t0 = now_s();

	cr_assert_eq(run_record(timed, 5, NULL), VMA_EXIT_OK);
	cr_assert_geq(now_s() - t0, 0.3);
	cr_assert_lt(now_s() - t0, 5);
	check_cleaned_up();
	t0 = now_s();
	cr_assert_eq(run_record(command, 7, NULL), VMA_EXIT_OK);
	cr_assert_lt(now_s() - t0, 10, "the command's exit ends the capture");
	check_cleaned_up();
}

Test(record, live_shows_what_live_shows_on_the_file, .init = cr_redirect_stdout)
{
	struct vma_options lo = { .mode = VMA_MODE_LIVE, .live = true, .cpu_hz = 2400000000ull,
				  .tolerance = VMA_DEFAULT_TOLERANCE,
				  .verbosity = VMA_VERB_QUIET };
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	char *argv[] = { ARG("record"), ARG("-q"), ARG("--live"), NULL };
	struct replay r = { 0 };
	char *want = NULL;
	size_t want_len = 0;
	FILE *f = open_memstream(&want, &want_len);

	cr_assert_eq(vma_run_file(&lo, SOURCE, diag, f), VMA_OK);
	fclose(f);
	vma_diag_destroy(diag);
	cr_assert_gt(want_len, 100);
	r.data = slurp(SOURCE, &r.len);
	cr_assert_eq(run_record(argv, 3, &r), VMA_EXIT_OK);
	check_cleaned_up();
	fflush(stdout);
	cr_assert_stdout_eq_str(want);
	free(want);
	free(r.data);
}

/*
 * The live analysis cannot start (here: no descriptor left for its pipe):
 * the message names the pipe and the reason, the status is a system
 * failure (5), and the buffers are cleaned up all the same.
 */
Test(record, a_live_pipe_that_cannot_be_made_is_reported_with_its_reason,
     .init = cr_redirect_stderr)
{
	char *argv[] = { ARG("record"), ARG("--live"), ARG("-T"), ARG("5"), NULL };
	struct rlimit few = { 3, 3 };
	char err[512] = "";
	size_t n;

	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &few), 0);
	cr_assert_eq(run_record(argv, 4, NULL), VMA_EXIT_SYSTEM);
	check_cleaned_up();
	fflush(stderr);
	n = fread(err, 1, sizeof(err) - 1, cr_get_redirected_stderr());
	err[n] = '\0';
	cr_assert(strstr(err, "the live analysis's pipe") && strstr(err, strerror(EMFILE)), "%s",
		  err);
	cr_assert_null(strstr(err, "skipped damage"), "%s", err);
}
