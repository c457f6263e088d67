/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diagnostics through libxentoollog's stdio logger (see diag.h).  The
 * logger prints "vmalyze: <level>: <message>"; problems found in an input
 * name the file and the byte offset in the message itself, so a user can
 * look at the bytes with xxd.
 *
 * One lock guards the sink: with -j 2 the readers report from their own
 * thread while the analysis reports from the main one.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xentoollog.h>

#include "vmalyze/diag.h"
#include "vmalyze/grow.h"

struct warn_key {
	const char *key;    /* static string of the call site */
	const char *source; /* the file it was about (one of names), or NULL */
	unsigned long count;
};

struct vma_diag {
	pthread_mutex_t lock;
	xentoollog_logger_stdiostream *logger;
	enum vma_level tolerance;
	enum vma_verbosity verbosity;
	enum vma_level worst;
	uint64_t said;             /* reports and warnings, repeats of a warning too */
	bool stopped;
	struct warn_key *keys;
	size_t nr_keys;
	size_t cap_keys;
	/* Messages logged, and how the next ones go (vma_diag_hold(), vma_diag_rewind()). */
	uint64_t logged;
	uint64_t mute;             /* not to be shown again: logged before a rewind */
	bool holding;
	uint64_t held;             /* swallowed while holding */
	/*
	 * The input reported on, for messages that name none: one of names,
	 * the copies of every file named so far (linked inputs take turns).
	 */
	const char *source;
	char **names;
	size_t nr_names, cap_names;
};

static xentoollog_level min_level_for(enum vma_verbosity verbosity)
{
	switch (verbosity) {
	case VMA_VERB_QUIET:
		return XTL_ERROR;
	case VMA_VERB_VERBOSE:
		return XTL_INFO;
	case VMA_VERB_DEBUG:
		return XTL_DEBUG;
	case VMA_VERB_NORMAL:
		break;
	}
	return XTL_WARN;
}

struct vma_diag *vma_diag_create(enum vma_level tolerance, enum vma_verbosity verbosity)
{
	return vma_diag_create_to(stderr, tolerance, verbosity);
}

struct vma_diag *vma_diag_create_to(FILE *err, enum vma_level tolerance,
				    enum vma_verbosity verbosity)
{
	struct vma_diag *diag = calloc(1, sizeof(*diag));

	if (!diag)
		return NULL;
	diag->logger = xtl_createlogger_stdiostream(err, min_level_for(verbosity),
						    XTL_STDIOSTREAM_HIDE_PROGRESS);
	if (!diag->logger) {
		free(diag);
		return NULL;
	}
	if (pthread_mutex_init(&diag->lock, NULL)) {
		xtl_logger_destroy((xentoollog_logger *)diag->logger);
		free(diag);
		return NULL;
	}
	diag->tolerance = tolerance;
	diag->verbosity = verbosity;
	return diag;
}

void vma_diag_destroy(struct vma_diag *diag)
{
	if (!diag)
		return;
	xtl_logger_destroy((xentoollog_logger *)diag->logger);
	pthread_mutex_destroy(&diag->lock);
	free(diag->keys);
	while (diag->nr_names)
		free(diag->names[--diag->nr_names]);
	free(diag->names);
	free(diag);
}

/* The kept copy of @file, made if need be; NULL when out of memory.  Lock held. */
static const char *name_of(struct vma_diag *diag, const char *file)
{
	size_t i;

	if (diag->source && !strcmp(diag->source, file))
		return diag->source;
	for (i = 0; i < diag->nr_names; i++) {
		if (!strcmp(diag->names[i], file))
			return diag->names[i];
	}
	if (vma_grow(diag->names, &diag->cap_names, diag->nr_names + 1, 4) != VMA_OK)
		return NULL;
	diag->names[diag->nr_names] = strdup(file);
	return diag->names[diag->nr_names] ? diag->names[diag->nr_names++] : NULL;
}

void vma_diag_set_source(struct vma_diag *diag, const char *file)
{
	pthread_mutex_lock(&diag->lock);
	/* out of memory: messages go without the name */
	diag->source = file ? name_of(diag, file) : NULL;
	pthread_mutex_unlock(&diag->lock);
}

