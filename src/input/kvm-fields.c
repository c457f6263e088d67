/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A format's field lines alone, for runs that never print an event's text
 * (no dump).  Such a run needs the formats of the events it analyses for
 * their fields' places only, yet parsing the file's own text means
 * guarding libtraceevent against it in a helper process (format-check.c),
 * which costs a small trace.dat's run half its time.  So when a text is
 * plain (its head and field lines in the strict shape tracefs writes), it
 * is written again from what was read here, with an empty print format,
 * and that text is parsed in-process: libtraceevent never sees a byte of
 * the file's print format, nor a field line this reader did not accept.
 * A text that is not plain gets the guarded parse of the whole text.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "input/kvm-internal.h"
#include "vmalyze/strbuf.h"

/* Bounds of a plain text: a field's declaration, a number's digits, a name. */
#define MAX_DECL 256u
#define MAX_DIGITS 9u
#define MAX_IDENT 128u

struct line {
	const char *p;
	size_t len;
};

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* @l starts with @word: it is taken off. */
static bool take(struct line *l, const char *word)
{
	size_t n = strlen(word);

	if (l->len < n || memcmp(l->p, word, n))
		return false;
	l->p += n;
	l->len -= n;
	return true;
}

static void skip_blanks(struct line *l)
{
	while (l->len && (*l->p == ' ' || *l->p == '\t')) {
		l->p++;
		l->len--;
	}
}

/* One to MAX_DIGITS digits then @end: their text in @num. */
static bool take_number(struct line *l, char end, struct line *num)
{
	size_t n = 0;

	while (n < l->len && is_digit(l->p[n]))
		n++;
	if (n == 0 || n > MAX_DIGITS || n == l->len || l->p[n] != end)
		return false;
	*num = (struct line){ l->p, n };
	l->p += n + 1;
	l->len -= n + 1;
	return true;
}

/* An identifier at the start of @w (@n bytes): its length, 0 when none. */
static size_t ident_len(const char *w, size_t n)
{
	size_t i = 0;

	if (n == 0 || !is_ident_start(w[0]))
		return 0;
	while (i < n && (is_ident_start(w[i]) || is_digit(w[i])))
		i++;
	return i;
}

/*
 * A declaration as tracefs writes one: words apart by single spaces,
 * each an identifier, an identifier and "[]" (__data_loc char[]) or
 * stars, the last one the field's name, an identifier with "[DIGITS]"
 * for an array.  Anything else (expressions in brackets, punctuation)
 * is not plain.
 */
static bool plain_decl(struct line d)
{
	size_t at = 0, words = 0;

	if (d.len == 0 || d.len > MAX_DECL)
		return false;
	for (;;) {
		const char *w = d.p + at;
		const char *sp = memchr(w, ' ', d.len - at);
		size_t n = sp ? (size_t)(sp - w) : d.len - at, k = ident_len(w, n);
		bool last = !sp;

		words++;
		if (last) {
			/* the name: IDENT or IDENT[DIGITS] */
			if (k == 0 || words < 2)
				return false;
			if (k < n) {
				size_t j = k + 1;

				if (w[k] != '[' || w[n - 1] != ']' || n - k < 3)
					return false;
				while (j < n - 1 && is_digit(w[j]))
					j++;
				if (j != n - 1 || n - k - 2 > MAX_DIGITS)
					return false;
			}
			return true;
		}
		if (n == 0)
			return false; /* two spaces, or one first */
		if (k == 0) {
			while (k < n && w[k] == '*')
				k++;
			if (k != n)
				return false;
		} else if (k != n && !(n - k == 2 && w[k] == '[' && w[k + 1] == ']')) {
			return false;
		}
		at += n + 1;
	}
}

/*
 * "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;", the last part optional
 * (older kernels), written again into @sb.
 */
static bool field_line(struct line l, struct vma_strbuf *sb)
{
	struct line decl, offset, size, sign = { NULL, 0 };
	const char *semi;

	skip_blanks(&l);
	if (!take(&l, "field:"))
		return false;
	semi = memchr(l.p, ';', l.len);
	if (!semi)
		return false;
	decl = (struct line){ l.p, (size_t)(semi - l.p) };
	l.len -= decl.len + 1;
	l.p = semi + 1;
	if (!plain_decl(decl))
		return false;
	skip_blanks(&l);
	if (!take(&l, "offset:") || !take_number(&l, ';', &offset))
		return false;
	skip_blanks(&l);
	if (!take(&l, "size:") || !take_number(&l, ';', &size))
		return false;
	skip_blanks(&l);
	if (take(&l, "signed:")) {
		if (!take_number(&l, ';', &sign) || sign.len != 1 || *sign.p > '1')
			return false;
		skip_blanks(&l);
	}
	if (l.len)
		return false;
	vma_sb_printf(sb, "\tfield:%.*s;\toffset:%.*s;\tsize:%.*s;", (int)decl.len, decl.p,
		      (int)offset.len, offset.p, (int)size.len, size.p);
	if (sign.p)
		vma_sb_printf(sb, "\tsigned:%c;", *sign.p);
	vma_sb_putc(sb, '\n');
	return true;
}

