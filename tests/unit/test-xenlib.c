/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Xen control libraries the capture stage loads (xen-lib.h): every
 * function it lists resolves, by the sonames configure found, and the
 * program itself does not link them (that is the point of loading them).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Loaded, not linked: the analysis's start-up does not pay for them. */
Test(xenlib, the_program_does_not_link_them)
{
	const char *vmalyze = getenv("VMALYZE"); /* set by make check (tests.am) */
	char cmd[4200], line[512];
	int linked = 0, lines = 0;
	FILE *p;

	if (!vmalyze || strlen(vmalyze) > 4000 || strchr(vmalyze, '\''))
		cr_skip_test("VMALYZE does not name the program (run by make check)");
	snprintf(cmd, sizeof(cmd), "objdump -p '%s' 2>/dev/null", vmalyze);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (!strstr(line, "NEEDED"))
			continue;
		lines++;
		if (strstr(line, "libxenctrl") || strstr(line, "libxenforeignmemory") ||
		    strstr(line, "libxenevtchn"))
			linked++;
	}
	pclose(p);
	cr_assert_gt(lines, 0, "objdump -p listed no NEEDED libraries of %s", vmalyze);
	cr_expect_eq(linked, 0, "%s links a Xen control library", vmalyze);
}
