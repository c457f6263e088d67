/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private interfaces of the KVM side of the input stage: the ftrace ring-
 * buffer page decoder, chunk decompression, the binding of event formats to
 * vmalyze's KVM records, and the per-cpu stream both the trace.dat reader
 * and the raw ftrace reader hand out.  Nothing outside src/input (and its
 * unit tests) includes this.
 */
#ifndef VMALYZE_KVM_INTERNAL_H
#define VMALYZE_KVM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vmalyze/input.h"
#include "vmalyze/kvm-input.h"
#include "vmalyze/record.h"
#include "vmalyze/status.h"
#include "vmalyze/strbuf.h"

struct tep_handle;
struct tep_event;
struct tep_format_field;
struct tep_plugin_list;
struct vma_diag;

/* ---- byte order and short copies ---------------------------------------- */

/* memcpy of the few bytes of a dump's piece of text, without a call. */
static inline void vma_copy_short(char *p, const char *s, size_t n)
{
	uint64_t a, b;
	uint32_t c, d;

	if (n > 16 && n <= 32) {
		vma_copy_short(p, s, 16);
		vma_copy_short(p + n - 16, s + n - 16, 16);
	} else if (n >= 8 && n <= 16) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(p, &a, 8);
		memcpy(p + n - 8, &b, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(&c, s, 4);
		memcpy(&d, s + n - 4, 4);
		memcpy(p, &c, 4);
		memcpy(p + n - 4, &d, 4);
	} else if (n < 4) {
		while (n--)
			*p++ = *s++;
	} else {
		memcpy(p, s, n);
	}
}

/* One load and, when the file's order is not the host's, a byte swap. */
#define VMA_HOST_BIG (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

static inline uint16_t vma_get16(const unsigned char *p, bool big)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return big != VMA_HOST_BIG ? __builtin_bswap16(v) : v;
}

static inline uint32_t vma_get32(const unsigned char *p, bool big)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return big != VMA_HOST_BIG ? __builtin_bswap32(v) : v;
}

static inline uint64_t vma_get64(const unsigned char *p, bool big)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return big != VMA_HOST_BIG ? __builtin_bswap64(v) : v;
}

/* A number of 1, 2, 4 or 8 bytes at @p in the given byte order; 0 for another size. */
static inline uint64_t vma_get_uint(const unsigned char *p, uint32_t size, bool big)
{
	switch (size) {
	case 1:
		return p[0];
	case 2:
		return vma_get16(p, big);
	case 4:
		return vma_get32(p, big);
	case 8:
		return vma_get64(p, big);
	}
	return 0;
}

/* ---- ring-buffer pages (ringbuf.c) --------------------------------------- */

/* The event header's type_len values above the data lengths. */
#define VMA_RB_TYPE_PADDING 29
#define VMA_RB_TYPE_TIME_EXTEND 30
#define VMA_RB_TYPE_TIME_STAMP 31
#define VMA_RB_TS_SHIFT 27
/* Flags in the page's commit word, set when the page is read out. */
#define VMA_RB_MISSED_EVENTS (1ull << 31)
#define VMA_RB_MISSED_STORED (1ull << 30)
#define VMA_RB_COMMIT_MASK ((1ull << 30) - 1)

/* Where the page header keeps its fields: from header_page, or defaults. */
struct vma_rb_layout {
	uint32_t page_size;     /* bytes per page (sub-buffer) in the file */
	uint32_t ts_offset;     /* u64 time stamp of the page */
	uint32_t commit_offset; /* local_t commit: bytes of events + flags */
	uint32_t commit_size;   /* 4 or 8: the kernel's long */
	uint32_t data_offset;   /* first event */
	bool big_endian;
};

/*
 * vma_rb_layout_default - the layout every kernel since 2.6.31 uses, for a
 * kernel long of @long_size bytes.
 */
void vma_rb_layout_default(struct vma_rb_layout *layout, uint32_t page_size,
			   uint32_t long_size, bool big_endian);

/*
 * vma_rb_layout_parse - read the tracefs header_page text into @layout
 * (page_size is left alone when @set_page_size is false).
 * Return: 0, or -1 when the text lacks the timestamp/commit/data fields.
 */
