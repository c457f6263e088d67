/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for the Xen name tables: every code the vendors name resolves to
 * its expected spelling (xenalyze's where it has one), codes nobody names
 * give NULL, and the other tables answer at their edges.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "vmalyze/xen-names.h"

struct code_name {
	uint32_t code;
	const char *name;
};

/* Every named VMX basic exit reason. */
static const struct code_name vmx_named[] = {
	{ 0, "EXCEPTION_NMI" }, { 1, "EXTERNAL_INTERRUPT" }, { 2, "TRIPLE_FAULT" },
	{ 3, "INIT" }, { 4, "SIPI" }, { 5, "IO_SMI" }, { 6, "OTHER_SMI" },
	{ 7, "PENDING_VIRT_INTR" }, { 8, "PENDING_VIRT_NMI" }, { 9, "TASK_SWITCH" },
	{ 10, "CPUID" }, { 11, "GETSEC" }, { 12, "HLT" }, { 13, "INVD" }, { 14, "INVLPG" },
	{ 15, "RDPMC" }, { 16, "RDTSC" }, { 17, "RSM" }, { 18, "VMCALL" }, { 19, "VMCLEAR" },
	{ 20, "VMLAUNCH" }, { 21, "VMPTRLD" }, { 22, "VMPTRST" }, { 23, "VMREAD" },
	{ 24, "VMRESUME" }, { 25, "VMWRITE" }, { 26, "VMXOFF" }, { 27, "VMXON" },
	{ 28, "CR_ACCESS" }, { 29, "DR_ACCESS" }, { 30, "IO_INSTRUCTION" }, { 31, "MSR_READ" },
	{ 32, "MSR_WRITE" }, { 33, "INVALID_GUEST_STATE" }, { 34, "MSR_LOADING" },
	{ 36, "MWAIT_INSTRUCTION" }, { 37, "MONITOR_TRAP_FLAG" }, { 39, "MONITOR_INSTRUCTION" },
	{ 40, "PAUSE_INSTRUCTION" }, { 41, "MCE_DURING_VMENTRY" }, { 43, "TPR_BELOW_THRESHOLD" },
	{ 44, "APIC_ACCESS" }, { 45, "EOI_INDUCED" }, { 46, "ACCESS_GDTR_OR_IDTR" },
	{ 47, "ACCESS_LDTR_OR_TR" }, { 48, "EPT_VIOLATION" }, { 49, "EPT_MISCONFIG" },
	{ 50, "INVEPT" }, { 51, "RDTSCP" }, { 52, "VMX_PREEMPTION_TIMER_EXPIRED" },
	{ 53, "INVVPID" }, { 54, "WBINVD" }, { 55, "XSETBV" }, { 56, "APIC_WRITE" },
	{ 57, "RDRAND" }, { 58, "INVPCID" }, { 59, "VMFUNC" }, { 60, "ENCLS" }, { 61, "RDSEED" },
	{ 62, "PML_FULL" }, { 63, "XSAVES" }, { 64, "XRSTORS" }, { 65, "PCONFIG" },
	{ 66, "SPP_EVENT" }, { 67, "UMWAIT" }, { 68, "TPAUSE" }, { 69, "LOADIWKEY" },
	{ 70, "ENCLV" }, { 72, "ENQCMD_PASID_FAIL" }, { 73, "ENQCMDS_PASID_FAIL" },
	{ 74, "BUS_LOCK" }, { 75, "NOTIFY" }, { 76, "SEAMCALL" }, { 77, "TDCALL" },
	{ 78, "RDMSRLIST" }, { 79, "WRMSRLIST" }, { 80, "URDMSR" }, { 81, "UWRMSR" },
	{ 84, "MSR_READ_IMM" }, { 85, "MSR_WRITE_IMM" },
};

/* SVM exit codes outside the CR/DR/exception ranges, which are checked by pattern. */
static const struct code_name svm_named[] = {
	{ 0x60, "VMEXIT_INTR" }, { 0x61, "VMEXIT_NMI" }, { 0x62, "VMEXIT_SMI" },
	{ 0x63, "VMEXIT_INIT" }, { 0x64, "VMEXIT_VINTR" }, { 0x65, "VMEXIT_CR0_SEL_WRITE" },
	{ 0x66, "VMEXIT_IDTR_READ" }, { 0x67, "VMEXIT_GDTR_READ" }, { 0x68, "VMEXIT_LDTR_READ" },
	{ 0x69, "VMEXIT_TR_READ" }, { 0x6a, "VMEXIT_IDTR_WRITE" }, { 0x6b, "VMEXIT_GDTR_WRITE" },
	{ 0x6c, "VMEXIT_LDTR_WRITE" }, { 0x6d, "VMEXIT_TR_WRITE" }, { 0x6e, "VMEXIT_RDTSC" },
	{ 0x6f, "VMEXIT_RDPMC" }, { 0x70, "VMEXIT_PUSHF" }, { 0x71, "VMEXIT_POPF" },
	{ 0x72, "VMEXIT_CPUID" }, { 0x73, "VMEXIT_RSM" }, { 0x74, "VMEXIT_IRET" },
	{ 0x75, "VMEXIT_SWINT" }, { 0x76, "VMEXIT_INVD" }, { 0x77, "VMEXIT_PAUSE" },
	{ 0x78, "VMEXIT_HLT" }, { 0x79, "VMEXIT_INVLPG" }, { 0x7a, "VMEXIT_INVLPGA" },
	{ 0x7b, "VMEXIT_IOIO" }, { 0x7c, "VMEXIT_MSR" }, { 0x7d, "VMEXIT_TASK_SWITCH" },
	{ 0x7e, "VMEXIT_FERR_FREEZE" }, { 0x7f, "VMEXIT_SHUTDOWN" }, { 0x80, "VMEXIT_VMRUN" },
	{ 0x81, "VMEXIT_VMMCALL" }, { 0x82, "VMEXIT_VMLOAD" }, { 0x83, "VMEXIT_VMSAVE" },
	{ 0x84, "VMEXIT_STGI" }, { 0x85, "VMEXIT_CLGI" }, { 0x86, "VMEXIT_SKINIT" },
	{ 0x87, "VMEXIT_RDTSCP" }, { 0x88, "VMEXIT_ICEBP" }, { 0x89, "VMEXIT_WBINVD" },
	{ 0x8a, "VMEXIT_MONITOR" }, { 0x8b, "VMEXIT_MWAIT" }, { 0x8c, "VMEXIT_MWAIT_CONDITIONAL" },
	{ 0x8d, "VMEXIT_XSETBV" }, { 0x8e, "VMEXIT_RDPRU" }, { 0x8f, "VMEXIT_EFER_WRITE_TRAP" },
	{ 0x90, "VMEXIT_CR0_WRITE_TRAP" }, { 0x9f, "VMEXIT_CR15_WRITE_TRAP" },
	{ 0xa0, "VMEXIT_INVLPGB" }, { 0xa1, "VMEXIT_INVLPGB_ILLEGAL" }, { 0xa2, "VMEXIT_INVPCID" },
	{ 0xa3, "VMEXIT_MCOMMIT" }, { 0xa4, "VMEXIT_TLBSYNC" }, { 0xa5, "VMEXIT_BUS_LOCK" },
	{ 0xa6, "VMEXIT_IDLE_HLT" }, { 0x400, "VMEXIT_NPF" },
	{ 0x401, "VMEXIT_AVIC_INCOMPLETE_IPI" }, { 0x402, "VMEXIT_AVIC_UNACCELERATED_ACCESS" },
	{ 0x403, "VMEXIT_VMGEXIT" }, { 0xffffffffu, "VMEXIT_INVALID" },
	/* exceptions, as xenalyze spells them */
	{ 0x40, "VMEXIT_EXCEPTION_DE" }, { 0x49, "VMEXIT_EXCEPTION_09" },
	{ 0x4e, "VMEXIT_EXCEPTION_PF" }, { 0x53, "VMEXIT_EXCEPTION_XF" },
	{ 0x54, "VMEXIT_EXCEPTION_20" }, { 0x5f, "VMEXIT_EXCEPTION_31" },
};

static bool in_list(const struct code_name *list, size_t n, uint32_t code)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (list[i].code == code)
			return true;
	}
	return false;
}

