/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Containers of traces through libarchive (see source.h).
 *
 * Two libarchive readers: the outer one reads the file (its compression,
 * then tar, zip or cpio; or "raw" for a lone compressed trace); an archive
 * member is read through an inner one fed by the outer, which undoes the
 * member's own compression if it has one and passes the bytes through
 * otherwise.  Only the compressions and formats the documentation names are
 * enabled: libarchive's others run external programs.
 *
 * The pump thread owns the readers while a member is pumped; the caller
 * touches them again only after vma_source_finish() joined it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "input/archive-lib.h"
#include "vmalyze/diag.h"
#include "vmalyze/source.h"
#include "vmalyze/status.h"

#define BLOCK_BYTES (64u << 10)
/* A bigger pipe means fewer wake-ups between the pump and the reader. */
#define PIPE_BYTES (1 << 20)

struct vma_source {
	const struct vma_libarchive *la;
	char *path;
	int fd;                 /* the file, read by the outer reader */
	struct vma_diag *diag;
	struct archive *outer;
	struct archive *inner;  /* the current member's, NULL for a lone file */
	struct archive *reader; /* where the member's bytes come from: inner or outer */
	bool lone;              /* a compressed file, not an archive: one member */
	bool pending;           /* entry, read by open(), is not used yet */
	struct archive_entry *entry;
	bool at_eof;            /* the current member ended within its head */
	bool ended;             /* no more members (the end, or the archive failed) */
	char *name, *shown;     /* the current member's */
	struct vma_member *member;
	/* What the head read past: the pump writes it first. */
	const unsigned char *rest;
	size_t rest_len;
	int64_t rest_off;       /* member offset of rest */
	int64_t next_off;       /* member offset of the next byte delivered */
	unsigned char block[BLOCK_BYTES]; /* the inner reader's input */

	pthread_t pump;
	bool pumping;
	int wfd;
	int pump_status;        /* VMA_OK or VMA_ERR_DAMAGED */
	bool outer_failed;      /* the error came from the archive itself... */
	bool outer_fatal;       /* ...and ended it: no member after this one */
	_Atomic uint64_t *progress; /* borrowed, may be NULL */
};

static const char *const_or(const char *s, const char *fallback)
{
	return s && *s ? s : fallback;
}

static void enable_compressions(const struct vma_libarchive *la, struct archive *a)
{
	la->archive_read_support_filter_gzip(a);
	la->archive_read_support_filter_xz(a);
	la->archive_read_support_filter_lzma(a);
	la->archive_read_support_filter_zstd(a);
	la->archive_read_support_filter_bzip2(a);
	la->archive_read_support_filter_lz4(a);
}

static void note_bytes(struct vma_source *src)
{
	int64_t n = src->la->archive_filter_bytes(src->outer, -1);

	if (n > 0 && src->progress)
		atomic_store_explicit(src->progress, (uint64_t)n, memory_order_relaxed);
}

int vma_source_open(const char *path, struct vma_diag *diag, _Atomic uint64_t *progress,
		    struct vma_source **out)
{
	const struct vma_libarchive *la;
	struct vma_source *src;
	struct archive_entry *entry;
	const char *why;
	bool compressed;
	int r, fd;

