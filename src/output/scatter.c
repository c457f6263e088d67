/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scatterplots.  Most points are model events (runstate changes, switches,
 * closed exit arcs, halts) that the state stage reports to an observer;
 * the rest come from the record itself, after dispatch.  Line layouts are
 * xenalyze's, so that scripts written for it read these; where xenalyze
 * prints a wrong or unreadable value vmalyze differs, as
 * doc/xenalyze-differences.md lists: durations are durations, and guest
 * addresses are hexadecimal (0x...), followed by name+0xOFF with
 * --symbol-file.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "vmalyze/event-lines.h"
#include "vmalyze/scatter.h"
#include "vmalyze/status.h"
#include "vmalyze/strbuf.h"
#include "vmalyze/symbols.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-events.h"

/* VMX's basic exit reason for an external interrupt; SVM's exit code. */
#define VMX_EXIT_EXTERNAL_INTERRUPT 1u
#define SVM_EXIT_INTR 0x60u

struct vma_scatter {
	uint64_t hz;
	const struct vma_machine *machine; /* borrowed */
	struct vma_scatter_options opts;
	struct vma_state_observer observer;
	struct vma_event_lines out;
};

static bool want(const struct vma_scatter *s, enum vma_scatter_kind kind)
{
	return s->opts.kinds & (1u << kind);
}

/* The y value xenalyze gives each runstate, so the plot reads as a ladder. */
static int runstate_graph(enum vma_runstate state)
{
	switch (state) {
	case VMA_RS_BLOCKED:
		return 0;
	case VMA_RS_OFFLINE:
		return 1;
	case VMA_RS_RUNNABLE:
		return 2;
	case VMA_RS_RUNNING:
		return 3;
	case VMA_RS_LOST:
		return -1;
	default:
		return -2; /* queued, init */
	}
}

/* "S.NNNNNNNNN" of @cycles ticks, nanoseconds truncated. */
static void put_seconds(struct vma_scatter *s, uint64_t cycles)
{
	uint64_t secs = cycles / s->hz;
	uint64_t ns = (uint64_t)((unsigned __int128)(cycles % s->hz) * 1000000000u / s->hz);

	vma_sb_printf(&s->out.sb, "%" PRIu64 ".%09" PRIu64, secs, ns);
}

/* Seconds since the first record of the time stamp @tsc. */
static void put_time(struct vma_scatter *s, uint64_t tsc)
{
	const struct vma_machine *m = s->machine;

	put_seconds(s, m->have_time && tsc > m->first_tsc ? tsc - m->first_tsc : 0);
}

static void put_vcpu(struct vma_scatter *s, const struct vma_vcpu *v, bool d_prefix)
{
	vma_sb_printf(&s->out.sb, "%s%uv%u ", d_prefix ? "d" : "", v->domain->did, v->vid);
}

static void put_addr(struct vma_scatter *s, uint64_t addr)
{
	char sym[160];

	vma_sb_printf(&s->out.sb, "0x%" PRIx64, addr);
	if (vma_symbols_format(s->opts.symbols, addr, sym, sizeof(sym)))
		vma_sb_printf(&s->out.sb, " %s", sym);
}

static void end_line(struct vma_scatter *s)
{
	vma_event_lines_end(&s->out);
}

static void on_runstate(void *arg, const struct vma_vcpu *v, enum vma_runstate next,
			uint64_t tsc)
{
	struct vma_scatter *s = arg;
	int i;

	if (want(s, VMA_SCATTER_RUNSTATE)) {
		/* Two points at one time: the step from the old state to the new. */
		for (i = 0; i < 2; i++) {
			put_vcpu(s, v, false);
			put_time(s, tsc);
			vma_sb_printf(&s->out.sb, " %d", runstate_graph(i ? next : v->state));
			end_line(s);
		}
	}
	if (want(s, VMA_SCATTER_RUNSTATE_TIME) && v->state_tsc > 0 && v->state_tsc < tsc) {
		/* How long the vcpu was in the state it leaves (xenalyze's is not). */
		put_vcpu(s, v, false);
		put_time(s, tsc);
		vma_sb_putc(&s->out.sb, ' ');
		put_seconds(s, tsc - v->state_tsc);
		end_line(s);
	}
}

