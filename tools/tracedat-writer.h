/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracedat-writer: builds trace-cmd trace.dat files (v6, and v7 plain,
 * zlib or zstd) in memory, for test fixtures: event formats, saved
 * cmdlines, options and per-cpu events, packed into pages like the kernel
 * does (a time extend before an event whose delta needs more than 27 bits,
 * a new page when one is full).  Laid out from the documented formats
 * (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)); pages come from
 * ringbuf-writer.h.  The KVM scenarios built on it are in kvm-scenario.h.
 */
#ifndef VMALYZE_TRACEDAT_WRITER_H
#define VMALYZE_TRACEDAT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ringbuf-writer.h"

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
	const char *kallsyms;        /* /proc/kallsyms text; NULL: none (v7: no section) */
	const char *printk;          /* printk formats text; NULL: none, likewise */
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

#endif /* VMALYZE_TRACEDAT_WRITER_H */
