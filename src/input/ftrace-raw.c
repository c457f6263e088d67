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
 * event stays unnamed.  A folder is held to the bounds of a trace.dat's
 * formats (kvm-internal.h), and its listing to as many entries.
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
#include "input/tep-lib.h"
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

/*
 * Entries one folder may hold: as many formats as an input keeps, and room
 * for what tracefs puts beside them (enable, filter, id, trigger, ...).
 */
#define MAX_DIR_ENTRIES (VMA_KVM_MAX_FORMATS + 1024u)

struct fmt_dir {
	struct vma_input *in;
	struct vma_kvm_priv *priv;
	const char *path;
	uint32_t loaded;
	uint32_t failed;
	uint64_t bytes;         /* of the texts loaded */
	int status;             /* VMA_OK, or why no further file is read (reported) */
};

/* The folder is refused (a cap was passed): said once, with what to do. */
static void refuse(struct fmt_dir *fd, const char *what)
{
	vma_diag_report(fd->in->diag, VMA_LVL_INPUT, fd->path, UINT64_MAX,
			"%s: not a kernel's event formats, nothing of %s is read (--event-formats"
			" names the recording kernel's tracefs events folder, or a folder of"
			" copies of its format files)", what, fd->in->path);
	fd->status = VMA_ERR_FORMAT;
}

static void add_file(struct fmt_dir *fd, int dirfd, const char *name, const char *system,
		     const char *shown)
{
	size_t len;
	char *text = slurp(dirfd, name, &len);
	bool read = text != NULL;
	int ret = read ? vma_kvm_add_format(fd->priv, system, text, len, UINT64_MAX) : -1;
	char what[100];

	free(text);
	if (ret == VMA_ERR_NOMEM) {
		fd->status = ret;
		return;
	}
	if (ret < 0) {
		if (fd->failed++ == 0) {
			vma_diag_report(fd->in->diag, VMA_LVL_WARN, fd->path, UINT64_MAX,
					"Event format %s %s; its events will be unnamed", shown,
					read ? "cannot be parsed" : "cannot be read");
		}
		return;
	}
	/* the same bounds as the formats of a trace.dat (kvm-internal.h) */
	fd->bytes += len;
	if (++fd->loaded > VMA_KVM_MAX_FORMATS) {
		snprintf(what, sizeof(what), "More than %u event formats in all",
			 VMA_KVM_MAX_FORMATS);
		refuse(fd, what);
	} else if (fd->bytes > VMA_KVM_MAX_FORMAT_TEXT) {
		snprintf(what, sizeof(what), "Event formats of more than %u MiB in all",
			 VMA_KVM_MAX_FORMAT_TEXT >> 20);
		refuse(fd, what);
	}
}

/* The names of a folder's entries, sorted, in one buffer. */
struct names {
	char *buf;
	size_t len, cap;
	const char **at;
	size_t n;
};

static void names_free(struct names *l)
{
	free(l->buf);
	free(l->at);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The entries of @dirfd's folder @sub, but those whose names start with a
 * dot, in name order, into @l (names_free() it in every case).
 * Return: 0; 1 when there are more than MAX_DIR_ENTRIES (reported); -1 with
 * errno set.
 */
static int list_names(struct fmt_dir *fd, int dirfd, const char *sub, struct names *l)
{
	int dfd = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	char what[400];
	size_t off, i;
	int rc = 0;

	memset(l, 0, sizeof(*l));
	if (!dir) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	for (;;) {
		struct dirent *e;
		size_t n;

		errno = 0;
		e = readdir(dir);
		if (!e) {
			rc = errno ? -1 : 0;
			break;
		}
		if (e->d_name[0] == '.')
			continue;
		if (l->n == MAX_DIR_ENTRIES) {
			snprintf(what, sizeof(what), "More than %u entries in %s", MAX_DIR_ENTRIES,
				 strcmp(sub, ".") ? sub : "the folder");
			refuse(fd, what);
			rc = 1;
			break;
		}
		n = strlen(e->d_name) + 1;
		if (vma_grow(l->buf, &l->cap, l->len + n, 4096)) {
			errno = ENOMEM;
			rc = -1;
			break;
		}
		memcpy(l->buf + l->len, e->d_name, n);
		l->len += n;
		l->n++;
	}
	closedir(dir);
	if (rc)
		return rc;
	l->at = malloc((l->n ? l->n : 1) * sizeof(*l->at));
	if (!l->at) {
		errno = ENOMEM;
		return -1;
	}
	for (off = 0, i = 0; i < l->n; i++) {
		l->at[i] = l->buf + off;
		off += strlen(l->at[i]) + 1;
	}
	qsort(l->at, l->n, sizeof(*l->at), by_name);
	return 0;
}

/* tracefs layout: <system>/<event>/format. */
static void add_system_dir(struct fmt_dir *fd, int dirfd, const char *system)
{
	int sysfd = openat(dirfd, system, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct names l;
	size_t i;
	int rc;

	if (sysfd < 0)
		return;
	rc = list_names(fd, dirfd, system, &l);
	if (rc < 0 && errno == ENOMEM)
		fd->status = VMA_ERR_NOMEM;
	for (i = 0; rc == 0 && i < l.n && fd->status == VMA_OK; i++) {
		char rel[512], shown[600];
		struct stat st;

		snprintf(rel, sizeof(rel), "%s/format", l.at[i]);
		if (fstatat(sysfd, rel, &st, 0) == 0 && S_ISREG(st.st_mode)) {
			snprintf(shown, sizeof(shown), "%s/%s", system, rel);
			add_file(fd, sysfd, rel, system, shown);
		}
	}
	names_free(&l);
	close(sysfd);
}

static int load_dir(struct vma_input *in, struct vma_kvm_priv *priv, const char *path)
{
	struct fmt_dir fd = { .in = in, .priv = priv, .path = path };
	struct names l;
	size_t len, i;
	char *text;
	int dirfd, rc;

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
	rc = list_names(&fd, dirfd, ".", &l);
	if (rc < 0 && errno == ENOMEM)
		fd.status = VMA_ERR_NOMEM;
	for (i = 0; rc == 0 && i < l.n && fd.status == VMA_OK; i++) {
		const char *name = l.at[i];
		size_t nlen = strlen(name);
		const char *dot = strchr(name, '.');
		struct stat st;

		if (fstatat(dirfd, name, &st, 0) != 0)
			continue;
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
	names_free(&l);
	close(dirfd);
	if (fd.status != VMA_OK)
		return fd.status;
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
	struct tep_event *ev = vma_tep()->tep_find_event_by_name(priv->tep, "kvm", name);

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
	const char *why;
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
	priv->fields_only = input->options && input->options->fields_only;
	/* trace_pipe_raw pages are in the host's order; vm-trace ran on x86-64 */
	ret = vma_kvm_tep_new(priv, false, 8, 4096, &why);
	if (ret == VMA_ERR_IO) {
		vma_diag_report(input->diag, VMA_LVL_SYSTEM, input->path, UINT64_MAX,
				"Cannot load libtraceevent to read this raw ftrace dump: %s", why);
	} else if (ret == VMA_OK) {
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
