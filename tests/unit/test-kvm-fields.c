/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of a format's field lines written again (src/input/kvm-fields.c),
 * against libtraceevent itself: the original text and the one written
 * again, each parsed by a tep handle of its own, must give the same
 * fields (name, type, offset, size, flags) in the same order, and arm64
 * kvm_exit the same TRAP symbol of ret.  Texts that are not plain (a
 * damaged field line, odd characters, long numbers, a damaged symbol
 * list) must be refused, and no byte of a print format but that symbol
 * may reach the new text.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "input/kvm-internal.h"

/* The common fields as Linux writes them, and the blank line after them. */
#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\n"

static const char exit_x86[] =
	"name: kvm_exit\n"
	"ID: 1234\n"
	"format:\n"
	COMMON_FIELDS
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:40;\tsize:16;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:const char * text;\toffset:64;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"reason %s rip 0x%lx\", (REC->isa == 1) ? "
	"__print_symbolic(REC->exit_reason, { 0, \"EXCEPTION_NMI\" }, { 1, \"EXTERNAL_INTERRUPT\" })"
	" : \"x\", REC->guest_rip\n";

static const char exit_arm64[] =
	"name: kvm_exit\n"
	"ID: 31\n"
	"format:\n"
	COMMON_FIELDS
	"\tfield:int ret;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int esr_ec;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long vcpu_pc;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"%s: HSR_EC: 0x%04x (%s), PC: 0x%016lx\", "
	"__print_symbolic(REC->ret, { 0, \"IRQ\" }, { 0x1, \"TRAP\" }, { 3, \"HYP_GONE\" }), "
	"REC->esr_ec, __print_symbolic(REC->esr_ec, { 0x01, \"WFx\" }), REC->vcpu_pc\n";

/* A kernel before "signed:" (Linux 2.6.x), its print format cut short. */
static const char old_kernel[] =
	"name: kvm_entry\n"
	"ID: 7\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\n"
	"\n"
	"\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\n"
	"\n"
	"print fmt: \"vcpu %u\", REC->vcpu_id, ((\n";

static char *fields_of(const char *text)
{
	size_t len = 0;
	char *out = vma_kvm_fields_text(text, strlen(text), &len);

	if (out)
		cr_assert_eq(strlen(out), len);
	return out;
}

/* @text parsed by a new handle; a print format it cannot read is allowed. */
static struct tep_event *parse(struct tep_handle **tep, const char *text)
{
	enum tep_errno err;

	*tep = tep_alloc();
	cr_assert_not_null(*tep);
	tep_set_long_size(*tep, 8);
	err = tep_parse_event(*tep, text, strlen(text), "kvm");
	cr_assert(err == 0 || err == TEP_ERRNO__READ_PRINT_FAILED, "not parsed (%d):\n%s", err,
		  text);
	cr_assert_eq(tep_get_events_count(*tep), 1);
	return tep_get_first_event(*tep);
}

#define PRINT_FLAGS (TEP_FIELD_IS_SYMBOLIC | TEP_FIELD_IS_FLAG)

static void same_fields(struct tep_format_field *a, struct tep_format_field *b)
{
	for (; a && b; a = a->next, b = b->next) {
		cr_expect_str_eq(a->name, b->name);
		cr_expect_str_eq(a->type, b->type, "%s", a->name);
		cr_expect_eq(a->offset, b->offset, "%s", a->name);
		cr_expect_eq(a->size, b->size, "%s", a->name);
		/* but those a print format sets (__print_symbolic(), __print_flags()) */
		cr_expect_eq(a->flags & ~(unsigned long)PRINT_FLAGS,
			     b->flags & ~(unsigned long)PRINT_FLAGS, "%s", a->name);
		cr_expect_eq(a->arraylen, b->arraylen, "%s", a->name);
	}
	cr_expect(!a && !b, "not as many fields");
}

/*
 * Both texts parsed: the same event, with the same fields; @sound: the
 * print format of @text is one libtraceevent reads, so that the event is
 * flagged alike too (a failed print format flags only the original).
 */
static struct tep_event *check_same(const char *text, bool sound, struct tep_handle **ours)
{
	struct tep_handle *lib;
	struct tep_event *a, *b;
	char *fields = fields_of(text);

	cr_assert_not_null(fields, "refused:\n%s", text);
	a = parse(&lib, text);
	b = parse(ours, fields);
	cr_expect_str_eq(a->name, b->name);
	cr_expect_eq(a->id, b->id);
	if (sound)
		cr_expect_eq(a->flags, b->flags);
	same_fields(a->format.common_fields, b->format.common_fields);
	same_fields(a->format.fields, b->format.fields);
	cr_expect_eq(a->format.nr_common, b->format.nr_common);
	cr_expect_eq(a->format.nr_fields, b->format.nr_fields);
	free(fields);
	tep_free(lib);
	return b;
}

/* Which ret value arm64's kvm_exit names TRAP, read as kvm-events.c reads it. */
static const char *trap_value(struct tep_event *event)
{
	struct tep_print_arg *arg;
	struct tep_print_flag_sym *sym;

	for (arg = event->print_fmt.args; arg; arg = arg->next) {
		if (arg->type != TEP_PRINT_SYMBOL || !arg->symbol.field ||
		    arg->symbol.field->type != TEP_PRINT_FIELD ||
		    strcmp(arg->symbol.field->field.name, "ret"))
			continue;
		for (sym = arg->symbol.symbols; sym; sym = sym->next) {
			if (sym->str && !strcmp(sym->str, "TRAP"))
				return sym->value;
		}
	}
	return NULL;
}

