/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the KVM adapter (src/input/kvm-events.c): fields bound by
 * name whatever their order and size, defaults for fields a kernel lacks,
 * the arm64 kvm_exit layout, events vmalyze does not know, short records,
 * the dump text; and of chunk decompression (src/input/decompress.c).
 */
#include <criterion/criterion.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <zlib.h>
#include <zstd.h>

#include "input/kvm-internal.h"
#include "kvm-scenario.h"
#include "ringbuf-writer.h"

/* kvm_exit with its fields shuffled and resized against the usual layout. */
static const char exit_shuffled[] =
	"name: kvm_exit\n" VMA_MKDAT_COMMON_FIELDS(7)
	"\tfield:u64 info2;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int vcpu_id;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u16 error_code;\toffset:40;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned int exit_reason;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\nprint fmt: \"vcpu %u reason %s rip 0x%lx\", REC->vcpu_id,"
	" __print_symbolic(REC->exit_reason, { 48, \"EPT_VIOLATION\" }), REC->guest_rip\n";

/* An old kvm_exit: no isa, no vcpu_id, no intr_info/error_code. */
static const char exit_old[] =
	"name: kvm_exit\n" VMA_MKDAT_COMMON_FIELDS(8)
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\nprint fmt: \"reason %u rip 0x%lx\", REC->exit_reason, REC->guest_rip\n";

static const char exit_arm64[] =
	"name: kvm_exit\n" VMA_MKDAT_COMMON_FIELDS(9)
	"\tfield:int ret;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int esr_ec;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long vcpu_pc;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\nprint fmt: \"%d ec 0x%x pc 0x%lx\", REC->ret, REC->esr_ec, REC->vcpu_pc\n";

static const char entry_new[] =
	"name: kvm_entry\n" VMA_MKDAT_COMMON_FIELDS(10)
	"\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:bool immediate_exit;\toffset:24;\tsize:1;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:bool guest_mode;\toffset:36;\tsize:1;\tsigned:0;\n"
	"\nprint fmt: \"vcpu %u, rip 0x%lx\", REC->vcpu_id, REC->rip\n";

static const char sched_switch_fmt[] =
	"name: sched_switch\n" VMA_MKDAT_COMMON_FIELDS(11)
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\nprint fmt: \"%s:%d ==> %s:%d\", REC->prev_comm, REC->prev_pid, REC->next_comm,"
	" REC->next_pid\n";

static const char other_fmt[] =
	"name: kvm_apic\n" VMA_MKDAT_COMMON_FIELDS(12)
	"\tfield:unsigned int reg;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\nprint fmt: \"reg 0x%x\", REC->reg\n";

static struct vma_kvm_priv *priv;

static void load(bool big, const char *system, const char *text)
{
	if (!priv) {
		const char *why = NULL;

		priv = vma_kvm_priv_new();
		cr_assert_not_null(priv);
		cr_assert_eq(vma_kvm_tep_new(priv, big, 8, 4096, &why), VMA_OK, "%s", why);
	}
	cr_assert_eq(vma_kvm_add_format(priv, system, text, strlen(text), UINT64_MAX), 0);
}

static void bind(bool big)
{
	cr_assert_eq(vma_kvm_formats_load(priv, NULL, "test", big), VMA_OK);
}

static void fini(void)
{
	vma_kvm_priv_free(priv);
	priv = NULL;
}

static void head(unsigned char *ev, uint32_t id, uint32_t pid, bool big)
{
	vma_tdw_put(ev, 2, id, big);
	vma_tdw_put(ev + 4, 4, pid, big);
}

TestSuite(kvm_events, .fini = fini, .timeout = 120);
TestSuite(decompress, .timeout = 120);

