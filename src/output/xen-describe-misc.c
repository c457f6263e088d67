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
							     xd_svm(o, ctx))]);
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

/* The DESCRIBE column of the hardware rows, given the row's name. */
typedef bool hw_describe_fn(struct xd_out *o, const struct vma_record *rec, const char *name);

/* {old MHz, new MHz} */
static bool pm_freq(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	xd_printf(o, "pm_freq_change o%d n%d", (int)rec->data[0], (int)rec->data[1]);
	return true;
}

/* {C-state, ...} */
static bool pm_idle(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	/* "%s c%d" */
	xd_puts(o, name);
	xd_lit(o, " c");
	xd_s64(o, (int32_t)rec->data[0]);
	return true;
}

/* {irq:16, vector:16; cpu mask words}: the mask words, highest first. */
static bool irq_vector(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	unsigned int i;

	xd_printf(o, "%s irq %x vec %x", name, rec->data[0] & 0xffffu, rec->data[0] >> 16);
	xd_puts(o, " mask");
	for (i = rec->nr_data; i > 1; i--)
		xd_printf(o, " %04x", rec->data[i - 1]);
	return true;
}

/* {irq, low 32 bits of the tsc at entry and at exit} */
static bool irq_handled(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "irq_handled irq %x %d (%d,%d)", d[0], (int)(d[2] - d[1]), (int)d[1],
		  (int)d[2]);
	return true;
}

/* {irq, vector, cpu} */
static bool irq_move(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	const uint32_t *d = rec->data;

	xd_printf(o, "%s irq %x vec %x cpu %d", name, d[0], d[1], (int)d[2]);
	return true;
}

static bool irq_unmapped(struct xd_out *o, const struct vma_record *rec, const char *name)
{
	xd_printf(o, "irq_unmapped_vector vec %x", rec->data[0]);
	return true;
}

/* A record of a hardware row, its columns passed as constants by xd_hw()'s switch. */
static inline __attribute__((always_inline)) bool
hw_row(struct xd_out *o, const struct vma_record *rec, const char *name, unsigned int words,
       unsigned int flags, hw_describe_fn *describe)
{
	if (vma_xe_short(rec, words, flags))
		return false;
	return describe(o, rec, name);
}

bool xd_hw(struct xd_out *o, const struct vma_record *rec)
{
	switch (rec->event) {
#define HW_CASE(sym, id, name, words, flags, state, describe) \
	case (id):                                             \
		return hw_row(o, rec, name, words, flags, describe);
		VMA_XEN_HW_EVENTS(HW_CASE)
#undef HW_CASE
	}
	/* xenalyze drops hardware records other than these without a word. */
	if (VMA_TRC_SUB(rec->event) != VMA_TRC_SUB(TRC_HW_PM) &&
	    VMA_TRC_SUB(rec->event) != VMA_TRC_SUB(TRC_HW_IRQ))
		o->layout = VMA_XEN_DUMP_SILENT;
	return false;
}
