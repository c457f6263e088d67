/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-cpu record stream of the KVM readers.  A stream walks the pages
 * of one ring buffer, wherever the file keeps them: a plain run of pages
 * (trace.dat v6, v7 uncompressed, raw ftrace dumps) read a block at a
 * time, or v7 chunks expanded one at a time.  Memory per stream is one
 * block or one chunk, whatever the size of the file.
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

/* Pages read per pread() from an uncompressed run. */
#define BLOCK_PAGES 16
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
	struct vma_decomp *dc;      /* compressed runs only */
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
	unsigned char *zbuf;        /* compressed bytes of a chunk */
	size_t zbuf_cap;
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
};

struct vma_kvm_priv *vma_kvm_priv_new(void)
{
	return calloc(1, sizeof(struct vma_kvm_priv));
}

static void stream_free(struct vma_kvm_stream *s)
{
	if (!s)
		return;
	vma_decomp_free(s->dc);
	free(s->buf);
	free(s->zbuf);
	free(s);
}

void vma_kvm_priv_free(struct vma_kvm_priv *priv)
{
	uint32_t i;

	if (!priv)
		return;
	for (i = 0; i < priv->nr_streams; i++) {
		const struct vma_kvm_stream *s = priv->streams[i];

		if (s->st.pages) {
			vma_diag_debug(s->input->diag, "%s: cpu %" PRIu32 ": %" PRIu64 " pages, %"
				       PRIu64 " records, %" PRIu64 " pages after lost events, %"
				       PRIu64 " damaged parts skipped", s->input->path, s->pub.pcpu,
				       s->st.pages, s->st.records, s->st.missed_pages,
				       s->st.damaged);
		}
		stream_free(priv->streams[i]);
	}
	free(priv->streams);
	vma_kvmev_fini(&priv->ev);
	vma_kvm_formats_free(priv);
	if (priv->tep) {
		vma_kvm_unlink(priv->tep);
		tep_free(priv->tep);
	}
	for (i = 0; i < priv->info.nr_guests; i++) {
		free(priv->guests[i].name);
		free(priv->guests[i].vcpu_pid);
	}
	free(priv->guests);
	for (i = 0; i < priv->info.tsync_nr_cpus; i++)
		free(priv->tsync[i]);
	free(priv->tsync);
	free(priv->tsync_count);
	free(priv->clock_name);
	free(priv->uname);
	free(priv);
}

struct vma_kvm_priv *vma_kvm_priv_of(const struct vma_input *input)
{
	if (!input || (input->ops != &vma_tracedat_ops && input->ops != &vma_ftrace_raw_ops))
		return NULL;
	return input->priv;
}

/* trace-cmd's correction between two time-sync samples. */
static uint64_t tsync_between(uint64_t ts, uint32_t flags, const struct vma_kvm_tsync_sample *a,
			      const struct vma_kvm_tsync_sample *b)
{
	int64_t corr = a->offset;
	uint64_t scaled;

	if ((flags & 1) && b->time != a->time) {
		/* wide enough that damaged samples cannot overflow */
		__int128 span = (__int128)b->time - a->time;
		__int128 part = ((__int128)ts - a->time) * ((__int128)b->offset - a->offset);

		corr = (int64_t)(a->offset + (part + span / 2) / span);
	}
	scaled = a->fraction < 128 ?
		(uint64_t)(((unsigned __int128)ts * a->scaling) >> a->fraction) : 0;
	return scaled + (uint64_t)corr;
}

static uint64_t tsync_apply(const struct vma_kvm_priv *priv, uint64_t ts, uint32_t cpu)
{
	const struct vma_kvm_tsync_sample *s;
	uint32_t n, lo, hi;

	if (cpu >= priv->info.tsync_nr_cpus)
		return ts;
	n = priv->tsync_count[cpu];
	s = priv->tsync[cpu];
	if (n == 0)
		return ts;
	if (n == 1)
		return ts + (uint64_t)s[0].offset;
	if (ts <= s[0].time)
		return tsync_between(ts, priv->info.tsync_flags, &s[0], &s[1]);
	if (ts >= s[n - 1].time)
		return tsync_between(ts, priv->info.tsync_flags, &s[n - 2], &s[n - 1]);
	/* the pair with s[lo].time <= ts < s[lo + 1].time */
	lo = 0;
	hi = n - 1;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s[mid].time <= ts) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	return tsync_between(ts, priv->info.tsync_flags, &s[lo], &s[lo + 1]);
}

