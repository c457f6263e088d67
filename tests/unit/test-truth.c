/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Golden tests on the generated traces in traces/: the whole pipeline
 * (reader, merge, dispatch, state) over each FILE.xentrace must give every
 * fact its FILE.truth states (written by tools/vmalyze-gen from its own
 * simulation, not from the trace): runstate counts and cycles, exit
 * counts and arc cycles, VMCALL hypercalls, PV hypercalls, records and
 * first and last time stamps.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/pipeline.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

struct run {
	struct vma_pipeline *pipeline;
	struct vma_machine *machine; /* the pipeline's */
	uint64_t file_records; /* records of the file (synthetic ones not counted) */
};

static int count_record(void *arg, const struct vma_machine *m, const struct vma_stream *s,
			const struct vma_outcome *out)
{
	struct run *r = arg;

	(void)m;
	(void)out;
	if (!(s->rec.flags & VMA_REC_SYNTHETIC))
		r->file_records++;
	return VMA_OK;
}

static void trace_path(char *buf, size_t len, const char *name, const char *ext)
{
	const char *top = getenv("top_srcdir");

	if (top)
		snprintf(buf, len, "%s/traces/%s.%s", top, name, ext);
	else
		snprintf(buf, len, "%s/../../traces/%s.%s", TESTS_DIR, name, ext);
}

/* Run the pipeline over a trace into r->machine. */
static void analyze(const char *path, struct run *r, struct vma_diag *diag)
{
	struct vma_pipeline_options opts = { .cpu_hz = 2400000000ull };
	struct vma_pipeline_hooks hooks = { .arg = r, .after = count_record };

	cr_assert_eq(vma_pipeline_open(path, &opts, diag, &r->pipeline), VMA_OK, "open %s", path);
	r->machine = vma_pipeline_machine(r->pipeline);
	cr_assert_eq(vma_pipeline_run(r->pipeline, &hooks), VMA_OK, "reading %s", path);
}

static int runstate_index(const char *name)
{
	static const char *const names[] = { "running", "runnable", "blocked", "offline", "lost" };
	int i;

	for (i = 0; i < 5; i++) {
		if (!strcmp(names[i], name))
			return i;
	}
	cr_assert_fail("unknown runstate %s in the truth file", name);
	return -1;
}

static const struct vma_exit_stats *exit_of(const struct vma_vcpu *v, uint32_t code)
{
	if (v->type != VMA_VCPU_HVM || !v->hvm.stats)
		return NULL;
	return vma_hvm_stats_reason(v->hvm.stats, code);
}

/* Arcs refined by a VMMCALL handler naming hypercall @nr, over all reasons. */
static void vmcall_totals(const struct vma_vcpu *v, uint64_t nr, uint64_t *count, uint64_t *cycles)
{
	uint32_t r, k;

	*count = *cycles = 0;
	for (r = 0; v->type == VMA_VCPU_HVM && v->hvm.stats && r < v->hvm.stats->nr_reasons; r++) {
		const struct vma_exit_stats *e = &v->hvm.stats->reasons[r];

		for (k = 0; k < e->nr_subs; k++) {
			if (e->subs[k].handler == TRC_HVM_VMMCALL && e->subs[k].key == nr) {
				*count += e->subs[k].cycles.events;
				*cycles += e->subs[k].cycles.cycles;
			}
		}
	}
}

