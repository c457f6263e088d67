/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The KVM adapter: turns raw ftrace events into vmalyze records with the
 * ids and payload layouts of kvm-events.h.
 *
 * Fields are found by name in each event's format once, when the file is
 * opened (through libtraceevent), and read at the offset and size the
 * recording kernel gave them; a field the kernel did not have reads as the
 * spec's default.  So a kernel that reorders, widens or adds fields is read
 * correctly without a table per kernel version.  Each spec below binds the
 * fields of one id of the vocabulary (kvm-events.h) to its named words.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "input/kvm-internal.h"
#include "input/tep-lib.h"

enum fkind {
	F_U32,   /* low 32 bits into one word */
	F_U64,   /* two words, low first */
	F_BIT,   /* (value != 0) << arg, or-ed into the word */
	F_LO16,  /* low 16 bits into bits 0-15 of the word */
	F_HI16,  /* low 16 bits into bits 16-31 of the word */
	F_BYTES, /* up to 16 raw bytes, byte i in bits 8*(i%4) of word + i/4 */
};

struct fspec {
	const char *names[3]; /* alternatives, first present wins; none = constant */
	uint8_t word;
	uint8_t kind;
	uint8_t arg;
	uint32_t missing;     /* F_U32/F_U64 value when the field is absent */
};

struct vma_kvmev_spec {
	const char *system;
	const char *event;
	const char *detect;   /* this layout applies when the format has this field */
	uint32_t id;
	uint8_t isa;
	uint8_t nr_data;
	uint8_t nr_fields;
	const struct fspec *fields;
	/* its fixed decoders, by enum vma_kvmev_way (see decode_fields()) */
	void (*decode[VMA_KVMEV_WAYS])(const struct vma_kvmev_bind *b, const unsigned char *data,
				       struct vma_record *rec);
};

#define N(...) { __VA_ARGS__ }
/* A spec's field count; a table of more than a bind holds does not compile. */
#define NR(tab) \
	((uint8_t)(sizeof(tab) / sizeof(tab[0]) + \
		   0 * sizeof(char[sizeof(tab) / sizeof(tab[0]) <= VMA_KVMEV_MAX_FIELDS ? 1 : -1])))
