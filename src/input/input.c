/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening an input: naming it, recognising its format from its first bytes
 * and handing it to the matching reader.
 *
 * A pipe, FIFO or character device is probed from the bytes it yields
 * first, before anything else is read, so /dev/zero or random data is
 * rejected at once.  A xentrace stream is then read as it arrives
 * (xentrace.c puts it in time order within a memory cap).  The trace.dat
 * and raw-dump readers seek, so such a pipe is copied to an unlinked
 * temporary file, up to a cap, and the user is told why: a raw dump
 * first, a trace.dat as far as its reader asks while it reads the header
 * (it stops at damage, and knows where the data end).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmalyze/diag.h"
#include "vmalyze/input.h"
#include "vmalyze/status.h"

/* The KVM formats have exact magic numbers; xentrace's is weaker: last. */
static const struct vma_input_ops *const readers[] = {
	&vma_tracedat_ops,
	&vma_ftrace_raw_ops,
	&vma_xentrace_ops,
};

#define PROBE_BYTES VMA_INPUT_PROBE_BYTES
/* Bytes a pipe must yield before its format is decided (every probe needs fewer). */
#define PROBE_MIN 64
/* Below a xentrace window header (12 bytes), an unclaimed file is just too short. */
#define SHORTEST_HEADER 12

/* A read that retries on EINTR unless a stop was requested. */
static ssize_t read_some(int fd, void *buf, size_t len, volatile sig_atomic_t *stop,
			 bool *stopped)
{
	for (;;) {
		ssize_t n;

		if (stop && *stop) {
			*stopped = true;
			return 0;
		}
		n = read(fd, buf, len);
		if (n >= 0 || errno != EINTR)
			return n;
	}
}

static bool write_all(int fd, const unsigned char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return false;
		buf += w;
		len -= (size_t)w;
	}
	return true;
}

/*
 * A pipe being copied to a temporary file for a reader that reads by
 * offset.  The trace.dat reader has it copied as far as it reads
 * (vma_input_spool_to()), so a pipe that starts like a trace.dat and then
 * holds garbage costs the bytes up to the damage, not the cap; a raw dump
 * has no header saying where it ends and is copied whole.
 */
struct vma_spool {
	int src;          /* the pipe; in->fd is the copy, in->size the bytes it holds */
	uint64_t cap;     /* most bytes the copy may hold */
	bool ended;       /* the pipe ended (or a stop was asked): in->size is all there is */
};

static const char *temp_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

/*
 * Start the copy of the pipe in->fd: an unlinked temporary file holding
 * @head so far replaces in->fd, the pipe is kept in in->spool.
 */
static int spool_start(struct vma_input *in, const unsigned char *head, size_t head_len,
		       uint64_t cap)
{
	struct vma_spool *sp = calloc(1, sizeof(*sp));
	char path[4096];
	int fd;

	if (!sp)
		return VMA_ERR_NOMEM;
	snprintf(path, sizeof(path), "%s/vmalyze-XXXXXX", temp_dir());
	fd = mkstemp(path);
	if (fd < 0) {
		vma_diag_report(in->diag, VMA_LVL_INPUT, in->path, UINT64_MAX,
				"Cannot create a temporary file in %s to hold the input: %s "
				"(set TMPDIR to a writable folder, or give a file, not a pipe)",
				temp_dir(), strerror(errno));
		free(sp);
		return VMA_ERR_IO;
	}
	unlink(path);
	sp->src = in->fd;
	sp->cap = cap;
	in->fd = fd;
	in->size = 0;
	in->spool = sp;
	if (!write_all(fd, head, head_len)) {
		vma_diag_report(in->diag, VMA_LVL_SYSTEM, in->path, 0,
				"Cannot write the temporary copy: %s (free space in TMPDIR or point "
				"it elsewhere, or give a file, not a pipe)", strerror(errno));
		return VMA_ERR_IO;
	}
	in->size = head_len;
	return VMA_OK;
}

/* The pipe is no longer read: what the copy holds is the input. */
static void spool_end(struct vma_input *in)
{
	if (!in->spool)
		return;
	close(in->spool->src);
	free(in->spool);
	in->spool = NULL;
}

/*
 * Copy the pipe on until the copy holds @end bytes or the pipe ends;
 * UINT64_MAX: all of it, and a pipe holding more than the cap is refused.
 * @end is at most the cap otherwise.
 */
