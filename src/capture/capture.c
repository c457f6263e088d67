/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace-buffer consumer (capture.h): Xen produces records into one
 * buffer per pcpu and moves its prod index on; we copy the bytes between
 * cons and prod into the file as one window, then move cons on, which
 * gives the space back to Xen.  Indices run modulo twice the data size,
 * so prod - cons (mod 2X) is the amount to copy, and a window that
 * crosses the end of the data area is written in two pieces.  When a
 * buffer was full Xen drops records and, once there is room again, writes
 * a TRC_LOST_RECORDS record saying how many: those are counted as they
 * pass, so the user learns the buffers were too small.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/capture.h"
#include "vmalyze/diag.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

#define DEFAULT_BUFFER_KB 256u
#define TBUF_HEADER 8u /* struct t_buf: u32 cons, u32 prod */
#define CPU_CHANGE_HEADER ((2u << TRACE_EXTRA_SHIFT) | TRC_TRACE_CPU_CHANGE)

struct buffer {
	uint32_t cpu;
	unsigned char *base; /* struct t_buf, then the data area */
};

struct vma_capture {
	const struct vma_tbuf_ops *ops;
	void *hv;
	struct vma_diag *diag;
	bool enabled;
	void *tinfo;
	uint32_t tinfo_pages;
	uint32_t pages;       /* per buffer */
	uint32_t data_size;   /* X */
	struct buffer *bufs;
	uint32_t nr_bufs;
	struct vma_capture_stats stats;
};

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static int fail(struct vma_capture *cap, int err, const char *what)
{
	vma_diag_report(cap->diag, VMA_LVL_INPUT, "trace buffers", UINT64_MAX, "%s: %s", what,
			strerror(err > 0 ? err : -err));
	return VMA_ERR_IO;
}

/* Map every pcpu's buffer that t_info lists. */
static int map_buffers(struct vma_capture *cap, uint64_t tinfo_bytes)
{
	const unsigned char *ti = cap->tinfo;
	uint32_t nr = cap->ops->nr_cpus(cap->hv), cpu, i;
	uint64_t *mfns;

	cap->pages = get16(ti);
	if (cap->pages == 0 || (uint64_t)cap->pages * VMA_TBUF_PAGE <= TBUF_HEADER) {
		vma_diag_report(cap->diag, VMA_LVL_INPUT, "trace buffers", UINT64_MAX,
				"t_info says the buffers are %u pages", cap->pages);
		return VMA_ERR_IO;
	}
	cap->data_size = cap->pages * VMA_TBUF_PAGE - TBUF_HEADER;
	if (nr > VMA_CAPTURE_MAX_CPUS)
		nr = VMA_CAPTURE_MAX_CPUS;
	cap->bufs = calloc(nr ? nr : 1, sizeof(*cap->bufs));
	mfns = calloc(cap->pages, sizeof(*mfns));
	if (!cap->bufs || !mfns) {
		free(mfns);
		return VMA_ERR_NOMEM;
	}
	for (cpu = 0; cpu < nr && 2 + 2 * (uint64_t)cpu + 2 <= tinfo_bytes; cpu++) {
		uint32_t off = get16(ti + 2 + 2 * cpu);
		void *base;

		if (off == 0)
			continue; /* no buffer on this pcpu (offline, or not in the mask) */
		if (4 * ((uint64_t)off + cap->pages) > tinfo_bytes) {
			vma_diag_report(cap->diag, VMA_LVL_INPUT, "trace buffers", UINT64_MAX,
					"t_info's page list of pcpu %u lies outside it", cpu);
			free(mfns);
			return VMA_ERR_IO;
		}
		for (i = 0; i < cap->pages; i++)
			mfns[i] = get32(ti + 4 * ((uint64_t)off + i));
		base = cap->ops->map(cap->hv, mfns, cap->pages, true);
		if (!base) {
			free(mfns);
			return fail(cap, errno, "Cannot map a pcpu's trace buffer");
		}
		cap->bufs[cap->nr_bufs++] = (struct buffer){ cpu, base };
	}
	free(mfns);
	cap->stats.nr_buffers = cap->nr_bufs;
	return VMA_OK;
}

/*
 * Move every consumer index up to its producer index: what tracing left in
 * the buffers before this capture (a previous session's tail) is dropped.
 */
static void discard_pending(struct vma_capture *cap)
{
	uint32_t x = cap->data_size, i;

	for (i = 0; i < cap->nr_bufs; i++) {
		uint32_t *cons_p = (uint32_t *)cap->bufs[i].base, *prod_p = cons_p + 1;
		uint32_t prod = __atomic_load_n(prod_p, __ATOMIC_ACQUIRE);
		uint32_t cons = __atomic_load_n(cons_p, __ATOMIC_RELAXED);

		/* Damaged indices are left to vma_capture_drain(), which reports them. */
		if (prod >= 2 * x || cons >= 2 * x)
			continue;
		cap->stats.discarded += prod >= cons ? prod - cons : prod + 2 * x - cons;
		__atomic_store_n(cons_p, prod, __ATOMIC_RELEASE);
	}
}

