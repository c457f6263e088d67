/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A growable text buffer for building output lines.  Allocation failure is
 * sticky: the buffer stops growing, and vma_sb_failed() says so, so callers
 * format freely and check once.
 */
#ifndef VMALYZE_STRBUF_H
#define VMALYZE_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct vma_strbuf {
	char *buf;    /* owned; always NUL-terminated when cap > 0 */
	size_t len;
	size_t cap;
	bool failed;
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
void vma_sb_putc(struct vma_strbuf *sb, char c);
void vma_sb_printf(struct vma_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline bool vma_sb_failed(const struct vma_strbuf *sb)
{
	return sb->failed;
}

#endif /* VMALYZE_STRBUF_H */