	*out = NULL;
	la = vma_libarchive_get(&why);
	if (!la) {
		vma_diag_report(diag, VMA_LVL_SYSTEM, path, UINT64_MAX,
				"Cannot load libarchive to read a file that is not a plain trace: %s",
				why);
		return VMA_ERR_IO;
	}
	src = calloc(1, sizeof(*src));
	if (!src || !(src->path = strdup(path)) || !(src->outer = la->archive_read_new())) {
		if (src)
			free(src->path);
		free(src);
		return VMA_ERR_NOMEM;
	}
	src->la = la;
	src->fd = -1;
	src->diag = diag;
	src->progress = progress;
	src->wfd = -1;
	enable_compressions(src->la, src->outer);
	src->la->archive_read_support_format_tar(src->outer);
	src->la->archive_read_support_format_zip(src->outer);
	src->la->archive_read_support_format_cpio(src->outer);
	src->la->archive_read_support_format_raw(src->outer);
	/* raw wants a byte: a compressed empty file would be no format at all */
	src->la->archive_read_support_format_empty(src->outer);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		vma_diag_report(diag, VMA_LVL_INPUT, path, UINT64_MAX, "Cannot open: %s",
				strerror(errno));
		vma_source_close(src);
		return VMA_ERR_IO;
	}
	/* libarchive reads ahead at open: a damaged start fails here */
	if (src->la->archive_read_open_fd(src->outer, fd, BLOCK_BYTES) != ARCHIVE_OK) {
		vma_diag_report(diag, VMA_LVL_FILE, path, UINT64_MAX,
				"Cannot read as an archive or compressed file: %s",
				const_or(src->la->archive_error_string(src->outer), "unknown error"));
		close(fd);
		vma_source_close(src);
		return VMA_ERR_DAMAGED;
	}
	src->fd = fd;
	r = src->la->archive_read_next_header(src->outer, &entry);
	compressed = src->la->archive_filter_count(src->outer) > 1 ||
		     src->la->archive_filter_code(src->outer, 0) != ARCHIVE_FILTER_NONE;
	/*
	 * raw and uncompressed: libarchive only says "some bytes"; an
	 * uncompressed archive with no member is zero bytes (an empty tar is
	 * 10 KiB of them): both are plain files, told apart by the probe
	 */
	if (!compressed && (src->la->archive_format(src->outer) == ARCHIVE_FORMAT_RAW || r == ARCHIVE_EOF)) {
		vma_source_close(src);
		return VMA_ERR_FORMAT;
	}
	if (r == ARCHIVE_EOF) {
		src->ended = true;
	} else if (r < ARCHIVE_WARN) {
		vma_diag_report(diag, VMA_LVL_FILE, path,
				(uint64_t)src->la->archive_filter_bytes(src->outer, -1),
				"Cannot read as an archive or compressed file: %s",
				const_or(src->la->archive_error_string(src->outer), "unknown error"));
		vma_source_close(src);
		return VMA_ERR_DAMAGED;
	} else {
		src->pending = true;
		src->entry = entry;
	}
	src->lone = src->la->archive_format(src->outer) == ARCHIVE_FORMAT_RAW;
	note_bytes(src);
	*out = src;
	return VMA_OK;
}

int vma_source_report_empty(struct vma_source *src)
{
	if (src->la->archive_format(src->outer) == ARCHIVE_FORMAT_EMPTY) {
		vma_diag_report(src->diag, VMA_LVL_INPUT, src->path, UINT64_MAX,
				"Is empty once decompressed (%s): no trace records",
				const_or(src->la->archive_filter_name(src->outer, 0), "?"));
	} else {
		vma_diag_report(src->diag, VMA_LVL_INPUT, src->path, UINT64_MAX,
				"Is an archive with no file in it: no trace records");
	}
	return VMA_ERR_FORMAT;
}

/* The inner reader's input: the outer reader's bytes of the member. */
static la_ssize_t inner_read(struct archive *inner, void *arg, const void **buf)
{
	struct vma_source *src = arg;
	la_ssize_t n = src->la->archive_read_data(src->outer, src->block, sizeof(src->block));

	note_bytes(src);
	if (n < 0) {
		src->outer_failed = true;
		src->outer_fatal = n == ARCHIVE_FATAL;
		src->la->archive_set_error(inner, src->la->archive_errno(src->outer), "%s",
				  const_or(src->la->archive_error_string(src->outer), "read error"));
		return -1;
	}
	*buf = src->block;
	return n;
}

static void end_member(struct vma_source *src)
{
	if (src->inner)
		src->la->archive_read_free(src->inner);
	src->inner = NULL;
	src->reader = NULL;
	src->rest = NULL;
	src->rest_len = 0;
	src->at_eof = false;
	src->member = NULL;
	free(src->name);
	free(src->shown);
	src->name = src->shown = NULL;
}

static const unsigned char zeros[BLOCK_BYTES];

/*
 * The next bytes of the member: the block kept back, a block, or zeros
 * for a hole of a sparse member (its block waits in rest, at rest_off).
 * Return: ARCHIVE_OK, ARCHIVE_EOF, or a libarchive error.
 */
