/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracedat-writer: builds trace-cmd trace.dat files (v6, and v7 plain,
 * zlib or zstd) and raw ftrace ring-buffer pages, in memory, for test
 * fixtures.  Laid out from the documented formats (trace-cmd.dat.v6(5),
 * trace-cmd.dat.v7(5)) and the kernel's ring-buffer page format.
 *
 * Three layers:
 *  - vma_rbw_*: one ring-buffer page, event by event, including the
 *    records a reader must handle besides data (time extends, absolute
 *    stamps, discarded events, end padding, lost-events flags);
 *  - vma_tdw_*: a whole trace.dat: event formats, saved cmdlines, options
 *    and per-cpu events, packed into pages like the kernel does (a time
 *    extend before an event whose delta needs more than 27 bits, a new
 *    page when one is full);
 *  - vma_mkdat_*: the KVM scenarios of tools/vmalyze-mkdat and the golden
 *    tests (VMX, SVM and arm64 kvm_exit/kvm_entry layouts, kvm_pio,
 *    kvm_mmio, kvm_msr, kvm_userspace_exit, sched_switch), deterministic,
 *    with the list of records a reader should get back from the file.
 *
 * The event format texts are the project's own, modeled on the kernel's
 * tracefs format files.
 */
#ifndef VMALYZE_TRACEDAT_WRITER_H
#define VMALYZE_TRACEDAT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmalyze/kvm-events.h"

/* ---- one ring-buffer page ------------------------------------------------ */

struct vma_rbw {
	unsigned char *page;  /* borrowed: page_size bytes */
	uint32_t page_size;
	uint32_t long_size;   /* 4 or 8: size of the commit word */
	uint32_t data_offset; /* 8 + long_size */
	uint32_t pos;         /* next free byte, from the page start */
	bool big_endian;
};

/* Starts an empty page whose header time stamp is @ts. */
void vma_rbw_start(struct vma_rbw *p, unsigned char *page, uint32_t page_size,
		   uint32_t long_size, bool big_endian, uint64_t ts);

/* Free bytes left for events. */
uint32_t vma_rbw_room(const struct vma_rbw *p);

/*
 * vma_rbw_data - a data event of @len payload bytes (padded to 4) with a
 * 27-bit @delta.  @force_len0 uses the type_len 0 form (array[0] holds the
 * length) even for a short payload.  Return: 0, or -1 when it does not fit.
 */
int vma_rbw_data(struct vma_rbw *p, uint32_t delta, const void *data, uint32_t len,
		 bool force_len0);

/* A TIME_EXTEND of @delta (up to 59 bits).  Return: 0 or -1. */
int vma_rbw_extend(struct vma_rbw *p, uint64_t delta);

/* A TIME_STAMP (absolute) of the low 59 bits of @ts.  Return: 0 or -1. */
int vma_rbw_stamp(struct vma_rbw *p, uint64_t ts);

/* A discarded event: padding of @len payload bytes with a non-zero @delta.  Return: 0/-1. */
int vma_rbw_discard(struct vma_rbw *p, uint32_t delta, uint32_t len);

/* Null padding to the end of the page (counted in the commit).  Return: 0/-1. */
int vma_rbw_pad_end(struct vma_rbw *p);

/*
 * vma_rbw_commit - write the commit word: the bytes of events, plus the
 * lost-events flag when @missed, and the lost count stored after the events
 * when @count is not UINT64_MAX (and it fits).
 */
void vma_rbw_commit(struct vma_rbw *p, bool missed, uint64_t count);

/* Store @size bytes (1, 2, 4, 8) of @val at @buf in the file's byte order. */
void vma_tdw_put(void *buf, uint32_t size, uint64_t val, bool big_endian);

/* ---- a trace.dat --------------------------------------------------------- */

enum vma_tdw_codec {
	VMA_TDW_NONE = 0,
	VMA_TDW_ZLIB,
	VMA_TDW_ZSTD,
};

struct vma_tdw_opts {
	unsigned int version;        /* 6 or 7 */
	enum vma_tdw_codec codec;    /* v7 only */
	bool big_endian;
	uint32_t page_size;          /* 0: 4096 */
	uint32_t nr_cpus;            /* cpus of every instance */
	const char *clock;           /* NULL: "local" */
	uint32_t tsc2nsec_mult;      /* 0: no TSC2NSEC option */
	uint32_t tsc2nsec_shift;
	uint64_t trace_id;           /* 0: no TRACEID option */
	uint32_t chunk_pages;        /* v7 compressed: pages per chunk; 0: 8 */
	bool compress_meta;          /* v7 compressed: compress the metadata sections too */
	const char *uname;           /* NULL: no UNAME option */
};

struct vma_tdw;

