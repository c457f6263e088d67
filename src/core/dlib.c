/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading a library by its soname, at once or on first use (dlib.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "vmalyze/dlib.h"

bool vma_dlib_load(const char *soname, bool global, const struct vma_dlib_sym *syms, size_t n,
		   void *table, char *why, size_t len)
{
	void *lib = dlopen(soname, RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
	size_t i;

	if (!lib) {
		snprintf(why, len, "%s", dlerror());
		return false;
	}
	for (i = 0; i < n; i++) {
		void *fn = dlsym(lib, syms[i].name);

		if (!fn) {
			snprintf(why, len, "%s has no %s", soname, syms[i].name);
			dlclose(lib);
			return false;
		}
		/* memcpy: ISO C has no conversion from dlsym()'s void * to a function pointer */
		memcpy((char *)table + syms[i].offset, &fn, sizeof(fn));
	}
	return true;
}

const void *vma_dlib_get(struct vma_dlib_lazy *lib, const char **why)
{
	int state;

	pthread_mutex_lock(&lib->lock);
	if (!lib->state)
		lib->state = vma_dlib_load(lib->soname, lib->global, lib->syms, lib->n, lib->table,
					   lib->why, sizeof(lib->why)) ? 1 : -1;
	state = lib->state;
	pthread_mutex_unlock(&lib->lock);
	*why = lib->why;
	return state > 0 ? lib->table : NULL;
}