Test(xen_names, every_named_vmx_reason_resolves)
{
	size_t i;

	for (i = 0; i < sizeof(vmx_named) / sizeof(vmx_named[0]); i++) {
		const char *name = vma_vmx_exit_name(vmx_named[i].code);

		cr_assert_not_null(name, "VMX reason %u has no name", vmx_named[i].code);
		cr_expect_str_eq(name, vmx_named[i].name, "VMX reason %u", vmx_named[i].code);
		cr_expect_lt(vmx_named[i].code, VMA_VMX_EXIT_LIMIT);
	}
}

Test(xen_names, unnamed_vmx_reasons_are_null)
{
	static const uint32_t reserved[] = { 35, 38, 42, 71, 82, 83 };
	uint32_t code;
	size_t i;

	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		cr_expect_null(vma_vmx_exit_name(reserved[i]), "VMX reason %u", reserved[i]);
	/* Nothing but the list is named, below the limit and beyond it. */
	for (code = 0; code < 0x1000; code++) {
		if (!in_list(vmx_named, sizeof(vmx_named) / sizeof(vmx_named[0]), code))
			cr_expect_null(vma_vmx_exit_name(code), "VMX reason %u", code);
	}
	cr_expect_null(vma_vmx_exit_name(VMA_VMX_EXIT_LIMIT));
	cr_expect_null(vma_vmx_exit_name(UINT32_MAX));
	/* The VM-entry-failure bit is not part of a basic reason. */
	cr_expect_null(vma_vmx_exit_name(0x80000021u));
}

