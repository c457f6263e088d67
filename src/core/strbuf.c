/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growable text buffer with a sticky allocation failure (see strbuf.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/strbuf.h"

void vma_sb_init(struct vma_strbuf *sb)
{
	memset(sb, 0, sizeof(*sb));
}

void vma_sb_free(struct vma_strbuf *sb)
{
	free(sb->buf);
	vma_sb_init(sb);
}

static bool reserve(struct vma_strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	size_t cap;
	char *buf;

	if (sb->failed)
		return false;
	if (need <= sb->cap)
		return true;
	cap = sb->cap ? sb->cap : 256;
	while (cap < need)
		cap *= 2;
	buf = realloc(sb->buf, cap);
	if (!buf) {
		sb->failed = true;
		return false;
	}
	sb->buf = buf;
	sb->cap = cap;
	return true;
}

void vma_sb_puts(struct vma_strbuf *sb, const char *s)
{
	size_t n = strlen(s);

	if (!reserve(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n + 1);
	sb->len += n;
}

void vma_sb_putc(struct vma_strbuf *sb, char c)
{
	if (!reserve(sb, 1))
		return;
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void vma_sb_printf(struct vma_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!reserve(sb, 64))
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->failed = true;
		return;
	}
	if ((size_t)n >= sb->cap - sb->len) {
		if (!reserve(sb, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}
