/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reader for xentrace binary files.
 *
 * xentrace copies each pcpu's trace buffer to the file in chunks, each
 * preceded by a TRC_TRACE_CPU_CHANGE record {cpu, window_size}; chunks of
 * different pcpus are interleaved in whatever order xentrace got to them.
 * This reader turns that into one stream per pcpu:
 *
 *  - at open, a scan walks the chain of window headers through the whole
 *    file (12 bytes read per window), so that every pcpu is known, and
 *    merged, from its first record: a pcpu whose first window is written
 *    late in the file may hold records older than records of windows
 *    written before it.  Damage in the chain is reported then.  The scan
 *    queues each window on its pcpu, up to INDEX_BUDGET windows in all
 *    (about 2 GiB of a typical trace), and remembers each pcpu's last one;
 *  - beyond the budget, a second walk of the same chain queues windows
 *    lazily, when a pcpu has read all of its queue, so the windows held
 *    at any time are those between the slowest and the fastest pcpu, not
 *    the file's; and when those reach LAZY_BUDGET (one pcpu far ahead in
 *    time), the pcpu that asks walks the chain alone for its own windows;
 *  - each pcpu stream reads its own windows with pread() into a small
 *    buffer of its own, so memory does not grow with the file and a file
 *    of any size (4 GiB and more) is never loaded or mapped whole.
 *
 * A pipe or FIFO is read by xentrace-stream.c instead, which feeds the
 * same pcpu streams with windows read once, in file order.
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
#include <sys/mman.h>
#include <unistd.h>

#include "vmalyze/diag.h"
#include "vmalyze/grow.h"
#include "vmalyze/input.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "input/xentrace-internal.h"

/*
 * Damage above the tolerance ends the scan: no window at or after the
 * damage is read, but windows found before it still are, so the output
 * covers what precedes the reported offset.
 */
int xt_report(struct xt_reader *rd, enum vma_level level, uint64_t offset, const char *what)
{
	if (!vma_diag_report(rd->input->diag, level, rd->input->path, offset, "%s", what)) {
		rd->scan.done = true;
		rd->status = VMA_ERR_DAMAGED;
		return VMA_ERR_DAMAGED;
	}
	return VMA_OK;
}

/* A read error: every stream ends at its next call, with @status. */
static void stop_reading(struct xt_reader *rd, int status)
{
	uint32_t i;

	rd->stopped = true;
	rd->status = status;
	for (i = 0; i < rd->nr_slots; i++) {
		if (rd->pcpus[i])
			rd->pcpus[i]->fast_end = 0;
	}
}

int xt_read_exact(struct xt_reader *rd, void *dst, size_t len, uint64_t off)
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
			stop_reading(rd, VMA_ERR_IO);
			return VMA_ERR_IO;
		}
		if (n == 0) {
			/* The size was taken at open: the file was cut while being read. */
			bool ok = vma_diag_report(rd->input->diag, VMA_LVL_FILE, rd->input->path,
						  off + done,
						  "File ends here, though it was %" PRIu64
						  " bytes long when opened: it shrank while being "
						  "read; the rest of it is lost (read a copy that"
						  " is not being written to)", rd->input->size);

			stop_reading(rd, ok ? VMA_END : VMA_ERR_DAMAGED);
			return rd->status;
		}
		done += (size_t)n;
	}
	return VMA_OK;
}

#define HEADER_CACHE (64u * 1024u)
/* Headers farther apart than this are read one at a time. */
#define HEADER_FAR 4096u

/*
 * A window header at @off, through a cache of the file around it: the
 * walks read headers one after the other, often only a few bytes apart
 * (small windows), so one pread() serves many of them.  When the last
 * two were more than HEADER_FAR apart (windows of tens of KiB, as
 * xentrace writes them), the header alone is read: a 64 KiB read for
 * each would copy the whole file once more before a record is read, and
 * even a page each is a seventh of it.
 */
