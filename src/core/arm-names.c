/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arm64 exit names: exception classes of ESR_ELx (the Arm architecture
 * reference manual's EC field, with Linux's short names) and KVM's
 * exception types for exits that are not traps.
 */
#include <stddef.h>

#include "vmalyze/arm-names.h"

static const char *const classes[0x40] = {
	[0x00] = "UNKNOWN",     [0x01] = "WFx",         [0x03] = "CP15_32",
	[0x04] = "CP15_64",     [0x05] = "CP14_MR",     [0x06] = "CP14_LS",
	[0x07] = "FP_ASIMD",    [0x08] = "CP10_ID",     [0x09] = "PAC",
	[0x0c] = "CP14_64",     [0x0d] = "BTI",         [0x0e] = "ILL",
	[0x11] = "SVC32",       [0x12] = "HVC32",       [0x13] = "SMC32",
	[0x15] = "SVC64",       [0x16] = "HVC64",       [0x17] = "SMC64",
	[0x18] = "SYS64",       [0x19] = "SVE",         [0x1a] = "ERET",
	[0x1c] = "FPAC",        [0x1d] = "SME",         [0x1f] = "IMP_DEF",
	[0x20] = "IABT_LOW",    [0x21] = "IABT_CUR",    [0x22] = "PC_ALIGN",
	[0x24] = "DABT_LOW",    [0x25] = "DABT_CUR",    [0x26] = "SP_ALIGN",
	[0x27] = "MOPS",        [0x28] = "FP_EXC32",    [0x2c] = "FP_EXC64",
	[0x2f] = "SERROR",      [0x30] = "BREAKPT_LOW", [0x31] = "BREAKPT_CUR",
	[0x32] = "SOFTSTP_LOW", [0x33] = "SOFTSTP_CUR", [0x34] = "WATCHPT_LOW",
	[0x35] = "WATCHPT_CUR", [0x38] = "BKPT32",      [0x3a] = "VECTOR32",
	[0x3c] = "BRK64",
};

/* KVM's ARM_EXCEPTION_* codes (arch/arm64/include/asm/kvm_asm.h). */
static const char *const types[] = { "IRQ", "EL1_SERROR", "TRAP", "IL" };

const char *vma_arm_exit_name(uint32_t reason)
{
	if (reason < 0x40)
		return classes[reason];
	if (reason >= VMA_ARM_REASON_EXCEPTION &&
	    reason - VMA_ARM_REASON_EXCEPTION < sizeof(types) / sizeof(types[0]))
		return types[reason - VMA_ARM_REASON_EXCEPTION];
	return NULL;
}
