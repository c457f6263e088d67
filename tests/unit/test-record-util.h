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
#include "vmalyze/trace-ids.h"

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

/* A test's way of dispatching one record: stamped @tsc, @n payload words. */
typedef void vt_feed_fn(uint64_t tsc, uint32_t event, int n, ...);

/* Through @feed: a VMX CR-access exit at @tsc writing CR3 @cr3, its vmentry @len later. */
static inline void vt_cr3_write(vt_feed_fn *feed, uint64_t tsc, uint32_t cr3, uint64_t len)
{
	feed(tsc, TRC_HVM_VMX_EXIT, 2, 28, 0x1000);
	feed(tsc + 1, TRC_HVM_CR_WRITE, 2, 3, cr3);
	feed(tsc + len, TRC_HVM_VMENTRY, 0);
}

/* Through @feed: an exit with no handler record (CPUID: "other"), @len long. */
static inline void vt_plain_exit(vt_feed_fn *feed, uint64_t tsc, uint64_t len)
{
	feed(tsc, TRC_HVM_VMX_EXIT, 2, 10, 0x1000);
	feed(tsc + len, TRC_HVM_VMENTRY, 0);
}

#endif /* VMALYZE_TEST_RECORD_UTIL_H */
