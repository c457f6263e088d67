/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loads the Xen control libraries by their sonames on first use; see
 * xen-lib.h for why they are not linked.  The table of their functions is
 * the one mutable static of the capture stage: dlopen() is process-wide,
 * so its result is too, filled once under pthread_once() and read-only
 * after.
 */
#include <pthread.h>
#include <stdbool.h>

#include "config.h"
#include "capture/xen-lib.h"
#include "vmalyze/dlib.h"

static struct vma_xenlib loaded;
static bool usable;
static char failure[256];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

#define VMA_XENLIB_SYM(name) VMA_DLIB_SYM(struct vma_xenlib, name)
static const struct vma_dlib_sym xenctrl[] = { VMA_XENCTRL_FUNCTIONS(VMA_XENLIB_SYM) };
static const struct vma_dlib_sym xenforeignmemory[] = {
	VMA_XENFOREIGNMEMORY_FUNCTIONS(VMA_XENLIB_SYM)
};
static const struct vma_dlib_sym xenevtchn[] = { VMA_XENEVTCHN_FUNCTIONS(VMA_XENLIB_SYM) };
#undef VMA_XENLIB_SYM

#define LIB(soname, syms) { soname, syms, sizeof(syms) / sizeof(syms[0]) }

static void load(void)
{
	static const struct {
		const char *soname;
		const struct vma_dlib_sym *syms;
		size_t n;
	} libs[] = {
		LIB(VMA_XENCTRL_SONAME, xenctrl),
		LIB(VMA_XENFOREIGNMEMORY_SONAME, xenforeignmemory),
		LIB(VMA_XENEVTCHN_SONAME, xenevtchn),
	};
	size_t i;

	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		if (!vma_dlib_load(libs[i].soname, libs[i].syms, libs[i].n, &loaded, failure,
				   sizeof(failure)))
			return;
	}
	usable = true;
}

#undef LIB

const struct vma_xenlib *vma_xenlib_get(const char **why)
{
	pthread_once(&load_once, load);
	*why = failure;
	return usable ? &loaded : NULL;
}
