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
 * An item has the shape of a struct vma_record: a record item is the
 * record's fixed part and its nr_data words, so that the summary's loop
 * (vma_feed_lend_next(), feed.h) walks the records where they lie in the batch,
 * with no second copy; the other items say what they are in nr_data,
 * which no record's reaches.  The ring holds RING batches; the reader waits when
 * all are full, the caller when none is.  One lock per batch of BATCH
 * records keeps the hand-over cost small; a side that had to wait is woken
 * only once half the ring is ready for it (or the merge ended), so that the
 * two threads do not trade a sleep and a wake-up for every batch when one
 * is faster than the other.  Before it sleeps, a side that finds the ring
 * full (or empty) watches the other side's counter for up to SPIN_NS:
 * a batch is a fraction of a millisecond's work, and a thread put to
 * sleep can take longer than that to come back, on a VM most (the host
 * deschedules an idle vcpu; bench/README, round thirteen).
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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
/*
 * How long a waiting side spins before it sleeps: a few batches' work.
 * The clock is read once every SPIN_STEP pauses.
 */
#define SPIN_NS 500000u
#define SPIN_STEP 64u
/* Not a status (those are VMA_OK, VMA_END and negative errors). */
#define GO_ON 2

/*
 * The items that are not records, by their nr_data: ITEM_TAG and a kind.
 * Their pcpu field is the stream's pcpu.
 */
#define ITEM_TAG 0xff00u
enum item_kind {
	ITEM_PCPU = ITEM_TAG,   /* a stream of pcpu was announced */
	ITEM_ENDED,             /* the stream pcpu (of the current input) ended */
	ITEM_INPUT,             /* the items that follow are of the input in tsc */
	ITEM_STREAM_PCPU,       /* the next record's stream is of pcpu, not the record's */
	ITEM_FINAL,             /* the merge ended with batch.final; always the last item */
};
_Static_assert(VMA_REC_MAX_WORDS < ITEM_TAG, "a record's nr_data is never a tag");

/* An item's fixed part: a record's, without its words. */
#define ITEM_HEAD offsetof(struct vma_record, data)

/* Largest item: a record with every payload word. */
#define ITEM_MAX (sizeof(struct vma_record))

struct batch {
	uint32_t used; /* bytes of items */
	int final;
	/*
	 * Records are copied whole (a fixed size the compiler inlines), past
	 * the item's end, and one lent in place has its whole data[] inside
	 * the batch: ITEM_MAX bytes of slack.
	 */
	_Alignas(8) unsigned char bytes[BATCH_BYTES + ITEM_MAX];
};

struct vma_feed {
	struct vma_merge *merge;
	vma_feed_pcpu_fn on_pcpu;
	vma_feed_ended_fn on_ended;
	void *arg;
	bool threaded; /* the reader thread was started */
	bool spin;     /* the two threads may run at once: waiting sides spin first */
	bool joined;
	pthread_t thread;

	/*
	 * The ring, under lock: batches [released, published) are full.  The
	 * two counters are stored atomically too, for the other side's spin.
	 */
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
	uint64_t reader_wait_ns, reader_cpu_ns; /* struct vma_feed_times */

	/* Caller's side. */
	_Alignas(FEED_LINE) struct batch *take; /* batch being read, NULL before the first */
	uint64_t take_seq;
	uint32_t pos;     /* byte offset of the next item in @take */
	bool stream_pcpu; /* an ITEM_STREAM_PCPU gave the next record's stream pcpu: */
	uint32_t pending_pcpu;
	int done; /* status returned once the feed ended, 0 while it runs */
	uint64_t caller_wait_ns, caller_cpu_ns; /* struct vma_feed_times, the latter from start */
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

/* ---- both sides ---- */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* CPU time of the calling thread. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
		return 0;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * Called with the lock held, about to wait until *@counter moves from
 * @was (or stop): first, without the lock, watch it for up to SPIN_NS.
 * Returns with the lock held; the caller's wait loop tests again.
 */
static void spin_before_wait(struct vma_feed *f, const uint64_t *counter, uint64_t was)
{
	uint64_t until;
	uint32_t i = 0;

	if (!f->spin)
		return;
	pthread_mutex_unlock(&f->lock);
	until = now_ns() + SPIN_NS;
	while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) == was &&
	       !__atomic_load_n(&f->stop, __ATOMIC_RELAXED)) {
		cpu_relax();
		if (++i % SPIN_STEP == 0 && now_ns() >= until)
			break;
	}
	pthread_mutex_lock(&f->lock);
}

