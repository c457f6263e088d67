/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-cpu record stream of the KVM readers.  A stream walks the pages
 * of one ring buffer, wherever the file keeps them: a plain run of pages
 * (trace.dat v6, v7 uncompressed, raw ftrace dumps) read a block at a
 * time, or v7 chunks expanded one at a time.  Memory per stream is one
 * block or one chunk, whatever the size of the file; with many cpus, less:
 * the streams' blocks share BLOCKS_BUDGET, and past it (more cpus than
 * pages fit in it) a stream holds only a window of its current page,
 * taken from the input's one unit (the page read, or its chunk expanded)
 * again when another stream's took its place.  The decompressor and the
 * compressed bytes are the input's, not each stream's.
 *
 * Damage is met where it lies, so everything before it is delivered: a
 * truncated run ends the stream with a report naming the byte where the
 * file stops; a corrupt page or chunk is reported with its offset and, when
 * the tolerance allows, skipped.  After a report the caller must not
 * continue past, the stream stays at the status it returned.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "input/kvm-internal.h"
#include "vmalyze/diag.h"
#include "vmalyze/grow.h"
#include "vmalyze/status.h"

/* Pages read per pread() from an uncompressed run, at most. */
#define BLOCK_PAGES 16
/*
 * The blocks of all the streams of an input together: 16 pages each up
 * to 128 cpus of 4 KiB pages, one page from 2,048.  With more cpus than
 * pages fit, each stream holds a window of its share of it instead
 * (8,192 cpus of a full 4 KiB page each held 32 MiB), at least MIN_WINDOW.
 */
#define BLOCKS_BUDGET (8u << 20)
#define MIN_WINDOW 512u
/*
 * A chunk read through windows is expanded again for each window when
 * other cpus' chunks came between: at most WINDOW_SPAN windows long, or
 * SPAN_PAGES pages if that is at most SPAN_MAX bytes and WINDOW_SPAN_MAX
 * windows, so that the expansions stay a bounded multiple of the data
 * (trace-cmd writes chunks of 10 pages, 640 KiB with the 64 KiB pages of
 * some arm64 kernels).
 */
#define WINDOW_SPAN 64u
#define WINDOW_SPAN_MAX 256u
#define SPAN_PAGES 16u
#define SPAN_MAX (1u << 20)
/* Largest chunk accepted, expanded or not: trace-cmd writes far smaller. */
#define MAX_CHUNK (64u << 20)
/*
 * All streams' buffers together, so that a file declaring huge chunks on
 * many cpus (a decompression bomb) cannot take more: trace-cmd's chunks
 * are a few pages, so real files stay far below.
 */
#define BUFFER_BUDGET (32u << 20)

struct vma_kvm_stream {
	struct vma_stream pub;      /* first: the stream pointer is ours */
	struct vma_input *input;
	struct vma_kvm_priv *priv;
	struct vma_kvm_region region;
	struct vma_rb_layout layout;  /* the input's, with this buffer's page size */
	uint64_t next;              /* file offset of the next block or chunk header */
	uint64_t end;               /* end of the run as declared */
	uint32_t chunks_left;
	bool chunks_counted;
	unsigned char *buf;         /* the pages being decoded */
	size_t buf_cap;
	size_t buf_len;
	size_t buf_page;            /* offset in buf of the current page */
	uint64_t buf_off;           /* file offset of buf, or of its chunk */
	uint64_t page_off;          /* file offset of the current page, or of its chunk */
	struct vma_rb_page pg;
	bool in_page;               /* the next event may be taken from pg: no lost record due */
	bool lost_pending;
	uint64_t last_ts;           /* record time of the last data record before a lost one */
	int state;                  /* 0 while running, then the status it ended with */
	bool started;
	/* vma_kvm_time() is a constant's addition (no tsync, TSC scaling or map scale) */
	bool time_plain;
	uint64_t time_add;
	struct vma_kvm_stream_stats st;
	/*
	 * win: the block or chunk (buf_off, buf_len; csize compressed bytes)
	 * is the unit's, priv->unit when it is unit_owner's, and buf holds a
	 * window of the current page, from page byte win_d + data_offset on at
	 * buf + data_offset: pg's positions are the window's.  An event longer
	 * than the window is decoded from the unit (in_unit), and stays there
	 * once delivered (parked, ev_at bytes into the page) until the next call.
	 */
	bool win;
	bool in_unit;
	bool parked;
	uint32_t win_len;           /* bytes of a window, at most */
	uint32_t win_d;
	uint32_t cur_page;          /* offset in the unit of the current page */
	uint32_t page_lim;          /* where the current page's events end (page bytes) */
	uint32_t page_avail;        /* bytes of the current page present */
	uint32_t csize;
	uint32_t ev_at;
	uint64_t page_at;           /* file offset of the current page */
};

