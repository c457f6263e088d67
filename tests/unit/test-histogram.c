/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the text histogram renderer (src/output/histogram-text.c): exact
 * output for known bins in both weightings, the 80-column layout, the '.'
 * for tiny non-zero bins, and write errors.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/histogram.h"
#include "vmalyze/status.h"

static const struct vma_cycles_bin known[] = {
	{ 4096, 8192, 10, 61440 },
	{ 8192, 16384, 4, 40000 },
	{ 16384, 32768, 0, 0 },
	{ 32768, 65536, 1, 50000 },
};

/* Render into a string; the caller frees it. */
static char *render(const struct vma_cycles_bin *bins, size_t n, enum vma_cycles_weight w,
		    unsigned int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(vma_histogram_print(f, bins, n, w, width), 0);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	cr_assert_not_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

Test(histogram, known_bins_by_count)
{
	/* 27 columns of labels and numbers leave a 53-column bar in 80 */
	const char *expect =
		"  [ 4096,  8192) ##################################################### 10  66.7%\n"
		"  [ 8192, 16384) #####################                                  4  26.7%\n"
		"  [16384, 32768)                                                        0   0.0%\n"
		"  [32768, 65536) #####                                                  1   6.7%\n";
	char *out = render(known, 4, VMA_CYCLES_BY_COUNT, 0);

	cr_expect_str_eq(out, expect);
	free(out);
}

Test(histogram, known_bins_by_time)
{
	/* bars 61440 : 40000 : 0 : 50000 over 50 columns -> 50, 33, 0, 41 */
	const char *expect =
		"  [ 4096,  8192) ################################################## 61440  40.6%\n"
		"  [ 8192, 16384) #################################                  40000  26.4%\n"
		"  [16384, 32768)                                                        0   0.0%\n"
		"  [32768, 65536) #########################################          50000  33.0%\n";
	char *out = render(known, 4, VMA_CYCLES_BY_TIME, 80);

	cr_expect_str_eq(out, expect);
	free(out);
}

Test(histogram, lines_fit_the_width)
{
	static const unsigned int widths[] = { 80, 60, 100 };
	size_t i;

	for (i = 0; i < 3; i++) {
		char *out = render(known, 4, VMA_CYCLES_BY_COUNT, widths[i]);
		char *line, *save = NULL;
		unsigned int lines = 0;

		for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			cr_expect_eq(strlen(line), widths[i], "width %u: '%s'", widths[i], line);
			lines++;
		}
		cr_expect_eq(lines, 4);
		free(out);
	}
}

Test(histogram, tiny_bin_shows_a_dot)
{
	static const struct vma_cycles_bin bins[] = {
		{ 1, 2, 100000, 100000 },
		{ 2, 3, 1, 2 },
	};
	char *out = render(bins, 2, VMA_CYCLES_BY_COUNT, 80);
	char *second = strchr(out, '\n') + 1;
	char *bar = strchr(second, ')') + 2;

	cr_expect_eq(bar[0], '.', "got '%s'", second);
	cr_expect_eq(bar[1], ' ');
	free(out);
}

Test(histogram, bar_never_below_minimum)
{
	static const struct vma_cycles_bin bins[] = {
		{ 1000000000000ULL, 2000000000000ULL, 1, 1500000000000ULL },
	};
	char *out = render(bins, 1, VMA_CYCLES_BY_TIME, 20);
	char *bars = repeat('#', 10);

	cr_expect_not_null(strstr(out, bars), "got '%s'", out);
	cr_expect_null(strstr(out, "###########"));
	free(bars);
	free(out);
}

Test(histogram, nothing_for_no_bins)
{
	char *out = render(NULL, 0, VMA_CYCLES_BY_COUNT, 80);

	cr_expect_str_eq(out, "");
	free(out);
}

Test(histogram, write_error_is_reported)
{
	FILE *f = fopen("/dev/full", "w");

	if (!f)
		cr_skip_test("no /dev/full");
	setvbuf(f, NULL, _IONBF, 0);
	cr_expect_eq(vma_histogram_print(f, known, 4, VMA_CYCLES_BY_COUNT, 80), VMA_ERR_OUTPUT);
	fclose(f);
}

Test(histogram, renders_a_summary)
{
	struct vma_cycles s = { 0 };
	struct vma_cycles_bin *bins;
	size_t n, lines = 0;
	char *out, *p;
	uint64_t i;

	for (i = 1; i <= 3000; i++)
		vma_cycles_add(&s, 1000 + i * 7, NULL);
	cr_assert_eq(vma_cycles_histogram(&s, 2, &bins, &n), 0);
	out = render(bins, n, VMA_CYCLES_BY_COUNT, 80);
	for (p = out; *p; p++)
		lines += *p == '\n';
	cr_expect_eq(lines, n);
	cr_expect_not_null(strstr(out, "  [ 1024,  1536) "), "got:\n%s", out);
	free(out);
	free(bins);
	vma_cycles_release(&s, NULL);
}
