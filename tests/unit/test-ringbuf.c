/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the ring-buffer page decoder (src/input/ringbuf.c): time
 * deltas, TIME_EXTEND, absolute TIME_STAMP, discarded events and end
 * padding, the commit word and its lost-events flags, damaged and cut
 * pages, both byte orders, and the header_page / header_event texts.
 * Pages are built with the fixture writer's vma_rbw_* functions.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* a reader that loops must fail, not hang the test run */
TestSuite(ringbuf, .timeout = 120);

#include "input/kvm-internal.h"
#include "ringbuf-writer.h"

#define PAGE 4096

static unsigned char page[PAGE];
static struct vma_rb_layout lo;
static struct vma_rbw w;

static void start(uint64_t ts, bool big, uint32_t long_size)
{
	vma_rb_layout_default(&lo, PAGE, long_size, big);
	vma_rbw_start(&w, page, PAGE, long_size, big, ts);
}

static void payload(unsigned char *buf, uint32_t len, unsigned char seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(seed + i);
}

Test(ringbuf, data_events_accumulate_deltas)
{
	struct vma_rb_page pg;
	unsigned char a[24], b[200];

	start(1000, false, 8);
	payload(a, sizeof(a), 1);
	payload(b, sizeof(b), 7);
	cr_assert_eq(vma_rbw_data(&w, 5, a, sizeof(a), false), 0);
	cr_assert_eq(vma_rbw_data(&w, 7, b, sizeof(b), false), 0); /* > 112 bytes: len0 form */
	cr_assert_eq(vma_rbw_data(&w, 0, a, 12, true), 0);          /* len0 form, short */
	vma_rbw_commit(&w, false, UINT64_MAX);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert_eq(pg.base_ts, 1000);
	cr_assert_not(pg.missed);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, 1005);
	cr_assert_eq(pg.ev_size, 24);
	cr_assert_eq(memcmp(pg.ev, a, 24), 0);
	cr_assert_eq(pg.ev_pos, 16);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, 1012);
	cr_assert_eq(pg.ev_size, 200);
	cr_assert_eq(memcmp(pg.ev, b, 200), 0);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, 1012);
	cr_assert_eq(pg.ev_size, 12);
	cr_assert_eq(memcmp(pg.ev, a, 12), 0);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_DONE);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_DONE);
}

Test(ringbuf, time_extend_adds_high_bits_then_the_event_delta)
{
	struct vma_rb_page pg;
	unsigned char a[8] = { 0 };
	uint64_t big_delta = (3ull << 40) + 12345; /* needs the 32-bit array word */

	start(50, false, 8);
	cr_assert_eq(vma_rbw_data(&w, 1, a, 8, false), 0);
	cr_assert_eq(vma_rbw_extend(&w, big_delta), 0);
	cr_assert_eq(vma_rbw_data(&w, 9, a, 8, false), 0);
	cr_assert_eq(vma_rbw_extend(&w, 1u << 27), 0); /* exactly one past 27 bits */
	cr_assert_eq(vma_rbw_data(&w, 0, a, 8, false), 0);
	vma_rbw_commit(&w, false, UINT64_MAX);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, 51);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, 51 + big_delta + 9);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, 51 + big_delta + 9 + (1u << 27));
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_DONE);
}

Test(ringbuf, absolute_stamp_replaces_the_time)
{
	struct vma_rb_page pg;
	unsigned char a[8] = { 0 };

	start(1ull << 40, false, 8);
	cr_assert_eq(vma_rbw_data(&w, 100, a, 8, false), 0);
	cr_assert_eq(vma_rbw_stamp(&w, 777777), 0); /* earlier than the page: still taken */
	cr_assert_eq(vma_rbw_data(&w, 3, a, 8, false), 0);
	vma_rbw_commit(&w, false, UINT64_MAX);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, (1ull << 40) + 100);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, 777780);
}

Test(ringbuf, absolute_stamp_keeps_and_carries_the_top_bits)
{
	struct vma_rb_page pg;
	unsigned char a[8] = { 0 };
	uint64_t top = 0x08ull << 56;                 /* a bit a 59-bit stamp cannot hold */
	uint64_t base = top | ((1ull << 59) - 100);   /* low bits about to wrap */

	start(base, false, 8);
	cr_assert_eq(vma_rbw_data(&w, 1, a, 8, false), 0);
	cr_assert_eq(vma_rbw_stamp(&w, 50), 0);       /* low bits wrapped: carry into the top */
	cr_assert_eq(vma_rbw_data(&w, 0, a, 8, false), 0);
	cr_assert_eq(vma_rbw_stamp(&w, (1ull << 59) - 1), 0); /* no wrap now: top kept */
	cr_assert_eq(vma_rbw_data(&w, 0, a, 8, false), 0);
	vma_rbw_commit(&w, false, UINT64_MAX);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, base + 1);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, top + (1ull << 59) + 50);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, (top + (1ull << 59)) | ((1ull << 59) - 1));
}

