/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report model: what a summary says, built once from the machine
 * model (at the end of a trace, and at each interval's end) and read by
 * every renderer.  Renderers never see the machine: the text summary
 * (xenalyze's layout), JSON, the interval CSV and the histograms are
 * functions of a struct vma_report and nothing else.
 *
 * Rows follow the machine's nesting: domains (VMs) with their runstates
 * and vcpus; a vcpu's runstates, cpu affinity, exit reasons (each with its
 * handlers, raw, and the sub-lines xenalyze prints, grouped), guest
 * interrupts, I/O and MMIO addresses, PV events; then pcpus, log volume
 * and KVM event counts.  Every duration is a struct vma_report_stat in the
 * report's unit, with count, total, min, max, mean and p5/p50/p95 already
 * computed, and the whole distribution (exact samples or sketch) reachable
 * for histograms and for exact merges across traces.
 *
 * Names are strings filled in by the builder: Xen and Arm names from
 * src/core's tables, KVM event names through the names callback the run
 * driver gives (the summary stage does not read inputs).
 *
 * One vcpu's rows at a time: the report holds the machine-wide rows, the
 * pcpus and the domain rows (runstates, memory, EIP and CR3 lists, the
 * totals) for the whole report, but a vcpu's rows are built when a
 * renderer asks for them (vma_report_vcpu()) and released when it asks for
 * the next one.  A large host's vcpu rows (exits, handlers, sub-lines,
 * addresses, IRQs) would otherwise be most of a run's memory.
 *
 * Lifetime: a report borrows the distributions of the machine it was
 * built from, except the ones it merged itself (grouped sub-lines, address
 * rows, totals), which it owns; it reads the machine again for each vcpu
 * visited.  Destroy it before the machine, and do not change the machine
 * in between.
 */
#ifndef VMALYZE_REPORT_H
#define VMALYZE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/cycles.h"
#include "vmalyze/state.h"

struct vma_worst;
struct vma_symbols;

/* What a duration counts: the trace clock's ticks. */
enum vma_report_unit {
	VMA_REPORT_CYCLES = 0, /* TSC or timer ticks, hz from --cpu-hz / --timer-hz */
	VMA_REPORT_NS,         /* nanoseconds (hz is 10^9) */
};

/*
 * One distribution of durations.  events counts every occurrence, count
 * those of non-zero length (they make total, mean and the percentiles).
 * The percentiles are weighted as @weight says: exits, handlers, addresses
 * and cpu affinity by count, runstates and pcpu times by time (xenalyze's
 * two kinds, see cycles.h).  Without VMA_REPORT_FULL only the counters are
 * filled and @dist is NULL.
 */
struct vma_report_stat {
	uint64_t events, count, total;
	uint64_t mean, min, max;
	uint64_t p5, p50, p95;
	/*
	 * Population standard deviation of the count-weighted samples, from
	 * the distribution's buckets (each taken at its exact mean): exact
	 * below 64 ticks, within 1/64 of the value above.  Filled in FULL
	 * reports of KVM traces and with .totals (the outputs that print it),
	 * else 0.
	 */
	uint64_t stddev;
	enum vma_cycles_weight weight;
	const struct vma_cycles *dist; /* borrowed or report-owned; NULL when empty */
};

/* What refined an exit: the kinds of handler sub-lines. */
enum vma_report_sub_kind {
	VMA_SUB_NONE = 0,   /* no handler record explained the exit */
	VMA_SUB_HANDLER,    /* a Xen handler, by name */
	VMA_SUB_CR,         /* a CR write: key is the CR number */
	VMA_SUB_HYPERCALL,  /* a VMMCALL: key is the hypercall (VMA_SUB_OTHER: several) */
	VMA_SUB_MMIO,       /* MMIO accesses, all addresses together */
	VMA_SUB_KVM,        /* a KVM refinement event: name and key */
	VMA_SUB_SHADOW,     /* a shadow page fault: key its class (TRC_SHADOW minor), name */
};

