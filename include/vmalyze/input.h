/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Input stage contract.  An input is one opened trace file of any format;
 * it yields one stream of records per physical cpu (per ring buffer), each
 * in the order the cpu wrote them.  The merge stage orders the streams by
 * time; nothing downstream knows which format a record came from.
 *
 * A reader may discover streams while it reads (a pcpu whose first window
 * comes late in a xentrace file): it announces each one through the
 * new_stream callback, before the stream's first record is asked for.
 */
#ifndef VMALYZE_INPUT_H
#define VMALYZE_INPUT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vmalyze/record.h"
#include "vmalyze/strbuf.h"

struct vma_diag;
struct vma_input;
struct vma_spool;

/* Clock of the time stamps in an input's records. */
enum vma_clock {
	VMA_CLOCK_CYCLES = 0, /* TSC (or Arm generic timer) ticks: needs --cpu-hz */
	VMA_CLOCK_NS = 1,     /* nanoseconds (trace.dat local, tsc2nsec) */
};

/*
 * Hypervisor family of an input, from its format.  The run driver sets the
 * machine up by it (KVM: the event window, the guests' vcpu threads).
 */
enum vma_family {
	VMA_FAMILY_XEN = 0,
	VMA_FAMILY_KVM = 1,
};

/*
 * One per-pcpu stream.  rec is the current record, borrowed: valid until
 * the next call of next() on the same stream.
 *
 * next() of a streamed input (a pipe) may also return VMA_PAUSED: the
 * stream has no record now and its reader cannot hold more of the input
 * to find one (the reorder cap); the stream is not over.  The caller
 * stops asking it; the reader announces it again through new_stream when
 * it has a record, which is then usually older than records already
 * released (the reader reports that lateness as damage).
 */
struct vma_stream {
	struct vma_record rec;
	/* Advance to the next record: VMA_OK, VMA_END, or a negative VMA_ERR_*. */
	int (*next)(struct vma_stream *stream);
	struct vma_input *input; /* borrowed: owned by the caller of vma_input_open() */
	uint32_t pcpu;
};

typedef int (*vma_new_stream_fn)(void *arg, struct vma_stream *stream);

struct vma_input_ops {
	const char *name; /* "xentrace", "trace.dat", "ftrace-raw" */
	/* True when the first bytes of a file look like this format. */
	bool (*probe)(const unsigned char *head, size_t len);
	/* Read the headers; announce the streams known so far. */
	int (*open)(struct vma_input *input);
	/* Free priv and leave it NULL: called again, it does nothing. */
	void (*close)(struct vma_input *input);
	/*
	 * Dump-mode text of the stream's current record (everything after the
	 * time, cpu and vcpu columns).  NULL for Xen inputs, whose records are
	 * decoded by the output stage from their xentrace ids.
	 */
	void (*describe)(const struct vma_stream *stream, struct vma_strbuf *sb);
};

/*
 * Memory a streamed xentrace input may hold to put records in time order:
 * with everything else a process holds, its peak stays well under 64 MiB
 * (doc/design.md); a real trace piped whole (11 MB) is still held whole.
 */
#define VMA_REORDER_CAP_DEFAULT (16u << 20)
/*
 * Largest temporary copy of a pipe whose format must seek (trace.dat, raw
 * dumps); a trace.dat's is only as long as its header says the file is.
 */
#define VMA_SPOOL_CAP_DEFAULT (4ull << 30)

/*
 * A trace's clock mapped by hand onto another's (--time-offset): its time
 * stamps become stamp * scale_num / scale_den + offset, after its own
 * conversions.  scale_den 0: none given.
 */
struct vma_time_map {
	int64_t offset;
	uint64_t scale_num, scale_den;
	/*
	 * --guest-tsc: a guest recorded with a TSC clock put on a Xen host's
	 * TSC: its stamps stay in cycles (TIME_SHIFT applied, not TSC2NSEC,
	 * DATE or OFFSET) before the map; a clock that is not TSC is refused.
	 */
	bool cycles;
	/* and, when has_domain, the Xen domain it is (the pipeline ties its cpus) */
	bool has_domain;
	uint32_t domain;
};

