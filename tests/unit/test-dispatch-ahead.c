/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Records taken ahead in a batch (dispatch.h): the same records taken one
 * by one with vma_dispatch_ahead() and as a batch leave the same machine
 * once the batch is closed: counts, volumes, the machine's and the pcpu's
 * stamps, the vcpu's ahead stamp and the exit statistics.  A record that
 * may not go ahead leaves the batch as it was.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/dispatch.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"

struct host {
	struct vma_diag *diag;
	struct vma_machine *m;
};

static struct vma_record record(uint64_t tsc, bool stamped, uint32_t event, uint16_t n,
				uint32_t w0, uint32_t w1, uint32_t w2)
{
	struct vma_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.tsc = tsc;
	rec.flags = stamped ? VMA_REC_HAS_TSC : 0;
	rec.event = event;
	rec.nr_data = n;
	rec.data[0] = w0;
	rec.data[1] = w1;
	rec.data[2] = w2;
	return rec;
}

/*
 * A host whose pcpu 0 runs d1v0 since @tsc, and has had one exit of it,
 * in order: the vcpu typed HVM, the vendor VMX (records stamped, or not:
 * @stamped).
 */
static void host_open(struct host *h, uint64_t tsc, bool stamped)
{
	const struct vma_record recs[] = {
		record(tsc, stamped, TRC_SCHED_RUNSTATE_CHANGE | 1 << 8 | 0 << 4, 1, 1u << 16, 0,
		       0),
		record(tsc + 10, stamped, TRC_HVM_VMX_EXIT64, 3, 10, 0x1000, 0),
		record(tsc + 20, stamped, TRC_HVM_VMENTRY, 0, 0, 0, 0),
	};
	struct vma_outcome out;
	size_t i;

	h->diag = vma_diag_create(VMA_LVL_MAX_TOLERABLE, VMA_VERB_QUIET);
	h->m = vma_machine_create(h->diag, NULL);
	cr_assert_not_null(h->m);
	for (i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		cr_assert_eq(vma_dispatch(h->m, &recs[i], &out), VMA_OK);
}

static void host_close(struct host *h)
{
	vma_machine_destroy(h->m);
	vma_diag_destroy(h->diag);
}

/*
 * Two I/O exits and a CPUID exit of d1v0; the handler records without a
 * stamp, the last with a time of its own (a reader gives such a record
 * the last stamp; dispatch must not take it for one).
 */
static const struct {
	uint64_t tsc;
	bool stamped;
	uint32_t event;
	uint16_t n;
	uint32_t w[3];
} exits[] = {
	{ 1000, true, TRC_HVM_VMX_EXIT64, 3, { 30, 0x1000, 0 } },
	{ 1000, false, TRC_HVM_IOPORT_READ, 2, { 0x60, 1 } },
	{ 1050, true, TRC_HVM_VMENTRY, 0, { 0 } },
	{ 1100, true, TRC_HVM_VMX_EXIT64, 3, { 10, 0x1010, 0 } },
	{ 1130, true, TRC_HVM_VMENTRY, 0, { 0 } },
	{ 1200, true, TRC_HVM_VMX_EXIT64, 3, { 30, 0x1020, 0 } },
	{ 1210, false, TRC_HVM_IOPORT_WRITE, 2, { 0x61, 1 } },
};
#define NR_EXITS (sizeof(exits) / sizeof(exits[0]))

static struct vma_record exit_record(size_t i)
{
	return record(exits[i].tsc, exits[i].stamped, exits[i].event, exits[i].n, exits[i].w[0],
		      exits[i].w[1], exits[i].w[2]);
}

/* Everything the two ways could leave apart. */
static void assert_same(const struct vma_machine *a, const struct vma_machine *b)
{
	const struct vma_pcpu *pa = vma_pcpu_of(a, 0), *pb = vma_pcpu_of(b, 0);
	struct vma_vcpu *va = vma_vcpu_get((struct vma_machine *)a, 1, 0);
	struct vma_vcpu *vb = vma_vcpu_get((struct vma_machine *)b, 1, 0);
	const uint32_t reasons[] = { 10, 30 };
	size_t i;

	cr_assert_eq(a->records, b->records);
	cr_assert_eq(a->last_tsc, b->last_tsc);
	cr_assert_eq(pa->first_tsc, pb->first_tsc);
	cr_assert_eq(pa->last_tsc, pb->last_tsc);
	cr_assert_eq(memcmp(pa->volume, pb->volume, sizeof(pa->volume)), 0);
	cr_assert_eq(va->ahead_tsc, vb->ahead_tsc);
	cr_assert_eq(va->ahead_pcpu, vb->ahead_pcpu);
	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		const struct vma_exit_stats *ea = vma_hvm_stats_reason(va->hvm.stats, reasons[i]);
		const struct vma_exit_stats *eb = vma_hvm_stats_reason(vb->hvm.stats, reasons[i]);

		cr_assert_not_null(ea);
		cr_assert_not_null(eb);
		cr_assert_eq(ea->cycles.count, eb->cycles.count);
		cr_assert_eq(ea->cycles.cycles, eb->cycles.cycles);
		cr_assert_eq(ea->nr_subs, eb->nr_subs);
	}
}

