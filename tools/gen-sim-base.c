/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plumbing of the simulated host (gen-sim.c): random draws, the queue
 * of pending events, the run queue and the record writer every burst goes
 * through.
 */
#include <stdlib.h>
#include <string.h>

#include "gen-sim.h"
#include "vmalyze/status.h"

/* log2(1 + i/256) in 1/65536 units. */
static const uint32_t log2_q16[257] = {
	0, 369, 736, 1102, 1466, 1829, 2190, 2551, 2909, 3267, 3623, 3978,
	4331, 4683, 5034, 5384, 5732, 6079, 6425, 6769, 7112, 7454, 7795, 8134,
	8473, 8810, 9146, 9480, 9814, 10146, 10477, 10807, 11136, 11464, 11791, 12116,
	12440, 12764, 13086, 13407, 13727, 14046, 14363, 14680, 14996, 15310, 15624, 15937,
	16248, 16559, 16868, 17177, 17484, 17791, 18096, 18401, 18704, 19007, 19308, 19609,
	19909, 20207, 20505, 20802, 21098, 21393, 21687, 21980, 22272, 22564, 22854, 23144,
	23433, 23720, 24007, 24293, 24579, 24863, 25146, 25429, 25711, 25992, 26272, 26551,
	26830, 27108, 27384, 27660, 27936, 28210, 28484, 28757, 29029, 29300, 29571, 29840,
	30109, 30378, 30645, 30912, 31178, 31443, 31707, 31971, 32234, 32496, 32758, 33019,
	33279, 33538, 33797, 34055, 34312, 34569, 34825, 35080, 35334, 35588, 35841, 36094,
	36346, 36597, 36847, 37097, 37346, 37595, 37842, 38090, 38336, 38582, 38827, 39072,
	39316, 39559, 39802, 40044, 40286, 40527, 40767, 41006, 41246, 41484, 41722, 41959,
	42196, 42432, 42667, 42902, 43137, 43370, 43603, 43836, 44068, 44300, 44530, 44761,
	44990, 45220, 45448, 45676, 45904, 46131, 46357, 46583, 46809, 47034, 47258, 47482,
	47705, 47928, 48150, 48372, 48593, 48813, 49034, 49253, 49472, 49691, 49909, 50127,
	50344, 50560, 50776, 50992, 51207, 51422, 51636, 51850, 52063, 52276, 52488, 52700,
	52911, 53122, 53332, 53542, 53751, 53960, 54169, 54377, 54584, 54791, 54998, 55204,
	55410, 55615, 55820, 56025, 56229, 56432, 56635, 56838, 57040, 57242, 57443, 57644,
	57845, 58045, 58245, 58444, 58643, 58841, 59039, 59237, 59434, 59631, 59827, 60023,
	60219, 60414, 60609, 60803, 60997, 61190, 61384, 61576, 61769, 61961, 62152, 62343,
	62534, 62725, 62915, 63104, 63294, 63483, 63671, 63859, 64047, 64234, 64421, 64608,
	64794, 64980, 65166, 65351, 65536,
};

/*
 * Exponential with the given mean, at least 1.  Integer arithmetic only, so
 * a seed gives the same trace on every machine: -log2(U) is the position of
 * U's leading one bit plus an interpolated table logarithm of the rest.
 */
uint64_t rnd_exp(struct sim *s, uint64_t mean)
{
	uint64_t x = rnd(s) | 1, m;
	unsigned int lz = (unsigned int)__builtin_clzll(x), idx;
	uint32_t frac, l2, neg_log2;
	uint64_t v;

	m = x << lz;
	idx = (unsigned int)(m >> 55) & 0xff;
	frac = (uint32_t)(m >> 39) & 0xffff;
	l2 = log2_q16[idx] +
	     (uint32_t)(((uint64_t)(log2_q16[idx + 1] - log2_q16[idx]) * frac) >> 16);
	neg_log2 = ((1u + lz) << 16) - l2;
	/* times ln(2) = 45426 / 65536 */
	v = (uint64_t)(((unsigned __int128)mean * neg_log2 * 45426u) >> 32);
	return v ? v : 1;
}

void seed_rng(struct sim *s, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		s->rng[i] = z ^ (z >> 31);
	}
}

/* ---- event queue ---- */

int pq_init(struct pq *q, uint32_t ids)
{
	q->heap = calloc(ids, sizeof(*q->heap));
	q->pos = malloc(ids * sizeof(*q->pos));
	if (!q->heap || !q->pos)
		return VMA_ERR_NOMEM;
	memset(q->pos, 0xff, ids * sizeof(*q->pos));
	return 0;
}

static inline void pq_place(struct pq *q, uint32_t i, struct pq_ent e)
{
	q->heap[i] = e;
	q->pos[e.id] = i;
}

static void pq_up(struct pq *q, uint32_t i)
{
	struct pq_ent e = q->heap[i];

	while (i > 0) {
		uint32_t parent = (i - 1) / 4;

		if (q->heap[parent].key <= e.key)
			break;
		pq_place(q, i, q->heap[parent]);
		i = parent;
	}
	pq_place(q, i, e);
}

