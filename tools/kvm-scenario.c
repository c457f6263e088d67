/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * KVM scenarios for fixtures (see kvm-scenario.h): a deterministic
 * simulation of vcpu threads written through the trace.dat writer, with the
 * records a reader must get back, so golden tests need no stored copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvm-scenario.h"
#include "vmalyze/grow.h"

/* Event ids of the scenario formats (any ids work; a reader takes them from the formats). */
enum {
	ID_ENTRY = 30,
	ID_EXIT = 31,
	ID_PIO = 32,
	ID_MMIO = 33,
	ID_MSR = 34,
	ID_USER_EXIT = 35,
	ID_APIC = 36,
	ID_SWITCH = 300,
};

static const char fmt_entry_x86[] =
	"name: kvm_entry\n" VMA_MKDAT_COMMON_FIELDS(30)
	"\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"vcpu %u, rip 0x%lx\", REC->vcpu_id, REC->rip\n";

static const char fmt_exit_x86[] =
	"name: kvm_exit\n" VMA_MKDAT_COMMON_FIELDS(31)
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 info2;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int vcpu_id;\toffset:56;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"vcpu %u reason %s rip 0x%lx info1 0x%016llx info2 0x%016llx"
	" intr_info 0x%08x error_code 0x%08x\", REC->vcpu_id, (REC->isa == 1) ?"
	" __print_symbolic(REC->exit_reason & 0xffff, { 0, \"EXCEPTION_NMI\" },"
	" { 1, \"EXTERNAL_INTERRUPT\" }, { 10, \"CPUID\" }, { 12, \"HLT\" },"
	" { 30, \"IO_INSTRUCTION\" }, { 31, \"MSR_READ\" }, { 32, \"MSR_WRITE\" },"
	" { 44, \"APIC_ACCESS\" }, { 48, \"EPT_VIOLATION\" }, { 49, \"EPT_MISCONFIG\" },"
	" { 52, \"PREEMPTION_TIMER\" }) : __print_symbolic(REC->exit_reason,"
	" { 0x060, \"interrupt\" }, { 0x072, \"cpuid\" }, { 0x078, \"hlt\" },"
	" { 0x07b, \"io\" }, { 0x07c, \"msr\" }, { 0x400, \"npf\" }), REC->guest_rip,"
	" REC->info1, REC->info2, REC->intr_info, REC->error_code\n";

static const char fmt_entry_arm64[] =
	"name: kvm_entry\n" VMA_MKDAT_COMMON_FIELDS(30)
	"\tfield:unsigned long vcpu_pc;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"PC: 0x%016lx\", REC->vcpu_pc\n";

static const char fmt_exit_arm64[] =
	"name: kvm_exit\n" VMA_MKDAT_COMMON_FIELDS(31)
	"\tfield:int ret;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int esr_ec;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long vcpu_pc;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"%s: HSR_EC: 0x%04x (%s), PC: 0x%016lx\", __print_symbolic(REC->ret,"
	" { 0, \"IRQ\" }, { 1, \"TRAP\" }, { 3, \"HYP_GONE\" }), REC->esr_ec,"
	" __print_symbolic(REC->esr_ec, { 0x01, \"WFx\" }, { 0x16, \"HVC64\" },"
	" { 0x18, \"SYS64\" }, { 0x24, \"DABT_LOW\" }), REC->vcpu_pc\n";

static const char fmt_pio[] =
	"name: kvm_pio\n" VMA_MKDAT_COMMON_FIELDS(32)
	"\tfield:unsigned int rw;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int port;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int size;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int count;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int val;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"pio_%s at 0x%x size %d count %d val 0x%x\", REC->rw ? \"write\" :"
	" \"read\", REC->port, REC->size, REC->count, REC->val\n";

