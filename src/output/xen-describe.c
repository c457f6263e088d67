/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoding a Xen record into xenalyze's dump-mode text: the entry points
 * (vma_describe_xen and the dump-layout facts of xen-names.h), the
 * dispatch by trace class (vma_xen_class(), as dispatch decodes it), and
 * the small classes that need no file of their own: trace-buffer records,
 * lost records, dom0 domain operations (rows of the Xen event table) and
 * guest-generated records.
 */
#include <stdarg.h>

#include "output/xen-describe-internal.h"
#include "vmalyze/xen-events.h"

/* Cursor and room from the strbuf's length and capacity; it has a buffer. */
static void attach(struct xd_out *o)
{
	o->p = o->sb->buf + o->sb->len;
	o->end = o->sb->buf + o->sb->cap - 1;
}

bool xd_grow(struct xd_out *o, size_t n)
{
	xd_sync(o);
	if (!vma_sb_room(o->sb, n)) {
		o->end = o->p; /* the strbuf is failed: every later piece comes here */
		return false;
	}
	attach(o);
	return true;
}

void xd_printf(struct xd_out *o, const char *fmt, ...)
{
	va_list ap;

	xd_sync(o);
	va_start(ap, fmt);
	vma_sb_vprintf(o->sb, fmt, ap);
	va_end(ap);
	if (vma_sb_failed(o->sb))
		o->end = o->p;
	else
		attach(o);
}

void xd_words(struct xd_out *o, const struct vma_record *rec)
{
	unsigned int i;

	for (i = 0; i < rec->nr_data; i++) {
		xd_putc(o, ' ');
		xd_x64(o, rec->data[i]);
	}
}

void xd_raw(struct xd_out *o, const struct vma_record *rec)
{
	o->mark = ']';
	xd_printf(o, "%7x(%x:%x:%x) %u [", rec->event, VMA_TRC_MAIN(rec->event),
		  VMA_TRC_SUB(rec->event), VMA_TRC_MINOR(rec->event), rec->nr_data);
	xd_words(o, rec);
	xd_puts(o, " ]");
}

/* The DESCRIBE column of the GEN and DOM0 rows; the row's size is checked before. */
typedef bool misc_describe_fn(struct xd_out *o, const struct vma_record *rec,
			      const struct vma_describe_ctx *ctx);

/*
 * The "(cur)" part names the vcpu the pcpu was running when the gap
 * began, which only the analysis knows.
 */
static bool lost_records(struct xd_out *o, const struct vma_record *rec,
			 const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "lost_records count %d d%uv%u ", (int)vma_xf_lost_count(rec),
		  vma_xf_lost_did(rec), vma_xf_lost_vid(rec));
	if (ctx->have_cur)
		xd_printf(o, "(cur d%dv%d)", (int)ctx->cur_dom, (int)ctx->cur_vcpu);
	else
		xd_puts(o, "(cur X)");
	xd_printf(o, " first_tsc %lld", (long long)vma_xf_lost_first_tsc(rec));
	return true;
}

/*
 * The reader's end-of-gap record (same payload as the lost-records record).
 * xenalyze prints two lines there, "lost_records end ---" and
 * "lost_records end dNvM---" naming the vcpu the lost-records record
 * reported, both with only the pcpu columns; this is the second, which
 * says everything the first does.
 */
static bool lost_end(struct xd_out *o, const struct vma_record *rec,
		     const struct vma_describe_ctx *ctx)
{
	o->layout = VMA_XEN_DUMP_NO_TIME;
	xd_printf(o, "lost_records end d%uv%u---", vma_xf_lost_did(rec), vma_xf_lost_vid(rec));
	return true;
}

/* Padding Xen writes at the end of a buffer; xenalyze skips it. */
static bool wrap_buffer(struct xd_out *o, const struct vma_record *rec,
			const struct vma_describe_ctx *ctx)
{
	o->layout = VMA_XEN_DUMP_SILENT;
	xd_printf(o, "trace_wrap_buffer (%u padding words)", rec->nr_data);
	return true;
}

static bool cpu_change(struct xd_out *o, const struct vma_record *rec,
		       const struct vma_describe_ctx *ctx)
{
	o->layout = VMA_XEN_DUMP_SILENT;
	/* xenalyze's wording, which it prints only at verbosity 6 */
	xd_printf(o, "cpu_change this-cpu %u record-cpu %u window_size %u(0x%08x)", rec->pcpu,
		  vma_xf_cpu_change_cpu(rec), vma_xf_cpu_change_window(rec),
		  vma_xf_cpu_change_window(rec));
	return true;
}

