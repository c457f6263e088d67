/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Held-back output of a batch run: a FILE that keeps what is written in
 * memory while the run's shared budget allows, and past it in an unlinked
 * temporary file, until it is copied out in input order.
 */
#ifndef VMALYZE_CLI_SPILL_H
#define VMALYZE_CLI_SPILL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

/* Memory all the held-back outputs of one run may use together. */
struct vma_spill_budget {
	_Atomic size_t held;
	size_t cap;
};

struct vma_spill;

/*
 * vma_spill_create - an empty spill drawing on @budget (borrowed).
 * Return: owned, free with vma_spill_destroy(); NULL when out of memory.
 */
struct vma_spill *vma_spill_create(struct vma_spill_budget *budget);

/* The stream to write to; valid until vma_spill_destroy(). */
FILE *vma_spill_stream(struct vma_spill *sp);

/* True when nothing was written. */
int vma_spill_empty(struct vma_spill *sp);

/*
 * vma_spill_copy - write everything written to @sp so far to @to.
 * Return: 0, or -1 when reading the spill or writing @to failed.
 */
int vma_spill_copy(struct vma_spill *sp, FILE *to);

void vma_spill_destroy(struct vma_spill *sp);

#endif /* VMALYZE_CLI_SPILL_H */
