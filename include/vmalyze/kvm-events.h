/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * KVM event ids and payload layouts.  The trace.dat and raw ftrace readers
 * turn every ftrace event into a record with one of these ids; the fields
 * are found by name in the event's format when the file is opened, so the
 * layouts below hold whatever the recording kernel's field order was.
 *
 * Payload words are u32; a 64-bit field takes two words, low word first
 * (read it with vma_rec_u64()).  A field the recording kernel did not have
 * reads as 0, except where a marker is named.  Every KVM record has
 * rec->ctx = common_pid (the host thread) and rec->pcpu = the cpu whose
 * ring buffer held it.
 */
#ifndef VMALYZE_KVM_EVENTS_H
#define VMALYZE_KVM_EVENTS_H

#include <stdint.h>

#include "vmalyze/record.h"
#include "vmalyze/trace-ids.h"

struct vma_input;

/* Marker for "the event has no vcpu_id field" (arm64, old kernels). */
#define VMA_KVM_NO_VCPU 0xffffffffu

/* Instruction set of a kvm_exit, word 1 of its payload. */
enum vma_kvm_isa {
	VMA_KVM_ISA_VMX = 1,   /* the kernel's KVM_ISA_VMX */
	VMA_KVM_ISA_SVM = 2,   /* the kernel's KVM_ISA_SVM */
	VMA_KVM_ISA_ARM64 = 3, /* vmalyze's own: the arm64 layout below */
};

enum vma_kvm_event {
	/*
	 * kvm:kvm_exit.  x86 (VMX and SVM):
	 *   [0] exit_reason (raw: VMX flag bits above bit 15 kept)
	 *   [1] isa (enum vma_kvm_isa; VMX when the format has no isa field)
	 *   [2] vcpu_id, or VMA_KVM_NO_VCPU
	 *   [3,4] guest_rip  [5,6] info1  [7,8] info2
	 *   [9] intr_info  [10] error_code
	 * arm64 (recognised by its esr_ec field):
	 *   [0] ret (the ARM_EXCEPTION_* code)  [1] VMA_KVM_ISA_ARM64
	 *   [2] VMA_KVM_NO_VCPU  [3,4] vcpu_pc  [5] esr_ec
	 *   [6] 1 when ret is a trap (esr_ec valid), from the format's symbols
	 */
	VMA_KVM_EXIT = VMA_ID_KVM_BASE,
	/*
	 * kvm:kvm_entry.
	 *   [0] vcpu_id, or VMA_KVM_NO_VCPU  [1,2] rip (arm64: vcpu_pc)
	 *   [3] flags: bit 0 immediate_exit, bit 1 guest_mode
	 *   [4] intr_info (or inj_info)  [5] error_code (or inj_info_err)
	 */
	VMA_KVM_ENTRY,
	/* kvm:kvm_pio: [0] rw (1 = out)  [1] port  [2] size  [3] count  [4] val */
	VMA_KVM_PIO,
	/*
	 * kvm:kvm_mmio: [0] type (0 unsatisfied read, 1 read, 2 write)
	 *   [1] len  [2,3] gpa  [4,5] val
	 */
	VMA_KVM_MMIO,
	/* kvm:kvm_msr: [0] write  [1] ecx (the MSR)  [2,3] data  [4] exception */
	VMA_KVM_MSR,
	/*
	 * kvm:kvm_cpuid: [0] function  [1] index  [2,3] rax  [4,5] rbx
	 *   [6,7] rcx  [8,9] rdx  [10] flags: bit 0 found, bit 1 used_max_basic
	 */
	VMA_KVM_CPUID,
	/* kvm:kvm_hypercall: [0,1] nr  [2,3] a0  [4,5] a1  [6,7] a2  [8,9] a3 */
	VMA_KVM_HYPERCALL,
	/*
	 * kvm:kvm_inj_virq: [0] vector (older kernels: irq)
	 *   [1] flags: bit 0 soft, bit 1 reinjected
	 */
	VMA_KVM_INJ_VIRQ,
	/* kvm:kvm_userspace_exit: [0] reason (KVM_EXIT_*)  [1] errno (as int) */
	VMA_KVM_USERSPACE_EXIT,
	/* kvm:kvm_halt_poll_ns: [0] vcpu_id  [1] new  [2] old  [3] grow */
	VMA_KVM_HALT_POLL_NS,
	/* kvm:kvm_vcpu_wakeup: [0,1] ns  [2] waited  [3] valid */
	VMA_KVM_VCPU_WAKEUP,
	/* kvm:kvm_fpu: [0] load (1 load, 0 unload) */
	VMA_KVM_FPU,
	/*
	 * kvm:kvm_emulate_insn: [0,1] rip  [2] csbase  [3] len  [4] flags
	 *   [5] failed  [6..9] insn bytes 0..14 (byte i in bits 8*(i%4) of word 6+i/4)
	 */
	VMA_KVM_EMULATE_INSN,
	/* kvm:vcpu_match_mmio: [0,1] gva  [2,3] gpa  [4] write  [5] gpa_match */
	VMA_KVM_VCPU_MATCH_MMIO,
	/*
	 * sched:sched_switch: [0] prev_pid  [1] next_pid  [2] prev_state (low 32 bits)
	 *   [3] prev_prio in bits 0-15, next_prio in bits 16-31
	 *   [4..7] next_comm  [8..11] prev_comm (16 bytes each, NUL padded, byte i
 *   in bits 8*(i%4) of word i/4: a char array on a little-endian host)
	 */
	VMA_KVM_SCHED_SWITCH,
	/* sched:sched_wakeup: [0] pid  [1] prio  [2] target_cpu  [3..6] comm */
	VMA_KVM_SCHED_WAKEUP,
	/*
	 * Any other event: [0] its index in the input's event table (name it
	 * with vma_kvm_record_name()), UINT32_MAX when the input has no format
	 * for it  [1] its ftrace event id.
	 */
	VMA_KVM_OTHER,
	/*
	 * Made by the reader (VMA_REC_SYNTHETIC) where a ring-buffer page says
	 * events were lost before it; time stamp of that page.
	 *   [0,1] number of events lost, or UINT64_MAX when the page did not say
	 *   [2,3] time stamp of the record before the gap (0 when none)
	 */
	VMA_KVM_LOST,
	VMA_KVM_END_ /* one past the last id */
};

