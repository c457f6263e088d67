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

#include <pthread.h>
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
 * @syms in @table.  @global: its symbols serve the libraries loaded after
 * it (RTLD_GLOBAL: libtraceevent's plugins call it by name), else they
 * are the caller's alone.  Return: true; or false, nothing of it usable,
 * with @why (@len bytes) saying why: dlerror()'s text, or the function
 * missing.
 */
bool vma_dlib_load(const char *soname, bool global, const struct vma_dlib_sym *syms, size_t n,
		   void *table, char *why, size_t len);

/*
 * A library loaded by the first vma_dlib_get() of any thread; later calls
 * return what that one found.  One static object per library, made with
 * VMA_DLIB_LAZY(): dlopen() is process-wide, so its result is too, and
 * that object is the one mutable static its owner keeps for it.
 */
struct vma_dlib_lazy {
	const char *soname;
	bool global;               /* vma_dlib_load()'s @global */
	const struct vma_dlib_sym *syms;
	size_t n;
	void *table;               /* the caller's table of pointers */
	pthread_mutex_t lock;
	int state;                 /* 0: not tried yet, 1: loaded, -1: failed */
	char why[256];             /* the failure, "" before or without one */
};

/* Library @soname, whose functions @syms (an array) go in *@table. */
#define VMA_DLIB_LAZY(soname, syms, table) \
	{ (soname), false, (syms), sizeof(syms) / sizeof((syms)[0]), (table), \
	  PTHREAD_MUTEX_INITIALIZER, 0, "" }
/* The same for a library whose symbols the libraries it loads use. */
#define VMA_DLIB_LAZY_GLOBAL(soname, syms, table) \
	{ (soname), true, (syms), sizeof(syms) / sizeof((syms)[0]), (table), \
	  PTHREAD_MUTEX_INITIALIZER, 0, "" }

/*
 * vma_dlib_get - @lib's table, loading the library if no call did yet.
 * Return: the table; or NULL when it cannot be loaded, *@why saying why
 * (*@why is "" when the table is returned).
 */
const void *vma_dlib_get(struct vma_dlib_lazy *lib, const char **why);

#endif /* VMALYZE_DLIB_H */
