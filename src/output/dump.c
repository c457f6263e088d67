/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dump-mode lines (grammar in dump.h and doc/output.md).  The columns that
 * show state are taken before the record is processed, as xenalyze does,
 * so a runstate change shows the vcpu that was running until then.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/describe.h"
#include "vmalyze/dump.h"
#include "vmalyze/status.h"
#include "vmalyze/strbuf.h"
#include "vmalyze/xen-names.h"

struct vma_dump {
	FILE *out;
	uint64_t cpu_hz;
	struct vma_strbuf line;
	struct vma_strbuf text;
	struct vma_describe_ctx ctx; /* analysis state before the record */
};

struct vma_dump *vma_dump_create(FILE *out, uint64_t cpu_hz)
{
	struct vma_dump *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->out = out;
	d->cpu_hz = cpu_hz;
	vma_sb_init(&d->line);
	vma_sb_init(&d->text);
	return d;
}

void vma_dump_destroy(struct vma_dump *d)
{
	if (!d)
		return;
	vma_sb_free(&d->line);
	vma_sb_free(&d->text);
	free(d);
}

void vma_format_time(char *buf, size_t len, uint64_t cycles, uint64_t hz)
{
	uint64_t secs = cycles / hz;
	uint64_t ns = (uint64_t)((unsigned __int128)(cycles % hz) * 1000000000u / hz);

	snprintf(buf, len, "%3llu.%09llu", (unsigned long long)secs, (unsigned long long)ns);
}

static char pcpu_char(const struct vma_pcpu *p)
{
	if (!p || !p->active)
		return ' ';
	if (p->lost.active)
		return 'l';
	if (!p->current)
		return ' ';
	if (p->current->domain->did == VMA_DEFAULT_DOMAIN)
		return '.';
	if (p->current->domain->did == VMA_IDLE_DOMAIN)
		return '-';
	return '|';
}

void vma_dump_begin(struct vma_dump *d, const struct vma_machine *m, const struct vma_record *rec)
{
	const struct vma_pcpu *p;
	char time[32];
	uint32_t i;

	vma_sb_reset(&d->line);
	vma_sb_putc(&d->line, ' '); /* MARK, set at the end */
	if (m->have_time && rec->tsc > m->first_tsc)
		vma_format_time(time, sizeof(time), rec->tsc - m->first_tsc, d->cpu_hz);
	else
		snprintf(time, sizeof(time), "%14s", "");
	vma_sb_puts(&d->line, time);
	vma_sb_putc(&d->line, ' ');
	for (i = 0; i < m->max_pcpu; i++)
		vma_sb_putc(&d->line, i == rec->pcpu ? 'x' : pcpu_char(m->pcpus[i]));
	p = rec->pcpu < m->nr_pcpus ? m->pcpus[rec->pcpu] : NULL;
	if (p && p->current)
		vma_sb_printf(&d->line, " d%uv%u ", p->current->domain->did, p->current->vid);
	else
		vma_sb_puts(&d->line, " d?v? ");

	/* What some record texts show of the analysis, as it was before. */
	memset(&d->ctx, 0, sizeof(d->ctx));
	d->ctx.cpu_hz = d->cpu_hz;
	d->ctx.svm = m->svm;
	if (p && p->current) {
		const struct vma_vcpu *v = p->current;

		d->ctx.have_cur = true;
		d->ctx.cur_dom = v->domain->did;
		d->ctx.cur_vcpu = v->vid;
		if (v->type == VMA_VCPU_HVM) {
			d->ctx.exit_open = v->hvm.vmexit_valid;
			d->ctx.exit_reason = v->hvm.exit_reason;
			d->ctx.cr3 = v->hvm.cr3;
			d->ctx.last_rdtsc = v->hvm.last_rdtsc;
			d->ctx.guest_paging_levels = v->hvm.paging_levels;
			d->ctx.mmio_in_arc = v->hvm.mmio_in_arc;
		}
	}
}

int vma_dump_end(struct vma_dump *d, const struct vma_stream *stream,
		 const struct vma_outcome *out)
{
	const struct vma_record *rec = &stream->rec;
	struct vma_describe_ctx *ctx = &d->ctx;
	char mark = ' ';

	if (stream->input && stream->input->ops->describe) {
		stream->input->ops->describe(stream, &d->line);
	} else {
		ctx->svm = out->svm;
		ctx->arc_open = out->arc_closed;
		ctx->arc_cycles = out->arc_cycles;
		ctx->orphan = out->orphan;
		ctx->unprocessed = out->unprocessed;
		mark = vma_xen_dump_mark(rec, ctx);
		vma_describe_xen(&d->line, rec, ctx);
	}
	if (d->line.len)
		d->line.buf[0] = mark;
	vma_sb_putc(&d->line, '\n');
	if (vma_sb_failed(&d->line))
		return VMA_ERR_NOMEM;
	if (fwrite(d->line.buf, 1, d->line.len, d->out) != d->line.len)
		return VMA_ERR_OUTPUT;
	return VMA_OK;
}