static const char fmt_mmio[] =
	"name: kvm_mmio\n" VMA_MKDAT_COMMON_FIELDS(33)
	"\tfield:u32 type;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 len;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 gpa;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 val;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"mmio %s len %u gpa 0x%llx val 0x%llx\", __print_symbolic(REC->type,"
	" { 0, \"unsatisfied-read\" }, { 1, \"read\" }, { 2, \"write\" }), REC->len,"
	" REC->gpa, REC->val\n";

static const char fmt_msr[] =
	"name: kvm_msr\n" VMA_MKDAT_COMMON_FIELDS(34)
	"\tfield:unsigned int write;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 ecx;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 data;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u8 exception;\toffset:24;\tsize:1;\tsigned:0;\n"
	"\n"
	"print fmt: \"msr_%s %x = 0x%llx%s\", REC->write ? \"write\" : \"read\", REC->ecx,"
	" REC->data, REC->exception ? \" (#GP)\" : \"\"\n";

static const char fmt_user_exit[] =
	"name: kvm_userspace_exit\n" VMA_MKDAT_COMMON_FIELDS(35)
	"\tfield:__u32 reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int errno;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"reason %s (%d)\", __print_symbolic(REC->reason, { 0, \"KVM_EXIT_UNKNOWN\" },"
	" { 2, \"KVM_EXIT_IO\" }, { 6, \"KVM_EXIT_MMIO\" }), REC->errno\n";

static const char fmt_apic[] =
	"name: kvm_apic\n" VMA_MKDAT_COMMON_FIELDS(36)
	"\tfield:unsigned int rw;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int reg;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int val;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"apic_%s 0x%x = 0x%x\", REC->rw ? \"write\" : \"read\", REC->reg, REC->val\n";

static const char fmt_switch[] =
	"name: sched_switch\n" VMA_MKDAT_COMMON_FIELDS(300)
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s"
	" next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio,"
	" REC->prev_state ? \"S\" : \"R\", REC->next_comm, REC->next_pid, REC->next_prio\n";

/* TSC at 2.5 GHz: ns = tsc * 858993459 >> 31 */
#define SIM_TSC_MULT 858993459u
#define SIM_TSC_SHIFT 31u
#define SIM_START_NS 5000000000000ull
#define SIM_PID_BASE 2000u

struct sim {
	const struct vma_mkdat_opts *o;
	struct vma_tdw *w;
	uint64_t rng;
	struct vma_mkdat_rec *recs;
	size_t nr, cap;
	int inst2;                 /* the extra instance, or -1 */
	uint64_t last_time[2][64]; /* per instance and cpu: record time of the last record */
	bool failed;
};

static uint32_t rnd(struct sim *s, uint32_t n)
{
	/* xorshift64*: deterministic across platforms */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return n ? (uint32_t)((s->rng * 2685821657736338717ull) >> 33) % n : 0;
}

static uint64_t to_ns(const struct sim *s, uint64_t t)
{
	return s->o->tsc ? (uint64_t)(((unsigned __int128)t * SIM_TSC_MULT) >> SIM_TSC_SHIFT) : t;
}

/* Ticks of the file clock for @ns nanoseconds. */
static uint64_t ticks(const struct sim *s, uint64_t ns)
{
	return s->o->tsc ? ns * 5 / 2 : ns;
}

static struct vma_mkdat_rec *truth(struct sim *s, int inst, uint32_t cpu, uint64_t t,
				   uint32_t pid, uint32_t event, uint16_t nr)
{
	struct vma_mkdat_rec *r;

	if (vma_grow(s->recs, &s->cap, s->nr + 1, 1024) < 0) {
		s->failed = true;
		return NULL;
	}
	r = &s->recs[s->nr++];
	memset(r, 0, sizeof(*r));
	r->time = to_ns(s, t);
	r->inst = inst > 0;
	r->cpu = cpu;
	r->pid = pid;
	r->event = event;
	r->nr_data = nr;
	s->last_time[inst > 0][cpu % 64] = r->time;
	return r;
}