static int read_header(struct xt_reader *rd, unsigned char *hdr, uint64_t off)
{
	size_t want = HEADER_CACHE;
	uint64_t last = rd->hc_last;
	int rc;

	rd->hc_last = off;
	if (off >= rd->hc_off && off + CPU_CHANGE_SIZE <= rd->hc_off + rd->hc_len) {
		memcpy(hdr, rd->hcache + (off - rd->hc_off), CPU_CHANGE_SIZE);
		return VMA_OK;
	}
	if (!rd->hcache && !(rd->hcache = malloc(HEADER_CACHE)))
		return VMA_ERR_NOMEM;
	if (off > last && off - last > HEADER_FAR)
		want = CPU_CHANGE_SIZE;
	if (rd->input->size - off < want)
		want = (size_t)(rd->input->size - off);
	rd->hc_len = 0;
	xt_prefault(rd->hcache, &rd->hc_faulted, want);
	rc = xt_read_exact(rd, rd->hcache, want, off);
	if (rc)
		return rc;
	rd->hc_off = off;
	rd->hc_len = want;
	memcpy(hdr, rd->hcache, CPU_CHANGE_SIZE);
	return VMA_OK;
}

static int stream_next(struct vma_stream *stream);

/*
 * Buffer size per pcpu: 32 KiB, a window of the size xentrace writes most
 * in one or two reads, and at most BUFFER_BUDGET in all.  Larger buffers
 * made no large trace faster, and each page a buffer reaches is a fault
 * (or a populate) of its own, which a capture of a few MB feels.
 */
static size_t buffer_size_for(uint32_t nr_pcpus)
{
	size_t size = 32 * 1024;

	while (size > 512 && size * nr_pcpus > BUFFER_BUDGET)
		size /= 2;
	return size;
}

static struct pcpu_stream *pcpu_new(struct xt_reader *rd, uint32_t cpu)
{
	struct pcpu_stream *ps;

	if (cpu >= rd->nr_slots) {
		size_t slots = rd->nr_slots;

		if (vma_grow(rd->pcpus, &slots, (size_t)cpu + 1, 8) != VMA_OK)
			return NULL;
		memset(rd->pcpus + rd->nr_slots, 0, (slots - rd->nr_slots) * sizeof(*rd->pcpus));
		rd->nr_slots = (uint32_t)slots;
	}
	if (rd->pcpus[cpu])
		return rd->pcpus[cpu];
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	ps->reader = rd;
	ps->stream.next = stream_next;
	ps->stream.input = rd->input;
	ps->stream.pcpu = cpu;
	ps->stream.rec.pcpu = cpu;
	ps->stream.rec.ctx = 0;
	rd->pcpus[cpu] = ps;
	rd->nr_pcpus++;
	return ps;
}

int xt_pcpu_for(struct xt_reader *rd, uint32_t cpu, uint64_t off, struct pcpu_stream **ps)
{
	*ps = cpu < rd->nr_slots ? rd->pcpus[cpu] : NULL;
	if (*ps)
		return VMA_OK;
	if (rd->nr_pcpus >= XT_MAX_PCPUS) {
		char msg[300];

		rd->pcpus_dropped++;
		if (rd->pcpus_dropped > 1)
			return VMA_OK;
		snprintf(msg, sizeof(msg),
			 "Window of pcpu %u: more than %u distinct pcpus hold records, more than "
			 "Xen hosts have: the file is likely damaged; the windows of pcpus past "
			 "the first %u are skipped (--tolerance %d reads on without them)",
			 cpu, XT_MAX_PCPUS, XT_MAX_PCPUS, VMA_LVL_LIMIT);
		return xt_report(rd, VMA_LVL_LIMIT, off, msg);
	}
	*ps = pcpu_new(rd, cpu);
	return *ps ? VMA_OK : VMA_ERR_NOMEM;
}

/* LAZY_BUDGET and INDEX_BUDGET bound memory at this size a window. */
_Static_assert(sizeof(struct window) == 32, "a queued window grew");