int vma_rb_layout_parse(struct vma_rb_layout *layout, const char *text, size_t len,
			bool set_page_size);

/*
 * vma_rb_header_event_ok - true when the tracefs header_event text describes
 * the 5-bit type_len / 27-bit time_delta event header this decoder reads.
 */
bool vma_rb_header_event_ok(const char *text, size_t len);

enum vma_rb_status {
	VMA_RB_EVENT = 0, /* pg->ev_* describe the next data event */
	VMA_RB_DONE = 1,  /* no more events on this page */
	VMA_RB_BAD = -1,  /* damaged: pg->error and pg->error_at say what and where */
};

struct vma_rb_page {
	const unsigned char *page;
	const struct vma_rb_layout *layout;
	uint32_t avail;          /* bytes of the page present (less when truncated) */
	uint32_t commit;         /* bytes of events after data_offset */
	uint32_t pos;            /* next event, from the start of the page */
	uint64_t base_ts;        /* page header time stamp */
	uint64_t ts;             /* time stamp of the current event */
	bool missed;             /* events were lost before this page */
	bool missed_stored;      /* ... and missed_count says how many */
	uint64_t missed_count;
	bool cut;                /* the events ran past avail: page truncated */
	bool big;                /* the layout's byte order */
	uint32_t lim;            /* events end here: the commit end or avail (0: unknown) */
	/* the current data event */
	const unsigned char *ev;
	uint32_t ev_size;        /* bytes of payload (may include alignment) */
	uint32_t ev_pos;         /* offset of its header in the page */
	const char *error;       /* static text, when VMA_RB_BAD */
	uint32_t error_at;       /* offset in the page of the damage */
};

/*
 * vma_rb_page_load - start decoding @page, of which @avail bytes are
 * present.  Return: VMA_RB_DONE when the header is good (then call
 * vma_rb_page_next()), VMA_RB_BAD when it is damaged.
 */
int vma_rb_page_load(struct vma_rb_page *pg, const struct vma_rb_layout *layout,
		     const unsigned char *page, uint32_t avail);

/*
 * vma_rb_page_next - step to the next data event, applying time extends,
 * absolute stamps and padding on the way.  Return: enum vma_rb_status.
 */
int vma_rb_page_next(struct vma_rb_page *pg);

/*
 * vma_rb_page_step_in - vma_rb_page_next(), the usual event (data of 1 to
 * 28 words, whole before the commit end and the page's present bytes)
 * taken here without a call, for a page of byte order @big (pg->big, or
 * a constant where the caller knows it); anything else goes to
 * vma_rb_page_next(), which starts again from the same position.
 */
static inline __attribute__((always_inline)) int vma_rb_page_step_in(struct vma_rb_page *pg,
								      bool big)
{
	uint32_t hdr, type_len, delta, total;

	if (__builtin_expect(pg->pos + 4 > pg->lim, 0))
		return vma_rb_page_next(pg);
	hdr = vma_get32(pg->page + pg->pos, big);
	type_len = big ? hdr >> 27 : hdr & 31;
	delta = big ? hdr & ((1u << 27) - 1) : hdr >> 5;
	total = 4 + type_len * 4;
	if (__builtin_expect(type_len - 1 >= 28 || total > pg->lim - pg->pos, 0))
		return vma_rb_page_next(pg);
	pg->ev = pg->page + pg->pos + 4;
	pg->ev_size = type_len * 4;
	pg->ts += delta;
	pg->ev_pos = pg->pos;
	pg->pos += total;
	return VMA_RB_EVENT;
}

/* vma_rb_page_step_in() in the page's own byte order. */
static inline int vma_rb_page_step(struct vma_rb_page *pg)
{
	return vma_rb_page_step_in(pg, pg->big);
}

/* ---- decompression (decompress.c) ---------------------------------------- */

enum vma_codec {
	VMA_CODEC_NONE = 0,
	VMA_CODEC_ZLIB,
	VMA_CODEC_ZSTD,
};