/* One handler of an exit reason as the model holds it (JSON, CSV). */
struct vma_report_handler {
	uint32_t id;          /* TRC_HVM_* or VMA_KVM_* id, 0 for none */
	const char *name;     /* "(no handler)", the handler's name, or "unknown" */
	uint64_t key;         /* port, address, MSR, CR, hypercall, vector */
	bool is_write;
	struct vma_report_stat stat;
};

/*
 * One sub-line of an exit reason as xenalyze prints it: handlers with the
 * same meaning grouped (all MMIO accesses, one CR), in handler id and key
 * order; interrupts and I/O ports go to their own tables instead.
 */
struct vma_report_subline {
	enum vma_report_sub_kind kind;
	const char *name;     /* handler, hypercall or KVM event name; NULL when unknown */
	uint32_t minor;       /* VMA_SUB_HANDLER: the handler's minor number */
	uint64_t key;
	struct vma_report_stat stat;
};

/*
 * External interrupts that caused an exit, by vector (key VMA_SUB_OTHER:
 * the rest, past 256 keys of the reason or the rows' memory budget).
 */
struct vma_report_vector {
	uint64_t vector;
	uint64_t events;
};

struct vma_report_exit {
	uint32_t code;
	const char *name;     /* NULL when the vendor's table has none */
	struct vma_report_stat stat;
	struct vma_report_handler *handlers;
	uint32_t nr_handlers;
	struct vma_report_subline *sublines;
	uint32_t nr_sublines;
	struct vma_report_vector *vectors;
	uint32_t nr_vectors;
};

/* An I/O port or MMIO address, summed over the exit reasons that reached it. */
struct vma_report_address {
	uint64_t addr;        /* VMA_SUB_OTHER: the addresses that got no row of their own */
	bool is_write;
	struct vma_report_stat stat;
};

/* Guest interrupts injected, by vector, with xenalyze's wake-to-halt times. */
#define VMA_REPORT_W2H_CASES 3
struct vma_report_irq {
	uint32_t vector;      /* VMA_GUEST_VECTORS: every larger vector; VMA_IRQ_OTHER: no row */
	uint64_t count;
	bool has_w2h;
	struct vma_report_stat w2h[VMA_REPORT_W2H_CASES]; /* alone, any, intr */
};

struct vma_report_pv_event {
	uint32_t minor;
	const char *name;     /* NULL when unknown */
	uint64_t count;       /* records of this minor */
	uint64_t subcalls;    /* the hypercall v2 line: multicall subcalls xenalyze adds */
	bool lists_hypercalls; /* xenalyze prints the hypercall table under it */
	bool lists_traps;     /* ... the trap table (TRC_PV_TRAP) */
};

struct vma_report_trap {
	uint32_t trap;        /* the trap (exception vector) number; VMA_PV_OTHER: no row */
	uint64_t count;
};

struct vma_report_hypercall {
	uint32_t op;          /* VMA_PV_OTHER: the numbers that got no row of their own */
	const char *name;     /* NULL when unknown */
	uint64_t count;
};

/* vm-trace's figures (KVM): exits, mean and largest latency, worst 1 ms. */
struct vma_report_latency {
	uint64_t exits, total, mean, max, max_window;
};

/* A guest EIP (or the first of a bucket of EIPs) and how often it was interrupted. */
struct vma_report_eip {
	uint64_t eip;
	uint64_t count;
	bool other;           /* the EIPs that got no row of their own (rows' budget) */
};

/* A guest EIP whose shadow page faults were emulated (shadow.h): the arcs' cycles. */
struct vma_report_emulate_eip {
	uint64_t eip;
	bool other;           /* the EIPs that got no row of their own (rows' budget) */
	struct vma_report_stat stat;
};

/* A guest CR3 of a domain (--with-cr3-enumeration, cr3.h). */
struct vma_report_cr3 {
	uint64_t gmfn;            /* VMA_CR3_OTHER for the CR3s that got no row (rows' budget) */
	bool other;
	uint32_t id;
	uint64_t first, last;     /* ticks since the first record: first load, last switch away */
	uint64_t run_time;        /* guest + hypervisor ticks */
	struct vma_report_stat total, guest, hv;
	struct vma_report_stat hv_by[VMA_XCAT_COUNT]; /* by short-summary category */
	uint64_t switches, flushes;
};