/* ---- reader thread ---- */

/* The batch being filled is ready (under the lock). */
static void publish(struct vma_feed *f)
{
#if defined(__x86_64__)
	_mm_sfence(); /* put_item()'s stores, before the batch is the caller's */
#endif
	__atomic_store_n(&f->published, ++f->fill_seq, __ATOMIC_RELEASE);
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
	if (!f->stop && f->fill_seq - f->released >= RING) {
		uint64_t since = now_ns();

		spin_before_wait(f, &f->released, f->released);
		while (!f->stop && f->fill_seq - f->released >= RING) {
			f->reader_wait = true;
			pthread_cond_wait(&f->freed, &f->lock);
		}
		f->reader_wait_ns += now_ns() - since;
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

/* An item that is not a record: @kind of pcpu @pcpu.  Return: false on stop. */
static bool fill_tag(struct vma_feed *f, enum item_kind kind, uint32_t pcpu, uint64_t tsc)
{
	struct vma_record *h = (struct vma_record *)fill_room(f, ITEM_HEAD);

	if (!h)
		return false;
	memset(h, 0, ITEM_HEAD);
	h->nr_data = (uint16_t)kind;
	h->pcpu = pcpu;
	h->tsc = tsc;
	return true;
}

/* Items from here on are of @in.  Return: false on stop. */
static bool fill_input(struct vma_feed *f, const struct vma_input *in)
{
	if (in == f->fill_input)
		return true;
	if (!fill_tag(f, ITEM_INPUT, 0, (uint64_t)(uintptr_t)in))
		return false;
	f->fill_input = in;
	return true;
}

/* Stream @s's item of @kind: announced, or ended.  Return: false on stop. */
static bool fill_stream(struct vma_feed *f, enum item_kind kind, const struct vma_stream *s)
{
	if (s->input != f->fill_input && !fill_input(f, s->input))
		return false;
	return fill_tag(f, kind, s->pcpu, 0);
}

/*
 * The @size bytes of an item (8-byte words, 8-byte aligned) into the
 * batch, with stores that go around the cache: a line of the ring was
 * last read by the other core, and a plain store first fetches it back
 * from there (one store had 84% of the reader thread's samples).
 * publish() fences them before the batch changes hands.
 */
static inline void put_item(void *dst, const void *src, uint32_t size)
{
#if defined(__x86_64__)
	long long *to = dst;
	uint32_t i;

	for (i = 0; i < size / 8; i++) {
		long long w;

		memcpy(&w, (const unsigned char *)src + 8 * i, sizeof(w));
		_mm_stream_si64(to + i, w);
	}
#else
	memcpy(dst, src, size);
#endif
}

/* Stream @s's record, as the record item.  Return: false on stop. */
static inline bool fill_record(struct vma_feed *f, const struct vma_stream *s)
{
	const struct vma_record *rec = &s->rec;
	void *copy;
	uint32_t words = rec->nr_data, size;

	if (__builtin_expect(s->input != f->fill_input, 0) && !fill_input(f, s->input))
		return false;
	if (__builtin_expect(s->pcpu != rec->pcpu, 0) &&
	    !fill_tag(f, ITEM_STREAM_PCPU, s->pcpu, 0))
		return false;
	if (__builtin_expect(words > VMA_REC_MAX_WORDS, 0))
		words = VMA_REC_MAX_WORDS;
	size = vma_feed_item_size(words);
	copy = fill_room(f, size);
	if (!copy)
		return false;
	put_item(copy, rec, size);
	/*
	 * A record claiming more words than it has: its first ones.  The
	 * plain store after put_item()'s on the line is slow, and only ever
	 * here.
	 */
	if (__builtin_expect(words != rec->nr_data, 0))
		((struct vma_record *)copy)->nr_data = (uint16_t)words;
	return true;
}

/* The merge's end of a stream, on the reader thread: an item, in order. */
static void reader_ended(void *arg, const struct vma_stream *stream)
{
	/* On stop no item is written: the next record's item fails too, and the reader ends. */
	fill_stream(arg, ITEM_ENDED, stream);
}

/* The merge, into the ring, until it ends or the caller stops it. */
static void read_all(struct vma_feed *f)
{
	struct vma_stream *s;
	int rc;

	if (!fill_next(f))
		return;
	for (;;) {
		rc = vma_merge_next(f->merge, &s);
		if (rc != VMA_OK)
			break;
		if (!fill_record(f, s))
			return;
	}
	if (!fill_tag(f, ITEM_FINAL, 0, 0))
		return;
	f->fill->final = rc;
	pthread_mutex_lock(&f->lock);
	f->final = true;
	publish(f);
	pthread_mutex_unlock(&f->lock);
}

static void *reader_main(void *arg)
{
	struct vma_feed *f = arg;

	read_all(f);
#if defined(__x86_64__)
	_mm_sfence(); /* put_item()'s stores of an unpublished batch, before the ring goes */
#endif
	f->reader_cpu_ns = thread_cpu_ns(); /* read after the join */
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
	fill_stream(f, ITEM_PCPU, stream);
	return vma_merge_add_ranked(f->merge, stream, rank);
}

unsigned int vma_feed_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	n = CPU_COUNT(&set);
	return n > 1 ? (unsigned int)n : 1;
}

int vma_feed_start(struct vma_feed *f, unsigned int threads, bool spin)
{
	if (threads < 2)
		return VMA_OK;
	f->spin = spin;
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
	f->caller_cpu_ns = thread_cpu_ns();
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
		__atomic_store_n(&f->released, ++f->take_seq, __ATOMIC_RELEASE);
		if (f->reader_wait && f->fill_seq - f->released <= RING - WAKE)
			pthread_cond_signal(&f->freed);
	}
	if (f->published == f->take_seq) {
		uint64_t since = now_ns();

		spin_before_wait(f, &f->published, f->take_seq);
		while (f->published == f->take_seq) {
			f->taker_wait = true;
			pthread_cond_wait(&f->filled, &f->lock);
		}
		f->caller_wait_ns += now_ns() - since;
	}
	f->taker_wait = false;
	pthread_mutex_unlock(&f->lock);
	f->take = &f->ring[f->take_seq % RING];
	f->pos = 0;
}

