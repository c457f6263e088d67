/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for the strbuf: its printf subset gives the bytes snprintf gives,
 * for every conversion it formats itself and for those it hands to libc;
 * the number primitives match their printf equivalents at the edges of
 * their ranges; growth keeps the text and its NUL.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/strbuf.h"

/* Values that reach every digit count and both signs' edges. */
static const uint64_t values[] = {
	0, 1, 9, 10, 15, 16, 99, 100, 255, 256, 999, 1000, 4095, 4096, 9999, 10000,
	65535, 65536, 99999, 100000, 999999999, 1000000000, 0x7fffffff, 0x80000000,
	0xfffffffe, 0xffffffff, 0x100000000ull, 9999999999ull, 0xffffffffffull,
	999999999999999999ull, 1000000000000000000ull, 0x7fffffffffffffffull,
	0x8000000000000000ull, 0xfffffffffffffffeull, 0xffffffffffffffffull,
};

#define NVALUES (sizeof(values) / sizeof(values[0]))

/* Run vma_sb_printf and snprintf on the same arguments, after a prefix. */
#define EXPECT_SAME(fmt, ...)                                                          \
	do {                                                                            \
		char want[512];                                                         \
		struct vma_strbuf sb_;                                                  \
		vma_sb_init(&sb_);                                                      \
		vma_sb_puts(&sb_, "<");                                                 \
		vma_sb_printf(&sb_, fmt, __VA_ARGS__);                                  \
		snprintf(want, sizeof(want), "<" fmt, __VA_ARGS__);                     \
		cr_expect_str_eq(sb_.buf, want, "format \"%s\"", fmt);                  \
		cr_expect_eq(sb_.len, strlen(want), "format \"%s\" length", fmt);       \
		vma_sb_free(&sb_);                                                      \
	} while (0)

Test(strbuf_printf, unsigned_conversions_match_snprintf)
{
	size_t i;

	for (i = 0; i < NVALUES; i++) {
		unsigned int u = (unsigned int)values[i];
		unsigned long long ull = values[i];

		EXPECT_SAME("%u %x", u, u);
		EXPECT_SAME("[%5u] [%05u] [%-5u] [%2x] [%08x] [%-7x]", u, u, u, u, u, u);
		EXPECT_SAME("%llu %llx %20llu %016llx", ull, ull, ull, ull);
		EXPECT_SAME("%lu %lx %zu %zx", (unsigned long)ull, (unsigned long)ull,
			    (size_t)ull, (size_t)ull);
		EXPECT_SAME("%ju %jx", (uintmax_t)ull, (uintmax_t)ull);
		EXPECT_SAME("%" PRIu64 " %" PRIx64 " %016" PRIu64, (uint64_t)ull, (uint64_t)ull,
			    (uint64_t)ull);
		EXPECT_SAME("%hu %hx %hhu %hhx", u, u, u, u);
	}
}

Test(strbuf_printf, signed_conversions_match_snprintf)
{
	size_t i;

	for (i = 0; i < NVALUES; i++) {
		int d = (int)values[i];
		long long ll = (long long)values[i];
		/* negated through unsigned: -INT_MIN is undefined, UBSan stops on it */
		int neg_d = (int)(0u - (unsigned int)d);
		long long neg_ll = (long long)(0ull - (unsigned long long)ll);

		EXPECT_SAME("%d %i", d, neg_d);
		EXPECT_SAME("[%6d] [%06d] [%-6d] [%06d]", d, d, d, neg_d);
		EXPECT_SAME("%lld %lld %25lld %025lld", ll, neg_ll, ll, ll);
		EXPECT_SAME("%ld %zd %jd", (long)ll, (ssize_t)ll, (intmax_t)ll);
		EXPECT_SAME("%hd %hhd", d, d);
	}
	EXPECT_SAME("%d %lld", (int)INT32_MIN, (long long)INT64_MIN);
	EXPECT_SAME("%011d %-11d|", (int)INT32_MIN, (int)INT32_MIN);
}