/* A table's fixed decoders, made by DECODER() below. */
#define DECODERS(tab) { decode_masked_##tab, decode_whole_##tab, decode_gaps_##tab }
/* An event with one layout: its id and payload size are the vocabulary's. */
#define SPEC(sys, ev, id, tab) \
	{ sys, ev, NULL, VMA_KVM_##id, 0, VMA_KVM_WORDS_##id, NR(tab), tab, DECODERS(tab) }
/* kvm_exit: one layout per instruction set family. */
#define EXIT_SPEC(det, isa_, nr, tab) \
	{ "kvm", "kvm_exit", det, VMA_KVM_EXIT, isa_, nr, NR(tab), tab, DECODERS(tab) }

static const struct fspec exit_x86[] = {
	{ N("exit_reason"), VMA_KVM_EXIT_REASON, F_U32, 0, 0 },
	{ N("isa"), VMA_KVM_EXIT_ISA, F_U32, 0, VMA_KVM_ISA_VMX },
	{ N("vcpu_id"), VMA_KVM_EXIT_VCPU, F_U32, 0, VMA_KVM_NO_VCPU },
	{ N("guest_rip", "rip"), VMA_KVM_EXIT_RIP, F_U64, 0, 0 },
	{ N("info1"), VMA_KVM_EXIT_INFO1, F_U64, 0, 0 },
	{ N("info2"), VMA_KVM_EXIT_INFO2, F_U64, 0, 0 },
	{ N("intr_info"), VMA_KVM_EXIT_INTR_INFO, F_U32, 0, 0 },
	{ N("error_code"), VMA_KVM_EXIT_ERROR_CODE, F_U32, 0, 0 },
};

/* [6], whether ret is a trap, is filled from the format's symbols (arm_trap_value). */
static const struct fspec exit_arm64[] = {
	{ N("ret"), VMA_KVM_EXIT_REASON, F_U32, 0, 0 },
	{ N(NULL), VMA_KVM_EXIT_ISA, F_U32, 0, VMA_KVM_ISA_ARM64 },
	{ N("vcpu_id"), VMA_KVM_EXIT_VCPU, F_U32, 0, VMA_KVM_NO_VCPU },
	{ N("vcpu_pc"), VMA_KVM_EXIT_RIP, F_U64, 0, 0 },
	{ N("esr_ec"), VMA_KVM_EXIT_ARM_EC, F_U32, 0, 0 },
};

static const struct fspec entry[] = {
	{ N("vcpu_id"), VMA_KVM_ENTRY_VCPU, F_U32, 0, VMA_KVM_NO_VCPU },
	{ N("rip", "vcpu_pc"), VMA_KVM_ENTRY_RIP, F_U64, 0, 0 },
	{ N("immediate_exit"), VMA_KVM_ENTRY_FLAGS, F_BIT, 0, 0 },
	{ N("guest_mode"), VMA_KVM_ENTRY_FLAGS, F_BIT, 1, 0 },
	{ N("intr_info", "inj_info"), VMA_KVM_ENTRY_INTR_INFO, F_U32, 0, 0 },
	{ N("error_code", "inj_info_err"), VMA_KVM_ENTRY_ERROR_CODE, F_U32, 0, 0 },
};

static const struct fspec pio[] = {
	{ N("rw"), VMA_KVM_PIO_RW, F_U32, 0, 0 },
	{ N("port"), VMA_KVM_PIO_PORT, F_U32, 0, 0 },
	{ N("size"), VMA_KVM_PIO_SIZE, F_U32, 0, 0 },
	{ N("count"), VMA_KVM_PIO_COUNT, F_U32, 0, 0 },
	{ N("val"), VMA_KVM_PIO_VAL, F_U32, 0, 0 },
};

static const struct fspec mmio[] = {
	{ N("type"), VMA_KVM_MMIO_TYPE, F_U32, 0, 0 },
	{ N("len"), VMA_KVM_MMIO_LEN, F_U32, 0, 0 },
	{ N("gpa"), VMA_KVM_MMIO_GPA, F_U64, 0, 0 },
	{ N("val"), VMA_KVM_MMIO_VAL, F_U64, 0, 0 },
};

static const struct fspec msr[] = {
	{ N("write"), VMA_KVM_MSR_WRITE, F_U32, 0, 0 },
	{ N("ecx"), VMA_KVM_MSR_ECX, F_U32, 0, 0 },
	{ N("data"), VMA_KVM_MSR_DATA, F_U64, 0, 0 },
	{ N("exception"), VMA_KVM_MSR_EXCEPTION, F_U32, 0, 0 },
};

static const struct fspec cpuid[] = {
	{ N("function"), VMA_KVM_CPUID_FUNCTION, F_U32, 0, 0 },
	{ N("index"), VMA_KVM_CPUID_INDEX, F_U32, 0, 0 },
	{ N("rax"), VMA_KVM_CPUID_RAX, F_U64, 0, 0 },
	{ N("rbx"), VMA_KVM_CPUID_RBX, F_U64, 0, 0 },
	{ N("rcx"), VMA_KVM_CPUID_RCX, F_U64, 0, 0 },
	{ N("rdx"), VMA_KVM_CPUID_RDX, F_U64, 0, 0 },
	{ N("found"), VMA_KVM_CPUID_FLAGS, F_BIT, 0, 0 },
	{ N("used_max_basic"), VMA_KVM_CPUID_FLAGS, F_BIT, 1, 0 },
};

static const struct fspec hypercall[] = {
	{ N("nr"), VMA_KVM_HYPERCALL_NR, F_U64, 0, 0 },
	{ N("a0"), VMA_KVM_HYPERCALL_A0, F_U64, 0, 0 },
	{ N("a1"), VMA_KVM_HYPERCALL_A1, F_U64, 0, 0 },
	{ N("a2"), VMA_KVM_HYPERCALL_A2, F_U64, 0, 0 },
	{ N("a3"), VMA_KVM_HYPERCALL_A3, F_U64, 0, 0 },
};

static const struct fspec inj_virq[] = {
	{ N("vector", "irq"), VMA_KVM_INJ_VIRQ_VECTOR, F_U32, 0, 0 },
	{ N("soft"), VMA_KVM_INJ_VIRQ_FLAGS, F_BIT, 0, 0 },
	{ N("reinjected"), VMA_KVM_INJ_VIRQ_FLAGS, F_BIT, 1, 0 },
};

static const struct fspec userspace_exit[] = {
	{ N("reason"), VMA_KVM_USERSPACE_EXIT_REASON, F_U32, 0, 0 },
	{ N("errno"), VMA_KVM_USERSPACE_EXIT_ERRNO, F_U32, 0, 0 },
};

static const struct fspec halt_poll_ns[] = {
	{ N("vcpu_id"), VMA_KVM_HALT_POLL_NS_VCPU, F_U32, 0, VMA_KVM_NO_VCPU },
	{ N("new"), VMA_KVM_HALT_POLL_NS_NEW, F_U32, 0, 0 },
	{ N("old"), VMA_KVM_HALT_POLL_NS_OLD, F_U32, 0, 0 },
	{ N("grow"), VMA_KVM_HALT_POLL_NS_GROW, F_U32, 0, 0 },
};

static const struct fspec vcpu_wakeup[] = {
	{ N("ns"), VMA_KVM_VCPU_WAKEUP_NS, F_U64, 0, 0 },
	{ N("waited"), VMA_KVM_VCPU_WAKEUP_WAITED, F_U32, 0, 0 },
	{ N("valid"), VMA_KVM_VCPU_WAKEUP_VALID, F_U32, 0, 0 },
};

static const struct fspec fpu[] = {
	{ N("load"), VMA_KVM_FPU_LOAD, F_U32, 0, 0 },
};

static const struct fspec emulate_insn[] = {
	{ N("rip"), VMA_KVM_EMULATE_INSN_RIP, F_U64, 0, 0 },
	{ N("csbase"), VMA_KVM_EMULATE_INSN_CSBASE, F_U32, 0, 0 },
	{ N("len"), VMA_KVM_EMULATE_INSN_LEN, F_U32, 0, 0 },
	{ N("flags"), VMA_KVM_EMULATE_INSN_FLAGS, F_U32, 0, 0 },
	{ N("failed"), VMA_KVM_EMULATE_INSN_FAILED, F_U32, 0, 0 },
	{ N("insn"), VMA_KVM_EMULATE_INSN_INSN, F_BYTES, 16, 0 },
};

static const struct fspec match_mmio[] = {
	{ N("gva"), VMA_KVM_MATCH_MMIO_GVA, F_U64, 0, 0 },
	{ N("gpa"), VMA_KVM_MATCH_MMIO_GPA, F_U64, 0, 0 },
	{ N("write"), VMA_KVM_MATCH_MMIO_WRITE, F_U32, 0, 0 },
	{ N("gpa_match"), VMA_KVM_MATCH_MMIO_GPA_MATCH, F_U32, 0, 0 },
};

static const struct fspec sched_switch[] = {
	{ N("prev_pid"), VMA_KVM_SCHED_SWITCH_PREV_PID, F_U32, 0, 0 },
	{ N("next_pid"), VMA_KVM_SCHED_SWITCH_NEXT_PID, F_U32, 0, 0 },
	{ N("prev_state"), VMA_KVM_SCHED_SWITCH_PREV_STATE, F_U32, 0, 0 },
	{ N("prev_prio"), VMA_KVM_SCHED_SWITCH_PRIOS, F_LO16, 0, 0 },
	{ N("next_prio"), VMA_KVM_SCHED_SWITCH_PRIOS, F_HI16, 0, 0 },
	{ N("next_comm"), VMA_KVM_SCHED_SWITCH_NEXT_COMM, F_BYTES, 16, 0 },
	{ N("prev_comm"), VMA_KVM_SCHED_SWITCH_PREV_COMM, F_BYTES, 16, 0 },
};

static const struct fspec sched_wakeup[] = {
	{ N("pid"), VMA_KVM_SCHED_WAKEUP_PID, F_U32, 0, 0 },
	{ N("prio"), VMA_KVM_SCHED_WAKEUP_PRIO, F_U32, 0, 0 },
	{ N("target_cpu"), VMA_KVM_SCHED_WAKEUP_TARGET_CPU, F_U32, 0, 0 },
	{ N("comm"), VMA_KVM_SCHED_WAKEUP_COMM, F_BYTES, 16, 0 },
};

/*
 * Whether decode_fields() stores word @k of a record whole, whatever the
 * field's value: numbers and (unless absent in @way) bytes do, the flags
 * and prio halves are or-ed in.  Constant where the table is.
 */
static inline __attribute__((always_inline)) bool
stores_word(const struct fspec *tab, unsigned int n, enum vma_kvmev_way way, unsigned int k)
{
	unsigned int i;

#pragma GCC unroll 16
	for (i = 0; i < n; i++) {
		uint32_t last = tab[i].word + (tab[i].kind == F_U64 ? 1 :
					       tab[i].kind == F_BYTES ? tab[i].arg / 4u - 1 : 0);

		if (k < tab[i].word || k > last)
			continue;
		if (tab[i].kind == F_U32 || tab[i].kind == F_U64 ||
		    (tab[i].kind == F_BYTES && way != VMA_KVMEV_GAPS))
			return true;
	}
	return false;
}

/*
 * The fixed decoders: the fields of a spec's table into a record whose
 * fields are all present (its size at least the bind's need), with the
 * usual common fields in the host's byte order, on a little-endian host.
 * The loop is unrolled, so each field's kind, word and default are the
 * table's constants and only its place in the record is read from the
 * bind (bind_fixed()), where put_field() tests its presence, size and kind
 * at each record.  @way: VMA_KVMEV_MASKED, a load, a mask and a store per
 * field; VMA_KVMEV_WHOLE, every field present at a size its kind reads
 * whole, a load and a store; VMA_KVMEV_GAPS, the same for the fields
 * present and the default for the others (offset 0: no field lies in the
 * common fields then).  @arm_trap: arm64's kvm_exit, whose ret says
 * whether it is a trap.  The unit tests check every way against
 * vma_kvmev_fill() on random layouts and records.
 */
static inline __attribute__((always_inline)) void
decode_fields(const struct fspec *tab, unsigned int n, enum vma_kvmev_way way, bool arm_trap,
	      const struct vma_kvmev_bind *b, const unsigned char *data, struct vma_record *rec)
{
	uint32_t *w = rec->data;
	unsigned int i;

	/* the words no field stores whole are 0 first, as in vma_kvmev_fill() */
#pragma GCC unroll 16
	for (i = 0; i < VMA_REC_MAX_WORDS; i++) {
		if (!stores_word(tab, n, way, i))
			w[i] = 0;
	}
#pragma GCC unroll 16
	for (i = 0; i < n; i++) {
		const struct vma_kvmev_fix *x = &b->fix[i];
		const unsigned char *p = data + x->offset;
		uint32_t word = tab[i].word;
		uint64_t v, hi;
		uint16_t v16;

		if (way == VMA_KVMEV_GAPS && !x->offset) {
			if (tab[i].kind == F_U32 || tab[i].kind == F_U64)
				w[word] = tab[i].missing;
			if (tab[i].kind == F_U64)
				w[word + 1] = 0;
			continue;
		}
		if (way != VMA_KVMEV_MASKED) {
			/* byte i of bytes in bits 8 * (i % 4) of word i / 4: the host's layout */
			switch (tab[i].kind) {
			case F_U32:
				memcpy(&w[word], p, 4);
				break;
			case F_U64:
				memcpy(&w[word], p, 8);
				break;
			case F_BIT:
				w[word] |= (uint32_t)(*p != 0) << tab[i].arg;
				break;
			case F_LO16:
				memcpy(&v16, p, 2);
				w[word] |= v16;
				break;
			case F_HI16:
				memcpy(&v16, p, 2);
				w[word] |= (uint32_t)v16 << 16;
				break;
			case F_BYTES:
				memcpy(&w[word], p, tab[i].arg);
				break;
			}
			continue;
		}
		memcpy(&v, p, 8);
		v = (v & x->mask[0]) | x->missing;
		switch (tab[i].kind) {
		case F_U32:
			w[word] = (uint32_t)v;
			break;
		case F_U64:
			w[word] = (uint32_t)v;
			w[word + 1] = (uint32_t)(v >> 32);
			break;
		case F_BIT:
			w[word] |= (uint32_t)(v != 0) << tab[i].arg;
			break;
		case F_LO16:
			w[word] |= (uint32_t)v;
			break;
		case F_HI16:
			w[word] |= (uint32_t)v << 16;
			break;
		case F_BYTES:
			memcpy(&w[word], &v, 8);
			if (tab[i].arg > 8) {
				memcpy(&hi, p + 8, 8);
				hi &= x->mask[1];
				memcpy(&w[word + 2], &hi, 8);
			}
			break;
		}
	}
	/* as vma_kvmev_fill() says it */
	if (arm_trap)
		w[VMA_KVM_EXIT_ARM_TRAP] = (int64_t)w[VMA_KVM_EXIT_REASON] == b->arm_trap;
}

#define DECODER(tab, arm_trap)                                                            \
	static void decode_masked_##tab(const struct vma_kvmev_bind *b,                   \
					const unsigned char *data, struct vma_record *rec)    \
	{                                                                                 \
		decode_fields(tab, NR(tab), VMA_KVMEV_MASKED, arm_trap, b, data, rec);    \
	}                                                                                 \
	static void decode_whole_##tab(const struct vma_kvmev_bind *b,                    \
				       const unsigned char *data, struct vma_record *rec)     \
	{                                                                                 \
		decode_fields(tab, NR(tab), VMA_KVMEV_WHOLE, arm_trap, b, data, rec);     \
	}                                                                                 \
	static void decode_gaps_##tab(const struct vma_kvmev_bind *b,                     \
				      const unsigned char *data, struct vma_record *rec)      \
	{                                                                                 \
		decode_fields(tab, NR(tab), VMA_KVMEV_GAPS, arm_trap, b, data, rec);      \
	}

