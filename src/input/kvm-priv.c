/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state a KVM input's readers share (struct vma_kvm_priv): its
 * lifetime, the mapping of file time stamps to record times, and what -v
 * tells of it.  The streams are kvm-stream.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <traceevent/event-parse.h>

#include "input/kvm-internal.h"
#include "input/tep-lib.h"
#include "vmalyze/diag.h"

struct vma_kvm_priv *vma_kvm_priv_new(void)
{
	return calloc(1, sizeof(struct vma_kvm_priv));
}

void vma_kvm_priv_free(struct vma_kvm_priv *priv)
{
	uint32_t i;

	if (!priv)
		return;
	for (i = 0; i < priv->nr_streams; i++)
		vma_kvm_stream_free(priv->streams[i]);
	free(priv->streams);
	vma_decomp_free(priv->dc);
	free(priv->zbuf);
	free(priv->unit);
	vma_kvmev_fini(&priv->ev);
	vma_kvm_formats_free(priv);
	if (priv->tep) {
		vma_kvm_unlink(priv->tep);
		vma_tep()->tep_free(priv->tep);
	}
	for (i = 0; i < priv->info.nr_guests; i++) {
		free(priv->guests[i].name);
		free(priv->guests[i].vcpu_pid);
	}
	free(priv->guests);
	for (i = 0; i < priv->info.tsync_nr_cpus; i++)
		free(priv->tsync[i]);
	free(priv->tsync);
	free(priv->tsync_count);
	free(priv->clock_name);
	free(priv->uname);
	free(priv);
}

struct vma_kvm_priv *vma_kvm_priv_of(const struct vma_input *input)
{
	if (!input || (input->ops != &vma_tracedat_ops && input->ops != &vma_ftrace_raw_ops))
		return NULL;
	return input->priv;
}

/* trace-cmd's correction between two time-sync samples. */
static uint64_t tsync_between(uint64_t ts, uint32_t flags, const struct vma_kvm_tsync_sample *a,
			      const struct vma_kvm_tsync_sample *b)
{
	int64_t corr = a->offset;
	uint64_t scaled;

	if ((flags & 1) && b->time != a->time) {
		/* wide enough that damaged samples cannot overflow */
		__int128 span = (__int128)b->time - a->time;
		__int128 part = ((__int128)ts - a->time) * ((__int128)b->offset - a->offset);

		corr = (int64_t)(a->offset + (part + span / 2) / span);
	}
	scaled = a->fraction < 128 ?
		(uint64_t)(((unsigned __int128)ts * a->scaling) >> a->fraction) : 0;
	return scaled + (uint64_t)corr;
}

static uint64_t tsync_apply(const struct vma_kvm_priv *priv, uint64_t ts, uint32_t cpu)
{
	const struct vma_kvm_tsync_sample *s;
	uint32_t n, lo, hi;

	if (cpu >= priv->info.tsync_nr_cpus)
		return ts;
	n = priv->tsync_count[cpu];
	s = priv->tsync[cpu];
	if (n == 0)
		return ts;
	if (n == 1)
		return ts + (uint64_t)s[0].offset;
	if (ts <= s[0].time)
		return tsync_between(ts, priv->info.tsync_flags, &s[0], &s[1]);
	if (ts >= s[n - 1].time)
		return tsync_between(ts, priv->info.tsync_flags, &s[n - 2], &s[n - 1]);
	/* the pair with s[lo].time <= ts < s[lo + 1].time */
	lo = 0;
	hi = n - 1;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s[mid].time <= ts) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	return tsync_between(ts, priv->info.tsync_flags, &s[lo], &s[lo + 1]);
}

