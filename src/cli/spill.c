/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Held-back output (see spill.h), through a glibc cookie stream: the
 * writer is an ordinary FILE, so the run driver writes to it as to stdout.
 * The memory part comes first, the temporary file holds what follows.
 * Another thread's fflush(NULL) (before a fork) may run the cookie's write:
 * the lock orders it with the owner's writes and the copy.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/spill.h"

struct vma_spill {
	pthread_mutex_t lock;
	struct vma_spill_budget *budget;
	FILE *fp;
	char *mem;
	size_t len, cap;
	FILE *file; /* past the budget; NULL until needed */
};

static FILE *temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/vmalyze-out-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	unlink(path);
	f = fdopen(fd, "w+");
	if (!f)
		close(fd);
	return f;
}

/*
 * Room for @n more bytes in memory, within the budget.  The doubled size
 * is charged to the budget before it is allocated, so this loop is not
 * vma_grow(), which allocates at once.
 */
static int reserve(struct vma_spill *sp, size_t n)
{
	size_t want = sp->len + n, cap = sp->cap ? sp->cap : 4096;
	char *mem;

	while (cap < want)
		cap *= 2;
	if (cap == sp->cap)
		return 0;
	if (atomic_fetch_add(&sp->budget->held, cap - sp->cap) + (cap - sp->cap) >
	    sp->budget->cap) {
		atomic_fetch_sub(&sp->budget->held, cap - sp->cap);
		return -1;
	}
	mem = realloc(sp->mem, cap);
	if (!mem) {
		atomic_fetch_sub(&sp->budget->held, cap - sp->cap);
		return -1;
	}
	sp->mem = mem;
	sp->cap = cap;
	return 0;
}

static ssize_t append(struct vma_spill *sp, const char *buf, size_t n)
{
	if (!sp->file && reserve(sp, n) == 0) {
		memcpy(sp->mem + sp->len, buf, n);
		sp->len += n;
		return (ssize_t)n;
	}
	if (!sp->file && !(sp->file = temp_file()))
		return -1;
	if (fwrite(buf, 1, n, sp->file) != n)
		return -1;
	return (ssize_t)n;
}

static ssize_t spill_write(void *cookie, const char *buf, size_t n)
{
	struct vma_spill *sp = cookie;
	ssize_t done;

	pthread_mutex_lock(&sp->lock);
	done = append(sp, buf, n);
	pthread_mutex_unlock(&sp->lock);
	return done;
}

struct vma_spill *vma_spill_create(struct vma_spill_budget *budget)
{
	static const cookie_io_functions_t io = { .write = spill_write };
	struct vma_spill *sp = calloc(1, sizeof(*sp));

	if (!sp)
		return NULL;
	pthread_mutex_init(&sp->lock, NULL);
	sp->budget = budget;
	sp->fp = fopencookie(sp, "w", io);
	if (!sp->fp) {
		pthread_mutex_destroy(&sp->lock);
		free(sp);
		return NULL;
	}
	return sp;
}

FILE *vma_spill_stream(struct vma_spill *sp)
{
	return sp->fp;
}

int vma_spill_empty(struct vma_spill *sp)
{
	int empty;

	fflush(sp->fp);
	pthread_mutex_lock(&sp->lock);
	empty = sp->len == 0 && !sp->file;
	pthread_mutex_unlock(&sp->lock);
	return empty;
}

static int copy_locked(struct vma_spill *sp, FILE *to)
{
	char buf[1 << 16];
	size_t n;

	if (sp->len && fwrite(sp->mem, 1, sp->len, to) != sp->len)
		return -1;
	if (!sp->file)
		return 0;
	if (fflush(sp->file) != 0 || fseeko(sp->file, 0, SEEK_SET) != 0)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), sp->file)) > 0) {
		if (fwrite(buf, 1, n, to) != n)
			return -1;
	}
	return ferror(sp->file) ? -1 : 0;
}

int vma_spill_copy(struct vma_spill *sp, FILE *to)
{
	int rc;

	if (fflush(sp->fp) != 0)
		return -1;
	pthread_mutex_lock(&sp->lock);
	rc = copy_locked(sp, to);
	pthread_mutex_unlock(&sp->lock);
	return rc;
}

void vma_spill_destroy(struct vma_spill *sp)
{
	if (!sp)
		return;
	fclose(sp->fp);
	if (sp->file)
		fclose(sp->file);
	atomic_fetch_sub(&sp->budget->held, sp->cap);
	pthread_mutex_destroy(&sp->lock);
	free(sp->mem);
	free(sp);
}
