/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory records (TRC_MEM: grant operations, p2m updates, ballooning,
 * populate-on-demand) and hardware records (TRC_HW: power management and
 * IRQ handling), in xenalyze's dump wording.
 */
#include <inttypes.h>

#include "output/xen-describe-internal.h"
#include "vmalyze/xen-events.h"

/* The DESCRIBE column of the MEM rows; the row's size is checked before. */
typedef bool mem_describe_fn(struct xd_out *o, const struct vma_record *rec,
			     const struct vma_describe_ctx *ctx);

static bool grant(struct xd_out *o, const struct vma_record *rec,
		  const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "%s domain %u", vma_xen_events[vma_xen_event_index(rec->event)].name,
		  vma_xf_grant_word(rec));
	return true;
}

static bool set_p2m_entry(struct xd_out *o, const struct vma_record *rec,
			  const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "set_p2m_entry d%u o%u t %u g %llx m %llx", vma_xf_p2m_domain(rec),
		  vma_xf_p2m_order(rec), vma_xf_p2m_type(rec),
		  (unsigned long long)vma_xf_p2m_gfn(rec), (unsigned long long)vma_xf_p2m_mfn(rec));
	return true;
}

static bool decrease_reservation(struct xd_out *o, const struct vma_record *rec,
				 const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "decrease_reservation d%d o%d g %llx", (int)vma_xf_gfn_domain(rec),
		  (int)vma_xf_gfn_order(rec), (unsigned long long)vma_xf_gfn_gfn(rec));
	return true;
}

static const char *const pod_reason_name[] = {
	[VMA_POD_REASON_UNKNOWN] = "unknown",
	[VMA_POD_REASON_FAULT] = "fault",
	[VMA_POD_REASON_BALLOON] = "balloon",
};

static bool pod(struct xd_out *o, const struct vma_record *rec,
		const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "%s d%d o%d g %llx m %llx",
		  rec->event == TRC_MEM_POD_POPULATE ? "pod_populate" : "pod_zero_reclaim",
		  (int)vma_xf_pod_domain(rec), (int)vma_xf_pod_order(rec),
		  (unsigned long long)vma_xf_pod_gfn(rec), (unsigned long long)vma_xf_pod_mfn(rec));
	if (rec->event == TRC_MEM_POD_ZERO_RECLAIM) {
		xd_printf(o, " ctx %s",
			  pod_reason_name[vma_xen_pod_reason(ctx->exit_open, ctx->exit_reason,
							     ctx->svm)]);
	}
	return true;
}

static bool pod_splinter(struct xd_out *o, const struct vma_record *rec,
			 const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "pod_spage_splinter d%d o%d g %" PRIx64, (int)vma_xf_gfn_domain(rec),
		  (int)vma_xf_gfn_order(rec), vma_xf_gfn_gfn(rec));
	return true;
}

static mem_describe_fn *const mem_describe[VMA_XE_COUNT] = {
#define MEM_DESCRIBE(sym, id, name, words, flags, state, describe) [VMA_XE_##sym] = describe,
	VMA_XEN_MEM_EVENTS(MEM_DESCRIBE)
#undef MEM_DESCRIBE
};

bool xd_mem(struct xd_out *o, const struct vma_record *rec, const struct vma_describe_ctx *ctx)
{
	enum vma_xe_index row = vma_xen_event_index(rec->event);

	if (row == VMA_XE_NONE || !mem_describe[row] || vma_xen_event_short(row, rec))
		return false;
	return mem_describe[row](o, rec, ctx);
}

static bool pm(struct xd_out *o, const struct vma_record *rec)
{
	const uint32_t *d = rec->data;

	if (rec->nr_data < (rec->event == TRC_PM_FREQ_CHANGE ? 2u : 1u))
		return false;
	switch (rec->event) {
	case TRC_PM_FREQ_CHANGE:
		/* {old MHz, new MHz} */
		xd_printf(o, "pm_freq_change o%d n%d", (int)d[0], (int)d[1]);
		return true;
	case TRC_PM_IDLE_ENTRY:
		/* {C-state, ...} */
		xd_printf(o, "pm_idle_start c%d", (int)d[0]);
		return true;
	case TRC_PM_IDLE_EXIT:
		xd_printf(o, "pm_idle_end c%d", (int)d[0]);
		return true;
	default:
		return false;
	}
}

/*
 * A cpu mask as the IRQ records carry it after {irq:16, vector:16}: the
 * mask words, highest first.
 */
static void irq_mask(struct xd_out *o, const struct vma_record *rec)
{
	unsigned int i;

	xd_puts(o, " mask");
	for (i = rec->nr_data; i > 1; i--)
		xd_printf(o, " %04x", rec->data[i - 1]);
}

static bool irq(struct xd_out *o, const struct vma_record *rec)
{
	const uint32_t *d = rec->data;
	unsigned int n = rec->nr_data;

	switch (rec->event) {
	case TRC_HW_IRQ_BIND_VECTOR:
	case TRC_HW_IRQ_ASSIGN_VECTOR:
	case TRC_HW_IRQ_CLEAR_VECTOR:
		/* {irq:16, vector:16; cpu mask words} */
		if (n < 1)
			return false;
		xd_printf(o, "irq_%s_vector irq %x vec %x",
			  rec->event == TRC_HW_IRQ_BIND_VECTOR ? "bind" :
			  rec->event == TRC_HW_IRQ_ASSIGN_VECTOR ? "assign" : "clear",
			  d[0] & 0xffffu, d[0] >> 16);
		irq_mask(o, rec);
		return true;
	case TRC_HW_IRQ_HANDLED:
		/* {irq, low 32 bits of the tsc at entry and at exit} */
		if (n < 3)
			return false;
		xd_printf(o, "irq_handled irq %x %d (%d,%d)", d[0], (int)(d[2] - d[1]), (int)d[1],
			  (int)d[2]);
		return true;
	case TRC_HW_IRQ_MOVE_CLEANUP_DELAY:
	case TRC_HW_IRQ_MOVE_CLEANUP:
	case TRC_HW_IRQ_MOVE_FINISH:
		/* {irq, vector, cpu} */
		if (n < 3)
			return false;
		xd_printf(o, "irq_move_%s irq %x vec %x cpu %d",
			  rec->event == TRC_HW_IRQ_MOVE_CLEANUP_DELAY ? "cleanup_delay" :
			  rec->event == TRC_HW_IRQ_MOVE_CLEANUP ? "cleanup" : "finish",
			  d[0], d[1], (int)d[2]);
		return true;
	case TRC_HW_IRQ_UNMAPPED_VECTOR:
		if (n < 1)
			return false;
		xd_printf(o, "irq_unmapped_vector vec %x", d[0]);
		return true;
	default:
		return false;
	}
}

bool xd_hw(struct xd_out *o, const struct vma_record *rec)
{
	switch (VMA_TRC_SUB(rec->event)) {
	case VMA_TRC_SUB(TRC_HW_PM):
		return pm(o, rec);
	case VMA_TRC_SUB(TRC_HW_IRQ):
		return irq(o, rec);
	default:
		/* xenalyze drops other hardware records without a word. */
		o->layout = VMA_XEN_DUMP_SILENT;
		return false;
	}
}