uint64_t vma_kvm_time(const struct vma_kvm_priv *priv, uint64_t ts, uint32_t cpu)
{
	if (priv->tsync_on)
		ts = tsync_apply(priv, ts, cpu);
	if (priv->info.tsc2nsec_mult && !priv->time_map.cycles) {
		ts = (uint64_t)(((unsigned __int128)ts * priv->info.tsc2nsec_mult) >>
				(priv->info.tsc2nsec_shift & 127));
	}
	if (!priv->time_map.cycles)
		ts += (uint64_t)priv->info.ts_offset;
	if (priv->time_map.scale_den) {
		ts = (uint64_t)((unsigned __int128)ts * priv->time_map.scale_num /
				priv->time_map.scale_den);
	}
	return ts + (uint64_t)priv->time_map.offset;
}

/* What was detected, for -v; where the data lie, for -vv. */
void vma_kvm_tell(const struct vma_input *input, const struct vma_kvm_priv *priv)
{
	static const char *const codecs[] = { "", ", zlib", ", zstd" };
	const struct vma_kvm_file_info *fi = &priv->info;
	struct vma_diag *diag = input->diag;
	uint32_t parsed = 0, i, c;
	char what[32];

	for (i = 0; i < priv->nr_formats; i++)
		parsed += priv->formats[i].state == VMA_KVM_FMT_PARSED;
	if (fi->version) {
		snprintf(what, sizeof(what), "trace.dat v%u%s", fi->version,
			 priv->codec < 3 ? codecs[priv->codec] : "");
	} else {
		snprintf(what, sizeof(what), "raw ftrace dump");
	}
	vma_diag_info(diag, "%s: %s, %" PRIu32 " cpus, %" PRIu32 " streams; trace clock %s,"
		      " time stamps in %s%s; %" PRIu32 " event formats, %" PRIu32 " parsed at open",
		      input->path, what, fi->cpu_count, priv->nr_streams, fi->clock,
		      input->clock == VMA_CLOCK_NS ? "nanoseconds" : "cycles",
		      fi->tsc2nsec_mult ? " (TSC2NSEC)" : "", priv->nr_formats, parsed);
	if (fi->trace_id || fi->peer_trace_id) {
		vma_diag_info(diag, "%s: trace id %#" PRIx64 "%s", input->path, fi->trace_id,
			      priv->tsync_on ? "; a guest file: TIME_SHIFT maps its times to"
			      " the host's" : "");
	}
	for (i = 0; i < fi->nr_guests; i++) {
		const struct vma_kvm_guest *g = &fi->guests[i];

		vma_diag_info(diag, "%s: GUEST option %" PRIu32 " \"%s\" (trace id %#" PRIx64
			      "): %" PRIu32 " vcpus, VM %" PRIu32 " of the summary", input->path, i,
			      g->name ? g->name : "", g->trace_id, g->nr_vcpus, i);
		for (c = 0; c < g->nr_vcpus; c++) {
			vma_diag_info(diag, "%s: GUEST option %" PRIu32 ": vcpu %" PRIu32
				      " = host thread %" PRIu32, input->path, i, c, g->vcpu_pid[c]);
		}
	}
	if (fi->uname)
		vma_diag_debug(diag, "%s: recorded on %s", input->path, fi->uname);
	if (fi->tsc2nsec_mult) {
		vma_diag_debug(diag, "%s: TSC2NSEC mult %" PRIu32 " shift %" PRIu32, input->path,
			       fi->tsc2nsec_mult, fi->tsc2nsec_shift);
	}
	for (i = 0; i < priv->nr_streams; i++)
		vma_kvm_stream_tell(priv->streams[i]);
	for (i = 0; i < priv->nr_formats; i++) {
		const struct vma_kvm_format *f = &priv->formats[i];

		if (f->state != VMA_KVM_FMT_PENDING && f->state != VMA_KVM_FMT_UNKEPT) {
			vma_diag_debug(diag, "%s: event format %s:%s (id %" PRId32 ") %s at open",
				       input->path, f->system, f->name, f->id,
				       f->state == VMA_KVM_FMT_PARSED ? "parsed" :
				       f->state == VMA_KVM_FMT_REFUSED ? "refused (parse budget)" :
				       "rejected");
		}
	}
}
