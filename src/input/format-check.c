/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event-format check: libtraceevent's format parser can crash on a
 * damaged format text (seen with 1.7.1 on fuzzed trace.dat files), so each
 * text is parsed first by a helper process, vmalyze's own program started
 * with VMA_FORMAT_CHECK_ARG (posix_spawn and exec: nothing of this process
 * runs in the child, so it is as safe from a threaded batch run as from a
 * single thread, and ASan's allocator is never copied in a fork).  The
 * helper answers after each text; a helper that dies on one (or takes
 * more than REPLY_MS) condemns that text, and the next text starts a new
 * helper.
 *
 * One helper serves every input of the process, one text at a time (a
 * mutex): it keeps a libtraceevent handle per session (a reader's handle:
 * byte order, long and page size, header_page), set up the first time a
 * session sends it a text, and parses that session's texts in the order
 * the reader parses them, so the two handles go through the same states.
 * A session keeps the texts the helper passed (the ones the reader went
 * on to parse): a helper started after a crash (or after it was killed
 * from outside: found dead before a text is sent, which condemns no text)
 * is given them again before the next text, and its handle is the
 * reader's once more.  That costs a
 * replay per crash, so a session whose helper died MAX_DEATHS times is
 * refused its further texts unchecked (a file of crashing formats costs
 * a bounded number of helpers, not one per format).
 *
 * Protocol on a socket pair (the helper's standard input and output):
 * the helper first writes one byte 'v'; then each request is a byte and
 * u64 fields in host order:
 *   'H' id big long_size page_size header_long len, then len bytes of header_page
 *   'P' id len_system len_text, then both texts: parse; the helper replies 'k'
 *   'R' id len, then len bytes of (len_system len_text system text)...: parse
 *       each in turn (a replay); the helper replies 'k'
 *   'N' id: the helper replies the u64 number of events the session's
 *       handle holds (UINT64_MAX: no such session), for the tests
 *   'X' id: forget the session
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "input/kvm-internal.h"
#include "input/tep-lib.h"
#include "vmalyze/format-check.h"
#include "vmalyze/grow.h"

extern char **environ;

/* The helper, shared by every input of the process. */
static struct {
	pthread_mutex_t lock;
	char *exe;        /* program to run; NULL: check nothing, parse in-process */
	pid_t pid;        /* 0: none running */
	int fd;           /* our end of the socket pair */
	uint64_t gen;     /* helpers started so far: sessions it knows carry its number */
	uint64_t next_id; /* session ids */
	bool broken;      /* the program cannot be started: stop trying */
} helper = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

int vma_format_check_use(const char *exe)
{
	char *copy = exe ? strdup(exe) : NULL;

	if (exe && !copy)
		return VMA_ERR_NOMEM;
	pthread_mutex_lock(&helper.lock);
	free(helper.exe);
	helper.exe = copy;
	helper.broken = false;
	pthread_mutex_unlock(&helper.lock);
	return VMA_OK;
}

static int put_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* How long the helper may take over one text before it is taken for hung. */
#define REPLY_MS 10000
/* Helpers a session may see die before its further texts are refused. */
#define MAX_DEATHS 8

static int get_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The helper's answer of @len bytes, within @ms.  Return: 0, or -1. */
static int get_answer(void *buf, size_t len, int ms)
{
	struct pollfd pfd = { .fd = helper.fd, .events = POLLIN };
	int n;

	while ((n = poll(&pfd, 1, ms)) < 0 && errno == EINTR)
		;
	return n == 1 ? get_all(helper.fd, buf, len) : -1;
}

/* The helper's one-byte answer to a text, within REPLY_MS. */
static int get_reply(char *c)
{
	return get_answer(c, 1, REPLY_MS);
}

/*
 * The helper is gone, hung or useless: end it and reap it.  Called with
 * the lock held.
 */
static void helper_stop(void)
{
	if (helper.fd >= 0)
		close(helper.fd);
	helper.fd = -1;
	if (helper.pid > 0) {
		kill(helper.pid, SIGKILL); /* gone already, or hung on a text */
		while (waitpid(helper.pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	helper.pid = 0;
}

/* Has the helper died since its last answer (killed from outside)?  Lock held. */
static bool helper_gone(void)
{
	pid_t r;

	while ((r = waitpid(helper.pid, NULL, WNOHANG)) < 0 && errno == EINTR)
		;
	/* ECHILD: reaped by someone else (SIGCHLD ignored) */
	if (r != helper.pid && !(r < 0 && errno == ECHILD))
		return false;
	helper.pid = 0;
	return true;
}

/* Start a helper.  Return: 0, or -1 (none can be: parse in-process).  Lock held. */
static int helper_start(void)
{
	char *argv[] = { helper.exe, (char *)VMA_FORMAT_CHECK_ARG, NULL };
	posix_spawn_file_actions_t fa;
	int sv[2], rc;
	char hello;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	if (posix_spawn_file_actions_init(&fa) != 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	/* its crash reports are not ours: stderr goes nowhere */
	rc = posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO) ||
	     posix_spawn_file_actions_adddup2(&fa, sv[1], STDOUT_FILENO) ||
	     posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0) ||
	     posix_spawn(&helper.pid, helper.exe, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	helper.fd = sv[0];
	if (rc) {
		helper.pid = 0;
		helper_stop();
		return -1;
	}
	if (get_reply(&hello) < 0 || hello != 'v') {
		helper_stop();
		return -1;
	}
	helper.gen++;
	return 0;
}

/*
 * Make the helper's handle of @s the reader's: its settings, then the
 * texts passed so far, in their order.  Return: 0, or -1 (it died on them).
 */
static int send_setup(const struct vma_fmtc_session *s)
{
	uint64_t h[6] = { s->id, s->big, s->long_size, s->page_size, s->header_long,
			  s->header_len };
	uint64_t r[2] = { s->id, s->passed_len };
	char op = 'H', reply;
	size_t mib;

	if (put_all(helper.fd, &op, 1) || put_all(helper.fd, h, sizeof(h)))
		return -1;
	if (s->header_len && put_all(helper.fd, s->header, s->header_len))
		return -1;
	if (!s->passed_len)
		return 0;
	op = 'R';
	if (put_all(helper.fd, &op, 1) || put_all(helper.fd, r, sizeof(r)) ||
	    put_all(helper.fd, s->passed, s->passed_len))
		return -1;
	/* a replay is given REPLY_MS for each MiB of it (formats are at most 100,000) */
	mib = s->passed_len >> 20;
	if (mib > 100)
		mib = 100;
	return get_answer(&reply, 1, REPLY_MS * (int)(1 + mib)) || reply != 'k' ? -1 : 0;
}

/* Keep a text the helper passed, for a replay.  Return: 0, or -1 (out of memory). */
static int keep_passed(struct vma_fmtc_session *s, const char *system, size_t slen,
		       const char *text, size_t len)
{
	uint64_t h[2] = { slen, len };
	size_t need = s->passed_len + sizeof(h) + slen + len;

	if (need < s->passed_len || vma_grow(s->passed, &s->passed_cap, need, 4096))
		return -1;
	memcpy(s->passed + s->passed_len, h, sizeof(h));
	memcpy(s->passed + s->passed_len + sizeof(h), system, slen);
	memcpy(s->passed + s->passed_len + sizeof(h) + slen, text, len);
	s->passed_len = need;
	return 0;
}

enum vma_fmtc_verdict vma_fmtc_check(struct vma_fmtc_session *s, const char *system,
				     const char *text, size_t len)
{
	enum vma_fmtc_verdict v = VMA_FMTC_UNCHECKED;
	size_t slen = strlen(system);
	uint64_t h[3];
	char op = 'P', reply;

	pthread_mutex_lock(&helper.lock);
	if (!helper.exe || helper.broken)
		goto out;
	/* too many deaths, or a text not kept: no helper can be the reader's now */
	if (s->deaths >= MAX_DEATHS || s->unkept) {
		v = VMA_FMTC_CRASH;
		goto out;
	}
	if (helper.pid && helper_gone())
		helper_stop(); /* killed between texts: no text's fault */
	if (!helper.pid && helper_start() < 0) {
		helper.broken = true;
		goto out;
	}
	if (!s->id)
		s->id = ++helper.next_id;
	h[0] = s->id;
	h[1] = slen;
	h[2] = len;
	if ((s->gen != helper.gen && send_setup(s)) || put_all(helper.fd, &op, 1) ||
	    put_all(helper.fd, h, sizeof(h)) || put_all(helper.fd, system, slen) ||
	    put_all(helper.fd, text, len) || get_reply(&reply) || reply != 'k') {
		/* It died or hung on this text (or could not be reached): refused. */
		helper_stop();
		s->deaths++;
		v = VMA_FMTC_CRASH;
		goto out;
	}
	s->gen = helper.gen;
	/* the reader parses it now: a replay must too */
	if (keep_passed(s, system, slen, text, len))
		s->unkept = true;
	v = VMA_FMTC_SAFE;
out:
	pthread_mutex_unlock(&helper.lock);
	return v;
}

void vma_fmtc_session_end(struct vma_fmtc_session *s)
{
	uint64_t id = s->id;
	char op = 'X';

	pthread_mutex_lock(&helper.lock);
	if (helper.pid && s->gen == helper.gen &&
	    (put_all(helper.fd, &op, 1) || put_all(helper.fd, &id, sizeof(id))))
		helper_stop();
	pthread_mutex_unlock(&helper.lock);
	free(s->header);
	free(s->passed);
	memset(s, 0, sizeof(*s));
}

int vma_fmtc_helper_events(struct vma_fmtc_session *s, uint64_t *count)
{
	uint64_t id = s->id;
	char op = 'N';
	int rc = -1;

	pthread_mutex_lock(&helper.lock);
	if (helper.pid && s->gen == helper.gen && !put_all(helper.fd, &op, 1) &&
	    !put_all(helper.fd, &id, sizeof(id)) && !get_answer(count, sizeof(*count), REPLY_MS))
		rc = 0;
	pthread_mutex_unlock(&helper.lock);
	return rc;
}

void vma_format_check_end(void)
{
	pthread_mutex_lock(&helper.lock);
	helper_stop();
	free(helper.exe);
	helper.exe = NULL;
	pthread_mutex_unlock(&helper.lock);
}

/* ---- the helper's side ----------------------------------------------------- */

struct served {
	uint64_t id;
	struct tep_handle *tep;
};

static struct tep_handle *setup_tep(const uint64_t *h, char *header)
{
	const char *why;
	const struct vma_tep_lib *tl = vma_tep_load(&why);
	struct tep_handle *tep = tl ? tl->tep_alloc() : NULL;

	if (!tep)
		return NULL;
	tl->tep_set_file_bigendian(tep, h[1] ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tl->tep_set_local_bigendian(tep, vma_kvm_host_big_endian() ? TEP_BIG_ENDIAN :
				    TEP_LITTLE_ENDIAN);
	tl->tep_set_long_size(tep, (int)h[2]);
	tl->tep_set_page_size(tep, (int)h[3]);
	if (h[5]) {
		tl->tep_parse_header_page(tep, header, (unsigned long)h[5], (int)h[4]);
		tl->tep_set_long_size(tep, (int)h[4]);
	}
	return tep;
}

/* Read @len bytes into a new NUL-terminated buffer.  NULL: the request is broken. */
static char *get_text(uint64_t len)
{
	char *p = len < (1ull << 31) ? malloc((size_t)len + 1) : NULL;

	if (!p)
		return NULL;
	if (get_all(STDIN_FILENO, p, (size_t)len) < 0) {
		free(p);
		return NULL;
	}
	p[len] = '\0';
	return p;
}

static struct served *find(struct served *s, size_t n, uint64_t id)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i].id == id)
			return &s[i];
	}
	return NULL;
}

/* Parse @text (@len bytes, system @system of @slen) from NUL-terminated copies. */
static void parse_copy(struct tep_handle *tep, const char *system, size_t slen,
		       const char *text, size_t len)
{
	char *sys = malloc(slen + 1), *t = malloc(len + 1);

	if (sys && t) {
		memcpy(sys, system, slen);
		sys[slen] = '\0';
		memcpy(t, text, len);
		t[len] = '\0';
		vma_tep()->tep_parse_event(tep, t, (unsigned long)len, sys);
	}
	free(sys);
	free(t);
}

/* 'R': parse the texts of @buf (len_system len_text system text...) in turn. */
static void replay(struct served *one, char *buf, size_t len)
{
	size_t at = 0;
	uint64_t h[2];

	while (one && len - at >= sizeof(h)) {
		memcpy(h, buf + at, sizeof(h));
		at += sizeof(h);
		if (h[0] > len - at || h[1] > len - at - h[0])
			return;
		/* each text is parsed from a copy of its own, NUL-terminated as for 'P' */
		parse_copy(one->tep, buf + at, (size_t)h[0], buf + at + h[0], (size_t)h[1]);
		at += h[0] + h[1];
	}
}

int vma_format_check_serve(void)
{
	struct rlimit no_core = { 0, 0 };
	struct served *sv = NULL, *one;
	size_t n = 0, cap = 0;
	uint64_t h[6];
	char op, *a, *b;
	int rc = 0;

	/* a crash is expected now and then: no core file */
	setrlimit(RLIMIT_CORE, &no_core);
	signal(SIGPIPE, SIG_IGN);
	/* ^C is for vmalyze, which stops reading and then ends this helper */
	signal(SIGINT, SIG_IGN);
	if (write(STDOUT_FILENO, "v", 1) != 1)
		return 1;
	while (get_all(STDIN_FILENO, &op, 1) == 0) {
		if (op == 'H') {
			if (get_all(STDIN_FILENO, h, sizeof(h)) < 0 || !(a = get_text(h[5])))
				break;
			if (!find(sv, n, h[0]) && vma_grow(sv, &cap, n + 1, 8) == VMA_OK) {
				sv[n].id = h[0];
				sv[n].tep = setup_tep(h, a);
				n += sv[n].tep != NULL;
			}
			free(a);
		} else if (op == 'P') {
			if (get_all(STDIN_FILENO, h, 3 * sizeof(h[0])) < 0 || !(a = get_text(h[1])))
				break;
			if (!(b = get_text(h[2]))) {
				free(a);
				break;
			}
			one = find(sv, n, h[0]);
			if (one)
				vma_tep()->tep_parse_event(one->tep, b, (unsigned long)h[2], a);
			free(a);
			free(b);
			if (write(STDOUT_FILENO, "k", 1) != 1)
				break;
		} else if (op == 'R') {
			if (get_all(STDIN_FILENO, h, 2 * sizeof(h[0])) < 0 || !(a = get_text(h[1])))
				break;
			replay(find(sv, n, h[0]), a, (size_t)h[1]);
			free(a);
			if (write(STDOUT_FILENO, "k", 1) != 1)
				break;
		} else if (op == 'N') {
			if (get_all(STDIN_FILENO, h, sizeof(h[0])) < 0)
				break;
			one = find(sv, n, h[0]);
			h[1] = one ? (uint64_t)vma_tep()->tep_get_events_count(one->tep)
				   : UINT64_MAX;
			if (write(STDOUT_FILENO, &h[1], sizeof(h[1])) != sizeof(h[1]))
				break;
		} else if (op == 'X') {
			if (get_all(STDIN_FILENO, h, sizeof(h[0])) < 0)
				break;
			one = find(sv, n, h[0]);
			if (one) {
				vma_tep()->tep_free(one->tep);
				*one = sv[--n];
			}
		} else {
			rc = 1;
			break;
		}
	}
	while (n)
		vma_tep()->tep_free(sv[--n].tep);
	free(sv);
	return rc;
}
