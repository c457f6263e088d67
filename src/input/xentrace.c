/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reader for xentrace binary files.
 *
 * xentrace copies each pcpu's trace buffer to the file in chunks, each
 * preceded by a TRC_TRACE_CPU_CHANGE record {cpu, window_size}; chunks of
 * different pcpus are interleaved in whatever order xentrace got to them.
 * This reader turns that into one stream per pcpu:
 *
 *  - one scanner walks the chain of window headers from the start of the
 *    file, lazily, and queues each window on its pcpu;
 *  - each pcpu stream reads its own windows with pread() into a small
 *    buffer of its own, so memory does not grow with the file and a file
 *    of any size (4 GiB and more) is never loaded or mapped whole.
 *
 * At open the scanner indexes every window header in the file (12 bytes
 * read per window, 12 bytes kept), so every pcpu is known, and merged,
 * from its first record: a pcpu whose first window is written late in the
 * file may hold records older than records of windows written before it.
 *
 * Records without a TSC take their pcpu's last TSC.  A TRC_LOST_RECORDS
 * record is delivered at the time of the first lost record and followed by
 * a VMA_SYNTH_LOST_END record at its own time, so the gap has both ends in
 * time order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmalyze/diag.h"
#include "vmalyze/input.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

/* Header word of a TRC_TRACE_CPU_CHANGE record: 2 extra words, no TSC. */
#define CPU_CHANGE_HEADER ((2u << TRACE_EXTRA_SHIFT) | TRC_TRACE_CPU_CHANGE)
#define CPU_CHANGE_SIZE 12u
/* Largest record: header, TSC, 7 words. */
#define MAX_RECORD_SIZE (4u + 8u + 4u * TRACE_EXTRA_MAX)
/*
 * A pcpu number above this is taken for corruption: Xen's NR_CPUS tops out
 * far below it, and pcpu tables are sized by the highest number seen.
 */
#define MAX_PCPU_ID (1u << 20)

struct window {
	uint64_t start; /* file offset of the first record */
	uint64_t end;   /* file offset just past the last byte */
	bool cut;       /* the file ends inside it (already reported) */
};

struct pcpu_stream {
	struct vma_stream stream; /* first: the merge sees only this */
	struct xt_reader *reader;
	/* Windows found by the scanner and not yet read (a ring). */
	struct window *queue;
	size_t q_head, q_len, q_cap;
	/* The window being read. */
	uint64_t pos, end;
	bool cut;
	/* Read buffer: bytes [buf_off, buf_off + buf_len) of the file. */
	unsigned char *buf;
	size_t buf_cap, buf_len;
	uint64_t buf_off;
	uint64_t last_tsc;
	bool have_lost_end;
	struct vma_record lost_end;
	bool announced;
};

struct xt_reader {
	struct vma_input *input;
	struct pcpu_stream **pcpus; /* indexed by pcpu number */
	uint32_t nr_slots;
	uint32_t nr_pcpus;
	uint64_t scan_off;          /* next window header */
	bool scan_done;
	bool stopped;               /* read error: every stream ends now */
	int status;                 /* what streams return once their windows run out */
};

/*
 * Damage above the tolerance ends the scan: no window at or after the
 * damage is read, but windows found before it still are, so the output
 * covers what precedes the reported offset.
 */
static int report(struct xt_reader *rd, enum vma_level level, uint64_t offset, const char *what)
{
	if (!vma_diag_report(rd->input->diag, level, rd->input->path, offset, "%s", what)) {
		rd->scan_done = true;
		rd->status = VMA_ERR_DAMAGED;
		return VMA_ERR_DAMAGED;
	}
	return VMA_OK;
}

static int read_exact(struct xt_reader *rd, void *dst, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(rd->input->fd, (char *)dst + done, len - done,
				  (off_t)(off + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			vma_diag_report(rd->input->diag, VMA_LVL_INPUT, rd->input->path,
					off + done, "Cannot read: %s", strerror(errno));
			rd->stopped = true;
			rd->status = VMA_ERR_IO;
			return VMA_ERR_IO;
		}
		if (n == 0)
			return VMA_END;
		done += (size_t)n;
	}
	return VMA_OK;
}

static inline uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static int stream_next(struct vma_stream *stream);

/* Buffer size per pcpu: fewer, larger reads when there are few pcpus. */
static size_t buffer_size_for(uint32_t nr_pcpus)
{
	if (nr_pcpus <= 16)
		return 256 * 1024;
	if (nr_pcpus <= 128)
		return 64 * 1024;
	return 16 * 1024;
}