static void put_u64_words(uint32_t *w, uint64_t v)
{
	w[0] = (uint32_t)v;
	w[1] = (uint32_t)(v >> 32);
}

/* One field of a scenario event: where it goes in the payload and in the record. */
struct fv {
	uint8_t off, size;  /* in the event */
	uint64_t val;
	int8_t word;        /* first record word, -1: not in the record */
};

/*
 * Writes an event of @len bytes with the common fields and @f, and the
 * record a reader should make of it (@nr words, 8-byte fields as two).
 */
static struct vma_mkdat_rec *emit(struct sim *s, int inst, uint32_t cpu, uint64_t t,
				  uint32_t pid, uint32_t id, uint32_t len, uint32_t event,
				  uint16_t nr, const struct fv *f, size_t nf)
{
	unsigned char ev[64] = { 0 };
	bool big = s->o->big_endian;
	struct vma_mkdat_rec *r;
	size_t i;

	vma_tdw_put(ev, 2, id, big);
	vma_tdw_put(ev + 4, 4, pid, big);
	for (i = 0; i < nf; i++)
		vma_tdw_put(ev + f[i].off, f[i].size, f[i].val, big);
	if (vma_tdw_event(s->w, inst, cpu, t, ev, len) < 0)
		s->failed = true;
	r = truth(s, inst, cpu, t, pid, event, nr);
	for (i = 0; r && i < nf; i++) {
		if (f[i].word < 0)
			continue;
		if (f[i].size == 8) {
			put_u64_words(&r->data[f[i].word], f[i].val);
		} else {
			r->data[f[i].word] = (uint32_t)f[i].val;
		}
	}
	return r;
}

#define FIELDS(...) (const struct fv[]){ __VA_ARGS__ }, \
	sizeof((const struct fv[]){ __VA_ARGS__ }) / sizeof(struct fv)

static void ev_entry(struct sim *s, uint32_t cpu, uint64_t t, uint32_t vcpu, uint64_t rip)
{
	uint32_t pid = SIM_PID_BASE + vcpu;
	struct vma_mkdat_rec *r;

	if (s->o->arch == VMA_MKDAT_ARM64) {
		r = emit(s, 0, cpu, t, pid, ID_ENTRY, 16, VMA_KVM_ENTRY, 6,
			 FIELDS({ 8, 8, rip, 1 }));
		if (r)
			r->data[0] = VMA_KVM_NO_VCPU;
		return;
	}
	emit(s, 0, cpu, t, pid, ID_ENTRY, 24, VMA_KVM_ENTRY, 6,
	     FIELDS({ 8, 4, vcpu, 0 }, { 16, 8, rip, 1 }));
}

static void ev_exit(struct sim *s, uint32_t cpu, uint64_t t, uint32_t vcpu, uint32_t reason,
		    uint32_t esr_ec, uint64_t rip, uint64_t info1)
{
	uint32_t isa = s->o->arch == VMA_MKDAT_SVM ? VMA_KVM_ISA_SVM : VMA_KVM_ISA_VMX;
	uint32_t pid = SIM_PID_BASE + vcpu;
	struct vma_mkdat_rec *r;

	if (s->o->arch == VMA_MKDAT_ARM64) {
		r = emit(s, 0, cpu, t, pid, ID_EXIT, 24, VMA_KVM_EXIT, 7,
			 FIELDS({ 8, 4, reason, 0 }, { 12, 4, esr_ec, 5 }, { 16, 8, rip, 3 }));
		if (r) {
			r->data[1] = VMA_KVM_ISA_ARM64;
			r->data[2] = VMA_KVM_NO_VCPU;
			/* this format's print symbols name ret 1 TRAP */
			r->data[6] = reason == 1;
		}
		return;
	}
	emit(s, 0, cpu, t, pid, ID_EXIT, 64, VMA_KVM_EXIT, 11,
	     FIELDS({ 8, 4, reason, 0 }, { 16, 8, rip, 3 }, { 24, 4, isa, 1 },
		    { 32, 8, info1, 5 }, { 56, 4, vcpu, 2 }));
}

