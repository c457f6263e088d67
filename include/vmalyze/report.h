/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Summary reports over the machine model: xenalyze's text layout (so
 * scripts written for xenalyze keep working) and JSON (schema in
 * doc/output.md).  Renderers only read the model.
 */
#ifndef VMALYZE_REPORT_H
#define VMALYZE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/state.h"

struct vma_report_options {
	uint64_t cpu_hz;     /* ticks per second of the trace's clock */
	bool clock_ns;       /* the trace's clock counts nanoseconds, not cycles */
	bool histogram;      /* --histogram */
	bool report_pcpu;    /* --report-pcpu */
	/* Name of KVM event kind @kind (see VMA_KVM_KINDS); NULL for none. */
	const char *(*kvm_event_name)(const void *arg, uint32_t kind);
	const void *kvm_event_name_arg;
};

/* Return: VMA_OK or VMA_ERR_OUTPUT. */
int vma_report_text(FILE *out, const struct vma_machine *machine,
		    const struct vma_report_options *options);
int vma_report_json(FILE *out, const struct vma_machine *machine,
		    const struct vma_report_options *options);

#endif /* VMALYZE_REPORT_H */
