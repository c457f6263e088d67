/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * KVM event ids and payload layouts.  The trace.dat and raw ftrace readers
 * turn every ftrace event into a record with one of these ids; the fields
 * are found by name in the event's format when the file is opened, so the
 * layouts below hold whatever the recording kernel's field order was.
 *
 * Payload words are u32, named by enum vma_kvm_word.  A field the
 * recording kernel did not have reads as 0, except where a marker is
 * named.  Every KVM record has rec->ctx = common_pid (the host thread) and
 * rec->pcpu = the cpu whose ring buffer held it.  The names and the table
 * of ids live in src/core/kvm-names.c, so output and state need no input
 * code; the functions at the end of this header are the readers'.
 */
#ifndef VMALYZE_KVM_EVENTS_H
#define VMALYZE_KVM_EVENTS_H

#include <stdint.h>

#include "vmalyze/record.h"
#include "vmalyze/trace-ids.h"

/* Marker for "the event has no vcpu_id field" (arm64, old kernels). */
#define VMA_KVM_NO_VCPU 0xffffffffu

/* Instruction set of a kvm_exit (its VMA_KVM_EXIT_ISA word). */
enum vma_kvm_isa {
	VMA_KVM_ISA_VMX = 1,   /* the kernel's KVM_ISA_VMX */
	VMA_KVM_ISA_SVM = 2,   /* the kernel's KVM_ISA_SVM */
	VMA_KVM_ISA_ARM64 = 3, /* vmalyze's own: the arm64 layout below */
};

/* What the state stage does with an event. */
enum vma_kvm_class {
	VMA_KVM_CLASS_ARC,     /* opens (exit) or closes (entry) an exit arc */
	VMA_KVM_CLASS_REFINE,  /* says what the open exit did: port, address, MSR... */
	VMA_KVM_CLASS_INJECT,  /* a guest interrupt */
	VMA_KVM_CLASS_SCHED,   /* host scheduling of vcpu threads */
	VMA_KVM_CLASS_COUNTED, /* only counted by name */
	VMA_KVM_CLASS_LOST,    /* the reader's mark of lost events */
};

/*
 * The KVM vocabulary, one row per id: X(ID, ftrace name, class, payload
 * words the reader always writes).  The enum below, the name table
 * (src/core/kvm-names.c), the readers' field bindings
 * (src/input/kvm-events.c) and the state handlers (src/state/kvm.c) are
 * all made from or checked against it; a new event is one row here, one
 * binding and, if the state stage uses it, one handler.
 */
#define VMA_KVM_EVENTS(X)                                                     \
	X(EXIT, "kvm_exit", VMA_KVM_CLASS_ARC, 7)                             \
	X(ENTRY, "kvm_entry", VMA_KVM_CLASS_ARC, 6)                           \
	X(PIO, "kvm_pio", VMA_KVM_CLASS_REFINE, 5)                            \
	X(MMIO, "kvm_mmio", VMA_KVM_CLASS_REFINE, 6)                          \
	X(MSR, "kvm_msr", VMA_KVM_CLASS_REFINE, 5)                            \
	X(CPUID, "kvm_cpuid", VMA_KVM_CLASS_REFINE, 11)                       \
	X(HYPERCALL, "kvm_hypercall", VMA_KVM_CLASS_REFINE, 10)               \
	X(INJ_VIRQ, "kvm_inj_virq", VMA_KVM_CLASS_INJECT, 2)                  \
	X(USERSPACE_EXIT, "kvm_userspace_exit", VMA_KVM_CLASS_REFINE, 2)      \
	X(HALT_POLL_NS, "kvm_halt_poll_ns", VMA_KVM_CLASS_COUNTED, 4)         \
	X(VCPU_WAKEUP, "kvm_vcpu_wakeup", VMA_KVM_CLASS_COUNTED, 4)           \
	X(FPU, "kvm_fpu", VMA_KVM_CLASS_COUNTED, 1)                           \
	X(EMULATE_INSN, "kvm_emulate_insn", VMA_KVM_CLASS_COUNTED, 10)        \
	X(VCPU_MATCH_MMIO, "vcpu_match_mmio", VMA_KVM_CLASS_COUNTED, 6)       \
	X(SCHED_SWITCH, "sched_switch", VMA_KVM_CLASS_SCHED, 12)              \
	X(SCHED_WAKEUP, "sched_wakeup", VMA_KVM_CLASS_SCHED, 7)               \
	X(SCHED_WAKING, "sched_waking", VMA_KVM_CLASS_SCHED, 7)               \
	X(OTHER, "other", VMA_KVM_CLASS_COUNTED, 2)                           \
	X(LOST, "lost", VMA_KVM_CLASS_LOST, 4)

#define VMA_KVM_ENUM_(id, name, cls, words) VMA_KVM_##id,
enum vma_kvm_event {
	VMA_KVM_BEFORE_ = VMA_ID_KVM_BASE - 1,
	VMA_KVM_EVENTS(VMA_KVM_ENUM_)
	VMA_KVM_END_ /* one past the last id */
};
#undef VMA_KVM_ENUM_