int xt_queue_window(struct pcpu_stream *ps, const struct window *w)
{
	if (ps->q_len == ps->q_cap) {
		size_t cap = ps->q_cap ? ps->q_cap * 2 : 4;
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
	ps->queue[(ps->q_head + ps->q_len) % ps->q_cap] = *w;
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
		if (xt_read_exact(rd, chunk, want, off) != VMA_OK)
			break;
		for (i = 0; i + CPU_CHANGE_SIZE <= want; i += 4) {
			uint32_t cpu = xt_le32(chunk + i + 4);
			uint64_t wsize = xt_le32(chunk + i + 8);

			if (xt_le32(chunk + i) == CPU_CHANGE_HEADER && cpu < MAX_PCPU_ID &&
			    off + i + CPU_CHANGE_SIZE + wsize <= rd->input->size)
				return off + i;
		}
		if (want < CPU_CHANGE_SIZE)
			break;
		off += want - CPU_CHANGE_SIZE + 4;
	}
	return rd->input->size;
}

/*
 * The next window along the chain of @walk: sets *@cpu, *@start, *@end and
 * *@cut and returns VMA_OK, or VMA_END when the chain ends (the end of the
 * file), or a negative VMA_ERR_* (VMA_ERR_DAMAGED: damage above the
 * tolerance ends it).  The walk
 * at open (@loud) reports damage; the lazy walk follows the same chain
 * quietly and stops where the first one did.
 */
static int chain_next(struct xt_reader *rd, struct chain_walk *walk, bool loud, uint32_t *cpu,
		      uint64_t *start, uint64_t *end, bool *cut)
{
	struct vma_input *in = rd->input;
	unsigned char hdr[CPU_CHANGE_SIZE];
	uint64_t off;
	uint32_t wsize;
	char msg[200];
	int rc;

	for (;;) {
		if (walk->done || rd->stopped)
			return rd->stopped ? rd->status : VMA_END;
		off = walk->off;
		if (off >= in->size || (!loud && off >= rd->chain_end)) {
			walk->done = true;
			return VMA_END;
		}
		if (in->size - off < CPU_CHANGE_SIZE) {
			walk->done = true;
			if (!loud)
				return VMA_END;
			snprintf(msg, sizeof(msg),
				 "File ends inside a window header (%" PRIu64 " bytes left)",
				 in->size - off);
			rc = xt_report(rd, VMA_LVL_FILE, off, msg);
			return rc ? rc : VMA_END;
		}
		rc = read_header(rd, hdr, off);
		if (rc)
			return rc == VMA_END ? VMA_END : rc;
		*cpu = xt_le32(hdr + 4);
		wsize = xt_le32(hdr + 8);
		if (xt_le32(hdr) == CPU_CHANGE_HEADER && *cpu < MAX_PCPU_ID)
			break;
		if (loud) {
			snprintf(msg, sizeof(msg),
				 "Expected a window header (cpu_change record), found word 0x%08x",
				 xt_le32(hdr));
			rc = xt_report(rd, VMA_LVL_FILE, off, msg);
			if (rc)
				return rc;
		}
		walk->off = resync(rd, off + 4);
		if (loud && walk->off < in->size) {
			vma_diag_info(in->diag, "%s: resuming at offset %" PRIu64, in->path,
				      walk->off);
		}
	}

	*start = off + CPU_CHANGE_SIZE;
	*end = *start + wsize;
	*cut = *end > in->size;
	if (*cut) {
		if (loud) {
			snprintf(msg, sizeof(msg),
				 "Window of pcpu %u runs past the end of the file (%u bytes, "
				 "%" PRIu64
				 " present): the trace is truncated",
				 *cpu, wsize, in->size - *start);
			rc = xt_report(rd, VMA_LVL_FILE, off, msg);
			if (rc)
				return rc;
		}
		*end = in->size;
	}
	walk->off = *end;
	return VMA_OK;
}

/*
 * The walk at open: every window header.  Pcpus are announced once it is
 * done, in the order they appeared, so that each knows its last window.
 */
