/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The xentrace reader's window source for a pipe or FIFO: the input is
 * read once, in file order, as it arrives, with no temporary copy.
 *
 * Each window read is queued, bytes and all, on its pcpu.  When the merge
 * asks a pcpu for a record and its queue is empty, windows are read on
 * until one of that pcpu's arrives (or the input ends): the queues are a
 * reorder stage, and what they hold is the span between the pcpu furthest
 * behind and the input's read position.  That is bounded by a cap
 * (VMA_REORDER_CAP_DEFAULT, 16 MiB): at the cap the pcpu that asked is
 * paused (VMA_PAUSED) so the others' records are released; when its
 * windows come, it is announced again, and records older than those
 * already released are reported with their lateness and processed late,
 * never silently out of order.  A pcpu that waits is paused too once the
 * input has brought nothing for STALL_MS (a live xentrace between flushes,
 * a pcpu gone quiet), so that the others' records are shown within about
 * a second; never the last pcpu in the merge, which simply waits.
 *
 * At open, windows are read ahead for at most a second (or to the cap, or
 * to the end) so that every pcpu seen then is merged from its first
 * record: for a trace piped whole (`cat t | vmalyze -`) that is usually
 * every pcpu, and the output is the file's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "input/xentrace-internal.h"
#include "vmalyze/grow.h"
#include "vmalyze/status.h"

#define SOURCE_BUFFER (64u * 1024u)
/* Garbage searched for the next window header before giving up. */
#define RESYNC_LIMIT (64ull << 20)
/* How long the read-ahead at open may wait for pcpus to show up. */
#define LOOKAHEAD_MS 1000
/* How long a pcpu's records may hold the others up while the input is quiet. */
#define STALL_MS 1000

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* File offset of the next unread byte. */
static uint64_t src_offset(const struct xt_reader *rd)
{
	return rd->input->read_pos - (rd->src.len - rd->src.pos);
}

/* At least @need bytes buffered unless the input ends: 0, or VMA_ERR_*. */
static int src_fill(struct xt_reader *rd, size_t need)
{
	struct xt_source *src = &rd->src;
	ssize_t n;

	if (src->len - src->pos >= need)
		return VMA_OK;
	memmove(src->buf, src->buf + src->pos, src->len - src->pos);
	src->len -= src->pos;
	src->pos = 0;
	n = vma_input_read(rd->input, src->buf + src->len, need - src->len,
			   SOURCE_BUFFER - src->len);
	if (n < 0)
		return (int)n;
	if (n > 0)
		src->last_data_ms = now_ms();
	src->len += (size_t)n;
	return VMA_OK;
}

/* Copy @len bytes to @dst (NULL: drop them).  Return: bytes there were. */
static int src_take(struct xt_reader *rd, unsigned char *dst, size_t len, size_t *got)
{
	struct xt_source *src = &rd->src;
	size_t have = src->len - src->pos;
	unsigned char sink[4096];

	if (have > len)
		have = len;
	if (dst)
		memcpy(dst, src->buf + src->pos, have);
	src->pos += have;
	*got = have;
	while (*got < len) {
		size_t want = len - *got;
		ssize_t n;

		if (!dst && want > sizeof(sink))
			want = sizeof(sink);
		n = vma_input_read(rd->input, dst ? dst + *got : sink, want, want);
		if (n < 0)
			return (int)n;
		if (n > 0)
			rd->src.last_data_ms = now_ms();
		*got += (size_t)n;
		if ((size_t)n < want)
			break;
	}
	return VMA_OK;
}

static bool plausible_header(const unsigned char *p)
{
	return xt_le32(p) == CPU_CHANGE_HEADER && xt_le32(p + 4) < MAX_PCPU_ID;
}

