/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Xen event table (xen-events.h): its rows are well formed, a record of
 * full size is taken by the state stage and decoded by the dump, a record
 * shorter than its row is refused by both alike, and the dump learns the
 * exit vendor from the records it is shown (no second reading).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/describe.h"
#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/dump.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/strbuf.h"
#include "vmalyze/xen-events.h"
#include "vmalyze/xen-names.h"

static struct vma_diag *diag;
static struct vma_machine *m;
static uint64_t now = 1000;

static void setup(void)
{
	diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	m = vma_machine_create(diag, NULL);
	cr_assert_not_null(m);
	cr_assert_eq(vma_machine_add_pcpu(m, 0), VMA_OK);
}

static void teardown(void)
{
	vma_machine_destroy(m);
	vma_diag_destroy(diag);
}

static struct vma_record record(uint32_t event, unsigned int n)
{
	struct vma_record rec;
	unsigned int i;

	memset(&rec, 0, sizeof(rec));
	rec.tsc = now += 100;
	rec.event = event;
	rec.flags = VMA_REC_HAS_TSC;
	rec.nr_data = (uint16_t)n;
	for (i = 0; i < n; i++)
		rec.data[i] = 0x10 + i;
	return rec;
}

static struct vma_outcome feed(const struct vma_record *rec)
{
	struct vma_outcome out;

	cr_assert_eq(vma_dispatch(m, rec, &out), VMA_OK);
	return out;
}

/* d1v0 runs on pcpu 0, with an exit open (VMX reason 1). */
static void run_hvm_vcpu(void)
{
	struct vma_record rs = record(TRC_SCHED_RUNSTATE_CHANGE | 1u << 8 | 0u << 4, 1);
	struct vma_record ex = record(TRC_HVM_VMX_EXIT64, 3);

	rs.data[0] = 1u << 16;
	feed(&rs);
	ex.data[0] = 1;
	cr_assert_not(feed(&ex).unprocessed);
}

static void open_exit(void)
{
	struct vma_record ex = record(TRC_HVM_VMX_EXIT64, 3);

	ex.data[0] = 1;
	feed(&ex);
}

/* The dump's text of @rec as the analysis took it (@out). */
static void describe(char *buf, size_t len, const struct vma_record *rec,
		     const struct vma_outcome *out)
{
	struct vma_describe_ctx ctx = {
		.cpu_hz = 1000000000,
		.unprocessed = out->unprocessed,
		.orphan = out->orphan,
		.arc_open = out->arc_closed,
		.arc_cycles = out->arc_cycles,
		.svm = out->svm,
		.exit_open = true,
	};
	struct vma_strbuf sb;

	vma_sb_init(&sb);
	vma_describe_xen(&sb, rec, &ctx);
	cr_assert_not(vma_sb_failed(&sb));
	snprintf(buf, len, "%s", sb.buf ? sb.buf : "");
	vma_sb_free(&sb);
}

/* The raw form xenalyze gives a record it does not decode. */
static void raw(char *buf, size_t len, const struct vma_record *rec)
{
	struct vma_outcome out = { .unprocessed = true };

	describe(buf, len, rec, &out);
	cr_assert(strchr(buf, '[') != NULL, "raw form: %s", buf);
}

/*
 * The words a row's fields need in a record of its id: a shadow row's
 * WORDS is a shape, sized by the levels in the id (the row's: 2 levels),
 * or by @levels when not 0.
 */
static unsigned int row_words(const struct vma_xen_event *e, unsigned int levels)
{
	struct vma_record r = { .event = e->id | (levels ? (levels - 2) << 8 : 0) };

	return (e->flags & VMA_XE_LEVELS) ? vma_xe_shape_words(&r, e->words) : e->words;
}

/* Payload words of a full record of @row (MMIO carries its data word too). */
static unsigned int full_words(enum vma_xe_index row)
{
	const struct vma_xen_event *e = &vma_xen_events[row];
	uint32_t base = e->id & ~(uint32_t)TRC_64_FLAG;

	if (e->flags & VMA_XE_LEVELS)
		return row_words(e, 0);

	if (base == TRC_HVM_IOMEM_READ || base == TRC_HVM_IOMEM_WRITE)
		return e->words + 1u;
	return e->words;
}

TestSuite(xen_events, .init = setup, .fini = teardown);

