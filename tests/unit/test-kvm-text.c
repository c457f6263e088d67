/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the dump's event text written by vmalyze
 * (src/input/kvm-text.c): on formats inside its subset, on random and
 * edge values, every record's text equals libtraceevent's (past the
 * records the writer itself checks), symbols included; formats outside
 * it are left to libtraceevent; both byte orders.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "input/kvm-internal.h"
#include "ringbuf-writer.h"

#define COMMON(id)                                                                      \
	"ID: " #id "\nformat:\n"                                                        \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"          \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"          \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"  \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* Conversions, flags and widths, ?: on comparisons, a symbol, %% and a trailing blank. */
static const char wide_fmt[] =
	"name: kvm_fancy\n" COMMON(20)
	"\tfield:unsigned int a;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 c;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:long d;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\tfield:u16 e;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:u8 f;\toffset:34;\tsize:1;\tsigned:0;\n"
	"\nprint fmt: \"a %u/%d/%x/%#x/%08x/%-6u| b %d %5d %-5d| c 0x%llx %#llx %016llx %llu"
	" d %ld %lx| e %X %#06x| %s %s f %d %s 100%% \", REC->a, REC->a, REC->a, REC->a,"
	" REC->a, REC->a, REC->b, REC->b, REC->b, REC->c, REC->c, REC->c, REC->c, REC->d,"
	" REC->d, REC->e, REC->e, REC->f ? \"yes\" : \"no\","
	" (REC->a & 3) == 2 ? \"two\" : (REC->e > 100 ? \"big\" : \"small\"), REC->f,"
	" __print_symbolic(REC->f & 7, { 0, \"ZERO\" }, { 1, \"ONE\" }, { 5, \"FIVE\" })\n";

/* Outside the subset: a cast and a %p. */
static const char cast_fmt[] =
	"name: kvm_cast\n" COMMON(21)
	"\tfield:unsigned int a;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 p;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\nprint fmt: \"a %d p %p\", (int)REC->a, (void *)REC->p\n";

static struct vma_kvm_priv *priv;

static void fini(void)
{
	vma_kvm_priv_free(priv);
	priv = NULL;
}

static void load(bool big, const char *text)
{
	const char *why = NULL;

	priv = vma_kvm_priv_new();
	cr_assert_not_null(priv);
	cr_assert_eq(vma_kvm_tep_new(priv, big, 8, 4096, &why), VMA_OK, "%s", why);
	cr_assert_eq(vma_kvm_add_format(priv, "kvm", text, strlen(text), UINT64_MAX), 0);
	cr_assert_eq(vma_kvm_formats_load(priv, NULL, "test", big), VMA_OK);
}

/* A value of @size bytes: often an edge (0, all ones, the sign bit), else random. */
static uint64_t pick(uint32_t size)
{
	uint64_t mask = size == 8 ? UINT64_MAX : (1ull << (8 * size)) - 1;
	uint64_t r = (uint64_t)random() << 33 ^ (uint64_t)random() << 11 ^ (uint64_t)random();

	switch (random() % 6) {
	case 0:
		return 0;
	case 1:
		return mask;
	case 2:
		return (mask >> 1) + 1;
	case 3:
		return r % 300;
	default:
		return r & mask;
	}
}

/*
 * Prints @n random records of format @id (fields at @offs/@sizes) both
 * ways and compares.  Return: whether vmalyze wrote the text itself.
 */
static bool compare(uint32_t id, const uint32_t *offs, const uint32_t *sizes, size_t nr,
		    uint32_t rec_size, bool big, unsigned int n)
{
	struct vma_kvm_line line = { NULL, rec_size, 1, 5000000000ull };
	struct vma_strbuf ours, ref;
	unsigned char ev[64];
	struct vma_kvmev_bind *b;
	unsigned int i;
	size_t k;

	cr_assert(priv->ev.by_id[id] >= 0);
	b = &priv->ev.bind[priv->ev.by_id[id]];
	if (!b->event)
		cr_assert(vma_kvm_format_parse(priv, b->format));
	b->event = tep_find_event(priv->tep, (int)id);
	cr_assert_not_null(b->event);
	vma_kvm_print_setup(priv);
	vma_sb_init(&ours);
	vma_sb_init(&ref);
	srandom(id);
	for (i = 0; i < n; i++) {
		memset(ev, 0, sizeof(ev));
		vma_tdw_put(ev, 2, id, big);
		vma_tdw_put(ev + 4, 4, 7, big);
		for (k = 0; k < nr; k++)
			vma_tdw_put(ev + offs[k], sizes[k], pick(sizes[k]), big);
		line.data = ev;
		vma_sb_reset(&ours);
		vma_sb_reset(&ref);
		if (!vma_kvmtext_put(priv, b, &line, &ours))
			vma_kvmev_info_text(priv, b->event, &line, &ours);
		vma_kvmev_info_text(priv, b->event, &line, &ref);
		cr_assert_str_eq(ours.buf, ref.buf, "record %u", i);
	}
	vma_sb_free(&ours);
	vma_sb_free(&ref);
	return vma_kvmtext_fast(b->text);
}