/* After a damaged header: skip to the next plausible one, 4 bytes at a time. */
static int resync(struct xt_reader *rd)
{
	uint64_t skipped = 0;
	int rc;

	for (;;) {
		rc = src_fill(rd, CPU_CHANGE_SIZE);
		if (rc)
			return rc;
		if (rd->src.len - rd->src.pos < CPU_CHANGE_SIZE)
			return VMA_END;
		if (plausible_header(rd->src.buf + rd->src.pos)) {
			vma_diag_info(rd->input->diag, "%s: resuming at offset %" PRIu64,
				      rd->input->path, src_offset(rd));
			return VMA_OK;
		}
		rd->src.pos += 4;
		skipped += 4;
		if (skipped >= RESYNC_LIMIT) {
			vma_diag_report(rd->input->diag, VMA_LVL_INPUT, rd->input->path,
					src_offset(rd),
					"No window header in the next %llu MiB: not a xentrace "
					"stream from here on",
					RESYNC_LIMIT >> 20);
			rd->status = VMA_ERR_DAMAGED;
			return VMA_ERR_DAMAGED;
		}
	}
}

/*
 * Read the next window and queue it on its pcpu (*@owner).  Return: VMA_OK,
 * VMA_END at the end of the input, or a negative VMA_ERR_*.
 */
static int read_window(struct xt_reader *rd, struct pcpu_stream **owner)
{
	struct vma_input *in = rd->input;
	unsigned char *data = NULL;
	uint64_t off, start;
	uint32_t cpu, wsize;
	char msg[200];
	size_t got;
	int rc;

	for (;;) {
		rc = src_fill(rd, CPU_CHANGE_SIZE);
		if (rc)
			return rc;
		off = src_offset(rd);
		if (rd->src.len - rd->src.pos < CPU_CHANGE_SIZE) {
			size_t left = rd->src.len - rd->src.pos;

			rd->src.pos = rd->src.len;
			if (!left || in->interrupted)
				return VMA_END;
			snprintf(msg, sizeof(msg),
				 "File ends inside a window header (%zu bytes left)", left);
			rc = xt_report(rd, VMA_LVL_FILE, off, msg);
			return rc ? rc : VMA_END;
		}
		if (plausible_header(rd->src.buf + rd->src.pos))
			break;
		snprintf(msg, sizeof(msg),
			 "Expected a window header (cpu_change record), found word 0x%08x",
			 xt_le32(rd->src.buf + rd->src.pos));
		rc = xt_report(rd, VMA_LVL_FILE, off, msg);
		if (rc)
			return rc;
		rd->src.pos += 4;
		rc = resync(rd);
		if (rc)
			return rc;
	}
	cpu = xt_le32(rd->src.buf + rd->src.pos + 4);
	wsize = xt_le32(rd->src.buf + rd->src.pos + 8);
	rd->src.pos += CPU_CHANGE_SIZE;
	start = off + CPU_CHANGE_SIZE;
	rd->windows++;
	*owner = NULL;
	if (wsize > rd->src.cap) {
		snprintf(msg, sizeof(msg),
			 "Window of pcpu %u claims %u bytes, more than the reorder stage holds "
			 "(%zu MiB): skipped",
			 cpu, wsize, rd->src.cap >> 20);
		rc = xt_report(rd, VMA_LVL_LIMIT, off, msg);
		if (rc)
			return rc;
		return src_take(rd, NULL, wsize, &got);
	}
	if (wsize) {
		data = malloc(wsize);
		if (!data)
			return VMA_ERR_NOMEM;
	}
	rc = src_take(rd, data, wsize, &got);
	if (rc) {
		free(data);
		return rc;
	}
	if (got < wsize && !in->interrupted) {
		snprintf(msg, sizeof(msg),
			 "Window of pcpu %u runs past the end of the file (%u bytes, %zu "
			 "present): the trace is truncated",
			 cpu, wsize, got);
		rc = xt_report(rd, VMA_LVL_FILE, off, msg);
		if (rc) {
			free(data);
			return rc;
		}
	}
	/* Only a window with records makes its pcpu (none past XT_MAX_PCPUS). */
	rc = got ? xt_pcpu_for(rd, cpu, off, owner) : VMA_OK;
	if (rc || !*owner) {
		free(data);
		return rc;
	}
	rc = xt_queue_window(*owner, &(struct window){ .start = start, .end = start + got,
						       .cut = got < wsize, .data = data });
	if (rc) {
		free(data);
		return rc;
	}
	(*owner)->last_window = start;
	rd->src.held += got + WINDOW_OVERHEAD;
	return VMA_OK;
}

