/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracks and slices of the picture (timeline.h).  Each track has at most
 * one open slice; a sample that changes its name (or kind) closes it and
 * opens the next, so a track's slices never overlap and JSON "X" events
 * nest trivially.  Memory does not grow with the trace: a closed slice
 * goes to the JSON file at once, as does each 10 ms bin of the exit
 * counters once passed; the SVG keeps only the slices it can draw, at
 * least a twentieth of a pixel of the span seen so far (the span only
 * grows), their names interned.  Tracks and names are found by hash.
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
#include "vmalyze/strtab.h"

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

#define SVG_LABEL 230.0
#define SVG_PLOT 1000.0
#define SVG_ROW 18.0
#define SVG_TOP 40.0
#define SVG_MIN_PX 0.05           /* the narrowest slice drawn, in pixels */
#define SVG_KEEP_MAX (1u << 19)   /* slices an SVG keeps at most by default (16 MiB) */
/* Names the SVG's slices keep (a guest's tasks can be as many as it likes); then "other". */
#define SVG_NAMES_MAX (1u << 16)

/* A slice the SVG may draw. */
struct slice {
	uint64_t start, end;
	uint32_t track, name;       /* name: interned */
	uint8_t kind;
};

struct track {
	uint64_t id;                /* what it shows (track_id()): the key table's key */
	uint32_t pid, tid;
	char label[64];
	uint32_t label_tid;         /* vcpus: the KVM thread the label names, 0 none */
	const struct vma_vcpu *runs; /* pcpus: the vcpu of the open K_RUNS slice */
	bool open;
	uint8_t kind;
	char name[64], args[64];    /* the open slice's; args "" for none */
	uint64_t start;
	uint64_t last_exit;         /* vcpus: exit_tsc of the last exit counted */
	bool counting;              /* vcpus: an exit was counted, in @bin */
	uint64_t bin;               /* the 10 ms bin from the range start counting now */
	uint64_t bin_exits;
};

struct vma_timeline {
	struct vma_timeline_options o;
	uint64_t bin_ticks;
	struct vma_strtab names;    /* the SVG slices' names, interned */
	struct vma_strbuf event;    /* the JSON event being written (one fwrite() each) */
	bool event_lost;            /* one could not be made (no memory): the end says so */
	struct track *tracks;
	uint32_t nr_tracks;
	size_t cap_tracks;
	struct vma_code_index track_index;
	struct slice *slices;       /* with an SVG to write */
	size_t nr_slices, cap_slices;
	uint64_t first, last;       /* of the samples */
	bool any;
	bool range_set;
	bool written;               /* an event went to the JSON file */
	double svg_px;              /* the narrowest slice the SVG draws: SVG_MIN_PX, or more */
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

struct vma_timeline *vma_timeline_create(const struct vma_timeline_options *opts)
{
	struct vma_timeline *tl = calloc(1, sizeof(*tl));

