/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run driver: sends one input through the pipeline (pipeline.h) and
 * reports: a dump line per record, or reports built from the machine
 * (report.h) at each interval's end and at the end, given to the
 * renderer the options chose.  One pass over the data.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/raw-reads.h"
#include "cli/run.h"
#include "cli/vendor-scan.h"
#include "vmalyze/aggregate.h"
#include "vmalyze/diag.h"
#include "vmalyze/dump.h"
#include "vmalyze/input.h"
#include "vmalyze/interval.h"
#include "vmalyze/xinterval.h"
#include "vmalyze/ipi.h"
#include "vmalyze/kvm-input.h"
#include "vmalyze/live.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/report.h"
#include "vmalyze/scatter.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/worst.h"

/* Names of the KVM event kinds the state stage counts, from the input. */
static const char *kvm_kind_name(const void *arg, uint32_t kind)
{
	const struct vma_input *in = arg;

	if (kind < VMA_KVM_KINDS)
		return kind < VMA_KVM_NR_IDS ? vma_kvm_event_name(VMA_ID_KVM_BASE + kind) : NULL;
	return vma_kvm_event_table_name(in, kind - VMA_KVM_KINDS);
}

/* What the per-record hooks need. */
struct run_ctx {
	const struct vma_input *in;
	uint64_t hz;
	struct vma_dump *dump;
	struct vma_live *live;
	FILE *out;
	const struct vma_renderer *renderer;
	struct vma_render render;
	struct vma_interval_clock clock;
	struct vma_run_batch *batch;
	struct vma_diag *diag;    /* where the run's own warnings go */
	int status;               /* the run's status when the final report is built */
	uint64_t interval_since;  /* records when the last interval's report was built */
	bool default_domain;      /* --show-default-domain-summary */
	/*
	 * Outputs of xenalyze's options written as records are read.  With
	 * the dump their lines are held, to go after the dump line of the
	 * record that made them.
	 */
	struct vma_scatter *scatter;
	struct vma_ipi *ipi;
	struct vma_raw_reads *raw_reads;
	bool extras;              /* any of the three */
	const struct vma_report_filter *filter;
	struct vma_worst *worst;  /* --top, or NULL */
	bool totals;              /* the renderer reads the VM and host-wide totals */
	bool kvm_totals;          /* ... those of a KVM trace (JSON) */
	uint64_t origin;          /* the trace's first stamp, for --top's times */
	/* --time with -a: the dump's times from the trace's first record too */
	const struct vma_pipeline *pipeline;
	bool dump_origin_pending;
	/* --top's observer, passing the others' calls on to the one it replaced */
	struct vma_state_observer top_observer;
	const struct vma_state_observer *inner;
	struct vma_xinterval *xinterval; /* --interval-domain-*: rows as time passes */
	/* The machine has one observer: with two outputs that observe, this calls both. */
	const struct vma_state_observer *observers[2];
	struct vma_state_observer both;
};

static void both_runstate(void *arg, const struct vma_vcpu *v, enum vma_runstate next,
			  uint64_t tsc)
{
	struct run_ctx *ctx = arg;
	int i;

	for (i = 0; i < 2; i++) {
		if (ctx->observers[i]->runstate)
			ctx->observers[i]->runstate(ctx->observers[i]->arg, v, next, tsc);
	}
}

static void both_switch_in(void *arg, const struct vma_vcpu *v, const struct vma_pcpu *to,
			   uint64_t tsc)
{
	struct run_ctx *ctx = arg;
	int i;

	for (i = 0; i < 2; i++) {
		if (ctx->observers[i]->switch_in)
			ctx->observers[i]->switch_in(ctx->observers[i]->arg, v, to, tsc);
	}
}