/* Time stamp of the first record of @ps's first queued window, if it has one. */
static uint64_t first_queued_tsc(const struct pcpu_stream *ps)
{
	const struct window *w = &ps->queue[ps->q_head];
	uint32_t hdr;

	if (w->end - w->start < 12)
		return ps->last_tsc;
	hdr = xt_le32(w->data);
	if (!TRC_HD_INCLUDES_CYCLE_COUNT(hdr))
		return ps->last_tsc;
	return (uint64_t)xt_le32(w->data + 4) | (uint64_t)xt_le32(w->data + 8) << 32;
}

/*
 * @ps has records again (or for the first time, after open): announce it.
 * @released: time stamp of the record the merge delivered last.
 */
static int announce(struct xt_reader *rd, struct pcpu_stream *ps, uint64_t released)
{
	struct vma_input *in = rd->input;
	uint64_t tsc = first_queued_tsc(ps);
	char msg[300];
	int rc;

	if (tsc < released) {
		snprintf(msg, sizeof(msg),
			 "Records of pcpu %u %s are %" PRIu64 " cycles older than records already "
			 "processed (%s): they are processed late",
			 ps->stream.pcpu, ps->announced ? "resuming here" : "first seen here",
			 released - tsc,
			 ps->announced ? "it was paused: the reorder stage was full or the input "
					 "quiet"
				       : "it came after the read-ahead");
		rc = xt_report(rd, VMA_LVL_SANITY, ps->queue[ps->q_head].start, msg);
		if (rc) {
			rd->src.eof = true;
			return VMA_OK;
		}
	} else if (!ps->announced) {
		vma_diag_info(in->diag, "%s: pcpu %u starts at offset %" PRIu64, in->path,
			      ps->stream.pcpu, ps->queue[ps->q_head].start - CPU_CHANGE_SIZE);
	}
	ps->announced = true;
	ps->paused = false;
	ps->ended = false;
	rd->src.active++;
	return in->new_stream(in->new_stream_arg, &ps->stream);
}


int xt_stream_open(struct xt_reader *rd)
{
	struct vma_input *in = rd->input;
	const struct vma_input_options *opts = in->options;
	struct pcpu_stream *ps, **order = NULL;
	uint64_t deadline = now_ms() + LOOKAHEAD_MS;
	uint32_t nr = 0, i;
	size_t order_cap = 0;
	int rc = VMA_OK;

	rd->src.cap = opts && opts->reorder_cap ? opts->reorder_cap : VMA_REORDER_CAP_DEFAULT;
	rd->src.buf = malloc(SOURCE_BUFFER);
	if (!rd->src.buf)
		return VMA_ERR_NOMEM;
	rd->src.last_data_ms = now_ms();
	while (!rd->src.eof && rd->src.held < rd->src.cap) {
		uint64_t t = now_ms();

		if (t >= deadline && nr)
			break;
		/* Nothing arrived for the rest of the second: go with what came. */
		if (rd->src.pos == rd->src.len && nr &&
		    !vma_input_wait(in, (int)(deadline > t ? deadline - t : 0)))
			break;
		rc = read_window(rd, &ps);
		if (rc == VMA_END || rc == VMA_ERR_DAMAGED) {
			rd->src.eof = true;
			rc = VMA_OK;
			break;
		}
		if (rc)
			goto out;
		if (ps && !ps->announced) {
			rc = vma_grow(order, &order_cap, (size_t)nr + 1, 16);
			if (rc)
				goto out;
			order[nr++] = ps;
			ps->announced = true;
			vma_diag_info(in->diag, "%s: pcpu %u starts at offset %" PRIu64, in->path,
				      ps->stream.pcpu,
				      ps->last_window ? ps->last_window - CPU_CHANGE_SIZE
						      : src_offset(rd) - CPU_CHANGE_SIZE);
		}
	}
	for (i = 0; i < nr && rc == VMA_OK; i++) {
		rd->src.active++;
		rc = in->new_stream(in->new_stream_arg, &order[i]->stream);
	}
out:
	free(order);
	return rc;
}