	if (!tl)
		return NULL;
	tl->o = *opts;
	tl->bin_ticks = opts->hz >= BINS_PER_SECOND ? opts->hz / BINS_PER_SECOND : 1;
	tl->svg_px = SVG_MIN_PX;
	if (!tl->o.svg_keep)
		tl->o.svg_keep = SVG_KEEP_MAX;
	if (tl->o.json)
		vma_fprintf(tl->o.json, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [");
	return tl;
}

void vma_timeline_destroy(struct vma_timeline *tl)
{
	if (!tl)
		return;
	vma_strtab_free(&tl->names);
	vma_sb_free(&tl->event);
	free(tl->tracks);
	free(tl->track_index.slots);
	free(tl->slices);
	free(tl);
}

/*
 * A track's key: a vcpu's track by the vcpu's address (any two vcpus'
 * differ, whatever ids a trace gives them), the others by their group
 * (the JSON pid) and number (pcpu, guest cpu), with the top bit set,
 * which no user-space address has.
 */
static inline uint64_t track_id(uint32_t pid, const struct vma_vcpu *v, uint32_t what)
{
	return v ? (uint64_t)(uintptr_t)v : 1ull << 63 | (uint64_t)pid << 32 | what;
}

/* The track of (@pid, @v, @what), or NULL when it has none yet. */
static struct track *track_find(struct vma_timeline *tl, uint32_t pid, const struct vma_vcpu *v,
				uint32_t what)
{
	uint32_t i = vma_key_table_find(&tl->track_index, tl->tracks, sizeof(*tl->tracks),
					track_id(pid, v, what));

	return i == UINT32_MAX ? NULL : &tl->tracks[i];
}

/* snprintf(@dst, @size, "%s", @src) without the formatting. */
static void copy(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A new track of (@pid, @v, @what), labelled @label (track_find() found none).  NULL: no memory. */
static struct track *track_new(struct vma_timeline *tl, uint32_t pid, const struct vma_vcpu *v,
			       uint32_t what, const char *label)
{
	bool refused;
	/* No budget: a picture's tracks are the host's pcpus and vcpus and the guests' cpus. */
	uint32_t i = vma_key_table_get(NULL, &tl->tracks, &tl->nr_tracks, &tl->cap_tracks,
				       sizeof(*tl->tracks), &tl->track_index,
				       track_id(pid, v, what), false, &refused);

	if (i == UINT32_MAX)
		return NULL;
	tl->tracks[i].pid = pid;
	tl->tracks[i].tid = i + 1;
	copy(tl->tracks[i].label, sizeof(tl->tracks[i].label), label);
	return &tl->tracks[i];
}

/* ---- Chrome JSON trace events ----------------------------------------------- */

/* Microseconds, the format's unit, with the nanoseconds as decimals. */
static void json_us(struct vma_strbuf *sb, const struct vma_timeline *tl, uint64_t ticks)
{
	uint64_t ns = tl->o.hz == 1000000000u ? ticks
		: (uint64_t)((unsigned __int128)ticks * 1000000000u / (tl->o.hz ? tl->o.hz : 1));

	vma_sb_put_u64(sb, ns / 1000);
	vma_sb_putc(sb, '.');
	vma_sb_put_u64_pad(sb, ns % 1000, 3, '0');
}

/* A new event in tl->event, after the separator (tl->written says whether one is due). */
static struct vma_strbuf *json_next(struct vma_timeline *tl)
{
	struct vma_strbuf *sb = &tl->event;

	if (vma_sb_failed(sb))
		vma_sb_free(sb);
	vma_sb_reset(sb);
	if (tl->written)
		vma_sb_putc(sb, ',');
	vma_sb_putc(sb, '\n');
	tl->written = true;
	return sb;
}

/* tl->event into the file, whole; nothing of it when it could not be made (noted). */
static void json_put(struct vma_timeline *tl)
{
	if (vma_sb_failed(&tl->event))
		tl->event_lost = true;
	else
		fwrite(tl->event.buf, 1, tl->event.len, tl->o.json);
}

/* The ", \"pid\": P, \"tid\": T" of @t's events. */
static void json_ids(struct vma_strbuf *sb, const struct track *t)
{
	vma_sb_putlit(sb, ", \"pid\": ");
	vma_sb_put_u64(sb, t->pid);
	vma_sb_putlit(sb, ", \"tid\": ");
	vma_sb_put_u64(sb, t->tid);
}

static void json_slice(struct vma_timeline *tl, const struct track *t, uint64_t s, uint64_t e)
{
	struct vma_strbuf *sb = json_next(tl);

	vma_sb_putlit(sb, "{\"ph\": \"X\", \"name\": ");
	vma_json_sb_string(sb, t->name);
	vma_sb_putlit(sb, ", \"cat\": \"");
	vma_sb_puts(sb, kind_names[t->kind]);
	vma_sb_putlit(sb, "\", \"ts\": ");
	json_us(sb, tl, s);
	vma_sb_putlit(sb, ", \"dur\": ");
	json_us(sb, tl, e - s);
	json_ids(sb, t);
	if (t->args[0]) {
		vma_sb_putlit(sb, ", \"args\": {\"refinement\": ");
		vma_json_sb_string(sb, t->args);
		vma_sb_putc(sb, '}');
	}
	vma_sb_putc(sb, '}');
	json_put(tl);
}

/* Exits per second: bin @bin of @t's counter, @exits exits. */
static void json_bin(struct vma_timeline *tl, const struct track *t, uint64_t bin,
		     uint64_t exits)
{
	struct vma_strbuf *sb = json_next(tl);
	char buf[32];

	vma_sb_putlit(sb, "{\"ph\": \"C\", \"name\": ");
	snprintf(buf, sizeof(buf), "exits/s %.20s", t->label);
	vma_json_sb_string(sb, buf);
	vma_sb_putlit(sb, ", \"ts\": ");
	json_us(sb, tl, tl->o.from + bin * tl->bin_ticks);
	json_ids(sb, t);
	vma_sb_putlit(sb, ", \"args\": {\"exits/s\": ");
	vma_sb_put_u64(sb, exits * BINS_PER_SECOND);
	vma_sb_putlit(sb, "}}");
	json_put(tl);
}

/* ---- the model -------------------------------------------------------------- */

/* The SVG's span as far as the samples went: it only grows. */
static double svg_span(const struct vma_timeline *tl, uint64_t end)
{
	uint64_t last = end > tl->last ? end : tl->last;
	uint64_t from = tl->o.from > tl->first ? tl->o.from : tl->first;
	uint64_t to = tl->o.to < last ? tl->o.to : last;

	return to > from ? (double)(to - from) : 1.0;
}

/* Whether the SVG draws a slice of @len ticks in @span. */
static inline bool drawn(const struct vma_timeline *tl, uint64_t len, double span)
{
	return (double)len / span * SVG_PLOT >= tl->svg_px;
}

/* The kept slices the SVG would no longer draw, the span having grown, dropped. */
static void svg_compact(struct vma_timeline *tl, double span)
{
	size_t i, n = 0;

	for (i = 0; i < tl->nr_slices; i++) {
		if (drawn(tl, tl->slices[i].end - tl->slices[i].start, span))
			tl->slices[n++] = tl->slices[i];
	}
	tl->nr_slices = n;
}

/*
 * Keep the slice [@s, @e) of @t for the SVG if it may be drawn.  Past
 * o.svg_keep slices drawn (by default, a host of thousands of vcpus: an
 * SVG of tens of MB) the narrowest drawn doubles until half of them are
 * left.
 */
static int svg_keep(struct vma_timeline *tl, const struct track *t, uint64_t s, uint64_t e)
{
	double span = svg_span(tl, e);
	uint32_t name;

	if (!drawn(tl, e - s, span))
		return VMA_OK;
	if (tl->nr_slices == tl->cap_slices) {
		svg_compact(tl, span);
		while (tl->cap_slices >= tl->o.svg_keep && tl->nr_slices >= tl->cap_slices / 2) {
			tl->svg_px *= 2;
			svg_compact(tl, span);
		}
		if (!drawn(tl, e - s, span))
			return VMA_OK;
		if (tl->nr_slices >= tl->cap_slices / 2 &&
		    vma_grow(tl->slices, &tl->cap_slices, tl->nr_slices + 1, 1024))
			return VMA_ERR_NOMEM;
	}
	name = vma_strtab_find(&tl->names, t->name);
	if (name == UINT32_MAX)
		name = vma_strtab_intern(&tl->names, vma_strtab_count(&tl->names) < SVG_NAMES_MAX ?
					 t->name : "other");
	if (name == UINT32_MAX)
		return VMA_ERR_NOMEM;
	tl->slices[tl->nr_slices++] = (struct slice){ s, e, (uint32_t)(t - tl->tracks), name,
						      t->kind };
	return VMA_OK;
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
	if (tl->o.json)
		json_slice(tl, t, s, e);
	return tl->o.svg ? svg_keep(tl, t, s, e) : VMA_OK;
}

/* @t is now in (@kind, @name, @args) from @now. */
static int set_state(struct vma_timeline *tl, struct track *t, uint8_t kind, const char *name,
		     const char *args, uint64_t now)
{
	int rc;

	if (!args)
		args = "";
	start_range(tl, now);
	if (t->open && t->kind == kind && !strcmp(t->name, name) &&
	    (!t->args[0] || !strcmp(t->args, args))) {
		/* a refinement names the whole exit, from its start */
		copy(t->args, sizeof(t->args), args);
		return VMA_OK;
	}
	rc = close_slice(tl, t, now);
	t->open = true;
	t->kind = kind;
	t->runs = NULL;
	copy(t->name, sizeof(t->name), name);
	copy(t->args, sizeof(t->args), args);
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
		copy(name, nlen, "preempted");
		return K_PREEMPTED;
	case VMA_RS_BLOCKED:
		copy(name, nlen, "halted");
		return K_HALTED;
	default:
		/* a KVM thread's records say it runs, with or without sched_switch */
		if (!v->kvm_bound)
			return K_NONE;
		break;
	}
	if (v->type == VMA_VCPU_PV || !v->hvm.vmexit_valid) {
		copy(name, nlen, "guest");
		return K_GUEST;
	}
	if (halt_exit(m, v)) {
		copy(name, nlen, "halted");
		return K_HALTED;
	}
	if (in->handler && in->handler != VMA_KVM_USERSPACE_EXIT) {
		/* the handler's minor names it (with its write flag 0x200 and TRC_64_FLAG off) */
		const char *h = vma_id_is_kvm(in->handler) ? vma_kvm_event_name(in->handler)
			: vma_hvm_handler_name(VMA_TRC_MINOR(in->handler) & 0xffu);

		snprintf(args, alen, "%s 0x%" PRIx64, h ? h : "handler", in->key);
	}
	if (in_vmm || in->handler == VMA_KVM_USERSPACE_EXIT) {
		copy(name, nlen, "VMM");
		return K_VMM;
	}
	reason = v->type == VMA_VCPU_ARM ? vma_arm_exit_name(v->hvm.exit_reason)
					 : vma_hvm_exit_name(m->svm, v->hvm.exit_reason);
	if (reason)
		copy(name, nlen, reason);
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

/*
 * One more exit of @t's vcpu at @now, in its 10 ms bin.  The bins from
 * the range's start, empty ones too, are written as they are passed; an
 * exit older than the bin counting (a record out of order) counts there.
 */
static void count_exit(struct vma_timeline *tl, struct track *t, uint64_t now)
{
	uint64_t bin;

	start_range(tl, now);
	if (now < tl->o.from || now >= tl->o.to || !tl->o.json)
		return;
	bin = (now - tl->o.from) / tl->bin_ticks;
	for (; t->bin < bin; t->bin++, t->bin_exits = 0)
		json_bin(tl, t, t->bin, t->bin_exits);
	t->bin_exits++;
	t->counting = true;
}

int vma_timeline_sample(struct vma_timeline *tl, const struct vma_machine *m,
			const struct vma_vcpu *v, bool in_vmm, uint64_t t)
{
	char label[64], name[64], args[64];
	struct track *tr;
	uint8_t kind;

	if (!v || v->domain->did >= VMA_IDLE_DOMAIN)
		return VMA_OK;
	tr = track_find(tl, G_VCPU, v, 0);
	if (!tr || (v->kvm_tid && tr->label_tid != v->kvm_tid)) {
		vcpu_label(v, label, sizeof(label));
		if (!tr && !(tr = track_new(tl, G_VCPU, v, 0, label)))
			return VMA_ERR_NOMEM;
		/* its thread became known */
		copy(tr->label, sizeof(tr->label), label);
		tr->label_tid = v->kvm_tid;
	}
	kind = vcpu_state(m, v, in_vmm, name, sizeof(name), args, sizeof(args));
	/* the type first: a PV vcpu's union holds no hvm fields (UBSan) */
	if (v->type != VMA_VCPU_PV && v->hvm.vmexit_valid && v->hvm.exit_tsc != tr->last_exit) {
		tr->last_exit = v->hvm.exit_tsc;
		count_exit(tl, tr, t);
	}
	return set_state(tl, tr, kind, name, args, t);
}

int vma_timeline_pcpu(struct vma_timeline *tl, uint32_t pcpu, const struct vma_vcpu *v,
		      uint64_t t)
{
	char label[32], name[32];
	struct track *tr;
	int rc;

	tr = track_find(tl, G_PCPU, NULL, pcpu);
	if (!tr) {
		snprintf(label, sizeof(label), "pcpu %u", pcpu);
		tr = track_new(tl, G_PCPU, NULL, pcpu, label);
		if (!tr)
			return VMA_ERR_NOMEM;
	}
	/* a vcpu switched out (KVM keeps it as the pcpu's last) runs there no more */
	if (!v || v->domain->did >= VMA_IDLE_DOMAIN || v->state == VMA_RS_RUNNABLE ||
	    v->state == VMA_RS_BLOCKED)
		return set_state(tl, tr, K_NONE, "", NULL, t);
	/* still the same vcpu: nothing to name (set_state() would find nothing changed) */
	if (tr->open && tr->kind == K_RUNS && tr->runs == v) {
		start_range(tl, t);
		return VMA_OK;
	}
	snprintf(name, sizeof(name), "d%uv%u", v->domain->did, v->vid);
	rc = set_state(tl, tr, K_RUNS, name, NULL, t);
	tr->runs = v;
	return rc;
}

int vma_timeline_guest_task(struct vma_timeline *tl, uint32_t guest, uint32_t cpu,
			    const struct vma_vcpu *host, uint32_t pid, const char *comm,
			    uint64_t t)
{
	char label[80], name[48];
	struct track *tr;

	tr = track_find(tl, G_GUEST + guest - 1, NULL, cpu);
	if (!tr) {
		if (host) {
			snprintf(label, sizeof(label), "guest %u cpu %u (d%uv%u)", guest, cpu,
				 host->domain->did, host->vid);
		} else {
			snprintf(label, sizeof(label), "guest %u cpu %u", guest, cpu);
		}
		tr = track_new(tl, G_GUEST + guest - 1, NULL, cpu, label);
		if (!tr)
			return VMA_ERR_NOMEM;
	}
	if (!pid)
		return set_state(tl, tr, K_NONE, "", NULL, t);
	snprintf(name, sizeof(name), "%s:%u", comm, pid);
	return set_state(tl, tr, K_TASK, name, NULL, t);
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

/* The tracks' names and orders: last, when every label is known. */
static void json_tracks(struct vma_timeline *tl)
{
	FILE *out = tl->o.json;
	uint32_t pids_done = 0;
	char buf[32];
	size_t i;

	for (i = 0; i < tl->nr_tracks; i++) {
		const struct track *t = &tl->tracks[i];

		if (t->pid < 32 && !(pids_done & (1u << t->pid))) {
			pids_done |= 1u << t->pid;
			json_next(tl);
			json_put(tl);
			vma_fprintf(out, "{\"ph\": \"M\", \"name\": \"process_name\", "
				    "\"ts\": 0, \"pid\": %u, \"tid\": 0, \"args\": {\"name\": ",
				    t->pid);
			vma_json_string(out, group_name(t->pid, buf, sizeof(buf)));
			vma_fprintf(out, "}},\n{\"ph\": \"M\", \"name\": \"process_sort_index\", "
				"\"ts\": 0, \"pid\": %u, \"tid\": 0, \"args\": {\"sort_index\": "
				"%u}}",
				t->pid, t->pid);
		}
		json_next(tl);
		json_put(tl);
		vma_fprintf(out, "{\"ph\": \"M\", \"name\": \"thread_name\", \"ts\": 0, "
			    "\"pid\": %u, \"tid\": %u, \"args\": {\"name\": ", t->pid, t->tid);
		vma_json_string(out, t->label);
		vma_fprintf(out, "}},\n{\"ph\": \"M\", \"name\": \"thread_sort_index\", \"ts\": 0, "
			"\"pid\": %u, \"tid\": %u, \"args\": {\"sort_index\": %u}}", t->pid, t->tid,
			t->tid);
	}
}

int vma_timeline_end(struct vma_timeline *tl, uint64_t end)
{
	size_t i;
	int rc = VMA_OK;

	for (i = 0; i < tl->nr_tracks && rc == VMA_OK; i++)
		rc = close_slice(tl, &tl->tracks[i], end);
	if (end > tl->last)
		tl->last = end;
	if (!tl->o.json)
		return rc;
	for (i = 0; i < tl->nr_tracks; i++) {
		if (tl->tracks[i].counting)
			json_bin(tl, &tl->tracks[i], tl->tracks[i].bin, tl->tracks[i].bin_exits);
	}
	json_tracks(tl);
	vma_fprintf(tl->o.json, "\n]}\n");
	return rc ? rc : tl->event_lost ? VMA_ERR_NOMEM : VMA_OK;
}

/* ---- SVG ---------------------------------------------------------------------- */


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
	if (x->pid == G_PCPU && x->id != y->id)
		return x->id < y->id ? -1 : 1;
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
		    "to %.6f s (%.3f ms)", (double)from / hz, (double)to / hz, span / hz * 1e3);
	if (tl->svg_px > SVG_MIN_PX)
		vma_fprintf(out, ", slices from %g pixel", tl->svg_px);
	vma_fprintf(out, "</text>\n");
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

		if (s->end <= from || s->start >= to || !drawn(tl, s->end - s->start, span))
			continue;
		vma_fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" "
			     "fill=\"%s\">"
			"<title>", x0, SVG_TOP + SVG_ROW * (double)at[s->track], w < 0.5 ? 0.5 : w,
			SVG_ROW - 2, kind_colour[s->kind]);
		svg_text(out, vma_strtab_get(&tl->names, s->name));
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

size_t vma_timeline_kept(const struct vma_timeline *tl)
{
	return tl->nr_slices;
}
