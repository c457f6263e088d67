/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulated Xen host of vmalyze-gen.
 *
 * P pcpus run the vcpus of dom0 (PV), D guest domains (HVM or PV) and the
 * idle domain under a simple FIFO scheduler with a time slice.  The event
 * loop pops the earliest pending action of a pcpu (or a timer that wakes a
 * vcpu) and lets that pcpu write a short burst of records, much as Xen's
 * tracing would on that cpu:
 *
 *  - HVM vcpus alternate guest time and exits: vmexit, handler records,
 *    vmentry.  HLT exits usually block the vcpu inside the exit; a timer
 *    interrupt at the end of the slice may preempt it inside the exit; an
 *    interrupt exit sometimes pauses it (offline).  A vcpu descheduled in an
 *    exit writes its vmentry when it runs again, as Xen does.
 *  - PV vcpus write hypercall records (TRC_PV_HYPERCALL_V2) and block with
 *    sched_op(block) or go offline with vcpu_op(down).
 *  - Wakes happen on the vcpu's last pcpu or a random one; if that pcpu is
 *    running an HVM vcpu in guest mode, the interrupt makes it exit first.
 *  - Idle pcpus write C-state entry and exit records.
 *
 * A lost-records gap drops every burst of one pcpu for a while, then writes
 * TRC_LOST_RECORDS as Xen does, just before the first record that fits.
 *
 * Records a reader will see are reported to the analyzer view
 * (gen-observe.c), which computes the ground truth.
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "vmalyze/status.h"

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

static uint64_t rnd(struct sim *s)
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

static uint64_t rnd_below(struct sim *s, uint64_t n)
{
	return n ? (uint64_t)(((unsigned __int128)rnd(s) * n) >> 64) : 0;
}

