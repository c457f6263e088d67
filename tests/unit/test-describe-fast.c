/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for the record decoders that build their text from appending
 * primitives instead of printf formats (exits, entries, scheduling,
 * credit2, PV hypercalls...): over many random payloads, each must give
 * the bytes its printf format gives.  The formats here are the ones the
 * decoders used, which test-xen-describe checks against xenalyze on
 * chosen payloads; random words add the edges (sign bits, zero, widths).
 * Each record is decoded again as the dump decodes it, with a table of
 * kept texts (struct xd_kept_texts) that the first decoding fills and the
 * second reads: the same bytes and mark all three ways.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/xen-describe-internal.h"
#include "vmalyze/describe.h"
#include "vmalyze/state.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-names.h"

#define ROUNDS 3000

static uint64_t rng = 0x243f6a8885a308d3ull;

/* A random word of random magnitude: small ids as often as full words. */
static uint32_t word(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32) >> (rng % 33 == 32 ? 0 : (unsigned int)(rng % 33));
}

static uint64_t q(const uint32_t *w, unsigned int i)
{
	return (uint64_t)w[i] | ((uint64_t)w[i + 1] << 32);
}

static struct vma_strbuf sb;
static struct xd_kept_texts *kept; /* shared by every test: texts kept early are read later */

static void setup(void)
{
	vma_sb_init(&sb);
	kept = calloc(1, sizeof(*kept));
	cr_assert_not_null(kept);
}

static void teardown(void)
{
	vma_sb_free(&sb);
	free(kept);
}

/* @rec decoded at the end of @out as the dump does, with the kept texts; its mark. */
static char describe_kept(struct vma_strbuf *out, const struct vma_record *rec,
			  const struct vma_describe_ctx *ctx)
{
	struct xd_out o;

	cr_assert(vma_sb_room(out, XD_TEXT_ROOM));
	xd_attach(&o, out);
	o.kept = kept;
	xd_describe(&o, rec, ctx);
	xd_sync(&o);
	return o.mark;
}

/* Both decodings with the kept texts (filling, then reading) give @want and @rec's mark. */
static void expect_kept(const struct vma_record *rec, const struct vma_describe_ctx *ctx,
			const char *want)
{
	char mark = vma_xen_dump_mark(rec, ctx);
	int i;

	for (i = 0; i < 2; i++) {
		vma_sb_reset(&sb);
		cr_assert_eq(describe_kept(&sb, rec, ctx), mark, "event %#x", rec->event);
		cr_assert_str_eq(sb.buf, want, "event %#x, kept texts, pass %d", rec->event, i);
	}
}

/* Decode @event with @nr words @w under @ctx, and expect the printf of @fmt. */
__attribute__((format(printf, 5, 6)))
static void expect(uint32_t event, unsigned int nr, const uint32_t *w,
		   const struct vma_describe_ctx *ctx, const char *fmt, ...)
{
	struct vma_record rec;
	char want[512];
	va_list ap;

	memset(&rec, 0, sizeof(rec));
	rec.event = event;
	rec.nr_data = (uint16_t)nr;
	memcpy(rec.data, w, nr * sizeof(*w));
	rec.flags = VMA_REC_HAS_TSC;
	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	vma_sb_reset(&sb);
	vma_describe_xen(&sb, &rec, ctx);
	cr_assert_str_eq(sb.buf, want, "event %#x", event);
	expect_kept(&rec, ctx, want);
}

static void fill_words(uint32_t *w, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		w[i] = word();
}

TestSuite(describe_fast, .init = setup, .fini = teardown);

