/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers of the KVM reader tests: open a file or an in-memory image
 * through a reader's ops directly (as vma_input_open() would), collect the
 * streams it announces, drain them, and find ../shared and traces/kvm.
 * Static functions only: each test binary includes it once.
 */
#ifndef VMALYZE_TEST_KVM_UTIL_H
#define VMALYZE_TEST_KVM_UTIL_H

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/kvm-internal.h"
#include "vmalyze/diag.h"
#include "vmalyze/grow.h"
#include "vmalyze/input.h"
#include "vmalyze/kvm-input.h"
#include "vmalyze/status.h"

/* every test binary uses a different subset of these helpers */
#pragma GCC diagnostic ignored "-Wunused-function"

#define KT_MAX_STREAMS 64

struct kt_input {
	struct vma_input in;
	struct vma_input_options opts;
	struct vma_diag *diag;
	struct vma_stream *streams[KT_MAX_STREAMS];
	int nr_streams;
	int open_ret;
	char tmp[64];
};

/* One record as drained, with the stream it came from. */
struct kt_rec {
	struct vma_record rec;
	int stream;
	char name[48];
};

struct kt_drain {
	struct kt_rec *recs;
	size_t nr;
	int end[KT_MAX_STREAMS]; /* status each stream ended with */
};

static int kt_new_stream(void *arg, struct vma_stream *stream)
{
	struct kt_input *t = arg;

	cr_assert_lt(t->nr_streams, KT_MAX_STREAMS);
	t->streams[t->nr_streams++] = stream;
	return VMA_OK;
}

/* The root of the source tree, from the harness or from this file's path. */
static const char *kt_srcdir(void)
{
	static char dir[4096];
	const char *env = getenv("top_srcdir");
	char *p;

	if (env && *env)
		return env;
	snprintf(dir, sizeof(dir), "%s", __FILE__);
	p = strstr(dir, "/tests/unit/");
	if (p) {
		*p = '\0';
		return dir;
	}
	return ".";
}

/* A file of ../shared/traces, or NULL (test skipped) when the folder is absent. */
static const char *kt_shared(const char *name)
{
	static char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/../shared/traces/%s", kt_srcdir(), name);
	if (stat(path, &st) < 0) {
		cr_skip_test("%s is absent (no ../shared)", path);
		return NULL;
	}
	return path;
}

/* A file of traces/kvm in the source tree. */
static const char *kt_fixture(const char *name)
{
	static char path[4096 + 256]; /* the source root's 4096 and the rest */

	snprintf(path, sizeof(path), "%s/traces/kvm/%s", kt_srcdir(), name);
	return path;
}

/*
 * Opens @path with @ops (NULL: pick by probe among the KVM readers) and
 * the reader options @opts.  @tolerance is the diag tolerance.  Never
 * fails the test by itself.
 */
static void kt_open_opts(struct kt_input *t, const char *path, const struct vma_input_ops *ops,
			 const struct vma_input_options *opts, enum vma_level tolerance)
{
	unsigned char head[16] = { 0 };
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->diag = vma_diag_create(tolerance, VMA_VERB_QUIET);
	cr_assert_not_null(t->diag);
	t->opts = *opts;
	t->in.path = strdup(path);
	t->in.fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(t->in.fd, 0, "cannot open %s", path);
	cr_assert_eq(fstat(t->in.fd, &st), 0);
	t->in.size = (uint64_t)st.st_size;
	t->in.diag = t->diag;
	t->in.options = &t->opts;
	t->in.new_stream = kt_new_stream;
	t->in.new_stream_arg = t;
	if (!ops) {
		cr_assert_geq(pread(t->in.fd, head, sizeof(head), 0), 0);
		ops = vma_tracedat_ops.probe(head, sizeof(head)) ? &vma_tracedat_ops :
			&vma_ftrace_raw_ops;
	}
	t->in.ops = ops;
	t->open_ret = ops->open(&t->in);
}

/* Same, with the default options and formats from @formats_dir (or none). */
static void kt_open(struct kt_input *t, const char *path, const struct vma_input_ops *ops,
		    const char *formats_dir, enum vma_level tolerance)
{
	const struct vma_input_options opts = { .event_formats_dir = formats_dir };

	kt_open_opts(t, path, ops, &opts, tolerance);
}

/* kt_open_opts() of an image in memory: written to an unlinked-on-close temp file. */
static void kt_open_mem_opts(struct kt_input *t, const void *data, size_t len,
			     const struct vma_input_ops *ops,
			     const struct vma_input_options *opts, enum vma_level tolerance)
{
	char tmp[] = "/tmp/vma-kvmtest-XXXXXX";
	int fd = mkstemp(tmp);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	kt_open_opts(t, tmp, ops, opts, tolerance);
	unlink(tmp);
}

/* kt_open() of an image in memory. */
static void kt_open_mem(struct kt_input *t, const void *data, size_t len,
			const struct vma_input_ops *ops, const char *formats_dir,
			enum vma_level tolerance)
{
	const struct vma_input_options opts = { .event_formats_dir = formats_dir };

	kt_open_mem_opts(t, data, len, ops, &opts, tolerance);
}

static void kt_close(struct kt_input *t)
{
	if (t->in.ops && t->open_ret == VMA_OK)
		t->in.ops->close(&t->in);
	if (t->in.fd >= 0)
		close(t->in.fd);
	free(t->in.path);
	vma_diag_destroy(t->diag);
	memset(t, 0, sizeof(*t));
}

/*
 * Reads every stream to its end, stream by stream: not the pipeline's run,
 * as each stream's own order and end status are what reader tests check
 * (doc/design.md, "The pipeline").
 */
static void kt_drain(struct kt_input *t, struct kt_drain *d)
{
	size_t cap = 0;
	int i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < t->nr_streams; i++) {
		int ret;

		while ((ret = t->streams[i]->next(t->streams[i])) == VMA_OK) {
			struct kt_rec *r;

			cr_assert_eq(vma_grow(d->recs, &cap, d->nr + 1, 4096), VMA_OK);
			r = &d->recs[d->nr++];
			r->rec = t->streams[i]->rec;
			r->stream = i;
			snprintf(r->name, sizeof(r->name), "%s",
				 vma_kvm_record_name(&t->in, &t->streams[i]->rec));
		}
		d->end[i] = ret;
		/* the end is sticky */
		cr_assert_eq(t->streams[i]->next(t->streams[i]), ret);
	}
}

static size_t kt_count(const struct kt_drain *d, const char *name)
{
	size_t i, n = 0;

	for (i = 0; i < d->nr; i++)
		n += !strcmp(d->recs[i].name, name);
	return n;
}

/* kvm_exit records whose exit reason (low 16 bits on VMX) is @reason. */
static size_t kt_count_exits(const struct kt_drain *d, uint32_t reason)
{
	size_t i, n = 0;

	for (i = 0; i < d->nr; i++) {
		const struct vma_record *r = &d->recs[i].rec;

		n += r->event == VMA_KVM_EXIT && (r->data[0] & 0xffff) == reason;
	}
	return n;
}

#endif /* VMALYZE_TEST_KVM_UTIL_H */
