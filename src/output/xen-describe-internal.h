/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared plumbing of the Xen record decoders (xen-describe*.c), one file
 * per record class.  Each decoder writes through a struct xd_out, which
 * also carries the dump-line facts xenalyze ties to the record (its mark
 * column and line layout), so one walk of the decoding logic answers both
 * "what is the text" and "how is the line laid out".
 */
#ifndef VMALYZE_XEN_DESCRIBE_INTERNAL_H
#define VMALYZE_XEN_DESCRIBE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vmalyze/describe.h"
#include "vmalyze/record.h"
#include "vmalyze/strbuf.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-events.h"
#include "vmalyze/xen-names.h"

/*
 * The text is written at a cursor into its strbuf's spare room, which is
 * checked by a compare per piece: no call, length update or NUL per piece.
 * The strbuf's length is brought up to the cursor (xd_sync()) by printf-
 * style pieces and at the end of the record.
 */
struct xd_kept_texts;

struct xd_out {
	struct vma_strbuf *sb;          /* the text is appended to it */
	char *p;                        /* the text's end so far */
	char *end;                      /* room up to here (the NUL excluded) */
	char mark;                      /* first dump column, ' ' by default */
	enum vma_xen_dump_layout layout;
	bool vendor_read;               /* the text read ctx->svm (xd_svm()) */
	struct xd_kept_texts *kept;     /* the caller's, or NULL (below) */
};

/*
 * ctx->svm, for a decoder whose text depends on it: the dump's vendor
 * look-ahead decodes again under SVM only the records that asked.
 */
static inline bool xd_svm(struct xd_out *o, const struct vma_describe_ctx *ctx)
{
	o->vendor_read = true;
	return ctx->svm;
}

/*
 * Room for @n more bytes at the cursor, growing the strbuf (out of line,
 * rare).  False when it cannot grow; the strbuf is then failed and every
 * later piece is dropped.
 */
bool xd_grow(struct xd_out *o, size_t n);

static inline bool xd_room(struct xd_out *o, size_t n)
{
	return (size_t)(o->end - o->p) >= n || xd_grow(o, n);
}

/* The strbuf's length and NUL brought up to the cursor. */
static inline void xd_sync(struct xd_out *o)
{
	o->sb->len = (size_t)(o->p - o->sb->buf);
	*o->p = '\0';
}

