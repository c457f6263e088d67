/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pipeline: one trace through input, merge, dispatch and state, the
 * loop every user of the stages shares (the program's run driver, the
 * tests).  It owns the stages it chains; the caller sees each record
 * through hooks, before and after it is folded into the machine, and
 * reads the machine at the end.  Output is the caller's business: the
 * pipeline writes nothing but messages to the diag.
 */
#ifndef VMALYZE_PIPELINE_H
#define VMALYZE_PIPELINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "vmalyze/dispatch.h"
#include "vmalyze/input.h"
#include "vmalyze/state.h"

struct vma_diag;
struct vma_pipeline;

/*
 * threads 0: the smallest xentrace file that gets a reader thread.  Its
 * records are cheap to read (the reader thread's part is about a third),
 * and below this size starting the thread and handing batches over cost
 * about what the overlap saves (bench/README, round thirteen).
 */
#define VMA_THREADS_AUTO_BYTES (16ull << 20)
/*
 * The same for a KVM input, by its event data as stored (data_bytes,
 * input.h): its events cost more to read (decompression, event formats),
 * so the thread pays from about 100,000 events, some 1 MiB compressed and
 * 5 MiB not; the real captures, a few hundred KiB of data after their
 * formats and symbols, run faster on one (bench/README, round fifteen).
 */
#define VMA_THREADS_AUTO_KVM_BYTES (1ull << 20)

struct vma_pipeline_options {
	struct vma_input_options input;
	bool force_svm;     /* --svm-mode */
	uint64_t cpu_hz;    /* ticks per second of a TSC clock (--cpu-hz) */
	uint64_t timer_hz;  /* --timer-hz, when set: wins over cpu_hz */
	bool no_state;      /* only read and merge: no machine, no dispatch (reader tests) */
	uint8_t default_paging_levels; /* --default-guest-paging-levels (state.h) */
	struct vma_eip_options eips;   /* interrupt EIP enumerations (eips.h) */
	bool tsc_loop_fatal;           /* --tsc-loop-fatal (state.h) */
	bool tsc_skew_correct;         /* --tsc-skew-correct: Xen, one thread */
	bool no_stats;                 /* no report will be built: state.h's no_stats */
	size_t summary_budget;         /* --memory-budget's part: state.h's summary_budget */
	size_t rows_budget;            /* --memory-budget's part: state.h's rows_budget */
	/*
	 * Gives the merge a stream of the caller's in place of each stream the
	 * input announces (--dump-raw-reads sees every read); NULL when out of
	 * memory.  NULL: the input's streams themselves.
	 */
	struct vma_stream *(*wrap_stream)(void *arg, struct vma_stream *stream);
	void *wrap_arg;
	/* NULL, or kept now and then at about how many bytes of the input were read */
	_Atomic uint64_t *progress;
	/*
	 * 1: everything on the caller's thread; 2: the readers and the merge
	 * on a thread of their own (feed.h), the same records in the same
	 * order; 0: 2 when two cpus may run the process (vma_feed_cpus())
	 * for a xentrace file of VMA_THREADS_AUTO_BYTES or more or a KVM
	 * input of VMA_THREADS_AUTO_KVM_BYTES of event data, else 1.
	 */
	unsigned int threads;
	/*
	 * In (0, 1): two threads on a bare run (no hooks: -s) of a plain
	 * xentrace file make a run in two parts (split.c) instead of a reader
	 * thread, the seam at this share of the file.  0: no such run.
	 */
	double split_at;
	/*
	 * Every record in the merge's time order: no record taken ahead of
	 * it on a bare one-thread run of a xentrace file (pipeline-ahead.c).
	 * The same report, slower; for comparing the two.
	 */
	bool in_order;
	/*
	 * Runs the caller has going at once, this one included (the batch's
	 * traces at once), 0 meaning 1: the reader thread's waits spin only
	 * when every run can have two cpus.
	 */
	unsigned int runs_at_once;
	/*
	 * --time START,END: only the records from START to END seconds after
	 * the trace's first record are dispatched (and given to the hooks);
	 * the machine starts fresh at START.  time_end 0: to the end.
	 */
	bool time_set;
	double time_start, time_end;
	/* vma_pipeline_open_linked(): [path] the clock mapped by hand, or NULL */
	const struct vma_time_map *const *time_maps;
};

/* Each hook may be NULL; a negative return stops the run with that status. */
/* Folds a record into a machine, as vma_dispatch() does: what an around hook is given. */
typedef int vma_pipeline_dispatch_fn(struct vma_machine *m, const struct vma_record *rec,
				     struct vma_outcome *out);

struct vma_pipeline_hooks {
	void *arg;
	/* Before @stream's record is dispatched: @m as the previous records left it. */
	int (*before)(void *arg, const struct vma_machine *m, const struct vma_stream *stream);
	/* After: how it was taken.  @m and @out are NULL with no_state. */
	int (*after)(void *arg, const struct vma_machine *m, const struct vma_stream *stream,
		     const struct vma_outcome *out);
	/*
	 * Instead of before and after, for a caller with work on both sides of
	 * each record (the dump: a line shows the state before the record and
	 * how the record was taken): it has @dispatch fold the record into @m,
	 * once, and returns as they do.  One call a record, not two, and the
	 * caller's state stays in registers across the dispatch.  Used when
	 * the record's input has a machine.
	 */
	int (*around)(void *arg, struct vma_machine *m, const struct vma_stream *stream,
		      vma_pipeline_dispatch_fn *dispatch);
	/*
	 * The hooks have the input describe() a stream's record, which reads
	 * the reader's own buffers: the run then stays on one thread.
	 */
	bool describe;
};