static int scan_all(struct xt_reader *rd)
{
	struct vma_input *in = rd->input;
	struct pcpu_stream *ps, **order;
	uint64_t start, end, hdr_off;
	uint32_t run;
	uint32_t nr = 0, i, cpu;
	size_t order_cap = 0;
	bool cut;
	int rc = VMA_OK, walk;

	order = NULL;
	for (;;) {
		hdr_off = rd->scan.off;
		walk = chain_next(rd, &rd->scan, true, &cpu, &start, &end, &cut);
		if (walk != VMA_OK)
			break;
		rd->windows++;
		/* Runs are noted for the windows queued in order here. */
		run = rd->indexed < INDEX_BUDGET ? xt_cache_note(rd, &rd->scan, start, end) : 0;
		/* A window with no records makes no pcpu: nothing would come of it. */
		if (start >= end)
			continue;
		rc = xt_pcpu_for(rd, cpu, hdr_off, &ps);
		if (rc == VMA_ERR_DAMAGED) {
			/* As damage in the chain: it ends before this window. */
			rd->scan.off = hdr_off;
			walk = rc;
			rc = VMA_OK;
			break;
		}
		if (rc) {
			rd->status = rc;
			rd->stopped = true;
			goto out;
		}
		if (!ps)
			continue;
		if (!ps->announced) {
			rc = vma_grow(order, &order_cap, (size_t)nr + 1, 16);
			if (rc)
				goto out;
			order[nr++] = ps;
			ps->announced = true;
			vma_diag_info(in->diag, "%s: pcpu %u starts at offset %" PRIu64, in->path,
				      cpu, hdr_off);
		}
		ps->last_window = start;
		/* Past the budget only a pcpu's first window is queued now. */
		if (rd->indexed < INDEX_BUDGET || !ps->queued_upto) {
			rc = xt_queue_window(ps, &(struct window){ .start = start, .end = end,
								   .cut = cut, .run = run });
			if (rc)
				goto out;
			ps->queued_upto = start;
		}
		if (rd->indexed < INDEX_BUDGET) {
			rd->indexed++;
			/* The lazy walk starts after the last window queued in order. */
			rd->lazy.off = rd->scan.off;
		}
	}
	if (walk != VMA_END && walk != VMA_ERR_DAMAGED) {
		rc = walk;
		goto out;
	}
	rd->chain_end = rd->scan.off;
	for (i = 0; i < nr && rc == VMA_OK; i++)
		rc = in->new_stream(in->new_stream_arg, &order[i]->stream);
out:
	free(order);
	return rc;
}

/* The stream stops reading from its block, if it was. */
static void unpin(struct pcpu_stream *ps)
{
	if (!ps->block)
		return;
	ps->block->pins--;
	ps->block = NULL;
	ps->buf = NULL;
	ps->buf_len = 0;
}

/*
 * An ended stream's block, buffer and window queue: they go as it ends,
 * not at the close, so that the report is built in the memory they held
 * (peak RSS: bench/README, round nine).
 */
static void let_go(struct pcpu_stream *ps)
{
	unpin(ps);
	free(ps->own);
	ps->own = NULL;
	ps->buf = NULL;
	ps->buf_len = 0;
	ps->fast_end = 0;
	if (ps->q_len == 0) {
		free(ps->queue);
		ps->queue = NULL;
		ps->q_cap = 0;
		ps->q_head = 0;
	}
}

/*
 * A window in a run of small ones is read from the run's block.  Return:
 * VMA_OK with the buffer set, or with no block to be had (the buffer
 * unset); else an error.
 */
static int fill_from_cache(struct pcpu_stream *ps)
{
	struct xt_block *b;
	int rc;

	if (!ps->run)
		return VMA_OK;
	rc = xt_cache_get(ps->reader, ps->run, &b);
	if (rc || !b)
		return rc;
	b->pins++;
	ps->block = b;
	ps->buf = b->data;
	ps->buf_off = b->off;
	ps->buf_len = b->len;
	return VMA_OK;
}