DECODER(exit_arm64, true)
DECODER(exit_x86, false)
DECODER(entry, false)
DECODER(pio, false)
DECODER(mmio, false)
DECODER(msr, false)
DECODER(cpuid, false)
DECODER(hypercall, false)
DECODER(inj_virq, false)
DECODER(userspace_exit, false)
DECODER(halt_poll_ns, false)
DECODER(vcpu_wakeup, false)
DECODER(fpu, false)
DECODER(emulate_insn, false)
DECODER(match_mmio, false)
DECODER(sched_switch, false)
DECODER(sched_wakeup, false)

/* An event vmalyze does not know, as vma_kvmev_fill() makes it. */
static void decode_other(const struct vma_kvmev_bind *b, const unsigned char *data,
			 struct vma_record *rec)
{
	uint16_t type;

	memcpy(&type, data, 2);
	memset(rec->data, 0, sizeof(rec->data));
	rec->data[VMA_KVM_OTHER_INDEX] = b->index;
	rec->data[VMA_KVM_OTHER_FTRACE_ID] = type;
}

/* First match wins: the arm64 kvm_exit layout is recognised by esr_ec. */
static const struct vma_kvmev_spec specs[] = {
	EXIT_SPEC("esr_ec", VMA_KVM_ISA_ARM64, VMA_KVM_EXIT_ARM_WORDS, exit_arm64),
	EXIT_SPEC(NULL, VMA_KVM_ISA_VMX, VMA_KVM_EXIT_X86_WORDS, exit_x86),
	SPEC("kvm", "kvm_entry", ENTRY, entry),
	SPEC("kvm", "kvm_pio", PIO, pio),
	SPEC("kvm", "kvm_mmio", MMIO, mmio),
	SPEC("kvm", "kvm_msr", MSR, msr),
	SPEC("kvm", "kvm_cpuid", CPUID, cpuid),
	SPEC("kvm", "kvm_hypercall", HYPERCALL, hypercall),
	SPEC("kvm", "kvm_inj_virq", INJ_VIRQ, inj_virq),
	SPEC("kvm", "kvm_userspace_exit", USERSPACE_EXIT, userspace_exit),
	SPEC("kvm", "kvm_halt_poll_ns", HALT_POLL_NS, halt_poll_ns),
	SPEC("kvm", "kvm_vcpu_wakeup", VCPU_WAKEUP, vcpu_wakeup),
	SPEC("kvm", "kvm_fpu", FPU, fpu),
	SPEC("kvm", "kvm_emulate_insn", EMULATE_INSN, emulate_insn),
	SPEC("kvm", "vcpu_match_mmio", VCPU_MATCH_MMIO, match_mmio),
	SPEC("sched", "sched_switch", SCHED_SWITCH, sched_switch),
	SPEC("sched", "sched_wakeup", SCHED_WAKEUP, sched_wakeup),
	SPEC("sched", "sched_waking", SCHED_WAKING, sched_wakeup),
};

