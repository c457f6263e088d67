/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the trace.dat reader (src/input/tracedat.c with the shared KVM
 * stream): the real traces of ../shared against what trace-cmd report
 * prints for them, files made by the fixture writer against the records
 * the writer put in (v6, v7 plain/zlib/zstd, VMX/SVM/arm64, big-endian,
 * instances, time extends, lost events), damaged files, and the committed
 * fixtures of traces/kvm.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <time.h>
#include <traceevent/event-parse.h>

/* a reader that loops must fail, not hang the test run */
TestSuite(tracedat_real, .timeout = 120);
TestSuite(tracedat_written, .timeout = 120);
TestSuite(tracedat_damage, .timeout = 120);
TestSuite(tracedat_probe, .timeout = 120);
TestSuite(tracedat_golden, .timeout = 120);

#include "test-kvm-util.h"
#include "kvm-scenario.h"

/* ---- real traces ---------------------------------------------------------- */

struct reason_count {
	uint32_t reason;
	size_t count;
};

static void check_reasons(const struct kt_drain *d, const struct reason_count *rc, size_t n,
			  size_t total)
{
	size_t i, sum = 0;

	for (i = 0; i < n; i++) {
		cr_expect_eq(kt_count_exits(d, rc[i].reason), rc[i].count, "exit reason %u",
			     rc[i].reason);
		sum += rc[i].count;
	}
	cr_assert_eq(sum, total, "the table covers every exit");
}

static uint64_t min_time(const struct kt_drain *d)
{
	uint64_t t = UINT64_MAX;
	size_t i;

	for (i = 0; i < d->nr; i++) {
		if (d->recs[i].rec.tsc < t)
			t = d->recs[i].rec.tsc;
	}
	return t;
}

Test(tracedat_real, vmx_host_matches_trace_cmd_report)
{
	/* counts of kvm_exit per reason in shared/reference/trace-cmd/kvm-vmx-host.report */
	static const struct reason_count rc[] = {
		{ 1, 18 }, { 10, 10 }, { 12, 1665 }, { 31, 7 }, { 32, 313 }, { 40, 9 },
		{ 45, 16 }, { 48, 40 }, { 49, 431 }, { 52, 145 }, { 56, 3206 },
	};
	const char *path = kt_shared("kvm-vmx-host.dat");
	const struct vma_kvm_file_info *fi;
	struct kt_input t;
	struct kt_drain d;
	struct vma_strbuf sb;
	int i;

	kt_open(&t, path, &vma_tracedat_ops, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_OK);
	cr_assert_eq(t.in.family, VMA_FAMILY_KVM);
	cr_assert_eq(t.in.clock, VMA_CLOCK_NS, "tsc2nsec with a TSC2NSEC option");
	fi = vma_kvm_file_info(&t.in);
	cr_assert_not_null(fi);
	cr_assert_eq(fi->version, 7);
	cr_assert_str_eq(fi->clock, "tsc2nsec");
	cr_assert_eq(fi->tsc2nsec_mult, 0x2bdc11f7u);
	cr_assert_eq(fi->tsc2nsec_shift, 31);
	cr_assert_eq(fi->trace_id, 0x2c75ff89fdaf813cull);
	cr_assert_eq(fi->cpu_count, 20);
	cr_assert_eq(fi->nr_guests, 1);
	cr_assert_eq(fi->guests[0].trace_id, 0x5d2b93f358166218ull);
	cr_assert_eq(fi->guests[0].nr_vcpus, 1);
	cr_assert_eq(fi->guests[0].vcpu_pid[0], 483882);

	/* describe: the first record of the first stream, as trace-cmd report prints it */
	cr_assert_eq(t.streams[0]->next(t.streams[0]), VMA_OK);
	vma_sb_init(&sb);
	t.in.ops->describe(t.streams[0], &sb);
	cr_assert_str_eq(sb.buf, " qemu-system-x86-483882 [000] 22150.964798: kvm_entry:"
			 "             vcpu 0 rip 0xffffffffa13f2e30");
	vma_sb_free(&sb);
	cr_assert_eq(t.streams[0]->rec.ctx, 483882);
	cr_assert_str_eq(vma_kvm_comm(&t.in, 483882), "qemu-system-x86");
	kt_close(&t);

	kt_open(&t, path, &vma_tracedat_ops, NULL, VMA_DEFAULT_TOLERANCE);
	kt_drain(&t, &d);
	cr_assert_eq(t.nr_streams, 15);
	for (i = 0; i < t.nr_streams; i++)
		cr_assert_eq(d.end[i], VMA_END);
	cr_assert_eq(kt_count(&d, "kvm_exit"), 5860);
	cr_assert_eq(kt_count(&d, "kvm_entry"), 5861);
	cr_assert_eq(d.nr, 5860 + 5861);
	check_reasons(&d, rc, sizeof(rc) / sizeof(rc[0]), 5860);
	/* trace-cmd report's first line: 22149.949586 (its stamps are rounded to us) */
	cr_assert_eq((min_time(&d) + 500) / 1000, 22149949586ull);
	free(d.recs);
	kt_close(&t);
}

