/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The symbol table behind --symbol-file.  xenalyze insists on sorted input
 * and misreads the last line; here lines come in any order and are sorted
 * once after reading, so a lookup is a binary search.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/grow.h"
#include "vmalyze/status.h"
#include "vmalyze/symbols.h"

struct symbol {
	uint64_t addr;
	size_t name;    /* offset into names */
	size_t order;   /* line order, to keep equal addresses stable */
};

struct vma_symbols {
	struct symbol *syms;
	size_t nr, cap;
	char *names;
	size_t names_len, names_cap;
};

void vma_symbols_destroy(struct vma_symbols *s)
{
	if (!s)
		return;
	free(s->syms);
	free(s->names);
	free(s);
}

size_t vma_symbols_count(const struct vma_symbols *s)
{
	return s ? s->nr : 0;
}

static bool add(struct vma_symbols *s, uint64_t addr, const char *name, size_t len)
{
	if (vma_grow(s->syms, &s->cap, s->nr + 1, 256) ||
	    vma_grow(s->names, &s->names_cap, s->names_len + len + 1, 4096))
		return false;
	memcpy(s->names + s->names_len, name, len);
	s->names[s->names_len + len] = '\0';
	s->syms[s->nr] = (struct symbol){ addr, s->names_len, s->nr };
	s->names_len += len + 1;
	s->nr++;
	return true;
}

/* One whitespace-separated token of @p: its start in *@tok, its length. */
static size_t token(const char **p, const char **tok)
{
	const char *q = *p;

	while (*q == ' ' || *q == '\t')
		q++;
	*tok = q;
	while (*q && !isspace((unsigned char)*q))
		q++;
	*p = q;
	return (size_t)(q - *tok);
}

/*
 * One line: "ADDR NAME" or System.map's "ADDR TYPE NAME".  Return: 1 a
 * symbol, 0 nothing (blank or comment), -1 not a symbol line.
 */
static int parse_line(const char *line, uint64_t *addr, const char **name, size_t *len)
{
	const char *p = line, *tok, *tok2, *tok3;
	size_t n, n2, n3;
	char *end;

	n = token(&p, &tok);
	if (!n || *tok == '#')
		return 0;
	if (n > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) {
		tok += 2;
		n -= 2;
	}
	if (n > 16)
		return -1;
	errno = 0;
	*addr = strtoull(tok, &end, 16);
	if (errno || end != tok + n || !isxdigit((unsigned char)*tok))
		return -1;
	n2 = token(&p, &tok2);
	if (!n2)
		return -1;
	n3 = token(&p, &tok3);
	if (n3 && n2 == 1) {
		/* System.map: the type letter, then the name. */
		tok2 = tok3;
		n2 = n3;
		n3 = token(&p, &tok3);
	}
	/* A trailing module name in brackets (kallsyms) is part of no symbol. */
	if (n3 && tok3[0] != '[')
		return -1;
	*name = tok2;
	*len = n2;
	return 1;
}

static int by_addr(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int vma_symbols_read(FILE *in, const char *name, struct vma_symbols **out, FILE *err)
{
	struct vma_symbols *s = calloc(1, sizeof(*s));
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	uint64_t offset = 0;
	ssize_t got;
	int status = VMA_OK;

	*out = NULL;
	if (!s)
		return VMA_ERR_NOMEM;
	while ((got = getline(&line, &cap, in)) > 0) {
		const char *sym;
		uint64_t addr;
		size_t len;
		int r;

		lineno++;
		if (memchr(line, '\0', (size_t)got)) {
			fprintf(err, "vmalyze: %s:%zu (byte %" PRIu64 "): a NUL byte; not a "
				"symbol file\n", name, lineno, offset);
			status = VMA_ERR_FORMAT;
			break;
		}
		r = parse_line(line, &addr, &sym, &len);
		if (r < 0) {
			fprintf(err, "vmalyze: %s:%zu (byte %" PRIu64 "): not an 'address name' "
				"line\n", name, lineno, offset);
			status = VMA_ERR_FORMAT;
			break;
		}
		if (r > 0 && !add(s, addr, sym, len)) {
			status = VMA_ERR_NOMEM;
			break;
		}
		offset += (uint64_t)got;
	}
	if (status == VMA_OK && ferror(in)) {
		fprintf(err, "vmalyze: %s: cannot read: %s\n", name, strerror(errno));
		status = VMA_ERR_IO;
	}
	free(line);
	if (status != VMA_OK) {
		vma_symbols_destroy(s);
		return status;
	}
	if (s->nr > 1)
		qsort(s->syms, s->nr, sizeof(*s->syms), by_addr); /* an empty table may be NULL */
	*out = s;
	return VMA_OK;
}

int vma_symbols_load(const char *path, struct vma_symbols **out, FILE *err)
{
	FILE *f = fopen(path, "r");
	int rc;

	*out = NULL;
	if (!f) {
		fprintf(err, "vmalyze: %s: cannot open: %s\n", path, strerror(errno));
		return VMA_ERR_IO;
	}
	rc = vma_symbols_read(f, path, out, err);
	fclose(f);
	return rc;
}

const char *vma_symbols_find(const struct vma_symbols *s, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi;

	if (!s || !s->nr || addr < s->syms[0].addr)
		return NULL;
	/* The last symbol whose address is <= addr; of equal ones, the first read. */
	hi = s->nr;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	while (lo > 0 && s->syms[lo - 1].addr == s->syms[lo].addr)
		lo--;
	*off = addr - s->syms[lo].addr;
	return s->names + s->syms[lo].name;
}

size_t vma_symbols_format(const struct vma_symbols *s, uint64_t addr, char *buf, size_t len)
{
	uint64_t off;
	const char *name = vma_symbols_find(s, addr, &off);
	int n;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (!name)
		return 0;
	n = snprintf(buf, len, "%s+0x%" PRIx64, name, off);
	if (n < 0)
		return 0;
	return (size_t)n < len ? (size_t)n : len - 1;
}
