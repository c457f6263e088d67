/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loads libarchive by its soname (found by configure) on first use; see
 * archive-lib.h for why it is not linked.
 */
#include "config.h"
#include "input/archive-lib.h"
#include "vmalyze/dlib.h"

static struct vma_libarchive loaded;

#define VMA_LIBARCHIVE_SYM(name) VMA_DLIB_SYM(struct vma_libarchive, name)
static const struct vma_dlib_sym syms[] = { VMA_LIBARCHIVE_FUNCTIONS(VMA_LIBARCHIVE_SYM) };
#undef VMA_LIBARCHIVE_SYM

static struct vma_dlib_lazy lib = VMA_DLIB_LAZY(VMA_LIBARCHIVE_SONAME, syms, &loaded);

const struct vma_libarchive *vma_libarchive_get(const char **why)
{
	return vma_dlib_get(&lib, why);
}