/* "FILE: " of @source, or "" (none, or @msg names it already). */
static const char *source_prefix(const char *source, const char *msg, char *buf, size_t len)
{
	size_t n;

	if (!source)
		return "";
	n = strlen(source);
	if (!strncmp(msg, source, n) && msg[n] == ':')
		return "";
	snprintf(buf, len, "%s: ", source);
	return buf;
}

/* Whether the message about to be logged is shown (with the lock held). */
static bool shown(struct vma_diag *diag)
{
	if (diag->holding) {
		diag->held++;
		return false;
	}
	if (diag->mute) {
		/* shown by the first try of a run made again */
		diag->mute--;
		diag->logged++;
		return false;
	}
	diag->logged++;
	return true;
}

static void vlog(struct vma_diag *diag, xentoollog_level level, const char *prefix,
		 const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

static void vlog(struct vma_diag *diag, xentoollog_level level, const char *prefix,
		 const char *fmt, va_list ap)
{
	char msg[1024];

	if (!shown(diag))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	xtl_log((xentoollog_logger *)diag->logger, level, -1, "vmalyze", "%s%s", prefix, msg);
}

bool vma_diag_report(struct vma_diag *diag, enum vma_level level, const char *file,
		     uint64_t offset, const char *fmt, ...)
{
	bool tolerated = level <= diag->tolerance && level <= VMA_LVL_MAX_TOLERABLE;
	char prefix[512] = "", msg[1024], hint[128] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/*
	 * Damage that stops the input says what to do, unless the message
	 * does: the level is the lowest tolerance that skips it.
	 */
	if (!tolerated && level > VMA_LVL_NONE && level <= VMA_LVL_MAX_TOLERABLE &&
	    !strstr(msg, "--tolerance")) {
		snprintf(hint, sizeof(hint), "; reading stops here (--tolerance %d skips this "
			 "and reads on)", (int)level);
	}
	pthread_mutex_lock(&diag->lock);
	if (!file)
		file = diag->source;
	if (file && offset != UINT64_MAX) {
		snprintf(prefix, sizeof(prefix), "%s: offset %llu: ", file,
			 (unsigned long long)offset);
	} else if (file) {
		snprintf(prefix, sizeof(prefix), "%s: ", file);
	}
	if (level > diag->worst)
		diag->worst = level;
	diag->said++;
	if (!tolerated)
		diag->stopped = true;
	/* Labelled by what happens: skipped damage is a warning, a stop an error. */
	if (shown(diag))
		xtl_log((xentoollog_logger *)diag->logger, tolerated ? XTL_WARN : XTL_ERROR, -1,
			"vmalyze", "%s%s%s", prefix, msg, hint);
	pthread_mutex_unlock(&diag->lock);
	return tolerated;
}

void vma_diag_info(struct vma_diag *diag, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&diag->lock);
	va_start(ap, fmt);
	vlog(diag, XTL_INFO, "", fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&diag->lock);
}

void vma_diag_debug(struct vma_diag *diag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(diag, XTL_DEBUG, "", fmt, ap);
	va_end(ap);
}

static void vwarn_once(struct vma_diag *diag, const char *file, const char *key,
		       const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

/* vma_diag_warn_once_in() with the lock held; @file NULL: the source. */
static void vwarn_once(struct vma_diag *diag, const char *file, const char *key,
		       const char *fmt, va_list ap)
{
	const char *about = file ? name_of(diag, file) : diag->source;
	char prefix[512], msg[1024];
	size_t i;

	diag->said++;
	for (i = 0; i < diag->nr_keys; i++) {
		/* once per file: each of linked inputs is told */
		if ((diag->keys[i].key == key || !strcmp(diag->keys[i].key, key)) &&
		    diag->keys[i].source == about) {
			diag->keys[i].count++;
			return;
		}
	}
	/* out of memory: the key is not kept, so the warning may show again */
	if (vma_grow(diag->keys, &diag->cap_keys, diag->nr_keys + 1, 16) == VMA_OK) {
		diag->keys[diag->nr_keys].key = key;
		diag->keys[diag->nr_keys].source = about;
		diag->keys[diag->nr_keys].count = 1;
		diag->nr_keys++;
	}
	if (diag->worst < VMA_LVL_WARN)
		diag->worst = VMA_LVL_WARN;
	if (!shown(diag))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	xtl_log((xentoollog_logger *)diag->logger, XTL_WARN, -1, "vmalyze", "%s%s",
		source_prefix(about, msg, prefix, sizeof(prefix)), msg);
}

void vma_diag_warn_once(struct vma_diag *diag, const char *key, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&diag->lock);
	va_start(ap, fmt);
	vwarn_once(diag, NULL, key, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&diag->lock);
}