static void ev_pio(struct sim *s, uint32_t cpu, uint64_t t, uint32_t pid, uint32_t rw,
		   uint32_t port, uint32_t size, uint32_t val)
{
	emit(s, 0, cpu, t, pid, ID_PIO, 28, VMA_KVM_PIO, 5,
	     FIELDS({ 8, 4, rw, 0 }, { 12, 4, port, 1 }, { 16, 4, size, 2 }, { 20, 4, 1, 3 },
		    { 24, 4, val, 4 }));
}

static void ev_mmio(struct sim *s, uint32_t cpu, uint64_t t, uint32_t pid, uint32_t type,
		    uint64_t gpa, uint64_t val)
{
	emit(s, 0, cpu, t, pid, ID_MMIO, 32, VMA_KVM_MMIO, 6,
	     FIELDS({ 8, 4, type, 0 }, { 12, 4, 4, 1 }, { 16, 8, gpa, 2 }, { 24, 8, val, 4 }));
}

static void ev_msr(struct sim *s, uint32_t cpu, uint64_t t, uint32_t pid, uint32_t write,
		   uint32_t ecx, uint64_t data)
{
	emit(s, 0, cpu, t, pid, ID_MSR, 25, VMA_KVM_MSR, 5,
	     FIELDS({ 8, 4, write, 0 }, { 12, 4, ecx, 1 }, { 16, 8, data, 2 }));
}

static void ev_user_exit(struct sim *s, int inst, uint32_t cpu, uint64_t t, uint32_t pid,
			 uint32_t reason)
{
	emit(s, inst, cpu, t, pid, ID_USER_EXIT, 16, VMA_KVM_USERSPACE_EXIT, 2,
	     FIELDS({ 8, 4, reason, 0 }));
}

static void ev_apic(struct sim *s, uint32_t cpu, uint64_t t, uint32_t pid, uint32_t reg)
{
	/* not one of vmalyze's events: [0] is the reader's table index, [1] the id */
	struct vma_mkdat_rec *r = emit(s, 0, cpu, t, pid, ID_APIC, 20, VMA_KVM_OTHER, 2,
				       FIELDS({ 8, 4, 1, -1 }, { 12, 4, reg, -1 },
					      { 16, 4, 0x30, -1 }));

	if (r) {
		r->data[0] = UINT32_MAX;
		r->data[1] = ID_APIC;
	}
}

static void comm_words(uint32_t *w, const char *comm)
{
	size_t i;

	for (i = 0; i < 16 && comm[i]; i++)
		w[i / 4] |= (uint32_t)(unsigned char)comm[i] << (8 * (i % 4));
}

static void ev_switch(struct sim *s, uint32_t cpu, uint64_t t, uint32_t prev, const char *pcomm,
		      uint32_t state, uint32_t next, const char *ncomm)
{
	unsigned char ev[64] = { 0 };
	bool big = s->o->big_endian;
	struct vma_mkdat_rec *r;

	vma_tdw_put(ev, 2, ID_SWITCH, big);
	vma_tdw_put(ev + 4, 4, prev, big);
	memcpy(ev + 8, pcomm, strnlen(pcomm, 15));
	vma_tdw_put(ev + 24, 4, prev, big);
	vma_tdw_put(ev + 28, 4, 120, big);
	vma_tdw_put(ev + 32, 8, state, big);
	memcpy(ev + 40, ncomm, strnlen(ncomm, 15));
	vma_tdw_put(ev + 56, 4, next, big);
	vma_tdw_put(ev + 60, 4, 120, big);
	if (vma_tdw_event(s->w, 0, cpu, t, ev, 64) < 0)
		s->failed = true;
	r = truth(s, 0, cpu, t, prev, VMA_KVM_SCHED_SWITCH, 12);
	if (r) {
		r->data[0] = prev;
		r->data[1] = next;
		r->data[2] = state;
		r->data[3] = 120 | 120u << 16;
		comm_words(&r->data[4], ncomm);
		comm_words(&r->data[8], pcomm);
	}
}