Test(kvm_events, fields_are_bound_by_name_not_position)
{
	unsigned char ev[56] = { 0 };
	struct vma_record rec;

	load(false, "kvm", exit_shuffled);
	bind(false);
	head(ev, 7, 4242, false);
	vma_tdw_put(ev + 8, 8, 0x2222, false);
	vma_tdw_put(ev + 16, 4, 3, false);
	vma_tdw_put(ev + 20, 4, 2, false);
	vma_tdw_put(ev + 24, 8, 0x1111000000001ull, false);
	vma_tdw_put(ev + 32, 8, 0xffffffff81234567ull, false);
	vma_tdw_put(ev + 40, 2, 0xabcd, false);
	vma_tdw_put(ev + 44, 4, 48, false);
	vma_tdw_put(ev + 48, 4, 0x80000b0e, false);

	cr_assert_eq(vma_kvmev_fill(&priv->ev, ev, sizeof(ev), &rec), 0);
	cr_assert_eq(rec.event, VMA_KVM_EXIT);
	cr_assert_eq(rec.ctx, 4242);
	cr_assert_eq(rec.nr_data, 11);
	cr_assert_eq(rec.data[0], 48);
	cr_assert_eq(rec.data[1], VMA_KVM_ISA_SVM);
	cr_assert_eq(rec.data[2], 3);
	cr_assert_eq(vma_rec_u64(&rec, 3), 0xffffffff81234567ull);
	cr_assert_eq(vma_rec_u64(&rec, 5), 0x1111000000001ull);
	cr_assert_eq(vma_rec_u64(&rec, 7), 0x2222);
	cr_assert_eq(rec.data[9], 0x80000b0e);
	cr_assert_eq(rec.data[10], 0xabcd);
}

Test(kvm_events, missing_fields_read_as_their_defaults)
{
	unsigned char ev[24] = { 0 };
	struct vma_record rec;

	load(false, "kvm", exit_old);
	bind(false);
	head(ev, 8, 1, false);
	vma_tdw_put(ev + 8, 4, 12, false);
	vma_tdw_put(ev + 16, 8, 0x1000, false);

	cr_assert_eq(vma_kvmev_fill(&priv->ev, ev, sizeof(ev), &rec), 0);
	cr_assert_eq(rec.event, VMA_KVM_EXIT);
	cr_assert_eq(rec.data[0], 12);
	cr_assert_eq(rec.data[1], VMA_KVM_ISA_VMX, "no isa field: VMX");
	cr_assert_eq(rec.data[2], VMA_KVM_NO_VCPU);
	cr_assert_eq(vma_rec_u64(&rec, 3), 0x1000);
	cr_assert_eq(rec.data[9], 0);
	cr_assert_eq(rec.data[10], 0);
}

Test(kvm_events, arm64_exit_layout_is_recognised_by_its_fields)
{
	unsigned char ev[24] = { 0 };
	struct vma_record rec;

	load(false, "kvm", exit_arm64);
	bind(false);
	head(ev, 9, 77, false);
	vma_tdw_put(ev + 8, 4, 1, false);
	vma_tdw_put(ev + 12, 4, 0x24, false);
	vma_tdw_put(ev + 16, 8, 0xffff800010001234ull, false);

	cr_assert_eq(vma_kvmev_fill(&priv->ev, ev, sizeof(ev), &rec), 0);
	cr_assert_eq(rec.event, VMA_KVM_EXIT);
	cr_assert_eq(rec.nr_data, 7);
	cr_assert_eq(rec.data[0], 1);
	cr_assert_eq(rec.data[1], VMA_KVM_ISA_ARM64);
	cr_assert_eq(rec.data[2], VMA_KVM_NO_VCPU);
	cr_assert_eq(vma_rec_u64(&rec, 3), 0xffff800010001234ull);
	cr_assert_eq(rec.data[5], 0x24);
	/* No symbol table in this format: today's numbering, where 2 is a trap. */
	cr_assert_eq(rec.data[6], 0);
	vma_tdw_put(ev + 8, 4, 2, false);
	cr_assert_eq(vma_kvmev_fill(&priv->ev, ev, sizeof(ev), &rec), 0);
	cr_assert_eq(rec.data[6], 1);
}

