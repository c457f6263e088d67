/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for the --symbol-file table: lines in any order are sorted; the
 * last line counts, with or without a newline (xenalyze misreads it);
 * System.map and kallsyms lines are read; lookups take the symbol at or
 * below an address; bad lines are refused with file, line and byte offset.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "vmalyze/status.h"
#include "vmalyze/symbols.h"

/* Reads @text as a symbol file; messages go to @msg (may be NULL). */
static int read_text(const char *text, struct vma_symbols **out, char *msg, size_t msglen)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	char sink[512];
	FILE *err = fmemopen(msg ? msg : sink, msg ? msglen : sizeof(sink), "w");
	int rc;

	cr_assert(in && err);
	rc = vma_symbols_read(in, "syms", out, err);
	fclose(in);
	fclose(err);
	return rc;
}

static const char *find(const struct vma_symbols *s, uint64_t addr, uint64_t *off)
{
	*off = ~0ull;
	return vma_symbols_find(s, addr, off);
}

Test(symbols, any_order_is_sorted)
{
	struct vma_symbols *s;
	uint64_t off;

	cr_assert_eq(read_text("ffffffff81002000 second\n"
			       "ffffffff81000000 first\n"
			       "ffffffff81003000 third\n", &s, NULL, 0), VMA_OK);
	cr_assert_eq(vma_symbols_count(s), 3);
	cr_assert_str_eq(find(s, 0xffffffff81000010ull, &off), "first");
	cr_assert_eq(off, 0x10);
	cr_assert_str_eq(find(s, 0xffffffff81002000ull, &off), "second");
	cr_assert_eq(off, 0);
	cr_assert_str_eq(find(s, 0xffffffff81002fffull, &off), "second");
	cr_assert_eq(off, 0xfff);
	vma_symbols_destroy(s);
}

Test(symbols, last_line_without_newline_counts)
{
	struct vma_symbols *s;
	uint64_t off;

	cr_assert_eq(read_text("1000 a\n2000 last", &s, NULL, 0), VMA_OK);
	cr_assert_eq(vma_symbols_count(s), 2);
	cr_assert_str_eq(find(s, 0x2345, &off), "last");
	cr_assert_eq(off, 0x345);
	vma_symbols_destroy(s);
}

Test(symbols, below_the_first_is_none)
{
	struct vma_symbols *s;
	uint64_t off;
	char buf[64];

	cr_assert_eq(read_text("1000 a\n", &s, NULL, 0), VMA_OK);
	cr_assert_null(find(s, 0xfff, &off));
	cr_assert_eq(vma_symbols_format(s, 0xfff, buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "");
	cr_assert_null(vma_symbols_find(NULL, 0x1000, &off));
	vma_symbols_destroy(s);
}

Test(symbols, system_map_kallsyms_and_comments)
{
	struct vma_symbols *s;
	uint64_t off;

	cr_assert_eq(read_text("# a comment\n"
			       "\n"
			       "ffffffff81000000 T _text\n"
			       "0xffffffff81000100 t start_64\n"
			       "ffffffffc0000000 t mod_init\t[mymod]\n", &s, NULL, 0), VMA_OK);
	cr_assert_eq(vma_symbols_count(s), 3);
	cr_assert_str_eq(find(s, 0xffffffff81000004ull, &off), "_text");
	cr_assert_str_eq(find(s, 0xffffffff81000104ull, &off), "start_64");
	cr_assert_str_eq(find(s, 0xffffffffc0000001ull, &off), "mod_init");
	vma_symbols_destroy(s);
}

Test(symbols, equal_addresses_keep_the_first_read)
{
	struct vma_symbols *s;
	uint64_t off;

	cr_assert_eq(read_text("3000 c\n1000 alias_a\n1000 alias_b\n2000 b\n", &s, NULL, 0),
		     VMA_OK);
	cr_assert_str_eq(find(s, 0x1800, &off), "alias_a");
	cr_assert_eq(off, 0x800);
	vma_symbols_destroy(s);
}

Test(symbols, format_is_name_plus_hex_offset)
{
	struct vma_symbols *s;
	char buf[64], tiny[6];

	cr_assert_eq(read_text("ffffffff8c000000 do_idle\n", &s, NULL, 0), VMA_OK);
	cr_assert_eq(vma_symbols_format(s, 0xffffffff8c0043b9ull, buf, sizeof(buf)),
		     strlen("do_idle+0x43b9"));
	cr_assert_str_eq(buf, "do_idle+0x43b9");
	/* Cut to the buffer, NUL-terminated. */
	cr_assert_eq(vma_symbols_format(s, 0xffffffff8c0043b9ull, tiny, sizeof(tiny)), 5);
	cr_assert_str_eq(tiny, "do_id");
	vma_symbols_destroy(s);
}

Test(symbols, bad_line_names_file_line_and_offset)
{
	struct vma_symbols *s = (void *)1;
	char msg[256] = "";

	cr_assert_eq(read_text("1000 a\nnot-hex b\n", &s, msg, sizeof(msg)), VMA_ERR_FORMAT);
	cr_assert_null(s);
	cr_assert(strstr(msg, "syms:2 (byte 7)"), "message: %s", msg);
}

Test(symbols, refused_lines)
{
	struct vma_symbols *s;

	cr_assert_eq(read_text("1000\n", &s, NULL, 0), VMA_ERR_FORMAT);          /* no name */
	cr_assert_eq(read_text("1000 a b c\n", &s, NULL, 0), VMA_ERR_FORMAT);    /* extra words */
	cr_assert_eq(read_text("10000000000000000 a\n", &s, NULL, 0), VMA_ERR_FORMAT); /* > 64 bits */
	cr_assert_eq(read_text("-1000 a\n", &s, NULL, 0), VMA_ERR_FORMAT);
}

Test(symbols, empty_file_is_an_empty_table)
{
	struct vma_symbols *s;
	uint64_t off;

	cr_assert_eq(read_text("", &s, NULL, 0), VMA_OK);
	cr_assert_eq(vma_symbols_count(s), 0);
	cr_assert_null(find(s, 0x1000, &off));
	vma_symbols_destroy(s);
}

Test(symbols, missing_file)
{
	struct vma_symbols *s;
	char msg[256] = "";
	FILE *err = fmemopen(msg, sizeof(msg), "w");

	cr_assert_eq(vma_symbols_load("/nonexistent/syms", &s, err), VMA_ERR_IO);
	fclose(err);
	cr_assert(strstr(msg, "/nonexistent/syms"));
}
