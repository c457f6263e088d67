/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one JSON string writer of the output stage (summary JSON, the
 * latency report, the Chrome trace-event timeline).
 */
#ifndef VMALYZE_OUTPUT_JSON_STRING_H
#define VMALYZE_OUTPUT_JSON_STRING_H

#include <stdio.h>

#include "vmalyze/strbuf.h"

/* @s as a JSON string: quotes, backslashes and control bytes escaped. */
void vma_json_string(FILE *out, const char *s);

/* The same, appended to @sb. */
void vma_json_sb_string(struct vma_strbuf *sb, const char *s);

#endif /* VMALYZE_OUTPUT_JSON_STRING_H */
