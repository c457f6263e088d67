/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers of option values (frequencies, durations, time windows, clock
 * maps, numbers), shared by vmalyze's and xenalyze's option tables, and the
 * one usage-error message.  Each accepts exactly what its --help line says
 * and returns failure on anything else, so a typo is an error, not a 0.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/option-table.h"
#include "vmalyze/status.h"

/* A vector or port argument: 0 to @max, decimal or 0x hex. */
bool vma_parse_number(const char *text, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (!text || !*text || *text == '-')
		return false;
	v = strtoul(text, &end, 0);
	if (*end || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* A whole decimal number in [0, UINT32_MAX]; false when @text is not one. */
bool vma_parse_u32(const char *text, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*text))
		return false;
	v = strtoull(text, &end, 10);
	if (*end || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* "100us", "2ms", "1.5s", "500ns" (a bare number is nanoseconds): 0 when malformed. */
uint64_t vma_parse_duration_ns(const char *text)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v = strtod(text, &end);
	size_t i;

	if (end == text || !(v > 0) || !isfinite(v))
		return 0;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit) && v * units[i].ns < 1.8e19)
			return (uint64_t)(v * units[i].ns + 0.5);
	}
	return 0;
}

/* "FROM,TO" of --time-range: each a duration, 0 or empty (to: the end).  Return: 0/-1. */
int vma_parse_range(const char *arg, uint64_t *from, uint64_t *to)
{
	const char *comma = strchr(arg, ',');
	char part[64];
	size_t n;

	if (!comma || (size_t)(comma - arg) >= sizeof(part))
		return -1;
	n = (size_t)(comma - arg);
	memcpy(part, arg, n);
	part[n] = '\0';
	*from = !n || !strcmp(part, "0") ? 0 : vma_parse_duration_ns(part);
	*to = !comma[1] || !strcmp(comma + 1, "0") ? 0 : vma_parse_duration_ns(comma + 1);
	if ((n && strcmp(part, "0") && !*from) || (comma[1] && strcmp(comma + 1, "0") && !*to))
		return -1;
	return *to && *to <= *from ? -1 : 0;
}

/* "START,END" or "START," in seconds, START < END. */
bool vma_parse_time_window(const char *text, struct vma_report_filter *f)
{
	char *end;

	f->start = strtod(text, &end);
	if (end == text || *end != ',' || !(f->start >= 0) || !isfinite(f->start))
		return false;
	text = end + 1;
	f->end = 0;
	if (*text) {
		f->end = strtod(text, &end);
		if (*end || !isfinite(f->end) || !(f->end > f->start))
			return false;
	}
	f->time_set = true;
	return true;
}

/*
 * "FILE=NS[,SCALE]": NS a signed count of nanoseconds, SCALE a decimal
 * fraction kept exact as digits over a power of ten.  The last '=' splits,
 * so a file name may hold one.  Return: 0, or -1 when malformed.
 */
int vma_parse_time_offset(char *arg, struct vma_time_offset *t)
{
	char *eq = strrchr(arg, '='), *end;
	uint64_t num = 0, den = 1;
	const char *s;
	long long ns;
	bool dot = false, digit = false;

	if (!eq || eq == arg)
		return -1;
	errno = 0;
	ns = strtoll(eq + 1, &end, 10);
	if (end == eq + 1 || errno || (*end && *end != ','))
		return -1;
	t->map = (struct vma_time_map){ .offset = ns };
	if (*end == ',') {
		for (s = end + 1; *s; s++) {
			if (*s == '.' && !dot) {
				dot = true;
				continue;
			}
			if (!isdigit((unsigned char)*s) || num > UINT64_MAX / 100 ||
			    (dot && den > UINT64_MAX / 100))
				return -1;
			num = num * 10 + (uint64_t)(*s - '0');
			if (dot)
				den *= 10;
			digit = true;
		}
		if (!digit || !num)
			return -1;
		t->map.scale_num = num;
		t->map.scale_den = den;
	}
	*eq = '\0';
	t->file = arg;
	return 0;
}

/*
 * "FILE[@dN][=OFFSET[,SCALE]]": guest TSC = host TSC x SCALE + OFFSET
 * cycles, as Xen sets a vcpu's TSC; kept as its inverse, the map from the
 * guest's stamps to the host's.  Return: 0, or -1 when malformed.
 */
int vma_parse_guest_tsc(char *arg, struct vma_time_offset *t)
{
	char *at, *end;
	unsigned long dom;
	int64_t o;

	if (vma_parse_time_offset(arg, t)) {
		t->map = (struct vma_time_map){ 0 };
		t->file = arg;
	}
	o = t->map.offset;
	if (t->map.scale_den) {
		uint64_t num = t->map.scale_num, den = t->map.scale_den;
		__int128 back = (__int128)o * den;

		/* host = (guest - OFFSET) / SCALE, the offset rounded to a cycle */
		t->map.scale_num = den;
		t->map.scale_den = num;
		back = back >= 0 ? (back + num / 2) / num : (back - num / 2) / num;
		t->map.offset = -(int64_t)back;
	} else {
		t->map.offset = o == INT64_MIN ? INT64_MAX : -o;
	}
	t->map.cycles = true;
	at = strrchr(arg, '@');
	if (at && at[1] == 'd' && isdigit((unsigned char)at[2])) {
		errno = 0;
		dom = strtoul(at + 2, &end, 10);
		if (*end || errno || dom > 0x7fff)
			return -1;
		t->map.has_domain = true;
		t->map.domain = (uint32_t)dom;
		*at = '\0';
	}
	return *t->file ? 0 : -1;
}

/* @text among @names: its index, or -1. */
int vma_pick_name(const char *text, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!strcmp(text, names[i]))
			return i;
	}
	return -1;
}

bool vma_parse_bytes(const char *text, uint64_t *out)
{
	static const char suffixes[] = "KMG";
	const char *at;
	uint64_t v = 0;
	unsigned int shift = 0;

	if (!text || *text < '0' || *text > '9')
		return false;
	for (; *text >= '0' && *text <= '9'; text++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*text - '0');
	}
	at = *text ? strchr(suffixes, *text & ~0x20) : NULL;
	if (at) {
		shift = 10 * (unsigned int)(at - suffixes + 1);
		text++;
		if (!strcmp(text, "iB"))
			text += 2;
	}
	if (*text || v > UINT64_MAX >> shift)
		return false;
	*out = v << shift;
	return true;
}

uint64_t vma_parse_hz(const char *text)
{
	char *end;
	double v;

	if (!text || !*text)
		return 0;
	v = strtod(text, &end);
	if (end == text || !(v > 0) || !isfinite(v))
		return 0;
	switch (*end) {
	case 'G':
	case 'g':
		v *= 1e9;
		end++;
		break;
	case 'M':
	case 'm':
		v *= 1e6;
		end++;
		break;
	case 'K':
	case 'k':
		v *= 1e3;
		end++;
		break;
	}
	if (!strcasecmp(end, "hz"))
		end += 2;
	if (*end || v < 1e3 || v > 1e12)
		return 0;
	return (uint64_t)llround(v);
}

int vma_usage_error(FILE *err, const char *fmt, ...)
{
	va_list ap;

	fprintf(err, "vmalyze: ");
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fprintf(err, "\nTry 'vmalyze --help' for more information.\n");
	return VMA_ERR_USAGE;
}
