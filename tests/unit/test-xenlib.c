/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Xen control libraries the capture stage loads (xen-lib.h): every
 * function it lists resolves, by the sonames configure found.  That the
 * program does not link them is test-dlib's.
 */
#include <criterion/criterion.h>

#include "capture/xen-lib.h"

Test(xenlib, every_function_resolves)
{
	const char *why = "";
	const struct vma_xenlib *x = vma_xenlib_get(&why);

	cr_assert_not_null(x, "the Xen libraries did not load: %s", why);
#define EXPECT_RESOLVED(name) cr_expect_not_null((void *)x->name, "%s", #name);
	VMA_XENCTRL_FUNCTIONS(EXPECT_RESOLVED)
	VMA_XENFOREIGNMEMORY_FUNCTIONS(EXPECT_RESOLVED)
	VMA_XENEVTCHN_FUNCTIONS(EXPECT_RESOLVED)
#undef EXPECT_RESOLVED
	/* A second call gives the same table. */
	cr_expect_eq(vma_xenlib_get(&why), x);
}