Test(tracedat_real, vmx_host_2_matches_trace_cmd_report)
{
	static const struct reason_count rc[] = {
		{ 1, 101 }, { 12, 7590 }, { 30, 84 }, { 31, 20 }, { 32, 4726 }, { 40, 772 },
		{ 45, 61 }, { 48, 8 }, { 49, 983 }, { 52, 176 }, { 56, 8251 },
	};
	const char *path = kt_shared("kvm-vmx-host-2.dat");
	struct kt_input t;
	struct kt_drain d;

	kt_open(&t, path, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.in.ops, &vma_tracedat_ops, "recognised by its content");
	cr_assert_eq(t.open_ret, VMA_OK);
	kt_drain(&t, &d);
	cr_assert_eq(kt_count(&d, "kvm_exit"), 22772);
	cr_assert_eq(kt_count(&d, "kvm_entry"), 22771);
	check_reasons(&d, rc, sizeof(rc) / sizeof(rc[0]), 22772);
	free(d.recs);
	kt_close(&t);
}

Test(tracedat_real, guest_time_shift_is_applied)
{
	const char *path = kt_shared("kvm-vmx-guest.dat");
	const struct vma_kvm_file_info *fi;
	struct kt_input t;
	struct kt_drain d;

	kt_open(&t, path, &vma_tracedat_ops, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_OK);
	fi = vma_kvm_file_info(&t.in);
	cr_assert_eq(fi->peer_trace_id, 0x2c75ff89fdaf813cull, "the host's TRACEID");
	cr_assert_eq(fi->trace_id, 0x5d2b93f358166218ull);
	cr_assert_eq(fi->tsync_nr_cpus, 1);
	cr_assert_eq(fi->tsync_count[0], 2);
	kt_drain(&t, &d);
	cr_assert_eq(d.nr, 90029);
	cr_assert_eq(kt_count(&d, "sched_switch"), 3835);
	/* trace-cmd report of the guest alone starts at 22149.948193, in host time */
	cr_assert_eq((min_time(&d) + 500) / 1000, 22149948193ull);
	free(d.recs);
	kt_close(&t);
}

Test(tracedat_real, pvm_zstd_matches_debian_trace_cmd)
{
	/* Debian's trace-cmd 3.1.6 report of kvm-pvm-host-v7-zstd.dat, per event */
	static const struct {
		const char *name;
		size_t count;
	} want[] = {
		{ "kvm_fpu", 24000 }, { "kvm_userspace_exit", 12000 },
		{ "kvm_emulate_insn", 12000 }, { "kvm_pio", 8000 }, { "vcpu_match_mmio", 4000 },
		{ "kvm_mmio", 4000 }, { "sched_switch", 60 }, { "sched_wakeup", 34 },
		{ "kvm_age_hva", 8 }, { "kvm_unmap_hva_range", 6 },
		{ "kvm_update_master_clock", 3 }, { "kvm_write_tsc_offset", 2 },
		{ "kvm_track_tsc", 2 }, { "kvm_apicv_inhibit_changed", 1 },
	};
	const char *path = kt_shared("kvm-pvm-host-v7-zstd.dat");
	struct kt_input t;
	struct kt_drain d;
	size_t i, sum = 0;

	kt_open(&t, path, &vma_tracedat_ops, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_OK);
	cr_assert_str_eq(vma_kvm_file_info(&t.in)->clock, "local");
	kt_drain(&t, &d);
	cr_assert_eq(t.nr_streams, 2);
	cr_assert_eq(d.end[0], VMA_END);
	cr_assert_eq(d.end[1], VMA_END);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_expect_eq(kt_count(&d, want[i].name), want[i].count, "%s", want[i].name);
		sum += want[i].count;
	}
	cr_assert_eq(d.nr, sum);
	cr_assert_eq(d.nr, 64116);
	/* report's first event: sched_switch at 1153.578107 */
	cr_assert_eq((min_time(&d) + 500) / 1000, 1153578107ull);
	free(d.recs);
	kt_close(&t);
}

Test(tracedat_real, truncated_v6_reports_and_yields_what_there_is)
{
	const char *path = kt_shared("kvm-truncated-v6.dat");
	struct kt_input t;
	struct kt_drain d;

	kt_open(&t, path, &vma_tracedat_ops, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_OK, "the header is whole");
	cr_assert_eq(vma_kvm_file_info(&t.in)->version, 6);
	cr_assert_str_eq(vma_kvm_file_info(&t.in)->clock, "tsc2nsec");
	cr_assert_eq(t.nr_streams, 1);
	kt_drain(&t, &d);
	cr_assert_eq(d.nr, 0);
	cr_assert_eq(d.end[0], VMA_ERR_DAMAGED, "truncation stops the input by default");
	cr_assert_eq(vma_diag_worst(t.diag), VMA_LVL_FILE);
	free(d.recs);
	kt_close(&t);

	kt_open(&t, path, &vma_tracedat_ops, NULL, VMA_LVL_FILE);
	kt_drain(&t, &d);
	cr_assert_eq(d.end[0], VMA_END, "tolerated: the stream just ends");
	free(d.recs);
	kt_close(&t);
}

/* ---- files from the fixture writer ---------------------------------------- */

/* Index of @s's instance: the n-th stream of the same pcpu is instance n. */
static uint32_t stream_inst(const struct kt_input *t, int s)
{
	uint32_t n = 0;
	int i;

	for (i = 0; i < s; i++)
		n += t->streams[i]->pcpu == t->streams[s]->pcpu;
	return n;
}

/*
 * The reader's records equal the writer's, stream by stream, word by word
 * (when @prefix, each stream may stop early: a truncated file).
 */