struct vma_report_vcpu {
	uint32_t id;
	enum vma_vcpu_type type;
	struct vma_report_stat runstates[VMA_RS_COUNT];
	struct vma_report_stat runnable[VMA_RUNNABLE_COUNT];
	struct vma_report_stat affinity;       /* over all pcpus */
	struct vma_report_stat *affinity_pcpu; /* per pcpu it ran on ... */
	uint32_t *affinity_pcpu_ids;           /* ... whose ids these are, ascending (VMA_PCPU_OTHER last) */
	uint32_t nr_affinity_pcpu;
	struct vma_report_latency latency;     /* exits == 0: none */
	struct vma_report_latency latency_nohalt; /* the same without HLT/WFx exits */
	/* KVM: the host thread that is this vcpu (0 / "" when not known). */
	uint32_t thread_id;
	const char *thread_name;               /* borrowed from the machine */
	bool guest_mapped;                     /* named by the trace's GUEST option */
	bool has_exits;                        /* an exit table exists (HVM, Arm) */
	struct vma_report_exit *exits;         /* by ascending code */
	uint32_t nr_exits;
	struct vma_report_irq *irqs;
	uint32_t nr_irqs;
	/* HVM, FULL reports: IPIs delivered to it, from their send (vlapic.h); events 0: none. */
	struct vma_report_stat ipi_latency;
	struct vma_report_address *io, *mmio;  /* by address, reads first */
	uint32_t nr_io, nr_mmio;
	/* KVM refinements as address rows too: MSRs and hypercall numbers. */
	struct vma_report_address *msr, *hcall;
	uint32_t nr_msr, nr_hcall;
	struct vma_report_pv_event *pv_events;
	uint32_t nr_pv_events;
	struct vma_report_hypercall *hypercalls;
	uint32_t nr_hypercalls;
	struct vma_report_trap *traps;         /* PV: by trap number, non-zero ones */
	uint32_t nr_traps;
	/* --histogram-interrupt-eip=VEC,INCR (HVM vcpus): buckets seen, by address. */
	bool has_eip_histogram;
	uint32_t eip_histogram_vector;
	uint64_t eip_histogram_increment;
	struct vma_report_eip *eip_histogram;
	uint32_t nr_eip_histogram;
};

/*
 * Exit reasons and address rows summed over several vcpus (a VM's, or
 * the host's), for perf kvm stat's VM and host-wide tables: built only
 * when the build asks (.totals).  Only the stat of each exit is filled.
 */
struct vma_report_totals {
	struct vma_report_exit *exits;         /* by ascending code */
	uint32_t nr_exits;
	struct vma_report_address *io, *mmio, *msr, *hcall;
	uint32_t nr_io, nr_mmio, nr_msr, nr_hcall;
};

struct vma_report_domain {
	uint32_t id;
	/*
	 * Who the VM is, for KVM (VMM name and pid, how its vcpus were
	 * grouped); NULL / 0 for Xen domains, which are their id.
	 */
	const char *name;                      /* the GUEST option's name, or NULL */
	uint32_t pid;                          /* the VMM's pid, 0 when not known */
	const char *comm;                      /* the VMM's name, NULL when not known */
	const char *grouping;                  /* NULL for Xen */
	struct vma_report_stat runstates[VMA_DRS_COUNT];
	struct vma_report_stat run_time;       /* time any of its vcpus ran */
	struct vma_domain_mem mem;             /* grant-table and PoD counters */
	struct vma_report_latency latency;     /* KVM, over all its vcpus */
	struct vma_report_latency latency_nohalt;
	struct vma_report_totals totals;       /* over its vcpus (with .totals) */
	/*
	 * Its vcpus, by ascending id: read them with vma_report_vcpu().  NULL
	 * in a report vma_report_create() made (it builds them one at a time);
	 * a report made by hand may hold them here.
	 */
	struct vma_report_vcpu *vcpus;
	uint32_t nr_vcpus;                     /* the vcpus kept (the filter's) */
	/* --with-interrupt-eip-enumeration=VEC: EIPs by count, most first, then address. */
	bool has_interrupt_eips;
	uint32_t interrupt_eip_vector;
	uint64_t interrupt_eip_total;
	struct vma_report_eip *interrupt_eips;
	uint32_t nr_interrupt_eips;
	/* FULL reports of Xen: shadow emulations by EIP, most time first (then count, EIP). */
	struct vma_report_emulate_eip *emulate_eips;
	uint32_t nr_emulate_eips;
	uint64_t emulate_eip_total;            /* their exits */
	/* --with-cr3-enumeration: its CR3s by first load. */
	bool has_cr3s;
	struct vma_report_cr3 *cr3s;
	uint32_t nr_cr3s;
};