/* x86 exit reasons of the scenario, as VMX and SVM number them. */
enum sim_reason { R_IO, R_MMIO, R_MSR_R, R_MSR_W, R_HLT, R_INTR, R_CPUID, R_APIC, R_NR };

static const uint32_t vmx_code[R_NR] = { 30, 49, 31, 32, 12, 1, 10, 44 };
static const uint32_t svm_code[R_NR] = { 0x7b, 0x400, 0x7c, 0x7c, 0x78, 0x60, 0x72, 0x400 };
/* arm64: ret (0 IRQ, 1 TRAP) and esr_ec per kind */
static const uint32_t arm_ret[R_NR] = { 1, 1, 1, 1, 1, 0, 1, 1 };
static const uint32_t arm_ec[R_NR] = { 0x24, 0x24, 0x18, 0x18, 0x01, 0, 0x16, 0x24 };

static enum sim_reason pick_reason(struct sim *s)
{
	static const uint8_t weight[R_NR] = { 20, 15, 8, 12, 20, 10, 5, 10 };
	uint32_t x = rnd(s, 100), acc = 0;
	int r;

	for (r = 0; r < R_NR; r++) {
		acc += weight[r];
		if (x < acc)
			return (enum sim_reason)r;
	}
	return R_INTR;
}

/* One vcpu's exits on @cpu from time @t; returns the time it ends. */
static uint64_t run_vcpu(struct sim *s, uint32_t cpu, uint32_t vcpu, uint64_t t, uint32_t exits,
			 bool extras)
{
	bool arm = s->o->arch == VMA_MKDAT_ARM64, svm = s->o->arch == VMA_MKDAT_SVM;
	uint32_t pid = SIM_PID_BASE + vcpu, i;
	uint64_t rip = 0xffffffff81000000ull + 0x1000ull * vcpu;
	char comm[16], idle[16];

	snprintf(comm, sizeof(comm), "CPU %u/KVM", vcpu);
	snprintf(idle, sizeof(idle), "swapper/%u", cpu);
	ev_entry(s, cpu, t, vcpu, rip);
	for (i = 0; i < exits && !s->failed; i++) {
		enum sim_reason r = pick_reason(s);
		uint32_t code = arm ? arm_ret[r] : svm ? svm_code[r] : vmx_code[r];
		uint64_t info1 = 0;

		t += ticks(s, 2000 + rnd(s, 300000));
		rip = 0xffffffff81000000ull + 0x10ull * rnd(s, 4096);
		if (!arm && r == R_MSR_W && svm)
			info1 = 1;
		ev_exit(s, cpu, t, vcpu, code, arm_ec[r], rip, info1);
		t += ticks(s, 500 + rnd(s, 2500));
		switch (r) {
		case R_IO:
			if (arm) {
				ev_mmio(s, cpu, t, pid, 2, 0x9000000, rnd(s, 256));
			} else {
				ev_pio(s, cpu, t, pid, rnd(s, 2), rnd(s, 2) ? 0x3f8 : 0x70, 1,
				       rnd(s, 256));
			}
			if (rnd(s, 2)) {
				t += ticks(s, 3000);
				ev_user_exit(s, 0, cpu, t, pid, arm ? 6 : 2);
				t += ticks(s, 20000 + rnd(s, 40000));
			}
			break;
		case R_MMIO:
			ev_mmio(s, cpu, t, pid, 1 + rnd(s, 2), 0xfebf0000ull + 4 * rnd(s, 64),
				rnd(s, 65536));
			if (rnd(s, 2)) {
				t += ticks(s, 3000);
				ev_user_exit(s, 0, cpu, t, pid, 6);
				t += ticks(s, 20000 + rnd(s, 40000));
			}
			break;
		case R_MSR_R:
		case R_MSR_W:
			if (!arm) {
				ev_msr(s, cpu, t, pid, r == R_MSR_W, rnd(s, 2) ? 0x6e0 : 0x1b,
				       0xfee00900ull + rnd(s, 4096));
			}
			break;
		case R_HLT: {
			/* now and then a long sleep, longer than a 27-bit delta can say */
			uint64_t sleep = extras && rnd(s, 20) == 0 ? 300000000ull :
				50000 + rnd(s, 2000000);

			ev_switch(s, cpu, t, pid, comm, 1, 0, idle);
			t += ticks(s, sleep);
			ev_switch(s, cpu, t, 0, idle, 0, pid, comm);
			t += ticks(s, 2000);
			break;
		}
		case R_APIC:
			if (!arm)
				ev_apic(s, cpu, t, pid, 0x300 + 0x10 * rnd(s, 8));
			break;
		case R_INTR:
		case R_CPUID:
		case R_NR:
			break;
		}
		t += ticks(s, 1000 + rnd(s, 9000));
		ev_entry(s, cpu, t, vcpu, rip + 2);
	}
	return t;
}

