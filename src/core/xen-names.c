/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Name tables for Xen trace records (see xen-names.h).  Pure data: sparse
 * arrays indexed by code, with bounds-checked lookups, so an unnamed or
 * out-of-range code is simply NULL.
 */
#include <stddef.h>

#include "vmalyze/xen-events.h"
#include "vmalyze/xen-names.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *lookup(const char *const *table, size_t len, uint32_t code)
{
	return code < len ? table[code] : NULL;
}

/*
 * VMX basic exit reasons.  0-55 as xenalyze spells them; 56 and above as
 * Xen's vmx.h, Linux's uapi vmx.h or the SDM's Appendix C name them.
 * 35, 38, 42, 71, 82 and 83 are reserved.
 */
static const char *const vmx_exit[VMA_VMX_EXIT_LIMIT] = {
	[0] = "EXCEPTION_NMI",
	[1] = "EXTERNAL_INTERRUPT",
	[2] = "TRIPLE_FAULT",
	[3] = "INIT",
	[4] = "SIPI",
	[5] = "IO_SMI",
	[6] = "OTHER_SMI",
	[7] = "PENDING_VIRT_INTR",
	[8] = "PENDING_VIRT_NMI",
	[9] = "TASK_SWITCH",
	[10] = "CPUID",
	[11] = "GETSEC",
	[12] = "HLT",
	[13] = "INVD",
	[14] = "INVLPG",
	[15] = "RDPMC",
	[16] = "RDTSC",
	[17] = "RSM",
	[18] = "VMCALL",
	[19] = "VMCLEAR",
	[20] = "VMLAUNCH",
	[21] = "VMPTRLD",
	[22] = "VMPTRST",
	[23] = "VMREAD",
	[24] = "VMRESUME",
	[25] = "VMWRITE",
	[26] = "VMXOFF",
	[27] = "VMXON",
	[28] = "CR_ACCESS",
	[29] = "DR_ACCESS",
	[30] = "IO_INSTRUCTION",
	[31] = "MSR_READ",
	[32] = "MSR_WRITE",
	[33] = "INVALID_GUEST_STATE",
	[34] = "MSR_LOADING",
	[36] = "MWAIT_INSTRUCTION",
	[37] = "MONITOR_TRAP_FLAG",
	[39] = "MONITOR_INSTRUCTION",
	[40] = "PAUSE_INSTRUCTION",
	[41] = "MCE_DURING_VMENTRY",
	[43] = "TPR_BELOW_THRESHOLD",
	[44] = "APIC_ACCESS",
	[45] = "EOI_INDUCED",
	[46] = "ACCESS_GDTR_OR_IDTR",
	[47] = "ACCESS_LDTR_OR_TR",
	[48] = "EPT_VIOLATION",
	[49] = "EPT_MISCONFIG",
	[50] = "INVEPT",
	[51] = "RDTSCP",
	[52] = "VMX_PREEMPTION_TIMER_EXPIRED",
	[53] = "INVVPID",
	[54] = "WBINVD",
	[55] = "XSETBV",
	[56] = "APIC_WRITE",
	[57] = "RDRAND",
	[58] = "INVPCID",
	[59] = "VMFUNC",
	[60] = "ENCLS",
	[61] = "RDSEED",
	[62] = "PML_FULL",
	[63] = "XSAVES",
	[64] = "XRSTORS",
	[65] = "PCONFIG",
	[66] = "SPP_EVENT",
	[67] = "UMWAIT",
	[68] = "TPAUSE",
	[69] = "LOADIWKEY",
	[70] = "ENCLV",
	[72] = "ENQCMD_PASID_FAIL",
	[73] = "ENQCMDS_PASID_FAIL",
	[74] = "BUS_LOCK",
	[75] = "NOTIFY",
	[76] = "SEAMCALL",
	[77] = "TDCALL",
	[78] = "RDMSRLIST",
	[79] = "WRMSRLIST",
	[80] = "URDMSR",
	[81] = "UWRMSR",
	[84] = "MSR_READ_IMM",
	[85] = "MSR_WRITE_IMM",
};

const char *vma_vmx_exit_name(uint32_t reason)
{
	return lookup(vmx_exit, ARRAY_LEN(vmx_exit), reason);
}

/*
 * SVM exit codes 0x00-0xa6 (the dense part of the AMD APM's list).
 * 0x00-0x8c as xenalyze spells them (it calls exceptions 20-31
 * VMEXIT_EXCEPTION_20..31); later codes as Xen's vmcb.h and the APM name
 * them, in the same style.
 */