Test(kvm_events, entry_flags_and_injection_fields)
{
	unsigned char ev[40] = { 0 };
	struct vma_record rec;

	load(true, "kvm", entry_new);
	bind(true);
	head(ev, 10, 5, true);
	vma_tdw_put(ev + 8, 4, 2, true);
	vma_tdw_put(ev + 16, 8, 0xfffff000ull, true);
	ev[24] = 1;
	vma_tdw_put(ev + 28, 4, 0x800000ec, true);
	vma_tdw_put(ev + 32, 4, 7, true);
	ev[36] = 1;

	cr_assert_eq(vma_kvmev_fill(&priv->ev, ev, sizeof(ev), &rec), 0);
	cr_assert_eq(rec.event, VMA_KVM_ENTRY);
	cr_assert_eq(rec.ctx, 5, "big-endian common_pid");
	cr_assert_eq(rec.data[0], 2);
	cr_assert_eq(vma_rec_u64(&rec, 1), 0xfffff000ull);
	cr_assert_eq(rec.data[3], 3, "immediate_exit and guest_mode bits");
	cr_assert_eq(rec.data[4], 0x800000ec);
	cr_assert_eq(rec.data[5], 7);
}

Test(kvm_events, sched_switch_packs_pids_prios_and_comms)
{
	unsigned char ev[64] = { 0 };
	struct vma_record rec;

	load(false, "sched", sched_switch_fmt);
	bind(false);
	head(ev, 11, 100, false);
	memcpy(ev + 8, "CPU 0/KVM", 9);
	vma_tdw_put(ev + 24, 4, 100, false);
	vma_tdw_put(ev + 28, 4, 120, false);
	vma_tdw_put(ev + 32, 8, 1, false);
	memcpy(ev + 40, "swapper/3", 9);
	vma_tdw_put(ev + 56, 4, 0, false);
	vma_tdw_put(ev + 60, 4, 139, false);

	cr_assert_eq(vma_kvmev_fill(&priv->ev, ev, sizeof(ev), &rec), 0);
	cr_assert_eq(rec.event, VMA_KVM_SCHED_SWITCH);
	cr_assert_eq(rec.data[0], 100);
	cr_assert_eq(rec.data[1], 0);
	cr_assert_eq(rec.data[2], 1);
	cr_assert_eq(rec.data[3], 120 | 139u << 16);
	cr_assert_eq(rec.data[4], 's' | 'w' << 8 | 'a' << 16 | (uint32_t)'p' << 24);
	cr_assert_eq(rec.data[6], '3');
	cr_assert_eq(rec.data[8], 'C' | 'P' << 8 | 'U' << 16 | (uint32_t)' ' << 24);
}

Test(kvm_events, unknown_events_are_other_with_a_nameable_index)
{
	unsigned char ev[12] = { 0 };
	struct vma_record rec;

	load(false, "kvm", exit_old);
	load(false, "kvm", other_fmt);
	bind(false);
	head(ev, 12, 1, false);
	cr_assert_eq(vma_kvmev_fill(&priv->ev, ev, sizeof(ev), &rec), 0);
	cr_assert_eq(rec.event, VMA_KVM_OTHER);
	cr_assert_lt(rec.data[0], priv->ev.nr_bind);
	cr_assert_str_eq(priv->ev.bind[rec.data[0]].name, "kvm_apic");
	/* named from its text; parsed only when a dump line needs it */
	cr_assert_null(priv->ev.bind[rec.data[0]].event);
	cr_assert_eq(rec.data[1], 12);

	head(ev, 999, 1, false); /* no format at all */
	cr_assert_eq(vma_kvmev_fill(&priv->ev, ev, sizeof(ev), &rec), 0);
	cr_assert_eq(rec.event, VMA_KVM_OTHER);
	cr_assert_eq(rec.data[0], UINT32_MAX);
	cr_assert_eq(rec.data[1], 999);
}

Test(kvm_events, short_records)
{
	unsigned char ev[64] = { 0 };
	struct vma_record rec;

	load(false, "kvm", exit_shuffled);
	bind(false);
	head(ev, 7, 1, false);
	vma_tdw_put(ev + 16, 4, 3, false);
	vma_tdw_put(ev + 44, 4, 48, false);
	cr_assert_eq(vma_kvmev_fill(&priv->ev, ev, 6, &rec), -1, "no room for common_pid");
	/* cut after vcpu_id and isa: later fields read as absent */
	cr_assert_eq(vma_kvmev_fill(&priv->ev, ev, 24, &rec), 0);
	cr_assert_eq(rec.data[2], 3);
	cr_assert_eq(rec.data[0], 0, "exit_reason lies past the record");
}

