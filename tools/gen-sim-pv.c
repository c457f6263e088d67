/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory, PV and power records of the simulated host (gen-sim.c):
 * shadow-paging faults, emulated MMIO and guest page faults, PV hypercalls,
 * and idle C-state entry and exit.
 */
#include "gen-sim.h"

/*
 * Shadow paging (--shadow): what Xen's sh_page_fault() traces for a page
 * fault (instead of the page-fault record), one fault class with its
 * fields (entries 32-bit for a 2-level guest, addresses 64-bit for a
 * 4-level one; the levels minus 2 in bits 11:8 of the id), sometimes after
 * a shadow unpinned to make room.
 */
static void rec_shadow(struct sim *s, bool is64, uint64_t va)
{
	static const uint32_t classes[] = {
		TRC_SHADOW_EMULATE, TRC_SHADOW_EMULATE, TRC_SHADOW_EMULATE, TRC_SHADOW_EMULATE,
		TRC_SHADOW_FIXUP, TRC_SHADOW_FIXUP, TRC_SHADOW_FIXUP, TRC_SHADOW_NOT_SHADOW,
		TRC_SHADOW_NOT_SHADOW, TRC_SHADOW_MMIO, TRC_SHADOW_EMULATE_UNSHADOW_USER,
		TRC_SHADOW_FAST_PROPAGATE,
	};
	unsigned int levels = is64 ? 4 : 2, n = 0, entries = 1, i;
	bool has_va = true, has_flags = true;
	uint32_t event = classes[rnd_below(s, sizeof(classes) / 4)] | (levels - 2) << 8;
	uint32_t flags = (uint32_t)rnd_below(s, 4) | (rnd_below(s, 5) ? 0 : 1u << 9);
	uint64_t gl1e = 0x80000000ull | (rnd(s) & 0xfffff000ull) | 0x67;
	uint32_t words[8];

	if (!rnd_below(s, 6)) {
		uint64_t gfn = 0x1000 + rnd_below(s, 0x400);

		words[0] = (uint32_t)gfn;
		words[1] = (uint32_t)(gfn >> 32);
		rec_handler(s, TRC_SHADOW_PREALLOC_UNPIN | (levels - 2) << 8, words, 2);
	}
	switch (event & ~0xf00u) {
	case TRC_SHADOW_EMULATE:
		entries = 2; /* the entry, then the value written */
		flags |= rnd_below(s, 8) ? 0 : 1u << 13; /* early unshadow */
		break;
	case TRC_SHADOW_FIXUP:
		flags |= rnd_below(s, 4) ? 0 : 1u << 18; /* unsync */
		break;
	case TRC_SHADOW_NOT_SHADOW:
		break;
	case TRC_SHADOW_EMULATE_UNSHADOW_USER:
		has_flags = false; /* {gfn; va} */
		break;
	case TRC_SHADOW_MMIO:
		entries = 0;
		has_flags = false;
		break;
	default:
		/* Fast propagation: no payload. */
		entries = 0;
		has_flags = has_va = false;
		break;
	}
	for (i = 0; i < entries; i++) {
		uint64_t e = i ? gl1e ^ 0x40 : gl1e; /* the value written sets D */

		words[n++] = (uint32_t)e;
		if (levels > 2)
			words[n++] = (uint32_t)(e >> 32);
	}
	if (has_va) {
		words[n++] = (uint32_t)va;
		if (levels == 4)
			words[n++] = (uint32_t)(va >> 32);
	}
	if (has_flags)
		words[n++] = flags;
	rec_handler(s, event, words, n);
}

/* An emulated MMIO access: the nested page fault, then the access. */
void rec_mmio(struct sim *s)
{
	uint64_t gpa = 0xfeb00000ull + 0x1000 * rnd_below(s, 16) + 4 * rnd_below(s, 64);
	bool write = rnd_below(s, 2);
	uint32_t words[6];

	words[0] = (uint32_t)gpa;
	words[1] = (uint32_t)(gpa >> 32);
	words[2] = UINT32_MAX; /* INVALID_MFN: emulated MMIO */
	words[3] = UINT32_MAX;
	/* VMX passes the EPT exit qualification, SVM 0. */
	words[4] = s->g->opt.vendor != GEN_VMX ? 0 : write ? 0x182 : 0x181;
	words[5] = 4; /* p2m_mmio_dm */
	rec_handler(s, TRC_HVM_NPF, words, 6);
	words[0] = (uint32_t)gpa;
	words[1] = (uint32_t)rnd(s);
	rec_handler(s, write ? TRC_HVM_IOMEM_WRITE : TRC_HVM_IOMEM_READ, words, 2);
}

void rec_page_fault(struct sim *s, const struct gen_vcpu *vc)
{
	/*
	 * Xen writes {error_code, va} (va 64-bit in PF_XEN64); xenalyze reads
	 * {va, error_code}.  Keeping the low half of a 64-bit va under 0x8000
	 * keeps xenalyze's misreading a canonical address, so it does not
	 * warn about every fault.
	 */
	uint64_t va = vc->is64 ? ((0x7f00ull + rnd_below(s, 0x100)) << 32) +
				 0x1000 * rnd_below(s, 8) :
		      0x08048000ull + 0x1000 * rnd_below(s, 1 << 16);
	uint32_t words[3];

	words[0] = (uint32_t)rnd_below(s, 8) | 4;
	words[1] = (uint32_t)va;
	words[2] = (uint32_t)(va >> 32);
	/* Xen writes the page-fault record only when shadow records are not traced. */
	if (s->g->opt.shadow)
		rec_shadow(s, vc->is64, va);
	else if (vc->is64)
		rec_handler(s, TRC_HVM_PF_XEN64, words, 3);
	else
		rec_handler(s, TRC_HVM_PF_XEN, words, 2);
}