static const char *const svm_exit[] = {
	[0x00] = "VMEXIT_CR0_READ",
	[0x01] = "VMEXIT_CR1_READ",
	[0x02] = "VMEXIT_CR2_READ",
	[0x03] = "VMEXIT_CR3_READ",
	[0x04] = "VMEXIT_CR4_READ",
	[0x05] = "VMEXIT_CR5_READ",
	[0x06] = "VMEXIT_CR6_READ",
	[0x07] = "VMEXIT_CR7_READ",
	[0x08] = "VMEXIT_CR8_READ",
	[0x09] = "VMEXIT_CR9_READ",
	[0x0a] = "VMEXIT_CR10_READ",
	[0x0b] = "VMEXIT_CR11_READ",
	[0x0c] = "VMEXIT_CR12_READ",
	[0x0d] = "VMEXIT_CR13_READ",
	[0x0e] = "VMEXIT_CR14_READ",
	[0x0f] = "VMEXIT_CR15_READ",
	[0x10] = "VMEXIT_CR0_WRITE",
	[0x11] = "VMEXIT_CR1_WRITE",
	[0x12] = "VMEXIT_CR2_WRITE",
	[0x13] = "VMEXIT_CR3_WRITE",
	[0x14] = "VMEXIT_CR4_WRITE",
	[0x15] = "VMEXIT_CR5_WRITE",
	[0x16] = "VMEXIT_CR6_WRITE",
	[0x17] = "VMEXIT_CR7_WRITE",
	[0x18] = "VMEXIT_CR8_WRITE",
	[0x19] = "VMEXIT_CR9_WRITE",
	[0x1a] = "VMEXIT_CR10_WRITE",
	[0x1b] = "VMEXIT_CR11_WRITE",
	[0x1c] = "VMEXIT_CR12_WRITE",
	[0x1d] = "VMEXIT_CR13_WRITE",
	[0x1e] = "VMEXIT_CR14_WRITE",
	[0x1f] = "VMEXIT_CR15_WRITE",
	[0x20] = "VMEXIT_DR0_READ",
	[0x21] = "VMEXIT_DR1_READ",
	[0x22] = "VMEXIT_DR2_READ",
	[0x23] = "VMEXIT_DR3_READ",
	[0x24] = "VMEXIT_DR4_READ",
	[0x25] = "VMEXIT_DR5_READ",
	[0x26] = "VMEXIT_DR6_READ",
	[0x27] = "VMEXIT_DR7_READ",
	[0x28] = "VMEXIT_DR8_READ",
	[0x29] = "VMEXIT_DR9_READ",
	[0x2a] = "VMEXIT_DR10_READ",
	[0x2b] = "VMEXIT_DR11_READ",
	[0x2c] = "VMEXIT_DR12_READ",
	[0x2d] = "VMEXIT_DR13_READ",
	[0x2e] = "VMEXIT_DR14_READ",
	[0x2f] = "VMEXIT_DR15_READ",
	[0x30] = "VMEXIT_DR0_WRITE",
	[0x31] = "VMEXIT_DR1_WRITE",
	[0x32] = "VMEXIT_DR2_WRITE",
	[0x33] = "VMEXIT_DR3_WRITE",
	[0x34] = "VMEXIT_DR4_WRITE",
	[0x35] = "VMEXIT_DR5_WRITE",
	[0x36] = "VMEXIT_DR6_WRITE",
	[0x37] = "VMEXIT_DR7_WRITE",
	[0x38] = "VMEXIT_DR8_WRITE",
	[0x39] = "VMEXIT_DR9_WRITE",
	[0x3a] = "VMEXIT_DR10_WRITE",
	[0x3b] = "VMEXIT_DR11_WRITE",
	[0x3c] = "VMEXIT_DR12_WRITE",
	[0x3d] = "VMEXIT_DR13_WRITE",
	[0x3e] = "VMEXIT_DR14_WRITE",
	[0x3f] = "VMEXIT_DR15_WRITE",
	[0x40] = "VMEXIT_EXCEPTION_DE",
	[0x41] = "VMEXIT_EXCEPTION_DB",
	[0x42] = "VMEXIT_EXCEPTION_NMI",
	[0x43] = "VMEXIT_EXCEPTION_BP",
	[0x44] = "VMEXIT_EXCEPTION_OF",
	[0x45] = "VMEXIT_EXCEPTION_BR",
	[0x46] = "VMEXIT_EXCEPTION_UD",
	[0x47] = "VMEXIT_EXCEPTION_NM",
	[0x48] = "VMEXIT_EXCEPTION_DF",
	[0x49] = "VMEXIT_EXCEPTION_09",
	[0x4a] = "VMEXIT_EXCEPTION_TS",
	[0x4b] = "VMEXIT_EXCEPTION_NP",
	[0x4c] = "VMEXIT_EXCEPTION_SS",
	[0x4d] = "VMEXIT_EXCEPTION_GP",
	[0x4e] = "VMEXIT_EXCEPTION_PF",
	[0x4f] = "VMEXIT_EXCEPTION_15",
	[0x50] = "VMEXIT_EXCEPTION_MF",
	[0x51] = "VMEXIT_EXCEPTION_AC",
	[0x52] = "VMEXIT_EXCEPTION_MC",
	[0x53] = "VMEXIT_EXCEPTION_XF",
	[0x54] = "VMEXIT_EXCEPTION_20",
	[0x55] = "VMEXIT_EXCEPTION_21",
	[0x56] = "VMEXIT_EXCEPTION_22",
	[0x57] = "VMEXIT_EXCEPTION_23",
	[0x58] = "VMEXIT_EXCEPTION_24",
	[0x59] = "VMEXIT_EXCEPTION_25",
	[0x5a] = "VMEXIT_EXCEPTION_26",
	[0x5b] = "VMEXIT_EXCEPTION_27",
	[0x5c] = "VMEXIT_EXCEPTION_28",
	[0x5d] = "VMEXIT_EXCEPTION_29",
	[0x5e] = "VMEXIT_EXCEPTION_30",
	[0x5f] = "VMEXIT_EXCEPTION_31",
	[0x60] = "VMEXIT_INTR",
	[0x61] = "VMEXIT_NMI",
	[0x62] = "VMEXIT_SMI",
	[0x63] = "VMEXIT_INIT",
	[0x64] = "VMEXIT_VINTR",
	[0x65] = "VMEXIT_CR0_SEL_WRITE",
	[0x66] = "VMEXIT_IDTR_READ",
	[0x67] = "VMEXIT_GDTR_READ",
	[0x68] = "VMEXIT_LDTR_READ",
	[0x69] = "VMEXIT_TR_READ",
	[0x6a] = "VMEXIT_IDTR_WRITE",
	[0x6b] = "VMEXIT_GDTR_WRITE",
	[0x6c] = "VMEXIT_LDTR_WRITE",
	[0x6d] = "VMEXIT_TR_WRITE",
	[0x6e] = "VMEXIT_RDTSC",
	[0x6f] = "VMEXIT_RDPMC",
	[0x70] = "VMEXIT_PUSHF",
	[0x71] = "VMEXIT_POPF",
	[0x72] = "VMEXIT_CPUID",
	[0x73] = "VMEXIT_RSM",
	[0x74] = "VMEXIT_IRET",
	[0x75] = "VMEXIT_SWINT",
	[0x76] = "VMEXIT_INVD",
	[0x77] = "VMEXIT_PAUSE",
	[0x78] = "VMEXIT_HLT",
	[0x79] = "VMEXIT_INVLPG",
	[0x7a] = "VMEXIT_INVLPGA",
	[0x7b] = "VMEXIT_IOIO",
	[0x7c] = "VMEXIT_MSR",
	[0x7d] = "VMEXIT_TASK_SWITCH",
	[0x7e] = "VMEXIT_FERR_FREEZE",
	[0x7f] = "VMEXIT_SHUTDOWN",
	[0x80] = "VMEXIT_VMRUN",
	[0x81] = "VMEXIT_VMMCALL",
	[0x82] = "VMEXIT_VMLOAD",
	[0x83] = "VMEXIT_VMSAVE",
	[0x84] = "VMEXIT_STGI",
	[0x85] = "VMEXIT_CLGI",
	[0x86] = "VMEXIT_SKINIT",
	[0x87] = "VMEXIT_RDTSCP",
	[0x88] = "VMEXIT_ICEBP",
	[0x89] = "VMEXIT_WBINVD",
	[0x8a] = "VMEXIT_MONITOR",
	[0x8b] = "VMEXIT_MWAIT",
	[0x8c] = "VMEXIT_MWAIT_CONDITIONAL",
	[0x8d] = "VMEXIT_XSETBV",
	[0x8e] = "VMEXIT_RDPRU",
	[0x8f] = "VMEXIT_EFER_WRITE_TRAP",
	[0x90] = "VMEXIT_CR0_WRITE_TRAP",
	[0x91] = "VMEXIT_CR1_WRITE_TRAP",
	[0x92] = "VMEXIT_CR2_WRITE_TRAP",
	[0x93] = "VMEXIT_CR3_WRITE_TRAP",
	[0x94] = "VMEXIT_CR4_WRITE_TRAP",
	[0x95] = "VMEXIT_CR5_WRITE_TRAP",
	[0x96] = "VMEXIT_CR6_WRITE_TRAP",
	[0x97] = "VMEXIT_CR7_WRITE_TRAP",
	[0x98] = "VMEXIT_CR8_WRITE_TRAP",
	[0x99] = "VMEXIT_CR9_WRITE_TRAP",
	[0x9a] = "VMEXIT_CR10_WRITE_TRAP",
	[0x9b] = "VMEXIT_CR11_WRITE_TRAP",
	[0x9c] = "VMEXIT_CR12_WRITE_TRAP",
	[0x9d] = "VMEXIT_CR13_WRITE_TRAP",
	[0x9e] = "VMEXIT_CR14_WRITE_TRAP",
	[0x9f] = "VMEXIT_CR15_WRITE_TRAP",
	[0xa0] = "VMEXIT_INVLPGB",
	[0xa1] = "VMEXIT_INVLPGB_ILLEGAL",
	[0xa2] = "VMEXIT_INVPCID",
	[0xa3] = "VMEXIT_MCOMMIT",
	[0xa4] = "VMEXIT_TLBSYNC",
	[0xa5] = "VMEXIT_BUS_LOCK",
	[0xa6] = "VMEXIT_IDLE_HLT",
};

