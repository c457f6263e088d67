/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Containers (source.h): archives written here with libarchive's writer,
 * read back member by member through the pump's pipe: names, heads, every
 * byte, members compressed or not, entries that are not files, a reader
 * that stops early, a lone compressed file, a file that is no container,
 * an archive cut in a member's data, and containers holding nothing.
 */
#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "vmalyze/diag.h"
#include "vmalyze/source.h"
#include "vmalyze/status.h"

#define BIG (300u * 1024 + 17) /* several pipe and block sizes, not a multiple */

static char dir[] = "/tmp/vmalyze-test-archive-XXXXXX";
static unsigned char *big;
static char *msgs;
static size_t msgs_len;
static FILE *msgs_fp;
static struct vma_diag *diag;

static void setup(void)
{
	uint32_t x = 12345;
	size_t i;

	cr_assert_not_null(mkdtemp(dir));
	big = malloc(BIG);
	cr_assert_not_null(big);
	for (i = 0; i < BIG; i++) {
		x = x * 1103515245u + 12345u;
		big[i] = (unsigned char)(x >> 16);
	}
	msgs_fp = open_memstream(&msgs, &msgs_len);
	diag = vma_diag_create_to(msgs_fp, VMA_DEFAULT_TOLERANCE, VMA_VERB_NORMAL);
	cr_assert_not_null(diag);
}

static void teardown(void)
{
	char cmd[128];

	vma_diag_destroy(diag);
	fclose(msgs_fp);
	free(msgs);
	free(big);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

static const char *messages(void)
{
	fflush(msgs_fp);
	return msgs ? msgs : "";
}

static void add(struct archive *a, const char *name, const void *data, size_t len, int type)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, (unsigned int)type);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, type == AE_IFREG ? (la_int64_t)len : 0);
	cr_assert_eq(archive_write_header(a, e), ARCHIVE_OK, "%s", archive_error_string(a));
	if (type == AE_IFREG && len)
		cr_assert_eq(archive_write_data(a, data, len), (la_ssize_t)len);
	archive_entry_free(e);
}