static const uint32_t wide_offs[] = { 8, 12, 16, 24, 32, 34 };
static const uint32_t wide_sizes[] = { 4, 4, 8, 8, 2, 1 };

TestSuite(kvm_text, .fini = fini, .timeout = 120);

Test(kvm_text, print_fmt_subset_equals_libtraceevent)
{
	load(false, wide_fmt);
	cr_assert(compare(20, wide_offs, wide_sizes, 6, 40, false, 4000),
		  "the format is inside the subset");
}

Test(kvm_text, big_endian_files)
{
	load(true, wide_fmt);
	cr_assert(compare(20, wide_offs, wide_sizes, 6, 40, true, 2000));
}

Test(kvm_text, formats_outside_the_subset_stay_with_libtraceevent)
{
	static const uint32_t offs[] = { 8, 16 }, sizes[] = { 4, 8 };

	load(false, cast_fmt);
	cr_assert_not(compare(21, offs, sizes, 2, 24, false, 200));
}

Test(kvm_text, records_too_short_for_a_field_stay_with_libtraceevent)
{
	struct vma_kvm_line line;
	unsigned char ev[40] = { 0 };
	struct vma_kvmev_bind *b;
	struct vma_strbuf sb;

	load(false, wide_fmt);
	cr_assert(compare(20, wide_offs, wide_sizes, 6, 40, false, 50));
	b = &priv->ev.bind[priv->ev.by_id[20]];
	vma_tdw_put(ev, 2, 20, false);
	line = (struct vma_kvm_line){ ev, 20, 0, 5000000000ull };
	vma_sb_init(&sb);
	cr_assert_not(vma_kvmtext_put(priv, b, &line, &sb));
	cr_assert_eq(sb.len, 0);
	vma_sb_free(&sb);
}

/* kvm_userspace_exit as x86 kernels write it: a signed field compared, a unary minus. */
static const char uexit_fmt[] =
	"name: kvm_userspace_exit\n" COMMON(23)
	"\tfield:__u32 reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int errno;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\nprint fmt: \"reason %s (%d)\", REC->errno < 0 ? (REC->errno == -4 ? \"restart\" :"
	" \"error\") : __print_symbolic(REC->reason, { 0, \"KVM_EXIT_\" \"UNKNOWN\" },"
	" { 2, \"KVM_EXIT_\" \"IO\" }, { 6, \"KVM_EXIT_\" \"MMIO\" }),"
	" REC->errno < 0 ? -REC->errno : REC->reason\n";

/* Differences and negations printed, of unsigned and signed fields of every size. */
static const char minus_fmt[] =
	"name: kvm_minus\n" COMMON(25)
	"\tfield:__u32 a;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:short c;\toffset:16;\tsize:2;\tsigned:1;\n"
	"\tfield:long d;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\nprint fmt: \"%d %u %x %lld %d %d %s\", REC->a - REC->b, -REC->b, REC->c - 1,"
	" REC->d - REC->a, -REC->c, REC->b - -5, REC->c >= -2 ? \"ge\" : \"lt\"\n";

/*
 * libtraceevent compares and subtracts zero-extended fields as 64-bit
 * unsigned numbers, signed or not: vmalyze writes such formats itself and
 * says what libtraceevent says, for negative values too.
 */
Test(kvm_text, signed_fields_compared_and_subtracted_as_libtraceevent)
{
	static const struct {
		const char *fmt;
		uint32_t id, nr, size;
		uint32_t offs[4], sizes[4];
	} formats[] = {
		{ uexit_fmt, 23, 2, 16, { 8, 12 }, { 4, 4 } },
		{ minus_fmt, 25, 4, 32, { 8, 12, 16, 24 }, { 4, 4, 2, 8 } },
	};
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		load(false, formats[i].fmt);
		cr_assert(compare(formats[i].id, formats[i].offs, formats[i].sizes, formats[i].nr,
				  formats[i].size, false, 4000),
			  "format %u is inside the subset", formats[i].id);
		fini();
	}
}

