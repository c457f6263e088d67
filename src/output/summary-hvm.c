/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HVM part of a vcpu's text summary: exit reasons with a sub-line per
 * handler, guest interrupt counts, and the I/O port and MMIO address
 * tables.  Sub-lines are printed under every vcpu that has them (xenalyze
 * prints them only under the first vcpu that registered a handler).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/summary-internal.h"
#include "vmalyze/arm-names.h"
#include "vmalyze/hvm-stats.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-names.h"

/* One I/O or MMIO address, summed over the exit reasons that reached it. */
struct address_row {
	uint64_t addr;
	bool is_write;
	struct vma_cycles cycles;
};

static int by_address(const void *a, const void *b)
{
	const struct address_row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->is_write - (int)y->is_write;
}

/* Name of a sub-line: what refined the arcs it sums. */
static void sub_label(char *buf, size_t len, const struct vma_exit_sub *s)
{
	uint32_t minor = s->handler ? s->handler - TRC_HVM_HANDLER : 0;
	const char *name = s->handler ? vma_hvm_handler_name(minor & 0xff) : NULL;

	if (vma_id_is_kvm(s->handler)) {
		/* KVM refinements without a Xen equivalent: name and key. */
		snprintf(buf, len, "   %s %" PRIu64 " ", vma_kvm_event_name(s->handler), s->key);
		return;
	}
	switch (s->handler) {
	case 0:
		snprintf(buf, len, "   (no handler) ");
		return;
	case TRC_HVM_CR_WRITE:
		snprintf(buf, len, "   cr%" PRIu64 " ", s->key);
		return;
	case TRC_HVM_VMMCALL: {
		const char *hc = vma_hypercall_name((uint32_t)s->key);

		if (s->key == VMA_SUB_OTHER)
			snprintf(buf, len, "    [%10s] ", "other");
		else if (hc)
			snprintf(buf, len, "    [%10s] ", hc);
		else
			snprintf(buf, len, "    [%10" PRIu64 "] ", s->key);
		return;
	}
	case TRC_HVM_IOMEM_READ:
	case TRC_HVM_IOMEM_WRITE:
		snprintf(buf, len, "   mmio ");
		return;
	}
	if (name)
		snprintf(buf, len, "   %s ", name);
	else
		snprintf(buf, len, "   hvm_handler %u ", minor);
}

/* Exits that need no handler: no "(no handler)" line for them. */
static bool handler_expected(bool svm, uint32_t reason)
{
	static const uint32_t vmx_none[] = { 7, 43, 40, 54 };  /* PENDING_VIRT_INTR, TPR_BELOW_THRESHOLD, PAUSE, WBINVD */
	static const uint32_t svm_none[] = { 0x64, 0x77 };     /* VINTR, PAUSE */
	const uint32_t *list = svm ? svm_none : vmx_none;
	size_t i, n = svm ? 2 : 4;

	for (i = 0; i < n; i++) {
		if (list[i] == reason)
			return false;
	}
	return true;
}

/*
 * Sub-lines with the same label (all arcs explained by a CPUID handler,
 * say) are one line; their arcs are merged into a scratch summary.  I/O
 * port handlers are left to the I/O address table.
 */
static int by_handler_key(const void *a, const void *b)
{
	const struct vma_exit_sub *x = a, *y = b;

	if (x->handler != y->handler)
		return x->handler < y->handler ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (int)x->is_write - (int)y->is_write;
}

static int by_handler_key_ptr(const void *a, const void *b)
{
	return by_handler_key(*(const struct vma_exit_sub *const *)a,
			      *(const struct vma_exit_sub *const *)b);
}

static void print_subs(FILE *out, const struct vma_summary_ctx *c, const struct vma_exit_stats *e)
{
	const struct vma_exit_sub **order = calloc(e->nr_subs ? e->nr_subs : 1, sizeof(*order));
	bool *done = calloc(e->nr_subs ? e->nr_subs : 1, sizeof(*done));
	uint32_t i, j;

	if (!done || !order)
		goto out;
	/* Handlers in id order, keys (hypercall numbers, CRs, vectors) ascending. */
	for (i = 0; i < e->nr_subs; i++)
		order[i] = &e->subs[i];
	qsort(order, e->nr_subs, sizeof(*order), by_handler_key_ptr);
	for (i = 0; i < e->nr_subs; i++) {
		struct vma_cycles sum;
		char label[64], other[64];

		if (done[i] || order[i]->handler == TRC_HVM_INTR ||
		    order[i]->handler == TRC_HVM_IOPORT_READ ||
		    order[i]->handler == TRC_HVM_IOPORT_WRITE)
			continue;
		/* KVM refinement events are optional: their absence says nothing. */
		if (!order[i]->handler && (c->kvm || !handler_expected(c->svm, e->reason)))
			continue;
		sub_label(label, sizeof(label), order[i]);
		memset(&sum, 0, sizeof(sum));
		for (j = i; j < e->nr_subs; j++) {
			if (done[j])
				continue;
			sub_label(other, sizeof(other), order[j]);
			if (strcmp(label, other))
				continue;
			vma_cycles_merge(&sum, &order[j]->cycles);
			done[j] = true;
		}
		vma_summary_exit_line(out, c, label, &sum);
		vma_cycles_release(&sum);
	}
	/* External interrupts: a count per vector, as xenalyze prints them. */
	for (i = 0; i < e->nr_subs; i++) {
		if (order[i]->handler != TRC_HVM_INTR)
			continue;
		if (order[i]->key == VMA_SUB_OTHER)
			fprintf(out, "            [other]: %" PRIu64 "\n", order[i]->cycles.events);
		else
			fprintf(out, "            [%3" PRIu64 "]: %" PRIu64 "\n", order[i]->key,
				order[i]->cycles.events);
	}
out:
	free(order);
	free(done);
}

