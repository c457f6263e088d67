/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the event-format check (src/input/format-check.c) with the
 * real helper, the built vmalyze ($VMALYZE): a text libtraceevent crashes
 * on kills the helper mid-run; the helper started after it is given the
 * texts passed before, so its handle holds what the reader's does, and the
 * verdicts on the texts that follow are those of a run without the crash.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "input/kvm-internal.h"
#include "kvm-scenario.h"
#include "vmalyze/format-check.h"
#include "vmalyze/status.h"

#define FORMAT(name, id)                                                                \
	"name: " name "\nID: " #id "\nformat:\n"                                        \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"          \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"          \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"  \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"                    \
	"\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"                \
	"\nprint fmt: \"vcpu %u\", REC->vcpu_id\n"

static const char *const good[] = {
	FORMAT("kvm_a", 40), FORMAT("kvm_b", 41), FORMAT("kvm_c", 42), FORMAT("kvm_d", 43),
};

static char crashing[4096];

static void use_helper(void)
{
	const char *exe = getenv("VMALYZE");

	cr_assert(exe, "$VMALYZE names the built program");
	cr_assert_gt(vma_mkdat_crashing_format(crashing, sizeof(crashing), "kvm_exit", 31, true), 0);
	cr_assert_eq(vma_format_check_use(exe), VMA_OK);
}

static void session(struct vma_fmtc_session *s)
{
	memset(s, 0, sizeof(*s));
	s->long_size = 8;
	s->page_size = 4096;
}

static enum vma_fmtc_verdict check(struct vma_fmtc_session *s, const char *text)
{
	return vma_fmtc_check(s, "kvm", text, strlen(text));
}

static uint64_t helper_events(struct vma_fmtc_session *s)
{
	uint64_t n = UINT64_MAX;

	cr_assert_eq(vma_fmtc_helper_events(s, &n), 0, "the helper answers");
	return n;
}

Test(format_check, restarted_helper_is_given_the_passed_texts)
{
	struct vma_fmtc_session s, other;
	char sound[4096];

	use_helper();
	session(&s);
	session(&other);
	cr_assert_eq(check(&s, good[0]), VMA_FMTC_SAFE);
	cr_assert_eq(check(&other, good[3]), VMA_FMTC_SAFE);
	cr_assert_eq(check(&s, good[1]), VMA_FMTC_SAFE);
	cr_assert_eq(helper_events(&s), 2);
	/* the helper dies here */
	cr_assert_eq(check(&s, crashing), VMA_FMTC_CRASH);
	cr_assert_eq(check(&s, good[2]), VMA_FMTC_SAFE);
	cr_assert_eq(helper_events(&s), 3, "the new helper holds the reader's three formats");
	/* the text the crashing one was made from is sound */
	cr_assert_gt(vma_mkdat_crashing_format(sound, sizeof(sound), "kvm_exit", 32, false), 0);
	cr_assert_eq(check(&s, sound), VMA_FMTC_SAFE);
	/* the other session's handle is rebuilt too, when it next asks */
	cr_assert_eq(check(&other, good[0]), VMA_FMTC_SAFE);
	cr_assert_eq(helper_events(&other), 2);
	vma_fmtc_session_end(&other);
	vma_fmtc_session_end(&s);
	vma_format_check_end();
}

Test(format_check, crashes_are_bounded_per_session)
{
	struct vma_fmtc_session s, fresh;
	int i, refused = 0;

	use_helper();
	session(&s);
	for (i = 0; i < 20; i++)
		refused += check(&s, crashing) == VMA_FMTC_CRASH;
	cr_assert_eq(refused, 20);
	/* past the bound the session's texts are refused without a helper */
	cr_assert_eq(check(&s, good[0]), VMA_FMTC_CRASH);
	/* another input is not: it gets a helper of its own */
	session(&fresh);
	cr_assert_eq(check(&fresh, good[0]), VMA_FMTC_SAFE);
	cr_assert_eq(helper_events(&fresh), 1);
	vma_fmtc_session_end(&fresh);
	vma_fmtc_session_end(&s);
	vma_format_check_end();
}

Test(format_check, without_helper_texts_are_unchecked)
{
	struct vma_fmtc_session s;

	cr_assert_eq(vma_format_check_use(NULL), VMA_OK);
	session(&s);
	cr_assert_eq(check(&s, good[0]), VMA_FMTC_UNCHECKED);
	vma_fmtc_session_end(&s);
}

/* The pid of this process's one child, the helper, from /proc; 0 if none. */
static pid_t helper_pid(void)
{
	pid_t me = getpid(), found = 0;
	struct dirent *e;
	DIR *d = opendir("/proc");

	cr_assert(d);
	while ((e = readdir(d))) {
		char path[300], buf[512], *close_paren;
		FILE *f;
		int ppid = 0;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && (close_paren = strrchr(buf, ')')) &&
		    sscanf(close_paren + 1, " %*c %d", &ppid) == 1 && ppid == me)
			found = (pid_t)atoi(e->d_name);
		fclose(f);
	}
	closedir(d);
	return found;
}

static bool zombie(pid_t pid)
{
	char path[64], buf[512], *close_paren;
	FILE *f;
	char state = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	if (fgets(buf, sizeof(buf), f) && (close_paren = strrchr(buf, ')')))
		sscanf(close_paren + 1, " %c", &state);
	fclose(f);
	return state == 'Z';
}

Test(format_check, helper_killed_between_texts)
{
	struct vma_fmtc_session s;
	pid_t pid;

	use_helper();
	session(&s);
	cr_assert_eq(check(&s, good[0]), VMA_FMTC_SAFE);
	cr_assert_eq(check(&s, good[1]), VMA_FMTC_SAFE);
	pid = helper_pid();
	cr_assert_gt(pid, 0, "the helper runs");
	cr_assert_eq(kill(pid, SIGKILL), 0);
	/* a zombie (not reaped here), as it would be long before the next text */
	while (!zombie(pid))
		usleep(1000);
	cr_assert_eq(check(&s, good[2]), VMA_FMTC_SAFE, "the next text is not blamed");
	cr_assert_eq(helper_events(&s), 3);
	cr_assert_neq(helper_pid(), pid);
	vma_fmtc_session_end(&s);
	vma_format_check_end();
}