static bool dom_op(struct xd_out *o, const struct vma_record *rec,
		   const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "%s d%u", vma_xen_events[vma_xen_event_index(rec->event)].name,
		  vma_xf_dom_op_domain(rec));
	return true;
}

static misc_describe_fn *const misc_describe[VMA_XE_COUNT] = {
#define MISC_DESCRIBE(sym, id, name, words, flags, state, describe) [VMA_XE_##sym] = describe,
	VMA_XEN_GEN_EVENTS(MISC_DESCRIBE)
	VMA_XEN_DOM0_EVENTS(MISC_DESCRIBE)
#undef MISC_DESCRIBE
};

/* A GEN or DOM0 record (or the reader's end of a gap), by its row. */
bool xd_misc(struct xd_out *o, const struct vma_record *rec, const struct vma_describe_ctx *ctx)
{
	enum vma_xe_index row = vma_xen_event_index(rec->event);

	if (row == VMA_XE_NONE || !misc_describe[row] || vma_xen_event_short(row, rec))
		return false;
	return misc_describe[row](o, rec, ctx);
}

/*
 * TRC_GUEST: records a guest writes through HVMOP_xentrace, with its own
 * event number in the low 12 bits.  xenalyze rejects them (the class bit
 * lies outside the eight it knows), so the line is silent there.
 */
static void guest(struct xd_out *o, const struct vma_record *rec)
{
	o->layout = VMA_XEN_DUMP_SILENT;
	xd_printf(o, "guest event %x [", VMA_TRC_MINOR(rec->event));
	xd_words(o, rec);
	xd_puts(o, " ]");
}

bool xd_classless(struct xd_out *o, const struct vma_record *rec,
		  const struct vma_describe_ctx *ctx)
{
	if (rec->event == VMA_SYNTH_LOST_END)
		return xd_misc(o, rec, ctx);
	if (!vma_id_is_xen(rec->event))
		return false;
	if ((VMA_TRC_MAIN(rec->event) & (TRC_GUEST >> TRC_CLS_SHIFT)) != 0) {
		guest(o, rec);
		return true;
	}
	/* No class, or several: xenalyze refuses the record. */
	xd_raw(o, rec);
	o->layout = VMA_XEN_DUMP_SILENT;
	return true;
}

/* Decode @rec at the end of @sb: its text there, its mark and layout in *@o. */
static void describe_into(struct xd_out *o, struct vma_strbuf *sb, const struct vma_record *rec,
			  const struct vma_describe_ctx *ctx)
{
	o->sb = sb;
	o->mark = ' ';
	o->layout = VMA_XEN_DUMP_NORMAL;
	if (!vma_sb_room(sb, XD_TEXT_ROOM))
		return;
	xd_attach(o, sb);
	xd_describe(o, rec, ctx);
	/* A failed strbuf's cursor stayed where it failed: at its length. */
	xd_sync(o);
}

void vma_describe_xen(struct vma_strbuf *sb, const struct vma_record *rec,
		      const struct vma_describe_ctx *ctx)
{
	struct xd_out o;

	describe_into(&o, sb, rec, ctx);
}

char vma_describe_xen_marked(struct vma_strbuf *sb, const struct vma_record *rec,
			     const struct vma_describe_ctx *ctx)
{
	struct xd_out o;

	describe_into(&o, sb, rec, ctx);
	return o.mark;
}

/* The layout and mark, from the text's walk into a scratch buffer. */
static struct xd_out classify(const struct vma_record *rec, const struct vma_describe_ctx *ctx)
{
	struct vma_strbuf scratch;
	struct xd_out o;

	vma_sb_init(&scratch);
	describe_into(&o, &scratch, rec, ctx);
	vma_sb_free(&scratch);
	o.sb = NULL;
	o.p = o.end = NULL;
	return o;
}

enum vma_xen_dump_layout vma_xen_dump_layout(const struct vma_record *rec,
					     const struct vma_describe_ctx *ctx)
{
	return classify(rec, ctx).layout;
}

char vma_xen_dump_mark(const struct vma_record *rec, const struct vma_describe_ctx *ctx)
{
	return classify(rec, ctx).mark;
}