Test(describe_fast, exits_and_entries)
{
	struct vma_describe_ctx ctx = { 0 };
	uint32_t w[8];
	int i;

	for (i = 0; i < ROUNDS; i++) {
		const char *name;

		fill_words(w, 8);
		w[0] %= 0x500;
		ctx.svm = i & 1;
		name = vma_hvm_exit_name(ctx.svm, w[0]);
		if (name) {
			expect(TRC_HVM_VMX_EXIT64, 3, w, &ctx, "vmexit exit_reason %s eip %llx",
			       name, (unsigned long long)q(w, 1));
			expect(TRC_HVM_VMX_EXIT, 2, w, &ctx, "vmexit exit_reason %s eip %llx", name,
			       (unsigned long long)w[1]);
		} else {
			expect(TRC_HVM_VMX_EXIT64, 3, w, &ctx, "vmexit exit_reason %x eip %llx",
			       w[0], (unsigned long long)q(w, 1));
		}
		ctx.arc_open = true;
		ctx.arc_cycles = (uint64_t)word() << (i % 40);
		expect(TRC_HVM_VMENTRY, 0, w, &ctx, "vmentry cycles %lld %s",
		       (long long)ctx.arc_cycles, ctx.arc_cycles > 10000 ? "!" : "");
		ctx.arc_open = false;
	}
}

Test(describe_fast, hvm_handlers)
{
	static const char *const intsrc[] = { "none", "pic", "lapic", "nmi", "mce", "vector" };
	struct vma_describe_ctx ctx = { .exit_open = true };
	uint32_t w[8];
	int i;

	for (i = 0; i < ROUNDS; i++) {
		const char *name;
		char tail[32];

		fill_words(w, 8);
		expect(TRC_HVM_INJ_VIRQ, 2, w, &ctx, "inj_virq vec %u  %s", w[0],
		       w[1] ? "fake" : "real");
		w[1] %= 8;
		if ((int32_t)w[2] > 0) {
			snprintf(tail, sizeof(tail), "intr %x", w[2]);
		} else {
			snprintf(tail, sizeof(tail), "intr #");
		}
		expect(TRC_HVM_INTR_WINDOW, 3, w, &ctx, "intr_window vec %u src %u(%s) %s", w[0],
		       w[1], w[1] < 6 ? intsrc[w[1]] : "?", tail);
		w[0] &= 0x1ff;
		name = vma_extint_vector_name(w[0]);
		if (name) {
			expect(TRC_HVM_INTR, 1, w, &ctx, "intr vec %s(%x)", name, w[0]);
		} else {
			expect(TRC_HVM_INTR, 1, w, &ctx, "intr vec %x", w[0]);
		}
		expect(TRC_HVM_IOPORT_READ, 2, w, &ctx, "io read port %x val %x", w[0], w[1]);
		expect(TRC_HVM_IOPORT_WRITE, 1, w, &ctx, "io write port %x (no data)", w[0]);
		expect(TRC_HVM_IOMEM_READ, 2, w, &ctx, "mmio_assist %c gpa %llx data %x", 'r',
		       (unsigned long long)w[0], w[1]);
		expect(TRC_HVM_IOMEM_WRITE | TRC_64_FLAG, 3, w, &ctx,
		       "mmio_assist %c gpa %llx (no data)", 'w', (unsigned long long)q(w, 0));
		w[0] = (w[0] % 9) | (w[0] & 0x80000000u);
		if (w[0] != 3) {
			expect(TRC_HVM_CR_WRITE64, 3, w, &ctx, "cr_write cr%d val %llx", (int)w[0],
			       (unsigned long long)q(w, 1));
		}
		expect(TRC_HVM_MSR_READ, 3, w, &ctx, "%s addr %x val %llx", "msr_read", w[0],
		       (unsigned long long)q(w, 1));
		expect(TRC_HVM_MSR_WRITE, 3, w, &ctx, "%s addr %x val %llx", "msr_write", w[0],
		       (unsigned long long)q(w, 1));
		name = vma_hypercall_name(w[2] % 64);
		w[2] %= 64;
		if (name) {
			expect(TRC_HVM_VMMCALL, 1, w + 2, &ctx, "vmcall %2x (%s)", w[2], name);
		} else {
			expect(TRC_HVM_VMMCALL, 1, w + 2, &ctx, "vmcall %2x", w[2]);
		}
		expect(TRC_HVM_NPF, 6, w, &ctx, "npf gpa %llx q %x mfn %llx t %d",
		       (unsigned long long)q(w, 0), w[4], (unsigned long long)q(w, 2), (int)w[5]);
		ctx.last_rdtsc = (uint64_t)word() << 32;
		expect(TRC_HVM_RDTSC, 2, w, &ctx, "rdtsc %llx %lld %s", (unsigned long long)q(w, 0),
		       (long long)q(w, 0), ctx.last_rdtsc > q(w, 0) ? "BACKWARDS" : "");
		expect(TRC_HVM_CPUID, 5, w, &ctx, "%s%s [ %x %x %x %x %x ]", "cpuid", "", w[0],
		       w[1], w[2], w[3], w[4]);
		expect(TRC_HVM_HLT | TRC_64_FLAG, 1, w, &ctx, "%s%s [ %x ]", "hlt", "64", w[0]);
	}
}

