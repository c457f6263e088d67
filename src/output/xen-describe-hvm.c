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
	struct xd_kept *k = o->kept && reason < XD_KEPT_EXITS ? &o->kept->exit[svm][reason] : NULL;
	const char *name;
	size_t n;
	char *p, *head;

	o->mark = ']';
	if (xd_kept_ready(k)) {
		p = xd_reserve(o, XD_KEPT_MAX + XP_X64_MAX);
		if (!p)
			return true;
		p = xp_kept(p, k);
	} else {
		name = vma_hvm_exit_name(svm, reason);
		n = name ? strlen(name) : XP_X64_MAX;
		p = xd_reserve(o, 19 + n + 5 + XP_X64_MAX);
		if (!p)
			return true;
		head = p;
		/* "vmexit exit_reason %s eip %llx", the reason in hex when unnamed */
		p = xp_lit(p, "vmexit exit_reason ");
		p = name ? xp_put(p, name, n) : vma_fmt_x64(p, reason);
		p = xp_lit(p, " eip ");
		if (k)
			xd_keep(k, head, (size_t)(p - head));
	}
	xd_commit(o, vma_fmt_x64(p, vma_xf_exit_rip(rec)));
	return true;
}

static bool entry(struct xd_out *o, const struct vma_record *rec,
		  const struct vma_describe_ctx *ctx)
{
	char *p;

	if (!ctx->arc_open) {
		o->mark = '!';
		xd_puts(o, "vmentry");
		return true;
	}
	o->mark = ']';
	/* "vmentry cycles %lld %s" */
	p = xd_reserve(o, 15 + XP_S64_MAX + 2);
	if (!p)
		return true;
	p = xp_lit(p, "vmentry cycles ");
	p = xp_s64(p, (int64_t)ctx->arc_cycles);
	if (ctx->arc_cycles > XD_LONG_ARC_CYCLES)
		p = xp_lit(p, " !");
	else
		p = xp_lit(p, " ");
	xd_commit(o, p);
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
	struct xd_kept *k;
	const char *name;
	size_t n;
	char *p, *head;
	unsigned int i;

	minor &= ~(uint32_t)TRC_64_FLAG;
	k = o->kept && minor < VMA_HVM_HANDLER_LIMIT ? &o->kept->handler[is64][minor] : NULL;
	if (xd_kept_ready(k)) {
		p = xd_reserve(o, XD_KEPT_MAX + rec->nr_data * (1 + XP_X64_MAX) + 2);
		if (!p)
			return;
		p = xp_kept(p, k);
	} else {
		name = vma_hvm_handler_name(minor);
		n = name ? strlen(name) : 12 + XP_U64_MAX;
		p = xd_reserve(o, n + 2 + 2 + rec->nr_data * (1 + XP_X64_MAX) + 2);
		if (!p)
			return;
		head = p;
		if (name) {
			p = xp_put(p, name, n);
		} else {
			p = xp_lit(p, "hvm_handler ");
			p = xp_u64(p, minor);
		}
		if (is64)
			p = xp_lit(p, "64");
		p = xp_lit(p, " [");
		if (k)
			xd_keep(k, head, (size_t)(p - head));
	}
	/* the words, as xd_words() */
	for (i = 0; i < rec->nr_data; i++) {
		*p++ = ' ';
		p = vma_fmt_x64(p, rec->data[i]);
	}
	xd_commit(o, xp_lit(p, " ]"));
}

/* cpuid, hlt, cr_read, dr_*, invlpg, vlapic...: the generic form */
static bool generic(struct xd_out *o, const struct vma_record *rec,
		    const struct vma_describe_ctx *ctx)
{
	o->mark = ']';
	handler_generic(o, rec);
	return true;
}

/*
 * The describers of rarer records below are kept out of line: inlined
 * into xd_hvm()'s switch, their appends cost its every call, vmexits'
 * included, a register saved and restored.
 */
