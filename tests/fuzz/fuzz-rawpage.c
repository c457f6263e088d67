/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the ring-buffer page decoder alone.  The first byte
 * picks the layout (kernel long of 4 or 8 bytes, byte order, page size);
 * the rest is one page, possibly cut short.
 */
#include "fuzz-common.h"
#include "input/kvm-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where the payload bytes go, so that reading them is not optimized away. */
volatile uint32_t vma_fuzz_sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t page_sizes[] = { 4096, 8192, 65536, 256 };
	struct vma_rb_layout layout;
	struct vma_rb_page pg;
	uint32_t page_size;

	if (size < 1)
		return 0;
	page_size = page_sizes[(data[0] >> 2) & 3];
	vma_rb_layout_default(&layout, page_size, data[0] & 1 ? 4 : 8, data[0] & 2);
	data++;
	size--;
	if (size > page_size)
		size = page_size;
	if (vma_rb_page_load(&pg, &layout, data, (uint32_t)size) != VMA_RB_DONE)
		return 0;
	while (vma_rb_page_next(&pg) == VMA_RB_EVENT) {
		/* read the payload the decoder hands out: ASan checks it lies in the page */
		if (pg.ev_size)
			vma_fuzz_sink += pg.ev[0] + pg.ev[pg.ev_size - 1];
	}
	return 0;
}