uint64_t vma_kvm_time(const struct vma_kvm_priv *priv, uint64_t ts, uint32_t cpu)
{
	if (priv->tsync_on)
		ts = tsync_apply(priv, ts, cpu);
	if (priv->info.tsc2nsec_mult && !priv->time_map.cycles) {
		ts = (uint64_t)(((unsigned __int128)ts * priv->info.tsc2nsec_mult) >>
				(priv->info.tsc2nsec_shift & 127));
	}
	if (!priv->time_map.cycles)
		ts += (uint64_t)priv->info.ts_offset;
	if (priv->time_map.scale_den) {
		ts = (uint64_t)((unsigned __int128)ts * priv->time_map.scale_num /
				priv->time_map.scale_den);
	}
	return ts + (uint64_t)priv->time_map.offset;
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

/* Next block of an uncompressed run: 1 loaded, 0 at the end, or a status. */
static int refill_plain(struct vma_kvm_stream *s)
{
	uint32_t psize = s->layout.page_size;
	uint64_t stop = avail_end(s), n;

	if (s->next >= s->end)
		return 0;
	if (s->next >= stop)
		return report_truncated(s);
	n = stop - s->next;
	if (n > (uint64_t)BLOCK_PAGES * psize)
		n = (uint64_t)BLOCK_PAGES * psize;
	/* Within the budget a block shrinks to one page (always allowed: reading needs one). */
	if (s->buf_cap < n && !fits_budget(s, s->buf_cap, (size_t)n))
		n = psize < n ? psize : n;
	if (grow_pages(s, (size_t)n) < 0) {
		s->state = VMA_ERR_NOMEM;
		return s->state;
	}
	if (read_at(s->input->fd, s->buf, (size_t)n, s->next) < 0)
		return report_read_failure(s, s->next);
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

/* Next chunk of a compressed run: 1 loaded, 0 at the end, or a status. */
static int refill_chunk(struct vma_kvm_stream *s)
{
	uint32_t psize = s->layout.page_size;
	bool big = s->layout.big_endian;
	unsigned char hdr[8];

	for (;;) {
		uint64_t stop = avail_end(s), at = s->next;
		uint32_t csize, usize;
		const char *why = NULL;
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
		if (!why && !fits_budget(s, s->zbuf_cap + s->buf_cap,
					 (csize > s->zbuf_cap ? csize : s->zbuf_cap) +
					 (usize > s->buf_cap ? usize : s->buf_cap))) {
			why = "with the chunks of the other cpus it would expand past the 32 MiB"
			      " vmalyze holds for them (trace-cmd writes chunks of a few pages)";
		}
		if (!why && (grow(s, &s->zbuf, &s->zbuf_cap, csize ? csize : 1) < 0 ||
			     grow_pages(s, usize) < 0)) {
			s->state = VMA_ERR_NOMEM;
			return s->state;
		}
		if (!why && read_at(s->input->fd, s->zbuf, csize, at + 8) < 0)
			return report_read_failure(s, at + 8);
		if (!why && vma_decompress(s->dc, s->zbuf, csize, s->buf, usize, &why) == 0) {
			s->buf_off = at;
			s->buf_len = usize;
			s->buf_page = 0;
			return 1;
		}
		ret = bad_chunk(s, at, why);
		if (ret)
			return ret;
	}
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

/* Loads the next page into s->pg: 1 loaded, 0 at the end, or a status. */
static int next_page(struct vma_kvm_stream *s)
{
	uint32_t psize = s->layout.page_size;

	for (;;) {
		size_t left = s->buf_len > s->buf_page ? s->buf_len - s->buf_page : 0;
		int ret;

		if (left == 0) {
			ret = s->region.compressed ? refill_chunk(s) : refill_plain(s);
			if (ret <= 0)
				return ret;
			continue;
		}
		s->page_off = s->region.compressed ? s->buf_off : s->buf_off + s->buf_page;
		ret = vma_rb_page_load(&s->pg, &s->layout, s->buf + s->buf_page,
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
	if (region->compressed) {
		s->dc = vma_decomp_new(priv->codec);
		if (!s->dc) {
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
	/* the page's current event is the record's until the stream is advanced */
	vma_kvmev_describe(s->priv, s->pg.ev, s->pg.ev_size, stream->pcpu, rec->tsc, sb);
}

void vma_kvm_stream_stats(const struct vma_stream *stream, struct vma_kvm_stream_stats *st)
{
	*st = ((const struct vma_kvm_stream *)stream)->st;
}

/* What was detected, for -v; where the data lie, for -vv. */
void vma_kvm_tell(const struct vma_input *input, const struct vma_kvm_priv *priv)
{
	static const char *const codecs[] = { "", ", zlib", ", zstd" };
	const struct vma_kvm_file_info *fi = &priv->info;
	struct vma_diag *diag = input->diag;
	uint32_t parsed = 0, i, c;
	char what[32];

	for (i = 0; i < priv->nr_formats; i++)
		parsed += priv->formats[i].state == VMA_KVM_FMT_PARSED;
	if (fi->version) {
		snprintf(what, sizeof(what), "trace.dat v%u%s", fi->version,
			 priv->codec < 3 ? codecs[priv->codec] : "");
	} else {
		snprintf(what, sizeof(what), "raw ftrace dump");
	}
	vma_diag_info(diag, "%s: %s, %" PRIu32 " cpus, %" PRIu32 " streams; trace clock %s,"
		      " time stamps in %s%s; %" PRIu32 " event formats, %" PRIu32 " parsed at open",
		      input->path, what, fi->cpu_count, priv->nr_streams, fi->clock,
		      input->clock == VMA_CLOCK_NS ? "nanoseconds" : "cycles",
		      fi->tsc2nsec_mult ? " (TSC2NSEC)" : "", priv->nr_formats, parsed);
	if (fi->trace_id || fi->peer_trace_id) {
		vma_diag_info(diag, "%s: trace id %#" PRIx64 "%s", input->path, fi->trace_id,
			      priv->tsync_on ? "; a guest file: TIME_SHIFT maps its times to"
			      " the host's" : "");
	}
	for (i = 0; i < fi->nr_guests; i++) {
		const struct vma_kvm_guest *g = &fi->guests[i];

		vma_diag_info(diag, "%s: GUEST option %" PRIu32 " \"%s\" (trace id %#" PRIx64
			      "): %" PRIu32 " vcpus, VM %" PRIu32 " of the summary", input->path, i,
			      g->name ? g->name : "", g->trace_id, g->nr_vcpus, i);
		for (c = 0; c < g->nr_vcpus; c++) {
			vma_diag_info(diag, "%s: GUEST option %" PRIu32 ": vcpu %" PRIu32
				      " = host thread %" PRIu32, input->path, i, c, g->vcpu_pid[c]);
		}
	}
	if (fi->uname)
		vma_diag_debug(diag, "%s: recorded on %s", input->path, fi->uname);
	if (fi->tsc2nsec_mult) {
		vma_diag_debug(diag, "%s: TSC2NSEC mult %" PRIu32 " shift %" PRIu32, input->path,
			       fi->tsc2nsec_mult, fi->tsc2nsec_shift);
	}
	for (i = 0; i < priv->nr_streams; i++) {
		const struct vma_kvm_stream *s = priv->streams[i];

		vma_diag_debug(diag, "%s: cpu %" PRIu32 ": %s from byte %" PRIu64 ", %" PRIu64
			       " bytes, %" PRIu32 "-byte pages", input->path, s->pub.pcpu,
			       s->region.compressed ? "compressed chunks" : "pages",
			       s->region.offset, s->region.size, s->layout.page_size);
	}
	for (i = 0; i < priv->nr_formats; i++) {
		const struct vma_kvm_format *f = &priv->formats[i];

		if (f->state != VMA_KVM_FMT_PENDING) {
			vma_diag_debug(diag, "%s: event format %s:%s (id %" PRId32 ") %s at open",
				       input->path, f->system, f->name, f->id,
				       f->state == VMA_KVM_FMT_PARSED ? "parsed" :
				       f->state == VMA_KVM_FMT_REFUSED ? "refused (parse budget)" :
				       "rejected");
		}
	}
}