/* KVM: one VM's time on a host cpu, in guest mode and in exits. */
struct vma_report_pcpu_vm {
	uint32_t domain;
	uint64_t guest, exits;
};

struct vma_report_pcpu {
	uint32_t id;
	struct vma_report_stat running, idle, lost;
	struct vma_report_pcpu_vm *vms;        /* KVM, by domain id */
	uint32_t nr_vms;
	uint64_t volume[VMA_VOL_COUNT];        /* bytes of records by class */
};

/* One of the longest exits (--top), with what lets the user find it in the dump. */
struct vma_report_worst {
	uint64_t tsc;         /* the exit's time stamp, the trace's own clock */
	uint64_t ticks;       /* its length */
	uint32_t domain, vcpu;
	uint32_t reason;
	const char *reason_name; /* NULL when the vendor's table has none */
	uint64_t rip;
	uint32_t handler;     /* the refinement's TRC_HVM_* / VMA_KVM_* id, 0 none */
	uint64_t key;
	bool is_write;
};

struct vma_report_event {
	const char *name;     /* "(unknown)" when the input could not name it */
	uint64_t count;
};

/*
 * Precision the machine's summaries gave up to stay within their memory
 * budget (cycles.h): all zero while it was never reached, and then the
 * renderers print nothing of it.
 */
struct vma_report_precision {
	bool reduced;          /* the budget was reached: some percentiles are coarser */
	uint64_t budget;       /* its size, bytes */
	uint64_t at;           /* ticks since the first record when first reached */
	uint64_t at_record;    /* records read by then */
	uint32_t per_octave;   /* sketch buckets per power of two at the end (of 64) */
	double error;          /* the percentiles' relative error bound at that resolution */
	uint32_t exact_limit;  /* exact arrays grown after it gave way past this many samples */
	uint64_t early;        /* exact summaries that became sketches sooner */
	bool compact;          /* past its last level: summaries took the compact form */
	uint64_t compacts;     /* how many */
	uint64_t peak;         /* the most the summaries held, bytes */
};

/*
 * Rows the machine's tables gave up to stay within the rows' part of its
 * memory budget (cycles.h's struct vma_rows_budget): all zero while it
 * never refused a row, and then the renderers print nothing of it.
 */
struct vma_report_folding {
	bool reduced;          /* a row was refused: some keys are in "other" rows */
	uint64_t budget;       /* its size, bytes */
	uint64_t at;           /* ticks since the first record when first refused */
	uint64_t at_record;    /* records read by then */
	uint64_t events;       /* events summed in an "other" row for want of a row */
	uint64_t peak;         /* the most the tables held, bytes */
};