static double rnd_unit(struct sim *s)
{
	return (double)(rnd(s) >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t rnd_range(struct sim *s, uint64_t lo, uint64_t hi)
{
	return lo + rnd_below(s, hi - lo + 1);
}

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
static uint64_t rnd_exp(struct sim *s, uint64_t mean)
{
	uint64_t x = rnd(s) | 1, m;
	unsigned int lz = (unsigned int)__builtin_clzll(x), idx;
	uint32_t frac, l2, neg_log2;
	uint64_t v;

	m = x << lz;
	idx = (unsigned int)(m >> 55) & 0xff;
	frac = (uint32_t)(m >> 39) & 0xffff;
	l2 = log2_q16[idx] + (uint32_t)(((uint64_t)(log2_q16[idx + 1] - log2_q16[idx]) * frac) >> 16);
	neg_log2 = ((1u + lz) << 16) - l2;
	/* times ln(2) = 45426 / 65536 */
	v = (uint64_t)(((unsigned __int128)mean * neg_log2 * 45426u) >> 32);
	return v ? v : 1;
}

static void seed_rng(struct sim *s, uint64_t seed)
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

static int pq_init(struct pq *q, uint32_t ids)
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

static void pq_remove(struct pq *q, uint32_t id)
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

static void set_action(struct sim *s, uint32_t p, enum action a, uint64_t time)
{
	s->g->pcpus[p].action = (uint8_t)a;
	pq_set(&s->pq, p, time);
}

static void arm_wake(struct sim *s, uint32_t v, uint64_t time)
{
	pq_set(&s->pq, s->g->opt.pcpus + v, time);
}

/* ---- run queue ---- */

static void rq_push(struct sim *s, uint32_t v)
{
	s->rq[(s->rq_head + s->rq_len) % s->g->nr_vcpus] = v;
	s->rq_len++;
}

static uint32_t rq_pop(struct sim *s)
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

static void step(struct sim *s)
{
	s->clock = s->bt;
	s->bt += 20 + rnd_below(s, 200);
}

static void put(struct sim *s, uint32_t event, const uint32_t *words, unsigned int n)
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
static void rec(struct sim *s, uint32_t event, const uint32_t *words, unsigned int n)
{
	put(s, event, words, n);
	step(s);
}

/* An HVM handler record: TSC-less in the configured share, as Xen writes them. */
static void rec_handler(struct sim *s, uint32_t event, const uint32_t *words, unsigned int n)
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

static void rec_runstate(struct sim *s, uint32_t v, int old, int new_state)
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

static void rec_vcpu_event(struct sim *s, uint32_t event, uint32_t v)
{
	uint32_t words[2] = { s->g->vcpus[v].dom, s->g->vcpus[v].vid };

	rec(s, event, words, 2);
}

static uint32_t cycles_to_ns(const struct sim *s, uint64_t cycles)
{
	uint64_t ns = cycles * 1000 / s->us;

	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

uint32_t vma_gen_exit_code(enum gen_vendor vendor, enum gen_exit ex)
{
	/* VMX basic exit reasons and SVM exit codes. */
	static const uint32_t vmx[EX_MAX] = {
		[EX_EXTINT] = 1, [EX_VINTR] = 7, [EX_CPUID] = 10, [EX_HLT] = 12,
		[EX_VMCALL] = 18, [EX_CR0] = 28, [EX_CR3] = 28, [EX_CR4] = 28,
		[EX_IO] = 30, [EX_MSR_READ] = 31, [EX_MSR_WRITE] = 32, [EX_MMIO] = 48,
		[EX_PF] = 0,
	};
	static const uint32_t svm[EX_MAX] = {
		[EX_EXTINT] = 0x60, [EX_VINTR] = 0x64, [EX_CPUID] = 0x72, [EX_HLT] = 0x78,
		[EX_VMCALL] = 0x81, [EX_CR0] = 0x10, [EX_CR3] = 0x13, [EX_CR4] = 0x14,
		[EX_IO] = 0x7b, [EX_MSR_READ] = 0x7c, [EX_MSR_WRITE] = 0x7c, [EX_MMIO] = 0x400,
		[EX_PF] = 0x4e,
	};

	return vendor == GEN_VMX ? vmx[ex] : svm[ex];
}

static uint64_t guest_rip(struct sim *s, const struct gen_vcpu *v)
{
	uint64_t off = rnd_below(s, 0x400000) & ~3ull;

	if (!v->is64)
		return 0xc0100000ull + (off & 0x3fffff);
	/* Mostly kernel, sometimes user space; always canonical. */
	if (rnd_below(s, 4) == 0)
		return 0x00007f3a5c000000ull + off * 16;
	return v->rip_base + off;
}

static void rec_vmexit(struct sim *s, uint32_t v, enum gen_exit ex)
{
	struct gen_vcpu *vc = &s->g->vcpus[v];
	uint32_t code = vma_gen_exit_code(s->g->opt.vendor, ex);
	uint64_t rip = guest_rip(s, vc);
	uint64_t tsc = s->bt;
	uint32_t event, words[3];

	switch (s->g->opt.vendor) {
	case GEN_VMX:
		event = vc->is64 ? TRC_HVM_VMX_EXIT64 : TRC_HVM_VMX_EXIT;
		break;
	case GEN_SVM:
		event = vc->is64 ? TRC_HVM_SVM_EXIT64 : TRC_HVM_SVM_EXIT;
		break;
	default:
		event = vc->is64 ? TRC_HVM_VMEXIT64 : TRC_HVM_VMEXIT;
		break;
	}
	words[0] = code;
	words[1] = (uint32_t)rip;
	words[2] = (uint32_t)(rip >> 32);
	put(s, event, words, vc->is64 ? 3 : 2);
	if (!s->drop)
		vma_gen_obs_vmexit(s->g, s->bp, ex, tsc);
	vc->in_exit = true;
	vc->exit = (uint8_t)ex;
	vc->exit_block = false;
	vc->exit_offline = false;
	step(s);
}

static void rec_vmentry(struct sim *s, uint32_t v)
{
	uint64_t tsc = s->bt;

	put(s, TRC_HVM_VMENTRY, NULL, 0);
	if (!s->drop)
		vma_gen_obs_vmentry(s->g, s->bp, tsc);
	s->g->vcpus[v].in_exit = false;
	step(s);
}

static void rec_intr(struct sim *s, uint32_t vector)
{
	if (s->g->opt.vendor == GEN_VMX) {
		rec_handler(s, TRC_HVM_INTR, &vector, 1);
	} else {
		/* Xen's SVM code cannot see the vector. */
		rec_handler(s, TRC_HVM_INTR, NULL, 0);
	}
}

static void rec_inj_virq(struct sim *s)
{
	uint32_t words[2] = { 0x30 + (uint32_t)rnd_below(s, 0xc0), 0 };

	rec_handler(s, TRC_HVM_INJ_VIRQ, words, 2);
}

static const uint32_t cpuid_leaves[] = { 0, 1, 4, 6, 7, 0xb, 0xd, 0x40000000, 0x40000001,
					 0x80000001, 0x80000008 };
static const uint32_t io_ports[] = { 0x60, 0x64, 0x70, 0x71, 0x1f0, 0x1f7, 0x3f8, 0x3fd,
				     0xcf8, 0xcfc, 0xb008, 0xc000 };
static const uint32_t msrs[] = { 0x10, 0x1b, 0x3a, 0x48, 0x6e0, 0x830, 0x838, 0xc0000080,
				 0xc0000100, 0xc0000102 };
static const uint32_t vmcalls[] = { 12, 17, 20, 24, 29, 32, 34, 34, 32, 24 };

/*
 * Shadow paging (--shadow): what Xen's sh_page_fault() traces for a page
 * fault (instead of the page-fault record), one fault class with its
 * fields (entries 32-bit for a 2-level guest, addresses 64-bit for a
 * 4-level one; the levels minus 2 in bits 11:8 of the id), sometimes after
 * a shadow unpinned to make room.
 */
static void rec_shadow(struct sim *s, bool is64, uint64_t va)
{
	static const uint32_t classes[] = {
		TRC_SHADOW_EMULATE, TRC_SHADOW_EMULATE, TRC_SHADOW_EMULATE, TRC_SHADOW_EMULATE,
		TRC_SHADOW_FIXUP, TRC_SHADOW_FIXUP, TRC_SHADOW_FIXUP, TRC_SHADOW_NOT_SHADOW,
		TRC_SHADOW_NOT_SHADOW, TRC_SHADOW_MMIO, TRC_SHADOW_EMULATE_UNSHADOW_USER,
		TRC_SHADOW_FAST_PROPAGATE,
	};
	unsigned int levels = is64 ? 4 : 2, n = 0, entries = 1, i;
	bool has_va = true, has_flags = true;
	uint32_t event = classes[rnd_below(s, sizeof(classes) / 4)] | (levels - 2) << 8;
	uint32_t flags = (uint32_t)rnd_below(s, 4) | (rnd_below(s, 5) ? 0 : 1u << 9);
	uint64_t gl1e = 0x80000000ull | (rnd(s) & 0xfffff000ull) | 0x67;
	uint32_t words[8];

	if (!rnd_below(s, 6)) {
		uint64_t gfn = 0x1000 + rnd_below(s, 0x400);

		words[0] = (uint32_t)gfn;
		words[1] = (uint32_t)(gfn >> 32);
		rec_handler(s, TRC_SHADOW_PREALLOC_UNPIN | (levels - 2) << 8, words, 2);
	}
	switch (event & ~0xf00u) {
	case TRC_SHADOW_EMULATE:
		entries = 2; /* the entry, then the value written */
		flags |= rnd_below(s, 8) ? 0 : 1u << 13; /* early unshadow */
		break;
	case TRC_SHADOW_FIXUP:
		flags |= rnd_below(s, 4) ? 0 : 1u << 18; /* unsync */
		break;
	case TRC_SHADOW_NOT_SHADOW:
		break;
	case TRC_SHADOW_EMULATE_UNSHADOW_USER:
		has_flags = false; /* {gfn; va} */
		break;
	case TRC_SHADOW_MMIO:
		entries = 0;
		has_flags = false;
		break;
	default:
		/* Fast propagation: no payload. */
		entries = 0;
		has_flags = has_va = false;
		break;
	}
	for (i = 0; i < entries; i++) {
		uint64_t e = i ? gl1e ^ 0x40 : gl1e; /* the value written sets D */

		words[n++] = (uint32_t)e;
		if (levels > 2)
			words[n++] = (uint32_t)(e >> 32);
	}
	if (has_va) {
		words[n++] = (uint32_t)va;
		if (levels == 4)
			words[n++] = (uint32_t)(va >> 32);
	}
	if (has_flags)
		words[n++] = flags;
	rec_handler(s, event, words, n);
}

/* An emulated MMIO access: the nested page fault, then the access. */
static void rec_mmio(struct sim *s)
{
	uint64_t gpa = 0xfeb00000ull + 0x1000 * rnd_below(s, 16) + 4 * rnd_below(s, 64);
	bool write = rnd_below(s, 2);
	uint32_t words[6];

	words[0] = (uint32_t)gpa;
	words[1] = (uint32_t)(gpa >> 32);
	words[2] = UINT32_MAX; /* INVALID_MFN: emulated MMIO */
	words[3] = UINT32_MAX;
	/* VMX passes the EPT exit qualification, SVM 0. */
	words[4] = s->g->opt.vendor != GEN_VMX ? 0 : write ? 0x182 : 0x181;
	words[5] = 4; /* p2m_mmio_dm */
	rec_handler(s, TRC_HVM_NPF, words, 6);
	words[0] = (uint32_t)gpa;
	words[1] = (uint32_t)rnd(s);
	rec_handler(s, write ? TRC_HVM_IOMEM_WRITE : TRC_HVM_IOMEM_READ, words, 2);
}

static void rec_page_fault(struct sim *s, const struct gen_vcpu *vc)
{
	/*
	 * Xen writes {error_code, va} (va 64-bit in PF_XEN64); xenalyze reads
	 * {va, error_code}.  Keeping the low half of a 64-bit va under 0x8000
	 * keeps xenalyze's misreading a canonical address, so it does not
	 * warn about every fault.
	 */
	uint64_t va = vc->is64 ? ((0x7f00ull + rnd_below(s, 0x100)) << 32) +
				 0x1000 * rnd_below(s, 8) :
		      0x08048000ull + 0x1000 * rnd_below(s, 1 << 16);
	uint32_t words[3];

	words[0] = (uint32_t)rnd_below(s, 8) | 4;
	words[1] = (uint32_t)va;
	words[2] = (uint32_t)(va >> 32);
	/* Xen writes the page-fault record only when shadow records are not traced. */
	if (s->g->opt.shadow)
		rec_shadow(s, vc->is64, va);
	else if (vc->is64)
		rec_handler(s, TRC_HVM_PF_XEN64, words, 3);
	else
		rec_handler(s, TRC_HVM_PF_XEN, words, 2);
}

/* Handler records Xen writes for an exit, and the exit's processing time. */
static uint64_t rec_exit_handlers(struct sim *s, uint32_t v, enum gen_exit ex)
{
	struct gen_vcpu *vc = &s->g->vcpus[v];
	uint32_t words[6];
	uint64_t us = s->us;

	switch (ex) {
	case EX_EXTINT:
		rec_intr(s, rnd_below(s, 3) ? 0xf9 : 0x30 + (uint32_t)rnd_below(s, 0xa0));
		return rnd_range(s, us, 4 * us);
	case EX_VINTR:
		/* Nothing to handle; the injection is written before vmentry. */
		return rnd_range(s, us / 2, us + us / 2);
	case EX_CPUID:
		words[0] = cpuid_leaves[rnd_below(s, sizeof(cpuid_leaves) / 4)];
		words[1] = 0;
		words[2] = (uint32_t)rnd(s);
		words[3] = (uint32_t)rnd(s);
		words[4] = (uint32_t)rnd(s);
		words[5] = (uint32_t)rnd(s);
		rec_handler(s, TRC_HVM_CPUID, words, 6);
		return rnd_range(s, us / 2, 2 * us);
	case EX_HLT:
		vc->exit_block = rnd_below(s, 10) < 8;
		words[0] = !vc->exit_block;
		rec_handler(s, TRC_HVM_HLT, words, 1);
		return rnd_range(s, us / 2, us + us / 2);
	case EX_VMCALL:
		words[0] = vmcalls[rnd_below(s, sizeof(vmcalls) / 4)];
		rec_handler(s, TRC_HVM_VMMCALL, words, 1);
		if (!s->drop)
			vma_gen_obs_vmcall(s->g, s->bp, words[0]);
		return rnd_range(s, us, 10 * us);
	case EX_CR0:
	case EX_CR3:
	case EX_CR4: {
		uint32_t cr = ex == EX_CR0 ? 0 : ex == EX_CR3 ? 3 : 4;
		uint64_t val = cr == 0 ? 0x80050033ull : cr == 4 ? 0x3626f0ull :
			       0x1000ull * rnd_range(s, 0x100, 0x7ffff);

		/* x86-64 Xen writes the 64-bit variant whatever the guest's mode. */
		words[0] = cr;
		words[1] = (uint32_t)val;
		words[2] = (uint32_t)(val >> 32);
		rec_handler(s, TRC_HVM_CR_WRITE64, words, 3);
		return rnd_range(s, us / 2, 3 * us);
	}
	case EX_IO:
		words[0] = io_ports[rnd_below(s, sizeof(io_ports) / 4)];
		words[1] = (uint32_t)rnd_below(s, 256);
		rec_handler(s, rnd_below(s, 2) ? TRC_HVM_IOPORT_READ : TRC_HVM_IOPORT_WRITE,
			    words, 2);
		return rnd_range(s, 2 * us, 30 * us);
	case EX_MSR_READ:
	case EX_MSR_WRITE: {
		uint64_t val = rnd(s) >> (rnd_below(s, 2) ? 16 : 40);

		words[0] = msrs[rnd_below(s, sizeof(msrs) / 4)];
		words[1] = (uint32_t)val;
		words[2] = (uint32_t)(val >> 32);
		rec_handler(s, ex == EX_MSR_READ ? TRC_HVM_MSR_READ : TRC_HVM_MSR_WRITE, words, 3);
		return rnd_range(s, us / 2, 3 * us);
	}
	case EX_MMIO:
		rec_mmio(s);
		return rnd_range(s, 3 * us, 20 * us);
	case EX_PF:
	default:
		rec_page_fault(s, vc);
		return rnd_range(s, us, 8 * us);
	}
}

/* Weights of the exits an HVM guest makes on its own. */
static const uint8_t exit_weight[EX_MAX] = {
	[EX_EXTINT] = 10, [EX_VINTR] = 10, [EX_CPUID] = 8, [EX_HLT] = 10, [EX_VMCALL] = 8,
	[EX_CR0] = 2, [EX_CR3] = 4, [EX_CR4] = 2, [EX_IO] = 14, [EX_MSR_READ] = 6,
	[EX_MSR_WRITE] = 8, [EX_MMIO] = 12, [EX_PF] = 4,
};

static enum gen_exit pick_exit(struct sim *s)
{
	return (enum gen_exit)s->exit_table[rnd_below(s, s->exit_weights_total)];
}

/* PV hypercalls: number, weight.  sched_op(block) and vcpu_op(down) are separate. */
static const struct {
	uint8_t op, weight;
} pv_hcalls[] = {
	{ 1, 6 },   /* mmu_update */
	{ 3, 3 },   /* stack_switch */
	{ 5, 3 },   /* fpu_taskswitch */
	{ 12, 3 },  /* memory_op */
	{ 13, 5 },  /* multicall */
	{ 14, 6 },  /* update_va_mapping */
	{ 15, 8 },  /* set_timer_op */
	{ 17, 2 },  /* xen_version */
	{ 20, 6 },  /* grant_table_op */
	{ 23, 10 }, /* iret */
	{ 24, 4 },  /* vcpu_op */
	{ 26, 6 },  /* mmuext_op */
	{ 29, 2 },  /* sched_op (yield) */
	{ 32, 12 }, /* event_channel_op */
	{ 33, 3 },  /* physdev_op */
};

static const uint32_t gnttab_cmds[4] = { 0, 1, 5, 6 };
static const uint32_t vcpu_cmds[4] = { 4, 7, 8, 9 };

#define HC_ARG32(i) (0x1u << (20 + 2 * (i)))

/* TRC_PV_HYPERCALL_V2 with the arguments Xen's __trace_hypercall() keeps. */
static void rec_hypercall(struct sim *s, uint32_t op, uint32_t a0, uint32_t a1, uint32_t a2)
{
	uint32_t words[4];
	unsigned int n = 1;

	words[0] = op;
	switch (op) {
	case 1:  /* mmu_update: count */
	case 13: /* multicall: count */
	case 26: /* mmuext_op: count */
		words[0] |= HC_ARG32(1);
		words[n++] = a1;
		break;
	case 20: /* grant_table_op: cmd, count */
		words[0] |= HC_ARG32(0) | HC_ARG32(2);
		words[n++] = a0;
		words[n++] = a2;
		break;
	case 24: /* vcpu_op: cmd, vcpuid */
		words[0] |= HC_ARG32(0) | HC_ARG32(1);
		words[n++] = a0;
		words[n++] = a1;
		break;
	case 29: /* sched_op: cmd */
		words[0] |= HC_ARG32(0);
		words[n++] = a0;
		break;
	default:
		break;
	}
	put(s, TRC_PV_HYPERCALL_V2, words, n);
	if (!s->drop)
		vma_gen_obs_hypercall(s->g, s->bp, op);
	step(s);
}

static void rec_pm_entry(struct sim *s, uint32_t cstate)
{
	uint32_t words[4] = { cstate, (uint32_t)s->bt, (uint32_t)rnd_below(s, 100000),
			      (uint32_t)rnd_below(s, 100000) };

	s->g->pcpus[s->bp].cstate = (uint8_t)cstate;
	rec(s, TRC_PM_IDLE_ENTRY, words, 4);
}

static void rec_pm_exit(struct sim *s)
{
	struct gen_pcpu *pc = &s->g->pcpus[s->bp];
	uint32_t words[6] = { pc->cstate, (uint32_t)s->bt, 0, 0, 0, 0 };

	pc->cstate = 0;
	rec(s, TRC_PM_IDLE_EXIT, words, 6);
}

/* ---- scheduling ---- */

static bool is_idle_pcpu(const struct sim *s, uint32_t p)
{
	const struct gen_pcpu *pc = &s->g->pcpus[p];

	return pc->cur == pc->idle && !pc->tickled;
}

/* A vcpu was queued: send an idle pcpu to fetch it. */
static void tickle(struct sim *s, uint32_t v, uint64_t now)
{
	uint32_t n = s->g->opt.pcpus;
	uint32_t p = s->g->vcpus[v].pcpu, i, start;

	if (p >= n || !is_idle_pcpu(s, p)) {
		p = GEN_NONE;
		start = (uint32_t)rnd_below(s, n);
		for (i = 0; i < n; i++) {
			if (is_idle_pcpu(s, (start + i) % n)) {
				p = (start + i) % n;
				break;
			}
		}
	}
	if (p == GEN_NONE)
		return;
	s->g->pcpus[p].tickled = true;
	set_action(s, p, A_SCHEDULE, now + rnd_range(s, s->us, 4 * s->us));
}

static uint64_t next_pv_time(struct sim *s, uint32_t p, uint64_t now)
{
	uint64_t t = now + rnd_exp(s, 15 * s->us);
	uint64_t end = s->g->pcpus[p].slice_end;

	return t < end ? t : end;
}

static void schedule_guest_exit(struct sim *s, uint32_t p, uint64_t now)
{
	uint64_t t = now + rnd_exp(s, 25 * s->us);
	uint64_t end = s->g->pcpus[p].slice_end;

	set_action(s, p, A_GUEST_EXIT, t < end ? t : end);
}

/*
 * The pcpu's vcpu stops running (to @prev_state) and the head of the run
 * queue, or the idle vcpu, takes over.  Xen writes the switch records,
 * then the two runstate changes.
 */
static void do_switch(struct sim *s, uint32_t p, int prev_state)
{
	struct gen *g = s->g;
	struct gen_pcpu *pc = &g->pcpus[p];
	uint32_t prev = pc->cur, next = rq_pop(s);
	struct gen_vcpu *pv = &g->vcpus[prev], *nv;
	uint32_t words[4];
	uint64_t now;

	if (next == GEN_NONE)
		next = pc->idle;
	nv = &g->vcpus[next];
	words[0] = pv->dom;
	words[1] = pv->vid;
	words[2] = cycles_to_ns(s, s->bt - pv->since);
	rec(s, TRC_SCHED_SWITCH_INFPREV, words, 3);
	words[0] = nv->dom;
	words[1] = nv->vid;
	words[2] = nv->state == RS_RUNNABLE ? cycles_to_ns(s, s->bt - nv->since) : 0;
	words[3] = next == pc->idle ? 0 : cycles_to_ns(s, s->slice);
	rec(s, TRC_SCHED_SWITCH_INFNEXT, words, 4);
	words[0] = pv->dom;
	words[1] = pv->vid;
	words[2] = nv->dom;
	words[3] = nv->vid;
	rec(s, TRC_SCHED_SWITCH, words, 4);
	rec_runstate(s, prev, RS_RUNNING, prev_state);
	now = s->bt;
	rec_runstate(s, next, RS_RUNNABLE, RS_RUNNING);
	pc->cur = next;
	nv->pcpu = p;
	if (prev_state == RS_RUNNABLE && prev != pc->idle) {
		rq_push(s, prev);
		tickle(s, prev, now);
	}
	if (next == pc->idle) {
		rec_pm_entry(s, 1 + (uint32_t)rnd_below(s, 3));
		set_action(s, p, A_IDLE_TICK, s->bt + rnd_exp(s, 2000 * s->us));
		return;
	}
	pc->scheduled = true;
	pc->slice_end = now + s->slice;
	if (nv->kind == GEN_HVM) {
		set_action(s, p, A_RESUME, s->bt + rnd_range(s, s->us, 3 * s->us));
	} else {
		set_action(s, p, A_PV, next_pv_time(s, p, s->bt));
	}
}

/* ---- lost-record gaps ---- */

static bool gap_due(struct sim *s, uint64_t now)
{
	uint64_t trig = s->gap_trigger[s->gap_next];

	if (s->g->opt.size)
		return vma_xtw_bytes(s->g->w) >= trig;
	return now >= trig;
}

static void arm_gap(struct sim *s)
{
	uint32_t n = s->g->opt.pcpus, start = (uint32_t)rnd_below(s, n), i;

	for (i = 0; i < n; i++) {
		struct gen_pcpu *pc = &s->g->pcpus[(start + i) % n];

		if (pc->scheduled) {
			pc->gap_pending = true;
			s->gap_armed = true;
			return;
		}
	}
}

/* Write the lost record that ends a gap, as Xen does before the next record. */
static void end_gap(struct sim *s, uint32_t p, uint64_t now)
{
	struct gen *g = s->g;
	struct gen_pcpu *pc = &g->pcpus[p];
	struct gen_vcpu *cur = &g->vcpus[pc->cur];
	int ret;

	ret = vma_xtw_lost(g->w, p, now, pc->gap_dropped, cur->dom, cur->vid, pc->gap_first);
	if (ret && !s->err)
		s->err = ret;
	vma_gen_obs_tsc(g, p, now);
	vma_gen_obs_lost_end(g, p, now, pc->cur);
	pc->in_gap = false;
	pc->lost_records++;
	g->gaps_done++;
	s->gap_armed = false;
	s->gap_next++;
}

/* Start a burst of records on @p at @t or later; returns its time. */
static uint64_t burst(struct sim *s, uint32_t p, uint64_t t)
{
	struct gen_pcpu *pc = &s->g->pcpus[p];

	if (t <= s->clock)
		t = s->clock + 1;
	s->bp = p;
	s->bt = t;
	s->drop = false;
	if (!s->gap_armed && s->gap_next < s->g->opt.lost && gap_due(s, t))
		arm_gap(s);
	if (pc->in_gap) {
		if (t >= pc->gap_until) {
			end_gap(s, p, t);
			step(s);
		} else {
			s->drop = true;
		}
	} else if (pc->gap_pending) {
		pc->gap_pending = false;
		pc->in_gap = true;
		pc->gap_first = t;
		pc->gap_until = t + rnd_range(s, 50 * s->us, 1000 * s->us);
		pc->gap_dropped = 0;
		vma_gen_obs_lost_start(s->g, p, t);
		s->drop = true;
	}
	return s->bt;
}

/* ---- actions ---- */

static void act_schedule(struct sim *s, uint32_t p, uint64_t t)
{
	struct gen_pcpu *pc = &s->g->pcpus[p];

	pc->tickled = false;
	burst(s, p, t);
	if (!s->rq_len) {
		/* Someone else took the work: back to sleep. */
		if (!pc->cstate)
			rec_pm_entry(s, 1 + (uint32_t)rnd_below(s, 3));
		set_action(s, p, A_IDLE_TICK, s->bt + rnd_exp(s, 2000 * s->us));
		return;
	}
	if (pc->cstate)
		rec_pm_exit(s);
	do_switch(s, p, RS_RUNNABLE);
}

static void act_idle_tick(struct sim *s, uint32_t p, uint64_t t)
{
	burst(s, p, t);
	if (s->g->pcpus[p].cstate)
		rec_pm_exit(s);
	rec_pm_entry(s, 1 + (uint32_t)rnd_below(s, 3));
	set_action(s, p, A_IDLE_TICK, s->bt + rnd_exp(s, 2000 * s->us));
}

static void act_resume(struct sim *s, uint32_t p, uint64_t t)
{
	uint32_t v = s->g->pcpus[p].cur;

	burst(s, p, t);
	if (rnd_below(s, 4) == 0)
		rec_inj_virq(s);
	rec_vmentry(s, v);
	schedule_guest_exit(s, p, s->bt);
}

static void act_guest_exit(struct sim *s, uint32_t p, uint64_t t)
{
	struct gen_pcpu *pc = &s->g->pcpus[p];
	uint32_t v = pc->cur;
	enum gen_exit ex;
	uint64_t busy;
	uint32_t vec = 0xf9; /* LOCAL_TIMER */

	t = burst(s, p, t);
	if (t >= pc->slice_end) {
		ex = EX_EXTINT;
		rec_vmexit(s, v, ex);
		rec_intr(s, vec);
		busy = rnd_range(s, s->us, 3 * s->us);
	} else {
		ex = pick_exit(s);
		rec_vmexit(s, v, ex);
		busy = rec_exit_handlers(s, v, ex);
		if (ex == EX_EXTINT && rnd_below(s, 400) == 0) {
			/* An IPI asking this vcpu to pause. */
			s->g->vcpus[v].exit_offline = true;
		}
	}
	set_action(s, p, A_EXIT_DONE, s->bt + busy);
}

static void act_exit_done(struct sim *s, uint32_t p, uint64_t t)
{
	struct gen_pcpu *pc = &s->g->pcpus[p];
	uint32_t v = pc->cur;
	struct gen_vcpu *vc = &s->g->vcpus[v];

	t = burst(s, p, t);
	if (t >= pc->slice_end) {
		if (s->rq_len) {
			do_switch(s, p, RS_RUNNABLE);
			return;
		}
		pc->slice_end = t + s->slice;
	}
	if (vc->exit_block) {
		rec_vcpu_event(s, TRC_SCHED_BLOCK, v);
		do_switch(s, p, RS_BLOCKED);
		arm_wake(s, v, s->bt + rnd_exp(s, 300 * s->us));
		return;
	}
	if (vc->exit_offline) {
		rec_vcpu_event(s, TRC_SCHED_SLEEP, v);
		do_switch(s, p, RS_OFFLINE);
		arm_wake(s, v, s->bt + rnd_exp(s, 2000 * s->us));
		return;
	}
	if (vc->exit == EX_VINTR || rnd_below(s, 8) == 0)
		rec_inj_virq(s);
	rec_vmentry(s, v);
	schedule_guest_exit(s, p, s->bt);
}

static void act_pv(struct sim *s, uint32_t p, uint64_t t)
{
	struct gen_pcpu *pc = &s->g->pcpus[p];
	uint32_t v = pc->cur, r, i;

	t = burst(s, p, t);
	if (t >= pc->slice_end) {
		if (s->rq_len) {
			do_switch(s, p, RS_RUNNABLE);
			return;
		}
		pc->slice_end = t + s->slice;
	}
	r = (uint32_t)rnd_below(s, 1000);
	if (r < 50) {
		rec_hypercall(s, 29, 1, 0, 0); /* sched_op(block) */
		rec_vcpu_event(s, TRC_SCHED_BLOCK, v);
		do_switch(s, p, RS_BLOCKED);
		arm_wake(s, v, s->bt + rnd_exp(s, 400 * s->us));
		return;
	}
	if (r < 51) {
		rec_hypercall(s, 24, 2, s->g->vcpus[v].vid, 0); /* vcpu_op(down) */
		rec_vcpu_event(s, TRC_SCHED_SLEEP, v);
		do_switch(s, p, RS_OFFLINE);
		arm_wake(s, v, s->bt + rnd_exp(s, 2000 * s->us));
		return;
	}
	r = (uint32_t)rnd_below(s, s->hcall_weights_total);
	for (i = 0; i < sizeof(pv_hcalls) / sizeof(pv_hcalls[0]) - 1; i++) {
		if (r < pv_hcalls[i].weight)
			break;
		r -= pv_hcalls[i].weight;
	}
	switch (pv_hcalls[i].op) {
	case 20: /* grant_table_op: map, unmap, copy or query_size; count */
		rec_hypercall(s, 20, gnttab_cmds[rnd_below(s, 4)], 0, 1 + (uint32_t)rnd_below(s, 8));
		break;
	case 24: /* vcpu_op on itself: timers, runstate info */
		rec_hypercall(s, 24, vcpu_cmds[rnd_below(s, 4)], s->g->vcpus[v].vid, 0);
		break;
	case 29: /* sched_op(yield): gives way when others wait */
		rec_hypercall(s, 29, 0, 0, 0);
		if (s->rq_len) {
			do_switch(s, p, RS_RUNNABLE);
			return;
		}
		break;
	default:
		rec_hypercall(s, pv_hcalls[i].op, 0, 1 + (uint32_t)rnd_below(s, 16), 0);
		break;
	}
	set_action(s, p, A_PV, next_pv_time(s, p, s->bt));
}

/* A blocked or offline vcpu becomes runnable; the interrupt lands on some pcpu. */
static void ev_wake(struct sim *s, uint32_t v, uint64_t t)
{
	struct gen *g = s->g;
	struct gen_vcpu *vc = &g->vcpus[v];
	uint32_t w = vc->pcpu;
	struct gen_pcpu *wc;
	int old = vc->state;

	if (old != RS_BLOCKED && old != RS_OFFLINE)
		return;
	if (w >= g->opt.pcpus || rnd_below(s, 10) < 3)
		w = (uint32_t)rnd_below(s, g->opt.pcpus);
	wc = &g->pcpus[w];
	t = burst(s, w, t);
	if (wc->action == A_GUEST_EXIT) {
		/* The HVM vcpu there takes the interrupt as an exit. */
		rec_vmexit(s, wc->cur, EX_EXTINT);
		rec_intr(s, 0xf9);
		set_action(s, w, A_EXIT_DONE, s->bt + rnd_range(s, 2 * s->us, 6 * s->us));
	} else if (wc->cur == wc->idle && wc->cstate) {
		rec_pm_exit(s);
	}
	rec_vcpu_event(s, TRC_SCHED_WAKE, v);
	rec_runstate(s, v, old, RS_RUNNABLE);
	rq_push(s, v);
	tickle(s, v, s->bt);
	if (wc->cur == wc->idle && !wc->tickled && !wc->cstate)
		rec_pm_entry(s, 1 + (uint32_t)rnd_below(s, 3));
}

/* ---- setup and main loop ---- */

static int setup(struct sim *s)
{
	struct gen *g = s->g;
	uint32_t i, p;
	uint64_t t0;

	seed_rng(s, g->opt.seed);
	s->us = g->opt.cpu_hz / 1000000;
	if (s->us < 10)
		s->us = 10;
	s->slice = 2000 * s->us;
	s->pass_every = 100000 * s->us;
	for (i = 0; i < EX_MAX; i++) {
		uint32_t k;

		for (k = 0; k < exit_weight[i]; k++)
			s->exit_table[s->exit_weights_total++] = (uint8_t)i;
	}
	for (i = 0; i < sizeof(pv_hcalls) / sizeof(pv_hcalls[0]); i++)
		s->hcall_weights_total += pv_hcalls[i].weight;
	s->rq = calloc(g->nr_vcpus, sizeof(*s->rq));
	s->gap_trigger = calloc(g->opt.lost + 1, sizeof(*s->gap_trigger));
	if (!s->rq || !s->gap_trigger || pq_init(&s->pq, g->opt.pcpus + g->nr_vcpus))
		return VMA_ERR_NOMEM;
	/* A host that has been up a while: time stamps above 2^32. */
	t0 = g->opt.cpu_hz * (60 + rnd_below(s, 86400));
	s->clock = t0;
	s->next_pass = t0 + s->pass_every;
	s->stop = g->opt.size ? UINT64_MAX : t0 + (uint64_t)(g->opt.duration * (double)g->opt.cpu_hz);
	for (i = 0; i < g->opt.lost; i++) {
		if (g->opt.size) {
			s->gap_trigger[i] = g->opt.size / (g->opt.lost + 1) * (i + 1);
		} else {
			s->gap_trigger[i] = t0 + (s->stop - t0) / (g->opt.lost + 1) * (i + 1);
		}
	}
	/* Guest and dom0 vcpus wait in the run queue, in random order. */
	for (i = g->opt.pcpus; i < g->nr_vcpus; i++)
		rq_push(s, i);
	for (i = s->rq_len; i > 1; i--) {
		uint32_t j = (uint32_t)rnd_below(s, i), tmp = s->rq[i - 1];

		s->rq[i - 1] = s->rq[j];
		s->rq[j] = tmp;
	}
	for (i = 0; i < g->nr_vcpus; i++) {
		g->vcpus[i].since = t0;
		g->vcpus[i].rip_base = 0xffffffff81000000ull + 0x10000ull * rnd_below(s, 64);
	}
	for (p = 0; p < g->opt.pcpus; p++) {
		uint64_t when = t0 + 1 + rnd_below(s, 20 * s->us);

		if (p < s->rq_len) {
			g->pcpus[p].tickled = true;
			set_action(s, p, A_SCHEDULE, when);
		} else {
			set_action(s, p, A_IDLE_TICK, when);
		}
	}
	return s->err;
}

/* Run the action of pcpu @p due at @t. */
static void dispatch(struct sim *s, uint32_t p, uint64_t t)
{
	struct gen_pcpu *pc = &s->g->pcpus[p];
	enum action a = (enum action)pc->action;

	pc->action = A_NONE;
	switch (a) {
	case A_SCHEDULE:
		act_schedule(s, p, t);
		break;
	case A_RESUME:
		act_resume(s, p, t);
		break;
	case A_GUEST_EXIT:
		act_guest_exit(s, p, t);
		break;
	case A_EXIT_DONE:
		act_exit_done(s, p, t);
		break;
	case A_PV:
		act_pv(s, p, t);
		break;
	case A_IDLE_TICK:
		act_idle_tick(s, p, t);
		break;
	default:
		break;
	}
}

int vma_gen_run(struct gen *g)
{
	struct sim s = { .g = g };
	uint32_t p;
	int ret;

	ret = setup(&s);
	while (!ret && s.pq.len && !s.err) {
		uint32_t id = s.pq.heap[0].id;
		uint64_t when = s.pq.heap[0].key;
		uint64_t now = when > s.clock ? when : s.clock + 1;

		if (now > s.stop || (g->opt.size && vma_xtw_bytes(g->w) >= g->opt.size))
			break;
		if (now >= s.next_pass) {
			/* xentrace's periodic pass over all cpus. */
			s.err = vma_xtw_flush_all(g->w);
			s.next_pass += s.pass_every;
		}
		if (id < g->opt.pcpus) {
			/* A new action of this pcpu replaces the entry in place. */
			dispatch(&s, id, when);
			if (g->pcpus[id].action == A_NONE)
				pq_remove(&s.pq, id);
		} else {
			pq_remove(&s.pq, id);
			ev_wake(&s, id - g->opt.pcpus, when);
		}
	}
	/* A gap still open at the end gets its lost record, so readers know. */
	for (p = 0; p < g->opt.pcpus && !s.err && !ret; p++) {
		if (g->pcpus[p].in_gap) {
			end_gap(&s, p, s.clock + 1);
			s.clock++;
		}
	}
	g->end_time = s.clock;
	vma_gen_obs_finish(g);
	if (!ret)
		ret = s.err;
	free(s.pq.heap);
	free(s.pq.pos);
	free(s.rq);
	free(s.gap_trigger);
	return ret;
}
