/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracks and slices of the picture (timeline.h).  Each track has at most
 * one open slice; a sample that changes its name (or kind) closes it and
 * opens the next, so a track's slices never overlap and JSON "X" events
 * nest trivially.  Names are interned: a few dozen distinct ones (exit
 * reasons, vcpus, task names) make every slice two words and a time pair.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/arm-names.h"
#include "vmalyze/grow.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/status.h"
#include "vmalyze/timeline.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-names.h"
#include "output/json-string.h"
#include "vmalyze/strbuf.h"

#define VMX_EXIT_HLT 12u
#define SVM_EXIT_HLT 0x78u
#define ARM_EC_WFX 0x01u
#define BINS_PER_SECOND 100u       /* exits per second counted in 10 ms bins */

enum kind { K_NONE = 0, K_GUEST, K_EXIT, K_VMM, K_PREEMPTED, K_HALTED, K_RUNS, K_TASK, K_NR };

static const char *const kind_names[K_NR] = {
	[K_GUEST] = "guest", [K_EXIT] = "exit", [K_VMM] = "VMM", [K_PREEMPTED] = "preempted",
	[K_HALTED] = "halted", [K_RUNS] = "vcpu running", [K_TASK] = "guest task",
};

/* SVG colours by kind. */
static const char *const kind_colour[K_NR] = {
	[K_GUEST] = "#4caf50", [K_EXIT] = "#ff9800", [K_VMM] = "#9c27b0",
	[K_PREEMPTED] = "#e53935", [K_HALTED] = "#b0bec5", [K_RUNS] = "#1e88e5",
	[K_TASK] = "#26c6da",
};

enum group { G_PCPU = 1, G_VCPU = 2, G_GUEST = 3 }; /* the JSON pid; guests 3, 4, ... */

struct slice {
	uint64_t start, end;
	uint32_t track, name, args; /* args: interned, 0 none */
	uint8_t kind;
};

struct track {
	uint32_t pid, tid;
	const void *key;            /* vcpu, or NULL */
	uint32_t key2;              /* pcpu id, or guest << 16 | cpu */
	char label[64];
	bool open;
	uint8_t kind;
	uint32_t name, args;
	uint64_t start;
	uint64_t last_exit;         /* vcpus: exit_tsc of the last exit counted */
	uint32_t *bins;             /* vcpus: exits per 10 ms bin from the range start */
	size_t nr_bins, cap_bins;
};

struct vma_timeline {
	struct vma_timeline_options o;
	uint64_t bin_ticks;
	char **strs;                /* interned; [0] is "" */
	size_t nr_strs, cap_strs;
	struct track *tracks;
	size_t nr_tracks, cap_tracks;
	struct slice *slices;
	size_t nr_slices, cap_slices;
	uint64_t first, last;       /* of the samples */
	bool any;
	bool range_set;
};

/* The range is relative to the first sample: made absolute there. */
static void start_range(struct vma_timeline *tl, uint64_t now)
{
	uint64_t rel_to = tl->o.to;

	if (tl->range_set)
		return;
	tl->range_set = true;
	tl->o.from = now + tl->o.from < now ? UINT64_MAX : now + tl->o.from;
	tl->o.to = !rel_to || now + rel_to < now ? UINT64_MAX : now + rel_to;
}

static uint32_t intern(struct vma_timeline *tl, const char *s)
{
	size_t i;

	for (i = 0; i < tl->nr_strs; i++) {
		if (!strcmp(tl->strs[i], s))
			return (uint32_t)i;
	}
	if (vma_grow(tl->strs, &tl->cap_strs, tl->nr_strs + 1, 32))
		return UINT32_MAX;
	tl->strs[tl->nr_strs] = strdup(s);
	return tl->strs[tl->nr_strs] ? (uint32_t)tl->nr_strs++ : UINT32_MAX;
}

