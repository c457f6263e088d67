/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace.dat reader: the cursor every part of the file is read with, over
 * the file (pread) or a section held in memory, bounded by its end; the
 * first read past it reports where the data stop (see tracedat-internal.h).
 * On a pipe, the file is the pipe's temporary copy, which a read past
 * what it holds extends (input.c): the header's own reads decide how far
 * the pipe is copied.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "input/tracedat-internal.h"
#include "vmalyze/diag.h"
#include "vmalyze/status.h"

void td_cur_file(struct cur *c, struct dat *d, uint64_t pos, const char *what)
{
	c->d = d;
	c->mem = NULL;
	c->pos = pos;
	c->end = d->in->size;
	c->base = 0;
	c->what = what;
}

void td_cur_mem(struct cur *c, struct dat *d, const unsigned char *mem, uint64_t len,
		uint64_t base, const char *what)
{
	c->d = d;
	c->mem = mem;
	c->pos = 0;
	c->end = len;
	c->base = base;
	c->what = what;
}

uint64_t td_cur_at(const struct cur *c)
{
	return c->mem ? c->base : c->pos;
}

/*
 * Damage in a part only the dump's text uses, read when the dump first
 * needs it (d->optional): the records are being read by then, and only
 * that part is lost, so it is a warning, as a part too large is.
 */
static void optional_damage(struct dat *d, uint64_t offset, const char *msg)
{
	vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, offset,
			"%s: the %s are left out, the dump shows addresses as numbers", msg,
			d->optional);
	d->failed = true;
}

/*
 * Damage that leaves the whole file unreadable: never tolerated.  @fmt
 * says what is wrong; the message goes on with what it costs.
 */
int td_fatal(struct dat *d, uint64_t offset, const char *fmt, ...)
{
	if (!d->failed) {
		char msg[512];
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		if (d->optional) {
			optional_damage(d, offset, msg);
			return -1;
		}
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, offset,
				"%s: the trace.dat header is damaged, nothing of this file can be"
				" read", msg);
		d->failed = true;
	}
	return -1;
}

/* Out of memory while reading the header. */
int td_oom(struct dat *d)
{
	d->nomem = true;
	d->failed = true;
	return -1;
}

int td_cur_short(struct cur *c, uint64_t need)
{
	struct dat *d = c->d;

	if (d->failed)
		return -1;
	if (d->optional) {
		char msg[200];

		snprintf(msg, sizeof(msg), "%s ends inside its %s (%" PRIu64 " more bytes needed)",
			 c->mem ? "Section" : "File", c->what, need);
		optional_damage(d, c->mem ? c->base : d->in->size, msg);
		return -1;
	}
	d->failed = true;
	if (c->mem) {
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, c->base,
				"Section ends inside its %s (%" PRIu64 " more bytes needed at its"
				" byte %" PRIu64 "): the trace.dat header is damaged, nothing of"
				" this file can be read", c->what, need, c->pos);
	} else {
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, d->in->size,
				"File ends in the %s (%" PRIu64 " bytes needed from byte %" PRIu64
				"): truncated, the trace.dat header cannot be read",
				c->what, need, c->pos);
	}
	return -1;
}

int td_fetch(struct dat *d, uint64_t pos, uint64_t n, const char *what)
{
	uint64_t end = n > UINT64_MAX - pos ? UINT64_MAX : pos + n;
	int ret = vma_input_spool_to(d->in, end, pos, what);

	if (ret < 0) {
		d->failed = true;
		d->spool_error = ret;
		return -1;
	}
	return 0;
}

/* The file's bytes under a file cursor reach @n past it, if the file has them. */
static int cur_fetch(struct cur *c, uint64_t n)
{
	if (c->mem || (c->pos <= c->end && n <= c->end - c->pos))
		return 0;
	if (td_fetch(c->d, c->pos, n, c->what) < 0)
		return -1;
	c->end = c->d->in->size;
	return 0;
}

static int cur_need(struct cur *c, uint64_t n)
{
	if (c->d->failed || cur_fetch(c, n) < 0)
		return -1;
	if (c->pos > c->end || n > c->end - c->pos)
		return td_cur_short(c, n);
	return 0;
}

bool td_cur_has(struct cur *c, uint64_t n)
{
	if (c->d->failed || cur_fetch(c, n) < 0)
		return false;
	return c->pos <= c->end && n <= c->end - c->pos;
}

static int pread_all(struct dat *d, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = pread(d->in->fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!d->failed && n == 0) {
				/* the size was checked at open: the file was cut meanwhile */
				vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, off,
						"File ends here, though it was %" PRIu64 " bytes long"
						" when opened: it shrank while being read, the"
						" trace.dat header cannot be read (read a copy that"
						" is not being written to)", d->in->size);
			} else if (!d->failed) {
				vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, off,
						"Cannot read: %s", strerror(errno));
			}
			d->failed = true;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int td_cur_read(struct cur *c, void *buf, size_t n)
{
	if (cur_need(c, n) < 0)
		return -1;
	if (c->mem) {
		memcpy(buf, c->mem + c->pos, n);
	} else if (pread_all(c->d, buf, n, c->pos) < 0) {
		return -1;
	}
	c->pos += n;
	return 0;
}

int td_cur_u16(struct cur *c, uint32_t *v)
{
	unsigned char b[2];

	if (td_cur_read(c, b, 2) < 0)
		return -1;
	*v = vma_get16(b, c->d->big);
	return 0;
}

int td_cur_u32(struct cur *c, uint32_t *v)
{
	unsigned char b[4];

	if (td_cur_read(c, b, 4) < 0)
		return -1;
	*v = vma_get32(b, c->d->big);
	return 0;
}

int td_cur_u64(struct cur *c, uint64_t *v)
{
	unsigned char b[8];

	if (td_cur_read(c, b, 8) < 0)
		return -1;
	*v = vma_get64(b, c->d->big);
	return 0;
}

/*
 * @n bytes as a NUL-terminated copy (the texts are handed to parsers that
 * want strings).  Return: owned, or NULL after a report.
 */
char *td_cur_text(struct cur *c, uint64_t n)
{
	char *buf;

	if (n > MAX_TEXT) {
		td_fatal(c->d, td_cur_at(c), "Implausible size of the %s: %" PRIu64 " bytes, more"
			 " than the %u MiB vmalyze reads", c->what, n, MAX_TEXT >> 20);
		return NULL;
	}
	if (cur_need(c, n) < 0)
		return NULL;
	buf = malloc((size_t)n + 1);
	if (!buf) {
		td_oom(c->d);
		return NULL;
	}
	if (td_cur_read(c, buf, (size_t)n) < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* A NUL-terminated string of at most @max bytes.  Return: owned, or NULL. */
char *td_cur_str(struct cur *c, size_t max)
{
	char buf[256];
	size_t len = 0;

	if (max > sizeof(buf))
		max = sizeof(buf);
	for (;;) {
		if (td_cur_read(c, &buf[len], 1) < 0)
			return NULL;
		if (buf[len] == '\0')
			break;
		if (++len >= max) {
			td_fatal(c->d, td_cur_at(c), "Unterminated string in the %s", c->what);
			return NULL;
		}
	}
	return strdup(buf);
}
