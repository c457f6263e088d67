/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * HVM records (TRC_HVM): vmexit and vmentry (VMX and SVM, 32- and 64-bit,
 * Xen 4.19's per-vendor exit ids and the nested-guest flag), the handler
 * records that say what Xen did about an exit, and the emulated-device
 * records, in xenalyze's dump wording.
 *
 * Each record's row in the HVM event table (xen-events.h) gives its
 * decoder here (the table's DESCRIBE column), its size and whether it
 * belongs to an exit.  A record too short for its row is printed raw.
 * Handler records that belong to an exit are decoded unless the analysis
 * found no exit open (ctx->orphan); xenalyze then lists them in its generic
 * "name [ words ]" form, marked '!'.  A few records about the guest's
 * state (injections, the interrupt window) stand alone.
 */
#include "output/xen-describe-internal.h"
#include "vmalyze/xen-events.h"

/* vmentry arcs longer than this get xenalyze's "!" */
#define XD_LONG_ARC_CYCLES 10000

/* Interrupt sources of the interrupt-window record (Xen's hvm_intsrc). */
static const char *const intsrc_name[] = {
	"none", "pic", "lapic", "nmi", "mce", "vector",
};

/* The DESCRIBE column's functions; the row's size is checked before. */
typedef bool hvm_describe_fn(struct xd_out *o, const struct vma_record *rec,
			     const struct vma_describe_ctx *ctx);

static bool vmexit(struct xd_out *o, const struct vma_record *rec,
		   const struct vma_describe_ctx *ctx)
{
	uint32_t event = rec->event & ~(uint32_t)(TRC_HVM_NESTEDFLAG | TRC_64_FLAG);
	bool svm = event == TRC_HVM_SVM_EXIT || xd_svm(o, ctx);
	uint32_t reason = vma_xf_exit_reason(rec);
	const char *name = vma_hvm_exit_name(svm, reason);

	o->mark = ']';
	/* "vmexit exit_reason %s eip %llx", the reason in hex when unnamed */
	xd_lit(o, "vmexit exit_reason ");
	if (name)
		xd_puts(o, name);
	else
		xd_x64(o, reason);
	xd_lit(o, " eip ");
	xd_x64(o, vma_xf_exit_rip(rec));
	return true;
}

static bool entry(struct xd_out *o, const struct vma_record *rec,
		  const struct vma_describe_ctx *ctx)
{
	if (!ctx->arc_open) {
		o->mark = '!';
		xd_puts(o, "vmentry");
		return true;
	}
	o->mark = ']';
	/* "vmentry cycles %lld %s" */
	xd_lit(o, "vmentry cycles ");
	xd_s64(o, (int64_t)ctx->arc_cycles);
	if (ctx->arc_cycles > XD_LONG_ARC_CYCLES)
		xd_lit(o, " !");
	else
		xd_lit(o, " ");
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
	if (is64)
		xd_lit(o, "64");
	xd_lit(o, " [");
	xd_words(o, rec);
	xd_lit(o, " ]");
}

/* cpuid, hlt, cr_read, dr_*, invlpg, vlapic...: the generic form */
static bool generic(struct xd_out *o, const struct vma_record *rec,
		    const struct vma_describe_ctx *ctx)
{
	o->mark = ']';
	handler_generic(o, rec);
	return true;
}

static bool pf_inject(struct xd_out *o, const struct vma_record *rec,
		      const struct vma_describe_ctx *ctx)
{
	o->layout = VMA_XEN_DUMP_NO_VCPU;
	xd_printf(o, "pf_inject%s guest_cr2 %llx  guest_ec %x", vma_xe_wide(rec) ? "64" : "",
		  (unsigned long long)vma_xf_pf_inject_cr2(rec), vma_xf_pf_inject_ec(rec));
	return true;
}

static bool inj_exc(struct xd_out *o, const struct vma_record *rec,
		    const struct vma_describe_ctx *ctx)
{
	const char *name = vma_trap_name(vma_xf_exc_vector(rec));

	o->layout = VMA_XEN_DUMP_NO_VCPU;
	if (name)
		xd_printf(o, "inj_exc trap %s ec %x", name, vma_xf_exc_ec(rec));
	else
		xd_printf(o, "inj_exc trap %u ec %x", vma_xf_exc_vector(rec), vma_xf_exc_ec(rec));
	return true;
}

static bool reinj_virq(struct xd_out *o, const struct vma_record *rec,
		       const struct vma_describe_ctx *ctx)
{
	o->layout = VMA_XEN_DUMP_NO_VCPU;
	xd_printf(o, "inj_virq vec %u", vma_xf_virq_vector(rec));
	return true;
}

static bool inj_virq(struct xd_out *o, const struct vma_record *rec,
		     const struct vma_describe_ctx *ctx)
{
	/* "inj_virq vec %u  %s" */
	xd_lit(o, "inj_virq vec ");
	xd_u64(o, vma_xf_virq_vector(rec));
	if (vma_xf_virq_fake(rec))
		xd_lit(o, "  fake");
	else
		xd_lit(o, "  real");
	return true;
}

static bool intr_window(struct xd_out *o, const struct vma_record *rec,
			const struct vma_describe_ctx *ctx)
{
	uint32_t src = vma_xf_iw_source(rec);

	/* "intr_window vec %u src %u(%s) intr %x", "intr #" when none pends */
	xd_lit(o, "intr_window vec ");
	xd_u64(o, vma_xf_iw_vector(rec));
	xd_lit(o, " src ");
	xd_u64(o, src);
	xd_putc(o, '(');
	xd_puts(o, src < sizeof(intsrc_name) / sizeof(intsrc_name[0]) ? intsrc_name[src] : "?");
	if (vma_xf_iw_pending(rec) > 0) {
		xd_lit(o, ") intr ");
		xd_x64(o, (uint32_t)vma_xf_iw_pending(rec));
	} else {
		xd_lit(o, ") intr #");
	}
	return true;
}

static bool destroy_proc(struct xd_out *o, const struct vma_record *rec,
			 const struct vma_describe_ctx *ctx)
{
	o->layout = VMA_XEN_DUMP_NO_VCPU;
	xd_printf(o, "destroy_proc cur_cr3 %llx", (unsigned long long)ctx->cr3);
	return true;
}

static bool intr(struct xd_out *o, const struct vma_record *rec,
		 const struct vma_describe_ctx *ctx)
{
	uint32_t vec = vma_xf_intr_vector(rec, xd_svm(o, ctx));
	const char *name = vma_extint_vector_name(vec);

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
 * A page fault Xen handled for a shadow-paging guest.  The page-table
 * indices follow the guest's paging mode, and an address in the guest's
 * linear page table (Windows' self-map) is shown as an emulation.
 */
static bool pf_xen(struct xd_out *o, const struct vma_record *rec,
		   const struct vma_describe_ctx *ctx)
{
	struct xd_pt_walk pt = { .level = 0 };
	unsigned int levels = ctx->guest_paging_levels;
	uint64_t va = vma_xf_pf_va(rec);
	uint32_t ec = vma_xf_pf_ec(rec);
	unsigned int i;

	if (levels == 0)
		levels = vma_xe_wide(rec) ? 4 : 2;
	/* After an MMIO record the fault is MMIO: no page-table walk. */
	if (!ctx->mmio_in_arc)
		xd_pt_walk(&pt, va, levels);
	o->mark = ']';
	/* "pf_xen:emulate va %llx ec %x level %d corr %llx", or "pf_xen va %llx ec %x" */
	if (pt.level > 0)
		xd_lit(o, "pf_xen:emulate va ");
	else
		xd_lit(o, "pf_xen va ");
	xd_x64(o, va);
	xd_lit(o, " ec ");
	xd_x64(o, ec);
	if (pt.level > 0) {
		xd_lit(o, " level ");
		xd_s64(o, pt.level);
		xd_lit(o, " corr ");
		xd_x64(o, pt.corresponding);
	}
	/* " e->pt_index[%u %u %u %u %u]" */
	xd_lit(o, " e->pt_index[");
	for (i = 0; i < 5; i++) {
		if (i)
			xd_putc(o, ' ');
		xd_u64(o, pt.index[i]);
	}
	xd_putc(o, ']');
	return true;
}

/* Port I/O Xen forwarded to the device model. */
static bool io_assist(struct xd_out *o, const struct vma_record *rec,
		      const struct vma_describe_ctx *ctx)
{
	/* "io %s port %x val %x" */
	if (vma_xf_io_write(rec))
		xd_lit(o, "io write port ");
	else
		xd_lit(o, "io read port ");
	xd_x64(o, vma_xf_io_port(rec));
	if (vma_xf_io_has_data(rec)) {
		xd_lit(o, " val ");
		xd_x64(o, vma_xf_io_data(rec));
	} else {
		/* string I/O: Xen logs no data (xenalyze prints what follows) */
		xd_puts(o, " (no data)");
	}
	return true;
}

/* MMIO forwarded to the device model. */
static bool mmio_assist(struct xd_out *o, const struct vma_record *rec,
			const struct vma_describe_ctx *ctx)
{
	o->mark = ']';
	/* "mmio_assist %c gpa %llx data %x" */
	if (vma_xf_mmio_write(rec))
		xd_lit(o, "mmio_assist w gpa ");
	else
		xd_lit(o, "mmio_assist r gpa ");
	xd_x64(o, vma_xf_mmio_gpa(rec));
	if (vma_xf_mmio_has_data(rec)) {
		xd_lit(o, " data ");
		xd_x64(o, vma_xf_mmio_data(rec));
	} else {
		xd_lit(o, " (no data)");
	}
	return true;
}

static bool cr_write(struct xd_out *o, const struct vma_record *rec,
		     const struct vma_describe_ctx *ctx)
{
	uint32_t cr = vma_xf_cr(rec);
	uint64_t val = vma_xf_cr_value(rec);

	if (cr == 3 && ctx->cr3) {
		o->mark = ']';
		/* "cr_write cr3 val %llx oval %llx %s" */
		xd_lit(o, "cr_write cr3 val ");
		xd_x64(o, val);
		xd_lit(o, " oval ");
		xd_x64(o, ctx->cr3);
		if (ctx->cr3 == val)
			xd_lit(o, " flush");
		else
			xd_lit(o, " switch");
	} else {
		/* "cr_write cr%d val %llx" */
		xd_lit(o, "cr_write cr");
		xd_s64(o, (int32_t)cr);
		xd_lit(o, " val ");
		xd_x64(o, val);
	}
	return true;
}

static bool msr(struct xd_out *o, const struct vma_record *rec,
		const struct vma_describe_ctx *ctx)
{
	/* "%s addr %x val %llx" */
	if (rec->event == TRC_HVM_MSR_READ)
		xd_lit(o, "msr_read addr ");
	else
		xd_lit(o, "msr_write addr ");
	xd_x64(o, vma_xf_msr(rec));
	xd_lit(o, " val ");
	xd_x64(o, vma_xf_msr_value(rec));
	return true;
}

static bool vmcall(struct xd_out *o, const struct vma_record *rec,
		   const struct vma_describe_ctx *ctx)
{
	uint32_t eax = vma_xf_vmcall_eax(rec);
	const char *name = vma_hypercall_name(eax);

	/* "vmcall %2x (%s)", without the name when there is none */
	xd_lit(o, "vmcall ");
	xd_x64_pad(o, eax, 2, ' ');
	if (name) {
		xd_lit(o, " (");
		xd_puts(o, name);
		xd_putc(o, ')');
	}
	return true;
}

static bool npf(struct xd_out *o, const struct vma_record *rec,
		const struct vma_describe_ctx *ctx)
{
	/* "npf gpa %llx q %x mfn %llx t %d" */
	xd_lit(o, "npf gpa ");
	xd_x64(o, vma_xf_npf_gpa(rec));
	xd_lit(o, " q ");
	xd_x64(o, vma_xf_npf_qual(rec));
	xd_lit(o, " mfn ");
	xd_x64(o, vma_xf_npf_mfn(rec));
	xd_lit(o, " t ");
	xd_s64(o, vma_xf_npf_type(rec));
	return true;
}

static bool rdtsc(struct xd_out *o, const struct vma_record *rec,
		  const struct vma_describe_ctx *ctx)
{
	uint64_t tsc = vma_xf_rdtsc_value(rec);

	/* "rdtsc %llx %lld %s" */
	xd_lit(o, "rdtsc ");
	xd_x64(o, tsc);
	xd_putc(o, ' ');
	xd_s64(o, (int64_t)tsc);
	if (ctx->last_rdtsc > tsc)
		xd_lit(o, " BACKWARDS");
	else
		xd_putc(o, ' ');
	return true;
}

/* XCR accesses Xen emulated.  xenalyze does not know them. */
static bool xcr(struct xd_out *o, const struct vma_record *rec,
		const struct vma_describe_ctx *ctx)
{
	o->mark = ']';
	xd_printf(o, "%s xcr%u val %llx",
		  rec->event == TRC_HVM_XCR_READ64 ? "xcr_read" : "xcr_write", vma_xf_xcr(rec),
		  (unsigned long long)vma_xf_xcr_value(rec));
	return true;
}

/*
 * Emulated platform timers and interrupt controllers (TRC_HVM_EMUL).
 * xenalyze counts these records and prints nothing for them.
 */
static bool hpet_start(struct xd_out *o, const struct vma_record *rec,
		       const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "emul:hpet_start_timer tn %u irq %u delta %llu ns period %llu ns",
		  vma_xf_emul_word(rec, 0), vma_xf_emul_word(rec, 1),
		  (unsigned long long)vma_xq(rec, 2), (unsigned long long)vma_xq(rec, 4));
	return true;
}

static bool timer_start(struct xd_out *o, const struct vma_record *rec,
			const struct vma_describe_ctx *ctx)
{
	/* {ns to first tick, ns period (0: one-shot)} */
	xd_printf(o, "emul:%s_start_timer delta %u ns period %u ns",
		  rec->event == TRC_HVM_EMUL_PIT_START_TIMER ? "pit" : "rtc",
		  vma_xf_emul_word(rec, 0), vma_xf_emul_word(rec, 1));
	return true;
}

static bool lapic_start(struct xd_out *o, const struct vma_record *rec,
			const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "emul:lapic_start_timer delta %llu ns period %llu ns irq %u",
		  (unsigned long long)vma_xq(rec, 0), (unsigned long long)vma_xq(rec, 2),
		  vma_xf_emul_word(rec, 4));
	return true;
}

static bool hpet_stop(struct xd_out *o, const struct vma_record *rec,
		      const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "emul:hpet_stop_timer tn %u", vma_xf_emul_word(rec, 0));
	return true;
}

/* Records whose text is their name. */
static bool emul_plain(struct xd_out *o, const struct vma_record *rec,
		       const struct vma_describe_ctx *ctx)
{
	xd_lit(o, "emul:");
	xd_puts(o, vma_xen_events[vma_xen_event_index(rec->event)].name);
	return true;
}

static bool pic_int_output(struct xd_out *o, const struct vma_record *rec,
			   const struct vma_describe_ctx *ctx)
{
	/* {int_output, is_master, highest pending irq or -1} */
	xd_printf(o, "emul:pic_int_output %u master %u irq %d", vma_xf_emul_word(rec, 0),
		  vma_xf_emul_word(rec, 1), (int)vma_xf_emul_word(rec, 2));
	return true;
}

static bool pic_kick(struct xd_out *o, const struct vma_record *rec,
		     const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "emul:pic_kick irq %d", (int)vma_xf_emul_word(rec, 0));
	return true;
}

