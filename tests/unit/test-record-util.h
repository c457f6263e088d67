/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test helper: a record from a time stamp, an event id and payload words,
 * the shape every state, scatter and interval test feeds to dispatch.
 */
#ifndef VMALYZE_TEST_RECORD_UTIL_H
#define VMALYZE_TEST_RECORD_UTIL_H

#include <stdarg.h>
#include <string.h>

#include "vmalyze/record.h"

/* Fill @rec: pcpu @pcpu, stamped @tsc, @n payload words taken from @ap. */
static inline void vt_record(struct vma_record *rec, uint32_t pcpu, uint64_t tsc,
			     uint32_t event, int n, va_list ap)
{
	int i;

	memset(rec, 0, sizeof(*rec));
	rec->tsc = tsc;
	rec->pcpu = pcpu;
	rec->event = event;
	rec->flags = VMA_REC_HAS_TSC;
	rec->nr_data = (uint16_t)n;
	for (i = 0; i < n; i++)
		rec->data[i] = va_arg(ap, uint32_t);
}

#endif /* VMALYZE_TEST_RECORD_UTIL_H */