/* Codec of a trace.dat v7 compression name ("none", "zlib", "zstd"); -1 if unknown. */
int vma_codec_from_name(const char *name, enum vma_codec *codec);

struct vma_decomp;

/*
 * vma_decomp_load - load @codec's library (libzstd, libdeflate) if no call
 * did yet.  Return: NULL when it is loaded or none is needed, else why it
 * cannot be (dlerror()'s text, or a function missing).
 */
const char *vma_decomp_load(enum vma_codec codec);

/* Return: owned (free with vma_decomp_free()); NULL: out of memory, or no library. */
struct vma_decomp *vma_decomp_new(enum vma_codec codec);
void vma_decomp_free(struct vma_decomp *dc);

/*
 * vma_decompress - expand @in into exactly @out_len bytes at @out.
 * Return: 0, or -1 with *why set to a static reason (corrupt data, size
 * mismatch).
 */
int vma_decompress(struct vma_decomp *dc, const void *in, size_t in_len, void *out,
		   size_t out_len, const char **why);

/* ---- event formats as the file gives them (kvm-formats.c) ---------------- */

/*
 * One tracefs format text.  Its name and id are read from the text when it
 * is added; libtraceevent parses it only when needed: at open for the
 * events vmalyze analyses, at the first dump line for any other.
 */
enum vma_kvm_fmt_state {
	VMA_KVM_FMT_PENDING = 0, /* not parsed yet: text kept */
	VMA_KVM_FMT_PARSED,      /* registered in the tep handle */
	VMA_KVM_FMT_BAD,         /* libtraceevent rejected it, or crashed on it */
	VMA_KVM_FMT_REFUSED,     /* not parsed: past VMA_KVM_PARSE_BUDGET */
	VMA_KVM_FMT_UNKEPT,      /* not parsed, no text: a run with no dump needs none */
};

struct vma_kvm_format {
	char *system;            /* owned */
	char *name;              /* owned: from the text's "name:" line */
	char *text;              /* owned while pending, then NULL */
	size_t len;
	int32_t id;              /* from the "ID:" line */
	uint64_t at;             /* file offset of the text, UINT64_MAX when none */
	uint8_t state;           /* enum vma_kvm_fmt_state */
};

/* ---- event binding (kvm-events.c) ---------------------------------------- */

/*
 * Fields of the largest event spec (kvm_exit on x86: 8; kvm-events.c
 * checks every spec against it when it compiles).  A bind holds 40 bytes
 * a field, and a trace.dat of every event's format (a guest's, 2,000 and
 * more) has a bind for each: 16 made them 600 bytes, some 370 page faults
 * at open (bench/README, round nineteen).
 */
#define VMA_KVMEV_MAX_FIELDS 8

/* How a fixed decoder reads a bind's fields (kvm-events.c). */
enum vma_kvmev_way {
	VMA_KVMEV_MASKED = 0, /* any layout: each field masked to its size */
	VMA_KVMEV_WHOLE,      /* every field present, at a size its kind reads whole */
	VMA_KVMEV_GAPS,       /* the same for the fields present, defaults for the others */
	VMA_KVMEV_WAYS
};