static bool pic_intack(struct xd_out *o, const struct vma_record *rec,
		       const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "emul:pic_intack master %u irq %d", vma_xf_emul_word(rec, 0),
		  (int)vma_xf_emul_word(rec, 1));
	return true;
}

static bool pic_edge(struct xd_out *o, const struct vma_record *rec,
		     const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "emul:pic_%s irq %d",
		  rec->event == TRC_HVM_EMUL_PIC_POSEDGE ? "posedge" : "negedge",
		  (int)vma_xf_emul_word(rec, 0));
	return true;
}

static bool pic_pend_irq_call(struct xd_out *o, const struct vma_record *rec,
			      const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "emul:pic_pend_irq_call accept %u int_output %u", vma_xf_emul_word(rec, 0),
		  vma_xf_emul_word(rec, 1));
	return true;
}

static bool lapic_pic_intr(struct xd_out *o, const struct vma_record *rec,
			   const struct vma_describe_ctx *ctx)
{
	xd_printf(o, "emul:lapic_pic_intr target %u accept %u", vma_xf_emul_word(rec, 0),
		  vma_xf_emul_word(rec, 1));
	return true;
}

/*
 * A record of a row of the HVM list, its columns passed as constants by
 * xd_hvm()'s switch.  @nested: the record is a nested guest's.
 */
