/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory records (TRC_MEM: grant operations, p2m updates, ballooning,
 * populate-on-demand) and hardware records (TRC_HW: power management and
 * IRQ handling), in xenalyze's dump wording.
 */
#include <inttypes.h>

#include "output/xen-describe-internal.h"

/* VMX exit reasons that say why PoD reclaimed memory (xenalyze's rule). */
#define XD_VMX_EXCEPTION_NMI 0
#define XD_VMX_VMCALL 18
#define XD_VMX_EPT_VIOLATION 48

/*
 * Why populate-on-demand memory was reclaimed, judged by the open exit:
 * xenalyze tests the VMX reasons whatever the vendor.
 */
static const char *pod_context(const struct vma_describe_ctx *ctx)
{
	if (!ctx->exit_open) {
		return "unknown";
	}
	switch (ctx->exit_reason) {
	case XD_VMX_EPT_VIOLATION:
	case XD_VMX_EXCEPTION_NMI:
		return "fault";
	case XD_VMX_VMCALL:
		return "balloon";
	default:
		return "unknown";
	}
}

bool xd_mem(struct xd_out *o, const struct vma_record *rec, const struct vma_describe_ctx *ctx)
{
	const uint32_t *d = rec->data;
	unsigned int n = rec->nr_data;

	switch (rec->event) {
	case TRC_MEM_PAGE_GRANT_MAP:
	case TRC_MEM_PAGE_GRANT_UNMAP:
	case TRC_MEM_PAGE_GRANT_TRANSFER:
		/* {domain} */
		if (n < 1) {
			return false;
		}
		xd_printf(o, "%s domain %u", vma_mem_event_name(VMA_TRC_MINOR(rec->event)), d[0]);
		return true;
	case TRC_MEM_SET_P2M_ENTRY:
		/* {u64 gfn, mfn; p2m type; domain:16, order:16} */
		if (n < 6) {
			return false;
		}
		xd_printf(o, "set_p2m_entry d%u o%u t %u g %llx m %llx", d[5] & 0xffffu, d[5] >> 16,
			  d[4], (unsigned long long)xd_q(rec, 0), (unsigned long long)xd_q(rec, 2));
		return true;
	case TRC_MEM_DECREASE_RESERVATION:
		/* {u64 gfn; domain, order} */
		if (n < 4) {
			return false;
		}
		xd_printf(o, "decrease_reservation d%d o%d g %llx", (int)d[2], (int)d[3],
			  (unsigned long long)xd_q(rec, 0));
		return true;
	case TRC_MEM_POD_POPULATE:
	case TRC_MEM_POD_ZERO_RECLAIM:
		/* {u64 gfn, mfn; domain, order} */
		if (n < 6) {
			return false;
		}
		xd_printf(o, "%s d%d o%d g %llx m %llx",
			  rec->event == TRC_MEM_POD_POPULATE ? "pod_populate" : "pod_zero_reclaim",
			  (int)d[4], (int)d[5], (unsigned long long)xd_q(rec, 0),
			  (unsigned long long)xd_q(rec, 2));
		if (rec->event == TRC_MEM_POD_ZERO_RECLAIM) {
			xd_printf(o, " ctx %s", pod_context(ctx));
		}
		return true;
	case TRC_MEM_POD_SUPERPAGE_SPLINTER:
		/* {u64 gfn; domain, order} */
		if (n < 4) {
			return false;
		}
		xd_printf(o, "pod_spage_splinter d%d o%d g %" PRIx64, (int)d[2], (int)d[3],
			  xd_q(rec, 0));
		return true;
	default:
		return false;
	}
}

static bool pm(struct xd_out *o, const struct vma_record *rec)
{
	const uint32_t *d = rec->data;

	if (rec->nr_data < (rec->event == TRC_PM_FREQ_CHANGE ? 2u : 1u)) {
		return false;
	}
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
	for (i = rec->nr_data; i > 1; i--) {
		xd_printf(o, " %04x", rec->data[i - 1]);
	}
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
		if (n < 1) {
			return false;
		}
		xd_printf(o, "irq_%s_vector irq %x vec %x",
			  rec->event == TRC_HW_IRQ_BIND_VECTOR ? "bind" :
			  rec->event == TRC_HW_IRQ_ASSIGN_VECTOR ? "assign" : "clear",
			  d[0] & 0xffffu, d[0] >> 16);
		irq_mask(o, rec);
		return true;
	case TRC_HW_IRQ_HANDLED:
		/* {irq, low 32 bits of the tsc at entry and at exit} */
		if (n < 3) {
			return false;
		}
		xd_printf(o, "irq_handled irq %x %d (%d,%d)", d[0], (int)(d[2] - d[1]), (int)d[1],
			  (int)d[2]);
		return true;
	case TRC_HW_IRQ_MOVE_CLEANUP_DELAY:
	case TRC_HW_IRQ_MOVE_CLEANUP:
	case TRC_HW_IRQ_MOVE_FINISH:
		/* {irq, vector, cpu} */
		if (n < 3) {
			return false;
		}
		xd_printf(o, "irq_move_%s irq %x vec %x cpu %d",
			  rec->event == TRC_HW_IRQ_MOVE_CLEANUP_DELAY ? "cleanup_delay" :
			  rec->event == TRC_HW_IRQ_MOVE_CLEANUP ? "cleanup" : "finish",
			  d[0], d[1], (int)d[2]);
		return true;
	case TRC_HW_IRQ_UNMAPPED_VECTOR:
		if (n < 1) {
			return false;
		}
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