Test(kvm_fields, x86_exit_same_fields_and_no_print_format)
{
	struct tep_handle *tep;
	struct tep_event *event = check_same(exit_x86, true, &tep);
	char *fields = fields_of(exit_x86);

	cr_expect_null(strstr(fields, "exit_reason,"), "the print format was kept:\n%s", fields);
	cr_expect_null(trap_value(event));
	free(fields);
	tep_free(tep);
}

Test(kvm_fields, arm64_exit_keeps_trap)
{
	struct tep_handle *tep;
	struct tep_event *event = check_same(exit_arm64, true, &tep);

	cr_assert_not_null(trap_value(event));
	cr_expect_str_eq(trap_value(event), "0x1");
	tep_free(tep);
}

Test(kvm_fields, ret_without_trap_names_none)
{
	static const char text[] =
		"name: kvm_exit\nID: 31\nformat:\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:int ret;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\n"
		"print fmt: \"%s\", __print_symbolic(REC->ret, { 0, \"IRQ\" }, { 3, \"HYP_GONE\" })\n";
	struct tep_handle *tep;

	cr_expect_null(trap_value(check_same(text, true, &tep)));
	tep_free(tep);
}

/*
 * With no blank line after the common fields libtraceevent reads the
 * text differently (every field common, the event failed): the text
 * written again keeps the lines where they were, so it reads the same.
 */
Test(kvm_fields, no_blank_lines_read_alike)
{
	static const char text[] =
		"name: kvm_exit\nID: 31\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:int ret;\toffset:8;\tsize:4;\tsigned:1;\n"
		"print fmt: \"%s\", __print_symbolic(REC->ret, { 1, \"TRAP\" })\n";
	struct tep_handle *tep;

	check_same(text, true, &tep);
	tep_free(tep);
}

Test(kvm_fields, old_kernel_without_signed)
{
	struct tep_handle *tep;

	check_same(old_kernel, false, &tep);
	tep_free(tep);
}

Test(kvm_fields, not_plain_refused)
{
	static const char *const bad[] = {
		/* a field line the fuzzer damaged */
		"name: a\nID: 1\nformat:\n\tfield:int x;\toffset:2;\tsi:e:1;\tsigned:0;\n",
		"name: a\nID: 1\nformat:\n\tfield:int (*f)(void);\toffset:0;\tsize:8;\n",
		"name: a\nID: 1\nformat:\n\tfield:int;\toffset:0;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tfield:int  x;\toffset:0;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tfield:int x[4;\toffset:0;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tfield:]]]] x;\toffset:0;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tfield:int x[a];\toffset:0;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tfield:int x[];\toffset:0;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tfield:int [4] x;\toffset:0;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tfield:int x[1234567890];\toffset:0;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tfield:u8 a[sizeof(int)];\toffset:0;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tfield: int x;\toffset:0;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tfield:int x ;\toffset:0;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tfield:int x;\toffset:1234567890;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:2;\n",
		"name: a\nID: 1\nformat:\n\tfield:int x;\toffset:0;\tsize:4; junk\n",
		"name: a\nID: 1\nformat:\n\tfield:int x;\toffset:-1;\tsize:4;\n",
		"name: a\nID: 1\nformat:\n\tsome other line\n",
		"name: a\nID: 1\n\tfield:int x;\toffset:0;\tsize:4;\n",
		"name: a-b\nID: 1\nformat:\n",
		"name: a\nID: 0x1\nformat:\n",
		"name: a\nID: 1\n",
		/* the symbols of ret, damaged */
		"name: a\nID: 1\nformat:\nprint fmt: \"\", __print_symbolic(REC->ret, { 1 \"TRAP\" })\n",
		"name: a\nID: 1\nformat:\nprint fmt: \"\", __print_symbolic(REC->ret, { 1, \"TR\\AP\" })\n",
		"name: a\nID: 1\nformat:\nprint fmt: \"\", __print_symbolic(REC->ret, { (1), \"TRAP\" })\n",
		"name: a\nID: 1\nformat:\nprint fmt: \"\", __print_symbolic(REC->ret, { 1, \"IRQ\" }\n",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_null(fields_of(bad[i]), "taken: %s", bad[i]);
}

/* A NUL byte is no digit of a symbol's value (the text is a file's bytes). */
Test(kvm_fields, nul_in_a_value_refused)
{
	static const char text[] = "name: a\nID: 1\nformat:\n"
				   "print fmt: \"\", __print_symbolic(REC->ret, { 1\0, \"TRAP\" })\n";
	size_t len = 0;

	cr_expect_null(vma_kvm_fields_text(text, sizeof(text) - 1, &len));
}

/* The head's lines are as tracefs writes them, whatever the text had. */
Test(kvm_fields, written_again)
{
	static const char text[] =
		"name: kvm_pio\nID: 32\nformat:\n"
		"  field:unsigned int rw; offset:8;  size:4; signed:0;  \n"
		"\n"
		"print fmt: \"pio_%s\", REC->rw ? \"write\" : \"read\"\n"
		"anything after the print format\n";
	char *fields = fields_of(text);

	cr_assert_not_null(fields);
	cr_expect_str_eq(fields, "name: kvm_pio\nID: 32\nformat:\n"
				 "\tfield:unsigned int rw;\toffset:8;\tsize:4;\tsigned:0;\n"
				 "\n"
				 "print fmt: \"\"\n");
	free(fields);
}