static int sim_formats(struct sim *s)
{
	bool arm = s->o->arch == VMA_MKDAT_ARM64;
	int ret = 0;

	ret |= vma_tdw_format(s->w, "kvm", arm ? fmt_entry_arm64 : fmt_entry_x86);
	ret |= vma_tdw_format(s->w, "kvm", arm ? fmt_exit_arm64 : fmt_exit_x86);
	ret |= vma_tdw_format(s->w, "kvm", fmt_pio);
	ret |= vma_tdw_format(s->w, "kvm", fmt_mmio);
	ret |= vma_tdw_format(s->w, "kvm", fmt_msr);
	ret |= vma_tdw_format(s->w, "kvm", fmt_user_exit);
	ret |= vma_tdw_format(s->w, "kvm", fmt_apic);
	ret |= vma_tdw_format(s->w, "sched", fmt_switch);
	return ret ? -1 : 0;
}

/* The extras on cpu 0: a discarded event, an absolute stamp, lost events, an instance. */
static void sim_extras_before(struct sim *s, uint64_t t)
{
	if (vma_tdw_discard(s->w, 0, 0, t, 24) < 0 || vma_tdw_stamp(s->w, 0, 0, t + 2) < 0)
		s->failed = true;
}

static void sim_lost(struct sim *s, uint32_t cpu, uint64_t count)
{
	struct vma_mkdat_rec *r;
	uint64_t prev = s->last_time[0][cpu % 64];

	if (vma_tdw_lost(s->w, 0, cpu, count) < 0) {
		s->failed = true;
		return;
	}
	/* the record comes at the next page's time: patched in by the caller */
	r = truth(s, 0, cpu, 0, 0, VMA_KVM_LOST, 4);
	if (r) {
		put_u64_words(&r->data[0], count);
		put_u64_words(&r->data[2], prev);
	}
}

/* Replaces the trace.dat image by a vm-trace dump of cpu 0, and keeps cpu 0's records. */
static int raw_image(struct sim *s, unsigned char **file, size_t *len)
{
	const unsigned char *pages;
	size_t n, i, k;
	unsigned char *img;

	if (vma_tdw_pages(s->w, 0, 0, &pages, &n) < 0)
		return -1;
	img = malloc(8 + n);
	if (!img)
		return -1;
	vma_tdw_put(img, 4, 0xcce96d01u, false);
	vma_tdw_put(img + 4, 2, ID_ENTRY, false);
	vma_tdw_put(img + 6, 2, ID_EXIT, false);
	memcpy(img + 8, pages, n);
	free(*file);
	*file = img;
	*len = 8 + n;
	for (i = 0, k = 0; i < s->nr; i++) {
		if (s->recs[i].cpu == 0 && s->recs[i].inst == 0)
			s->recs[k++] = s->recs[i];
	}
	s->nr = k;
	return 0;
}