Test(xen_events, rows_are_well_formed)
{
	unsigned int i;

	for (i = 0; i < VMA_XE_COUNT; i++) {
		const struct vma_xen_event *e = &vma_xen_events[i];
		bool wide = (e->id & TRC_64_FLAG) && e->id != VMA_TRC_HVM_OP_DESTROY_PROC;

		cr_assert_not_null(e->name, "row %u", i);
		cr_assert_gt(strlen(e->name), 0, "row %u", i);
		cr_expect_eq(vma_xen_event_index(e->id), i, "row %u (%#x) is not its id's row", i,
			     e->id);
		if (e->id != VMA_SYNTH_LOST_END)
			cr_expect_eq(vma_xen_class(e->id), e->cls, "row %s: class", e->name);
		cr_expect_leq(row_words(e, 4), 7, "row %s: more words than a xentrace record holds",
			      e->name);
		cr_expect_eq(!!(e->flags & VMA_XE_WIDE), wide, "row %s (%#x): 64-bit flag", e->name,
			     e->id);
		/*
		 * Refinements are handler records and shadow records; exits,
		 * entries and emulation are not.
		 */
		if (e->flags & VMA_XE_EXIT)
			cr_expect(e->cls == VMA_XEN_CLASS_SHADOW ||
				  (e->cls == VMA_XEN_CLASS_HVM &&
				   VMA_TRC_SUB(e->id) == VMA_TRC_SUB(TRC_HVM_HANDLER)), "row %s",
				  e->name);
		/* Only shadow rows are sized by the paging levels. */
		cr_expect(!(e->flags & VMA_XE_LEVELS) || e->cls == VMA_XEN_CLASS_SHADOW, "row %s",
			  e->name);
	}
	cr_expect_eq(vma_xen_event_index(TRC_HVM_HANDLER + 0x7f), VMA_XE_NONE);
	cr_expect_eq(vma_xen_class(TRC_GUEST | 1), -1);
	cr_expect_eq(vma_xen_class(TRC_SCHED | TRC_HVM), -1);
	cr_expect_eq(vma_xen_class(VMA_SYNTH_LOST_END), -1);
	cr_expect_eq(vma_xen_class(TRC_HVM_VMENTRY), VMA_XEN_CLASS_HVM);
	cr_expect_eq(vma_xen_event_index(TRC_SCHED_RUNSTATE_CHANGE), VMA_XE_NONE);
}

/* Every main field: a class exactly when one of its low eight bits is set, and no other. */
Test(xen_events, class_of_every_main_field)
{
	uint32_t main, bit;

	for (main = 0; main <= 0xffff; main++) {
		int want = -1;

		for (bit = 0; bit < 8; bit++) {
			if (main == 1u << bit)
				want = (int)bit;
		}
		cr_assert_eq(vma_xen_class(main << 16 | 0x123), want, "main field 0x%x", main);
	}
}

/* The summary's handler names are the rows' names. */
Test(xen_events, handler_names_come_from_rows)
{
	unsigned int i;

	for (i = 0; i < VMA_XE_COUNT; i++) {
		const struct vma_xen_event *e = &vma_xen_events[i];
		uint32_t minor = VMA_TRC_MINOR(e->id) & ~(uint32_t)TRC_64_FLAG;

		if (e->cls != VMA_XEN_CLASS_HVM ||
		    VMA_TRC_SUB(e->id) != VMA_TRC_SUB(TRC_HVM_HANDLER) || minor == 0 ||
		    minor >= VMA_HVM_HANDLER_LIMIT)
			continue;
		cr_expect_str_eq(vma_hvm_handler_name(minor), e->name, "minor %#x", minor);
	}
	cr_expect_str_eq(vma_hvm_handler_name(0), "(no handler)");
	cr_expect_str_eq(vma_hvm_handler_name(0x26), "xcr_read");
	cr_expect_null(vma_hvm_handler_name(0x1b));
	cr_expect_str_eq(vma_mem_event_name(1), "grant-map");
	cr_expect_str_eq(vma_mem_event_name(18), "pod-superpage-splinter");
	cr_expect_null(vma_mem_event_name(6));
	cr_expect_str_eq(vma_pv_event_name(14), "hypercall (subcall)");
	cr_expect_str_eq(vma_pv_event_name(7), "emulate 4g");
	cr_expect_null(vma_pv_event_name(2));
}

/*
 * A fresh machine for a record of @cls: d1v0 running on pcpu 0 with an
 * exit open, or for a PV record d2v0, whose records are PV's.
 */
static void fresh(uint8_t cls)
{
	struct vma_record rs = record(TRC_SCHED_RUNSTATE_CHANGE | 1u << 8 | 0u << 4, 1);

	teardown();
	setup();
	if (cls != VMA_XEN_CLASS_PV) {
		run_hvm_vcpu();
		return;
	}
	rs.data[0] = 2u << 16;
	feed(&rs);
}

