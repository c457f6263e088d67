/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arm64 exit names: exception classes for traps, exception types otherwise. */
#include <criterion/criterion.h>
#include <string.h>

#include "vmalyze/arm-names.h"
#include "vmalyze/state.h"

Test(arm_names, exception_classes)
{
	cr_assert_str_eq(vma_arm_exit_name(0x01), "WFx");
	cr_assert_str_eq(vma_arm_exit_name(0x16), "HVC64");
	cr_assert_str_eq(vma_arm_exit_name(0x18), "SYS64");
	cr_assert_str_eq(vma_arm_exit_name(0x20), "IABT_LOW");
	cr_assert_str_eq(vma_arm_exit_name(0x24), "DABT_LOW");
	cr_assert_str_eq(vma_arm_exit_name(0x3c), "BRK64");
	cr_assert_null(vma_arm_exit_name(0x02), "unallocated class");
	cr_assert_null(vma_arm_exit_name(0x3f));
}

Test(arm_names, exception_types_and_out_of_range)
{
	cr_assert_str_eq(vma_arm_exit_name(VMA_ARM_REASON_EXCEPTION + 0), "IRQ");
	cr_assert_str_eq(vma_arm_exit_name(VMA_ARM_REASON_EXCEPTION + 1), "EL1_SERROR");
	cr_assert_str_eq(vma_arm_exit_name(VMA_ARM_REASON_EXCEPTION + 3), "IL");
	cr_assert_null(vma_arm_exit_name(VMA_ARM_REASON_EXCEPTION + 4));
	cr_assert_null(vma_arm_exit_name(0x40));
	cr_assert_null(vma_arm_exit_name(UINT32_MAX));
}