static void on_switch_in(void *arg, const struct vma_vcpu *v, const struct vma_pcpu *to,
			 uint64_t tsc)
{
	struct vma_scatter *s = arg;
	uint32_t did = v->domain->did;

	if (!want(s, VMA_SCATTER_PCPU) || did == VMA_IDLE_DOMAIN || did == VMA_DEFAULT_DOMAIN)
		return;
	/* Where it ran last, then where it runs now: a move draws a vertical step. */
	if (v->pcpu) {
		put_vcpu(s, v, false);
		put_time(s, tsc);
		vma_sb_printf(&s->out.sb, " %u", v->pcpu->id);
		end_line(s);
	}
	put_vcpu(s, v, false);
	put_time(s, tsc);
	vma_sb_printf(&s->out.sb, " %u", to->id);
	end_line(s);
}

static void point(struct vma_scatter *s, uint64_t tsc, int64_t y)
{
	put_time(s, tsc);
	vma_sb_printf(&s->out.sb, " %" PRId64, y);
	end_line(s);
}

/*
 * xenalyze's points of a shadow emulation or fixup, at its exit: -10 an
 * early unshadow (emulations only), 0 a shadow unpinned to make room, and
 * for a promotion 2, or with the CR3 accounting the id of the CR3 loaded.
 */
static void unpin_promote(struct vma_scatter *s, const struct vma_vcpu *v)
{
	const struct vma_hvm *h = &v->hvm;
	const struct vma_hvm_inflight *in = &h->inflight;
	bool emulate = in->shadow == TRC_SHADOW_EMULATE - TRC_SHADOW;

	if (!emulate && in->shadow != TRC_SHADOW_FIXUP - TRC_SHADOW)
		return;
	if (emulate && (in->shadow_flags & VMA_SHF_EARLY_UNSHADOW))
		point(s, h->exit_tsc, -10);
	if (in->prealloc_unpin)
		point(s, h->exit_tsc, 0);
	if (!(in->shadow_flags & VMA_SHF_PROMOTE))
		return;
	if (!s->machine->options.eips.cr3)
		point(s, h->exit_tsc, 2);
	else if (h->cr3_enum.loaded)
		point(s, h->exit_tsc, v->domain->cr3s.v[h->cr3_enum.cur].id);
}

static void on_arc_close(void *arg, const struct vma_vcpu *v, uint64_t tsc, uint64_t cycles)
{
	struct vma_scatter *s = arg;
	const struct vma_hvm *h = &v->hvm;
	const struct vma_hvm_inflight *in = &h->inflight;

	if (want(s, VMA_SCATTER_EXTINT_CYCLES) &&
	    h->exit_reason == (s->machine->svm ? SVM_EXIT_INTR : VMX_EXIT_EXTERNAL_INTERRUPT) &&
	    in->handler == TRC_HVM_INTR && in->key == s->opts.extint_vector) {
		put_vcpu(s, v, true);
		put_time(s, tsc);
		vma_sb_printf(&s->out.sb, " %" PRIu64, cycles);
		end_line(s);
	}
	if (want(s, VMA_SCATTER_IO) && in->handler == TRC_HVM_IOPORT_READ &&
	    in->key == s->opts.io_port) {
		put_time(s, h->exit_tsc);
		vma_sb_printf(&s->out.sb, " %" PRIu64, cycles);
		end_line(s);
	}
	/* A CR3 write that changes CR3 (not a flush): the new page-table base. */
	if (want(s, VMA_SCATTER_CR3_SWITCH) && in->handler == TRC_HVM_CR_WRITE && in->key == 3 &&
	    !(h->cr3 && h->cr3 == in->value)) {
		put_time(s, h->exit_tsc);
		vma_sb_printf(&s->out.sb, " %" PRIu64, in->value >> 12);
		end_line(s);
	}
	if (want(s, VMA_SCATTER_UNPIN_PROMOTE) && in->shadow)
		unpin_promote(s, v);
}

static void on_halt(void *arg, const struct vma_vcpu *v, uint32_t vector, bool is_wake,
		    uint64_t cycles, uint64_t tsc)
{
	struct vma_scatter *s = arg;

	(void)v;
	(void)vector;
	if (!want(s, VMA_SCATTER_WAKE_TO_HALT) || !is_wake)
		return;
	put_time(s, tsc);
	vma_sb_printf(&s->out.sb, " %" PRIu64, cycles);
	end_line(s);
}