static int spool_more(struct vma_input *in, uint64_t end)
{
	struct vma_spool *sp = in->spool;
	volatile sig_atomic_t *stop = in->options ? in->options->stop : NULL;
	unsigned char buf[1 << 16];
	bool stopped = false;

	while (!sp->ended && in->size < end) {
		size_t want = sizeof(buf);
		ssize_t n;

		/* one byte past the cap tells a pipe that holds more */
		if (want > sp->cap - in->size)
			want = sp->cap - in->size > 0 ? (size_t)(sp->cap - in->size) : 1;
		n = read_some(sp->src, buf, want, stop, &stopped);
		if (n < 0) {
			vma_diag_report(in->diag, VMA_LVL_INPUT, in->path, in->size,
					"Cannot read: %s", strerror(errno));
			return VMA_ERR_IO;
		}
		if (n == 0) {
			sp->ended = true;
			break;
		}
		if (in->size + (uint64_t)n > sp->cap) {
			vma_diag_report(in->diag, VMA_LVL_INPUT, in->path, sp->cap,
					"A trace.dat or raw dump on a pipe must be copied to a "
					"temporary file (the format is read by offset), and this "
					"one exceeds the %" PRIu64 " MiB cap: write it to a file "
					"first", sp->cap >> 20);
			return VMA_ERR_IO;
		}
		if (!write_all(in->fd, buf, (size_t)n)) {
			vma_diag_report(in->diag, VMA_LVL_SYSTEM, in->path, in->size,
					"Cannot write the temporary copy: %s (free space in TMPDIR "
					"or point it elsewhere, or give a file, not a pipe)",
					strerror(errno));
			return VMA_ERR_IO;
		}
		in->size += (uint64_t)n;
	}
	return VMA_OK;
}

int vma_input_spool_to(struct vma_input *in, uint64_t end, uint64_t at, const char *what)
{
	struct vma_spool *sp = in->spool;

	if (!sp || sp->ended || end <= in->size)
		return VMA_OK;
	if (end > sp->cap && !what)
		end = sp->cap;
	if (end > sp->cap) {
		/* the copy could never hold them: said now, not after copying up to the cap */
		vma_diag_report(in->diag, VMA_LVL_INPUT, in->path, at,
				"The %s reach past the %" PRIu64 " MiB a trace.dat on a pipe is "
				"copied up to (its parts are read by offset): damaged, or a trace "
				"too large for a pipe: write it to a file first", what,
				sp->cap >> 20);
		return VMA_ERR_IO;
	}
	return spool_more(in, end);
}

int vma_input_spool_all(struct vma_input *in)
{
	return in->spool ? spool_more(in, UINT64_MAX) : VMA_OK;
}