static inline __attribute__((always_inline)) bool
hvm_row(struct xd_out *o, const struct vma_record *rec, const struct vma_describe_ctx *ctx,
	bool nested, unsigned int words, unsigned int flags, hvm_describe_fn *describe)
{
	if (VMA_TRC_SUB(rec->event) == VMA_TRC_SUB(TRC_HVM_EMUL))
		o->layout = VMA_XEN_DUMP_SILENT;
	if ((flags & VMA_XE_EXIT) && ctx->orphan) {
		/* No exit to attach it to: xenalyze ignores it, listing it generically. */
		o->mark = '!';
		handler_generic(o, rec);
		return true;
	}
	if (vma_xe_short(rec, words, flags))
		return false;
	if (nested) {
		o->layout = VMA_XEN_DUMP_SILENT;
		xd_puts(o, "nested ");
	}
	return describe(o, rec, ctx);
}

bool xd_hvm(struct xd_out *o, const struct vma_record *rec, const struct vma_describe_ctx *ctx)
{
	uint32_t sub = VMA_TRC_SUB(rec->event);
	uint32_t event = rec->event;

	/*
	 * A record of a nested guest (TRC_HVM_NESTEDFLAG) reads like its plain
	 * counterpart, after "nested "; xenalyze does not know them and prints
	 * nothing.
	 */
	if (sub == VMA_TRC_SUB(TRC_HVM_ENTRYEXIT))
		event &= ~(uint32_t)TRC_HVM_NESTEDFLAG;
	switch (event) {
#define HVM_CASE(sym, id, name, words, flags, state, describe) \
	case (id):                                              \
		return hvm_row(o, rec, ctx, event != rec->event, words, flags, describe);
		VMA_XEN_HVM_EVENTS(HVM_CASE)
#undef HVM_CASE
	}
	if (sub == VMA_TRC_SUB(TRC_HVM_HANDLER)) {
		o->mark = ctx->orphan ? '!' : ']';
		handler_generic(o, rec);
		return true;
	}
	/* xenalyze only warns about an unknown HVM event. */
	o->layout = VMA_XEN_DUMP_SILENT;
	return false;
}
