/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The xentrace reader's block cache for a seekable file.  xentrace writes
 * a window for each pcpu whenever it drains that pcpu's buffer, so the
 * pcpus that trace little have small windows (a real capture's median is
 * under 2 KiB), and on a quiet host every window is small.  Read one by
 * one, each costs a pread() of its own.  Instead, the walks that queue
 * windows note runs of small windows that follow one another in the file
 * (xt_cache_note()), and the first stream to read a window of a run reads
 * the whole run into a block, from which the other pcpus' windows of the
 * run are then read: one read for up to XT_BLOCK_SIZE bytes of windows,
 * and no byte read that is not a small window's.
 *
 * A stream reading from a block pins it; a run read in takes the block of
 * the least recently used unpinned one.  When every block is pinned (more
 * pcpus reading small windows of different runs than there are blocks),
 * or the run was forgotten (more than XT_RUNS runs noted since), the
 * stream reads its window into its own buffer, as it does a large one.
 */
#include <stdlib.h>

#include "input/xentrace-internal.h"
#include "vmalyze/status.h"

void xt_cache_free(struct xt_cache *c)
{
	uint32_t i;

	for (i = 0; i < XT_BLOCKS; i++) {
		free(c->block[i].data);
		c->block[i].data = NULL;
	}
	free(c->runs);
	c->runs = NULL;
}

/* Run number @n: the latest run of that number, unless it was forgotten. */
static struct xt_run *run_of(struct xt_cache *c, uint32_t n)
{
	uint32_t back = (uint32_t)c->runs_made - n;

	if (!n || !c->runs || back >= XT_RUNS)
		return NULL;
	return &c->runs[(c->runs_made - 1 - back) % XT_RUNS];
}

uint32_t xt_cache_note(struct xt_reader *rd, struct chain_walk *walk, uint64_t start,
		       uint64_t end)
{
	struct xt_cache *c = &rd->cache;
	struct xt_run *r = run_of(c, walk->run);

	_Static_assert(XT_SMALL_WINDOW <= XT_BLOCK_SIZE, "a small window fits a run");
	if (end - start <= XT_SMALL_WINDOW && r && !r->read &&
	    r->start + r->len == start - CPU_CHANGE_SIZE && end - r->start <= XT_BLOCK_SIZE) {
		r->len = (uint32_t)(end - r->start);
		/* an empty window is never read: it only carries the run on */
		return start < end ? walk->run : 0;
	}
	if (end - start > XT_SMALL_WINDOW || start == end) {
		walk->run = 0;
		return 0;
	}
	if (!c->runs && !(c->runs = malloc(XT_RUNS * sizeof(*c->runs)))) {
		walk->run = 0; /* no memory for runs: windows are read alone */
		return 0;
	}
	r = &c->runs[c->runs_made % XT_RUNS];
	*r = (struct xt_run){ .start = start, .len = (uint32_t)(end - start) };
	walk->run = (uint32_t)++c->runs_made;
	return walk->run;
}

/* The block holding run @n, if it is cached. */
static struct xt_block *lookup(struct xt_cache *c, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < XT_BLOCKS; i++) {
		if (c->block[i].run == n)
			return &c->block[i];
	}
	return NULL;
}

/* An empty block, else the least recently used unpinned one, else NULL. */
static struct xt_block *victim(struct xt_cache *c)
{
	struct xt_block *best = NULL;
	uint32_t i;

	for (i = 0; i < XT_BLOCKS; i++) {
		struct xt_block *b = &c->block[i];

		if (b->pins)
			continue;
		if (!b->run)
			return b;
		if (!best || b->used < best->used)
			best = b;
	}
	return best;
}

int xt_cache_get(struct xt_reader *rd, uint32_t run, struct xt_block **out)
{
	struct xt_cache *c = &rd->cache;
	struct xt_run *r = run_of(c, run);
	struct xt_block *b;
	int rc;

	*out = NULL;
	if (!r)
		return VMA_OK;
	b = lookup(c, run);
	if (!b) {
		b = victim(c);
		if (!b)
			return VMA_OK;
		if (!b->data && !(b->data = malloc(XT_BLOCK_SIZE)))
			return VMA_ERR_NOMEM;
		b->run = 0;
		xt_prefault(b->data, &b->faulted, r->len);
		rc = xt_read_exact(rd, b->data, r->len, r->start);
		if (rc)
			return rc;
		r->read = 1;
		b->run = run;
		b->off = r->start;
		b->len = r->len;
	}
	b->used = ++c->tick;
	*out = b;
	return VMA_OK;
}
