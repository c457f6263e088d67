/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Time-ordered merge of per-pcpu streams (see merge.h for the contract).
 *
 * The stream that delivered the last record is kept aside; the others wait
 * in order of their current record: time stamp, then pcpu, then insertion
 * order.  Their keys are copied out of the streams, so comparisons read
 * one small array.  When the stream aside has a next record no later than
 * the first waiting one, it is delivered straight away: that is both the
 * tie-break and the common case (runs of records from one pcpu), and costs
 * one comparison.  Otherwise the stream aside joins the waiting ones and
 * the first of them is set aside.
 *
 * The waiting streams are kept in a tournament tree of losers: its bottom
 * row holds the streams (one slot each), every node the loser of the
 * match played there, the root the first stream.  The stream that joins
 * takes the first stream's slot and the matches on that slot's path are
 * replayed: one comparison per level, against losers whose places are
 * known in advance, so that their loads overlap and only the comparisons
 * chain, with no branch to mispredict.  (A sorted array, cheaper to take
 * from, costs more for two to sixteen pcpus than the tree: where the
 * joining stream goes is a guess the processor gets wrong.)
 *
 * A match compares one 64-bit key: the stamp (less a base, the earliest
 * stamp in play when streams last joined) shifted left by a few bits,
 * and in those bits the stream's rank among the streams in play by
 * (pcpu, insertion order), so the whole tie-break is one unsigned
 * comparison.  The ranks and the base are dealt when streams join.  A
 * stamp out of the keys' range (before the base, or years past it: a
 * damaged file) turns the tree to wide nodes, the stamp and the leaf
 * compared in two steps, until streams join again.  With one stream
 * waiting (two pcpus) no match is played at all (swap_first()).
 *
 * The stream aside's records that need no match at all (stamped from
 * the last one delivered up to the first waiting stream's) form a run
 * that a caller may read itself, calling the stream's next(); it hands
 * the first record out of the run back (vma_merge_next_from()), which
 * then goes on as if the merge had read it (merge.h).
 *
 * Streams added by vma_merge_add() wait in a list until the next call of
 * vma_merge_next() takes them in, so a stream that a reader announces from
 * inside another stream's next() joins at a safe point.  A paused stream
 * added again takes back its leaf (its place in the tie-break and its
 * offset): a live pipe's pcpus may pause every few seconds for days, and
 * the leaves stay one per stream.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/grow.h"
#include "vmalyze/merge.h"
#include "vmalyze/status.h"

/* Leaf 0 stands for an empty slot: it sorts after every stream. */
#define EMPTY 0u

/* The leaf number is the insertion order, the last tie-break. */
struct leaf {
	uint64_t tsc;              /* of the stream's current record */
	uint32_t pcpu;             /* the tie-break rank: the pcpu, unless ranked otherwise */
	uint32_t slot;             /* in the tree's bottom row, while in the tree */
	uint32_t rank;             /* by (pcpu, leaf) among the streams in play: a key's low bits */
	uint32_t rejoining;        /* paused, added again, not waiting yet */
	struct vma_stream *stream;
};

/* A node of the wide tree: the stream that lost the match played there, and its stamp. */
struct node {
	uint64_t tsc;
	uint32_t leaf;
	uint32_t unused;
};

/* The key of an empty slot: above every stream's (ranks stop below the all-ones rank). */
#define EMPTY_KEY UINT64_MAX

