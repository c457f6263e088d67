/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Containers of traces: a compressed trace (.gz, .xz, .zst, .bz2, .lz4) or
 * an archive (tar, in any of those compressions, zip, cpio) whose members
 * are traces, compressed or not.  Read with libarchive, streaming, one
 * member at a time in archive order.
 *
 * A member reaches the input stage as a pipe: a small thread of the source
 * (the pump) reads the member's bytes, decompressed, and writes them to the
 * pipe, so the input stage reads a member as it reads any pipe and nothing
 * is written next to the inputs.  Memory per member: libarchive's buffers
 * and one 64 KiB block.
 */
#ifndef VMALYZE_SOURCE_H
#define VMALYZE_SOURCE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "vmalyze/input.h"

struct vma_diag;
struct vma_source;

/* The member the source stands on, after vma_source_next(). */
struct vma_member {
	const char *name;  /* path inside the archive; NULL for a lone compressed file */
	const char *shown; /* "ARCHIVE:MEMBER", or the file's path when name is NULL */
	unsigned char head[VMA_INPUT_PROBE_BYTES]; /* its first bytes, decompressed */
	size_t head_len;
	/* VMA_ERR_DAMAGED (reported) when even the first bytes could not be read */
	int status;
};

/*
 * vma_source_open - open @path as a container.  @progress (may be NULL) is
 * kept at the count of the file's bytes read so far, from any thread.
 * Return: VMA_OK and *out owned (free with vma_source_close()); VMA_ERR_FORMAT,
 * with no message, when the file is neither compressed nor an archive;
 * VMA_ERR_IO or VMA_ERR_DAMAGED after a message naming the file.
 */
int vma_source_open(const char *path, struct vma_diag *diag, _Atomic uint64_t *progress,
		    struct vma_source **out);

/*
 * vma_source_next - go to the next member that is a regular file (the rest
 * of the current one is skipped) and read its first bytes into @m, which
 * must stay in place until the next call (the pump reads its head).
 * Return: VMA_OK, VMA_END after the last one, or VMA_ERR_DAMAGED after a
 * message naming the archive and the byte offset in it (the rest of the
 * archive cannot be read then).
 */
int vma_source_next(struct vma_source *src, struct vma_member *m);

/*
 * vma_source_report_empty - when the first vma_source_next() returned
 * VMA_END: report that @src holds nothing (an archive with no file in it,
 * or a compressed file that is empty once decompressed), naming it.
 * Return: VMA_ERR_FORMAT.
 */
int vma_source_report_empty(struct vma_source *src);

/*
 * vma_source_start - start pumping the current member, head first, into a
 * pipe.  *fd is its read end, owned by the caller; closing it early stops
 * the pump.  Return: VMA_OK, or VMA_ERR_IO / VMA_ERR_NOMEM after a message.
 */
int vma_source_start(struct vma_source *src, int *fd);

/*
 * vma_source_finish - wait for the pump of the current member (after its
 * read end was closed).  Return: VMA_OK, or VMA_ERR_DAMAGED after a message
 * naming ARCHIVE:MEMBER and the offset in the member where its bytes could
 * not be read (the input stage saw them end there).
 */
int vma_source_finish(struct vma_source *src);

void vma_source_close(struct vma_source *src);

#endif /* VMALYZE_SOURCE_H */
