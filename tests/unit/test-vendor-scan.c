/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A Xen dump's first pass over its vendor look-ahead (cli/vendor-scan.h):
 * a file whose look-ahead holds no SVM exit code is dumped without holding
 * its lines, and every dump of a file has the lines the dump of the same
 * bytes from a pipe has (which holds them, as a pipe cannot be read twice):
 * an SVM trace of Xen 4.17 whose first exits have codes both vendors use,
 * a VMX trace, one whose first SVM code comes past the look-ahead, and one
 * that ends before it.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "cli/run.h"
#include "cli/vendor-scan.h"
#include "vmalyze/diag.h"
#include "vmalyze/dump.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include "xtw-file.h"

#define RUNNABLE_TO_RUNNING (TRC_SCHED_RUNSTATE_CHANGE | 1u << 8 | 0u << 4)
#define SVM_CR0_READ 0x00u /* VMX's EXCEPTION_NMI */
#define SVM_INTR 0x60u     /* the lowest code VMX has not */

/*
 * A trace of d1v0 on pcpu 0: @exits vmexit/vmentry pairs of Xen 4.17's
 * shared id, the one at @svm_at (if below @exits) of SVM_INTR, the others
 * of @code.  Written to a temporary file named into @path.
 */
static void write_trace(char *path, uint32_t exits, uint32_t svm_at, uint32_t code)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint32_t word = 1u << 16, i;
	uint64_t tsc = 1000;

	cr_assert_not_null(w);
	cr_assert_eq(vma_xtw_record(w, 0, RUNNABLE_TO_RUNNING, tsc, &word, 1), 0);
	for (i = 0; i < exits; i++) {
		uint32_t exit[2] = { i == svm_at ? SVM_INTR : code, 0x1000u + i };

		cr_assert_eq(vma_xtw_record(w, 0, TRC_HVM_VMX_EXIT, tsc += 100, exit, 2), 0);
		cr_assert_eq(vma_xtw_record(w, 0, TRC_HVM_VMENTRY, tsc += 400, NULL, 0), 0);
	}
	xtw_to_temp_file(w, "/tmp/vmalyze-vendor-XXXXXX", path);
}

/* The first pass over @path, with the options of a plain one-thread run. */
static bool scan(const char *path)
{
	struct vma_pipeline_options o = { .cpu_hz = 1000000000ull, .threads = 1 };

	return vma_vendor_scan_clear(path, &o);
}

struct feeder {
	int fd;
	const char *path;
};

/* Copies the file into the pipe, as `cat FILE |` would. */
static void *feed(void *arg)
{
	struct feeder *f = arg;
	FILE *in = fopen(f->path, "rb");
	char buf[65536];
	size_t n;

	while (in && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (write(f->fd, buf, n) != (ssize_t)n)
			break;
	}
	if (in)
		fclose(in);
	close(f->fd);
	return NULL;
}

