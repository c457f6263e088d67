/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of the xentrace writer (tools/xtwriter.c): every file it builds is
 * compared byte for byte with the layout xentrace produces (window headers,
 * record headers, little-endian words), including the damaged files it is
 * asked to make for reader tests.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/status.h"
#include "xtwriter.h"

/* Expected bytes, built word by word. */
struct expect {
	unsigned char b[4096];
	size_t len;
};

static void ew(struct expect *e, uint32_t v)
{
	e->b[e->len++] = (unsigned char)v;
	e->b[e->len++] = (unsigned char)(v >> 8);
	e->b[e->len++] = (unsigned char)(v >> 16);
	e->b[e->len++] = (unsigned char)(v >> 24);
}

static void ewin(struct expect *e, uint32_t cpu, uint32_t size)
{
	ew(e, 0x0001f003u | (2u << 28));
	ew(e, cpu);
	ew(e, size);
}

static void check_bytes(struct vma_xtw *w, const struct expect *e)
{
	size_t len;
	const unsigned char *d = vma_xtw_data(w, &len);

	cr_assert_eq(len, e->len, "file has %zu bytes, expected %zu", len, e->len);
	for (size_t i = 0; i < len; i++)
		cr_assert_eq(d[i], e->b[i], "byte %zu is %02x, expected %02x", i, d[i], e->b[i]);
}

Test(xtwriter, header_encoding)
{
	cr_assert_eq(vma_xtw_header(0x81102, 3, true), 0x81102u | (3u << 28) | 0x80000000u);
	cr_assert_eq(vma_xtw_header(0x82001, 0, false), 0x82001u);
	cr_assert_eq(vma_xtw_header(0xf0021001, 7, false), 0x00021001u | (7u << 28),
		     "event is cut to 28 bits");
}

Test(xtwriter, record_with_tsc_is_one_window)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint32_t words[2] = { 0x00010002, 0xdeadbeef };
	struct expect e = { .len = 0 };

	cr_assert_not_null(w);
	cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_RUNSTATE_CHANGE | 0x10, 0x123456789aull,
				    words, 2), 0);
	cr_assert_eq(vma_xtw_bytes(w), 12 + 20, "buffered bytes count the window header");
	cr_assert_eq(vma_xtw_finish(w), 0);
	ewin(&e, 0, 20);
	ew(&e, (TRC_SCHED_RUNSTATE_CHANGE | 0x10) | (2u << 28) | 0x80000000u);
	ew(&e, 0x3456789a);
	ew(&e, 0x12);
	ew(&e, 0x00010002);
	ew(&e, 0xdeadbeef);
	check_bytes(w, &e);
	cr_assert_eq(vma_xtw_pcpu_records(w, 0), 1);
	cr_assert_eq(vma_xtw_windows(w), 1);
	vma_xtw_free(w);
}

Test(xtwriter, record_without_tsc)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint32_t vec = 0xf9;
	struct expect e = { .len = 0 };

	cr_assert_eq(vma_xtw_record_notsc(w, 2, TRC_HVM_INTR, &vec, 1), 0);
	cr_assert_eq(vma_xtw_record_notsc(w, 2, TRC_HVM_VMENTRY, NULL, 0), 0);
	cr_assert_eq(vma_xtw_finish(w), 0);
	ewin(&e, 2, 12);
	ew(&e, TRC_HVM_INTR | (1u << 28));
	ew(&e, 0xf9);
	ew(&e, TRC_HVM_VMENTRY);
	check_bytes(w, &e);
	cr_assert_eq(vma_xtw_nr_pcpus(w), 3);
	cr_assert_eq(vma_xtw_pcpu_records(w, 0), 0);
	cr_assert_eq(vma_xtw_pcpu_records(w, 2), 2);
	vma_xtw_free(w);
}

