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
 *
 * Both libraries are loaded by their sonames (found by configure) when a
 * trace first needs one, rather than linked: linked, they cost every run
 * about 0.2 ms and some 15 page faults at start (bench/README, round nineteen),
 * while a xentrace file, or an uncompressed trace.dat, never calls them.
 */
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "config.h"
#include "input/kvm-internal.h"
#include "vmalyze/dlib.h"

/* The functions this file calls, each through a pointer of its own prototype. */
#define VMA_ZSTD_FUNCTIONS(X) \
	X(ZSTD_createDCtx) \
	X(ZSTD_decompressDCtx) \
	X(ZSTD_freeDCtx) \
	X(ZSTD_getErrorCode) \
	X(ZSTD_isError)
#define VMA_LIBDEFLATE_FUNCTIONS(X) \
	X(libdeflate_alloc_decompressor) \
	X(libdeflate_free_decompressor) \
	X(libdeflate_zlib_decompress)

#define VMA_CODEC_POINTER(name) __typeof__(name) *name;
struct zstd_lib {
	VMA_ZSTD_FUNCTIONS(VMA_CODEC_POINTER)
};
struct deflate_lib {
	VMA_LIBDEFLATE_FUNCTIONS(VMA_CODEC_POINTER)
};
#undef VMA_CODEC_POINTER

static struct zstd_lib zstd_loaded;
static struct deflate_lib deflate_loaded;
#define VMA_ZSTD_SYM(name) VMA_DLIB_SYM(struct zstd_lib, name)
#define VMA_LIBDEFLATE_SYM(name) VMA_DLIB_SYM(struct deflate_lib, name)
static const struct vma_dlib_sym zstd_syms[] = { VMA_ZSTD_FUNCTIONS(VMA_ZSTD_SYM) };
static const struct vma_dlib_sym deflate_syms[] = { VMA_LIBDEFLATE_FUNCTIONS(VMA_LIBDEFLATE_SYM) };
#undef VMA_ZSTD_SYM
#undef VMA_LIBDEFLATE_SYM
static struct vma_dlib_lazy zstd_lib = VMA_DLIB_LAZY(VMA_ZSTD_SONAME, zstd_syms, &zstd_loaded);
static struct vma_dlib_lazy deflate_lib =
	VMA_DLIB_LAZY(VMA_LIBDEFLATE_SONAME, deflate_syms, &deflate_loaded);

struct vma_decomp {
	enum vma_codec codec;
	const struct zstd_lib *zl;               /* set for zstd */
	const struct deflate_lib *dl;            /* set for zlib */
	ZSTD_DCtx *zstd;                         /* reused across chunks */
	struct libdeflate_decompressor *deflate; /* likewise */
};

const char *vma_decomp_load(enum vma_codec codec)
{
	const char *why = NULL;

	if (codec == VMA_CODEC_ZSTD && !vma_dlib_get(&zstd_lib, &why))
		return why;
	if (codec == VMA_CODEC_ZLIB && !vma_dlib_get(&deflate_lib, &why))
		return why;
	return NULL;
}

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
	const char *why;

	if (!dc)
		return NULL;
	dc->codec = codec;
	if (codec == VMA_CODEC_ZSTD) {
		dc->zl = vma_dlib_get(&zstd_lib, &why);
		dc->zstd = dc->zl ? dc->zl->ZSTD_createDCtx() : NULL;
	} else if (codec == VMA_CODEC_ZLIB) {
		dc->dl = vma_dlib_get(&deflate_lib, &why);
		dc->deflate = dc->dl ? dc->dl->libdeflate_alloc_decompressor() : NULL;
	}
	if (codec != VMA_CODEC_NONE && !dc->zstd && !dc->deflate) {
		free(dc);
		return NULL;
	}
	return dc;
}

void vma_decomp_free(struct vma_decomp *dc)
{
	if (!dc)
		return;
	if (dc->zstd)
		dc->zl->ZSTD_freeDCtx(dc->zstd);
	if (dc->deflate)
		dc->dl->libdeflate_free_decompressor(dc->deflate);
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

	switch (dc->dl->libdeflate_zlib_decompress(dc->deflate, in, in_len, out, out_len, &got)) {
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
	const struct zstd_lib *zl = dc->zl;
	size_t got = zl->ZSTD_decompressDCtx(dc->zstd, out, out_len, in, in_len);

	if (zl->ZSTD_isError(got)) {
		*why = zl->ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall ?
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