/* One event format and what vmalyze makes of it. */
struct vma_kvmev_bind {
	struct tep_event *event;     /* NULL until its format is parsed */
	const char *name;            /* borrowed from its format */
	uint32_t format;             /* index in priv->formats */
	uint32_t id;                 /* VMA_KVM_* */
	uint8_t isa;                 /* kvm_exit: enum vma_kvm_isa of the layout */
	const struct vma_kvmev_spec *spec; /* NULL for VMA_KVM_OTHER */
	/* Where each spec field lies in a record, read once from the format; size 0: absent. */
	struct vma_kvmev_loc {
		uint32_t offset, size;
	} loc[VMA_KVMEV_MAX_FIELDS];
	uint32_t need;               /* bytes a record needs to hold every field found (>= 8) */
	uint32_t index;              /* in vma_kvmev.bind: an unknown event's record names it */
	uint8_t nr_data;             /* the record's words: the spec's, 2 for an unknown event */
	/*
	 * Its fixed decoder (kvm-events.c: three per spec, one for each way,
	 * and one for events vmalyze does not know), for a record of at least
	 * need bytes in a file of the usual common fields in the host's byte
	 * order (vma_kvmev.usual_common); NULL on a big-endian host.  It reads
	 * each field at fix[].offset, in whole words (see VMA_KVMEV_SLACK).
	 */
	void (*decode)(const struct vma_kvmev_bind *b, const unsigned char *data,
		       struct vma_record *rec);
	struct vma_kvmev_fix {
		uint32_t offset;     /* 0 when absent: then mask is 0 */
		uint32_t missing;    /* or-ed in: the spec's default when absent */
		uint64_t mask[2];    /* the field's bytes in the loaded ones, by size and kind */
	} fix[VMA_KVMEV_MAX_FIELDS];
	uint8_t way;                 /* enum vma_kvmev_way: which fixed decoder */
	int64_t arm_trap;            /* arm64 kvm_exit: the "ret" value named TRAP */
	struct vma_kvmtext *text;    /* owned: its dump text (kvm-text.c), from its first line */
};

struct vma_kvmev {
	struct tep_handle *tep;      /* borrowed */
	struct vma_kvmev_bind *bind; /* owned: one per usable format */
	uint32_t nr_bind;
	int32_t *by_id;              /* owned: ftrace id -> bind index, -1 when none */
	uint32_t nr_ids;
	/*
	 * owned: ftrace id -> the bind whose fixed decoder reads its records,
	 * NULL when none; no entries when the common fields are not the usual ones
	 */
	const struct vma_kvmev_bind **fixed;
	uint32_t nr_fixed;
	uint32_t type_offset, type_size; /* common_type */
	uint32_t pid_offset, pid_size;   /* common_pid */
	bool big_endian;
	bool usual_common;           /* u16 type at 0, s32 pid at 4, in the host's order */
};

struct vma_kvm_priv;

/* True when vmalyze analyses events of this name: their formats are parsed at open. */
bool vma_kvmev_wanted(const char *system, const char *name);

/*
 * vma_kvmev_init - bind every format of @priv (its wanted ones parsed) by
 * field name.  Return: 0 or VMA_ERR_NOMEM.
 */
int vma_kvmev_init(struct vma_kvmev *ev, struct vma_kvm_priv *priv, bool big_endian);
void vma_kvmev_fini(struct vma_kvmev *ev);

/*
 * vma_kvmev_fill - normalize one raw event (@data, @size bytes from its
 * common_type on) into rec->event, rec->ctx, rec->nr_data and rec->data.
 * Return: 0, or -1 when @size cannot even hold the common fields.
 */
int vma_kvmev_fill(const struct vma_kvmev *ev, const unsigned char *data, uint32_t size,
		   struct vma_record *rec);

/*
 * Bytes past the end of a record that vma_kvmev_fill_fast() may read (and
 * ignore): the fixed decoders load whole words, so the buffer a record
 * lies in must be this much longer than its last record.
 */
#define VMA_KVMEV_SLACK 16

/*
 * vma_kvmev_fixed - the bind whose fixed decoder reads the record at
 * @data, of @size bytes (the usual common fields, every field present);
 * NULL when vma_kvmev_fill() must.  Reads the record's first 2 bytes
 * whatever @size (see VMA_KVMEV_SLACK).
 */
static inline const struct vma_kvmev_bind *vma_kvmev_fixed(const struct vma_kvmev *ev,
							    const unsigned char *data,
							    uint32_t size)
{
	const struct vma_kvmev_bind *b;
	uint16_t type;

	memcpy(&type, data, 2);
	if (__builtin_expect(type >= ev->nr_fixed, 0))
		return NULL;
	b = ev->fixed[type];
	return b && size >= b->need ? b : NULL;
}

/* vma_kvmev_fill() by the fixed decoder of @b, from vma_kvmev_fixed(). */
static inline void vma_kvmev_decode(const struct vma_kvmev_bind *b, const unsigned char *data,
				    struct vma_record *rec)
{
	memcpy(&rec->ctx, data + 4, 4);
	rec->event = b->id;
	rec->nr_data = b->nr_data;
	b->decode(b, data, rec);
}

