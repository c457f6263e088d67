/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Runs of linked traces (run.h): a host and its guests through one
 * pipeline on the host's clock.  The dump: one line per record in time
 * order, each naming its file as `trace-cmd report -i HOST -i GUEST` does.
 * --latency: the guests' wake-ups split by what the host did (latency.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"
#include "vmalyze/dump.h"
#include "vmalyze/diag.h"
#include "vmalyze/input.h"
#include "vmalyze/kvm-input.h"
#include "vmalyze/latency.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/status.h"

struct linked_ctx {
	const struct vma_pipeline *p;
	struct vma_dump *dump;
	const char **labels;        /* [input] its file's base name */
	int width;                  /* the longest of them */
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int before_linked(void *arg, const struct vma_machine *m, const struct vma_stream *s)
{
	struct linked_ctx *ctx = arg;
	uint32_t i = vma_pipeline_input_index(ctx->p, s->input);
	const struct vma_vcpu *v = i ? vma_pipeline_host_vcpu(ctx->p, i, s->pcpu) : NULL;

	(void)m;
	vma_dump_begin_linked(ctx->dump, vma_pipeline_machine(ctx->p), &s->rec, i != 0, v,
			      ctx->labels[i], ctx->width);
	return VMA_OK;
}

static int after_linked(void *arg, const struct vma_machine *m, const struct vma_stream *s,
			const struct vma_outcome *out)
{
	struct linked_ctx *ctx = arg;

	(void)m;
	return vma_dump_end(ctx->dump, s, out);
}

uint64_t vma_run_ticks(uint64_t ns, uint64_t hz)
{
	return (uint64_t)((unsigned __int128)ns * hz / 1000000000u);
}

/*
 * Opens @nr linked traces (@paths[0] the host) as one pipeline, with the
 * command line's reader options and each file's --time-offset/--guest-tsc
 * map (the pipeline keeps copies of the maps).
 */
int vma_open_linked(const struct vma_options *opts, const char *const *paths, uint32_t nr,
		    bool report, struct vma_diag *diag, struct vma_pipeline **p)
{
	struct vma_pipeline_options popts = {
		.input = { .event_formats_dir = opts->event_formats,
			   .reorder_cap = vma_options_reorder_cap(opts, nr),
			   .fields_only = !opts->dump && !opts->dump_raw_process },
		.force_svm = opts->svm_mode,
		.cpu_hz = opts->cpu_hz,
		.timer_hz = opts->timer_hz,
		.no_stats = !report,
	};
	const struct vma_time_map **maps = calloc(nr, sizeof(*maps));
	uint32_t i;
	int status;

	*p = NULL;
	if (!maps)
		return VMA_ERR_NOMEM;
	for (i = 0; i < nr; i++)
		maps[i] = vma_options_time_map(opts, paths[i]);
	popts.time_maps = maps;
	/* each trace has its machine, all at once */
	vma_options_budgets(opts, nr, &popts.summary_budget, &popts.rows_budget);
	status = vma_pipeline_open_linked(paths, nr, &popts, diag, p);
	free(maps);
	return status;
}

int vma_run_linked(const struct vma_options *opts, const char *const *paths, uint32_t nr,
		   struct vma_diag *diag, FILE *out)
{
	struct linked_ctx ctx = { 0 };
	struct vma_pipeline_hooks hooks = { .arg = &ctx, .before = before_linked,
					    .after = after_linked };
	struct vma_pipeline *p = NULL;
	vma_dump_describe_fn *guest_describe;
	bool xen_host;
	uint32_t i;
	int status;

