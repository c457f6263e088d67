/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internals of the xentrace reader shared by its two window sources:
 * xentrace.c (a seekable file: windows found by walking the chain of
 * headers, read with pread()) and xentrace-stream.c (a pipe or FIFO:
 * windows read once, in file order, held in memory until their pcpu's
 * stream reaches them).  Only the reader's own files include this.
 */
#ifndef VMALYZE_INPUT_XENTRACE_INTERNAL_H
#define VMALYZE_INPUT_XENTRACE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmalyze/diag.h"
#include "vmalyze/input.h"
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
/*
 * Distinct pcpus with records a file may have: Xen's NR_CPUS is at most
 * 4,095 on most builds (16,383 allowed since recently), and hosts have far
 * fewer.  Each costs a stream, a read buffer and the analysis' tables, so
 * this bounds memory (doc/exit-status.md); windows of pcpus past it are
 * reported and skipped.
 */
#define XT_MAX_PCPUS 4096u
/*
 * Read buffers of all pcpus together, past 32 pcpus (16 KiB each at 64
 * pcpus, 512 bytes from 2,048): part of the whole process's 64 MiB on a
 * large host (doc/design.md, memory).  A read costs a microsecond or
 * two, against some 40 ns per record of 16 to 30 bytes analysed.
 */
#define BUFFER_BUDGET (1u << 20)
/* Windows the scan at open queues, in all pcpus. */
#define INDEX_BUDGET (1u << 16)
/*
 * Windows the lazy walk may hold queued for pcpus ahead of the one that
 * asked (32 bytes each: 16 MiB); beyond, a pcpu walks the chain itself.
 */
#define LAZY_BUDGET (1u << 19)
/*
 * Memory charged per window held by the stream source, besides its bytes:
 * malloc's header and rounding, and its queue slot (32 bytes), counted
 * three times as a queue that doubles is copied into one twice its size.
 */
#define WINDOW_OVERHEAD 128u

/*
 * The block cache of a seekable file (xentrace-cache.c): runs of small
 * windows (at most XT_SMALL_WINDOW bytes each) that follow one another in
 * the file, at most XT_BLOCK_SIZE bytes a run, are read whole into one of
 * XT_BLOCKS blocks (512 KiB in all); the walks that queue windows note them
 * (at most XT_RUNS remembered).  The pcpus read near one another in the
 * file, so 8 blocks read no more bytes than 16 did on hosts of 8 to 64
 * pcpus with 2 KiB windows, and touch fewer fresh pages (bench/README).
 */
#define XT_BLOCK_SIZE (64u * 1024u)
#define XT_BLOCKS 8u
#define XT_SMALL_WINDOW (16u * 1024u)
#define XT_RUNS (1u << 14)

struct xt_run {
	uint64_t start; /* file offset of its first window's records */
	uint32_t len;   /* to its last window's end, at most XT_BLOCK_SIZE */
	uint32_t read;  /* in a block once: it grows no more */
};

/* A zero-filled block is empty, as a zero-filled cache is. */
struct xt_block {
	unsigned char *data; /* XT_BLOCK_SIZE bytes, allocated at its first read */
	size_t faulted;      /* its first bytes whose pages are in (xt_prefault()) */
	uint64_t off;        /* the run's start and length: kept, as the ring may */
	uint32_t len;        /* forget the run while a stream reads the block */
	uint32_t run;        /* the run it holds (its number), 0: none */
	uint32_t pins;       /* streams reading from it */
	uint64_t used;       /* when last asked for (the cache's tick) */
};

struct xt_cache {
	struct xt_block block[XT_BLOCKS];
	uint64_t tick;
	struct xt_run *runs; /* a ring of XT_RUNS, allocated at the first run */
	/*
	 * Runs noted so far: run k (from 1) is runs[(k - 1) % XT_RUNS] until
	 * XT_RUNS more are made.  A run's number is k's low 32 bits (0, once
	 * in 2^32 runs, stands for none): a number taken for an older run
	 * can only make a block be looked for that does not hold the window,
	 * which fill() checks by offset.
	 */
	uint64_t runs_made;
};

struct window {
	uint64_t start; /* file offset of the first record */
	uint64_t end;   /* file offset just past the last byte */
	bool cut;       /* the file ends inside it (already reported) */
	bool lazy;      /* queued by the lazy walk for a pcpu other than the walker */
	/* seekable: the run of small windows it is in (xt_cache_note()), 0: none */
	uint32_t run;   /* (32 bits, so that a window stays 32 bytes) */
	unsigned char *data; /* streaming: its bytes (owned), else NULL */
};

struct pcpu_stream {
	struct vma_stream stream; /* first: the merge sees only this */
	struct xt_reader *reader;
	/* Windows found and not yet read (a ring). */
	struct window *queue;
	size_t q_head, q_len, q_cap;
	uint64_t queued_upto;  /* start of the last window queued, 0 if none */
	uint64_t last_window;  /* start of its last window in the file, 0 if none */
	/* Seekable: where this pcpu walks the chain alone (own_walk), past LAZY_BUDGET. */
	uint64_t own_off;
	bool own_walk;
	uint32_t run;          /* the window's run, 0: none */
	/* The window being read. */
	uint64_t pos, end;
	bool cut;
	/*
	 * Read buffer: bytes [buf_off, buf_off + buf_len) of the file.  When
	 * streaming, the current window's bytes (owned).  Seekable: @own (of
	 * buf_cap bytes, allocated at the first read, so that pcpus that
	 * only have empty windows cost little) or the data of @block, which
	 * the stream pins while it reads from it.
	 */
	unsigned char *buf;
	size_t buf_cap, buf_len;
	uint64_t buf_off;
	unsigned char *own;
	size_t own_faulted; /* @own's first bytes whose pages are in (xt_prefault()) */
	struct xt_block *block;
	/*
	 * min(end, buf_off + buf_len) while reading: a record starting at
	 * least MAX_RECORD_SIZE before it is whole in the buffer and the
	 * window, the common case stream_next() decodes without checks.
	 * 0 when the next call must take the careful path.
	 */
	uint64_t fast_end;
	uint64_t last_tsc;
	bool have_lost_end;
	struct vma_record lost_end;
	bool announced;
	bool paused;           /* streaming: returned VMA_PAUSED, not announced again yet */
	bool ended;            /* streaming: returned VMA_END or an error */
};