/* Return: owned (free with vma_tdw_free()), NULL on bad options or no memory. */
struct vma_tdw *vma_tdw_new(const struct vma_tdw_opts *opts);
void vma_tdw_free(struct vma_tdw *w);

/* Adds a tracefs format text (with its "ID:" line) of @system.  Return: 0/-1. */
int vma_tdw_format(struct vma_tdw *w, const char *system, const char *text);

/* A saved cmdline: @pid ran as @comm.  Return: 0/-1. */
int vma_tdw_cmdline(struct vma_tdw *w, uint32_t pid, const char *comm);

/* A GUEST option (host files): guest @name, its trace id, host pid per vcpu.  Return: 0/-1. */
int vma_tdw_guest(struct vma_tdw *w, const char *name, uint64_t trace_id, uint32_t nr_vcpus,
		  const uint32_t *pids);

/* A TIME_SHIFT option (guest files), one sample per cpu.  Return: 0/-1. */
int vma_tdw_time_shift(struct vma_tdw *w, uint64_t peer_id, int64_t offset);

/* A named instance (BUFFER option); the top instance is 0.  Return: its index, or -1. */
int vma_tdw_instance(struct vma_tdw *w, const char *name);

/*
 * vma_tdw_event - append an event to @cpu of instance @inst, at file time
 * @ts (not before the cpu's previous event).  @data starts with the common
 * fields.  Return: 0/-1.
 */
int vma_tdw_event(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t ts, const void *data,
		  uint32_t len);

/* A discarded event of @len bytes at @ts (a reader skips it).  Return: 0/-1. */
int vma_tdw_discard(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t ts, uint32_t len);

/* An absolute TIME_STAMP record of @ts before the next event.  Return: 0/-1. */
int vma_tdw_stamp(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t ts);

/*
 * vma_tdw_lost - the cpu's current page is closed and the next one says
 * events were lost before it (@count of them, UINT64_MAX: not stored).
 */
int vma_tdw_lost(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t count);

/* Builds the file.  Return: 0 and *out owned (free()), or -1. */
int vma_tdw_finish(struct vma_tdw *w, unsigned char **out, size_t *len);

/* Where the last finished file holds the data of @cpu of instance @inst.  Return: 0/-1. */
int vma_tdw_cpu_data(struct vma_tdw *w, int inst, uint32_t cpu, uint64_t *offset,
		     uint64_t *size);

/* The pages of @cpu of instance @inst, closed: for raw dumps. */
int vma_tdw_pages(struct vma_tdw *w, int inst, uint32_t cpu, const unsigned char **pages,
		  size_t *len);

/* ---- KVM scenarios --------------------------------------------------------- */

enum vma_mkdat_arch {
	VMA_MKDAT_VMX = 0,
	VMA_MKDAT_SVM,
	VMA_MKDAT_ARM64,
};

struct vma_mkdat_opts {
	enum vma_mkdat_arch arch;
	unsigned int version;        /* 6 or 7 */
	enum vma_tdw_codec codec;
	uint32_t nr_cpus;            /* 0: 2 */
	uint32_t nr_vcpus;           /* 0: 2 */
	uint32_t exits;              /* kvm_exit per vcpu; 0: 200 */
	uint32_t seed;
	bool tsc;                    /* x86-tsc clock with TSC2NSEC, else "local" */
	bool extras;                 /* time extends, a discarded event, lost events, an instance */
	bool big_endian;
	bool raw;                    /* a vm-trace raw dump of cpu 0 (needs nr_cpus 1) */
};

/* One record a reader should deliver, in each cpu's order. */
struct vma_mkdat_rec {
	uint64_t time;               /* in ns, after TSC2NSEC */
	uint32_t inst;               /* 0: top instance, 1: the extra one */
	uint32_t cpu;
	uint32_t pid;
	uint32_t event;              /* VMA_KVM_* */
	uint16_t nr_data;
	uint32_t data[VMA_REC_MAX_WORDS];
};

/*
 * vma_mkdat_build - the scenario of @opts as a trace.dat image, and the
 * records it holds (VMA_KVM_LOST records included, where pages say so).
 * Return: 0 with *file and *recs owned (free()), or -1.
 */
int vma_mkdat_build(const struct vma_mkdat_opts *opts, unsigned char **file, size_t *len,
		    struct vma_mkdat_rec **recs, size_t *nr_recs);

/*
 * vma_mkdat_formats - hand the scenario's tracefs texts to @put: header_page
 * and header_event (system NULL), then each event format.  For the
 * --event-formats folder of a raw dump.  Return: 0, or -1 when @put fails.
 */
int vma_mkdat_formats(enum vma_mkdat_arch arch, int (*put)(void *arg, const char *system,
							    const char *name, const char *text),
		      void *arg);

#endif /* VMALYZE_TRACEDAT_WRITER_H */
