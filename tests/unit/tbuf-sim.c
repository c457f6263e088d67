/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Trace buffers simulated in memory (tbuf-sim.h). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tbuf-sim.h"
#include "vmalyze/trace-ids.h"


static struct sim *hv_sim(void *hv)
{
	return hv;
}

static uint32_t sim_nr_cpus(void *hv)
{
	return hv_sim(hv)->nr_cpus;
}

static uint32_t sim_cpu_khz(void *hv)
{
	return hv_sim(hv)->khz;
}

static int sim_set_size(void *hv, uint32_t pages)
{
	hv_sim(hv)->set_size_calls++;
	hv_sim(hv)->pages = pages;
	return 0;
}

static int sim_set_evt_mask(void *hv, uint32_t mask)
{
	hv_sim(hv)->evt_mask = mask;
	return 0;
}

static int sim_set_cpu_mask(void *hv, const uint8_t *mask, uint32_t nr)
{
	hv_sim(hv)->mask = mask[0];
	return 0;
}

/* Lay out t_info: the page lists after the offsets, one u32 per page. */
static int sim_enable(void *hv, uint32_t pages, uint64_t *mfn, uint64_t *bytes)
{
	struct sim *s = hv;
	uint32_t cpu, i, next = 4; /* in u32 units: after tbuf_size and 4 offsets, rounded */

	if (s->fail_enable)
		return -s->fail_enable;
	memset(s->tinfo, 0, sizeof(s->tinfo));
	s->tinfo[0] = (unsigned char)pages;
	s->tinfo[1] = (unsigned char)(pages >> 8);
	s->x = pages * VMA_TBUF_PAGE - 8;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		if (!(s->mask >> cpu & 1))
			continue;
		s->tinfo[2 + 2 * cpu] = (unsigned char)next;
		s->tinfo[3 + 2 * cpu] = (unsigned char)(next >> 8);
		for (i = 0; i < pages; i++) {
			uint32_t m = BUF_MFN + cpu * pages + i;

			memcpy(s->tinfo + 4 * (next + i), &m, 4);
		}
		next += pages;
		s->buf[cpu] = calloc(pages, VMA_TBUF_PAGE);
		cr_assert_not_null(s->buf[cpu]);
	}
	s->enabled = true;
	if (s->on_enable)
		s->on_enable(s);
	*mfn = TINFO_MFN;
	*bytes = 4 * next;
	return 0;
}

static int sim_disable(void *hv)
{
	hv_sim(hv)->enabled = false;
	hv_sim(hv)->disables++;
	return 0;
}

static void *sim_map(void *hv, const uint64_t *mfns, uint32_t nr, bool writable)
{
	struct sim *s = hv;
	uint32_t cpu, i;

	if (++s->maps == s->fail_map_at) {
		s->maps--;
		errno = EPERM;
		return NULL;
	}
	if (mfns[0] == TINFO_MFN) {
		cr_assert_eq(nr, 1);
		/* Xen shares t_info read-only (SHARE_ro): privcmd refuses it writable. */
		cr_assert(!writable, "t_info mapped writable");
		return s->tinfo;
	}
	cr_assert(writable, "a trace buffer mapped read-only: its cons cannot be stored");
	cpu = (uint32_t)(mfns[0] - BUF_MFN) / s->pages;
	cr_assert_lt(cpu, SIM_CPUS);
	cr_assert_eq(nr, s->pages);
	for (i = 0; i < nr; i++)
		cr_assert_eq(mfns[i], BUF_MFN + cpu * s->pages + i, "page list of pcpu %u", cpu);
	return s->buf[cpu];
}

static void sim_unmap(void *hv, void *addr, uint32_t nr)
{
	hv_sim(hv)->unmaps++;
}

static int sim_wait(void *hv, int ms)
{
	struct sim *s = hv;

	s->waits++;
	usleep(1000); /* the capture loop's poll, shortened */
	if (s->on_wait)
		s->on_wait(s);
	return 1;
}

static void sim_close(void *hv)
{
	hv_sim(hv)->closes++;
}

const struct vma_tbuf_ops sim_ops = {
	sim_nr_cpus, sim_cpu_khz, sim_set_size, sim_set_evt_mask, sim_set_cpu_mask,
	sim_enable,  sim_disable, sim_map,      sim_unmap,        sim_wait,
	sim_close,
};

struct sim *sim_new(uint32_t cpus)
{
	struct sim *s = calloc(1, sizeof(*s));

	cr_assert_not_null(s);
	s->nr_cpus = cpus;
	s->mask = (uint8_t)((1u << cpus) - 1);
	s->khz = 2400000;
	return s;
}

void sim_free(struct sim *s)
{
	for (int i = 0; i < SIM_CPUS; i++)
		free(s->buf[i]);
	free(s);
}

uint32_t *cons_of(struct sim *s, uint32_t cpu)
{
	return (uint32_t *)s->buf[cpu];
}

uint32_t *prod_of(struct sim *s, uint32_t cpu)
{
	return (uint32_t *)s->buf[cpu] + 1;
}

uint32_t sim_room(struct sim *s, uint32_t cpu)
{
	uint32_t prod = *prod_of(s, cpu), cons = *cons_of(s, cpu);

	return s->x - (prod >= cons ? prod - cons : prod + 2 * s->x - cons);
}

/* Xen's side: append @len bytes at prod, wrapping at X; prod runs modulo 2X. */
void produce(struct sim *s, uint32_t cpu, const void *bytes, uint32_t len)
{
	uint32_t prod = *prod_of(s, cpu), cons = *cons_of(s, cpu), used, i;
	unsigned char *data = s->buf[cpu] + 8;

	used = prod >= cons ? prod - cons : prod + 2 * s->x - cons;
	cr_assert_leq(used + len, s->x, "the simulated buffer overflows");
	for (i = 0; i < len; i++)
		data[(prod + i) % s->x] = ((const unsigned char *)bytes)[i];
	*prod_of(s, cpu) = (prod + len) % (2 * s->x);
}

/* A record with a time stamp and one payload word. */
void produce_rec(struct sim *s, uint32_t cpu, uint32_t event, uint64_t tsc, uint32_t word)
{
	uint32_t r[4] = { event | (1u << 28) | (1u << 31), (uint32_t)tsc, (uint32_t)(tsc >> 32),
			  word };

	produce(s, cpu, r, sizeof(r));
}

/* Put both indices of @cpu at @at (to test the wrap). */
void move_indices(struct sim *s, uint32_t cpu, uint32_t at)
{
	*cons_of(s, cpu) = *prod_of(s, cpu) = at;
}

