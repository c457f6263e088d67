/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The analysis's heap in transparent huge pages, where the system gives
 * them only to memory advised for them (heap.c says why and how).
 */
#ifndef VMALYZE_CLI_HEAP_H
#define VMALYZE_CLI_HEAP_H

#include <stdbool.h>

/*
 * vma_heap_advise_arena - advise the calling thread's malloc arena for
 * transparent huge pages (madvise(MADV_HUGEPAGE)): the anonymous mapping
 * that holds a block the thread allocates, and the reserve mapped after
 * it, into which the arena grows, opened read-write at once.  Best
 * effort: nothing is done when the block lies in the brk() heap (the main
 * thread's arena, whose growth no advice reaches), outside glibc, or
 * under a sanitizer's allocator.  Return: whether the range was advised
 * and opened.
 */
bool vma_heap_advise_arena(void);

#endif /* VMALYZE_CLI_HEAP_H */