const char *vma_svm_exit_name(uint32_t code)
{
	switch (code) {
	case 0x400:
		return "VMEXIT_NPF";
	case 0x401:
		return "VMEXIT_AVIC_INCOMPLETE_IPI";
	case 0x402:
		return "VMEXIT_AVIC_UNACCELERATED_ACCESS";
	case 0x403:
		return "VMEXIT_VMGEXIT";
	case 0xffffffffu:
		return "VMEXIT_INVALID";
	default:
		return lookup(svm_exit, ARRAY_LEN(svm_exit), code);
	}
}

/*
 * Hypercalls (Xen's public xen.h numbers).  0-37 as xenalyze spells them;
 * 11 is unused.
 */
static const char *const hypercall[VMA_HYPERCALL_LIMIT] = {
	[0] = "set_trap_table",
	[1] = "mmu_update",
	[2] = "set_gdt",
	[3] = "stack_switch",
	[4] = "set_callbacks",
	[5] = "fpu_taskswitch",
	[6] = "sched_op(compat)",
	[7] = "platform_op",
	[8] = "set_debugreg",
	[9] = "get_debugreg",
	[10] = "update_descriptor",
	[12] = "memory_op",
	[13] = "multicall",
	[14] = "update_va_mapping",
	[15] = "set_timer_op",
	[16] = "evtchn_op(compat)",
	[17] = "xen_version",
	[18] = "console_io",
	[19] = "physdev_op(compat)",
	[20] = "grant_table_op",
	[21] = "vm_assist",
	[22] = "update_va_mapping_otherdomain",
	[23] = "iret",
	[24] = "vcpu_op",
	[25] = "set_segment_base",
	[26] = "mmuext_op",
	[27] = "acm_op",
	[28] = "nmi_op",
	[29] = "sched_op",
	[30] = "callback_op",
	[31] = "xenoprof_op",
	[32] = "evtchn_op",
	[33] = "physdev_op",
	[34] = "hvm_op",
	[35] = "sysctl",
	[36] = "domctl",
	[37] = "kexec_op",
	[38] = "tmem_op",
	[39] = "argo_op",
	[40] = "xenpmu_op",
	[41] = "dm_op",
	[42] = "hypfs_op",
	[48] = "mca",
	[49] = "paging_domctl_cont",
};