/* -vv: what the stream read. */
void vma_kvm_stream_free(struct vma_kvm_stream *s)
{
	if (!s)
		return;
	if (s->st.pages) {
		vma_diag_debug(s->input->diag, "%s: cpu %" PRIu32 ": %" PRIu64 " pages, %" PRIu64
			       " records, %" PRIu64 " pages after lost events, %" PRIu64
			       " damaged parts skipped", s->input->path, s->pub.pcpu, s->st.pages,
			       s->st.records, s->st.missed_pages, s->st.damaged);
	}
	free(s->buf);
	free(s);
}

/* pread all of @len bytes at @off: 0, or -1 (errno set; ENODATA on a short read). */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENODATA;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Whether growing @cap to @need keeps every stream's buffers within BUFFER_BUDGET. */
static bool fits_budget(const struct vma_kvm_stream *s, size_t cap, size_t need)
{
	size_t more = need > cap ? need - cap : 0;

	return s->priv->buffered + more <= BUFFER_BUDGET;
}

static int grow(struct vma_kvm_stream *s, unsigned char **buf, size_t *cap, size_t need)
{
	unsigned char *p;

	if (*cap >= need)
		return 0;
	p = realloc(*buf, need);
	if (!p)
		return -1;
	s->priv->buffered += need - *cap;
	*buf = p;
	*cap = need;
	return 0;
}

/*
 * Room for @len bytes of pages in s->buf, and the slack the record
 * decoders may read past the last one (VMA_KVMEV_SLACK).
 */
static int grow_pages(struct vma_kvm_stream *s, size_t len)
{
	return grow(s, &s->buf, &s->buf_cap, len + VMA_KVMEV_SLACK);
}

/*
 * Ends the stream after damage: when tolerated it just ends (returns 0, "no
 * more pages"), else it stops with VMA_ERR_DAMAGED.  Either way the status
 * sticks.
 */
static int finish(struct vma_kvm_stream *s, bool tolerated)
{
	s->in_page = false;
	s->state = tolerated ? VMA_END : VMA_ERR_DAMAGED;
	return tolerated ? 0 : s->state;
}

static uint64_t avail_end(const struct vma_kvm_stream *s)
{
	return s->end < s->input->size ? s->end : s->input->size;
}

static int report_truncated(struct vma_kvm_stream *s)
{
	bool ok = vma_diag_report(s->input->diag, VMA_LVL_FILE, s->input->path, s->input->size,
				  "File ends inside the trace data of cpu %" PRIu32
				  ", which should run from byte %" PRIu64 " to %" PRIu64
				  ": truncated, the rest of this cpu's events are lost",
				  s->pub.pcpu, s->region.offset, s->end);

	return finish(s, ok);
}

/*
 * A read that came short of the size the file had at open: it shrank while
 * being read.  Otherwise a true read error.
 */
static int report_read_failure(struct vma_kvm_stream *s, uint64_t at)
{
	bool ok;

	if (errno != ENODATA) {
		vma_diag_report(s->input->diag, VMA_LVL_INPUT, s->input->path, at,
				"Cannot read the trace data of cpu %" PRIu32 ": %s; the rest of"
				" this cpu's events are lost", s->pub.pcpu, strerror(errno));
		s->state = VMA_ERR_IO;
		return s->state;
	}
	ok = vma_diag_report(s->input->diag, VMA_LVL_FILE, s->input->path, at,
			     "File ends inside the trace data of cpu %" PRIu32 ", though it was %"
			     PRIu64 " bytes long when opened: it shrank while being read; the"
			     " rest of this cpu's events are lost (read a copy that is not being"
			     " written to)", s->pub.pcpu, s->input->size);
	return finish(s, ok);
}

/* The stream's share of BLOCKS_BUDGET, among the streams the input has or will have. */
static size_t share(const struct vma_kvm_stream *s)
{
	uint32_t n = s->priv->nr_streams > s->priv->nr_planned ? s->priv->nr_streams :
		s->priv->nr_planned;

	return BLOCKS_BUDGET / (n ? n : 1);
}

/* Bytes of a window: the share, at least MIN_WINDOW, at most a page. */
static uint32_t window_len(const struct vma_kvm_stream *s)
{
	size_t n = share(s);

	n = n < MIN_WINDOW ? MIN_WINDOW : n;
	return n < s->layout.page_size ? (uint32_t)n : s->layout.page_size;
}