Test(xtwriter, full_buffer_flushes_only_its_pcpu)
{
	struct vma_xtw_options o = { .window_bytes = 64 };
	struct vma_xtw *w = vma_xtw_new_memory(&o);
	struct expect e = { .len = 0 };
	uint32_t words[4] = { 1, 2, 3, 4 };

	/* 28-byte records: two fit in 64 bytes, the third opens a new window. */
	cr_assert_eq(vma_xtw_record(w, 1, TRC_SCHED_WAKE, 100, words, 4), 0);
	cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_WAKE, 101, words, 4), 0);
	cr_assert_eq(vma_xtw_record(w, 1, TRC_SCHED_WAKE, 102, words, 4), 0);
	cr_assert_eq(vma_xtw_record(w, 1, TRC_SCHED_WAKE, 103, words, 4), 0);
	cr_assert_eq(vma_xtw_finish(w), 0);

	ewin(&e, 1, 56);
	for (uint32_t t = 100; t <= 102; t += 2) {
		ew(&e, TRC_SCHED_WAKE | (4u << 28) | 0x80000000u);
		ew(&e, t);
		ew(&e, 0);
		for (uint32_t i = 1; i <= 4; i++)
			ew(&e, i);
	}
	/* finish flushes in pcpu order: 0 then 1 */
	ewin(&e, 0, 28);
	ew(&e, TRC_SCHED_WAKE | (4u << 28) | 0x80000000u);
	ew(&e, 101);
	ew(&e, 0);
	for (uint32_t i = 1; i <= 4; i++)
		ew(&e, i);
	ewin(&e, 1, 28);
	ew(&e, TRC_SCHED_WAKE | (4u << 28) | 0x80000000u);
	ew(&e, 103);
	ew(&e, 0);
	for (uint32_t i = 1; i <= 4; i++)
		ew(&e, i);
	check_bytes(w, &e);
	cr_assert_eq(vma_xtw_windows(w), 3);
	vma_xtw_free(w);
}

Test(xtwriter, full_buffer_flushes_all_in_pcpu_order)
{
	struct vma_xtw_options o = { .window_bytes = 64, .flush_all_on_full = true };
	struct vma_xtw *w = vma_xtw_new_memory(&o);
	struct expect e = { .len = 0 };

	/* 32-byte records (tsc + 5 words): two fill pcpu 3's buffer. */
	uint32_t words[5] = { 0 };

	cr_assert_eq(vma_xtw_record(w, 3, TRC_SCHED_SWITCH, 1, words, 5), 0);
	cr_assert_eq(vma_xtw_record_notsc(w, 1, TRC_HVM_VMENTRY, NULL, 0), 0);
	cr_assert_eq(vma_xtw_record(w, 3, TRC_SCHED_SWITCH, 2, words, 5), 0);
	cr_assert_eq(vma_xtw_record(w, 3, TRC_SCHED_SWITCH, 3, words, 5), 0);
	/* The pass wrote pcpu 1, then pcpu 3; pcpu 3's third record is buffered. */
	ewin(&e, 1, 4);
	ew(&e, TRC_HVM_VMENTRY);
	ewin(&e, 3, 64);
	for (uint32_t t = 1; t <= 2; t++) {
		ew(&e, TRC_SCHED_SWITCH | (5u << 28) | 0x80000000u);
		ew(&e, t);
		ew(&e, 0);
		for (int i = 0; i < 5; i++)
			ew(&e, 0);
	}
	check_bytes(w, &e);
	cr_assert_eq(vma_xtw_bytes(w), e.len + 12 + 32);
	vma_xtw_free(w);
}

Test(xtwriter, pcpu_appears_late_and_out_of_order)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	struct expect e = { .len = 0 };

	cr_assert_eq(vma_xtw_record(w, 5, TRC_HVM_VMENTRY, 7, NULL, 0), 0);
	cr_assert_eq(vma_xtw_flush_all(w), 0);
	cr_assert_eq(vma_xtw_record(w, 2, TRC_HVM_VMENTRY, 8, NULL, 0), 0);
	cr_assert_eq(vma_xtw_record(w, 700, TRC_HVM_VMENTRY, 9, NULL, 0), 0);
	cr_assert_eq(vma_xtw_finish(w), 0);
	ewin(&e, 5, 12);
	ew(&e, TRC_HVM_VMENTRY | 0x80000000u);
	ew(&e, 7);
	ew(&e, 0);
	ewin(&e, 2, 12);
	ew(&e, TRC_HVM_VMENTRY | 0x80000000u);
	ew(&e, 8);
	ew(&e, 0);
	ewin(&e, 700, 12);
	ew(&e, TRC_HVM_VMENTRY | 0x80000000u);
	ew(&e, 9);
	ew(&e, 0);
	check_bytes(w, &e);
	cr_assert_eq(vma_xtw_nr_pcpus(w), 701);
	vma_xtw_free(w);
}

