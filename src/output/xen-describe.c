/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoding a Xen record into xenalyze's dump-mode text: the entry points
 * (vma_describe_xen and the dump-layout facts of xen-names.h), the
 * dispatch by trace class, and the small classes that need no file of
 * their own: trace-buffer records, lost records, dom0 domain operations
 * and guest-generated records.
 */
#include <stdarg.h>

#include "output/xen-describe-internal.h"

void xd_printf(struct xd_out *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->sb) {
		return;
	}
	va_start(ap, fmt);
	vma_sb_vprintf(o->sb, fmt, ap);
	va_end(ap);
}

void xd_words(struct xd_out *o, const struct vma_record *rec)
{
	unsigned int i;

	if (!o->sb) {
		return;
	}
	for (i = 0; i < rec->nr_data; i++) {
		vma_sb_putc(o->sb, ' ');
		vma_sb_put_x64(o->sb, rec->data[i]);
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

/*
 * TRC_LOST_RECORDS: {u32 lost; u16 did, vid; u64 first_tsc}.  The "(cur)"
 * part names the vcpu the pcpu was running when the gap began, which only
 * the analysis knows.
 */
static bool lost_records(struct xd_out *o, const struct vma_record *rec,
			 const struct vma_describe_ctx *ctx)
{
	uint32_t ids = xd_w(rec, 1);

	if (rec->nr_data != 4) {
		return false;
	}
	xd_printf(o, "lost_records count %d d%uv%u ", (int)rec->data[0], ids & 0xffffu, ids >> 16);
	if (ctx->have_cur) {
		xd_printf(o, "(cur d%dv%d)", (int)ctx->cur_dom, (int)ctx->cur_vcpu);
	} else {
		xd_puts(o, "(cur X)");
	}
	xd_printf(o, " first_tsc %lld", (long long)xd_q(rec, 2));
	return true;
}

/*
 * The reader's end-of-gap record (same payload as the lost-records record).
 * xenalyze prints two lines there, "lost_records end ---" and
 * "lost_records end dNvM---" naming the vcpu the lost-records record
 * reported, both with only the pcpu columns; this is the second, which
 * says everything the first does.
 */
static bool lost_end(struct xd_out *o, const struct vma_record *rec)
{
	uint32_t ids = xd_w(rec, 1);

	if (rec->nr_data < 2) {
		return false;
	}
	o->layout = VMA_XEN_DUMP_NO_TIME;
	xd_printf(o, "lost_records end d%uv%u---", ids & 0xffffu, ids >> 16);
	return true;
}

static bool gen(struct xd_out *o, const struct vma_record *rec,
		const struct vma_describe_ctx *ctx)
{
	switch (rec->event) {
	case TRC_LOST_RECORDS:
		return lost_records(o, rec, ctx);
	case TRC_TRACE_WRAP_BUFFER:
		/* Padding Xen writes at the end of a buffer; xenalyze skips it. */
		o->layout = VMA_XEN_DUMP_SILENT;
		xd_printf(o, "trace_wrap_buffer (%u padding words)", rec->nr_data);
		return true;
	case TRC_TRACE_CPU_CHANGE:
		if (rec->nr_data < 2) {
			return false;
		}
		o->layout = VMA_XEN_DUMP_SILENT;
		/* xenalyze's wording, which it prints only at verbosity 6 */
		xd_printf(o, "cpu_change this-cpu %u record-cpu %u window_size %u(0x%08x)",
			  rec->pcpu, rec->data[0], rec->data[1], rec->data[1]);
		return true;
	default:
		return false;
	}
}

static bool dom0op(struct xd_out *o, const struct vma_record *rec)
{
	if (rec->nr_data < 1) {
		return false;
	}
	switch (rec->event) {
	case TRC_DOM0_DOM_ADD:
		xd_printf(o, "creating domain d%u", rec->data[0]);
		return true;
	case TRC_DOM0_DOM_REM:
		xd_printf(o, "destroying domain d%u", rec->data[0]);
		return true;
	default:
		return false;
	}
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

/* The class bits xenalyze dispatches on: exactly one of the low eight. */
static int class_bit(uint32_t event)
{
	uint32_t main = VMA_TRC_MAIN(event) & 0xffu;

	if (main == 0 || (main & (main - 1)) != 0) {
		return -1;
	}
	return __builtin_ctz(main);
}

static void describe(struct xd_out *o, const struct vma_record *rec,
		     const struct vma_describe_ctx *ctx)
{
	bool done = false;

	o->mark = ' ';
	o->layout = VMA_XEN_DUMP_NORMAL;

	if (rec->event == VMA_SYNTH_LOST_END) {
		done = lost_end(o, rec);
	} else if (!vma_id_is_xen(rec->event) || ctx->unprocessed) {
		done = false;
	} else if ((VMA_TRC_MAIN(rec->event) & (TRC_GUEST >> TRC_CLS_SHIFT)) != 0) {
		guest(o, rec);
		done = true;
	} else {
		switch (class_bit(rec->event)) {
		case 0: /* TRC_GEN */
			done = gen(o, rec, ctx);
			break;
		case 1: /* TRC_SCHED */
			done = xd_sched(o, rec);
			break;
		case 2: /* TRC_DOM0OP */
			done = dom0op(o, rec);
			break;
		case 3: /* TRC_HVM */
			done = xd_hvm(o, rec, ctx);
			break;
		case 4: /* TRC_MEM */
			done = xd_mem(o, rec, ctx);
			break;
		case 5: /* TRC_PV */
			done = xd_pv(o, rec);
			break;
		case 6: /* TRC_SHADOW */
			done = xd_shadow(o, rec, ctx);
			break;
		case 7: /* TRC_HW */
			done = xd_hw(o, rec);
			break;
		default:
			/* No class, or several: xenalyze refuses the record. */
			xd_raw(o, rec);
			o->layout = VMA_XEN_DUMP_SILENT;
			return;
		}
	}
	if (!done) {
		xd_raw(o, rec);
	}
}

void vma_describe_xen(struct vma_strbuf *sb, const struct vma_record *rec,
		      const struct vma_describe_ctx *ctx)
{
	struct xd_out o = { .sb = sb };

	describe(&o, rec, ctx);
}

char vma_describe_xen_marked(struct vma_strbuf *sb, const struct vma_record *rec,
			     const struct vma_describe_ctx *ctx)
{
	struct xd_out o = { .sb = sb };

	describe(&o, rec, ctx);
	return o.mark;
}

enum vma_xen_dump_layout vma_xen_dump_layout(const struct vma_record *rec,
					     const struct vma_describe_ctx *ctx)
{
	struct xd_out o = { .sb = NULL };

	describe(&o, rec, ctx);
	return o.layout;
}

char vma_xen_dump_mark(const struct vma_record *rec, const struct vma_describe_ctx *ctx)
{
	struct xd_out o = { .sb = NULL };

	describe(&o, rec, ctx);
	return o.mark;
}