const char *vma_hypercall_name(uint32_t op)
{
	return lookup(hypercall, ARRAY_LEN(hypercall), op);
}

/* GNTTABOP_* (public grant_table.h). */
static const char *const grant_table_op[] = {
	"map_grant_ref", "unmap_grant_ref", "setup_table", "dump_table",
	"transfer", "copy", "query_size", "unmap_and_replace",
	"set_version", "get_status_frames", "get_version", "swap_grant_ref",
	"cache_flush",
};

const char *vma_grant_table_op_name(uint32_t cmd)
{
	return lookup(grant_table_op, ARRAY_LEN(grant_table_op), cmd);
}

/* VCPUOP_* (public vcpu.h). */
static const char *const vcpu_op[] = {
	"initialise", "up", "down", "is_up", "get_runstate_info",
	"register_runstate_memory_area", "set_periodic_timer",
	"stop_periodic_timer", "set_singleshot_timer", "stop_singleshot_timer",
	"register_vcpu_info", "send_nmi", "get_physid",
	"register_vcpu_time_memory_area", "register_runstate_phys_area",
	"register_vcpu_time_phys_area",
};

const char *vma_vcpu_op_name(uint32_t cmd)
{
	return lookup(vcpu_op, ARRAY_LEN(vcpu_op), cmd);
}

