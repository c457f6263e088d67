/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Growable text buffer with a sticky allocation failure (see strbuf.h), and
 * its number conversions and printf subset.  They exist for speed: dump mode
 * formats a few pieces per record, hundreds of millions of times on a large
 * trace, and glibc's vsnprintf costs more in setting up its string stream
 * than in converting the numbers.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/grow.h"
#include "vmalyze/strbuf.h"

void vma_sb_init(struct vma_strbuf *sb)
{
	memset(sb, 0, sizeof(*sb));
}

void vma_sb_free(struct vma_strbuf *sb)
{
	if (!sb->borrowed)
		free(sb->buf);
	vma_sb_init(sb);
}

/* A buffer on storage it does not own moves to one it does (vma_fprintf()'s). */
static bool grow_borrowed(struct vma_strbuf *sb, size_t need)
{
	size_t cap = 256;
	char *buf;

	while (cap < need)
		cap *= 2;
	buf = malloc(cap);
	if (!buf)
		return false;
	memcpy(buf, sb->buf, sb->len + 1);
	sb->buf = buf;
	sb->cap = cap;
	sb->borrowed = false;
	return true;
}

bool vma_sb_grow(struct vma_strbuf *sb, size_t extra)
{
	if (sb->failed)
		return false;
	if (extra > SIZE_MAX / 2 - 1 - sb->len ||
	    (sb->borrowed ? !grow_borrowed(sb, sb->len + extra + 1)
			  : vma_grow(sb->buf, &sb->cap, sb->len + extra + 1, 256) != 0)) {
		sb->failed = true;
		return false;
	}
	return true;
}

void vma_sb_puts(struct vma_strbuf *sb, const char *s)
{
	vma_sb_put(sb, s, strlen(s));
}

void vma_sb_put_fill(struct vma_strbuf *sb, char c, size_t n)
{
	if (!vma_sb_room(sb, n))
		return;
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

/* Number of decimal digits of @v, without dividing. */
static unsigned int dec_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
		1000000000000ull, 10000000000000ull, 100000000000000ull,
		1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	/* v | 1 has as many digits as v, and a bit set for clz. */
	uint64_t u = v | 1;
	/* log10(2) ~ 1233/4096: t + 1 is the count, or one too many. */
	unsigned int t = (unsigned int)(64 - __builtin_clzll(u)) * 1233 >> 12;

	return t + 1 - (u < pow10[t]);
}

/* Number of hex digits of @v. */
static unsigned int hex_len(uint64_t v)
{
	return (unsigned int)(64 - __builtin_clzll(v | 1) + 3) / 4;
}

/* Two digits per division halves the divisions of long numbers. */
const char vma_dec_pairs[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* The same for hex: a byte's two digits per step. */
static const char hex_pairs[] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/* Writes the decimal digits of @v to end at @end. */
static inline void dec_digits(char *end, uint64_t v)
{
	char *p = end;
	uint32_t w;

	/* Most numbers fit in 32 bits, where divisions by 100 are cheaper. */
	while (v > UINT32_MAX) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, vma_dec_pairs + 2 * r, 2);
	}
	w = (uint32_t)v;
	while (w >= 100) {
		unsigned int r = w % 100;

		w /= 100;
		p -= 2;
		memcpy(p, vma_dec_pairs + 2 * r, 2);
	}
	if (w >= 10) {
		memcpy(p - 2, vma_dec_pairs + 2 * w, 2);
	} else {
		p[-1] = (char)('0' + w);
	}
}

/* Writes the lowercase hex digits of @v to end at @end. */
static inline void hex_digits(char *end, uint64_t v)
{
	char *p = end;

	while (v > 0xff) {
		p -= 2;
		memcpy(p, hex_pairs + 2 * (v & 0xff), 2);
		v >>= 8;
	}
	if (v > 0xf) {
		memcpy(p - 2, hex_pairs + 2 * v, 2);
	} else {
		p[-1] = hex_pairs[2 * v + 1]; /* the second digit of "0v" */
	}
}

