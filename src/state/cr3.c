/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per guest CR3 accounting (cr3.h), xenalyze's --with-cr3-enumeration.
 * Fed at each vmexit of an HVM vcpu (the guest time since its vmentry
 * goes to the CR3 it ran under) and each arc close: a CR3 write the arc
 * carried takes effect (the same value again is a flush, another a
 * switch), then the arc's own cycles go to the CR3 now loaded --
 * xenalyze's order, so a CR3 write's exit is the new CR3's hypervisor time.
 */
#include <stdlib.h>
#include <string.h>

#include "vmalyze/cr3.h"
#include "vmalyze/diag.h"
#include "vmalyze/state.h"
#include "vmalyze/status.h"
#include "vmalyze/xen-events.h"

/*
 * @gmfn's entry in @l (its number in *@index), added when new; when the
 * rows' budget refuses a new one, the domain's "other" entry.  NULL: no
 * memory.
 */
static struct vma_cr3 *find_or_add(struct vma_machine *m, struct vma_cr3_list *l,
				   uint64_t gmfn, uint64_t tsc, uint32_t *index)
{
	uint32_t before = l->nr, i;
	bool refused;

	i = vma_key_table_get(&m->budget, &l->v, &l->nr, &l->cap, sizeof(*l->v), &l->index, gmfn,
			      false, &refused);
	if (i == UINT32_MAX && refused)
		i = vma_key_table_get(&m->budget, &l->v, &l->nr, &l->cap, sizeof(*l->v),
				      &l->index, VMA_CR3_OTHER, true, &refused);
	if (i == UINT32_MAX)
		return NULL;
	if (l->nr != before) {
		/* new: the next machine-wide id */
		l->v[i].id = m->next_cr3_id++;
		l->v[i].first_tsc = tsc;
	}
	*index = i;
	return &l->v[i];
}

/* @v loads CR3 @val at @tsc, not the value it had loaded (xenalyze's cr3_switch()). */
static void cr3_switch(struct vma_machine *m, struct vma_vcpu *v, uint64_t val, uint64_t tsc)
{
	struct vma_cr3_vcpu *s = &v->hvm.cr3_enum;
	struct vma_cr3_list *l = &v->domain->cr3s;
	struct vma_cr3 *c;

	if (s->loaded) {
		c = &l->v[s->cur];
		vma_cycles_add(&c->total, tsc - s->since, &m->budget);
		c->last_tsc = tsc;
	}
	s->loaded = false;
	s->val = val;
	if (!(val >> 12))
		return;
	c = find_or_add(m, l, val >> 12, tsc, &s->cur);
	if (!c) {
		vma_diag_warn_once(m->diag, "cr3-nomem", "Out of memory: CR3s are missing "
				   "from the CR3 enumeration");
		return;
	}
	c->switches++;
	s->loaded = true;
	s->since = tsc;
}

void vma_cr3_vmexit(struct vma_machine *m, struct vma_vcpu *v, uint64_t tsc)
{
	const struct vma_cr3_vcpu *s = &v->hvm.cr3_enum;
	uint64_t entry = v->hvm.entry_tsc;
	struct vma_cr3 *c;

	if (!s->loaded || !entry || entry > tsc)
		return;
	c = &v->domain->cr3s.v[s->cur];
	vma_cycles_add(&c->guest, tsc - entry, &m->budget);
	c->run_time += tsc - entry;
}

void vma_cr3_arc_close(struct vma_machine *m, struct vma_vcpu *v, uint64_t tsc)
{
	struct vma_hvm *h = &v->hvm;
	struct vma_cr3_vcpu *s = &h->cr3_enum;
	struct vma_cr3 *c;

	if (!h->exit_tsc || h->exit_tsc > tsc)
		return;
	c = s->loaded ? &v->domain->cr3s.v[s->cur] : NULL;
	if (h->inflight.handler == TRC_HVM_CR_WRITE && h->inflight.key == 3) {
		/* xenalyze files a CR3 write's exit under the CR3 it leaves. */
		if (c)
			vma_cycles_add(&c->hv_by[VMA_XCAT_CR3], tsc - h->exit_tsc, &m->budget);
		if (s->val && h->inflight.value == s->val) {
			if (c)
				c->flushes++;
		} else {
			cr3_switch(m, v, h->inflight.value, tsc);
		}
	}
	c = s->loaded ? &v->domain->cr3s.v[s->cur] : NULL;
	if (c && tsc > h->exit_tsc) {
		enum vma_xinterval_category cat = vma_xinterval_category(&h->inflight);

		if (cat != VMA_XCAT_CR3)
			vma_cycles_add(&c->hv_by[cat], tsc - h->exit_tsc, &m->budget);
		vma_cycles_add(&c->hv, tsc - h->exit_tsc, &m->budget);
		c->run_time += tsc - h->exit_tsc;
	}
}

void vma_cr3_list_release(struct vma_cr3_list *l, struct vma_cycles_budget *b)
{
	uint32_t i, j;

	vma_rows_credit(b, vma_key_table_bytes(l->cap, sizeof(*l->v)));
	for (i = 0; i < l->nr; i++) {
		vma_cycles_release(&l->v[i].total, b);
		vma_cycles_release(&l->v[i].guest, b);
		vma_cycles_release(&l->v[i].hv, b);
		for (j = 0; j < VMA_XCAT_COUNT; j++)
			vma_cycles_release(&l->v[i].hv_by[j], b);
	}
	free(l->v);
	free(l->index.slots);
	*l = (struct vma_cr3_list){ 0 };
}