void xt_prefault(unsigned char *buf, size_t *faulted, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = (uintptr_t)getpagesize(), at = (uintptr_t)buf, from, to;

	if (len <= *faulted)
		return;
	/*
	 * The pages that hold the buffer's first and last bytes are taken
	 * whole, though other allocations may share them: populating a page
	 * changes none of its bytes.  A call takes the last page whole, so
	 * the next one starts after it.
	 */
	from = *faulted ? (at + *faulted + page - 1) & ~(page - 1) : at & ~(page - 1);
	to = (at + len + page - 1) & ~(page - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_POPULATE_WRITE);
	*faulted = len;
#else
	(void)buf;
	(void)faulted;
	(void)len;
#endif
}

/* Make at least @need bytes at ps->pos available in the buffer. */
static int fill(struct pcpu_stream *ps, size_t need)
{
	uint64_t avail_end = ps->buf_off + ps->buf_len;
	size_t want;
	int rc;

	if (ps->pos >= ps->buf_off && ps->pos + need <= avail_end && ps->buf)
		return VMA_OK;
	unpin(ps);
	rc = fill_from_cache(ps);
	if (rc)
		return rc;
	if (ps->block) {
		if (ps->pos >= ps->buf_off && ps->pos + need <= ps->buf_off + ps->buf_len)
			return VMA_OK;
		unpin(ps); /* not the window's bytes (see struct xt_cache): read them below */
	}
	/* Sized at the first read, when the scan has found every pcpu. */
	if (!ps->own) {
		ps->buf_cap = buffer_size_for(ps->reader->nr_pcpus);
		ps->own = malloc(ps->buf_cap);
		if (!ps->own)
			return VMA_ERR_NOMEM;
		ps->own_faulted = 0;
	}
	ps->buf = ps->own;
	ps->buf_len = 0;
	want = ps->buf_cap;
	if (ps->end - ps->pos < want)
		want = (size_t)(ps->end - ps->pos);
	if (want < need)
		return VMA_END;
	xt_prefault(ps->own, &ps->own_faulted, want);
	rc = xt_read_exact(ps->reader, ps->buf, want, ps->pos);
	if (rc)
		return rc;
	ps->buf_off = ps->pos;
	ps->buf_len = want;
	return VMA_OK;
}

/*
 * Find more windows of @ps along the chain.  While the lazy walk holds
 * fewer than LAZY_BUDGET windows for others, it goes on, queueing every
 * pcpu's windows it passes; beyond (one pcpu far ahead of the others in
 * time), @ps walks the chain alone from where the lazy walk is, queueing
 * only its own: more header reads, bounded memory.
 */
static int walk_for(struct pcpu_stream *ps)
{
	struct xt_reader *rd = ps->reader;
	struct pcpu_stream *owner;
	struct chain_walk *walk = &rd->lazy;
	uint64_t start, end;
	uint32_t run;
	uint32_t cpu;
	bool cut;
	int rc;

	if (rd->lazy_queued >= LAZY_BUDGET) {
		struct chain_walk own = { .off = ps->own_off };

		if (!ps->own_walk || own.off < rd->lazy.off)
			own.off = rd->lazy.off;
		ps->own_walk = true;
		rc = chain_next(rd, &own, false, &cpu, &start, &end, &cut);
		ps->own_off = own.off;
		if (rc)
			return rc;
		if (cpu == ps->stream.pcpu && start < end && start > ps->queued_upto) {
			rc = xt_queue_window(ps, &(struct window){ .start = start, .end = end,
								   .cut = cut });
			if (rc)
				return rc;
			ps->queued_upto = start;
		}
		return VMA_OK;
	}
	rc = chain_next(rd, walk, false, &cpu, &start, &end, &cut);
	if (rc)
		return rc;
	run = xt_cache_note(rd, walk, start, end);
	owner = cpu < rd->nr_slots ? rd->pcpus[cpu] : NULL;
	if (start < end && owner && start > owner->queued_upto) {
		rc = xt_queue_window(owner, &(struct window){ .start = start, .end = end,
							      .cut = cut,
							      .lazy = owner != ps, .run = run });
		if (rc)
			return rc;
		owner->queued_upto = start;
		rd->lazy_queued += owner != ps;
	}
	return VMA_OK;
}