void xd_printf(struct xd_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Appending without a format, for the records that make up most of a trace
 * (exits, entries, scheduling): each piece costs a few instructions where
 * even the strbuf's own printf parses a format.
 */
#define xd_lit(o, lit) xd_put((o), "" lit, sizeof(lit) - 1)

static inline void xd_put(struct xd_out *o, const char *s, size_t n)
{
	if (xd_room(o, n)) {
		memcpy(o->p, s, n);
		o->p += n;
	}
}

static inline void xd_puts(struct xd_out *o, const char *s)
{
	xd_put(o, s, strlen(s));
}

static inline void xd_putc(struct xd_out *o, char c)
{
	if (xd_room(o, 1))
		*o->p++ = c;
}

/* "%u" ("%llu"): pass the value at its own width. */
static inline void xd_u64(struct xd_out *o, uint64_t v)
{
	if (xd_room(o, 20))
		o->p = vma_fmt_u64(o->p, v);
}

/* "%d" ("%lld"): pass (int32_t) of a word printed with "%d". */
static inline void xd_s64(struct xd_out *o, int64_t v)
{
	if (!xd_room(o, 21))
		return;
	if (v < 0) {
		*o->p++ = '-';
		/* the magnitude in unsigned arithmetic, so INT64_MIN is no overflow */
		o->p = vma_fmt_u64(o->p, -(uint64_t)v);
	} else {
		o->p = vma_fmt_u64(o->p, (uint64_t)v);
	}
}

/* "%x" ("%llx"): pass a word as uint32_t, never a sign-extended int. */
static inline void xd_x64(struct xd_out *o, uint64_t v)
{
	if (xd_room(o, 16))
		o->p = vma_fmt_x64(o->p, v);
}

/* A literal, then a value as above: " irq %u" is xd_lit_u64(o, " irq ", irq). */
#define xd_lit_u64(o, lit, v) (xd_lit((o), lit), xd_u64((o), (v)))
#define xd_lit_s64(o, lit, v) (xd_lit((o), lit), xd_s64((o), (v)))
#define xd_lit_x64(o, lit, v) (xd_lit((o), lit), xd_x64((o), (v)))

/* "%*u" ("%0*u" with @pad '0'). */
static inline void xd_u64_pad(struct xd_out *o, uint64_t v, unsigned int width, char pad)
{
	if (xd_room(o, VMA_FMT_PAD_MAX(width)))
		o->p = vma_fmt_u64_pad(o->p, v, width, pad);
}

/* "%*x" ("%0*x" with @pad '0'). */
static inline void xd_x64_pad(struct xd_out *o, uint64_t v, unsigned int width, char pad)
{
	if (xd_room(o, VMA_FMT_PAD_MAX(width)))
		o->p = vma_fmt_x64_pad(o->p, v, width, pad);
}

/* "dNvM", the way records name a vcpu. */
static inline void xd_vcpu(struct xd_out *o, uint32_t dom, uint32_t vcpu)
{
	char *p;

	if (!xd_room(o, 2 + 2 * 10))
		return;
	p = o->p;
	*p++ = 'd';
	p = vma_fmt_u64(p, dom);
	*p++ = 'v';
	o->p = vma_fmt_u64(p, vcpu);
}

/*
 * Whether the text of @event reads the analysis state of struct
 * vma_describe_ctx, which its caller takes before the record (the dump,
 * for these records only): lost records name the pcpu's vcpu, PoD
 * reclaims the open exit's reason, CR writes and process ends the vcpu's
 * CR3, Xen's page faults its paging levels and MMIO, RDTSC its previous
 * value.  test-describe-fast checks that no other row's text changes with
 * that state.
 */
static inline bool xd_reads_state(uint32_t event)
{
	switch (event) {
	case TRC_LOST_RECORDS:
	case TRC_MEM_POD_ZERO_RECLAIM:
	case TRC_HVM_CR_WRITE:
	case TRC_HVM_CR_WRITE64:
	case VMA_TRC_HVM_OP_DESTROY_PROC:
	case TRC_HVM_PF_XEN:
	case TRC_HVM_PF_XEN64:
	case TRC_HVM_RDTSC:
		return true;
	default:
		return false;
	}
}

/*
 * A run of pieces with one check: xd_reserve() makes room for at most @n
 * bytes and returns the cursor (NULL when the strbuf cannot grow: it is
 * failed, and the run is skipped), the xp_*() pieces write at it without a
 * check and return the end, and xd_commit() moves the cursor there.  The
 * cursor lives in a register meanwhile, where each xd_*() piece loads and
 * stores o->p (the bytes it writes could alias it).  The XP_*_MAX are the
 * pieces' largest sizes, to add up for xd_reserve().
 */
#define XP_U64_MAX 20u
#define XP_S64_MAX 21u
#define XP_X64_MAX 16u
#define XP_VCPU_MAX (2u + 2u * 10u)

static inline char *xd_reserve(struct xd_out *o, size_t n)
{
	return xd_room(o, n) ? o->p : NULL;
}

static inline void xd_commit(struct xd_out *o, char *p)
{
	o->p = p;
}

#define xp_lit(p, lit) xp_put((p), "" lit, sizeof(lit) - 1)

/*
 * "%llu", the numbers below 10^4 inline (most of a dump's: an exit's
 * cycles, vectors, ids, microseconds), by pairs of digits.
 */
static inline char *xp_u64(char *p, uint64_t v)
{
	uint32_t hi;

	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100) {
		memcpy(p, vma_dec_pairs + 2 * v, 2);
		return p + 2;
	}
	if (v >= 10000)
		return vma_fmt_u64_long(p, v);
	hi = (uint32_t)v * 5243u >> 19; /* v / 100 */
	if (hi < 10) {
		*p++ = (char)('0' + hi);
	} else {
		memcpy(p, vma_dec_pairs + 2 * hi, 2);
		p += 2;
	}
	memcpy(p, vma_dec_pairs + 2 * ((uint32_t)v - hi * 100u), 2);
	return p + 2;
}