char *vma_fmt_u64_long(char *p, uint64_t v)
{
	unsigned int n;

	/* The short numbers of dump lines (cycles of an exit, ids) without a loop. */
	if (v < 100) {
		memcpy(p, vma_dec_pairs + 2 * v, 2);
		return p + 2;
	}
	if (v < 10000) {
		uint32_t hi = (uint32_t)v * 5243u >> 19; /* v / 100 */

		if (hi < 10)
			*p++ = (char)('0' + hi);
		else
			p = (char *)memcpy(p, vma_dec_pairs + 2 * hi, 2) + 2;
		memcpy(p, vma_dec_pairs + 2 * ((uint32_t)v - hi * 100u), 2);
		return p + 2;
	}
	if (v < 100000) {
		uint32_t top = (uint32_t)v / 10000;

		p[0] = (char)('0' + top);
		return vma_fmt_dec4(p + 1, (uint32_t)v - top * 10000);
	}
	n = dec_len(v);
	dec_digits(p + n, v);
	return p + n;
}

char *vma_fmt_x64(char *p, uint64_t v)
{
	unsigned int n = hex_len(v);

	hex_digits(p + n, v);
	return p + n;
}

/*
 * "%09u" of @v < 10^9 (the nanoseconds of vma_fmt_dec_fixed(..., 9)): the
 * first digit by a multiplication (v * ceil(2^57 / 10^8) has v / 10^8 in
 * its top bits), the other eight in one 64-bit word, split in lanes
 * without a division: 4 + 4 digits (/ 10^4), each lane / 100, then each
 * / 10, by multiplications exact for the lanes' ranges (all 10^9 values
 * were checked when this was written; test-strbuf checks edges and a
 * sample).  Digits land in the word's bytes in memory order on a
 * little-endian machine only.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static char *dec9(char *p, uint32_t v)
{
	uint32_t top = (uint32_t)(((uint64_t)v * 1441151881u) >> 57);
	uint32_t rest = v - top * 100000000u;
	uint64_t hi = (uint64_t)rest * 109951163u >> 40; /* rest / 10^4 */
	uint64_t x = hi | (uint64_t)(rest - (uint32_t)hi * 10000u) << 32;
	uint64_t q;

	q = (x * 10486u >> 20) & 0x0000007f0000007full; /* each lane / 100 */
	x = q | (x - q * 100u) << 16;
	q = (x * 103u >> 10) & 0x000f000f000f000full; /* each lane / 10 */
	x = q | (x - q * 10u) << 8;
	x += 0x3030303030303030ull;
	p[0] = (char)('0' + top);
	memcpy(p + 1, &x, 8);
	return p + 9;
}
#endif

char *vma_fmt_dec_fixed(char *p, uint64_t v, unsigned int n)
{
	char *q = p + n;
	uint32_t w;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n == 9 && v < 1000000000u)
		return dec9(p, (uint32_t)v);
#endif
	for (; v > UINT32_MAX && q - p >= 2; v /= 100) {
		q -= 2;
		memcpy(q, vma_dec_pairs + 2 * (v % 100), 2);
	}
	w = (uint32_t)(v > UINT32_MAX ? v % 10 : v);
	/* Four digits per step in 32 bits: the pairs of a step do not wait for each other. */
	for (; q - p >= 4; w /= 10000) {
		uint32_t r = w % 10000;

		q -= 4;
		memcpy(q, vma_dec_pairs + 2 * (r / 100), 2);
		memcpy(q + 2, vma_dec_pairs + 2 * (r % 100), 2);
	}
	if (q - p >= 2) {
		q -= 2;
		memcpy(q, vma_dec_pairs + 2 * (w % 100), 2);
		w /= 100;
	}
	if (q > p)
		*--q = (char)('0' + w % 10);
	return p + n;
}

static void put_chars(char *p, char c, size_t n)
{
	while (n--)
		*p++ = c;
}

/*
 * @v in @base (10 or 16), right-aligned in a field of @width filled with
 * @pad, at @p; returns the field's end.  A short fill is one 8-byte store,
 * which may pass the field's end (see vma_fmt_u64_pad()).  Always inlined,
 * so each caller gets a copy specialized for its base and, where constant,
 * its width: these are the hottest few instructions of dump mode.
 */
