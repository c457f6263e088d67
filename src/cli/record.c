/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `vmalyze record`: capture Xen's trace buffers into a xentrace file
 * and/or analyse them live.  The loop wakes on VIRQ_TBUF or every 100 ms,
 * copies what the buffers hold, and stops on -T, when COMMAND exits, or on
 * SIGINT/SIGTERM; the last copy is made after tracing is switched off, and
 * the buffers are always disabled and unmapped on the way out.
 *
 * With --live the records go through a pipe to an analysis thread that
 * reads it as any streaming input (run.c, live mode), so the live view is
 * the same code as `vmalyze --live -` on a pipe.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/batch.h"
#include "cli/options.h"
#include "cli/record.h"
#include "cli/run.h"
#include "vmalyze/capture.h"
#include "vmalyze/diag.h"
#include "vmalyze/status.h"

#define POLL_MS 100

struct record_opts {
	struct vma_capture_options cap;
	uint8_t cpu_mask[VMA_CAPTURE_MAX_CPUS / 8];
	double seconds;           /* -T, 0 = until stopped */
	const char *output;       /* -o FILE, "-" = stdout */
	bool live;
	enum vma_verbosity verbosity;
	char **command;           /* after --, NULL if none */
};

static const char record_usage[] =
	"Usage: vmalyze record [OPTION]... [-- COMMAND [ARG]...]\n"
	"Capture Xen's trace buffers (in dom0, as root) into a xentrace file.\n"
	"\n"
	"  -e, --event-mask MASK   trace classes to record (TRC_* mask, default 0x0ffff000: all)\n"
	"  -c, --cpu-mask CPUS     pcpus to trace: a hex mask (0x5) or a list (0-3,8)\n"
	"  -S, --buffer-kb KB      per-pcpu trace buffer size in KiB (default 256; set once per "
	"boot)\n"
	"  -D, --discard-buffers   discard what the buffers hold from before the capture\n"
	"  -T, --time SECONDS      stop after SECONDS\n"
	"  -o, --output FILE       write the trace to FILE (- for standard output)\n"
	"      --live              analyse while recording: per-second view per domain and vcpu\n"
	"  -v, --verbose           more messages on stderr\n"
	"  -q, --quiet             only errors on stderr\n"
	"  -h, --help              show this help and exit\n"
	"\n"
	"Recording stops after -T, when COMMAND exits, or on SIGINT/SIGTERM.  Exit status:\n"
	"0 recorded cleanly; 1 bad command line; 2 no Xen, not dom0 or no permission (one\n"
	"line says which), or tracing could not be set up; 3 records were lost (buffers too\n"
	"small: raise -S); 5 out of memory or descriptors, the output could not be written,\n"
	"or the live analysis could not start (the message says why).\n";

static int record_usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "vmalyze record: %s%s%s\nTry 'vmalyze record --help'.\n", what,
		arg ? " " : "", arg ? arg : "");
	return VMA_ERR_USAGE;
}

/* "0x5" (a mask) or "0-3,8" (a list). */
static int parse_cpus(const char *text, uint8_t *mask, uint32_t *bits)
{
	char *end;

	memset(mask, 0, VMA_CAPTURE_MAX_CPUS / 8);
	*bits = 0;
	if (!strncmp(text, "0x", 2) || !strncmp(text, "0X", 2)) {
		unsigned long long m = strtoull(text, &end, 16);
		uint32_t i;

		if (*end || end == text + 2 || !m)
			return -1;
		for (i = 0; i < 64; i++) {
			if (m >> i & 1) {
				mask[i / 8] |= (uint8_t)(1u << (i % 8));
				*bits = i + 1;
			}
		}
		return 0;
	}
	while (*text) {
		unsigned long lo = strtoul(text, &end, 10), hi = lo;

		if (end == text)
			return -1;
		if (*end == '-') {
			text = end + 1;
			hi = strtoul(text, &end, 10);
			if (end == text)
				return -1;
		}
		if (hi < lo || hi >= VMA_CAPTURE_MAX_CPUS)
			return -1;
		for (; lo <= hi; lo++)
			mask[lo / 8] |= (uint8_t)(1u << (lo % 8));
		if (hi + 1 > *bits)
			*bits = (uint32_t)hi + 1;
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		text = end;
	}
	return *bits ? 0 : -1;
}