/* Full records: the state stage takes them and the dump decodes them. */
Test(xen_events, full_records_are_taken_and_decoded)
{
	char text[256], rawtext[256];
	unsigned int i;

	for (i = 0; i < VMA_XE_COUNT; i++) {
		const struct vma_xen_event *e = &vma_xen_events[i];
		struct vma_record rec = record(e->id, full_words(i));
		struct vma_outcome out;

		fresh(e->cls);
		if (e->flags & VMA_XE_EXIT)
			open_exit();
		out = feed(&rec);
		cr_expect_not(out.unprocessed, "%s (%#x) not processed", e->name, e->id);
		cr_expect_not(out.orphan, "%s (%#x) an orphan with an exit open", e->name, e->id);
		describe(text, sizeof(text), &rec, &out);
		raw(rawtext, sizeof(rawtext), &rec);
		cr_expect_str_neq(text, rawtext, "%s (%#x) printed raw", e->name, e->id);
	}
}

/*
 * Every size below a row's: the state stage does not take the record, and
 * the dump prints it raw, whether it is told so or judges by itself.
 */
Test(xen_events, short_records_are_judged_alike)
{
	char text[256], rawtext[256], alone[256];
	unsigned int i, n;

	for (i = 0; i < VMA_XE_COUNT; i++) {
		const struct vma_xen_event *e = &vma_xen_events[i];
		unsigned int over = (e->flags & VMA_XE_EXACT) ? 1 : 0, words = row_words(e, 0);

		fresh(e->cls);
		for (n = 0; n < words + over; n++) {
			struct vma_record rec = record(e->id, n < words ? n : words + 1);
			struct vma_outcome out, none = { .svm = false };

			if (e->flags & VMA_XE_EXIT)
				open_exit();
			out = feed(&rec);
			/* Only the dump reads dom0, scheduler and hardware records. */
			if (e->cls != VMA_XEN_CLASS_DOM0OP && e->cls != VMA_XEN_CLASS_SCHED &&
			    e->cls != VMA_XEN_CLASS_HW)
				cr_expect(out.unprocessed, "%s (%#x) with %u words taken by state",
					  e->name, e->id, rec.nr_data);
			describe(text, sizeof(text), &rec, &out);
			describe(alone, sizeof(alone), &rec, &none);
			raw(rawtext, sizeof(rawtext), &rec);
			cr_expect_str_eq(text, rawtext, "%s with %u words", e->name, rec.nr_data);
			cr_expect_str_eq(alone, rawtext, "%s with %u words, decoded alone", e->name,
					 rec.nr_data);
		}
	}
}

/* A short CR write no longer refines the open exit with CR 0. */
Test(xen_events, short_cr_write_does_not_refine)
{
	struct vma_record cr = record(TRC_HVM_CR_WRITE, 1);
	struct vma_vcpu *v;

	run_hvm_vcpu();
	cr.data[0] = 3;
	cr_assert(feed(&cr).unprocessed);
	v = vma_vcpu_get(m, 1, 0);
	cr_expect_eq(v->hvm.inflight.handler, 0);
}

/* The dump of @n records through the run driver's calls; returns the text. */
static char *dump_records(const struct vma_record *recs, unsigned int n)
{
	struct vma_stream stream = { .pcpu = 0 };
	struct vma_outcome out;
	struct vma_dump *dump;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	unsigned int i;

	cr_assert_not_null(f);
	dump = vma_dump_create(f, 1000000000, NULL);
	cr_assert_not_null(dump);
	for (i = 0; i < n; i++) {
		stream.rec = recs[i];
		vma_dump_begin(dump, m, &stream.rec);
		cr_assert_eq(vma_dispatch(m, &stream.rec, &out), VMA_OK);
		cr_assert_eq(vma_dump_end(dump, &stream, &out), VMA_OK);
	}
	cr_assert_eq(vma_dump_flush(dump), VMA_OK);
	vma_dump_destroy(dump);
	fclose(f);
	return buf;
}