struct vma_timeline *vma_timeline_create(const struct vma_timeline_options *opts)
{
	struct vma_timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return NULL;
	tl->o = *opts;
	tl->bin_ticks = opts->hz >= BINS_PER_SECOND ? opts->hz / BINS_PER_SECOND : 1;
	if (intern(tl, "") != 0) {
		vma_timeline_destroy(tl);
		return NULL;
	}
	return tl;
}

void vma_timeline_destroy(struct vma_timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	for (i = 0; i < tl->nr_strs; i++)
		free(tl->strs[i]);
	for (i = 0; i < tl->nr_tracks; i++)
		free(tl->tracks[i].bins);
	free(tl->strs);
	free(tl->tracks);
	free(tl->slices);
	free(tl);
}

static struct track *track_of(struct vma_timeline *tl, uint32_t pid, const void *key,
			      uint32_t key2, const char *label)
{
	size_t i;

	for (i = 0; i < tl->nr_tracks; i++) {
		struct track *t = &tl->tracks[i];

		if (t->pid == pid && t->key == key && t->key2 == key2)
			return t;
	}
	if (vma_grow(tl->tracks, &tl->cap_tracks, tl->nr_tracks + 1, 16))
		return NULL;
	memset(&tl->tracks[i], 0, sizeof(tl->tracks[i]));
	tl->tracks[i].pid = pid;
	tl->tracks[i].tid = (uint32_t)i + 1;
	tl->tracks[i].key = key;
	tl->tracks[i].key2 = key2;
	snprintf(tl->tracks[i].label, sizeof(tl->tracks[i].label), "%s", label);
	tl->nr_tracks++;
	return &tl->tracks[i];
}

/* Close @t's open slice at @t_end, keeping what lies inside the range. */
static int close_slice(struct vma_timeline *tl, struct track *t, uint64_t t_end)
{
	uint64_t s = t->start > tl->o.from ? t->start : tl->o.from;
	uint64_t e = t_end < tl->o.to ? t_end : tl->o.to;

	if (!t->open)
		return VMA_OK;
	t->open = false;
	if (e <= s || t->kind == K_NONE)
		return VMA_OK;
	if (vma_grow(tl->slices, &tl->cap_slices, tl->nr_slices + 1, 1024))
		return VMA_ERR_NOMEM;
	tl->slices[tl->nr_slices++] = (struct slice){ s, e, (uint32_t)(t - tl->tracks), t->name,
						      t->args, t->kind };
	return VMA_OK;
}

/* @t is now in (@kind, @name, @args) from @now. */
static int set_state(struct vma_timeline *tl, struct track *t, uint8_t kind, const char *name,
		     const char *args, uint64_t now)
{
	uint32_t n = intern(tl, name), a = intern(tl, args ? args : "");
	int rc;

	if (n == UINT32_MAX || a == UINT32_MAX)
		return VMA_ERR_NOMEM;
	start_range(tl, now);
	if (t->open && t->kind == kind && t->name == n && (t->args == a || !t->args)) {
		t->args = a; /* a refinement names the whole exit, from its start */
		return VMA_OK;
	}
	rc = close_slice(tl, t, now);
	t->open = true;
	t->kind = kind;
	t->name = n;
	t->args = a;
	t->start = now;
	if (!tl->any || now < tl->first)
		tl->first = now;
	if (!tl->any || now > tl->last)
		tl->last = now;
	tl->any = true;
	return rc;
}

static bool halt_exit(const struct vma_machine *m, const struct vma_vcpu *v)
{
	if (v->type == VMA_VCPU_ARM)
		return v->hvm.exit_reason == ARM_EC_WFX;
	return v->hvm.exit_reason == (m->svm ? SVM_EXIT_HLT : VMX_EXIT_HLT);
}

