/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests of the dump's kernel functions (src/input/kvm-kallsyms.c),
 * against libtraceevent itself: one tep handle reads a kallsyms text with
 * tep_parse_kallsyms(), another finds functions through vmalyze's
 * resolver over the same text, and every address looked up must give the
 * same function name and start in both.  Texts: usual lines, modules,
 * aliases at one address, the symbols libtraceevent skips, lines only its
 * sscanf() reads, a line that ends the table, and random ones.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <traceevent/event-parse.h>

#include "input/kvm-internal.h"
#include "input/tep-lib.h"

struct pair {
	struct tep_handle *lib;  /* tep_parse_kallsyms() */
	struct tep_handle *ours; /* the resolver */
	struct vma_kvm_priv priv;
};

/* libtraceevent as vmalyze's own code reaches it (tep-lib.h); linked here too. */
static void load_tep(void)
{
	const char *why = NULL;

	cr_assert_not_null(vma_tep_load(&why), "libtraceevent: %s", why ? why : "");
}

static void pair_open(struct pair *p, const char *text)
{
	memset(p, 0, sizeof(*p));
	load_tep();
	p->lib = tep_alloc();
	p->ours = tep_alloc();
	cr_assert(p->lib && p->ours);
	tep_parse_kallsyms(p->lib, text);
	p->priv.tep = p->ours;
	p->priv.kallsyms = strdup(text);
	cr_assert_not_null(p->priv.kallsyms);
	vma_kvm_kallsyms_hand(&p->priv);
}

static void pair_close(struct pair *p)
{
	vma_kvm_kallsyms_free(&p->priv);
	free(p->priv.kallsyms);
	tep_free(p->lib);
	tep_free(p->ours);
}

/* Both handles name @addr alike; return whether a function holds it. */
static bool same_at(struct pair *p, unsigned long long addr)
{
	const char *a = tep_find_function(p->lib, addr);
	const char *b = tep_find_function(p->ours, addr);

	cr_assert_eq(a == NULL, b == NULL, "at %#llx: libtraceevent %s, vmalyze %s", addr,
		     a ? a : "(none)", b ? b : "(none)");
	if (!a)
		return false;
	cr_assert_str_eq(b, a, "at %#llx", addr);
	cr_assert_eq(tep_find_function_address(p->ours, addr),
		     tep_find_function_address(p->lib, addr), "start of %s", a);
	return true;
}