static int parse_record_opts(struct record_opts *ro, int argc, char **argv, bool *help)
{
	static const struct option longopts[] = {
		{ "event-mask", required_argument, NULL, 'e' },
		{ "cpu-mask", required_argument, NULL, 'c' },
		{ "buffer-kb", required_argument, NULL, 'S' },
		{ "discard-buffers", no_argument, NULL, 'D' },
		{ "time", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "live", no_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char *end;
	int c;

	memset(ro, 0, sizeof(*ro));
	*help = false;
	optind = 1;
	opterr = 0;
	/* '+': options end at COMMAND, which has options of its own. */
	while ((c = getopt_long(argc, argv, "+:e:c:S:DT:o:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': {
			unsigned long long m = strtoull(optarg, &end, 0);

			if (*end || end == optarg || !m || m > UINT32_MAX)
				return record_usage_error("bad event mask", optarg);
			ro->cap.evt_mask = (uint32_t)m;
			break;
		}
		case 'c':
			if (parse_cpus(optarg, ro->cpu_mask, &ro->cap.cpu_mask_bits))
				return record_usage_error("bad cpu mask (0x5 or 0-3,8)", optarg);
			ro->cap.cpu_mask = ro->cpu_mask;
			break;
		case 'S': {
			unsigned long kb = strtoul(optarg, &end, 10);

			if (*end || end == optarg || kb < 4 || kb > 256u * 1024) {
				return record_usage_error("bad buffer size in KiB (4 to 262144)",
							  optarg);
			}
			ro->cap.buffer_kb = (uint32_t)kb;
			break;
		}
		case 'D':
			ro->cap.discard = true;
			break;
		case 'T':
			ro->seconds = strtod(optarg, &end);
			if (*end || end == optarg || !(ro->seconds > 0) || ro->seconds > 1e9)
				return record_usage_error("bad time in seconds", optarg);
			break;
		case 'o':
			ro->output = optarg;
			break;
		case 'L':
			ro->live = true;
			break;
		case 'v':
			if (ro->verbosity < VMA_VERB_DEBUG)
				ro->verbosity++;
			break;
		case 'q':
			ro->verbosity = VMA_VERB_QUIET;
			break;
		case 'h':
			*help = true;
			return VMA_OK;
		case ':':
			return record_usage_error("option needs an argument:", argv[optind - 1]);
		default:
			return record_usage_error("unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		ro->command = argv + optind;
	if (!ro->output && !ro->live)
		return record_usage_error("give -o FILE, --live or both", NULL);
	if (ro->live && ro->output && !strcmp(ro->output, "-")) {
		return record_usage_error("--live writes to standard output: -o - does not go "
					  "with it", NULL);
	}
	return VMA_OK;
}

/* Where the windows go: the file and/or the live analysis's pipe. */
struct sink {
	FILE *file;
	int pipe_fd;               /* -1 without --live */
};

static int sink_write(void *arg, const void *bytes, size_t len)
{
	struct sink *s = arg;
	const unsigned char *p = bytes;

	if (s->file && fwrite(bytes, 1, len, s->file) != len)
		return VMA_ERR_OUTPUT;
	while (s->pipe_fd >= 0 && len) {
		ssize_t n = write(s->pipe_fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* The analysis ended (its output closed): recording goes on to the file. */
			close(s->pipe_fd);
			s->pipe_fd = -1;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	return VMA_OK;
}

struct live_thread {
	struct vma_options opts;
	int fd;                   /* read end of the pipe: the run's from the start */
	struct vma_diag *diag;    /* the analysis's own: diags are not shared by threads */
	int status;
	enum vma_level worst;
};

#define LIVE_PIPE_NAME "the live analysis's pipe"

/*
 * The analysis reads the pipe to its end, which comes when the capture
 * stops: it takes no stop signal itself (they go to the capture loop), so
 * that the last records are analysed too.  The run owns the read end and
 * closes it when done: then nobody reads any more, the capture's writes
 * fail (EPIPE) and it goes on.
 */
static void *live_main(void *arg)
{
	struct live_thread *lt = arg;
	struct vma_run_source src = { .path = LIVE_PIPE_NAME, .fd = lt->fd,
				      .name = LIVE_PIPE_NAME };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	lt->status = vma_run_source(&lt->opts, &src, NULL, lt->diag, stdout);
	vma_diag_flush_counts(lt->diag);
	lt->worst = vma_diag_worst(lt->diag);
	vma_diag_destroy(lt->diag);
	fflush(stdout);
	return NULL;
}

static void live_options(struct vma_options *o, uint32_t cpu_khz, enum vma_verbosity verbosity)
{
	memset(o, 0, sizeof(*o));
	o->mode = VMA_MODE_LIVE;
	o->live = true;
	o->cpu_hz = cpu_khz ? (uint64_t)cpu_khz * 1000 : VMA_DEFAULT_CPU_HZ;
	o->tolerance = VMA_DEFAULT_TOLERANCE;
	o->verbosity = verbosity;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The capture loop: until -T, COMMAND's exit or a stop signal. */
static int capture_loop(struct vma_capture *cap, const struct record_opts *ro, struct sink *sink,
			pid_t *child, volatile sig_atomic_t *stop, struct vma_diag *diag)
{
	double end = ro->seconds > 0 ? now_s() + ro->seconds : 0;
	int64_t rc;

	for (;;) {
		int w = vma_capture_wait(cap, POLL_MS);

		if (w < 0) {
			vma_diag_report(diag, VMA_LVL_SYSTEM, NULL, UINT64_MAX,
					"Waiting for VIRQ_TBUF failed: %s", strerror(-w));
			return VMA_ERR_IO;
		}
		rc = vma_capture_drain(cap, sink_write, sink);
		if (rc < 0)
			return (int)rc;
		if (*stop || (end && now_s() >= end))
			return VMA_OK;
		if (*child > 0 && waitpid(*child, NULL, WNOHANG) == *child) {
			*child = -1;
			return VMA_OK;
		}
	}
}

static pid_t start_command(char **command, struct vma_diag *diag)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* The child only runs COMMAND: if it cannot, it ends as a shell would. */
		execvp(command[0], command);
		fprintf(stderr, "vmalyze record: cannot run %s: %s\n", command[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		vma_diag_report(diag, VMA_LVL_SYSTEM, NULL, UINT64_MAX, "Cannot start %s: %s",
				command[0], strerror(errno));
	}
	return pid;
}

static void report_stats(const struct vma_capture_stats *st, struct vma_diag *diag,
			 enum vma_verbosity verbosity)
{
	if (verbosity >= VMA_VERB_NORMAL) {
		fprintf(stderr,
			"vmalyze record: %" PRIu64 " bytes in %" PRIu64 " windows from %u pcpu "
			"buffers\n",
			st->bytes, st->windows, st->nr_buffers);
	}
	if (st->discarded && verbosity >= VMA_VERB_VERBOSE) {
		fprintf(stderr,
			"vmalyze record: discarded %" PRIu64 " bytes left in the buffers from "
			"before the capture (-D)\n",
			st->discarded);
	}
	if (st->lost_records || st->lost_markers) {
		vma_diag_report(diag, VMA_LVL_RECORD, NULL, UINT64_MAX,
				"Xen lost %" PRIu64 " records (%" PRIu64 " lost-record markers): "
				"the buffers filled up; record with a larger -S",
				st->lost_records, st->lost_markers);
	}
}

static void say_cpu_hz(uint32_t khz, enum vma_verbosity verbosity)
{
	if (verbosity < VMA_VERB_NORMAL)
		return;
	if (khz) {
		fprintf(stderr,
			"vmalyze record: TSC %u.%03u MHz (xc_physinfo): analyse with --cpu-hz "
			"%" PRIu64
			"\n",
			khz / 1000, khz % 1000, (uint64_t)khz * 1000);
	} else {
		fprintf(stderr, "vmalyze record: the TSC frequency is unknown (xc_physinfo)\n");
	}
}

/*
 * --live: the analysis thread, reading the pipe @sink writes to.  What
 * keeps it from starting is reported here, with its reason: a failure
 * later is the analysis's, reported by its own diag.
 */
static int start_live(struct live_thread *lt, pthread_t *thread, struct sink *sink,
		      uint32_t cpu_khz, enum vma_verbosity verbosity, struct vma_diag *diag)
{
	int pipefd[2], err;

	memset(lt, 0, sizeof(*lt));
	live_options(&lt->opts, cpu_khz, verbosity);
	lt->diag = vma_diag_create((enum vma_level)lt->opts.tolerance, verbosity);
	if (!lt->diag) {
		vma_diag_report(diag, VMA_LVL_SYSTEM, NULL, UINT64_MAX,
				"Out of memory starting the live analysis");
		return VMA_ERR_NOMEM;
	}
	if (pipe(pipefd)) {
		vma_diag_report(diag, VMA_LVL_SYSTEM, LIVE_PIPE_NAME, UINT64_MAX,
				"Cannot create: %s", strerror(errno));
		vma_diag_destroy(lt->diag);
		return VMA_ERR_NOMEM;
	}
	lt->fd = pipefd[0];
	err = pthread_create(thread, NULL, live_main, lt);
	if (err) {
		vma_diag_report(diag, VMA_LVL_SYSTEM, NULL, UINT64_MAX,
				"Cannot start the live analysis's thread: %s", strerror(err));
		close(pipefd[0]);
		close(pipefd[1]);
		vma_diag_destroy(lt->diag);
		return VMA_ERR_NOMEM;
	}
	sink->pipe_fd = pipefd[1];
	return VMA_OK;
}

static int exit_status_of(int rc, const struct vma_diag *diag)
{
	if (rc == VMA_OK)
		return vma_diag_worst(diag) >= VMA_LVL_RECORD ? VMA_EXIT_TOLERATED : VMA_EXIT_OK;
	if (rc == VMA_ERR_IO || rc == VMA_ERR_FORMAT)
		return VMA_EXIT_UNREADABLE;
	return rc == VMA_ERR_USAGE ? VMA_EXIT_USAGE : VMA_EXIT_SYSTEM;
}

int vma_record_main(int argc, char **argv, volatile sig_atomic_t *stop,
		    vma_tbuf_open_fn open_hypervisor)
{
	struct record_opts ro;
	struct sink sink = { NULL, -1 };
	struct live_thread lt;
	const struct vma_tbuf_ops *ops;
	struct vma_capture *cap = NULL;
	struct vma_capture_stats stats;
	struct vma_diag *diag;
	pthread_t thread;
	bool help, thread_started = false;
	pid_t child = -1;
	void *hv;
	int rc;

	rc = parse_record_opts(&ro, argc, argv, &help);
	if (rc)
		return VMA_EXIT_USAGE;
	/* A live analysis that ended must not kill the capture. */
	signal(SIGPIPE, SIG_IGN);
	/* the help is the output: a failed write is status 5, as for vmalyze --help */
	if (help) {
		errno = 0;
		fputs(record_usage, stdout);
		if (ferror(stdout) || fflush(stdout) != 0)
			return vma_stdout_failed(errno);
		return VMA_EXIT_OK;
	}
	diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, ro.verbosity);
	if (!diag)
		return VMA_EXIT_SYSTEM;
	rc = open_hypervisor(diag, &ops, &hv);
	if (rc)
		goto out;
	rc = vma_capture_start(ops, hv, &ro.cap, diag, &cap);
	if (rc)
		goto out;
	say_cpu_hz(vma_capture_stats(cap)->cpu_khz, ro.verbosity);
	if (ro.output) {
		sink.file = strcmp(ro.output, "-") ? fopen(ro.output, "wb") : stdout;
		if (!sink.file) {
			vma_diag_report(diag, VMA_LVL_SYSTEM, ro.output, UINT64_MAX,
					"Cannot create: %s", strerror(errno));
			rc = VMA_ERR_OUTPUT;
			goto out;
		}
	}
	if (ro.live) {
		rc = start_live(&lt, &thread, &sink, vma_capture_stats(cap)->cpu_khz, ro.verbosity,
				diag);
		if (rc)
			goto out;
		thread_started = true;
	}
	if (ro.command) {
		child = start_command(ro.command, diag);
		if (child < 0) {
			rc = VMA_ERR_IO;
			goto out;
		}
	}
	rc = capture_loop(cap, &ro, &sink, &child, stop, diag);
out:
	if (cap) {
		/* Tracing off first, then what the buffers still hold. */
		int64_t last = vma_capture_disable(cap) ? 0 :
			vma_capture_drain(cap, sink_write, &sink);

		if (last < 0 && !rc)
			rc = (int)last;
		stats = *vma_capture_stats(cap);
		vma_capture_stop(cap);
		report_stats(&stats, diag, ro.verbosity);
	}
	if (sink.file && sink.file != stdout && fclose(sink.file) && !rc)
		rc = VMA_ERR_OUTPUT;
	if (sink.pipe_fd >= 0)
		close(sink.pipe_fd);
	if (thread_started) {
		pthread_join(thread, NULL);
		/* Its own messages said what went wrong: here only the status follows. */
		if (lt.status && lt.status != VMA_ERR_DAMAGED) {
			if (!rc)
				rc = lt.status;
		} else if (lt.worst > vma_diag_worst(diag) && lt.worst >= VMA_LVL_RECORD) {
			vma_diag_report(diag, VMA_LVL_RECORD, NULL, UINT64_MAX,
					"The live analysis skipped damage (its messages above)");
		}
	}
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	vma_diag_flush_counts(diag);
	rc = exit_status_of(rc, diag);
	vma_diag_destroy(diag);
	return rc;
}

uint64_t vma_record_default_hz(enum vma_verbosity verbosity, vma_tbuf_open_fn open)
{
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, verbosity);
	uint64_t hz;

	if (!diag)
		return VMA_DEFAULT_CPU_HZ;
	hz = vma_capture_host_hz(open, diag, VMA_DEFAULT_CPU_HZ);
	vma_diag_destroy(diag);
	return hz;
}