Test(describe_fast, scheduling)
{
	struct vma_describe_ctx ctx = { 0 };
	uint32_t w[8];
	int i;

	for (i = 0; i < ROUNDS; i++) {
		uint32_t old = (uint32_t)i % 4, new = (uint32_t)(i / 4) % 4;
		char next[128] = "", cont[128] = "";

		fill_words(w, 8);
		expect(TRC_SCHED_MIN + (old << 8) + (new << 4) + 1, 1, w, &ctx,
		       "runstate_change d%uv%u %s->%s", w[0] >> 16, w[0] & 0xffff,
		       vma_vcpu_runstate_name(old), vma_vcpu_runstate_name(new));
		expect(TRC_SCHED_MIN + 2, 5, w, &ctx, "runstate_continue {%lld,%lld} d%uv%u %s->%s",
		       (long long)q(w, 1), (long long)q(w, 3), w[0] >> 16, w[0] & 0xffff, "running",
		       "running");
		expect(TRC_SCHED_WAKE, 2, w, &ctx, "%s d%uv%u", "vcpu_wake", w[0], w[1]);
		expect(TRC_SCHED_BLOCK, 2, w, &ctx, "%s d%uv%u", "vcpu_block", w[0], w[1]);
		expect(TRC_SCHED_SWITCH, 4, w, &ctx, "sched_switch prev d%uv%u next d%uv%u", w[0],
		       w[1], w[2], w[3]);
		expect(TRC_SCHED_SWITCH_INFPREV, 3, w, &ctx,
		       "sched_switch prev d%uv%d, run for %u.%uus", w[0], (int)w[1], w[2] / 1000,
		       w[2] % 1000);
		if (w[2]) {
			snprintf(next, sizeof(next), ", was runnable for %u.%uus", w[2] / 1000,
				 w[2] % 1000);
		}
		if ((int32_t)w[3] > 0) {
			snprintf(cont, sizeof(cont), ", next slice %u.%uus", w[3] / 1000,
				 w[3] % 1000);
		}
		expect(TRC_SCHED_SWITCH_INFNEXT, 4, w, &ctx, "sched_switch next d%uv%u%s%s", w[0],
		       w[1], next, cont);
		expect(TRC_SCHED_SWITCH_INFCONT, 4, w, &ctx,
		       "sched_switch continue d%uv%u, run for %u.%uus%s", w[0], w[1], w[2] / 1000,
		       w[2] % 1000, cont);
	}
}

#define CSCHED2(n) TRC_SCHED_CLASS_EVT(CSCHED2, n)

/* The credit2 percentages as xenalyze computes and prints them. */
static void pct(char *buf, size_t len, uint64_t load, uint32_t shift)
{
	snprintf(buf, len, "%4.3f", ldexp((double)load * 100.0, -(int)(shift & 0xff)));
}

