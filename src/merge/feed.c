/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The feed (contract in vmalyze/feed.h): the merge, run inline or on a
 * reader thread that hands batches of records to the caller.
 *
 * The reader thread turns each step of the merge into items of a batch:
 * the pcpus announced during the step (a reader finds a stream inside
 * another stream's next()), the streams that ended, then the record, or
 * the status that ended the merge.  The caller replays the items in that
 * order, which is the order in which the inline feed makes the same calls,
 * so the analysis sees the same sequence either way.
 *
 * A record item is a copy of the whole struct vma_stream that delivered it
 * (its record, input and pcpu): the caller gets a pointer into the batch,
 * with no second copy.  The ring holds RING batches; the reader waits when
 * all are full, the caller when none is.  One lock per batch of BATCH
 * records keeps the hand-over cost small; a side that had to wait is woken
 * only once half the ring is ready for it (or the merge ended), so that the
 * two threads do not trade a sleep and a wake-up for every batch when one
 * is faster than the other.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/feed.h"
#include "vmalyze/merge.h"
#include "vmalyze/status.h"

/*
 * A batch is BATCH_BYTES of packed items, RING of them: 1 MiB.  An item is
 * a head, then (for a record) its payload words: about 48 bytes for a
 * typical Xen record, where a copy of the whole stream took 104.  The
 * bytes are what crosses from one core's cache to the other's.
 */
#define BATCH_BYTES (64u * 1024u)
#define RING 16u
#define WAKE (RING / 2)
/* Apart by this much, two fields are never on one cache line (nor one pair of lines). */
#define FEED_LINE 128u
/* Not a status (those are VMA_OK, VMA_END and negative errors). */
#define GO_ON 2

enum item_kind {
	ITEM_RECORD,
	ITEM_PCPU,  /* a stream of item.pcpu was announced */
	ITEM_ENDED, /* the stream item.pcpu (of item.input) ended */
	ITEM_INPUT, /* the items that follow are of the input whose pointer follows */
	ITEM_FINAL, /* the merge ended with batch.final; always the last item */
};

/* Flags of an item's head, besides its kind. */
#define ITEM_KIND_MASK 0x0fu
#define ITEM_OWN_PCPU 0x10u /* a stream pcpu other than the record's follows the head */

/* The fixed part of every item; 8-byte words follow it. */
struct item_head {
	uint64_t tsc;
	uint64_t offset;
	uint32_t event;
	uint32_t pcpu;  /* the record's pcpu; of ITEM_PCPU and ITEM_ENDED, the stream's */
	uint32_t ctx;
	uint8_t kind;   /* enum item_kind, with ITEM_OWN_PCPU */
	uint8_t nr_data;
	uint16_t flags;
};

/* Largest item: head, a stream pcpu, every payload word. */
#define ITEM_MAX (sizeof(struct item_head) + 8u + 4u * VMA_REC_MAX_WORDS)

struct batch {
	uint32_t used; /* bytes of items */
	int final;
	/*
	 * Payloads are copied whole (VMA_REC_MAX_WORDS words, a fixed size
	 * the compiler inlines), past the item's end: ITEM_MAX bytes of slack.
	 */
	_Alignas(8) unsigned char bytes[BATCH_BYTES + ITEM_MAX];
};

struct vma_feed {
	struct vma_merge *merge;
	vma_feed_pcpu_fn on_pcpu;
	vma_feed_ended_fn on_ended;
	void *arg;
	bool threaded; /* the reader thread was started */
	bool joined;
	pthread_t thread;

	/* The ring, under lock: batches [released, published) are full. */
	pthread_mutex_t lock;
	pthread_cond_t filled; /* published moved */
	pthread_cond_t freed;  /* released moved, or stop */
	uint64_t published, released;
	bool stop;
	bool final;       /* the last batch was published */
	bool reader_wait; /* the reader waits for freed */
	bool taker_wait;  /* the caller waits for filled */
	struct batch *ring;

	/*
	 * Reader thread's side, then the caller's, each on cache lines of its
	 * own: the reader reads @fill for every record and the caller writes
	 * @pos for every record, and on one line the two cores would trade it
	 * at every record (t2 took twice t1's time).
	 */
	_Alignas(FEED_LINE) struct batch *fill; /* batch being filled, NULL before the first */
	uint64_t fill_seq;
	const struct vma_input *fill_input; /* of the last ITEM_INPUT written */

	/* Caller's side. */
	_Alignas(FEED_LINE) struct batch *take; /* batch being read, NULL before the first */
	uint64_t take_seq;
	uint32_t pos;     /* byte offset of the next item in @take */
	int done; /* status returned once the feed ended, 0 while it runs */
	struct vma_stream cur; /* the item last unpacked, what vma_feed_next() lends */
};

struct vma_feed *vma_feed_create(vma_feed_pcpu_fn on_pcpu, vma_feed_ended_fn on_ended,
				 void *arg)
{
	/* aligned_alloc: the struct's alignment is FEED_LINE, past malloc's */
	struct vma_feed *f = aligned_alloc(FEED_LINE, sizeof(*f));

	if (!f)
		return NULL;
	memset(f, 0, sizeof(*f));
	f->merge = vma_merge_create();
	if (!f->merge) {
		free(f);
		return NULL;
	}
	f->on_pcpu = on_pcpu;
	f->on_ended = on_ended;
	f->arg = arg;
	/* On one thread the merge tells the caller directly (the reader thread re-points it). */
	if (on_ended)
		vma_merge_on_ended(f->merge, on_ended, arg);
	return f;
}

/* ---- reader thread ---- */

/* The batch being filled is ready (under the lock). */
static void publish(struct vma_feed *f)
{
	f->published = ++f->fill_seq;
	if (f->taker_wait && (f->final || f->published - f->take_seq >= WAKE))
		pthread_cond_signal(&f->filled);
}

/* Publish the batch being filled; take a free one.  Return: false on stop. */
static bool fill_next(struct vma_feed *f)
{
	bool go;

	pthread_mutex_lock(&f->lock);
	if (f->fill)
		publish(f);
	while (!f->stop && f->fill_seq - f->released >= RING) {
		f->reader_wait = true;
		pthread_cond_wait(&f->freed, &f->lock);
	}
	f->reader_wait = false;
	go = !f->stop;
	pthread_mutex_unlock(&f->lock);
	/* Stopping: nothing more is written, not even into a free batch. */
	f->fill = go ? &f->ring[f->fill_seq % RING] : NULL;
	if (go)
		f->fill->used = 0;
	return go;
}

/*
 * Room for @size bytes of items in the batch being filled: a pointer to
 * them, or NULL on stop.  An item never spans two batches.
 */
static inline unsigned char *fill_room(struct vma_feed *f, size_t size)
{
	struct batch *b = f->fill;
	unsigned char *at;

	if (!b)
		return NULL;
	if (__builtin_expect(b->used + size > BATCH_BYTES, 0)) {
		if (!fill_next(f))
			return NULL;
		b = f->fill;
	}
	at = b->bytes + b->used;
	b->used += (uint32_t)size;
	return at;
}

/* Items from here on are of @in.  Return: false on stop. */
static bool fill_input(struct vma_feed *f, const struct vma_input *in)
{
	unsigned char *at;

	if (in == f->fill_input)
		return true;
	at = fill_room(f, sizeof(struct item_head) + 8);
	if (!at)
		return false;
	memset(at, 0, sizeof(struct item_head));
	((struct item_head *)at)->kind = ITEM_INPUT;
	memcpy(at + sizeof(struct item_head), &in, sizeof(in));
	f->fill_input = in;
	return true;
}

/* An item of @kind for stream @s (its record for ITEM_RECORD).  Return: false on stop. */
static inline bool fill_item(struct vma_feed *f, enum item_kind kind, const struct vma_stream *s)
{
	const struct vma_record *rec = &s->rec;
	uint32_t words = kind == ITEM_RECORD ? rec->nr_data : 0;
	bool own_pcpu;
	size_t size;
	unsigned char *at;
	struct item_head *h;

	if (words > VMA_REC_MAX_WORDS)
		words = VMA_REC_MAX_WORDS;
	if (__builtin_expect(s->input != f->fill_input, 0) && !fill_input(f, s->input))
		return false;
	own_pcpu = kind == ITEM_RECORD && s->pcpu != rec->pcpu;
	size = sizeof(*h) + (own_pcpu ? 8 : 0) + ((4 * words + 7) & ~7u);
	at = fill_room(f, size);
	if (!at)
		return false;
	h = (struct item_head *)at;
	h->kind = (uint8_t)(kind | (own_pcpu ? ITEM_OWN_PCPU : 0));
	if (kind != ITEM_RECORD) {
		h->pcpu = s->pcpu;
		return true;
	}
	h->tsc = rec->tsc;
	h->offset = rec->offset;
	h->event = rec->event;
	h->pcpu = rec->pcpu;
	h->ctx = rec->ctx;
	h->nr_data = (uint8_t)words;
	h->flags = rec->flags;
	at += sizeof(*h);
	if (own_pcpu) {
		uint64_t pcpu = s->pcpu;

		memcpy(at, &pcpu, 8);
		at += 8;
	}
	memcpy(at, rec->data, sizeof(rec->data)); /* the slack takes what is past the item */
	return true;
}

/* The merge's end of a stream, on the reader thread: an item, in order. */
static void reader_ended(void *arg, const struct vma_stream *stream)
{
	/* On stop no item is written: the next record's item fails too, and the reader ends. */
	fill_item(arg, ITEM_ENDED, stream);
}

static void *reader_main(void *arg)
{
	struct vma_feed *f = arg;
	struct vma_stream *s;
	unsigned char *at;
	int rc;

	if (!fill_next(f))
		return NULL;
	for (;;) {
		rc = vma_merge_next(f->merge, &s);
		if (rc != VMA_OK)
			break;
		if (!fill_item(f, ITEM_RECORD, s))
			return NULL;
	}
	at = fill_room(f, sizeof(struct item_head));
	if (!at)
		return NULL;
	memset(at, 0, sizeof(struct item_head));
	((struct item_head *)at)->kind = ITEM_FINAL;
	f->fill->final = rc;
	pthread_mutex_lock(&f->lock);
	f->final = true;
	publish(f);
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

/* ---- caller's side ---- */

int vma_feed_add(void *arg, struct vma_stream *stream)
{
	return vma_feed_add_ranked(arg, stream, stream->pcpu);
}

int vma_feed_add_ranked(struct vma_feed *f, struct vma_stream *stream, uint32_t rank)
{
	int rc;

	if (!f->threaded) {
		rc = f->on_pcpu ? f->on_pcpu(f->arg, stream->pcpu) : VMA_OK;
		return rc ? rc : vma_merge_add_ranked(f->merge, stream, rank);
	}
	/*
	 * On the reader thread, inside the merge: the caller hears of it in
	 * order.  When stopping, the caller reads no more, and the reader
	 * must not fail for that.
	 */
	fill_item(f, ITEM_PCPU, stream);
	return vma_merge_add_ranked(f->merge, stream, rank);
}

int vma_feed_start(struct vma_feed *f, unsigned int threads)
{
	if (threads < 2)
		return VMA_OK;
	f->ring = malloc(RING * sizeof(*f->ring));
	if (!f->ring)
		return VMA_ERR_NOMEM;
	if (pthread_mutex_init(&f->lock, NULL))
		goto fail_lock;
	if (pthread_cond_init(&f->filled, NULL))
		goto fail_filled;
	if (pthread_cond_init(&f->freed, NULL))
		goto fail_freed;
	f->threaded = true;
	if (f->on_ended)
		vma_merge_on_ended(f->merge, reader_ended, f);
	if (pthread_create(&f->thread, NULL, reader_main, f) == 0)
		return VMA_OK;
	f->threaded = false;
	if (f->on_ended)
		vma_merge_on_ended(f->merge, f->on_ended, f->arg);
	pthread_cond_destroy(&f->freed);
fail_freed:
	pthread_cond_destroy(&f->filled);
fail_filled:
	pthread_mutex_destroy(&f->lock);
fail_lock:
	free(f->ring);
	f->ring = NULL;
	return VMA_ERR_NOMEM;
}

/* Give the batch read back to the reader and wait for the next one. */
static __attribute__((noinline)) void take_next(struct vma_feed *f)
{
	pthread_mutex_lock(&f->lock);
	if (f->take) {
		f->released = ++f->take_seq;
		if (f->reader_wait && f->fill_seq - f->released <= RING - WAKE)
			pthread_cond_signal(&f->freed);
	}
	while (f->published == f->take_seq) {
		f->taker_wait = true;
		pthread_cond_wait(&f->filled, &f->lock);
	}
	f->taker_wait = false;
	pthread_mutex_unlock(&f->lock);
	f->take = &f->ring[f->take_seq % RING];
	f->pos = 0;
}

/*
 * The record item at @at into f->cur.  Words past nr_data keep what the
 * record before left there, as in a stream's own record: nothing may read them.
 */
static inline struct vma_stream *unpack_record(struct vma_feed *f, const unsigned char *at,
					       uint32_t *size)
{
	const struct item_head *h = (const struct item_head *)at;
	struct vma_record *rec = &f->cur.rec;
	uint32_t n = sizeof(*h);

	rec->tsc = h->tsc;
	rec->offset = h->offset;
	rec->event = h->event;
	rec->pcpu = h->pcpu;
	rec->ctx = h->ctx;
	rec->nr_data = h->nr_data;
	rec->flags = h->flags;
	f->cur.pcpu = h->pcpu;
	if (__builtin_expect(h->kind & ITEM_OWN_PCPU, 0)) {
		uint64_t pcpu;

		memcpy(&pcpu, at + n, 8);
		f->cur.pcpu = (uint32_t)pcpu;
		n += 8;
	}
	memcpy(rec->data, at + n, sizeof(rec->data));
	*size = n + ((4u * h->nr_data + 7) & ~7u);
	return &f->cur;
}

/* The item at @at, not a record.  Return: GO_ON, or the status to return. */
static __attribute__((noinline)) int other_item(struct vma_feed *f, const unsigned char *at,
						uint32_t *size)
{
	const struct item_head *h = (const struct item_head *)at;
	int rc;

	*size = sizeof(*h);
	f->cur.pcpu = h->pcpu;
	switch ((enum item_kind)(h->kind & ITEM_KIND_MASK)) {
	case ITEM_INPUT:
		memcpy(&f->cur.input, at + sizeof(*h), sizeof(f->cur.input));
		*size += 8;
		return GO_ON;
	case ITEM_PCPU:
		rc = f->on_pcpu ? f->on_pcpu(f->arg, h->pcpu) : VMA_OK;
		return rc ? (f->done = rc) : GO_ON;
	case ITEM_ENDED:
		if (f->on_ended)
			f->on_ended(f->arg, &f->cur);
		return GO_ON;
	case ITEM_FINAL:
		return f->done = f->take->final;
	case ITEM_RECORD:
		break;
	}
	return GO_ON;
}

/* Kept out of line, so that the one-thread path of vma_feed_next() is a jump. */
static __attribute__((noinline)) int next_threaded(struct vma_feed *f, struct vma_stream **out)
{
	const unsigned char *at;
	struct batch *b;
	uint32_t size;
	int rc;

	for (;;) {
		b = f->take;
		if (__builtin_expect(b && f->pos < b->used, 1)) {
			at = b->bytes + f->pos;
			if (__builtin_expect((at[offsetof(struct item_head, kind)] &
					      ITEM_KIND_MASK) == ITEM_RECORD, 1)) {
				*out = unpack_record(f, at, &size);
				f->pos += size;
				return VMA_OK;
			}
			rc = other_item(f, at, &size);
			f->pos += size;
			if (rc != GO_ON)
				return rc;
			continue;
		}
		/* The final item is the last one read: nothing follows it. */
		if (f->done)
			return f->done;
		take_next(f);
	}
}

int vma_feed_next(struct vma_feed *f, struct vma_stream **out)
{
	if (f->threaded)
		return next_threaded(f, out);
	return f->joined ? VMA_END : vma_merge_next(f->merge, out);
}

bool vma_feed_shift(struct vma_feed *f, uint32_t pcpu, int64_t offset)
{
	if (f->threaded)
		return false;
	vma_merge_shift(f->merge, pcpu, offset);
	return true;
}

/* The reader thread's lock, conditions and ring, once it has been joined. */
static void release_ring(struct vma_feed *f)
{
	if (!f->ring)
		return;
	pthread_cond_destroy(&f->freed);
	pthread_cond_destroy(&f->filled);
	pthread_mutex_destroy(&f->lock);
	free(f->ring);
	f->ring = NULL;
	f->fill = NULL;
	f->take = NULL;
}

void vma_feed_stop(struct vma_feed *f)
{
	if (!f->threaded || f->joined) {
		f->joined = true;
		return;
	}
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_signal(&f->freed);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	f->joined = true;
	f->done = VMA_END; /* nothing more is delivered, not even from the batch being read */
	/* Its megabyte goes now, before the report is built (peak RSS: bench/README, round nine). */
	release_ring(f);
}

uint64_t vma_feed_late_count(const struct vma_feed *f)
{
	return vma_merge_late_count(f->merge);
}

unsigned int vma_feed_threads(const struct vma_feed *f)
{
	return f->threaded ? 2 : 1;
}

void vma_feed_destroy(struct vma_feed *f)
{
	if (!f)
		return;
	vma_feed_stop(f);
	vma_merge_destroy(f->merge);
	free(f);
}
