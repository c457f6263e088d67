/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loads libarchive by its soname (found by configure) on first use; see
 * archive-lib.h for why it is not linked.  The table of its functions is
 * the one mutable static of the input stage: dlopen() is process-wide, so
 * its result is too, filled once under pthread_once() and read-only after.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "input/archive-lib.h"

static struct vma_libarchive loaded;
static bool usable;
static char failure[256];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *lib = dlopen(VMA_LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
	void *fn;

	if (!lib) {
		snprintf(failure, sizeof(failure), "%s", dlerror());
		return;
	}
	/* memcpy: ISO C has no conversion from dlsym()'s void * to a function pointer */
#define VMA_LIBARCHIVE_RESOLVE(name) \
	fn = dlsym(lib, #name); \
	if (!fn) { \
		snprintf(failure, sizeof(failure), "%s has no %s", VMA_LIBARCHIVE_SONAME, #name); \
		dlclose(lib); \
		return; \
	} \
	memcpy(&loaded.name, &fn, sizeof(fn));
	VMA_LIBARCHIVE_FUNCTIONS(VMA_LIBARCHIVE_RESOLVE)
#undef VMA_LIBARCHIVE_RESOLVE
	usable = true;
}

const struct vma_libarchive *vma_libarchive_get(const char **why)
{
	pthread_once(&load_once, load);
	*why = failure;
	return usable ? &loaded : NULL;
}