static __attribute__((noinline)) bool
pf_inject(struct xd_out *o, const struct vma_record *rec,
	  const struct vma_describe_ctx *ctx)
{
	o->layout = VMA_XEN_DUMP_NO_VCPU;
	/* "pf_inject%s guest_cr2 %llx  guest_ec %x" */
	if (vma_xe_wide(rec))
		xd_lit(o, "pf_inject64 guest_cr2 ");
	else
		xd_lit(o, "pf_inject guest_cr2 ");
	xd_x64(o, vma_xf_pf_inject_cr2(rec));
	xd_lit_x64(o, "  guest_ec ", vma_xf_pf_inject_ec(rec));
	return true;
}

static __attribute__((noinline)) bool
inj_exc(struct xd_out *o, const struct vma_record *rec,
	const struct vma_describe_ctx *ctx)
{
	const char *name = vma_trap_name(vma_xf_exc_vector(rec));

	o->layout = VMA_XEN_DUMP_NO_VCPU;
	/* "inj_exc trap %s ec %x", the vector's number when it has no name */
	xd_lit(o, "inj_exc trap ");
	if (name)
		xd_puts(o, name);
	else
		xd_u64(o, vma_xf_exc_vector(rec));
	xd_lit_x64(o, " ec ", vma_xf_exc_ec(rec));
	return true;
}

static __attribute__((noinline)) bool
reinj_virq(struct xd_out *o, const struct vma_record *rec,
	   const struct vma_describe_ctx *ctx)
{
	o->layout = VMA_XEN_DUMP_NO_VCPU;
	xd_lit_u64(o, "inj_virq vec ", vma_xf_virq_vector(rec));
	return true;
}

static bool inj_virq(struct xd_out *o, const struct vma_record *rec,
		     const struct vma_describe_ctx *ctx)
{
	char *p = xd_reserve(o, 13 + XP_U64_MAX + 6);

	if (!p)
		return true;
	/* "inj_virq vec %u  %s" */
	p = xp_lit(p, "inj_virq vec ");
	p = xp_u64(p, vma_xf_virq_vector(rec));
	if (vma_xf_virq_fake(rec))
		p = xp_lit(p, "  fake");
	else
		p = xp_lit(p, "  real");
	xd_commit(o, p);
	return true;
}

static bool intr_window(struct xd_out *o, const struct vma_record *rec,
			const struct vma_describe_ctx *ctx)
{
	uint32_t src = vma_xf_iw_source(rec);

	/* "intr_window vec %u src %u(%s) intr %x", "intr #" when none pends */
	xd_lit_u64(o, "intr_window vec ", vma_xf_iw_vector(rec));
	xd_lit_u64(o, " src ", src);
	xd_putc(o, '(');
	xd_puts(o, src < sizeof(intsrc_name) / sizeof(intsrc_name[0]) ? intsrc_name[src] : "?");
	if (vma_xf_iw_pending(rec) > 0) {
		xd_lit_x64(o, ") intr ", (uint32_t)vma_xf_iw_pending(rec));
	} else {
		xd_lit(o, ") intr #");
	}
	return true;
}

static __attribute__((noinline)) bool
destroy_proc(struct xd_out *o, const struct vma_record *rec,
	     const struct vma_describe_ctx *ctx)
{
	o->layout = VMA_XEN_DUMP_NO_VCPU;
	xd_lit_x64(o, "destroy_proc cur_cr3 ", ctx->cr3);
	return true;
}

