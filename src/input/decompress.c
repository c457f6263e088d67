/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decompression of trace.dat v7 blocks and chunks.  trace-cmd writes each
 * compressed section and each chunk of ring-buffer pages as one complete
 * zlib stream (compress2) or one zstd frame, and stores the expanded size
 * beside it, so a chunk is expanded in one call into a buffer of exactly
 * that size; any other outcome means the chunk is damaged.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "input/kvm-internal.h"

struct vma_decomp {
	enum vma_codec codec;
	ZSTD_DCtx *zstd; /* reused across chunks */
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
	}
	return dc;
}

void vma_decomp_free(struct vma_decomp *dc)
{
	if (!dc)
		return;
	ZSTD_freeDCtx(dc->zstd);
	free(dc);
}

static int inflate_all(const void *in, size_t in_len, void *out, size_t out_len,
		       const char **why)
{
	z_stream zs;
	int ret;

	if (in_len > UINT32_MAX || out_len > UINT32_MAX) {
		*why = "block too large";
		return -1;
	}
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK) {
		*why = "zlib could not start";
		return -1;
	}
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)in_len;
	zs.next_out = out;
	zs.avail_out = (uInt)out_len;
	ret = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	if (ret == Z_STREAM_END) {
		if (zs.total_out == out_len)
			return 0;
		*why = "expands to less than the size it declares";
		return -1;
	}
	if (ret == Z_OK || ret == Z_BUF_ERROR) {
		*why = zs.avail_out == 0 ? "expands to more than the size it declares" :
			"compressed data cut short";
		return -1;
	}
	*why = "corrupt zlib data";
	return -1;
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
		return inflate_all(in, in_len, out, out_len, why);
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
