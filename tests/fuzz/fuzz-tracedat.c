/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the trace.dat reader (v6, v7 plain/zlib/zstd: headers,
 * options, event formats, chunks, ring-buffer pages) and the merge.  The
 * records are not described, as in a run with no dump.
 */
#include "fuzz-common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return fuzz_format_check_init(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/*
	 * The last byte's low bit: the formats of a run with no dump (read
	 * from their field lines, kvm-fields.c) or of one with a dump.
	 */
	fuzz_read_with(&vma_tracedat_ops, data, size, NULL, size && (data[size - 1] & 1));
	return 0;
}