static void check_truth(const struct kt_input *t, const struct kt_drain *d,
			const struct vma_mkdat_rec *want, size_t nwant, bool prefix)
{
	size_t i, k = 0, matched = 0;
	int s;

	for (s = 0; s < t->nr_streams; s++) {
		uint32_t cpu = t->streams[s]->pcpu, inst = stream_inst(t, s);

		k = 0;
		for (i = 0; i < d->nr; i++) {
			const struct vma_record *r = &d->recs[i].rec;
			const struct vma_mkdat_rec *w;
			uint16_t j;

			if (d->recs[i].stream != s)
				continue;
			while (k < nwant && (want[k].cpu != cpu || want[k].inst != inst))
				k++;
			cr_assert_lt(k, nwant, "stream %d has more records than written", s);
			w = &want[k++];
			cr_assert_eq(r->event, w->event, "record %zu of stream %d", i, s);
			cr_assert_eq(r->tsc, w->time, "time of record %zu (%s)", i,
				     d->recs[i].name);
			cr_assert_eq(r->pcpu, cpu);
			cr_assert_eq(r->nr_data, w->nr_data);
			if (r->event == VMA_KVM_OTHER) {
				cr_assert_str_eq(d->recs[i].name, "kvm_apic");
				cr_assert_eq(r->data[1], w->data[1]);
			} else {
				for (j = 0; j < w->nr_data; j++) {
					cr_assert_eq(r->data[j], w->data[j], "word %u of %s", j,
						     d->recs[i].name);
				}
			}
			if (r->event == VMA_KVM_LOST) {
				cr_assert(r->flags & VMA_REC_SYNTHETIC);
			} else {
				cr_assert_eq(r->ctx, w->pid);
			}
			matched++;
		}
		while (k < nwant && (want[k].cpu != cpu || want[k].inst != inst))
			k++;
		cr_assert(prefix || k == nwant, "stream %d has fewer records than written", s);
	}
	cr_assert(prefix || matched == nwant);
}

static void roundtrip(const struct vma_mkdat_opts *o)
{
	struct vma_mkdat_rec *want;
	unsigned char *img;
	size_t len, nwant;
	struct kt_input t;
	struct kt_drain d;
	int i;

	cr_assert_eq(vma_mkdat_build(o, &img, &len, &want, &nwant), 0);
	kt_open_mem(&t, img, len, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.in.ops, &vma_tracedat_ops);
	cr_assert_eq(t.open_ret, VMA_OK);
	cr_assert_eq(t.in.clock, VMA_CLOCK_NS);
	cr_assert_eq(vma_kvm_file_info(&t.in)->version, o->version);
	kt_drain(&t, &d);
	for (i = 0; i < t.nr_streams; i++)
		cr_assert_eq(d.end[i], VMA_END);
	check_truth(&t, &d, want, nwant, false);
	/* lost events are worth a warning, nothing else is */
	cr_assert_eq(vma_diag_worst(t.diag), o->extras ? VMA_LVL_WARN : VMA_LVL_NONE);
	free(d.recs);
	kt_close(&t);
	free(img);
	free(want);
}

Test(tracedat_written, v6_vmx)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_VMX, .version = 6, .seed = 3 };

	roundtrip(&o);
}

Test(tracedat_written, v6_vmx_extras_big_endian)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_VMX, .version = 6, .seed = 4,
				    .extras = true, .big_endian = true, .nr_cpus = 3,
				    .nr_vcpus = 5 };

	roundtrip(&o);
}

Test(tracedat_written, v7_plain_svm)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_SVM, .version = 7, .seed = 5 };

	roundtrip(&o);
}

Test(tracedat_written, v7_zlib_vmx_tsc_extras)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_VMX, .version = 7, .seed = 6,
				    .codec = VMA_TDW_ZLIB, .tsc = true, .extras = true };

	roundtrip(&o);
}

Test(tracedat_written, v7_zstd_arm64_extras)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_ARM64, .version = 7, .seed = 7,
				    .codec = VMA_TDW_ZSTD, .extras = true };

	roundtrip(&o);
}

Test(tracedat_written, v7_zstd_big_endian_tsc)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_SVM, .version = 7, .seed = 8,
				    .codec = VMA_TDW_ZSTD, .tsc = true, .big_endian = true };

	roundtrip(&o);
}

Test(tracedat_written, instance_and_lost_records)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_VMX, .version = 7, .seed = 9,
				    .extras = true };
	struct vma_mkdat_rec *want;
	unsigned char *img;
	size_t len, nwant, i, lost = 0;
	struct kt_input t;
	struct kt_drain d;

	cr_assert_eq(vma_mkdat_build(&o, &img, &len, &want, &nwant), 0);
	kt_open_mem(&t, img, len, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.nr_streams, 4, "two cpus, two instances");
	kt_drain(&t, &d);
	for (i = 0; i < d.nr; i++) {
		if (d.recs[i].rec.event == VMA_KVM_LOST) {
			lost++;
			cr_assert_eq(vma_rec_u64(&d.recs[i].rec, 0), 17);
			cr_assert_eq(d.recs[i].rec.pcpu, 1);
		}
	}
	cr_assert_eq(lost, 1);
	cr_assert_eq(stream_inst(&t, 2), 1);
	cr_assert_eq(stream_inst(&t, 3), 1);
	free(d.recs);
	kt_close(&t);
	free(img);
	free(want);
}