/* Event ids the kernel hands out stay far below this. */
#define MAX_EVENT_ID (1 << 20)

static bool has_field(struct tep_event *event, const char *name)
{
	return vma_tep()->tep_find_field(event, name) != NULL;
}

bool vma_kvmev_wanted(const char *system, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		if (!strcmp(specs[i].event, name) && !strcmp(specs[i].system, system))
			return true;
	}
	return false;
}

static const struct vma_kvmev_spec *spec_for(struct tep_event *event)
{
	size_t i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		const struct vma_kvmev_spec *s = &specs[i];

		if (strcmp(s->event, event->name) ||
		    (event->system && strcmp(s->system, event->system))) {
			continue;
		}
		if (s->detect && !has_field(event, s->detect))
			continue;
		return s;
	}
	return NULL;
}

/*
 * arm64 kvm_exit: the value of "ret" that means a trap (whose esr_ec is
 * meaningful) changed across kernels (1 before 4.8, 2 since); the format's
 * __print_symbolic(REC->ret, ...) table names it.  Default: today's 2.
 */
static int64_t arm_trap_value(struct tep_event *event)
{
	struct tep_print_arg *arg;

	for (arg = event->print_fmt.args; arg; arg = arg->next) {
		struct tep_print_flag_sym *sym;

		if (arg->type != TEP_PRINT_SYMBOL || !arg->symbol.field ||
		    arg->symbol.field->type != TEP_PRINT_FIELD ||
		    strcmp(arg->symbol.field->field.name, "ret"))
			continue;
		for (sym = arg->symbol.symbols; sym; sym = sym->next) {
			if (sym->str && sym->value && !strcmp(sym->str, "TRAP"))
				return strtoll(sym->value, NULL, 0);
		}
	}
	return 2;
}

