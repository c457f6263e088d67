/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ringbuf-writer: one ftrace ring-buffer page, event by event, in the
 * kernel's page format, including the records a reader must handle besides
 * data (time extends, absolute stamps, discarded events, end padding,
 * lost-events flags).  Used by the trace.dat writer (tracedat-writer.h) and
 * directly by the ring-buffer decoder's unit tests.
 */
#ifndef VMALYZE_RINGBUF_WRITER_H
#define VMALYZE_RINGBUF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bits of the time delta in an event header. */
#define VMA_RBW_TS_BITS 27
/* Largest payload with a type_len of its own (28 words); longer ones use type_len 0. */
#define VMA_RBW_MAX_SMALL 112

/* The tracefs header_event text of this layout. */
extern const char vma_rbw_header_event[];

/*
 * vma_rbw_header_page - the tracefs header_page text for 8-byte commit
 * words and pages of @page_size, into @buf.  Return: as snprintf().
 */
int vma_rbw_header_page(char *buf, size_t size, uint32_t page_size);

struct vma_rbw {
	unsigned char *page;  /* borrowed: page_size bytes */
	uint32_t page_size;
	uint32_t long_size;   /* 4 or 8: size of the commit word */
	uint32_t data_offset; /* 8 + long_size */
	uint32_t pos;         /* next free byte, from the page start */
	bool big_endian;
};

/* Starts an empty page whose header time stamp is @ts. */
void vma_rbw_start(struct vma_rbw *p, unsigned char *page, uint32_t page_size,
		   uint32_t long_size, bool big_endian, uint64_t ts);

/* Free bytes left for events. */
uint32_t vma_rbw_room(const struct vma_rbw *p);

/*
 * vma_rbw_data - a data event of @len payload bytes (padded to 4) with a
 * 27-bit @delta.  @force_len0 uses the type_len 0 form (array[0] holds the
 * length) even for a short payload.  Return: 0, or -1 when it does not fit.
 */
int vma_rbw_data(struct vma_rbw *p, uint32_t delta, const void *data, uint32_t len,
		 bool force_len0);

/* A TIME_EXTEND of @delta (up to 59 bits).  Return: 0 or -1. */
int vma_rbw_extend(struct vma_rbw *p, uint64_t delta);

/* A TIME_STAMP (absolute) of the low 59 bits of @ts.  Return: 0 or -1. */
int vma_rbw_stamp(struct vma_rbw *p, uint64_t ts);

/* A discarded event: padding of @len payload bytes with a non-zero @delta.  Return: 0/-1. */
int vma_rbw_discard(struct vma_rbw *p, uint32_t delta, uint32_t len);

/* Null padding to the end of the page (counted in the commit).  Return: 0/-1. */
int vma_rbw_pad_end(struct vma_rbw *p);

/*
 * vma_rbw_commit - write the commit word: the bytes of events, plus the
 * lost-events flag when @missed, and the lost count stored after the events
 * when @count is not UINT64_MAX (and it fits).
 */
void vma_rbw_commit(struct vma_rbw *p, bool missed, uint64_t count);

/* Store @size bytes (1, 2, 4, 8) of @val at @buf in the file's byte order. */
void vma_tdw_put(void *buf, uint32_t size, uint64_t val, bool big_endian);

#endif /* VMALYZE_RINGBUF_WRITER_H */