static inline __attribute__((always_inline)) char *
fmt_unsigned(char *p, uint64_t v, unsigned int base, unsigned int width, char pad)
{
	unsigned int digits = base == 16 ? hex_len(v) : dec_len(v);
	unsigned int n = width > digits ? width : digits;

	if (n > digits) {
		/* the digits then overwrite the store's end, rather than a memset call */
		if (n - digits <= 8) {
			memcpy(p, pad == '0' ? "00000000" : "        ", 8);
		} else {
			memset(p, pad, n - digits);
		}
	}
	if (base == 16)
		hex_digits(p + n, v);
	else
		dec_digits(p + n, v);
	return p + n;
}

char *vma_fmt_u64_pad(char *p, uint64_t v, unsigned int width, char pad)
{
	return fmt_unsigned(p, v, 10, width, pad);
}

char *vma_fmt_x64_pad(char *p, uint64_t v, unsigned int width, char pad)
{
	return fmt_unsigned(p, v, 16, width, pad);
}

/* fmt_unsigned() at the end of @sb. */
static inline __attribute__((always_inline)) void
put_unsigned(struct vma_strbuf *sb, uint64_t v, unsigned int base, unsigned int width, char pad)
{
	char *p;

	if (!vma_sb_room(sb, VMA_FMT_PAD_MAX(width)))
		return;
	p = fmt_unsigned(sb->buf + sb->len, v, base, width, pad);
	*p = '\0';
	sb->len = (size_t)(p - sb->buf);
}

void vma_sb_put_u64(struct vma_strbuf *sb, uint64_t v)
{
	put_unsigned(sb, v, 10, 0, ' ');
}

void vma_sb_put_x64(struct vma_strbuf *sb, uint64_t v)
{
	put_unsigned(sb, v, 16, 0, ' ');
}

void vma_sb_put_u64_pad(struct vma_strbuf *sb, uint64_t v, unsigned int width, char pad)
{
	put_unsigned(sb, v, 10, width, pad);
}

void vma_sb_put_x64_pad(struct vma_strbuf *sb, uint64_t v, unsigned int width, char pad)
{
	put_unsigned(sb, v, 16, width, pad);
}

void vma_sb_put_s64(struct vma_strbuf *sb, int64_t v)
{
	if (v < 0) {
		vma_sb_putc(sb, '-');
		/* The magnitude in unsigned arithmetic, so INT64_MIN is no overflow. */
		put_unsigned(sb, -(uint64_t)v, 10, 0, ' ');
	} else {
		put_unsigned(sb, (uint64_t)v, 10, 0, ' ');
	}
}

/*
 * Open a printf field of @n characters (its sign included) in @width at
 * the buffer's end: room for it, then the fill on the left (spaces, or
 * '0' after the sign) and the sign.  Return: where the digits go, or NULL
 * when the buffer failed; *@fill: the fill's length, for field_close().
 */
static char *field_open(struct vma_strbuf *sb, unsigned int n, unsigned int width, char pad,
			bool left, bool neg, unsigned int *fill)
{
	char *p;

	*fill = width > n ? width - n : 0;
	if (!vma_sb_room(sb, n + *fill))
		return NULL;
	p = sb->buf + sb->len;
	if (!left && pad != '0') {
		put_chars(p, ' ', *fill);
		p += *fill;
	}
	if (neg)
		*p++ = '-';
	if (!left && pad == '0') {
		put_chars(p, '0', *fill);
		p += *fill;
	}
	return p;
}

/* Close the field field_open() opened, its digits ending at @end: the fill on the right ('-'). */
static void field_close(struct vma_strbuf *sb, char *end, unsigned int n, unsigned int fill,
			bool left)
{
	if (left)
		put_chars(end, ' ', fill);
	sb->len += n + fill;
	sb->buf[sb->len] = '\0';
}

/*
 * A printf conversion of a number of magnitude @mag, negative if @neg, in
 * base 10 or 16, in a field of @width: filled on the left with @pad, or on
 * the right with spaces when @left, the sign in front of '0' fill.
 */
static void put_number(struct vma_strbuf *sb, uint64_t mag, bool neg, unsigned int base,
		       unsigned int width, char pad, bool left)
{
	unsigned int digits = base == 16 ? hex_len(mag) : dec_len(mag);
	unsigned int n = digits + neg, fill;
	char *p = field_open(sb, n, width, pad, left, neg, &fill);

	if (!p)
		return;
	p += digits;
	if (base == 16)
		hex_digits(p, mag);
	else
		dec_digits(p, mag);
	field_close(sb, p, n, fill, left);
}

