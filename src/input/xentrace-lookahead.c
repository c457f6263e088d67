/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A quick look at a xentrace file's first records in time order
 * (vma_xentrace_lookahead_clear(), input.h), without the reader's buffers,
 * window queues and cache, nor the merge: the file is read from its start
 * through one buffer, each window header where the chain puts it, and each
 * pcpu's first records, up to the look-ahead's length.
 *
 * Why that answers for the merged order: the merge never reorders a
 * stream, so of the first N records it delivers, those of a pcpu are at
 * most its first N; what the reader adds (the end of a lost-records gap)
 * matches no class of the file's own records.  Reading the pcpus' first N
 * records reads more than the look-ahead, never less, as long as they are
 * the records the reader delivers: anything the reader would report and
 * skip (a window header not where the chain puts one, a record across its
 * window's end, a file cut short) ends the look with "not sure", as does a
 * record that matches (it may be past the look-ahead: the caller asks the
 * merge, which knows).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/xentrace-internal.h"
#include "vmalyze/input.h"

/* Bytes read at once while records are wanted, and at a header that may be skipped. */
#define LA_CHUNK (64u * 1024u)
#define LA_PEEK 4096u
/* Pcpu numbers looked at (the reader's limit on distinct pcpus, as numbers). */
#define LA_MAX_PCPU XT_MAX_PCPUS

struct la_file {
	int fd;
	uint64_t size;
	unsigned char *buf;
	uint64_t buf_off;
	size_t buf_len;
};

/* @n bytes at @off (reading @want from there if they are not in), or NULL. */
static const unsigned char *la_bytes(struct la_file *f, uint64_t off, size_t n, size_t want)
{
	size_t got = 0;

	if (off >= f->buf_off && off + n <= f->buf_off + f->buf_len)
		return f->buf + (off - f->buf_off);
	if (f->size - off < n)
		return NULL;
	if (want > f->size - off)
		want = (size_t)(f->size - off);
	while (got < want) {
		ssize_t r = pread(f->fd, f->buf + got, want - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	f->buf_off = off;
	f->buf_len = got;
	return got >= n ? f->buf : NULL;
}

/* Whether @rec, of @header at @p (@size bytes), is of the class asked about and matches. */
static bool la_matches(struct vma_record *rec, const unsigned char *p, uint32_t header,
		       uint32_t size, uint64_t pos, const struct vma_lookahead_query *q)
{
	rec->event = TRC_HD_TO_EVENT(header);
	if ((rec->event & q->class_mask) != q->class_value)
		return false;
	rec->offset = pos;
	rec->nr_data = (uint16_t)TRC_HD_EXTRA(header);
	memset(rec->data, 0, sizeof(rec->data));
	memcpy(rec->data, p + size - 4 * rec->nr_data, 4 * rec->nr_data);
	return q->match(rec);
}

/*
 * The records of pcpu @cpu's window [@pos, @end), until *@seen reaches
 * @q->records: those whole in the buffer one after the other, then the
 * buffer read on from the first that is not.  False when the window is
 * not plain or a record matches.
 */
static bool la_window(struct la_file *f, uint32_t cpu, uint32_t *seen, uint64_t pos,
		      uint64_t end, const struct vma_lookahead_query *q)
{
	struct vma_record rec = { .pcpu = cpu };

	while (pos < end && *seen < q->records) {
		const unsigned char *p = end - pos < 4 ? NULL : la_bytes(f, pos, 4, LA_CHUNK);
		uint64_t avail;
		uint32_t header, size;

		if (!p)
			return false;
		avail = f->buf_off + f->buf_len - pos;
		if (avail > end - pos)
			avail = end - pos;
		while (avail >= 4 && *seen < q->records) {
			header = xt_le32(p);
			size = 4 + (TRC_HD_INCLUDES_CYCLE_COUNT(header) ? 8 : 0) +
			       4 * TRC_HD_EXTRA(header);
			if (size > avail) {
				/* Past the window's end: damage; else read from it on. */
				if (end - pos < size || !la_bytes(f, pos, size, LA_CHUNK))
					return false;
				break;
			}
			if (la_matches(&rec, p, header, size, pos, q))
				return false;
			p += size;
			pos += size;
			avail -= size;
			++*seen;
		}
	}
	return true;
}

/* The walk along the chain of windows, @seen counting each pcpu's records. */
static bool la_walk(struct la_file *f, uint32_t *seen, const struct vma_lookahead_query *q)
{
	uint64_t off = 0;

	while (off < f->size) {
		const unsigned char *h = la_bytes(f, off, CPU_CHANGE_SIZE, LA_PEEK);
		uint64_t start, end;
		uint32_t cpu;

		if (!h || xt_le32(h) != CPU_CHANGE_HEADER)
			return false;
		cpu = xt_le32(h + 4);
		start = off + CPU_CHANGE_SIZE;
		end = start + xt_le32(h + 8);
		if (cpu >= LA_MAX_PCPU || end > f->size)
			return false;
		if (!la_window(f, cpu, &seen[cpu], start, end, q))
			return false;
		off = end;
	}
	return true;
}

bool vma_xentrace_lookahead_clear(const char *path, const struct vma_lookahead_query *q)
{
	/* O_NONBLOCK: a FIFO's open does not wait for a writer (and is refused below). */
	struct la_file f = { .fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) };
	uint32_t *seen = calloc(LA_MAX_PCPU, sizeof(*seen));
	bool clear = false;
	struct stat st;

	f.buf = malloc(LA_CHUNK);
	if (f.fd >= 0 && seen && f.buf && fstat(f.fd, &st) == 0 && S_ISREG(st.st_mode)) {
		f.size = (uint64_t)st.st_size;
		clear = la_walk(&f, seen, q);
	}
	free(seen);
	free(f.buf);
	if (f.fd >= 0)
		close(f.fd);
	return clear;
}