void vma_diag_warn_once_in(struct vma_diag *diag, const char *file, const char *key,
			   const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&diag->lock);
	va_start(ap, fmt);
	vwarn_once(diag, file, key, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&diag->lock);
}

void vma_diag_flush_counts(struct vma_diag *diag)
{
	char prefix[512];
	size_t i;

	pthread_mutex_lock(&diag->lock);
	for (i = 0; i < diag->nr_keys; i++) {
		if (diag->keys[i].count > 1 && shown(diag)) {
			xtl_log((xentoollog_logger *)diag->logger, XTL_WARN, -1, "vmalyze",
				"%s%s: seen %lu times in all",
				source_prefix(diag->keys[i].source, "", prefix, sizeof(prefix)),
				diag->keys[i].key,
				diag->keys[i].count);
		}
	}
	pthread_mutex_unlock(&diag->lock);
}

enum vma_level vma_diag_worst(const struct vma_diag *diag)
{
	struct vma_diag *d = (struct vma_diag *)diag; /* the lock, not the state, changes */
	enum vma_level worst;

	pthread_mutex_lock(&d->lock);
	worst = d->worst;
	pthread_mutex_unlock(&d->lock);
	return worst;
}

bool vma_diag_stopped(const struct vma_diag *diag)
{
	struct vma_diag *d = (struct vma_diag *)diag;
	bool stopped;

	pthread_mutex_lock(&d->lock);
	stopped = d->stopped;
	pthread_mutex_unlock(&d->lock);
	return stopped;
}

struct vma_diag *vma_diag_create_beside(const struct vma_diag *model, FILE *err)
{
	return vma_diag_create_to(err, model->tolerance, model->verbosity);
}

uint64_t vma_diag_said(const struct vma_diag *diag)
{
	struct vma_diag *d = (struct vma_diag *)diag;
	uint64_t said;

	pthread_mutex_lock(&d->lock);
	said = d->said;
	pthread_mutex_unlock(&d->lock);
	return said;
}

void vma_diag_mark(const struct vma_diag *diag, struct vma_diag_mark *mark)
{
	struct vma_diag *d = (struct vma_diag *)diag;
	size_t i;

	pthread_mutex_lock(&d->lock);
	mark->logged = d->logged;
	mark->said = d->said;
	mark->worst = d->worst;
	mark->stopped = d->stopped;
	mark->nr_keys = d->nr_keys;
	mark->counts = d->nr_keys ? malloc(d->nr_keys * sizeof(*mark->counts)) : NULL;
	for (i = 0; mark->counts && i < d->nr_keys; i++)
		mark->counts[i] = d->keys[i].count;
	if (d->nr_keys && !mark->counts)
		mark->nr_keys = SIZE_MAX; /* out of memory: cannot be rewound */
	pthread_mutex_unlock(&d->lock);
}

bool vma_diag_rewind(struct vma_diag *diag, const struct vma_diag_mark *mark)
{
	size_t i;

	if (mark->nr_keys == SIZE_MAX)
		return false;
	pthread_mutex_lock(&diag->lock);
	diag->mute += diag->logged - mark->logged;
	diag->logged = mark->logged;
	diag->said = mark->said;
	diag->worst = mark->worst;
	diag->stopped = mark->stopped;
	diag->nr_keys = mark->nr_keys;
	for (i = 0; i < mark->nr_keys; i++)
		diag->keys[i].count = mark->counts[i];
	pthread_mutex_unlock(&diag->lock);
	return true;
}

void vma_diag_unmute(struct vma_diag *diag)
{
	pthread_mutex_lock(&diag->lock);
	diag->mute = 0;
	pthread_mutex_unlock(&diag->lock);
}

void vma_diag_mark_release(struct vma_diag_mark *mark)
{
	free(mark->counts);
	mark->counts = NULL;
}

/* No lock: a hold is for a run on one thread, a window of a few records at a time. */
void vma_diag_hold(struct vma_diag *diag, bool on)
{
	diag->holding = on;
	if (on)
		diag->held = 0;
}

uint64_t vma_diag_held(const struct vma_diag *diag)
{
	return diag->held;
}
