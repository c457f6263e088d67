/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --latency report (latency.h) in text, JSON and CSV.  Durations are
 * shown in microseconds in text and given in nanoseconds in JSON and CSV
 * (exact integers when the trace's clock is nanoseconds, rounded down
 * otherwise); time stamps are the trace's, in seconds, as trace-cmd
 * prints them.  doc/output.md has the layouts.
 */
#include <inttypes.h>

#include "vmalyze/latency.h"
#include "vmalyze/status.h"
#include "output/json-string.h"
#include "vmalyze/strbuf.h"

static uint64_t to_ns(const struct vma_lat_report *r, uint64_t ticks)
{
	if (!r->hz || r->hz == 1000000000u)
		return ticks;
	return (uint64_t)((unsigned __int128)ticks * 1000000000u / r->hz);
}

static double us(const struct vma_lat_report *r, uint64_t ticks)
{
	return (double)to_ns(r, ticks) / 1000.0;
}

static double secs(const struct vma_lat_report *r, uint64_t ticks)
{
	return (double)to_ns(r, ticks) / 1e9;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void text_split(FILE *out, const struct vma_lat_report *r, const struct vma_lat_share *s,
		       uint32_t n, uint64_t whole)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		vma_fprintf(out, "%s%s %.1f%% %.1f us", i ? ", " : "", s[i].cause,
			pct(s[i].ticks, whole), us(r, s[i].ticks));
	}
	fputc('\n', out);
}

int vma_lat_render_text(FILE *out, const struct vma_lat_report *r)
{
	uint32_t i;

	if (r->have_guest) {
		if (r->marked) {
			vma_fprintf(out, "Guest intervals (%s to the next %s on its cpu), split by "
				     "what "
				"the host thread of its vcpu did:\n", r->marked, r->marked_end);
		} else {
			vma_fprintf(out, "Guest wake-up latency (sched_waking to the sched_switch "
				    "that runs the task), split by what the host thread of its "
				    "vcpu did:\n");
		}
		const char *what = r->marked ? "intervals" : "wake-ups";

		/* "~": from the distribution past its exact samples */
		vma_fprintf(out, "  %s %" PRIu64 "  p50 %s%.1f us  p99 %s%.1f us  max %.1f us\n",
			    what, r->wakeups, r->p50_exact ? "" : "~", us(r, r->p50),
			    r->p99_exact ? "" : "~", us(r, r->p99), us(r, r->max));
		if (r->unfollowed)
			vma_fprintf(out, "  %" PRIu64 " more not followed (over 1024 waiting at "
				    "once)\n", r->unfollowed);
		vma_fprintf(out, "  threshold %.1f us (%s): %" PRIu64 " %s at or above it\n",
			us(r, r->threshold),
			r->threshold_raised ? "the shortest of those kept, above the guest's p99"
			: r->threshold_is_p99 ? "the guest's p99" : "--threshold",
			r->above, what);
		if (r->nr_worst)
			vma_fprintf(out, "  Worst %u:\n", r->nr_worst);
		for (i = 0; i < r->nr_worst; i++) {
			const struct vma_lat_interval *w = &r->worst[i];

			vma_fprintf(out, "    %.6f guest %u cpu %u pid %u %s (host thread %u): "
				    "%.1f us: ",
				secs(r, w->start), w->guest, w->cpu, w->pid,
				w->comm[0] ? w->comm : "?",
				w->host_tid, us(r, w->end - w->start));
			text_split(out, r, w->split, w->nr_split, w->end - w->start);
		}
		if (r->above) {
			vma_fprintf(out, "  Share of latency by cause, over those %" PRIu64
				    " (%.1f us):\n",
				r->above, us(r, r->aggregate_ticks));
		}
		for (i = 0; i < r->nr_aggregate; i++) {
			vma_fprintf(out, "    %-40s %6.1f%% %12.1f us\n", r->aggregate[i].cause,
				    pct(r->aggregate[i].ticks, r->aggregate_ticks),
				    us(r, r->aggregate[i].ticks));
		}
	} else {
		vma_fprintf(out, "No guest trace: no guest wake-ups to split (give the guest's "
			"trace.dat after the host's).\n");
	}
	vma_fprintf(out, "Host vcpu threads, their traced time by cause:\n");
	if (r->records_unfollowed)
		vma_fprintf(out, "  %" PRIu64 " records of threads past the first 1024 not "
			    "followed\n", r->records_unfollowed);
	for (i = 0; i < r->nr_threads; i++) {
		const struct vma_lat_thread *t = &r->threads[i];

		vma_fprintf(out, "  thread %u (%.1f us): ", t->tid, us(r, t->ticks));
		text_split(out, r, t->split, t->nr_split, t->ticks);
	}
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}

static void json_split(FILE *out, const struct vma_lat_report *r, const struct vma_lat_share *s,
		       uint32_t n)
{
	uint32_t i;

	fputc('[', out);
	for (i = 0; i < n; i++) {
		vma_fprintf(out, "%s{\"cause\": ", i ? ", " : "");
		vma_json_string(out, s[i].cause);
		vma_fprintf(out, ", \"ns\": %" PRIu64 "}", to_ns(r, s[i].ticks));
	}
	fputc(']', out);
}

