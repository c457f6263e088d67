/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The renderer table: every output format of the summary, by the name
 * --format gives, with the older option that picks it too.  A format is
 * a render function over the report model (report.h) in its own file
 * and one row here.
 */
#include <string.h>

#include "vmalyze/report.h"

static const struct vma_renderer renderers[] = {
	{ "text", "--summary", false, vma_render_text, NULL },
	{ "histogram", "--histogram", false, vma_render_histogram, NULL },
	{ "json", "--json", false, vma_render_json, NULL },
	{ "interval", "--interval", true, vma_render_interval, vma_render_interval_release },
	{ "csv", "--csv", false, vma_render_csv, NULL },
	{ "kvm-stat", "--format kvm-stat", false, vma_render_kvm_stat, NULL },
};

const struct vma_renderer *vma_renderer_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(renderers) / sizeof(renderers[0]); i++) {
		if (!strcmp(renderers[i].name, name))
			return &renderers[i];
	}
	return NULL;
}