/*
 * Formats a compiler warns about but printf defines: '-' overrides '0', a
 * null string prints "(null)", "%5%" is not the subset's bare "%%".
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-overflow"
#pragma GCC diagnostic ignored "-Wformat-truncation"
Test(strbuf_printf, odd_formats_match_snprintf)
{
	EXPECT_SAME("[%-06d] [%0-6u] [%-08x]", -42, 42u, 0xbeefu);
	EXPECT_SAME("%s|%8s|", (const char *)NULL, (const char *)NULL);
	EXPECT_SAME("%5%|%s", "x");
}
#pragma GCC diagnostic pop

Test(strbuf_printf, text_conversions_match_snprintf)
{
	EXPECT_SAME("%s", "");
	EXPECT_SAME("a %s b", "vmexit");
	EXPECT_SAME("[%8s] [%-8s] [%2s]", "abc", "abc", "abcdef");
	EXPECT_SAME("%c%c [%3c] [%-3c]", 'w', 'r', 'x', 'y');
	EXPECT_SAME("100%% %s%%", "done");
	EXPECT_SAME("no conversion at all%s", "");
}

/* Formats outside the subset go to libc whole, with the arguments intact. */
Test(strbuf_printf, other_formats_fall_back_to_libc)
{
	EXPECT_SAME("%u then %4.3f%% (%llu)", 7u, 62.8603, 164785ull);
	EXPECT_SAME("%x %.3s %d", 0xabcu, "abcdef", -3);
	EXPECT_SAME("%+d % d %#x %X %o", 5, 5, 255u, 255u, 8u);
	EXPECT_SAME("%p", (void *)0x1234);
	EXPECT_SAME("%e %g", 1.5, 0.25);
	EXPECT_SAME("%.3d|%.2s|%Lf", 7, "abc", (long double)1.5);
	EXPECT_SAME("%.10f %.12f", 0.1, 1.0 / 3);
	EXPECT_SAME("%f %f %.2f %5.1f", 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, 1e30);
	EXPECT_SAME("%.2f|%.0f", 2e17, 1.8446744073709552e19);
}

/* '*' widths, a negative one meaning '-'; a negative precision meaning none. */
Test(strbuf_printf, star_widths_match_snprintf)
{
	EXPECT_SAME("%*d|%-*u", 6, 42, 4, 7u);
	EXPECT_SAME("[%*s] [%*u] [%0*x]", -5, "ab", -7, 3u, 6, 0xbeu);
	EXPECT_SAME("%*.*fs %5.2f%%", 9, 6, 0.0123456789, 43.93);
	EXPECT_SAME("[%*.*f] [%.*f] [%-*.*f]", -10, 2, 3.14159, -1, 2.5, 8, 3, -0.0005);
}

/* Exact ties, where glibc rounds to the even digit, and their neighbours. */
Test(strbuf_printf, fixed_ties_round_as_glibc)
{
	static const double ties[] = {
		0.5, 1.5, 2.5, 3.5, 0.125, 0.375, 0.625, 0.875, 1.005, 2.675, 0.045,
		1e-300, 5e-324, -5e-324, 2.2250738585072014e-308, 9.995, 99.995, 0.9999999995,
		1e15 + 0.5, 4503599627370495.5, 9007199254740993.0, 0.0, -0.0, -0.5, -1.5, -2.5,
	};
	char fmt[16];

	for (size_t i = 0; i < sizeof(ties) / sizeof(ties[0]); i++) {
		for (int prec = 0; prec <= 9; prec++) {
			char want[512];
			struct vma_strbuf sb;

			snprintf(fmt, sizeof(fmt), "%%.%df", prec);
			vma_sb_init(&sb);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			vma_sb_printf(&sb, fmt, ties[i]);
			snprintf(want, sizeof(want), fmt, ties[i]);
#pragma GCC diagnostic pop
			cr_expect_str_eq(sb.buf, want, "%s of %a", fmt, ties[i]);
			vma_sb_free(&sb);
		}
	}
}

static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Random doubles of every magnitude the reports print (and beyond, where
 * libc takes over), random bit patterns, decimal fractions near ties, at
 * every precision, width and flag the subset takes.
 */
Test(strbuf_printf, fixed_random_values_match_snprintf)
{
	static const char *const fmts[] = { "%*.*f", "%-*.*f", "%0*.*f" };
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 300000; i++) {
		uint64_t r = next_random(&x);
		int prec = (int)(r % 10), width = (int)(r >> 8 & 15);
		const char *fmt = fmts[r >> 16 & 3 ? (r >> 16 & 3) - 1 : 0];
		char want[512];
		struct vma_strbuf sb;
		double v;

		switch (r >> 20 & 3) {
		case 0: { /* any finite double */
			uint64_t bits = next_random(&x);

			memcpy(&v, &bits, sizeof(v));
			if (v != v)
				v = 0.0;
			break;
		}
		case 1: /* a quotient like a report's seconds or percentage */
			v = (double)(next_random(&x) >> (r >> 24 & 63)) /
			    (double)((next_random(&x) >> 40) + 1);
			break;
		case 2: /* a decimal that is nearly a tie at some precision */
			v = (double)(next_random(&x) % 100000000) / 1e6 + 5e-7;
			break;
		default: /* k / 2^j: exact binary fractions, many of them exact ties */
			v = (double)(next_random(&x) % 100000) / (double)(1u << (r >> 26 & 15));
			break;
		}
		if (r >> 40 & 1)
			v = -v;
		vma_sb_init(&sb);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		vma_sb_printf(&sb, fmt, width, prec, v);
		snprintf(want, sizeof(want), fmt, width, prec, v);
#pragma GCC diagnostic pop
		cr_assert_str_eq(sb.buf, want, "%s of %a (width %d, precision %d)", fmt, v, width,
				 prec);
		vma_sb_free(&sb);
	}
}

