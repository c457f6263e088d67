/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TSC skew between pcpus, corrected as xenalyze corrects it.  A runstate
 * change whose old state disagrees with the vcpu's (sched.c remembers it)
 * is explained when the change it should have followed arrives later from
 * another pcpu: the vcpu was woken on pcpu P at T, and ran on pcpu P2 at
 * T2 < T.  P2's clock is taken to be behind by the lag T - T2, and every
 * later record of P2 is moved forward by twice the lag, through the
 * driver's callback (the merge applies it as records are read), with
 * --tsc-skew-correct; without it the offsets are only reported (and still
 * checked for loops), so the records keep their time stamps.
 *
 * Each pcpu keeps the set of pcpus whose clocks were set against it
 * ("downstream"); a correction that would make a pcpu its own downstream
 * is a loop: all offsets go back to 0, or, with --tsc-loop-fatal, the
 * input is stopped (xenalyze's ERR_FILE, so --tolerance 5 and above go on).
 * The sets are bitmaps of any size: xenalyze's hold pcpus 0 to 31 only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/state.h"
#include "vmalyze/state-handlers.h"
#include "vmalyze/status.h"

static bool has(const struct vma_pcpu *p, uint32_t id)
{
	return id / 64 < p->nr_downstream && (p->downstream[id / 64] >> (id % 64) & 1);
}

/* Room in @p's set for pcpu ids below 64 * @words. */
static bool reserve(struct vma_pcpu *p, uint32_t words)
{
	uint64_t *d;

	if (words <= p->nr_downstream)
		return true;
	d = realloc(p->downstream, words * sizeof(*d));
	if (!d)
		return false;
	memset(d + p->nr_downstream, 0, (words - p->nr_downstream) * sizeof(*d));
	p->downstream = d;
	p->nr_downstream = words;
	return true;
}

static void set_offset(struct vma_machine *m, struct vma_pcpu *p, int64_t offset)
{
	p->tsc_offset = offset;
	if (m->options.tsc_offset)
		m->options.tsc_offset(m->options.tsc_offset_arg, p->id, offset);
}

int vma_tsc_skew(struct vma_machine *m, struct vma_pcpu *p, uint32_t behind, uint64_t lag,
		 const struct vma_record *rec)
{
	struct vma_pcpu *p2 = vma_pcpu_of(m, behind);
	uint32_t i, words;
	int64_t old;

	if (!p2 || p2 == p)
		return VMA_OK;
	words = p->nr_downstream > p->id / 64 + 1 ? p->nr_downstream : p->id / 64 + 1;
	if (!reserve(p2, words))
		return VMA_ERR_NOMEM;
	for (i = 0; i < p->nr_downstream; i++)
		p2->downstream[i] |= p->downstream[i];
	p2->downstream[p->id / 64] |= 1ull << (p->id % 64);
	if (has(p2, p2->id)) {
		if (m->options.tsc_loop_fatal) {
			/* The state stage knows no file name: the offset goes in the text. */
			if (!vma_diag_report(m->diag, VMA_LVL_FILE, NULL, UINT64_MAX,
					     "TSC skew dependency loop detected (p%u->p%u) at the "
					     "record at byte %" PRIu64 "; stopping "
								       "(--tsc-loop-fatal)",
					     p->id, p2->id, rec->offset))
				return VMA_ERR_DAMAGED;
		}
		vma_diag_warn_once(m->diag, "tsc-skew-loop", "TSC skew dependency loop detected "
				   "(p%u->p%u): every pcpu's offset goes back to 0", p->id, p2->id);
		for (i = 0; i < m->nr_pcpus; i++) {
			struct vma_pcpu *q = m->pcpus[i];

			if (!q)
				continue;
			if (q->tsc_offset)
				set_offset(m, q, 0);
			if (q->downstream)
				memset(q->downstream, 0, q->nr_downstream * sizeof(*q->downstream));
		}
		return VMA_OK;
	}
	old = p2->tsc_offset;
	/*
	 * In 64-bit unsigned arithmetic, as xenalyze adds: a hostile lag
	 * wraps the offset (the merge adds it modulo 2^64 too) instead of
	 * overflowing a signed sum.
	 */
	set_offset(m, p2, (int64_t)((uint64_t)old + lag * 2));
	vma_diag_report(m->diag, VMA_LVL_WARN, NULL, rec->offset,
			"TSC skew detected p%u->p%u, %" PRIu64 " cycles: p%u's offset %s from "
			"%" PRId64 " to %" PRId64 "%s", p->id, p2->id, lag, p2->id,
			m->options.tsc_offset ? "goes" : "would go", old, p2->tsc_offset,
			m->options.tsc_offset ? "" : " (not corrected without --tsc-skew-correct)");
	return VMA_OK;
}
