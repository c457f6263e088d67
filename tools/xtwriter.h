/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xtwriter: builds xentrace files, in memory or streamed to a FILE *.
 *
 * It lays the file out the way Xen's xentrace tool does: every pcpu fills
 * its own record buffer, and a buffer is written out as a window, a
 * TRC_TRACE_CPU_CHANGE record {u32 cpu, u32 window_size} (header word, no
 * time stamp, two payload words) followed by window_size bytes of that
 * pcpu's records.  Windows of different pcpus interleave in the order the
 * buffers are flushed; a pcpu appears in the file at its first flush.
 *
 * A record is a u32 header (event:28 | extra_words:3 | cycle_flag:1), an
 * optional u64 time stamp (low word first) and 0..7 u32 payload words, all
 * little-endian.  Optionally the writer emulates Xen's per-cpu ring and puts
 * a TRC_TRACE_WRAP_BUFFER padding record wherever a record would straddle
 * the ring's end.
 *
 * Besides well-formed records, the raw entry points write arbitrary bytes
 * into a pcpu's window or straight into the file, so tests can build the
 * damaged files a reader must survive: truncated windows, windows running
 * past the end of the file, garbage, records overrunning their window.
 *
 * Used by the trace generator (tools/vmalyze-gen) and by the unit tests.
 */
#ifndef VMALYZE_XTWRITER_H
#define VMALYZE_XTWRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/trace-ids.h"

#define VMA_XTW_DEFAULT_WINDOW (64u * 1024u) /* payload bytes per window */
#define VMA_XTW_MIN_WINDOW 64u                /* fits the largest record */
#define VMA_XTW_MAX_PCPUS (1u << 20)          /* sanity bound on pcpu ids */
#define VMA_XTW_MAX_WORDS 7u                  /* TRACE_EXTRA_MAX */
#define VMA_XTW_MAX_RECORD (4u + 8u + 4u * VMA_XTW_MAX_WORDS)

struct vma_xtw;

struct vma_xtw_options {
	/* Largest window payload in bytes (multiple of 4); 0 = default. */
	size_t window_bytes;
	/*
	 * When a pcpu's buffer is full, flush every pcpu in pcpu order (one
	 * pass of xentrace's reader loop) instead of only that one.
	 */
	bool flush_all_on_full;
	/*
	 * Emulated size of Xen's per-cpu ring in bytes (multiple of 4, at
	 * least VMA_XTW_MAX_RECORD); 0 = no emulation, no wrap records.
	 */
	size_t ring_bytes;
};

/* Header word of a record. */
static inline uint32_t vma_xtw_header(uint32_t event, unsigned int extra_words, bool has_tsc)
{
	return (event & 0x0fffffffu) | ((uint32_t)(extra_words & 7u) << 28) |
	       (has_tsc ? 0x80000000u : 0u);
}

/*
 * vma_xtw_new_memory - a writer that collects the file in memory.
 * @options: NULL for defaults.
 * Return: owned (free with vma_xtw_free()), or NULL when out of memory or
 * the options are invalid.
 */
struct vma_xtw *vma_xtw_new_memory(const struct vma_xtw_options *options);

/*
 * vma_xtw_new_stream - a writer that writes windows to @out as they are
 * flushed.  @out stays owned by the caller; only per-pcpu buffers are kept.
 */
struct vma_xtw *vma_xtw_new_stream(FILE *out, const struct vma_xtw_options *options);

void vma_xtw_free(struct vma_xtw *w);

/*
 * vma_xtw_record - append a record with time stamp @tsc to @pcpu's buffer.
 * @words: @n payload words (n <= 7; may be NULL when n is 0).
 * Return: 0, VMA_ERR_USAGE (bad n or pcpu), VMA_ERR_NOMEM or VMA_ERR_OUTPUT.
 */
int vma_xtw_record(struct vma_xtw *w, uint32_t pcpu, uint32_t event, uint64_t tsc,
		   const uint32_t *words, unsigned int n);

/* Same without a time stamp: readers give it the pcpu's last time stamp. */
int vma_xtw_record_notsc(struct vma_xtw *w, uint32_t pcpu, uint32_t event,
			 const uint32_t *words, unsigned int n);

/*
 * vma_xtw_lost - append TRC_LOST_RECORDS as Xen writes it: with time stamp
 * @tsc and the payload {u32 lost, u16 did, u16 vid, u64 first_tsc}.
 */
int vma_xtw_lost(struct vma_xtw *w, uint32_t pcpu, uint64_t tsc, uint32_t lost,
		 uint16_t did, uint16_t vid, uint64_t first_tsc);

/*
 * vma_xtw_wrap - append a TRC_TRACE_WRAP_BUFFER padding record of @bytes
 * bytes (4..40, multiple of 4); above 32 bytes it carries time stamp @tsc,
 * as Xen's does.  Payload words are zero.
 */
int vma_xtw_wrap(struct vma_xtw *w, uint32_t pcpu, unsigned int bytes, uint64_t tsc);

/*
 * vma_xtw_pcpu_raw - append @n arbitrary bytes to @pcpu's buffer: they
 * become part of its next window (e.g. a header whose extra_words run past
 * the end of the window); bytes beyond a full window go to the next one.
 * No ring emulation applies.
 */
int vma_xtw_pcpu_raw(struct vma_xtw *w, uint32_t pcpu, const void *bytes, size_t n);

/*
 * vma_xtw_raw - write @n arbitrary bytes to the file at the current end,
 * outside any window (garbage, or a hand-made window).  Buffered records
 * are not flushed first.
 */
int vma_xtw_raw(struct vma_xtw *w, const void *bytes, size_t n);

/*
 * vma_xtw_cpu_change - write a TRC_TRACE_CPU_CHANGE record {cpu,
 * window_size} to the file at the current end, whatever bytes follow it:
 * a window that claims more bytes than the file has, or fewer than follow.
 */
int vma_xtw_cpu_change(struct vma_xtw *w, uint32_t cpu, uint32_t window_size);

/* Write @pcpu's buffered records as one window (nothing when empty). */
int vma_xtw_flush_pcpu(struct vma_xtw *w, uint32_t pcpu);

/* Write every non-empty buffer as a window, in pcpu order. */
int vma_xtw_flush_all(struct vma_xtw *w);

/* Flush everything, and fflush() a stream.  The writer stays usable. */
int vma_xtw_finish(struct vma_xtw *w);

/* Memory writer: the file so far (flushed windows and raw bytes only). */
const unsigned char *vma_xtw_data(const struct vma_xtw *w, size_t *len);

/* Bytes in the file so far plus bytes still buffered (with their headers). */
uint64_t vma_xtw_bytes(const struct vma_xtw *w);

/* Records appended to @pcpu (raw bytes not counted; wrap records are). */
uint64_t vma_xtw_pcpu_records(const struct vma_xtw *w, uint32_t pcpu);

/* One above the highest pcpu that got a record or raw bytes. */
uint32_t vma_xtw_nr_pcpus(const struct vma_xtw *w);

/* Windows written so far. */
uint64_t vma_xtw_windows(const struct vma_xtw *w);

#endif /* VMALYZE_XTWRITER_H */