#define VMA_KVM_NR_IDS (VMA_KVM_END_ - VMA_ID_KVM_BASE)

static inline int vma_id_is_kvm(uint32_t event)
{
	return event >= VMA_ID_KVM_BASE && event < VMA_KVM_END_;
}

/* Name of a VMA_KVM_* id ("kvm_exit", "sched_switch", "other", "lost"); NULL if not one. */
const char *vma_kvm_event_name(uint32_t event);

/*
 * vma_kvm_record_name - the ftrace event name of @rec, read by @input (a
 * trace.dat or raw ftrace input); for VMA_KVM_OTHER records it comes from
 * the input's event table.  Return: borrowed string, never NULL.
 */
const char *vma_kvm_record_name(const struct vma_input *input, const struct vma_record *rec);

/* Number of entries in @input's event table (the OTHER indices); 0 for other inputs. */
uint32_t vma_kvm_nr_events(const struct vma_input *input);

/* Event name of entry @index of @input's event table; NULL when out of range. */
const char *vma_kvm_event_table_name(const struct vma_input *input, uint32_t index);

/*
 * vma_kvm_comm - the command name the trace recorded for host thread @pid
 * (trace.dat saved cmdlines).  Return: borrowed, or NULL when unknown.
 */
const char *vma_kvm_comm(const struct vma_input *input, uint32_t pid);

/* A guest named in a host trace.dat (GUEST option): which host thread runs which vcpu. */
struct vma_kvm_guest {
	char *name;
	uint64_t trace_id;       /* the guest file's TRACEID */
	uint32_t nr_vcpus;
	uint32_t *vcpu_pid;      /* [vcpu] = host thread id, 0 when unknown */
};

/* One time-sync sample of a guest trace.dat (TIME_SHIFT option). */
struct vma_kvm_tsync_sample {
	uint64_t time;           /* guest time stamp where it was taken */
	int64_t offset;          /* host = (guest * scaling >> fraction) + offset */
	uint64_t scaling;
	uint64_t fraction;
};

/*
 * What a trace.dat says about the recording session, for host-guest
 * correlation.  Time stamps in records already have TIME_SHIFT, TSC2NSEC,
 * DATE and OFFSET applied, as trace-cmd report does.
 */
struct vma_kvm_file_info {
	unsigned int version;      /* 6 or 7; 0 for raw ftrace */
	uint64_t trace_id;         /* TRACEID, 0 when absent */
	const char *clock;         /* trace clock name ("local", "x86-tsc", "tsc2nsec"...) */
	const char *uname;         /* UNAME option, or NULL */
	uint32_t cpu_count;        /* CPUCOUNT, or the number of cpus in the file */
	/* TSC2NSEC */
	uint32_t tsc2nsec_mult;    /* 0 when absent */
	uint32_t tsc2nsec_shift;
	uint64_t tsc2nsec_offset;  /* stored; trace-cmd report does not apply it */
	int64_t ts_offset;         /* DATE (us -> ns) + OFFSET, added to every stamp */
	/* TIME_SHIFT (guest files) */
	uint64_t peer_trace_id;    /* the host's TRACEID, 0 when absent */
	uint32_t tsync_flags;      /* bit 0: interpolate between samples */
	uint32_t tsync_nr_cpus;
	const uint32_t *tsync_count;                   /* [cpu] samples */
	struct vma_kvm_tsync_sample *const *tsync;     /* [cpu][sample], sorted by time */
	/* GUEST options (host files) */
	uint32_t nr_guests;
	const struct vma_kvm_guest *guests;
};

/* Session information of a trace.dat input; NULL for any other input. */
const struct vma_kvm_file_info *vma_kvm_file_info(const struct vma_input *input);

#endif /* VMALYZE_KVM_EVENTS_H */