static void bind_fields(struct vma_kvmev_bind *b)
{
	unsigned int i, k;

	for (i = 0; i < b->spec->nr_fields && i < VMA_KVMEV_MAX_FIELDS; i++) {
		const struct fspec *f = &b->spec->fields[i];

		for (k = 0; k < 3 && f->names[k]; k++) {
			struct tep_format_field *tf =
				vma_tep()->tep_find_field(b->event, f->names[k]);

			/* dynamic (__data_loc) fields hold an offset, not the value */
			if (tf && !(tf->flags & TEP_FIELD_IS_DYNAMIC)) {
				/* a number of another size reads as absent, as per record */
				if (tf->offset >= 0 && tf->size > 0 &&
				    (f->kind == F_BYTES || tf->size == 1 || tf->size == 2 ||
				     tf->size == 4 || tf->size == 8)) {
					b->loc[i].offset = (uint32_t)tf->offset;
					b->loc[i].size = (uint32_t)tf->size;
					if (b->loc[i].offset + b->loc[i].size > b->need)
						b->need = b->loc[i].offset + b->loc[i].size;
				}
				break;
			}
		}
	}
}

/* The low @n bytes of a 64-bit word loaded on a little-endian host. */
static uint64_t low_bytes(uint32_t n)
{
	return n >= 8 ? UINT64_MAX : (1ull << (8 * n)) - 1;
}