/* The input's unit for @n bytes (and the decoders' slack), no stream's for now. */
static int grow_unit(struct vma_kvm_stream *s, size_t n)
{
	struct vma_kvm_priv *p = s->priv;

	p->unit_owner = NULL;
	if (grow(s, &p->unit, &p->unit_cap, n + VMA_KVMEV_SLACK) == 0)
		return 0;
	s->state = VMA_ERR_NOMEM;
	return s->state;
}

/* Next block of an uncompressed run: 1 loaded, 0 at the end, or a status. */
static int refill_plain(struct vma_kvm_stream *s)
{
	uint32_t psize = s->layout.page_size;
	uint64_t stop = avail_end(s), n, pages = share(s) / psize;

	if (s->next >= s->end)
		return 0;
	if (s->next >= stop)
		return report_truncated(s);
	n = stop - s->next;
	s->win = pages == 0;
	if (s->win) {
		/* a page into the unit, read from there (or the file) a window at a time */
		n = n < psize ? n : psize;
		if (grow_unit(s, (size_t)n) < 0)
			return s->state;
		if (read_at(s->input->fd, s->priv->unit, (size_t)n, s->next) < 0)
			return report_read_failure(s, s->next);
		s->priv->unit_owner = s;
		s->priv->unit_at = s->next;
		s->win_len = window_len(s);
	} else {
		pages = pages < BLOCK_PAGES ? pages : BLOCK_PAGES;
		n = n < pages * psize ? n : pages * psize;
		if (grow_pages(s, (size_t)n) < 0) {
			s->state = VMA_ERR_NOMEM;
			return s->state;
		}
		if (read_at(s->input->fd, s->buf, (size_t)n, s->next) < 0)
			return report_read_failure(s, s->next);
	}
	s->buf_off = s->next;
	s->buf_len = (size_t)n;
	s->buf_page = 0;
	s->next += n;
	return 1;
}

/* Reports a damaged chunk; returns 0 to go on with the next one, or a status. */
static int bad_chunk(struct vma_kvm_stream *s, uint64_t at, const char *why)
{
	bool ok = vma_diag_report(s->input->diag, VMA_LVL_FILE, s->input->path, at,
				  "Damaged compressed chunk in the trace data of cpu %" PRIu32
				  ": %s; its events are skipped", s->pub.pcpu, why);

	s->st.damaged++;
	return ok ? 0 : finish(s, false);
}

/*
 * Where a chunk of @csize bytes expanding to @usize goes: whole into the
 * stream's buffer while the input's buffers stay within BUFFER_BUDGET and
 * the cpus are few enough to have a page each in BLOCKS_BUDGET, else into
 * the unit, to be read through windows if it is not too long for
 * that (WINDOW_SPAN).  Return: NULL, or why it cannot be expanded.
 */
static const char *chunk_room(struct vma_kvm_stream *s, uint32_t csize, uint32_t usize,
			      bool *whole)
{
	const struct vma_kvm_priv *p = s->priv;
	size_t win = window_len(s), span = (size_t)WINDOW_SPAN * win;
	size_t pages = (size_t)SPAN_PAGES * s->layout.page_size;
	bool few = share(s) >= s->layout.page_size;

	if (pages <= SPAN_MAX && pages <= (size_t)WINDOW_SPAN_MAX * win && pages > span)
		span = pages;

	*whole = few && fits_budget(s, p->zbuf_cap + s->buf_cap,
				    (csize > p->zbuf_cap ? csize : p->zbuf_cap) +
				    (usize > s->buf_cap ? usize : s->buf_cap));
	/* compressed bytes beyond twice the expanded ones are no compressor's */
	if (*whole || (usize <= span && csize <= 2 * span))
		return NULL;
	if (few) {
		return "with the chunks of the other cpus it would expand past the 32 MiB"
			" vmalyze holds for them (trace-cmd writes chunks of a few pages)";
	}
	return "with this many cpus their pages are read a window at a time, and it is"
		" longer than the 64 windows (16 pages if that is at most 1 MiB and 256"
		" windows) vmalyze expands a chunk again for (trace-cmd writes chunks of"
		" 10 pages)";
}