static struct pcpu_stream *pcpu_get(struct xt_reader *rd, uint32_t cpu)
{
	struct pcpu_stream *ps;

	if (cpu >= rd->nr_slots) {
		uint32_t slots = rd->nr_slots ? rd->nr_slots : 8;
		struct pcpu_stream **arr;

		while (slots <= cpu)
			slots *= 2;
		arr = realloc(rd->pcpus, slots * sizeof(*arr));
		if (!arr)
			return NULL;
		memset(arr + rd->nr_slots, 0, (slots - rd->nr_slots) * sizeof(*arr));
		rd->pcpus = arr;
		rd->nr_slots = slots;
	}
	if (rd->pcpus[cpu])
		return rd->pcpus[cpu];
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	ps->buf_cap = buffer_size_for(rd->nr_pcpus + 1);
	ps->buf = malloc(ps->buf_cap);
	if (!ps->buf) {
		free(ps);
		return NULL;
	}
	ps->reader = rd;
	ps->stream.next = stream_next;
	ps->stream.input = rd->input;
	ps->stream.pcpu = cpu;
	rd->pcpus[cpu] = ps;
	rd->nr_pcpus++;
	return ps;
}

static int queue_window(struct pcpu_stream *ps, uint64_t start, uint64_t end, bool cut)
{
	if (ps->q_len == ps->q_cap) {
		size_t cap = ps->q_cap ? ps->q_cap * 2 : 16;
		struct window *q = malloc(cap * sizeof(*q));
		size_t i;

		if (!q)
			return VMA_ERR_NOMEM;
		for (i = 0; i < ps->q_len; i++)
			q[i] = ps->queue[(ps->q_head + i) % ps->q_cap];
		free(ps->queue);
		ps->queue = q;
		ps->q_cap = cap;
		ps->q_head = 0;
	}
	ps->queue[(ps->q_head + ps->q_len) % ps->q_cap] = (struct window){ start, end, cut };
	ps->q_len++;
	return VMA_OK;
}

/*
 * After a damaged window header, look for the next plausible one: a
 * cpu_change header word whose window fits in the file.  Returns the
 * offset, or the file size when there is none.
 */
static uint64_t resync(struct xt_reader *rd, uint64_t from)
{
	unsigned char chunk[64 * 1024];
	uint64_t off = from;

	while (off + CPU_CHANGE_SIZE <= rd->input->size) {
		size_t want = sizeof(chunk);
		size_t i;

		if (off + want > rd->input->size)
			want = (size_t)(rd->input->size - off);
		if (read_exact(rd, chunk, want, off) != VMA_OK)
			break;
		for (i = 0; i + CPU_CHANGE_SIZE <= want; i += 4) {
			uint32_t cpu = le32(chunk + i + 4);
			uint64_t wsize = le32(chunk + i + 8);

			if (le32(chunk + i) == CPU_CHANGE_HEADER && cpu < MAX_PCPU_ID &&
			    off + i + CPU_CHANGE_SIZE + wsize <= rd->input->size)
				return off + i;
		}
		if (want < CPU_CHANGE_SIZE)
			break;
		off += want - CPU_CHANGE_SIZE + 4;
	}
	return rd->input->size;
}

