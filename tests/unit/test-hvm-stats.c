/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-vcpu exit tables (hvm-stats.h): exit reasons, refinements and
 * injected vectors are kept in tables sized by what is seen, so these
 * check lookups through growth, many keys in scrambled order, the shared
 * entry of huge codes, and the orders the report reads them in (the PV
 * hypercall and trap tables are code tables too).  Wake-to-halt start
 * times (state.h, hvm.c) are checked through dispatch in test-state.c.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "vmalyze/hvm-stats.h"
#include "vmalyze/state.h"
#include "vmalyze/trace-ids.h"

/* A fixed permutation of 0..n-1 (n a power of two): i * odd mod n. */
static uint32_t scramble(uint32_t i, uint32_t n)
{
	return (i * 2654435761u) & (n - 1);
}

static struct vma_hvm_inflight refinement(uint32_t handler, uint64_t key, bool is_write)
{
	struct vma_hvm_inflight in;

	memset(&in, 0, sizeof(in));
	in.handler = handler;
	in.key = key;
	in.is_write = is_write;
	return in;
}

/* 2,048 codes, each given code + 1 arcs of code + 1 cycles, in a scrambled order. */
Test(hvm_stats, many_reasons_found_through_growth)
{
	struct vma_hvm_stats *st = vma_hvm_stats_create(NULL);
	const uint32_t n = 2048;
	uint32_t i, k;

	cr_assert_not_null(st);
	for (k = 0; k < 4; k++) {
		for (i = 0; i < n; i++) {
			uint32_t code = scramble(i, n);
			struct vma_hvm_inflight in = refinement(0, 0, false);

			/* codes get 1, 2, 3 or 4 arcs: code % 4 + 1 */
			if (k <= code % 4)
				vma_hvm_stats_add_arc(st, code, &in, code + 1);
		}
	}
	cr_assert_eq(st->nr_reasons, n);
	for (i = 0; i < n; i++) {
		const struct vma_exit_stats *e = vma_hvm_stats_reason(st, i);

		cr_assert_not_null(e, "code %u lost", i);
		cr_assert_eq(e->reason, i);
		cr_assert_eq(e->cycles.count, i % 4 + 1, "code %u", i);
		cr_assert_eq(e->cycles.cycles, (uint64_t)(i % 4 + 1) * (i + 1), "code %u", i);
	}
	cr_assert_null(vma_hvm_stats_reason(st, n), "a code never seen");
	cr_assert_null(vma_hvm_stats_reason(st, 0x20000u));
	vma_hvm_stats_destroy(st);
}

/* The report lists reasons by code, whatever order they came in; huge codes share the last. */
Test(hvm_stats, sorted_by_code_and_huge_codes_shared)
{
	static const uint32_t codes[] = { 0x400, 48, 0x7f, 1, 0x12345, 30, 0x60, 0xffffffffu, 0 };
	const struct vma_exit_stats *order[16];
	struct vma_hvm_stats *st = vma_hvm_stats_create(NULL);
	struct vma_hvm_inflight in = refinement(0, 0, false);
	uint32_t i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		vma_hvm_stats_add_arc(st, codes[i], &in, 10);
	cr_assert_eq(st->nr_reasons, 8, "0x12345 and 0xffffffff are one entry");
	vma_code_table_sorted(st->reasons, sizeof(*st->reasons), st->nr_reasons,
			      (const void **)order);
	cr_assert_eq(order[0]->reason, 0);
	cr_assert_eq(order[1]->reason, 1);
	cr_assert_eq(order[2]->reason, 30);
	cr_assert_eq(order[3]->reason, 48);
	cr_assert_eq(order[4]->reason, 0x60);
	cr_assert_eq(order[5]->reason, 0x7f);
	cr_assert_eq(order[6]->reason, 0x400);
	cr_assert_eq(order[7]->reason, 0x12345, "the first huge code names the shared entry");
	cr_assert_eq(order[7]->cycles.count, 2);
	cr_assert_eq(vma_hvm_stats_reason(st, 0xffffffffu), order[7]);
	for (i = 0; i < 7; i++)
		cr_assert_eq(order[i]->cycles.count, 1);
	vma_hvm_stats_destroy(st);
}