struct vma_report {
	enum vma_report_unit unit;
	uint64_t hz;          /* ticks per second, never 0 */
	bool kvm, svm;
	bool vendor_known;    /* some exit told VMX from SVM */
	bool arm;             /* a vcpu kept is an Arm one (KVM on arm64) */
	bool final;           /* the end of the trace, not an interval's end */
	uint64_t at;          /* ticks since the first record: the interval's end */
	uint64_t total;       /* ticks from the first record to the last */
	uint64_t first_tsc;   /* the trace's first time stamp (the dump's time 0) */
	uint64_t records, lost_records;
	struct vma_report_pcpu *pcpus;         /* by ascending id */
	uint32_t nr_pcpus;
	struct vma_report_domain *domains;     /* by ascending id, idle domain included */
	uint32_t nr_domains;
	/* The default domain (what ran before a pcpu's first scheduling
	 * record), with vma_report_build.default_domain only; else NULL. */
	struct vma_report_domain *default_domain;
	bool has_events;      /* a KVM trace whose event kinds could be named */
	struct vma_report_event *events;       /* non-zero KVM event counts, by kind */
	uint32_t nr_events;
	struct vma_report_totals totals;       /* over every vcpu kept (with .totals) */
	bool filtered;        /* --domain/--vm or --vcpu left rows out */
	struct vma_report_worst *worst;        /* --top: longest first */
	uint32_t nr_worst;
	struct vma_report_precision precision; /* given up to the memory budget */
	struct vma_report_folding folding;     /* rows given up to it */
	struct vma_report_priv *priv;          /* what the report owns */
};

/* Names the builder cannot know itself: KVM event kind @kind (VMA_KVM_KINDS). */
typedef const char *(*vma_report_name_fn)(const void *arg, uint32_t kind);

/*
 * --domain/--vm and --vcpu: the rows a report keeps (--time acts earlier,
 * in the pipeline).  A KVM VM matches by its id or its VMM's pid.
 */
struct vma_report_filter {
	bool domain_set, vcpu_set;
	uint32_t domain, vcpu;
	bool time_set;        /* --time, which the pipeline applies (pipeline.h) */
	double start, end;    /* seconds after the trace's first record; end 0: to the end */
};

/* True when vcpu @vid of domain @did (VMM pid @pid, 0 if none) passes @f. */
bool vma_report_filter_selects(const struct vma_report_filter *f, uint32_t did, uint32_t pid,
			       uint32_t vid);

enum vma_report_detail {
	VMA_REPORT_COUNTS = 0, /* counters only: cheap, for every interval */
	VMA_REPORT_FULL,       /* percentiles, sub-lines, addresses, distributions */
};

struct vma_report_build {
	enum vma_report_unit unit;
	uint64_t hz;
	enum vma_report_detail detail;
	bool final;
	bool default_domain;  /* --show-default-domain-summary: its row too */
	uint64_t at;
	vma_report_name_fn kvm_name;           /* NULL: no KVM event rows */
	const void *kvm_name_arg;
	const struct vma_report_filter *filter; /* NULL: every row */
	const struct vma_worst *worst;         /* --top's list, or NULL */
	bool totals;                           /* fill the VM and host-wide totals */
	bool kvm_totals;                       /* the same, for a KVM trace only (JSON) */
	uint64_t origin;                       /* the trace's first stamp; 0: the machine's */
	/*
	 * Not 0: only the domains whose counters moved after the machine's
	 * record count was this (vma_domain.changed), for interval rows: the
	 * others' differences are zero, and building them made -i cost
	 * intervals x domains.
	 */
	uint64_t changed_since;
};

/*
 * vma_report_create - the report of @machine as it stands.  Call
 * vma_machine_finish() first for the end-of-trace report (some summaries
 * get their samples only there).  Percentiles sort exact samples in place:
 * the machine's summaries hold the same values afterwards.  @how is copied,
 * but what it points to (filter, kvm_name_arg) is read again when vcpus
 * are visited: it must outlive the report (@how->worst need not).
 * Return: owned (vma_report_destroy()); NULL when out of memory.
 */
struct vma_report *vma_report_create(const struct vma_machine *machine,
				     const struct vma_report_build *how);
void vma_report_destroy(struct vma_report *report);

/*
 * vma_report_vcpu - the rows of vcpu @i (i < @d->nr_vcpus) of domain row
 * @d of @report (one of report->domains, or report->default_domain).  The
 * rows of the vcpu asked for before are released first, so a pointer into
 * them dies here (asking for the same vcpu again returns the same rows);
 * the report holds one vcpu's rows at a time.  The rows are the report's:
 * one thread at a time.
 * Return: the vcpu's rows; NULL when out of memory.
 */
const struct vma_report_vcpu *vma_report_vcpu(const struct vma_report *report,
					      const struct vma_report_domain *d, uint32_t i);