/* PV hypercalls: number, weight.  sched_op(block) and vcpu_op(down) are separate. */
static const struct {
	uint8_t op, weight;
} pv_hcalls[] = {
	{ 1, 6 },   /* mmu_update */
	{ 3, 3 },   /* stack_switch */
	{ 5, 3 },   /* fpu_taskswitch */
	{ 12, 3 },  /* memory_op */
	{ 13, 5 },  /* multicall */
	{ 14, 6 },  /* update_va_mapping */
	{ 15, 8 },  /* set_timer_op */
	{ 17, 2 },  /* xen_version */
	{ 20, 6 },  /* grant_table_op */
	{ 23, 10 }, /* iret */
	{ 24, 4 },  /* vcpu_op */
	{ 26, 6 },  /* mmuext_op */
	{ 29, 2 },  /* sched_op (yield) */
	{ 32, 12 }, /* event_channel_op */
	{ 33, 3 },  /* physdev_op */
};

static const uint32_t gnttab_cmds[4] = { 0, 1, 5, 6 };
static const uint32_t vcpu_cmds[4] = { 4, 7, 8, 9 };

#define HC_ARG32(i) (0x1u << (20 + 2 * (i)))

/* TRC_PV_HYPERCALL_V2 with the arguments Xen's __trace_hypercall() keeps. */
void rec_hypercall(struct sim *s, uint32_t op, uint32_t a0, uint32_t a1, uint32_t a2)
{
	uint32_t words[4];
	unsigned int n = 1;

	words[0] = op;
	switch (op) {
	case 1:  /* mmu_update: count */
	case 13: /* multicall: count */
	case 26: /* mmuext_op: count */
		words[0] |= HC_ARG32(1);
		words[n++] = a1;
		break;
	case 20: /* grant_table_op: cmd, count */
		words[0] |= HC_ARG32(0) | HC_ARG32(2);
		words[n++] = a0;
		words[n++] = a2;
		break;
	case 24: /* vcpu_op: cmd, vcpuid */
		words[0] |= HC_ARG32(0) | HC_ARG32(1);
		words[n++] = a0;
		words[n++] = a1;
		break;
	case 29: /* sched_op: cmd */
		words[0] |= HC_ARG32(0);
		words[n++] = a0;
		break;
	default:
		break;
	}
	put(s, TRC_PV_HYPERCALL_V2, words, n);
	if (!s->drop)
		vma_gen_obs_hypercall(s->g, s->bp, op);
	step(s);
}

void rec_pm_entry(struct sim *s, uint32_t cstate)
{
	uint32_t words[4] = { cstate, (uint32_t)s->bt, (uint32_t)rnd_below(s, 100000),
			      (uint32_t)rnd_below(s, 100000) };

	s->g->pcpus[s->bp].cstate = (uint8_t)cstate;
	rec(s, TRC_PM_IDLE_ENTRY, words, 4);
}

void rec_pm_exit(struct sim *s)
{
	struct gen_pcpu *pc = &s->g->pcpus[s->bp];
	uint32_t words[6] = { pc->cstate, (uint32_t)s->bt, 0, 0, 0, 0 };

	pc->cstate = 0;
	rec(s, TRC_PM_IDLE_EXIT, words, 6);
}

/* The sum of the weights, for the draw of rec_pv_hypercall(). */
uint32_t pv_hcall_weights(void)
{
	uint32_t i, total = 0;

	for (i = 0; i < sizeof(pv_hcalls) / sizeof(pv_hcalls[0]); i++)
		total += pv_hcalls[i].weight;
	return total;
}

/* A hypercall of PV vcpu @v other than block and down, drawn by weight; true for a yield. */
bool rec_pv_hypercall(struct sim *s, uint32_t v)
{
	uint32_t r = (uint32_t)rnd_below(s, s->hcall_weights_total), i;

	for (i = 0; i < sizeof(pv_hcalls) / sizeof(pv_hcalls[0]) - 1; i++) {
		if (r < pv_hcalls[i].weight)
			break;
		r -= pv_hcalls[i].weight;
	}
	switch (pv_hcalls[i].op) {
	case 20: /* grant_table_op: map, unmap, copy or query_size; count */
		rec_hypercall(s, 20, gnttab_cmds[rnd_below(s, 4)], 0,
			      1 + (uint32_t)rnd_below(s, 8));
		return false;
	case 24: /* vcpu_op on itself: timers, runstate info */
		rec_hypercall(s, 24, vcpu_cmds[rnd_below(s, 4)], s->g->vcpus[v].vid, 0);
		return false;
	case 29: /* sched_op(yield) */
		rec_hypercall(s, 29, 0, 0, 0);
		return true;
	default:
		rec_hypercall(s, pv_hcalls[i].op, 0, 1 + (uint32_t)rnd_below(s, 16), 0);
		return false;
	}
}
