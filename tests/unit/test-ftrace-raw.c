/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the raw ftrace dump reader (src/input/ftrace-raw.c): the vm-trace
 * capture of ../shared with its format folder, dumps made by the fixture
 * writer (with a written format folder, a tracefs-style tree, or the
 * built-in kvm_entry/kvm_exit formats), truncation, and bad folders.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* a reader that loops must fail, not hang the test run */
TestSuite(ftrace_raw_real, .timeout = 120);
TestSuite(ftrace_raw_written, .timeout = 120);
TestSuite(ftrace_raw_probe, .timeout = 120);
TestSuite(ftrace_raw_golden, .timeout = 120);

#include "test-kvm-util.h"
#include "kvm-scenario.h"

Test(ftrace_raw_real, pvm_vmtrace_with_its_formats)
{
	static const struct {
		const char *name;
		size_t count;
	} want[] = {
		{ "kvm_fpu", 12000 }, { "kvm_emulate_insn", 6000 }, { "kvm_userspace_exit", 6000 },
		{ "kvm_pio", 4000 }, { "vcpu_match_mmio", 2000 }, { "kvm_mmio", 2000 },
		{ "sched_switch", 25 },
		/* the other events, 8 of 5 kinds; libtraceevent's kbuffer finds the same */
		{ "kvm_unmap_hva_range", 3 }, { "kvm_update_master_clock", 2 },
		{ "kvm_apicv_inhibit_changed", 1 }, { "kvm_write_tsc_offset", 1 },
		{ "kvm_track_tsc", 1 },
	};
	const char *path = kt_shared("kvm-pvm-vmtrace.bin");
	char formats[4096];
	struct vma_kvm_stream_stats st;
	struct kt_input t;
	struct kt_drain d;
	size_t i, sum = 0;

	snprintf(formats, sizeof(formats), "%s/../shared/traces/kvm-pvm-formats", kt_srcdir());
	kt_open(&t, path, NULL, formats, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.in.ops, &vma_ftrace_raw_ops, "recognised by its header");
	cr_assert_eq(t.open_ret, VMA_OK);
	cr_assert_eq(t.in.family, VMA_FAMILY_KVM);
	cr_assert_eq(t.nr_streams, 1);
	kt_drain(&t, &d);
	cr_assert_eq(d.end[0], VMA_END);
	vma_kvm_stream_stats(t.streams[0], &st);
	cr_assert_eq(st.pages, 209);
	cr_assert_eq(st.missed_pages, 0);
	cr_assert_eq(st.damaged, 0);
	cr_assert_eq(kt_count(&d, "lost"), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_expect_eq(kt_count(&d, want[i].name), want[i].count, "%s", want[i].name);
		sum += want[i].count;
	}
	cr_assert_eq(d.nr, sum);
	cr_assert_eq(d.nr, 32033);
	cr_assert_eq(vma_diag_worst(t.diag), VMA_LVL_NONE, "the header ids agree with the formats");
	free(d.recs);
	kt_close(&t);
}

Test(ftrace_raw_real, pvm_vmtrace_without_formats)
{
	const char *path = kt_shared("kvm-pvm-vmtrace.bin");
	struct kt_input t;
	struct kt_drain d;

	kt_open(&t, path, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_OK);
	kt_drain(&t, &d);
	/* PVM emits no kvm_entry/kvm_exit: everything stays unnamed, nothing is lost */
	cr_assert_eq(d.nr, 32033);
	cr_assert_eq(kt_count(&d, "unknown"), 32033);
	free(d.recs);
	kt_close(&t);
}

/* ---- dumps from the fixture writer ---------------------------------------- */

struct dir_ctx {
	char dir[256];
	bool tree; /* tracefs layout: <system>/<event>/format */
};