/* ---- damage --------------------------------------------------------------- */

static const char fpu_format[] =
	"name: kvm_fpu\n" VMA_MKDAT_COMMON_FIELDS(37)
	"\tfield:u32 load;\toffset:8;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s\", __print_symbolic(REC->load, {0, \"unload\"}, {1, \"load\"})\n";

#define FPU_PER_CPU 1000 /* 255 per page: 4 pages a cpu */

/* Two cpus of kvm_fpu events; *w kept to ask where the data went. */
static void build_fpu(unsigned int version, enum vma_tdw_codec codec, struct vma_tdw **w,
		      unsigned char **img, size_t *len)
{
	struct vma_tdw_opts o = { .version = version, .codec = codec, .nr_cpus = 2,
				  .chunk_pages = 2 };
	unsigned char ev[12] = { 0 };
	uint32_t cpu, i;

	*w = vma_tdw_new(&o);
	cr_assert_not_null(*w);
	cr_assert_eq(vma_tdw_format(*w, "kvm", fpu_format), 0);
	for (cpu = 0; cpu < 2; cpu++) {
		for (i = 0; i < FPU_PER_CPU; i++) {
			vma_tdw_put(ev, 2, 37, false);
			vma_tdw_put(ev + 4, 4, 100 + cpu, false);
			vma_tdw_put(ev + 8, 4, i & 1, false);
			cr_assert_eq(vma_tdw_event(*w, 0, cpu, 1000000 + 1000ull * i, ev, 12), 0);
		}
	}
	cr_assert_eq(vma_tdw_finish(*w, img, len), 0);
}

/* kvm_fpu's format, 2,000 formats of other events and 100,000 empty ones; two records. */
static unsigned char *many_formats(size_t *len)
{
	struct vma_tdw_opts o = { .version = 6, .nr_cpus = 1 };
	unsigned char ev[12] = { 0 };
	struct vma_tdw *w = vma_tdw_new(&o);
	unsigned char *img;
	char text[512];
	uint32_t i;

	cr_assert_not_null(w);
	cr_assert_eq(vma_tdw_format(w, "kvm", fpu_format), 0);
	for (i = 0; i < 2000; i++) {
		snprintf(text, sizeof(text), "name: other_%u\nID: %u\nformat:\n"
			 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
			 "print fmt: \"other\"\n", i, 1000 + i);
		cr_assert_eq(vma_tdw_format(w, "misc", text), 0);
	}
	for (i = 0; i < 100000; i++)
		cr_assert_eq(vma_tdw_format(w, "empty", ""), 0);
	vma_tdw_put(ev, 2, 37, false);
	vma_tdw_put(ev + 4, 4, 100, false);
	cr_assert_eq(vma_tdw_event(w, 0, 0, 1000, ev, 12), 0);
	vma_tdw_put(ev, 2, 1500, false);
	cr_assert_eq(vma_tdw_event(w, 0, 0, 2000, ev, 12), 0);
	cr_assert_eq(vma_tdw_finish(w, &img, len), 0);
	vma_tdw_free(w);
	return img;
}

/*
 * many_formats() opened with @opts: kvm_fpu parsed at open, the others
 * not, every record named; @kept: whether the others' texts are kept (for
 * a dump line's parse).
 */
static void check_many_formats(const struct vma_input_options *opts, bool kept)
{
	struct vma_kvm_priv *priv;
	size_t len;
	unsigned char *img = many_formats(&len);
	struct kt_input t;
	struct kt_drain d;
	clock_t c0;
	uint32_t i, other = 0;

	c0 = clock();
	kt_open_mem_opts(&t, img, len, NULL, opts, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_OK);
	cr_assert_lt((double)(clock() - c0) / CLOCKS_PER_SEC, 2.0, "opening took too long");
	priv = vma_kvm_priv_of(&t.in);
	cr_assert_eq(priv->nr_formats, 2001, "empty formats are not kept");
	cr_assert_eq(priv->ev.nr_bind, 2001);
	for (i = 0; i < priv->ev.nr_bind; i++) {
		const struct vma_kvmev_bind *b = &priv->ev.bind[i];
		const struct vma_kvm_format *f = &priv->formats[b->format];

		if (!strcmp(b->name, "kvm_fpu")) {
			cr_assert_not_null(b->event, "kvm_fpu is parsed at open");
			cr_assert_eq(b->id, VMA_KVM_FPU);
		} else {
			cr_assert_null(b->event, "%s is not parsed at open", b->name);
			cr_assert_eq(f->text != NULL, kept, "%s's text kept: %d", b->name, !kept);
			other++;
		}
	}
	cr_assert_eq(other, 2000);
	kt_drain(&t, &d);
	cr_assert_eq(d.nr, 2);
	cr_assert_eq(d.recs[0].rec.event, VMA_KVM_FPU);
	cr_assert_eq(d.recs[1].rec.event, VMA_KVM_OTHER);
	cr_assert_str_eq(vma_kvm_record_name(&t.in, &d.recs[1].rec), "other_500");
	free(d.recs);
	kt_close(&t);
	free(img);
}

/*
 * A file of many formats: only the formats of events vmalyze analyses are
 * parsed when it is opened (once each, all in one guarded child), the
 * others are named from their text; 100,000 empty formats are rejected
 * without a parse (they took 10.8 s with a fork per format).
 */