struct vma_scatter *vma_scatter_create(FILE *out, uint64_t hz,
				       const struct vma_machine *machine,
				       const struct vma_scatter_options *opts)
{
	struct vma_scatter *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->hz = hz ? hz : 1;
	s->machine = machine;
	s->opts = *opts;
	vma_event_lines_init(&s->out, out);
	s->observer = (struct vma_state_observer){
		.arg = s,
		.runstate = (want(s, VMA_SCATTER_RUNSTATE) || want(s, VMA_SCATTER_RUNSTATE_TIME))
				    ? on_runstate : NULL,
		.switch_in = want(s, VMA_SCATTER_PCPU) ? on_switch_in : NULL,
		.arc_close = (want(s, VMA_SCATTER_EXTINT_CYCLES) || want(s, VMA_SCATTER_IO) ||
			      want(s, VMA_SCATTER_CR3_SWITCH) || want(s, VMA_SCATTER_UNPIN_PROMOTE))
				     ? on_arc_close : NULL,
		.halt = want(s, VMA_SCATTER_WAKE_TO_HALT) ? on_halt : NULL,
	};
	return s;
}

void vma_scatter_destroy(struct vma_scatter *s)
{
	if (!s)
		return;
	vma_event_lines_free(&s->out);
	free(s);
}

const struct vma_state_observer *vma_scatter_observer(struct vma_scatter *s)
{
	return &s->observer;
}

/* The vcpu an HVM record of @rec's pcpu was charged to, if it was taken. */
static const struct vma_vcpu *hvm_vcpu(const struct vma_scatter *s, const struct vma_record *rec,
				       const struct vma_outcome *out)
{
	const struct vma_pcpu *p = rec->pcpu < s->machine->nr_pcpus
					   ? s->machine->pcpus[rec->pcpu] : NULL;

	if (out->unprocessed || out->orphan || !p || !p->current ||
	    p->current->type != VMA_VCPU_HVM)
		return NULL;
	return p->current;
}

void vma_scatter_record(struct vma_scatter *s, const struct vma_record *rec,
			const struct vma_outcome *out)
{
	uint32_t base = rec->event & ~(uint32_t)TRC_64_FLAG;
	const struct vma_vcpu *v;

	if (want(s, VMA_SCATTER_VMEXIT_EIP) &&
	    (base == TRC_HVM_VMX_EXIT || base == TRC_HVM_SVM_EXIT) &&
	    (v = hvm_vcpu(s, rec, out)) && v->hvm.vmexit_valid && v->hvm.exit_tsc == rec->tsc) {
		put_time(s, rec->tsc);
		vma_sb_putc(&s->out.sb, ' ');
		put_addr(s, v->hvm.rip);
		end_line(s);
	} else if (want(s, VMA_SCATTER_INTERRUPT_EIP) && base == TRC_HVM_INTR && rec->nr_data &&
		   (v = hvm_vcpu(s, rec, out))) {
		/* SVM's record carries no vector: xenalyze counts it as vector 0. */
		uint32_t vec = out->svm ? 0 : rec->data[0];

		if (vec == s->opts.interrupt_vector) {
			put_vcpu(s, v, true);
			put_time(s, v->hvm.exit_tsc);
			vma_sb_putc(&s->out.sb, ' ');
			put_addr(s, v->hvm.rip);
			end_line(s);
		}
	} else if (want(s, VMA_SCATTER_RDTSC) && base == TRC_HVM_RDTSC && rec->nr_data >= 2 &&
		   (v = hvm_vcpu(s, rec, out))) {
		put_vcpu(s, v, false);
		put_time(s, rec->tsc);
		vma_sb_printf(&s->out.sb, " %" PRIu64, vma_rec_u64(rec, 0));
		end_line(s);
	} else if (want(s, VMA_SCATTER_IRQ) && rec->event == TRC_HW_IRQ_HANDLED &&
		   rec->nr_data >= 3) {
		vma_sb_printf(&s->out.sb, "i%x ", rec->data[0]);
		put_time(s, rec->tsc);
		vma_sb_printf(&s->out.sb, " %u", rec->pcpu);
		end_line(s);
	}
}

void vma_scatter_hold(struct vma_scatter *s)
{
	s->out.hold = true;
}

bool vma_scatter_pending(const struct vma_scatter *s)
{
	return vma_event_lines_pending(&s->out);
}

void vma_scatter_flush(struct vma_scatter *s)
{
	vma_event_lines_flush(&s->out);
}

int vma_scatter_status(const struct vma_scatter *s)
{
	return vma_event_lines_status(&s->out);
}