/*
 * The window about to be read is in the run the lazy walk is still
 * making: the walk goes on to the run's end first, so that one read of
 * the run serves this window and the others' in it.
 */
static int complete_run(struct pcpu_stream *ps)
{
	struct xt_reader *rd = ps->reader;
	int rc;

	while (ps->run && ps->run == rd->lazy.run && !rd->lazy.done &&
	       rd->lazy_queued < LAZY_BUDGET) {
		rc = walk_for(ps);
		if (rc)
			return rc == VMA_END ? VMA_OK : rc;
	}
	return VMA_OK;
}

/*
 * Move to the next window of this pcpu: its queue, else the chain until
 * it finds one.  Returns what the stream ends with when there is none.
 */
static int next_window(struct pcpu_stream *ps)
{
	struct xt_reader *rd = ps->reader;
	struct vma_input *in = rd->input;
	int rc;

	if (in->streaming)
		return xt_stream_next_window(ps);
	while (ps->q_len == 0) {
		if (rd->stopped)
			return rd->status;
		if (vma_input_stop_requested(in)) {
			in->interrupted = true;
			return VMA_END;
		}
		if (ps->queued_upto >= ps->last_window)
			return rd->status ? rd->status : VMA_END;
		rc = walk_for(ps);
		if (rc)
			return rc == VMA_END && rd->status ? rd->status : rc;
	}
	ps->pos = ps->queue[ps->q_head].start;
	ps->end = ps->queue[ps->q_head].end;
	ps->cut = ps->queue[ps->q_head].cut;
	ps->run = ps->queue[ps->q_head].run;
	rd->lazy_queued -= ps->queue[ps->q_head].lazy;
	ps->q_head = (ps->q_head + 1) % ps->q_cap;
	ps->q_len--;
	return complete_run(ps);
}

/* Cold paths of stream_next(), kept out of its frame. */
static __attribute__((noinline, cold)) int tsc_backwards(struct pcpu_stream *ps, uint64_t tsc)
{
	char msg[160];

	snprintf(msg, sizeof(msg),
		 "Time stamp of pcpu %u goes backwards (%" PRIu64 " after %" PRIu64 ")",
		 ps->stream.pcpu, tsc, ps->last_tsc);
	return xt_report(ps->reader, VMA_LVL_SANITY, ps->pos, msg);
}

static __attribute__((noinline, cold)) void record_overruns(struct pcpu_stream *ps,
							     uint32_t header, uint32_t size)
{
	char msg[160];

	snprintf(msg, sizeof(msg),
		 "Record 0x%08x of pcpu %u (%u bytes) does not fit in its window "
		 "(%" PRIu64 " bytes left); rest of the window skipped",
		 TRC_HD_TO_EVENT(header), ps->stream.pcpu, size, ps->end - ps->pos);
	xt_report(ps->reader, VMA_LVL_FILE, ps->pos, msg);
}

/*
 * A TRC_LOST_RECORDS record, just decoded: delivered at the time of the
 * first lost record, its end (VMA_SYNTH_LOST_END) at its own time after.
 */
static __attribute__((noinline, cold)) int lost_records(struct pcpu_stream *ps,
							 struct vma_record *rec, uint64_t prev_tsc)
{
	uint64_t first_tsc = vma_rec_u64(rec, 2);

	ps->lost_end = *rec;
	ps->lost_end.event = VMA_SYNTH_LOST_END;
	ps->lost_end.flags |= VMA_REC_SYNTHETIC;
	ps->have_lost_end = true;
	ps->fast_end = 0;
	if (first_tsc <= rec->tsc)
		rec->tsc = first_tsc > prev_tsc ? first_tsc : prev_tsc;
	return VMA_OK;
}

static int decode_checked(struct pcpu_stream *ps, const unsigned char *p, uint32_t header);

