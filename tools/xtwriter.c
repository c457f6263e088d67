/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xtwriter: per-pcpu record buffers written out as xentrace windows.
 *
 * Each pcpu owns one buffer of at most window_bytes.  A record that does
 * not fit makes the buffer (or, with flush_all_on_full, every buffer) go
 * out as a window first, so no record ever straddles two windows, which is
 * what xentrace guarantees by copying whole records from Xen's ring.
 * Memory use is one buffer per pcpu plus, for the memory writer, the file.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/grow.h"
#include "vmalyze/status.h"
#include "xtwriter.h"

struct pcpu_buf {
	unsigned char *buf; /* window_bytes, allocated on first use */
	size_t len;
	uint64_t records;
	uint64_t ring_pos;  /* bytes produced into the emulated ring, mod ring size */
	uint64_t last_tsc;  /* time stamp of the last record that had one */
};

struct vma_xtw {
	FILE *out;          /* stream writer; NULL for memory */
	unsigned char *mem; /* memory writer: the file */
	size_t mem_len, mem_cap;
	uint64_t file_bytes;
	uint64_t buffered;  /* bytes in all buffers, plus one window header each */
	uint64_t windows;
	struct pcpu_buf *pcpus;
	uint32_t nr_alloc;  /* entries in pcpus[] */
	uint32_t nr_used;   /* highest used pcpu + 1 */
	size_t window_bytes;
	size_t ring_bytes;
	bool flush_all_on_full;
	bool failed;        /* a write failed: every later call fails too */
};