int vma_mkdat_crashing_format(char *buf, size_t len, const char *name, unsigned int id,
			      bool crash)
{
	/* x86 kvm_exit's format past its name and ID lines */
	const char *rest = strstr(fmt_exit_x86, "format:\n");
	const char *at = ": __print_symbolic(REC->exit_reason,";
	char *comma;
	int n;

	n = snprintf(buf, len, "name: %s\nID: %u\n%s", name, id, rest);
	if (n < 0 || (size_t)n >= len)
		return -1;
	/* the fuzzer's change: a letter where that comma was */
	comma = strstr(buf, at);
	if (!comma)
		return -1;
	if (crash)
		comma[strlen(at) - 1] = 'd';
	return n;
}

int vma_mkdat_formats(enum vma_mkdat_arch arch, int (*put)(void *arg, const char *system,
							    const char *name, const char *text),
		      void *arg)
{
	static const struct {
		const char *system, *name, *x86, *arm;
	} f[] = {
		{ "kvm", "kvm_entry", fmt_entry_x86, fmt_entry_arm64 },
		{ "kvm", "kvm_exit", fmt_exit_x86, fmt_exit_arm64 },
		{ "kvm", "kvm_pio", fmt_pio, fmt_pio },
		{ "kvm", "kvm_mmio", fmt_mmio, fmt_mmio },
		{ "kvm", "kvm_msr", fmt_msr, fmt_msr },
		{ "kvm", "kvm_userspace_exit", fmt_user_exit, fmt_user_exit },
		{ "kvm", "kvm_apic", fmt_apic, fmt_apic },
		{ "sched", "sched_switch", fmt_switch, fmt_switch },
	};
	char page[512];
	size_t i;
	int n = vma_rbw_header_page(page, sizeof(page), 4096u);

	if (n < 0 || put(arg, NULL, "header_page", page) < 0 ||
	    put(arg, NULL, "header_event", vma_rbw_header_event) < 0) {
		return -1;
	}
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (put(arg, f[i].system, f[i].name, arch == VMA_MKDAT_ARM64 ? f[i].arm :
			f[i].x86) < 0) {
			return -1;
		}
	}
	return 0;
}

/* The container's options for scenario @o. */
static struct vma_tdw_opts writer_options(const struct vma_mkdat_opts *o)
{
	struct vma_tdw_opts wo;

	memset(&wo, 0, sizeof(wo));
	wo.version = o->version;
	wo.codec = o->codec;
	wo.big_endian = o->big_endian;
	wo.nr_cpus = o->nr_cpus;
	wo.clock = o->tsc ? "x86-tsc" : "local";
	wo.tsc2nsec_mult = o->tsc ? SIM_TSC_MULT : 0;
	wo.tsc2nsec_shift = o->tsc ? SIM_TSC_SHIFT : 0;
	wo.trace_id = 0x766d616c797a6500ull | o->seed;
	wo.compress_meta = o->extras;
	wo.uname = o->arch == VMA_MKDAT_ARM64 ? "Linux fixture 6.6.0 aarch64" :
		"Linux fixture 6.6.0 x86_64";
	return wo;
}