Test(xen_names, every_named_svm_code_resolves)
{
	size_t i;

	for (i = 0; i < sizeof(svm_named) / sizeof(svm_named[0]); i++) {
		const char *name = vma_svm_exit_name(svm_named[i].code);

		cr_assert_not_null(name, "SVM code %#x has no name", svm_named[i].code);
		cr_expect_str_eq(name, svm_named[i].name, "SVM code %#x", svm_named[i].code);
	}
}

Test(xen_names, svm_register_ranges_follow_the_pattern)
{
	char want[32];
	uint32_t i;

	for (i = 0; i < 16; i++) {
		snprintf(want, sizeof(want), "VMEXIT_CR%u_READ", i);
		cr_expect_str_eq(vma_svm_exit_name(0x00 + i), want);
		snprintf(want, sizeof(want), "VMEXIT_CR%u_WRITE", i);
		cr_expect_str_eq(vma_svm_exit_name(0x10 + i), want);
		snprintf(want, sizeof(want), "VMEXIT_DR%u_READ", i);
		cr_expect_str_eq(vma_svm_exit_name(0x20 + i), want);
		snprintf(want, sizeof(want), "VMEXIT_DR%u_WRITE", i);
		cr_expect_str_eq(vma_svm_exit_name(0x30 + i), want);
		snprintf(want, sizeof(want), "VMEXIT_CR%u_WRITE_TRAP", i);
		cr_expect_str_eq(vma_svm_exit_name(0x90 + i), want);
	}
}

Test(xen_names, svm_names_are_dense_below_the_gap_and_unique)
{
	uint32_t a, b;

	/* 0x00-0xa6 are all named; 0xa7-0x3ff and 0x404 on are not. */
	for (a = 0; a <= 0xa6; a++)
		cr_expect_not_null(vma_svm_exit_name(a), "SVM code %#x", a);
	for (a = 0xa7; a < 0x400; a++)
		cr_expect_null(vma_svm_exit_name(a), "SVM code %#x", a);
	for (a = 0x404; a < 0x2000; a++)
		cr_expect_null(vma_svm_exit_name(a), "SVM code %#x", a);
	cr_expect_null(vma_svm_exit_name(0xfffffffeu));
	for (a = 0; a < VMA_SVM_EXIT_LIMIT; a++) {
		const char *na = vma_svm_exit_name(a);

		if (!na)
			continue;
		cr_expect_eq(strncmp(na, "VMEXIT_", 7), 0, "%s", na);
		for (b = a + 1; b < VMA_SVM_EXIT_LIMIT; b++) {
			const char *nb = vma_svm_exit_name(b);

			cr_expect(!nb || strcmp(na, nb) != 0, "%#x and %#x both %s", a, b, na);
		}
	}
}

Test(xen_names, vendor_selector)
{
	cr_expect_str_eq(vma_hvm_exit_name(false, 48), "EPT_VIOLATION");
	cr_expect_str_eq(vma_hvm_exit_name(true, 48), "VMEXIT_DR0_WRITE");
	cr_expect_str_eq(vma_hvm_exit_name(true, 0x400), "VMEXIT_NPF");
	cr_expect_null(vma_hvm_exit_name(false, 0x400));
}