int vma_capture_start(const struct vma_tbuf_ops *ops, void *hv,
		      const struct vma_capture_options *options, struct vma_diag *diag,
		      struct vma_capture **out)
{
	struct vma_capture *cap = calloc(1, sizeof(*cap));
	uint32_t kb = options->buffer_kb ? options->buffer_kb : DEFAULT_BUFFER_KB;
	uint32_t pages = (uint32_t)(((uint64_t)kb * 1024 + VMA_TBUF_PAGE - 1) / VMA_TBUF_PAGE);
	uint64_t tinfo_mfn, tinfo_bytes, *mfns;
	uint32_t i;
	int rc;

	*out = NULL;
	if (!cap)
		return VMA_ERR_NOMEM;
	cap->ops = ops;
	cap->hv = hv;
	cap->diag = diag;
	cap->stats.cpu_khz = ops->cpu_khz(hv);
	if (pages > UINT16_MAX)
		pages = UINT16_MAX; /* t_info holds the size in 16 bits */
	/* The size can be set once per boot: a second capture keeps the first size. */
	rc = ops->set_size(hv, pages);
	if (rc) {
		vma_diag_info(diag, "trace buffers: size not changed (%s): it is set once per boot",
			      strerror(-rc));
	}
	rc = ops->set_evt_mask(hv, options->evt_mask ? options->evt_mask : TRC_ALL);
	if (rc) {
		rc = fail(cap, rc, "Cannot set the event mask");
		goto undo;
	}
	if (options->cpu_mask) {
		rc = ops->set_cpu_mask(hv, options->cpu_mask, options->cpu_mask_bits);
		if (rc) {
			rc = fail(cap, rc, "Cannot set the pcpu mask");
			goto undo;
		}
	}
	rc = ops->enable(hv, pages, &tinfo_mfn, &tinfo_bytes);
	if (rc) {
		rc = fail(cap, rc, "Cannot enable tracing");
		goto undo;
	}
	cap->enabled = true;
	if (tinfo_bytes < 4 || tinfo_bytes > (64u << 20)) {
		vma_diag_report(diag, VMA_LVL_INPUT, "trace buffers", UINT64_MAX,
				"Xen gave a t_info area of %" PRIu64 " bytes", tinfo_bytes);
		rc = VMA_ERR_IO;
		goto undo;
	}
	cap->tinfo_pages = (uint32_t)((tinfo_bytes + VMA_TBUF_PAGE - 1) / VMA_TBUF_PAGE);
	mfns = calloc(cap->tinfo_pages, sizeof(*mfns));
	if (!mfns) {
		rc = VMA_ERR_NOMEM;
		goto undo;
	}
	for (i = 0; i < cap->tinfo_pages; i++)
		mfns[i] = tinfo_mfn + i;
	/* Read-only: Xen shares t_info so, and refuses a writable mapping. */
	cap->tinfo = ops->map(hv, mfns, cap->tinfo_pages, false);
	free(mfns);
	if (!cap->tinfo) {
		rc = fail(cap, errno, "Cannot map the trace buffers' t_info");
		goto undo;
	}
	rc = map_buffers(cap, tinfo_bytes);
	if (rc)
		goto undo;
	if (options->discard)
		discard_pending(cap);
	*out = cap;
	return VMA_OK;
undo:
	vma_capture_stop(cap);
	return rc;
}

/* Count the lost-record markers in @len bytes at logical offset 0 of a window. */
static void count_lost(struct vma_capture *cap, const unsigned char *data, uint32_t start,
		       uint32_t len)
{
	uint32_t pos = 0, x = cap->data_size;
	unsigned char rec[4 + 8 + 4 * TRACE_EXTRA_MAX];

	while (pos + 4 <= len) {
		uint32_t hdr, size, i;

		for (i = 0; i < 4; i++)
			rec[i] = data[(start + pos + i) % x];
		hdr = get32(rec);
		size = 4 + (TRC_HD_INCLUDES_CYCLE_COUNT(hdr) ? 8 : 0) + 4 * TRC_HD_EXTRA(hdr);
		if (pos + size > len)
			break;
		if (TRC_HD_TO_EVENT(hdr) == TRC_LOST_RECORDS && TRC_HD_EXTRA(hdr) >= 1) {
			uint32_t w = size - 4 * TRC_HD_EXTRA(hdr);

			for (i = 0; i < 4; i++)
				rec[w + i] = data[(start + pos + w + i) % x];
			cap->stats.lost_markers++;
			cap->stats.lost_records += get32(rec + w);
		}
		pos += size;
	}
}