/* Append the @n characters at @s in a field of @width, as put_number(). */
static void put_field(struct vma_strbuf *sb, const char *s, size_t n, unsigned int width,
		      bool left)
{
	size_t fill = width > n ? width - n : 0;
	char *p;

	if (!vma_sb_room(sb, n + fill))
		return;
	p = sb->buf + sb->len;
	if (!left) {
		put_chars(p, ' ', fill);
		p += fill;
	}
	memcpy(p, s, n);
	if (left)
		put_chars(p + n, ' ', fill);
	sb->len += n + fill;
	sb->buf[sb->len] = '\0';
}

/* vsnprintf straight into the buffer, for the formats vma_sb_vprintf leaves to libc. */
__attribute__((format(printf, 2, 0)))
static void libc_vprintf(struct vma_strbuf *sb, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	if (!vma_sb_room(sb, 64))
		return;
	va_copy(again, ap);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	if (n < 0) {
		sb->failed = true;
	} else if ((size_t)n >= sb->cap - sb->len) {
		if (vma_sb_room(sb, (size_t)n)) {
			vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, again);
			sb->len += (size_t)n;
		}
	} else {
		sb->len += (size_t)n;
	}
	va_end(again);
}

/* One conversion of the subset vma_sb_vprintf formats itself. */
struct conv {
	bool left;          /* flag '-' */
	char pad;           /* '0' with flag '0', else ' ' */
	bool star_width;    /* the width is an argument ('*') */
	bool star_prec;     /* so is the precision */
	unsigned int width;
	int prec;           /* -1: none */
	int size;           /* length modifier: 'H' hh, 'h', 0 none, 'l', 'L' ll, 'z', 'j' */
	char type;          /* d i u x c s f % */
};

/* Widths beyond this go to libc, so a field can never be absurdly long here. */
#define MAX_WIDTH 4096u
/* %f with more digits than this goes to libc (put_fixed()'s arithmetic). */
#define MAX_PREC 9

/*
 * Parse the conversion after a '%' at @f into @c.  Return: the character
 * after it, or NULL when it lies outside the subset.
 */
static const char *parse_conv(const char *f, struct conv *c)
{
	*c = (struct conv){ .pad = ' ', .prec = -1 };
	for (;; f++) {
		if (*f == '-') {
			c->left = true;
		} else if (*f == '0') {
			c->pad = '0';
		} else {
			break;
		}
	}
	if (*f == '*') {
		c->star_width = true;
		f++;
	}
	while (!c->star_width && *f >= '0' && *f <= '9') {
		c->width = c->width * 10 + (unsigned int)(*f++ - '0');
		if (c->width > MAX_WIDTH)
			return NULL;
	}
	if (*f == '.') {
		c->prec = 0;
		if (*++f == '*') {
			c->star_prec = true;
			f++;
		}
		while (!c->star_prec && *f >= '0' && *f <= '9') {
			c->prec = c->prec * 10 + (*f++ - '0');
			if (c->prec > MAX_PREC)
				return NULL;
		}
	}
	if (f[0] == 'h' || f[0] == 'l') {
		bool twice = f[1] == f[0];

		c->size = twice ? (f[0] == 'h' ? 'H' : 'L') : f[0];
		f += twice ? 2 : 1;
	} else if (f[0] == 'z' || f[0] == 'j') {
		c->size = *f++;
	}
	c->type = *f;
	/* A precision is taken for %f only (digits of integers, cuts of text: libc). */
	if (c->prec >= 0 && c->type != 'f')
		return NULL;
	switch (c->type) {
	case 'd': case 'i': case 'u': case 'x':
		return f + 1;
	case 'f':
		return c->size == 0 || c->size == 'l' ? f + 1 : NULL;
	case 'c': case 's':
		/* wide characters, and '0' fill of text (undefined in C), go to libc */
		return c->size || c->pad == '0' ? NULL : f + 1;
	case '%':
		return f[-1] == '%' ? f + 1 : NULL;
	default:
		return NULL;
	}
}