/*
 * vma_kvmev_fill_fast - vma_kvmev_fill(), by the event's fixed decoder
 * when vma_kvmev_fixed() names one.  VMA_KVMEV_SLACK bytes after @data +
 * @size must be readable.
 */
static inline int vma_kvmev_fill_fast(const struct vma_kvmev *ev, const unsigned char *data,
				      uint32_t size, struct vma_record *rec)
{
	const struct vma_kvmev_bind *b = vma_kvmev_fixed(ev, data, size);

	if (!b)
		return vma_kvmev_fill(ev, data, size, rec);
	vma_kvmev_decode(b, data, rec);
	return 0;
}

/*
 * vma_kvmev_parsed_event - the event libtraceevent registered for the
 * parsed format @f, or NULL (not parsed, or another format took its id).
 */
struct tep_event *vma_kvmev_parsed_event(struct tep_handle *tep, const struct vma_kvm_format *f);

/* ---- the dump's lines (kvm-dump-line.c) ------------------------------------ */

/*
 * vma_kvmev_describe - one raw event as `trace-cmd report` prints it:
 * "COMM-PID [CPU] SECS.USECS: NAME: TEXT", with the trace's symbols,
 * printk strings and libtraceevent's plugins (loaded at the first call).
 * Its format is parsed now if it was not yet.
 */
void vma_kvmev_describe(struct vma_kvm_priv *priv, const unsigned char *data, uint32_t size,
			uint32_t cpu, uint64_t ts, struct vma_strbuf *sb);

/* One raw event to print: its payload from common_type on, cpu and time. */
struct vma_kvm_line {
	const unsigned char *data;
	uint32_t size;
	uint32_t cpu;
	uint64_t ts;
};

/*
 * vma_kvmev_info_text - append libtraceevent's text of @line (an event of
 * @event) to @sb as one line, as the dump prints it after "NAME:".
 */
void vma_kvmev_info_text(struct vma_kvm_priv *priv, struct tep_event *event,
			 const struct vma_kvm_line *line, struct vma_strbuf *sb);

/* ---- the dump's event text written by vmalyze (kvm-text.c) ---------------- */

struct vma_kvmtext;

/*
 * vma_kvmtext_put - append the text of @line, an event of @b, as
 * vma_kvmev_info_text() would, without libtraceevent when the event's
 * format allows (compiled at its first call; checked against
 * libtraceevent's text on its first records).
 * Return: false when nothing was written: then libtraceevent prints it.
 */
bool vma_kvmtext_put(struct vma_kvm_priv *priv, struct vma_kvmev_bind *b,
		     const struct vma_kvm_line *line, struct vma_strbuf *sb);
void vma_kvmtext_free(struct vma_kvmtext *t);

/* True when vmalyze writes the text of @t's event itself (for tests). */
bool vma_kvmtext_fast(const struct vma_kvmtext *t);

/* True when a guest trace was linked to @host (kvm-link.c): its rips may be named. */
bool vma_kvm_has_guest_links(const struct tep_handle *host);

/* ---- the per-input state both readers share (kvm-priv.c) ----------------- */

/* Where one cpu's ring-buffer pages lie in the file. */
struct vma_kvm_region {
	uint64_t offset;  /* first page, or the chunk count when compressed */
	uint64_t size;    /* bytes the file header declares */
	bool compressed;  /* v7: chunks of compressed pages */
	uint32_t page_size; /* bytes per page; 0: the input's layout says */
};

struct vma_kvm_stream;

/*
 * A reader's handle as the format-check helper mirrors it
 * (format-check.c): its settings, and which helper knows it.
 */
struct vma_fmtc_session {
	uint64_t id;          /* 0 until its first check */
	uint64_t gen;         /* the helper that set it up */
	bool big;
	uint32_t long_size, page_size;
	uint32_t header_long; /* the long size header_page was parsed with */
	char *header;         /* owned copy of header_page, NULL if none */
	size_t header_len;
	/* the texts the helper passed, for a new helper (format-check.c) */
	char *passed;
	size_t passed_len, passed_cap;
	bool unkept;          /* one could not be kept (out of memory) */
	uint32_t deaths;      /* helpers that died on its texts */
};