/* Refinements: found again among many, by handler, key and direction; past the cap, "other". */
Test(hvm_stats, refinements_by_key_and_the_other_entry)
{
	struct vma_hvm_stats *st = vma_hvm_stats_create(NULL);
	const struct vma_exit_stats *e;
	uint64_t total = 0;
	uint32_t i, k;

	for (k = 0; k < 3; k++) {
		for (i = 0; i < 512; i++) {
			uint32_t key = scramble(i, 512);
			uint32_t handler = TRC_HVM_IOPORT_READ + (key & 1);
			struct vma_hvm_inflight in;

			in = refinement(handler, 0x1000u + key / 2, key & 2);

			vma_hvm_stats_add_arc(st, 30, &in, key + 1);
		}
	}
	e = vma_hvm_stats_reason(st, 30);
	cr_assert_not_null(e);
	cr_assert_eq(e->cycles.count, 3 * 512);
	cr_assert_leq(e->nr_subs, VMA_MAX_SUBS + 4,
		      "past the cap, one other entry per handler and direction");
	for (i = 0; i < e->nr_subs; i++) {
		const struct vma_exit_sub *s = &e->subs[i];
		uint32_t j;

		for (j = 0; j < i; j++) {
			cr_assert(e->subs[j].handler != s->handler || e->subs[j].key != s->key ||
				  e->subs[j].is_write != s->is_write, "sub %u twice", i);
		}
		total += s->cycles.events;
		if (s->key == VMA_SUB_OTHER)
			continue;
		/* The key's own arcs, none lost to another sub: 3 of key + 1 cycles. */
		k = (uint32_t)(s->key - 0x1000u) * 2 + (s->handler - TRC_HVM_IOPORT_READ);
		cr_assert_eq(s->is_write, (k & 2) != 0);
		cr_assert_eq(s->cycles.events, 3, "key %u", k);
		cr_assert_eq(s->cycles.cycles, 3ull * (k + 1), "key %u", k);
	}
	cr_assert_eq(total, 3 * 512, "every arc in one sub");
	vma_hvm_stats_destroy(st);
}

/* Injected vectors: counted by vector in any order, listed ascending, larger ones at 256. */
Test(hvm_stats, injected_vectors_ascending)
{
	const struct vma_irq_stats *order[VMA_GUEST_VECTORS + 1];
	struct vma_hvm_stats *st = vma_hvm_stats_create(NULL);
	uint32_t i, k;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < 256; i++) {
			uint32_t vec = scramble(i, 256);

			if (vec % 3 == 0) /* not every third vector */
				continue;
			vma_hvm_stats_count_irq(st, vec);
		}
	}
	vma_hvm_stats_count_irq(st, 300);
	vma_hvm_stats_count_irq(st, 0xffffffffu);
	for (i = 0; i < 256; i++)
		cr_assert_eq(vma_hvm_stats_irqs(st, i), i % 3 ? 2 : 0, "vector %u", i);
	cr_assert_eq(vma_hvm_stats_irqs(st, VMA_GUEST_VECTORS), 2, "the larger vectors");
	cr_assert_eq(vma_hvm_stats_irqs(st, 1000), 0);
	cr_assert_eq(st->nr_irqs, 170 + 1, "170 vectors below 256, one entry for the larger");
	vma_code_table_sorted(st->irqs, sizeof(*st->irqs), st->nr_irqs, (const void **)order);
	for (i = 1; i < st->nr_irqs; i++)
		cr_assert_lt(order[i - 1]->vector, order[i]->vector);
	cr_assert_eq(order[st->nr_irqs - 1]->vector, VMA_GUEST_VECTORS);
	/* A wake-to-halt time goes to its own vector's entry. */
	vma_hvm_stats_add_w2h(st, 0xef, VMA_W2H_INTR, 77);
	vma_hvm_stats_add_w2h(st, 300, VMA_W2H_INTR, 5);
	for (i = 0; i < st->nr_irqs; i++) {
		const struct vma_irq_stats *q = &st->irqs[i];

		cr_assert_eq(q->w2h != NULL, q->vector == 0xef, "vector %u", q->vector);
	}
	vma_hvm_stats_destroy(st);
}

/* A code table of 40,000 numbers up to 0xffff and beyond: each found, sorted, huge ones shared. */
Test(hvm_stats, code_table_many_codes)
{
	struct vma_pv_count *t = NULL, *c;
	const struct vma_pv_count **order;
	struct vma_code_index x = { 0 };
	uint32_t nr = 0, cap = 0, i, k;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < 65536; i++) {
			uint32_t code = scramble(i, 65536);
			uint32_t at;

			if (code % 8 >= 5) /* 5 of every 8 codes */
				continue;
			at = vma_code_table_find(&x, t, sizeof(*t), code);
			if (at != UINT32_MAX)
				c = &t[at];
			else
				c = vma_code_table_add(&t, &nr, &cap, sizeof(*t), &x, code);
			cr_assert_not_null(c);
			cr_assert_eq(c->number, code);
			c->count++;
		}
	}
	c = vma_code_table_add(&t, &nr, &cap, sizeof(*t), &x, 0x20000u);
	c->count = 7;
	cr_assert_eq(vma_code_table_find(&x, t, sizeof(*t), 0xfffffffu), nr - 1, "shared");
	cr_assert_eq(nr, 65536 / 8 * 5 + 1);
	for (i = 0; i < 65536; i++) {
		uint32_t at = vma_code_table_find(&x, t, sizeof(*t), i);

		cr_assert_eq(at != UINT32_MAX, i % 8 < 5, "code %u", i);
		if (at != UINT32_MAX)
			cr_assert_eq(t[at].count, 2, "code %u", i);
	}
	order = calloc(nr, sizeof(*order));
	vma_code_table_sorted(t, sizeof(*t), nr, (const void **)order);
	for (i = 1; i < nr; i++)
		cr_assert_lt(order[i - 1]->number, order[i]->number);
	cr_assert_eq(order[nr - 1]->count, 7);
	free(order);
	free(t);
	free(x.slots);
}