/*
 * vma_pipeline_open - open @path (see vma_input_open()) and make the
 * machine for it: the input's family and clock decide the machine's KVM
 * options, and a host recording's GUEST information which threads are
 * whose vcpus.
 * Return: VMA_OK and *out owned (vma_pipeline_close()), or a negative
 * VMA_ERR_* (the input's own errors are reported to @diag).
 */
int vma_pipeline_open(const char *path, const struct vma_pipeline_options *opts,
		      struct vma_diag *diag, struct vma_pipeline **out);

/*
 * vma_pipeline_open_fd - the same for an open descriptor @fd (owned from
 * now on, closed on failure too) named @name: see vma_input_open_fd().
 */
int vma_pipeline_open_fd(int fd, const char *name, const struct vma_pipeline_options *opts,
			 struct vma_diag *diag, struct vma_pipeline **out);

/*
 * vma_pipeline_open_linked - one pipeline for linked inputs on one clock:
 * @paths[0] a host, the others its guests (vma_link_traces() finds them).
 * Records of all are merged in time order, equal stamps ranked by input,
 * then cpu, as `trace-cmd report -i HOST -i GUEST...` orders them; each
 * record goes to its own input's machine, and the hooks get that machine.
 * A guest whose trace id the host's GUEST option names has its cpus tied
 * to the host's vcpus (vma_pipeline_host_vcpu()) and its kallsyms name the
 * guest rips of the host's exits in the dump; a guest of a Xen host whose
 * time map names its domain (--guest-tsc FILE@dN) has cpu c tied to that
 * domain's vcpu c.  Linked inputs are read on
 * the caller's thread.  With one path it is vma_pipeline_open().
 */
int vma_pipeline_open_linked(const char *const *paths, uint32_t nr_paths,
			     const struct vma_pipeline_options *opts, struct vma_diag *diag,
			     struct vma_pipeline **out);

/*
 * vma_link_traces - which of the @nr traces @paths given together are one
 * system: host_of[i] is the index of the host trace.dat whose GUEST option
 * names trace i's TRACEID (trace-cmd record -A), or, when @by_hand[i] (its
 * clock mapped by hand, --time-offset or --guest-tsc), of the first trace
 * that is neither mapped by hand nor a guest; else i itself.  The one
 * place that decides; a trace that is not linked stays a trace of its own
 * (batch semantics).
 * Unreadable files are left alone, for their own run to report.  @by_hand
 * may be NULL.  Return: VMA_OK or VMA_ERR_NOMEM.
 */
int vma_link_traces(const char *const *paths, uint32_t nr, const struct vma_input_options *inopts,
		    const bool *by_hand, uint32_t *host_of);

/*
 * vma_pipeline_run - every record in time order, then vma_machine_finish().
 * Return: VMA_OK, or the negative VMA_ERR_* that stopped it (what was read
 * is in the machine all the same); VMA_ERR_FORMAT, reported, when the input
 * held no record at all.
 */
int vma_pipeline_run(struct vma_pipeline *p, const struct vma_pipeline_hooks *hooks);

void vma_pipeline_close(struct vma_pipeline *p);

/*
 * The first input's machine (NULL with no_state), input, and ticks per
 * second.  A run in two parts (options.split_at) ends with another
 * machine than the one it began with: ask for it again after the run.
 */
struct vma_machine *vma_pipeline_machine(const struct vma_pipeline *p);
const struct vma_input *vma_pipeline_input(const struct vma_pipeline *p);
uint64_t vma_pipeline_hz(const struct vma_pipeline *p);
/* --time: the time stamp of the trace's first record, before the window; else 0. */
uint64_t vma_pipeline_first_tsc(const struct vma_pipeline *p);
/* Streams the input announced so far. */
uint32_t vma_pipeline_streams(const struct vma_pipeline *p);

/* Linked inputs: how many, the index of @in (0 when not one), input and machine @i. */
uint32_t vma_pipeline_nr_inputs(const struct vma_pipeline *p);
uint32_t vma_pipeline_input_index(const struct vma_pipeline *p, const struct vma_input *in);
const struct vma_input *vma_pipeline_input_at(const struct vma_pipeline *p, uint32_t i);
struct vma_machine *vma_pipeline_machine_at(const struct vma_pipeline *p, uint32_t i);

/*
 * vma_pipeline_host_vcpu - the host's vcpu (in the first input's machine)
 * that runs cpu @cpu of guest input @i, or NULL when the host does not say.
 */
const struct vma_vcpu *vma_pipeline_host_vcpu(const struct vma_pipeline *p, uint32_t i,
					      uint32_t cpu);

#endif /* VMALYZE_PIPELINE_H */
