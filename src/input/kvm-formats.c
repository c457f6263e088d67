/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event formats for the KVM readers: the libtraceevent handle both readers
 * feed with the ring-buffer headers and the tracefs format texts, and the
 * built-in kvm_entry/kvm_exit formats a raw ftrace dump is read with when
 * no format folder is given.
 *
 * The built-in formats describe the x86 events as Linux 5.x-6.x lays them
 * out (the kvm_exit of TRACE_EVENT_KVM_EXIT with vcpu_id, and kvm_entry with
 * vcpu_id and rip); a dump from a kernel with another layout needs
 * --event-formats, since a raw dump does not carry its formats.
 */
#include <stdio.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "input/kvm-internal.h"

static bool host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 0;
}

int vma_kvm_tep_new(struct vma_kvm_priv *priv, bool big_endian, uint32_t long_size,
		    uint32_t page_size)
{
	priv->tep = tep_alloc();
	if (!priv->tep) {
		return VMA_ERR_NOMEM;
	}
	tep_set_file_bigendian(priv->tep, big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(priv->tep, host_big_endian() ? TEP_BIG_ENDIAN :
				TEP_LITTLE_ENDIAN);
	tep_set_long_size(priv->tep, (int)long_size);
	tep_set_page_size(priv->tep, (int)page_size);
	vma_rb_layout_default(&priv->layout, page_size, long_size, big_endian);
	return VMA_OK;
}

int vma_kvm_header_page(struct vma_kvm_priv *priv, const char *text, size_t len,
			bool set_page_size)
{
	struct vma_rb_layout layout = priv->layout;
	char *copy;

	if (vma_rb_layout_parse(&layout, text, len, set_page_size) < 0) {
		return -1;
	}
	priv->layout = layout;
	/* libtraceevent keeps the kernel's long size from it for "long" fields */
	copy = malloc(len + 1);
	if (!copy) {
		return VMA_ERR_NOMEM;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	tep_parse_header_page(priv->tep, copy, len, (int)layout.commit_size);
	free(copy);
	tep_set_long_size(priv->tep, (int)layout.commit_size);
	return 0;
}

/*
 * libtraceevent's format parser can crash on a damaged format text (seen
 * with 1.7.1 on fuzzed trace.dat files).  A format is therefore parsed
 * first in a forked child; only if the child survives is it parsed here.
 * Formats come from the file's header, a few hundred at most, so the cost
 * is a few milliseconds per file.
 */
static bool parses_safely(struct vma_kvm_priv *priv, const char *system, const char *text,
			  size_t len)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return true; /* cannot check: trust the parser */
	if (pid == 0) {
		tep_parse_event(priv->tep, text, len, system);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return true;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int vma_kvm_add_format(struct vma_kvm_priv *priv, const char *system, const char *text,
		       size_t len)
{
	enum tep_errno err;

	if (!parses_safely(priv, system, text, len)) {
		return -1;
	}
	err = tep_parse_event(priv->tep, text, len, system);

	/*
	 * A print format libtraceevent cannot parse still leaves the event
	 * and its fields registered: only the dump text falls back to raw.
	 */
	if (err == 0 || err == TEP_ERRNO__READ_PRINT_FAILED) {
		return 0;
	}
	return -1;
}

/* kvm_entry and kvm_exit as x86 kernels since 5.x write them. */
static const char default_entry[] =
	"name: kvm_entry\n"
	"ID: %u\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"vcpu %%u, rip 0x%%lx\", REC->vcpu_id, REC->rip\n";

static const char default_exit[] =
	"name: kvm_exit\n"
	"ID: %u\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 info2;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int vcpu_id;\toffset:56;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"vcpu %%u reason %%u isa %%u rip 0x%%lx info1 0x%%016llx"
	" info2 0x%%016llx intr_info 0x%%08x error_code 0x%%08x\", REC->vcpu_id,"
	" REC->exit_reason, REC->isa, REC->guest_rip, REC->info1, REC->info2,"
	" REC->intr_info, REC->error_code\n";

int vma_kvm_default_formats(struct vma_kvm_priv *priv, uint32_t entry_id, uint32_t exit_id)
{
	char buf[2048];
	int n;

	n = snprintf(buf, sizeof(buf), default_entry, entry_id);
	if (n < 0 || (size_t)n >= sizeof(buf) || vma_kvm_add_format(priv, "kvm", buf, (size_t)n)) {
		return -1;
	}
	n = snprintf(buf, sizeof(buf), default_exit, exit_id);
	if (n < 0 || (size_t)n >= sizeof(buf) || vma_kvm_add_format(priv, "kvm", buf, (size_t)n)) {
		return -1;
	}
	return 0;
}