static inline char *xp_put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static inline char *xp_s64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		/* the magnitude in unsigned arithmetic, so INT64_MIN is no overflow */
		return xp_u64(p, -(uint64_t)v);
	}
	return xp_u64(p, (uint64_t)v);
}

/* "dNvM" */
static inline char *xp_vcpu(char *p, uint32_t dom, uint32_t vcpu)
{
	*p++ = 'd';
	p = xp_u64(p, dom);
	*p++ = 'v';
	return xp_u64(p, vcpu);
}

/* Payload word @i, or 0 past the end of the record. */
static inline uint32_t xd_w(const struct vma_record *rec, unsigned int i)
{
	return i < rec->nr_data ? rec->data[i] : 0;
}

/* Payload words @i and @i+1 as one little-endian 64-bit value. */
static inline uint64_t xd_q(const struct vma_record *rec, unsigned int i)
{
	return (uint64_t)xd_w(rec, i) | ((uint64_t)xd_w(rec, i + 1) << 32);
}

/* " %x" for every payload word, as xenalyze lists words inside "[ ... ]". */
void xd_words(struct xd_out *o, const struct vma_record *rec);

/*
 * The record as xenalyze prints one it does not decode:
 * "%7x(main:sub:minor) nwords [ w0 w1 ... ]", with mark ']'.  The layout is
 * left as the caller set it: a decoder may mark a record xenalyze does not
 * print (SILENT) and still leave its text to the raw form.
 */
void xd_raw(struct xd_out *o, const struct vma_record *rec);

/*
 * Class decoders.  Each returns false, having printed nothing, when it does
 * not know the record (unknown event, payload too short for its layout);
 * the caller then prints the record raw.  A decoder may set o->layout
 * before returning false.
 */
bool xd_sched(struct xd_out *o, const struct vma_record *rec);
bool xd_hvm(struct xd_out *o, const struct vma_record *rec, const struct vma_describe_ctx *ctx);
bool xd_pv(struct xd_out *o, const struct vma_record *rec);
bool xd_shadow(struct xd_out *o, const struct vma_record *rec,
	       const struct vma_describe_ctx *ctx);
bool xd_mem(struct xd_out *o, const struct vma_record *rec, const struct vma_describe_ctx *ctx);
bool xd_hw(struct xd_out *o, const struct vma_record *rec);

/*
 * Shadow-paging helpers shared by the HVM page-fault record and the shadow
 * records: the page-table indices of @va for a guest with @levels paging
 * levels, and where @va lies in the guest's linear page table, if there.
 */
struct xd_pt_walk {
	unsigned int index[5];
	int level;              /* 0: not a linear-page-table address */
	uint64_t corresponding; /* the address the page-table entry maps */
};

void xd_pt_walk(struct xd_pt_walk *pt, uint64_t va, unsigned int levels);

/*
 * For the dump driver (dump.c): vma_describe_xen() and vma_xen_dump_mark()
 * in one decoding walk, as a line needs both.  Appends the text of @rec to
 * @sb and returns its mark column.
 */
char vma_describe_xen_marked(struct vma_strbuf *sb, const struct vma_record *rec,
			     const struct vma_describe_ctx *ctx);

/*
 * Room most records' text fits in: a caller that made it before
 * xd_describe() has none of the pieces grow the strbuf.
 */
#define XD_TEXT_ROOM 256u

/* GEN and DOM0 records, and the reader's end of a gap (xen-describe.c). */
bool xd_misc(struct xd_out *o, const struct vma_record *rec, const struct vma_describe_ctx *ctx);
/* The records of no class: the end of a gap, a guest's, KVM's, garbage. */
bool xd_classless(struct xd_out *o, const struct vma_record *rec,
		  const struct vma_describe_ctx *ctx);

/*
 * The decoding of @rec at @o's cursor (xd_attach(): mark ' ', layout
 * NORMAL), which the caller then brings its strbuf's length up to
 * (xd_sync()).  Inline, so the dump's line calls the class's decoder
 * straight; xd_describe_class() is given the record's vma_xen_class().
 */
