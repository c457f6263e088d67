/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dump mode: one line per record, in merged order.  The line grammar is in
 * doc/output.md:
 *
 *   MARK TIME ' ' PCPUS ' ' VCPU ' ' TEXT
 *
 * MARK is ' ', ']' or '!' (struct vma_outcome); TIME is seconds since the
 * first record, "%3u.%09u", blank for the first instant; PCPUS has one
 * character per pcpu; VCPU is "dNvM" or "d?v?"; TEXT is the decoded event.
 */
#ifndef VMALYZE_DUMP_H
#define VMALYZE_DUMP_H

#include <stdint.h>
#include <stdio.h>

#include "vmalyze/dispatch.h"
#include "vmalyze/input.h"
#include "vmalyze/state.h"

struct vma_dump;

/* Return: owned (vma_dump_destroy()); NULL when out of memory. */
struct vma_dump *vma_dump_create(FILE *out, uint64_t cpu_hz);
void vma_dump_destroy(struct vma_dump *dump);

/*
 * vma_dump_begin - capture the columns that show the state before the
 * record is processed (time, pcpus, current vcpu).
 */
void vma_dump_begin(struct vma_dump *dump, const struct vma_machine *machine,
		    const struct vma_record *rec);

/*
 * vma_dump_end - write the line, now that @out says how the record was
 * taken.  Return: VMA_OK or VMA_ERR_OUTPUT.
 */
int vma_dump_end(struct vma_dump *dump, const struct vma_stream *stream,
		 const struct vma_outcome *out);

/* Format seconds since the first record: "%3u.%09u", exactly. */
void vma_format_time(char *buf, size_t len, uint64_t cycles, uint64_t hz);

#endif /* VMALYZE_DUMP_H */
