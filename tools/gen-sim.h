/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to vmalyze-gen's simulated host: the simulator's state and the
 * record writers its files share (gen-sim.c schedules; gen-sim-base.c,
 * gen-sim-hvm.c and gen-sim-pv.c write).
 */
#ifndef VMALYZE_GEN_SIM_H
#define VMALYZE_GEN_SIM_H

#include "gen.h"

/* Pending action of a pcpu. */
enum action {
	A_NONE,
	A_SCHEDULE,   /* tickled idle pcpu picks a vcpu */
	A_RESUME,     /* HVM vcpu just switched in: vmentry */
	A_GUEST_EXIT, /* HVM vcpu in guest mode: next vmexit */
	A_EXIT_DONE,  /* HVM vcpu in an exit: vmentry, or deschedule */
	A_PV,         /* PV vcpu: next hypercall or preemption */
	A_IDLE_TICK,  /* idle pcpu wakes from its C-state and goes back */
};

/*
 * Pending events: an indexed heap keyed by time.  Entry id p < P is pcpu
 * p's next action, id P + v the wake timer of vcpu v.  A new action of a
 * pcpu replaces its old one in place, so nothing stale piles up.  Keys sit
 * in the heap array itself, four children a node: sifting is the
 * generator's hottest loop (a branch-free tournament tree measured slower).
 */
struct pq_ent {
	uint64_t key;
	uint32_t id;
};

struct pq {
	struct pq_ent *heap;
	uint32_t *pos;  /* id -> index in heap, GEN_NONE when absent */
	uint32_t len;
};

struct sim {
	struct gen *g;
	uint64_t rng[4];
	struct pq pq;
	uint32_t *rq;            /* FIFO run queue, ring of vcpu indices */
	uint32_t rq_head, rq_len;
	uint64_t clock;          /* last time stamp used */
	uint64_t bt;             /* time stamp for the burst's next record */
	uint32_t bp;             /* pcpu of the current burst */
	bool drop;               /* the current burst falls in a gap */
	int err;
	/* times in cycles */
	uint64_t us;             /* one microsecond */
	uint64_t slice, pass_every, next_pass, stop;
	/* gaps */
	uint64_t *gap_trigger;   /* simulated time, or file bytes with --size */
	uint32_t gap_next;
	bool gap_armed;
	uint32_t hcall_weights_total;
	uint32_t exit_weights_total;
	uint8_t exit_table[256];  /* weighted draw -> enum gen_exit */
};

/* xoshiro256** */
static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rnd(struct sim *s)
{
	uint64_t *r = s->rng;
	uint64_t out = rotl(r[1] * 5, 7) * 9;
	uint64_t t = r[1] << 17;

	r[2] ^= r[0];
	r[3] ^= r[1];
	r[1] ^= r[2];
	r[0] ^= r[3];
	r[2] ^= t;
	r[3] = rotl(r[3], 45);
	return out;
}

static inline uint64_t rnd_below(struct sim *s, uint64_t n)
{
	return n ? (uint64_t)(((unsigned __int128)rnd(s) * n) >> 64) : 0;
}

static inline double rnd_unit(struct sim *s)
{
	return (double)(rnd(s) >> 11) * (1.0 / 9007199254740992.0);
}

static inline uint64_t rnd_range(struct sim *s, uint64_t lo, uint64_t hi)
{
	return lo + rnd_below(s, hi - lo + 1);
}

/* gen-sim-base.c */
uint64_t rnd_exp(struct sim *s, uint64_t mean);
void seed_rng(struct sim *s, uint64_t seed);
int pq_init(struct pq *q, uint32_t ids);
void pq_remove(struct pq *q, uint32_t id);
void set_action(struct sim *s, uint32_t p, enum action a, uint64_t time);
void arm_wake(struct sim *s, uint32_t v, uint64_t time);
void rq_push(struct sim *s, uint32_t v);
uint32_t rq_pop(struct sim *s);
void step(struct sim *s);
void put(struct sim *s, uint32_t event, const uint32_t *words, unsigned int n);
void rec(struct sim *s, uint32_t event, const uint32_t *words, unsigned int n);
void rec_handler(struct sim *s, uint32_t event, const uint32_t *words, unsigned int n);
void rec_runstate(struct sim *s, uint32_t v, int old, int new_state);
void rec_vcpu_event(struct sim *s, uint32_t event, uint32_t v);
uint32_t cycles_to_ns(const struct sim *s, uint64_t cycles);

/* gen-sim-hvm.c */
void rec_vmexit(struct sim *s, uint32_t v, enum gen_exit ex);
void rec_vmentry(struct sim *s, uint32_t v);
void rec_intr(struct sim *s, uint32_t vector);
void rec_inj_virq(struct sim *s);
uint64_t rec_exit_handlers(struct sim *s, uint32_t v, enum gen_exit ex);
enum gen_exit pick_exit(struct sim *s);
void fill_exit_table(struct sim *s);

/* gen-sim-pv.c */
void rec_mmio(struct sim *s);
void rec_page_fault(struct sim *s, const struct gen_vcpu *vc);
void rec_hypercall(struct sim *s, uint32_t op, uint32_t a0, uint32_t a1, uint32_t a2);
void rec_pm_entry(struct sim *s, uint32_t cstate);
void rec_pm_exit(struct sim *s);
uint32_t pv_hcall_weights(void);
bool rec_pv_hypercall(struct sim *s, uint32_t v);

#endif