/* Next chunk of a compressed run: 1 loaded, 0 at the end, or a status. */
static int refill_chunk(struct vma_kvm_stream *s)
{
	struct vma_kvm_priv *p = s->priv;
	uint32_t psize = s->layout.page_size;
	bool big = s->layout.big_endian;
	unsigned char hdr[8];

	for (;;) {
		uint64_t stop = avail_end(s), at = s->next;
		uint32_t csize, usize;
		const char *why = NULL;
		bool whole = false;
		int ret;

		if (!s->chunks_counted) {
			if (s->next + 4 > stop)
				return s->next + 4 > s->end ? 0 : report_truncated(s);
			if (read_at(s->input->fd, hdr, 4, s->next) < 0)
				return report_read_failure(s, s->next);
			s->chunks_left = vma_get32(hdr, big);
			s->chunks_counted = true;
			s->next += 4;
			continue;
		}
		if (s->chunks_left == 0 || s->next >= s->end)
			return 0;
		if (at + 8 > stop)
			return report_truncated(s);
		if (read_at(s->input->fd, hdr, 8, at) < 0)
			return report_read_failure(s, at);
		csize = vma_get32(hdr, big);
		usize = vma_get32(hdr + 4, big);
		if (at + 8 + csize > s->end) {
			/* nothing after it can be trusted to start where it says */
			ret = bad_chunk(s, at, "its size runs past the end of the cpu's data");
			return ret ? ret : finish(s, true);
		}
		if (at + 8 + csize > stop)
			return report_truncated(s);
		s->next = at + 8 + csize;
		s->chunks_left--;
		if (usize == 0 || usize > MAX_CHUNK || csize > MAX_CHUNK) {
			why = usize == 0 ? "it expands to nothing" : "it is implausibly large";
		} else if (usize % psize) {
			why = "its expanded size is not a whole number of pages";
		}
		if (!why)
			why = chunk_room(s, csize, usize, &whole);
		if (!why && (grow(s, &p->zbuf, &p->zbuf_cap, csize ? csize : 1) < 0 ||
			     (whole ? grow_pages(s, usize) : grow_unit(s, usize)) < 0)) {
			s->state = VMA_ERR_NOMEM;
			return s->state;
		}
		if (!why && read_at(s->input->fd, p->zbuf, csize, at + 8) < 0)
			return report_read_failure(s, at + 8);
		if (!why && vma_decompress(p->dc, p->zbuf, csize, whole ? s->buf : p->unit, usize,
					   &why) == 0) {
			s->buf_off = at;
			s->buf_len = usize;
			s->buf_page = 0;
			s->win = !whole;
			if (s->win) {
				s->csize = csize;
				s->win_len = window_len(s);
				p->unit_owner = s;
				p->unit_at = at;
			}
			return 1;
		}
		ret = bad_chunk(s, at, why);
		if (ret)
			return ret;
	}
}

/*
 * The unit of a windowed stream, read (or its chunk expanded) again into
 * priv->unit when another stream's took its place.  Return: 0, or after a
 * report the status the stream ended with (VMA_END when tolerated).
 */
static int unit_load(struct vma_kvm_stream *s)
{
	struct vma_kvm_priv *p = s->priv;
	const char *why = NULL;
	bool ok;

	if (p->unit_owner == s && p->unit_at == s->buf_off)
		return 0;
	/* the unit and zbuf were grown for this unit when it was first read */
	p->unit_owner = NULL;
	if (!s->region.compressed) {
		if (read_at(s->input->fd, p->unit, s->buf_len, s->buf_off) < 0) {
			report_read_failure(s, s->buf_off);
			return s->state;
		}
	} else {
		if (read_at(s->input->fd, p->zbuf, s->csize, s->buf_off + 8) < 0) {
			report_read_failure(s, s->buf_off + 8);
			return s->state;
		}
		if (vma_decompress(p->dc, p->zbuf, s->csize, p->unit, s->buf_len, &why) < 0) {
			ok = vma_diag_report(s->input->diag, VMA_LVL_FILE, s->input->path,
					     s->buf_off, "Compressed chunk in the trace data of cpu %"
					     PRIu32 " no longer expands as it did (%s): the file"
					     " changed while being read; the rest of this cpu's events"
					     " are lost (read a copy that is not being written to)",
					     s->pub.pcpu, why);
			finish(s, ok);
			return s->state;
		}
	}
	p->unit_owner = s;
	p->unit_at = s->buf_off;
	return 0;
}

/*
 * Starts the window of the current page at page byte @pos (at least
 * data_offset): the bytes up to where its events end, at most win_len,
 * from the unit when it holds them, else from the file or the chunk
 * expanded again; pg's positions are moved onto it.  Return: 0, or the
 * status the stream ended with (unit_load()).
 */