static void both_arc_close(void *arg, const struct vma_vcpu *v, uint64_t tsc, uint64_t cycles)
{
	struct run_ctx *ctx = arg;
	int i;

	for (i = 0; i < 2; i++) {
		if (ctx->observers[i]->arc_close)
			ctx->observers[i]->arc_close(ctx->observers[i]->arg, v, tsc, cycles);
	}
}

static void both_halt(void *arg, const struct vma_vcpu *v, uint32_t vector, bool is_wake,
		      uint64_t cycles, uint64_t tsc)
{
	struct run_ctx *ctx = arg;
	int i;

	for (i = 0; i < 2; i++) {
		if (ctx->observers[i]->halt) {
			ctx->observers[i]->halt(ctx->observers[i]->arg, v, vector, is_wake, cycles,
						tsc);
		}
	}
}

/* @o observes @machine too, after the observer it has (if any). */
static void add_observer(struct run_ctx *ctx, struct vma_machine *machine,
			 const struct vma_state_observer *o)
{
	if (!machine->observer) {
		machine->observer = o;
		return;
	}
	ctx->observers[0] = machine->observer;
	ctx->observers[1] = o;
	ctx->both = (struct vma_state_observer){ .arg = ctx, .runstate = both_runstate,
						 .switch_in = both_switch_in,
						 .arc_close = both_arc_close, .halt = both_halt };
	machine->observer = &ctx->both;
}

/* Into the batch's aggregate, which other traces' runs may be adding to. */
static int add_to_aggregate(struct vma_run_batch *batch, const struct vma_report *report,
			    const char *file, int status)
{
	int rc;

	if (batch->agg_lock)
		pthread_mutex_lock(batch->agg_lock);
	rc = vma_aggregate_add(batch->agg, report, file, batch->member, status);
	if (batch->agg_lock)
		pthread_mutex_unlock(batch->agg_lock);
	return rc;
}

/*
 * On stderr too: not every output has room to say that percentiles got
 * coarser or rows were summed (CSV, kvm-stat, the batch aggregate), and
 * it matters to all.
 */
static void warn_precision(struct run_ctx *ctx, const struct vma_report *r)
{
	const struct vma_report_precision *p = &r->precision;
	const struct vma_report_folding *f = &r->folding;

	if (p->reduced) {
		vma_diag_warn_once_in(ctx->diag, ctx->render.file, "memory-budget",
				      "The memory budget of %.1f MiB for distributions was reached"
				      " at record %" PRIu64 ": percentiles are within %.2f%%, counts"
				      " and totals exact (--memory-budget sets the budget, 0 none)",
				      (double)p->budget / (1024.0 * 1024.0), p->at_record,
				      p->error * 100.0);
	}
	if (f->reduced) {
		vma_diag_warn_once_in(ctx->diag, ctx->render.file, "row-budget",
				      "The memory budget of %.1f MiB for rows was reached at record"
				      " %" PRIu64 ": new keys (refinements, vectors, pcpus...) are"
				      " summed in \"other\" rows, counts and totals exact"
				      " (--memory-budget sets the budget, 0 none)",
				      (double)f->budget / (1024.0 * 1024.0), f->at_record);
	}
}

/* Build the report of @m as it stands and give it to the renderer. */
static int render(struct run_ctx *ctx, const struct vma_machine *m, bool final, uint64_t at)
{
	struct vma_report_build how = {
		.unit = ctx->in->clock == VMA_CLOCK_NS ? VMA_REPORT_NS : VMA_REPORT_CYCLES,
		.hz = ctx->hz,
		.detail = final ? VMA_REPORT_FULL : VMA_REPORT_COUNTS,
		.final = final,
		.default_domain = ctx->default_domain,
		.at = at,
		.kvm_name = kvm_kind_name,
		.kvm_name_arg = ctx->in,
		.filter = ctx->filter,
		.worst = ctx->worst,
		.totals = ctx->totals,
		.kvm_totals = ctx->kvm_totals,
		.origin = ctx->origin,
		.changed_since = final ? 0 : ctx->interval_since,
	};
	struct vma_report *report = vma_report_create(m, &how);
	int rc;

	if (!report)
		return VMA_ERR_NOMEM;
	ctx->interval_since = m->records;
	rc = ctx->renderer->render(&ctx->render, report);
	if (final)
		warn_precision(ctx, report);
	if (final && ctx->batch) {
		ctx->batch->rendered++;
		if (ctx->batch->agg && add_to_aggregate(ctx->batch, report, ctx->render.file,
							ctx->status) && !rc)
			rc = VMA_ERR_NOMEM;
	}
	vma_report_destroy(report);
	return rc;
}

