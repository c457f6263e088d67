/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the option files share (inside src/cli only): the row of an option
 * table, its setters' type, and the parsers of option values.  Two tables
 * use it: vmalyze's own (options.c) and xenalyze's (options-xen.c).  A row
 * names the function that takes its argument, so adding an option is one
 * row (and a setter when no generic one fits).
 */
#ifndef VMALYZE_CLI_OPTION_TABLE_H
#define VMALYZE_CLI_OPTION_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/options.h"

struct vma_option_row;

/* Takes @arg (NULL for an option without one); Return: VMA_OK or VMA_ERR_USAGE. */
typedef int vma_option_set_fn(struct vma_options *opts, const struct vma_option_row *row,
			      char *arg, FILE *err);

struct vma_option_row {
	const char *name;       /* NULL: a group heading (xenalyze's table) */
	int short_name;         /* 0: long only */
	const char *arg;        /* the argument's name in --help; NULL: no argument */
	const char *doc;
	vma_option_set_fn *set;
	size_t field;           /* for the generic setters: its offset in struct vma_options */
	int value;              /* a setter's constant: a scatterplot kind, an interval mode */
	/* xenalyze's table: an option of vmalyze's own, named in its group */
	bool above;
};

/* Generic setters: the bool at row->field becomes true; the string at it is @arg. */
vma_option_set_fn vma_option_set_flag;
vma_option_set_fn vma_option_set_string;

/* A row's setter part for a bool or string field of struct vma_options. */
#define VMA_OPTION_FLAG(f) .set = vma_option_set_flag, .field = offsetof(struct vma_options, f)
#define VMA_OPTION_STRING(f) .set = vma_option_set_string, .field = offsetof(struct vma_options, f)

/* xenalyze's table (options-xen.c), group headings included: at most this many rows. */
#define VMA_XEN_OPTIONS_MAX 64
const struct vma_option_row *vma_xen_option_rows(size_t *nr);

/* After the options are read: their combinations checked, defaults settled (options-check.c). */
int vma_options_settle(struct vma_options *opts, int nr_files, char **files, FILE *err);

/* "vmalyze: MESSAGE" and the --help hint on @err.  Return: VMA_ERR_USAGE. */
int vma_usage_error(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Value parsers (option-values.c); each says what it accepts. */

/* 0 to @max, decimal or 0x hex, no sign. */
bool vma_parse_number(const char *text, uint32_t max, uint32_t *out);
/* A whole decimal number in [0, UINT32_MAX]. */
bool vma_parse_u32(const char *text, uint32_t *out);
/* A whole number of bytes with an optional K, M or G (binary: KiB, MiB, GiB) suffix. */
bool vma_parse_bytes(const char *text, uint64_t *out);
/* "100us", "2ms", "1.5s", "500ns" (a bare number is nanoseconds): 0 when malformed. */
uint64_t vma_parse_duration_ns(const char *text);
/* "FROM,TO": each a duration, 0 or empty (TO: the end).  Return: 0 or -1. */
int vma_parse_range(const char *arg, uint64_t *from, uint64_t *to);
/* "START,END" or "START," in seconds, START < END, into @f. */
bool vma_parse_time_window(const char *text, struct vma_report_filter *f);
/* --time-offset's "FILE=NS[,SCALE]"; splits @arg.  Return: 0 or -1. */
int vma_parse_time_offset(char *arg, struct vma_time_offset *t);
/* --guest-tsc's "FILE[@dN][=OFFSET[,SCALE]]"; splits @arg.  Return: 0 or -1. */
int vma_parse_guest_tsc(char *arg, struct vma_time_offset *t);
/* @text among @names: its index, or -1. */
int vma_pick_name(const char *text, const char *const *names, int n);

#endif /* VMALYZE_CLI_OPTION_TABLE_H */
