/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libxenctrl, libxenforeignmemory and libxenevtchn, loaded by their sonames
 * (found by configure) when vmalyze record, or a run without --cpu-hz on a
 * Xen dom0, first needs them, rather than linked.  Linked, libxenctrl and
 * the six libraries it links cost every run about 0.4 ms before main()
 * (bench/README, round sixteen), while an analysis never calls them.
 * libxentoollog stays linked: the diagnostics write through it.
 * The functions xen-tbuf.c calls are listed once, below; each is reached
 * through a pointer of its own prototype.
 */
#ifndef VMALYZE_CAPTURE_XEN_LIB_H
#define VMALYZE_CAPTURE_XEN_LIB_H

#include <xenctrl.h>
#include <xenevtchn.h>
#include <xenforeignmemory.h>

#define VMA_XENCTRL_FUNCTIONS(X) \
	X(xc_interface_open) \
	X(xc_interface_close) \
	X(xc_physinfo) \
	X(xc_get_cpumap_size) \
	X(xc_cpumap_alloc) \
	X(xc_tbuf_set_size) \
	X(xc_tbuf_set_evt_mask) \
	X(xc_tbuf_set_cpu_mask) \
	X(xc_tbuf_enable) \
	X(xc_tbuf_disable)

#define VMA_XENFOREIGNMEMORY_FUNCTIONS(X) \
	X(xenforeignmemory_open) \
	X(xenforeignmemory_close) \
	X(xenforeignmemory_map) \
	X(xenforeignmemory_unmap)

#define VMA_XENEVTCHN_FUNCTIONS(X) \
	X(xenevtchn_open) \
	X(xenevtchn_close) \
	X(xenevtchn_fd) \
	X(xenevtchn_bind_virq) \
	X(xenevtchn_unbind) \
	X(xenevtchn_pending) \
	X(xenevtchn_unmask)

struct vma_xenlib {
#define VMA_XENLIB_POINTER(name) __typeof__(name) *name;
	VMA_XENCTRL_FUNCTIONS(VMA_XENLIB_POINTER)
	VMA_XENFOREIGNMEMORY_FUNCTIONS(VMA_XENLIB_POINTER)
	VMA_XENEVTCHN_FUNCTIONS(VMA_XENLIB_POINTER)
#undef VMA_XENLIB_POINTER
};

/*
 * vma_xenlib_get - the three libraries' functions, loaded by the first
 * call (from any thread; later calls return the same).  Return: NULL when
 * one cannot be loaded, and *@why then says why (dlerror()'s text, or the
 * symbol missing).
 */
const struct vma_xenlib *vma_xenlib_get(const char **why);

#endif /* VMALYZE_CAPTURE_XEN_LIB_H */