/* kvm_emulate_insn as x86 kernels write it; libtraceevent's kvm plugin prints it. */
static const char emulate_fmt[] =
	"name: kvm_emulate_insn\n" COMMON(24)
	"\tfield:__u64 rip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:__u32 csbase;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:__u8 len;\toffset:20;\tsize:1;\tsigned:0;\n"
	"\tfield:__u8 insn[15];\toffset:21;\tsize:15;\tsigned:0;\n"
	"\tfield:__u8 flags;\toffset:36;\tsize:1;\tsigned:0;\n"
	"\tfield:__u8 failed;\toffset:37;\tsize:1;\tsigned:0;\n"
	"\nprint fmt: \"%x:%llx:%s (%s)%s\", REC->csbase, REC->rip, __print_hex(REC->insn,"
	" REC->len), __print_symbolic(REC->flags, { 0, \"real\" }, { (1 << 0), \"prot16\" }),"
	" REC->failed ? \" failed\" : \"\"\n";

/*
 * The kvm plugin's kvm_emulate_insn text, when the plugin is installed:
 * every byte count (0 and past the array included) and failed flag as
 * libtraceevent prints them.
 */
Test(kvm_text, emulate_insn_plugin_as_libtraceevent)
{
	static const uint32_t offs[] = { 8, 16, 20, 21, 29, 33, 35, 36, 37 };
	static const uint32_t sizes[] = { 8, 4, 1, 8, 4, 2, 1, 1, 1 };
	struct tep_event *event;
	bool fast;

	load(false, emulate_fmt);
	fast = compare(24, offs, sizes, 9, 40, false, 4000);
	event = tep_find_event(priv->tep, 24);
	cr_assert_not_null(event);
	if (!event->handler)
		cr_skip_test("libtraceevent's kvm plugin is not installed");
	cr_assert(fast, "the plugin's text is written by vmalyze");
}

static const char switch_fmt[] =
	"name: sched_switch\n" COMMON(22)
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\nprint fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s"
	" next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio,"
	" REC->prev_state ? \"S\" : \"R\", REC->next_comm, REC->next_pid, REC->next_prio\n";

/*
 * The comm column of a pid follows what libtraceevent knows when the line
 * is printed: a comm registered by an earlier line (the sched_switch
 * plugin's, when installed) shows on the later ones.
 */
Test(kvm_text, comm_column_follows_registered_comms)
{
	unsigned char ev[64];
	struct vma_strbuf sb;
	const char *comm, *why = NULL;
	int round;

	priv = vma_kvm_priv_new();
	cr_assert_not_null(priv);
	cr_assert_eq(vma_kvm_tep_new(priv, false, 8, 4096, &why), VMA_OK, "%s", why);
	cr_assert_eq(vma_kvm_add_format(priv, "sched", switch_fmt, strlen(switch_fmt),
					UINT64_MAX), 0);
	cr_assert_eq(vma_kvm_formats_load(priv, NULL, "test", false), VMA_OK);
	vma_sb_init(&sb);
	for (round = 0; round < 40; round++) {
		uint32_t pid = 4000 + (uint32_t)round;
		char name[16];

		memset(ev, 0, sizeof(ev));
		vma_tdw_put(ev, 2, 22, false);
		vma_tdw_put(ev + 4, 4, pid, false);
		/* pid's own line first, then a switch naming it, then its line again */
		vma_sb_reset(&sb);
		vma_kvmev_describe(priv, ev, sizeof(ev), 0, 5000000000ull, &sb);
		snprintf(name, sizeof(name), "task%d", round);
		memcpy(ev + 40, name, strlen(name));
		vma_tdw_put(ev + 56, 4, pid, false);
		vma_tdw_put(ev + 60, 4, 120, false);
		vma_sb_reset(&sb);
		vma_kvmev_describe(priv, ev, sizeof(ev), 0, 5000000001ull, &sb);
		vma_sb_reset(&sb);
		vma_kvmev_describe(priv, ev, sizeof(ev), 0, 5000000002ull, &sb);
		comm = tep_data_comm_from_pid(priv->tep, (int)pid);
		cr_assert(!strncmp(sb.buf + 16 - (strlen(comm) < 16 ? strlen(comm) : 16), comm,
				   strlen(comm)), "round %d: %s (libtraceevent: %s)", round, sb.buf,
			  comm);
	}
	vma_sb_free(&sb);
}
