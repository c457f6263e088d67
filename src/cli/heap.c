/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The calling thread's arena advised for huge pages (contract in heap.h).
 *
 * Why: on a large host the state of every pcpu, vcpu and exit row lies
 * over megabytes of heap, and each record reaches a few pages of it at
 * random: with 4 KiB pages, TLB misses.  Where the kernel gives huge
 * pages only to memory advised for them (THP "madvise", as on Debian),
 * the heap gets none; glibc advises it only under a tunable read from the
 * environment at start (glibc.malloc.hugetlb=1).  The exact arrays have
 * their own advised pool (cycles-pool.c); this covers the rest.
 *
 * Why a thread's arena and not the main heap: the main heap grows by
 * brk(), each growth a new mapping that an advice given before does not
 * cover, so advising it needs a reserve kept at its top, which keeps
 * freed memory resident too (bench/README, rounds thirty-one and
 * thirty-six: past 64 MiB on the cap host).  A thread's arena is one
 * mapping reserved at once (glibc maps 64 MiB, inaccessible past what is
 * in use, and opens it as the arena grows), so one advice covers its
 * growth, and trimming gives memory back as before (madvise(MADV_DONTNEED)
 * of the freed top, the advice staying).  main() runs a large analysis on
 * a thread of its own for that (main.c); the batch workers are threads
 * already (batch.c).
 *
 * Why the reserve is opened at once: glibc opens it 132 KiB at a time,
 * so a fault never finds a whole huge page within the open part, and the
 * advised arena got none (bench/README, round thirty-seven).  The mapping
 * is MAP_NORESERVE: pages count only once touched.  Where opening it
 * fails (strict overcommit accounting), the advice alone stays.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/heap.h"

#if defined(__SANITIZE_ADDRESS__)
#define HEAP_FOREIGN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_FOREIGN_ALLOCATOR 1
#endif
#endif

#if defined(__GLIBC__) && !defined(HEAP_FOREIGN_ALLOCATOR)
#include <sys/mman.h>

/* glibc's arena heaps: this size at most, aligned to it (its HEAP_MAX_SIZE on 64 bits). */
#define ARENA_SPAN ((uintptr_t)64 << 20)

/* One line of /proc/self/maps: the range, whether it is accessible, whether anonymous. */
struct mapping {
	uintptr_t lo, hi;
	bool accessible, anonymous;
};

static bool parse_mapping(const char *line, struct mapping *m)
{
	unsigned long lo, hi, inode;
	char perms[5];
	int path = 0;

	if (sscanf(line, "%lx-%lx %4s %*s %*s %lu %n", &lo, &hi, perms, &inode, &path) < 4)
		return false;
	m->lo = lo;
	m->hi = hi;
	m->accessible = perms[0] == 'r';
	/* no file, and no name such as [heap] or [stack] */
	m->anonymous = inode == 0 && (!path || line[path] == '\n' || line[path] == '\0');
	return true;
}

/*
 * The range to advise for the block at @p: its mapping, if anonymous, and
 * the inaccessible mapping right after it (the arena's reserve), within
 * the ARENA_SPAN-aligned span that holds @p, so that nothing past the
 * arena's heap (a neighbour's mapping, a guard page) is touched.
 * Return: false when there is none.
 */
static bool arena_range(const void *p, uintptr_t *lo, uintptr_t *hi)
{
	char *line = NULL;
	size_t cap = 0;
	struct mapping m;
	uintptr_t span;
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return false;
	while (getline(&line, &cap, f) > 0 && parse_mapping(line, &m)) {
		if (!found) {
			if ((uintptr_t)p < m.lo || (uintptr_t)p >= m.hi)
				continue;
			if (!m.anonymous)
				break;
			found = true;
			*lo = m.lo;
			*hi = m.hi;
			continue;
		}
		if (m.lo == *hi && !m.accessible && m.anonymous)
			*hi = m.hi;
		break;
	}
	free(line);
	fclose(f);
	if (!found)
		return false;
	span = (uintptr_t)p & ~(ARENA_SPAN - 1);
	if (*lo < span)
		*lo = span;
	if (*hi - span > ARENA_SPAN)
		*hi = span + ARENA_SPAN;
	return true;
}

bool vma_heap_advise_arena(void)
{
	uintptr_t lo, hi;
	void *block = malloc(64);
	bool advised = false;

	if (block && arena_range(block, &lo, &hi))
		advised = madvise((void *)lo, hi - lo, MADV_HUGEPAGE) == 0 &&
			  mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE) == 0;
	free(block);
	return advised;
}
#else
bool vma_heap_advise_arena(void)
{
	return false;
}
#endif