/* A walk along the chain of window headers. */
struct chain_walk {
	uint64_t off;  /* next window header */
	bool done;
	uint32_t run;  /* the run its last window went to, 0: none (xt_cache_note()) */
};

/* Streaming: a buffered, forward-only view of the input. */
struct xt_source {
	unsigned char *buf;
	size_t len, pos;       /* valid bytes, next unread */
	uint64_t held;         /* bytes of windows queued, with WINDOW_OVERHEAD each */
	size_t cap;            /* limit on held */
	uint32_t active;       /* streams announced and neither paused nor ended */
	uint64_t last_data_ms; /* when bytes last arrived (CLOCK_MONOTONIC) */
	bool eof;
};

struct xt_reader {
	struct vma_input *input;
	struct pcpu_stream **pcpus; /* indexed by pcpu number */
	uint32_t nr_slots;
	uint32_t nr_pcpus;
	uint32_t pcpus_dropped;     /* pcpus past XT_MAX_PCPUS, whose windows were skipped */
	uint64_t windows;           /* window headers the scan found, empty or not */
	struct chain_walk scan;     /* the walk at open, which reports damage */
	uint32_t indexed;           /* windows it queued */
	uint64_t lazy_queued;       /* windows the lazy walk holds queued */
	uint64_t chain_end;         /* where it stopped: the end of the chain */
	struct chain_walk lazy;     /* the quiet walk for what it did not queue */
	struct xt_source src;       /* streaming only */
	/* Seekable: the file around the last window header read, for the walks. */
	unsigned char *hcache;
	uint64_t hc_off;
	size_t hc_len;
	size_t hc_faulted; /* hcache's first bytes whose pages are in (xt_prefault()) */
	uint64_t hc_last;           /* the last header asked for */
	struct xt_cache cache;      /* seekable: the small windows' blocks */
	bool stopped;               /* read error: every stream ends now */
	int status;                 /* what streams return once their windows run out */
};

/* xentrace.c, for the stream source. */
int xt_report(struct xt_reader *rd, enum vma_level level, uint64_t offset, const char *what);
/*
 * xt_pcpu_for - the stream of pcpu @cpu, for a window (header at @off) that
 * holds records: made at its first.  Past XT_MAX_PCPUS pcpus, *@ps is NULL
 * (skip the window); the first such pcpu is reported (VMA_LVL_LIMIT).
 * Return: VMA_OK, VMA_ERR_DAMAGED (the limit is above the tolerance: stop
 * reading windows) or VMA_ERR_NOMEM.
 */
int xt_pcpu_for(struct xt_reader *rd, uint32_t cpu, uint64_t off, struct pcpu_stream **ps);
int xt_queue_window(struct pcpu_stream *ps, const struct window *w);

/* A little-endian word of the file (xentrace writes the host's order: x86). */
static inline uint32_t xt_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* pread() @len bytes at @off whole; a failure is reported and stops the reader. */
int xt_read_exact(struct xt_reader *rd, void *dst, size_t len, uint64_t off);
/*
 * @buf, whose first *@faulted bytes have their pages in, is about to be
 * read into up to @len: bring in the pages between, those holding its
 * ends included, with one call, and advance *@faulted.  The kernel's copy
 * would fault them in one at a time, about 10 us each on a VM
 * (bench/README, rounds eighteen and nineteen).  Without
 * MADV_POPULATE_WRITE (Linux 5.14) they fault as before.
 */
void xt_prefault(unsigned char *buf, size_t *faulted, size_t len);

/* xentrace-cache.c. */
void xt_cache_free(struct xt_cache *c);
/*
 * xt_cache_note - the window [@start, @end) that @walk found: the number of
 * the run it is in (that of the window before it, when that one ended at
 * this one's header and the run has room), or 0 when it is not small or
 * no run can be kept.  A walk notes every window it passes, in order.
 */
uint32_t xt_cache_note(struct xt_reader *rd, struct chain_walk *walk, uint64_t start,
		       uint64_t end);
/*
 * xt_cache_get - the block holding run @run, read in if it is not there
 * (*@out NULL when the run is forgotten or every block is pinned).  The
 * caller pins it (pins++) for as long as it reads from it.  Return:
 * VMA_OK, VMA_ERR_NOMEM or what xt_read_exact() returned.
 */
int xt_cache_get(struct xt_reader *rd, uint32_t run, struct xt_block **out);

/* xentrace-stream.c. */
int xt_stream_open(struct xt_reader *rd);
int xt_stream_next_window(struct pcpu_stream *ps);
void xt_stream_free(struct xt_reader *rd);

#endif /* VMALYZE_INPUT_XENTRACE_INTERNAL_H */