static int window_at(struct vma_kvm_stream *s, uint32_t pos)
{
	struct vma_kvm_priv *p = s->priv;
	uint32_t dofs = s->layout.data_offset, d = pos - dofs;
	uint32_t len = s->page_lim > pos ? s->page_lim - pos : 0;
	int ret;

	len = len < s->win_len ? len : s->win_len;
	if (grow_pages(s, dofs + len) < 0) {
		s->state = VMA_ERR_NOMEM;
		return s->state;
	}
	if (!s->region.compressed && !(p->unit_owner == s && p->unit_at == s->buf_off)) {
		if (read_at(s->input->fd, s->buf + dofs, len, s->page_at + pos) < 0) {
			report_read_failure(s, s->page_at + pos);
			return s->state;
		}
	} else {
		ret = unit_load(s);
		if (ret)
			return ret;
		memcpy(s->buf + dofs, p->unit + s->cur_page + pos, len);
	}
	/* the commit and positions in window terms: page byte x is buf[x - d] */
	s->pg.commit = s->pg.commit + s->win_d - d;
	s->pg.page = s->buf;
	s->pg.pos = dofs;
	s->pg.avail = dofs + len;
	s->pg.lim = dofs + len;
	s->pg.cut = false;
	s->win_d = d;
	if (!s->region.compressed)
		s->page_off = s->page_at + d;
	return 0;
}

/* pg back on the current page in the unit (read again if need be): 0 or as unit_load(). */
static int to_unit(struct vma_kvm_stream *s)
{
	int ret = unit_load(s);

	if (ret)
		return ret;
	s->pg.page = s->priv->unit + s->cur_page;
	s->pg.pos += s->win_d;
	s->pg.commit += s->win_d;
	s->pg.avail = s->page_avail;
	s->pg.lim = s->page_lim;
	s->pg.cut = false;
	s->win_d = 0;
	s->page_off = s->region.compressed ? s->buf_off : s->page_at;
	s->in_unit = true;
	return 0;
}

/*
 * A windowed stream left its page (s->in_page false): when its window
 * ran out before the page's events, the next window, or for an event
 * longer than a window the page in the unit, to decode that one event
 * from.  Return: 1 in the page again, 0 when the page is done (or the
 * stream ended, s->state), or a status.
 */
static int window_on(struct vma_kvm_stream *s)
{
	uint32_t pos;
	int ret;

	if (s->in_unit) {
		s->in_unit = false;
		if (!s->parked)
			return 0; /* the page ended there */
		/* its event was delivered: on from the next one in a window */
		s->parked = false;
		pos = s->pg.pos;
	} else {
		if (!s->pg.cut || s->win_d + s->pg.avail >= s->page_lim)
			return 0;
		pos = s->pg.pos + s->win_d;
		if (s->pg.pos == s->layout.data_offset) {
			/* a whole window did not hold the event */
			ret = to_unit(s);
			if (ret)
				return ret < 0 ? ret : 0;
			s->in_page = true;
			return 1;
		}
	}
	ret = window_at(s, pos);
	if (ret)
		return ret < 0 ? ret : 0;
	s->in_page = true;
	return 1;
}

/* Reports damage in the current page.  Return: true when tolerated. */
static bool bad_page(struct vma_kvm_stream *s, const char *action)
{
	bool packed = s->region.compressed;

	s->st.damaged++;
	return vma_diag_report(s->input->diag, VMA_LVL_FILE, s->input->path,
			       s->page_off + (packed ? 0 : s->pg.error_at),
			       "Corrupt ring-buffer page of cpu %" PRIu32 "%s: %s; %s",
			       s->pub.pcpu, packed ? " (in the chunk at this offset)" : "",
			       s->pg.error, action);
}

/*
 * Loads the next page into s->pg (of a windowed stream, its first
 * window): 1 loaded, 0 at the end, or a status.
 */
static int next_page(struct vma_kvm_stream *s)
{
	uint32_t psize = s->layout.page_size;

	for (;;) {
		size_t left = s->buf_len > s->buf_page ? s->buf_len - s->buf_page : 0;
		const unsigned char *src;
		int ret;

		if (left == 0) {
			ret = s->region.compressed ? refill_chunk(s) : refill_plain(s);
			if (ret <= 0)
				return ret;
			continue;
		}
		s->page_off = s->region.compressed ? s->buf_off : s->buf_off + s->buf_page;
		src = s->buf;
		if (s->win) {
			ret = unit_load(s);
			if (ret)
				return ret < 0 ? ret : 0;
			src = s->priv->unit;
		}
		s->cur_page = (uint32_t)s->buf_page;
		ret = vma_rb_page_load(&s->pg, &s->layout, src + s->buf_page,
				       (uint32_t)(left < psize ? left : psize));
		s->buf_page += left < psize ? left : psize;
		s->st.pages++;
		if (ret == VMA_RB_BAD) {
			if (s->pg.cut) {
				continue; /* the truncation is reported by the refill */
			}
			if (!bad_page(s, "page skipped"))
				return finish(s, false);
			continue;
		}
		if (s->win) {
			s->page_at = s->page_off;
			s->page_avail = s->pg.avail;
			s->page_lim = s->pg.lim;
			s->win_d = 0;
			ret = window_at(s, s->pg.pos);
			if (ret)
				return ret < 0 ? ret : 0;
		}
		if (s->pg.missed) {
			s->st.missed_pages++;
			s->lost_pending = true;
		}
		/* a lost record first, then the page's events */
		s->in_page = !s->lost_pending;
		return 1;
	}
}