/*
 * Decode the record at ps->pos into the stream's record.  @p points to it
 * with MAX_RECORD_SIZE bytes readable, so that the payload is copied with
 * one fixed-size copy: words past nr_data get whatever follows the record.
 * @checked: the time stamp may go backwards (to be reported); only
 * decode_checked() passes true, so that the common path makes no call
 * but tail calls, and needs no stack frame.
 */
static inline __attribute__((always_inline)) int decode(struct pcpu_stream *ps,
							const unsigned char *p,
							uint32_t header, bool checked)
{
	struct vma_record *rec = &ps->stream.rec;
	uint64_t prev_tsc = ps->last_tsc;
	uint32_t extra = TRC_HD_EXTRA(header);
	bool has_tsc = TRC_HD_INCLUDES_CYCLE_COUNT(header);
	uint32_t size = 4 + (has_tsc ? 8 : 0) + 4 * extra;
	const unsigned char *data = p + 4;
	int rc;

	if (has_tsc) {
		uint64_t tsc = (uint64_t)xt_le32(p + 4) | (uint64_t)xt_le32(p + 8) << 32;

		if (tsc < prev_tsc) {
			if (!checked)
				return decode_checked(ps, p, header);
			rc = tsc_backwards(ps, tsc);
			if (rc)
				return rc;
		}
		data += 8;
		rec->flags = VMA_REC_HAS_TSC;
		ps->last_tsc = tsc;
		rec->tsc = tsc;
	} else {
		rec->flags = 0;
		rec->tsc = prev_tsc;
	}
	/* rec->pcpu and rec->ctx never change: set once (pcpu_get()). */
	rec->offset = ps->pos;
	rec->event = TRC_HD_TO_EVENT(header);
	rec->nr_data = (uint16_t)extra;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(rec->data, data, 4 * TRACE_EXTRA_MAX);
#else
	for (uint32_t i = 0; i < TRACE_EXTRA_MAX; i++)
		rec->data[i] = xt_le32(data + 4 * i);
#endif
	ps->pos += size;
	if (__builtin_expect(rec->event == TRC_LOST_RECORDS, 0) && extra == 4 && has_tsc)
		return lost_records(ps, rec, prev_tsc);
	return VMA_OK;
}

static __attribute__((noinline)) int decode_checked(struct pcpu_stream *ps,
						    const unsigned char *p, uint32_t header)
{
	return decode(ps, p, header, true);
}

static inline uint32_t record_size(uint32_t header)
{
	return 4 + (TRC_HD_INCLUDES_CYCLE_COUNT(header) ? 8 : 0) + 4 * TRC_HD_EXTRA(header);
}

/*
 * The record at ps->pos when it lies within MAX_RECORD_SIZE of its
 * window's end and the buffer holds MAX_RECORD_SIZE bytes from it (a
 * block of small windows holds the windows that follow): whole in its
 * window, it is decoded in place, as the fast path would.  A window of
 * 512 bytes ends with two or three such records.  Return: NULL when the
 * general path must take it.
 */
static inline const unsigned char *window_tail(const struct pcpu_stream *ps, uint32_t *header)
{
	const unsigned char *p;

	/* No buffer has no length; a window read to its end has no record that fits. */
	if (ps->pos < ps->buf_off || ps->pos + MAX_RECORD_SIZE > ps->buf_off + ps->buf_len ||
	    ps->reader->stopped)
		return NULL;
	p = ps->buf + (ps->pos - ps->buf_off);
	*header = xt_le32(p);
	return ps->pos + record_size(*header) <= ps->end ? p : NULL;
}

