/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Libraries loaded by their sonames when first needed rather than linked
 * (libarchive for containers, the Xen control libraries for vmalyze
 * record): what linking them would cost every run at start is paid only
 * by the runs that use them.  A caller keeps a table of pointers, one per
 * function of the library's own prototype, and lists them with
 * VMA_DLIB_SYM() for vma_dlib_load().
 */
#ifndef VMALYZE_DLIB_H
#define VMALYZE_DLIB_H

#include <stdbool.h>
#include <stddef.h>

/* A function of a library: its name, and where its pointer lies in the caller's table. */
struct vma_dlib_sym {
	const char *name;
	size_t offset;
};

/* The entry of function @name, whose pointer is the member @name of struct type @table. */
#define VMA_DLIB_SYM(table, name) { #name, offsetof(table, name) },

/*
 * vma_dlib_load - dlopen() @soname and set each of the @n functions of
 * @syms in @table.  Return: true; or false, nothing of it usable, with
 * @why (@len bytes) saying why: dlerror()'s text, or the function missing.
 */
bool vma_dlib_load(const char *soname, const struct vma_dlib_sym *syms, size_t n, void *table,
		   char *why, size_t len);

#endif /* VMALYZE_DLIB_H */
