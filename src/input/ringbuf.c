/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoder of one ftrace ring-buffer page (sub-buffer), as the kernel's
 * ring_buffer.c writes it and trace_pipe_raw hands it out: a header with
 * the page time stamp and the commit word, then events with a 32-bit
 * header of a 5-bit type_len and a 27-bit time delta.
 *
 * Written here rather than taken from libtraceevent's kbuffer because the
 * input is untrusted: every length is checked against the page and the
 * bytes actually present, and damage is reported with its offset instead
 * of reading past the buffer.  The time rules are the kernel's:
 *  - a data event adds its 27-bit delta to the running stamp;
 *  - TIME_EXTEND adds array[0] << 27 | delta;
 *  - TIME_STAMP sets the stamp to array[0] << 27 | delta, keeping the top
 *    five bits of the running stamp the event cannot carry (and carrying
 *    into them when the low bits wrapped), as rb_fix_abs_ts() does;
 *  - PADDING with a zero delta ends the page; with a non-zero delta it is
 *    a discarded event whose delta still counts, because the writer took
 *    the next event's delta from it (trace-cmd report counts it too);
 *  - the commit word holds the bytes of events, plus bit 31 "events were
 *    lost before this page" and bit 30 "their number is stored as a long
 *    right after the events".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/kvm-internal.h"

/* Top bits of a time stamp an absolute TIME_STAMP event does not carry. */
#define TS_MSB (0xf8ull << 56)

void vma_rb_layout_default(struct vma_rb_layout *layout, uint32_t page_size,
			   uint32_t long_size, bool big_endian)
{
	layout->page_size = page_size;
	layout->ts_offset = 0;
	layout->commit_offset = 8;
	layout->commit_size = long_size == 4 ? 4 : 8;
	layout->data_offset = 8 + layout->commit_size;
	layout->big_endian = big_endian;
}

/*
 * One "field: <type> <name>; offset:N; size:N;" line: the name is the last
 * word before the first ';'.
 */
static bool parse_field_line(const char *line, size_t len, char *name, size_t name_cap,
			     unsigned int *offset, unsigned int *size)
{
	const char *p = memmem(line, len, "field:", 6);
	const char *semi, *start;
	const char *end = line + len;
	size_t n;

	if (!p)
		return false;
	p += 6;
	semi = memchr(p, ';', (size_t)(end - p));
	if (!semi)
		return false;
	start = semi;
	while (start > p && (start[-1] == ' ' || start[-1] == '\t'))
		start--;
	semi = start;
	while (start > p && start[-1] != ' ' && start[-1] != '\t')
		start--;
	n = (size_t)(semi - start);
	if (n == 0 || n >= name_cap)
		return false;
	memcpy(name, start, n);
	name[n] = '\0';

	p = memmem(line, len, "offset:", 7);
	if (!p || sscanf(p + 7, "%u", offset) != 1)
		return false;
	p = memmem(line, len, "size:", 5);
	if (!p || sscanf(p + 5, "%u", size) != 1)
		return false;
	return true;
}

int vma_rb_layout_parse(struct vma_rb_layout *layout, const char *text, size_t len,
			bool set_page_size)
{
	const char *p = text, *end = text + len;
	bool have_ts = false, have_commit = false, have_data = false;
	unsigned int data_size = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t llen = nl ? (size_t)(nl - p) : (size_t)(end - p);
		unsigned int off, size;
		char name[32];

		if (parse_field_line(p, llen, name, sizeof(name), &off, &size)) {
			if (!strcmp(name, "timestamp") && size == 8) {
				layout->ts_offset = off;
				have_ts = true;
			} else if (!strcmp(name, "commit") && (size == 4 || size == 8)) {
				layout->commit_offset = off;
				layout->commit_size = size;
				have_commit = true;
			} else if (!strcmp(name, "data")) {
				layout->data_offset = off;
				data_size = size;
				have_data = true;
			}
		}
		p += llen + 1;
	}
	if (!have_ts || !have_commit || !have_data)
		return -1;
	if (layout->ts_offset + 8 > layout->data_offset ||
	    layout->commit_offset + layout->commit_size > layout->data_offset) {
		return -1;
	}
	if (set_page_size) {
		if (data_size == 0 || data_size > (1u << 24))
			return -1;
		layout->page_size = layout->data_offset + data_size;
	}
	return 0;
}

/* The "<name> : N bits" of a header_event line. */
static bool bits_of(const char *text, size_t len, const char *name, unsigned int *bits)
{
	const char *p = memmem(text, len, name, strlen(name));
	const char *end = text + len;

	if (!p)
		return false;
	p += strlen(name);
	while (p < end && (*p == ' ' || *p == '\t' || *p == ':'))
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return false;
	*bits = 0;
	while (p < end && *p >= '0' && *p <= '9' && *bits < 1000) {
		*bits = *bits * 10 + (unsigned int)(*p - '0');
		p++;
	}
	return true;
}

bool vma_rb_header_event_ok(const char *text, size_t len)
{
	unsigned int type_bits, delta_bits;

	if (!bits_of(text, len, "type_len", &type_bits) ||
	    !bits_of(text, len, "time_delta", &delta_bits)) {
		return false;
	}
	return type_bits == 5 && delta_bits == 27;
}

static int bad(struct vma_rb_page *pg, const char *why, uint32_t at)
{
	pg->error = why;
	pg->error_at = at;
	return VMA_RB_BAD;
}