Test(xtwriter, lost_records_layout)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	struct expect e = { .len = 0 };

	cr_assert_eq(vma_xtw_lost(w, 0, 0x200000000ull, 17, 3, 1, 0x1fffffff0ull), 0);
	cr_assert_eq(vma_xtw_finish(w), 0);
	ewin(&e, 0, 28);
	ew(&e, TRC_LOST_RECORDS | (4u << 28) | 0x80000000u);
	ew(&e, 0);
	ew(&e, 2);
	ew(&e, 17);
	ew(&e, 3 | (1u << 16)); /* u16 did, then u16 vid */
	ew(&e, 0xfffffff0u);
	ew(&e, 1);
	check_bytes(w, &e);
	vma_xtw_free(w);
}

Test(xtwriter, explicit_wrap_records)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	struct expect e = { .len = 0 };

	cr_assert_eq(vma_xtw_wrap(w, 0, 4, 0), 0);
	cr_assert_eq(vma_xtw_wrap(w, 0, 36, 0x55), 0, "36 bytes need the time stamp");
	cr_assert_eq(vma_xtw_wrap(w, 0, 2, 0), VMA_ERR_USAGE);
	cr_assert_eq(vma_xtw_wrap(w, 0, 44, 0), VMA_ERR_USAGE);
	cr_assert_eq(vma_xtw_finish(w), 0);
	ewin(&e, 0, 40);
	ew(&e, TRC_TRACE_WRAP_BUFFER);
	ew(&e, TRC_TRACE_WRAP_BUFFER | (6u << 28) | 0x80000000u);
	ew(&e, 0x55);
	ew(&e, 0);
	for (int i = 0; i < 6; i++)
		ew(&e, 0);
	check_bytes(w, &e);
	vma_xtw_free(w);
}

Test(xtwriter, ring_emulation_pads_before_the_ring_end)
{
	/* 48-byte ring: 12 + 28 bytes, then a 12-byte record needs the tail's 8. */
	struct vma_xtw_options o = { .ring_bytes = 48 };
	struct vma_xtw *w = vma_xtw_new_memory(&o);
	struct expect e = { .len = 0 };
	uint32_t words[4] = { 0 };

	cr_assert_eq(vma_xtw_record(w, 0, TRC_HVM_VMENTRY, 10, NULL, 0), 0);
	cr_assert_eq(vma_xtw_record(w, 0, TRC_SCHED_WAKE, 11, words, 4), 0);
	cr_assert_eq(vma_xtw_record(w, 0, TRC_HVM_VMENTRY, 12, NULL, 0), 0);
	cr_assert_eq(vma_xtw_finish(w), 0);
	ewin(&e, 0, 12 + 28 + 8 + 12);
	ew(&e, TRC_HVM_VMENTRY | 0x80000000u);
	ew(&e, 10);
	ew(&e, 0);
	ew(&e, TRC_SCHED_WAKE | (4u << 28) | 0x80000000u);
	ew(&e, 11);
	ew(&e, 0);
	for (int i = 0; i < 4; i++)
		ew(&e, 0);
	ew(&e, TRC_TRACE_WRAP_BUFFER | (1u << 28));
	ew(&e, 0);
	ew(&e, TRC_HVM_VMENTRY | 0x80000000u);
	ew(&e, 12);
	ew(&e, 0);
	check_bytes(w, &e);
	cr_assert_eq(vma_xtw_pcpu_records(w, 0), 4, "the wrap record is a record");
	vma_xtw_free(w);
}

Test(xtwriter, damaged_truncated_window_and_garbage)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	struct expect e = { .len = 0 };
	const unsigned char junk[5] = { 0xde, 0xad, 0xbe, 0xef, 0x42 };

	/* A window claiming 100 bytes holding 12, then garbage. */
	cr_assert_eq(vma_xtw_cpu_change(w, 1, 100), 0);
	cr_assert_eq(vma_xtw_record(w, 1, TRC_HVM_VMENTRY, 5, NULL, 0), 0);
	cr_assert_eq(vma_xtw_finish(w), 0);
	cr_assert_eq(vma_xtw_raw(w, junk, sizeof(junk)), 0);
	ewin(&e, 1, 100);
	ewin(&e, 1, 12);
	ew(&e, TRC_HVM_VMENTRY | 0x80000000u);
	ew(&e, 5);
	ew(&e, 0);
	memcpy(e.b + e.len, junk, sizeof(junk));
	e.len += sizeof(junk);
	check_bytes(w, &e);
	vma_xtw_free(w);
}

