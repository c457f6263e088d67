/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The picture's memory (timeline.h): the JSON takes every slice as it
 * closes and the SVG keeps only what it can draw.  A guest cpu's task
 * switches (no machine needed) make the slices: 100,000 of 10 ticks,
 * which no SVG of the whole run can draw, and long ones it must.  (Sizes
 * kept small: the sanitizers' build runs these too.)
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/status.h"
#include "vmalyze/timeline.h"

#define TINY 100000u

/* One pass, with no strstr(): the sanitizers' strstr() measures the rest at each call. */
static size_t count(const char *text, const char *what)
{
	size_t n = 0, len = strlen(what);

	for (; *text; text++)
		n += *text == *what && !strncmp(text, what, len);
	return n;
}

/* Cpu 0 switches tasks every 10 ticks; cpu 1 runs a task a fifth of the run, then idles. */
static struct vma_timeline *run(FILE *json, bool svg, size_t *most_kept)
{
	struct vma_timeline *tl = vma_timeline_create(&(struct vma_timeline_options){
		.hz = 1000000000u, .to = 0, .json = json, .svg = svg });
	uint64_t t;
	uint32_t i;

	cr_assert_not_null(tl);
	*most_kept = 0;
	cr_assert_eq(vma_timeline_guest_task(tl, 1, 1, NULL, 7, "long", 0), VMA_OK);
	for (i = 0, t = 0; i < TINY; i++, t += 10) {
		cr_assert_eq(vma_timeline_guest_task(tl, 1, 0, NULL, 100 + i % 2, "tiny", t),
			     VMA_OK);
		if (i == TINY / 5)
			cr_assert_eq(vma_timeline_guest_task(tl, 1, 1, NULL, 0, "", t), VMA_OK);
		if (vma_timeline_kept(tl) > *most_kept)
			*most_kept = vma_timeline_kept(tl);
	}
	cr_assert_eq(vma_timeline_end(tl, t), VMA_OK);
	return tl;
}

Test(timeline, json_streams_every_slice_svg_keeps_what_it_draws)
{
	char *jtext = NULL, *stext = NULL;
	size_t jlen = 0, slen = 0, most;
	FILE *json = open_memstream(&jtext, &jlen), *svg;
	struct vma_timeline *tl = run(json, true, &most);

	fclose(json);
	/* Every slice but the last tiny one, ended with the run: that one too. */
	cr_assert_eq(count(jtext, "\"ph\": \"X\""), TINY + 1);
	cr_assert_eq(count(jtext, "\"name\": \"thread_name\""), 2);
	cr_assert(strstr(jtext, "\n]}\n"));
	/* Once past 20,000 of them, a slice of 10 ticks is under a twentieth of a pixel. */
	cr_assert_lt(most, 40000, "%zu slices kept at once", most);
	svg = open_memstream(&stext, &slen);
	cr_assert_eq(vma_timeline_write_svg(tl, svg), VMA_OK);
	fclose(svg);
	cr_assert_eq(count(stext, "<title>long:7</title>"), 1);
	cr_assert_eq(count(stext, "<title>tiny:"), 0);
	vma_timeline_destroy(tl);
	free(jtext);
	free(stext);
}

/* Without an SVG nothing is kept; without a JSON nothing is written. */
Test(timeline, nothing_kept_for_json_alone)
{
	char *jtext = NULL;
	size_t jlen = 0, most;
	FILE *json = open_memstream(&jtext, &jlen);
	struct vma_timeline *tl = run(json, false, &most);

	fclose(json);
	cr_assert_eq(most, 0);
	cr_assert_eq(count(jtext, "\"ph\": \"X\""), TINY + 1);
	vma_timeline_destroy(tl);
	free(jtext);
}

/* What the SVG of a short run draws is what it drew when every slice was kept. */
Test(timeline, drawable_slices_all_kept)
{
	struct vma_timeline *tl = vma_timeline_create(&(struct vma_timeline_options){
		.hz = 1000000000u, .svg = true });
	char *stext = NULL;
	size_t slen = 0;
	FILE *svg;
	uint64_t t = 0;
	uint32_t i;

	cr_assert_not_null(tl);
	/* 3,000 slices of 1 to 3,000 ticks: 4,501,500 ticks; 0.05 px is 225.075 of them. */
	for (i = 1; i <= 3000; i++) {
		cr_assert_eq(vma_timeline_guest_task(tl, 1, 0, NULL, i, "t", t), VMA_OK);
		t += i;
	}
	cr_assert_eq(vma_timeline_end(tl, t), VMA_OK);
	svg = open_memstream(&stext, &slen);
	cr_assert_eq(vma_timeline_write_svg(tl, svg), VMA_OK);
	fclose(svg);
	/* Those of 226 ticks and more. */
	cr_assert_eq(count(stext, "<title>t:"), 3000 - 225, "%zu drawn",
		     count(stext, "<title>t:"));
	cr_assert_geq(vma_timeline_kept(tl), 3000 - 225);
	vma_timeline_destroy(tl);
	free(stext);
}

/*
 * More slices than an SVG may keep (4,096 here), all wide enough to draw
 * when they end: 40 guest cpus of 150 slices each.  The narrowest drawn
 * doubles until half as many are left -- none of these -- which the
 * picture says; the long slices that close the run are drawn.
 */
Test(timeline, svg_past_its_most_draws_wider_slices)
{
	struct vma_timeline *tl = vma_timeline_create(&(struct vma_timeline_options){
		.hz = 1000000000u, .svg = true, .svg_keep = 4096 });
	char *stext = NULL;
	size_t slen = 0, most = 0;
	uint32_t i, c;
	FILE *svg;

	cr_assert_not_null(tl);
	for (i = 0; i < 150; i++) {
		for (c = 0; c < 40; c++) {
			cr_assert_eq(vma_timeline_guest_task(tl, 1, c, NULL, 100 + i % 2, "short",
							     (uint64_t)i * 1000), VMA_OK);
		}
		if (vma_timeline_kept(tl) > most)
			most = vma_timeline_kept(tl);
	}
	/* A last stretch as long as all the rest: half the picture. */
	for (c = 0; c < 40; c++)
		cr_assert_eq(vma_timeline_guest_task(tl, 1, c, NULL, 7, "long", 150000), VMA_OK);
	cr_assert_eq(vma_timeline_end(tl, 300000), VMA_OK);
	cr_assert_leq(most, 4096, "%zu kept", most);
	svg = open_memstream(&stext, &slen);
	cr_assert_eq(vma_timeline_write_svg(tl, svg), VMA_OK);
	fclose(svg);
	cr_assert(strstr(stext, ", slices from "), "%.300s", stext);
	cr_assert_eq(count(stext, "<title>long:7</title>"), 40);
	cr_assert_eq(count(stext, "<title>short:"), 0);
	vma_timeline_destroy(tl);
	free(stext);
}

/* 70,000 tasks, each slice long enough to be kept: past 65,536 names the slices are "other". */
Test(timeline, svg_names_are_bounded)
{
	struct vma_timeline *tl = vma_timeline_create(&(struct vma_timeline_options){
		.hz = 1000000000u, .svg = true });
	char *stext = NULL, *p;
	size_t slen = 0;
	double len = 1000;
	uint64_t t = 0;
	uint32_t i;
	FILE *svg;

	cr_assert_not_null(tl);
	/* each 1.0001 times the last: a ten-thousandth of the run so far, a tenth of a pixel */
	for (i = 0; i < 70000; i++, len *= 1.0001) {
		cr_assert_eq(vma_timeline_guest_task(tl, 1, 0, NULL, 100 + i, "t", t), VMA_OK);
		t += (uint64_t)len;
	}
	cr_assert_eq(vma_timeline_end(tl, t), VMA_OK);
	svg = open_memstream(&stext, &slen);
	cr_assert_eq(vma_timeline_write_svg(tl, svg), VMA_OK);
	fclose(svg);
	/* the SVG draws the last few thousand (the others are under 0.05 px of the whole) */
	cr_assert_gt(count(stext, "<title>other</title>"), 1000);
	for (p = stext; *p; p++) {
		if (*p == '<' && !strncmp(p, "<title>t:", 9))
			cr_assert_lt(strtoul(p + 9, NULL, 10), 100 + 65536);
	}
	vma_timeline_destroy(tl);
	free(stext);
}