/* What @v is doing: its kind, the slice's name and args. */
static uint8_t vcpu_state(const struct vma_machine *m, const struct vma_vcpu *v, bool in_vmm,
			  char *name, size_t nlen, char *args, size_t alen)
{
	const struct vma_hvm_inflight *in = &v->hvm.inflight;
	const char *reason;

	args[0] = '\0';
	switch (v->state) {
	case VMA_RS_RUNNING:
		break;
	case VMA_RS_RUNNABLE:
		snprintf(name, nlen, "preempted");
		return K_PREEMPTED;
	case VMA_RS_BLOCKED:
		snprintf(name, nlen, "halted");
		return K_HALTED;
	default:
		/* a KVM thread's records say it runs, with or without sched_switch */
		if (!v->kvm_bound)
			return K_NONE;
		break;
	}
	if (v->type == VMA_VCPU_PV || !v->hvm.vmexit_valid) {
		snprintf(name, nlen, "guest");
		return K_GUEST;
	}
	if (halt_exit(m, v)) {
		snprintf(name, nlen, "halted");
		return K_HALTED;
	}
	if (in->handler && in->handler != VMA_KVM_USERSPACE_EXIT) {
		/* the handler's minor names it (with its write flag 0x200 and TRC_64_FLAG off) */
		const char *h = vma_id_is_kvm(in->handler) ? vma_kvm_event_name(in->handler)
			: vma_hvm_handler_name(VMA_TRC_MINOR(in->handler) & 0xffu);

		snprintf(args, alen, "%s 0x%" PRIx64, h ? h : "handler", in->key);
	}
	if (in_vmm || in->handler == VMA_KVM_USERSPACE_EXIT) {
		snprintf(name, nlen, "VMM");
		return K_VMM;
	}
	reason = v->type == VMA_VCPU_ARM ? vma_arm_exit_name(v->hvm.exit_reason)
					 : vma_hvm_exit_name(m->svm, v->hvm.exit_reason);
	if (reason)
		snprintf(name, nlen, "%s", reason);
	else
		snprintf(name, nlen, "exit %#x", v->hvm.exit_reason);
	return K_EXIT;
}

static void vcpu_label(const struct vma_vcpu *v, char *buf, size_t len)
{
	if (v->kvm_tid)
		snprintf(buf, len, "d%uv%u (thread %u)", v->domain->did, v->vid, v->kvm_tid);
	else
		snprintf(buf, len, "d%uv%u", v->domain->did, v->vid);
}

/* One more exit of @t's vcpu at @now, in its 10 ms bin. */
static int count_exit(struct vma_timeline *tl, struct track *t, uint64_t now)
{
	size_t bin, old = t->cap_bins;

	start_range(tl, now);
	if (now < tl->o.from || now >= tl->o.to)
		return VMA_OK;
	bin = (size_t)((now - tl->o.from) / tl->bin_ticks);
	if (vma_grow(t->bins, &t->cap_bins, bin + 1, 64))
		return VMA_ERR_NOMEM;
	if (t->cap_bins > old)
		memset(t->bins + old, 0, (t->cap_bins - old) * sizeof(*t->bins));
	if (bin >= t->nr_bins)
		t->nr_bins = bin + 1;
	t->bins[bin]++;
	return VMA_OK;
}

int vma_timeline_sample(struct vma_timeline *tl, const struct vma_machine *m,
			const struct vma_vcpu *v, bool in_vmm, uint64_t t)
{
	char label[64], name[64], args[64];
	struct track *tr;
	uint8_t kind;
	int rc;

	if (!v || v->domain->did >= VMA_IDLE_DOMAIN)
		return VMA_OK;
	vcpu_label(v, label, sizeof(label));
	tr = track_of(tl, G_VCPU, v, 0, label);
	if (!tr)
		return VMA_ERR_NOMEM;
	if (v->kvm_tid && strcmp(tr->label, label))
		snprintf(tr->label, sizeof(tr->label), "%s", label); /* its thread became known */
	kind = vcpu_state(m, v, in_vmm, name, sizeof(name), args, sizeof(args));
	/* the type first: a PV vcpu's union holds no hvm fields (UBSan) */
	if (v->type != VMA_VCPU_PV && v->hvm.vmexit_valid && v->hvm.exit_tsc != tr->last_exit) {
		tr->last_exit = v->hvm.exit_tsc;
		rc = count_exit(tl, tr, t);
		if (rc)
			return rc;
	}
	return set_state(tl, tr, kind, name, args, t);
}

