/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Time-ordered merge of per-pcpu streams (see merge.h for the contract).
 *
 * The stream that delivered the last record is kept aside; the others wait
 * in a tournament tree: its bottom row holds them (one slot each), every
 * node above the one that sorts first in its subtree, by time stamp of the
 * current record, then pcpu, then insertion order.  The keys are copied
 * out of the streams, so comparisons read one small array.
 *
 * When the stream aside has a next record no later than the tree's winner,
 * it is delivered straight away: that is both the tie-break and the common
 * case (runs of records from one pcpu), and costs one comparison.
 * Otherwise the stream aside takes the winner's slot, the winner is set
 * aside, and only that slot's path to the root is replayed: one comparison
 * per level (three for eight pcpus), where a binary heap pops and pushes.
 *
 * Streams added by vma_merge_add() wait in a list until the next call of
 * vma_merge_next() takes them into the tree, so a stream that a reader
 * announces from inside another stream's next() joins at a safe point.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "vmalyze/merge.h"
#include "vmalyze/status.h"

/* Leaf 0 stands for an empty slot: it sorts after every stream. */
#define EMPTY 0u

struct leaf {
	uint64_t tsc;              /* of the stream's current record */
	uint32_t pcpu;
	uint32_t slot;             /* in the tree's bottom row, while in the tree */
	uint64_t seq;              /* insertion order, the last tie-break */
	struct vma_stream *stream;
};

struct vma_merge {
	struct leaf *leaf;         /* nr_leaves: EMPTY, then every stream added */
	uint32_t nr_leaves, cap_leaves;
	/* node[width + s] is the leaf in slot s; node[1..width) subtree winners. */
	uint32_t *node;
	uint32_t width;            /* slots, a power of two */
	uint32_t waiting;          /* streams in the tree */
	uint64_t top_tsc;          /* time stamp of the tree's winner */
	uint32_t current;          /* leaf of the last delivered record */
	bool have_current;
	uint32_t joined;           /* leaves [joined, nr_leaves) are not in the tree yet */
	uint64_t last_tsc;
	uint64_t late;
	int error;                 /* first stream failure, reported once */
	struct vma_stream *ended[2]; /* ended since the caller last asked */
	unsigned int nr_ended;
};

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
	m->leaf[EMPTY] = (struct leaf){ .tsc = UINT64_MAX, .pcpu = UINT32_MAX, .seq = UINT64_MAX };
	m->nr_leaves = m->joined = 1;
	m->cap_leaves = 8;
	return m;
}

void vma_merge_destroy(struct vma_merge *merge)
{
	if (!merge)
		return;
	free(merge->leaf);
	free(merge->node);
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
	return la->seq < lb->seq;
}

/* Slot @s changed: replay its path to the root. */
static void replay(struct vma_merge *m, uint32_t s)
{
	uint32_t n, a, b;

	for (n = (m->width + s) / 2; n >= 1; n /= 2) {
		a = m->node[2 * n];
		b = m->node[2 * n + 1];
		m->node[n] = before(m, b, a) ? b : a;
	}
	m->top_tsc = m->leaf[m->node[1]].tsc;
}

/* Put leaf @l in slot @s. */
static inline void place(struct vma_merge *m, uint32_t s, uint32_t l)
{
	m->node[m->width + s] = l;
	m->leaf[l].slot = s;
	replay(m, s);
}

/* Double the slots (at least two, so that node[1] is a node). */
static int widen(struct vma_merge *m)
{
	uint32_t width = m->width ? 2 * m->width : 2, n;
	uint32_t *node = calloc(2 * width, sizeof(*node));

	if (!node)
		return VMA_ERR_NOMEM;
	for (n = 0; n < m->width; n++) {
		node[width + n] = m->node[m->width + n];
		m->leaf[node[width + n]].slot = n;
	}
	free(m->node);
	m->node = node;
	m->width = width;
	for (n = width - 1; n >= 1; n--)
		node[n] = before(m, node[2 * n + 1], node[2 * n]) ? node[2 * n + 1] : node[2 * n];
	m->top_tsc = m->leaf[node[1]].tsc;
	return VMA_OK;
}