/*
 * The record item @rec into f->cur, whose input is the current one.
 * Words past nr_data are what followed the item: nothing may read them.
 */
static inline struct vma_stream *unpack_record(struct vma_feed *f, const struct vma_record *rec)
{
	memcpy(&f->cur.rec, rec, sizeof(*rec));
	f->cur.pcpu = rec->pcpu;
	if (__builtin_expect(f->stream_pcpu, 0)) {
		f->cur.pcpu = f->pending_pcpu;
		f->stream_pcpu = false;
	}
	return &f->cur;
}

/* The item @h, not a record.  Return: GO_ON, or the status to return. */
static __attribute__((noinline)) int other_item(struct vma_feed *f, const struct vma_record *h)
{
	int rc;

	f->cur.pcpu = h->pcpu;
	switch ((enum item_kind)h->nr_data) {
	case ITEM_INPUT:
		f->cur.input = (struct vma_input *)(uintptr_t)h->tsc;
		return GO_ON;
	case ITEM_PCPU:
		rc = f->on_pcpu ? f->on_pcpu(f->arg, h->pcpu) : VMA_OK;
		return rc ? (f->done = rc) : GO_ON;
	case ITEM_ENDED:
		if (f->on_ended)
			f->on_ended(f->arg, &f->cur);
		return GO_ON;
	case ITEM_STREAM_PCPU:
		f->pending_pcpu = h->pcpu;
		f->stream_pcpu = true;
		return GO_ON;
	case ITEM_FINAL:
		return f->done = f->take->final;
	}
	return GO_ON;
}