/* Everything but a record that is whole in the buffer. */
static __attribute__((noinline)) int stream_next_slow(struct pcpu_stream *ps)
{
	struct vma_record *rec = &ps->stream.rec;
	unsigned char whole[MAX_RECORD_SIZE];
	const unsigned char *p;
	uint32_t header, size;
	int rc;

	if (ps->have_lost_end) {
		ps->have_lost_end = false;
		*rec = ps->lost_end;
		return VMA_OK;
	}
	p = window_tail(ps, &header);
	if (p)
		return decode(ps, p, header, false);
	for (;;) {
		if (ps->reader->stopped)
			return ps->reader->status;
		if (ps->pos >= ps->end) {
			rc = next_window(ps);
			if (rc) {
				/* An ended stream holds no block nor buffer (streaming has neither). */
				if (!ps->reader->input->streaming)
					let_go(ps);
				return rc;
			}
			continue;
		}
		if (ps->end - ps->pos < 4) {
			if (!ps->cut) {
				xt_report(ps->reader, VMA_LVL_FILE, ps->pos,
				       "Window ends inside a record header");
			}
			ps->pos = ps->end;
			continue;
		}
		rc = fill(ps, 4);
		if (rc)
			return rc == VMA_END && !ps->reader->stopped ? VMA_ERR_IO : rc;
		p = ps->buf + (ps->pos - ps->buf_off);
		header = xt_le32(p);
		size = record_size(header);
		if (ps->end - ps->pos < size) {
			/* The record the file's end cut in two was reported already. */
			if (!ps->cut)
				record_overruns(ps, header, size);
			ps->pos = ps->end;
			continue;
		}
		rc = fill(ps, size);
		if (rc)
			return rc == VMA_END && !ps->reader->stopped ? VMA_ERR_IO : rc;
		p = ps->buf + (ps->pos - ps->buf_off);
		break;
	}
	/* The fast path may take the following records. */
	ps->fast_end = ps->buf_off + ps->buf_len < ps->end ? ps->buf_off + ps->buf_len : ps->end;
	if (ps->pos + MAX_RECORD_SIZE <= ps->buf_off + ps->buf_len)
		return decode_checked(ps, p, header);
	/* The buffer ends within the bytes decode() copies: from a copy. */
	memset(whole, 0, sizeof(whole));
	memcpy(whole, p, size);
	return decode_checked(ps, whole, header);
}

static int stream_next(struct vma_stream *stream)
{
	struct pcpu_stream *ps = (struct pcpu_stream *)stream;
	const unsigned char *p;

	if (__builtin_expect(ps->pos + MAX_RECORD_SIZE > ps->fast_end, 0))
		return stream_next_slow(ps);
	p = ps->buf + (ps->pos - ps->buf_off);
	/*
	 * Eight or more streams are read in turns, so the buffer's next lines
	 * have often left the cache since the kernel copied them in.
	 */
	__builtin_prefetch(p + 512);
	return decode(ps, p, xt_le32(p), false);
}

static bool xentrace_probe(const unsigned char *head, size_t len)
{
	return len >= CPU_CHANGE_SIZE && xt_le32(head) == CPU_CHANGE_HEADER &&
	       xt_le32(head + 4) < MAX_PCPU_ID;
}

static int xentrace_open(struct vma_input *in)
{
	struct xt_reader *rd = calloc(1, sizeof(*rd));
	int rc;

	if (!rd)
		return VMA_ERR_NOMEM;
	rd->input = in;
	in->priv = rd; /* zero-filled: the cache too is empty */
	in->clock = VMA_CLOCK_CYCLES;
	in->family = VMA_FAMILY_XEN;

	rc = in->streaming ? xt_stream_open(rd) : scan_all(rd);
	if (rc)
		return rc;
	/* Only empty windows: no stream, and the pipeline says there is nothing in it. */
	if (rd->nr_pcpus == 0 && !rd->windows) {
		vma_diag_report(in->diag, VMA_LVL_INPUT, in->path, UINT64_MAX,
				"Holds no complete window of trace records: the file was cut "
				"inside its first window, or is not a xentrace file");
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
			struct pcpu_stream *ps = rd->pcpus[i];

			for (; ps->q_len; ps->q_len--, ps->q_head = (ps->q_head + 1) % ps->q_cap)
				free(ps->queue[ps->q_head].data);
			free(ps->queue);
			/* streaming: the window's bytes; else a view of own or a block */
			if (in->streaming)
				free(ps->buf);
			free(ps->own);
			free(ps);
		}
	}
	free(rd->pcpus);
	free(rd->hcache);
	xt_cache_free(&rd->cache);
	xt_stream_free(rd);
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