enum vma_fmtc_verdict {
	VMA_FMTC_SAFE,      /* the helper parsed it */
	VMA_FMTC_CRASH,     /* the helper died on it: do not parse it */
	VMA_FMTC_UNCHECKED, /* no helper: parse it unchecked */
};

/* Have the helper parse @text (system @system) for session @s first. */
enum vma_fmtc_verdict vma_fmtc_check(struct vma_fmtc_session *s, const char *system,
				     const char *text, size_t len);
/* The reader's handle is freed: the helper forgets it; @s is cleared. */
void vma_fmtc_session_end(struct vma_fmtc_session *s);
/*
 * The number of events the running helper's handle of @s holds (for the
 * tests: a restarted helper's must be the reader's).  Return: 0, or -1
 * (no helper runs that knows @s).
 */
int vma_fmtc_helper_events(struct vma_fmtc_session *s, uint64_t *count);
bool vma_kvm_host_big_endian(void);

/* Owned guest and time-sync storage behind struct vma_kvm_file_info. */
/* The two texts of a trace.dat that only the dump's text reads. */
enum vma_kvm_symbols {
	VMA_KVM_KALLSYMS,
	VMA_KVM_PRINTK,
	VMA_KVM_SYMBOL_PARTS
};

/* The kallsyms text's functions, by address, once a lookup needed them (kvm-kallsyms.c). */
struct vma_kvm_kallsyms {
	struct vma_kvm_func *map; /* owned: n entries and an end entry */
	size_t n;
	bool built;
};

struct vma_kvm_priv {
	struct tep_handle *tep;          /* owned */
	struct vma_fmtc_session check;   /* tep's settings, for the format check */
	struct vma_kvmev ev;
	struct vma_rb_layout layout;
	enum vma_codec codec;
	struct vma_kvm_file_info info;   /* the pointers below back its fields */
	char *clock_name;
	char *uname;
	struct vma_kvm_guest *guests;
	uint32_t *tsync_count;
	struct vma_kvm_tsync_sample **tsync;
	bool tsync_on;                   /* apply TIME_SHIFT */
	struct vma_time_map time_map;    /* --time-offset, last */
	struct vma_kvm_stream **streams; /* owned */
	uint32_t nr_streams;
	uint32_t nr_planned;             /* the streams the reader will make (0: unknown) */
	size_t cap_streams;
	/*
	 * No event's text is printed (no dump): the formats parsed at open
	 * are needed for their fields only (kvm-fields.c).
	 */
	bool fields_only;
	struct vma_kvm_format *formats;  /* owned, in the order the file gives them */
	uint32_t nr_formats;
	size_t cap_formats;
	size_t parsed_text;              /* bytes of the texts parsed (VMA_KVM_PARSE_BUDGET) */
	char *kallsyms;                  /* owned text, read at the first function looked up */
	struct vma_kvm_kallsyms funcs;   /* its table (kvm-kallsyms.c) */
	char *printk;                    /* owned text, likewise */
	/*
	 * A v7 file's kallsyms and printk sections, read into the two above
	 * only when the dump's text needs them (-s never does; the kallsyms
	 * at the first function looked up): their file offsets (0: none, or
	 * read), by enum vma_kvm_symbols, and the reader that reads one.
	 */
	uint64_t symbols_at[VMA_KVM_SYMBOL_PARTS];
	void (*load_symbols)(struct vma_kvm_priv *priv, enum vma_kvm_symbols part);
	struct vma_input *symbols_in;    /* borrowed: the input being read */
	bool symbols_big;
	struct tep_plugin_list *plugins; /* owned, loaded at the first dump line */
	bool print_ready;                /* the three above were handed to the tep */
	struct trace_seq *seq;           /* owned: the dump's text buffer, made at its first line */
	/*
	 * The dump's comm of recent pids, as libtraceevent names them.  Any
	 * print through libtraceevent or a comm registered may name a pid
	 * anew: comm_gen counts those, and older entries are stale.
	 */
	struct vma_kvm_comm {
		int32_t pid;
		uint32_t gen;            /* comm_gen + 1 when filled; 0: empty */
		uint8_t len;
		char comm[31];
	} comms[64];
	uint32_t comm_gen;
	size_t buffered;                 /* bytes of every stream's page buffers together */
	/*
	 * Shared by the streams, which are read one at a time (doc/design.md,
	 * "Merge"): the decompressor, the compressed bytes of the chunk being
	 * expanded, and the unit (a page, or an expanded chunk) that windowed
	 * streams read their windows from; it holds unit_owner's, at unit_at
	 * (kvm-stream.c).
	 */
	struct vma_decomp *dc;
	unsigned char *zbuf, *unit;
	size_t zbuf_cap, unit_cap;
	const struct vma_kvm_stream *unit_owner;
	uint64_t unit_at;
};