Test(tracedat_written, formats_parsed_only_for_analysed_events)
{
	const struct vma_input_options opts = { 0 };

	check_many_formats(&opts, true);
}

/*
 * The same in a run with no dump: the texts of the formats not parsed at
 * open are not kept (no dump line will parse them), the events still named.
 */
Test(tracedat_written, formats_unkept_with_no_dump)
{
	const struct vma_input_options opts = { .fields_only = true };

	check_many_formats(&opts, false);
}

Test(tracedat_damage, truncated_cpu_data)
{
	uint64_t off, size;
	struct vma_tdw *w;
	unsigned char *img;
	size_t len;
	struct kt_input t;
	struct kt_drain d;

	build_fpu(6, VMA_TDW_NONE, &w, &img, &len);
	cr_assert_eq(vma_tdw_cpu_data(w, 0, 1, &off, &size), 0);
	cr_assert_eq(off + size, len, "cpu 1 is last in the file");
	/* cut cpu 1 after one page and 100 bytes of the second */
	kt_open_mem(&t, img, (size_t)off + 4096 + 100, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_OK);
	kt_drain(&t, &d);
	cr_assert_eq(d.end[0], VMA_END);
	cr_assert_eq(d.end[1], VMA_ERR_DAMAGED);
	/* all of cpu 0; cpu 1: a page of 255 and the 5 whole events of the cut page */
	cr_assert_eq(d.nr, FPU_PER_CPU + 255 + 5);
	cr_assert_eq(vma_diag_worst(t.diag), VMA_LVL_FILE);
	free(d.recs);
	kt_close(&t);

	kt_open_mem(&t, img, (size_t)off + 4096 + 100, NULL, NULL, VMA_LVL_FILE);
	kt_drain(&t, &d);
	cr_assert_eq(d.end[1], VMA_END);
	cr_assert_eq(d.nr, FPU_PER_CPU + 255 + 5);
	free(d.recs);
	kt_close(&t);
	vma_tdw_free(w);
	free(img);
}

/* One kvm_fpu event in a v7 zlib file of compressed sections with kallsyms and printk text. */
static void build_symbols(const char *ksyms, const char *printk, unsigned char **img,
			  size_t *len)
{
	struct vma_tdw_opts o = { .version = 7, .codec = VMA_TDW_ZLIB, .compress_meta = true,
				  .nr_cpus = 1, .kallsyms = ksyms, .printk = printk };
	unsigned char ev[12] = { 0 };
	struct vma_tdw *w = vma_tdw_new(&o);

	cr_assert_not_null(w);
	cr_assert_eq(vma_tdw_format(w, "kvm", fpu_format), 0);
	vma_tdw_put(ev, 2, 37, false);
	vma_tdw_put(ev + 4, 4, 100, false);
	cr_assert_eq(vma_tdw_event(w, 0, 0, 1000, ev, 12), 0);
	cr_assert_eq(vma_tdw_finish(w, img, len), 0);
	vma_tdw_free(w);
}

/*
 * v7's kallsyms and printk sections are read only when the dump's text
 * needs them (-s never does): the printk formats at the first line, the
 * kallsyms at the first function looked up; a damaged one then is
 * reported at its offset and leaves only itself out: a warning, as the
 * records are being read by then and only names are lost.
 */
Test(tracedat_damage, symbols_read_when_the_dump_needs_them)
{
	static const char ksyms[] = "ffffffff81000000 T _text\nffffffff810a0000 T vmx_vcpu_run\n";
	static const char printk[] = "0xffffffff82000000 : \"hello %d\\n\"\n";
	struct vma_kvm_priv *priv;
	unsigned char *img;
	struct kt_input t;
	uint64_t at;
	size_t len;

	build_symbols(ksyms, printk, &img, &len);
	kt_open_mem(&t, img, len, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_OK);
	priv = vma_kvm_priv_of(&t.in);
	cr_assert_null(priv->kallsyms, "not read at open");
	cr_assert_null(priv->printk);
	at = priv->symbols_at[0];
	cr_assert_gt(at, 0);
	vma_kvm_print_setup(priv);
	cr_assert_null(priv->kallsyms, "not read before a function is looked up");
	cr_assert_str_eq(priv->printk, printk);
	cr_assert_str_eq(tep_find_function(priv->tep, 0xffffffff81000010ull), "_text");
	cr_assert_not_null(priv->kallsyms, "read at the first lookup");
	cr_assert_eq(priv->symbols_at[VMA_KVM_KALLSYMS], 0, "read once");
	cr_assert_eq(vma_diag_worst(t.diag), VMA_LVL_NONE);
	kt_close(&t);

	/* the compressed kallsyms (past its 16-byte header and the two sizes) damaged */
	cr_assert_lt(at + 40, len);
	memset(img + at + 24, 0xa5, 16);
	kt_open_mem(&t, img, len, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_OK, "the open does not need kallsyms");
	priv = vma_kvm_priv_of(&t.in);
	vma_kvm_print_setup(priv);
	cr_assert_str_eq(priv->printk, printk, "the printk section is read all the same");
	cr_assert_eq(vma_diag_worst(t.diag), VMA_LVL_NONE, "kallsyms not read yet");
	cr_assert_null(tep_find_function(priv->tep, 0xffffffff810a0010ull));
	cr_assert_null(priv->kallsyms);
	cr_assert_eq(vma_diag_worst(t.diag), VMA_LVL_WARN, "the damage is reported");
	kt_close(&t);
	free(img);
}

