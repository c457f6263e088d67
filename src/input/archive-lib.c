/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loads libarchive by its soname (found by configure) on first use; see
 * archive-lib.h for why it is not linked.  The table of its functions is
 * the one mutable static of the input stage: dlopen() is process-wide, so
 * its result is too, filled once under pthread_once() and read-only after.
 */
#include <pthread.h>
#include <stdbool.h>

#include "config.h"
#include "input/archive-lib.h"
#include "vmalyze/dlib.h"

static struct vma_libarchive loaded;
static bool usable;
static char failure[256];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void)
{
#define VMA_LIBARCHIVE_SYM(name) VMA_DLIB_SYM(struct vma_libarchive, name)
	static const struct vma_dlib_sym syms[] = {
		VMA_LIBARCHIVE_FUNCTIONS(VMA_LIBARCHIVE_SYM)
	};
#undef VMA_LIBARCHIVE_SYM

	usable = vma_dlib_load(VMA_LIBARCHIVE_SONAME, syms, sizeof(syms) / sizeof(syms[0]),
			       &loaded, failure, sizeof(failure));
}

const struct vma_libarchive *vma_libarchive_get(const char **why)
{
	pthread_once(&load_once, load);
	*why = failure;
	return usable ? &loaded : NULL;
}
