/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diagnostics: every warning and every report of damaged input goes through
 * here, to stderr via libxentoollog's levelled stdio logger, never to
 * stdout.  The severity levels are xenalyze's, so that --tolerance means
 * what its users expect: a problem at a level above the tolerance stops the
 * input it was found in; one at or below it is skipped and counted.
 *
 * A sink may be used from several threads at once (a reader thread and the
 * analysis); each message is written whole.
 */
#ifndef VMALYZE_DIAG_H
#define VMALYZE_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* xenalyze's error levels, in its order and with its numbers. */
enum vma_level {
	VMA_LVL_NONE = 0,
	VMA_LVL_STRICT = 1, /* unreasonably picky */
	VMA_LVL_WARN = 2,   /* something mildly unexpected */
	VMA_LVL_SANITY = 3, /* a sanity check failed */
	VMA_LVL_RECORD = 4, /* a record cannot be processed */
	VMA_LVL_FILE = 5,   /* the file is damaged (truncated, corrupt) */
	VMA_LVL_LIMIT = 6,  /* a limit was exceeded; data will be lost */
	VMA_LVL_MAX_TOLERABLE = VMA_LVL_LIMIT,
	VMA_LVL_INPUT = 7,  /* the input cannot be read at all */
	VMA_LVL_SYSTEM = 8, /* out of memory, failed write: never tolerable */
};

#define VMA_DEFAULT_TOLERANCE VMA_LVL_SANITY

/* Verbosity of stderr, moved by -v and -q. */
enum vma_verbosity {
	VMA_VERB_QUIET = -1, /* errors only */
	VMA_VERB_NORMAL = 0, /* warnings and errors */
	VMA_VERB_VERBOSE = 1,
	VMA_VERB_DEBUG = 2,
};

struct vma_diag;

/*
 * vma_diag_create - a diagnostics sink writing to stderr.
 * Return: owned; free with vma_diag_destroy().  NULL when out of memory.
 */
struct vma_diag *vma_diag_create(enum vma_level tolerance, enum vma_verbosity verbosity);
/*
 * vma_diag_create_to - the same, writing to @err (borrowed): a batch run
 * holds each trace's messages back to print them in input order.
 */
struct vma_diag *vma_diag_create_to(FILE *err, enum vma_level tolerance,
				    enum vma_verbosity verbosity);
void vma_diag_destroy(struct vma_diag *diag);
/*
 * vma_diag_create_beside - a sink with @model's tolerance and verbosity,
 * writing to @err (borrowed): a second analysis of @model's input that
 * must decide as the first would (the pipeline's split).
 */
struct vma_diag *vma_diag_create_beside(const struct vma_diag *model, FILE *err);

/*
 * vma_diag_set_source - name @file (copied; NULL: none) in the messages
 * that name no file, as the state's: set when one input is reported on,
 * and by linked inputs' pipeline before each turn of another input (a
 * warning given once is given once per file).
 */
void vma_diag_set_source(struct vma_diag *diag, const char *file);

/*
 * vma_diag_report - report a problem found at @offset of @file (either may
 * be NULL/UINT64_MAX when there is none).
 * Return: true when the problem is tolerated (processing goes on), false
 * when its level is above the tolerance and the caller must stop.
 */
bool vma_diag_report(struct vma_diag *diag, enum vma_level level, const char *file,
		     uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Informational message, shown with -v. */
void vma_diag_info(struct vma_diag *diag, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Debugging detail, shown with -vv. */
void vma_diag_debug(struct vma_diag *diag, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * vma_diag_warn_once - a warning that repeats per record is shown once per
 * @key (a static string naming the call site) and counted; the counts are
 * printed by vma_diag_flush_counts().
 */
void vma_diag_warn_once(struct vma_diag *diag, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * vma_diag_warn_once_in - the same about @file (a reader's message, which
 * names its file however the turns of linked inputs stand): once per @key
 * and @file.
 */
void vma_diag_warn_once_in(struct vma_diag *diag, const char *file, const char *key,
			   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Prints how often each warn-once key fired, when more than once. */
void vma_diag_flush_counts(struct vma_diag *diag);

/* Highest level reported so far, tolerated or not. */
enum vma_level vma_diag_worst(const struct vma_diag *diag);
/* Reports and warnings so far, each repeat of a warning shown once counted too. */
uint64_t vma_diag_said(const struct vma_diag *diag);

/* True once a problem above the tolerance was reported. */
bool vma_diag_stopped(const struct vma_diag *diag);

/*
 * A point a run may go back to (the pipeline's records taken ahead of
 * the merge, pipeline-ahead.c): vma_diag_mark() notes it,
 * vma_diag_rewind() puts the counts, keys and levels back as they were
 * there and has the messages logged since shown no more (the run made
 * again logs them again first); false when the mark could not be kept
 * (out of memory).
 * vma_diag_mark_release() frees what the mark holds.
 */
struct vma_diag_mark {
	uint64_t logged, said;
	enum vma_level worst;
	bool stopped;
	size_t nr_keys;           /* SIZE_MAX: not kept */
	unsigned long *counts;    /* owned: each key's count */
};
void vma_diag_mark(const struct vma_diag *diag, struct vma_diag_mark *mark);
bool vma_diag_rewind(struct vma_diag *diag, const struct vma_diag_mark *mark);
void vma_diag_mark_release(struct vma_diag_mark *mark);
/*
 * vma_diag_unmute - the messages a rewind has shown no more are shown
 * again: the run made again reads an input that is not what the first
 * read (it changed), so it may not log them again first.
 */
void vma_diag_unmute(struct vma_diag *diag);
/*
 * vma_diag_hold - while @on, messages are counted (vma_diag_held(), from 0
 * at each hold) and not shown; their counts and levels are kept as usual.
 * Not locked: only while one thread uses @diag.
 */
void vma_diag_hold(struct vma_diag *diag, bool on);
uint64_t vma_diag_held(const struct vma_diag *diag);

#endif /* VMALYZE_DIAG_H */