/* 17 MiB of kallsyms lines: more than the 16 MiB read. */
static char *big_kallsyms(void)
{
	size_t len = 17u << 20, at = 0;
	char *text = malloc(len + 64);
	uint32_t k = 0;

	cr_assert_not_null(text);
	while (at < len)
		at += (size_t)sprintf(text + at, "ffffffff%08x T sym_%u\n", k * 16, k), k++;
	return text;
}

/*
 * Kallsyms over 16 MiB (in v6's header, or a v7 section compressed or not)
 * are left out with a warning, and the trace is read: they once made the
 * whole file unreadable (v6) or reported it so while it was read (v7).
 */
Test(tracedat_damage, kallsyms_over_16_mib_are_left_out)
{
	static const char printk[] = "0xffffffff82000000 : \"hello %d\\n\"\n";
	static const struct {
		unsigned int version;
		enum vma_tdw_codec codec;
	} files[] = { { 6, VMA_TDW_NONE }, { 7, VMA_TDW_NONE }, { 7, VMA_TDW_ZLIB } };
	char *ksyms = big_kallsyms();
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct vma_tdw_opts o = { .version = files[i].version, .codec = files[i].codec,
					  .compress_meta = files[i].codec != VMA_TDW_NONE,
					  .nr_cpus = 1, .kallsyms = ksyms, .printk = printk };
		unsigned char ev[12] = { 0 }, *img;
		struct vma_tdw *w = vma_tdw_new(&o);
		struct vma_kvm_priv *priv;
		struct kt_input t;
		struct kt_drain d;
		size_t len;

		cr_assert_not_null(w);
		cr_assert_eq(vma_tdw_format(w, "kvm", fpu_format), 0);
		vma_tdw_put(ev, 2, 37, false);
		vma_tdw_put(ev + 4, 4, 100, false);
		cr_assert_eq(vma_tdw_event(w, 0, 0, 1000, ev, 12), 0);
		cr_assert_eq(vma_tdw_finish(w, &img, &len), 0);
		vma_tdw_free(w);
		kt_open_mem(&t, img, len, NULL, NULL, VMA_DEFAULT_TOLERANCE);
		cr_assert_eq(t.open_ret, VMA_OK, "v%u", files[i].version);
		priv = vma_kvm_priv_of(&t.in);
		vma_kvm_print_setup(priv);
		/* v7's are read at the first function looked up */
		cr_assert_null(tep_find_function(priv->tep, 0xffffffff81000010ull));
		cr_assert_null(priv->kallsyms);
		cr_assert_str_eq(priv->printk, printk, "v%u: printk read all the same",
				 files[i].version);
		cr_assert_eq(vma_diag_worst(t.diag), VMA_LVL_WARN, "v%u", files[i].version);
		kt_drain(&t, &d);
		cr_assert_eq(d.nr, 1, "v%u: the record is read", files[i].version);
		cr_assert_eq(d.end[0], VMA_END);
		free(d.recs);
		kt_close(&t);
		free(img);
	}
	free(ksyms);
}

