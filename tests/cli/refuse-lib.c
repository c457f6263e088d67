/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A preload for tests/cli/bad-input.sh: dlopen() of the library whose name
 * holds $VMA_REFUSE_LIB (libarchive when unset) fails, as on a machine
 * without it, with a reason dlerror() gives; every other dlopen() is the
 * real one.  For tests/cli/latency.sh: with $VMA_SPAWN_LOG set, every
 * posix_spawn() (the format-check helper's start) first appends its
 * program's first argument to that file.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool refused;
static char reason[256];

void *dlopen(const char *file, int mode)
{
	void *(*real)(const char *, int);
	void *sym = dlsym(RTLD_NEXT, "dlopen");
	const char *name = getenv("VMA_REFUSE_LIB");

	if (!name || !*name)
		name = "libarchive";
	if (file && strstr(file, name)) {
		refused = true;
		snprintf(reason, sizeof(reason), "%s refused by the refuse-lib test preload", name);
		return NULL;
	}
	refused = false;
	memcpy(&real, &sym, sizeof(sym));
	return real(file, mode);
}

char *dlerror(void)
{
	char *(*real)(void);
	void *sym = dlsym(RTLD_NEXT, "dlerror");

	if (refused) {
		refused = false;
		return reason;
	}
	memcpy(&real, &sym, sizeof(sym));
	return real();
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
		const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	int (*real)(pid_t *, const char *, const posix_spawn_file_actions_t *,
		    const posix_spawnattr_t *, char *const[], char *const[]);
	void *sym = dlsym(RTLD_NEXT, "posix_spawn");
	const char *log = getenv("VMA_SPAWN_LOG");

	if (log && *log) {
		FILE *f = fopen(log, "a");

		if (f) {
			fprintf(f, "%s\n", argv && argv[0] && argv[1] ? argv[1] : "");
			fclose(f);
		}
	}
	memcpy(&real, &sym, sizeof(sym));
	return real(pid, path, actions, attr, argv, envp);
}