/* The comms kept for the dump may be stale now: a comm may have been registered. */
static inline void vma_kvm_comms_stale(struct vma_kvm_priv *priv)
{
	/* entries hold comm_gen + 1: before it wraps to one of them, forget them all */
	if (++priv->comm_gen == UINT32_MAX) {
		memset(priv->comms, 0, sizeof(priv->comms));
		priv->comm_gen = 0;
	}
}

/* Forget the guest-symbol links of a parser about to be freed (kvm-link.c). */
void vma_kvm_unlink(const struct tep_handle *tep);

/* Return: owned, NULL when out of memory. */
struct vma_kvm_priv *vma_kvm_priv_new(void);
void vma_kvm_priv_free(struct vma_kvm_priv *priv);

/* The shared priv of a trace.dat or ftrace-raw input, else NULL. */
struct vma_kvm_priv *vma_kvm_priv_of(const struct vma_input *input);

/* ---- event formats (kvm-formats.c) ----------------------------------------- */

/*
 * Creates priv->tep and a default priv->layout, loading libtraceevent
 * first (vma_tep_load()).  Return: VMA_OK, VMA_ERR_NOMEM, or VMA_ERR_IO
 * when it cannot be loaded, *@why then saying why for the caller's report.
 */
int vma_kvm_tep_new(struct vma_kvm_priv *priv, bool big_endian, uint32_t long_size,
		    uint32_t page_size, const char **why);

/*
 * vma_kvm_header_page - take the page layout from a tracefs header_page
 * text (and the page size from its data field when @set_page_size).
 * Return: 0, -1 when the text is not a header_page, or VMA_ERR_NOMEM.
 */
int vma_kvm_header_page(struct vma_kvm_priv *priv, const char *text, size_t len,
			bool set_page_size);

/*
 * Bounds on the event formats one input keeps, whether from a trace.dat or
 * an --event-formats folder: a kernel has a few thousand events, and each
 * kept format costs its text and a few hundred bytes.
 */
#define VMA_KVM_MAX_FORMATS 32768u
#define VMA_KVM_MAX_FORMAT_TEXT (16u << 20)
/*
 * Text of the formats one input parses, at open or for the dump: a parsed
 * format costs some six times its text, here and in the format check's
 * helper, and a kernel's formats are some 2 MiB of text in all (2,500 of
 * 850 bytes), of which a trace uses a few.
 */
#define VMA_KVM_PARSE_BUDGET (2u << 20)

/*
 * vma_kvm_add_format - keep one tracefs format text of @system, found at
 * file offset @at (UINT64_MAX when none).  Only its name and id are read
 * now.  Return: 0, -1 when the text names no event or id, or VMA_ERR_NOMEM.
 */
int vma_kvm_add_format(struct vma_kvm_priv *priv, const char *system, const char *text,
		       size_t len, uint64_t at);

/*
 * vma_kvm_formats_load - parse the formats of the events vmalyze analyses
 * (each guarded, see kvm-formats.c) and bind all formats into priv->ev.
 * A format libtraceevent rejects is reported to @diag as a warning naming
 * @path and its offset.  Return: VMA_OK, VMA_ERR_NOMEM, or VMA_ERR_DAMAGED
 * when such a report was not tolerated.
 */
