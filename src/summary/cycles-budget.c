/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory budget of a set of cycle summaries (contract in
 * vmalyze/cycles.h): charging and crediting, the list of the sketches
 * charged to a budget, and collapsing a sketch to a coarser resolution.
 *
 * Why a list of sketches: when the budget tightens, every sketch collapses
 * at once, the cold ones too (those would otherwise keep their buckets to
 * the end), so that the memory is back under the limit before anything
 * grows again.  A sketch's own allocation has a stable address (the
 * summaries it belongs to live in tables that move), and the list needs
 * no summary: collapsing changes only the sketch's buckets.  Exact arrays
 * have no header to link; they give way as they grow (add_slow()).
 *
 * Why steps and not a continuous resolution: every sketch of a budget has
 * one of five resolutions, the budget's or a finer one made before it
 * tightened, so merging two of them collapses the finer to the coarser and
 * the buckets stay unions of the fine ones (bucket_of() at fewer bits).
 */
#include <stdlib.h>
#include <string.h>

#include "cycles-internal.h"
#include "vmalyze/cycles.h"
#include "vmalyze/grow.h"
#include "vmalyze/status.h"

/* Exact arrays keep growing below this many samples: a sketch is no smaller. */
#define EXACT_FLOOR 128u
/* Past the last level, below this many: a compact form is no smaller (24 + 4 to 8 a bucket). */
#define EXACT_FLOOR_COMPACT 16u

void vma_cycles_budget_init(struct vma_cycles_budget *b, size_t limit)
{
	memset(b, 0, sizeof(*b));
	b->limit = limit;
	b->exact_limit = VMA_CYCLES_EXACT_MAX;
	b->bits = SUB_BITS;
	b->next_step = limit ? limit : SIZE_MAX;
}

void vma_cycles_link(struct vma_cycles_budget *b, struct vma_cycles_sketch *sk)
{
	sk->prev = NULL;
	sk->next = NULL;
	if (!b)
		return;
	sk->next = b->sketches;
	if (b->sketches)
		b->sketches->prev = sk;
	b->sketches = sk;
}

void vma_cycles_unlink(struct vma_cycles_budget *b, struct vma_cycles_sketch *sk)
{
	if (!b)
		return;
	if (sk->prev)
		sk->prev->next = sk->next;
	else if (b->sketches == sk)
		b->sketches = sk->next;
	if (sk->next)
		sk->next->prev = sk->prev;
	sk->prev = sk->next = NULL;
}

/* The kind of cells that holds a bucket of @count values whose offsets sum to @off. */
static unsigned int kind_for(uint64_t count, uint64_t off)
{
	if (count <= TCOUNT_MAX && off <= TOFF_MASK)
		return CELLS_TINY;
	if (count <= NCOUNT_MAX && off <= NOFF_MASK)
		return CELLS_NARROW;
	return CELLS_WIDE;
}

/* Store bucket @i of @cells (of @kind) as @count values summing to @sum from @lo. */
static void cell_store(void *cells, unsigned int kind, uint32_t i, uint64_t count, uint64_t sum,
		       uint64_t lo)
{
	uint64_t off = sum - count * lo;

	if (kind == CELLS_TINY) {
		((tcell *)cells)[i] = (uint32_t)(count << TOFF_BITS | off);
	} else if (kind == CELLS_NARROW) {
		((ncell *)cells)[i] = count << NOFF_BITS | off;
	} else {
		((struct wcell *)cells)[i].count = count;
		((struct wcell *)cells)[i].sum = sum;
	}
}

/*
 * The buckets of @sk summed into its buckets at @bits (< sk->bits), in
 * @wide (every bucket at @bits, zeroed by the caller); the pages they
 * need marked in @need and the kind of cells that holds them in *@kind.
 */
static void collapse_sums(const struct vma_cycles_sketch *sk, unsigned int bits,
			  struct wcell *wide, bool *need, unsigned int *kind)
{
	uint32_t b, to;