static inline void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static struct vma_xtw *new_writer(FILE *out, const struct vma_xtw_options *options)
{
	struct vma_xtw_options def = { 0 };
	struct vma_xtw *w;

	if (!options)
		options = &def;
	if (options->window_bytes &&
	    (options->window_bytes < VMA_XTW_MIN_WINDOW || options->window_bytes % 4 ||
	     options->window_bytes > UINT32_MAX)) {
		return NULL;
	}
	if (options->ring_bytes &&
	    (options->ring_bytes < VMA_XTW_MAX_RECORD || options->ring_bytes % 4)) {
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->out = out;
	w->window_bytes = options->window_bytes ? options->window_bytes : VMA_XTW_DEFAULT_WINDOW;
	w->ring_bytes = options->ring_bytes;
	w->flush_all_on_full = options->flush_all_on_full;
	return w;
}

struct vma_xtw *vma_xtw_new_memory(const struct vma_xtw_options *options)
{
	return new_writer(NULL, options);
}

struct vma_xtw *vma_xtw_new_stream(FILE *out, const struct vma_xtw_options *options)
{
	if (!out)
		return NULL;
	return new_writer(out, options);
}

void vma_xtw_free(struct vma_xtw *w)
{
	uint32_t i;

	if (!w)
		return;
	for (i = 0; i < w->nr_alloc; i++)
		free(w->pcpus[i].buf);
	free(w->pcpus);
	free(w->mem);
	free(w);
}

/* Bytes go to the end of the file: the stream, or the memory image. */
static int file_write(struct vma_xtw *w, const void *bytes, size_t n)
{
	if (w->failed)
		return VMA_ERR_OUTPUT;
	if (n == 0)
		return 0;
	if (w->out) {
		if (fwrite(bytes, 1, n, w->out) != n) {
			w->failed = true;
			return VMA_ERR_OUTPUT;
		}
	} else {
		if (n > SIZE_MAX - w->mem_len ||
		    vma_grow(w->mem, &w->mem_cap, w->mem_len + n, 4096) < 0) {
			return VMA_ERR_NOMEM;
		}
		memcpy(w->mem + w->mem_len, bytes, n);
		w->mem_len += n;
	}
	w->file_bytes += n;
	return 0;
}

static int write_cpu_change(struct vma_xtw *w, uint32_t cpu, uint32_t window_size)
{
	unsigned char hdr[12];

	put_le32(hdr, vma_xtw_header(TRC_TRACE_CPU_CHANGE, 2, false));
	put_le32(hdr + 4, cpu);
	put_le32(hdr + 8, window_size);
	return file_write(w, hdr, sizeof(hdr));
}

/* Make sure pcpus[pcpu] exists and has its buffer. */
static struct pcpu_buf *get_pcpu(struct vma_xtw *w, uint32_t pcpu, int *err)
{
	struct pcpu_buf *pb;

	if (pcpu >= VMA_XTW_MAX_PCPUS) {
		*err = VMA_ERR_USAGE;
		return NULL;
	}
	if (pcpu >= w->nr_alloc) {
		size_t cap = w->nr_alloc;

		if (vma_grow(w->pcpus, &cap, (size_t)pcpu + 1, 8)) {
			*err = VMA_ERR_NOMEM;
			return NULL;
		}
		memset(w->pcpus + w->nr_alloc, 0, (cap - w->nr_alloc) * sizeof(*w->pcpus));
		w->nr_alloc = (uint32_t)cap;
	}
	pb = &w->pcpus[pcpu];
	if (!pb->buf) {
		pb->buf = malloc(w->window_bytes);
		if (!pb->buf) {
			*err = VMA_ERR_NOMEM;
			return NULL;
		}
	}
	if (pcpu >= w->nr_used)
		w->nr_used = pcpu + 1;
	return pb;
}

int vma_xtw_flush_pcpu(struct vma_xtw *w, uint32_t pcpu)
{
	struct pcpu_buf *pb;
	int ret;

	if (w->failed)
		return VMA_ERR_OUTPUT;
	if (pcpu >= w->nr_used || w->pcpus[pcpu].len == 0)
		return 0;
	pb = &w->pcpus[pcpu];
	ret = write_cpu_change(w, pcpu, (uint32_t)pb->len);
	if (!ret)
		ret = file_write(w, pb->buf, pb->len);
	if (ret)
		return ret;
	w->buffered -= 12 + pb->len;
	pb->len = 0;
	w->windows++;
	return 0;
}

int vma_xtw_flush_all(struct vma_xtw *w)
{
	uint32_t i;
	int ret;

	for (i = 0; i < w->nr_used; i++) {
		ret = vma_xtw_flush_pcpu(w, i);
		if (ret)
			return ret;
	}
	return 0;
}

/* Room for @n more bytes in @pcpu's buffer, flushing as configured. */
static int make_room(struct vma_xtw *w, uint32_t pcpu, size_t n)
{
	if (w->pcpus[pcpu].len + n <= w->window_bytes)
		return 0;
	if (w->flush_all_on_full)
		return vma_xtw_flush_all(w);
	return vma_xtw_flush_pcpu(w, pcpu);
}

/* Copy @n bytes into @pcpu's buffer; the caller made room. */
static void buf_put(struct vma_xtw *w, struct pcpu_buf *pb, const unsigned char *bytes,
		    size_t n)
{
	if (pb->len == 0) {
		w->buffered += 12; /* the window header it will get */
	}
	memcpy(pb->buf + pb->len, bytes, n);
	pb->len += n;
	w->buffered += n;
}

/* Encode one record straight into @pcpu's buffer; ring emulation is the caller's. */
static int put_record(struct vma_xtw *w, uint32_t pcpu, uint32_t event, bool has_tsc,
		      uint64_t tsc, const uint32_t *words, unsigned int n)
{
	size_t len = 4 + (has_tsc ? 8 : 0) + 4 * (size_t)n;
	struct pcpu_buf *pb;
	unsigned char *rec;
	unsigned int i;
	int ret;

	ret = make_room(w, pcpu, len);
	if (ret)
		return ret;
	pb = &w->pcpus[pcpu];
	if (pb->len == 0) {
		w->buffered += 12; /* the window header it will get */
	}
	rec = pb->buf + pb->len;
	put_le32(rec, vma_xtw_header(event, n, has_tsc));
	rec += 4;
	if (has_tsc) {
		put_le32(rec, (uint32_t)tsc);
		put_le32(rec + 4, (uint32_t)(tsc >> 32));
		rec += 8;
		pb->last_tsc = tsc;
	}
	for (i = 0; i < n; i++)
		put_le32(rec + 4 * i, words ? words[i] : 0);
	pb->len += len;
	w->buffered += len;
	pb->records++;
	if (w->ring_bytes)
		pb->ring_pos = (pb->ring_pos + len) % w->ring_bytes;
	return 0;
}

/*
 * Xen pads the ring's tail with a wrap record when the next record does
 * not fit before the end; the padding takes exactly the bytes left.
 */
static int ring_pad(struct vma_xtw *w, uint32_t pcpu, size_t len, uint64_t tsc)
{
	struct pcpu_buf *pb = &w->pcpus[pcpu];
	uint64_t left;
	unsigned int words;
	bool has_tsc;

	if (!w->ring_bytes)
		return 0;
	left = w->ring_bytes - pb->ring_pos;
	if (left >= len)
		return 0;
	words = (unsigned int)((left - 4) / 4);
	has_tsc = words > VMA_XTW_MAX_WORDS;
	if (has_tsc)
		words -= 2;
	return put_record(w, pcpu, TRC_TRACE_WRAP_BUFFER, has_tsc, tsc, NULL, words);
}

static int add_record(struct vma_xtw *w, uint32_t pcpu, uint32_t event, bool has_tsc,
		      uint64_t tsc, const uint32_t *words, unsigned int n)
{
	struct pcpu_buf *pb;
	int ret = 0;

	if (w->failed)
		return VMA_ERR_OUTPUT;
	if (n > VMA_XTW_MAX_WORDS)
		return VMA_ERR_USAGE;
	if (pcpu < w->nr_used && w->pcpus[pcpu].buf) {
		pb = &w->pcpus[pcpu];
	} else {
		pb = get_pcpu(w, pcpu, &ret);
		if (!pb)
			return ret;
	}
	ret = ring_pad(w, pcpu, 4 + (has_tsc ? 8 : 0) + 4 * (size_t)n,
		       has_tsc ? tsc : pb->last_tsc);
	if (ret)
		return ret;
	return put_record(w, pcpu, event, has_tsc, tsc, words, n);
}

int vma_xtw_record(struct vma_xtw *w, uint32_t pcpu, uint32_t event, uint64_t tsc,
		   const uint32_t *words, unsigned int n)
{
	return add_record(w, pcpu, event, true, tsc, words, n);
}

int vma_xtw_record_notsc(struct vma_xtw *w, uint32_t pcpu, uint32_t event,
			 const uint32_t *words, unsigned int n)
{
	return add_record(w, pcpu, event, false, 0, words, n);
}

int vma_xtw_lost(struct vma_xtw *w, uint32_t pcpu, uint64_t tsc, uint32_t lost,
		 uint16_t did, uint16_t vid, uint64_t first_tsc)
{
	uint32_t words[4];

	words[0] = lost;
	words[1] = (uint32_t)did | ((uint32_t)vid << 16);
	words[2] = (uint32_t)first_tsc;
	words[3] = (uint32_t)(first_tsc >> 32);
	return add_record(w, pcpu, TRC_LOST_RECORDS, true, tsc, words, 4);
}

int vma_xtw_wrap(struct vma_xtw *w, uint32_t pcpu, unsigned int bytes, uint64_t tsc)
{
	struct pcpu_buf *pb;
	unsigned int words;
	bool has_tsc;
	int ret = 0;

	if (bytes < 4 || bytes > VMA_XTW_MAX_RECORD || bytes % 4)
		return VMA_ERR_USAGE;
	pb = get_pcpu(w, pcpu, &ret);
	if (!pb)
		return ret;
	words = (bytes - 4) / 4;
	has_tsc = words > VMA_XTW_MAX_WORDS;
	if (has_tsc)
		words -= 2;
	return put_record(w, pcpu, TRC_TRACE_WRAP_BUFFER, has_tsc, tsc, NULL, words);
}

int vma_xtw_pcpu_raw(struct vma_xtw *w, uint32_t pcpu, const void *bytes, size_t n)
{
	const unsigned char *p = bytes;
	struct pcpu_buf *pb;
	int ret = 0;

	if (w->failed)
		return VMA_ERR_OUTPUT;
	pb = get_pcpu(w, pcpu, &ret);
	if (!pb)
		return ret;
	while (n > 0) {
		size_t room, chunk;

		if (pb->len == w->window_bytes) {
			ret = vma_xtw_flush_pcpu(w, pcpu);
			if (ret)
				return ret;
		}
		room = w->window_bytes - pb->len;
		chunk = n < room ? n : room;
		buf_put(w, pb, p, chunk);
		p += chunk;
		n -= chunk;
	}
	return 0;
}

int vma_xtw_raw(struct vma_xtw *w, const void *bytes, size_t n)
{
	return file_write(w, bytes, n);
}

int vma_xtw_cpu_change(struct vma_xtw *w, uint32_t cpu, uint32_t window_size)
{
	return write_cpu_change(w, cpu, window_size);
}

int vma_xtw_finish(struct vma_xtw *w)
{
	int ret = vma_xtw_flush_all(w);

	if (ret)
		return ret;
	if (w->out && fflush(w->out) != 0) {
		w->failed = true;
		return VMA_ERR_OUTPUT;
	}
	return 0;
}

const unsigned char *vma_xtw_data(const struct vma_xtw *w, size_t *len)
{
	*len = w->mem_len;
	return w->mem;
}

uint64_t vma_xtw_bytes(const struct vma_xtw *w)
{
	return w->file_bytes + w->buffered;
}

uint64_t vma_xtw_pcpu_records(const struct vma_xtw *w, uint32_t pcpu)
{
	return pcpu < w->nr_used ? w->pcpus[pcpu].records : 0;
}

uint32_t vma_xtw_nr_pcpus(const struct vma_xtw *w)
{
	return w->nr_used;
}

uint64_t vma_xtw_windows(const struct vma_xtw *w)
{
	return w->windows;
}