/* Read one window header and queue the window.  VMA_END at end of file. */
static int scan_one(struct xt_reader *rd, uint32_t *cpu_out)
{
	struct vma_input *in = rd->input;
	unsigned char hdr[CPU_CHANGE_SIZE];
	struct pcpu_stream *ps;
	uint64_t off = rd->scan_off;
	uint64_t start, end;
	uint32_t cpu, wsize;
	bool cut;
	char msg[200];
	int rc;

	for (;;) {
		if (rd->scan_done || rd->stopped)
			return rd->status ? rd->status : VMA_END;
		off = rd->scan_off;
		if (off >= in->size) {
			rd->scan_done = true;
			return VMA_END;
		}
		if (in->size - off < CPU_CHANGE_SIZE) {
			rd->scan_done = true;
			snprintf(msg, sizeof(msg),
				 "File ends inside a window header (%" PRIu64 " bytes left)",
				 in->size - off);
			rc = report(rd, VMA_LVL_FILE, off, msg);
			return rc ? rc : VMA_END;
		}
		rc = read_exact(rd, hdr, sizeof(hdr), off);
		if (rc)
			return rc == VMA_END ? VMA_END : rc;
		cpu = le32(hdr + 4);
		wsize = le32(hdr + 8);
		if (le32(hdr) == CPU_CHANGE_HEADER && cpu < MAX_PCPU_ID)
			break;
		snprintf(msg, sizeof(msg),
			 "Expected a window header (cpu_change record), found word 0x%08x",
			 le32(hdr));
		rc = report(rd, VMA_LVL_FILE, off, msg);
		if (rc)
			return rc;
		rd->scan_off = resync(rd, off + 4);
		if (rd->scan_off < in->size)
			vma_diag_info(in->diag, "%s: resuming at offset %" PRIu64, in->path,
				      rd->scan_off);
	}

	start = off + CPU_CHANGE_SIZE;
	end = start + wsize;
	cut = end > in->size;
	if (cut) {
		snprintf(msg, sizeof(msg),
			 "Window of pcpu %u runs past the end of the file (%u bytes, %" PRIu64
			 " present): the trace is truncated",
			 cpu, wsize, in->size - start);
		rc = report(rd, VMA_LVL_FILE, off, msg);
		if (rc)
			return rc;
		end = in->size;
	}
	rd->scan_off = end;

	ps = pcpu_get(rd, cpu);
	if (!ps) {
		rd->status = VMA_ERR_NOMEM;
		rd->stopped = true;
		return VMA_ERR_NOMEM;
	}
	if (start < end) {
		rc = queue_window(ps, start, end, cut);
		if (rc)
			return rc;
	}
	if (!ps->announced) {
		ps->announced = true;
		vma_diag_info(in->diag, "%s: pcpu %u starts at offset %" PRIu64, in->path, cpu,
			      off);
		rc = in->new_stream(in->new_stream_arg, &ps->stream);
		if (rc)
			return rc;
	}
	if (cpu_out)
		*cpu_out = cpu;
	return VMA_OK;
}

/* Make at least @need bytes at ps->pos available in the buffer. */
static int fill(struct pcpu_stream *ps, size_t need)
{
	uint64_t avail_end = ps->buf_off + ps->buf_len;
	size_t want;
	int rc;

	if (ps->pos >= ps->buf_off && ps->pos + need <= avail_end)
		return VMA_OK;
	want = ps->buf_cap;
	if (ps->end - ps->pos < want)
		want = (size_t)(ps->end - ps->pos);
	if (want < need)
		return VMA_END;
	rc = read_exact(ps->reader, ps->buf, want, ps->pos);
	if (rc)
		return rc;
	ps->buf_off = ps->pos;
	ps->buf_len = want;
	return VMA_OK;
}

/* Move to the next queued window of this pcpu, scanning for more. */
static int next_window(struct pcpu_stream *ps)
{
	struct xt_reader *rd = ps->reader;
	int rc;

	while (ps->q_len == 0) {
		rc = scan_one(rd, NULL);
		if (rc)
			return rc;
	}
	ps->pos = ps->queue[ps->q_head].start;
	ps->end = ps->queue[ps->q_head].end;
	ps->cut = ps->queue[ps->q_head].cut;
	ps->q_head = (ps->q_head + 1) % ps->q_cap;
	ps->q_len--;
	return VMA_OK;
}