int64_t vma_capture_drain(struct vma_capture *cap, vma_capture_write_fn write, void *arg)
{
	uint32_t x = cap->data_size, i;
	int64_t written = 0;

	for (i = 0; i < cap->nr_bufs; i++) {
		struct buffer *b = &cap->bufs[i];
		uint32_t *cons_p = (uint32_t *)b->base, *prod_p = cons_p + 1;
		unsigned char *data = b->base + TBUF_HEADER;
		unsigned char hdr[12];
		uint32_t prod, cons, size, start, first;
		int rc;

		/* Read prod before the data it covers. */
		prod = __atomic_load_n(prod_p, __ATOMIC_ACQUIRE);
		cons = __atomic_load_n(cons_p, __ATOMIC_RELAXED);
		if (prod == cons)
			continue;
		if (prod >= 2 * x || cons >= 2 * x) {
			vma_diag_report(cap->diag, VMA_LVL_FILE, "trace buffers", UINT64_MAX,
					"pcpu %u: indices out of range (cons %u, prod %u, size "
					"%u): its buffer is skipped from here",
					b->cpu, cons, prod, x);
			__atomic_store_n(cons_p, prod < 2 * x ? prod : 0, __ATOMIC_RELEASE);
			continue;
		}
		size = prod >= cons ? prod - cons : prod + 2 * x - cons;
		if (size > x) {
			vma_diag_report(cap->diag, VMA_LVL_FILE, "trace buffers", UINT64_MAX,
					"pcpu %u: %u bytes pending in a buffer of %u", b->cpu, size,
					x);
			__atomic_store_n(cons_p, prod, __ATOMIC_RELEASE);
			continue;
		}
		start = cons >= x ? cons - x : cons;
		first = x - start < size ? x - start : size;
		put32(hdr, CPU_CHANGE_HEADER);
		put32(hdr + 4, b->cpu);
		put32(hdr + 8, size);
		rc = write(arg, hdr, sizeof(hdr));
		if (!rc)
			rc = write(arg, data + start, first);
		if (!rc && size > first)
			rc = write(arg, data, size - first);
		if (rc)
			return rc;
		count_lost(cap, data, start, size);
		/* Give the space back only once it is copied. */
		__atomic_store_n(cons_p, prod, __ATOMIC_RELEASE);
		cap->stats.windows++;
		cap->stats.bytes += sizeof(hdr) + size;
		written += (int64_t)(sizeof(hdr) + size);
	}
	return written;
}

int vma_capture_disable(struct vma_capture *cap)
{
	if (!cap->enabled)
		return VMA_OK;
	cap->enabled = false;
	if (cap->ops->disable(cap->hv)) {
		vma_diag_report(cap->diag, VMA_LVL_WARN, "trace buffers", UINT64_MAX,
				"Cannot disable tracing: the buffers stay enabled until the next "
				"capture disables them");
		return VMA_ERR_IO;
	}
	return VMA_OK;
}

int vma_capture_wait(struct vma_capture *cap, int timeout_ms)
{
	return cap->ops->wait(cap->hv, timeout_ms);
}

const struct vma_capture_stats *vma_capture_stats(const struct vma_capture *cap)
{
	return &cap->stats;
}

void vma_capture_stop(struct vma_capture *cap)
{
	uint32_t i;

	if (!cap)
		return;
	vma_capture_disable(cap);
	for (i = 0; i < cap->nr_bufs; i++)
		cap->ops->unmap(cap->hv, cap->bufs[i].base, cap->pages);
	if (cap->tinfo)
		cap->ops->unmap(cap->hv, cap->tinfo, cap->tinfo_pages);
	cap->ops->close(cap->hv);
	free(cap->bufs);
	free(cap);
}

uint64_t vma_capture_host_hz(vma_tbuf_open_fn open, struct vma_diag *diag, uint64_t fallback)
{
	const struct vma_tbuf_ops *ops;
	uint32_t khz;
	void *hv;

	if (open(diag, &ops, &hv)) {
		vma_diag_info(diag, "--cpu-hz not given: %" PRIu64 " Hz, the default", fallback);
		return fallback;
	}
	khz = ops->cpu_khz(hv);
	ops->close(hv);
	if (!khz) {
		vma_diag_info(diag,
			      "--cpu-hz not given: %" PRIu64 " Hz, the default (the Xen host does "
			      "not say its TSC frequency)",
			      fallback);
		return fallback;
	}
	vma_diag_info(diag, "--cpu-hz not given: %" PRIu64 " Hz, this Xen host's TSC (xc_physinfo)",
		      (uint64_t)khz * 1000);
	return (uint64_t)khz * 1000;
}