struct vma_merge {
	struct leaf *leaf;         /* nr_leaves: EMPTY, then every stream added */
	uint32_t nr_leaves;
	size_t cap_leaves;
	uint32_t *slot;            /* width slots: the leaf waiting there, or EMPTY */
	/* Wide tree: node[1..width) the losers' leaves and stamps. */
	struct node *node;
	/* Keyed tree (!wide): key[1..width) the losers' keys. */
	uint64_t *key;
	uint32_t *rank_leaf;       /* 4 * width: the leaf of each rank; the all-ones rank EMPTY */
	uint32_t nr_ranked;        /* ranks dealt, from 0 */
	uint64_t *win;             /* width: rebuild()'s winners */
	uint64_t base;             /* a key is (tsc - base) << rank_bits | rank */
	unsigned int rank_bits;
	unsigned int range_bits;   /* 64 - rank_bits: tsc - base must be below 2^range_bits */
	uint64_t rank_mask;        /* (1 << rank_bits) - 1: a key's rank */
	bool wide;                 /* a stamp did not fit in a key: wide nodes until a join */
	uint32_t width;            /* slots, a power of two, at least 2 */
	uint32_t waiting;          /* streams waiting */
	uint32_t top;              /* leaf of the first one; EMPTY if none */
	uint64_t top_tsc;          /* its time stamp; UINT64_MAX if none */
	uint32_t current;          /* leaf of the last delivered record */
	struct vma_stream *current_stream; /* its stream */
	bool have_current;
	uint32_t joined;           /* leaves [joined, nr_leaves) do not wait yet */
	uint32_t *rejoin;          /* nr_rejoin leaves of paused streams added again, not waiting yet */
	uint32_t nr_rejoin;
	size_t cap_rejoin;
	uint64_t last_tsc;
	uint64_t late;
	struct vma_merge_run run;  /* the run open_run() opened; its @last is the latest stamp */
	int error;                 /* first stream failure, reported once */
	bool pcpu_ties;            /* equal stamps go by pcpu even for the stream aside */
	/* with pcpu_ties: a stream is aside (have_current stays false) */
	bool kvm_held;
	struct vma_stream *ended[2]; /* ended since the caller last asked */
	unsigned int nr_ended;
	vma_merge_ended_fn on_ended; /* NULL: ends kept in ended[] */
	void *ended_arg;
	/*
	 * Offsets added to the streams' time stamps (vma_merge_shift), by
	 * leaf; NULL until the first.  Kept apart so that a leaf stays 32
	 * bytes: the fast path indexes leaves with a shift.
	 */
	uint64_t *offset;
	size_t cap_offset;
	bool shifted;              /* some stream has an offset */
	/* joined < nr_leaves || nr_rejoin || shifted: the one test of the fast path besides rc */
	bool slow;
};

/* The stream of leaf @l read a record: its time stamp with the leaf's offset. */
static inline void shift(struct vma_merge *m, uint32_t l)
{
	if (__builtin_expect(m->shifted, 0) && l < m->cap_offset)
		m->leaf[l].stream->rec.tsc += m->offset[l];
}

/* Room for the offsets of @n leaves, the new ones 0. */
static bool offsets_room(struct vma_merge *m, size_t n)
{
	size_t old = m->cap_offset;

	if (vma_grow(m->offset, &m->cap_offset, n, 8))
		return false;
	memset(m->offset + old, 0, (m->cap_offset - old) * sizeof(*m->offset));
	return true;
}

void vma_merge_shift(struct vma_merge *m, uint32_t pcpu, int64_t offset)
{
	uint32_t i;

	if (!offsets_room(m, m->nr_leaves))
		return; /* out of memory: the stamps stay as they are */
	for (i = 1; i < m->nr_leaves; i++) {
		if (m->leaf[i].pcpu == pcpu) {
			m->offset[i] = (uint64_t)offset;
			m->shifted = m->slow = true;
			m->run.stream = NULL;
		}
	}
}

struct vma_merge *vma_merge_create(void)
{
	struct vma_merge *m = calloc(1, sizeof(struct vma_merge));

	if (!m)
		return NULL;
	m->leaf = malloc(8 * sizeof(*m->leaf));
	if (!m->leaf) {
		free(m);
		return NULL;
	}
	m->leaf[EMPTY] = (struct leaf){ .tsc = UINT64_MAX, .pcpu = UINT32_MAX };
	m->nr_leaves = m->joined = 1;
	m->cap_leaves = 8;
	m->top_tsc = UINT64_MAX;
	return m;
}

void vma_merge_destroy(struct vma_merge *merge)
{
	if (!merge)
		return;
	free(merge->leaf);
	free(merge->slot);
	free(merge->node);
	free(merge->key);
	free(merge->rank_leaf);
	free(merge->win);
	free(merge->offset);
	free(merge->rejoin);
	free(merge);
}