static int put_file(void *arg, const char *system, const char *name, const char *text)
{
	struct dir_ctx *c = arg;
	char path[600];
	FILE *f;

	if (!system) {
		snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	} else if (c->tree) {
		snprintf(path, sizeof(path), "%s/%s", c->dir, system);
		mkdir(path, 0777);
		snprintf(path, sizeof(path), "%s/%s/%s", c->dir, system, name);
		mkdir(path, 0777);
		snprintf(path, sizeof(path), "%s/%s/%s/format", c->dir, system, name);
	} else {
		snprintf(path, sizeof(path), "%s/%s.%s.format", c->dir, system, name);
	}
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return 0;
}

static void make_dir(struct dir_ctx *c, enum vma_mkdat_arch arch, bool tree)
{
	snprintf(c->dir, sizeof(c->dir), "/tmp/vma-kvmfmt-XXXXXX");
	cr_assert_not_null(mkdtemp(c->dir));
	c->tree = tree;
	cr_assert_eq(vma_mkdat_formats(arch, put_file, c), 0);
}

static void remove_tree(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *e;

	if (!dir) {
		unlink(path);
		return;
	}
	while ((e = readdir(dir))) {
		char sub[1024];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		remove_tree(sub);
	}
	closedir(dir);
	rmdir(path);
}

/* Reads a writer dump and compares it with what the writer put in. */
static void raw_roundtrip(enum vma_mkdat_arch arch, bool tree, bool builtin)
{
	struct vma_mkdat_opts o = { .arch = arch, .version = 7, .nr_cpus = 1, .nr_vcpus = 2,
				    .seed = 21, .raw = true, .extras = true };
	struct vma_mkdat_rec *want;
	unsigned char *img;
	size_t len, nwant, i;
	struct dir_ctx c;
	struct kt_input t;
	struct kt_drain d;

	cr_assert_eq(vma_mkdat_build(&o, &img, &len, &want, &nwant), 0);
	if (!builtin)
		make_dir(&c, arch, tree);
	kt_open_mem(&t, img, len, NULL, builtin ? NULL : c.dir, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.in.ops, &vma_ftrace_raw_ops);
	cr_assert_eq(t.open_ret, VMA_OK);
	kt_drain(&t, &d);
	cr_assert_eq(d.end[0], VMA_END);
	cr_assert_eq(d.nr, nwant);
	for (i = 0; i < d.nr; i++) {
		const struct vma_record *r = &d.recs[i].rec;
		const struct vma_mkdat_rec *w = &want[i];
		bool known = !builtin || w->event == VMA_KVM_EXIT || w->event == VMA_KVM_ENTRY ||
			w->event == VMA_KVM_LOST;
		uint16_t j;

		cr_assert_eq(r->tsc, w->time, "record %zu", i);
		if (!known) {
			cr_assert_eq(r->event, VMA_KVM_OTHER);
			cr_assert_str_eq(d.recs[i].name, "unknown");
			continue;
		}
		cr_assert_eq(r->event, w->event, "record %zu", i);
		if (r->event == VMA_KVM_OTHER) {
			cr_assert_str_eq(d.recs[i].name, "kvm_apic");
			continue;
		}
		for (j = 0; j < w->nr_data; j++) {
			cr_assert_eq(r->data[j], w->data[j], "word %u of record %zu (%s)", j, i,
				     d.recs[i].name);
		}
	}
	free(d.recs);
	kt_close(&t);
	if (!builtin)
		remove_tree(c.dir);
	free(img);
	free(want);
}

Test(ftrace_raw_written, vmx_with_a_format_folder)
{
	raw_roundtrip(VMA_MKDAT_VMX, false, false);
}

Test(ftrace_raw_written, arm64_with_a_tracefs_tree)
{
	raw_roundtrip(VMA_MKDAT_ARM64, true, false);
}

Test(ftrace_raw_written, vmx_with_the_builtin_formats)
{
	/* the built-in x86 layout is the one the writer's formats use */
	raw_roundtrip(VMA_MKDAT_VMX, false, true);
}

