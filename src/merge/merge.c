/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Time-ordered merge of per-pcpu streams (see merge.h for the contract).
 *
 * A binary min-heap keyed by (time stamp, pcpu, insertion order) holds
 * every stream but the one that delivered the last record.  That one is
 * kept aside: when its next record is not later than the heap's minimum it
 * is delivered straight away, which both implements the tie-break and
 * makes the common case (runs of records from one pcpu) skip the heap.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "vmalyze/merge.h"
#include "vmalyze/status.h"

struct entry {
	struct vma_stream *stream;
	uint64_t seq; /* insertion order, the last tie-break */
};

struct vma_merge {
	struct entry *heap;
	size_t len, cap;
	struct entry current; /* stream of the last delivered record, or none */
	bool have_current;
	uint64_t next_seq;
	uint64_t last_tsc;
	uint64_t late;
	int error;            /* first stream failure, reported once */
	struct vma_stream *ended[2]; /* ended since the caller last asked */
	unsigned int nr_ended;
};

struct vma_merge *vma_merge_create(void)
{
	return calloc(1, sizeof(struct vma_merge));
}

void vma_merge_destroy(struct vma_merge *merge)
{
	if (!merge)
		return;
	free(merge->heap);
	free(merge);
}

static inline bool before(const struct entry *a, const struct entry *b)
{
	const struct vma_record *ra = &a->stream->rec, *rb = &b->stream->rec;

	if (ra->tsc != rb->tsc)
		return ra->tsc < rb->tsc;
	if (a->stream->pcpu != b->stream->pcpu)
		return a->stream->pcpu < b->stream->pcpu;
	return a->seq < b->seq;
}

static int heap_push(struct vma_merge *m, struct entry e)
{
	size_t i;

	if (m->len == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct entry *heap = realloc(m->heap, cap * sizeof(*heap));

		if (!heap)
			return VMA_ERR_NOMEM;
		m->heap = heap;
		m->cap = cap;
	}
	i = m->len++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(&e, &m->heap[parent]))
			break;
		m->heap[i] = m->heap[parent];
		i = parent;
	}
	m->heap[i] = e;
	return VMA_OK;
}

static struct entry heap_pop(struct vma_merge *m)
{
	struct entry top = m->heap[0];
	struct entry last = m->heap[--m->len];
	size_t i = 0;

	for (;;) {
		size_t child = 2 * i + 1;

		if (child >= m->len)
			break;
		if (child + 1 < m->len && before(&m->heap[child + 1], &m->heap[child]))
			child++;
		if (!before(&m->heap[child], &last))
			break;
		m->heap[i] = m->heap[child];
		i = child;
	}
	if (m->len)
		m->heap[i] = last;
	return top;
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
	return heap_push(m, (struct entry){ stream, m->next_seq++ });
}

static struct vma_stream *deliver(struct vma_merge *m, struct entry e)
{
	struct vma_record *rec = &e.stream->rec;

	m->current = e;
	m->have_current = true;
	if (rec->tsc < m->last_tsc) {
		rec->flags |= VMA_REC_LATE;
		m->late++;
	} else {
		m->last_tsc = rec->tsc;
	}
	return e.stream;
}

int vma_merge_next(struct vma_merge *m, struct vma_stream **out)
{
	int rc;

	if (m->have_current) {
		struct entry cur = m->current;

		m->have_current = false;
		rc = cur.stream->next(cur.stream);
		if (rc == VMA_OK) {
			/* Equal stamps: the same stream goes on (see merge.h). */
			if (m->len == 0 || cur.stream->rec.tsc <= m->heap[0].stream->rec.tsc) {
				*out = deliver(m, cur);
				return VMA_OK;
			}
			rc = heap_push(m, cur);
			if (rc)
				return rc;
		} else {
			if (rc < 0 && !m->error)
				m->error = rc;
			/* Only the stream held aside can end in one call. */
			if (m->nr_ended < 2)
				m->ended[m->nr_ended++] = cur.stream;
		}
	}
	if (m->len == 0) {
		rc = m->error;
		m->error = 0;
		return rc ? rc : VMA_END;
	}
	*out = deliver(m, heap_pop(m));
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
