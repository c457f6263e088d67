/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Name tables for Xen trace records, shared by the dump decoder and the
 * summary stage, so both spell a code the same way.
 *
 * Spellings follow xenalyze wherever xenalyze has a name, so output can be
 * compared with it line for line; codes xenalyze lacks get the names the
 * Intel SDM, the AMD APM, Linux or Xen use, in the same style.  Every
 * lookup returns a static string, or NULL when the code has no name: the
 * caller decides how to print an unnamed code (xenalyze prints it in hex).
 */
#ifndef VMALYZE_XEN_NAMES_H
#define VMALYZE_XEN_NAMES_H

#include <stdbool.h>
#include <stdint.h>


/*
 * HVM exit codes.  VMX codes are basic exit reasons (bits 15:0 of the
 * VM-exit reason field); SVM codes are EXITCODE values.  The limits are one
 * past the highest named code, for callers that size arrays by code; SVM's
 * VMEXIT_INVALID (0xffffffff, "VMEXIT_INVALID") is named but lies beyond
 * the limit.
 */
#define VMA_VMX_EXIT_LIMIT 86u
#define VMA_SVM_EXIT_LIMIT 0x404u

const char *vma_vmx_exit_name(uint32_t reason);
const char *vma_svm_exit_name(uint32_t code);

/* The exit name in the vendor's table: SVM's if @svm, else VMX's. */
static inline const char *vma_hvm_exit_name(bool svm, uint32_t code)
{
	return svm ? vma_svm_exit_name(code) : vma_vmx_exit_name(code);
}

/*
 * Hypercall names by hypercall number, xenalyze's spellings
 * ("sched_op(compat)", "evtchn_op", "acm_op" for 27...), extended with the
 * hypercalls Xen added after xenalyze's table (tmem_op 38 ... hypfs_op 42,
 * and x86's mca 48 and paging_domctl_cont 49).  NULL for unused numbers.
 */
#define VMA_HYPERCALL_LIMIT 56u
const char *vma_hypercall_name(uint32_t op);

/* Sub-operations decoded in PV hypercall records: names or NULL. */
const char *vma_grant_table_op_name(uint32_t cmd);
const char *vma_vcpu_op_name(uint32_t cmd);
const char *vma_sched_op_name(uint32_t cmd);

/*
 * x86 exception vectors 0-19 as xenalyze names them ("Divide", "GP",
 * "Page fault"...), for injected exceptions and PV traps.
 */
const char *vma_trap_name(uint32_t vector);

/*
 * Names of Xen's own interrupt vectors (0xf9 LOCAL_TIMER ... 0xff, which
 * xenalyze spells "SPURIOS_APIC"); NULL for device vectors.
 */
const char *vma_extint_vector_name(uint32_t vector);

/*
 * HVM handler record names by minor number within TRC_HVM_HANDLER, with
 * TRC_64_FLAG removed: "pf_xen" (0x01) ... "vlapic" (0x25), plus
 * "xcr_read"/"xcr_write" (0x26/0x27), which xenalyze lacks.  Minor 0 is
 * "(no handler)", xenalyze's label for exits without a handler record.
 * Minors 0x16 and 0x17 are the port and MMIO "io_assist"/"mmio_assist"
 * records; their write variants (0x216, 0x217) have no entry here.
 */
#define VMA_HVM_HANDLER_LIMIT 0x28u
const char *vma_hvm_handler_name(uint32_t minor);

/* PV event names by minor number (low 8 bits): "hypercall", "trap"... */
const char *vma_pv_event_name(uint32_t minor);

/* Memory event names by minor number: "grant-map" ... "pod-superpage-splinter". */
const char *vma_mem_event_name(uint32_t minor);

/* Shadow fault classes by minor number: "propagate" (1) ... */
const char *vma_shadow_fault_name(uint32_t minor);

#endif /* VMALYZE_XEN_NAMES_H */
