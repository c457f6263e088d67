/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run driver: opens an input, merges its per-pcpu streams, sends each
 * record through dispatch into the machine model, and reports: a dump line
 * per record, or the summary at the end.  One pass over the data; only
 * dump mode of a Xen file reads a little of it twice, to learn whether its
 * exit codes are Intel's or AMD's before printing the first exit.
 */
#include <string.h>

#include "cli/run.h"
#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/dump.h"
#include "vmalyze/input.h"
#include "vmalyze/interval.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/merge.h"
#include "vmalyze/report.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"

/* How much of a file the vendor look-ahead reads at most. */
#define VENDOR_PROBE_RECORDS (1u << 20)

struct run_ctx {
	struct vma_merge *merge;
	struct vma_machine *machine;
};

static int on_new_stream(void *arg, struct vma_stream *stream)
{
	struct run_ctx *ctx = arg;
	int rc = vma_machine_add_pcpu(ctx->machine, stream->pcpu);

	return rc ? rc : vma_merge_add(ctx->merge, stream);
}

/* Streams found by the look-ahead: read one after the other, no merge. */
struct probe_ctx {
	struct vma_machine *machine;
	uint32_t seen;
};

static int probe_stream(void *arg, struct vma_stream *stream)
{
	struct probe_ctx *ctx = arg;

	while (ctx->seen < VENDOR_PROBE_RECORDS && !ctx->machine->vendor_known &&
	       stream->next(stream) == VMA_OK) {
		vma_vendor_note(ctx->machine, &stream->rec);
		ctx->seen++;
	}
	return VMA_OK;
}

static void probe_vendor(const char *path, const struct vma_input_options *inopts,
			 struct vma_machine *machine)
{
	struct vma_diag *quiet = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	struct probe_ctx ctx = { machine, 0 };
	struct vma_input *in = NULL;

	if (!quiet)
		return;
	if (vma_input_open(path, inopts, quiet, probe_stream, &ctx, &in) == VMA_OK)
		vma_input_close(in);
	vma_diag_destroy(quiet);
}

static uint64_t ticks_per_second(const struct vma_options *opts, const struct vma_input *in)
{
	if (in->clock == VMA_CLOCK_NS)
		return 1000000000ull;
	if (opts->timer_hz)
		return opts->timer_hz;
	return opts->cpu_hz;
}

/* Names of the KVM event kinds the state stage counts, from the input. */
static const char *kvm_kind_name(const void *arg, uint32_t kind)
{
	const struct vma_input *in = arg;

	if (kind < VMA_KVM_KINDS)
		return kind < VMA_KVM_NR_IDS ? vma_kvm_event_name(VMA_ID_KVM_BASE + kind) : NULL;
	return vma_kvm_event_table_name(in, kind - VMA_KVM_KINDS);
}

int vma_run_file(const struct vma_options *opts, const char *path, struct vma_diag *diag,
		 FILE *out)
{
	struct vma_machine_options mopts = { .force_svm = opts->svm_mode };
	struct vma_input_options inopts = { .event_formats_dir = opts->event_formats };
	struct run_ctx ctx = { 0 };
	struct vma_dump *dump = NULL;
	struct vma_interval *interval = NULL;
	struct vma_input *in = NULL;
	struct vma_stream *stream, *ended;
	struct vma_outcome outcome;
	uint64_t hz;
	int rc, status = VMA_OK;

	ctx.machine = vma_machine_create(diag, &mopts);
	ctx.merge = vma_merge_create();
	if (!ctx.machine || !ctx.merge) {
		status = VMA_ERR_NOMEM;
		goto out;
	}
	rc = vma_input_open(path, &inopts, diag, on_new_stream, &ctx, &in);
	if (rc) {
		status = rc;
		goto out;
	}
	hz = ticks_per_second(opts, in);
	if (in->family == VMA_FAMILY_KVM) {
		const struct vma_kvm_file_info *info = vma_kvm_file_info(in);
		uint32_t g, c;

		ctx.machine->kvm = true;
		ctx.machine->kvm_window = hz / 1000; /* vm-trace's 1 ms window */
		/* A host recording with guests says which threads are whose vcpus. */
		for (g = 0; info && g < info->nr_guests; g++) {
			for (c = 0; c < info->guests[g].nr_vcpus; c++) {
				if (info->guests[g].vcpu_pid[c])
					vma_machine_map_thread(ctx.machine, info->guests[g].vcpu_pid[c],
							       g, c);
			}
		}
	}
	if (opts->mode == VMA_MODE_DUMP) {
		if (in->family == VMA_FAMILY_XEN && !opts->svm_mode && strcmp(path, "-"))
			probe_vendor(path, &inopts, ctx.machine);
		dump = vma_dump_create(out, hz);
		if (!dump) {
			status = VMA_ERR_NOMEM;
			goto out;
		}
	}

	if (opts->mode == VMA_MODE_SUMMARY && opts->interval_secs > 0) {
		interval = vma_interval_create(out, hz, opts->interval_secs);
		if (!interval) {
			status = VMA_ERR_NOMEM;
			goto out;
		}
	}

	for (;;) {
		rc = vma_merge_next(ctx.merge, &stream);
		while ((ended = vma_merge_pop_ended(ctx.merge)))
			vma_machine_pcpu_end(ctx.machine, ended->pcpu);
		if (rc == VMA_END)
			break;
		if (rc < 0) {
			status = rc;
			break;
		}
		if (dump)
			vma_dump_begin(dump, ctx.machine, &stream->rec);
		if (interval && vma_interval_advance(interval, ctx.machine, stream->rec.tsc)) {
			status = VMA_ERR_OUTPUT;
			break;
		}
		rc = vma_dispatch(ctx.machine, &stream->rec, &outcome);
		if (rc < 0) {
			status = rc;
			break;
		}
		if (dump) {
			rc = vma_dump_end(dump, stream, &outcome);
			if (rc < 0) {
				status = rc;
				break;
			}
		}
	}
	if (vma_merge_late_count(ctx.merge))
		vma_diag_report(diag, VMA_LVL_WARN, in->path, UINT64_MAX,
				"%llu records of late-starting pcpus were older than records "
				"already processed; they were processed out of time order",
				(unsigned long long)vma_merge_late_count(ctx.merge));
	vma_machine_finish(ctx.machine);
	if (interval) {
		rc = vma_interval_finish(interval, ctx.machine);
		if (rc < 0 && status == VMA_OK)
			status = rc;
	} else if (opts->mode == VMA_MODE_SUMMARY) {
		struct vma_report_options ropts = {
			.cpu_hz = hz,
			.clock_ns = in->clock == VMA_CLOCK_NS,
			.histogram = opts->histogram,
			.report_pcpu = opts->report_pcpu,
			.kvm_event_name = kvm_kind_name,
			.kvm_event_name_arg = in,
		};

		rc = opts->json ? vma_report_json(out, ctx.machine, &ropts)
				: vma_report_text(out, ctx.machine, &ropts);
		if (rc < 0 && status == VMA_OK)
			status = rc;
	}
out:
	vma_interval_destroy(interval);
	vma_dump_destroy(dump);
	vma_input_close(in);
	vma_merge_destroy(ctx.merge);
	vma_machine_destroy(ctx.machine);
	return status;
}