static void emit_lost(struct vma_kvm_stream *s)
{
	struct vma_record *rec = &s->pub.rec;
	uint64_t count = s->pg.missed_stored ? s->pg.missed_count : UINT64_MAX;

	vma_diag_warn_once_in(s->input->diag, s->input->path, "kvm-lost-events",
			      "offset %" PRIu64 ": The ring buffer of cpu %" PRIu32 " lost events"
			      " before this page while recording (it was full): the report"
			      " misses them; a larger buffer (trace-cmd record -b) loses fewer",
			      s->page_off, s->pub.pcpu);
	/* the record before is still the stream's: its time, unless it was a lost one too */
	if (!(rec->flags & VMA_REC_SYNTHETIC))
		s->last_ts = rec->tsc;
	memset(rec, 0, sizeof(*rec));
	rec->event = VMA_KVM_LOST;
	rec->tsc = vma_kvm_time(s->priv, s->pg.base_ts, s->pub.pcpu);
	rec->offset = s->page_off;
	rec->pcpu = s->pub.pcpu;
	rec->flags = VMA_REC_SYNTHETIC | VMA_REC_HAS_TSC;
	rec->nr_data = 4;
	rec->data[0] = (uint32_t)count;
	rec->data[1] = (uint32_t)(count >> 32);
	rec->data[2] = (uint32_t)s->last_ts;
	rec->data[3] = (uint32_t)(s->last_ts >> 32);
	s->lost_pending = false;
	s->in_page = true;
	s->st.records++;
}

/* An event id no format names: said once, with what to do about it. */
static void no_format(const struct vma_kvm_stream *s, const struct vma_record *rec)
{
	bool raw = s->input->ops == &vma_ftrace_raw_ops;

	if (raw && !(s->input->options && s->input->options->event_formats_dir)) {
		vma_diag_warn_once_in(s->input->diag, s->input->path, "kvm-no-format",
				      "offset %" PRIu64 ": Event id %" PRIu32 " has no event format:"
				      " a raw dump carries none, and only the built-in kvm_entry and"
				      " kvm_exit are known; give the recording kernel's formats with"
				      " --event-formats DIR (its tracefs events folder)",
				      rec->offset, rec->data[VMA_KVM_OTHER_FTRACE_ID]);
	} else {
		vma_diag_warn_once_in(s->input->diag, s->input->path, "kvm-no-format",
				      "offset %" PRIu64 ": Event id %" PRIu32 " has no event format"
				      " in the %s; such events are counted as \"other\"",
				      rec->offset, rec->data[VMA_KVM_OTHER_FTRACE_ID],
				      raw ? "--event-formats folder" : "file");
	}
}

/* An event too short for its header: 0 to skip it, or a status. */
static __attribute__((cold, noinline)) int short_event(struct vma_kvm_stream *s)
{
	s->st.damaged++;
	if (!vma_diag_report(s->input->diag, VMA_LVL_RECORD, s->input->path, s->pub.rec.offset,
			     "Event of %" PRIu32 " bytes on cpu %" PRIu32
			     " is too short for an event header: skipped", s->pg.ev_size,
			     s->pub.pcpu)) {
		return finish(s, false);
	}
	return 0;
}

/*
 * The current event as @rec when no fixed decoder reads it: 1 filled, 0
 * skipped, or a status.
 */
static __attribute__((noinline)) int fill_slow(struct vma_kvm_stream *s, struct vma_record *rec)
{
	if (vma_kvmev_fill(&s->priv->ev, s->pg.ev, s->pg.ev_size, rec) < 0)
		return short_event(s);
	if (rec->event == VMA_KVM_OTHER && rec->data[VMA_KVM_OTHER_INDEX] == UINT32_MAX)
		no_format(s, rec);
	return 1;
}

/* What a stream's next() knows of the stream beforehand (see next_in_page()). */
enum knows {
	KNOWS_NOTHING,     /* stream_next() */
	KNOWS_PAGES,       /* usual, its pages read as they are from the file */
	KNOWS_CHUNKS,      /* usual, its pages expanded from compressed chunks */
};