/*
 * vma_sb_put_fixed() is "%*.*f" after what the buffer holds: random
 * quotients, the values its exact arithmetic leaves to libc (huge, not
 * finite), and precisions past its own (libc's then).
 */
Test(strbuf_put, fixed_matches_printf)
{
	static const double edge[] = { 0.0, -0.0, 0.005, 0.015, 1e18, 1.8446744073709552e19,
				       1e30, -1e300, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0 };
	uint64_t x = 0x2545f4914f6cdd1dull;

	for (int i = 0; i < 100000; i++) {
		uint64_t r = next_random(&x);
		unsigned int prec = (unsigned int)(r % 13), width = (unsigned int)(r >> 8 & 31);
		double v = i < (int)(sizeof(edge) / sizeof(edge[0])) ? edge[i]
			   : (double)(next_random(&x) >> (r >> 24 & 63)) /
				     (double)((next_random(&x) >> 40) + 1);
		char want[1024];
		struct vma_strbuf sb;

		vma_sb_init(&sb);
		vma_sb_puts(&sb, "<");
		vma_sb_put_fixed(&sb, v, prec, width);
		snprintf(want, sizeof(want), "<%*.*f", (int)width, (int)prec, v);
		cr_assert_str_eq(sb.buf, want, "%a (width %u, precision %u)", v, width, prec);
		cr_assert_eq(sb.len, strlen(want));
		vma_sb_free(&sb);
	}
}

/* vma_fprintf() writes what fprintf() writes, short lines and long. */
Test(strbuf_fprintf, writes_what_fprintf_writes)
{
	char big[1000], *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	FILE *fa = open_memstream(&a, &alen), *fb = open_memstream(&b, &blen);

	cr_assert(fa && fb);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
#define BOTH(...)                             \
	do {                                  \
		vma_fprintf(fa, __VA_ARGS__); \
		fprintf(fb, __VA_ARGS__);     \
	} while (0)
	BOTH(" %-20s %7" PRIu64 " %*.*fs %5.2f%% %5" PRIu64 " cyc {%5u|%5u|%5u}\n", "HLT",
	     (uint64_t)5177, 6, 3, 1.2404, 43.93, (uint64_t)577096, 1911u, 342015u, 1990655u);
	BOTH("%s|%s\n", big, big);
	BOTH("%e %+d\n", 2.5, 3);
	BOTH("%s", "");
#undef BOTH
	fclose(fa);
	fclose(fb);
	cr_expect_eq(alen, blen);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
}

/*
 * vma_snprintf() leaves what snprintf() leaves, cut at every length around
 * the text's end, and in the subset and outside it.
 */
Test(strbuf_snprintf, cuts_as_snprintf_cuts)
{
	/* through a pointer: GCC would warn of the cuts the test makes on purpose */
	int (*volatile libc_snprintf)(char *, size_t, const char *, ...) = snprintf;
	char got[64], want[64], name[40];
	size_t len;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (len = 1; len <= sizeof(got); len++) {
#define BOTH(...)                                                              \
	do {                                                                   \
		memset(got, '#', sizeof(got));                                 \
		memset(want, '#', sizeof(want));                               \
		vma_snprintf(got, len, __VA_ARGS__);                           \
		libc_snprintf(want, len, __VA_ARGS__);                         \
		cr_assert_eq(memcmp(got, want, sizeof(got)), 0,                \
			     "length %zu: '%s' against '%s'", len, got, want); \
	} while (0)
		BOTH("    [%10s] ", "grant_table_op");
		BOTH("     [%23" PRIu64 "] ", (uint64_t)0xfffffffffffull);
		BOTH("   %s %" PRIu64 " ", name, UINT64_MAX);
		BOTH("     %-25s ", "other");
		BOTH("%+d %e", 3, 2.5);
		BOTH("%s", "");
#undef BOTH
	}
}

