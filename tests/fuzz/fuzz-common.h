/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the libFuzzer targets: the fuzzer's bytes as a seekable file
 * (a memfd, which the readers pread like any trace), and a reader opened
 * on it directly, without the format probe, so that every input reaches
 * the reader under test.
 */
#ifndef VMALYZE_FUZZ_COMMON_H
#define VMALYZE_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vmalyze/diag.h"
#include "vmalyze/format-check.h"
#include "vmalyze/input.h"
#include "vmalyze/merge.h"
#include "vmalyze/status.h"

/*
 * For LLVMFuzzerInitialize() of the targets that read event formats: they
 * are checked as vmalyze checks them, in a helper process (this fuzzer run
 * again with VMA_FORMAT_CHECK_ARG; src/input/format-check.c), started once
 * and kept, so the fuzzer sees no fork and no crash of libtraceevent.
 */
static inline int fuzz_format_check_init(int *argc, char ***argv)
{
	if (*argc == 2 && !strcmp((*argv)[1], VMA_FORMAT_CHECK_ARG))
		exit(vma_format_check_serve());
	if (vma_format_check_use("/proc/self/exe") != VMA_OK)
		abort();
	return 0;
}

/*
 * Messages are formatted as usual but go to /dev/null: one line per input
 * would swamp the fuzzer's own report.
 */
static inline struct vma_diag *fuzz_diag(enum vma_level tolerance)
{
	static FILE *null_out;
	struct vma_diag *diag;

	if (!null_out && !(null_out = fopen("/dev/null", "w")))
		abort();
	diag = vma_diag_create_to(null_out, tolerance, VMA_VERB_DEBUG);
	if (!diag)
		abort();
	return diag;
}

/* A memfd holding @data; aborts when the system refuses (not a finding). */
static inline int fuzz_memfd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("vmalyze-fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		abort();
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	return fd;
}

static inline int fuzz_add_stream(void *arg, struct vma_stream *stream)
{
	return vma_merge_add(arg, stream);
}

/*
 * Opens @data with @ops, merges its streams and reads every record; a
 * quiet diagnostics sink at the highest tolerance, so damage is skipped
 * and the reader goes as far as it can.
 */
static inline void fuzz_read_with(const struct vma_input_ops *ops, const uint8_t *data,
				  size_t size, const char *formats_dir, bool fields_only)
{
	struct vma_input_options opts = { .event_formats_dir = formats_dir,
					  .fields_only = fields_only };
	struct vma_input in = { 0 };
	struct vma_merge *merge = vma_merge_create();
	struct vma_stream *s;
	uint64_t records = 0;

	if (!merge)
		abort();
	in.diag = fuzz_diag(VMA_LVL_MAX_TOLERABLE);
	in.path = strdup("fuzz-input");
	in.fd = fuzz_memfd(data, size);
	in.size = size;
	in.options = &opts;
	in.ops = ops;
	in.new_stream = fuzz_add_stream;
	in.new_stream_arg = merge;
	if (ops->open(&in) == VMA_OK) {
		while (vma_merge_next(merge, &s) == VMA_OK) {
			records++;
			while (vma_merge_pop_ended(merge))
				;
		}
	}
	if (ops->close)
		ops->close(&in);
	close(in.fd);
	free(in.path);
	vma_merge_destroy(merge);
	vma_diag_destroy(in.diag);
	(void)records;
}

#endif /* VMALYZE_FUZZ_COMMON_H */
