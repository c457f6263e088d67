/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the whole program on one input, from the format probe
 * through merge, dispatch, the state model and every output, with one of
 * several option sets chosen by the input's last byte (which stays part
 * of the trace).  Output goes to /dev/null.
 */
#include <stdio.h>

#include "cli/options.h"
#include "cli/run.h"
#include "fuzz-common.h"

#ifndef FUZZ_FORMATS_DIR
#define FUZZ_FORMATS_DIR "traces/kvm/vmx-raw-formats"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return fuzz_format_check_init(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Inputs here are small: a reader thread only where --threads 2 says so. */
	static const char *const sets[][6] = {
		{ "-s" },
		{ "-s", "--threads", "2" },
		{ "-a" },
		{ "-a", "--threads", "2" },
		{ "-s", "--json", "--histogram" },
		{ "-s", "-i", "0.001" },
		{ "-s", "--report-pcpu", "--tolerance", "6", "--threads", "2" },
		{ "-a", "--svm-mode", "--tolerance", "0" },
		{ "-s", "--event-formats", FUZZ_FORMATS_DIR },
		{ "-a", "--event-formats", FUZZ_FORMATS_DIR, "--tolerance", "6" },
	};
	const char *const *set;
	char *argv[10], path[64];
	struct vma_options opts;
	struct vma_diag *diag;
	FILE *out;
	int argc = 0, fd, i;

	if (size < 1)
		return 0;
	set = sets[data[size - 1] % (sizeof(sets) / sizeof(sets[0]))];
	fd = fuzz_memfd(data, size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	argv[argc++] = (char *)"vmalyze";
	for (i = 0; i < 6 && set[i]; i++)
		argv[argc++] = (char *)set[i];
	argv[argc++] = path;
	argv[argc] = NULL;
	if (vma_options_parse(&opts, argc, argv, stderr) != VMA_OK)
		abort(); /* the option sets are fixed: a refusal is a bug here */
	out = fopen("/dev/null", "w");
	diag = fuzz_diag((enum vma_level)opts.tolerance);
	if (!out)
		abort();
	vma_run_file(&opts, path, diag, out);
	vma_diag_destroy(diag);
	fclose(out);
	close(fd);
	return 0;
}