/* Leaf @a sorts before leaf @b. */
static inline bool before(const struct vma_merge *m, uint32_t a, uint32_t b)
{
	const struct leaf *la = &m->leaf[a], *lb = &m->leaf[b];

	if (__builtin_expect(la->tsc != lb->tsc, 1))
		return la->tsc < lb->tsc;
	/* Equal stamps (or empty slots): streams first, then pcpu, then insertion. */
	if ((a == EMPTY) != (b == EMPTY))
		return b == EMPTY;
	if (la->pcpu != lb->pcpu)
		return la->pcpu < lb->pcpu;
	return a < b;
}

/*
 * The wide tree's replay: leaf @l, in slot @s, plays that slot's matches.
 * One comparison per level, and the two streams trade places without a
 * branch: which of two streams leads is a coin toss.
 */
static inline __attribute__((always_inline)) void replay_wide(struct vma_merge *m, uint32_t s,
							      uint32_t l)
{
	struct node *node = m->node;
	uint32_t n, cand = l;
	uint64_t cand_tsc = m->leaf[l].tsc;

	for (n = (m->width + s) / 2; n >= 1; n /= 2) {
		uint64_t o_tsc = node[n].tsc, mask, d_tsc;
		uint32_t o = node[n].leaf, d;
		bool o_first;

		if (__builtin_expect(o_tsc != cand_tsc, 1))
			o_first = o_tsc < cand_tsc;
		else
			o_first = before(m, o, cand);
		/* Masks, not selects: the compiler would make those a branch. */
		mask = -(uint64_t)o_first;
		d = (cand ^ o) & (uint32_t)mask;
		d_tsc = (cand_tsc ^ o_tsc) & mask;
		node[n].leaf = o ^ d;
		node[n].tsc = o_tsc ^ d_tsc;
		cand ^= d;
		cand_tsc ^= d_tsc;
	}
	m->top = cand;
}

static int rebuild(struct vma_merge *m);

/*
 * replay() of the wide tree, or of a stamp that does not fit in a key,
 * which makes the tree wide (rebuild() plays every match, @l's included).
 */
static __attribute__((noinline)) void replay_wide_path(struct vma_merge *m, uint32_t s,
						       uint32_t l)
{
	if (!m->wide) {
		m->wide = true;
		rebuild(m);
		return;
	}
	replay_wide(m, s, l);
	m->top_tsc = m->leaf[m->top].tsc;
}

/*
 * The keyed tree's matches on slot @s's path, played by key @cand (its
 * leaf already in the slot): a level is a load, a comparison and two
 * selects (conditional moves: the winner, the smaller key, goes on),
 * whose chain from level to level is two instructions long.  The winner
 * at the root is the first stream.  (A helper, not replay()'s own loop:
 * so, inlined into vma_merge_next_from(), gcc 12 makes it four
 * instructions a swap shorter.)
 */
static inline __attribute__((always_inline)) void play_up(struct vma_merge *m, uint32_t s,
							  uint64_t cand)
{
	uint64_t *key = m->key;
	size_t n; /* a word, so that key[n] needs no widening */

	for (n = ((size_t)m->width + s) / 2; n >= 1; n /= 2) {
		uint64_t o = key[n], winner = o < cand ? o : cand;

		key[n] = o < cand ? cand : o;
		cand = winner;
	}
	m->top = m->rank_leaf[cand & m->rank_mask];
	/* The key holds the stamp: no wait for the two loads of the leaf's. */
	m->top_tsc = cand == EMPTY_KEY ? UINT64_MAX : (cand >> m->rank_bits) + m->base;
}

/*
 * Leaf @l takes slot @s, which held the first stream: replay that
 * stream's matches with @l instead (@l is EMPTY only when @stream is
 * false).
 */
static inline __attribute__((always_inline)) void replay(struct vma_merge *m, uint32_t s,
							 uint32_t l, bool stream)
{
	uint64_t rel = m->leaf[l].tsc - m->base, cand;

	m->slot[s] = l;
	m->leaf[l].slot = s;
	if (__builtin_expect(m->wide || (stream && rel >> m->range_bits != 0), 0)) {
		replay_wide_path(m, s, l);
		return;
	}
	cand = stream ? rel << m->rank_bits | m->leaf[l].rank : EMPTY_KEY;
	play_up(m, s, cand);
}