Test(kvm_events, describe_prints_trace_cmd_report_lines)
{
	static const char prefix[] =
		"           <...>-1     [003] 22149.948194: kvm_exit:             r";
	unsigned char ev[56] = { 0 };
	struct vma_strbuf sb;

	load(false, "kvm", exit_shuffled);
	load(false, "kvm", other_fmt);
	bind(false);
	head(ev, 7, 1, false);
	vma_tdw_put(ev + 16, 4, 0, false);
	vma_tdw_put(ev + 20, 4, VMA_KVM_ISA_VMX, false);
	vma_tdw_put(ev + 32, 8, 0xffffffffa0632f49ull, false);
	vma_tdw_put(ev + 44, 4, 48, false);
	vma_sb_init(&sb);
	/*
	 * Microseconds rounded, as trace-cmd report prints them; the text is
	 * the kvm plugin's when it is installed, else the print format's.
	 */
	vma_kvmev_describe(priv, ev, sizeof(ev), 3, 22149948193999ull, &sb);
	cr_assert(!strncmp(sb.buf, prefix, strlen(prefix)), "%s", sb.buf);
	cr_assert_not_null(strstr(sb.buf, "reason EPT_VIOLATION rip 0xffffffffa0632f49"),
			   "%s", sb.buf);

	/* an event vmalyze does not analyse: its format is parsed now */
	vma_sb_reset(&sb);
	cr_assert_null(priv->ev.bind[priv->ev.by_id[12]].event);
	head(ev, 12, 1, false);
	vma_tdw_put(ev + 8, 4, 0x30, false);
	vma_kvmev_describe(priv, ev, 12, 0, 1500, &sb);
	cr_assert_str_eq(sb.buf, "           <...>-1     [000]     0.000002: kvm_apic:"
			 "             reg 0x30");
	cr_assert_not_null(priv->ev.bind[priv->ev.by_id[12]].event);

	vma_sb_reset(&sb);
	head(ev, 999, 1, false);
	vma_kvmev_describe(priv, ev, sizeof(ev), 0, 0, &sb);
	cr_assert_str_eq(sb.buf, "unknown event id 999 (56 bytes)");
	vma_sb_free(&sb);
}

Test(kvm_events, ids_have_names)
{
	cr_assert_str_eq(vma_kvm_event_name(VMA_KVM_EXIT), "kvm_exit");
	cr_assert_str_eq(vma_kvm_event_name(VMA_KVM_VCPU_MATCH_MMIO), "vcpu_match_mmio");
	cr_assert_str_eq(vma_kvm_event_name(VMA_KVM_SCHED_WAKEUP), "sched_wakeup");
	cr_assert_null(vma_kvm_event_name(VMA_KVM_END_));
	cr_assert_null(vma_kvm_event_name(42));
}

/* The one list of kvm-events.h: every id the readers bind is named and sized there. */
Test(kvm_events, vocabulary_agrees_with_the_bindings)
{
	uint32_t id;

	for (id = VMA_ID_KVM_BASE; id < VMA_KVM_END_; id++) {
		const char *name = vma_kvm_event_name(id);
		enum vma_kvm_class cls = vma_kvm_event_class(id);

		cr_assert_not_null(name);
		cr_assert_leq(vma_kvm_event_words(id), VMA_REC_MAX_WORDS);
		if (id == VMA_KVM_OTHER || id == VMA_KVM_LOST)
			continue;
		cr_assert(vma_kvmev_wanted(cls == VMA_KVM_CLASS_SCHED ? "sched" : "kvm", name),
			  "%s has no binding", name);
	}
	cr_assert_eq(vma_kvm_event_class(VMA_KVM_PIO), VMA_KVM_CLASS_REFINE);
	cr_assert_eq(vma_kvm_event_words(VMA_KVM_PIO), 5);
	cr_assert_eq(vma_kvm_event_words(42), 0);
}

/* ---- the fixed decoders against the field by field reading ------------------ */

/*
 * The events of the specs, with each field's names (alternatives after a
 * '|'), marked '[' for a char array, '#' for a 64-bit number, '?' for a
 * bool, '!' for one that is always there; kvm_exit twice, for its two
 * layouts.
 */
struct test_event {
	const char *system, *name;
	const char *fields[9];
};