static void pq_down(struct pq *q, uint32_t i)
{
	struct pq_ent e = q->heap[i];

	for (;;) {
		uint32_t c = 4 * i + 1, m = c, end = c + 4, k;

		if (c >= q->len)
			break;
		if (end > q->len)
			end = q->len;
		for (k = c + 1; k < end; k++) {
			if (q->heap[k].key < q->heap[m].key)
				m = k;
		}
		if (q->heap[m].key >= e.key)
			break;
		pq_place(q, i, q->heap[m]);
		i = m;
	}
	pq_place(q, i, e);
}

/* Schedule @id at @time, replacing what it had pending. */
static void pq_set(struct pq *q, uint32_t id, uint64_t time)
{
	uint32_t i = q->pos[id];
	uint64_t old;

	if (i == GEN_NONE) {
		i = q->len++;
		q->heap[i] = (struct pq_ent){ .key = time, .id = id };
		pq_up(q, i);
		return;
	}
	old = q->heap[i].key;
	q->heap[i].key = time;
	if (time < old) {
		pq_up(q, i);
	} else {
		pq_down(q, i);
	}
}

void pq_remove(struct pq *q, uint32_t id)
{
	uint32_t i = q->pos[id];
	struct pq_ent last;

	if (i == GEN_NONE)
		return;
	q->pos[id] = GEN_NONE;
	last = q->heap[--q->len];
	if (i == q->len)
		return;
	pq_place(q, i, last);
	pq_up(q, i);
	pq_down(q, q->pos[last.id]);
}

void set_action(struct sim *s, uint32_t p, enum action a, uint64_t time)
{
	s->g->pcpus[p].action = (uint8_t)a;
	pq_set(&s->pq, p, time);
}

void arm_wake(struct sim *s, uint32_t v, uint64_t time)
{
	pq_set(&s->pq, s->g->opt.pcpus + v, time);
}

/* ---- run queue ---- */

void rq_push(struct sim *s, uint32_t v)
{
	s->rq[(s->rq_head + s->rq_len) % s->g->nr_vcpus] = v;
	s->rq_len++;
}

uint32_t rq_pop(struct sim *s)
{
	uint32_t v;

	if (!s->rq_len)
		return GEN_NONE;
	v = s->rq[s->rq_head];
	s->rq_head = (s->rq_head + 1) % s->g->nr_vcpus;
	s->rq_len--;
	return v;
}

/* ---- record emission ---- */

void step(struct sim *s)
{
	s->clock = s->bt;
	s->bt += 20 + rnd_below(s, 200);
}

void put(struct sim *s, uint32_t event, const uint32_t *words, unsigned int n)
{
	int ret;

	if (s->drop) {
		s->g->pcpus[s->bp].gap_dropped++;
		s->g->dropped++;
	} else {
		ret = vma_xtw_record(s->g->w, s->bp, event, s->bt, words, n);
		if (ret && !s->err)
			s->err = ret;
		vma_gen_obs_tsc(s->g, s->bp, s->bt);
	}
}

/* A record with time stamp. */
void rec(struct sim *s, uint32_t event, const uint32_t *words, unsigned int n)
{
	put(s, event, words, n);
	step(s);
}

/* An HVM handler record: TSC-less in the configured share, as Xen writes them. */
void rec_handler(struct sim *s, uint32_t event, const uint32_t *words, unsigned int n)
{
	int ret;

	if (s->g->opt.no_tsc_ratio <= 0.0 || rnd_unit(s) >= s->g->opt.no_tsc_ratio) {
		rec(s, event, words, n);
		return;
	}
	if (s->drop) {
		s->g->pcpus[s->bp].gap_dropped++;
		s->g->dropped++;
		return;
	}
	ret = vma_xtw_record_notsc(s->g->w, s->bp, event, words, n);
	if (ret && !s->err)
		s->err = ret;
}

void rec_runstate(struct sim *s, uint32_t v, int old, int new_state)
{
	struct gen_vcpu *vc = &s->g->vcpus[v];
	uint32_t word = (uint32_t)vc->vid | ((uint32_t)vc->dom << 16);
	uint64_t tsc = s->bt;

	put(s, TRC_SCHED_RUNSTATE_CHANGE | ((uint32_t)old << 8) | ((uint32_t)new_state << 4),
	    &word, 1);
	if (!s->drop)
		vma_gen_obs_runstate(s->g, s->bp, v, old, new_state, tsc);
	vc->state = (uint8_t)new_state;
	vc->since = tsc;
	step(s);
}

void rec_vcpu_event(struct sim *s, uint32_t event, uint32_t v)
{
	uint32_t words[2] = { s->g->vcpus[v].dom, s->g->vcpus[v].vid };

	rec(s, event, words, 2);
}

uint32_t cycles_to_ns(const struct sim *s, uint64_t cycles)
{
	uint64_t ns = cycles * 1000 / s->us;

	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}
