/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A growable text buffer for building output lines.  Allocation failure is
 * sticky: the buffer stops growing, and vma_sb_failed() says so, so callers
 * format freely and check once.
 *
 * Dump mode builds a line for every record, so appending is on the hot path:
 * the append primitives below check for room inline and convert numbers
 * without going through the C library's printf, and vma_sb_printf() itself
 * formats the common conversions directly (see vma_sb_vprintf()).
 */
#ifndef VMALYZE_STRBUF_H
#define VMALYZE_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct vma_strbuf {
	char *buf;    /* owned unless borrowed; always NUL-terminated when cap > 0 */
	size_t len;
	size_t cap;
	bool failed;
	bool borrowed; /* buf is the caller's (a local array): growing moves it to the heap */
};

void vma_sb_init(struct vma_strbuf *sb);
void vma_sb_free(struct vma_strbuf *sb);
static inline void vma_sb_reset(struct vma_strbuf *sb)
{
	sb->len = 0;
	if (sb->cap)
		sb->buf[0] = '\0';
}
void vma_sb_puts(struct vma_strbuf *sb, const char *s);
void vma_sb_printf(struct vma_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * vma_sb_vprintf - append like vsnprintf(), with the same bytes.  The
 * conversions record decoders and the text reports use (%d %i %u %x %c %s
 * %%, with the flags '-' and '0', a width, '*' or digits, and the length
 * modifiers hh h l ll z j; and %f with a precision up to 9) are formatted
 * here; a format with anything else (flags '+' ' ' '#', %e, %g, a
 * precision on another conversion...), or a %f of a value outside the
 * exact arithmetic's range, goes whole to vsnprintf().
 */
void vma_sb_vprintf(struct vma_strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/*
 * vma_fprintf - fprintf(), the line formatted by vma_sb_vprintf() and
 * written with one fwrite(): the same bytes, for a fraction of glibc's
 * cost per conversion (the summary reports print thousands of lines).
 * Return: as fprintf().
 */
int vma_fprintf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * vma_snprintf - snprintf() into @buf (@len > 0 bytes), the text formatted
 * by vma_sb_vprintf(): the same bytes, cut to @len - 1 as snprintf() cuts
 * them, for the report's labels (a host of 8,000 vcpus prints 200,000).
 */
void vma_snprintf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline bool vma_sb_failed(const struct vma_strbuf *sb)
{
	return sb->failed;
}

/*
 * vma_sb_grow - make room for @extra more bytes and the NUL.
 * Return: false when the buffer cannot grow (then it is marked failed).
 */
bool vma_sb_grow(struct vma_strbuf *sb, size_t extra);

/* Room for @extra more bytes and the NUL, growing only when short. */
static inline bool vma_sb_room(struct vma_strbuf *sb, size_t extra)
{
	return sb->cap - sb->len > extra || vma_sb_grow(sb, extra);
}

/* Append the @n bytes at @s (which need not be NUL-terminated). */
static inline void vma_sb_put(struct vma_strbuf *sb, const char *s, size_t n)
{
	if (!vma_sb_room(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

/* Append a string literal, its length known at compile time. */
#define vma_sb_putlit(sb, lit) vma_sb_put((sb), "" lit, sizeof(lit) - 1)

static inline void vma_sb_putc(struct vma_strbuf *sb, char c)
{
	if (!vma_sb_room(sb, 1))
		return;
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

/* Append @n copies of @c. */
void vma_sb_put_fill(struct vma_strbuf *sb, char c, size_t n);

/*
 * Numbers, as printf would print them.  @width is a minimum field width,
 * filled on the left with @pad (' ' or '0'): vma_sb_put_u64_pad(sb, v, 9,
 * '0') is "%09llu".
 */
void vma_sb_put_u64(struct vma_strbuf *sb, uint64_t v); /* "%llu" */
void vma_sb_put_s64(struct vma_strbuf *sb, int64_t v);  /* "%lld" */
/* "%llx"; pass a uint32_t for "%x" of a 32-bit word, never a sign-extended int. */
void vma_sb_put_x64(struct vma_strbuf *sb, uint64_t v);
void vma_sb_put_u64_pad(struct vma_strbuf *sb, uint64_t v, unsigned int width, char pad);
void vma_sb_put_x64_pad(struct vma_strbuf *sb, uint64_t v, unsigned int width, char pad);
/*
 * "%*.*f" of @x, @prec digits after the point, right-aligned in @width:
 * the bytes vma_sb_printf() gives, without parsing a format (the summary's
 * lines print tens of thousands of these).
 */
void vma_sb_put_fixed(struct vma_strbuf *sb, double x, unsigned int prec, unsigned int width);

/*
 * Low-level writers, for a caller that made room (vma_sb_room) for a run of
 * pieces, writes them in place through a cursor and sets len and the NUL
 * once (the dump line's columns).  Each writes at @p, without a NUL, and
 * returns the end.
 */
char *vma_fmt_u64_long(char *p, uint64_t v); /* vma_fmt_u64() of @v >= 10 */

/* "%llu": at most 20 bytes.  Ids are mostly one digit: that case inline. */
static inline char *vma_fmt_u64(char *p, uint64_t v)
{
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	return vma_fmt_u64_long(p, v);
}

char *vma_fmt_x64(char *p, uint64_t v); /* "%llx": at most 16 bytes */
/* Exactly @n digits: the last @n of @v, zero-filled ("%09llu" of v < 10^9). */
char *vma_fmt_dec_fixed(char *p, uint64_t v, unsigned int n);

/* "00" to "99": the two digits of each number below 100, for writers that take them by pairs. */
extern const char vma_dec_pairs[200];

/* "%04u" of @v < 10^4, inline: two pairs of digits. */
static inline char *vma_fmt_dec4(char *p, uint32_t v)
{
	uint32_t hi = v * 5243u >> 19; /* v / 100 */

	memcpy(p, vma_dec_pairs + 2 * hi, 2);
	memcpy(p + 2, vma_dec_pairs + 2 * (v - hi * 100u), 2);
	return p + 4;
}

/*
 * "%*llu" and "%*llx" (@pad '0': "%0*llu"...), as vma_sb_put_u64_pad().
 * They may store up to VMA_FMT_PAD_MAX(@width) bytes at @p, past the
 * field's end (a short fill is one 8-byte store the digits then overwrite).
 */
#define VMA_FMT_PAD_MAX(width) (((width) > 20u ? (width) : 20u) + 8u)
char *vma_fmt_u64_pad(char *p, uint64_t v, unsigned int width, char pad);
char *vma_fmt_x64_pad(char *p, uint64_t v, unsigned int width, char pad);

#endif /* VMALYZE_STRBUF_H */