int vma_rb_page_load(struct vma_rb_page *pg, const struct vma_rb_layout *layout,
		     const unsigned char *page, uint32_t avail)
{
	uint64_t commit, len;

	memset(pg, 0, sizeof(*pg));
	pg->page = page;
	pg->layout = layout;
	pg->avail = avail < layout->page_size ? avail : layout->page_size;
	pg->pos = layout->data_offset;
	if (pg->avail < layout->data_offset) {
		pg->cut = true;
		return bad(pg, "page header cut short", 0);
	}
	pg->base_ts = vma_get64(page + layout->ts_offset, layout->big_endian);
	pg->ts = pg->base_ts;
	if (layout->commit_size == 8) {
		commit = vma_get64(page + layout->commit_offset, layout->big_endian);
	} else {
		commit = vma_get32(page + layout->commit_offset, layout->big_endian);
	}
	len = commit & VMA_RB_COMMIT_MASK;
	if (len > layout->page_size - layout->data_offset)
		return bad(pg, "commit size larger than the page", layout->commit_offset);
	pg->commit = (uint32_t)len;
	pg->lim = layout->data_offset + pg->commit;
	if (pg->lim > pg->avail)
		pg->lim = pg->avail;
	pg->big = layout->big_endian;
	pg->missed = (commit & VMA_RB_MISSED_EVENTS) != 0;
	if (pg->missed && (commit & VMA_RB_MISSED_STORED)) {
		uint64_t at = layout->data_offset + len;

		if (at + layout->commit_size > layout->page_size) {
			return bad(pg, "lost-events count stored past the page",
				   layout->commit_offset);
		}
		if (at + layout->commit_size <= pg->avail) {
			pg->missed_stored = true;
			pg->missed_count = layout->commit_size == 8 ?
				vma_get64(page + at, layout->big_endian) :
				vma_get32(page + at, layout->big_endian);
		}
	}
	return VMA_RB_DONE;
}

/* Bytes that must be present from pg->pos on; marks a cut page when not. */
static bool have(struct vma_rb_page *pg, uint32_t end, uint32_t need)
{
	if ((uint64_t)pg->pos + need > end)
		return false;
	if ((uint64_t)pg->pos + need > pg->avail) {
		pg->cut = true;
		return false;
	}
	return true;
}

int vma_rb_page_next(struct vma_rb_page *pg)
{
	const struct vma_rb_layout *lo = pg->layout;
	bool big = lo->big_endian;
	uint32_t end = lo->data_offset + pg->commit;

	while (pg->pos < end) {
		const unsigned char *p = pg->page + pg->pos;
		uint32_t hdr, type_len, delta, arg, total;

		if (!have(pg, end, 4)) {
			return pg->cut ? VMA_RB_DONE :
				bad(pg, "event header crosses the commit end", pg->pos);
		}
		hdr = vma_get32(p, big);
		if (big) {
			type_len = hdr >> 27;
			delta = hdr & ((1u << 27) - 1);
		} else {
			type_len = hdr & 31;
			delta = hdr >> 5;
		}

		if (type_len == VMA_RB_TYPE_PADDING && delta == 0) {
			/* the rest of the page is padding */
			pg->pos = end;
			break;
		}
		if (type_len == 0 || type_len >= VMA_RB_TYPE_PADDING) {
			if (!have(pg, end, 8)) {
				return pg->cut ? VMA_RB_DONE :
					bad(pg, "event crosses the commit end", pg->pos);
			}
			arg = vma_get32(p + 4, big);
		} else {
			arg = 0;
		}

		switch (type_len) {
		case VMA_RB_TYPE_PADDING:
			/* a discarded event: array[0] is its length after the header */
			if (arg < 4 || arg > end - pg->pos - 4)
				return bad(pg, "padding length out of the page", pg->pos);
			pg->ts += delta;
			pg->pos += 4 + arg;
			continue;
		case VMA_RB_TYPE_TIME_EXTEND:
			pg->ts += (uint64_t)arg << VMA_RB_TS_SHIFT | delta;
			pg->pos += 8;
			continue;
		case VMA_RB_TYPE_TIME_STAMP: {
			uint64_t abs = (uint64_t)arg << VMA_RB_TS_SHIFT | delta;

			if (pg->ts & TS_MSB) {
				uint64_t prev = pg->ts;

				abs |= prev & TS_MSB;
				if (abs < prev)
					abs += 1ull << 59;
			}
			pg->ts = abs;
			pg->pos += 8;
			continue;
		}
		case 0:
			/* array[0] counts itself and the payload after it */
			if (arg < 4)
				return bad(pg, "event length too small", pg->pos);
			if (arg > end - pg->pos - 4 || 4 + ((arg + 3) & ~3u) > end - pg->pos)
				return bad(pg, "event crosses the commit end", pg->pos);
			total = 4 + ((arg + 3) & ~3u);
			if (!have(pg, end, total))
				return VMA_RB_DONE;
			pg->ev = p + 8;
			pg->ev_size = arg - 4;
			break;
		default:
			total = 4 + type_len * 4;
			if (total > end - pg->pos)
				return bad(pg, "event crosses the commit end", pg->pos);
			if (!have(pg, end, total))
				return VMA_RB_DONE;
			pg->ev = p + 4;
			pg->ev_size = type_len * 4;
			break;
		}
		pg->ts += delta;
		pg->ev_pos = pg->pos;
		pg->pos += total;
		return VMA_RB_EVENT;
	}
	return VMA_RB_DONE;
}
