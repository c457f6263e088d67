/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xenalyze's --dump-raw-reads: every record as the readers deliver it, in
 * the order they are read, before the merge sees it.  Each stream is
 * wrapped by one whose next() reads the real stream and prints the record.
 */
#ifndef VMALYZE_CLI_RAW_READS_H
#define VMALYZE_CLI_RAW_READS_H

#include <stdbool.h>
#include <stdio.h>

#include "vmalyze/input.h"

struct vma_raw_reads;

/* Return: owned (vma_raw_reads_destroy()); NULL when out of memory. */
struct vma_raw_reads *vma_raw_reads_create(FILE *out);
/* Frees the wrappers: after the merge that holds them is gone. */
void vma_raw_reads_destroy(struct vma_raw_reads *rr);

/*
 * A stream that reads @inner and prints what it reads (the same one for
 * the same @inner); NULL when out of memory.
 */
struct vma_stream *vma_raw_reads_wrap(struct vma_raw_reads *rr, struct vma_stream *inner);

/* The stream a wrapper reads (what input-specific code must be given). */
const struct vma_stream *vma_raw_reads_inner(const struct vma_stream *wrapper);

/* As vma_scatter_hold() and the rest: for dump mode. */
void vma_raw_reads_hold(struct vma_raw_reads *rr);
bool vma_raw_reads_pending(const struct vma_raw_reads *rr);
void vma_raw_reads_flush(struct vma_raw_reads *rr);
int vma_raw_reads_status(const struct vma_raw_reads *rr);

#endif /* VMALYZE_CLI_RAW_READS_H */