#define VMA_KVM_NR_IDS (VMA_KVM_END_ - VMA_ID_KVM_BASE)

/* VMA_KVM_WORDS_<ID>: the payload words column of the list. */
#define VMA_KVM_WORDS_(id, name, cls, words) VMA_KVM_WORDS_##id = (words),
enum { VMA_KVM_EVENTS(VMA_KVM_WORDS_) };
#undef VMA_KVM_WORDS_

/*
 * Payload words of each id (enum vma_kvm_word), named as the readers write
 * them and the state stage reads them.  A 64-bit field takes two words,
 * low word first (read it with vma_rec_u64()).
 */
enum vma_kvm_word {
	/*
	 * kvm_exit, x86 (VMX and SVM): exit_reason (raw: VMX flag bits above
	 * bit 15 kept), isa (VMX when the format has none), vcpu_id or
	 * VMA_KVM_NO_VCPU, guest_rip, info1, info2, intr_info, error_code.
	 * arm64 (recognised by its esr_ec field): REASON is ret (the
	 * ARM_EXCEPTION_* code), ISA is VMA_KVM_ISA_ARM64, RIP is vcpu_pc,
	 * then esr_ec and whether ret is a trap (from the format's symbols).
	 */
	VMA_KVM_EXIT_REASON = 0,
	VMA_KVM_EXIT_ISA = 1,
	VMA_KVM_EXIT_VCPU = 2,
	VMA_KVM_EXIT_RIP = 3,        /* 2 words */
	VMA_KVM_EXIT_INFO1 = 5,      /* 2 words */
	VMA_KVM_EXIT_INFO2 = 7,      /* 2 words */
	VMA_KVM_EXIT_INTR_INFO = 9,
	VMA_KVM_EXIT_ERROR_CODE = 10,
	VMA_KVM_EXIT_X86_WORDS = 11,
	VMA_KVM_EXIT_ARM_EC = 5,
	VMA_KVM_EXIT_ARM_TRAP = 6,
	VMA_KVM_EXIT_ARM_WORDS = 7,
	/* kvm_entry: vcpu_id or VMA_KVM_NO_VCPU, rip (arm64: vcpu_pc),
	 * flags (bit 0 immediate_exit, bit 1 guest_mode), intr_info (or
	 * inj_info), error_code (or inj_info_err). */
	VMA_KVM_ENTRY_VCPU = 0,
	VMA_KVM_ENTRY_RIP = 1,       /* 2 words */
	VMA_KVM_ENTRY_FLAGS = 3,
	VMA_KVM_ENTRY_INTR_INFO = 4,
	VMA_KVM_ENTRY_ERROR_CODE = 5,
	/* kvm_pio: rw (1 = out), port, size, count, val */
	VMA_KVM_PIO_RW = 0,
	VMA_KVM_PIO_PORT = 1,
	VMA_KVM_PIO_SIZE = 2,
	VMA_KVM_PIO_COUNT = 3,
	VMA_KVM_PIO_VAL = 4,
	/* kvm_mmio: type (0 unsatisfied read, 1 read, 2 write), len, gpa, val */
	VMA_KVM_MMIO_TYPE = 0,
	VMA_KVM_MMIO_LEN = 1,
	VMA_KVM_MMIO_GPA = 2,        /* 2 words */
	VMA_KVM_MMIO_VAL = 4,        /* 2 words */
	/* kvm_msr: write, ecx (the MSR), data, exception */
	VMA_KVM_MSR_WRITE = 0,
	VMA_KVM_MSR_ECX = 1,
	VMA_KVM_MSR_DATA = 2,        /* 2 words */
	VMA_KVM_MSR_EXCEPTION = 4,
	/* kvm_cpuid: function, index, rax, rbx, rcx, rdx (2 words each),
	 * flags (bit 0 found, bit 1 used_max_basic) */
	VMA_KVM_CPUID_FUNCTION = 0,
	VMA_KVM_CPUID_INDEX = 1,
	VMA_KVM_CPUID_RAX = 2,
	VMA_KVM_CPUID_RBX = 4,
	VMA_KVM_CPUID_RCX = 6,
	VMA_KVM_CPUID_RDX = 8,
	VMA_KVM_CPUID_FLAGS = 10,
	/* kvm_hypercall: nr, a0..a3, 2 words each */
	VMA_KVM_HYPERCALL_NR = 0,
	VMA_KVM_HYPERCALL_A0 = 2,
	VMA_KVM_HYPERCALL_A1 = 4,
	VMA_KVM_HYPERCALL_A2 = 6,
	VMA_KVM_HYPERCALL_A3 = 8,
	/* kvm_inj_virq: vector (older kernels: irq), flags (bit 0 soft, bit 1 reinjected) */
	VMA_KVM_INJ_VIRQ_VECTOR = 0,
	VMA_KVM_INJ_VIRQ_FLAGS = 1,
	/* kvm_userspace_exit: reason (KVM_EXIT_*), errno (as int) */
	VMA_KVM_USERSPACE_EXIT_REASON = 0,
	VMA_KVM_USERSPACE_EXIT_ERRNO = 1,
	/* kvm_halt_poll_ns: vcpu_id, new, old, grow */
	VMA_KVM_HALT_POLL_NS_VCPU = 0,
	VMA_KVM_HALT_POLL_NS_NEW = 1,
	VMA_KVM_HALT_POLL_NS_OLD = 2,
	VMA_KVM_HALT_POLL_NS_GROW = 3,
	/* kvm_vcpu_wakeup: ns (2 words), waited, valid */
	VMA_KVM_VCPU_WAKEUP_NS = 0,
	VMA_KVM_VCPU_WAKEUP_WAITED = 2,
	VMA_KVM_VCPU_WAKEUP_VALID = 3,
	/* kvm_fpu: load (1 load, 0 unload) */
	VMA_KVM_FPU_LOAD = 0,
	/* kvm_emulate_insn: rip (2 words), csbase, len, flags, failed, insn
	 * bytes 0..14 (byte i in bits 8*(i%4) of word INSN + i/4) */
	VMA_KVM_EMULATE_INSN_RIP = 0,
	VMA_KVM_EMULATE_INSN_CSBASE = 2,
	VMA_KVM_EMULATE_INSN_LEN = 3,
	VMA_KVM_EMULATE_INSN_FLAGS = 4,
	VMA_KVM_EMULATE_INSN_FAILED = 5,
	VMA_KVM_EMULATE_INSN_INSN = 6,
	/* vcpu_match_mmio: gva, gpa (2 words each), write, gpa_match */
	VMA_KVM_MATCH_MMIO_GVA = 0,
	VMA_KVM_MATCH_MMIO_GPA = 2,
	VMA_KVM_MATCH_MMIO_WRITE = 4,
	VMA_KVM_MATCH_MMIO_GPA_MATCH = 5,
	/* sched_switch: prev_pid, next_pid, prev_state (low 32 bits),
	 * prev_prio in bits 0-15 and next_prio in bits 16-31, next_comm and
	 * prev_comm (16 bytes each, NUL padded, byte i in bits 8*(i%4) of
	 * word +i/4: a char array on a little-endian host) */
	VMA_KVM_SCHED_SWITCH_PREV_PID = 0,
	VMA_KVM_SCHED_SWITCH_NEXT_PID = 1,
	VMA_KVM_SCHED_SWITCH_PREV_STATE = 2,
	VMA_KVM_SCHED_SWITCH_PRIOS = 3,
	VMA_KVM_SCHED_SWITCH_NEXT_COMM = 4,
	VMA_KVM_SCHED_SWITCH_PREV_COMM = 8,
	/* sched_wakeup, and sched_waking (the same words): pid, prio,
	 * target_cpu, comm (16 bytes) */
	VMA_KVM_SCHED_WAKEUP_PID = 0,
	VMA_KVM_SCHED_WAKEUP_PRIO = 1,
	VMA_KVM_SCHED_WAKEUP_TARGET_CPU = 2,
	VMA_KVM_SCHED_WAKEUP_COMM = 3,
	/* any other event: its index in the input's event table (name it
	 * with vma_kvm_record_name()), UINT32_MAX when the input has no format
	 * for it; its ftrace event id */
	VMA_KVM_OTHER_INDEX = 0,
	VMA_KVM_OTHER_FTRACE_ID = 1,
	/* lost (made by the reader, VMA_REC_SYNTHETIC, where a ring-buffer page
	 * says events were lost before it; time stamp of that page): number of
	 * events lost, UINT64_MAX when the page did not say; time stamp of the
	 * record before the gap (0 when none); 2 words each */
	VMA_KVM_LOST_COUNT = 0,
	VMA_KVM_LOST_AFTER = 2,
};

static inline int vma_id_is_kvm(uint32_t event)
{
	return event >= VMA_ID_KVM_BASE && event < VMA_KVM_END_;
}

/* Word @w of @rec; 0 past the payload the reader wrote. */
static inline uint32_t vma_kvm_word(const struct vma_record *rec, enum vma_kvm_word w)
{
	return (uint32_t)w < rec->nr_data ? rec->data[w] : 0;
}

/* 64-bit field at words @w, @w + 1; 0 past the payload. */
static inline uint64_t vma_kvm_word64(const struct vma_record *rec, enum vma_kvm_word w)
{
	return (uint64_t)vma_kvm_word(rec, w + 1) << 32 | vma_kvm_word(rec, w);
}

/* Name of a VMA_KVM_* id ("kvm_exit", "sched_switch", "other", "lost"); NULL if not one. */
const char *vma_kvm_event_name(uint32_t event);

/* Class of a VMA_KVM_* id; VMA_KVM_CLASS_COUNTED for anything else. */
enum vma_kvm_class vma_kvm_event_class(uint32_t event);

/* Payload words a record of VMA_KVM_* id @event always has; 0 if not one. */
uint32_t vma_kvm_event_words(uint32_t event);

#endif /* VMALYZE_KVM_EVENTS_H */