Test(strbuf_printf, long_output_grows_the_buffer)
{
	char big[3000], want[12000];
	struct vma_strbuf sb;

	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	vma_sb_init(&sb);
	vma_sb_printf(&sb, "%s|%4000u|%s", big, 5u, big);
	/* snprintf's output is checked below; its truncation warning is moot. */
	snprintf(want, sizeof(want), "%s|%4000u|%s", big, 5u, big);
	cr_assert_str_eq(sb.buf, want);
	cr_assert_eq(sb.len, strlen(want));
	/* Beyond the subset's widths: libc formats it, with the same bytes. */
	vma_sb_reset(&sb);
	vma_sb_printf(&sb, "%5000u", 1u);
	cr_assert_eq(sb.len, 5000);
	cr_assert_eq(sb.buf[4999], '1');
	cr_assert_eq(sb.buf[5000], '\0');
	vma_sb_free(&sb);
}

Test(strbuf_put, numbers_match_printf)
{
	struct vma_strbuf sb;
	char want[128];
	size_t i;

	vma_sb_init(&sb);
	for (i = 0; i < NVALUES; i++) {
		uint64_t v = values[i];

		vma_sb_reset(&sb);
		vma_sb_put_u64(&sb, v);
		snprintf(want, sizeof(want), "%" PRIu64, v);
		cr_expect_str_eq(sb.buf, want);

		vma_sb_reset(&sb);
		vma_sb_put_x64(&sb, v);
		snprintf(want, sizeof(want), "%" PRIx64, v);
		cr_expect_str_eq(sb.buf, want);

		vma_sb_reset(&sb);
		vma_sb_put_s64(&sb, (int64_t)v);
		snprintf(want, sizeof(want), "%" PRId64, (int64_t)v);
		cr_expect_str_eq(sb.buf, want);

		vma_sb_reset(&sb);
		vma_sb_put_u64_pad(&sb, v, 9, '0');
		vma_sb_put_u64_pad(&sb, v, 3, ' ');
		vma_sb_put_x64_pad(&sb, v, 8, '0');
		vma_sb_put_x64_pad(&sb, v, 2, ' ');
		vma_sb_put_u64_pad(&sb, v, 24, ' ');
		vma_sb_put_x64_pad(&sb, v, 20, '0');
		snprintf(want, sizeof(want),
			 "%09" PRIu64 "%3" PRIu64 "%08" PRIx64 "%2" PRIx64
			 "%24" PRIu64 "%020" PRIx64, v, v, v, v, v, v);
		cr_expect_str_eq(sb.buf, want);
		cr_expect_eq(sb.len, strlen(want));
	}
	vma_sb_free(&sb);
}

/* Every digit count: each power of ten, one less, and both in hex widths. */
Test(strbuf_put, every_length_of_number)
{
	struct vma_strbuf sb;
	char want[128];
	uint64_t p = 1;
	int k;

	vma_sb_init(&sb);
	for (k = 0; k < 20; k++, p *= 10) {
		uint64_t v[3] = { p - 1, p, p + 1 };
		int j;

		for (j = 0; j < 3; j++) {
			vma_sb_reset(&sb);
			vma_sb_put_u64(&sb, v[j]);
			vma_sb_put_x64(&sb, v[j] << (k % 4));
			vma_sb_put_s64(&sb, -(int64_t)(v[j] >> 1));
			snprintf(want, sizeof(want), "%" PRIu64 "%" PRIx64 "%" PRId64, v[j],
				 v[j] << (k % 4), -(int64_t)(v[j] >> 1));
			cr_expect_str_eq(sb.buf, want);
			cr_expect_eq(sb.len, strlen(want));
		}
	}
	vma_sb_free(&sb);
}

/* The cursor writers: as "%llu", and as many last digits as asked, zero-filled. */
Test(strbuf_fmt, cursor_writers_match_printf)
{
	char got[64], want[64];
	size_t i;
	unsigned int n;

	for (i = 0; i < NVALUES; i++) {
		uint64_t v = values[i];

		*vma_fmt_u64(got, v) = '\0';
		snprintf(want, sizeof(want), "%" PRIu64, v);
		cr_expect_str_eq(got, want);
		for (n = 0; n <= 22; n++) {
			char full[64];
			size_t len;

			*vma_fmt_dec_fixed(got, v, n) = '\0';
			len = (size_t)snprintf(full, sizeof(full), "%0*" PRIu64, (int)n, v);
			cr_expect_str_eq(got, full + len - n, "%u digits of %" PRIu64, n, v);
		}
	}
}