static int pause_stream(struct pcpu_stream *ps, const char *why)
{
	struct xt_reader *rd = ps->reader;

	ps->paused = true;
	rd->src.active--;
	vma_diag_info(rd->input->diag, "%s: %s at offset %" PRIu64 ": pcpu %u paused",
		      rd->input->path, why, src_offset(rd), ps->stream.pcpu);
	return VMA_PAUSED;
}

/* The stream ends (@rc: VMA_END or an error): it leaves the count. */
static int end_stream(struct pcpu_stream *ps, int rc)
{
	if (!ps->ended) {
		ps->ended = true;
		ps->reader->src.active--;
	}
	return rc;
}

/*
 * The input has brought nothing for STALL_MS and brings nothing within
 * what is left of it: the stream that waits need not hold the others up.
 */
static bool stalled(struct xt_reader *rd)
{
	const struct vma_input_options *o = rd->input->options;
	uint64_t t, quiet_until;

	if (rd->src.active < 2 || rd->src.len - rd->src.pos >= CPU_CHANGE_SIZE)
		return false;
	if (vma_input_wait(rd->input, 0))
		return false;
	t = now_ms();
	quiet_until = rd->src.last_data_ms + STALL_MS;
	if (t >= quiet_until)
		return true;
	/* Show what was processed while we wait. */
	if (o && o->idle)
		o->idle(o->idle_arg);
	return !vma_input_wait(rd->input, (int)(quiet_until - t));
}

/*
 * The input ended: the pcpus paused with nothing queued are added to the
 * merge again, to end there as the others do (their pcpus' end in the
 * state stage, as for a file).
 */
static int end_paused(struct xt_reader *rd)
{
	struct vma_input *in = rd->input;
	uint32_t i;
	int rc;

	for (i = 0; i < rd->nr_slots; i++) {
		struct pcpu_stream *ps = rd->pcpus[i];

		if (!ps || !ps->paused || ps->ended || ps->q_len)
			continue;
		ps->paused = false;
		rd->src.active++;
		rc = in->new_stream(in->new_stream_arg, &ps->stream);
		if (rc)
			return rc;
	}
	return VMA_OK;
}

int xt_stream_next_window(struct pcpu_stream *ps)
{
	struct xt_reader *rd = ps->reader;
	struct pcpu_stream *owner;
	struct window w;
	int rc;

	while (ps->q_len == 0) {
		if (rd->stopped)
			return end_stream(ps, rd->status);
		if (rd->src.eof)
			return end_stream(ps, rd->status ? rd->status : VMA_END);
		if (rd->src.held >= rd->src.cap)
			return pause_stream(ps, "reorder stage full");
		if (stalled(rd))
			return pause_stream(ps, "the input was quiet for a second");
		rc = read_window(rd, &owner);
		if (rc == VMA_END || rc == VMA_ERR_DAMAGED) {
			rd->src.eof = true;
			rc = end_paused(rd);
			if (rc)
				return end_stream(ps, rc);
			continue;
		}
		if (rc)
			return end_stream(ps, rc);
		if (owner && owner != ps && owner->q_len && (!owner->announced || owner->paused)) {
			rc = announce(rd, owner, ps->last_tsc);
			if (rc)
				return end_stream(ps, rc);
		}
	}
	w = ps->queue[ps->q_head];
	ps->q_head = (ps->q_head + 1) % ps->q_cap;
	ps->q_len--;
	rd->src.held -= (w.end - w.start) + WINDOW_OVERHEAD;
	free(ps->buf);
	ps->buf = w.data;
	ps->buf_off = w.start;
	ps->buf_len = ps->buf_cap = (size_t)(w.end - w.start);
	ps->pos = w.start;
	ps->end = w.end;
	ps->cut = w.cut;
	return VMA_OK;
}

void xt_stream_free(struct xt_reader *rd)
{
	free(rd->src.buf);
	rd->src.buf = NULL;
}
