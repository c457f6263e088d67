/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private interfaces of the trace.dat reader (tracedat*.c): the file's
 * state while it is opened, the cursor its parts are read with, and the
 * readers of its parts: tracedat-cursor.c (bounded reads, messages),
 * tracedat-sections.c (headers, formats, symbols and cmdlines, v7 sections,
 * v6 layout), tracedat-options.c (options), tracedat.c (opening, the
 * per-cpu streams).  Nothing outside these files includes this.
 */
#ifndef VMALYZE_TRACEDAT_INTERNAL_H
#define VMALYZE_TRACEDAT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/kvm-internal.h"
/* Option and section ids (trace-cmd.dat.v7(5)). */
enum {
	OPT_DONE = 0,
	OPT_DATE = 1,
	OPT_BUFFER = 3,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
	OPT_OFFSET = 7,
	OPT_CPUCOUNT = 8,
	OPT_TRACEID = 11,
	OPT_TIME_SHIFT = 12,
	OPT_GUEST = 13,
	OPT_TSC2NSEC = 14,
	OPT_HEADER_INFO = 16,
	OPT_FTRACE_EVENTS = 17,
	OPT_EVENT_FORMATS = 18,
	OPT_KALLSYMS = 19,
	OPT_PRINTK = 20,
	OPT_CMDLINES = 21,
	OPT_BUFFER_TEXT = 22,
	OPT_MAX_SECTION = 32,
};

#define SEC_FL_COMPRESSED 1
/* A v7 section's head: id, flags, description, size; compressed, two sizes more. */
#define SEC_HEAD_MAX 24
/* Sanity limits: far above anything trace-cmd writes, low enough to stay in memory. */
#define MAX_CPUS 8192
/* a header text or section, expanded (twice that is held while it is read) */
#define MAX_TEXT (16u << 20)
/* saved command lines: the kernel keeps at most PID_MAX_DEFAULT of them */
#define MAX_CMDLINES 32768u
#define MAX_SECTIONS 1024
#define MAX_FORMATS 100000
/* event formats of all systems (kvm-internal.h) */
#define MAX_ALL_FORMATS VMA_KVM_MAX_FORMATS
#define MAX_INSTANCES 256

struct dat_cpu {
	uint32_t cpu;
	uint64_t offset;
	uint64_t size;
	uint64_t at;              /* v6: file offset of the flyrecord's pair for it */
};

struct dat_buffer {
	char *name;               /* "" for the top instance */
	char *clock;              /* v7: this instance's trace clock */
	uint64_t offset;          /* v7: BUFFER section; v6: the instance's flyrecord */
	uint32_t page_size;
	uint32_t nr_cpus;
	struct dat_cpu *cpus;
	bool compressed;
};

struct dat {
	struct vma_input *in;
	struct vma_kvm_priv *priv;
	unsigned int version;
	bool big;
	uint32_t long_size;
	uint32_t page_size;
	uint32_t cpus;            /* header count, or CPUCOUNT */
	struct vma_decomp *dc;    /* for compressed sections */
	bool trace_clock_follows; /* v6: TRACECLOCK option, clock text after flyrecord */
	char *trace_clock;        /* the "[clock]" of the trace_clock text */
	uint64_t section[OPT_MAX_SECTION]; /* v7: section offsets from options */
	struct dat_buffer top;
	struct dat_buffer *inst;  /* other instances */
	uint32_t nr_inst;
	bool failed;              /* a cursor reported; no second message */
	int spool_error;          /* the copy of a pipe failed: its VMA_ERR_*, or 0 */
	const char *optional;     /* the part read only for the dump's text ("kallsyms"), or NULL */
	bool nomem;
	bool in_instance;         /* v6: reading an instance header, BUFFER options ignored */
	uint32_t unnamed_formats; /* format texts without a name or id */
	uint64_t formats_kept, format_bytes; /* named ones of all systems (kvm-internal.h) */
};

/*
 * A reader of the file or of a section held in memory.  The first read
 * past the end reports where the data stop, then every read fails.
 */