Test(ringbuf, discarded_event_is_skipped_but_its_delta_counts)
{
	struct vma_rb_page pg;
	unsigned char a[8] = { 0x11 }, b[8] = { 0x22 };

	start(0, false, 8);
	cr_assert_eq(vma_rbw_data(&w, 10, a, 8, false), 0);
	cr_assert_eq(vma_rbw_discard(&w, 5, 40), 0);
	cr_assert_eq(vma_rbw_data(&w, 2, b, 8, false), 0);
	vma_rbw_commit(&w, false, UINT64_MAX);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ev[0], 0x11);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ev[0], 0x22);
	cr_assert_eq(pg.ts, 17);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_DONE);
}

Test(ringbuf, null_padding_ends_the_page)
{
	struct vma_rb_page pg;
	unsigned char a[8] = { 0 };

	start(0, false, 8);
	cr_assert_eq(vma_rbw_data(&w, 1, a, 8, false), 0);
	cr_assert_eq(vma_rbw_pad_end(&w), 0);
	vma_rbw_commit(&w, false, UINT64_MAX);
	/* whatever lies after the padding is not an event */
	memset(page + 40, 0x01, 64);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert_eq(pg.commit, PAGE - 16);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_DONE);
}

Test(ringbuf, lost_events_flag_without_a_count)
{
	struct vma_rb_page pg;
	unsigned char a[8] = { 0 };

	start(0, false, 8);
	cr_assert_eq(vma_rbw_data(&w, 1, a, 8, false), 0);
	vma_rbw_commit(&w, true, UINT64_MAX);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert(pg.missed);
	cr_assert_not(pg.missed_stored);
	cr_assert_eq(pg.commit, 12, "the flag must not leak into the length");
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_DONE);
}

Test(ringbuf, lost_events_count_stored_after_the_events)
{
	struct vma_rb_page pg;
	unsigned char a[8] = { 0 };

	start(0, false, 8);
	cr_assert_eq(vma_rbw_data(&w, 1, a, 8, false), 0);
	vma_rbw_commit(&w, true, 123456789012ull);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert(pg.missed);
	cr_assert(pg.missed_stored);
	cr_assert_eq(pg.missed_count, 123456789012ull);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_DONE, "the count is not an event");
}

Test(ringbuf, kernel_sign_extended_flags_are_masked)
{
	struct vma_rb_page pg;
	unsigned char a[8] = { 0 };

	/* a 64-bit kernel adds (1 << 31) as an int: the flag word sign-extends */
	start(0, false, 8);
	cr_assert_eq(vma_rbw_data(&w, 1, a, 8, false), 0);
	vma_tdw_put(page + 8, 8, 0xffffffff80000000ull + 12, false);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert(pg.missed);
	cr_assert_eq(pg.commit, 12);
}

Test(ringbuf, commit_larger_than_the_page_is_damage)
{
	struct vma_rb_page pg;

	start(0, false, 8);
	vma_tdw_put(page + 8, 8, PAGE, false);
	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_BAD);
	cr_assert_not_null(pg.error);
	cr_assert_not(pg.cut);
}

Test(ringbuf, event_running_past_the_commit_is_damage)
{
	struct vma_rb_page pg;
	unsigned char a[64] = { 0 };

	start(0, false, 8);
	cr_assert_eq(vma_rbw_data(&w, 1, a, 8, false), 0);
	cr_assert_eq(vma_rbw_data(&w, 1, a, 64, false), 0);
	vma_rbw_commit(&w, false, UINT64_MAX);
	/* shrink the commit into the second event */
	vma_tdw_put(page + 8, 8, 12 + 20, false);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_BAD);
	cr_assert_eq(pg.error_at, 16 + 12, "damage reported at the second event");
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_BAD, "and stays damaged");
}

