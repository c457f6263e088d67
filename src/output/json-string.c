/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON string escaping, shared by the JSON renderers (json-string.h). */
#include <string.h>

#include "output/json-string.h"

/* Longest escape of one byte: \u001f. */
#define ESCAPE_MAX 6

/*
 * The bytes of @s escaped into @out, @room bytes (more than ESCAPE_MAX),
 * until @s or the room ends.  Return: the bytes of @s taken; *@len, those written.
 */
static size_t escape(const char *s, char *out, size_t room, size_t *len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, n = 0;

	for (; s[i] && n + ESCAPE_MAX <= room; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\') {
			out[n++] = '\\';
			out[n++] = (char)ch;
		} else if (ch < 0x20) {
			memcpy(out + n, "\\u00", 4);
			out[n + 4] = hex[ch >> 4];
			out[n + 5] = hex[ch & 15];
			n += ESCAPE_MAX;
		} else {
			out[n++] = (char)ch;
		}
	}
	*len = n;
	return i;
}

void vma_json_sb_string(struct vma_strbuf *sb, const char *s)
{
	size_t len;

	vma_sb_putc(sb, '"');
	while (*s && vma_sb_room(sb, 64)) {
		s += escape(s, sb->buf + sb->len, sb->cap - sb->len - 1, &len);
		sb->len += len;
		sb->buf[sb->len] = '\0';
	}
	vma_sb_putc(sb, '"');
}

void vma_json_string(FILE *out, const char *s)
{
	char buf[256];
	size_t len;

	fputc('"', out);
	while (*s) {
		s += escape(s, buf, sizeof(buf), &len);
		fwrite(buf, 1, len, out);
	}
	fputc('"', out);
}