/* Whether a field of kind @kind and @size bytes is read whole by a load of its kind's width. */
static bool read_whole(const struct fspec *f, uint32_t size)
{
	switch (f->kind) {
	case F_U32:
		return size == 4 || size == 8; /* the low 4 bytes */
	case F_U64:
		return size == 8;
	case F_BIT:
		return size == 1;
	case F_LO16:
	case F_HI16:
		return size >= 2; /* the low 2 bytes */
	case F_BYTES:
		return size >= f->arg;
	}
	return false;
}

/*
 * What the fixed decoders read of each field: the 8 bytes at its offset
 * (16 for bytes) masked to its size, and to 16 bits for the prio halves,
 * or, absent, nothing (the common fields at offset 0, masked off) and its
 * default.  When the fields present are all read whole by a load of their
 * kind's width, and lie past the common fields, just that load: the whole
 * way when every field is present, else the one with gaps.  Only on a
 * little-endian host, where the low bytes of a load are the field's first
 * bytes.
 */
static void bind_fixed(struct vma_kvmev_bind *b)
{
	bool all_there = true, whole = true;
	unsigned int i;

	for (i = 0; i < b->spec->nr_fields && i < VMA_KVMEV_MAX_FIELDS; i++) {
		const struct fspec *f = &b->spec->fields[i];
		const struct vma_kvmev_loc *loc = &b->loc[i];
		struct vma_kvmev_fix *x = &b->fix[i];

		*x = (struct vma_kvmev_fix){ 0 };
		if (!loc->size) {
			if (f->kind == F_U32 || f->kind == F_U64)
				x->missing = f->missing;
			all_there = false;
			continue;
		}
		x->offset = loc->offset;
		if (!read_whole(f, loc->size) || loc->offset < 8)
			whole = false;
		if (f->kind == F_BYTES) {
			uint32_t n = loc->size < f->arg ? loc->size : f->arg;

			x->mask[0] = low_bytes(n);
			x->mask[1] = n > 8 ? low_bytes(n - 8) : 0;
			continue;
		}
		x->mask[0] = low_bytes(loc->size);
		if (f->kind == F_U32)
			x->mask[0] &= UINT32_MAX;
		else if (f->kind == F_LO16 || f->kind == F_HI16)
			x->mask[0] &= 0xffff;
	}
	b->way = !whole ? VMA_KVMEV_MASKED : all_there ? VMA_KVMEV_WHOLE : VMA_KVMEV_GAPS;
	b->decode = VMA_HOST_BIG ? NULL : b->spec->decode[b->way];
}

/* Offset and size of a common field, from any parsed event (they all share them). */
static void common_field(const struct vma_kvmev *ev, const char *name, uint32_t *offset,
			 uint32_t *size, uint32_t def_off, uint32_t def_size)
{
	uint32_t i;

	*offset = def_off;
	*size = def_size;
	for (i = 0; i < ev->nr_bind; i++) {
		struct tep_format_field *f;

		if (!ev->bind[i].event)
			continue;
		f = vma_tep()->tep_find_common_field(ev->bind[i].event, name);
		if (f && (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)) {
			*offset = (uint32_t)f->offset;
			*size = (uint32_t)f->size;
			return;
		}
	}
}

struct tep_event *vma_kvmev_parsed_event(struct tep_handle *tep, const struct vma_kvm_format *f)
{
	struct tep_event *event;

	if (f->state != VMA_KVM_FMT_PARSED)
		return NULL;
	event = vma_tep()->tep_find_event(tep, f->id);
	return event && event->name && !strcmp(event->name, f->name) ? event : NULL;
}

/* Gives @b its parsed event and, for the events vmalyze knows, its fields. */
static void bind_event(struct vma_kvmev_bind *b, struct tep_event *event)
{
	b->event = event;
	b->spec = spec_for(event);
	b->arm_trap = arm_trap_value(event);
	if (b->spec) {
		b->id = b->spec->id;
		b->isa = b->spec->isa;
		b->nr_data = b->spec->nr_data;
		bind_fields(b);
		bind_fixed(b);
	}
}

