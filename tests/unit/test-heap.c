/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A thread's arena advised for huge pages (src/cli/heap.c): on a thread,
 * the mapping its blocks come from is advised (smaps' VmFlags "hg") and
 * opened in full, so that huge pages can back it as it grows; on the
 * main thread, whose blocks come from the brk() heap, nothing is done.
 * Skipped under AddressSanitizer, whose allocator has no arenas.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/heap.h"
#include "heap-held.h"

/* The mapping of /proc/self/smaps that holds @addr: its range, flags and name. */
struct seen {
	uintptr_t lo, hi;
	char perms[5];
	char name[64];
	bool hg;
};

static bool mapping_of(const void *addr, struct seen *out)
{
	char line[512];
	bool inside = false, found = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[5];
		int name = 0;

		if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &lo, &hi, perms, &name) == 3 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			if (inside) {
				out->lo = lo;
				out->hi = hi;
				memcpy(out->perms, perms, sizeof(perms));
				snprintf(out->name, sizeof(out->name), "%s", line + name);
				out->name[strcspn(out->name, "\n")] = '\0';
			}
			continue;
		}
		if (inside && !strncmp(line, "VmFlags:", 8)) {
			out->hg = strstr(line + 8, " hg") != NULL;
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

struct probe {
	bool advised, seen_before, seen_after;
	struct seen before, after;
};

/* On a thread of its own: advise, then take 4 MiB of blocks, more than its arena had. */
static void *on_thread(void *arg)
{
	struct probe *p = arg;
	void *first = malloc(64), *last = first;
	int i;

	p->seen_before = first && mapping_of(first, &p->before);
	p->advised = vma_heap_advise_arena();
	for (i = 0; i < 64 && last; i++)
		last = malloc(64 << 10);
	p->seen_after = last && mapping_of(last, &p->after);
	return NULL;
}

static void skip_under_sanitizer(void)
{
#ifdef HEAP_HELD_ASAN
	cr_skip_test("AddressSanitizer's allocator has no arenas");
#endif
}

Test(heap, thread_arena_advised_and_open)
{
	struct probe p = { 0 };
	pthread_t t;

	skip_under_sanitizer();
	cr_assert_eq(pthread_create(&t, NULL, on_thread, &p), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_assert(p.seen_before && p.seen_after, "the blocks' mappings were found");
	cr_assert(!p.before.hg, "the arena is not advised before");
	cr_assert(p.advised, "the arena was advised");
	cr_assert(p.after.hg, "the blocks taken after lie in an advised mapping");
	cr_assert_str_eq(p.after.perms, "rw-p");
	cr_assert_str_empty(p.after.name, "an anonymous mapping, not %s", p.after.name);
	/* Opened in full: far more than the 4 MiB in use, within glibc's 64 MiB heap. */
	cr_assert_geq(p.after.hi - p.after.lo, (uintptr_t)32 << 20, "%lu bytes open",
		      (unsigned long)(p.after.hi - p.after.lo));
	cr_assert_leq(p.after.hi - p.after.lo, (uintptr_t)64 << 20);
}

Test(heap, brk_heap_left_alone)
{
	struct seen s = { 0 };
	void *block;

	skip_under_sanitizer();
	block = malloc(64);
	cr_assert_not_null(block);
	cr_assert(mapping_of(block, &s));
	if (strcmp(s.name, "[heap]"))
		cr_skip_test("the main thread's blocks are not in the brk() heap here");
	cr_assert(!vma_heap_advise_arena(), "the brk() heap is not advised");
	cr_assert(mapping_of(block, &s));
	cr_assert(!s.hg, "no advice on [heap]");
	free(block);
}
