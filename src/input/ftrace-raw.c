/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reader of raw ftrace ring-buffer dumps in the vm-trace layout: an 8-byte
 * header {u32 0xcce96d01, u16 kvm_entry id, u16 kvm_exit id}, then the
 * pages one cpu's per_cpu/cpuN/trace_pipe_raw handed out, back to back.
 *
 * Such a dump carries no event formats.  They come from a folder given
 * with --event-formats: either copies named <system>.<event>.format next to
 * header_page and header_event, or a tracefs events directory itself
 * (<system>/<event>/format).  Without one, kvm_entry and kvm_exit are read
 * with built-in x86 formats under the ids the header names, and every other
 * event stays unnamed.
 *
 * The dump does not say which cpu it came from or which trace clock was
 * used: its records are cpu 0, and stamps are taken as nanoseconds (the
 * default "local" clock).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "input/kvm-internal.h"
#include "vmalyze/grow.h"
#include "vmalyze/diag.h"
#include "vmalyze/status.h"

#define VMTRACE_MAGIC 0xcce96d01u
#define VMTRACE_HEADER 8
/* Format files are a few KiB; anything bigger is not one. */
#define MAX_FORMAT_FILE (1u << 20)

static bool ftrace_raw_probe(const unsigned char *head, size_t len)
{
	return len >= VMTRACE_HEADER && vma_get32(head, false) == VMTRACE_MAGIC;
}