/* Leaf @l's key in the keyed tree; false: its stamp does not fit. */
static inline bool key_of(const struct vma_merge *m, uint32_t l, uint64_t *key)
{
	uint64_t rel = m->leaf[l].tsc - m->base;

	if (l == EMPTY) {
		*key = EMPTY_KEY;
		return true;
	}
	if (rel >> m->range_bits)
		return false;
	*key = rel << m->rank_bits | m->leaf[l].rank;
	return true;
}

/* rebuild() of the keyed tree into @win (width entries); false: a stamp does not fit. */
static bool rebuild_keyed(struct vma_merge *m, uint64_t *win)
{
	uint32_t n, w = m->width;

	for (n = w - 1; n >= 1; n--) {
		uint64_t a, b;

		if (2 * n >= w) {
			uint32_t s = 2 * n - w;

			if (!key_of(m, m->slot[s], &a) || !key_of(m, m->slot[s + 1], &b))
				return false;
		} else {
			a = win[2 * n];
			b = win[2 * n + 1];
		}
		win[n] = a < b ? a : b;
		m->key[n] = a < b ? b : a;
	}
	m->top = m->rank_leaf[win[1] & m->rank_mask];
	return true;
}

/* rebuild() of the wide tree into @win (width entries). */
static void rebuild_wide(struct vma_merge *m, uint32_t *win)
{
	uint32_t n, a, b;

	for (n = m->width - 1; n >= 1; n--) {
		a = 2 * n >= m->width ? m->slot[2 * n - m->width] : win[2 * n];
		b = 2 * n + 1 >= m->width ? m->slot[2 * n + 1 - m->width] : win[2 * n + 1];
		win[n] = before(m, b, a) ? b : a;
		m->node[n].leaf = win[n] == a ? b : a;
		m->node[n].tsc = m->leaf[m->node[n].leaf].tsc;
	}
	m->top = win[1];
}

/*
 * Play every match again (after slots changed that did not hold the first
 * stream).  The winners' row is allocated with the tree, so that this
 * cannot fail (replay() relies on it).
 */
static int rebuild(struct vma_merge *m)
{
	if (m->wide || !rebuild_keyed(m, m->win)) {
		m->wide = true;
		rebuild_wide(m, (uint32_t *)m->win);
	}
	m->top_tsc = m->leaf[m->top].tsc;
	return VMA_OK;
}

/* Double the slots (at least two, so that there is a match), and the rows that go with them. */
static int widen(struct vma_merge *m)
{
	uint32_t width = m->width ? 2 * m->width : 2;
	uint32_t *slot = calloc(width, sizeof(*slot));
	struct node *node = realloc(m->node, width * sizeof(*node));
	uint64_t *key, *win;
	uint32_t *rank_leaf;

	if (node)
		m->node = node;
	key = node ? realloc(m->key, width * sizeof(*key)) : NULL;
	if (key)
		m->key = key;
	win = key ? realloc(m->win, width * sizeof(*win)) : NULL;
	if (win)
		m->win = win;
	rank_leaf = win ? realloc(m->rank_leaf, 4 * (size_t)width * sizeof(*rank_leaf)) : NULL;
	if (rank_leaf)
		m->rank_leaf = rank_leaf;
	if (!slot || !rank_leaf) {
		free(slot);
		return VMA_ERR_NOMEM;
	}
	if (m->width)
		memcpy(slot, m->slot, m->width * sizeof(*slot));
	free(m->slot);
	m->slot = slot;
	m->width = width;
	return VMA_OK;
}

/* Leaf @l waits, in the tree: an empty slot, then every match again. */
static int tree_insert(struct vma_merge *m, uint32_t l)
{
	uint32_t s;
	int rc;

	for (s = 0; s < m->width && m->slot[s] != EMPTY; s++)
		;
	if (s == m->width) {
		rc = widen(m);
		if (rc)
			return rc;
	}
	m->slot[s] = l;
	m->leaf[l].slot = s;
	m->waiting++;
	return VMA_OK;
}