static int stream_next(struct vma_stream *stream)
{
	struct pcpu_stream *ps = (struct pcpu_stream *)stream;
	struct vma_record *rec = &stream->rec;
	uint64_t prev_tsc = ps->last_tsc;
	const unsigned char *p;
	uint32_t header, extra, size, i;
	bool has_tsc;
	int rc;

	if (ps->have_lost_end) {
		ps->have_lost_end = false;
		*rec = ps->lost_end;
		return VMA_OK;
	}
	for (;;) {
		if (ps->reader->stopped)
			return ps->reader->status;
		if (ps->pos >= ps->end) {
			rc = next_window(ps);
			if (rc)
				return rc;
			continue;
		}
		if (ps->end - ps->pos < 4) {
			if (!ps->cut)
				report(ps->reader, VMA_LVL_FILE, ps->pos,
				       "Window ends inside a record header");
			ps->pos = ps->end;
			continue;
		}
		rc = fill(ps, 4);
		if (rc)
			return rc == VMA_END ? VMA_ERR_IO : rc;
		p = ps->buf + (ps->pos - ps->buf_off);
		header = le32(p);
		extra = TRC_HD_EXTRA(header);
		has_tsc = TRC_HD_INCLUDES_CYCLE_COUNT(header);
		size = 4 + (has_tsc ? 8 : 0) + 4 * extra;
		if (ps->end - ps->pos < size) {
			char msg[160];

			if (ps->cut) {
				/* The record the file's end cut in two: reported already. */
				ps->pos = ps->end;
				continue;
			}
			snprintf(msg, sizeof(msg),
				 "Record 0x%08x of pcpu %u (%u bytes) does not fit in its window "
				 "(%" PRIu64 " bytes left); rest of the window skipped",
				 TRC_HD_TO_EVENT(header), stream->pcpu, size, ps->end - ps->pos);
			report(ps->reader, VMA_LVL_FILE, ps->pos, msg);
			ps->pos = ps->end;
			continue;
		}
		rc = fill(ps, size);
		if (rc)
			return rc == VMA_END ? VMA_ERR_IO : rc;
		p = ps->buf + (ps->pos - ps->buf_off);
		break;
	}

	rec->offset = ps->pos;
	rec->event = TRC_HD_TO_EVENT(header);
	rec->pcpu = stream->pcpu;
	rec->ctx = 0;
	rec->nr_data = (uint16_t)extra;
	p += 4;
	if (has_tsc) {
		uint64_t tsc = (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;

		p += 8;
		rec->flags = VMA_REC_HAS_TSC;
		if (tsc < ps->last_tsc) {
			char msg[160];

			snprintf(msg, sizeof(msg),
				 "Time stamp of pcpu %u goes backwards (%" PRIu64 " after %" PRIu64
				 ")", stream->pcpu, tsc, ps->last_tsc);
			rc = report(ps->reader, VMA_LVL_SANITY, ps->pos, msg);
			if (rc)
				return rc;
		}
		ps->last_tsc = tsc;
		rec->tsc = tsc;
	} else {
		rec->flags = 0;
		rec->tsc = ps->last_tsc;
	}
	for (i = 0; i < extra; i++)
		rec->data[i] = le32(p + 4 * i);
	ps->pos += size;

	if (rec->event == TRC_LOST_RECORDS && extra == 4 && has_tsc) {
		uint64_t first_tsc = vma_rec_u64(rec, 2);

		/* Deliver the start of the gap at its own time, the end after. */
		ps->lost_end = *rec;
		ps->lost_end.event = VMA_SYNTH_LOST_END;
		ps->lost_end.flags |= VMA_REC_SYNTHETIC;
		ps->have_lost_end = true;
		if (first_tsc <= rec->tsc)
			rec->tsc = first_tsc > prev_tsc ? first_tsc : prev_tsc;
	}
	return VMA_OK;
}

static bool xentrace_probe(const unsigned char *head, size_t len)
{
	return len >= CPU_CHANGE_SIZE && le32(head) == CPU_CHANGE_HEADER &&
	       le32(head + 4) < MAX_PCPU_ID;
}

static int xentrace_open(struct vma_input *in)
{
	struct xt_reader *rd = calloc(1, sizeof(*rd));
	uint32_t cpu;
	int rc;

	if (!rd)
		return VMA_ERR_NOMEM;
	rd->input = in;
	in->priv = rd;
	in->clock = VMA_CLOCK_CYCLES;
	in->family = VMA_FAMILY_XEN;

	/* Index every window; the streams then only read their own. */
	for (;;) {
		rc = scan_one(rd, &cpu);
		if (rc == VMA_END || rc == VMA_ERR_DAMAGED)
			break;
		if (rc)
			return rc;
	}
	if (rd->nr_pcpus == 0) {
		vma_diag_report(in->diag, VMA_LVL_INPUT, in->path, UINT64_MAX,
				"Holds no complete window of trace records");
		return VMA_ERR_FORMAT;
	}
	return VMA_OK;
}

static void xentrace_close(struct vma_input *in)
{
	struct xt_reader *rd = in->priv;
	uint32_t i;

	if (!rd)
		return;
	for (i = 0; i < rd->nr_slots; i++) {
		if (rd->pcpus[i]) {
			free(rd->pcpus[i]->queue);
			free(rd->pcpus[i]->buf);
			free(rd->pcpus[i]);
		}
	}
	free(rd->pcpus);
	free(rd);
	in->priv = NULL;
}

const struct vma_input_ops vma_xentrace_ops = {
	.name = "xentrace",
	.probe = xentrace_probe,
	.open = xentrace_open,
	.close = xentrace_close,
	.describe = NULL,
};
