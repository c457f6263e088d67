/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A preload for tests/cli/bad-input.sh: dlopen() of libarchive fails, as
 * on a machine without it, with a reason dlerror() gives; every other
 * dlopen() is the real one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

static bool refused;

void *dlopen(const char *file, int mode)
{
	void *(*real)(const char *, int);
	void *sym = dlsym(RTLD_NEXT, "dlopen");

	if (file && strstr(file, "libarchive")) {
		refused = true;
		return NULL;
	}
	refused = false;
	memcpy(&real, &sym, sizeof(sym));
	return real(file, mode);
}

char *dlerror(void)
{
	char *(*real)(void);
	void *sym = dlsym(RTLD_NEXT, "dlerror");

	if (refused) {
		refused = false;
		return (char *)"libarchive refused by the no-libarchive test preload";
	}
	memcpy(&real, &sym, sizeof(sym));
	return real();
}