static const char usual[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n" /* an alias: the same address */
	"ffffffff81000040 t secondary_startup_64\n"
	"0000000000000000 A fixed_percpu_data\n" /* absolute: skipped */
	"0000000000001000 a per_cpu_thing\n"
	"ffffffff81001000 T $x_arm_mapping\n" /* '$' names: skipped */
	"ffffffff81002000 W weak_one\n"
	"ffffffff81001800 t out_of_order\n"
	"\n\n" /* empty lines: skipped */
	"ffffffffc0a00000 t kvm_exit_handler\t[kvm_intel]\n"
	"ffffffffc0a00100 T vmx_vcpu_run\t[kvm_intel]\n"
	"ffffffffc0b00000 t x\t[m]\n"
	"ffffffffc0c00000 t lonely\n";

Test(kallsyms, usual_lines_name_every_address_as_libtraceevent)
{
	static const unsigned long long at[] = {
		0, 0xfff, 0x1000, 0x1001, 0xffffffff80ffffffull, 0xffffffff81000000ull,
		0xffffffff81000001ull, 0xffffffff8100003full, 0xffffffff81000040ull,
		0xffffffff81001000ull, 0xffffffff81001800ull, 0xffffffff81001fffull,
		0xffffffff81002000ull, 0xffffffffc0a00050ull, 0xffffffffc0a00100ull,
		0xffffffffc0a0ffffull, 0xffffffffc0b00000ull, 0xffffffffc0c00000ull,
		0xffffffffc0c00001ull, ~0ull,
	};
	struct pair p;
	size_t i, found = 0;

	pair_open(&p, usual);
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		found += same_at(&p, at[i]);
	cr_assert_geq(found, 10, "the text's functions were found (%zu)", found);
	cr_assert_str_eq(tep_find_function(p.ours, 0xffffffffc0a00123ull), "vmx_vcpu_run");
	pair_close(&p);
}

/* Lines the usual reading leaves to sscanf(), and one that ends the table. */
static const char odd[] =
	"  ffffffff81000000 T leading_blanks\n"
	"0xffffffff81000100 T with_0x\n"
	"ffffffff81000200  T two_spaces\n"
	"ffffffff81000300 T  two_more\n"
	"ffffffff81000400 T\ttab_before_name\n"
	"ffffffff81000500 t mod_blank\t[ spaced]\n"
	"ffffffff81000600 t mod_empty\t[\n"
	"ffffffff81000700 t mod_no_tab [mod]\n"
	"ffffffff81000800 T trailing junk here\n"
	"FFFFFFFF81000900 T upper_hex\n"
	"ffffffff81000a00 T name\r\n"
	"1ffffffff81000b00 T seventeen_digits\n"
	"ffffffff81000c00 T last_before_the_end\n"
	"ffffffff81000d00 T\n" /* no name: libtraceevent stops here */
	"ffffffff81000e00 T never_read\n";

Test(kallsyms, odd_lines_and_the_end_as_libtraceevent)
{
	unsigned long long a;
	struct pair p;

	pair_open(&p, odd);
	for (a = 0xffffffff80fff000ull; a < 0xffffffff81001000ull; a += 0x40)
		same_at(&p, a);
	/* the highest: found at its address only, as libtraceevent's end entry makes it */
	cr_assert_str_eq(tep_find_function(p.ours, 0xffffffff81000c00ull), "last_before_the_end");
	cr_assert_null(tep_find_function(p.ours, 0xffffffff81000c01ull));
	cr_assert_str_eq(tep_find_function(p.ours, 0xffffffff81000a10ull), "name");
	pair_close(&p);
}

Test(kallsyms, no_function_lines)
{
	struct pair p;

	pair_open(&p, "0000000000000000 A only_absolute\n\nnot a line\n");
	cr_assert_not(same_at(&p, 0));
	cr_assert_not(same_at(&p, 0xffffffff81000000ull));
	pair_close(&p);
}

/* Random texts: many aliases, skipped types and modules, looked up everywhere. */
Test(kallsyms, random_texts_as_libtraceevent)
{
	static const char types[] = "TtWwDdBbRrAaVv";
	unsigned int seed = 12345, round, i;
	char *text = malloc(1 << 20);

	cr_assert_not_null(text);
	for (round = 0; round < 20; round++) {
		size_t len = 0;
		struct pair p;

		for (i = 0; i < 2000; i++) {
			unsigned long long addr = 0xffffffff81000000ull + (rand_r(&seed) % 4096) * 16;

			len += (size_t)snprintf(text + len, 256, "%016llx %c f%u_%u%s%s\n", addr,
						types[rand_r(&seed) % (sizeof(types) - 1)], round, i,
						rand_r(&seed) % 5 ? "" : "\t[mod",
						rand_r(&seed) % 5 ? "" : "]");
		}
		text[len] = '\0';
		pair_open(&p, text);
		for (i = 0; i < 3000; i++)
			same_at(&p, 0xffffffff80fffff0ull + (unsigned long long)(rand_r(&seed) % 70000));
		pair_close(&p);
	}
	free(text);
}

/*
 * Random garbage from kallsyms' alphabet (hex digits, blanks, tabs,
 * brackets, '$', "0x", carriage returns, empty lines): whatever
 * tep_parse_kallsyms() makes of a line, or where it stops, vmalyze makes
 * the same, and reads no byte past the text (the sanitizer build).
 */
Test(kallsyms, garbage_texts_as_libtraceevent)
{
	static const char *const pieces[] = {
		"ffffffff8100", "0", "a", "F", "1234", "0x", "-", " ", "  ", "\t", "\n", "\n\n",
		"\r", "T", "t", "A", "a", "W", "$", "[", "]", "\t[", "mod", "name_", "\v", "+",
		"ffffffffffffffffff",
	};
	unsigned int seed = 777, round, i, found = 0;
	char *text = malloc(4096);

	cr_assert_not_null(text);
	for (round = 0; round < 3000; round++) {
		size_t len = 0;
		struct pair p;

		for (i = 0; i < 40; i++) {
			const char *piece = pieces[rand_r(&seed) % (sizeof(pieces) / sizeof(pieces[0]))];
			size_t n = strlen(piece);

			memcpy(text + len, piece, n);
			len += n;
		}
		text[len] = '\0';
		pair_open(&p, text);
		for (i = 0; i < 40; i++) {
			unsigned long long a = (unsigned long long)rand_r(&seed) << 40 ^
					       (unsigned long long)rand_r(&seed) << 8 ^
					       (unsigned long long)(rand_r(&seed) & 0xff);

			found += same_at(&p, i & 1 ? a : a & 0xffffffffull);
		}
		pair_close(&p);
	}
	free(text);
	cr_assert_gt(found, 1000, "lookups that found a function: %u", found);
}

/*
 * Texts in a kernel's shape, which the table takes in order without
 * sorting, or sorts the modules' part of alone: ascending addresses with
 * runs of aliases, modules after the kernel (in odd rounds one below the
 * one before), and a text of hidden addresses (kptr_restrict: every
 * address 0, so the later line first decides).
 */
Test(kallsyms, kernel_shaped_texts_as_libtraceevent)
{
	unsigned int seed = 99, round, i;
	char *text = malloc(1 << 20);

	cr_assert_not_null(text);
	for (round = 0; round < 6; round++) {
		unsigned long long addr = 0xffffffff81000000ull;
		size_t len = 0;
		struct pair p;

		for (i = 0; i < 3000; i++) {
			/* aliases: the address stays for one to four lines */
			if (rand_r(&seed) % 3 == 0)
				addr += 16 * (1 + rand_r(&seed) % 8);
			if (i == 2700)
				addr = round & 1 ? 0xffffffffc0b00000ull : 0xffffffffc0a00000ull;
			if (i == 2850)
				addr = round & 1 ? 0xffffffffc0a00000ull : 0xffffffffc0b00000ull;
			len += (size_t)snprintf(text + len, 256, "%016llx t k%u_%u%s\n",
						round >= 4 ? 0ull : addr, round, i,
						i >= 2700 ? "\t[mod]" : "");
		}
		text[len] = '\0';
		pair_open(&p, text);
		for (i = 0; i < 3000; i++)
			same_at(&p, 0xffffffff80fffff0ull + (unsigned long long)(rand_r(&seed) % 70000));
		for (i = 0; i < 1000; i++)
			same_at(&p, 0xffffffffc0a00000ull + (unsigned long long)(rand_r(&seed) % 0x110000));
		same_at(&p, 0);
		pair_close(&p);
	}
	free(text);
}

/*
 * The largest text read (16 MiB) of the shortest lines: 2.8 M functions.
 * The table takes 12 bytes an entry, sized once and sorted in place, so
 * this test's peak stays within the 64 MiB vmalyze keeps to; a table of
 * pointers with qsort()'s copy peaked at 139 MB here.  (The sanitizer's
 * shadow memory and quarantine make the peak no measure there.)
 */
Test(kallsyms, largest_text_within_64_mib)
{
#if defined(__SANITIZE_ADDRESS__)
	cr_skip_test("peak memory is the sanitizer's");
#else
	size_t len = (size_t)16 << 20, i;
	struct vma_kvm_priv priv;
	struct rusage ru;

	memset(&priv, 0, sizeof(priv));
	load_tep();
	priv.tep = tep_alloc();
	priv.kallsyms = malloc(len + 1);
	cr_assert(priv.tep && priv.kallsyms);
	/* "N T s\n" with N a hex digit, in descending order: the heap sort's case */
	for (i = 0; i + 6 <= len; i += 6)
		memcpy(priv.kallsyms + i, (i / 6) & 1 ? "8 T s\n" : "3 t s\n", 6);
	priv.kallsyms[i] = '\0';
	vma_kvm_kallsyms_hand(&priv);
	cr_assert_str_eq(tep_find_function(priv.tep, 3), "s");
	cr_assert_str_eq(tep_find_function(priv.tep, 8), "s");
	cr_assert_eq(priv.funcs.n, len / 6);
	cr_assert_eq(getrusage(RUSAGE_SELF, &ru), 0);
	cr_assert_lt(ru.ru_maxrss, 64L << 10, "peak %ld KiB", ru.ru_maxrss);
	vma_kvm_kallsyms_free(&priv);
	free(priv.kallsyms);
	tep_free(priv.tep);
#endif
}
