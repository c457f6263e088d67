/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The option tables (src/cli/options.c, options-xen.c): each row's setter
 * reaches the field it names (the generic setters write through an offset
 * into struct vma_options, which a wrong row would get wrong silently),
 * xenalyze's rows carry their kinds, --help stops the reading, and a
 * group heading of xenalyze's table is no option, and the shares of the
 * reorder bound.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "cli/option-table.h"
#include "cli/options.h"
#include "vmalyze/status.h"

static struct vma_options opts;

/* Parses "vmalyze ARGS... trace" into opts, errors to /dev/null. */
static int parse(const char *const *args, int n)
{
	static char name[] = "vmalyze", file[] = "trace";
	char *argv[16];
	FILE *null = fopen("/dev/null", "w");
	int i, rc;

	cr_assert_lt(n, 14);
	argv[0] = name;
	for (i = 0; i < n; i++)
		argv[i + 1] = strdup(args[i]); /* setters may split their argument */
	argv[n + 1] = file;
	argv[n + 2] = NULL;
	cr_assert_not_null(null);
	rc = vma_options_parse(&opts, n + 2, argv, null);
	fclose(null);
	return rc;
}

#define PARSE(...) parse((const char *const[]){ __VA_ARGS__ }, \
			 sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *))

Test(options, flags_set_their_own_field_only)
{
	cr_assert_eq(PARSE("--json"), VMA_OK);
	cr_assert(opts.json);
	cr_assert_not(opts.csv);
	cr_assert_not(opts.histogram);
	cr_assert_str_eq(opts.format, "json");
	cr_assert_eq(PARSE("-s", "--report-pcpu", "--histogram"), VMA_OK);
	cr_assert(opts.summary && opts.report_pcpu && opts.histogram);
	cr_assert_not(opts.json || opts.dump || opts.live);
	cr_assert_str_eq(opts.format, "histogram");
	cr_assert_eq(PARSE("-a", "--dump-show-power-states", "--dump-raw-process"), VMA_OK);
	cr_assert(opts.dump && opts.dump_power_states && opts.dump_raw_process);
	cr_assert_not(opts.dump_volume_on_lost || opts.dump_ipi_latency || opts.dump_raw_reads);
	cr_assert_eq(PARSE("--with-cr3-enumeration", "--tsc-loop-fatal"), VMA_OK);
	cr_assert(opts.eips.cr3 && opts.tsc_loop_fatal);
	cr_assert_not(opts.eips.enumerate || opts.eips.histogram || opts.tsc_skew_correct);
}

Test(options, strings_are_the_arguments)
{
	cr_assert_eq(PARSE("--save", "out.save", "--event-formats", "fmt"), VMA_OK);
	cr_assert_str_eq(opts.save, "out.save");
	cr_assert_str_eq(opts.event_formats, "fmt");
	cr_assert_null(opts.symbol_file);
	cr_assert_eq(PARSE("--symbol-file=System.map"), VMA_OK);
	cr_assert_str_eq(opts.symbol_file, "System.map");
	cr_assert_null(opts.save);
}

Test(options, xenalyze_rows_carry_their_kind)
{
	cr_assert_eq(PARSE("--scatterplot-io=0x3f8", "--scatterplot-pcpu"), VMA_OK);
	cr_assert_eq(opts.scatter.kinds,
		     (1u << VMA_SCATTER_IO) | (1u << VMA_SCATTER_PCPU));
	cr_assert_eq(opts.scatter.io_port, 0x3f8);
	cr_assert_eq(PARSE("--interval-domain-total-time=0,3"), VMA_OK);
	cr_assert_eq(opts.xinterval.mode, VMA_XINTERVAL_TOTAL_TIME);
	cr_assert_eq(opts.xinterval.nr_domains, 2);
	cr_assert_eq(opts.xinterval.domains[1], 3);
	cr_assert_eq(PARSE("--interval-domain-grant-maps=1"), VMA_OK);
	cr_assert_eq(opts.xinterval.mode, VMA_XINTERVAL_GRANT_MAPS);
	/* only total-time takes a list */
	cr_assert_eq(PARSE("--interval-domain-short-summary=1,2"), VMA_ERR_USAGE);
}

Test(options, help_stops_the_reading)
{
	cr_assert_eq(PARSE("--help", "--no-such-option"), VMA_OK);
	cr_assert(opts.help);
	cr_assert_eq(PARSE("--no-such-option", "--help"), VMA_ERR_USAGE);
}

Test(options, a_group_heading_is_no_option)
{
	cr_assert_eq(PARSE("--=x"), VMA_ERR_USAGE);
	cr_assert_eq(PARSE("--"), VMA_OK);
}

Test(options, every_row_of_xenalyzes_table_has_a_setter)
{
	size_t nr, i, named = 0;
	const struct vma_option_row *rows = vma_xen_option_rows(&nr);

	cr_assert_leq(nr, VMA_XEN_OPTIONS_MAX);
	for (i = 0; i < nr; i++) {
		if (!rows[i].name) {
			cr_assert_null(rows[i].set, "a heading with a setter: %s", rows[i].doc);
			continue;
		}
		/* An option of vmalyze's own table, named in its xenalyze group. */
		if (rows[i].above) {
			cr_assert_null(rows[i].set, "--%s: an above row with a setter", rows[i].name);
			continue;
		}
		named++;
		cr_assert_not_null(rows[i].set, "--%s has no setter", rows[i].name);
		cr_assert_not_null(rows[i].doc, "--%s has no help text", rows[i].name);
	}
	cr_assert_gt(named, 30);
}

/*
 * The streamed readers' reorder stages share VMA_REORDER_CAP_DEFAULT like
 * the memory budget (-j, linked traces), down to a floor.
 */
Test(options, reorder_stages_share_their_bound)
{
	struct vma_options o = { 0 };

	cr_expect_eq(vma_options_reorder_cap(&o, 1), VMA_REORDER_CAP_DEFAULT);
	cr_expect_eq(vma_options_reorder_cap(&o, 2), VMA_REORDER_CAP_DEFAULT / 2);
	o.traces_at_once = 4;
	cr_expect_eq(vma_options_reorder_cap(&o, 1), VMA_REORDER_CAP_DEFAULT / 4);
	cr_expect_eq(vma_options_reorder_cap(&o, 2), VMA_REORDER_CAP_DEFAULT / 8);
	o.traces_at_once = 64;
	cr_expect_eq(vma_options_reorder_cap(&o, 1), (size_t)2 << 20, "the floor");
}