/* Take the streams that joined since the last call into the tree. */
static int take_joining(struct vma_merge *m)
{
	uint32_t s = 0;
	int rc;

	for (; m->joined < m->nr_leaves; m->joined++) {
		while (s < m->width && m->node[m->width + s] != EMPTY)
			s++;
		if (s == m->width) {
			rc = widen(m);
			if (rc)
				return rc;
		}
		place(m, s, m->joined);
		m->waiting++;
	}
	return VMA_OK;
}

int vma_merge_add(void *arg, struct vma_stream *stream)
{
	struct vma_merge *m = arg;
	int rc = stream->next(stream);

	if (rc == VMA_END)
		return VMA_OK;
	if (rc < 0) {
		if (!m->error)
			m->error = rc;
		return VMA_OK;
	}
	if (m->nr_leaves == m->cap_leaves) {
		struct leaf *l = realloc(m->leaf, 2 * m->cap_leaves * sizeof(*l));

		if (!l)
			return VMA_ERR_NOMEM;
		m->leaf = l;
		m->cap_leaves *= 2;
	}
	/* The leaf number is the insertion order. */
	m->leaf[m->nr_leaves] = (struct leaf){
		.tsc = stream->rec.tsc, .pcpu = stream->pcpu, .seq = m->nr_leaves, .stream = stream,
	};
	m->nr_leaves++;
	return VMA_OK;
}

static inline struct vma_stream *deliver(struct vma_merge *m, uint32_t l)
{
	struct vma_record *rec = &m->leaf[l].stream->rec;

	m->current = l;
	m->have_current = true;
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
	uint32_t w;

	if (m->joined < m->nr_leaves) {
		int join = take_joining(m);

		if (join)
			return join;
	}
	if (had_current && rc == VMA_OK) {
		struct leaf *c = &m->leaf[m->current];

		c->tsc = c->stream->rec.tsc;
		if (c->tsc <= m->top_tsc) {
			*out = deliver(m, m->current);
			return VMA_OK;
		}
		w = m->node[1];
		place(m, m->leaf[w].slot, m->current);
		*out = deliver(m, w);
		return VMA_OK;
	}
	if (had_current) {
		if (rc < 0 && !m->error)
			m->error = rc;
		/* Only the stream held aside can end in one call. */
		if (m->nr_ended < 2)
			m->ended[m->nr_ended++] = m->leaf[m->current].stream;
	}
	if (m->waiting == 0) {
		rc = m->error;
		m->error = 0;
		return rc ? rc : VMA_END;
	}
	w = m->node[1];
	place(m, m->leaf[w].slot, EMPTY);
	m->waiting--;
	*out = deliver(m, w);
	return VMA_OK;
}

/* The stream aside has a record later than the tree's winner: they swap. */
static __attribute__((noinline)) struct vma_stream *swap_with_winner(struct vma_merge *m)
{
	uint32_t w = m->node[1];

	place(m, m->leaf[w].slot, m->current);
	return deliver(m, w);
}

int vma_merge_next(struct vma_merge *m, struct vma_stream **out)
{
	struct vma_stream *s;
	uint64_t tsc;
	int rc;

	if (__builtin_expect(!m->have_current, 0))
		return next_slow(m, out, false, VMA_END);
	m->have_current = false;
	s = m->leaf[m->current].stream;
	rc = s->next(s);
	if (__builtin_expect(rc != VMA_OK || m->joined < m->nr_leaves, 0))
		return next_slow(m, out, true, rc);
	tsc = s->rec.tsc;
	m->leaf[m->current].tsc = tsc;
	/*
	 * Equal stamps: the same stream goes on (see merge.h).  An empty
	 * tree's winner is the EMPTY leaf, which is later than any stamp.
	 */
	if (__builtin_expect(tsc > m->top_tsc, 0)) {
		*out = swap_with_winner(m);
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

struct vma_stream *vma_merge_pop_ended(struct vma_merge *m)
{
	return m->nr_ended ? m->ended[--m->nr_ended] : NULL;
}

uint64_t vma_merge_late_count(const struct vma_merge *merge)
{
	return merge->late;
}