Test(xtwriter, damaged_window_past_eof)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	struct expect e = { .len = 0 };
	uint32_t rec[3] = { TRC_HVM_VMENTRY | 0x80000000u, 9, 0 };

	/* Header says 4096 bytes; only one 12-byte record follows, then EOF. */
	cr_assert_eq(vma_xtw_cpu_change(w, 0, 4096), 0);
	cr_assert_eq(vma_xtw_raw(w, rec, sizeof(rec)), 0);
	ewin(&e, 0, 4096);
	ew(&e, rec[0]);
	ew(&e, rec[1]);
	ew(&e, rec[2]);
	check_bytes(w, &e);
	vma_xtw_free(w);
}

Test(xtwriter, damaged_record_overruns_window)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	struct expect e = { .len = 0 };
	unsigned char bad[12];
	uint32_t hdr = vma_xtw_header(TRC_HVM_CPUID, 7, true);

	/* A header announcing tsc + 7 words, with only the tsc in the window. */
	memset(bad, 0, sizeof(bad));
	for (int i = 0; i < 4; i++)
		bad[i] = (unsigned char)(hdr >> (8 * i));
	cr_assert_eq(vma_xtw_record(w, 0, TRC_HVM_VMENTRY, 1, NULL, 0), 0);
	cr_assert_eq(vma_xtw_pcpu_raw(w, 0, bad, sizeof(bad)), 0);
	cr_assert_eq(vma_xtw_flush_pcpu(w, 0), 0);
	cr_assert_eq(vma_xtw_record(w, 0, TRC_HVM_VMENTRY, 2, NULL, 0), 0);
	cr_assert_eq(vma_xtw_finish(w), 0);
	ewin(&e, 0, 24);
	ew(&e, TRC_HVM_VMENTRY | 0x80000000u);
	ew(&e, 1);
	ew(&e, 0);
	ew(&e, hdr);
	ew(&e, 0);
	ew(&e, 0);
	ewin(&e, 0, 12);
	ew(&e, TRC_HVM_VMENTRY | 0x80000000u);
	ew(&e, 2);
	ew(&e, 0);
	check_bytes(w, &e);
	cr_assert_eq(vma_xtw_pcpu_records(w, 0), 2, "raw bytes are not records");
	vma_xtw_free(w);
}

Test(xtwriter, usage_errors)
{
	struct vma_xtw_options bad = { .window_bytes = 30 };
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint32_t words[8] = { 0 };

	cr_assert_null(vma_xtw_new_memory(&bad), "window must be a multiple of 4, >= 64");
	cr_assert_null(vma_xtw_new_stream(NULL, NULL));
	cr_assert_eq(vma_xtw_record(w, 0, TRC_HVM_VMENTRY, 1, words, 8), VMA_ERR_USAGE);
	cr_assert_eq(vma_xtw_record(w, VMA_XTW_MAX_PCPUS, TRC_HVM_VMENTRY, 1, NULL, 0),
		     VMA_ERR_USAGE);
	cr_assert_eq(vma_xtw_bytes(w), 0, "failed calls leave nothing behind");
	vma_xtw_free(w);
}

Test(xtwriter, stream_matches_memory)
{
	struct vma_xtw_options o = { .window_bytes = 128, .ring_bytes = 200 };
	struct vma_xtw *m = vma_xtw_new_memory(&o);
	FILE *f = tmpfile();
	struct vma_xtw *s;
	const unsigned char *mem;
	unsigned char *got;
	size_t len;

	cr_assert_not_null(f);
	s = vma_xtw_new_stream(f, &o);
	cr_assert_not_null(s);
	for (uint32_t i = 0; i < 200; i++) {
		uint32_t words[3] = { i, i * 7, i * 13 };
		struct vma_xtw *both[2] = { m, s };

		for (int k = 0; k < 2; k++) {
			if (i % 3) {
				cr_assert_eq(vma_xtw_record(both[k], i % 4, TRC_HVM_CPUID, 1000 + i,
							    words, i % 4), 0);
			} else {
				cr_assert_eq(vma_xtw_record_notsc(both[k], i % 5, TRC_HVM_INTR,
								  words, 1), 0);
			}
		}
	}
	cr_assert_eq(vma_xtw_finish(m), 0);
	cr_assert_eq(vma_xtw_finish(s), 0);
	mem = vma_xtw_data(m, &len);
	cr_assert_eq((uint64_t)ftell(f), (uint64_t)len);
	cr_assert_eq(vma_xtw_bytes(s), len);
	got = malloc(len);
	rewind(f);
	cr_assert_eq(fread(got, 1, len, f), len);
	cr_assert_eq(memcmp(got, mem, len), 0);
	free(got);
	vma_xtw_free(m);
	vma_xtw_free(s);
	fclose(f);
}