Test(tracedat_damage, corrupt_page_is_reported_and_skipped_when_tolerated)
{
	uint64_t off, size;
	struct vma_tdw *w;
	unsigned char *img;
	size_t len;
	struct kt_input t;
	struct kt_drain d;

	build_fpu(7, VMA_TDW_NONE, &w, &img, &len);
	cr_assert_eq(vma_tdw_cpu_data(w, 0, 0, &off, &size), 0);
	/* second page of cpu 0: a commit bigger than the page */
	vma_tdw_put(img + off + 4096 + 8, 8, 0x7fff, false);

	kt_open_mem(&t, img, len, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	kt_drain(&t, &d);
	cr_assert_eq(d.end[0], VMA_ERR_DAMAGED);
	cr_assert_eq(d.nr, 255 + FPU_PER_CPU, "cpu 0 stops at the bad page");
	free(d.recs);
	kt_close(&t);

	kt_open_mem(&t, img, len, NULL, NULL, VMA_LVL_FILE);
	kt_drain(&t, &d);
	cr_assert_eq(d.end[0], VMA_END);
	cr_assert_eq(d.nr, 2 * FPU_PER_CPU - 255, "only the bad page is lost");
	free(d.recs);
	kt_close(&t);
	vma_tdw_free(w);
	free(img);
}

Test(tracedat_damage, corrupt_compressed_chunk)
{
	uint64_t off, size;
	struct vma_tdw *w;
	unsigned char *img;
	size_t len;
	struct kt_input t;
	struct kt_drain d;

	build_fpu(7, VMA_TDW_ZSTD, &w, &img, &len);
	cr_assert_eq(vma_tdw_cpu_data(w, 0, 0, &off, &size), 0);
	/* inside the first chunk's zstd frame (after count and chunk header) */
	memset(img + off + 4 + 8 + 4, 0xa5, 8);

	kt_open_mem(&t, img, len, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	kt_drain(&t, &d);
	cr_assert_eq(d.end[0], VMA_ERR_DAMAGED);
	cr_assert_eq(d.nr, FPU_PER_CPU);
	free(d.recs);
	kt_close(&t);

	kt_open_mem(&t, img, len, NULL, NULL, VMA_LVL_FILE);
	kt_drain(&t, &d);
	cr_assert_eq(d.end[0], VMA_END);
	cr_assert_eq(d.nr, 2 * FPU_PER_CPU - 2 * 255, "the two pages of that chunk are lost");
	free(d.recs);
	kt_close(&t);
	vma_tdw_free(w);
	free(img);
}

Test(tracedat_damage, truncated_header)
{
	struct vma_tdw *w;
	unsigned char *img;
	size_t len;
	struct kt_input t;

	build_fpu(6, VMA_TDW_NONE, &w, &img, &len);
	/* no record can be read: status 2 like any file that is not a whole trace */
	kt_open_mem(&t, img, 600, NULL, NULL, VMA_LVL_MAX_TOLERABLE);
	cr_assert_eq(t.open_ret, VMA_ERR_FORMAT);
	cr_assert_eq(vma_diag_worst(t.diag), VMA_LVL_INPUT);
	cr_assert_eq(t.nr_streams, 0);
	kt_close(&t);
	vma_tdw_free(w);
	free(img);

	/* v7 keeps its BUFFER options at the end: without them nothing is readable */
	build_fpu(7, VMA_TDW_ZLIB, &w, &img, &len);
	kt_open_mem(&t, img, len - 20, NULL, NULL, VMA_LVL_MAX_TOLERABLE);
	cr_assert_eq(t.open_ret, VMA_ERR_FORMAT);
	kt_close(&t);
	vma_tdw_free(w);
	free(img);
}

Test(tracedat_damage, unknown_compression_and_latency_traces)
{
	struct vma_tdw *w;
	unsigned char *img;
	size_t len;
	struct kt_input t;
	unsigned char *p;

	build_fpu(7, VMA_TDW_ZSTD, &w, &img, &len);
	p = memmem(img, 64, "zstd", 5);
	cr_assert_not_null(p);
	memcpy(p, "brot", 4);
	kt_open_mem(&t, img, len, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_ERR_FORMAT);
	kt_close(&t);
	vma_tdw_free(w);
	free(img);

	build_fpu(6, VMA_TDW_NONE, &w, &img, &len);
	p = memmem(img, len, "flyrecord", 10);
	cr_assert_not_null(p);
	memcpy(p, "latency  ", 10);
	kt_open_mem(&t, img, len, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t.open_ret, VMA_ERR_FORMAT);
	kt_close(&t);
	vma_tdw_free(w);
	free(img);
}

Test(tracedat_damage, garbage_never_crashes)
{
	struct vma_tdw *w;
	unsigned char *img, *bad;
	size_t len, i;
	uint32_t seed = 12345;

	build_fpu(7, VMA_TDW_ZLIB, &w, &img, &len);
	bad = malloc(len);
	cr_assert_not_null(bad);
	for (i = 0; i < 60; i++) {
		struct kt_input t;
		struct kt_drain d;
		int k;

		memcpy(bad, img, len);
		for (k = 0; k < 16; k++) {
			seed = seed * 1103515245u + 12345u;
			bad[(seed >> 8) % len] = (unsigned char)(seed >> 3);
		}
		kt_open_mem(&t, bad, len, &vma_tracedat_ops, NULL, VMA_LVL_MAX_TOLERABLE);
		if (t.open_ret == VMA_OK) {
			kt_drain(&t, &d);
			cr_assert_leq(d.nr, 2 * FPU_PER_CPU + 16);
			free(d.recs);
		}
		kt_close(&t);
	}
	free(bad);
	vma_tdw_free(w);
	free(img);
}

Test(tracedat_probe, recognises_its_magic_only)
{
	static const unsigned char v6[] = "\x17\x08\x44tracing6";
	static const unsigned char vmtrace[] = { 0x01, 0x6d, 0xe9, 0xcc, 0x73, 0, 0x67, 0 };
	static const unsigned char xen[] = { 0x01, 0xf0, 0x01, 0x00, 0x00, 0, 0, 0, 0, 0 };

	cr_assert(vma_tracedat_ops.probe(v6, sizeof(v6) - 1));
	cr_assert_not(vma_tracedat_ops.probe(v6, 5));
	cr_assert_not(vma_tracedat_ops.probe(vmtrace, sizeof(vmtrace)));
	cr_assert_not(vma_tracedat_ops.probe(xen, sizeof(xen)));
	cr_assert_str_eq(vma_tracedat_ops.name, "trace.dat");
}

/* ---- committed fixtures (traces/kvm, see its README) ----------------------- */

static void golden(const char *name, const struct vma_mkdat_opts *o, size_t cut)
{
	struct vma_mkdat_rec *want;
	unsigned char *img, *onfile;
	size_t len, nwant, flen, i, kept = 0;
	struct kt_input t;
	struct kt_drain d;
	FILE *f;

	cr_assert_eq(vma_mkdat_build(o, &img, &len, &want, &nwant), 0);
	if (cut)
		len = cut;
	/*
	 * Uncompressed fixtures must be what the writer makes today, byte for
	 * byte; compressed bytes depend on the zlib/zstd release, so those are
	 * checked by their records only.
	 */
	f = fopen(kt_fixture(name), "rb");
	cr_assert_not_null(f, "fixture %s missing", name);
	onfile = malloc(len + 1);
	flen = fread(onfile, 1, len + 1, f);
	fclose(f);
	if (o->codec == VMA_TDW_NONE) {
		cr_assert_eq(flen, len, "%s: regenerate it (traces/kvm/README)", name);
		cr_assert_eq(memcmp(onfile, img, len), 0, "%s: regenerate it (traces/kvm/README)",
			     name);
	}
	free(onfile);

	kt_open(&t, kt_fixture(name), NULL, NULL, VMA_LVL_FILE);
	cr_assert_eq(t.open_ret, VMA_OK);
	kt_drain(&t, &d);
	/* a truncated file: what is read is what was written there, up to the cut */
	check_truth(&t, &d, want, nwant, cut != 0);
	if (cut) {
		for (i = 0; i < d.nr; i++)
			kept += d.recs[i].rec.event == VMA_KVM_EXIT;
		cr_assert_gt(kept, 0);
		cr_assert_lt(d.nr, nwant);
		cr_assert_eq(vma_diag_worst(t.diag), VMA_LVL_FILE);
	}
	free(d.recs);
	kt_close(&t);
	free(img);
	free(want);
}

Test(tracedat_golden, vmx_v6)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_VMX, .version = 6, .exits = 150,
				    .seed = 1 };

	golden("vmx-v6.dat", &o, 0);
}