static const struct test_event test_events[] = {
	{ "kvm", "kvm_exit", { "exit_reason", "isa", "vcpu_id", "#guest_rip|rip", "#info1",
			       "#info2", "intr_info", "error_code" } },
	{ "kvm", "kvm_exit", { "ret", "!esr_ec", "vcpu_id", "#vcpu_pc" } },
	{ "kvm", "kvm_entry", { "vcpu_id", "#rip|vcpu_pc", "?immediate_exit", "?guest_mode",
				"intr_info|inj_info", "error_code|inj_info_err" } },
	{ "kvm", "kvm_pio", { "rw", "port", "size", "count", "val" } },
	{ "kvm", "kvm_mmio", { "type", "len", "#gpa", "#val" } },
	{ "kvm", "kvm_msr", { "write", "ecx", "#data", "exception" } },
	{ "kvm", "kvm_cpuid", { "function", "index", "#rax", "#rbx", "#rcx", "#rdx", "?found",
				"?used_max_basic" } },
	{ "kvm", "kvm_hypercall", { "#nr", "#a0", "#a1", "#a2", "#a3" } },
	{ "kvm", "kvm_inj_virq", { "vector|irq", "?soft", "?reinjected" } },
	{ "kvm", "kvm_userspace_exit", { "reason", "errno" } },
	{ "kvm", "kvm_halt_poll_ns", { "vcpu_id", "new", "old", "grow" } },
	{ "kvm", "kvm_vcpu_wakeup", { "#ns", "waited", "valid" } },
	{ "kvm", "kvm_fpu", { "load" } },
	{ "kvm", "kvm_emulate_insn", { "#rip", "csbase", "len", "flags", "failed", "[insn" } },
	{ "kvm", "vcpu_match_mmio", { "#gva", "#gpa", "write", "gpa_match" } },
	{ "sched", "sched_switch", { "prev_pid", "next_pid", "prev_state", "prev_prio",
				     "next_prio", "[next_comm", "[prev_comm" } },
	{ "sched", "sched_wakeup", { "pid", "prio", "target_cpu", "[comm" } },
	{ "sched", "sched_waking", { "pid", "prio", "target_cpu", "[comm" } },
	{ "kvm", "kvm_apic", { "reg", "val" } },
};

static uint64_t rnd_state;

static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state >> 11) % n;
}

/*
 * A format of @e with id @id: its fields in a random order at random
 * sizes (numbers mostly 1, 2, 4 or 8 bytes, now and then 3, which reads
 * as absent; arrays 1 to 24), some left out (never a '!' one); or, when
 * @natural, every field at a kernel's size (4 or 8, a bool 1, an array 16),
 * some left out only when @gaps.
 */
static void random_format(const struct test_event *e, uint32_t id, bool natural, bool gaps,
			  char *text, size_t cap)
{
	static const uint32_t sizes[] = { 1, 2, 4, 4, 8, 8, 8, 3 };
	uint32_t order[9], n = 0, i, offset = 8;
	size_t len;

	while (n < 9 && e->fields[n])
		n++;
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n; i > 1; i--) {
		uint32_t j = rnd(i), t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
	len = (size_t)snprintf(text, cap, "name: %s\nID: %u\nformat:\n"
			       "\tfield:unsigned short common_type;\toffset:0;\tsize:2;"
			       "\tsigned:0;\n"
			       "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;"
			       "\tsigned:0;\n"
			       "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
			       "\tsigned:0;\n"
			       "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n",
			       e->name, id);
	for (i = 0; i < n; i++) {
		const char *f = e->fields[order[i]], *bar;
		bool array = false, keep = false, wide = false, flag = false;
		char name[32];
		uint32_t size;

		for (;; f++) {
			if (*f == '[')
				array = true;
			else if (*f == '!')
				keep = true;
			else if (*f == '#')
				wide = true;
			else if (*f == '?')
				flag = true;
			else
				break;
		}
		if (natural)
			size = array ? 16 : wide ? 8 : flag ? 1 : 4u << rnd(2);
		else
			size = array ? 1 + rnd(24) : sizes[rnd(8)];
		bar = strchr(f, '|');
		if (bar && rnd(2))
			f = bar + 1;
		snprintf(name, sizeof(name), "%.*s", bar && f < bar ? (int)(bar - f) : 31, f);
		if (!keep && (!natural || gaps) && rnd(natural ? 3 : 5) == 0)
			continue;
		if (array) {
			len += (size_t)snprintf(text + len, cap - len,
						"\tfield:char %s[%u];\toffset:%u;\tsize:%u;"
						"\tsigned:0;\n", name, size, offset, size);
		} else {
			len += (size_t)snprintf(text + len, cap - len,
						"\tfield:u%u %s;\toffset:%u;\tsize:%u;"
						"\tsigned:0;\n", 8 * size, name, offset, size);
		}
		offset += size + rnd(3);
	}
	snprintf(text + len, cap - len, "\nprint fmt: \"%s\"\n", e->name);
}