Test(ftrace_raw_written, truncated_dump)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_VMX, .version = 7, .nr_cpus = 1,
				    .seed = 22, .raw = true };
	struct vma_mkdat_rec *want;
	unsigned char *img;
	size_t len, nwant;
	struct kt_input t;
	struct kt_drain d;

	cr_assert_eq(vma_mkdat_build(&o, &img, &len, &want, &nwant), 0);
	cr_assert_gt(len, 8 + 3 * 4096);
	kt_open_mem(&t, img, 8 + 2 * 4096 + 1000, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_OK);
	kt_drain(&t, &d);
	cr_assert_eq(d.end[0], VMA_ERR_DAMAGED);
	cr_assert_gt(d.nr, 0);
	cr_assert_lt(d.nr, nwant);
	cr_assert_eq(d.recs[d.nr - 1].rec.tsc, want[d.nr - 1].time, "a prefix of the records");
	cr_assert_eq(vma_diag_worst(t.diag), VMA_LVL_FILE);
	free(d.recs);
	kt_close(&t);
	free(img);
	free(want);
}

Test(ftrace_raw_written, bad_format_folders)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_VMX, .version = 7, .nr_cpus = 1,
				    .seed = 23, .raw = true };
	struct vma_mkdat_rec *want;
	unsigned char *img;
	size_t len, nwant;
	struct kt_input t;
	char empty[] = "/tmp/vma-kvmempty-XXXXXX";

	cr_assert_eq(vma_mkdat_build(&o, &img, &len, &want, &nwant), 0);
	kt_open_mem(&t, img, len, NULL, "/nonexistent/formats", VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_ERR_IO);
	kt_close(&t);

	cr_assert_not_null(mkdtemp(empty));
	kt_open_mem(&t, img, len, NULL, empty, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_ERR_FORMAT);
	kt_close(&t);
	rmdir(empty);
	free(img);
	free(want);
}

Test(ftrace_raw_probe, recognises_the_vm_trace_header)
{
	static const unsigned char hdr[] = { 0x01, 0x6d, 0xe9, 0xcc, 0x73, 0x00, 0x67, 0x00 };
	static const unsigned char dat[] = "\x17\x08\x44tracing7";

	cr_assert(vma_ftrace_raw_ops.probe(hdr, sizeof(hdr)));
	cr_assert_not(vma_ftrace_raw_ops.probe(hdr, 4));
	cr_assert_not(vma_ftrace_raw_ops.probe(dat, sizeof(dat) - 1));
	cr_assert_str_eq(vma_ftrace_raw_ops.name, "ftrace-raw");
}

/* The committed raw fixture and its format folder. */
Test(ftrace_raw_golden, vmx_raw)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_VMX, .version = 7, .nr_cpus = 1,
				    .nr_vcpus = 1, .exits = 150, .seed = 1, .raw = true };
	struct vma_mkdat_rec *want;
	unsigned char *img, *onfile;
	size_t len, nwant, flen, i;
	struct kt_input t;
	struct kt_drain d;
	char formats[4096 + 256];
	FILE *f;

	cr_assert_eq(vma_mkdat_build(&o, &img, &len, &want, &nwant), 0);
	f = fopen(kt_fixture("vmx-raw.bin"), "rb");
	cr_assert_not_null(f);
	onfile = malloc(len + 1);
	flen = fread(onfile, 1, len + 1, f);
	fclose(f);
	cr_assert_eq(flen, len, "regenerate vmx-raw.bin (traces/kvm/README)");
	cr_assert_eq(memcmp(onfile, img, len), 0, "regenerate vmx-raw.bin (traces/kvm/README)");
	free(onfile);

	snprintf(formats, sizeof(formats), "%s", kt_fixture("vmx-raw-formats"));
	kt_open(&t, kt_fixture("vmx-raw.bin"), NULL, formats, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_OK);
	kt_drain(&t, &d);
	cr_assert_eq(d.nr, nwant);
	for (i = 0; i < d.nr; i++) {
		cr_assert_eq(d.recs[i].rec.event, want[i].event);
		cr_assert_eq(d.recs[i].rec.tsc, want[i].time);
	}
	free(d.recs);
	kt_close(&t);
	free(img);
	free(want);
}