Test(ringbuf, absurd_lengths_are_damage_not_overflow)
{
	struct vma_rb_page pg;
	unsigned char a[8] = { 0 };

	start(0, false, 8);
	cr_assert_eq(vma_rbw_data(&w, 1, a, 8, true), 0);
	vma_rbw_commit(&w, false, UINT64_MAX);
	vma_tdw_put(page + 16 + 4, 4, 0xfffffffeu, false); /* array[0] of a len0 event */
	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_BAD);

	vma_tdw_put(page + 16 + 4, 4, 2, false);           /* shorter than itself */
	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_BAD);

	start(0, false, 8);
	cr_assert_eq(vma_rbw_discard(&w, 1, 8), 0);
	vma_rbw_commit(&w, false, UINT64_MAX);
	vma_tdw_put(page + 16 + 4, 4, 0x7ffffff0u, false); /* padding length */
	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_BAD);
}

Test(ringbuf, cut_page_delivers_what_is_present)
{
	struct vma_rb_page pg;
	unsigned char a[40] = { 0 };
	int n = 0;

	start(0, false, 8);
	while (vma_rbw_data(&w, 1, a, 40, false) == 0) {
	}
	vma_rbw_commit(&w, false, UINT64_MAX);

	/* 16 header bytes + 10 events of 44 bytes + half an event */
	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, 16 + 10 * 44 + 20), VMA_RB_DONE);
	while (vma_rb_page_next(&pg) == VMA_RB_EVENT)
		n++;
	cr_assert_eq(n, 10);
	cr_assert(pg.cut);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, 10), VMA_RB_BAD);
	cr_assert(pg.cut, "a header cut short is truncation, not corruption");
}

Test(ringbuf, big_endian_pages)
{
	struct vma_rb_page pg;
	unsigned char a[12];

	payload(a, sizeof(a), 3);
	start(0x0102030405ull, true, 8);
	cr_assert_eq(vma_rbw_data(&w, 0x1234, a, 12, false), 0);
	cr_assert_eq(vma_rbw_extend(&w, 1ull << 33), 0);
	cr_assert_eq(vma_rbw_data(&w, 2, a, 12, false), 0);
	vma_rbw_commit(&w, true, 5);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert_eq(pg.base_ts, 0x0102030405ull);
	cr_assert(pg.missed_stored);
	cr_assert_eq(pg.missed_count, 5);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, 0x0102030405ull + 0x1234);
	cr_assert_eq(memcmp(pg.ev, a, 12), 0);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ts, 0x0102030405ull + 0x1234 + (1ull << 33) + 2);
}

Test(ringbuf, four_byte_commit_of_32_bit_kernels)
{
	struct vma_rb_page pg;
	unsigned char a[8] = { 9 };

	start(10, false, 4);
	cr_assert_eq(lo.data_offset, 12);
	cr_assert_eq(vma_rbw_data(&w, 1, a, 8, false), 0);
	vma_rbw_commit(&w, true, 3);

	cr_assert_eq(vma_rb_page_load(&pg, &lo, page, PAGE), VMA_RB_DONE);
	cr_assert_eq(pg.missed_count, 3);
	cr_assert_eq(vma_rb_page_next(&pg), VMA_RB_EVENT);
	cr_assert_eq(pg.ev, page + 12 + 4);
	cr_assert_eq(pg.ts, 11);
}