Test(dispatch_ahead, a_batch_leaves_what_one_by_one_leaves)
{
	struct host one, batch;
	struct vma_ahead_batch b;
	struct vma_outcome out;
	struct vma_record rec;
	size_t i;

	host_open(&one, 900, true);
	host_open(&batch, 900, true);
	for (i = 0; i < NR_EXITS; i++) {
		rec = exit_record(i);
		cr_assert_eq(vma_dispatch_ahead(one.m, &rec, true, &out), 1, "record %zu", i);
	}
	rec = exit_record(0);
	cr_assert_eq(vma_dispatch_ahead(batch.m, &rec, true, &out), 1);
	cr_assert(vma_dispatch_ahead_open(batch.m, &rec, &b));
	for (i = 1; i < NR_EXITS; i++) {
		rec = exit_record(i);
		cr_assert_eq(vma_dispatch_ahead_more(&b, &rec, true), 1, "record %zu", i);
	}
	cr_assert_eq(b.n, NR_EXITS - 1);
	/* The stamps wait for the close: the vcpu's is still the first record's. */
	cr_assert_eq(vma_vcpu_get(batch.m, 1, 0)->ahead_tsc, exits[0].tsc);
	vma_dispatch_ahead_close(&b);
	cr_assert_eq(b.n, 0);
	assert_same(one.m, batch.m);
	cr_assert_eq(vma_pcpu_of(batch.m, 0)->last_tsc, 1200);
	cr_assert_eq(batch.m->last_tsc, 1210);
	cr_assert_eq(vma_vcpu_get(batch.m, 1, 0)->ahead_tsc, exits[NR_EXITS - 1].tsc);
	/* A second close changes nothing. */
	vma_dispatch_ahead_close(&b);
	assert_same(one.m, batch.m);
	host_close(&one);
	host_close(&batch);
}

Test(dispatch_ahead, a_record_that_may_not_go_leaves_the_batch_as_it_was)
{
	struct host one, batch;
	struct vma_ahead_batch b, before;
	struct vma_outcome out;
	struct vma_record rec, pv;
	size_t i;

	host_open(&one, 900, true);
	host_open(&batch, 900, true);
	/* A PV record on an HVM vcpu would be refused: it is left to the merge. */
	pv = record(1060, true, TRC_PV_HYPERCALL_V2, 1, 0, 0, 0);
	for (i = 0; i < 3; i++) {
		rec = exit_record(i);
		cr_assert_eq(vma_dispatch_ahead(one.m, &rec, true, &out), 1);
	}
	cr_assert_eq(vma_dispatch_ahead(one.m, &pv, false, &out), 0);
	rec = exit_record(0);
	cr_assert_eq(vma_dispatch_ahead(batch.m, &rec, true, &out), 1);
	cr_assert(vma_dispatch_ahead_open(batch.m, &rec, &b));
	for (i = 1; i < 3; i++) {
		rec = exit_record(i);
		cr_assert_eq(vma_dispatch_ahead_more(&b, &rec, true), 1);
	}
	before = b;
	cr_assert_eq(vma_dispatch_ahead_more(&b, &pv, false), 0);
	cr_assert_eq(b.n, before.n);
	cr_assert_eq(b.latest, before.latest);
	cr_assert_eq(b.last, before.last);
	cr_assert_eq(b.stamp, before.stamp);
	vma_dispatch_ahead_close(&b);
	cr_assert_eq(one.m->records, batch.m->records);
	cr_assert_eq(one.m->last_tsc, batch.m->last_tsc);
	cr_assert_eq(vma_pcpu_of(one.m, 0)->last_tsc, vma_pcpu_of(batch.m, 0)->last_tsc);
	cr_assert_eq(memcmp(vma_pcpu_of(one.m, 0)->volume, vma_pcpu_of(batch.m, 0)->volume,
			    sizeof(vma_pcpu_of(one.m, 0)->volume)),
		     0);
	cr_assert_eq(vma_vcpu_get(one.m, 1, 0)->ahead_tsc, vma_vcpu_get(batch.m, 1, 0)->ahead_tsc);
	host_close(&one);
	host_close(&batch);
}

Test(dispatch_ahead, no_batch_before_the_pcpus_first_stamp)
{
	struct host h;
	struct vma_ahead_batch b;
	struct vma_outcome out;
	struct vma_record rec = record(1000, false, TRC_HVM_VMX_EXIT64, 3, 30, 0x1000, 0);

	/* Nothing on pcpu 0 has had a stamp of its own yet. */
	host_open(&h, 900, false);
	cr_assert_eq(vma_pcpu_of(h.m, 0)->first_tsc, 0);
	cr_assert_eq(vma_dispatch_ahead(h.m, &rec, true, &out), 1);
	cr_assert_not(vma_dispatch_ahead_open(h.m, &rec, &b));
	host_close(&h);
}
