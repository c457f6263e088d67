/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cycle summaries: the accumulator behind every "count  seconds  avg
 * {p5|p50|p95}" line of the summary report, and behind --histogram.
 *
 * xenalyze keeps every sample of every summary (up to 32 Mi of them, 256 MiB
 * each); vmalyze cannot afford that with tens of thousands of summaries over
 * hundreds of millions of events.  A struct vma_cycles therefore has two
 * modes, and a third form for summaries past a memory budget's last level:
 *
 *  - exact: the first few non-zero values are kept as they are, in an array
 *    that doubles from 4 slots up to the exact limit (1024 by default).
 *    Percentiles are then computed from all the samples, with xenalyze's
 *    index rule, so small summaries (most of them in real traces) print the
 *    same numbers as xenalyze does.
 *  - sketch: the value that would overflow the exact limit turns the summary
 *    into a log-linear bucket sketch (HDR-histogram layout): values below
 *    128 have a bucket each; each power of two above has 64 buckets, so a
 *    bucket is at most 1/64 of its lower bound wide and its midpoint is
 *    within 0.79% of any value in it.  Each bucket holds a count and the
 *    exact sum of its values, so both count- and time-weighted percentiles
 *    land in the right bucket and are within 0.79% of the exact answer.
 *    Buckets are allocated 16 at a time, when a value first falls in
 *    one of them, so a narrow distribution or a few outliers cost a few
 *    pages, not every power of two between them.
 *  - compact: past its budget's last level (below), a summary is the list
 *    of its non-empty buckets at 4 buckets per power of two (2, then 1, as
 *    the budget tightens on), each with its count and the exact sum of its
 *    values, without a sketch's header: a sketch of the same buckets, with
 *    the same answers.  Its percentiles are the midpoint of the right
 *    bucket, clamped to [min, max]: within 12.5%, 25% and 50% of the exact
 *    answer at 4, 2 and 1 buckets per power of two, count- and
 *    time-weighted alike (with the sums, the bucket where the cumulative
 *    time crosses its target is found exactly, not estimated).
 *
 * Memory: sizeof(struct vma_cycles) is 40 bytes on LP64, and a zero-filled
 * struct is a valid empty summary that owns nothing.  An exact summary
 * keeps its first two samples inside the struct while they fit in 32 bits
 * (most summaries of a large host never get more), then adds 4 bytes per
 * slot (8 once a sample needs more than 32 bits); its capacity is the
 * smallest of 4, 6, 8, 12, 16, 24, ... (powers of two and 1.5 times them)
 * >= its count: 16 B for 3..4 values, 4 KiB at the default limit.  A
 * sketch costs 408 bytes plus a page of 16 adjacent buckets for each page
 * holding at least one value (up to 8 pages per power of two): 64 bytes a
 * page while every bucket holds fewer than 2048 values whose offsets in
 * their bucket sum below 2^21, then 128 bytes a page, and 256 in the rare
 * sketch whose 24-bit counts or 40-bit sums would overflow; whatever the
 * number of events, a sketch is at most 408 + 236 * 256 bytes.  A compact
 * summary costs 24 bytes and 4 per non-empty bucket while every bucket
 * holds fewer than 128 values whose offsets in it sum below 2^17, then 8
 * (2^20 values, 2^36), and 16 in the rare one past those, with room for
 * up to three more: set by the range of its values, never by their number
 * (values over 8 powers of two: 24 + 4 * 32 bytes at 4 buckets per power
 * of two, 24 + 4 * 8 at 1), at most 24 + 252 * 16.
 *
 * A memory budget (struct vma_cycles_budget, below) bounds what all the
 * summaries of one owner (a machine) hold together.  Every allocation of
 * an exact array, a sketch or a page of buckets is charged to it and
 * every release credited; when the total would pass its limit, precision
 * is given up instead of memory: sketches collapse (pairs of adjacent
 * buckets merged, 64 -> 32 -> 16 -> 8 -> 4 buckets per power of two, each
 * level doubling the error bound: 0.79%, 1.57%, 3.13%, 6.25%, 12.5%), and
 * exact arrays that must grow past a lowered limit (512, 256, 128) become
 * sketches.  That is the last level: a sketch's header and a page are no
 * smaller than 128 exact samples.  Past it, summaries take the compact
 * form: exact arrays as they grow past the limit, sketches as they next
 * take values; then the exact limit goes on halving (64, 32, 16: below,
 * an array is no larger than a compact form) and the compact forms'
 * buckets go to 2, then 1 per power of two (25%, 50%).
 * Events, counts, sums, minimum and maximum stay exact at every level.
 * Below the limit nothing differs from a summary without a budget.  The
 * same budget holds the limit of the owner's tables of rows (struct
 * vma_rows_budget), whose summaries these are.
 *
 * Adding to a sketch is batched (see cycles.c); the batch is part of the
 * summary's state and every function below accounts for it.
 *
 * Events and counts (xenalyze's event_count and count): every call of
 * vma_cycles_add() is an event; only those with non-zero cycles are counted,
 * summed and sampled.  So zero-cycle events appear in xenalyze's exit/handler
 * lines (PRINT_SUMMARY prints event_count and divides the cycles by count)
 * but are invisible in runstate-style lines (print_cycle_summary prints
 * count, and only when it is non-zero).  The mean is cycles / count with
 * integer division (truncation), 0 when count is 0.
 *
 * Percentiles, xenalyze's two kinds, both from the same structure:
 *  - by count (its percentile(), used for exit reasons, handlers, I/O, cpu
 *    affinity): of the N non-zero samples sorted ascending, the one at
 *    0-based index floor(N * p / 100).
 *  - by time (its self_weighted_percentile(), used for runstates, guest
 *    interrupts, per-pcpu times, the hvm short summary): each sample
 *    weighted by its own value, i.e. "the duration at or below which p% of
 *    the time was spent".  vmalyze returns the smallest sample whose
 *    cumulative weight (samples sorted ascending, itself included) exceeds
 *    floor(W * p / 100), W the sum (the same target xenalyze computes).
 *    xenalyze's routine itself does not find a well-defined order
 *    statistic: the running weight it keeps for its right-hand cursor is
 *    off by the value that sat last in the array on entry, so its answer
 *    depends on the arrival order of the samples and on the percentiles
 *    asked before (p50, then p5, then p95 on the same array, reordered in
 *    place).  On the Xen traces in ../shared it differs from the weighted
 *    percentile in 233 of 408 values (e.g. a p50 of 1939734 where the
 *    weighted one is 293634).  vmalyze's time percentiles are therefore
 *    correct rather than equal to xenalyze's; its count percentiles are
 *    equal to xenalyze's while the summary is exact.
 * A summary with no non-zero sample returns 0 for every percentile.
 *
 * Interval output (xenalyze's struct interval_element, count and cycles
 * since the last interval) needs no field here: count and cycles only grow,
 * so an interval reporter keeps a copy of both at the start of an interval
 * and prints the difference.
 *
 * Not thread-safe; one writer.  No I/O, no globals, no options: policies
 * (the exact limit, the histogram resolution) are arguments.
 */
#ifndef VMALYZE_CYCLES_H
#define VMALYZE_CYCLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Default and bounds of the exact limit (non-zero samples kept as they are). */
#define VMA_CYCLES_EXACT_DEFAULT 1024u
#define VMA_CYCLES_EXACT_MAX (1u << 24)

/* Sketch resolution: buckets per power of two (relative width 1/64). */
#define VMA_CYCLES_SKETCH_SUB 64u
/* The coarsest a budget collapses sketches to: 4 buckets per power of two. */
#define VMA_CYCLES_SKETCH_SUB_MIN 4u

struct vma_cycles_sketch;
struct vma_cycles_compact;
struct vma_cycles_pool;

/*
 * struct vma_rows_budget - what the tables of rows of one owner may hold.
 *
 * The state's tables whose size grows with the distinct keys a trace
 * shows (a vcpu's exit reasons and refinements, injected vectors and
 * their wake-to-halt summaries, the pcpus it ran on, PV hypercall and
 * trap numbers, a domain's emulated EIPs, CR3s and interrupted EIPs)
 * charge the bytes they allocate for rows (their room, with their
 * indexes) with vma_rows_charge() and credit them when freed.  Past
 * @limit a charge is refused, and so is every charge after it (@reached:
 * a small table's growth granted after a larger one's was refused would
 * make a key's row depend on which table grew first), and the table sums
 * the new key in its "other" row instead: counts, sums, minimum and
 * maximum stay exact, only the split into rows is coarser.  A full table
 * makes its least used row of the kind the "other" one (it costs
 * nothing); else the "other" row is granted with vma_rows_force(),
 * counted in @over, as a vcpu's first exit reasons are: the floor, a few
 * hundred bytes a vcpu.  What the rows hold past @limit comes out of the
 * summaries' limit (struct vma_cycles_budget), so that the two parts hold
 * the whole budget together.  Rows never give memory back, so a key refused
 * once stays in "other".  The checks are where a table grows, never per
 * record.
 */
struct vma_rows_budget {
	size_t limit;         /* bytes; 0: no limit (charged, never refused) */
	size_t used;          /* bytes the tables charged to it hold now */
	size_t peak;          /* the most they held at once */
	size_t over;          /* bytes granted past @limit (the floor), in all */
	uint64_t folded;      /* events summed in an "other" row after a refusal */
	bool reached;         /* a charge was refused */
	/* Where the owner's clock (vma_cycles_budget's) stood at the first refusal. */
	uint64_t reached_record, reached_tsc;
	/*
	 * The tables' own caps on keys (VMA_MAX_SUBS) are lifted: the part
	 * after a seam keeps each key, and joining it to the part before
	 * applies them as one run would have (state.h).
	 */
	bool uncapped;
	uint64_t charged;     /* bytes ever granted (credits not taken off) */
};

/*
 * struct vma_cycles_budget - what the summaries of one owner may hold.
 *
 * The owner (a machine) keeps one and passes it to every call that may
 * allocate or free for its summaries (add, merge, release); a summary is
 * charged to one budget, or to none (NULL: no limit, no accounting), for
 * its whole life.  The limit is checked only where memory is allocated,
 * never on the per-value path.  The summaries may hold @limit, less what
 * the owner's rows hold past their own limit (@rows, the floor
 * vma_rows_force() grants): the two parts of the budget share the whole of
 * it while precision can be given up.  When a charge takes @used past
 * that, the budget tightens one step, on what holds the memory: while
 * sketches hold half of it or more, every sketch charged to it collapses
 * to half its buckets per power of two (down to VMA_CYCLES_SKETCH_SUB_MIN)
 * and new sketches start there; otherwise @exact_limit halves (1024 ->
 * 512 -> 256 -> 128) and an exact array that must grow past it becomes a
 * sketch.  A step that leaves @used over that is followed by another only once
 * the summaries grew by a further 1/256 of it.  When neither can give more
 * (exact arrays at 128 samples, sketches at 4 buckets: the last level),
 * the next step sets @compact: summaries past the exact limit take the
 * compact form, and the steps after it halve @exact_limit down to 16 and
 * the compact forms' buckets (@bits) down to 1 per power of two.  When
 * nothing can give more, allocations are still granted (@peak then passes
 * @limit): a summary's floor is an exact array of 16 samples, or a compact
 * form of 24 bytes and 4 to 16 per non-empty bucket at 1 per power of two
 * (a summary that takes no more values keeps its form and buckets).
 *
 * Not thread-safe: one owner, one writer.  Fields are read-only outside
 * cycles.c, except @records and @tsc, which the owner may point at its
 * own clock so that the budget can say when it was first reached, and
 * @rows.limit, which the owner sets after vma_cycles_budget_init() (0,
 * no limit, until it does).
 */
struct vma_cycles_budget {
	size_t limit;         /* bytes; 0: no limit (charged, never tightened) */
	size_t used;          /* bytes the summaries charged to it hold now */
	size_t peak;          /* the most they held at once */
	uint32_t exact_limit; /* exact arrays grow to at most this many samples */
	uint8_t bits;         /* 2^bits buckets per power of two (below 4: compact forms) */
	uint8_t step;         /* times the budget tightened: 0 while never reached */
	size_t next_step;     /* tighten when @used passes this */
	uint64_t early;       /* exact summaries made sketches before their own limit */
	uint64_t collapses;   /* sketches collapsed to a coarser resolution */
	bool compact;         /* past the last level: summaries take the compact form */
	uint64_t compacts;    /* summaries made compact */
	size_t compact_used;  /* bytes the compact forms charged to it hold (in @used) */
	/* Where the owner's clock stood when the limit was first reached. */
	uint64_t reached_record, reached_tsc;
	const uint64_t *records, *tsc; /* borrowed: the owner's clock, NULL: none */
	struct vma_cycles_sketch *sketches; /* the sketches charged to it, a list */
	/*
	 * Nothing will be read of the summaries but their events, counts and
	 * sums (no report is built: -a alone): they keep no samples at all.
	 */
	bool counts_only;
	struct vma_rows_budget rows; /* the owner's tables of rows, on the same clock */
	/* Where the summaries' exact arrays are kept (cycles-pool.c), made at the first. */
	struct vma_cycles_pool *pool;
	bool no_pool; /* none could be made, or the budget is too small for one */
	uint64_t charged; /* bytes ever charged (credits not taken off) */
};

/* The budget vmalyze gives a machine's summaries unless told otherwise (28 MiB). */
#define VMA_CYCLES_BUDGET_DEFAULT ((size_t)28 << 20)
/* ... and its tables of rows (struct vma_rows_budget, 4 MiB). */
#define VMA_ROWS_BUDGET_DEFAULT ((size_t)4 << 20)

/* vma_cycles_budget_init - an empty budget of @limit bytes (0: no limit), no clock. */
void vma_cycles_budget_init(struct vma_cycles_budget *b, size_t limit);

/*
 * vma_cycles_budget_release - free what @b itself holds (the pool of its
 * summaries' exact arrays), once every summary charged to it is released.
 */
void vma_cycles_budget_release(struct vma_cycles_budget *b);

/*
 * vma_rows_charge - a table of rows charged to @b's rows wants @bytes more.
 * Return: true (charged; also when @b is NULL or has no row limit), or
 * false when that would pass the limit: nothing is charged, the caller
 * puts the key in its "other" row, and tells vma_rows_fold().
 */
bool vma_rows_charge(struct vma_cycles_budget *b, size_t bytes);

/* The same for an "other" row: always charged, past the limit too (@b may be NULL). */
void vma_rows_force(struct vma_cycles_budget *b, size_t bytes);

/* An event of a key whose row was refused went to an "other" row (@b may be NULL). */
void vma_rows_fold(struct vma_cycles_budget *b);

/* @bytes charged before are freed (@b may be NULL). */
void vma_rows_credit(struct vma_cycles_budget *b, size_t bytes);

/*
 * vma_rows_grow - room for one more element (@nr in use) in *@arrp, a table
 * of rows of @b whose capacity *@cap doubles from @min (vma_grow_bytes()),
 * the growth charged first.  Return: true with room; false when the rows'
 * budget refused it (*@refused set, counted by vma_rows_fold(): the caller
 * leaves the key out) or memory ran out (nothing charged).
 */
bool vma_rows_grow(struct vma_cycles_budget *b, void *arrp, size_t *cap, size_t nr, size_t size,
		   size_t min, bool *refused);

/* True once a charge was refused: some rows of the owner are "other" rows. */
static inline bool vma_rows_reached(const struct vma_cycles_budget *b)
{
	return b->rows.reached;
}

/* Buckets per power of two the budget's sketches have now (64 until it tightens). */
static inline unsigned int vma_cycles_budget_per_octave(const struct vma_cycles_budget *b)
{
	return 1u << b->bits;
}

/*
 * vma_cycles_error_bound - the relative error of a sketch's quantiles at
 * @per_octave buckets per power of two: 1 / (2 * per_octave), 0.0078125
 * at 64 (documented, rounded up, as 0.79%).
 */
static inline double vma_cycles_error_bound(unsigned int per_octave)
{
	return per_octave ? 0.5 / per_octave : 0.0;
}

struct vma_cycles {
	uint64_t events; /* every vma_cycles_add(), zero cycles included */
	uint64_t count;  /* those with non-zero cycles */
	uint64_t cycles; /* their sum */
	/* The rest is private to cycles.c. */
	union {
		uint32_t *exact32;                /* exact mode, 32-bit: min(count, cap) samples */
		uint64_t *exact64;                /* exact mode, 64-bit */
		uint32_t inl[2];                  /* exact mode, inline: up to two samples */
		struct vma_cycles_sketch *sketch; /* sketch mode */
		struct vma_cycles_compact *compact; /* compact form (past a budget's last level) */
	} u;
	/*
	 * Exact mode: samples in u.exact32, u.exact64 or u.inl (@form).  The
	 * array has room for max(4, n rounded up to a power of two or 1.5
	 * times one) samples, so no capacity field is needed: it is full when
	 * n >= 4 is such a number.
	 * Sketch mode: values added but not yet inserted into the buckets.
	 */
	uint32_t n;
	uint8_t limit_code : 7; /* 0: default exact limit; else 1 << (limit_code - 1) */
	uint8_t sorted : 1;     /* exact mode: the samples are in ascending order */
	uint8_t sketch;     /* true once in sketch mode */
	uint8_t form;       /* exact mode: 32-bit array, 64-bit array or inline; or compact */
	uint8_t failed;     /* an allocation failed: some samples were dropped */
};

enum vma_cycles_weight {
	VMA_CYCLES_BY_COUNT, /* every sample weighs 1 (xenalyze percentile()) */
	VMA_CYCLES_BY_TIME,  /* every sample weighs its value (self_weighted_percentile()) */
};

/**
 * vma_cycles_init - make @s an empty summary with an exact limit.
 * @s: the summary (its previous contents are not freed).
 * @exact_limit: how many non-zero samples to keep exactly before switching to
 *	the sketch; 0 means VMA_CYCLES_EXACT_DEFAULT.  Rounded up to a power of
 *	two and clamped to [4, VMA_CYCLES_EXACT_MAX].
 *
 * A zero-filled struct is the same as vma_cycles_init(s, 0).
 */
void vma_cycles_init(struct vma_cycles *s, uint32_t exact_limit);

/**
 * vma_cycles_release - free what @s owns and make it empty again.
 * @s: the summary; it keeps its exact limit and may be used again.
 * @b: the budget @s is charged to (credited), or NULL.
 */
void vma_cycles_release(struct vma_cycles *s, struct vma_cycles_budget *b);

/**
 * vma_cycles_add - account one event of @cycles cycles.
 * @s: the summary.
 * @cycles: duration of the event; 0 counts as an event only.
 * @b: the budget @s is charged to, or NULL.
 *
 * The hot path: no allocation except when the exact array doubles (a few
 * times per summary) or the sketch first sees a new page of buckets, no
 * division; the budget is looked at only then.  Allocation failure is
 * sticky and silent here: the event is still counted and summed but not
 * sampled; vma_cycles_failed() tells.
 */
void vma_cycles_add(struct vma_cycles *s, uint64_t cycles, struct vma_cycles_budget *b);

/**
 * vma_cycles_merge - add everything accounted in @src to @dst.
 * @dst: the summary to grow (keeps its own exact limit).
 * @src: another summary, unchanged; must not be @dst.
 * @b: the budget @dst is charged to, or NULL.
 *
 * The result is the same as if every event of @src had been added to @dst
 * (for sketches: the same buckets; for exact samples: the same multiset),
 * at the coarser of the two resolutions: a sketch merged with a collapsed
 * one is collapsed as far, and anything merged with a compact summary (or
 * into a summary of a budget past its last level) is compact, so that any
 * grouping and order of merges gives the same buckets in the same form.
 * Return: 0, or VMA_ERR_NOMEM when samples had to be
 * dropped (the counters are merged all the same, and
 * vma_cycles_failed(@dst) becomes true).
 */
int vma_cycles_merge(struct vma_cycles *dst, const struct vma_cycles *src,
		     struct vma_cycles_budget *b);

/**
 * vma_cycles_count - account one event in the counters only, keep no sample.
 * @s: the summary.
 * @cycles: duration of the event.
 *
 * For a summary whose samples are also added to exactly one of several
 * other summaries (its parts: the handlers of an exit reason, the kinds of
 * a runstate): counting instead of adding saves the cost of a sample, and
 * vma_cycles_merge_samples() brings the parts' samples in once they are
 * all there.  Until then the summary's quantiles, minimum, maximum and
 * histogram do not see the event, as if its sample had been dropped.
 */
static inline void vma_cycles_count(struct vma_cycles *s, uint64_t cycles)
{
	s->events++;
	if (cycles) {
		s->count++;
		s->cycles += cycles;
	}
}

/*
 * struct vma_cycles_counts - the counters alone of a summary whose samples
 * its parts keep, all of them (an exit reason's are its refinements'):
 * 24 bytes instead of a summary's 40.  vma_cycles_of_counts() makes it a
 * summary without samples, for vma_cycles_merge() and
 * vma_cycles_merge_samples() to complete from the parts.
 */
struct vma_cycles_counts {
	uint64_t events, count, cycles;
};

/* vma_cycles_count() for @c. */
static inline void vma_cycles_counts_add(struct vma_cycles_counts *c, uint64_t cycles)
{
	c->events++;
	if (cycles) {
		c->count++;
		c->cycles += cycles;
	}
}

/* A summary of @c's counters that holds no sample and owns nothing. */
static inline struct vma_cycles vma_cycles_of_counts(const struct vma_cycles_counts *c)
{
	struct vma_cycles s;

	memset(&s, 0, sizeof(s));
	s.events = c->events;
	s.count = c->count;
	s.cycles = c->cycles;
	return s;
}

/**
 * vma_cycles_merge_samples - add the samples of @src to @dst, not its counters.
 * @dst: a summary whose counters already account for @src's events
 *	(see vma_cycles_count()).
 * @src: another summary, unchanged; must not be @dst.
 *
 * Once @dst holds a sample for every non-zero event it counted, it is the
 * same summary as if every event had been added to it.
 * Return: 0, or VMA_ERR_NOMEM when samples had to be dropped
 * (vma_cycles_failed(@dst) becomes true).
 */
int vma_cycles_merge_samples(struct vma_cycles *dst, const struct vma_cycles *src,
			     struct vma_cycles_budget *b);

/**
 * vma_cycles_coarsen - make @s a sketch of at most @per_octave buckets per
 * power of two (an exact summary becomes a sketch; a finer sketch collapses;
 * a compact summary stays one, already at 4 or fewer).
 * @per_octave: 64, 32, 16, 8 or 4 (others are rounded down, within them).
 * @b: the budget @s is charged to, or NULL.
 * Return: 0, or VMA_ERR_NOMEM (@s is unchanged).
 */
int vma_cycles_coarsen(struct vma_cycles *s, unsigned int per_octave,
		       struct vma_cycles_budget *b);

/**
 * vma_cycles_compact - give @s the compact form at at most @per_octave
 * buckets per power of two (4, 2 or 1; others are rounded down, within
 * them), what a budget does past its last level.
 * @b: the budget @s is charged to, or NULL.
 * Return: 0, or VMA_ERR_NOMEM (@s is unchanged).
 */
int vma_cycles_compact(struct vma_cycles *s, unsigned int per_octave,
		       struct vma_cycles_budget *b);

/* Buckets per power of two of @s's sketch or compact form; 0 while @s is exact. */
unsigned int vma_cycles_per_octave(const struct vma_cycles *s);

/* Bytes @s holds besides its own struct: what it is charged to its budget. */
size_t vma_cycles_footprint(const struct vma_cycles *s);

/**
 * vma_cycles_quantile - a count- or time-weighted quantile num/den.
 * @s: the summary; in exact mode its samples may be reordered (sorted).
 * @weight: VMA_CYCLES_BY_COUNT or VMA_CYCLES_BY_TIME.
 * @num: numerator, e.g. 95 of 95/100 or 999 of 999/1000.
 * @den: denominator, not 0.
 *
 * The rank (or target weight) is floor(total * num / den), computed without
 * overflow; num >= den gives the maximum.  Exact when vma_cycles_is_exact(),
 * otherwise the midpoint of the right bucket, clamped to [min, max], within
 * 0.79% of the exact answer (vma_cycles_error_bound() of the sketch's or
 * compact form's vma_cycles_per_octave() once it has collapsed: 12.5%,
 * 25%, 50% at 4, 2, 1).  Nothing is allocated.
 * Return: the cycles value, 0 when @s has no non-zero sample.
 */
uint64_t vma_cycles_quantile(struct vma_cycles *s, enum vma_cycles_weight weight,
			     uint32_t num, uint32_t den);

/* The most quantiles vma_cycles_quantiles() answers in one walk. */
#define VMA_CYCLES_QUANTILES_MAX 8u

/**
 * vma_cycles_quantiles - vma_cycles_quantile() of @n numerators @num (of
 * @den) at once, into @out: one walk of the samples or buckets for all,
 * when the numerators ascend and are at most VMA_CYCLES_QUANTILES_MAX
 * (else one at a time); the values are vma_cycles_quantile()'s.
 */
void vma_cycles_quantiles(struct vma_cycles *s, enum vma_cycles_weight weight,
			  const uint32_t *num, uint32_t n, uint32_t den, uint64_t *out);

/**
 * vma_cycles_percentile - count-weighted percentile @pct (xenalyze's rule).
 * Return: see vma_cycles_quantile().
 */
static inline uint64_t vma_cycles_percentile(struct vma_cycles *s, unsigned int pct)
{
	return vma_cycles_quantile(s, VMA_CYCLES_BY_COUNT, pct, 100);
}

/**
 * vma_cycles_time_percentile - time-weighted percentile @pct: the duration
 * at or below which @pct percent of the summed cycles were spent.
 * Return: see vma_cycles_quantile().
 */
static inline uint64_t vma_cycles_time_percentile(struct vma_cycles *s, unsigned int pct)
{
	return vma_cycles_quantile(s, VMA_CYCLES_BY_TIME, pct, 100);
}

/* Mean of the non-zero samples, truncated as xenalyze does; 0 when none. */
static inline uint64_t vma_cycles_mean(const struct vma_cycles *s)
{
	return s->count ? s->cycles / s->count : 0;
}

/* Smallest / largest non-zero sample kept; 0 when none. */
uint64_t vma_cycles_min(const struct vma_cycles *s);
uint64_t vma_cycles_max(const struct vma_cycles *s);

/* True while every non-zero sample is held exactly (percentiles are exact). */
bool vma_cycles_is_exact(const struct vma_cycles *s);

/* True once @s has the compact form (past its budget's last level, or merged with one). */
bool vma_cycles_is_compact(const struct vma_cycles *s);

/* True when an allocation failure made @s drop samples (not counters). */
static inline bool vma_cycles_failed(const struct vma_cycles *s)
{
	return s->failed;
}

/**
 * struct vma_cycles_bin - one bar of a log-scale histogram.
 * @lo: smallest value of the bin.
 * @hi: one past its largest value (UINT64_MAX for the bin that ends at 2^64).
 * @count: samples in [lo, hi).
 * @cycles: their sum.
 */
struct vma_cycles_bin {
	uint64_t lo;
	uint64_t hi;
	uint64_t count;
	uint64_t cycles;
};

/**
 * vma_cycles_histogram - log-scale histogram of the non-zero samples.
 * @s: the summary (not changed).
 * @per_octave: bins per power of two: 1, 2, 4, 8, 16, 32 or 64 (other
 *	values are rounded down to one of these), at most the sketch's or
 *	compact form's own vma_cycles_per_octave() once it has collapsed.
 *	Octaves narrower than that get one bin per integer.
 * @bins: set to a malloc()ed array, owned by the caller (free()); NULL when
 *	there are no bins.
 * @nbins: set to the number of bins: every bin from the one holding the
 *	minimum to the one holding the maximum, empty ones included.
 *
 * Bins are unions of sketch buckets, so counts and sums are exact in every
 * form and add up to the summary's samples.
 * Return: 0, or VMA_ERR_NOMEM.
 */
int vma_cycles_histogram(const struct vma_cycles *s, unsigned int per_octave,
			 struct vma_cycles_bin **bins, size_t *nbins);

/**
 * vma_cycles_spread - the standard deviation of the non-zero samples,
 * rounded, from the finest histogram (vma_cycles_histogram() at 64 bins
 * per octave, each bin at the exact mean of its samples): exact while a
 * summary is exact and its bins hold one value each, within a bin's width
 * otherwise.  0 with fewer than two samples, or out of memory.
 */
uint64_t vma_cycles_spread(const struct vma_cycles *s);

/**
 * struct vma_cycles_image - a summary laid out for storage (cycles-merge.c).
 * @events, @count, @cycles: the summary's counters.
 * @exact_limit: its exact limit (a power of two).
 * @exact: true when @samples holds every non-zero sample; otherwise the
 *	summary is a sketch or a compact form and @bins holds its non-empty
 *	buckets.
 * @compact: the summary has the compact form (vma_cycles_is_compact()).
 * @per_octave: buckets per power of two of a sketch (64 .. 4) or compact
 *	form (4, 2, 1) (vma_cycles_per_octave()); 0 when exact.
 * @min, @max: smallest and largest non-zero sample; 0 when none.
 * @samples, @nr_samples: exact mode, in the summary's order.
 * @bins, @nr_bins: sketch mode, ascending; each bin is one sketch bucket
 *	(vma_cycles_histogram() at @per_octave bins per octave).
 *
 * Everything a summary's results depend on: a summary imported from its
 * image has the same counters, quantiles, minimum, maximum and histogram,
 * and merges into others as the original would.
 */
struct vma_cycles_image {
	uint64_t events, count, cycles;
	uint32_t exact_limit;
	bool exact;
	bool compact;
	unsigned int per_octave;
	uint64_t min, max;
	uint64_t *samples;
	size_t nr_samples;
	struct vma_cycles_bin *bins;
	size_t nr_bins;
};

/*
 * vma_cycles_export - fill @img from @s (allocates; vma_cycles_image_release()).
 * Return: 0; VMA_ERR_NOMEM, also when @s had dropped samples
 * (vma_cycles_failed()); VMA_ERR_FORMAT when @s counted events whose
 * samples it never got (vma_cycles_count() without the parts merged):
 * such summaries cannot be stored exactly.
 */
int vma_cycles_export(const struct vma_cycles *s, struct vma_cycles_image *img);
void vma_cycles_image_release(struct vma_cycles_image *img);

/*
 * vma_cycles_import - make @s (released first; charged to no budget) the
 * summary @img describes.
 * Return: 0; VMA_ERR_FORMAT when @img is inconsistent (counters that
 * disagree with the samples or buckets, buckets that are not the sketch's
 * at its resolution, an exact image above its limit); VMA_ERR_NOMEM.
 * A sketch may hold fewer samples than its limit: a budget made it early.
 */
int vma_cycles_import(struct vma_cycles *s, const struct vma_cycles_image *img);

#endif /* VMALYZE_CYCLES_H */