static int member_block(struct vma_source *src, const unsigned char **buf, size_t *len)
{
	const void *data;
	int64_t off;
	size_t size;
	int r;

	if (!src->rest_len) {
		r = src->la->archive_read_data_block(src->reader, &data, &size, &off);
		note_bytes(src);
		if (r == ARCHIVE_EOF || r < ARCHIVE_WARN)
			return r;
		src->rest = data;
		src->rest_len = size;
		src->rest_off = off;
	}
	if (src->rest_off > src->next_off) {
		uint64_t hole = (uint64_t)(src->rest_off - src->next_off);

		*buf = zeros;
		*len = hole < sizeof(zeros) ? (size_t)hole : sizeof(zeros);
	} else {
		*buf = src->rest;
		*len = src->rest_len;
		src->rest_len = 0;
	}
	src->next_off += (int64_t)*len;
	return ARCHIVE_OK;
}

/* Hand back the last @unused bytes of what member_block() gave. */
static void give_back(struct vma_source *src, const unsigned char *buf, size_t len, size_t unused)
{
	src->next_off -= (int64_t)unused;
	if (buf != zeros) {
		src->rest = buf + (len - unused);
		src->rest_len = unused;
		src->rest_off = src->next_off;
	}
}

static char *shown_name(const char *path, const char *member)
{
	size_t n = strlen(path) + strlen(member) + 2;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s:%s", path, member);
	return s;
}

/* The member's reader: the outer one for a lone file, else an inner one. */
static int open_member(struct vma_source *src)
{
	struct archive_entry *entry;
	int r;

	src->next_off = 0;
	if (src->lone) {
		src->reader = src->outer;
		return ARCHIVE_OK;
	}
	src->inner = src->la->archive_read_new();
	if (!src->inner)
		return ARCHIVE_FATAL;
	enable_compressions(src->la, src->inner);
	src->la->archive_read_support_format_raw(src->inner);
	src->reader = src->inner;
	r = src->la->archive_read_open(src->inner, src, NULL, inner_read, NULL);
	if (r == ARCHIVE_OK)
		r = src->la->archive_read_next_header(src->inner, &entry);
	return r;
}

static int member_failed(struct vma_source *src, const char *what)
{
	struct archive *a = src->outer_failed ? src->outer : src->reader;

	vma_diag_report(src->diag, VMA_LVL_FILE, src->shown, (uint64_t)src->next_off,
			"Cannot %s the member: %s%s", what,
			const_or(src->la->archive_error_string(a), "unknown error"),
			src->outer_fatal ? "; the rest of the archive is lost" : "");
	if (src->outer_fatal)
		src->ended = true;
	return VMA_ERR_DAMAGED;
}

/* The next regular-file entry of the outer reader: ARCHIVE_OK, ARCHIVE_EOF, or an error. */
static int next_entry(struct vma_source *src, struct archive_entry **entry)
{
	int r;

	for (;;) {
		if (src->pending) {
			src->pending = false;
			*entry = src->entry;
			r = ARCHIVE_OK;
		} else {
			r = src->la->archive_read_next_header(src->outer, entry);
			note_bytes(src);
		}
		if (r == ARCHIVE_EOF || r < ARCHIVE_WARN)
			return r;
		if (src->lone || src->la->archive_entry_filetype(*entry) == AE_IFREG)
			return ARCHIVE_OK;
	}
}

