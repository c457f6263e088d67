/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON string escaping, shared by the JSON renderers (json-string.h). */
#include "output/json-string.h"

void vma_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(out, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(out, "\\u%04x", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}
