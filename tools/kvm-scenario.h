/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kvm-scenario: the KVM scenarios of tools/vmalyze-mkdat and the golden
 * tests (VMX, SVM and arm64 kvm_exit/kvm_entry layouts, kvm_pio, kvm_mmio,
 * kvm_msr, kvm_userspace_exit, sched_switch), deterministic, with the list
 * of records a reader should get back from the file.  The event format
 * texts are the project's own, modeled on the kernel's tracefs format files.
 */
#ifndef VMALYZE_KVM_SCENARIO_H
#define VMALYZE_KVM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmalyze/kvm-events.h"
#include "tracedat-writer.h"

/* An event format's ID line and ftrace's common fields, after its "name:" line. */
#define VMA_MKDAT_COMMON_FIELDS(id)                                                     \
	"ID: " #id "\n"                                                                 \
	"format:\n"                                                                     \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"          \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"          \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"  \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"                      \
	"\n"

enum vma_mkdat_arch {
	VMA_MKDAT_VMX = 0,
	VMA_MKDAT_SVM,
	VMA_MKDAT_ARM64,
};

struct vma_mkdat_opts {
	enum vma_mkdat_arch arch;
	unsigned int version;        /* 6 or 7 */
	enum vma_tdw_codec codec;
	uint32_t nr_cpus;            /* 0: 2 */
	uint32_t nr_vcpus;           /* 0: 2 */
	uint32_t exits;              /* kvm_exit per vcpu; 0: 200 */
	uint32_t seed;
	bool tsc;                    /* x86-tsc clock with TSC2NSEC, else "local" */
	bool extras;                 /* time extends, a discarded event, lost events, an instance */
	bool big_endian;
	bool raw;                    /* a vm-trace raw dump of cpu 0 (needs nr_cpus 1) */
};

/* One record a reader should deliver, in each cpu's order. */
struct vma_mkdat_rec {
	uint64_t time;               /* in ns, after TSC2NSEC */
	uint32_t inst;               /* 0: top instance, 1: the extra one */
	uint32_t cpu;
	uint32_t pid;
	uint32_t event;              /* VMA_KVM_* */
	uint16_t nr_data;
	uint32_t data[VMA_REC_MAX_WORDS];
};

/*
 * vma_mkdat_build - the scenario of @opts as a trace.dat image, and the
 * records it holds (VMA_KVM_LOST records included, where pages say so).
 * Return: 0 with *file and *recs owned (free()), or -1.
 */
int vma_mkdat_build(const struct vma_mkdat_opts *opts, unsigned char **file, size_t *len,
		    struct vma_mkdat_rec **recs, size_t *nr_recs);

/*
 * vma_mkdat_crashing_format - into @buf (@len bytes), event @name's format
 * (ID @id, the common fields and a kvm_exit's) with the print format a
 * fuzzer found libtraceevent 1.7 crashing on (traces/bad/
 * fuzz-format-crash.dat), or with @crash false the sound one it came from:
 * for tests of the format check.  Return: its length, or -1 (too small).
 */
int vma_mkdat_crashing_format(char *buf, size_t len, const char *name, unsigned int id,
			      bool crash);

/*
 * vma_mkdat_formats - hand the scenario's tracefs texts to @put: header_page
 * and header_event (system NULL), then each event format.  For the
 * --event-formats folder of a raw dump.  Return: 0, or -1 when @put fails.
 */
int vma_mkdat_formats(enum vma_mkdat_arch arch, int (*put)(void *arg, const char *system,
							    const char *name, const char *text),
		      void *arg);

#endif /* VMALYZE_KVM_SCENARIO_H */