int vma_source_next(struct vma_source *src, struct vma_member *m)
{
	struct archive_entry *entry;
	const unsigned char *buf;
	size_t len, take;
	int r;

	end_member(src);
	m->name = m->shown = NULL;
	m->head_len = 0;
	m->status = VMA_OK;
	if (src->ended)
		return VMA_END;
	src->outer_failed = src->outer_fatal = false;
	r = next_entry(src, &entry);
	if (r == ARCHIVE_EOF) {
		src->ended = true;
		return VMA_END;
	}
	if (r < ARCHIVE_WARN) {
		src->ended = true;
		vma_diag_report(src->diag, VMA_LVL_FILE, src->path,
				(uint64_t)src->la->archive_read_header_position(src->outer),
				"Cannot read the next member: %s; the rest of the archive is lost",
				const_or(src->la->archive_error_string(src->outer), "unknown error"));
		return VMA_ERR_DAMAGED;
	}
	if (src->lone) {
		src->shown = strdup(src->path);
	} else {
		src->name = strdup(const_or(src->la->archive_entry_pathname(entry), "?"));
		src->shown = src->name ? shown_name(src->path, src->name) : NULL;
	}
	if (!src->shown || (!src->lone && !src->name))
		return VMA_ERR_NOMEM;
	m->name = src->name;
	m->shown = src->shown;

	r = open_member(src);
	while (r == ARCHIVE_OK && m->head_len < sizeof(m->head)) {
		r = member_block(src, &buf, &len);
		if (r != ARCHIVE_OK)
			break;
		take = len < sizeof(m->head) - m->head_len ? len : sizeof(m->head) - m->head_len;
		memcpy(m->head + m->head_len, buf, take);
		m->head_len += take;
		if (take < len)
			give_back(src, buf, len, len - take);
	}
	if (r < ARCHIVE_WARN) {
		if (src->lone)
			src->outer_fatal = true;
		m->status = member_failed(src, "read");
	}
	if (r == ARCHIVE_EOF)
		src->at_eof = true;
	src->member = m;
	return VMA_OK;
}

static int write_all(int fd, const unsigned char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

static void *pump_main(void *arg)
{
	struct vma_source *src = arg;
	const unsigned char *buf;
	bool reader_gone = false;
	size_t len;
	int r = src->at_eof ? ARCHIVE_EOF : ARCHIVE_OK;

	if (write_all(src->wfd, src->member->head, src->member->head_len))
		reader_gone = true;
	while (!reader_gone && r == ARCHIVE_OK) {
		r = member_block(src, &buf, &len);
		if (r == ARCHIVE_OK && write_all(src->wfd, buf, len))
			reader_gone = true;
	}
	close(src->wfd);
	src->wfd = -1;
	if (reader_gone) {
		/* The reader stopped early: not an error.  Take the SIGPIPE back. */
		sigset_t pipe_set;
		struct timespec now = { 0, 0 };

		sigemptyset(&pipe_set);
		sigaddset(&pipe_set, SIGPIPE);
		sigtimedwait(&pipe_set, NULL, &now);
	} else if (r < ARCHIVE_WARN) {
		src->pump_status = VMA_ERR_DAMAGED;
	}
	return NULL;
}

int vma_source_start(struct vma_source *src, int *fd)
{
	sigset_t pipe_set, old;
	int p[2], rc;

	*fd = -1;
	if (pipe2(p, O_CLOEXEC) < 0) {
		vma_diag_report(src->diag, VMA_LVL_SYSTEM, src->shown, UINT64_MAX,
				"Cannot make a pipe for the member: %s", strerror(errno));
		return VMA_ERR_IO;
	}
	(void)fcntl(p[1], F_SETPIPE_SZ, PIPE_BYTES); /* a hint: fine if refused */
	src->wfd = p[1];
	src->pump_status = VMA_OK;
	/*
	 * The pump takes no signal: SIGPIPE blocked makes a reader that stops
	 * an EPIPE, and the program's own signals go to the threads that read.
	 */
	sigfillset(&pipe_set);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	rc = pthread_create(&src->pump, NULL, pump_main, src);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		close(p[0]);
		close(p[1]);
		src->wfd = -1;
		vma_diag_report(src->diag, VMA_LVL_SYSTEM, src->shown, UINT64_MAX,
				"Cannot start a thread to read the member: %s", strerror(rc));
		return VMA_ERR_NOMEM;
	}
	src->pumping = true;
	*fd = p[0];
	return VMA_OK;
}

int vma_source_finish(struct vma_source *src)
{
	if (!src->pumping)
		return VMA_OK;
	pthread_join(src->pump, NULL);
	src->pumping = false;
	if (src->pump_status == VMA_OK)
		return VMA_OK;
	if (src->lone)
		src->outer_fatal = true;
	return member_failed(src, "read");
}

void vma_source_close(struct vma_source *src)
{
	if (!src)
		return;
	if (src->pumping) {
		/* only after a caller's mistake: the pump ends when its reader does */
		pthread_join(src->pump, NULL);
	}
	end_member(src);
	if (src->outer)
		src->la->archive_read_free(src->outer);
	if (src->fd >= 0)
		close(src->fd);
	free(src->path);
	free(src);
}