/*
 * The current event as the stream's record: 1 delivered, 0 skipped, or a
 * status.  rec->pcpu is the stream's since its first record.
 */
static inline __attribute__((always_inline)) int deliver(struct vma_kvm_stream *s,
							enum knows knows)
{
	struct vma_record *rec = &s->pub.rec;
	const struct vma_kvmev_bind *b = vma_kvmev_fixed(&s->priv->ev, s->pg.ev, s->pg.ev_size);

	/* an event in a chunk is found by the chunk's offset */
	if (knows == KNOWS_CHUNKS || (knows == KNOWS_NOTHING && s->region.compressed))
		rec->offset = s->page_off;
	else
		rec->offset = s->page_off + s->pg.ev_pos;
	if (__builtin_expect(b != NULL, 1)) {
		vma_kvmev_decode(b, s->pg.ev, rec);
	} else {
		int ret = fill_slow(s, rec);

		if (ret <= 0)
			return ret;
	}
	/* after the fill: a skipped event leaves the last record's time and flags (emit_lost()) */
	rec->flags = VMA_REC_HAS_TSC;
	rec->tsc = knows != KNOWS_NOTHING || s->time_plain ? s->pg.ts + s->time_add :
		vma_kvm_time(s->priv, s->pg.ts, s->pub.pcpu);
	s->st.records++;
	return 1;
}

static int stream_next_pages(struct vma_stream *stream);
static int stream_next_chunks(struct vma_stream *stream);

/* stream_next() but for the usual record: starts, pages, lost events, the ends. */
static __attribute__((noinline)) int stream_walk(struct vma_kvm_stream *s)
{
	if (s->state)
		return s->state;
	if (!s->started) {
		const struct vma_kvm_priv *p = s->priv;

		s->started = true;
		/* the file's options and the time map are known by the first record */
		s->time_plain = !p->tsync_on && !p->time_map.scale_den &&
			(p->time_map.cycles || !p->info.tsc2nsec_mult);
		s->time_add = (p->time_map.cycles ? 0 : (uint64_t)p->info.ts_offset) +
			(uint64_t)p->time_map.offset;
		if (s->time_plain && !s->layout.big_endian)
			s->pub.next = s->region.compressed ? stream_next_chunks : stream_next_pages;
		if (s->region.offset > s->input->size) {
			bool ok = vma_diag_report(s->input->diag, VMA_LVL_FILE, s->input->path,
						  s->input->size,
						  "File ends before the trace data of cpu %" PRIu32
						  ", which should start at byte %" PRIu64
						  ": truncated, no events of this cpu can be read",
						  s->pub.pcpu, s->region.offset);

			finish(s, ok);
			return s->state;
		}
	}
	for (;;) {
		int ret;

		if (s->lost_pending) {
			emit_lost(s);
			return VMA_OK;
		}
		if (!s->in_page) {
			if (s->win) {
				ret = window_on(s);
				if (ret < 0)
					return ret;
				if (ret > 0)
					continue;
				if (s->state)
					return s->state;
			}
			ret = next_page(s);
			if (ret < 0)
				return ret;
			if (ret == 0) {
				if (!s->state)
					s->state = VMA_END;
				return s->state;
			}
			continue;
		}
		ret = vma_rb_page_step(&s->pg);
		if (ret == VMA_RB_EVENT) {
			ret = deliver(s, KNOWS_NOTHING);
			if (ret == 0)
				continue;
			if (s->in_unit && ret > 0) {
				/* parked: the lean path never reads a unit another stream may take */
				s->parked = true;
				s->in_page = false;
				s->ev_at = (uint32_t)(s->pg.ev - s->pg.page);
			}
			return ret < 0 ? ret : VMA_OK;
		}
		s->in_page = false;
		if (ret == VMA_RB_BAD) {
			if (!bad_page(s, "rest of the page skipped"))
				return finish(s, false);
		}
	}
}

/*
 * stream_next(): the next data event of the page being read, without the
 * walk's frame.  The usual stream (@knows not KNOWS_NOTHING) has
 * little-endian pages and record times that are the stamp plus a
 * constant: stream_next_pages() or stream_next_chunks() is its next()
 * from its first record.
 */
