/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libarchive, loaded the first time a compressed or archived input needs
 * it rather than linked.  Linked, it and what it links (ICU, libxml2,
 * libstdc++, nettle, five compressors) cost every run about 4 ms before
 * main(), while a plain trace, the usual input, never calls it
 * (bench/README, round ten).  The functions archive.c calls are listed
 * once, below; each is reached through a pointer of its own prototype.
 */
#ifndef VMALYZE_INPUT_ARCHIVE_LIB_H
#define VMALYZE_INPUT_ARCHIVE_LIB_H

#include <archive.h>
#include <archive_entry.h>

#define VMA_LIBARCHIVE_FUNCTIONS(X) \
	X(archive_entry_filetype) \
	X(archive_entry_pathname) \
	X(archive_errno) \
	X(archive_error_string) \
	X(archive_filter_bytes) \
	X(archive_filter_code) \
	X(archive_filter_count) \
	X(archive_filter_name) \
	X(archive_format) \
	X(archive_read_data) \
	X(archive_read_data_block) \
	X(archive_read_free) \
	X(archive_read_header_position) \
	X(archive_read_new) \
	X(archive_read_next_header) \
	X(archive_read_open) \
	X(archive_read_open_fd) \
	X(archive_read_support_filter_bzip2) \
	X(archive_read_support_filter_gzip) \
	X(archive_read_support_filter_lz4) \
	X(archive_read_support_filter_lzma) \
	X(archive_read_support_filter_xz) \
	X(archive_read_support_filter_zstd) \
	X(archive_read_support_format_cpio) \
	X(archive_read_support_format_empty) \
	X(archive_read_support_format_raw) \
	X(archive_read_support_format_tar) \
	X(archive_read_support_format_zip) \
	X(archive_set_error)

struct vma_libarchive {
#define VMA_LIBARCHIVE_POINTER(name) __typeof__(name) *name;
	VMA_LIBARCHIVE_FUNCTIONS(VMA_LIBARCHIVE_POINTER)
#undef VMA_LIBARCHIVE_POINTER
};

/*
 * vma_libarchive_get - libarchive's functions, loaded by the first call
 * (from any thread; later calls return the same).  Return: NULL when it
 * cannot be loaded, and *@why then says why (dlerror()'s text, or the
 * symbol missing).
 */
const struct vma_libarchive *vma_libarchive_get(const char **why);

#endif /* VMALYZE_INPUT_ARCHIVE_LIB_H */
