/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The progress line (see progress.h): formatting only, no terminal control. */
#include <stdio.h>

#include "cli/progress.h"

void vma_progress_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return;
	}
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, unit[u]);
}

char *vma_progress_format(char *buf, size_t len, const struct vma_progress *p)
{
	char done[32], all[32], rate[32];
	int n;

	vma_progress_bytes(done, sizeof(done), p->bytes_done);
	vma_progress_bytes(all, sizeof(all), p->bytes);
	n = snprintf(buf, len, "vmalyze: %lu/%lu inputs, %lu trace%s, %s of %s", p->inputs_done,
		     p->inputs, p->traces, p->traces == 1 ? "" : "s", done, all);
	/* a rate needs some time and some bytes, or it is noise */
	if (n >= 0 && (size_t)n < len && p->seconds >= 0.5 && p->bytes_done > 0) {
		double per_sec = (double)p->bytes_done / p->seconds;
		double left = p->bytes > p->bytes_done ?
			(double)(p->bytes - p->bytes_done) / per_sec : 0;
		unsigned long secs = (unsigned long)(left + 0.5);

		vma_progress_bytes(rate, sizeof(rate), (uint64_t)per_sec);
		snprintf(buf + n, len - (size_t)n, ", %s/s, %lu:%02lu:%02lu left", rate,
			 secs / 3600,
			 secs / 60 % 60, secs % 60);
	}
	return buf;
}