/* The first waiting stream stops waiting and @l, later than it, waits. */
static inline __attribute__((always_inline)) uint32_t swap_first(struct vma_merge *m, uint32_t l)
{
	uint32_t w = m->top;

	/*
	 * One stream waits (a host of two pcpus): every match in the tree
	 * is that stream's against an empty slot, so every loser is empty,
	 * and stays so when @l takes the slot.  No match to play, and no key
	 * to fit: a join rebuilds the tree from the leaves' stamps.
	 */
	if (m->waiting == 1) {
		uint32_t s = m->leaf[w].slot;

		m->slot[s] = l;
		m->leaf[l].slot = s;
		m->top = l;
		m->top_tsc = m->leaf[l].tsc;
		return w;
	}
	replay(m, m->leaf[w].slot, l, true);
	return w;
}

/* A waiting stream with the same stamp as the stream aside goes first (KVM). */
static inline bool tie_goes_first(const struct vma_merge *m)
{
	if (!m->pcpu_ties || !m->waiting)
		return false;
	return before(m, m->top, m->current);
}

/* The first waiting stream stops waiting. */
static uint32_t take_first(struct vma_merge *m)
{
	uint32_t w = m->top;

	replay(m, m->leaf[w].slot, EMPTY, false);
	m->waiting--;
	return w;
}

