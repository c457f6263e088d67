/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HVM records of the simulated host (gen-sim.c): vmexit and vmentry,
 * interrupts, and the handler records Xen writes for each kind of exit.
 */
#include "gen-sim.h"

uint32_t vma_gen_exit_code(enum gen_vendor vendor, enum gen_exit ex)
{
	/* VMX basic exit reasons and SVM exit codes. */
	static const uint32_t vmx[EX_MAX] = {
		[EX_EXTINT] = 1, [EX_VINTR] = 7, [EX_CPUID] = 10, [EX_HLT] = 12,
		[EX_VMCALL] = 18, [EX_CR0] = 28, [EX_CR3] = 28, [EX_CR4] = 28,
		[EX_IO] = 30, [EX_MSR_READ] = 31, [EX_MSR_WRITE] = 32, [EX_MMIO] = 48,
		[EX_PF] = 0,
	};
	static const uint32_t svm[EX_MAX] = {
		[EX_EXTINT] = 0x60, [EX_VINTR] = 0x64, [EX_CPUID] = 0x72, [EX_HLT] = 0x78,
		[EX_VMCALL] = 0x81, [EX_CR0] = 0x10, [EX_CR3] = 0x13, [EX_CR4] = 0x14,
		[EX_IO] = 0x7b, [EX_MSR_READ] = 0x7c, [EX_MSR_WRITE] = 0x7c, [EX_MMIO] = 0x400,
		[EX_PF] = 0x4e,
	};

	return vendor == GEN_VMX ? vmx[ex] : svm[ex];
}

static uint64_t guest_rip(struct sim *s, const struct gen_vcpu *v)
{
	uint64_t off = rnd_below(s, 0x400000) & ~3ull;

	if (!v->is64)
		return 0xc0100000ull + (off & 0x3fffff);
	/* Mostly kernel, sometimes user space; always canonical. */
	if (rnd_below(s, 4) == 0)
		return 0x00007f3a5c000000ull + off * 16;
	return v->rip_base + off;
}

void rec_vmexit(struct sim *s, uint32_t v, enum gen_exit ex)
{
	struct gen_vcpu *vc = &s->g->vcpus[v];
	uint32_t code = vma_gen_exit_code(s->g->opt.vendor, ex);
	uint64_t rip = guest_rip(s, vc);
	uint64_t tsc = s->bt;
	uint32_t event, words[3];

	switch (s->g->opt.vendor) {
	case GEN_VMX:
		event = vc->is64 ? TRC_HVM_VMX_EXIT64 : TRC_HVM_VMX_EXIT;
		break;
	case GEN_SVM:
		event = vc->is64 ? TRC_HVM_SVM_EXIT64 : TRC_HVM_SVM_EXIT;
		break;
	default:
		event = vc->is64 ? TRC_HVM_VMEXIT64 : TRC_HVM_VMEXIT;
		break;
	}
	words[0] = code;
	words[1] = (uint32_t)rip;
	words[2] = (uint32_t)(rip >> 32);
	put(s, event, words, vc->is64 ? 3 : 2);
	if (!s->drop)
		vma_gen_obs_vmexit(s->g, s->bp, ex, tsc);
	vc->in_exit = true;
	vc->exit = (uint8_t)ex;
	vc->exit_block = false;
	vc->exit_offline = false;
	step(s);
}

void rec_vmentry(struct sim *s, uint32_t v)
{
	uint64_t tsc = s->bt;

	put(s, TRC_HVM_VMENTRY, NULL, 0);
	if (!s->drop)
		vma_gen_obs_vmentry(s->g, s->bp, tsc);
	s->g->vcpus[v].in_exit = false;
	step(s);
}

void rec_intr(struct sim *s, uint32_t vector)
{
	if (s->g->opt.vendor == GEN_VMX) {
		rec_handler(s, TRC_HVM_INTR, &vector, 1);
	} else {
		/* Xen's SVM code cannot see the vector. */
		rec_handler(s, TRC_HVM_INTR, NULL, 0);
	}
}

void rec_inj_virq(struct sim *s)
{
	uint32_t words[2] = { 0x30 + (uint32_t)rnd_below(s, 0xc0), 0 };

	rec_handler(s, TRC_HVM_INJ_VIRQ, words, 2);
}

static const uint32_t cpuid_leaves[] = { 0, 1, 4, 6, 7, 0xb, 0xd, 0x40000000, 0x40000001,
					 0x80000001, 0x80000008 };
static const uint32_t io_ports[] = { 0x60, 0x64, 0x70, 0x71, 0x1f0, 0x1f7, 0x3f8, 0x3fd,
				     0xcf8, 0xcfc, 0xb008, 0xc000 };
static const uint32_t msrs[] = { 0x10, 0x1b, 0x3a, 0x48, 0x6e0, 0x830, 0x838, 0xc0000080,
				 0xc0000100, 0xc0000102 };
