/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loads libtraceevent by its soname (found by configure) on first use; see
 * tep-lib.h for why it is not linked.
 */
#include "config.h"
#include "input/tep-lib.h"
#include "vmalyze/dlib.h"

static struct vma_tep_lib loaded;

#define VMA_TEP_SYM(name) VMA_DLIB_SYM(struct vma_tep_lib, name)
static const struct vma_dlib_sym syms[] = { VMA_TEP_FUNCTIONS(VMA_TEP_SYM) };
#undef VMA_TEP_SYM

static struct vma_dlib_lazy lib = VMA_DLIB_LAZY_GLOBAL(VMA_TRACEEVENT_SONAME, syms, &loaded);

const struct vma_tep_lib *vma_tep_load(const char **why)
{
	return vma_dlib_get(&lib, why);
}

const struct vma_tep_lib *vma_tep(void)
{
	return &loaded;
}
