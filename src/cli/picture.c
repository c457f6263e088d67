/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --timeline and --svg (run.h): the state model sampled after each record
 * into the picture's tracks (timeline.h).  For a record of the host (or of
 * a Xen trace): the vcpu its pcpu ran before and the one it runs after
 * (a switch changes both), and the pcpu's own track.  For a linked guest's
 * sched_switch: the task its cpu runs now.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run.h"
#include "vmalyze/diag.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/status.h"
#include "vmalyze/timeline.h"

/* KVM vcpus whose exit went to the VMM (kvm_userspace_exit), until their next entry. */
#define MAX_IN_VMM 64

struct picture_ctx {
	const struct vma_pipeline *p;
	struct vma_timeline *tl;
	const struct vma_vcpu *before;  /* the record's pcpu's vcpu before it */
	uint64_t last;
	const struct vma_vcpu *in_vmm[MAX_IN_VMM];
	uint32_t nr_in_vmm;
};

static bool vmm_has(const struct picture_ctx *ctx, const struct vma_vcpu *v)
{
	uint32_t i;

	for (i = 0; v && i < ctx->nr_in_vmm; i++) {
		if (ctx->in_vmm[i] == v)
			return true;
	}
	return false;
}

/* A KVM record of @v's thread: a userspace exit puts it in the VMM, an exit or entry out. */
static void vmm_note(struct picture_ctx *ctx, const struct vma_vcpu *v, uint32_t event)
{
	uint32_t i;

	if (!v)
		return;
	if (event == VMA_KVM_USERSPACE_EXIT && v->hvm.vmexit_valid && !vmm_has(ctx, v) &&
	    ctx->nr_in_vmm < MAX_IN_VMM) {
		ctx->in_vmm[ctx->nr_in_vmm++] = v;
	} else if (event == VMA_KVM_EXIT || event == VMA_KVM_ENTRY) {
		for (i = 0; i < ctx->nr_in_vmm; i++) {
			if (ctx->in_vmm[i] == v) {
				ctx->in_vmm[i] = ctx->in_vmm[--ctx->nr_in_vmm];
				break;
			}
		}
	}
}

static int before_picture(void *arg, const struct vma_machine *m, const struct vma_stream *s)
{
	struct picture_ctx *ctx = arg;
	const struct vma_pcpu *p = m && s->rec.pcpu < m->nr_pcpus ? m->pcpus[s->rec.pcpu] : NULL;

	ctx->before = p ? p->current : NULL;
	return VMA_OK;
}

static int guest_record(struct picture_ctx *ctx, uint32_t guest, const struct vma_record *rec)
{
	char comm[16];
	uint32_t i;

	if (rec->event != VMA_KVM_SCHED_SWITCH)
		return VMA_OK;
	for (i = 0; i < 15; i++) {
		comm[i] = (char)(vma_kvm_word(rec, VMA_KVM_SCHED_SWITCH_NEXT_COMM + i / 4) >>
				 (8 * (i % 4)));
	}
	comm[15] = '\0';
	return vma_timeline_guest_task(ctx->tl, guest, rec->pcpu,
				       vma_pipeline_host_vcpu(ctx->p, guest, rec->pcpu),
				       vma_kvm_word(rec, VMA_KVM_SCHED_SWITCH_NEXT_PID), comm,
				       rec->tsc);
}

static int after_picture(void *arg, const struct vma_machine *m, const struct vma_stream *s,
			 const struct vma_outcome *out)
{
	struct picture_ctx *ctx = arg;
	uint32_t i = vma_pipeline_input_index(ctx->p, s->input);
	const struct vma_pcpu *p;
	int rc;

	(void)out;
	if (s->rec.tsc > ctx->last)
		ctx->last = s->rec.tsc;
	if (i)
		return guest_record(ctx, i, &s->rec);
	p = m && s->rec.pcpu < m->nr_pcpus ? m->pcpus[s->rec.pcpu] : NULL;
	if (!p)
		return VMA_OK;
	if (m->kvm)
		vmm_note(ctx, p->current, s->rec.event);
	rc = ctx->before && ctx->before != p->current ?
		vma_timeline_sample(ctx->tl, m, ctx->before, vmm_has(ctx, ctx->before), s->rec.tsc)
		: VMA_OK;
	if (rc == VMA_OK && p->current) {
		rc = vma_timeline_sample(ctx->tl, m, p->current, vmm_has(ctx, p->current),
					 s->rec.tsc);
	}
	if (rc == VMA_OK)
		rc = vma_timeline_pcpu(ctx->tl, p->id, p->current, s->rec.tsc);
	return rc;
}

/* @path opened for writing; NULL after a message. */
static FILE *open_out(const char *path, struct vma_diag *diag)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		vma_diag_report(diag, VMA_LVL_INPUT, path, UINT64_MAX, "cannot write: %s",
				strerror(errno));
	}
	return f;
}

/* @f, written to @path (@rc: how), closed.  Return: VMA_OK, or VMA_ERR_IO after a message. */
static int close_out(FILE *f, int rc, const char *path, struct vma_diag *diag)
{
	rc |= ferror(f);
	if (fclose(f) != 0 || rc) {
		vma_diag_report(diag, VMA_LVL_INPUT, path, UINT64_MAX, "cannot write: %s",
				strerror(errno ? errno : EIO));
		return VMA_ERR_IO;
	}
	return VMA_OK;
}

int vma_run_picture(const struct vma_options *opts, const char *const *paths, uint32_t nr,
		    struct vma_diag *diag)
{
	struct picture_ctx ctx = { 0 };
	struct vma_pipeline_hooks hooks = { .arg = &ctx, .before = before_picture,
					    .after = after_picture };
	struct vma_pipeline *p = NULL;
	FILE *json = NULL, *svg;
	uint64_t hz;
	int status, rc;

	/* The picture takes the state, not its statistics. */
	status = vma_open_linked(opts, paths, nr, false, diag, &p);
	if (status)
		goto out;
	/* The JSON is written as the run goes: a file that cannot be written stops it first. */
	if (opts->timeline && !(json = open_out(opts->timeline, diag))) {
		status = VMA_ERR_IO;
		goto out;
	}
	hz = vma_pipeline_hz(p);
	ctx.p = p;
	ctx.tl = vma_timeline_create(&(struct vma_timeline_options){
		.hz = hz,
		.from = vma_run_ticks(opts->range_from_ns, hz),
		.to = vma_run_ticks(opts->range_to_ns, hz),
		.json = json,
		.svg = opts->svg != NULL,
	});
	if (!ctx.tl) {
		status = VMA_ERR_NOMEM;
		goto out;
	}
	status = vma_pipeline_run(p, &hooks);
	rc = vma_timeline_end(ctx.tl, ctx.last);
	if (json) {
		if (close_out(json, VMA_OK, opts->timeline, diag) && rc == VMA_OK)
			rc = VMA_ERR_IO;
		json = NULL;
	}
	if (rc == VMA_OK && opts->svg) {
		svg = open_out(opts->svg, diag);
		rc = svg ? close_out(svg, vma_timeline_write_svg(ctx.tl, svg), opts->svg, diag)
			 : VMA_ERR_IO;
	}
	if (rc && status == VMA_OK)
		status = rc;
out:
	if (json)
		fclose(json);
	vma_timeline_destroy(ctx.tl);
	vma_pipeline_close(p);
	return status;
}