/* Leaf @l waits in the tree or is the stream aside: it plays matches. */
static bool in_play(const struct vma_merge *m, uint32_t l)
{
	uint32_t s = m->leaf[l].slot;

	return l != EMPTY && (l == m->current || (s < m->width && m->slot[s] == l));
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Deal the ranks again: the streams in play in (pcpu, leaf) order, those
 * ranked before (already in that order) merged with the ones that joined
 * from leaf @from on and those that joined again, sorted.  Linear in the
 * streams but for the joining ones' sort, as the rebuild that follows is.
 * The base is the earliest stamp in play: the stream aside's leaf holds
 * its stamp before its current record, no later than the record's.
 */
static void deal_ranks(struct vma_merge *m, uint32_t from)
{
	uint64_t *joining = m->key; /* scratch: the tree's keys are made again after */
	uint32_t *order = (uint32_t *)m->win, nj = 0, n = 0, i = 0, j = 0, l;

	for (l = from; l < m->nr_leaves; l++) {
		if (in_play(m, l))
			joining[nj++] = (uint64_t)m->leaf[l].pcpu << 32 | l;
	}
	for (i = 0; i < m->nr_rejoin; i++) {
		l = m->rejoin[i];
		joining[nj++] = (uint64_t)m->leaf[l].pcpu << 32 | l;
	}
	qsort(joining, nj, sizeof(*joining), by_key);
	i = 0;
	while (i < m->nr_ranked || j < nj) {
		uint32_t a = i < m->nr_ranked ? m->rank_leaf[i] : EMPTY;
		uint64_t ka = a != EMPTY ? (uint64_t)m->leaf[a].pcpu << 32 | a : UINT64_MAX;

		/* a stream that joined again sorts among the joining ones, by its new rank */
		if (a != EMPTY && (!in_play(m, a) || m->leaf[a].rejoining)) {
			i++;
			continue;
		}
		if (j < nj && joining[j] < ka)
			order[n++] = (uint32_t)joining[j++];
		else
			order[n++] = m->rank_leaf[i++];
	}
	m->rank_bits = (unsigned int)__builtin_ctz(m->width) + 2;
	m->range_bits = 64 - m->rank_bits;
	m->rank_mask = (UINT64_C(1) << m->rank_bits) - 1;
	m->base = UINT64_MAX;
	for (i = 0; i < n; i++) {
		m->rank_leaf[i] = order[i];
		m->leaf[order[i]].rank = i;
		if (m->leaf[order[i]].tsc < m->base)
			m->base = m->leaf[order[i]].tsc;
	}
	m->nr_ranked = n;
	m->rank_leaf[m->rank_mask] = EMPTY;
	for (i = 0; i < m->nr_rejoin; i++)
		m->leaf[m->rejoin[i]].rejoining = 0;
	m->nr_rejoin = 0;
}

/* Take the streams that joined since the last call among the waiting ones. */
static int take_joining(struct vma_merge *m)
{
	uint32_t from = m->joined, i;
	int rc;

	for (i = 0; i < m->nr_rejoin; i++) {
		rc = tree_insert(m, m->rejoin[i]);
		if (rc)
			return rc;
	}
	for (; m->joined < m->nr_leaves; m->joined++) {
		rc = tree_insert(m, m->joined);
		if (rc)
			return rc;
	}
	m->slow = m->shifted;
	deal_ranks(m, from);
	m->wide = false;
	return rebuild(m);
}

int vma_merge_add(void *arg, struct vma_stream *stream)
{
	return vma_merge_add_ranked(arg, stream, stream->pcpu);
}

/* @stream ran out: told to on_ended, or kept for vma_merge_pop_ended(). */
static void report_ended(struct vma_merge *m, struct vma_stream *stream)
{
	if (m->on_ended)
		m->on_ended(m->ended_arg, stream);
	else if (m->nr_ended < 2)
		m->ended[m->nr_ended++] = stream;
}

/* The leaf of @stream, added before (a leaf stays when its stream pauses), or EMPTY. */
static uint32_t leaf_of(const struct vma_merge *m, const struct vma_stream *stream)
{
	uint32_t l;

	for (l = 1; l < m->nr_leaves; l++) {
		if (m->leaf[l].stream == stream)
			return l;
	}
	return EMPTY;
}

/* Leaf @l's stream is in the merge: waiting, aside, or about to wait. */
static bool held(const struct vma_merge *m, uint32_t l)
{
	uint32_t s = m->leaf[l].slot;

	if (l >= m->joined || m->leaf[l].rejoining || (s < m->width && m->slot[s] == l))
		return true;
	return l == m->current && (m->have_current || m->kvm_held);
}

/* Paused @stream, which read a record, takes its leaf @l back. */
static int rejoin(struct vma_merge *m, uint32_t l, struct vma_stream *stream, uint32_t rank)
{
	if (vma_grow(m->rejoin, &m->cap_rejoin, (size_t)m->nr_rejoin + 1, 4) < 0)
		return VMA_ERR_NOMEM;
	shift(m, l);
	m->leaf[l].tsc = stream->rec.tsc;
	m->leaf[l].pcpu = rank;
	m->leaf[l].rejoining = 1;
	m->rejoin[m->nr_rejoin++] = l;
	m->slow = true;
	m->run.stream = NULL;
	return VMA_OK;
}

int vma_merge_add_ranked(struct vma_merge *m, struct vma_stream *stream, uint32_t rank)
{
	uint32_t old = leaf_of(m, stream);
	int rc;

	/* Told twice: the stream is read once. */
	if (old != EMPTY && held(m, old))
		return VMA_OK;
	rc = stream->next(stream);
	/*
	 * A paused stream added again with no record: its input ended while
	 * it waited, and it ends as a stream that runs out in the merge does.
	 */
	if (rc == VMA_END && old != EMPTY) {
		report_ended(m, stream);
		return VMA_OK;
	}
	if (rc == VMA_END || rc == VMA_PAUSED)
		return VMA_OK;
	if (rc < 0) {
		if (!m->error)
			m->error = rc;
		return VMA_OK;
	}
	if (old != EMPTY)
		return rejoin(m, old, stream, rank);
	if (m->nr_leaves == UINT32_MAX ||
	    vma_grow(m->leaf, &m->cap_leaves, (size_t)m->nr_leaves + 1, 8) < 0)
		return VMA_ERR_NOMEM;
	/* trace-cmd report's order for KVM files: equal stamps by cpu (merge.h) */
	if (stream->input && stream->input->family == VMA_FAMILY_KVM)
		m->pcpu_ties = true;
	/* The leaf number is the insertion order. */
	m->leaf[m->nr_leaves] = (struct leaf){
		.tsc = stream->rec.tsc, .pcpu = rank, .stream = stream,
	};
	/* A new stream of a pcpu keeps the pcpu's offset. */
	for (uint32_t i = 1; m->shifted && i < m->nr_leaves && i < m->cap_offset; i++) {
		if (m->leaf[i].pcpu == stream->pcpu && m->offset[i]) {
			uint64_t off = m->offset[i];

			if (!offsets_room(m, (size_t)m->nr_leaves + 1))
				break;
			m->offset[m->nr_leaves] = off;
			stream->rec.tsc += off;
			m->leaf[m->nr_leaves].tsc = stream->rec.tsc;
			break;
		}
	}
	m->nr_leaves++;
	m->slow = true;
	m->run.stream = NULL;
	return VMA_OK;
}

static inline struct vma_stream *deliver(struct vma_merge *m, uint32_t l)
{
	struct vma_record *rec = &m->leaf[l].stream->rec;

	m->current = l;
	m->current_stream = m->leaf[l].stream;
	/* KVM keeps off the fast path, which lets the stream aside win ties */
	m->have_current = !m->pcpu_ties;
	m->kvm_held = m->pcpu_ties;
	if (rec->tsc < m->last_tsc) {
		rec->flags |= VMA_REC_LATE;
		m->late++;
	} else {
		m->last_tsc = rec->tsc;
	}
	return m->leaf[l].stream;
}

/*
 * Everything but a stream aside that goes on: joins, ends, the first call.
 * @rc: what the stream aside's next() returned; @had_current: there was one.
 */
static __attribute__((noinline)) int next_slow(struct vma_merge *m, struct vma_stream **out,
					       bool had_current, int rc)
{
	if (had_current && rc == VMA_OK)
		shift(m, m->current);
	if (m->joined < m->nr_leaves || m->nr_rejoin) {
		int join = take_joining(m);

		if (join)
			return join;
	}
	if (had_current && rc == VMA_OK) {
		struct leaf *c = &m->leaf[m->current];

		c->tsc = c->stream->rec.tsc;
		if (c->tsc < m->top_tsc || (c->tsc == m->top_tsc && !tie_goes_first(m)))
			*out = deliver(m, m->current);
		else
			*out = deliver(m, swap_first(m, m->current));
		return VMA_OK;
	}
	if (had_current) {
		/*
		 * Only the stream held aside can end in one call.  A paused one
		 * leaves without ending: its reader adds it again later.
		 */
		struct vma_stream *ended = rc == VMA_PAUSED ? NULL : m->leaf[m->current].stream;

		if (rc < 0 && !m->error)
			m->error = rc;
		if (ended)
			report_ended(m, ended);
	}
	if (m->waiting == 0) {
		rc = m->error;
		m->error = 0;
		return rc ? rc : VMA_END;
	}
	*out = deliver(m, take_first(m));
	return VMA_OK;
}

/*
 * The stream aside has a record later than the first waiting one: they
 * swap.  The fast path of vma_merge_next() left the stream's stamp in its
 * record only: its leaf gets it here, before it waits.
 */
static inline __attribute__((always_inline)) struct vma_stream *swap_aside(struct vma_merge *m)
{
	m->leaf[m->current].tsc = m->current_stream->rec.tsc;
	return deliver(m, swap_first(m, m->current));
}

/* swap_aside() out of the frame of next_read() and next_kvm(). */
static __attribute__((noinline)) struct vma_stream *swap_with_first(struct vma_merge *m)
{
	return swap_aside(m);
}

/* The stream aside's record has the first waiting one's stamp: KVM's go by pcpu. */
static __attribute__((noinline)) bool tie_to_first(struct vma_merge *m)
{
	m->leaf[m->current].tsc = m->current_stream->rec.tsc;
	return tie_goes_first(m);
}

/*
 * The next record of KVM streams: equal stamps by pcpu, the stream aside
 * too.  A stream that goes on stays aside as it was (kvm_held).
 */
static inline __attribute__((always_inline)) int next_kvm(struct vma_merge *m,
							  struct vma_stream **out)
{
	struct vma_stream *s = m->current_stream;
	uint64_t tsc;
	int rc;

	rc = s->next(s);
	if (rc != VMA_OK || m->slow) {
		m->kvm_held = false;
		return next_slow(m, out, true, rc);
	}
	tsc = s->rec.tsc;
	if (tsc >= m->top_tsc && (tsc > m->top_tsc || tie_to_first(m))) {
		*out = swap_with_first(m);
		return VMA_OK;
	}
	if (tsc < m->last_tsc) {
		s->rec.flags |= VMA_REC_LATE;
		m->late++;
	} else {
		m->last_tsc = tsc;
	}
	*out = s;
	return VMA_OK;
}

/* The stream aside's next() returned @rc: deliver its record, or whatever comes first. */
static inline __attribute__((always_inline)) int next_read(struct vma_merge *m, int rc,
							   struct vma_stream **out)
{
	struct vma_stream *s = m->current_stream;
	uint64_t tsc;

	m->have_current = false;
	/* Streams that joined, and shifted ones (TSC skew correction), go the slow way. */
	if (__builtin_expect(rc != VMA_OK || m->slow, 0))
		return next_slow(m, out, true, rc);
	/*
	 * The stream aside waits for no one: its leaf's stamp is set only
	 * when it does (swap_with_first(), next_slow()).
	 */
	tsc = s->rec.tsc;
	/* Equal stamps: the same stream goes on (KVM streams go by next_kvm()). */
	if (__builtin_expect(tsc > m->top_tsc, 0)) {
		*out = swap_with_first(m);
		return VMA_OK;
	}
	m->have_current = true;
	if (tsc < m->last_tsc) {
		s->rec.flags |= VMA_REC_LATE;
		m->late++;
	} else {
		m->last_tsc = tsc;
	}
	*out = s;
	return VMA_OK;
}

/* vma_merge_next(), inline in vma_merge_next_run() too. */
static inline __attribute__((always_inline)) int merge_next(struct vma_merge *m,
							    struct vma_stream **out)
{
	struct vma_stream *s;

	if (__builtin_expect(!m->have_current, 0))
		return m->kvm_held ? next_kvm(m, out) : next_slow(m, out, false, VMA_END);
	s = m->current_stream;
	return next_read(m, s->next(s), out);
}

int vma_merge_next(struct vma_merge *m, struct vma_stream **out)
{
	return merge_next(m, out);
}

/* The run of the record just delivered, which may open one: up to the first waiting stream. */
static inline struct vma_merge_run *start_run(struct vma_merge *m)
{
	m->run.stream = m->current_stream;
	m->run.last = m->last_tsc;
	m->run.limit = m->top_tsc;
	return &m->run;
}

/* The run the record just delivered opens (merge.h), or NULL. */
static inline struct vma_merge_run *open_run(struct vma_merge *m, int rc)
{
	if (rc != VMA_OK || !m->have_current || m->slow)
		return NULL;
	return start_run(m);
}

bool vma_merge_runs(const struct vma_merge *m)
{
	return !m->pcpu_ties;
}

int vma_merge_next_run(struct vma_merge *m, struct vma_stream **out, struct vma_merge_run **run)
{
	int rc = merge_next(m, out);

	*run = open_run(m, rc);
	return rc;
}

/* The rest of vma_merge_next_from(), all but its common case: out of its frame. */
static __attribute__((noinline)) int next_from_read(struct vma_merge *m, int rc,
						    struct vma_stream **out,
						    struct vma_merge_run **run)
{
	rc = next_read(m, rc, out);
	*run = open_run(m, rc);
	return rc;
}

int vma_merge_next_from(struct vma_merge *m, int rc, struct vma_stream **out,
			struct vma_merge_run **run)
{
	struct vma_stream *s = m->current_stream;

	/* The records the caller took in the run were in order: the last one's is the latest. */
	m->last_tsc = m->run.last;
	/*
	 * The common case: the run's stream went past the first waiting
	 * one (no stream joins, none is shifted; runs are not KVM's).  The
	 * two swap, and the record delivered opens the next run: in this
	 * frame, with none of next_read()'s tests.
	 */
	if (__builtin_expect(rc == VMA_OK && !m->slow && s->rec.tsc > m->top_tsc, 1)) {
		*out = swap_aside(m);
		*run = start_run(m);
		return VMA_OK;
	}
	return next_from_read(m, rc, out, run);
}

struct vma_stream *vma_merge_pop_ended(struct vma_merge *m)
{
	return m->nr_ended ? m->ended[--m->nr_ended] : NULL;
}

void vma_merge_on_ended(struct vma_merge *m, vma_merge_ended_fn fn, void *arg)
{
	m->on_ended = fn;
	m->ended_arg = arg;
}

uint64_t vma_merge_late_count(const struct vma_merge *merge)
{
	return merge->late;
}

bool vma_merge_wide(const struct vma_merge *merge)
{
	return merge->wide;
}

uint32_t vma_merge_streams(const struct vma_merge *merge)
{
	return merge->nr_leaves - 1;
}