/* "%llx" and the padded fields at a cursor; nine digits over a sample of 10^9. */
Test(strbuf_fmt, hex_padded_and_nine_digits_match_printf)
{
	static const unsigned int widths[] = { 0, 1, 2, 3, 8, 9, 16, 17, 20, 24 };
	char got[64], want[64];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t i, j;
	uint32_t k;

	for (i = 0; i < NVALUES; i++) {
		uint64_t v = values[i];

		*vma_fmt_x64(got, v) = '\0';
		snprintf(want, sizeof(want), "%" PRIx64, v);
		cr_expect_str_eq(got, want);
		for (j = 0; j < sizeof(widths) / sizeof(widths[0]); j++) {
			int w = (int)widths[j];

			cr_assert_leq(VMA_FMT_PAD_MAX(widths[j]), sizeof(got));
			*vma_fmt_u64_pad(got, v, widths[j], '0') = '\0';
			snprintf(want, sizeof(want), "%0*" PRIu64, w, v);
			cr_expect_str_eq(got, want);
			*vma_fmt_u64_pad(got, v, widths[j], ' ') = '\0';
			snprintf(want, sizeof(want), "%*" PRIu64, w, v);
			cr_expect_str_eq(got, want);
			*vma_fmt_x64_pad(got, v, widths[j], '0') = '\0';
			snprintf(want, sizeof(want), "%0*" PRIx64, w, v);
			cr_expect_str_eq(got, want);
			*vma_fmt_x64_pad(got, v, widths[j], ' ') = '\0';
			snprintf(want, sizeof(want), "%*" PRIx64, w, v);
			cr_expect_str_eq(got, want);
		}
	}
	/* every hex length, all digits and both ends of each */
	for (k = 0; k < 64; k++) {
		uint64_t edge[4] = { 1ull << k, (1ull << k) - 1, (2ull << k) - 1,
				     0xfedcba9876543210ull >> k };

		for (j = 0; j < 4; j++) {
			memset(got, '#', sizeof(got));
			*vma_fmt_x64(got, edge[j]) = '\0';
			snprintf(want, sizeof(want), "%" PRIx64, edge[j]);
			cr_expect_str_eq(got, want);
		}
	}
	/* "%llu" of every number below 2 * 10^5: the short ones have paths of their own */
	for (k = 0; k < 200000; k++) {
		*vma_fmt_u64(got, k) = '\0';
		snprintf(want, sizeof(want), "%u", k);
		if (strcmp(got, want) != 0)
			cr_assert_str_eq(got, want, "vma_fmt_u64 of %u", k);
	}
	/* four digits: all of them */
	for (k = 0; k < 10000; k++) {
		memset(got, '#', sizeof(got));
		*vma_fmt_dec4(got, k) = '\0';
		snprintf(want, sizeof(want), "%04u", k);
		if (strcmp(got, want) != 0)
			cr_assert_str_eq(got, want, "vma_fmt_dec4 of %u", k);
	}
	/* every 10^k boundary's neighbours, then pseudo-random values */
	for (k = 1; k < 1000000000u; k *= 10) {
		uint32_t edge[3] = { k - 1, k, k + 1 };

		for (j = 0; j < 3; j++) {
			*vma_fmt_dec_fixed(got, edge[j], 9) = '\0';
			snprintf(want, sizeof(want), "%09u", edge[j]);
			cr_expect_str_eq(got, want);
		}
	}
	for (i = 0; i < 200000; i++) {
		uint32_t v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = (uint32_t)(x % 1000000000u);
		*vma_fmt_dec_fixed(got, v, 9) = '\0';
		snprintf(want, sizeof(want), "%09u", v);
		if (strcmp(got, want) != 0)
			cr_assert_str_eq(got, want, "nine digits of %u", v);
	}
}

Test(strbuf_put, pieces_append_in_order_across_growth)
{
	struct vma_strbuf sb;
	char want[8192];
	size_t n = 0;
	int i;

	vma_sb_init(&sb);
	for (i = 0; i < 300; i++) {
		vma_sb_putlit(&sb, "ab");
		vma_sb_putc(&sb, 'c');
		vma_sb_put(&sb, "defgh", 2);
		vma_sb_put_fill(&sb, '.', 3);
		vma_sb_puts(&sb, "|");
		n += (size_t)snprintf(want + n, sizeof(want) - n, "abcde...|");
	}
	cr_assert(!vma_sb_failed(&sb));
	cr_assert_eq(sb.len, n);
	cr_assert_str_eq(sb.buf, want);
	cr_assert_geq(sb.cap, sb.len + 1);
	vma_sb_free(&sb);
	cr_assert_eq(sb.buf, NULL);
	cr_assert_eq(sb.len, 0);
}
