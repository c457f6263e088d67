/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Libraries loaded on first use (vmalyze/dlib.h): a table set once, the
 * same answer to every later call, a failure that says why, a library's
 * symbols the caller's alone or (global) everyone's after it; and the
 * program itself links none of the libraries it loads this way (that is
 * the point of loading them).
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "vmalyze/dlib.h"

struct libm_table {
	double (*cos)(double);
};

static const struct vma_dlib_sym cos_sym[] = { { "cos", offsetof(struct libm_table, cos) } };
static const struct vma_dlib_sym missing_sym[] = {
	{ "cos", offsetof(struct libm_table, cos) },
	{ "vma_no_such_function", offsetof(struct libm_table, cos) },
};

Test(dlib, loads_once_and_gives_the_same_table)
{
	static struct libm_table t;
	static struct vma_dlib_lazy lib = VMA_DLIB_LAZY("libm.so.6", cos_sym, &t);
	const char *why = NULL;
	const struct libm_table *got = vma_dlib_get(&lib, &why);

	cr_assert_eq(got, &t, "libm.so.6 did not load: %s", why ? why : "");
	cr_expect_str_empty(why);
	cr_expect(got->cos(0.0) == 1.0);
	cr_expect_eq(vma_dlib_get(&lib, &why), &t);
}

Test(dlib, a_missing_library_says_so_every_time)
{
	static struct libm_table t;
	static struct vma_dlib_lazy lib = VMA_DLIB_LAZY("libvma-no-such-library.so.7", cos_sym, &t);
	const char *why = NULL, *again = NULL;

	cr_assert_null(vma_dlib_get(&lib, &why));
	cr_assert_not_null(why);
	cr_expect(strstr(why, "libvma-no-such-library.so.7") != NULL, "why: %s", why);
	cr_expect_null(vma_dlib_get(&lib, &again));
	cr_expect_str_eq(again, why);
}

Test(dlib, a_missing_function_fails_the_library)
{
	static struct libm_table t;
	static struct vma_dlib_lazy lib = VMA_DLIB_LAZY("libm.so.6", missing_sym, &t);
	const char *why = NULL;

	cr_assert_null(vma_dlib_get(&lib, &why));
	cr_expect(strstr(why, "vma_no_such_function") != NULL, "why: %s", why);
}

/* libzstd, which this test does not link: its version function. */
struct zstd_table {
	unsigned (*ZSTD_versionNumber)(void);
};

static const struct vma_dlib_sym zstd_sym[] = {
	{ "ZSTD_versionNumber", offsetof(struct zstd_table, ZSTD_versionNumber) },
};

/* Loads @lib, libzstd, into @t: not in the process before. */
static void load_zstd(struct vma_dlib_lazy *lib, struct zstd_table *t)
{
	const char *why = NULL;

	cr_assert_null(dlsym(RTLD_DEFAULT, "ZSTD_versionNumber"), "libzstd is linked here");
	cr_assert_eq(vma_dlib_get(lib, &why), t, "%s did not load: %s", VMA_ZSTD_SONAME, why);
	cr_expect_gt(t->ZSTD_versionNumber(), 0u);
}

/* Loaded RTLD_LOCAL: the table has the function, the process's namespace not. */
Test(dlib, a_library_is_the_callers_alone)
{
	static struct zstd_table t;
	static struct vma_dlib_lazy lib = VMA_DLIB_LAZY(VMA_ZSTD_SONAME, zstd_sym, &t);

	load_zstd(&lib, &t);
	cr_expect_null(dlsym(RTLD_DEFAULT, "ZSTD_versionNumber"));
}

/* Loaded RTLD_GLOBAL (libtraceevent, for its plugins): later libraries find it by name. */
Test(dlib, a_global_library_serves_the_libraries_after_it)
{
	static struct zstd_table t;
	static struct vma_dlib_lazy lib = VMA_DLIB_LAZY_GLOBAL(VMA_ZSTD_SONAME, zstd_sym, &t);

	load_zstd(&lib, &t);
	cr_expect_not_null(dlsym(RTLD_DEFAULT, "ZSTD_versionNumber"));
}

/* Loaded, not linked: the analysis's start-up does not pay for them. */
Test(dlib, the_program_links_none_of_them)
{
	static const char *const loaded[] = {
		"libxenctrl", "libxenforeignmemory", "libxenevtchn", "libarchive", "libzstd",
		"libdeflate", "libtraceevent",
	};
	const char *vmalyze = getenv("VMALYZE"); /* set by make check (tests.am) */
	char cmd[4200], line[512];
	int lines = 0;
	size_t i;
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
		for (i = 0; i < sizeof(loaded) / sizeof(loaded[0]); i++)
			cr_expect_null(strstr(line, loaded[i]), "%s links %s", vmalyze, loaded[i]);
	}
	pclose(p);
	cr_assert_gt(lines, 0, "objdump -p listed no NEEDED libraries of %s", vmalyze);
}