int vma_timeline_pcpu(struct vma_timeline *tl, uint32_t pcpu, const struct vma_vcpu *v,
		      uint64_t t)
{
	char label[32], name[32];
	struct track *tr;

	snprintf(label, sizeof(label), "pcpu %u", pcpu);
	tr = track_of(tl, G_PCPU, NULL, pcpu, label);
	if (!tr)
		return VMA_ERR_NOMEM;
	/* a vcpu switched out (KVM keeps it as the pcpu's last) runs there no more */
	if (!v || v->domain->did >= VMA_IDLE_DOMAIN || v->state == VMA_RS_RUNNABLE ||
	    v->state == VMA_RS_BLOCKED)
		return set_state(tl, tr, K_NONE, "", NULL, t);
	snprintf(name, sizeof(name), "d%uv%u", v->domain->did, v->vid);
	return set_state(tl, tr, K_RUNS, name, NULL, t);
}

int vma_timeline_guest_task(struct vma_timeline *tl, uint32_t guest, uint32_t cpu,
			    const struct vma_vcpu *host, uint32_t pid, const char *comm,
			    uint64_t t)
{
	char label[80], name[48];
	struct track *tr;

	if (host) {
		snprintf(label, sizeof(label), "guest %u cpu %u (d%uv%u)", guest, cpu,
			 host->domain->did, host->vid);
	} else {
		snprintf(label, sizeof(label), "guest %u cpu %u", guest, cpu);
	}
	tr = track_of(tl, G_GUEST + guest - 1, NULL, guest << 16 | cpu, label);
	if (!tr)
		return VMA_ERR_NOMEM;
	if (!pid)
		return set_state(tl, tr, K_NONE, "", NULL, t);
	snprintf(name, sizeof(name), "%s:%u", comm, pid);
	return set_state(tl, tr, K_TASK, name, NULL, t);
}

int vma_timeline_end(struct vma_timeline *tl, uint64_t end)
{
	size_t i;
	int rc = VMA_OK;

	for (i = 0; i < tl->nr_tracks && rc == VMA_OK; i++)
		rc = close_slice(tl, &tl->tracks[i], end);
	if (end > tl->last)
		tl->last = end;
	return rc;
}

/* ---- Chrome JSON trace events ----------------------------------------------- */

