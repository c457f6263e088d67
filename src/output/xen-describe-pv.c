/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PV guest records (TRC_PV): hypercalls (the old eip/eax form and the v2
 * form with its recorded arguments, including multicall sub-calls), traps,
 * page-table write emulation, and the other entry points, which xenalyze
 * lists as "name[ words ]".  Each record's row in the Xen event table
 * (xen-events.h) gives its decoder here and its size; bit 8 (TRC_64_FLAG)
 * says addresses are 64-bit.
 */

#include "output/xen-describe-internal.h"
#include "vmalyze/xen-events.h"

#define XD_PV_MINOR(event) ((event) & 0xffu)

/*
 * Hypercall numbers whose arguments xenalyze decodes (Xen's public xen.h).
 * Spelled out because xen.h maps __HYPERVISOR_sched_op to the compat
 * number for guests built against an old interface version.
 */
enum {
	XD_HC_MMU_UPDATE = 1,
	XD_HC_MULTICALL = 13,
	XD_HC_GRANT_TABLE_OP = 20,
	XD_HC_VCPU_OP = 24,
	XD_HC_MMUEXT_OP = 26,
	XD_HC_SCHED_OP = 29,
};

/* mmu_update's count carries this flag when the call was preempted. */
#define XD_MMU_UPDATE_PREEMPTED 0x80000000u

enum { XD_ARG_MISSING = 0, XD_ARG_32 = 1, XD_ARG_64 = 2 };

/*
 * The six arguments of a v2 record, absent ones 0.  Each present argument
 * takes one or two words after the first.
 */
static void gather_args(const struct vma_record *rec, uint64_t args[6])
{
	unsigned int i, word;

	for (i = 0; i < 6; i++)
		args[i] = 0;
	for (i = 0, word = 1; i < 6 && word < rec->nr_data; i++) {
		unsigned int kind = vma_xf_hc2_arg_kind(rec, i);

		if (kind == XD_ARG_32) {
			args[i] = rec->data[word];
		} else if (kind == XD_ARG_64) {
			args[i] = xd_q(rec, word);
		}
		word += kind;
	}
}

/* Arguments as xenalyze lists them: 32-bit in hex, 64-bit as 16 decimal digits. */
static void print_args(struct xd_out *o, const struct vma_record *rec)
{
	char *p = xd_reserve(o, 6 * (1 + VMA_FMT_PAD_MAX(16)));
	unsigned int i, word;

	if (!p)
		return;
	for (i = 0, word = 1; i < 6 && word < rec->nr_data; i++) {
		unsigned int kind = vma_xf_hc2_arg_kind(rec, i);

		if (kind == XD_ARG_MISSING) {
			p = xp_lit(p, " ??");
		} else if (kind == XD_ARG_32) {
			/* " %08x" */
			*p++ = ' ';
			p = vma_fmt_x64_pad(p, rec->data[word], 8, '0');
		} else if (kind == XD_ARG_64) {
			/* " %016llu" */
			*p++ = ' ';
			p = vma_fmt_u64_pad(p, xd_q(rec, word), 16, '0');
		}
		word += kind;
	}
	xd_commit(o, p);
}

/* " NAME" of a sub-operation, or " unknown (N)". */
static void op_name(struct xd_out *o, const char *name, uint32_t cmd)
{
	size_t n = name ? strlen(name) : 9 + XP_S64_MAX + 1;
	char *p = xd_reserve(o, 1 + n);

	if (!p)
		return;
	*p++ = ' ';
	if (name) {
		p = xp_put(p, name, n);
	} else {
		/* "unknown (%d)" */
		p = xp_lit(p, "unknown (");
		p = xp_s64(p, (int32_t)cmd);
		*p++ = ')';
	}
	xd_commit(o, p);
}

/* "<what>%d<after>", the count a hypercall's argument gives; @what and @after are literals. */
static inline __attribute__((always_inline)) void count_arg(struct xd_out *o, const char *what,
							    uint64_t arg, const char *after)
{
	size_t what_len = strlen(what), after_len = strlen(after);
	char *p = xd_reserve(o, what_len + XP_S64_MAX + after_len);

	if (!p)
		return;
	p = xp_put(p, what, what_len);
	p = xp_s64(p, (int32_t)(uint32_t)arg);
	xd_commit(o, xp_put(p, after, after_len));
}

/* "hypercall %2x (%s)", kept in @k if not NULL. */
static void hypercall_head(struct xd_out *o, uint32_t op, struct xd_kept *k)
{
	const char *name = vma_hypercall_name(op);
	size_t n = name ? strlen(name) : 0;
	char *p = xd_reserve(o, 10 + VMA_FMT_PAD_MAX(2) + 2 + n + 1), *head = p;

	if (!p)
		return;
	p = xp_lit(p, "hypercall ");
	p = vma_fmt_x64_pad(p, op, 2, ' ');
	if (name) {
		p = xp_lit(p, " (");
		p = xp_put(p, name, n);
		*p++ = ')';
	}
	if (k)
		xd_keep(k, head, (size_t)(p - head));
	xd_commit(o, p);
}