struct vma_input_options {
	const char *event_formats_dir; /* --event-formats, for raw ftrace dumps */
	/*
	 * Set (from a signal handler) to end reading early, as if the input
	 * ended there: what was read is still reported.  NULL: never.
	 */
	volatile sig_atomic_t *stop;
	size_t reorder_cap;            /* bytes; 0 = VMA_REORDER_CAP_DEFAULT */
	/*
	 * Called when a streaming input is about to wait for data that has
	 * not arrived, so the caller can flush what it wrote so far.  NULL:
	 * nothing to do.
	 */
	void (*idle)(void *arg);
	void *idle_arg;
	uint64_t spool_cap;            /* bytes; 0 = VMA_SPOOL_CAP_DEFAULT */
	struct vma_time_map time_map;  /* trace.dat only; zero: none */
	/*
	 * KVM: no record is ever described (no dump), so the event formats
	 * are needed for their fields only: the plain ones are parsed from
	 * their field lines alone, with no helper process to guard the parse,
	 * and the texts of those not parsed at open are not kept.
	 */
	bool fields_only;
};

struct vma_input {
	const struct vma_input_ops *ops;
	char *path;               /* owned: the name shown in messages */
	int fd;                   /* owned: descriptor of the data */
	/*
	 * False: fd is seekable and size is the file's size.  True: fd is a
	 * pipe or FIFO read once, in order, with vma_input_read() (only
	 * xentrace streams); size is UINT64_MAX until the end is reached.
	 */
	bool streaming;
	uint64_t size;            /* bytes in the file */
	/*
	 * Bytes of trace records in it, as stored (compressed or not): a
	 * trace.dat's cpu data without its header's formats and symbols;
	 * else size.  Set at open; what the default thread count goes by.
	 */
	uint64_t data_bytes;
	uint64_t read_pos;        /* streaming: bytes consumed so far */
	unsigned char *head;      /* streaming: bytes read to probe the format, served first */
	size_t head_len, head_pos;
	bool interrupted;         /* options->stop ended the input early */
	enum vma_clock clock;
	enum vma_family family;
	uint64_t clock_hz;        /* ticks per second when the file says, else 0 */
	struct vma_diag *diag;    /* borrowed */
	const struct vma_input_options *options; /* borrowed */
	vma_new_stream_fn new_stream;
	void *new_stream_arg;
	void *priv;               /* owned by the reader */
	/*
	 * While a reader opens a pipe it reads by offset: fd is the pipe's
	 * temporary copy, size the bytes it holds so far, and the reader has
	 * more copied as it needs them (vma_input_spool_to()).  NULL once
	 * open() returned: the copy holds all that will be read.
	 */
	struct vma_spool *spool;
};

/*
 * vma_input_open - open @path ("-" for standard input), recognise its format
 * from its content and announce its streams through @new_stream.
 * The format is recognised from the first bytes before anything else is
 * read.  A xentrace pipe or FIFO is read as it arrives (streaming); a
 * trace.dat or raw dump on a pipe, whose readers seek, is copied to an
 * unlinked temporary file, up to options->spool_cap bytes: a raw dump
 * whole, first; a trace.dat as far as its reader reads at open (the end
 * of its header, or of damage in it, then the end of its data).
 * Return: VMA_OK and *out owned (free with vma_input_close()), or a negative
 * VMA_ERR_* after a message naming the file was reported to @diag.
 */
int vma_input_open(const char *path, const struct vma_input_options *options,
		   struct vma_diag *diag, vma_new_stream_fn new_stream, void *arg,
		   struct vma_input **out);
/*
 * vma_input_open_fd - the same for an open descriptor @fd (owned from now
 * on, closed on failure too), named @name in messages: an archive member
 * arrives this way, on a pipe.
 */