static bool intr(struct xd_out *o, const struct vma_record *rec,
		 const struct vma_describe_ctx *ctx)
{
	uint32_t vec = vma_xf_intr_vector(rec, xd_svm(o, ctx));
	const char *name = vma_extint_vector_name(vec);
	size_t n = name ? strlen(name) : 0;
	char *p = xd_reserve(o, 9 + n + 2 + XP_X64_MAX);

	if (!p)
		return true;
	/* "intr vec %x", or "intr vec %s(%x)" for Xen's own vectors */
	p = xp_lit(p, "intr vec ");
	if (name) {
		p = xp_put(p, name, n);
		*p++ = '(';
		p = vma_fmt_x64(p, vec);
		*p++ = ')';
	} else {
		p = vma_fmt_x64(p, vec);
	}
	xd_commit(o, p);
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
	xd_lit_x64(o, " ec ", ec);
	if (pt.level > 0) {
		xd_lit_s64(o, " level ", pt.level);
		xd_lit_x64(o, " corr ", pt.corresponding);
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
	char *p = xd_reserve(o, 14 + XP_X64_MAX + 10 + XP_X64_MAX);

	if (!p)
		return true;
	/* "io %s port %x val %x" */
	if (vma_xf_io_write(rec))
		p = xp_lit(p, "io write port ");
	else
		p = xp_lit(p, "io read port ");
	p = vma_fmt_x64(p, vma_xf_io_port(rec));
	if (vma_xf_io_has_data(rec)) {
		p = xp_lit(p, " val ");
		p = vma_fmt_x64(p, vma_xf_io_data(rec));
	} else {
		/* string I/O: Xen logs no data (xenalyze prints what follows) */
		p = xp_lit(p, " (no data)");
	}
	xd_commit(o, p);
	return true;
}

/* MMIO forwarded to the device model. */
static bool mmio_assist(struct xd_out *o, const struct vma_record *rec,
			const struct vma_describe_ctx *ctx)
{
	char *p = xd_reserve(o, 18 + XP_X64_MAX + 10 + XP_X64_MAX);

	o->mark = ']';
	if (!p)
		return true;
	/* "mmio_assist %c gpa %llx data %x" */
	if (vma_xf_mmio_write(rec))
		p = xp_lit(p, "mmio_assist w gpa ");
	else
		p = xp_lit(p, "mmio_assist r gpa ");
	p = vma_fmt_x64(p, vma_xf_mmio_gpa(rec));
	if (vma_xf_mmio_has_data(rec)) {
		p = xp_lit(p, " data ");
		p = vma_fmt_x64(p, vma_xf_mmio_data(rec));
	} else {
		p = xp_lit(p, " (no data)");
	}
	xd_commit(o, p);
	return true;
}

static bool cr_write(struct xd_out *o, const struct vma_record *rec,
		     const struct vma_describe_ctx *ctx)
{
	uint32_t cr = vma_xf_cr(rec);
	uint64_t val = vma_xf_cr_value(rec);
	char *p = xd_reserve(o, 17 + XP_X64_MAX + 6 + XP_X64_MAX + 7);

	if (!p)
		return true;
	if (cr == 3 && ctx->cr3) {
		o->mark = ']';
		/* "cr_write cr3 val %llx oval %llx %s" */
		p = xp_lit(p, "cr_write cr3 val ");
		p = vma_fmt_x64(p, val);
		p = xp_lit(p, " oval ");
		p = vma_fmt_x64(p, ctx->cr3);
		if (ctx->cr3 == val)
			p = xp_lit(p, " flush");
		else
			p = xp_lit(p, " switch");
	} else {
		/* "cr_write cr%d val %llx" */
		p = xp_lit(p, "cr_write cr");
		p = xp_s64(p, (int32_t)cr);
		p = xp_lit(p, " val ");
		p = vma_fmt_x64(p, val);
	}
	xd_commit(o, p);
	return true;
}

static bool msr(struct xd_out *o, const struct vma_record *rec,
		const struct vma_describe_ctx *ctx)
{
	char *p = xd_reserve(o, 15 + XP_X64_MAX + 5 + XP_X64_MAX);

	if (!p)
		return true;
	/* "%s addr %x val %llx" */
	if (rec->event == TRC_HVM_MSR_READ)
		p = xp_lit(p, "msr_read addr ");
	else
		p = xp_lit(p, "msr_write addr ");
	p = vma_fmt_x64(p, vma_xf_msr(rec));
	p = xp_lit(p, " val ");
	xd_commit(o, vma_fmt_x64(p, vma_xf_msr_value(rec)));
	return true;
}

static bool vmcall(struct xd_out *o, const struct vma_record *rec,
		   const struct vma_describe_ctx *ctx)
{
	uint32_t eax = vma_xf_vmcall_eax(rec);
	const char *name = vma_hypercall_name(eax);
	size_t n = name ? strlen(name) : 0;
	char *p = xd_reserve(o, 7 + VMA_FMT_PAD_MAX(2) + 2 + n + 1);

	if (!p)
		return true;
	/* "vmcall %2x (%s)", without the name when there is none */
	p = xp_lit(p, "vmcall ");
	p = vma_fmt_x64_pad(p, eax, 2, ' ');
	if (name) {
		p = xp_lit(p, " (");
		p = xp_put(p, name, n);
		*p++ = ')';
	}
	xd_commit(o, p);
	return true;
}

static bool npf(struct xd_out *o, const struct vma_record *rec,
		const struct vma_describe_ctx *ctx)
{
	char *p = xd_reserve(o, 8 + XP_X64_MAX + 3 + XP_X64_MAX + 5 + XP_X64_MAX + 3 +
			       XP_S64_MAX);

	if (!p)
		return true;
	/* "npf gpa %llx q %x mfn %llx t %d" */
	p = xp_lit(p, "npf gpa ");
	p = vma_fmt_x64(p, vma_xf_npf_gpa(rec));
	p = xp_lit(p, " q ");
	p = vma_fmt_x64(p, vma_xf_npf_qual(rec));
	p = xp_lit(p, " mfn ");
	p = vma_fmt_x64(p, vma_xf_npf_mfn(rec));
	p = xp_lit(p, " t ");
	xd_commit(o, xp_s64(p, vma_xf_npf_type(rec)));
	return true;
}

static bool rdtsc(struct xd_out *o, const struct vma_record *rec,
		  const struct vma_describe_ctx *ctx)
{
	uint64_t tsc = vma_xf_rdtsc_value(rec);

	/* "rdtsc %llx %lld %s" */
	xd_lit_x64(o, "rdtsc ", tsc);
	xd_putc(o, ' ');
	xd_s64(o, (int64_t)tsc);
	if (ctx->last_rdtsc > tsc)
		xd_lit(o, " BACKWARDS");
	else
		xd_putc(o, ' ');
	return true;
}

/* XCR accesses Xen emulated.  xenalyze does not know them. */
static __attribute__((noinline)) bool
xcr(struct xd_out *o, const struct vma_record *rec,
    const struct vma_describe_ctx *ctx)
{
	o->mark = ']';
	/* "%s xcr%u val %llx" */
	if (rec->event == TRC_HVM_XCR_READ64)
		xd_lit(o, "xcr_read xcr");
	else
		xd_lit(o, "xcr_write xcr");
	xd_u64(o, vma_xf_xcr(rec));
	xd_lit_x64(o, " val ", vma_xf_xcr_value(rec));
	return true;
}

/*
 * Emulated platform timers and interrupt controllers (TRC_HVM_EMUL).
 * xenalyze counts these records and prints nothing for them.
 */
static __attribute__((noinline)) bool
hpet_start(struct xd_out *o, const struct vma_record *rec,
	   const struct vma_describe_ctx *ctx)
{
	xd_lit_u64(o, "emul:hpet_start_timer tn ", vma_xf_emul_word(rec, 0));
	xd_lit_u64(o, " irq ", vma_xf_emul_word(rec, 1));
	xd_lit_u64(o, " delta ", vma_xq(rec, 2));
	xd_lit_u64(o, " ns period ", vma_xq(rec, 4));
	xd_lit(o, " ns");
	return true;
}

static __attribute__((noinline)) bool
timer_start(struct xd_out *o, const struct vma_record *rec,
	    const struct vma_describe_ctx *ctx)
{
	/* {ns to first tick, ns period (0: one-shot)} */
	xd_puts(o, rec->event == TRC_HVM_EMUL_PIT_START_TIMER ? "emul:pit_start_timer delta "
							     : "emul:rtc_start_timer delta ");
	xd_u64(o, vma_xf_emul_word(rec, 0));
	xd_lit_u64(o, " ns period ", vma_xf_emul_word(rec, 1));
	xd_lit(o, " ns");
	return true;
}

static __attribute__((noinline)) bool
lapic_start(struct xd_out *o, const struct vma_record *rec,
	    const struct vma_describe_ctx *ctx)
{
	xd_lit_u64(o, "emul:lapic_start_timer delta ", vma_xq(rec, 0));
	xd_lit_u64(o, " ns period ", vma_xq(rec, 2));
	xd_lit_u64(o, " ns irq ", vma_xf_emul_word(rec, 4));
	return true;
}

static __attribute__((noinline)) bool
hpet_stop(struct xd_out *o, const struct vma_record *rec,
	  const struct vma_describe_ctx *ctx)
{
	xd_lit_u64(o, "emul:hpet_stop_timer tn ", vma_xf_emul_word(rec, 0));
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

static __attribute__((noinline)) bool
pic_int_output(struct xd_out *o, const struct vma_record *rec,
	       const struct vma_describe_ctx *ctx)
{
	/* {int_output, is_master, highest pending irq or -1} */
	xd_lit_u64(o, "emul:pic_int_output ", vma_xf_emul_word(rec, 0));
	xd_lit_u64(o, " master ", vma_xf_emul_word(rec, 1));
	xd_lit_s64(o, " irq ", (int32_t)vma_xf_emul_word(rec, 2));
	return true;
}

static __attribute__((noinline)) bool
pic_kick(struct xd_out *o, const struct vma_record *rec,
	 const struct vma_describe_ctx *ctx)
{
	xd_lit_s64(o, "emul:pic_kick irq ", (int32_t)vma_xf_emul_word(rec, 0));
	return true;
}

static __attribute__((noinline)) bool
pic_intack(struct xd_out *o, const struct vma_record *rec,
	   const struct vma_describe_ctx *ctx)
{
	xd_lit_u64(o, "emul:pic_intack master ", vma_xf_emul_word(rec, 0));
	xd_lit_s64(o, " irq ", (int32_t)vma_xf_emul_word(rec, 1));
	return true;
}

static __attribute__((noinline)) bool
pic_edge(struct xd_out *o, const struct vma_record *rec,
	 const struct vma_describe_ctx *ctx)
{
	xd_puts(o, rec->event == TRC_HVM_EMUL_PIC_POSEDGE ? "emul:pic_posedge irq "
							 : "emul:pic_negedge irq ");
	xd_s64(o, (int32_t)vma_xf_emul_word(rec, 0));
	return true;
}

static __attribute__((noinline)) bool
pic_pend_irq_call(struct xd_out *o, const struct vma_record *rec,
		  const struct vma_describe_ctx *ctx)
{
	xd_lit_u64(o, "emul:pic_pend_irq_call accept ", vma_xf_emul_word(rec, 0));
	xd_lit_u64(o, " int_output ", vma_xf_emul_word(rec, 1));
	return true;
}

static __attribute__((noinline)) bool
lapic_pic_intr(struct xd_out *o, const struct vma_record *rec,
	       const struct vma_describe_ctx *ctx)
{
	xd_lit_u64(o, "emul:lapic_pic_intr target ", vma_xf_emul_word(rec, 0));
	xd_lit_u64(o, " accept ", vma_xf_emul_word(rec, 1));
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

/* The rows' sizes and flags as constants, by the rows' names. */
enum {
#define HVM_ROW_CONSTANTS(sym, id, name, words, flags, state, describe) \
	HVM_WORDS_##sym = (words), HVM_FLAGS_##sym = (flags),
	VMA_XEN_HVM_EVENTS(HVM_ROW_CONSTANTS)
#undef HVM_ROW_CONSTANTS
};

bool xd_hvm(struct xd_out *o, const struct vma_record *rec, const struct vma_describe_ctx *ctx)
{
	uint32_t sub = VMA_TRC_SUB(rec->event);
	uint32_t event = rec->event;

	/* An exit's two ends, two records in three, before the search of the others. */
	switch (event) {
	case TRC_HVM_VMENTRY:
		return hvm_row(o, rec, ctx, false, HVM_WORDS_VMENTRY, HVM_FLAGS_VMENTRY, entry);
	case TRC_HVM_VMX_EXIT64:
		return hvm_row(o, rec, ctx, false, HVM_WORDS_VMX_EXIT64, HVM_FLAGS_VMX_EXIT64,
			       vmexit);
	case TRC_HVM_SVM_EXIT64:
		return hvm_row(o, rec, ctx, false, HVM_WORDS_SVM_EXIT64, HVM_FLAGS_SVM_EXIT64,
			       vmexit);
	default:
		break;
	}

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