/* How many vcpus' rows @report holds now (0 or 1): the bound above, for tests. */
uint32_t vma_report_vcpus_held(const struct vma_report *report);

/*
 * vma_report_stat_fill - @st from the summary @c, weighted by @w: counts
 * and mean, and with @full the percentiles, min, max and @c as its
 * distribution (no stddev).  Exact samples are sorted in place to answer.
 * The one way a stat row is made, for the report and the batch aggregate.
 */
void vma_report_stat_fill(struct vma_report_stat *st, const struct vma_cycles *c,
			  enum vma_cycles_weight w, bool full);

/* Seconds of a duration in the report's clock. */
/* A relative error as a percentage rounded up to hundredths (0.0078125: 0.79). */
static inline double vma_report_error_percent(double error)
{
	double hundredths = error * 10000.0;
	double whole = (double)(uint64_t)hundredths;

	return (whole < hundredths ? whole + 1 : whole) / 100.0;
}

static inline double vma_report_seconds(const struct vma_report *r, uint64_t ticks)
{
	return (double)ticks / (double)r->hz;
}

/*
 * Renderers.  One row each in src/output/render.c's table; adding an
 * output format is one file with its render function and one row there
 * (doc/design.md).
 */
/* kvm-stat: which table (perf kvm stat's --event) and its order (--sort). */
enum vma_stat_event { VMA_STAT_EXIT = 0, VMA_STAT_MMIO, VMA_STAT_IOPORT, VMA_STAT_MSR,
		      VMA_STAT_HYPERCALL };
enum vma_stat_sort { VMA_SORT_COUNT = 0, VMA_SORT_TIME, VMA_SORT_MAX };

struct vma_render_options {
	bool histogram;       /* log-scale histograms under the text lines */
	bool report_pcpu;     /* the per-pcpu section */
	bool no_percentiles;  /* --sample-size=0: text lines without {p5|p50|p95} */
	enum vma_stat_event stat_event;
	enum vma_stat_sort stat_sort;
	const struct vma_symbols *symbols; /* --symbol-file: EIPs as name+0xOFF; may be NULL */
	/* --mmio-enumeration-skip-vga=0: Xen MMIO rows at 0xa0000-0xbffff too */
	bool mmio_keep_vga;
};

struct vma_render {
	FILE *out;
	const struct vma_render_options *opts;
	void *priv;           /* the renderer's own state between calls */
	/*
	 * Which trace of a run this is: its path, its path inside an archive
	 * (NULL for a plain file), its place in the run (0 for the first: the
	 * CSV header goes there), and whether the run has several traces (JSON
	 * then names the trace in each document of its JSON Lines).
	 */
	const char *file;
	const char *member;
	unsigned int index;
	bool batch;
};

struct vma_renderer {
	const char *name;     /* --format NAME */
	const char *option;   /* the command-line option that picks it */
	bool per_interval;    /* wants a report at each interval's end, not only the last */
	int (*render)(struct vma_render *ctx, const struct vma_report *report);
	void (*release)(struct vma_render *ctx); /* frees ctx->priv; NULL when none */
};

/* The renderer named @name, or NULL. */
const struct vma_renderer *vma_renderer_find(const char *name);

/* Render functions of the table's rows.  Return: VMA_OK, VMA_ERR_OUTPUT or VMA_ERR_NOMEM. */
int vma_render_text(struct vma_render *ctx, const struct vma_report *report);
int vma_render_histogram(struct vma_render *ctx, const struct vma_report *report);
int vma_render_json(struct vma_render *ctx, const struct vma_report *report);
int vma_render_interval(struct vma_render *ctx, const struct vma_report *report);
int vma_render_csv(struct vma_render *ctx, const struct vma_report *report);
/*
 * The CSV table's header line alone: traces analysed side by side are
 * rendered with index > 0 and the batch driver writes it once, first.
 */
int vma_render_csv_header(FILE *out);
int vma_render_kvm_stat(struct vma_render *ctx, const struct vma_report *report);
void vma_render_interval_release(struct vma_render *ctx);

#endif /* VMALYZE_REPORT_H */
