/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel function names for the dump's text (an event printing %pS, a
 * plugin naming a call site), from a trace.dat's kallsyms text.  They are
 * given to libtraceevent through its function resolver and read at the
 * first lookup (a v7 file's section expanded then too): most traces'
 * events print no function, and tep_parse_kallsyms(), which reads the
 * text with one sscanf() a line, was more than half of a dump of a real
 * capture (bench/README, round ten).
 *
 * The table is the one tep_parse_kallsyms() and libtraceevent's lookup
 * build (libtraceevent 1.7, event-parse.c), so every name and offset
 * printed is the same: the same lines read (split at newlines, empty ones
 * skipped, a line it cannot read ending the table), the same skipped
 * ('$' names, 'A' and 'a' symbols), the entries in the order its list
 * gives them (the last line first), the same qsort() by address with an
 * end entry of address 0, and the same bsearch() for the entry whose
 * address is the one looked up or the last below it.  Usual lines are
 * read without sscanf(); any other goes through the same sscanf() format.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "input/kvm-internal.h"
#include "vmalyze/grow.h"

struct vma_kvm_func {
	unsigned long long addr;
	char *name;
	char *mod;
};

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static char *past_word(char *p)
{
	while (*p && !isspace((unsigned char)*p))
		p++;
	return p;
}

/*
 * "ffffffff81000000 T name" and maybe "\t[module]", as the sscanf() below
 * reads it.  Return: false for any other shape (the sscanf() decides).
 */
static bool read_usual(char *line, unsigned long long *addr, char *type, int *name_at,
		       int *name_end, int *mod_at, int *mod_end)
{
	unsigned long long a = 0;
	char *p = line, *end;
	int digits = 0, d;

	while (digits < 16 && (d = hex_digit(*p)) >= 0) {
		a = a << 4 | (unsigned)d;
		p++;
		digits++;
	}
	if (!digits || p[0] != ' ' || !p[1] || isspace((unsigned char)p[1]) || p[2] != ' ' ||
	    !p[3] || isspace((unsigned char)p[3]))
		return false;
	*addr = a;
	*type = p[1];
	*name_at = (int)(p + 3 - line);
	end = past_word(p + 3);
	*name_end = (int)(end - line);
	*mod_end = 0;
	if (end[0] == '\t' && end[1] == '[') {
		if (!end[2])
			return true;
		if (isspace((unsigned char)end[2]))
			return false;
		*mod_at = (int)(end + 2 - line);
		*mod_end = (int)(past_word(end + 2) - line);
	}
	return true;
}

/* One line, or false where tep_parse_kallsyms() stops reading. */
static bool read_line(char *line, struct vma_kvm_func *f, bool *wanted)
{
	int name_at = 0, name_end = 0, mod_at = 0, mod_end = 0, n;
	unsigned long long addr;
	char type;

	if (!read_usual(line, &addr, &type, &name_at, &name_end, &mod_at, &mod_end)) {
		errno = 0;
		name_end = mod_end = 0;
		n = sscanf(line, "%16llx %c %n%*s%n%*1[\t][%n%*s%n", &addr, &type, &name_at,
			   &name_end, &mod_at, &mod_end);
		if (errno || n != 2 || !name_end)
			return false;
	}
	f->addr = addr;
	f->name = line + name_at;
	f->mod = NULL;
	/* libtraceevent's exceptions: arm's '$a' names, x86-64's absolute per-cpu offsets */
	*wanted = f->name[0] != '$' && type != 'A' && type != 'a';
	if (*wanted) {
		line[name_end] = '\0';
		if (mod_end) {
			f->mod = line + mod_at;
			line[mod_end - 1] = '\0'; /* the ']' */
		}
	}
	return true;
}

static int by_addr(const void *a, const void *b)
{
	const struct vma_kvm_func *fa = a, *fb = b;

	return fa->addr < fb->addr ? -1 : fa->addr > fb->addr;
}

/* The entry @b that holds @a's address: it, or after it and before the next entry. */
static int holding(const void *a, const void *b)
{
	const struct vma_kvm_func *key = a, *f = b;

	if (key->addr == f->addr || (key->addr > f->addr && key->addr < f[1].addr))
		return 0;
	return key->addr < f->addr ? -1 : 1;
}

/* The table from priv->kallsyms (the text is cut into its names). */
static void build(struct vma_kvm_kallsyms *k, char *text)
{
	struct vma_kvm_func f, *map = NULL;
	size_t n = 0, cap = 0, i;
	char *line, *next = NULL;
	bool wanted;

	for (line = strtok_r(text, "\n", &next); line; line = strtok_r(NULL, "\n", &next)) {
		if (!read_line(line, &f, &wanted))
			break;
		if (!wanted)
			continue;
		/* room for the end entry too; out of memory: the names read so far */
		if (n + 2 > cap && vma_grow(map, &cap, n + 2, 1))
			break;
		map[n++] = f;
	}
	if (!map)
		return;
	for (i = 0; i < n / 2; i++) {
		f = map[i];
		map[i] = map[n - 1 - i];
		map[n - 1 - i] = f;
	}
	qsort(map, n, sizeof(*map), by_addr);
	map[n] = (struct vma_kvm_func){ 0 };
	k->map = map;
	k->n = n;
}

/* libtraceevent's resolver: the function holding *@addrp, its start and module. */
static char *resolve(void *arg, unsigned long long *addrp, char **modp)
{
	struct vma_kvm_priv *priv = arg;
	struct vma_kvm_kallsyms *k = &priv->funcs;
	struct vma_kvm_func key = { .addr = *addrp }, *hit;

	if (!k->built) {
		k->built = true;
		if (priv->load_symbols)
			priv->load_symbols(priv, VMA_KVM_KALLSYMS);
		if (priv->kallsyms)
			build(k, priv->kallsyms);
	}
	if (!k->n)
		return NULL;
	hit = bsearch(&key, k->map, k->n, sizeof(*k->map), holding);
	if (!hit)
		return NULL;
	*addrp = hit->addr;
	*modp = hit->mod;
	return hit->name;
}

void vma_kvm_kallsyms_hand(struct vma_kvm_priv *priv)
{
	if (priv->kallsyms || priv->symbols_at[VMA_KVM_KALLSYMS])
		tep_set_function_resolver(priv->tep, resolve, priv);
}

void vma_kvm_kallsyms_free(struct vma_kvm_priv *priv)
{
	free(priv->funcs.map);
	priv->funcs = (struct vma_kvm_kallsyms){ 0 };
}