	for (b = next_bucket(sk, 0); b < NPAGES * PAGE; b = next_bucket(sk, b + 1)) {
		to = bucket_of(bucket_lo(b, sk->bits), bits);
		wide[to].count += paged_count(sk, b);
		wide[to].sum += paged_sum(sk, b);
		need[to / PAGE] = true;
	}
	*kind = CELLS_TINY;
	for (b = 0; b < pages_of(bits) * PAGE; b++) {
		if (wide[b].count) {
			unsigned int k = kind_for(wide[b].count,
						  wide[b].sum - wide[b].count * bucket_lo(b, bits));

			*kind = k > *kind ? k : *kind;
		}
	}
}

bool vma_cycles_collapse(struct vma_cycles_sketch *sk, unsigned int bits,
			 struct vma_cycles_budget *bud)
{
	uint32_t nb = pages_of(bits) * PAGE, p, j, npages = 0;
	bool need[NPAGES] = { false };
	struct wcell *wide;
	unsigned int kind;
	unsigned char *cells;
	size_t old = (size_t)sk->npages * PAGE * cell_size(sk);

	if (bits >= sk->bits)
		return true;
	wide = calloc(nb, sizeof(*wide));
	if (!wide)
		return false;
	collapse_sums(sk, bits, wide, need, &kind);
	for (p = 0; p < pages_of(bits); p++)
		npages += need[p];
	cells = npages ? malloc(kind_size(kind) * PAGE * npages) : NULL;
	if (npages && !cells) {
		free(wide);
		return false;
	}
	memset(sk->page, 0, sizeof(sk->page));
	for (p = 0, npages = 0; p < pages_of(bits); p++) {
		if (!need[p])
			continue;
		sk->page[p] = (uint8_t)++npages;
		for (j = 0; j < PAGE; j++) {
			uint32_t b = p * PAGE + j;

			cell_store(cells, kind, (npages - 1) * PAGE + j, wide[b].count, wide[b].sum,
				   bucket_lo(b, bits));
		}
	}
	free(wide);
	free(sk->cells);
	sk->cells = cells;
	sk->npages = (uint8_t)npages;
	sk->kind = (uint8_t)kind;
	sk->bits = (uint8_t)bits;
	vma_cycles_credit(bud, old);
	vma_cycles_charge(bud, (size_t)npages * PAGE * kind_size(kind));
	return true;
}

/* Bytes the sketches on @b's list hold. */
static size_t sketch_bytes(const struct vma_cycles_budget *b)
{
	const struct vma_cycles_sketch *sk;
	size_t n = 0;

	for (sk = b->sketches; sk; sk = sk->next)
		n += sketch_held(sk);
	return n;
}

/*
 * One step tighter, on what holds the memory: while buckets (sketches,
 * compact forms) hold half of it or more (or exact arrays can give no
 * more), halve the buckets per power of two; otherwise exact arrays that
 * grow past half the exact limit give way.  Sketches collapse at once, to
 * 4 buckets at the coarsest; exact arrays become sketches, down to 128
 * samples.  That is the last level: the next step gives summaries the
 * compact form (as exact arrays grow past the limit, as sketches take
 * values), and those after it halve the exact limit down to 16 samples
 * and the compact forms' buckets down to 1 per power of two (each
 * collapses when it next takes a value).  Return: false when nothing can
 * give more (arrays of 16 samples, compact forms at 1 bucket per power
 * of two).
 */
static bool step(struct vma_cycles_budget *b)
{
	struct vma_cycles_sketch *sk;
	bool exact_can = b->exact_limit / 2 >= (b->compact ? EXACT_FLOOR_COMPACT : EXACT_FLOOR);
	bool sketch_can = b->bits > (b->compact ? 0 : SUB_BITS_MIN);

	if (!exact_can && !sketch_can) {
		if (b->compact)
			return false;
		b->compact = true;
		b->step++;
		return true;
	}
	if (b->step == 0) {
		b->reached_record = b->records ? *b->records : 0;
		b->reached_tsc = b->tsc ? *b->tsc : 0;
	}
	b->step++;
	/* Past the last level, halving the buckets shrinks the compact forms only. */
	if (!sketch_can ||
	    (exact_can && (b->compact ? b->compact_used : sketch_bytes(b)) < b->used / 2)) {
		if (b->exact_limit > VMA_CYCLES_EXACT_DEFAULT)
			b->exact_limit = VMA_CYCLES_EXACT_DEFAULT;
		b->exact_limit /= 2;
		return true;
	}
	b->bits--;
	for (sk = b->sketches; sk && !b->compact; sk = sk->next) {
		if (sk->bits > b->bits && vma_cycles_collapse(sk, b->bits, b))
			b->collapses++;
	}
	return true;
}

