/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event ids.  Xen's own codes come from Xen's public xen/trace.h, as
 * shipped by Debian's libxen-dev (Xen 4.17); the few that are newer than
 * that header are defined here, once, and only where the header lacks them.
 *
 * Ids that no xentrace file can hold (xentrace ids have 28 bits) are used
 * for events that vmalyze itself normalizes: KVM events from the ftrace
 * adapter, and synthetic records made by the readers.
 */
#ifndef VMALYZE_TRACE_IDS_H
#define VMALYZE_TRACE_IDS_H

#include <stdint.h>
#include <xen/trace.h>

/* Xen 4.19 split the vmexit record by vendor (commit 320e644616). */
#ifndef TRC_HVM_VMX_EXIT
#define TRC_HVM_VMX_EXIT   (TRC_HVM_ENTRYEXIT + 0x02)
#endif
#ifndef TRC_HVM_VMX_EXIT64
#define TRC_HVM_VMX_EXIT64 (TRC_HVM_ENTRYEXIT + TRC_64_FLAG + 0x02)
#endif
#ifndef TRC_HVM_SVM_EXIT
#define TRC_HVM_SVM_EXIT   (TRC_HVM_ENTRYEXIT + 0x03)
#endif
#ifndef TRC_HVM_SVM_EXIT64
#define TRC_HVM_SVM_EXIT64 (TRC_HVM_ENTRYEXIT + TRC_64_FLAG + 0x03)
#endif

/* Top-level class of a xentrace id: the 12 bits above the subclass. */
#define VMA_TRC_MAIN(event)  (((event) >> 16) & 0xfffu)
/* Subclass nibble. */
#define VMA_TRC_SUB(event)   (((event) >> 12) & 0xfu)
/* Event number within the subclass. */
#define VMA_TRC_MINOR(event) ((event) & 0xfffu)

/*
 * The Xen classes, by the position of their one-hot bit in the main field
 * (TRC_GEN = bit 0 ... TRC_HW = bit 7).
 */
enum vma_xen_class {
	VMA_XEN_CLASS_GEN = 0,
	VMA_XEN_CLASS_SCHED,
	VMA_XEN_CLASS_DOM0OP,
	VMA_XEN_CLASS_HVM,
	VMA_XEN_CLASS_MEM,
	VMA_XEN_CLASS_PV,
	VMA_XEN_CLASS_SHADOW,
	VMA_XEN_CLASS_HW,
	VMA_XEN_CLASSES
};

/*
 * vma_xen_class - the class of a xentrace id: the one bit set among the
 * low eight of its main field; -1 with none or several (TRC_GUEST records,
 * garbage, and every id above the 28 bits of Xen's).  The one place the
 * class is decoded: dispatch and the dump both ask here.
 */
static inline int vma_xen_class(uint32_t event)
{
	/* class + 1 by main field: a load where a test of one bit took six steps */
	static const uint8_t one_hot[256] = { [1] = 1, [2] = 2, [4] = 3, [8] = 4,
					      [16] = 5, [32] = 6, [64] = 7, [128] = 8 };
	uint32_t main = event >> 16;

	if (main > 0xffu)
		return -1;
	return (int)one_hot[main] - 1;
}

/* Ids above the 28 bits a xentrace record can carry. */
#define VMA_ID_KVM_BASE      0x10000000u /* KVM events, see kvm-events.h */
#define VMA_ID_SYNTH_BASE    0x20000000u /* records made by a reader */

/*
 * The end of a lost-records gap.  A TRC_LOST_RECORDS record is delivered
 * at the time stamp of the first lost record (its first_tsc word), and the
 * reader follows it with this record at the time stamp the record carried,
 * same payload, so the gap has a start and an end in time order.
 */
#define VMA_SYNTH_LOST_END   (VMA_ID_SYNTH_BASE + 1)

static inline int vma_id_is_xen(uint32_t event)
{
	return event < VMA_ID_KVM_BASE;
}

#endif /* VMALYZE_TRACE_IDS_H */