Test(tracedat_golden, vmx_v7_zlib_tsc_extras)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_VMX, .version = 7, .codec = VMA_TDW_ZLIB,
				    .tsc = true, .extras = true, .seed = 1 };

	golden("vmx-v7-zlib-tsc.dat", &o, 0);
}

Test(tracedat_golden, svm_v7_zstd)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_SVM, .version = 7, .codec = VMA_TDW_ZSTD,
				    .seed = 1 };

	golden("svm-v7-zstd.dat", &o, 0);
}

Test(tracedat_golden, arm64_v7)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_ARM64, .version = 7, .exits = 150,
				    .seed = 1 };

	golden("arm64-v7.dat", &o, 0);
}

Test(tracedat_golden, vmx_v6_truncated)
{
	struct vma_mkdat_opts o = { .arch = VMA_MKDAT_VMX, .version = 6, .exits = 150,
				    .seed = 1 };

	golden("vmx-v6-truncated.dat", &o, 40000);
}

/* Writes @img to a new file named after the template @tmp and opens it as @t. */
static void open_written(struct kt_input *t, char *tmp, const unsigned char *img, size_t len)
{
	int fd = mkstemp(tmp);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, img, len), (ssize_t)len);
	close(fd);
	kt_open(t, tmp, NULL, NULL, VMA_DEFAULT_TOLERANCE);
	cr_assert_eq(t->open_ret, VMA_OK);
}

/*
 * A v6 file cut while it is read: the stream says the file shrank, at the
 * byte where it now ends, and stops as for damage (no "Input/output error").
 */
Test(tracedat_damage, file_shrinking_while_read)
{
	struct vma_mkdat_opts o = { .version = 6, .exits = 3000, .seed = 1 };
	char tmp[] = "/tmp/vma-kvmshrink-XXXXXX";
	struct vma_mkdat_rec *recs;
	struct kt_input t;
	struct kt_drain d;
	unsigned char *img;
	size_t len, nr;
	int i, stopped = 0;

	cr_assert_eq(vma_mkdat_build(&o, &img, &len, &recs, &nr), 0);
	open_written(&t, tmp, img, len);
	cr_assert_eq(truncate(tmp, (off_t)(len / 2)), 0);
	kt_drain(&t, &d);
	for (i = 0; i < t.nr_streams; i++)
		stopped += d.end[i] == VMA_ERR_DAMAGED;
	cr_assert_geq(stopped, 1);
	cr_assert_lt(d.nr, nr);
	cr_assert_eq(vma_diag_worst(t.diag), VMA_LVL_FILE);
	free(d.recs);
	kt_close(&t);
	unlink(tmp);
	free(img);
	free(recs);
}

/*
 * The same in a v7 file's compressed chunks: a chunk header the shrunk file
 * no longer holds is the file shrinking, at the byte read, not a cpu's data
 * "truncated" at the size the file had when opened.
 */
Test(tracedat_damage, file_shrinking_inside_compressed_chunks)
{
	struct vma_mkdat_opts o = { .version = 7, .codec = VMA_TDW_ZSTD, .exits = 20000,
				    .seed = 1 };
	char tmp[] = "/tmp/vma-kvmshrink7-XXXXXX", *msgs = NULL;
	struct vma_mkdat_rec *recs;
	struct kt_input t;
	struct kt_drain d;
	unsigned char *img;
	size_t len, nr, msgs_len = 0;
	FILE *err;

	cr_assert_eq(vma_mkdat_build(&o, &img, &len, &recs, &nr), 0);
	open_written(&t, tmp, img, len);
	err = open_memstream(&msgs, &msgs_len);
	cr_assert_not_null(err);
	vma_diag_destroy(t.diag);
	t.diag = t.in.diag = vma_diag_create_to(err, VMA_DEFAULT_TOLERANCE, VMA_VERB_NORMAL);
	cr_assert_not_null(t.diag);
	cr_assert_eq(truncate(tmp, (off_t)(len / 4)), 0);
	kt_drain(&t, &d);
	fclose(err);
	cr_assert(strstr(msgs, "it shrank while being read"), "%s", msgs);
	cr_assert_null(strstr(msgs, "truncated"), "%s", msgs);
	free(d.recs);
	kt_close(&t);
	unlink(tmp);
	free(img);
	free(recs);
	free(msgs);
}