/*
 * What the summaries may hold: their limit, less what the owner's rows
 * hold past theirs (the floor vma_rows_force() grants), so that the two
 * parts of the budget hold the whole of it together while precision can
 * still be given up.
 */
static size_t summaries_limit(const struct vma_cycles_budget *b)
{
	const struct vma_rows_budget *r = &b->rows;
	size_t over = r->limit && r->used > r->limit ? r->used - r->limit : 0;

	return over < b->limit ? b->limit - over : 0;
}

/*
 * vma_cycles_settle() past @next_step: called where the summaries'
 * memory may have grown, between operations (no sketch half-updated),
 * it tightens while over the limit.  After a step that left the memory
 * over it (exact arrays and sketches give way only as they grow), the
 * next waits until the summaries grew by another 1/256 of the limit, so
 * that one burst of allocations does not spend every step (and the dozen
 * steps to the last level cost under 5% of the limit).
 */
void vma_cycles_tighten(struct vma_cycles_budget *b)
{
	size_t limit = summaries_limit(b);

	while (b->used > limit) {
		if (!step(b)) {
			b->next_step = SIZE_MAX; /* nothing more to give */
			return;
		}
		if (b->used > limit) {
			b->next_step = b->used + b->limit / 256;
			return;
		}
	}
	b->next_step = limit;
}

size_t vma_cycles_footprint(const struct vma_cycles *s)
{
	return held_bytes(s);
}

unsigned int vma_cycles_per_octave(const struct vma_cycles *s)
{
	if (is_compact(s))
		return 1u << s->u.compact->bits;
	return s->sketch ? 1u << s->u.sketch->bits : 0;
}

bool vma_rows_charge(struct vma_cycles_budget *b, size_t bytes)
{
	struct vma_rows_budget *r;

	if (!b)
		return true;
	r = &b->rows;
	/*
	 * Once a charge was refused, every later one is too: which keys get
	 * rows then depends on each table alone, not on which table asked
	 * first (records taken ahead of the merge rely on it, state/ahead.c).
	 */
	if (r->reached)
		return false;
	if (r->limit && (bytes > r->limit || r->used > r->limit - bytes)) {
		r->reached = true;
		r->reached_record = b->records ? *b->records : 0;
		r->reached_tsc = b->tsc ? *b->tsc : 0;
		return false;
	}
	r->used += bytes;
	r->charged += bytes;
	if (r->used > r->peak)
		r->peak = r->used;
	return true;
}

void vma_rows_force(struct vma_cycles_budget *b, size_t bytes)
{
	struct vma_rows_budget *r;

	if (!b)
		return;
	r = &b->rows;
	if (r->limit && (bytes > r->limit || r->used > r->limit - bytes))
		r->over += bytes;
	r->used += bytes;
	r->charged += bytes;
	if (r->used > r->peak)
		r->peak = r->used;
	/* Past their part, the rows take it from the summaries': tighten at their next charge. */
	if (r->limit && r->used > r->limit && b->limit && b->next_step != SIZE_MAX &&
	    b->next_step > summaries_limit(b))
		b->next_step = summaries_limit(b);
}

void vma_rows_fold(struct vma_cycles_budget *b)
{
	if (b)
		b->rows.folded++;
}

void vma_rows_credit(struct vma_cycles_budget *b, size_t bytes)
{
	if (b)
		b->rows.used -= bytes;
}

bool vma_rows_grow(struct vma_cycles_budget *b, void *arrp, size_t *cap, size_t nr, size_t size,
		   size_t min, bool *refused)
{
	size_t bytes = (*cap ? *cap : min) * size; /* what doubling (or the first array) adds */

	*refused = false;
	if (nr < *cap)
		return true;
	if (!vma_rows_charge(b, bytes)) {
		vma_rows_fold(b);
		*refused = true;
		return false;
	}
	if (vma_grow_bytes(arrp, cap, nr + 1, size, min)) {
		vma_rows_credit(b, bytes);
		return false;
	}
	return true;
}