/* Microseconds, the format's unit, with the nanoseconds as decimals. */
static void json_us(FILE *out, const struct vma_timeline *tl, uint64_t ticks)
{
	uint64_t ns = tl->o.hz == 1000000000u ? ticks
		: (uint64_t)((unsigned __int128)ticks * 1000000000u / (tl->o.hz ? tl->o.hz : 1));

	vma_fprintf(out, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static const char *group_name(uint32_t pid, char *buf, size_t len)
{
	if (pid == G_PCPU)
		return "host pcpus";
	if (pid == G_VCPU)
		return "vcpus";
	snprintf(buf, len, "guest %u", pid - G_GUEST + 1);
	return buf;
}

int vma_timeline_write_json(const struct vma_timeline *tl, FILE *out)
{
	uint32_t pids_done = 0;
	char buf[32];
	size_t i, b;
	bool first = true;

	vma_fprintf(out, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [");
	for (i = 0; i < tl->nr_tracks; i++) {
		const struct track *t = &tl->tracks[i];

		if (t->pid < 32 && !(pids_done & (1u << t->pid))) {
			pids_done |= 1u << t->pid;
			vma_fprintf(out, "%s\n{\"ph\": \"M\", \"name\": \"process_name\", "
				    "\"ts\": 0, \"pid\": %u, \"tid\": 0, \"args\": {\"name\": ",
				    first ? "" : ",", t->pid);
			vma_json_string(out, group_name(t->pid, buf, sizeof(buf)));
			vma_fprintf(out, "}},\n{\"ph\": \"M\", \"name\": \"process_sort_index\", "
				"\"ts\": 0, \"pid\": %u, \"tid\": 0, \"args\": {\"sort_index\": "
				"%u}}",
				t->pid, t->pid);
			first = false;
		}
		vma_fprintf(out, "%s\n{\"ph\": \"M\", \"name\": \"thread_name\", \"ts\": 0, "
			    "\"pid\": %u, \"tid\": %u, \"args\": {\"name\": ",
			    first ? "" : ",", t->pid, t->tid);
		vma_json_string(out, t->label);
		vma_fprintf(out, "}},\n{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"ts\": 0, "
			"\"pid\": %u, \"tid\": %u, \"args\": {\"sort_index\": %u}}", t->pid, t->tid,
			t->tid);
		first = false;
	}
	for (i = 0; i < tl->nr_slices; i++) {
		const struct slice *s = &tl->slices[i];
		const struct track *t = &tl->tracks[s->track];

		vma_fprintf(out, "%s\n{\"ph\": \"X\", \"name\": ", first ? "" : ",");
		vma_json_string(out, tl->strs[s->name]);
		vma_fprintf(out, ", \"cat\": \"%s\", \"ts\": ", kind_names[s->kind]);
		json_us(out, tl, s->start);
		vma_fprintf(out, ", \"dur\": ");
		json_us(out, tl, s->end - s->start);
		vma_fprintf(out, ", \"pid\": %u, \"tid\": %u", t->pid, t->tid);
		if (s->args) {
			vma_fprintf(out, ", \"args\": {\"refinement\": ");
			vma_json_string(out, tl->strs[s->args]);
			fputc('}', out);
		}
		fputc('}', out);
		first = false;
	}
	/* exits per second: a counter per vcpu, each bin's count times the bins per second */
	for (i = 0; i < tl->nr_tracks; i++) {
		const struct track *t = &tl->tracks[i];

		for (b = 0; b < t->nr_bins; b++) {
			vma_fprintf(out, "%s\n{\"ph\": \"C\", \"name\": ", first ? "" : ",");
			snprintf(buf, sizeof(buf), "exits/s %.20s", t->label);
			vma_json_string(out, buf);
			vma_fprintf(out, ", \"ts\": ");
			json_us(out, tl, tl->o.from + b * tl->bin_ticks);
			vma_fprintf(out, ", \"pid\": %u, \"tid\": %u, \"args\": {\"exits/s\": "
				     "%" PRIu64 "}}",
				t->pid, t->tid, (uint64_t)t->bins[b] * BINS_PER_SECOND);
			first = false;
		}
	}
	vma_fprintf(out, "\n]}\n");
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}

/* ---- SVG ---------------------------------------------------------------------- */

#define SVG_LABEL 230.0
#define SVG_PLOT 1000.0
#define SVG_ROW 18.0
#define SVG_TOP 40.0

static void svg_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '&')
			fputs("&amp;", out);
		else
			fputc(*s, out);
	}
}

/* Pick a step of 1, 2 or 5 times a power of ten giving 5 to 10 ticks. */
static double axis_step(double span)
{
	double step;

	for (step = 1e-9; span / step > 10;) {
		if (span / (step * 2) <= 10)
			return step * 2;
		if (span / (step * 5) <= 10)
			return step * 5;
		step *= 10;
	}
	return step;
}

/* Rows: pcpus by id, then vcpus, then guest cpus, each in order of appearance. */
static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct track *t = arg, *x = &t[*(const uint32_t *)a], *y = &t[*(const uint32_t *)b];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->pid == G_PCPU && x->key2 != y->key2)
		return x->key2 < y->key2 ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int vma_timeline_write_svg(const struct vma_timeline *tl, FILE *out)
{
	uint64_t from = tl->o.from > tl->first ? tl->o.from : tl->first;
	uint64_t to = tl->o.to < tl->last ? tl->o.to : tl->last;
	double span = to > from ? (double)(to - from) : 1.0;
	double hz = tl->o.hz ? (double)tl->o.hz : 1.0;
	double height = SVG_TOP + SVG_ROW * (double)tl->nr_tracks + 60.0, step, x;
	uint32_t *row = calloc(tl->nr_tracks ? tl->nr_tracks : 1, sizeof(*row));
	uint32_t *at = calloc(tl->nr_tracks ? tl->nr_tracks : 1, sizeof(*at));
	size_t i;
	int k, n;

	if (!row || !at) {
		free(row);
		free(at);
		return VMA_ERR_OUTPUT;
	}
	for (i = 0; i < tl->nr_tracks; i++)
		row[i] = (uint32_t)i;
	qsort_r(row, tl->nr_tracks, sizeof(*row), row_cmp, tl->tracks);
	for (i = 0; i < tl->nr_tracks; i++)
		at[row[i]] = (uint32_t)i;
	vma_fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n", SVG_LABEL + SVG_PLOT + 20,
		height);
	vma_fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	vma_fprintf(out, "<text x=\"10\" y=\"16\" font-size=\"13\">vmalyze timeline: %.6f s "
		    "to %.6f s (%.3f ms)</text>\n",
		    (double)from / hz, (double)to / hz, span / hz * 1e3);
	for (i = 0; i < tl->nr_tracks; i++) {
		double y = SVG_TOP + SVG_ROW * (double)i;

		vma_fprintf(out, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" "
			     "fill=\"%s\"/>\n",
			SVG_LABEL, y, SVG_PLOT, SVG_ROW - 2, i % 2 ? "#fafafa" : "#f0f0f0");
		vma_fprintf(out, "<text x=\"10\" y=\"%.1f\">", y + SVG_ROW - 6);
		svg_text(out, tl->tracks[row[i]].label);
		vma_fprintf(out, "</text>\n");
	}
	for (i = 0; i < tl->nr_slices; i++) {
		const struct slice *s = &tl->slices[i];
		double x0 = SVG_LABEL + (double)(s->start - from) / span * SVG_PLOT;
		double w = (double)(s->end - s->start) / span * SVG_PLOT;

		if (s->end <= from || s->start >= to || w < 0.05)
			continue; /* below a twentieth of a pixel: not drawn */
		vma_fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" "
			     "fill=\"%s\">"
			"<title>", x0, SVG_TOP + SVG_ROW * (double)at[s->track], w < 0.5 ? 0.5 : w,
			SVG_ROW - 2, kind_colour[s->kind]);
		svg_text(out, tl->strs[s->name]);
		vma_fprintf(out, "</title></rect>\n");
	}
	/* the time axis, in milliseconds from the window's start */
	step = axis_step(span / hz);
	n = (int)(span / hz / step);
	for (k = 0; k <= n; k++) {
		x = SVG_LABEL + (double)k * step * hz / span * SVG_PLOT;
		vma_fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" "
			     "stroke=\"#888\"/>"
			"<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%g ms</text>\n", x, x,
			SVG_TOP - 4, SVG_TOP + SVG_ROW * (double)tl->nr_tracks, x,
			SVG_TOP + SVG_ROW * (double)tl->nr_tracks + 14, (double)k * step * 1e3);
	}
	/* the legend */
	for (k = K_GUEST, x = SVG_LABEL; k < K_NR; k++, x += 120) {
		double y = height - 20;

		vma_fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" "
			    "fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">%s</text>\n",
			    x, y, kind_colour[k], x + 16, y + 10, kind_names[k]);
	}
	vma_fprintf(out, "</svg>\n");
	free(row);
	free(at);
	return ferror(out) ? VMA_ERR_OUTPUT : VMA_OK;
}