/* The argument of a signed conversion, at its promoted type. */
static int64_t arg_signed(const struct conv *c, va_list *ap)
{
	switch (c->size) {
	case 'H':
		return (signed char)va_arg(*ap, int);
	case 'h':
		return (short)va_arg(*ap, int);
	case 'l':
		return va_arg(*ap, long);
	case 'L':
		return va_arg(*ap, long long);
	case 'z':
		return (int64_t)va_arg(*ap, size_t);
	case 'j':
		return va_arg(*ap, intmax_t);
	default:
		return va_arg(*ap, int);
	}
}

static uint64_t arg_unsigned(const struct conv *c, va_list *ap)
{
	switch (c->size) {
	case 'H':
		return (unsigned char)va_arg(*ap, unsigned int);
	case 'h':
		return (unsigned short)va_arg(*ap, unsigned int);
	case 'l':
		return va_arg(*ap, unsigned long);
	case 'L':
		return va_arg(*ap, unsigned long long);
	case 'z':
		return va_arg(*ap, size_t);
	case 'j':
		return va_arg(*ap, uintmax_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

/*
 * "%.*f" of @x, @prec at most MAX_PREC, in a field as put_number()'s:
 * the bytes glibc prints.  The decimal is worked out exactly from the
 * double's bits (x = m * 2^e, so x * 10^prec = m * 10^prec * 2^e, at most
 * 83 bits before the shift), and a tie rounds to the even last digit, as
 * glibc's printf does in the default rounding mode.  Return: false for
 * what it leaves to libc (not finite, or x * 10^prec of 2^64 or more).
 */
static bool put_fixed(struct vma_strbuf *sb, double x, int prec, unsigned int width, char pad,
		      bool left)
{
	static const uint32_t pow10[MAX_PREC + 1] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
	};
	unsigned __int128 n;
	uint64_t bits, m, q, whole, frac;
	unsigned int digits, len, fill;
	int e;
	bool neg;
	char *p;

	memcpy(&bits, &x, sizeof(bits));
	neg = bits >> 63;
	e = (int)(bits >> 52 & 0x7ff);
	m = bits & ((1ull << 52) - 1);
	if (e == 0x7ff)
		return false;
	if (e)
		m |= 1ull << 52;
	else
		e = 1; /* subnormal */
	e -= 1075;
	n = (unsigned __int128)m * pow10[prec];
	if (e >= 0) {
		if (n && (e >= 64 || n >> (64 - e)))
			return false;
		q = (uint64_t)(n << e);
	} else if (-e > 100) {
		q = 0; /* n < 2^83: below half of the last digit */
	} else {
		unsigned int k = (unsigned int)-e;
		unsigned __int128 qq = n >> k, rem = n - (qq << k);
		unsigned __int128 half = (unsigned __int128)1 << (k - 1);

		if (rem > half || (rem == half && (qq & 1)))
			qq++;
		if (qq >> 64)
			return false;
		q = (uint64_t)qq;
	}
	whole = q / pow10[prec];
	frac = q - whole * pow10[prec];
	digits = dec_len(whole);
	len = neg + digits + (prec ? 1u + (unsigned int)prec : 0u);
	p = field_open(sb, len, width, pad, left, neg, &fill);
	if (!p)
		return true; /* failed: the buffer says so */
	p += digits;
	dec_digits(p, whole);
	if (prec) {
		*p++ = '.';
		p = vma_fmt_dec_fixed(p, frac, (unsigned int)prec);
	}
	field_close(sb, p, len, fill, left);
	return true;
}

/*
 * Append one conversion.  Return: false when its argument's value takes it
 * outside the subset (then the whole format goes to libc).
 */
static bool put_conv(struct vma_strbuf *sb, struct conv *c, va_list *ap)
{
	const char *s;
	int64_t v;

	if (c->star_width) {
		int w = va_arg(*ap, int);

		/* A negative width is the '-' flag and its magnitude. */
		if (w < 0)
			c->left = true;
		c->width = w < 0 ? -(unsigned int)w : (unsigned int)w;
		if (c->width > MAX_WIDTH)
			return false;
	}
	if (c->star_prec) {
		c->prec = va_arg(*ap, int);
		if (c->prec > MAX_PREC)
			return false;
	}
	if (c->left)
		c->pad = ' ';
	switch (c->type) {
	case 'd':
	case 'i':
		v = arg_signed(c, ap);
		put_number(sb, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, 10, c->width, c->pad,
			   c->left);
		return true;
	case 'u':
		put_number(sb, arg_unsigned(c, ap), false, 10, c->width, c->pad, c->left);
		return true;
	case 'x':
		put_number(sb, arg_unsigned(c, ap), false, 16, c->width, c->pad, c->left);
		return true;
	case 'c': {
		char ch = (char)va_arg(*ap, int);

		put_field(sb, &ch, 1, c->width, c->left);
		return true;
	}
	case 's':
		s = va_arg(*ap, const char *);
		if (!s)
			s = "(null)"; /* glibc's text for a null string */
		put_field(sb, s, strlen(s), c->width, c->left);
		return true;
	case 'f':
		return put_fixed(sb, va_arg(*ap, double), c->prec < 0 ? 6 : c->prec, c->width,
				 c->pad, c->left);
	default: /* '%' */
		vma_sb_putc(sb, '%');
		return true;
	}
}

void vma_sb_vprintf(struct vma_strbuf *sb, const char *fmt, va_list ap)
{
	size_t start = sb->len;
	const char *f = fmt;
	struct conv c;
	va_list args;

	/*
	 * Arguments are consumed as conversions are met; keep the list as it
	 * came, for libc, should a later conversion lie outside the subset.
	 */
	va_copy(args, ap);
	for (;;) {
		const char *pct = strchrnul(f, '%');

		vma_sb_put(sb, f, (size_t)(pct - f));
		if (!*pct)
			break;
		f = parse_conv(pct + 1, &c);
		if (!f || !put_conv(sb, &c, &args)) {
			/* Start over in libc, without what was appended. */
			if (sb->len > start) {
				sb->len = start;
				sb->buf[start] = '\0';
			}
			libc_vprintf(sb, fmt, ap);
			break;
		}
	}
	va_end(args);
}

void vma_sb_printf(struct vma_strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vma_sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

void vma_sb_put_fixed(struct vma_strbuf *sb, double x, unsigned int prec, unsigned int width)
{
	if (prec <= MAX_PREC && width <= MAX_WIDTH && put_fixed(sb, x, (int)prec, width, ' ', false))
		return;
	/* Outside the exact arithmetic's range: libc's, as vma_sb_printf() would. */
	vma_sb_printf(sb, "%*.*f", width <= INT_MAX ? (int)width : INT_MAX,
		      prec <= INT_MAX ? (int)prec : INT_MAX, x);
}

/*
 * @fmt with @ap formatted by vma_sb_vprintf() into @sb, on @buf (@cap
 * bytes) while it fits, on the heap past it.  Return: false when memory
 * ran out (then libc formats it, from a copy of the arguments).
 */
static bool format_on(struct vma_strbuf *sb, char *buf, size_t cap, const char *fmt, va_list ap)
{
	*sb = (struct vma_strbuf){ .buf = buf, .cap = cap, .borrowed = true };
	buf[0] = '\0';
	vma_sb_vprintf(sb, fmt, ap);
	return !sb->failed;
}

int vma_fprintf(FILE *out, const char *fmt, ...)
{
	char line[256];
	struct vma_strbuf sb;
	va_list ap, again;
	int n;

	va_start(ap, fmt);
	va_copy(again, ap);
	if (!format_on(&sb, line, sizeof(line), fmt, ap)) {
		n = vfprintf(out, fmt, again); /* out of memory for a long line */
	} else {
		bool written = fwrite(sb.buf, 1, sb.len, out) == sb.len;

		n = written && sb.len <= INT_MAX ? (int)sb.len : -1;
	}
	va_end(again);
	va_end(ap);
	vma_sb_free(&sb);
	return n;
}

void vma_snprintf(char *buf, size_t len, const char *fmt, ...)
{
	struct vma_strbuf sb;
	va_list ap, again;

	va_start(ap, fmt);
	va_copy(again, ap);
	if (!format_on(&sb, buf, len, fmt, ap)) {
		vsnprintf(buf, len, fmt, again); /* out of memory for a long text */
	} else if (sb.buf != buf) {
		/* the text moved to the heap (longer than @len, or libc's room) */
		size_t n = sb.len < len - 1 ? sb.len : len - 1;

		memcpy(buf, sb.buf, n);
		buf[n] = '\0';
	}
	va_end(again);
	va_end(ap);
	vma_sb_free(&sb);
}