Test(describe_fast, credit2)
{
	struct vma_describe_ctx ctx = { 0 };
	uint32_t w[8];
	int i;

	for (i = 0; i < ROUNDS; i++) {
		uint32_t v = 0, d = 0;
		char a[64], b[64], budget[64] = "", flags[128];

		fill_words(w, 8);
		v = w[0] & 0xffff;
		d = w[0] >> 16;
		expect(CSCHED2(2), 2, w, &ctx, "csched2:runq_insert d%uv%u, position %u", d, v,
		       w[1]);
		if (i % 3 == 0) {
			w[2] = (uint32_t)INT_MIN;
		} else {
			snprintf(budget, sizeof(budget), "budget = %d, ", (int)w[2]);
		}
		expect(CSCHED2(3), 4, w, &ctx,
		       "csched2:burn_credits d%uv%u, credit = %d, %sdelta = %d", d, v, (int)w[1],
		       budget, (int)w[3]);
		expect(CSCHED2(7), 3, w, &ctx,
		       "csched2:reset_credits d%uv%u, credit_start = %d, credit_end = %d", d, v,
		       (int)w[1], (int)w[2]);
		expect(CSCHED2(13), 3, w, &ctx,
		       "csched2:runq_tickle_new d%uv%u, processor = %u, credit = %d", d, v, w[1],
		       (int)w[2]);
		if (i % 4 == 0) {
			w[1] = UINT32_MAX;
			expect(CSCHED2(20), 3, w, &ctx,
			       "csched2:runq_candidate d%uv%u, credit = %d, no cpu was tickled", d,
			       v, (int)w[2]);
		} else {
			expect(CSCHED2(20), 3, w, &ctx,
			       "csched2:runq_candidate d%uv%u, credit = %d, cpu %u was tickled", d,
			       v, (int)w[2], w[1]);
		}
		expect(CSCHED2(23), 1, w, &ctx, "csched2:runq_cand_check d%uv%u", d, v);
		expect(CSCHED2(6), 1, w, &ctx, "csched2:runq_tickle cpu %u", v);
		/* loads as credit2 keeps them, and at the edges of the exact range */
		w[1] >>= i % 32;
		w[3] = (uint32_t)i % 70;
		if (i % 7 == 0) {
			w[1] = 0x7fff; /* load * 100 past 2^53: printf's own rounding */
		}
		pct(a, sizeof(a), q(w, 0), w[3]);
		expect(CSCHED2(11), 4, w, &ctx,
		       "csched2:update_vcpu_load d%uv%u, vcpu_load = %s%% (%" PRIu64 ")",
		       w[2] >> 16, w[2] & 0xffff, a, q(w, 0));
		w[4] = (w[4] & 0x00ffffff) | ((uint32_t)(i % 40) << 24);
		pct(a, sizeof(a), q(w, 0), w[4] >> 24);
		pct(b, sizeof(b), q(w, 2), w[4] >> 24);
		expect(CSCHED2(12), 5, w, &ctx,
		       "csched2:update_rq_load rq# %u, load = %u, avgload = %s%% (%" PRIu64
		       "), b_avgload = %s%% (%" PRIu64 ")",
		       (w[4] >> 16) & 0xff, w[4] & 0xffff, a, q(w, 0), b, q(w, 2));
		snprintf(flags, sizeof(flags), "%s%s%s%s",
			 (w[1] & 0xff) ? ", tasklet scheduled" : "",
			 ((w[1] >> 8) & 0xff) ? ", idle" : ", busy",
			 ((w[1] >> 8) & 0xff)
				 ? (((w[1] >> 16) & 0xff) ? ", SMT idle" : ", SMT busy")
				 : "",
			 (w[1] >> 24) ? ", tickled" : ", not tickled");
		expect(CSCHED2(21), 2, w, &ctx, "csched2:schedule cpu %u, rq# %u%s", v, d, flags);
	}
}

/* Percentages whose thousandths fall exactly half-way: printf rounds to even. */
Test(describe_fast, credit2_percent_ties)
{
	struct vma_describe_ctx ctx = { 0 };
	uint32_t w[4] = { 0, 0, 0x00010002, 0 };
	uint64_t load;
	char a[64];

	for (w[3] = 0; w[3] < 20; w[3]++) {
		for (load = 0; load < 4000; load++) {
			w[0] = (uint32_t)load;
			pct(a, sizeof(a), load, w[3]);
			expect(CSCHED2(11), 4, w, &ctx,
			       "csched2:update_vcpu_load d1v2, vcpu_load = %s%% (%" PRIu64 ")", a,
			       load);
		}
	}
}