static void check_trace(const char *name)
{
	struct vma_diag *diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	char path[4096], line[1024];
	struct run r = { 0 };
	unsigned facts = 0;
	FILE *truth;

	trace_path(path, sizeof(path), name, "xentrace");
	analyze(path, &r, diag);
	trace_path(path, sizeof(path), name, "truth");
	truth = fopen(path, "r");
	cr_assert_not_null(truth, "cannot open %s", path);

	while (fgets(line, sizeof(line), truth)) {
		unsigned long long a, b, c, d2;
		unsigned int dom, vid;
		char what[32], sub[32];
		const struct vma_vcpu *v;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "records %llu", &a) == 1) {
			cr_assert_eq(r.file_records, a, "%s: records", name);
			facts++;
		} else if (sscanf(line, "first-tsc %llu", &a) == 1) {
			cr_assert_eq(r.machine->first_tsc, a, "%s: first tsc", name);
			facts++;
		} else if (sscanf(line, "last-tsc %llu", &a) == 1) {
			cr_assert_eq(r.machine->last_tsc, a, "%s: last tsc", name);
			facts++;
		} else if (sscanf(line, "vcpu %u %u %31s", &dom, &vid, what) == 3) {
			v = vma_vcpu_get(r.machine, dom, vid);
			if (!strcmp(what, "runstate") &&
			    sscanf(line, "vcpu %*u %*u runstate %31s count %llu cycles %llu", sub, &a,
				   &b) == 3) {
				int i = runstate_index(sub);

				cr_assert_eq(v->runstates[i].count, a, "%s d%uv%u %s count", name, dom,
					     vid, sub);
				cr_assert_eq(v->runstates[i].cycles, b, "%s d%uv%u %s cycles", name, dom,
					     vid, sub);
			} else if (!strcmp(what, "exit") &&
				   sscanf(line, "vcpu %*u %*u exit %llx count %llu cycles %llu", &c, &a,
					  &b) == 3) {
				const struct vma_exit_stats *e = exit_of(v, (uint32_t)c);

				cr_assert_not_null(e, "%s d%uv%u exit %llx missing", name, dom, vid, c);
				cr_assert_eq(e->cycles.events, a, "%s d%uv%u exit %llx count", name, dom,
					     vid, c);
				cr_assert_eq(e->cycles.cycles, b, "%s d%uv%u exit %llx cycles", name, dom,
					     vid, c);
			} else if (!strcmp(what, "vmcall") &&
				   sscanf(line, "vcpu %*u %*u vmcall %llu count %llu cycles %llu", &c, &a,
					  &b) == 3) {
				uint64_t n, cy;

				vmcall_totals(v, c, &n, &cy);
				cr_assert_eq(n, a, "%s d%uv%u vmcall %llu count", name, dom, vid, c);
				cr_assert_eq(cy, b, "%s d%uv%u vmcall %llu cycles", name, dom, vid, c);
			} else if (!strcmp(what, "hypercall") &&
				   sscanf(line, "vcpu %*u %*u hypercall %llu count %llu", &c, &a) == 2) {
				uint32_t at;

				cr_assert_eq(v->type, VMA_VCPU_PV, "%s d%uv%u type", name, dom, vid);
				at = vma_code_table_find(&v->pv.hypercall_index, v->pv.hypercalls,
							 sizeof(*v->pv.hypercalls), (uint32_t)c);
				cr_assert_neq(at, UINT32_MAX, "%s d%uv%u hypercall %llu", name, dom,
					      vid, c);
				cr_assert_eq(v->pv.hypercalls[at].count, a,
					     "%s d%uv%u hypercall %llu", name, dom, vid, c);
			} else {
				cr_assert_fail("%s: truth line not understood: %s", name, line);
			}
			facts++;
		}
		(void)d2;
	}
	fclose(truth);
	cr_assert_gt(facts, 50, "%s: only %u facts checked", name, facts);
	vma_pipeline_close(r.pipeline);
	vma_diag_destroy(diag);
}

Test(truth, gen_vmx_4cpu) { check_trace("gen-vmx-4cpu"); }
Test(truth, gen_svm_4cpu) { check_trace("gen-svm-4cpu"); }
Test(truth, gen_svm417_2cpu) { check_trace("gen-svm417-2cpu"); }
Test(truth, gen_pv_lost) { check_trace("gen-pv-lost"); }
Test(truth, gen_vmx_shadow) { check_trace("gen-vmx-shadow"); }
