/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loads the Xen control libraries by their sonames on first use; see
 * xen-lib.h for why they are not linked.  One table holds the three
 * libraries' functions.
 */
#include "config.h"
#include "capture/xen-lib.h"
#include "vmalyze/dlib.h"

static struct vma_xenlib loaded;

#define VMA_XENLIB_SYM(name) VMA_DLIB_SYM(struct vma_xenlib, name)
static const struct vma_dlib_sym xenctrl[] = { VMA_XENCTRL_FUNCTIONS(VMA_XENLIB_SYM) };
static const struct vma_dlib_sym xenforeignmemory[] = {
	VMA_XENFOREIGNMEMORY_FUNCTIONS(VMA_XENLIB_SYM)
};
static const struct vma_dlib_sym xenevtchn[] = { VMA_XENEVTCHN_FUNCTIONS(VMA_XENLIB_SYM) };
#undef VMA_XENLIB_SYM

/* In this order: the first that fails is the one a caller is told of. */
static struct vma_dlib_lazy libs[] = {
	VMA_DLIB_LAZY(VMA_XENCTRL_SONAME, xenctrl, &loaded),
	VMA_DLIB_LAZY(VMA_XENFOREIGNMEMORY_SONAME, xenforeignmemory, &loaded),
	VMA_DLIB_LAZY(VMA_XENEVTCHN_SONAME, xenevtchn, &loaded),
};

const struct vma_xenlib *vma_xenlib_get(const char **why)
{
	size_t i;

	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
		if (!vma_dlib_get(&libs[i], why))
			return NULL;
	}
	return &loaded;
}
