/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target: the xentrace reader (windows, records) and the merge. */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_read_with(&vma_xentrace_ops, data, size, NULL, false);
	return 0;
}