static bool hypercall(struct xd_out *o, const struct vma_record *rec, bool subcall)
{
	uint32_t op = vma_xf_hc2_op(rec);
	struct xd_kept *k = o->kept && op < VMA_HYPERCALL_LIMIT ? &o->kept->hypercall[op] : NULL;
	uint64_t args[6];
	char *p;

	/* "%shypercall %2x (%s)", without the name when there is none */
	if (subcall)
		xd_putc(o, ' ');
	if (xd_kept_ready(k)) {
		p = xd_reserve(o, XD_KEPT_MAX);
		if (!p)
			return true;
		xd_commit(o, xp_kept(p, k));
	} else {
		hypercall_head(o, op, k);
	}
	switch (op) {
	case XD_HC_MMU_UPDATE:
		gather_args(rec, args);
		/* " %d updates%s" */
		count_arg(o, " ", (uint32_t)args[1] & ~XD_MMU_UPDATE_PREEMPTED, " updates");
		if (args[1] & XD_MMU_UPDATE_PREEMPTED)
			xd_lit(o, " (preempted)");
		break;
	case XD_HC_MULTICALL:
		gather_args(rec, args);
		count_arg(o, " ", args[1], " calls");
		break;
	case XD_HC_GRANT_TABLE_OP:
		gather_args(rec, args);
		op_name(o, vma_grant_table_op_name((uint32_t)args[0]), (uint32_t)args[0]);
		count_arg(o, " ", args[2], " ops");
		break;
	case XD_HC_VCPU_OP:
		gather_args(rec, args);
		op_name(o, vma_vcpu_op_name((uint32_t)args[0]), (uint32_t)args[0]);
		count_arg(o, " vcpu ", args[1], "");
		break;
	case XD_HC_MMUEXT_OP:
		gather_args(rec, args);
		count_arg(o, " ", args[1], " ops");
		break;
	case XD_HC_SCHED_OP:
		gather_args(rec, args);
		op_name(o, vma_sched_op_name((uint32_t)args[0]), (uint32_t)args[0]);
		break;
	default:
		print_args(o, rec);
		break;
	}
	return true;
}

/* The DESCRIBE column of the PV rows; the row's size is checked before. */
typedef bool pv_describe_fn(struct xd_out *o, const struct vma_record *rec,
			    const struct vma_describe_ctx *ctx);

static bool hypercall_v2(struct xd_out *o, const struct vma_record *rec,
			 const struct vma_describe_ctx *ctx)
{
	return hypercall(o, rec, false);
}

static bool subcall(struct xd_out *o, const struct vma_record *rec,
		    const struct vma_describe_ctx *ctx)
{
	return hypercall(o, rec, true);
}

/* The first-generation record. */
static bool hypercall_v1(struct xd_out *o, const struct vma_record *rec,
			 const struct vma_describe_ctx *ctx)
{
	uint32_t eax = vma_xf_hc1_eax(rec);
	const char *name = vma_hypercall_name(eax);

	/* "hypercall %2x (%s) eip %llx", or "hypercall %x eip %llx" */
	xd_lit(o, "hypercall ");
	if (name) {
		xd_x64_pad(o, eax, 2, ' ');
		xd_lit(o, " (");
		xd_puts(o, name);
		xd_putc(o, ')');
	} else {
		xd_x64(o, eax);
	}
	xd_lit(o, " eip ");
	xd_x64(o, vma_xf_hc1_eip(rec));
	return true;
}

static bool trap(struct xd_out *o, const struct vma_record *rec,
		 const struct vma_describe_ctx *ctx)
{
	uint32_t info = vma_xf_trap_info(rec);

	/* "trap %x eip %llx", then " ec %x" */
	xd_lit(o, "trap ");
	xd_x64(o, info & 0x7fffu);
	xd_lit(o, " eip ");
	xd_x64(o, vma_xf_trap_eip(rec));
	if (info & 0x8000u) {
		xd_lit(o, " ec ");
		xd_x64(o, info >> 16);
	}
	return true;
}

/* Page-table writes Xen emulated. */
static bool ptwr(struct xd_out *o, const struct vma_record *rec,
		 const struct vma_describe_ctx *ctx)
{
	/* "ptwr l1e %llx eip %llx addr %llx" */
	xd_lit(o, "ptwr l1e ");
	xd_x64(o, vma_xf_ptwr_pte(rec));
	xd_lit(o, " eip ");
	xd_x64(o, vma_xf_ptwr_eip(rec));
	xd_lit(o, " addr ");
	xd_x64(o, vma_xf_ptwr_addr(rec));
	return true;
}

/* Everything else: "name[ w0 w1 ]", or "PV-N [ ... ]" when unnamed. */
static bool generic(struct xd_out *o, const struct vma_record *rec,
		    const struct vma_describe_ctx *ctx)
{
	uint32_t minor = XD_PV_MINOR(rec->event);
	const char *name = vma_pv_event_name(minor);
	unsigned int i;

	if (name)
		xd_puts(o, name);
	else
		xd_printf(o, "PV-%u ", minor);
	if (rec->nr_data) {
		xd_lit(o, "[ ");
		for (i = 0; i < rec->nr_data; i++) {
			xd_x64(o, rec->data[i]);
			xd_putc(o, ' ');
		}
		xd_putc(o, ']');
	}
	return true;
}

/* A record of a PV row, its columns passed as constants by xd_pv()'s switch. */
static inline __attribute__((always_inline)) bool
pv_row(struct xd_out *o, const struct vma_record *rec, unsigned int words, unsigned int flags,
       pv_describe_fn *describe)
{
	if (vma_xe_short(rec, words, flags))
		return false;
	return describe(o, rec, NULL);
}

bool xd_pv(struct xd_out *o, const struct vma_record *rec)
{
	switch (rec->event) {
#define PV_CASE(sym, id, name, words, flags, state, describe) \
	case (id):                                             \
		return pv_row(o, rec, words, flags, describe);
		VMA_XEN_PV_EVENTS(PV_CASE)
#undef PV_CASE
	}
	return generic(o, rec, NULL);
}