int vma_input_open_fd(int fd, const char *name, const struct vma_input_options *options,
		      struct vma_diag *diag, vma_new_stream_fn new_stream, void *arg,
		      struct vma_input **out);
void vma_input_close(struct vma_input *input);
/*
 * vma_input_release - free what @input's reader holds (its streams and
 * their buffers) once nothing reads it: the input keeps its name, size
 * and format for messages and the report, and is closed as ever.
 */
void vma_input_release(struct vma_input *input);

/*
 * vma_input_read - for readers of a streaming input: the next bytes, in
 * order (the probed head first): at least @min and at most @max, as many
 * as have arrived.  Return: bytes read (< @min only at the end of the
 * input or when options->stop was set: in->interrupted then), or
 * VMA_ERR_IO after a message naming the file and offset.
 */
ssize_t vma_input_read(struct vma_input *in, void *buf, size_t min, size_t max);

/*
 * vma_input_spool_to - for a reader's open() while in->spool is set: copy
 * the pipe on until the copy holds the bytes before @end, or the pipe
 * ends; in->size is then the bytes held (less than @end: the input ends
 * there).  An @end past the cap of the copy is refused at once, nothing
 * copied, with a message at offset @at naming the part that needs it
 * (@what, e.g. "options"); with @what NULL (a part only some runs read) the copy goes
 * up to the cap.  Without a spool: nothing to do.
 * Return: VMA_OK, or a negative VMA_ERR_* after a message.
 */
int vma_input_spool_to(struct vma_input *in, uint64_t end, uint64_t at, const char *what);
/*
 * vma_input_spool_all - the same for all of the pipe (data running to the
 * end of the input); one holding more than the cap is refused there.
 */
int vma_input_spool_all(struct vma_input *in);

/*
 * vma_input_wait - streaming input: wait up to @ms milliseconds for more
 * bytes.  Return: true when a read would not block (data, or the end).
 */
bool vma_input_wait(struct vma_input *in, int ms);

/* True once options->stop was set: readers end their streams. */
static inline bool vma_input_stop_requested(const struct vma_input *in)
{
	return in->options && in->options->stop && *in->options->stop;
}

/*
 * vma_input_recognise - the reader whose format the first @len bytes of a
 * file (up to 4 KiB) look like, or NULL: not a trace vmalyze reads.
 */
const struct vma_input_ops *vma_input_recognise(const unsigned char *head, size_t len);
#define VMA_INPUT_PROBE_BYTES 4096

/*
 * A question about the first @records records a run of the xentrace reader
 * and the merge would deliver: does any record of the class
 * (event & @class_mask) == @class_value satisfy @match?
 */
struct vma_lookahead_query {
	uint32_t records;
	uint32_t class_mask, class_value;
	/* Given the record's event, pcpu, offset, nr_data and data (no time stamp). */
	bool (*match)(const struct vma_record *rec);
};

/*
 * vma_xentrace_lookahead_clear - true when none of those records of the
 * xentrace file at @path matches, known by reading each pcpu's first
 * @q->records records straight from the file (xentrace-lookahead.c says
 * why that answers for the merged order).  False when one of those
 * matches (it may lie past the merged look-ahead), and whenever the file
 * is not plain: anything the reader would report (a window header not
 * where the chain puts one, a record across its window's end, a window
 * past the file's end), pcpu numbers from 4,096 (the reader's limit),
 * not a regular file, a failed read.  Time: one pass along the file's
 * chain of windows; memory: 80 KiB.  Silent: the run reports what is
 * wrong.
 */
bool vma_xentrace_lookahead_clear(const char *path, const struct vma_lookahead_query *q);

/* Registered readers, for probing and for --help. */
extern const struct vma_input_ops vma_xentrace_ops;
extern const struct vma_input_ops vma_tracedat_ops;
extern const struct vma_input_ops vma_ftrace_raw_ops;

#endif /* VMALYZE_INPUT_H */
