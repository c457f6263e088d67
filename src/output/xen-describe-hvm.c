/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * HVM records (TRC_HVM): vmexit and vmentry (VMX and SVM, 32- and 64-bit,
 * Xen 4.19's per-vendor exit ids and the nested-guest flag), the handler
 * records that say what Xen did about an exit, and the emulated-device
 * records, in xenalyze's dump wording.
 *
 * Handler records that belong to an exit are decoded unless the analysis
 * found no exit open (ctx->orphan); xenalyze then lists them in its generic
 * "name [ words ]" form, marked '!'.  A few records about the guest's
 * state (injections, the interrupt window) stand alone.
 */
#include "output/xen-describe-internal.h"

/*
 * xenalyze's own handler minor for a guest process being destroyed
 * (TRC_HVM_OP_DESTROY_PROC in its analyze.h); Xen does not define it.
 */
#define XD_HVM_OP_DESTROY_PROC (TRC_HVM_HANDLER + 0x100)

/* Bits of a handler minor: 64-bit addresses, and the write direction of I/O. */
#define XD_HVM_IO_WRITE 0x200

/* vmentry arcs longer than this get xenalyze's "!" */
#define XD_LONG_ARC_CYCLES 10000

/* Interrupt sources of the interrupt-window record (Xen's hvm_intsrc). */
static const char *const intsrc_name[] = {
	"none", "pic", "lapic", "nmi", "mce", "vector",
};

static void exit_text(struct xd_out *o, const struct vma_record *rec,
		      const struct vma_describe_ctx *ctx, uint32_t event)
{
	bool is64 = (event & TRC_64_FLAG) != 0;
	bool svm = (event & ~TRC_64_FLAG) == TRC_HVM_SVM_EXIT || ctx->svm;
	uint32_t reason = rec->data[0];
	uint64_t rip = is64 ? xd_q(rec, 1) : rec->data[1];
	const char *name = vma_hvm_exit_name(svm, reason);

	o->mark = ']';
	/* "vmexit exit_reason %s eip %llx", the reason in hex when unnamed */
	xd_lit(o, "vmexit exit_reason ");
	if (name) {
		xd_puts(o, name);
	} else {
		xd_x64(o, reason);
	}
	xd_lit(o, " eip ");
	xd_x64(o, rip);
}

static void entry_text(struct xd_out *o, const struct vma_describe_ctx *ctx)
{
	if (!ctx->arc_open) {
		o->mark = '!';
		xd_puts(o, "vmentry");
		return;
	}
	o->mark = ']';
	/* "vmentry cycles %lld %s" */
	xd_lit(o, "vmentry cycles ");
	xd_s64(o, (int64_t)ctx->arc_cycles);
	if (ctx->arc_cycles > XD_LONG_ARC_CYCLES) {
		xd_lit(o, " !");
	} else {
		xd_lit(o, " ");
	}
}

/*
 * TRC_HVM_ENTRYEXIT.  A record of a nested guest (TRC_HVM_NESTEDFLAG) reads
 * like its plain counterpart, after "nested "; xenalyze does not know
 * them and prints nothing.
 */
static bool entryexit(struct xd_out *o, const struct vma_record *rec,
		      const struct vma_describe_ctx *ctx)
{
	uint32_t event = rec->event & ~(uint32_t)TRC_HVM_NESTEDFLAG;
	bool nested = event != rec->event;

	switch (event) {
	case TRC_HVM_VMENTRY:
		break;
	case TRC_HVM_VMX_EXIT:
	case TRC_HVM_SVM_EXIT:
		if (rec->nr_data < 2) {
			return false;
		}
		break;
	case TRC_HVM_VMX_EXIT64:
	case TRC_HVM_SVM_EXIT64:
		if (rec->nr_data < 3) {
			return false;
		}
		break;
	default:
		o->layout = VMA_XEN_DUMP_SILENT;
		return false;
	}
	if (nested) {
		o->layout = VMA_XEN_DUMP_SILENT;
		xd_puts(o, "nested ");
	}
	if (event == TRC_HVM_VMENTRY) {
		entry_text(o, ctx);
	} else {
		exit_text(o, rec, ctx, event);
	}
	return true;
}

/*
 * xenalyze's generic form of a handler record: its handler name (with
 * "64" for the 64-bit variant; "hvm_handler N" when unnamed) and its
 * payload words.
 */
static void handler_generic(struct xd_out *o, const struct vma_record *rec)
{
	uint32_t minor = VMA_TRC_MINOR(rec->event);
	bool is64 = (minor & TRC_64_FLAG) != 0;
	const char *name;

	minor &= ~(uint32_t)TRC_64_FLAG;
	name = vma_hvm_handler_name(minor);
	if (name) {
		xd_puts(o, name);
	} else {
		xd_lit(o, "hvm_handler ");
		xd_u64(o, minor);
	}
	if (is64) {
		xd_lit(o, "64");
	}
	xd_lit(o, " [");
	xd_words(o, rec);
	xd_lit(o, " ]");
}

static bool pf_inject(struct xd_out *o, const struct vma_record *rec)
{
	bool is64 = (rec->event & TRC_64_FLAG) != 0;

	/* {ec; cr2}, cr2 64 bits wide in the 64-bit variant */
	if (rec->nr_data < (is64 ? 3u : 2u)) {
		return false;
	}
	o->layout = VMA_XEN_DUMP_NO_VCPU;
	xd_printf(o, "pf_inject%s guest_cr2 %llx  guest_ec %x", is64 ? "64" : "",
		  (unsigned long long)(is64 ? xd_q(rec, 1) : rec->data[1]), rec->data[0]);
	return true;
}

static bool inj_exc(struct xd_out *o, const struct vma_record *rec)
{
	const char *name;

	/* {vector, error code} */
	if (rec->nr_data < 2) {
		return false;
	}
	o->layout = VMA_XEN_DUMP_NO_VCPU;
	name = vma_trap_name(rec->data[0]);
	if (name) {
		xd_printf(o, "inj_exc trap %s ec %x", name, rec->data[1]);
	} else {
		xd_printf(o, "inj_exc trap %u ec %x", rec->data[0], rec->data[1]);
	}
	return true;
}

static bool intr_window(struct xd_out *o, const struct vma_record *rec)
{
	uint32_t src;

	/* {vector, source, int pending vector or -1} */
	if (rec->nr_data < 3) {
		return false;
	}
	src = rec->data[1];
	/* "intr_window vec %u src %u(%s) intr %x", "intr #" when none pends */
	xd_lit(o, "intr_window vec ");
	xd_u64(o, rec->data[0]);
	xd_lit(o, " src ");
	xd_u64(o, src);
	xd_putc(o, '(');
	xd_puts(o, src < sizeof(intsrc_name) / sizeof(intsrc_name[0]) ? intsrc_name[src] : "?");
	if ((int32_t)rec->data[2] > 0) {
		xd_lit(o, ") intr ");
		xd_x64(o, rec->data[2]);
	} else {
		xd_lit(o, ") intr #");
	}
	return true;
}

/* Records about the guest's state, decoded whether or not an exit is open. */
static bool handler_standalone(struct xd_out *o, const struct vma_record *rec,
			       const struct vma_describe_ctx *ctx, bool *known)
{
	*known = true;
	switch (rec->event) {
	case TRC_HVM_PF_INJECT:
	case TRC_HVM_PF_INJECT64:
		return pf_inject(o, rec);
	case TRC_HVM_REINJ_VIRQ:
		if (rec->nr_data < 1) {
			return false;
		}
		o->layout = VMA_XEN_DUMP_NO_VCPU;
		xd_printf(o, "inj_virq vec %u", rec->data[0]);
		return true;
	case TRC_HVM_INJ_EXC:
		return inj_exc(o, rec);
	case TRC_HVM_INJ_VIRQ:
		/* {vector, fake} */
		if (rec->nr_data < 2) {
			return false;
		}
		/* "inj_virq vec %u  %s" */
		xd_lit(o, "inj_virq vec ");
		xd_u64(o, rec->data[0]);
		if (rec->data[1]) {
			xd_lit(o, "  fake");
		} else {
			xd_lit(o, "  real");
		}
		return true;
	case TRC_HVM_INTR_WINDOW:
		return intr_window(o, rec);
	case XD_HVM_OP_DESTROY_PROC:
		o->layout = VMA_XEN_DUMP_NO_VCPU;
		xd_printf(o, "destroy_proc cur_cr3 %llx", (unsigned long long)ctx->cr3);
		return true;
	default:
		*known = false;
		return false;
	}
}

static bool intr(struct xd_out *o, const struct vma_record *rec,
		 const struct vma_describe_ctx *ctx)
{
	uint32_t vec;
	const char *name;

	/* SVM's exit carries no vector: xenalyze shows 0. */
	if (ctx->svm) {
		vec = 0;
	} else if (rec->nr_data >= 1) {
		vec = rec->data[0];
	} else {
		return false;
	}
	name = vma_extint_vector_name(vec);
	/* "intr vec %x", or "intr vec %s(%x)" for Xen's own vectors */
	xd_lit(o, "intr vec ");
	if (name) {
		xd_puts(o, name);
		xd_putc(o, '(');
		xd_x64(o, vec);
		xd_putc(o, ')');
	} else {
		xd_x64(o, vec);
	}
	return true;
}

/*
 * A page fault Xen handled for a shadow-paging guest: {va; error code},
 * va 64 bits wide in the 64-bit variant.  The page-table indices follow
 * the guest's paging mode, and an address in the guest's linear page
 * table (Windows' self-map) is shown as an emulation.
 */
static bool pf_xen(struct xd_out *o, const struct vma_record *rec,
		   const struct vma_describe_ctx *ctx)
{
	bool is64 = (rec->event & TRC_64_FLAG) != 0;
	struct xd_pt_walk pt = { .level = 0 };
	unsigned int levels = ctx->guest_paging_levels;
	uint64_t va;
	uint32_t ec;

	if (rec->nr_data < (is64 ? 3u : 2u)) {
		return false;
	}
	va = is64 ? xd_q(rec, 0) : rec->data[0];
	ec = is64 ? rec->data[2] : rec->data[1];
	if (levels == 0) {
		levels = is64 ? 4 : 2;
	}
	/* After an MMIO record the fault is MMIO: no page-table walk. */
	if (!ctx->mmio_in_arc) {
		xd_pt_walk(&pt, va, levels);
	}
	o->mark = ']';
	if (pt.level > 0) {
		xd_printf(o, "pf_xen:emulate va %llx ec %x level %d corr %llx",
			  (unsigned long long)va, ec, pt.level,
			  (unsigned long long)pt.corresponding);
	} else {
		xd_printf(o, "pf_xen va %llx ec %x", (unsigned long long)va, ec);
	}
	xd_printf(o, " e->pt_index[%u %u %u %u %u]", pt.index[0], pt.index[1], pt.index[2],
		  pt.index[3], pt.index[4]);
	return true;
}

/* Port I/O Xen forwarded to the device model: {port, data}. */
static bool io_assist(struct xd_out *o, const struct vma_record *rec)
{
	bool write = (rec->event & XD_HVM_IO_WRITE) != 0;

	if ((rec->event & TRC_64_FLAG) || rec->nr_data < 1) {
		return false;
	}
	/* "io %s port %x val %x" */
	if (write) {
		xd_lit(o, "io write port ");
	} else {
		xd_lit(o, "io read port ");
	}
	xd_x64(o, rec->data[0]);
	if (rec->nr_data >= 2) {
		xd_lit(o, " val ");
		xd_x64(o, rec->data[1]);
	} else {
		/* string I/O: Xen logs no data (xenalyze prints what follows) */
		xd_puts(o, " (no data)");
	}
	return true;
}

/* MMIO forwarded to the device model: {gpa; data}, gpa 64-bit in the 64 variant. */
static bool mmio_assist(struct xd_out *o, const struct vma_record *rec)
{
	bool is64 = (rec->event & TRC_64_FLAG) != 0;
	bool write = (rec->event & XD_HVM_IO_WRITE) != 0;
	unsigned int addr_words = is64 ? 2 : 1;
	uint64_t gpa;

	if (rec->nr_data < addr_words) {
		return false;
	}
	gpa = is64 ? xd_q(rec, 0) : rec->data[0];
	o->mark = ']';
	/* "mmio_assist %c gpa %llx data %x"; the data word is there only in the full-size record */
	if (write) {
		xd_lit(o, "mmio_assist w gpa ");
	} else {
		xd_lit(o, "mmio_assist r gpa ");
	}
	xd_x64(o, gpa);
	if (rec->nr_data == (is64 ? 4u : 2u)) {
		xd_lit(o, " data ");
		xd_x64(o, rec->data[addr_words]);
	} else {
		xd_lit(o, " (no data)");
	}
	return true;
}

static bool cr_write(struct xd_out *o, const struct vma_record *rec,
		     const struct vma_describe_ctx *ctx)
{
	bool is64 = (rec->event & TRC_64_FLAG) != 0;
	uint32_t cr;
	uint64_t val;

	/* {cr; value}, value 64 bits wide in the 64-bit variant */
	if (rec->nr_data < (is64 ? 3u : 2u)) {
		return false;
	}
	cr = rec->data[0];
	val = is64 ? xd_q(rec, 1) : rec->data[1];
	if (cr == 3 && ctx->cr3) {
		o->mark = ']';
		xd_printf(o, "cr_write cr3 val %llx oval %llx %s", (unsigned long long)val,
			  (unsigned long long)ctx->cr3, ctx->cr3 == val ? "flush" : "switch");
	} else {
		/* "cr_write cr%d val %llx" */
		xd_lit(o, "cr_write cr");
		xd_s64(o, (int32_t)cr);
		xd_lit(o, " val ");
		xd_x64(o, val);
	}
	return true;
}

static bool msr(struct xd_out *o, const struct vma_record *rec)
{
	/* {msr; u64 value} */
	if (rec->nr_data < 3) {
		return false;
	}
	/* "%s addr %x val %llx" */
	if (rec->event == TRC_HVM_MSR_READ) {
		xd_lit(o, "msr_read addr ");
	} else {
		xd_lit(o, "msr_write addr ");
	}
	xd_x64(o, rec->data[0]);
	xd_lit(o, " val ");
	xd_x64(o, xd_q(rec, 1));
	return true;
}

static bool vmcall(struct xd_out *o, const struct vma_record *rec)
{
	const char *name;

	/* {eax}: the hypercall number */
	if (rec->nr_data < 1) {
		return false;
	}
	name = vma_hypercall_name(rec->data[0]);
	/* "vmcall %2x (%s)", without the name when there is none */
	xd_lit(o, "vmcall ");
	xd_x64_pad(o, rec->data[0], 2, ' ');
	if (name) {
		xd_lit(o, " (");
		xd_puts(o, name);
		xd_putc(o, ')');
	}
	return true;
}

static bool npf(struct xd_out *o, const struct vma_record *rec)
{
	/* {u64 gpa, u64 mfn, qualification, p2m type} */
	if (rec->nr_data < 6) {
		return false;
	}
	/* "npf gpa %llx q %x mfn %llx t %d" */
	xd_lit(o, "npf gpa ");
	xd_x64(o, xd_q(rec, 0));
	xd_lit(o, " q ");
	xd_x64(o, rec->data[4]);
	xd_lit(o, " mfn ");
	xd_x64(o, xd_q(rec, 2));
	xd_lit(o, " t ");
	xd_s64(o, (int32_t)rec->data[5]);
	return true;
}

static bool rdtsc(struct xd_out *o, const struct vma_record *rec,
		  const struct vma_describe_ctx *ctx)
{
	uint64_t tsc;

	/* {u64 tsc}: the value the guest read */
	if (rec->nr_data < 2) {
		return false;
	}
	tsc = xd_q(rec, 0);
	/* "rdtsc %llx %lld %s" */
	xd_lit(o, "rdtsc ");
	xd_x64(o, tsc);
	xd_putc(o, ' ');
	xd_s64(o, (int64_t)tsc);
	if (ctx->last_rdtsc > tsc) {
		xd_lit(o, " BACKWARDS");
	} else {
		xd_putc(o, ' ');
	}
	return true;
}

/* XCR accesses Xen emulated: {xcr; u64 value}.  xenalyze does not know them. */
static bool xcr(struct xd_out *o, const struct vma_record *rec)
{
	if (rec->nr_data < 3) {
		return false;
	}
	o->mark = ']';
	xd_printf(o, "%s xcr%u val %llx",
		  rec->event == TRC_HVM_XCR_READ64 ? "xcr_read" : "xcr_write", rec->data[0],
		  (unsigned long long)xd_q(rec, 1));
	return true;
}

static bool handler(struct xd_out *o, const struct vma_record *rec,
		    const struct vma_describe_ctx *ctx)
{
	bool known;
	bool done = handler_standalone(o, rec, ctx, &known);

	if (known) {
		return done;
	}
	if (ctx->orphan) {
		/* No exit to attach it to: xenalyze ignores it, listing it generically. */
		o->mark = '!';
		handler_generic(o, rec);
		return true;
	}
	switch (rec->event) {
	case TRC_HVM_INTR:
		return intr(o, rec, ctx);
	case TRC_HVM_PF_XEN:
	case TRC_HVM_PF_XEN64:
		return pf_xen(o, rec, ctx);
	case TRC_HVM_IOPORT_READ:
	case TRC_HVM_IOPORT_WRITE:
		return io_assist(o, rec);
	case TRC_HVM_IOMEM_READ:
	case TRC_HVM_IOMEM_WRITE:
	case TRC_HVM_IOMEM_READ | TRC_64_FLAG:
	case TRC_HVM_IOMEM_WRITE | TRC_64_FLAG:
		return mmio_assist(o, rec);
	case TRC_HVM_CR_WRITE:
	case TRC_HVM_CR_WRITE64:
		return cr_write(o, rec, ctx);
	case TRC_HVM_MSR_READ:
	case TRC_HVM_MSR_WRITE:
		return msr(o, rec);
	case TRC_HVM_VMMCALL:
		return vmcall(o, rec);
	case TRC_HVM_NPF:
		return npf(o, rec);
	case TRC_HVM_RDTSC:
		return rdtsc(o, rec, ctx);
	case TRC_HVM_XCR_READ64:
	case TRC_HVM_XCR_WRITE64:
		return xcr(o, rec);
	default:
		/* cpuid, hlt, cr_read, dr_*, invlpg, vlapic...: the generic form */
		o->mark = ']';
		handler_generic(o, rec);
		return true;
	}
}

/* Emulated platform timers and interrupt controllers (TRC_HVM_EMUL). */
static bool emul(struct xd_out *o, const struct vma_record *rec)
{
	const uint32_t *d = rec->data;
	unsigned int n = rec->nr_data;

	/* xenalyze counts these records and prints nothing for them. */
	o->layout = VMA_XEN_DUMP_SILENT;
	switch (rec->event) {
	case TRC_HVM_EMUL_HPET_START_TIMER:
		/* {timer, irq, u64 ns to first tick, u64 ns period} */
		if (n < 6) {
			return false;
		}
		xd_printf(o, "emul:hpet_start_timer tn %u irq %u delta %llu ns period %llu ns",
			  d[0], d[1], (unsigned long long)xd_q(rec, 2),
			  (unsigned long long)xd_q(rec, 4));
		return true;
	case TRC_HVM_EMUL_PIT_START_TIMER:
	case TRC_HVM_EMUL_RTC_START_TIMER:
		/* {ns to first tick, ns period (0: one-shot)} */
		if (n < 2) {
			return false;
		}
		xd_printf(o, "emul:%s_start_timer delta %u ns period %u ns",
			  rec->event == TRC_HVM_EMUL_PIT_START_TIMER ? "pit" : "rtc", d[0], d[1]);
		return true;
	case TRC_HVM_EMUL_LAPIC_START_TIMER:
		/* {u64 ns to first tick, u64 ns period, irq} */
		if (n < 5) {
			return false;
		}
		xd_printf(o, "emul:lapic_start_timer delta %llu ns period %llu ns irq %u",
			  (unsigned long long)xd_q(rec, 0), (unsigned long long)xd_q(rec, 2), d[4]);
		return true;
	case TRC_HVM_EMUL_HPET_STOP_TIMER:
		if (n < 1) {
			return false;
		}
		xd_printf(o, "emul:hpet_stop_timer tn %u", d[0]);
		return true;
	case TRC_HVM_EMUL_PIT_STOP_TIMER:
		xd_puts(o, "emul:pit_stop_timer");
		return true;
	case TRC_HVM_EMUL_RTC_STOP_TIMER:
		xd_puts(o, "emul:rtc_stop_timer");
		return true;
	case TRC_HVM_EMUL_LAPIC_STOP_TIMER:
		xd_puts(o, "emul:lapic_stop_timer");
		return true;
	case TRC_HVM_EMUL_PIT_TIMER_CB:
		xd_puts(o, "emul:pit_timer_cb");
		return true;
	case TRC_HVM_EMUL_LAPIC_TIMER_CB:
		xd_puts(o, "emul:lapic_timer_cb");
		return true;
	case TRC_HVM_EMUL_PIC_INT_OUTPUT:
		/* {int_output, is_master, highest pending irq or -1} */
		if (n < 3) {
			return false;
		}
		xd_printf(o, "emul:pic_int_output %u master %u irq %d", d[0], d[1], (int)d[2]);
		return true;
	case TRC_HVM_EMUL_PIC_KICK:
		if (n < 1) {
			return false;
		}
		xd_printf(o, "emul:pic_kick irq %d", (int)d[0]);
		return true;
	case TRC_HVM_EMUL_PIC_INTACK:
		if (n < 2) {
			return false;
		}
		xd_printf(o, "emul:pic_intack master %u irq %d", d[0], (int)d[1]);
		return true;
	case TRC_HVM_EMUL_PIC_POSEDGE:
	case TRC_HVM_EMUL_PIC_NEGEDGE:
		if (n < 1) {
			return false;
		}
		xd_printf(o, "emul:pic_%s irq %d",
			  rec->event == TRC_HVM_EMUL_PIC_POSEDGE ? "posedge" : "negedge",
			  (int)d[0]);
		return true;
	case TRC_HVM_EMUL_PIC_PEND_IRQ_CALL:
		if (n < 2) {
			return false;
		}
		xd_printf(o, "emul:pic_pend_irq_call accept %u int_output %u", d[0], d[1]);
		return true;
	case TRC_HVM_EMUL_LAPIC_PIC_INTR:
		if (n < 2) {
			return false;
		}
		xd_printf(o, "emul:lapic_pic_intr target %u accept %u", d[0], d[1]);
		return true;
	default:
		return false;
	}
}

bool xd_hvm(struct xd_out *o, const struct vma_record *rec, const struct vma_describe_ctx *ctx)
{
	switch (VMA_TRC_SUB(rec->event)) {
	case VMA_TRC_SUB(TRC_HVM_ENTRYEXIT):
		return entryexit(o, rec, ctx);
	case VMA_TRC_SUB(TRC_HVM_HANDLER):
		return handler(o, rec, ctx);
	case VMA_TRC_SUB(TRC_HVM_EMUL):
		return emul(o, rec);
	default:
		/* xenalyze only warns about an unknown HVM event. */
		o->layout = VMA_XEN_DUMP_SILENT;
		return false;
	}
}