/* tar.gz of: README, a folder entry, big, big compressed with zstd. */
static void write_tar(const char *path)
{
	struct archive *a = archive_write_new();
	size_t cap = ZSTD_compressBound(BIG), n;
	void *z = malloc(cap);

	cr_assert_not_null(z);
	n = ZSTD_compress(z, cap, big, BIG, 3);
	cr_assert(!ZSTD_isError(n));
	archive_write_add_filter_gzip(a);
	archive_write_set_format_pax_restricted(a);
	cr_assert_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
	add(a, "README", "notes\n", 6, AE_IFREG);
	add(a, "run", NULL, 0, AE_IFDIR);
	add(a, "run/big.bin", big, BIG, AE_IFREG);
	add(a, "run/big.bin.zst", z, n, AE_IFREG);
	cr_assert_eq(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	free(z);
}

/* Read the member from the pump to the end: its length, bytes in @buf. */
static size_t drain(struct vma_source *src, unsigned char *buf, size_t cap)
{
	size_t got = 0;
	ssize_t n;
	int fd;

	cr_assert_eq(vma_source_start(src, &fd), VMA_OK);
	while ((n = read(fd, buf + got, cap - got)) > 0)
		got += (size_t)n;
	cr_assert_geq(n, 0);
	close(fd);
	return got;
}

static void path_in(char *path, size_t len, const char *name)
{
	snprintf(path, len, "%s/%s", dir, name);
}

TestSuite(archive, .init = setup, .fini = teardown);

Test(archive, members_in_order_with_heads_and_every_byte)
{
	static struct vma_member m;
	unsigned char *buf = malloc(2 * BIG);
	_Atomic uint64_t progress = 0;
	struct vma_source *src;
	char path[256], shown[300];

	cr_assert_not_null(buf);
	path_in(path, sizeof(path), "mixed.tar.gz");
	write_tar(path);
	cr_assert_eq(vma_source_open(path, diag, &progress, &src), VMA_OK);

	cr_assert_eq(vma_source_next(src, &m), VMA_OK);
	cr_assert_str_eq(m.name, "README");
	snprintf(shown, sizeof(shown), "%s:README", path);
	cr_assert_str_eq(m.shown, shown);
	cr_assert_eq(m.head_len, 6);
	cr_assert_eq(memcmp(m.head, "notes\n", 6), 0);

	/* the folder entry is not a member; README is skipped unread */
	cr_assert_eq(vma_source_next(src, &m), VMA_OK);
	cr_assert_str_eq(m.name, "run/big.bin");
	cr_assert_eq(m.head_len, sizeof(m.head));
	cr_assert_eq(memcmp(m.head, big, sizeof(m.head)), 0);
	cr_assert_eq(drain(src, buf, 2 * BIG), BIG);
	cr_assert_eq(memcmp(buf, big, BIG), 0);
	cr_assert_eq(vma_source_finish(src), VMA_OK);

	/* a compressed member arrives decompressed */
	cr_assert_eq(vma_source_next(src, &m), VMA_OK);
	cr_assert_str_eq(m.name, "run/big.bin.zst");
	cr_assert_eq(memcmp(m.head, big, sizeof(m.head)), 0);
	cr_assert_eq(drain(src, buf, 2 * BIG), BIG);
	cr_assert_eq(memcmp(buf, big, BIG), 0);
	cr_assert_eq(vma_source_finish(src), VMA_OK);

	cr_assert_eq(vma_source_next(src, &m), VMA_END);
	cr_assert_eq(vma_source_next(src, &m), VMA_END);
	cr_assert_gt(progress, 0);
	vma_source_close(src);
	cr_assert_str_empty(messages());
	free(buf);
}

Test(archive, reader_that_stops_early_is_no_error)
{
	static struct vma_member m;
	struct vma_source *src;
	unsigned char buf[100];
	char path[256];
	int fd;

	path_in(path, sizeof(path), "early.tar.gz");
	write_tar(path);
	cr_assert_eq(vma_source_open(path, diag, NULL, &src), VMA_OK);
	cr_assert_eq(vma_source_next(src, &m), VMA_OK);
	cr_assert_eq(vma_source_next(src, &m), VMA_OK);
	cr_assert_eq(vma_source_start(src, &fd), VMA_OK);
	cr_assert_eq(read(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
	cr_assert_eq(vma_source_finish(src), VMA_OK);
	/* and the next member is still there, whole */
	cr_assert_eq(vma_source_next(src, &m), VMA_OK);
	cr_assert_str_eq(m.name, "run/big.bin.zst");
	vma_source_close(src);
	cr_assert_str_empty(messages());
}

Test(archive, lone_compressed_file)
{
	static struct vma_member m;
	unsigned char *buf = malloc(2 * BIG);
	struct archive *a = archive_write_new();
	struct vma_source *src;
	char path[256];

	path_in(path, sizeof(path), "lone.xz");
	archive_write_add_filter_xz(a);
	archive_write_set_format_raw(a);
	cr_assert_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
	add(a, "data", big, BIG, AE_IFREG);
	archive_write_close(a);
	archive_write_free(a);

	cr_assert_eq(vma_source_open(path, diag, NULL, &src), VMA_OK);
	cr_assert_eq(vma_source_next(src, &m), VMA_OK);
	cr_assert_null(m.name);
	cr_assert_str_eq(m.shown, path);
	cr_assert_eq(drain(src, buf, 2 * BIG), BIG);
	cr_assert_eq(memcmp(buf, big, BIG), 0);
	cr_assert_eq(vma_source_finish(src), VMA_OK);
	cr_assert_eq(vma_source_next(src, &m), VMA_END);
	vma_source_close(src);
	free(buf);
}

Test(archive, plain_file_is_no_container)
{
	struct vma_source *src = (struct vma_source *)1;
	char path[256];
	FILE *f;

	path_in(path, sizeof(path), "plain.txt");
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fwrite(big, 1, 5000, f);
	fclose(f);
	cr_assert_eq(vma_source_open(path, diag, NULL, &src), VMA_ERR_FORMAT);
	cr_assert_null(src);
	cr_assert_str_empty(messages());
	path_in(path, sizeof(path), "missing");
	cr_assert_eq(vma_source_open(path, diag, NULL, &src), VMA_ERR_IO);
	cr_assert(strstr(messages(), "missing: Cannot open"), "%s", messages());
}

Test(archive, cut_in_a_member_names_it_and_the_offset)
{
	static struct vma_member m;
	unsigned char *buf = malloc(2 * BIG);
	struct archive *a = archive_write_new();
	struct vma_source *src;
	char path[256], cut[256], want[300];
	FILE *in, *out;
	long size;
	size_t got;
	void *data;

	/* uncompressed tar, then gzip by hand, so the cut lands in big's data */
	path_in(path, sizeof(path), "whole.tar.gz");
	archive_write_add_filter_gzip(a);
	archive_write_set_format_pax_restricted(a);
	cr_assert_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
	add(a, "big.bin", big, BIG, AE_IFREG);
	add(a, "after.bin", "x", 1, AE_IFREG);
	archive_write_close(a);
	archive_write_free(a);
	in = fopen(path, "rb");
	cr_assert_not_null(in);
	fseek(in, 0, SEEK_END);
	size = ftell(in);
	rewind(in);
	data = malloc((size_t)size);
	cr_assert_eq(fread(data, 1, (size_t)size, in), (size_t)size);
	fclose(in);
	path_in(cut, sizeof(cut), "cut.tar.gz");
	out = fopen(cut, "wb");
	fwrite(data, 1, (size_t)size / 2, out);
	fclose(out);
	free(data);

	cr_assert_eq(vma_source_open(cut, diag, NULL, &src), VMA_OK);
	cr_assert_eq(vma_source_next(src, &m), VMA_OK);
	got = drain(src, buf, 2 * BIG);
	cr_assert_lt(got, BIG);
	cr_assert_eq(memcmp(buf, big, got), 0);
	cr_assert_eq(vma_source_finish(src), VMA_ERR_DAMAGED);
	snprintf(want, sizeof(want), "%s:big.bin: offset %zu: Cannot read the member", cut, got);
	cr_assert(strstr(messages(), want), "%s", messages());
	cr_assert_eq(vma_source_next(src, &m), VMA_END);
	vma_source_close(src);
	free(buf);
}

/* @n bytes of zeros, compressed with zstd, at @path. */
static void write_zstd_zeros(const char *path, size_t n)
{
	void *zeros = calloc(1, n ? n : 1);
	size_t cap = ZSTD_compressBound(n), len;
	void *z = malloc(cap);
	FILE *f = fopen(path, "wb");

	cr_assert(zeros && z && f);
	len = ZSTD_compress(z, cap, zeros, n, 3);
	cr_assert(!ZSTD_isError(len));
	cr_assert_eq(fwrite(z, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	free(zeros);
	free(z);
}

Test(archive, nothing_in_it_is_said_as_for_an_empty_file)
{
	static struct vma_member m;
	struct vma_source *src;
	char path[256];

	/* an empty tar is 10 KiB of zeros; compressed, it is an archive with no member */
	path_in(path, sizeof(path), "empty.tar.zst");
	write_zstd_zeros(path, 10240);
	cr_assert_eq(vma_source_open(path, diag, NULL, &src), VMA_OK);
	cr_assert_eq(vma_source_next(src, &m), VMA_END);
	cr_assert_eq(vma_source_report_empty(src), VMA_ERR_FORMAT);
	vma_source_close(src);
	cr_assert(strstr(messages(), "empty.tar.zst: Is an archive with no file in it: no trace"
			 " records"), "%s", messages());

	/* a compressed empty file is not "damaged": it holds nothing */
	path_in(path, sizeof(path), "empty.zst");
	write_zstd_zeros(path, 0);
	cr_assert_eq(vma_source_open(path, diag, NULL, &src), VMA_OK);
	cr_assert_eq(vma_source_next(src, &m), VMA_END);
	cr_assert_eq(vma_source_report_empty(src), VMA_ERR_FORMAT);
	vma_source_close(src);
	cr_assert(strstr(messages(), "empty.zst: Is empty once decompressed (zstd): no trace"
			 " records"), "%s", messages());
	cr_assert_eq(vma_diag_worst(diag), VMA_LVL_INPUT);
}