static inline __attribute__((always_inline)) int next_in_page(struct vma_kvm_stream *s,
							     enum knows knows)
{
	if (__builtin_expect(s->in_page, 1)) {
		int ret = knows != KNOWS_NOTHING ? vma_rb_page_step_in(&s->pg, false) :
			vma_rb_page_step(&s->pg);

		if (ret == VMA_RB_EVENT) {
			ret = deliver(s, knows);
			if (ret != 0)
				return ret < 0 ? ret : VMA_OK;
		} else {
			s->in_page = false;
			if (ret == VMA_RB_BAD && !bad_page(s, "rest of the page skipped"))
				return finish(s, false);
		}
	}
	return stream_walk(s);
}

static int stream_next(struct vma_stream *stream)
{
	return next_in_page((struct vma_kvm_stream *)stream, KNOWS_NOTHING);
}

static int stream_next_pages(struct vma_stream *stream)
{
	return next_in_page((struct vma_kvm_stream *)stream, KNOWS_PAGES);
}

static int stream_next_chunks(struct vma_stream *stream)
{
	return next_in_page((struct vma_kvm_stream *)stream, KNOWS_CHUNKS);
}

uint64_t vma_kvm_region_end(const struct vma_kvm_region *region)
{
	uint64_t end = region->offset + region->size;

	if (region->compressed) {
		/* trace-cmd 3.1 leaves the 4-byte chunk count out of the size */
		end += 4;
	}
	return end < region->offset ? UINT64_MAX : end;
}

int vma_kvm_stream_add(struct vma_input *input, struct vma_kvm_priv *priv, uint32_t cpu,
		       const struct vma_kvm_region *region)
{
	struct vma_kvm_stream *s;
	int ret;

	s = calloc(1, sizeof(*s));
	/* doubling: 8,192 cpus grown one at a time copied 256 MiB of arrays */
	if (!s || vma_grow(priv->streams, &priv->cap_streams, priv->nr_streams + 1, 16) < 0) {
		free(s);
		return VMA_ERR_NOMEM;
	}
	s->input = input;
	s->priv = priv;
	s->region = *region;
	s->layout = priv->layout;
	if (region->page_size)
		s->layout.page_size = region->page_size;
	s->next = region->offset;
	s->end = vma_kvm_region_end(region);
	s->pub.next = stream_next;
	s->pub.input = input;
	s->pub.pcpu = cpu;
	s->pub.rec.pcpu = cpu;
	if (region->compressed && !priv->dc) {
		priv->dc = vma_decomp_new(priv->codec);
		if (!priv->dc) {
			free(s);
			return VMA_ERR_NOMEM;
		}
	}
	priv->streams[priv->nr_streams++] = s;
	if (input->new_stream) {
		ret = input->new_stream(input->new_stream_arg, &s->pub);
		if (ret < 0)
			return ret;
	}
	return VMA_OK;
}

void vma_kvm_stream_describe(const struct vma_stream *stream, struct vma_strbuf *sb)
{
	const struct vma_kvm_stream *s = (const struct vma_kvm_stream *)stream;
	const struct vma_record *rec = &stream->rec;

	if (rec->event == VMA_KVM_LOST) {
		uint64_t n = vma_rec_u64(rec, 0);

		if (n == UINT64_MAX) {
			vma_sb_puts(sb, "lost events: the ring buffer overflowed before this page");
		} else {
			vma_sb_printf(sb, "lost events: %" PRIu64
				      " events dropped before this page", n);
		}
		return;
	}
	if ((rec->flags & VMA_REC_SYNTHETIC) || !s->pg.ev) {
		vma_sb_puts(sb, "(no event)");
		return;
	}
	if (s->parked) {
		/* in the input's unit, which another stream's may have taken since */
		struct vma_kvm_stream *m = (struct vma_kvm_stream *)stream;

		if (unit_load(m)) {
			vma_sb_puts(sb, "(no event)");
			return;
		}
		m->pg.page = s->priv->unit + s->cur_page;
		m->pg.ev = m->pg.page + s->ev_at;
	}
	/* the page's current event is the record's until the stream is advanced */
	vma_kvmev_describe(s->priv, s->pg.ev, s->pg.ev_size, stream->pcpu, rec->tsc, sb);
}

void vma_kvm_stream_stats(const struct vma_stream *stream, struct vma_kvm_stream_stats *st)
{
	*st = ((const struct vma_kvm_stream *)stream)->st;
}

/* -vv: where the stream's data lie. */
void vma_kvm_stream_tell(const struct vma_kvm_stream *s)
{
	vma_diag_debug(s->input->diag, "%s: cpu %" PRIu32 ": %s from byte %" PRIu64 ", %" PRIu64
		       " bytes, %" PRIu32 "-byte pages", s->input->path, s->pub.pcpu,
		       s->region.compressed ? "compressed chunks" : "pages", s->region.offset,
		       s->region.size, s->layout.page_size);
}
