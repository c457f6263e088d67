/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the KVM readers (trace.dat, raw ftrace) tell beyond their records:
 * the names of events outside the vocabulary of kvm-events.h, saved
 * command lines, and the recording session (clock, guests, time sync).
 * For the run driver and tests; the state and output stages get these
 * facts from the driver, never from the input.
 */
#ifndef VMALYZE_KVM_INPUT_H
#define VMALYZE_KVM_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "vmalyze/kvm-events.h"
#include "vmalyze/record.h"

struct vma_input;

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
	bool arm64;                /* its kvm_exit has the arm64 layout: an Arm host */
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

/*
 * vma_kvm_is_tracedat - @path begins as a trace.dat does (only its first
 * bytes are read): the only files that name trace ids.
 */
bool vma_kvm_is_tracedat(const char *path);

/*
 * vma_kvm_link_guest - the dump text of @host's kvm_exit and kvm_entry
 * records of threads @pids names their guest rips with @guest's kallsyms
 * (`rip 0xffffffffa0632f49 iowrite16+0x9`), as `trace-cmd report -i HOST
 * -i GUEST` does.  Both must be KVM inputs (else nothing happens); the
 * link ends when either is closed.  Return: VMA_OK or VMA_ERR_NOMEM.
 */
int vma_kvm_link_guest(struct vma_input *host, struct vma_input *guest, const uint32_t *pids,
		       uint32_t nr_pids);

#endif /* VMALYZE_KVM_INPUT_H */