Test(xen_names, hypercalls)
{
	cr_expect_str_eq(vma_hypercall_name(0), "set_trap_table");
	cr_expect_str_eq(vma_hypercall_name(6), "sched_op(compat)");
	cr_expect_null(vma_hypercall_name(11));
	cr_expect_str_eq(vma_hypercall_name(16), "evtchn_op(compat)");
	cr_expect_str_eq(vma_hypercall_name(24), "vcpu_op");
	cr_expect_str_eq(vma_hypercall_name(27), "acm_op");
	cr_expect_str_eq(vma_hypercall_name(32), "evtchn_op");
	cr_expect_str_eq(vma_hypercall_name(37), "kexec_op");
	cr_expect_str_eq(vma_hypercall_name(41), "dm_op");
	cr_expect_str_eq(vma_hypercall_name(42), "hypfs_op");
	cr_expect_null(vma_hypercall_name(43));
	cr_expect_str_eq(vma_hypercall_name(48), "mca");
	cr_expect_str_eq(vma_hypercall_name(49), "paging_domctl_cont");
	cr_expect_null(vma_hypercall_name(50));
	cr_expect_null(vma_hypercall_name(VMA_HYPERCALL_LIMIT));
	cr_expect_null(vma_hypercall_name(UINT32_MAX));

	cr_expect_str_eq(vma_grant_table_op_name(5), "copy");
	cr_expect_str_eq(vma_grant_table_op_name(11), "swap_grant_ref");
	cr_expect_null(vma_grant_table_op_name(99));
	cr_expect_str_eq(vma_vcpu_op_name(15), "register_vcpu_time_phys_area");
	cr_expect_null(vma_vcpu_op_name(16));
	cr_expect_str_eq(vma_sched_op_name(1), "block");
	cr_expect_str_eq(vma_sched_op_name(6), "watchdog");
	cr_expect_null(vma_sched_op_name(100));
}

Test(xen_names, traps_vectors_handlers_runstates)
{
	cr_expect_str_eq(vma_trap_name(0), "Divide");
	cr_expect_str_eq(vma_trap_name(13), "GP");
	cr_expect_str_eq(vma_trap_name(14), "Page fault");
	cr_expect_str_eq(vma_trap_name(19), "SIMD");
	cr_expect_null(vma_trap_name(20));

	cr_expect_str_eq(vma_extint_vector_name(0xf9), "LOCAL_TIMER");
	cr_expect_str_eq(vma_extint_vector_name(0xfa), "THERMAL_APIC");
	cr_expect_str_eq(vma_extint_vector_name(0xff), "SPURIOS_APIC");
	cr_expect_null(vma_extint_vector_name(0xf3));
	cr_expect_null(vma_extint_vector_name(0x100));

	cr_expect_str_eq(vma_hvm_handler_name(0), "(no handler)");
	cr_expect_str_eq(vma_hvm_handler_name(0x0e), "cpuid");
	cr_expect_str_eq(vma_hvm_handler_name(0x16), "io_assist");
	cr_expect_str_eq(vma_hvm_handler_name(0x1a), "rdtsc");
	cr_expect_null(vma_hvm_handler_name(0x1b));
	cr_expect_null(vma_hvm_handler_name(0x1f));
	cr_expect_str_eq(vma_hvm_handler_name(0x20), "intr_window");
	cr_expect_str_eq(vma_hvm_handler_name(0x25), "vlapic");
	cr_expect_str_eq(vma_hvm_handler_name(0x26), "xcr_read");
	cr_expect_str_eq(vma_hvm_handler_name(0x27), "xcr_write");
	cr_expect_null(vma_hvm_handler_name(VMA_HVM_HANDLER_LIMIT));

	cr_expect_str_eq(vma_pv_event_name(4), "page_fault");
	cr_expect_str_eq(vma_pv_event_name(14), "hypercall (subcall)");
	cr_expect_null(vma_pv_event_name(2));
	cr_expect_str_eq(vma_mem_event_name(1), "grant-map");
	cr_expect_str_eq(vma_mem_event_name(18), "pod-superpage-splinter");
	cr_expect_null(vma_mem_event_name(6));
	cr_expect_str_eq(vma_shadow_fault_name(1), "propagate");
	cr_expect_str_eq(vma_shadow_fault_name(11), "unshadow:unhandled instr");
	cr_expect_null(vma_shadow_fault_name(12));
}
