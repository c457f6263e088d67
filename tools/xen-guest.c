/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Xen guest trace.dat of xen-guest.h: sched_switch records only (the
 * KVM scenario's format), cpu c's record k at host TSC
 * host_tsc + k x step + c x step / nr_cpus, so the cpus interleave.  Host
 * stamps are made multiples of div, so the guest's are exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvm-scenario.h"
#include "tracedat-writer.h"
#include "xen-guest.h"

struct fmt_ctx {
	struct vma_tdw *w;
	unsigned sched_switch;
};

static int put_format(void *arg, const char *system, const char *name, const char *text)
{
	struct fmt_ctx *f = arg;
	const char *id = strstr(text, "ID: ");

	if (!system)
		return 0; /* header_page and header_event: the writer has its own */
	if (!strcmp(name, "sched_switch"))
		f->sched_switch = id ? (unsigned)strtoul(id + 4, NULL, 10) : 0;
	return vma_tdw_format(f->w, system, text);
}

/* Task 1000 + cpu and the idle task take turns on each cpu. */
static int switch_at(struct fmt_ctx *f, uint32_t cpu, uint32_t k, uint64_t guest_tsc)
{
	unsigned char e[64] = { 0 };
	uint32_t task = 1000 + cpu, prev = k & 1 ? task : 0, next = k & 1 ? 0 : task;
	char pcomm[32], ncomm[32];

	snprintf(pcomm, sizeof(pcomm), prev ? "worker/%u" : "swapper/%u", cpu);
	snprintf(ncomm, sizeof(ncomm), next ? "worker/%u" : "swapper/%u", cpu);
	vma_tdw_put(e, 2, f->sched_switch, false);
	vma_tdw_put(e + 4, 4, prev, false);
	memcpy(e + 8, pcomm, strnlen(pcomm, 15));
	vma_tdw_put(e + 24, 4, prev, false);
	vma_tdw_put(e + 28, 4, 120, false);
	vma_tdw_put(e + 32, 8, prev ? 1 : 0, false);
	memcpy(e + 40, ncomm, strnlen(ncomm, 15));
	vma_tdw_put(e + 56, 4, next, false);
	vma_tdw_put(e + 60, 4, 120, false);
	return vma_tdw_event(f->w, 0, cpu, guest_tsc, e, sizeof(e));
}

int vma_xguest_build(const struct vma_xguest_opts *opts, unsigned char **file, size_t *len,
		     struct vma_xguest_rec **recs, size_t *nr_recs)
{
	uint32_t cpus = opts->nr_cpus ? opts->nr_cpus : 2, per = opts->per_cpu ? opts->per_cpu : 50;
	uint32_t mul = opts->mul ? opts->mul : 1, div = opts->div ? opts->div : 1, c, k;
	uint64_t step = opts->step ? opts->step : 10000;
	struct vma_tdw_opts o = {
		.version = 7, .nr_cpus = cpus, .clock = "x86-tsc",
		/* a 2.4 GHz TSC's ns, which a Xen host's dump must ignore */
		.tsc2nsec_mult = 1747626667u, .tsc2nsec_shift = 32,
	};
	struct fmt_ctx f = { .w = vma_tdw_new(&o) };
	struct vma_xguest_rec *r = calloc((size_t)cpus * per, sizeof(*r));
	size_t n = 0;
	int rc = -1;

	*file = NULL;
	if (!f.w || !r || vma_mkdat_formats(VMA_MKDAT_VMX, put_format, &f) < 0)
		goto out;
	for (c = 0; c < cpus; c++) {
		for (k = 0; k < per; k++) {
			uint64_t host = opts->host_tsc + k * step + c * (step / cpus);

			host -= host % div;
			if (switch_at(&f, c, k, host / div * mul + (uint64_t)opts->offset) < 0)
				goto out;
			r[n++] = (struct vma_xguest_rec){ .cpu = c, .host_tsc = host };
		}
	}
	rc = vma_tdw_finish(f.w, file, len);
out:
	vma_tdw_free(f.w);
	if (rc) {
		free(r);
		return -1;
	}
	*recs = r;
	*nr_recs = n;
	return 0;
}