int vma_lat_render_json(FILE *out, const struct vma_lat_report *r)
{
	uint32_t i;

	vma_fprintf(out, "{\"latency\": {\"intervals\": ");
	if (r->marked) {
		vma_fprintf(out, "{\"start\": ");
		vma_json_string(out, r->marked);
		vma_fprintf(out, ", \"end\": ");
		vma_json_string(out, r->marked_end);
		fputc('}', out);
	} else {
		vma_fprintf(out, "\"wakeups\"");
	}
	vma_fprintf(out, ", \"have_guest\": %s, \"wakeups\": %" PRIu64 ", \"p50_ns\": %"
		PRIu64 ", \"p99_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64 ",\n",
		r->have_guest ? "true" : "false", r->wakeups, to_ns(r, r->p50), to_ns(r, r->p99),
		to_ns(r, r->max));
	vma_fprintf(out, " \"p50_exact\": %s, \"p99_exact\": %s, \"unfollowed\": %" PRIu64
		    ", \"records_unfollowed\": %" PRIu64 ",\n", r->p50_exact ? "true" : "false",
		    r->p99_exact ? "true" : "false", r->unfollowed, r->records_unfollowed);
	vma_fprintf(out, " \"threshold_ns\": %" PRIu64 ", \"threshold_is_p99\": %s, "
		    "\"threshold_raised\": %s, \"above\": %" PRIu64 ",\n \"worst\": [",
		    to_ns(r, r->threshold), r->threshold_is_p99 ? "true" : "false",
		    r->threshold_raised ? "true" : "false", r->above);
	for (i = 0; i < r->nr_worst; i++) {
		const struct vma_lat_interval *w = &r->worst[i];

		vma_fprintf(out, "%s\n  {\"start_ns\": %" PRIu64 ", \"latency_ns\": %" PRIu64
			", \"guest\": %u, \"cpu\": %u, \"pid\": %u, \"comm\": ", i ? "," : "",
			to_ns(r, w->start), to_ns(r, w->end - w->start), w->guest, w->cpu, w->pid);
		vma_json_string(out, w->comm);
		vma_fprintf(out, ", \"host_tid\": %u, \"causes\": ", w->host_tid);
		json_split(out, r, w->split, w->nr_split);
		fputc('}', out);
	}
	vma_fprintf(out, "],\n \"aggregate\": {\"ns\": %" PRIu64 ", \"causes\": ",
		to_ns(r, r->aggregate_ticks));
	json_split(out, r, r->aggregate, r->nr_aggregate);
	vma_fprintf(out, "},\n \"host_threads\": [");
	for (i = 0; i < r->nr_threads; i++) {
		vma_fprintf(out, "%s\n  {\"tid\": %u, \"ns\": %" PRIu64 ", \"causes\": ",
			    i ? "," : "",
			r->threads[i].tid, to_ns(r, r->threads[i].ticks));
		json_split(out, r, r->threads[i].split, r->threads[i].nr_split);
		fputc('}', out);
	}
	vma_fprintf(out, "]}}\n");
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}

/* A CSV field: quoted when it holds a comma, quote or line break (RFC 4180). */
static void csv_field(FILE *out, const char *s)
{
	const char *p;
	bool quote = false;

	for (p = s; *p; p++)
		quote |= *p == ',' || *p == '"' || *p == '\n' || *p == '\r';
	if (!quote) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (p = s; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

static void csv_rows(FILE *out, const struct vma_lat_report *r, const char *kind, uint64_t start,
		     uint32_t pid, const char *comm, uint32_t cpu, uint32_t tid, uint64_t whole,
		     const struct vma_lat_share *s, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		vma_fprintf(out, "%s,%" PRIu64 ",%u,", kind, to_ns(r, start), pid);
		csv_field(out, comm);
		vma_fprintf(out, ",%u,%u,%" PRIu64 ",", cpu, tid, to_ns(r, whole));
		csv_field(out, s[i].cause);
		vma_fprintf(out, ",%" PRIu64 "\n", to_ns(r, s[i].ticks));
	}
}

int vma_lat_render_csv(FILE *out, const struct vma_lat_report *r)
{
	uint32_t i;

	vma_fprintf(out, "kind,start_ns,pid,comm,cpu,host_tid,total_ns,cause,ns\n");
	for (i = 0; i < r->nr_worst; i++) {
		const struct vma_lat_interval *w = &r->worst[i];

		csv_rows(out, r, "wakeup", w->start, w->pid, w->comm, w->cpu, w->host_tid,
			 w->end - w->start, w->split, w->nr_split);
	}
	csv_rows(out, r, "aggregate", 0, 0, "", 0, 0, r->aggregate_ticks, r->aggregate,
		 r->nr_aggregate);
	for (i = 0; i < r->nr_threads; i++) {
		csv_rows(out, r, "host_thread", 0, 0, "", 0, r->threads[i].tid, r->threads[i].ticks,
			 r->threads[i].split, r->threads[i].nr_split);
	}
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}