/* Whole small file at @dirfd/@name.  Return: owned, NULL with errno set. */
static char *slurp(int dirfd, const char *name, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t got;

		if (n + 1 >= cap) {
			if (n + 2 > MAX_FORMAT_FILE) {
				errno = EFBIG;
				goto fail;
			}
			if (vma_grow(buf, &cap, n + 2, 4096)) {
				errno = ENOMEM;
				goto fail;
			}
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}

struct fmt_dir {
	struct vma_input *in;
	struct vma_kvm_priv *priv;
	const char *path;
	uint32_t loaded;
	uint32_t failed;
};

static void add_file(struct fmt_dir *fd, int dirfd, const char *name, const char *system,
		     const char *shown)
{
	size_t len;
	char *text = slurp(dirfd, name, &len);

	if (!text || vma_kvm_add_format(fd->priv, system, text, len, UINT64_MAX) < 0) {
		if (fd->failed++ == 0) {
			vma_diag_report(fd->in->diag, VMA_LVL_WARN, fd->path, UINT64_MAX,
					"Event format %s %s; its events will be unnamed", shown,
					text ? "cannot be parsed" : "cannot be read");
		}
	} else {
		fd->loaded++;
	}
	free(text);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* tracefs layout: <system>/<event>/format. */
static void add_system_dir(struct fmt_dir *fd, int dirfd, const char *system)
{
	int sysfd = openat(dirfd, system, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent **ents;
	int n, i;

	if (sysfd < 0)
		return;
	n = scandirat(sysfd, ".", &ents, NULL, by_name);
	for (i = 0; i < n; i++) {
		char rel[512], shown[600];
		struct stat st;

		snprintf(rel, sizeof(rel), "%s/format", ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && fstatat(sysfd, rel, &st, 0) == 0 &&
		    S_ISREG(st.st_mode)) {
			snprintf(shown, sizeof(shown), "%s/%s", system, rel);
			add_file(fd, sysfd, rel, system, shown);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	close(sysfd);
}

static int load_dir(struct vma_input *in, struct vma_kvm_priv *priv, const char *path)
{
	struct fmt_dir fd = { .in = in, .priv = priv, .path = path };
	struct dirent **ents;
	size_t len;
	char *text;
	int dirfd, n, i;

	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		vma_diag_report(in->diag, VMA_LVL_INPUT, path, UINT64_MAX,
				"Cannot open the event format folder: %s (--event-formats names the"
				" recording kernel's tracefs events folder)", strerror(errno));
		return VMA_ERR_IO;
	}
	text = slurp(dirfd, "header_page", &len);
	if (text) {
		int ret = vma_kvm_header_page(priv, text, len, true);

		free(text);
		if (ret == VMA_ERR_NOMEM) {
			close(dirfd);
			return ret;
		}
		if (ret < 0) {
			vma_diag_report(in->diag, VMA_LVL_WARN, path, UINT64_MAX,
					"The header_page file is not understood; 4096-byte pages are"
					" assumed");
		}
	}
	text = slurp(dirfd, "header_event", &len);
	if (text) {
		bool ok = vma_rb_header_event_ok(text, len);

		free(text);
		if (!ok) {
			close(dirfd);
			vma_diag_report(in->diag, VMA_LVL_INPUT, path, UINT64_MAX,
					"The header_event file describes a ring-buffer event header"
					" other than the 5-bit type / 27-bit delta one vmalyze reads:"
					" the dump cannot be read with these formats");
			return VMA_ERR_FORMAT;
		}
	}
	n = scandirat(dirfd, ".", &ents, NULL, by_name);
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		size_t nlen = strlen(name);
		const char *dot = strchr(name, '.');
		struct stat st;

		if (name[0] != '.' && fstatat(dirfd, name, &st, 0) == 0) {
			if (S_ISREG(st.st_mode) && dot && dot != name && nlen > 7 &&
			    !strcmp(name + nlen - 7, ".format") && dot < name + nlen - 7) {
				char system[256];
				size_t slen = (size_t)(dot - name);

				if (slen < sizeof(system)) {
					memcpy(system, name, slen);
					system[slen] = '\0';
					add_file(&fd, dirfd, name, system, name);
				}
			} else if (S_ISDIR(st.st_mode)) {
				add_system_dir(&fd, dirfd, name);
			}
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	close(dirfd);
	if (fd.loaded == 0) {
		vma_diag_report(in->diag, VMA_LVL_INPUT, path, UINT64_MAX,
				"No event formats in this folder (expected <system>.<event>.format"
				" files or a tracefs events directory)");
		return VMA_ERR_FORMAT;
	}
	if (fd.failed > 1) {
		vma_diag_info(in->diag, "%s: %" PRIu32 " event formats could not be used",
			      path, fd.failed);
	}
	return VMA_OK;
}

/* The header names the ids of kvm_entry and kvm_exit; the formats should agree. */
static void check_id(struct vma_input *in, struct vma_kvm_priv *priv, const char *name,
		     uint32_t id)
{
	struct tep_event *ev = tep_find_event_by_name(priv->tep, "kvm", name);

	if (ev && (uint32_t)ev->id != id) {
		vma_diag_report(in->diag, VMA_LVL_WARN, in->path, 0,
				"The dump header gives %s id %" PRIu32 " but the event formats"
				" say %d: the formats may be from another kernel (give the"
				" recording kernel's with --event-formats)", name, id, ev->id);
	}
}

static void ftrace_raw_close(struct vma_input *input)
{
	vma_kvm_priv_free(input->priv);
	input->priv = NULL;
}

static int ftrace_raw_open(struct vma_input *input)
{
	const char *dir = input->options ? input->options->event_formats_dir : NULL;
	struct vma_kvm_priv *priv;
	struct vma_kvm_region region;
	unsigned char head[VMTRACE_HEADER];
	uint32_t entry_id, exit_id, psize;
	uint64_t data;
	ssize_t n;
	int ret;

	do {
		n = pread(input->fd, head, sizeof(head), 0);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(head) || vma_get32(head, false) != VMTRACE_MAGIC) {
		vma_diag_report(input->diag, VMA_LVL_INPUT, input->path, 0,
				"Not a raw ftrace dump: the 8-byte vm-trace header is missing");
		return VMA_ERR_FORMAT;
	}
	entry_id = vma_get16(head + 4, false);
	exit_id = vma_get16(head + 6, false);

	priv = vma_kvm_priv_new();
	if (!priv)
		return VMA_ERR_NOMEM;
	input->priv = priv;
	/* trace_pipe_raw pages are in the host's order; vm-trace ran on x86-64 */
	ret = vma_kvm_tep_new(priv, false, 8, 4096);
	if (ret == VMA_OK) {
		ret = dir ? load_dir(input, priv, dir) :
			vma_kvm_default_formats(priv, entry_id, exit_id) ? VMA_ERR_NOMEM : VMA_OK;
	}
	if (ret < 0) {
		ftrace_raw_close(input);
		return ret;
	}
	priv->clock_name = strdup("local");
	priv->info.clock = priv->clock_name ? priv->clock_name : "local";
	priv->info.cpu_count = 1;
	input->clock = VMA_CLOCK_NS;
	input->family = VMA_FAMILY_KVM;
	input->clock_hz = 0;

	ret = vma_kvm_formats_load(priv, input->diag, input->path, false);
	if (ret < 0) {
		ftrace_raw_close(input);
		return ret;
	}
	if (dir) {
		check_id(input, priv, "kvm_entry", entry_id);
		check_id(input, priv, "kvm_exit", exit_id);
	}
	/* whole pages: a last page cut short is reported as truncation */
	psize = priv->layout.page_size;
	data = input->size > VMTRACE_HEADER ? input->size - VMTRACE_HEADER : 0;
	region.offset = VMTRACE_HEADER;
	region.size = (data + psize - 1) / psize * psize;
	region.compressed = false;
	region.page_size = psize;
	if (region.size == 0)
		return VMA_OK;
	ret = vma_kvm_stream_add(input, priv, 0, &region);
	if (ret < 0) {
		ftrace_raw_close(input);
		return ret;
	}
	vma_kvm_tell(input, priv);
	return ret;
}

const struct vma_input_ops vma_ftrace_raw_ops = {
	.name = "ftrace-raw",
	.probe = ftrace_raw_probe,
	.open = ftrace_raw_open,
	.close = ftrace_raw_close,
	.describe = vma_kvm_stream_describe,
};