struct cur {
	struct dat *d;
	const unsigned char *mem; /* NULL: read the file */
	uint64_t pos, end;        /* file offsets, or indices into mem */
	uint64_t base;            /* file offset of mem, for messages */
	const char *what;         /* the part being read, for messages */
};

/* ---- cursor (tracedat-cursor.c) ------------------------------------------- */

void td_cur_file(struct cur *c, struct dat *d, uint64_t pos, const char *what);
/* A cursor over @len bytes at @mem, a section that lies at file offset @base. */
void td_cur_mem(struct cur *c, struct dat *d, const unsigned char *mem, uint64_t len,
		uint64_t base, const char *what);
/* The file offset a message about the cursor's part names. */
uint64_t td_cur_at(const struct cur *c);
/* Damage that leaves the whole file unreadable.  Return: -1. */
int td_fatal(struct dat *d, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Out of memory while reading the header.  Return: -1. */
int td_oom(struct dat *d);
/*
 * On a pipe (in->spool): have its copy extended to hold the @n bytes at
 * @pos, @what needing them, if the pipe has them (@what NULL: as far as
 * the cap allows, see vma_input_spool_to()).  Else nothing to do.
 * Return: 0, or -1 after a report (d->failed, d->spool_error).
 */
int td_fetch(struct dat *d, uint64_t pos, uint64_t n, const char *what);
/* Whether the file or section has @n bytes at the cursor (false after a report too). */
bool td_cur_has(struct cur *c, uint64_t n);
/* Reports that @need more bytes were missing at the cursor.  Return: -1. */
int td_cur_short(struct cur *c, uint64_t need);
/* Reads at the cursor, in the file's byte order.  Return: 0, or -1 after a report. */
int td_cur_read(struct cur *c, void *buf, size_t n);
int td_cur_u16(struct cur *c, uint32_t *v);
int td_cur_u32(struct cur *c, uint32_t *v);
int td_cur_u64(struct cur *c, uint64_t *v);
/* @n bytes as an owned NUL-terminated text; NULL after a report. */
char *td_cur_text(struct cur *c, uint64_t n);
/* A NUL-terminated string of at most @max bytes, owned; NULL after a report. */
char *td_cur_str(struct cur *c, size_t max);

/* ---- headers, formats, symbols, cmdlines, sections (tracedat-sections.c) -- */

int td_read_header_info(struct dat *d, struct cur *c);
int td_read_ftrace_formats(struct dat *d, struct cur *c);
int td_read_event_formats(struct dat *d, struct cur *c);
/*
 * One of the v7 kallsyms and printk sections td_read_meta_v7() left for
 * later (priv->load_symbols), @part: read into priv->kallsyms or
 * priv->printk, once; damage, or a part over MAX_TEXT, is a warning with
 * its offset and leaves that part out.
 */
void td_load_symbols(struct vma_kvm_priv *priv, enum vma_kvm_symbols part);

/*
 * @size bytes of kallsyms or printk text, kept in *@keep for the dump; more
 * than MAX_TEXT are skipped with a warning (the dump shows addresses).
 */
int td_read_symbols(struct dat *d, struct cur *c, uint64_t size, char **keep);
int td_read_cmdlines(struct dat *d, struct cur *c);
/* v7: the options chain from @first, then the sections the options name. */
int td_read_options_v7(struct dat *d, uint64_t first);
int td_read_meta_v7(struct dat *d);
/* v7: the per-cpu data of instance @b, from its BUFFER section. */
int td_buffer_section_v7(struct dat *d, struct dat_buffer *b);
/* v6: everything after the preamble. */
int td_read_v6(struct dat *d, struct cur *c);

/* ---- options (tracedat-options.c) ----------------------------------------- */

/* The name between [] of a trace_clock text: owned, NULL if none. */
char *td_selected_clock(const char *text, size_t len);
/* Options up to DONE; for v7 *@next_options is the next options section, or 0. */
int td_read_options(struct dat *d, struct cur *c, uint64_t *next_options);

#endif /* VMALYZE_TRACEDAT_INTERNAL_H */