/* "name: IDENT" or "ID: DIGITS" (@ident), written again into @sb. */
static bool head_line(struct line l, const char *key, bool ident, struct vma_strbuf *sb)
{
	size_t i;

	if (!take(&l, key) || !take(&l, ": ") || l.len == 0 ||
	    l.len > (ident ? MAX_IDENT : MAX_DIGITS))
		return false;
	for (i = 0; i < l.len; i++) {
		if (ident ? !(is_ident_start(l.p[i]) || (i && is_digit(l.p[i])))
			  : !is_digit(l.p[i]))
			return false;
	}
	vma_sb_printf(sb, "%s: %.*s\n", key, (int)l.len, l.p);
	return true;
}

/*
 * One "{ VALUE, "NAME" }" of a __print_symbolic() list, then the ',' or
 * ')' after it (in *@end).  VALUE and NAME in @value and @name.
 */
static bool symbol_pair(struct line *l, struct line *value, struct line *name, char *end)
{
	size_t n = 0;

	skip_blanks(l);
	if (!take(l, "{"))
		return false;
	skip_blanks(l);
	/* a number, in any base C writes (strchr() would take the NUL too) */
	while (n < l->len && l->p[n] && strchr("0123456789xXabcdefABCDEF-", l->p[n]))
		n++;
	if (n == 0 || n > 2 * MAX_DIGITS)
		return false;
	*value = (struct line){ l->p, n };
	l->p += n;
	l->len -= n;
	skip_blanks(l);
	if (!take(l, ",") || (skip_blanks(l), !take(l, "\"")))
		return false;
	for (n = 0; n < l->len && l->p[n] != '"'; n++) {
		if (l->p[n] == '\\' || n > MAX_IDENT)
			return false;
	}
	if (n == l->len)
		return false;
	*name = (struct line){ l->p, n };
	l->p += n + 1;
	l->len -= n + 1;
	skip_blanks(l);
	if (!take(l, "}"))
		return false;
	skip_blanks(l);
	if (!l->len || (*l->p != ',' && *l->p != ')'))
		return false;
	*end = *l->p;
	l->p++;
	l->len--;
	return true;
}

/*
 * The print format's one thing a run without text needs: which value of
 * arm64 kvm_exit's ret is named TRAP (kvm-events.c, arm_trap_value()),
 * from the first __print_symbolic() of REC->ret, written into @sb as the
 * new text's print format.  Return: false when that list is not plain.
 */
static bool print_line(struct line l, struct vma_strbuf *sb)
{
	static const char call[] = "__print_symbolic(REC->ret,";
	const char *at = NULL;
	struct line value, name;
	char end = ',';
	size_t i;

	for (i = 0; i + sizeof(call) - 1 <= l.len; i++) {
		if (!memcmp(l.p + i, call, sizeof(call) - 1)) {
			at = l.p + i;
			break;
		}
	}
	if (!at) {
		vma_sb_puts(sb, "print fmt: \"\"\n");
		return true;
	}
	l.len -= (size_t)(at - l.p) + sizeof(call) - 1;
	l.p = at + sizeof(call) - 1;
	while (end == ',') {
		if (!symbol_pair(&l, &value, &name, &end))
			return false;
		if (name.len == 4 && !memcmp(name.p, "TRAP", 4)) {
			vma_sb_printf(sb, "print fmt: \"%%s\", __print_symbolic(REC->ret, "
				      "{ %.*s, \"TRAP\" })\n", (int)value.len, value.p);
			return true;
		}
	}
	vma_sb_puts(sb, "print fmt: \"\"\n");
	return true;
}

char *vma_kvm_fields_text(const char *text, size_t len, size_t *out_len)
{
	struct vma_strbuf sb;
	size_t at = 0, nr = 0;
	bool ok = true;

	vma_sb_init(&sb);
	while (ok && at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		struct line l = { text + at, nl ? (size_t)(nl - (text + at)) : len - at };

		at += l.len + 1;
		if (nr == 0) {
			ok = head_line(l, "name", true, &sb);
		} else if (nr == 1) {
			ok = head_line(l, "ID", false, &sb);
		} else if (nr == 2) {
			ok = l.len == 7 && !memcmp(l.p, "format:", 7);
			vma_sb_puts(&sb, "format:\n");
		} else if (take(&l, "print fmt:")) {
			ok = print_line(l, &sb);
			break;
		} else if (l.len == 0) {
			vma_sb_putc(&sb, '\n');
		} else {
			ok = field_line(l, &sb);
		}
		nr++;
	}
	if (!ok || nr < 3 || vma_sb_failed(&sb)) {
		vma_sb_free(&sb);
		return NULL;
	}
	*out_len = sb.len;
	return sb.buf; /* the caller's now */
}
