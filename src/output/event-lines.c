/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lines printed as events happen: see include/vmalyze/event-lines.h. */
#include "vmalyze/event-lines.h"
#include "vmalyze/status.h"

void vma_event_lines_init(struct vma_event_lines *l, FILE *out)
{
	l->out = out;
	vma_sb_init(&l->sb);
	l->hold = false;
	l->status = VMA_OK;
}

void vma_event_lines_flush(struct vma_event_lines *l)
{
	if (!l->sb.len)
		return;
	if (fwrite(l->sb.buf, 1, l->sb.len, l->out) != l->sb.len && !l->status)
		l->status = VMA_ERR_OUTPUT;
	vma_sb_reset(&l->sb);
}

void vma_event_lines_free(struct vma_event_lines *l)
{
	vma_event_lines_flush(l);
	vma_sb_free(&l->sb);
}

void vma_event_lines_end(struct vma_event_lines *l)
{
	vma_sb_putc(&l->sb, '\n');
	if (vma_sb_failed(&l->sb)) {
		if (!l->status)
			l->status = VMA_ERR_NOMEM;
		vma_sb_free(&l->sb);
		vma_sb_init(&l->sb);
		return;
	}
	if (!l->hold)
		vma_event_lines_flush(l);
}

int vma_event_lines_status(const struct vma_event_lines *l)
{
	if (!l->status && ferror(l->out))
		return VMA_ERR_OUTPUT;
	return l->status;
}
