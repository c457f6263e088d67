/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decompression of trace.dat v7 blocks and chunks.  trace-cmd writes each
 * compressed section and each chunk of ring-buffer pages as one complete
 * zlib stream (compress2) or one zstd frame, and stores the expanded size
 * beside it, so a chunk is expanded in one call into a buffer of exactly
 * that size; any other outcome means the chunk is damaged.  zlib streams
 * are expanded by libdeflate, made for such whole buffers: on the real
 * zlib captures it runs 61-69% fewer instructions than zlib's inflate()
 * did, its adler32 check included (bench/README, round sixteen).
 */
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "input/kvm-internal.h"

struct vma_decomp {
	enum vma_codec codec;
	ZSTD_DCtx *zstd;                         /* reused across chunks */
	struct libdeflate_decompressor *deflate; /* likewise */
};

int vma_codec_from_name(const char *name, enum vma_codec *codec)
{
	if (!strcmp(name, "none")) {
		*codec = VMA_CODEC_NONE;
	} else if (!strcmp(name, "zlib")) {
		*codec = VMA_CODEC_ZLIB;
	} else if (!strcmp(name, "zstd")) {
		*codec = VMA_CODEC_ZSTD;
	} else {
		return -1;
	}
	return 0;
}

struct vma_decomp *vma_decomp_new(enum vma_codec codec)
{
	struct vma_decomp *dc = calloc(1, sizeof(*dc));

	if (!dc)
		return NULL;
	dc->codec = codec;
	if (codec == VMA_CODEC_ZSTD) {
		dc->zstd = ZSTD_createDCtx();
		if (!dc->zstd) {
			free(dc);
			return NULL;
		}
	} else if (codec == VMA_CODEC_ZLIB) {
		dc->deflate = libdeflate_alloc_decompressor();
		if (!dc->deflate) {
			free(dc);
			return NULL;
		}
	}
	return dc;
}

void vma_decomp_free(struct vma_decomp *dc)
{
	if (!dc)
		return;
	ZSTD_freeDCtx(dc->zstd);
	if (dc->deflate)
		libdeflate_free_decompressor(dc->deflate);
	free(dc);
}

/*
 * One zlib stream, its adler32 checked.  libdeflate does not tell a stream
 * cut short from a damaged one: both are "corrupt".
 */
static int inflate_all(struct vma_decomp *dc, const void *in, size_t in_len, void *out,
		       size_t out_len, const char **why)
{
	size_t got = 0;

	switch (libdeflate_zlib_decompress(dc->deflate, in, in_len, out, out_len, &got)) {
	case LIBDEFLATE_SUCCESS:
		if (got == out_len)
			return 0;
		*why = "expands to less than the size it declares";
		return -1;
	case LIBDEFLATE_INSUFFICIENT_SPACE:
		*why = "expands to more than the size it declares";
		return -1;
	default:
		*why = "corrupt zlib data";
		return -1;
	}
}

static int unzstd_all(struct vma_decomp *dc, const void *in, size_t in_len, void *out,
		      size_t out_len, const char **why)
{
	size_t got = ZSTD_decompressDCtx(dc->zstd, out, out_len, in, in_len);

	if (ZSTD_isError(got)) {
		*why = ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall ?
			"expands to more than the size it declares" : "corrupt zstd data";
		return -1;
	}
	if (got != out_len) {
		*why = "expands to less than the size it declares";
		return -1;
	}
	return 0;
}

int vma_decompress(struct vma_decomp *dc, const void *in, size_t in_len, void *out,
		   size_t out_len, const char **why)
{
	switch (dc->codec) {
	case VMA_CODEC_ZLIB:
		return inflate_all(dc, in, in_len, out, out_len, why);
	case VMA_CODEC_ZSTD:
		return unzstd_all(dc, in, in_len, out, out_len, why);
	case VMA_CODEC_NONE:
		if (in_len != out_len) {
			*why = "stored size differs from the size it declares";
			return -1;
		}
		memcpy(out, in, out_len);
		return 0;
	}
	*why = "unknown compression";
	return -1;
}