static const uint32_t vmcalls[] = { 12, 17, 20, 24, 29, 32, 34, 34, 32, 24 };

/* Handler records Xen writes for an exit, and the exit's processing time. */
uint64_t rec_exit_handlers(struct sim *s, uint32_t v, enum gen_exit ex)
{
	struct gen_vcpu *vc = &s->g->vcpus[v];
	uint32_t words[6];
	uint64_t us = s->us;

	switch (ex) {
	case EX_EXTINT:
		rec_intr(s, rnd_below(s, 3) ? 0xf9 : 0x30 + (uint32_t)rnd_below(s, 0xa0));
		return rnd_range(s, us, 4 * us);
	case EX_VINTR:
		/* Nothing to handle; the injection is written before vmentry. */
		return rnd_range(s, us / 2, us + us / 2);
	case EX_CPUID:
		words[0] = cpuid_leaves[rnd_below(s, sizeof(cpuid_leaves) / 4)];
		words[1] = 0;
		words[2] = (uint32_t)rnd(s);
		words[3] = (uint32_t)rnd(s);
		words[4] = (uint32_t)rnd(s);
		words[5] = (uint32_t)rnd(s);
		rec_handler(s, TRC_HVM_CPUID, words, 6);
		return rnd_range(s, us / 2, 2 * us);
	case EX_HLT:
		vc->exit_block = rnd_below(s, 10) < 8;
		words[0] = !vc->exit_block;
		rec_handler(s, TRC_HVM_HLT, words, 1);
		return rnd_range(s, us / 2, us + us / 2);
	case EX_VMCALL:
		words[0] = vmcalls[rnd_below(s, sizeof(vmcalls) / 4)];
		rec_handler(s, TRC_HVM_VMMCALL, words, 1);
		if (!s->drop)
			vma_gen_obs_vmcall(s->g, s->bp, words[0]);
		return rnd_range(s, us, 10 * us);
	case EX_CR0:
	case EX_CR3:
	case EX_CR4: {
		uint32_t cr = ex == EX_CR0 ? 0 : ex == EX_CR3 ? 3 : 4;
		uint64_t val = cr == 0 ? 0x80050033ull : cr == 4 ? 0x3626f0ull :
			       0x1000ull * rnd_range(s, 0x100, 0x7ffff);

		/* x86-64 Xen writes the 64-bit variant whatever the guest's mode. */
		words[0] = cr;
		words[1] = (uint32_t)val;
		words[2] = (uint32_t)(val >> 32);
		rec_handler(s, TRC_HVM_CR_WRITE64, words, 3);
		return rnd_range(s, us / 2, 3 * us);
	}
	case EX_IO:
		words[0] = io_ports[rnd_below(s, sizeof(io_ports) / 4)];
		words[1] = (uint32_t)rnd_below(s, 256);
		rec_handler(s, rnd_below(s, 2) ? TRC_HVM_IOPORT_READ : TRC_HVM_IOPORT_WRITE,
			    words, 2);
		return rnd_range(s, 2 * us, 30 * us);
	case EX_MSR_READ:
	case EX_MSR_WRITE: {
		uint64_t val = rnd(s) >> (rnd_below(s, 2) ? 16 : 40);

		words[0] = msrs[rnd_below(s, sizeof(msrs) / 4)];
		words[1] = (uint32_t)val;
		words[2] = (uint32_t)(val >> 32);
		rec_handler(s, ex == EX_MSR_READ ? TRC_HVM_MSR_READ : TRC_HVM_MSR_WRITE, words, 3);
		return rnd_range(s, us / 2, 3 * us);
	}
	case EX_MMIO:
		rec_mmio(s);
		return rnd_range(s, 3 * us, 20 * us);
	case EX_PF:
	default:
		rec_page_fault(s, vc);
		return rnd_range(s, us, 8 * us);
	}
}

/* Weights of the exits an HVM guest makes on its own. */
static const uint8_t exit_weight[EX_MAX] = {
	[EX_EXTINT] = 10, [EX_VINTR] = 10, [EX_CPUID] = 8, [EX_HLT] = 10, [EX_VMCALL] = 8,
	[EX_CR0] = 2, [EX_CR3] = 4, [EX_CR4] = 2, [EX_IO] = 14, [EX_MSR_READ] = 6,
	[EX_MSR_WRITE] = 8, [EX_MMIO] = 12, [EX_PF] = 4,
};

enum gen_exit pick_exit(struct sim *s)
{
	return (enum gen_exit)s->exit_table[rnd_below(s, s->exit_weights_total)];
}

/* The weighted draw of pick_exit(): exit i takes exit_weight[i] slots. */
void fill_exit_table(struct sim *s)
{
	uint32_t i, k;

	for (i = 0; i < EX_MAX; i++) {
		for (k = 0; k < exit_weight[i]; k++)
			s->exit_table[s->exit_weights_total++] = (uint8_t)i;
	}
}