/* Formats in ftrace id order (then file order): the order event tables list them in. */
static int by_format_id(const void *a, const void *b, void *arg)
{
	const struct vma_kvm_format *formats = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;

	if (formats[ia].id != formats[ib].id)
		return formats[ia].id < formats[ib].id ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

int vma_kvmev_init(struct vma_kvmev *ev, struct vma_kvm_priv *priv, bool big_endian)
{
	uint32_t nr = priv->nr_formats, i, *order;
	int32_t max_id = -1;

	memset(ev, 0, sizeof(*ev));
	ev->tep = priv->tep;
	ev->big_endian = big_endian;
	if (nr == 0)
		return VMA_OK;
	ev->bind = calloc(nr, sizeof(*ev->bind));
	order = malloc(nr * sizeof(*order));
	if (!ev->bind || !order) {
		free(order);
		vma_kvmev_fini(ev);
		return VMA_ERR_NOMEM;
	}
	for (i = 0; i < nr; i++)
		order[i] = i;
	qsort_r(order, nr, sizeof(*order), by_format_id, priv->formats);
	for (i = 0; i < nr; i++) {
		const struct vma_kvm_format *f = &priv->formats[order[i]];
		struct vma_kvmev_bind *b = &ev->bind[ev->nr_bind];
		struct tep_event *event;

		if (f->id < 0 || f->id > 0xffff)
			continue;
		b->name = f->name;
		b->format = order[i];
		b->index = ev->nr_bind;
		b->id = VMA_KVM_OTHER;
		b->need = 8; /* the common fields */
		b->nr_data = 2;
		b->decode = VMA_HOST_BIG ? NULL : decode_other;
		event = vma_kvmev_parsed_event(priv->tep, f);
		if (event)
			bind_event(b, event);
		/* ftrace ids are small; a corrupt format must not size the table. */
		if (f->id > max_id && f->id < MAX_EVENT_ID)
			max_id = f->id;
		ev->nr_bind++;
	}
	free(order);
	common_field(ev, "common_type", &ev->type_offset, &ev->type_size, 0, 2);
	common_field(ev, "common_pid", &ev->pid_offset, &ev->pid_size, 4, 4);
	ev->usual_common = ev->type_offset == 0 && ev->type_size == 2 && ev->pid_offset == 4 &&
		ev->pid_size == 4 && big_endian == VMA_HOST_BIG;
	ev->nr_ids = (uint32_t)(max_id + 1);
	if (ev->nr_ids) {
		ev->by_id = malloc(ev->nr_ids * sizeof(*ev->by_id));
		if (!ev->by_id) {
			vma_kvmev_fini(ev);
			return VMA_ERR_NOMEM;
		}
		memset(ev->by_id, 0xff, ev->nr_ids * sizeof(*ev->by_id));
		/* the first format of an id is the one its records are read with */
		for (i = 0; i < ev->nr_bind; i++) {
			int32_t id = priv->formats[ev->bind[i].format].id;

			if ((uint32_t)id < ev->nr_ids && ev->by_id[id] < 0)
				ev->by_id[id] = (int32_t)i;
		}
	}
	if (ev->usual_common && ev->nr_ids) {
		ev->fixed = calloc(ev->nr_ids, sizeof(*ev->fixed));
		if (!ev->fixed) {
			vma_kvmev_fini(ev);
			return VMA_ERR_NOMEM;
		}
		ev->nr_fixed = ev->nr_ids;
		for (i = 0; i < ev->nr_ids; i++) {
			if (ev->by_id[i] >= 0 && ev->bind[ev->by_id[i]].decode)
				ev->fixed[i] = &ev->bind[ev->by_id[i]];
		}
	}
	return VMA_OK;
}

void vma_kvmev_fini(struct vma_kvmev *ev)
{
	uint32_t i;

	for (i = 0; ev->bind && i < ev->nr_bind; i++)
		vma_kvmtext_free(ev->bind[i].text);
	free(ev->bind);
	free(ev->by_id);
	free(ev->fixed);
	ev->bind = NULL;
	ev->by_id = NULL;
	ev->fixed = NULL;
	ev->nr_bind = 0;
	ev->nr_ids = 0;
	ev->nr_fixed = 0;
}

/* A number field's value into its words at @w, by its kind (not F_BYTES). */
static inline void put_value(uint8_t kind, uint8_t arg, uint32_t *w, uint64_t val)
{
	switch (kind) {
	case F_U32:
		w[0] = (uint32_t)val;
		break;
	case F_U64:
		w[0] = (uint32_t)val;
		w[1] = (uint32_t)(val >> 32);
		break;
	case F_BIT:
		w[0] |= (uint32_t)(val != 0) << arg;
		break;
	case F_LO16:
		w[0] |= (uint32_t)(val & 0xffff);
		break;
	case F_HI16:
		w[0] |= (uint32_t)(val & 0xffff) << 16;
		break;
	}
}

/* @n raw bytes into the words at @w: byte i in bits 8 * (i % 4) of word i / 4. */
static inline void put_bytes(uint32_t *w, const unsigned char *src, uint32_t n)
{
	uint32_t i;

	if (!VMA_HOST_BIG) {
		/* the host's own layout of the words */
		memcpy(w, src, n);
		return;
	}
	for (i = 0; i < n; i++)
		w[i / 4] |= (uint32_t)src[i] << (8 * (i % 4));
}

/*
 * Numbers are read at the offset and size the format gave (1, 2, 4 or 8
 * bytes, in the file's byte order), as tep_read_number_field() would, but
 * without a call and a pointer chase per field of every record.
 */
static void put_field(const struct fspec *f, const struct vma_kvmev_loc *loc, bool big,
		      const unsigned char *data, uint32_t size, struct vma_record *rec)
{
	uint32_t *w = &rec->data[f->word];
	uint64_t val = 0;
	bool present = loc->size && (uint64_t)loc->offset + loc->size <= size;

	if (f->kind == F_BYTES) {
		if (present)
			put_bytes(w, data + loc->offset, loc->size < f->arg ? loc->size : f->arg);
		return;
	}
	if (present && (loc->size == 1 || loc->size == 2 || loc->size == 4 || loc->size == 8)) {
		val = vma_get_uint(data + loc->offset, loc->size, big);
	} else if (f->kind == F_U32 || f->kind == F_U64) {
		val = f->missing;
	}
	put_value(f->kind, f->arg, w, val);
}

int vma_kvmev_fill(const struct vma_kvmev *ev, const unsigned char *data, uint32_t size,
		   struct vma_record *rec)
{
	const struct vma_kvmev_bind *b = NULL;
	uint32_t type, i;

	if (ev->usual_common && size >= 8) {
		uint16_t t16;

		memcpy(&t16, data, 2);
		memcpy(&rec->ctx, data + 4, 4);
		type = t16;
	} else {
		if (size < ev->type_offset + ev->type_size ||
		    size < ev->pid_offset + ev->pid_size) {
			return -1;
		}
		type = (uint32_t)vma_get_uint(data + ev->type_offset, ev->type_size,
					      ev->big_endian);
		rec->ctx = (uint32_t)vma_get_uint(data + ev->pid_offset, ev->pid_size,
						  ev->big_endian);
	}
	memset(rec->data, 0, sizeof(rec->data));
	if (type < ev->nr_ids && ev->by_id[type] >= 0)
		b = &ev->bind[ev->by_id[type]];
	if (!b || !b->spec) {
		rec->event = VMA_KVM_OTHER;
		rec->data[VMA_KVM_OTHER_INDEX] = b ? (uint32_t)(b - ev->bind) : UINT32_MAX;
		rec->data[VMA_KVM_OTHER_FTRACE_ID] = type;
		rec->nr_data = 2;
		return 0;
	}
	rec->event = b->id;
	rec->nr_data = b->spec->nr_data;
	for (i = 0; i < b->spec->nr_fields; i++)
		put_field(&b->spec->fields[i], &b->loc[i], ev->big_endian, data, size, rec);
	if (b->id == VMA_KVM_EXIT && b->isa == VMA_KVM_ISA_ARM64) {
		rec->data[VMA_KVM_EXIT_ARM_TRAP] =
			(int64_t)rec->data[VMA_KVM_EXIT_REASON] == b->arm_trap;
	}
	return 0;
}

/* ---- per-input names, for dump and counts --------------------------------- */

const char *vma_kvm_record_name(const struct vma_input *input, const struct vma_record *rec)
{
	if (rec->event == VMA_KVM_OTHER) {
		const char *name = vma_kvm_event_table_name(input, rec->data[VMA_KVM_OTHER_INDEX]);

		return name ? name : "unknown";
	}
	if (vma_id_is_kvm(rec->event))
		return vma_kvm_event_name(rec->event);
	return "unknown";
}

uint32_t vma_kvm_nr_events(const struct vma_input *input)
{
	struct vma_kvm_priv *priv = vma_kvm_priv_of(input);

	return priv ? priv->ev.nr_bind : 0;
}

const char *vma_kvm_event_table_name(const struct vma_input *input, uint32_t index)
{
	struct vma_kvm_priv *priv = vma_kvm_priv_of(input);

	if (!priv || index >= priv->ev.nr_bind)
		return NULL;
	return priv->ev.bind[index].name;
}

const char *vma_kvm_comm(const struct vma_input *input, uint32_t pid)
{
	struct vma_kvm_priv *priv = vma_kvm_priv_of(input);
	const char *comm;

	if (!priv || !priv->tep || pid > INT32_MAX)
		return NULL;
	if (!vma_tep()->tep_is_pid_registered(priv->tep, (int)pid))
		return NULL;
	comm = vma_tep()->tep_data_comm_from_pid(priv->tep, (int)pid);
	return comm;
}

const struct vma_kvm_file_info *vma_kvm_file_info(const struct vma_input *input)
{
	struct vma_kvm_priv *priv = vma_kvm_priv_of(input);

	return priv ? &priv->info : NULL;
}