/* Lines held for the dump's order: the dump's lines first. */
static int flush_held(struct run_ctx *ctx)
{
	int rc;

	if (!((ctx->scatter && vma_scatter_pending(ctx->scatter)) ||
	      (ctx->ipi && vma_ipi_pending(ctx->ipi)) ||
	      (ctx->raw_reads && vma_raw_reads_pending(ctx->raw_reads))))
		return VMA_OK;
	rc = vma_dump_flush(ctx->dump);
	if (rc < 0)
		return rc;
	if (ctx->scatter)
		vma_scatter_flush(ctx->scatter);
	if (ctx->ipi)
		vma_ipi_flush(ctx->ipi);
	if (ctx->raw_reads)
		vma_raw_reads_flush(ctx->raw_reads);
	return VMA_OK;
}

/* The end of the run: what the extras still hold, and whether they could write. */
static int finish_extras(struct run_ctx *ctx, struct vma_machine *machine)
{
	int rc = VMA_OK, st;

	if (ctx->dump)
		rc = flush_held(ctx);
	if (machine)
		machine->observer = NULL;
	if (ctx->scatter && (st = vma_scatter_status(ctx->scatter)) < 0 && rc == VMA_OK)
		rc = st;
	if (ctx->ipi && (st = vma_ipi_status(ctx->ipi)) < 0 && rc == VMA_OK)
		rc = st;
	if (ctx->raw_reads) {
		vma_raw_reads_flush(ctx->raw_reads);
		if ((st = vma_raw_reads_status(ctx->raw_reads)) < 0 && rc == VMA_OK)
			rc = st;
	}
	/* The summary follows the dump: its lines first. */
	if (ctx->dump && ctx->renderer && (st = vma_dump_flush(ctx->dump)) < 0 && rc == VMA_OK)
		rc = st;
	return rc;
}

static struct vma_stream *wrap_stream(void *arg, struct vma_stream *stream)
{
	return vma_raw_reads_wrap(arg, stream);
}

/* A pipe has no more data yet: show what was written so far. */
static void flush_output(void *arg)
{
	struct run_ctx *ctx = arg;

	if (ctx->dump && ctx->extras)
		flush_held(ctx);
	if (ctx->dump)
		vma_dump_flush(ctx->dump);
	fflush(ctx->out);
}

static int before_record(void *arg, const struct vma_machine *m, const struct vma_stream *s)
{
	struct run_ctx *ctx = arg;
	uint64_t end;

	/* What the merge read after the last record goes after that record's line. */
	if (__builtin_expect(ctx->extras, 0) && ctx->dump && ctx->raw_reads &&
	    vma_raw_reads_pending(ctx->raw_reads)) {
		int rc = vma_dump_flush(ctx->dump);

		if (rc < 0)
			return rc;
		vma_raw_reads_flush(ctx->raw_reads);
	}
	if (ctx->dump) {
		/* The pipeline knows the trace's first stamp once a record passed its window. */
		if (__builtin_expect(ctx->dump_origin_pending, 0)) {
			vma_dump_set_origin(ctx->dump, vma_pipeline_first_tsc(ctx->pipeline));
			ctx->dump_origin_pending = false;
		}
		vma_dump_begin(ctx->dump, m, &s->rec);
	}
	if (ctx->xinterval) {
		int rc = vma_xinterval_tick(ctx->xinterval, m, s->rec.tsc, s->rec.offset);

		if (rc < 0)
			return rc;
	}
	if (ctx->live)
		return vma_live_advance(ctx->live, m, s->rec.tsc);
	if (ctx->renderer && ctx->renderer->per_interval && m->have_time &&
	    vma_interval_clock_tick(&ctx->clock, m->first_tsc, s->rec.tsc, &end))
		return render(ctx, m, false, end);
	return VMA_OK;
}

