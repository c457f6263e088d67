/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text rendering of log-scale cycle histograms (--histogram): one line per
 * bin with the bin's range, a bar scaled to the largest bin, the bin's count
 * or cycles and its share of the total, sized for an 80-column terminal:
 *
 *   [ 4096,  8192) ##########                    1234  12.3%
 *
 * The bins come from vma_cycles_histogram(); the caller prints any heading.
 */
#ifndef VMALYZE_HISTOGRAM_H
#define VMALYZE_HISTOGRAM_H

#include <stddef.h>
#include <stdio.h>

#include "vmalyze/cycles.h"

/* Line width used when the caller passes 0. */
#define VMA_HISTOGRAM_WIDTH 80u

/**
 * vma_histogram_print - draw @nbins bins as horizontal bars on @f.
 * @f: the stream written to.
 * @bins: the bins, in ascending order (not freed).
 * @nbins: how many; 0 prints nothing.
 * @weight: VMA_CYCLES_BY_COUNT: bars, numbers and percentages are sample
 *	counts; VMA_CYCLES_BY_TIME: they are cycles (time spent in the bin).
 * @width: line width in columns, 0 for VMA_HISTOGRAM_WIDTH.  The bar takes
 *	what the numbers leave, but never less than 10 columns, so very wide
 *	numbers can make lines longer than @width.
 *
 * The longest bar is the bin with the largest weight; a bin whose weight is
 * non-zero but rounds to no '#' shows a single '.'.
 * Return: 0, or VMA_ERR_OUTPUT when writing to @f failed.
 */
int vma_histogram_print(FILE *f, const struct vma_cycles_bin *bins, size_t nbins,
			enum vma_cycles_weight weight, unsigned int width);

#endif /* VMALYZE_HISTOGRAM_H */
