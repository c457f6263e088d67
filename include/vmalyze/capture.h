/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Capture stage: records Xen's trace buffers into a xentrace file, the
 * layout xentrace writes and every xentrace reader reads (each chunk of a
 * pcpu's buffer behind a TRC_TRACE_CPU_CHANGE {cpu, window_size} record).
 *
 * The hypervisor is reached only through struct vma_tbuf_ops, so the
 * consumer logic (producer/consumer indices, wrap, lost records, window
 * writing) is the same against Xen (vma_xen_tbuf_open(), libxenctrl,
 * libxenforeignmemory, libxenevtchn) and against buffers simulated in
 * memory by the tests, laid out as xen/trace.h's struct t_info and
 * struct t_buf define them:
 *
 *   t_info:   u16 tbuf_size (pages per cpu), u16 mfn_offset[cpu], then
 *             per cpu, at ((u32 *)t_info)[mfn_offset[cpu]], the u32 MFNs
 *             of its buffer pages (mfn_offset 0: no buffer);
 *   a buffer: struct t_buf {u32 cons, prod} then the data area of
 *             X = tbuf_size * 4096 - 8 bytes; cons and prod run modulo
 *             2X, so that a full buffer differs from an empty one.
 */
#ifndef VMALYZE_CAPTURE_H
#define VMALYZE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vma_diag;

#define VMA_TBUF_PAGE 4096u
#define VMA_CAPTURE_MAX_CPUS 4096u

/*
 * The hypervisor calls of a capture.  Each returns 0 or a negative errno
 * value unless said otherwise; @hv is the implementation's handle.
 */
struct vma_tbuf_ops {
	/* Pcpus the host has (buffers are looked for on 0..n-1). */
	uint32_t (*nr_cpus)(void *hv);
	/* TSC frequency in kHz (xc_physinfo's cpu_khz), 0 if unknown. */
	uint32_t (*cpu_khz)(void *hv);
	int (*set_size)(void *hv, uint32_t pages);
	int (*set_evt_mask)(void *hv, uint32_t mask);
	/* @mask: one bit per pcpu, @nr_cpus of them. */
	int (*set_cpu_mask)(void *hv, const uint8_t *mask, uint32_t nr_cpus);
	/* Enable tracing: the first MFN and size in bytes of the t_info area. */
	int (*enable)(void *hv, uint32_t pages, uint64_t *tinfo_mfn, uint64_t *tinfo_bytes);
	int (*disable)(void *hv);
	/*
	 * Map @nr pages of Xen's heap, read-only or read and write (the
	 * buffers, whose cons we store).  Xen shares t_info read-only: a
	 * writable mapping of it is refused.  NULL on failure (errno).
	 */
	void *(*map)(void *hv, const uint64_t *mfns, uint32_t nr, bool writable);
	void (*unmap)(void *hv, void *addr, uint32_t nr);
	/*
	 * Wait up to @timeout_ms for VIRQ_TBUF (a buffer is getting full).
	 * Return: 1 when it fired, 0 on timeout or a signal, negative errno.
	 */
	int (*wait)(void *hv, int timeout_ms);
	void (*close)(void *hv);
};

struct vma_capture_options {
	uint32_t evt_mask;         /* TRC_* class mask; 0 = everything */
	const uint8_t *cpu_mask;   /* bit per pcpu; NULL = every pcpu */
	uint32_t cpu_mask_bits;
	uint32_t buffer_kb;        /* per-cpu buffer size; 0 = default (256 KiB) */
	/*
	 * Discard what the buffers hold when the capture starts (xentrace -D):
	 * records left from before it, when tracing was already enabled.
	 */
	bool discard;
};

/* Where windows go: return 0, or a negative VMA_ERR_*. */
typedef int (*vma_capture_write_fn)(void *arg, const void *bytes, size_t len);

struct vma_capture_stats {
	uint64_t bytes;            /* written, headers included */
	uint64_t windows;
	uint64_t lost_markers;     /* TRC_LOST_RECORDS records seen */
	uint64_t lost_records;     /* records Xen says it dropped */
	uint64_t discarded;        /* bytes dropped at the start (discard) */
	uint32_t nr_buffers;       /* pcpus with a trace buffer */
	uint32_t cpu_khz;
};

struct vma_capture;

/*
 * vma_capture_start - set the buffer size and masks, enable tracing and map
 * t_info and every pcpu's buffer, then, with @options->discard, give
 * back what the buffers already hold.  On failure everything done is undone.
 * Return: VMA_OK and *out (owned: vma_capture_stop()), or a negative
 * VMA_ERR_* after a message on @diag.
 */
int vma_capture_start(const struct vma_tbuf_ops *ops, void *hv,
		      const struct vma_capture_options *options, struct vma_diag *diag,
		      struct vma_capture **out);

/*
 * vma_capture_drain - copy what every buffer holds beyond its consumer
 * index to @write, one window per buffer that has data, and move the
 * index on.  Return: bytes written (>= 0) or a negative VMA_ERR_*.
 */
int64_t vma_capture_drain(struct vma_capture *cap, vma_capture_write_fn write, void *arg);

/*
 * vma_capture_disable - switch tracing off (the buffers stay mapped, for a
 * last vma_capture_drain()).  Return: 0, or VMA_ERR_IO after a message.
 */
int vma_capture_disable(struct vma_capture *cap);

/* Wait for the hypervisor (ops->wait): 1, 0 or a negative errno. */
int vma_capture_wait(struct vma_capture *cap, int timeout_ms);

const struct vma_capture_stats *vma_capture_stats(const struct vma_capture *cap);

/*
 * vma_capture_stop - disable tracing (unless done), unmap every page, close the
 * hypervisor handle.  Always safe on a started capture; NULL is a no-op.
 */
void vma_capture_stop(struct vma_capture *cap);

/*
 * vma_xen_tbuf_open - the real hypervisor: libxenctrl, libxenforeignmemory
 * and libxenevtchn.  Without Xen (no /dev/xen/privcmd), outside dom0 or
 * without permission, one message saying which goes to @diag.
 * Return: VMA_OK with *ops and *hv set, or VMA_ERR_IO.
 */
int vma_xen_tbuf_open(struct vma_diag *diag, const struct vma_tbuf_ops **ops, void **hv);

/* How a hypervisor is reached: vma_xen_tbuf_open(), vma_xen_host_open(), or a simulation. */
typedef int (*vma_tbuf_open_fn)(struct vma_diag *diag, const struct vma_tbuf_ops **ops,
				void **hv);

/*
 * vma_xen_host_open - the real hypervisor for its description only:
 * libxenctrl and xc_physinfo.  Of *ops only nr_cpus, cpu_khz and close are
 * set.  Quiet and quick where there is no Xen (no libxenctrl call without
 * /dev/xen/privcmd): why it failed is a vma_diag_info() line (-v).
 * Return: VMA_OK with *ops and *hv set, VMA_ERR_IO or VMA_ERR_NOMEM.
 */
int vma_xen_host_open(struct vma_diag *diag, const struct vma_tbuf_ops **ops, void **hv);

/*
 * vma_capture_host_hz - the TSC frequency an analysis on this host takes
 * when --cpu-hz is not given: the host's (ops->cpu_khz) when @open reaches
 * a hypervisor that knows it, else @fallback.  Which one and why is a
 * vma_diag_info() line on @diag (-v); nothing at lower verbosity.
 */
uint64_t vma_capture_host_hz(vma_tbuf_open_fn open, struct vma_diag *diag, uint64_t fallback);

#endif /* VMALYZE_CAPTURE_H */
