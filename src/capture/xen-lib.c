/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loads the Xen control libraries by their sonames on first use; see
 * xen-lib.h for why they are not linked.  The table of their functions is
 * the one mutable static of the capture stage: dlopen() is process-wide,
 * so its result is too, filled once under pthread_once() and read-only
 * after.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "capture/xen-lib.h"

static struct vma_xenlib loaded;
static bool usable;
static char failure[256];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* dlopen() of @soname; NULL with failure[] set when it cannot be loaded. */
static void *open_lib(const char *soname)
{
	void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!lib)
		snprintf(failure, sizeof(failure), "%s", dlerror());
	return lib;
}

/*
 * Resolve one function into loaded (memcpy: ISO C has no conversion from
 * dlsym()'s void * to a function pointer).  On failure the libraries stay
 * loaded: the process cannot use them, and asks once.
 */
#define VMA_XENLIB_RESOLVE(name)                                                            \
	fn = dlsym(lib, #name);                                                             \
	if (!fn) {                                                                          \
		snprintf(failure, sizeof(failure), "%s has no %s", soname, #name);          \
		return;                                                                     \
	}                                                                                   \
	memcpy(&loaded.name, &fn, sizeof(fn));

static void load(void)
{
	const char *soname;
	void *lib, *fn;

	soname = VMA_XENCTRL_SONAME;
	lib = open_lib(soname);
	if (!lib)
		return;
	VMA_XENCTRL_FUNCTIONS(VMA_XENLIB_RESOLVE)
	soname = VMA_XENFOREIGNMEMORY_SONAME;
	lib = open_lib(soname);
	if (!lib)
		return;
	VMA_XENFOREIGNMEMORY_FUNCTIONS(VMA_XENLIB_RESOLVE)
	soname = VMA_XENEVTCHN_SONAME;
	lib = open_lib(soname);
	if (!lib)
		return;
	VMA_XENEVTCHN_FUNCTIONS(VMA_XENLIB_RESOLVE)
	usable = true;
}

#undef VMA_XENLIB_RESOLVE

const struct vma_xenlib *vma_xenlib_get(const char **why)
{
	pthread_once(&load_once, load);
	*why = failure;
	return usable ? &loaded : NULL;
}
