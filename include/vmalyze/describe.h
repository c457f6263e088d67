/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoding a Xen record into the text that dump mode prints after the
 * "dNvM " column, in xenalyze's vocabulary.  Pure: the few things the text
 * needs from the analysis (the vendor of the exit codes, the length of the
 * arc a vmentry closes) come in through struct vma_describe_ctx.
 */
#ifndef VMALYZE_DESCRIBE_H
#define VMALYZE_DESCRIBE_H

#include <stdbool.h>
#include <stdint.h>

#include "vmalyze/record.h"
#include "vmalyze/strbuf.h"

struct vma_describe_ctx {
	uint64_t cpu_hz;     /* to print durations the trace holds in cycles */
	bool svm;            /* exit reasons and handler payloads are AMD SVM's */
	bool arc_open;       /* vmentry: an exit arc was open and closes here */
	uint64_t arc_cycles; /* vmentry: cycles since the vmexit that opened it */

	/*
	 * Analysis state some of xenalyze's texts depend on (added by the
	 * record decoders).  All zero is the ordinary state: every record is
	 * decoded in full.
	 */
	bool orphan;                 /* an HVM handler or shadow record that
				      * needs an open vmexit and has none:
				      * xenalyze ignores it and lists it in its
				      * generic "name [ words ]" form (mark '!') */
	bool exit_open;              /* the vcpu has an open vmexit ... */
	uint32_t exit_reason;        /* ... with this reason (PoD reclaim context) */
	uint64_t cr3;                /* vcpu's last CR3 written, 0 if unknown
				      * (cr_write cr3 "oval", destroy_proc) */
	uint64_t last_rdtsc;         /* vcpu's previous rdtsc value, 0 if none */
	uint8_t guest_paging_levels; /* vcpu's paging levels (pf_xen index
				      * split); 0: 4 for 64-bit records, else 2 */
	bool mmio_in_arc;            /* an MMIO record with data came earlier in
				      * the open exit (pf_xen is then MMIO) */
	bool have_cur;               /* lost records: the pcpu had a current */
	uint32_t cur_dom, cur_vcpu;  /* vcpu, named in "(cur dNvM)" */
	bool unprocessed;            /* the analysis refuses the record (no
				      * current vcpu, idle domain, PV record on
				      * an HVM vcpu...): print it raw */
};

/*
 * vma_describe_xen - append the decoded text of @rec to @sb, without a
 * trailing newline.  An event vmalyze does not know is printed raw: its id
 * and payload words in hex.
 */
void vma_describe_xen(struct vma_strbuf *sb, const struct vma_record *rec,
		      const struct vma_describe_ctx *ctx);

/*
 * --- How xenalyze lays out a record's dump line ---
 *
 * xenalyze's line is: mark, time, pcpu columns, " dNvM", " " and the text
 * vma_describe_xen() produces.  Some records break that pattern.
 */
enum vma_xen_dump_layout {
	VMA_XEN_DUMP_NORMAL,   /* mark, time, pcpus, vcpu, text */
	VMA_XEN_DUMP_NO_VCPU,  /* " %3u.%09u <pcpus> text": no vcpu column,
				* time printed even when zero (pf_inject,
				* inj_exc, reinj_virq, destroy_proc) */
	VMA_XEN_DUMP_NO_TIME,  /* 15 spaces, pcpus, text: no time, no vcpu
				* (the end of a lost-records gap) */
	VMA_XEN_DUMP_SILENT,   /* xenalyze prints no line for this record */
};

enum vma_xen_dump_layout vma_xen_dump_layout(const struct vma_record *rec,
					     const struct vma_describe_ctx *ctx);

/*
 * The first column xenalyze prints: ']' for exits, entries and records
 * attached to an open exit, '!' for HVM records it ignores because no exit
 * is open, ' ' otherwise.
 */
char vma_xen_dump_mark(const struct vma_record *rec, const struct vma_describe_ctx *ctx);

#endif /* VMALYZE_DESCRIBE_H */