/* The batch's next item, if it is a record: taken, and lent in *@out (a walk's step). */
static inline __attribute__((always_inline)) bool lend_record(struct vma_feed *f,
							      const struct vma_record **out)
{
	const struct batch *b = f->take;
	struct vma_feed_lend walk;

	if (__builtin_expect(!b, 0))
		return false;
	walk = (struct vma_feed_lend){ b->bytes + f->pos, b->bytes + b->used };
	if (!vma_feed_lend_next(&walk, out))
		return false;
	f->pos = (uint32_t)(walk.at - b->bytes);
	return true;
}

/*
 * The next record item of the ring, where it lies, or the status that
 * ended the feed; the other items on the way are acted on.
 */
static inline __attribute__((always_inline)) int take_record(struct vma_feed *f,
							     const struct vma_record **out)
{
	const struct vma_record *item;
	int rc;

	for (;;) {
		if (__builtin_expect(lend_record(f, out), 1))
			return VMA_OK;
		if (f->take && f->pos < f->take->used) {
			item = (const struct vma_record *)(f->take->bytes + f->pos);
			f->pos += (uint32_t)ITEM_HEAD;
			rc = other_item(f, item);
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

/* Kept out of line, so that the one-thread path of vma_feed_next() is a jump. */
static __attribute__((noinline)) int next_threaded(struct vma_feed *f, struct vma_stream **out)
{
	const struct vma_record *rec = NULL;
	int rc = take_record(f, &rec);

	if (rc == VMA_OK)
		*out = unpack_record(f, rec);
	return rc;
}

int vma_feed_next(struct vma_feed *f, struct vma_stream **out)
{
	if (f->threaded)
		return next_threaded(f, out);
	return f->joined ? VMA_END : vma_merge_next(f->merge, out);
}

bool vma_feed_runs(const struct vma_feed *f)
{
	return !f->threaded && vma_merge_runs(f->merge);
}

int vma_feed_next_run(struct vma_feed *f, struct vma_stream **out, struct vma_merge_run **run)
{
	if (f->threaded || f->joined) {
		*run = NULL;
		return vma_feed_next(f, out);
	}
	return vma_merge_next_run(f->merge, out, run);
}

int vma_feed_next_from(struct vma_feed *f, int rc, struct vma_stream **out,
		       struct vma_merge_run **run)
{
	return vma_merge_next_from(f->merge, rc, out, run);
}

/* vma_feed_lend() on the caller's thread: the merge's stream's record. */
static int next_record_inline(struct vma_feed *f, const struct vma_record **out)
{
	struct vma_stream *s;
	int rc;

	if (f->joined)
		return VMA_END;
	rc = vma_merge_next(f->merge, &s);
	if (rc == VMA_OK)
		*out = &s->rec;
	return rc;
}

int vma_feed_lend(struct vma_feed *f, struct vma_feed_lend *lend, const struct vma_record **out)
{
	const struct batch *b;
	int rc;

	if (!f->threaded) {
		*lend = (struct vma_feed_lend){ NULL, NULL };
		return next_record_inline(f, out);
	}
	/* Where the walk stopped, in the batch it walked. */
	if (lend->at)
		f->pos = (uint32_t)(lend->at - f->take->bytes);
	rc = take_record(f, out);
	/* the stream's pcpu is not part of a lent record: the next one's own */
	f->stream_pcpu = false;
	b = f->take;
	if (rc == VMA_OK) {
		*lend = (struct vma_feed_lend){ b->bytes + f->pos, b->bytes + b->used };
	} else {
		*lend = (struct vma_feed_lend){ NULL, NULL };
	}
	return rc;
}

bool vma_feed_times(const struct vma_feed *f, struct vma_feed_times *out)
{
	if (!f->threaded || !f->joined)
		return false;
	*out = (struct vma_feed_times){
		.reader_cpu_ns = f->reader_cpu_ns,
		.reader_wait_ns = f->reader_wait_ns,
		.caller_cpu_ns = f->caller_cpu_ns,
		.caller_wait_ns = f->caller_wait_ns,
	};
	return true;
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
	__atomic_store_n(&f->stop, true, __ATOMIC_RELAXED);
	pthread_cond_signal(&f->freed);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	f->joined = true;
	f->caller_cpu_ns = thread_cpu_ns() - f->caller_cpu_ns;
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