static void address_table(FILE *out, const struct vma_summary_ctx *c,
			  const struct vma_hvm_stats *st, uint32_t read_id, uint32_t write_id,
			  const char *title)
{
	struct address_row *rows = NULL;
	size_t nr = 0, cap = 0, i;
	uint32_t r, k;

	for (r = 0; r < st->nr_slots; r++) {
		const struct vma_exit_stats *e = st->by_reason[r];

		for (k = 0; e && k < e->nr_subs; k++) {
			const struct vma_exit_sub *s = &e->subs[k];

			if (s->handler != read_id && s->handler != write_id)
				continue;
			for (i = 0; i < nr; i++) {
				if (rows[i].addr == s->key && rows[i].is_write == s->is_write)
					break;
			}
			if (i == nr) {
				if (nr == cap) {
					size_t ncap = cap ? cap * 2 : 16;
					struct address_row *n = realloc(rows, ncap * sizeof(*n));

					if (!n)
						goto out;
					rows = n;
					cap = ncap;
				}
				memset(&rows[nr], 0, sizeof(rows[nr]));
				rows[nr].addr = s->key;
				rows[nr].is_write = s->is_write;
				nr++;
			}
			vma_cycles_merge(&rows[i].cycles, &s->cycles);
		}
	}
	if (!nr)
		goto out;
	qsort(rows, nr, sizeof(*rows), by_address);
	fprintf(out, "%s\n", title);
	for (i = 0; i < nr; i++) {
		char prefix[48];

		if (rows[i].addr == VMA_SUB_OTHER)
			snprintf(prefix, sizeof(prefix), "   other:[%c] ", rows[i].is_write ? 'w' : 'r');
		else
			snprintf(prefix, sizeof(prefix), "%8" PRIx64 ":[%c] ", rows[i].addr,
				 rows[i].is_write ? 'w' : 'r');
		vma_summary_exit_line(out, c, prefix, &rows[i].cycles);
	}
out:
	for (i = 0; i < nr; i++)
		vma_cycles_release(&rows[i].cycles);
	free(rows);
}

void vma_summary_hvm(FILE *out, const struct vma_summary_ctx *c, const struct vma_vcpu *v)
{
	const struct vma_hvm_stats *st = v->hvm.stats;
	uint32_t r;

	if (!st)
		return;
	fprintf(out, "Exit reasons:\n");
	for (r = 0; r < st->nr_slots; r++) {
		const struct vma_exit_stats *e = st->by_reason[r];
		const char *name;
		char prefix[48];

		if (!e)
			continue;
		name = v->type == VMA_VCPU_ARM ? vma_arm_exit_name(e->reason)
					       : vma_hvm_exit_name(c->svm, e->reason);
		if (name)
			snprintf(prefix, sizeof(prefix), " %-20s ", name);
		else
			snprintf(prefix, sizeof(prefix), " %20u ", e->reason);
		vma_summary_exit_line(out, c, prefix, &e->cycles);
		print_subs(out, c, e);
	}
	fprintf(out, "Guest interrupt counts:\n");
	for (r = 0; r < VMA_GUEST_VECTORS; r++) {
		static const char *const cases[VMA_W2H_COUNT] = {
			"   * wake to halt alone", "   * wake to halt any  ", "   * intr to halt      ",
		};
		uint32_t k;

		if (!st->guest_irqs[r])
			continue;
		fprintf(out, "  [%3u] %" PRIu64 "\n", r, st->guest_irqs[r]);
		for (k = 0; st->w2h[r] && k < VMA_W2H_COUNT; k++)
			vma_summary_cycle_line(out, c, cases[k], &st->w2h[r]->cases[k]);
	}
	if (st->guest_irqs[VMA_GUEST_VECTORS])
		fprintf(out, "  [%u+] %" PRIu64 "\n", VMA_GUEST_VECTORS,
			st->guest_irqs[VMA_GUEST_VECTORS]);
	address_table(out, c, st, TRC_HVM_IOPORT_READ, TRC_HVM_IOPORT_WRITE, "IO address summary:");
	address_table(out, c, st, TRC_HVM_IOMEM_READ, TRC_HVM_IOMEM_WRITE, "MMIO address summary:");
}