/*
 * The fixed decoders give what vma_kvmev_fill() reads field by field, on
 * random layouts of every event and random records, at sizes around the
 * smallest that holds every field, whatever the bytes past the record;
 * two layouts in three with a kernel's sizes, which the whole decoders
 * read, every field present or some left out.
 */
Test(kvm_events, fixed_decoders_read_what_the_fields_say)
{
	enum { LAYOUTS = 300, RECORDS = 40, NR = sizeof(test_events) / sizeof(test_events[0]) };
	unsigned char buf[160 + VMA_KVMEV_SLACK];
	uint64_t fixed = 0, way[VMA_KVMEV_WAYS] = { 0 };
	uint32_t round, i, r, k;
	char text[2048];

	if (VMA_HOST_BIG)
		cr_skip_test("the fixed decoders are for little-endian hosts");
	rnd_state = 0x9e3779b97f4a7c15ull;
	for (round = 0; round < LAYOUTS; round++) {
		for (i = 0; i < NR; i++) {
			const struct test_event *e = &test_events[i];

			/* the two layouts of kvm_exit, one at a time */
			if (!strcmp(e->name, "kvm_exit") && (i == 0) != (round % 2 == 0))
				continue;
			random_format(e, 20 + i, round % 3 != 0, round % 3 == 1, text,
				      sizeof(text));
			load(false, e->system, text);
		}
		bind(false);
		for (i = 0; i < NR; i++) {
			int32_t at = 20 + i < priv->ev.nr_ids ? priv->ev.by_id[20 + i] : -1;
			const struct vma_kvmev_bind *b;

			if (at < 0)
				continue;
			b = &priv->ev.bind[at];
			cr_assert_not_null(b->decode, "%s has no fixed decoder", b->name);
			/* arm64's kvm_exit has a field no kernel gives it: gaps at best */
			if (round % 3 == 2 && b->spec && b->isa != VMA_KVM_ISA_ARM64)
				cr_assert_eq(b->way, VMA_KVMEV_WHOLE, "%s", b->name);
			if (round % 3 != 0 && b->spec)
				cr_assert_neq(b->way, VMA_KVMEV_MASKED, "%s", b->name);
			for (r = 0; r < RECORDS; r++) {
				uint32_t size = b->need + rnd(12), gone = rnd(4) == 0 ? rnd(8) : 0;
				struct vma_record fast, slow;

				cr_assert_leq(size + VMA_KVMEV_SLACK, sizeof(buf));
				size = size > gone + 8 ? size - gone : 8;
				for (k = 0; k < sizeof(buf); k++)
					buf[k] = (unsigned char)rnd(256);
				/* small values too, and zeros for the flag bits */
				for (k = 8; k < size; k++) {
					if (rnd(3) == 0)
						buf[k] = rnd(2) ? 0 : 1;
				}
				head(buf, 20 + i, rnd(100000), false);
				memset(&fast, 0xa5, sizeof(fast));
				memset(&slow, 0x5a, sizeof(slow));
				cr_assert_eq(vma_kvmev_fill_fast(&priv->ev, buf, size, &fast), 0);
				cr_assert_eq(vma_kvmev_fill(&priv->ev, buf, size, &slow), 0);
				cr_assert_eq(fast.event, slow.event, "%s", b->name);
				cr_assert_eq(fast.ctx, slow.ctx);
				cr_assert_eq(fast.nr_data, slow.nr_data, "%s", b->name);
				for (k = 0; k < VMA_REC_MAX_WORDS; k++) {
					cr_assert_eq(fast.data[k], slow.data[k],
						     "%s: word %u: %#x, field by field %#x"
						     " (round %u, %u bytes)", b->name, k,
						     fast.data[k], slow.data[k], round, size);
				}
				fixed += size >= b->need;
				if (size >= b->need && b->spec)
					way[b->way]++;
			}
		}
		fini();
	}
	cr_assert_gt(fixed, LAYOUTS * NR * RECORDS / 2, "the fixed decoders ran %llu times",
		     (unsigned long long)fixed);
	for (k = 0; k < VMA_KVMEV_WAYS; k++) {
		cr_assert_gt(way[k], LAYOUTS * NR * RECORDS / 10, "the fixed decoders of way %u"
			     " ran %llu times", k, (unsigned long long)way[k]);
	}
}