Test(describe_fast, pv_hypercalls)
{
	struct vma_describe_ctx ctx = { 0 };
	uint32_t w[8];
	int i;

	for (i = 0; i < ROUNDS; i++) {
		uint32_t op = (uint32_t)i % 64;
		const char *name = vma_hypercall_name(op);

		fill_words(w, 8);
		w[2] = op;
		if (name) {
			expect(TRC_PV_HYPERCALL | TRC_64_FLAG, 3, w, &ctx,
			       "hypercall %2x (%s) eip %llx", op, name,
			       (unsigned long long)q(w, 0));
		} else {
			expect(TRC_PV_HYPERCALL | TRC_64_FLAG, 3, w, &ctx, "hypercall %x eip %llx",
			       op, (unsigned long long)q(w, 0));
		}
		/* v2 with two 32-bit arguments: mmu_update shows its count */
		w[0] = 1 | (1u << 20) | (1u << 22);
		expect(TRC_PV_HYPERCALL_V2, 3, w, &ctx, "%shypercall %2x (%s) %d updates%s", "", 1,
		       "mmu_update", (int)(w[2] & 0x7fffffffu),
		       (w[2] & 0x80000000u) ? " (preempted)" : "");
		w[0] = 0xf | (1u << 20);
		cr_assert(vma_hypercall_name(0xf));
		expect(TRC_PV_HYPERCALL_SUBCALL, 2, w, &ctx, "%shypercall %2x (%s) %08x", " ", 0xf,
		       vma_hypercall_name(0xf), w[1]);
		expect(TRC_PV_PAGE_FAULT, 3, w, &ctx, "page_fault[ %x %x %x ]", w[0], w[1], w[2]);
	}
}

/* The texts that were printf formats before the cursor writers took them over. */
Test(describe_fast, former_printf_texts)
{
	struct vma_describe_ctx ctx = { .mmio_in_arc = true };
	uint32_t w[8];
	int i;

	for (i = 0; i < ROUNDS; i++) {
		fill_words(w, 8);
		/* after an MMIO record no page-table walk: every index 0 */
		expect(TRC_HVM_PF_XEN64, 3, w, &ctx, "pf_xen va %llx ec %x e->pt_index[0 0 0 0 0]",
		       (unsigned long long)q(w, 0), w[2]);
		ctx.cr3 = q(w, 4) | 1;
		w[0] = 3;
		expect(TRC_HVM_CR_WRITE64, 3, w, &ctx, "cr_write cr3 val %llx oval %llx %s",
		       (unsigned long long)q(w, 1), (unsigned long long)ctx.cr3,
		       q(w, 1) == ctx.cr3 ? "flush" : "switch");
		ctx.cr3 = 0;
		/* without the error code, then with it */
		w[2] &= ~0x8000u;
		expect(TRC_PV_TRAP | TRC_64_FLAG, 3, w, &ctx, "trap %x eip %llx", w[2] & 0x7fffu,
		       (unsigned long long)q(w, 0));
		w[2] |= 0x8000u;
		expect(TRC_PV_TRAP | TRC_64_FLAG, 3, w, &ctx, "trap %x eip %llx ec %x",
		       w[2] & 0x7fffu, (unsigned long long)q(w, 0), w[2] >> 16);
		expect(TRC_PV_PTWR_EMULATION, 6, w, &ctx, "ptwr l1e %llx eip %llx addr %llx",
		       (unsigned long long)q(w, 0), (unsigned long long)q(w, 4),
		       (unsigned long long)q(w, 2));
		w[0] %= 8;
		expect(TRC_PM_IDLE_ENTRY, 1, w, &ctx, "pm_idle_start c%d", (int)w[0]);
	}
}

