/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Ring-buffer page writer for test fixtures (see ringbuf-writer.h): the
 * kernel's page layout, event by event, so that the trace.dat container and
 * the raw-dump tests share one encoder of headers and time records.
 */
#include <stdio.h>
#include <string.h>

#include "ringbuf-writer.h"

#define TS_BITS VMA_RBW_TS_BITS
#define MAX_SMALL VMA_RBW_MAX_SMALL
#define TYPE_PADDING 29
#define TYPE_EXTEND 30
#define TYPE_STAMP 31

/* The tracefs texts that describe this layout (header_page, header_event). */
static const char header_page_fmt[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:%u;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:%u;\tsize:%u;\tsigned:1;\n";

const char vma_rbw_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

int vma_rbw_header_page(char *buf, size_t size, uint32_t page_size)
{
	return snprintf(buf, size, header_page_fmt, 8u, 16u, page_size - 16);
}

void vma_tdw_put(void *buf, uint32_t size, uint64_t val, bool big_endian)
{
	unsigned char *p = buf;
	uint32_t i;

	for (i = 0; i < size; i++) {
		uint32_t shift = 8 * (big_endian ? size - 1 - i : i);

		p[i] = (unsigned char)(val >> shift);
	}
}

void vma_rbw_start(struct vma_rbw *p, unsigned char *page, uint32_t page_size,
		   uint32_t long_size, bool big_endian, uint64_t ts)
{
	p->page = page;
	p->page_size = page_size;
	p->long_size = long_size;
	p->data_offset = 8 + long_size;
	p->pos = p->data_offset;
	p->big_endian = big_endian;
	memset(page, 0, page_size);
	vma_tdw_put(page, 8, ts, big_endian);
}

uint32_t vma_rbw_room(const struct vma_rbw *p)
{
	return p->page_size - p->pos;
}

/* The 32-bit event header: type_len in the low bits on little-endian files. */
static void put_header(struct vma_rbw *p, uint32_t type_len, uint32_t delta)
{
	uint32_t hdr = p->big_endian ? type_len << TS_BITS | (delta & ((1u << TS_BITS) - 1)) :
		(delta << 5) | type_len;

	vma_tdw_put(p->page + p->pos, 4, hdr, p->big_endian);
}

int vma_rbw_data(struct vma_rbw *p, uint32_t delta, const void *data, uint32_t len,
		 bool force_len0)
{
	uint32_t padded = (len + 3) & ~3u;
	bool len0 = force_len0 || padded > MAX_SMALL || padded == 0;
	uint32_t total = 4 + padded + (len0 ? 4 : 0);

	if (delta >= 1u << TS_BITS || total > vma_rbw_room(p))
		return -1;
	if (len0) {
		put_header(p, 0, delta);
		vma_tdw_put(p->page + p->pos + 4, 4, padded + 4, p->big_endian);
		memcpy(p->page + p->pos + 8, data, len);
	} else {
		put_header(p, padded / 4, delta);
		memcpy(p->page + p->pos + 4, data, len);
	}
	p->pos += total;
	return 0;
}

static int put_time(struct vma_rbw *p, uint32_t type, uint64_t value)
{
	if (vma_rbw_room(p) < 8 || value >> 59)
		return -1;
	put_header(p, type, (uint32_t)(value & ((1u << TS_BITS) - 1)));
	vma_tdw_put(p->page + p->pos + 4, 4, value >> TS_BITS, p->big_endian);
	p->pos += 8;
	return 0;
}

int vma_rbw_extend(struct vma_rbw *p, uint64_t delta)
{
	return put_time(p, TYPE_EXTEND, delta);
}

int vma_rbw_stamp(struct vma_rbw *p, uint64_t ts)
{
	return put_time(p, TYPE_STAMP, ts & ((1ull << 59) - 1));
}

int vma_rbw_discard(struct vma_rbw *p, uint32_t delta, uint32_t len)
{
	uint32_t padded = (len + 3) & ~3u;

	if (delta == 0 || delta >= 1u << TS_BITS || padded < 4 || 4 + padded > vma_rbw_room(p))
		return -1;
	put_header(p, TYPE_PADDING, delta);
	vma_tdw_put(p->page + p->pos + 4, 4, padded, p->big_endian);
	p->pos += 4 + padded;
	return 0;
}

int vma_rbw_pad_end(struct vma_rbw *p)
{
	if (vma_rbw_room(p) < 4)
		return -1;
	put_header(p, TYPE_PADDING, 0);
	p->pos = p->page_size;
	return 0;
}

void vma_rbw_commit(struct vma_rbw *p, bool missed, uint64_t count)
{
	uint64_t commit = p->pos - p->data_offset;

	if (missed) {
		commit |= 1ull << 31;
		if (count != UINT64_MAX && vma_rbw_room(p) >= p->long_size) {
			vma_tdw_put(p->page + p->pos, p->long_size, count, p->big_endian);
			commit |= 1ull << 30;
		}
	}
	vma_tdw_put(p->page + 8, p->long_size, commit, p->big_endian);
}