/* ---- decompression ------------------------------------------------------- */

static unsigned char plain[40960];

static void fill_plain(void)
{
	size_t i;

	for (i = 0; i < sizeof(plain); i++)
		plain[i] = (unsigned char)((i * 7) ^ (i >> 9));
}

static void roundtrip(enum vma_codec codec, const unsigned char *z, size_t zlen, size_t bad_at)
{
	static unsigned char out[sizeof(plain)];
	struct vma_decomp *dc = vma_decomp_new(codec);
	unsigned char *bad = malloc(zlen);
	const char *why = NULL;

	cr_assert_not_null(dc);
	cr_assert_eq(vma_decompress(dc, z, zlen, out, sizeof(plain), &why), 0);
	cr_assert_eq(memcmp(out, plain, sizeof(plain)), 0);
	/* a second chunk through the same context */
	cr_assert_eq(vma_decompress(dc, z, zlen, out, sizeof(plain), &why), 0);

	cr_assert_eq(vma_decompress(dc, z, zlen, out, sizeof(plain) - 1, &why), -1);
	cr_assert_not_null(why);
	why = NULL;
	cr_assert_eq(vma_decompress(dc, z, zlen, out, sizeof(plain) / 2, &why), -1);
	cr_assert_not_null(why);
	why = NULL;
	cr_assert_eq(vma_decompress(dc, z, zlen / 2, out, sizeof(plain), &why), -1,
		     "cut short");
	cr_assert_not_null(why);
	memcpy(bad, z, zlen);
	memset(bad + bad_at, 0x5a, 16);
	why = NULL;
	cr_assert_eq(vma_decompress(dc, bad, zlen, out, sizeof(plain), &why), -1, "corrupt");
	cr_assert_not_null(why);
	free(bad);
	vma_decomp_free(dc);
}

Test(decompress, zlib_chunks)
{
	uLongf zlen = compressBound(sizeof(plain));
	unsigned char *z = malloc(zlen);

	fill_plain();
	cr_assert_eq(compress2(z, &zlen, plain, sizeof(plain), 9), Z_OK);
	/* zlib's adler32 catches damage anywhere */
	roundtrip(VMA_CODEC_ZLIB, z, zlen, zlen / 3);
	free(z);
}

Test(decompress, zstd_chunks)
{
	size_t bound = ZSTD_compressBound(sizeof(plain)), zlen;
	unsigned char *z = malloc(bound);

	fill_plain();
	zlen = ZSTD_compress(z, bound, plain, sizeof(plain), 3);
	cr_assert_not(ZSTD_isError(zlen));
	/* trace-cmd writes zstd frames without a checksum: only damage to the frame shows */
	roundtrip(VMA_CODEC_ZSTD, z, zlen, 0);
	free(z);
}

Test(decompress, codec_names)
{
	enum vma_codec c;

	cr_assert_eq(vma_codec_from_name("zlib", &c), 0);
	cr_assert_eq(c, VMA_CODEC_ZLIB);
	cr_assert_eq(vma_codec_from_name("zstd", &c), 0);
	cr_assert_eq(c, VMA_CODEC_ZSTD);
	cr_assert_eq(vma_codec_from_name("none", &c), 0);
	cr_assert_eq(c, VMA_CODEC_NONE);
	cr_assert_eq(vma_codec_from_name("lz4", &c), -1);
}
