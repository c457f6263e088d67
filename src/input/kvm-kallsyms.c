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
 * ('$' names, 'A' and 'a' symbols), the entries in the order of its
 * stable sort by address of a list that gives the last line first, an
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
#include "input/tep-lib.h"

/*
 * A function: its address and where its name is in the text, in 12 bytes.
 * The table is sized by the text's lines before it is read and sorted with
 * at most an eighth of it copied, so that the largest text (16 MiB of the
 * shortest lines: 2.8 M entries) costs 34 MB, where pointers, a doubling
 * array and qsort()'s copy of it took more than four times that.
 */
struct vma_kvm_func {
	uint32_t addr_lo, addr_hi;
	uint32_t at; /* the name's offset in the text, with FUNC_MOD when a module follows */
};

/* The name is followed by "\t[" and its module (both cut into strings). */
#define FUNC_MOD 0x80000000u

static inline unsigned long long func_addr(const struct vma_kvm_func *f)
{
	return (unsigned long long)f->addr_hi << 32 | f->addr_lo;
}

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

/*
 * One line of @text at @line, or false where tep_parse_kallsyms() stops
 * reading.  *@wanted: a function it keeps (then in @f, its strings cut).
 */
static bool read_line(char *text, char *line, struct vma_kvm_func *f, bool *wanted)
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
	/* libtraceevent's exceptions: arm's '$a' names, x86-64's absolute per-cpu offsets */
	*wanted = line[name_at] != '$' && type != 'A' && type != 'a';
	if (!*wanted)
		return true;
	f->addr_lo = (uint32_t)addr;
	f->addr_hi = (uint32_t)(addr >> 32);
	f->at = (uint32_t)(line + name_at - text);
	line[name_end] = '\0';
	if (mod_end) {
		/* both shapes put the module two bytes past the name, after "\t[" */
		f->at |= FUNC_MOD;
		line[mod_end - 1] = '\0'; /* the ']' */
	}
	return true;
}

/*
 * libtraceevent's order: by address, and at one address the later line
 * first (its list is built from the last line back, and its qsort() is
 * stable).  Offsets in the text are unique, so no two entries tie.
 */
static inline bool before(const struct vma_kvm_func *a, const struct vma_kvm_func *b)
{
	unsigned long long x = func_addr(a), y = func_addr(b);

	return x != y ? x < y : (a->at & ~FUNC_MOD) > (b->at & ~FUNC_MOD);
}

static void sift_down(struct vma_kvm_func *f, size_t i, size_t n)
{
	struct vma_kvm_func t = f[i];
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && before(&f[c], &f[c + 1]))
			c++;
		if (!before(&t, &f[c]))
			break;
		f[i] = f[c];
		i = c;
	}
	f[i] = t;
}

/* In place, n log n whatever the order. */
static void heap_sort(struct vma_kvm_func *f, size_t n)
{
	struct vma_kvm_func t;
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift_down(f, i, n);
	for (i = n; i-- > 1;) {
		t = f[0];
		f[0] = f[i];
		f[i] = t;
		sift_down(f, 0, i);
	}
}

/*
 * Merge the sorted @f[0, @k) and @f[@k, @n) through a copy of the second
 * (the smaller); false when there is no memory for it.
 */
static bool merge_tail(struct vma_kvm_func *f, size_t k, size_t n)
{
	struct vma_kvm_func *tail = malloc((n - k) * sizeof(*tail));
	size_t a = k, b = n - k, to = n;

	if (!tail)
		return false;
	memcpy(tail, f + k, (n - k) * sizeof(*tail));
	while (b) {
		if (a && before(&tail[b - 1], &f[a - 1]))
			f[--to] = f[--a];
		else
			f[--to] = tail[--b];
	}
	free(tail);
	return true;
}

/*
 * Sort @n entries.  A kernel's text lists its own functions by address
 * (in order once its aliases' runs are turned round), then its modules'
 * (0.7% of a real guest's 88,936, in load order): those are sorted alone
 * and merged through a copy of them.  Any other text, or more than an
 * eighth out of order, is heap sorted in place.
 */
static void sort_funcs(struct vma_kvm_func *f, size_t n)
{
	struct vma_kvm_func t;
	size_t i, j, k;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && func_addr(&f[j]) == func_addr(&f[i]); j++)
			;
		for (k = 0; k < (j - i) / 2; k++) {
			t = f[i + k];
			f[i + k] = f[j - 1 - k];
			f[j - 1 - k] = t;
		}
	}
	for (i = 1; i < n && before(&f[i - 1], &f[i]); i++)
		;
	if (i >= n)
		return;
	if (n - i <= n / 8) {
		heap_sort(f + i, n - i);
		if (merge_tail(f, i, n))
			return;
	}
	heap_sort(f, n);
}

/* The entry @b that holds @a's address: it, or after it and before the next entry. */
static int holding(const void *a, const void *b)
{
	const struct vma_kvm_func *f = b;
	unsigned long long key = func_addr(a), at = func_addr(f);

	if (key == at || (key > at && key < func_addr(f + 1)))
		return 0;
	return key < at ? -1 : 1;
}

/* The table from @text (cut into its names); no table when out of memory. */
static void build(struct vma_kvm_kallsyms *k, char *text)
{
	struct vma_kvm_func *map;
	size_t lines = 1, n = 0;
	char *line, *next = NULL, *p;
	bool wanted;

	/* The names' offsets and FUNC_MOD share 32 bits (the text is at most 16 MiB). */
	if (strlen(text) >= FUNC_MOD)
		return;
	for (p = text; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	/* an entry per line at most, and the end entry */
	map = malloc((lines + 1) * sizeof(*map));
	if (!map)
		return;
	for (line = strtok_r(text, "\n", &next); line; line = strtok_r(NULL, "\n", &next)) {
		if (!read_line(text, line, &map[n], &wanted))
			break;
		n += wanted;
	}
	sort_funcs(map, n);
	map[n] = (struct vma_kvm_func){ 0 };
	k->map = map;
	k->n = n;
}

/* libtraceevent's resolver: the function holding *@addrp, its start and module. */
static char *resolve(void *arg, unsigned long long *addrp, char **modp)
{
	struct vma_kvm_priv *priv = arg;
	struct vma_kvm_kallsyms *k = &priv->funcs;
	struct vma_kvm_func key = { (uint32_t)*addrp, (uint32_t)(*addrp >> 32), 0 }, *hit;
	char *name;

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
	name = priv->kallsyms + (hit->at & ~FUNC_MOD);
	*addrp = func_addr(hit);
	*modp = hit->at & FUNC_MOD ? name + strlen(name) + 2 : NULL;
	return name;
}

void vma_kvm_kallsyms_hand(struct vma_kvm_priv *priv)
{
	if (priv->kallsyms || priv->symbols_at[VMA_KVM_KALLSYMS])
		vma_tep()->tep_set_function_resolver(priv->tep, resolve, priv);
}

void vma_kvm_kallsyms_free(struct vma_kvm_priv *priv)
{
	free(priv->funcs.map);
	priv->funcs = (struct vma_kvm_kallsyms){ 0 };
}
