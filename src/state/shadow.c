/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shadow-paging records (shadow.h): each refines the open exit.  The
 * first fault record of an exit gives its class and path flags (xenalyze
 * sets its post-processing once, from the first); a prealloc-unpin says a
 * shadow was unpinned during it.  The emulation record and the
 * propagation one also say the guest's paging levels.  At the arc's
 * close an emulation's cycles go to its domain's EIP list.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/state-handlers.h"
#include "vmalyze/status.h"

typedef void shadow_event_fn(struct vma_vcpu *v, const struct vma_record *rec);

/*
 * The exit's first fault record: its class, and the exit's refinement
 * (handler TRC_SHADOW, key the class) when no handler record came first,
 * for its sub-line.  @flags: the record's path flags.
 */
static void first_fault(struct vma_hvm_inflight *in, const struct vma_record *rec, uint32_t flags)
{
	if (in->shadow)
		return;
	in->shadow = (uint8_t)vma_xf_sh_minor(rec);
	in->shadow_flags = flags;
	if (!in->handler) {
		in->handler = TRC_SHADOW;
		in->key = in->shadow;
	}
}

/* A fault class without fields the analysis reads. */
static void fault(struct vma_vcpu *v, const struct vma_record *rec)
{
	first_fault(&v->hvm.inflight, rec, 0);
}

static void fault_flags(struct vma_vcpu *v, const struct vma_record *rec)
{
	struct vma_hvm_inflight *in = &v->hvm.inflight;

	if (vma_xf_sh_minor(rec) == TRC_SHADOW_NOT_SHADOW - TRC_SHADOW)
		v->hvm.paging_levels = (uint8_t)vma_xf_sh_levels(rec);
	first_fault(in, rec, vma_xf_sh_fault_flags(rec));
}

static void emulate(struct vma_vcpu *v, const struct vma_record *rec)
{
	struct vma_hvm_inflight *in = &v->hvm.inflight;

	v->hvm.paging_levels = (uint8_t)vma_xf_sh_levels(rec);
	first_fault(in, rec, vma_xf_sh_emul_flags(rec));
}

static void prealloc_unpin(struct vma_vcpu *v, const struct vma_record *rec)
{
	(void)rec;
	v->hvm.inflight.prealloc_unpin = true;
}

static void nothing(struct vma_vcpu *v, const struct vma_record *rec)
{
	(void)v;
	(void)rec;
}

static inline __attribute__((always_inline)) void
shadow_row(struct vma_machine *m, struct vma_vcpu *v, const struct vma_record *rec,
	   struct vma_outcome *out, enum vma_xe_index row, unsigned int words, unsigned int flags,
	   shadow_event_fn *state)
{
	if ((flags & VMA_XE_EXIT) && !v->hvm.vmexit_valid) {
		out->orphan = true;
		return;
	}
	if (__builtin_expect(vma_xe_short(rec, words, flags), 0)) {
		vma_state_refuse_short(m, row, rec, out);
		return;
	}
	state(v, rec);
}

int vma_shadow_record(struct vma_machine *m, struct vma_pcpu *p, const struct vma_record *rec,
		      struct vma_outcome *out)
{
	struct vma_vcpu *v = p->current;

	/* Dispatch let an untyped vcpu through: a shadow record makes it HVM, as in xenalyze. */
	if (__builtin_expect(v->type != VMA_VCPU_HVM, 0))
		vma_vcpu_set_type(v, VMA_VCPU_HVM);
	switch (rec->event & ~0xf00u) { /* the row: without the paging levels */
#define SHADOW_CASE(sym, id, name, words, flags, state, describe) \
	case (id):                                                 \
		shadow_row(m, v, rec, out, VMA_XE_##sym, words, flags, state); \
		break;
		VMA_XEN_SHADOW_EVENTS(SHADOW_CASE)
#undef SHADOW_CASE
	default:
		/* A minor of no row: shown, and an orphan without an exit. */
		if (!v->hvm.vmexit_valid)
			out->orphan = true;
		break;
	}
	return VMA_OK;
}

/*
 * @eip's entry in @l, added when new, its growth charged to @b; the
 * "other" entry when @b refuses it.  NULL: no memory.
 */
static struct vma_eip_cycles *eip_entry(struct vma_cycles_budget *b,
					struct vma_eip_cycles_list *l, uint64_t eip)
{
	bool refused;
	uint32_t i = vma_key_table_get(b, &l->v, &l->nr, &l->cap, sizeof(*l->v), &l->index, eip,
				       false, &refused);

	if (i != UINT32_MAX)
		return &l->v[i];
	if (refused && !l->other) {
		vma_rows_force(b, sizeof(*l->other));
		l->other = calloc(1, sizeof(*l->other));
		if (!l->other)
			vma_rows_credit(b, sizeof(*l->other));
	}
	return refused ? l->other : NULL;
}

void vma_shadow_arc_close(struct vma_machine *m, struct vma_vcpu *v, uint64_t cycles)
{
	struct vma_eip_cycles *e;

	if (v->hvm.inflight.shadow != TRC_SHADOW_EMULATE - TRC_SHADOW)
		return;
	e = eip_entry(&m->budget, &v->domain->emulate_eips, v->hvm.rip);
	if (!e) {
		vma_diag_warn_once(m->diag, "emulate-eip-nomem", "Out of memory: EIPs are missing "
				   "from the emulate EIP lists");
		return;
	}
	vma_cycles_add(&e->cycles, cycles, &m->budget);
}

void vma_eip_cycles_release(struct vma_eip_cycles_list *l, struct vma_cycles_budget *b)
{
	uint32_t i;

	for (i = 0; i < l->nr; i++)
		vma_cycles_release(&l->v[i].cycles, b);
	vma_rows_credit(b, vma_key_table_bytes(l->cap, sizeof(*l->v)));
	if (l->other) {
		vma_cycles_release(&l->other->cycles, b);
		vma_rows_credit(b, sizeof(*l->other));
		free(l->other);
	}
	free(l->v);
	free(l->index.slots);
	*l = (struct vma_eip_cycles_list){ 0 };
}
