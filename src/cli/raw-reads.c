/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --dump-raw-reads.  xenalyze prints "R pN oOFFSET" and the record's raw
 * words for every record a pcpu's reader reads, window headers included.
 * vmalyze's readers take the window headers themselves, so these lines
 * show the records, each with its pcpu and byte offset, in the order they
 * are read (each stream reads one record ahead of the merge).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>

#include "cli/raw-reads.h"
#include "vmalyze/dump.h"
#include "vmalyze/event-lines.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

struct wrapper {
	struct vma_stream pub;      /* first: what the merge is given */
	struct vma_stream *inner;   /* borrowed from the input */
	struct vma_raw_reads *rr;
	struct wrapper *next_wrapper;
};

struct vma_raw_reads {
	struct vma_event_lines out;
	struct wrapper *wrappers;   /* owned list */
};

struct vma_raw_reads *vma_raw_reads_create(FILE *out)
{
	struct vma_raw_reads *rr = calloc(1, sizeof(*rr));

	if (rr)
		vma_event_lines_init(&rr->out, out);
	return rr;
}

void vma_raw_reads_destroy(struct vma_raw_reads *rr)
{
	if (!rr)
		return;
	while (rr->wrappers) {
		struct wrapper *w = rr->wrappers;

		rr->wrappers = w->next_wrapper;
		free(w);
	}
	vma_event_lines_free(&rr->out);
	free(rr);
}

static int wrapper_next(struct vma_stream *s)
{
	struct wrapper *w = (struct wrapper *)s;
	struct vma_strbuf *sb = &w->rr->out.sb;
	struct vma_record file_rec;
	char prefix[48];
	int rc = w->inner->next(w->inner);

	if (rc != VMA_OK)
		return rc;
	w->pub.rec = w->inner->rec;
	file_rec = w->pub.rec;
	/*
	 * The reader delivers a lost-records record at the time of the first
	 * lost record, then its end at the record's own time stamp: the end
	 * shows the record as the file has it.
	 */
	if (file_rec.event == TRC_LOST_RECORDS && file_rec.flags & VMA_REC_HAS_TSC)
		return VMA_OK;
	if (file_rec.event == VMA_SYNTH_LOST_END) {
		file_rec.event = TRC_LOST_RECORDS;
		file_rec.flags &= (uint16_t)~VMA_REC_SYNTHETIC;
	} else if (file_rec.flags & VMA_REC_SYNTHETIC) {
		return VMA_OK;
	}
	snprintf(prefix, sizeof(prefix), "R p%2u o%016" PRIx64 " ", w->pub.pcpu,
		 file_rec.offset);
	vma_dump_raw_line(sb, prefix, &file_rec);
	/* vma_dump_raw_line() ends the line itself; hand it over. */
	if (sb->len && sb->buf[sb->len - 1] == '\n')
		sb->len--;
	vma_event_lines_end(&w->rr->out);
	return VMA_OK;
}

struct vma_stream *vma_raw_reads_wrap(struct vma_raw_reads *rr, struct vma_stream *inner)
{
	struct wrapper *w;

	/*
	 * A stream given again (a paused pcpu of a pipe, announced anew or
	 * ended with the input) keeps its wrapper: the merge knows a stream
	 * it holds by its address.
	 */
	for (w = rr->wrappers; w; w = w->next_wrapper) {
		if (w->inner == inner)
			return &w->pub;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->pub = *inner;
	w->pub.next = wrapper_next;
	w->inner = inner;
	w->rr = rr;
	w->next_wrapper = rr->wrappers;
	rr->wrappers = w;
	return &w->pub;
}

const struct vma_stream *vma_raw_reads_inner(const struct vma_stream *s)
{
	return s->next == wrapper_next ? ((const struct wrapper *)s)->inner : s;
}

void vma_raw_reads_hold(struct vma_raw_reads *rr)
{
	rr->out.hold = true;
}

bool vma_raw_reads_pending(const struct vma_raw_reads *rr)
{
	return vma_event_lines_pending(&rr->out);
}

void vma_raw_reads_flush(struct vma_raw_reads *rr)
{
	vma_event_lines_flush(&rr->out);
}

int vma_raw_reads_status(const struct vma_raw_reads *rr)
{
	return vma_event_lines_status(&rr->out);
}