/* v2 hypercalls: the counts of their arguments, unknown sub-operations, raw arguments. */
Test(describe_fast, pv_hypercall_arguments)
{
	struct vma_describe_ctx ctx = { 0 };
	/* two 32-bit arguments; two 64-bit ones */
	const uint32_t two32 = (1u << 20) | (1u << 22), two64 = (2u << 20) | (2u << 22);
	uint32_t w[8], op;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		fill_words(w, 8);
		w[0] = 13 | two32;
		expect(TRC_PV_HYPERCALL_V2, 3, w, &ctx, "hypercall  d (multicall) %d calls",
		       (int)w[2]);
		w[0] = 26 | two32;
		expect(TRC_PV_HYPERCALL_V2, 3, w, &ctx, "hypercall %2x (%s) %d ops", 26,
		       vma_hypercall_name(26), (int)w[2]);
		/* vcpu_op, its command unnamed */
		w[0] = 24 | two32;
		w[1] = 0x7fff0000u | w[1];
		expect(TRC_PV_HYPERCALL_V2, 3, w, &ctx, "hypercall %2x (%s) unknown (%d) vcpu %d",
		       24, vma_hypercall_name(24), (int)w[1], (int)w[2]);
		/* an op xenalyze has no decoder for: the arguments as they are */
		w[0] = 2 | two64;
		expect(TRC_PV_HYPERCALL_V2, 5, w, &ctx,
		       "hypercall %2x (%s) %016" PRIu64 " %016" PRIu64, 2, vma_hypercall_name(2),
		       q(w, 1), q(w, 3));
		w[0] = 2 | two32;
		expect(TRC_PV_HYPERCALL_V2, 3, w, &ctx, "hypercall %2x (%s) %08x %08x", 2,
		       vma_hypercall_name(2), w[1], w[2]);
		/* every number, named or not, past the table too (the kept heads) */
		op = (uint32_t)i % 80;
		if (op == 1 || op == 13 || op == 20 || op == 24 || op == 26 || op == 29)
			continue;
		w[0] = op | two32;
		if (vma_hypercall_name(op)) {
			expect(TRC_PV_HYPERCALL_V2, 3, w, &ctx, "hypercall %2x (%s) %08x %08x", op,
			       vma_hypercall_name(op), w[1], w[2]);
		} else {
			expect(TRC_PV_HYPERCALL_V2, 3, w, &ctx, "hypercall %2x %08x %08x", op, w[1],
			       w[2]);
		}
	}
}

/* @rec's text and mark under @ctx, at the start of @out. */
static char describe_to(struct vma_strbuf *out, const struct vma_record *rec,
			const struct vma_describe_ctx *ctx)
{
	vma_sb_reset(out);
	return describe_kept(out, rec, ctx);
}

/*
 * The dump takes the analysis state before a record only for the records
 * xd_reads_state() names: no other row's text or mark may change with it.
 * Every row, random payloads, the state empty and then random.
 */
Test(describe_fast, only_named_records_read_the_state)
{
	struct vma_strbuf other;
	uint32_t w[8];
	size_t row;
	int i;

	vma_sb_init(&other);
	for (row = 0; row < VMA_XE_COUNT; row++) {
		const struct vma_xen_event *e = &vma_xen_events[row];

		for (i = 0; i < 200; i++) {
			struct vma_describe_ctx bare = { .cpu_hz = 1000000000, .svm = i & 1 };
			struct vma_describe_ctx full = bare;
			struct vma_record rec;
			char mark;

			fill_words(w, 8);
			memset(&rec, 0, sizeof(rec));
			rec.event = e->id;
			rec.nr_data = (uint16_t)((e->flags & VMA_XE_EXACT) ? e->words : 7);
			memcpy(rec.data, w, sizeof(rec.data[0]) * rec.nr_data);
			full.have_cur = true;
			full.cur_dom = word();
			full.cur_vcpu = word();
			full.exit_open = true;
			full.exit_reason = word() % 0x100;
			full.cr3 = (uint64_t)word() << 12 | 1;
			full.last_rdtsc = (uint64_t)word() << 32;
			full.guest_paging_levels = (uint8_t)(2 + word() % 3);
			full.mmio_in_arc = word() & 1;
			mark = describe_to(&other, &rec, &bare);
			if (describe_to(&sb, &rec, &full) != mark || strcmp(sb.buf, other.buf))
				cr_assert(xd_reads_state(rec.event),
					  "%s (%#x) reads the state: %s | %s", e->name, e->id,
					  other.buf, sb.buf);
		}
	}
	vma_sb_free(&other);
}