static inline void xd_describe_class(struct xd_out *o, const struct vma_record *rec,
				     const struct vma_describe_ctx *ctx, int cls)
{
	bool done;

	if (ctx->unprocessed) {
		xd_raw(o, rec);
		return;
	}
	/* The busy classes first; vma_xen_class() has none for the rest. */
	switch (cls) {
	case VMA_XEN_CLASS_HVM:
		done = xd_hvm(o, rec, ctx);
		break;
	case VMA_XEN_CLASS_SCHED:
		done = xd_sched(o, rec);
		break;
	case VMA_XEN_CLASS_PV:
		done = xd_pv(o, rec);
		break;
	case VMA_XEN_CLASS_GEN:
	case VMA_XEN_CLASS_DOM0OP:
		done = xd_misc(o, rec, ctx);
		break;
	case VMA_XEN_CLASS_MEM:
		done = xd_mem(o, rec, ctx);
		break;
	case VMA_XEN_CLASS_SHADOW:
		done = xd_shadow(o, rec, ctx);
		break;
	case VMA_XEN_CLASS_HW:
		done = xd_hw(o, rec);
		break;
	default:
		done = xd_classless(o, rec, ctx);
		break;
	}
	if (!done)
		xd_raw(o, rec);
}

static inline void xd_describe(struct xd_out *o, const struct vma_record *rec,
			       const struct vma_describe_ctx *ctx)
{
	xd_describe_class(o, rec, ctx, vma_xen_class(rec->event));
}

/* @o on the end of @sb, which has a buffer; a new record's defaults. */
static inline void xd_attach(struct xd_out *o, struct vma_strbuf *sb)
{
	o->sb = sb;
	o->p = sb->buf + sb->len;
	o->end = sb->buf + sb->cap - 1;
	o->mark = ' ';
	o->layout = VMA_XEN_DUMP_NORMAL;
	o->vendor_read = false;
	o->kept = NULL;
}

/*
 * Words a decoder keeps between records when its caller lends it a
 * struct xd_kept_texts (o->kept; the dump does): an exit reason, a
 * runstate change, a hypercall or a handler is worded the same every
 * time, and most lines are of a few of them.  A decoder makes a text the first time
 * through the same pieces it uses without one, keeps it (xd_keep()), and
 * then copies it whole, a fixed size: no name lookup, strlen or memcpy
 * call.  test-describe-fast decodes its random records both ways.
 */
#define XD_KEPT_MAX 63u
#define XD_KEPT_NONE 0xffu /* too long to keep: made every time */

struct xd_kept {
	uint8_t len; /* 0: not made yet */
	char text[XD_KEPT_MAX];
};

#define XD_KEPT_EXITS 256u /* exit codes kept, of each vendor */
#define XD_KEPT_STATES 16u /* runstate numbers (4 bits of the id) */

struct xd_kept_texts {
	struct xd_kept exit[2][XD_KEPT_EXITS];  /* "vmexit exit_reason NAME eip " by SVM, code */
	struct xd_kept hypercall[VMA_HYPERCALL_LIMIT]; /* "hypercall %2x (NAME)" */
	struct xd_kept runstate[XD_KEPT_STATES][XD_KEPT_STATES]; /* "OLD->NEW" */
	struct xd_kept handler[2][VMA_HVM_HANDLER_LIMIT]; /* "NAME[64] [" by 64-bit, minor */
};

/* Keep the @n bytes at @s in @k, if they fit. */
static inline void xd_keep(struct xd_kept *k, const char *s, size_t n)
{
	if (n > XD_KEPT_MAX) {
		k->len = XD_KEPT_NONE;
		return;
	}
	memcpy(k->text, s, n);
	k->len = (uint8_t)n;
}

/* @k's text at @p, which has room for XD_KEPT_MAX bytes (all are copied). */
static inline char *xp_kept(char *p, const struct xd_kept *k)
{
	memcpy(p, k->text, XD_KEPT_MAX);
	return p + k->len;
}

/* Whether @k holds a text to copy. */
static inline bool xd_kept_ready(const struct xd_kept *k)
{
	return k && k->len && k->len != XD_KEPT_NONE;
}

#endif /* VMALYZE_XEN_DESCRIBE_INTERNAL_H */
