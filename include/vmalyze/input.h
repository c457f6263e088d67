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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmalyze/record.h"
#include "vmalyze/strbuf.h"

struct vma_diag;
struct vma_input;

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
	void (*close)(struct vma_input *input);
	/*
	 * Dump-mode text of the stream's current record (everything after the
	 * time, cpu and vcpu columns).  NULL for Xen inputs, whose records are
	 * decoded by the output stage from their xentrace ids.
	 */
	void (*describe)(const struct vma_stream *stream, struct vma_strbuf *sb);
};

struct vma_input_options {
	const char *event_formats_dir; /* --event-formats, for raw ftrace dumps */
};

struct vma_input {
	const struct vma_input_ops *ops;
	char *path;               /* owned: the name shown in messages */
	int fd;                   /* owned: seekable descriptor of the data */
	uint64_t size;            /* bytes in the file */
	enum vma_clock clock;
	enum vma_family family;
	uint64_t clock_hz;        /* ticks per second when the file says, else 0 */
	struct vma_diag *diag;    /* borrowed */
	const struct vma_input_options *options; /* borrowed */
	vma_new_stream_fn new_stream;
	void *new_stream_arg;
	void *priv;               /* owned by the reader */
};

/*
 * vma_input_open - open @path ("-" for standard input), recognise its format
 * from its content and announce its streams through @new_stream.
 * A pipe is copied to an unlinked temporary file first, so every reader can
 * seek; memory use does not grow with the input.
 * Return: VMA_OK and *out owned (free with vma_input_close()), or a negative
 * VMA_ERR_* after a message naming the file was reported to @diag.
 */
int vma_input_open(const char *path, const struct vma_input_options *options,
		   struct vma_diag *diag, vma_new_stream_fn new_stream, void *arg,
		   struct vma_input **out);
void vma_input_close(struct vma_input *input);

/* Registered readers, for probing and for --help. */
extern const struct vma_input_ops vma_xentrace_ops;
extern const struct vma_input_ops vma_tracedat_ops;
extern const struct vma_input_ops vma_ftrace_raw_ops;

#endif /* VMALYZE_INPUT_H */