/* SCHEDOP_* (public sched.h). */
static const char *const sched_op[] = {
	"yield", "block", "shutdown", "poll", "remote_shutdown", "shutdown_code",
	"watchdog", "pin_override",
};

const char *vma_sched_op_name(uint32_t cmd)
{
	return lookup(sched_op, ARRAY_LEN(sched_op), cmd);
}

static const char *const trap[] = {
	[0] = "Divide",
	[1] = "RESERVED",
	[2] = "NMI",
	[3] = "Breakpoint",
	[4] = "Overflow",
	[5] = "BOUND",
	[6] = "Invalid Op",
	[7] = "Coprocessor not present",
	[8] = "Double Fault",
	[9] = "Coprocessor segment overrun",
	[10] = "TSS",
	[11] = "Segment not present",
	[12] = "Stack-segment fault",
	[13] = "GP",
	[14] = "Page fault",
	[15] = "RESERVED",
	[16] = "FPU",
	[17] = "Alignment check",
	[18] = "Machine check",
	[19] = "SIMD",
};

const char *vma_trap_name(uint32_t vector)
{
	return lookup(trap, ARRAY_LEN(trap), vector);
}

/* Xen's own vectors (xen/arch/x86/include/asm/mach-default/irq_vectors.h). */
static const char *const extint[256] = {
	[0xff] = "SPURIOS_APIC",
	[0xfe] = "ERROR_APIC",
	[0xfd] = "INVALIDATE_TLB",
	[0xfc] = "EVENT_CHECK",
	[0xfb] = "CALL_FUNCTION",
	[0xfa] = "THERMAL_APIC",
	[0xf9] = "LOCAL_TIMER",
};

const char *vma_extint_vector_name(uint32_t vector)
{
	return lookup(extint, ARRAY_LEN(extint), vector);
}

/* TRC_HVM_HANDLER minors; 0x1b-0x1f are unused. */
/* The name of HVM row @id, NULL when it has none (a switch the list expands). */
static const char *hvm_row_name(uint32_t id)
{
	switch (id) {
#define NAME_CASE(sym, id_, name, words, flags, state, describe) \
	case (id_):                                             \
		return name;
		VMA_XEN_HVM_EVENTS(NAME_CASE)
#undef NAME_CASE
	}
	return NULL;
}

/*
 * Handler names are the HVM event table's (xen-events.h); minor 0 is
 * xenalyze's label for an exit no handler record refined.  The XCR records
 * exist only in their 64-bit form.
 */
const char *vma_hvm_handler_name(uint32_t minor)
{
	const char *name;

	if (minor == 0)
		return "(no handler)";
	if (minor >= VMA_HVM_HANDLER_LIMIT)
		return NULL;
	name = hvm_row_name(TRC_HVM_HANDLER + minor);
	return name ? name : hvm_row_name(TRC_HVM_HANDLER + TRC_64_FLAG + minor);
}

/* The name of PV row @id, NULL when it has none. */
static const char *pv_row_name(uint32_t id)
{
	switch (id) {
#define NAME_CASE(sym, id_, name, words, flags, state, describe) \
	case (id_):                                             \
		return name;
		VMA_XEN_PV_EVENTS(NAME_CASE)
#undef NAME_CASE
	}
	return NULL;
}

/* PV event names are the rows' (minor 14 is the multicall sub-call's). */
const char *vma_pv_event_name(uint32_t minor)
{
	const char *name;

	if (minor > 0xffu)
		return NULL;
	name = pv_row_name(TRC_PV_ENTRY + minor);
	return name ? name : pv_row_name(TRC_PV_SUBCALL + minor);
}

const char *vma_mem_event_name(uint32_t minor)
{
	enum vma_xe_index i = minor <= 0xfffu ? vma_xen_event_index(TRC_MEM + minor) : VMA_XE_NONE;

	return i == VMA_XE_NONE ? NULL : vma_xen_events[i].name;
}

const char *vma_shadow_fault_name(uint32_t minor)
{
	enum vma_xe_index i;

	/* The fault classes are the first rows; the later minors are events of a fault. */
	if (minor < 1 || minor > TRC_SHADOW_EMULATE_UNSHADOW_UNHANDLED - TRC_SHADOW)
		return NULL;
	i = vma_xen_event_index(TRC_SHADOW + minor);
	return i == VMA_XE_NONE ? NULL : vma_xen_events[i].name;
}