/* A Xen 4.17 trace: exit 0x4e, an interrupt record, then exit @second. */
static char *dump_417(uint32_t second)
{
	struct vma_record recs[7];

	recs[0] = record(TRC_SCHED_RUNSTATE_CHANGE | 1u << 8, 1);
	recs[0].data[0] = 1u << 16;
	recs[1] = record(TRC_HVM_VMX_EXIT, 2);
	recs[1].data[0] = 0x4e;
	recs[2] = record(TRC_HVM_INTR, 1);
	recs[2].data[0] = 0x31;
	recs[3] = record(TRC_HVM_VMENTRY, 0);
	recs[4] = record(TRC_HVM_VMX_EXIT, 2);
	recs[4].data[0] = second;
	recs[5] = record(TRC_HVM_VMENTRY, 0);
	recs[6] = record(TRC_HVM_VMX_EXIT, 2);
	recs[6].data[0] = 0x4e;
	return dump_records(recs, 7);
}

static void expect_exit_name(const char *text, bool svm, uint32_t code, unsigned int times)
{
	const char *name = vma_hvm_exit_name(svm, code);
	char want[128];
	const char *at = text;
	unsigned int found = 0;

	snprintf(want, sizeof(want), "vmexit exit_reason %s ", name ? name : "4e");
	while ((at = strstr(at, want))) {
		found++;
		at++;
	}
	cr_expect_eq(found, times, "%u lines with \"%s\" in:\n%s", found, want, text);
}

/* SVM evidence after the first exit: the lines held before it read SVM. */
Test(xen_events, dump_learns_svm_from_later_records)
{
	char *text = dump_417(0x60);

	expect_exit_name(text, true, 0x4e, 2);
	cr_expect(strstr(text, "intr vec 0\n") != NULL, "%s", text);
	cr_expect(strstr(text, "intr vec 31") == NULL, "%s", text);
	free(text);
}

/* No evidence: VMX, as the summary decides. */
Test(xen_events, dump_without_evidence_reads_vmx)
{
	char *text = dump_417(0x1e);

	expect_exit_name(text, false, 0x4e, 2);
	cr_expect(strstr(text, "intr vec 31\n") != NULL, "%s", text);
	free(text);
}

/*
 * Emulation records are taken whatever runs, and do not make the vcpu an
 * HVM one (dom0 runs the device models): rows of the list and others.
 */
Test(xen_events, emulation_rows_do_not_type_the_vcpu)
{
	struct vma_record rs = record(TRC_SCHED_RUNSTATE_CHANGE | 1u << 8 | 0u << 4, 1);
	struct vma_record pit = record(TRC_HVM_EMUL_PIT_START_TIMER, 2);
	struct vma_record other = record(TRC_HVM_EMUL + 0xfff, 0);
	struct vma_vcpu *v;

	rs.data[0] = 0; /* d0v0 */
	feed(&rs);
	v = m->pcpus[0]->current;
	cr_assert_not_null(v);
	cr_assert_eq(v->domain->did, 0);
	cr_assert_not(feed(&pit).unprocessed);
	cr_assert_not(feed(&other).unprocessed);
	cr_assert_eq(v->type, VMA_VCPU_NONE);
}

/*
 * Lines made wide by many pcpus leave the look-ahead at 8 MiB, before
 * 65,536 of them are held (they once held 22 MB): 40,000 lines of some
 * 300 bytes have reached the file before the dump is flushed.
 */
Test(xen_events, dump_look_ahead_is_bounded_in_bytes)
{
	struct vma_stream stream = { .pcpu = 0 };
	struct vma_outcome out;
	struct vma_dump *dump;
	char *buf = NULL;
	size_t len = 0, first;
	FILE *f = open_memstream(&buf, &len);
	uint32_t i;

	cr_assert_not_null(f);
	for (i = 1; i < 300; i++)
		cr_assert_eq(vma_machine_add_pcpu(m, i), VMA_OK);
	dump = vma_dump_create(f, 1000000000, NULL);
	cr_assert_not_null(dump);
	for (i = 0; i < 40000; i++) {
		stream.pcpu = i % 300;
		stream.rec = record(TRC_HVM_VMENTRY, 0);
		stream.rec.pcpu = stream.pcpu;
		vma_dump_begin(dump, m, &stream.rec);
		cr_assert_eq(vma_dispatch(m, &stream.rec, &out), VMA_OK);
		cr_assert_eq(vma_dump_end(dump, &stream, &out), VMA_OK);
	}
	cr_assert_eq(fflush(f), 0);
	first = len;
	cr_assert_eq(vma_dump_flush(dump), VMA_OK);
	vma_dump_destroy(dump);
	fclose(f);
	cr_assert_gt(len, 40000u * 256, "lines of %zu bytes", len / 40000);
	cr_assert_gt(first, 0, "all %zu bytes were held until the end", len);
	cr_assert_lt(len - first, 2 * VMA_DUMP_VENDOR_HOLD_BYTES, "%zu bytes written late",
		     len - first);
	free(buf);
}
