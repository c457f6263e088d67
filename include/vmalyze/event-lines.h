/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lines printed as events happen (scatterplot points, IPI latencies): one
 * text buffer, written to the output line by line through stdio, or held
 * until the caller flushes them, when it must put them after its own
 * output for the same record (dump mode).
 */
#ifndef VMALYZE_EVENT_LINES_H
#define VMALYZE_EVENT_LINES_H

#include <stdbool.h>
#include <stdio.h>

#include "vmalyze/strbuf.h"

struct vma_event_lines {
	FILE *out;
	struct vma_strbuf sb;   /* the line being built, then held lines */
	bool hold;
	int status;             /* VMA_OK, VMA_ERR_NOMEM or VMA_ERR_OUTPUT */
};

void vma_event_lines_init(struct vma_event_lines *l, FILE *out);
/* Writes what is held, then frees. */
void vma_event_lines_free(struct vma_event_lines *l);

/* Ends the line built in l->sb: written now unless held. */
void vma_event_lines_end(struct vma_event_lines *l);

static inline bool vma_event_lines_pending(const struct vma_event_lines *l)
{
	return l->sb.len != 0;
}

/* Writes the held lines. */
void vma_event_lines_flush(struct vma_event_lines *l);

/* Return: VMA_OK, VMA_ERR_NOMEM or VMA_ERR_OUTPUT (a write failed). */
int vma_event_lines_status(const struct vma_event_lines *l);

#endif /* VMALYZE_EVENT_LINES_H */