/* The vcpu threads' names, the guest's record (x86) and --extras' second instance. */
static int sim_header(struct sim *s)
{
	const struct vma_mkdat_opts *o = s->o;
	uint32_t v, *pids = calloc(o->nr_vcpus, sizeof(*pids));
	char comm[32];

	if (!pids)
		return -1;
	for (v = 0; v < o->nr_vcpus; v++) {
		pids[v] = SIM_PID_BASE + v;
		snprintf(comm, sizeof(comm), "CPU %u/KVM", v);
		s->failed |= vma_tdw_cmdline(s->w, pids[v], comm) < 0;
	}
	if (o->arch != VMA_MKDAT_ARM64) {
		s->failed |= vma_tdw_guest(s->w, "fixture-guest", 0x6775657374ull, o->nr_vcpus,
					   pids) < 0;
	}
	free(pids);
	if (o->extras) {
		s->inst2 = vma_tdw_instance(s->w, "vmexit");
		s->failed |= s->inst2 < 0;
	}
	return 0;
}

/* Each cpu runs its vcpus in turn; --extras adds its oddities at fixed places. */
static void sim_cpus(struct sim *s)
{
	const struct vma_mkdat_opts *o = s->o;
	uint32_t cpu, v;

	for (cpu = 0; cpu < o->nr_cpus && !s->failed; cpu++) {
		uint64_t t = ticks(s, SIM_START_NS + 1000ull * cpu);

		if (o->extras && cpu == 0) {
			sim_extras_before(s, t);
			t += 10;
		}
		for (v = cpu; v < o->nr_vcpus; v += o->nr_cpus) {
			if (o->extras && cpu == o->nr_cpus - 1 && v + o->nr_cpus >= o->nr_vcpus) {
				/* lost events half-way through the last cpu's last vcpu */
				t = run_vcpu(s, cpu, v, t, o->exits / 2, true);
				sim_lost(s, cpu, 17);
				t += ticks(s, 100000);
				t = run_vcpu(s, cpu, v, t, o->exits - o->exits / 2, true);
			} else {
				t = run_vcpu(s, cpu, v, t, o->exits, o->extras);
			}
			t += ticks(s, 5000);
		}
		if (o->extras && s->inst2 > 0)
			ev_user_exit(s, s->inst2, cpu, ticks(s, SIM_START_NS + 500), 1, 0);
	}
}

/* A lost record takes the time of the event after it on its cpu and instance. */
static void date_lost_records(struct sim *s)
{
	size_t i, k;

	for (i = 0; i < s->nr; i++) {
		if (s->recs[i].event != VMA_KVM_LOST)
			continue;
		for (k = i + 1; k < s->nr; k++) {
			const struct vma_mkdat_rec *n = &s->recs[k];

			if (n->cpu == s->recs[i].cpu && n->inst == s->recs[i].inst) {
				s->recs[i].time = s->recs[k].time;
				break;
			}
		}
	}
}

int vma_mkdat_build(const struct vma_mkdat_opts *opts, unsigned char **file, size_t *len,
		    struct vma_mkdat_rec **recs, size_t *nr_recs)
{
	struct vma_mkdat_opts o = *opts;
	struct vma_tdw_opts wo;
	struct sim s;

	if (!o.nr_cpus)
		o.nr_cpus = 2;
	if (!o.nr_vcpus)
		o.nr_vcpus = 2;
	if (!o.exits)
		o.exits = 200;
	if (o.nr_cpus > 64 || (o.raw && (o.nr_cpus != 1 || o.big_endian)))
		return -1;
	wo = writer_options(&o);
	memset(&s, 0, sizeof(s));
	s.o = &o;
	s.rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)o.seed << 17 | o.arch);
	s.inst2 = -1;
	s.w = vma_tdw_new(&wo);
	if (!s.w || sim_formats(&s) < 0 || sim_header(&s) < 0) {
		vma_tdw_free(s.w);
		return -1;
	}
	sim_cpus(&s);
	if (s.failed || vma_tdw_finish(s.w, file, len) < 0 ||
	    (o.raw && raw_image(&s, file, len) < 0)) {
		vma_tdw_free(s.w);
		free(s.recs);
		return -1;
	}
	date_lost_records(&s);
	vma_tdw_free(s.w);
	*recs = s.recs;
	*nr_recs = s.nr;
	return 0;
}