static __attribute__((noinline)) int after_record_extras(struct run_ctx *ctx,
							 const struct vma_stream *s,
							 const struct vma_outcome *out)
{
	int rc;

	if (ctx->dump) {
		/* Input-specific text wants the input's stream, not a raw-reads wrapper. */
		rc = vma_dump_end(ctx->dump, ctx->raw_reads ? vma_raw_reads_inner(s) : s, out);
		if (rc < 0)
			return rc;
	}
	if (ctx->scatter)
		vma_scatter_record(ctx->scatter, &s->rec, out);
	if (ctx->ipi)
		vma_ipi_record(ctx->ipi, &s->rec, out);
	return ctx->dump ? flush_held(ctx) : VMA_OK;
}

/* --top: an exit arc closing (state.h), while its vcpu still says what it was. */
static void note_worst(struct vma_worst *worst, const struct vma_vcpu *v, uint64_t tsc,
		       uint64_t cycles)
{
	struct vma_report_worst w;

	memset(&w, 0, sizeof(w));
	w.ticks = cycles;
	w.tsc = tsc - cycles;
	w.domain = v->domain->did;
	w.vcpu = v->vid;
	w.reason = v->hvm.exit_reason;
	w.rip = v->hvm.rip;
	w.handler = v->hvm.inflight.handler;
	w.key = v->hvm.inflight.key;
	w.is_write = v->hvm.inflight.is_write;
	vma_worst_add(worst, &w);
}

/*
 * The machine has one observer: --top's takes the arcs and passes every
 * call on to the observer it replaced (the scatterplots'), if any.
 */
static void top_arc_close(void *arg, const struct vma_vcpu *v, uint64_t tsc, uint64_t cycles)
{
	struct run_ctx *ctx = arg;

	note_worst(ctx->worst, v, tsc, cycles);
	if (ctx->inner && ctx->inner->arc_close)
		ctx->inner->arc_close(ctx->inner->arg, v, tsc, cycles);
}

static void top_runstate(void *arg, const struct vma_vcpu *v, enum vma_runstate next,
			 uint64_t tsc)
{
	const struct vma_state_observer *in = ((struct run_ctx *)arg)->inner;

	if (in && in->runstate)
		in->runstate(in->arg, v, next, tsc);
}

static void top_switch_in(void *arg, const struct vma_vcpu *v, const struct vma_pcpu *to,
			  uint64_t tsc)
{
	const struct vma_state_observer *in = ((struct run_ctx *)arg)->inner;

	if (in && in->switch_in)
		in->switch_in(in->arg, v, to, tsc);
}

static void top_halt(void *arg, const struct vma_vcpu *v, uint32_t vector, bool is_wake,
		     uint64_t cycles, uint64_t tsc)
{
	const struct vma_state_observer *in = ((struct run_ctx *)arg)->inner;

	if (in && in->halt)
		in->halt(in->arg, v, vector, is_wake, cycles, tsc);
}

static void watch_arcs(struct run_ctx *ctx, struct vma_machine *m)
{
	ctx->inner = m->observer;
	ctx->top_observer = (struct vma_state_observer){
		.arg = ctx,
		.arc_close = top_arc_close,
		.runstate = ctx->inner && ctx->inner->runstate ? top_runstate : NULL,
		.switch_in = ctx->inner && ctx->inner->switch_in ? top_switch_in : NULL,
		.halt = ctx->inner && ctx->inner->halt ? top_halt : NULL,
	};
	m->observer = &ctx->top_observer;
}