static const char header_page_64[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char header_page_32[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:12;\tsize:8180;\tsigned:0;\n";

Test(ringbuf, header_page_text_gives_the_layout)
{
	struct vma_rb_layout l;

	vma_rb_layout_default(&l, 1234, 8, false);
	cr_assert_eq(vma_rb_layout_parse(&l, header_page_64, strlen(header_page_64), true), 0);
	cr_assert_eq(l.commit_size, 8);
	cr_assert_eq(l.data_offset, 16);
	cr_assert_eq(l.page_size, 4096);

	cr_assert_eq(vma_rb_layout_parse(&l, header_page_32, strlen(header_page_32), false), 0);
	cr_assert_eq(l.commit_size, 4);
	cr_assert_eq(l.data_offset, 12);
	cr_assert_eq(l.page_size, 4096, "page size kept when not asked");
	cr_assert_eq(vma_rb_layout_parse(&l, header_page_32, strlen(header_page_32), true), 0);
	cr_assert_eq(l.page_size, 8192);

	cr_assert_eq(vma_rb_layout_parse(&l, "garbage", 7, true), -1);
}

Test(ringbuf, header_event_must_be_the_modern_one)
{
	static const char modern[] = "# compressed entry header\n\ttype_len    :    5 bits\n"
		"\ttime_delta  :   27 bits\n\tarray       :   32 bits\n";
	static const char old[] = "\ttype        :    2 bits\n\tlen         :    3 bits\n"
		"\ttime_delta  :   27 bits\n";

	cr_assert(vma_rb_header_event_ok(modern, strlen(modern)));
	cr_assert_not(vma_rb_header_event_ok(old, strlen(old)));
	cr_assert_not(vma_rb_header_event_ok("", 0));
}

/* One walk of a page, by vma_rb_page_step() or vma_rb_page_next(): what each call left. */
struct walk_step {
	int ret;
	uint64_t ts;
	uint32_t ev_at, ev_size, ev_pos, pos;
	bool cut;
	const char *error;
};

static int walk(const unsigned char *p, uint32_t avail, bool step, struct walk_step *out, int max)
{
	struct vma_rb_page pg;
	int n = 0;

	if (vma_rb_page_load(&pg, &lo, p, avail) != VMA_RB_DONE)
		return -1;
	while (n < max) {
		int ret = step ? vma_rb_page_step(&pg) : vma_rb_page_next(&pg);

		out[n++] = (struct walk_step){ ret, pg.ts, pg.ev ? (uint32_t)(pg.ev - p) : 0,
					       pg.ev_size, pg.ev_pos, pg.pos, pg.cut, pg.error };
		if (ret != VMA_RB_EVENT)
			break;
	}
	return n;
}

/*
 * The inline step takes the usual data event itself and leaves everything
 * else to vma_rb_page_next(): on random pages of every kind of event, both
 * byte orders, cut short and with their commit moved into an event, both
 * walks return the same, with the same time, event and position each time.
 */
Test(ringbuf, inline_step_walks_as_page_next)
{
	static struct walk_step a[1200], b[1200];
	unsigned int seed = 2024, round;
	unsigned char pl[240];

	payload(pl, sizeof(pl), 3);
	for (round = 0; round < 400; round++) {
		bool big = round & 1;
		uint32_t avail = PAGE, i;
		int na, nb, k;

		start(rand_r(&seed), big, round & 2 ? 4 : 8);
		for (i = 0; i < 200; i++) {
			uint32_t r = (uint32_t)rand_r(&seed) % 16, delta = (uint32_t)rand_r(&seed) % 5000;
			int ok;

			if (r < 10) {
				ok = vma_rbw_data(&w, delta, pl, 4 + (uint32_t)rand_r(&seed) % 120, false);
			} else if (r == 10) {
				ok = vma_rbw_data(&w, delta, pl, 4 + (uint32_t)rand_r(&seed) % 200, true);
			} else if (r == 11) {
				ok = vma_rbw_extend(&w, (uint64_t)rand_r(&seed) << 20);
			} else if (r == 12) {
				ok = vma_rbw_stamp(&w, (uint64_t)rand_r(&seed) << 10);
			} else if (r == 13) {
				ok = vma_rbw_discard(&w, delta + 1, 4 + (uint32_t)rand_r(&seed) % 60);
			} else {
				ok = vma_rbw_data(&w, delta, pl, 4 * (1 + (uint32_t)rand_r(&seed) % 28),
						  false);
			}
			if (ok < 0)
				break;
		}
		if (round % 5 == 0)
			(void)vma_rbw_pad_end(&w);
		vma_rbw_commit(&w, false, UINT64_MAX);
		if (round % 3 == 1)
			avail = 16 + (uint32_t)rand_r(&seed) % (PAGE - 16);
		if (round % 7 == 2) {
			/* a commit that ends inside an event */
			uint64_t commit = (uint64_t)rand_r(&seed) % (PAGE - 16);

			vma_tdw_put(page + 8, round & 2 ? 4 : 8, commit, big);
		}
		na = walk(page, avail, true, a, 1200);
		nb = walk(page, avail, false, b, 1200);
		cr_assert_eq(na, nb, "round %u: %d calls against %d", round, na, nb);
		for (k = 0; k < na; k++) {
			cr_assert_eq(a[k].ret, b[k].ret, "round %u call %d", round, k);
			cr_assert_eq(a[k].ts, b[k].ts, "round %u call %d", round, k);
			cr_assert_eq(a[k].pos, b[k].pos, "round %u call %d", round, k);
			cr_assert_eq(a[k].cut, b[k].cut, "round %u call %d", round, k);
			cr_assert_eq(a[k].error, b[k].error, "round %u call %d", round, k);
			if (a[k].ret == VMA_RB_EVENT) {
				cr_assert_eq(a[k].ev_at, b[k].ev_at, "round %u call %d", round, k);
				cr_assert_eq(a[k].ev_size, b[k].ev_size, "round %u call %d", round, k);
				cr_assert_eq(a[k].ev_pos, b[k].ev_pos, "round %u call %d", round, k);
			}
		}
	}
}
