/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names of arm64 KVM exits.  The state stage gives an arm64 exit the
 * exception class (ESR_ELx.EC) when it is a trap, else
 * VMA_ARM_REASON_EXCEPTION plus the exception type (IRQ, SError, ...).
 */
#ifndef VMALYZE_ARM_NAMES_H
#define VMALYZE_ARM_NAMES_H

#include <stdint.h>

/* arm64 exits that are not traps get reason VMA_ARM_REASON_EXCEPTION + type. */
#define VMA_ARM_REASON_EXCEPTION 0x1000u

/* Name of an arm64 exit reason as above; NULL for an unnamed one. */
const char *vma_arm_exit_name(uint32_t reason);

#endif /* VMALYZE_ARM_NAMES_H */