	ctx.labels = calloc(nr, sizeof(*ctx.labels));
	if (!ctx.labels)
		return VMA_ERR_NOMEM;
	for (i = 0; i < nr; i++) {
		ctx.labels[i] = base_name(paths[i]);
		if ((int)strlen(ctx.labels[i]) > ctx.width)
			ctx.width = (int)strlen(ctx.labels[i]);
	}
	status = vma_open_linked(opts, paths, nr, true, diag, &p);
	if (status)
		goto out;
	ctx.p = p;
	/*
	 * The guests are KVM trace.dat files, of one decoder; the host is one
	 * too, or a xentrace (decoded by the dump) with --guest-tsc guests.
	 */
	guest_describe = vma_pipeline_input_at(p, 1)->ops->describe;
	xen_host = vma_pipeline_input(p)->family == VMA_FAMILY_XEN;
	for (i = 1; i < nr; i++) {
		if (vma_pipeline_input_at(p, i)->ops->describe != guest_describe ||
		    !guest_describe ||
		    (!xen_host && guest_describe != vma_pipeline_input(p)->ops->describe)) {
			vma_diag_report(diag, VMA_LVL_INPUT, paths[i], UINT64_MAX,
					"is not of the format of %s: linked traces are KVM "
					"trace.dat files (a xentrace's guests: --guest-tsc)",
					paths[xen_host ? 1 : 0]);
			status = VMA_ERR_USAGE;
			goto out;
		}
	}
	ctx.dump = vma_dump_create(out, vma_pipeline_hz(p), vma_pipeline_input(p)->ops->describe);
	if (!ctx.dump) {
		status = VMA_ERR_NOMEM;
		goto out;
	}
	if (xen_host)
		vma_dump_set_guest_describe(ctx.dump, guest_describe);
	status = vma_pipeline_run(p, &hooks);
	if (vma_dump_flush(ctx.dump) && status == VMA_OK)
		status = VMA_ERR_OUTPUT;
out:
	vma_dump_destroy(ctx.dump);
	vma_pipeline_close(p);
	free(ctx.labels);
	return status;
}

/* ---- --latency ------------------------------------------------------------ */

struct latency_ctx {
	const struct vma_pipeline *p;
	struct vma_latency *lat;
	uint64_t last;
	const char *start, *end;    /* --latency-events, or NULL */
	uint64_t marks;             /* records of those events seen */
};

/* --latency-events: a guest record of END closes its cpu's interval, of START opens one. */
static int mark(struct latency_ctx *ctx, uint32_t guest, const struct vma_stream *s)
{
	const char *name = vma_kvm_record_name(s->input, &s->rec);
	int rc = VMA_OK;

	if (!strcmp(name, ctx->end)) {
		ctx->marks++;
		rc = vma_latency_mark(ctx->lat, guest, &s->rec, false);
	}
	if (rc == VMA_OK && !strcmp(name, ctx->start)) {
		ctx->marks++;
		rc = vma_latency_mark(ctx->lat, guest, &s->rec, true);
	}
	return rc;
}

static int after_latency(void *arg, const struct vma_machine *m, const struct vma_stream *s,
			 const struct vma_outcome *out)
{
	struct latency_ctx *ctx = arg;
	uint32_t i = vma_pipeline_input_index(ctx->p, s->input);
	int rc;

	(void)m;
	(void)out;
	if (s->rec.tsc > ctx->last)
		ctx->last = s->rec.tsc;
	if (!i)
		return vma_latency_host(ctx->lat, &s->rec);
	/* with --latency-events the analysis only notes that a guest is there */
	rc = vma_latency_guest(ctx->lat, i, &s->rec);
	return rc || !ctx->start ? rc : mark(ctx, i, s);
}

/* Guest cpu c of each guest is the host thread the GUEST option names for it. */
static int tie_guests(const struct vma_pipeline *p, struct vma_latency *lat)
{
	uint32_t i, c;
	int rc = VMA_OK;

	for (i = 1; i < vma_pipeline_nr_inputs(p) && rc == VMA_OK; i++) {
		const struct vma_kvm_file_info *info =
			vma_kvm_file_info(vma_pipeline_input_at(p, i));
		uint32_t cpus = info ? info->cpu_count : 0;

		/* a cpu the GUEST option gives no thread stays unknown: the rest go on */
		for (c = 0; rc == VMA_OK && c < cpus; c++) {
			const struct vma_vcpu *v = vma_pipeline_host_vcpu(p, i, c);

			if (v && v->kvm_tid)
				rc = vma_latency_tie(lat, i, c, v->kvm_tid);
		}
	}
	return rc;
}

int vma_run_latency(const struct vma_options *opts, const char *const *paths, uint32_t nr,
		    struct vma_diag *diag, FILE *out)
{
	struct latency_ctx ctx = { 0 };
	struct vma_pipeline_hooks hooks = { .arg = &ctx, .after = after_latency };
	struct vma_pipeline *p = NULL;
	struct vma_lat_report *r = NULL;
	uint64_t hz;
	int status, rc;

	status = vma_open_linked(opts, paths, nr, true, diag, &p);
	if (status)
		goto out;
	if (vma_pipeline_input(p)->family != VMA_FAMILY_KVM) {
		vma_diag_report(diag, VMA_LVL_INPUT, paths[0], UINT64_MAX,
				"--latency reads KVM trace.dat files (a host, then its guests)");
		status = VMA_ERR_USAGE;
		goto out;
	}
	hz = vma_pipeline_hz(p);
	ctx.p = p;
	ctx.start = opts->latency_start;
	ctx.end = opts->latency_end;
	ctx.lat = vma_latency_create(&(struct vma_latency_options){
		.hz = hz,
		.marked = opts->latency_start,
		.marked_end = opts->latency_end,
		.threshold = vma_run_ticks(opts->threshold_ns, hz),
	});
	if (!ctx.lat || tie_guests(p, ctx.lat)) {
		status = VMA_ERR_NOMEM;
		goto out;
	}
	status = vma_pipeline_run(p, &hooks);
	if (ctx.start && !ctx.marks && nr > 1) {
		vma_diag_report(diag, VMA_LVL_WARN, paths[1], UINT64_MAX,
				"no %s or %s record in the guest traces (--latency-events)",
				ctx.start, ctx.end);
	}
	r = vma_latency_report(ctx.lat, ctx.last);
	if (!r) {
		status = status ? status : VMA_ERR_NOMEM;
		goto out;
	}
	rc = opts->json ? vma_lat_render_json(out, r) : opts->csv ? vma_lat_render_csv(out, r)
							      : vma_lat_render_text(out, r);
	if (rc && status == VMA_OK)
		status = rc;
out:
	vma_lat_report_free(r);
	vma_latency_destroy(ctx.lat);
	vma_pipeline_close(p);
	return status;
}