/* vmalyze -a --cpu-hz=1G [@extra] of @path, or of its bytes through a pipe: stdout (owned). */
static char *dump(const char *path, bool piped, const char *extra)
{
	char a[] = "-a", hz[] = "--cpu-hz=1G", name[] = "vmalyze";
	char *argv[5] = { name, a, hz }, *text = NULL;
	struct vma_run_source src = { .path = path, .fd = -1 };
	struct feeder f = { .path = path };
	struct vma_options opts;
	struct vma_diag *diag;
	pthread_t thread;
	int argc = 3, fds[2];
	size_t len;
	FILE *out;

	if (extra)
		argv[argc++] = (char *)extra;
	argv[argc++] = (char *)path;
	cr_assert_eq(vma_options_parse(&opts, argc, argv, stderr), VMA_OK);
	out = open_memstream(&text, &len);
	diag = vma_diag_create_to(stderr, VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	cr_assert(out && diag);
	if (piped) {
		cr_assert_eq(pipe(fds), 0);
		f.fd = fds[1];
		cr_assert_eq(pthread_create(&thread, NULL, feed, &f), 0);
		src.fd = fds[0];
		src.name = path;
	}
	cr_assert_eq(vma_run_source(&opts, &src, NULL, diag, out), VMA_OK);
	if (piped)
		pthread_join(thread, NULL);
	vma_diag_destroy(diag);
	fclose(out);
	return text;
}

/*
 * @a and @b are the same text; else fail naming their first differing line
 * (criterion cannot carry megabytes of text in a message).
 */
static void same_text(const char *a, const char *b, const char *what)
{
	size_t i = 0, line = 1;

	while (a[i] && a[i] == b[i]) {
		if (a[i] == '\n')
			line++;
		i++;
	}
	cr_assert(a[i] == b[i], "%s: line %zu differs", what, line);
}

/* A stream that notes the size of its first write (unbuffered: the dump's own writes). */
static ssize_t note_write(void *cookie, const char *buf, size_t len)
{
	size_t *first = cookie;

	(void)buf;
	if (!*first)
		*first = len;
	return (ssize_t)len;
}

/*
 * The size of the first write of vmalyze -a --cpu-hz=1G @path: a dump
 * that holds its look-ahead writes it all at once when it lets it go,
 * one that does not writes its lines in batches of some 256 KiB.
 */
static size_t first_write(const char *path)
{
	char a[] = "-a", hz[] = "--cpu-hz=1G", name[] = "vmalyze";
	char *argv[] = { name, a, hz, (char *)path };
	struct vma_run_source src = { .path = path, .fd = -1 };
	cookie_io_functions_t io = { .write = note_write };
	struct vma_options opts;
	struct vma_diag *diag;
	size_t first = 0;
	FILE *out;

	cr_assert_eq(vma_options_parse(&opts, 4, argv, stderr), VMA_OK);
	out = fopencookie(&first, "w", io);
	diag = vma_diag_create_to(stderr, VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	cr_assert(out && diag);
	setvbuf(out, NULL, _IONBF, 0);
	cr_assert_eq(vma_run_source(&opts, &src, NULL, diag, out), VMA_OK);
	vma_diag_destroy(diag);
	fclose(out);
	return first;
}

/* The dump of the file has the lines of the dump from a pipe. */
static void same_as_piped(const char *path)
{
	char *file = dump(path, false, NULL), *piped = dump(path, true, NULL);

	cr_assert_gt(strlen(file), 0);
	same_text(file, piped, "the file's dump against the pipe's");
	free(file);
	free(piped);
}

Test(vendor_scan, an_svm_trace_whose_first_codes_both_vendors_use)
{
	char path[64], *file, *svm;

	write_trace(path, 40, 30, SVM_CR0_READ);
	cr_assert_not(scan(path));
	same_as_piped(path);
	/* Its first exits are named as SVM's: as with --svm-mode. */
	file = dump(path, false, NULL);
	svm = dump(path, false, "--svm-mode");
	same_text(file, svm, "the dump against --svm-mode's");
	free(file);
	free(svm);
	unlink(path);
}

Test(vendor_scan, a_vmx_trace_holds_nothing)
{
	char path[64];
	size_t first;

	write_trace(path, 40000, UINT32_MAX, SVM_CR0_READ);
	cr_assert(scan(path));
	same_as_piped(path);
	/* Its 65,536 held lines would be some 3.5 MB, written at once. */
	first = first_write(path);
	cr_assert(first > 0 && first < (1u << 20), "first write %zu bytes", first);
	unlink(path);
}

Test(vendor_scan, an_svm_code_past_the_lookahead)
{
	char path[64];

	/* Record 2 * 33000 + 2 is past the look-ahead's records. */
	cr_assert_lt(VMA_DUMP_VENDOR_LOOKAHEAD, 2u * 33000u + 2u);
	write_trace(path, 33010, 33000, SVM_CR0_READ);
	cr_assert(scan(path));
	same_as_piped(path);
	unlink(path);
	/* ...and at the look-ahead's last record. */
	cr_assert_eq(VMA_DUMP_VENDOR_LOOKAHEAD % 2, 0);
	write_trace(path, 33010, VMA_DUMP_VENDOR_LOOKAHEAD / 2 - 1, SVM_CR0_READ);
	cr_assert_not(scan(path));
	same_as_piped(path);
	/* Held to its end: the look-ahead's lines leave in one write. */
	cr_assert_gt(first_write(path), 1u << 20);
	unlink(path);
}

Test(vendor_scan, a_trace_shorter_than_the_lookahead)
{
	char path[64];

	write_trace(path, 10, UINT32_MAX, 0x1eu);
	cr_assert(scan(path));
	same_as_piped(path);
	unlink(path);
}