/* The first bytes of a pipe: at least PROBE_MIN unless it ends sooner. */
static ssize_t read_head(int fd, unsigned char *head, const struct vma_input_options *options,
			 bool *stopped)
{
	size_t got = 0;

	while (got < PROBE_MIN) {
		ssize_t n = read_some(fd, head + got, PROBE_BYTES - got,
				      options ? options->stop : NULL, stopped);

		if (n < 0)
			return n;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

const struct vma_input_ops *vma_input_recognise(const unsigned char *head, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		if (readers[i]->probe(head, len))
			return readers[i];
	}
	return NULL;
}

/* The compression or archive whose magic @head starts with, or NULL. */
static const char *container_magic(const unsigned char *head, size_t got)
{
	static const struct {
		const char *name;
		unsigned char len, magic[6];
	} magics[] = {
		{ "gzip", 2, { 0x1f, 0x8b } },
		{ "xz", 6, { 0xfd, '7', 'z', 'X', 'Z', 0 } },
		{ "zstd", 4, { 0x28, 0xb5, 0x2f, 0xfd } },
		{ "bzip2", 3, { 'B', 'Z', 'h' } },
		{ "lz4", 4, { 0x04, 0x22, 0x4d, 0x18 } },
		{ "zip", 4, { 'P', 'K', 3, 4 } },
		{ "cpio", 6, { '0', '7', '0', '7', '0', '1' } },
	};
	size_t i;

	for (i = 0; i < sizeof(magics) / sizeof(magics[0]); i++) {
		if (got >= magics[i].len && !memcmp(head, magics[i].magic, magics[i].len))
			return magics[i].name;
	}
	if (got >= 262 && !memcmp(head + 257, "ustar", 5))
		return "tar";
	return NULL;
}

/*
 * @regular: the input is a regular file, not a pipe; @on_stdin: it is
 * standard input ("-").
 */
static void report_not_a_trace(struct vma_diag *diag, const char *name,
			       const unsigned char *head, size_t got, bool regular, bool on_stdin)
{
	const char *container = regular && !on_stdin ? NULL : container_magic(head, got);

	/*
	 * A container is opened by name (libarchive reads it) before the
	 * input stage sees it: here it came on a pipe, or as a regular file
	 * on standard input (`vmalyze - < trace.gz`).  A file given by name
	 * that reaches here was refused by libarchive: not a container.
	 */
	if (container && !regular) {
		vma_diag_report(diag, VMA_LVL_INPUT, name, 0,
				"Is %s data on a pipe: vmalyze decompresses or unpacks only a file"
				" given by name (give the file, or decompress into the pipe)",
				container);
		return;
	}
	if (container) {
		vma_diag_report(diag, VMA_LVL_INPUT, name, 0,
				"Is %s data on standard input: vmalyze decompresses or unpacks only"
				" a file given by name (name the file instead of redirecting it)",
				container);
		return;
	}
	vma_diag_report(diag, VMA_LVL_INPUT, name, 0,
			"Not a trace vmalyze reads (not xentrace, trace.dat or a raw ftrace "
			"ring-buffer dump); first word 0x%02x%02x%02x%02x: give one of those, or "
			"an archive or compressed file holding them",
			got > 3 ? head[3] : 0, got > 2 ? head[2] : 0, got > 1 ? head[1] : 0,
			got > 0 ? head[0] : 0);
}

ssize_t vma_input_read(struct vma_input *in, void *buf, size_t min, size_t max)
{
	unsigned char *dst = buf;
	size_t done = 0;

	while (done < min || (done < max && in->head_pos < in->head_len)) {
		ssize_t n;

		if (in->head_pos < in->head_len) {
			n = (ssize_t)(in->head_len - in->head_pos);
			if ((size_t)n > max - done)
				n = (ssize_t)(max - done);
			memcpy(dst + done, in->head + in->head_pos, (size_t)n);
			in->head_pos += (size_t)n;
		} else {
			if (in->options && in->options->idle && done < min &&
			    !vma_input_wait(in, 0))
				in->options->idle(in->options->idle_arg);
			n = read_some(in->fd, dst + done, max - done,
				      in->options ? in->options->stop : NULL, &in->interrupted);
			if (n < 0) {
				vma_diag_report(in->diag, VMA_LVL_INPUT, in->path, in->read_pos,
						"Cannot read: %s", strerror(errno));
				return VMA_ERR_IO;
			}
			if (n == 0)
				break;
		}
		done += (size_t)n;
		in->read_pos += (uint64_t)n;
	}
	return (ssize_t)done;
}

bool vma_input_wait(struct vma_input *in, int ms)
{
	struct pollfd p = { .fd = in->fd, .events = POLLIN };

	if (in->head_pos < in->head_len)
		return true;
	return poll(&p, 1, ms) != 0;
}

/*
 * Read the first bytes of @in (a regular file: at offset 0; else what the
 * pipe brings first) into @head and recognise the format: in->ops.
 * Return: the bytes read, or a negative VMA_ERR_* after a report.
 */
static ssize_t probe(struct vma_input *in, bool regular, bool on_stdin, unsigned char *head)
{
	const char *name = in->path;
	ssize_t got;

	if (regular && in->size == 0) {
		vma_diag_report(in->diag, VMA_LVL_INPUT, name, UINT64_MAX,
				"Is empty: no trace records");
		return VMA_ERR_FORMAT;
	}
	if (regular) {
		got = pread(in->fd, head, PROBE_BYTES, 0);
	} else {
		bool stopped = false;

		got = read_head(in->fd, head, in->options, &stopped);
		if (got == 0) {
			vma_diag_report(in->diag, VMA_LVL_INPUT, name, UINT64_MAX,
					stopped ? "Interrupted before any data arrived"
						: "Is empty: no trace records");
			return VMA_ERR_FORMAT;
		}
	}
	if (got < 0) {
		vma_diag_report(in->diag, VMA_LVL_INPUT, name, 0, "Cannot read: %s",
				strerror(errno));
		return VMA_ERR_IO;
	}
	in->ops = vma_input_recognise(head, (size_t)got);
	if (!in->ops && got < SHORTEST_HEADER) {
		vma_diag_report(in->diag, VMA_LVL_INPUT, name, UINT64_MAX,
				"Is only %zd bytes long: too short to hold the header of any trace",
				got);
		return VMA_ERR_FORMAT;
	}
	if (!in->ops) {
		report_not_a_trace(in->diag, name, head, (size_t)got, regular, on_stdin);
		return VMA_ERR_FORMAT;
	}
	return got;
}

/*
 * A pipe or FIFO: a xentrace stream is read as it comes, the probed bytes
 * served first; any other format is copied to a temporary file, which
 * replaces in->fd: a trace.dat as far as its reader reads while it opens
 * it, a raw dump whole, now.
 */
static int prepare_pipe(struct vma_input *in, const unsigned char *head, size_t got)
{
	const struct vma_input_options *o = in->options;
	uint64_t cap = o && o->spool_cap ? o->spool_cap : VMA_SPOOL_CAP_DEFAULT;
	bool by_need = in->ops == &vma_tracedat_ops;
	int rc;

	if (in->ops == &vma_xentrace_ops) {
		in->streaming = true;
		in->size = UINT64_MAX;
		in->head = malloc(got);
		if (!in->head)
			return VMA_ERR_NOMEM;
		memcpy(in->head, head, got);
		in->head_len = got;
		return VMA_OK;
	}
	rc = spool_start(in, head, got, cap);
	if (rc)
		return rc;
	vma_diag_info(in->diag, "%s: this format is read by offset: copying the pipe to a "
		      "temporary file in %s %s (at most %" PRIu64 " MiB)", in->path, temp_dir(),
		      by_need ? "as far as its header says it reaches" : "first", cap >> 20);
	return by_need ? VMA_OK : vma_input_spool_all(in);
}

static int open_fd(int fd, const char *name, bool on_stdin,
		   const struct vma_input_options *options, struct vma_diag *diag,
		   vma_new_stream_fn new_stream, void *arg, struct vma_input **out)
{
	unsigned char head[PROBE_BYTES];
	struct vma_input *in;
	struct stat st;
	ssize_t got;
	int rc;

	*out = NULL;
	if (fstat(fd, &st) < 0) {
		vma_diag_report(diag, VMA_LVL_INPUT, name, UINT64_MAX, "Cannot stat: %s",
				strerror(errno));
		close(fd);
		return VMA_ERR_IO;
	}
	if (S_ISDIR(st.st_mode)) {
		vma_diag_report(diag, VMA_LVL_INPUT, name, UINT64_MAX,
				"Is a directory, not a trace file");
		close(fd);
		return VMA_ERR_IO;
	}
	in = calloc(1, sizeof(*in));
	if (!in || !(in->path = strdup(name))) {
		free(in);
		close(fd);
		return VMA_ERR_NOMEM;
	}
	in->fd = fd;
	in->diag = diag;
	in->options = options;
	in->new_stream = new_stream;
	in->new_stream_arg = arg;
	if (S_ISREG(st.st_mode))
		in->size = (uint64_t)st.st_size;
	got = probe(in, S_ISREG(st.st_mode), on_stdin, head);
	rc = got < 0 ? (int)got : VMA_OK;
	if (rc == VMA_OK && !S_ISREG(st.st_mode))
		rc = prepare_pipe(in, head, (size_t)got);
	if (rc == VMA_OK) {
		in->data_bytes = in->size; /* the reader may know better */
		rc = in->ops->open(in);
	}
	/* the reader has had copied all it will read */
	spool_end(in);
	if (rc) {
		vma_input_close(in);
		return rc;
	}
	*out = in;
	return VMA_OK;
}

int vma_input_open(const char *path, const struct vma_input_options *options,
		   struct vma_diag *diag, vma_new_stream_fn new_stream, void *arg,
		   struct vma_input **out)
{
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	int fd;

	*out = NULL;
	fd = is_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		vma_diag_report(diag, VMA_LVL_INPUT, name, UINT64_MAX, "Cannot open: %s",
				strerror(errno));
		return VMA_ERR_IO;
	}
	return open_fd(fd, name, is_stdin, options, diag, new_stream, arg, out);
}

int vma_input_open_fd(int fd, const char *name, const struct vma_input_options *options,
		      struct vma_diag *diag, vma_new_stream_fn new_stream, void *arg,
		      struct vma_input **out)
{
	return open_fd(fd, name, false, options, diag, new_stream, arg, out);
}

void vma_input_release(struct vma_input *input)
{
	if (input && input->ops && input->ops->close)
		input->ops->close(input);
}

void vma_input_close(struct vma_input *input)
{
	if (!input)
		return;
	if (input->ops && input->ops->close)
		input->ops->close(input);
	spool_end(input);
	if (input->fd >= 0)
		close(input->fd);
	free(input->head);
	free(input->path);
	free(input);
}