static int after_record(void *arg, const struct vma_machine *m, const struct vma_stream *s,
			const struct vma_outcome *out)
{
	struct run_ctx *ctx = arg;

	if (ctx->live) {
		vma_live_note(ctx->live, m, &s->rec, out);
		return VMA_OK;
	}
	if (__builtin_expect(ctx->extras, 0))
		return after_record_extras(ctx, s, out);
	return vma_dump_end(ctx->dump, s, out);
}

/* The hooks would do nothing per record but the dump's begin and end. */
static bool dump_only(const struct run_ctx *ctx, const struct vma_pipeline_hooks *hooks)
{
	return ctx->dump && hooks->before == before_record && hooks->after == after_record &&
	       !ctx->extras && !ctx->xinterval && !ctx->live && !ctx->dump_origin_pending &&
	       !(ctx->renderer && ctx->renderer->per_interval);
}

/*
 * Whether a first pass over a Xen dump's look-ahead reads what the run
 * will (vendor-scan.h): a file given by its path, read by offset (not a
 * pipe, a FIFO or a compressed file's pump), with every record on one
 * line and in the order a pass without the state stage has them.
 */
static bool lookahead_can_be_scanned(const struct vma_options *opts,
				     const struct vma_run_source *src, const char *path,
				     const struct vma_input *in)
{
	struct stat st;

	if (in->ops->describe || in->streaming || opts->svm_mode || opts->filter.time_set ||
	    opts->tsc_skew_correct || opts->dump_raw_process || opts->dump_raw_reads)
		return false;
	return src->fd < 0 && path && strcmp(path, "-") != 0 && stat(path, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

int vma_run_file(const struct vma_options *opts, const char *path, struct vma_diag *diag,
		 FILE *out)
{
	return vma_run_trace(opts, path, NULL, diag, out);
}

int vma_run_trace(const struct vma_options *opts, const char *path, struct vma_run_batch *batch,
		  struct vma_diag *diag, FILE *out)
{
	struct vma_run_source src = { .path = path, .fd = -1 };

	return vma_run_source(opts, &src, batch, diag, out);
}

/*
 * -a with nothing built from the state at the end (no summary, interval
 * table, scatterplot or worst-exit list): the exits' statistics, about a
 * sixth of the dump's time, would be kept for no one.
 */
static bool keeps_no_stats(const struct vma_options *opts)
{
	return opts->mode == VMA_MODE_DUMP && !opts->report && !opts->xinterval.mode &&
	       !opts->scatter.kinds && !opts->top && !opts->dump_ipi_latency;
}

/*
 * VMALYZE_SPLIT_AT=SHARE: two threads on a summary make a run in two
 * parts, the seam at SHARE (0 < SHARE < 1) of the file (vmalyze(1),
 * ENVIRONMENT).  Return: the share; 0 when unset; -1 when not a share.
 */
static double split_at(void)
{
	const char *s = getenv("VMALYZE_SPLIT_AT");
	char *end;
	double at;

	if (!s)
		return 0;
	at = strtod(s, &end);
	return end != s && *end == '\0' && at > 0 && at < 1 ? at : -1;
}

/* The pipeline's options, from the command line's. */
static struct vma_pipeline_options pipeline_options(const struct vma_options *opts,
						    const struct vma_run_source *src,
						    struct run_ctx *ctx)
{
	struct vma_pipeline_options popts = {
		.input = { .event_formats_dir = opts->event_formats,
			   .reorder_cap = vma_options_reorder_cap(opts, 1),
			   .stop = opts->stop,
			   .idle = flush_output,
			   .idle_arg = ctx,
			   /* only the dump prints an event's text (set_up_record_lines()) */
			   .fields_only = !opts->dump && !opts->dump_raw_process },
		.force_svm = opts->svm_mode,
		.cpu_hz = opts->cpu_hz,
		.timer_hz = opts->timer_hz,
		.no_state = opts->dump_no_processing,
		.default_paging_levels = opts->default_paging_levels,
		.eips = opts->eips,
		.tsc_loop_fatal = opts->tsc_loop_fatal,
		.tsc_skew_correct = opts->tsc_skew_correct,
		.no_stats = keeps_no_stats(opts),
		.progress = src->progress,
		.threads = opts->threads,
		.runs_at_once = opts->traces_at_once,
		.time_set = opts->filter.time_set,
		.time_start = opts->filter.start,
		.time_end = opts->filter.end,
	};
	const struct vma_time_map *map = src->path ? vma_options_time_map(opts, src->path) : NULL;

	vma_options_budgets(opts, 1, &popts.summary_budget, &popts.rows_budget);
	/* VMALYZE_IN_ORDER (vmalyze(1), ENVIRONMENT): no record taken ahead of the merge. */
	popts.in_order = getenv("VMALYZE_IN_ORDER") != NULL;
	popts.split_at = split_at();
	if (popts.split_at < 0) {
		vma_diag_warn_once(ctx->diag, "split-at", "VMALYZE_SPLIT_AT=%s is not a share of "
				   "the file between 0 and 1: no run in two parts",
				   getenv("VMALYZE_SPLIT_AT"));
		popts.split_at = 0;
	}
	if (map)
		popts.input.time_map = *map;
	return popts;
}

/* What is made before the input is opened: --dump-raw-reads' wrapper, --top's list. */
static int set_up_before_open(struct run_ctx *ctx, const struct vma_options *opts,
			      struct vma_pipeline_options *popts)
{
	if (opts->dump_raw_reads) {
		/* Reads begin while the input is opened: the lines go out as made. */
		ctx->raw_reads = vma_raw_reads_create(ctx->out);
		if (!ctx->raw_reads)
			return VMA_ERR_NOMEM;
		popts->wrap_stream = wrap_stream;
		popts->wrap_arg = ctx->raw_reads;
	}
	if (opts->top && opts->report) {
		ctx->worst = vma_worst_create(opts->top);
		if (!ctx->worst)
			return VMA_ERR_NOMEM;
	}
	return VMA_OK;
}

/* A line per record: -a (or --dump-raw-process), or --live's views. */
static int set_up_record_lines(struct run_ctx *ctx, const struct vma_options *opts,
			       const struct vma_pipeline *p, struct vma_pipeline_hooks *hooks)
{
	if (opts->dump || opts->dump_raw_process) {
		ctx->dump = vma_dump_create(ctx->out, ctx->hz, ctx->in->ops->describe);
		if (!ctx->dump)
			return VMA_ERR_NOMEM;
		vma_dump_set_symbols(ctx->dump, opts->symbols);
		ctx->pipeline = p;
		ctx->dump_origin_pending = opts->filter.time_set;
		if (opts->dump_power_states)
			vma_dump_show_power_states(ctx->dump);
		if (opts->dump_volume_on_lost)
			vma_dump_volume_on_lost(ctx->dump);
		if (opts->dump_raw_process)
			vma_dump_raw_process(ctx->dump, opts->dump);
		hooks->before = before_record;
		hooks->after = after_record;
		if (ctx->raw_reads)
			vma_raw_reads_hold(ctx->raw_reads);
		hooks->describe = true; /* vma_dump_end() has KVM records described */
	} else if (opts->mode == VMA_MODE_LIVE) {
		ctx->live = vma_live_create(ctx->out, ctx->hz, isatty(fileno(ctx->out)));
		if (!ctx->live)
			return VMA_ERR_NOMEM;
		hooks->before = before_record;
		hooks->after = after_record;
	}
	return VMA_OK;
}

/* xenalyze's outputs written as records are read: scatterplots, IPI latency, interval rows. */
static int set_up_xen_outputs(struct run_ctx *ctx, const struct vma_options *opts,
			      struct vma_machine *machine, struct vma_pipeline_hooks *hooks,
			      struct vma_diag *diag, const char *path)
{
	if (opts->scatter.kinds) {
		struct vma_scatter_options sopts = opts->scatter;

		sopts.symbols = opts->symbols;
		ctx->scatter = vma_scatter_create(ctx->out, ctx->hz, machine, &sopts);
		if (!ctx->scatter)
			return VMA_ERR_NOMEM;
		if (ctx->dump)
			vma_scatter_hold(ctx->scatter);
		machine->observer = vma_scatter_observer(ctx->scatter);
		hooks->after = after_record;
	}
	if (opts->dump_ipi_latency) {
		ctx->ipi = vma_ipi_create(ctx->out, ctx->hz, machine);
		if (!ctx->ipi)
			return VMA_ERR_NOMEM;
		if (ctx->dump)
			vma_ipi_hold(ctx->ipi);
		hooks->after = after_record;
	}
	if (opts->xinterval.mode) {
		ctx->xinterval = vma_xinterval_create(ctx->out, ctx->hz, opts->interval_secs,
						      &opts->xinterval, diag, path);
		if (!ctx->xinterval) {
			if (errno != ENOMEM) {
				vma_diag_report(diag, VMA_LVL_SYSTEM, NULL, UINT64_MAX,
						"cannot make the temporary file of interval "
						"rows: %s", strerror(errno));
			}
			return VMA_ERR_NOMEM;
		}
		if (vma_xinterval_observer(ctx->xinterval))
			add_observer(ctx, machine, vma_xinterval_observer(ctx->xinterval));
		hooks->before = before_record;
	}
	return VMA_OK;
}

/* The summary's renderer; an interval series needs a call per record. */
static void set_up_report(struct run_ctx *ctx, const struct vma_options *opts,
			  struct vma_pipeline_hooks *hooks)
{
	ctx->renderer = vma_renderer_find(opts->format);
	ctx->totals = ctx->renderer->render == vma_render_kvm_stat;
	ctx->kvm_totals = ctx->renderer->render == vma_render_json;
	/* The end-of-trace renderers need no call per record. */
	if (ctx->renderer->per_interval) {
		vma_interval_clock_init(&ctx->clock, ctx->hz, opts->interval_secs);
		hooks->before = before_record;
	}
}

/* After the records: the outputs' last lines, then the final report.  Return: @status or worse. */
static int finish_run(struct run_ctx *ctx, struct vma_machine *machine,
		      const struct vma_pipeline *p, int status)
{
	int rc = finish_extras(ctx, machine);

	if (rc < 0 && status == VMA_OK)
		status = rc;
	if (ctx->live) {
		rc = vma_live_finish(ctx->live, machine);
		if (rc < 0 && status == VMA_OK)
			status = rc;
	}
	if (ctx->xinterval) {
		machine->observer = NULL;
		/* As xenalyze: the interval rows, then the summary. */
		rc = vma_xinterval_finish(ctx->xinterval, machine);
		if (rc < 0 && status == VMA_OK)
			status = rc;
	}
	ctx->status = status;
	ctx->origin = vma_pipeline_first_tsc(p);
	/* No record at all (reported by the pipeline): no empty report either. */
	if (ctx->renderer && status != VMA_ERR_FORMAT) {
		rc = render(ctx, machine, true, machine->have_time ? machine->last_tsc -
							machine->first_tsc : 0);
		if (rc < 0 && status == VMA_OK)
			status = rc;
	}
	return status;
}

static void release_run(struct run_ctx *ctx, struct vma_pipeline *p)
{
	if (ctx->renderer && ctx->renderer->release)
		ctx->renderer->release(&ctx->render);
	vma_dump_destroy(ctx->dump);
	vma_live_destroy(ctx->live);
	vma_scatter_destroy(ctx->scatter);
	vma_ipi_destroy(ctx->ipi);
	vma_worst_destroy(ctx->worst);
	vma_xinterval_destroy(ctx->xinterval);
	vma_pipeline_close(p);
	vma_raw_reads_destroy(ctx->raw_reads); /* after the merge that holds its streams */
}

int vma_run_source(const struct vma_options *opts, const struct vma_run_source *src,
		   struct vma_run_batch *batch, struct vma_diag *diag, FILE *out)
{
	const char *path = src->path;
	struct vma_render_options ropts = {
		.histogram = opts->histogram,
		.report_pcpu = opts->report_pcpu,
		.no_percentiles = opts->no_percentiles,
		.stat_event = opts->stat_event,
		.stat_sort = opts->stat_sort,
		.symbols = opts->symbols,
		.mmio_keep_vga = opts->mmio_keep_vga,
	};
	const struct vma_report_filter *f = &opts->filter;
	struct run_ctx ctx = {
		.render = { .out = out, .opts = &ropts, .file = path,
			    .member = batch ? batch->member : NULL,
			    .index = batch ? batch->rendered : 0,
			    .batch = batch && batch->several },
		.batch = batch,
		.diag = diag,
		.out = out,
		.default_domain = opts->show_default_domain,
		.filter = f->domain_set || f->vcpu_set || f->time_set ? f : NULL,
	};
	struct vma_pipeline_options popts = pipeline_options(opts, src, &ctx);
	struct vma_pipeline_hooks hooks = { .arg = &ctx };
	struct vma_pipeline *p = NULL;
	struct vma_machine *machine;
	int status = set_up_before_open(&ctx, opts, &popts);

	if (status)
		goto out;
	if (src->fd >= 0)
		status = vma_pipeline_open_fd(src->fd, src->name, &popts, diag, &p);
	else
		status = vma_pipeline_open(path, &popts, diag, &p);
	if (status) {
		if (batch && batch->agg && opts->report &&
		    add_to_aggregate(batch, NULL, path, status))
			status = VMA_ERR_NOMEM;
		goto out;
	}
	machine = vma_pipeline_machine(p);
	ctx.in = vma_pipeline_input(p);
	ctx.hz = vma_pipeline_hz(p);
	if (opts->dump_no_processing) {
		/* Read, not analyzed: the reads are the output. */
		int rc;

		status = vma_pipeline_run(p, NULL);
		rc = finish_extras(&ctx, machine);
		if (rc < 0 && status == VMA_OK)
			status = rc;
		goto out;
	}
	status = set_up_record_lines(&ctx, opts, p, &hooks);
	if (!status)
		status = set_up_xen_outputs(&ctx, opts, machine, &hooks, diag, path);
	if (status)
		goto out;
	if (opts->report)
		set_up_report(&ctx, opts, &hooks);
	if (ctx.worst && machine)
		watch_arcs(&ctx, machine);
	ctx.extras = ctx.scatter || ctx.ipi || ctx.raw_reads;
	if (ctx.dump && lookahead_can_be_scanned(opts, src, path, ctx.in) &&
	    vma_vendor_scan_clear(path, &popts))
		vma_dump_no_lookahead(ctx.dump);
	if (dump_only(&ctx, &hooks)) {
		/* The dump's own call, without before_record()'s tests per record. */
		hooks.around = vma_dump_record;
		hooks.before = NULL;
		hooks.after = NULL;
		hooks.arg = ctx.dump;
	}
	status = vma_pipeline_run(p, &hooks);
	/* A run in two parts ends with another machine, the parts' joined (pipeline.h). */
	machine = vma_pipeline_machine(p);
	status = finish_run(&ctx, machine, p, status);
out:
	release_run(&ctx, p);
	return status;
}