int vma_kvm_formats_load(struct vma_kvm_priv *priv, struct vma_diag *diag, const char *path,
			 bool big_endian);

/* Frees the kept formats, texts and plugins (before the tep handle). */
void vma_kvm_formats_free(struct vma_kvm_priv *priv);

/* Parse pending format @index now (guarded).  Return: true when it is registered. */
bool vma_kvm_format_parse(struct vma_kvm_priv *priv, uint32_t index);

/*
 * vma_kvm_fields_text - format @text (@len bytes) written again from its
 * head and field lines, with an empty print format (but for which value
 * of arm64 kvm_exit's ret is named TRAP), when every line
 * before its print format is in the shape tracefs writes (kvm-fields.c).
 * Return: the new text (malloc()ed, its length in *@out_len), or NULL when
 * @text is not plain or memory ran out.
 */
char *vma_kvm_fields_text(const char *text, size_t len, size_t *out_len);

/*
 * vma_kvm_print_setup - hand the kept printk text (read now when the
 * reader deferred it) and the kallsyms (vma_kvm_kallsyms_hand()) to the tep
 * handle and load libtraceevent's plugins, once, before the first dump line.
 */
void vma_kvm_print_setup(struct vma_kvm_priv *priv);

/* ---- kernel functions (kvm-kallsyms.c) ----------------------------------- */

/*
 * vma_kvm_kallsyms_hand - have libtraceevent find functions in the
 * kallsyms text (if any; a v7 section is read at the first lookup) through
 * vma_kvm_priv.funcs, built then as tep_parse_kallsyms() would have built
 * libtraceevent's own.
 */
void vma_kvm_kallsyms_hand(struct vma_kvm_priv *priv);
void vma_kvm_kallsyms_free(struct vma_kvm_priv *priv);

/* Registers the built-in x86 kvm_entry / kvm_exit formats under the given ids. */
int vma_kvm_default_formats(struct vma_kvm_priv *priv, uint32_t entry_id, uint32_t exit_id);

/* ---- time (kvm-priv.c) --------------------------------------------------- */

/* File time stamp -> record time, as trace-cmd report computes it. */
uint64_t vma_kvm_time(const struct vma_kvm_priv *priv, uint64_t ts, uint32_t cpu);

/*
 * vma_kvm_region_end - the file offset where the stream of @region stops
 * reading (UINT64_MAX when its size runs past 2^64).
 */
uint64_t vma_kvm_region_end(const struct vma_kvm_region *region);

/*
 * vma_kvm_stream_add - create the stream of one ring buffer and announce it
 * through input->new_stream.  Return: VMA_OK or a negative VMA_ERR_*.
 */
int vma_kvm_stream_add(struct vma_input *input, struct vma_kvm_priv *priv, uint32_t cpu,
		       const struct vma_kvm_region *region);

/* vma_input_ops.describe of both KVM readers. */
void vma_kvm_stream_describe(const struct vma_stream *stream, struct vma_strbuf *sb);

/* Counters of one stream, for tests and -v. */
struct vma_kvm_stream_stats {
	uint64_t pages;        /* pages decoded */
	uint64_t records;      /* records delivered (synthetic ones included) */
	uint64_t missed_pages; /* pages flagged with lost events before them */
	uint64_t damaged;      /* damaged pages, chunks or events skipped */
};

void vma_kvm_stream_stats(const struct vma_stream *stream, struct vma_kvm_stream_stats *st);

/* Frees a stream made by vma_kvm_stream_add() (-vv: what it read). */
void vma_kvm_stream_free(struct vma_kvm_stream *s);

/* -vv: where the stream's data lie in the file. */
void vma_kvm_stream_tell(const struct vma_kvm_stream *s);

/* -v: the format, clock, cpus and GUEST mapping found; -vv: where the data lie. */
void vma_kvm_tell(const struct vma_input *input, const struct vma_kvm_priv *priv);

#endif /* VMALYZE_KVM_INTERNAL_H */
