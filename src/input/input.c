/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening an input: naming it, making it seekable, recognising its format
 * from its first bytes and handing it to the matching reader.
 *
 * Readers seek (each pcpu stream reads its own windows), so a pipe or any
 * other non-regular file is first copied to an unlinked temporary file;
 * memory use stays small whatever the size of the input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmalyze/diag.h"
#include "vmalyze/input.h"
#include "vmalyze/status.h"

/* The KVM formats have exact magic numbers; xentrace's is weaker: last. */
static const struct vma_input_ops *const readers[] = {
	&vma_tracedat_ops,
	&vma_ftrace_raw_ops,
	&vma_xentrace_ops,
};

#define PROBE_BYTES 4096

static int spool_to_temp(int src, const char *name, struct vma_diag *diag, int *out)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	char buf[1 << 16];
	int fd;

	snprintf(path, sizeof(path), "%s/vmalyze-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		vma_diag_report(diag, VMA_LVL_INPUT, name, UINT64_MAX,
				"Cannot create a temporary file in %s to hold the input: %s",
				dir && *dir ? dir : "/tmp", strerror(errno));
		return VMA_ERR_IO;
	}
	unlink(path);
	for (;;) {
		ssize_t n = read(src, buf, sizeof(buf));
		ssize_t off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			vma_diag_report(diag, VMA_LVL_INPUT, name, UINT64_MAX, "Cannot read: %s",
					strerror(errno));
			close(fd);
			return VMA_ERR_IO;
		}
		if (n == 0)
			break;
		while (off < n) {
			ssize_t w = write(fd, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				vma_diag_report(diag, VMA_LVL_SYSTEM, name, UINT64_MAX,
						"Cannot write the temporary copy: %s",
						strerror(errno));
				close(fd);
				return VMA_ERR_IO;
			}
			off += w;
		}
	}
	*out = fd;
	return VMA_OK;
}

int vma_input_open(const char *path, const struct vma_input_options *options,
		   struct vma_diag *diag, vma_new_stream_fn new_stream, void *arg,
		   struct vma_input **out)
{
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "<stdin>" : path;
	unsigned char head[PROBE_BYTES];
	struct vma_input *in;
	struct stat st;
	ssize_t got;
	size_t i;
	int fd, rc;

	*out = NULL;
	fd = is_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		vma_diag_report(diag, VMA_LVL_INPUT, name, UINT64_MAX, "Cannot open: %s",
				strerror(errno));
		return VMA_ERR_IO;
	}
	if (fstat(fd, &st) < 0) {
		vma_diag_report(diag, VMA_LVL_INPUT, name, UINT64_MAX, "Cannot stat: %s",
				strerror(errno));
		close(fd);
		return VMA_ERR_IO;
	}
	if (S_ISDIR(st.st_mode)) {
		vma_diag_report(diag, VMA_LVL_INPUT, name, UINT64_MAX,
				"Is a directory, not a trace file");
		close(fd);
		return VMA_ERR_IO;
	}
	if (!S_ISREG(st.st_mode)) {
		int tmp;

		rc = spool_to_temp(fd, name, diag, &tmp);
		close(fd);
		if (rc)
			return rc;
		fd = tmp;
		if (fstat(fd, &st) < 0) {
			close(fd);
			return VMA_ERR_IO;
		}
	}
	if (st.st_size == 0) {
		vma_diag_report(diag, VMA_LVL_INPUT, name, UINT64_MAX, "Is empty: no trace records");
		close(fd);
		return VMA_ERR_FORMAT;
	}
	got = pread(fd, head, sizeof(head), 0);
	if (got < 0) {
		vma_diag_report(diag, VMA_LVL_INPUT, name, 0, "Cannot read: %s", strerror(errno));
		close(fd);
		return VMA_ERR_IO;
	}

	in = calloc(1, sizeof(*in));
	if (!in || !(in->path = strdup(name))) {
		free(in);
		close(fd);
		return VMA_ERR_NOMEM;
	}
	in->fd = fd;
	in->size = (uint64_t)st.st_size;
	in->diag = diag;
	in->options = options;
	in->new_stream = new_stream;
	in->new_stream_arg = arg;
	for (i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		if (readers[i]->probe(head, (size_t)got)) {
			in->ops = readers[i];
			break;
		}
	}
	if (!in->ops) {
		vma_diag_report(diag, VMA_LVL_INPUT, name, 0,
				"Not a trace vmalyze reads (not xentrace, trace.dat or a raw ftrace "
				"ring-buffer dump); first word 0x%02x%02x%02x%02x",
				got > 3 ? head[3] : 0, got > 2 ? head[2] : 0, got > 1 ? head[1] : 0,
				head[0]);
		vma_input_close(in);
		return VMA_ERR_FORMAT;
	}
	rc = in->ops->open(in);
	if (rc) {
		vma_input_close(in);
		return rc;
	}
	*out = in;
	return VMA_OK;
}

void vma_input_close(struct vma_input *input)
{
	if (!input)
		return;
	if (input->ops && input->ops->close)
		input->ops->close(input);
	if (input->fd >= 0)
		close(input->fd);
	free(input->path);
	free(input);
}
