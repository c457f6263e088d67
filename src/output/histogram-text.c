/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Horizontal-bar text rendering of cycle histograms (see histogram.h).
 * Column widths are measured from the data first, so that every line of one
 * histogram lines up and the bar gets whatever the numbers leave of the
 * requested width.
 */
#include <inttypes.h>
#include <string.h>

#include "vmalyze/histogram.h"
#include "vmalyze/status.h"
#include "vmalyze/strbuf.h"

#define MIN_BAR 10u
#define INDENT "  "

static unsigned int digits(uint64_t v)
{
	unsigned int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

static inline uint64_t bin_weight(const struct vma_cycles_bin *b, enum vma_cycles_weight weight)
{
	return weight == VMA_CYCLES_BY_TIME ? b->cycles : b->count;
}

/* Bar length for @w out of a largest weight @max over @bar columns, rounded. */
static unsigned int bar_len(uint64_t w, uint64_t max, unsigned int bar)
{
	unsigned __int128 scaled;

	if (max == 0)
		return 0;
	scaled = ((unsigned __int128)w * bar * 2 + max) / ((unsigned __int128)max * 2);
	return (unsigned int)scaled;
}

int vma_histogram_print(FILE *f, const struct vma_cycles_bin *bins, size_t nbins,
			enum vma_cycles_weight weight, unsigned int width)
{
	unsigned int lo_w = 1, hi_w = 1, val_w = 1, fixed, bar, len, i;
	unsigned __int128 total = 0;
	uint64_t max = 0, w;
	char line[512];
	size_t b;

	if (nbins == 0)
		return 0;
	if (width == 0)
		width = VMA_HISTOGRAM_WIDTH;
	for (b = 0; b < nbins; b++) {
		w = bin_weight(&bins[b], weight);
		total += w;
		if (w > max)
			max = w;
		if (digits(bins[b].lo) > lo_w)
			lo_w = digits(bins[b].lo);
		if (digits(bins[b].hi) > hi_w)
			hi_w = digits(bins[b].hi);
		if (digits(w) > val_w)
			val_w = digits(w);
	}
	/* "  [" lo ", " hi ") " bar " " value " " "100.0%" */
	fixed = (unsigned int)strlen(INDENT) + 1 + lo_w + 2 + hi_w + 2 + 1 + val_w + 1 + 6;
	bar = width > fixed + MIN_BAR ? width - fixed : MIN_BAR;
	if (bar > sizeof(line) - 1)
		bar = sizeof(line) - 1;

	for (b = 0; b < nbins; b++) {
		w = bin_weight(&bins[b], weight);
		len = bar_len(w, max, bar);
		for (i = 0; i < bar; i++)
			line[i] = i < len ? '#' : ' ';
		if (len == 0 && w != 0)
			line[0] = '.';
		line[bar] = '\0';
		vma_fprintf(f, INDENT "[%*" PRIu64 ", %*" PRIu64 ") %s %*" PRIu64 " %5.1f%%\n",
			(int)lo_w, bins[b].lo, (int)hi_w, bins[b].hi, line, (int)val_w, w,
			total ? (double)w * 100.0 / (double)total : 0.0);
	}
	return ferror(f) ? VMA_ERR_OUTPUT : 0;
}
