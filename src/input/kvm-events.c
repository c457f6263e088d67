/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The KVM adapter: turns raw ftrace events into vmalyze records with the
 * ids and payload layouts of kvm-events.h.
 *
 * Fields are found by name in each event's format once, when the file is
 * opened, and read through libtraceevent at the offset and size the
 * recording kernel gave them; a field the kernel did not have reads as the
 * spec's default.  So a kernel that reorders, widens or adds fields is read
 * correctly without a table per kernel version.  Each spec below is the
 * payload contract of one id: changing a word index breaks every consumer.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "input/kvm-internal.h"

enum fkind {
	F_U32,   /* low 32 bits into one word */
	F_U64,   /* two words, low first */
	F_BIT,   /* (value != 0) << arg, or-ed into the word */
	F_LO16,  /* low 16 bits into bits 0-15 of the word */
	F_HI16,  /* low 16 bits into bits 16-31 of the word */
	F_BYTES, /* up to 16 raw bytes, byte i in bits 8*(i%4) of word + i/4 */
};

struct fspec {
	const char *names[3]; /* alternatives, first present wins; none = constant */
	uint8_t word;
	uint8_t kind;
	uint8_t arg;
	uint32_t missing;     /* F_U32/F_U64 value when the field is absent */
};

struct vma_kvmev_spec {
	const char *system;
	const char *event;
	const char *detect;   /* this layout applies when the format has this field */
	uint32_t id;
	uint8_t isa;
	uint8_t nr_data;
	uint8_t nr_fields;
	const struct fspec *fields;
};

#define N(...) { __VA_ARGS__ }
#define SPEC(sys, ev, det, vid, isa_, nr, tab) \
	{ sys, ev, det, vid, isa_, nr, (uint8_t)(sizeof(tab) / sizeof(tab[0])), tab }

static const struct fspec exit_x86[] = {
	{ N("exit_reason"), 0, F_U32, 0, 0 },
	{ N("isa"), 1, F_U32, 0, VMA_KVM_ISA_VMX },
	{ N("vcpu_id"), 2, F_U32, 0, VMA_KVM_NO_VCPU },
	{ N("guest_rip", "rip"), 3, F_U64, 0, 0 },
	{ N("info1"), 5, F_U64, 0, 0 },
	{ N("info2"), 7, F_U64, 0, 0 },
	{ N("intr_info"), 9, F_U32, 0, 0 },
	{ N("error_code"), 10, F_U32, 0, 0 },
};

/* [6], whether ret is a trap, is filled from the format's symbols (arm_trap_value). */
static const struct fspec exit_arm64[] = {
	{ N("ret"), 0, F_U32, 0, 0 },
	{ N(NULL), 1, F_U32, 0, VMA_KVM_ISA_ARM64 },
	{ N("vcpu_id"), 2, F_U32, 0, VMA_KVM_NO_VCPU },
	{ N("vcpu_pc"), 3, F_U64, 0, 0 },
	{ N("esr_ec"), 5, F_U32, 0, 0 },
};

static const struct fspec entry[] = {
	{ N("vcpu_id"), 0, F_U32, 0, VMA_KVM_NO_VCPU },
	{ N("rip", "vcpu_pc"), 1, F_U64, 0, 0 },
	{ N("immediate_exit"), 3, F_BIT, 0, 0 },
	{ N("guest_mode"), 3, F_BIT, 1, 0 },
	{ N("intr_info", "inj_info"), 4, F_U32, 0, 0 },
	{ N("error_code", "inj_info_err"), 5, F_U32, 0, 0 },
};

static const struct fspec pio[] = {
	{ N("rw"), 0, F_U32, 0, 0 },
	{ N("port"), 1, F_U32, 0, 0 },
	{ N("size"), 2, F_U32, 0, 0 },
	{ N("count"), 3, F_U32, 0, 0 },
	{ N("val"), 4, F_U32, 0, 0 },
};

static const struct fspec mmio[] = {
	{ N("type"), 0, F_U32, 0, 0 },
	{ N("len"), 1, F_U32, 0, 0 },
	{ N("gpa"), 2, F_U64, 0, 0 },
	{ N("val"), 4, F_U64, 0, 0 },
};

static const struct fspec msr[] = {
	{ N("write"), 0, F_U32, 0, 0 },
	{ N("ecx"), 1, F_U32, 0, 0 },
	{ N("data"), 2, F_U64, 0, 0 },
	{ N("exception"), 4, F_U32, 0, 0 },
};

static const struct fspec cpuid[] = {
	{ N("function"), 0, F_U32, 0, 0 },
	{ N("index"), 1, F_U32, 0, 0 },
	{ N("rax"), 2, F_U64, 0, 0 },
	{ N("rbx"), 4, F_U64, 0, 0 },
	{ N("rcx"), 6, F_U64, 0, 0 },
	{ N("rdx"), 8, F_U64, 0, 0 },
	{ N("found"), 10, F_BIT, 0, 0 },
	{ N("used_max_basic"), 10, F_BIT, 1, 0 },
};

static const struct fspec hypercall[] = {
	{ N("nr"), 0, F_U64, 0, 0 },
	{ N("a0"), 2, F_U64, 0, 0 },
	{ N("a1"), 4, F_U64, 0, 0 },
	{ N("a2"), 6, F_U64, 0, 0 },
	{ N("a3"), 8, F_U64, 0, 0 },
};

static const struct fspec inj_virq[] = {
	{ N("vector", "irq"), 0, F_U32, 0, 0 },
	{ N("soft"), 1, F_BIT, 0, 0 },
	{ N("reinjected"), 1, F_BIT, 1, 0 },
};

static const struct fspec userspace_exit[] = {
	{ N("reason"), 0, F_U32, 0, 0 },
	{ N("errno"), 1, F_U32, 0, 0 },
};

static const struct fspec halt_poll_ns[] = {
	{ N("vcpu_id"), 0, F_U32, 0, VMA_KVM_NO_VCPU },
	{ N("new"), 1, F_U32, 0, 0 },
	{ N("old"), 2, F_U32, 0, 0 },
	{ N("grow"), 3, F_U32, 0, 0 },
};

static const struct fspec vcpu_wakeup[] = {
	{ N("ns"), 0, F_U64, 0, 0 },
	{ N("waited"), 2, F_U32, 0, 0 },
	{ N("valid"), 3, F_U32, 0, 0 },
};

static const struct fspec fpu[] = {
	{ N("load"), 0, F_U32, 0, 0 },
};

static const struct fspec emulate_insn[] = {
	{ N("rip"), 0, F_U64, 0, 0 },
	{ N("csbase"), 2, F_U32, 0, 0 },
	{ N("len"), 3, F_U32, 0, 0 },
	{ N("flags"), 4, F_U32, 0, 0 },
	{ N("failed"), 5, F_U32, 0, 0 },
	{ N("insn"), 6, F_BYTES, 16, 0 },
};

static const struct fspec match_mmio[] = {
	{ N("gva"), 0, F_U64, 0, 0 },
	{ N("gpa"), 2, F_U64, 0, 0 },
	{ N("write"), 4, F_U32, 0, 0 },
	{ N("gpa_match"), 5, F_U32, 0, 0 },
};

static const struct fspec sched_switch[] = {
	{ N("prev_pid"), 0, F_U32, 0, 0 },
	{ N("next_pid"), 1, F_U32, 0, 0 },
	{ N("prev_state"), 2, F_U32, 0, 0 },
	{ N("prev_prio"), 3, F_LO16, 0, 0 },
	{ N("next_prio"), 3, F_HI16, 0, 0 },
	{ N("next_comm"), 4, F_BYTES, 16, 0 },
	{ N("prev_comm"), 8, F_BYTES, 16, 0 },
};

static const struct fspec sched_wakeup[] = {
	{ N("pid"), 0, F_U32, 0, 0 },
	{ N("prio"), 1, F_U32, 0, 0 },
	{ N("target_cpu"), 2, F_U32, 0, 0 },
	{ N("comm"), 3, F_BYTES, 16, 0 },
};

/* First match wins: the arm64 kvm_exit layout is recognised by esr_ec. */
static const struct vma_kvmev_spec specs[] = {
	SPEC("kvm", "kvm_exit", "esr_ec", VMA_KVM_EXIT, VMA_KVM_ISA_ARM64, 7, exit_arm64),
	SPEC("kvm", "kvm_exit", NULL, VMA_KVM_EXIT, VMA_KVM_ISA_VMX, 11, exit_x86),
	SPEC("kvm", "kvm_entry", NULL, VMA_KVM_ENTRY, 0, 6, entry),
	SPEC("kvm", "kvm_pio", NULL, VMA_KVM_PIO, 0, 5, pio),
	SPEC("kvm", "kvm_mmio", NULL, VMA_KVM_MMIO, 0, 6, mmio),
	SPEC("kvm", "kvm_msr", NULL, VMA_KVM_MSR, 0, 5, msr),
	SPEC("kvm", "kvm_cpuid", NULL, VMA_KVM_CPUID, 0, 11, cpuid),
	SPEC("kvm", "kvm_hypercall", NULL, VMA_KVM_HYPERCALL, 0, 10, hypercall),
	SPEC("kvm", "kvm_inj_virq", NULL, VMA_KVM_INJ_VIRQ, 0, 2, inj_virq),
	SPEC("kvm", "kvm_userspace_exit", NULL, VMA_KVM_USERSPACE_EXIT, 0, 2, userspace_exit),
	SPEC("kvm", "kvm_halt_poll_ns", NULL, VMA_KVM_HALT_POLL_NS, 0, 4, halt_poll_ns),
	SPEC("kvm", "kvm_vcpu_wakeup", NULL, VMA_KVM_VCPU_WAKEUP, 0, 4, vcpu_wakeup),
	SPEC("kvm", "kvm_fpu", NULL, VMA_KVM_FPU, 0, 1, fpu),
	SPEC("kvm", "kvm_emulate_insn", NULL, VMA_KVM_EMULATE_INSN, 0, 10, emulate_insn),
	SPEC("kvm", "vcpu_match_mmio", NULL, VMA_KVM_VCPU_MATCH_MMIO, 0, 6, match_mmio),
	SPEC("sched", "sched_switch", NULL, VMA_KVM_SCHED_SWITCH, 0, 12, sched_switch),
	SPEC("sched", "sched_wakeup", NULL, VMA_KVM_SCHED_WAKEUP, 0, 7, sched_wakeup),
};

static const char *const id_names[VMA_KVM_NR_IDS] = {
	[VMA_KVM_EXIT - VMA_ID_KVM_BASE] = "kvm_exit",
	[VMA_KVM_ENTRY - VMA_ID_KVM_BASE] = "kvm_entry",
	[VMA_KVM_PIO - VMA_ID_KVM_BASE] = "kvm_pio",
	[VMA_KVM_MMIO - VMA_ID_KVM_BASE] = "kvm_mmio",
	[VMA_KVM_MSR - VMA_ID_KVM_BASE] = "kvm_msr",
	[VMA_KVM_CPUID - VMA_ID_KVM_BASE] = "kvm_cpuid",
	[VMA_KVM_HYPERCALL - VMA_ID_KVM_BASE] = "kvm_hypercall",
	[VMA_KVM_INJ_VIRQ - VMA_ID_KVM_BASE] = "kvm_inj_virq",
	[VMA_KVM_USERSPACE_EXIT - VMA_ID_KVM_BASE] = "kvm_userspace_exit",
	[VMA_KVM_HALT_POLL_NS - VMA_ID_KVM_BASE] = "kvm_halt_poll_ns",
	[VMA_KVM_VCPU_WAKEUP - VMA_ID_KVM_BASE] = "kvm_vcpu_wakeup",
	[VMA_KVM_FPU - VMA_ID_KVM_BASE] = "kvm_fpu",
	[VMA_KVM_EMULATE_INSN - VMA_ID_KVM_BASE] = "kvm_emulate_insn",
	[VMA_KVM_VCPU_MATCH_MMIO - VMA_ID_KVM_BASE] = "vcpu_match_mmio",
	[VMA_KVM_SCHED_SWITCH - VMA_ID_KVM_BASE] = "sched_switch",
	[VMA_KVM_SCHED_WAKEUP - VMA_ID_KVM_BASE] = "sched_wakeup",
	[VMA_KVM_OTHER - VMA_ID_KVM_BASE] = "other",
	[VMA_KVM_LOST - VMA_ID_KVM_BASE] = "lost",
};

const char *vma_kvm_event_name(uint32_t event)
{
	if (!vma_id_is_kvm(event)) {
		return NULL;
	}
	return id_names[event - VMA_ID_KVM_BASE];
}

/* Event ids the kernel hands out stay far below this. */
#define MAX_EVENT_ID (1 << 20)

static bool has_field(struct tep_event *event, const char *name)
{
	return tep_find_field(event, name) != NULL;
}

bool vma_kvmev_wanted(const char *system, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		if (!strcmp(specs[i].event, name) && !strcmp(specs[i].system, system))
			return true;
	}
	return false;
}

static const struct vma_kvmev_spec *spec_for(struct tep_event *event)
{
	size_t i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		const struct vma_kvmev_spec *s = &specs[i];

		if (strcmp(s->event, event->name) ||
		    (event->system && strcmp(s->system, event->system))) {
			continue;
		}
		if (s->detect && !has_field(event, s->detect)) {
			continue;
		}
		return s;
	}
	return NULL;
}

/*
 * arm64 kvm_exit: the value of "ret" that means a trap (whose esr_ec is
 * meaningful) changed across kernels (1 before 4.8, 2 since); the format's
 * __print_symbolic(REC->ret, ...) table names it.  Default: today's 2.
 */
static int64_t arm_trap_value(struct tep_event *event)
{
	struct tep_print_arg *arg;

	for (arg = event->print_fmt.args; arg; arg = arg->next) {
		struct tep_print_flag_sym *sym;

		if (arg->type != TEP_PRINT_SYMBOL || !arg->symbol.field ||
		    arg->symbol.field->type != TEP_PRINT_FIELD ||
		    strcmp(arg->symbol.field->field.name, "ret"))
			continue;
		for (sym = arg->symbol.symbols; sym; sym = sym->next) {
			if (sym->str && sym->value && !strcmp(sym->str, "TRAP"))
				return strtoll(sym->value, NULL, 0);
		}
	}
	return 2;
}

static void bind_fields(struct vma_kvmev_bind *b)
{
	unsigned int i, k;

	for (i = 0; i < b->spec->nr_fields && i < VMA_KVMEV_MAX_FIELDS; i++) {
		const struct fspec *f = &b->spec->fields[i];

		for (k = 0; k < 3 && f->names[k]; k++) {
			struct tep_format_field *tf = tep_find_field(b->event, f->names[k]);

			/* dynamic (__data_loc) fields hold an offset, not the value */
			if (tf && !(tf->flags & TEP_FIELD_IS_DYNAMIC)) {
				b->field[i] = tf;
				break;
			}
		}
	}
}

/* Offset and size of a common field, from any parsed event (they all share them). */
static void common_field(const struct vma_kvmev *ev, const char *name, uint32_t *offset,
			 uint32_t *size, uint32_t def_off, uint32_t def_size)
{
	uint32_t i;

	*offset = def_off;
	*size = def_size;
	for (i = 0; i < ev->nr_bind; i++) {
		struct tep_format_field *f;

		if (!ev->bind[i].event)
			continue;
		f = tep_find_common_field(ev->bind[i].event, name);
		if (f && (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)) {
			*offset = (uint32_t)f->offset;
			*size = (uint32_t)f->size;
			return;
		}
	}
}

/* The registered event of a parsed format (NULL if another took its id). */
static struct tep_event *parsed_event(struct tep_handle *tep, const struct vma_kvm_format *f)
{
	struct tep_event *event;

	if (f->state != VMA_KVM_FMT_PARSED)
		return NULL;
	event = tep_find_event(tep, f->id);
	return event && event->name && !strcmp(event->name, f->name) ? event : NULL;
}

/* Gives @b its parsed event and, for the events vmalyze knows, its fields. */
static void bind_event(struct vma_kvmev_bind *b, struct tep_event *event)
{
	b->event = event;
	b->spec = spec_for(event);
	b->arm_trap = arm_trap_value(event);
	if (b->spec) {
		b->id = b->spec->id;
		b->isa = b->spec->isa;
		bind_fields(b);
	}
}

/* Formats in ftrace id order (then file order): the order event tables list them in. */
static int by_format_id(const void *a, const void *b, void *arg)
{
	const struct vma_kvm_format *formats = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;

	if (formats[ia].id != formats[ib].id)
		return formats[ia].id < formats[ib].id ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

int vma_kvmev_init(struct vma_kvmev *ev, struct vma_kvm_priv *priv, bool big_endian)
{
	uint32_t nr = priv->nr_formats, i, *order;
	int32_t max_id = -1;

	memset(ev, 0, sizeof(*ev));
	ev->tep = priv->tep;
	ev->big_endian = big_endian;
	if (nr == 0) {
		return VMA_OK;
	}
	ev->bind = calloc(nr, sizeof(*ev->bind));
	order = malloc(nr * sizeof(*order));
	if (!ev->bind || !order) {
		free(order);
		vma_kvmev_fini(ev);
		return VMA_ERR_NOMEM;
	}
	for (i = 0; i < nr; i++) {
		order[i] = i;
	}
	qsort_r(order, nr, sizeof(*order), by_format_id, priv->formats);
	for (i = 0; i < nr; i++) {
		const struct vma_kvm_format *f = &priv->formats[order[i]];
		struct vma_kvmev_bind *b = &ev->bind[ev->nr_bind];
		struct tep_event *event;

		if (f->id < 0 || f->id > 0xffff) {
			continue;
		}
		b->name = f->name;
		b->format = order[i];
		b->id = VMA_KVM_OTHER;
		event = parsed_event(priv->tep, f);
		if (event) {
			bind_event(b, event);
		}
		/* ftrace ids are small; a corrupt format must not size the table. */
		if (f->id > max_id && f->id < MAX_EVENT_ID) {
			max_id = f->id;
		}
		ev->nr_bind++;
	}
	free(order);
	common_field(ev, "common_type", &ev->type_offset, &ev->type_size, 0, 2);
	common_field(ev, "common_pid", &ev->pid_offset, &ev->pid_size, 4, 4);
	ev->nr_ids = (uint32_t)(max_id + 1);
	if (ev->nr_ids) {
		ev->by_id = malloc(ev->nr_ids * sizeof(*ev->by_id));
		if (!ev->by_id) {
			vma_kvmev_fini(ev);
			return VMA_ERR_NOMEM;
		}
		memset(ev->by_id, 0xff, ev->nr_ids * sizeof(*ev->by_id));
		/* the first format of an id is the one its records are read with */
		for (i = 0; i < ev->nr_bind; i++) {
			int32_t id = priv->formats[ev->bind[i].format].id;

			if ((uint32_t)id < ev->nr_ids && ev->by_id[id] < 0) {
				ev->by_id[id] = (int32_t)i;
			}
		}
	}
	return VMA_OK;
}

void vma_kvmev_fini(struct vma_kvmev *ev)
{
	free(ev->bind);
	free(ev->by_id);
	ev->bind = NULL;
	ev->by_id = NULL;
	ev->nr_bind = 0;
	ev->nr_ids = 0;
}

static uint64_t read_uint(const unsigned char *p, uint32_t size, bool big)
{
	switch (size) {
	case 1:
		return p[0];
	case 2:
		return vma_get16(p, big);
	case 4:
		return vma_get32(p, big);
	case 8:
		return vma_get64(p, big);
	}
	return 0;
}

static void put_field(const struct fspec *f, struct tep_format_field *tf,
		      const unsigned char *data, uint32_t size, struct vma_record *rec)
{
	uint32_t *w = &rec->data[f->word];
	unsigned long long val = 0;
	bool present = tf && tf->offset >= 0 && tf->size > 0 &&
		(uint64_t)tf->offset + (uint64_t)tf->size <= size;

	if (f->kind == F_BYTES) {
		uint32_t n = present ? (uint32_t)tf->size : 0, i;

		if (n > f->arg) {
			n = f->arg;
		}
		for (i = 0; i < n; i++) {
			w[i / 4] |= (uint32_t)data[tf->offset + i] << (8 * (i % 4));
		}
		return;
	}
	if (present && tep_read_number_field(tf, data, &val) != 0) {
		present = false;
	}
	switch (f->kind) {
	case F_U32:
		w[0] = present ? (uint32_t)val : f->missing;
		break;
	case F_U64:
		if (!present) {
			val = f->missing;
		}
		w[0] = (uint32_t)val;
		w[1] = (uint32_t)(val >> 32);
		break;
	case F_BIT:
		w[0] |= (uint32_t)(present && val != 0) << f->arg;
		break;
	case F_LO16:
		w[0] |= (uint32_t)(val & 0xffff);
		break;
	case F_HI16:
		w[0] |= (uint32_t)(val & 0xffff) << 16;
		break;
	}
}

int vma_kvmev_fill(const struct vma_kvmev *ev, const unsigned char *data, uint32_t size,
		   struct vma_record *rec)
{
	const struct vma_kvmev_bind *b = NULL;
	uint32_t type, i;

	if (size < ev->type_offset + ev->type_size || size < ev->pid_offset + ev->pid_size) {
		return -1;
	}
	type = (uint32_t)read_uint(data + ev->type_offset, ev->type_size, ev->big_endian);
	rec->ctx = (uint32_t)read_uint(data + ev->pid_offset, ev->pid_size, ev->big_endian);
	memset(rec->data, 0, sizeof(rec->data));
	if (type < ev->nr_ids && ev->by_id[type] >= 0) {
		b = &ev->bind[ev->by_id[type]];
	}
	if (!b || !b->spec) {
		rec->event = VMA_KVM_OTHER;
		rec->data[0] = b ? (uint32_t)(b - ev->bind) : UINT32_MAX;
		rec->data[1] = type;
		rec->nr_data = 2;
		return 0;
	}
	rec->event = b->id;
	rec->nr_data = b->spec->nr_data;
	for (i = 0; i < b->spec->nr_fields; i++) {
		put_field(&b->spec->fields[i], b->field[i], data, size, rec);
	}
	if (b->id == VMA_KVM_EXIT && b->isa == VMA_KVM_ISA_ARM64)
		rec->data[6] = (int64_t)rec->data[0] == b->arm_trap;
	return 0;
}

/* trace-cmd report's event name column: "NAME:" padded to 21, then a blank. */
#define NAME_COLUMN 21

/* Appends @seq's text as one line: hex dumps and the like span several. */
static void put_one_line(struct vma_strbuf *sb, struct trace_seq *seq)
{
	size_t n = seq->len, i;

	while (n > 0 && (seq->buffer[n - 1] == '\n' || seq->buffer[n - 1] == ' ')) {
		n--;
	}
	seq->buffer[n] = '\0';
	for (i = 0; i < n; i++) {
		char c = seq->buffer[i];

		if (c == '\n' || c == '\t' || c == '\r') {
			seq->buffer[i] = ' ';
		}
	}
	vma_sb_puts(sb, seq->buffer);
}

void vma_kvmev_describe(struct vma_kvm_priv *priv, const unsigned char *data, uint32_t size,
			uint32_t cpu, uint64_t ts, struct vma_strbuf *sb)
{
	struct vma_kvmev *ev = &priv->ev;
	struct vma_kvmev_bind *b;
	struct tep_record record;
	struct trace_seq seq;
	uint32_t type;
	size_t pad;

	if (size < ev->type_offset + ev->type_size) {
		vma_sb_puts(sb, "(event too short to decode)");
		return;
	}
	type = (uint32_t)read_uint(data + ev->type_offset, ev->type_size, ev->big_endian);
	if (type >= ev->nr_ids || ev->by_id[type] < 0) {
		vma_sb_printf(sb, "unknown event id %u (%u bytes)", type, size);
		return;
	}
	b = &ev->bind[ev->by_id[type]];
	if (!b->event && vma_kvm_format_parse(priv, b->format)) {
		struct tep_event *event = parsed_event(priv->tep, &priv->formats[b->format]);

		/* a format parsed this late is one vmalyze does not analyse */
		if (event) {
			b->event = event;
		}
	}
	if (!b->event) {
		vma_sb_printf(sb, "%s: (format not understood; %u bytes)", b->name, size);
		return;
	}
	vma_kvm_print_setup(priv);
	memset(&record, 0, sizeof(record));
	record.ts = ts;
	record.cpu = (int)cpu;
	record.data = (void *)data;
	record.size = (int)size;
	record.record_size = (int)size;
	trace_seq_init(&seq);
	/* in trace-cmd's order: the comm first, before a plugin may register a new one */
	tep_print_event(ev->tep, &seq, &record, "%16s-%-5d [%03d] %6.1000d: %s:",
			TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_TIME,
			TEP_PRINT_NAME);
	trace_seq_terminate(&seq);
	if (seq.state != TRACE_SEQ__GOOD || !seq.buffer) {
		trace_seq_destroy(&seq);
		vma_sb_puts(sb, "(out of memory)");
		return;
	}
	vma_sb_puts(sb, seq.buffer);
	for (pad = strlen(b->event->name) + 1; pad < NAME_COLUMN; pad++) {
		vma_sb_putc(sb, ' ');
	}
	vma_sb_putc(sb, ' ');
	trace_seq_reset(&seq);
	tep_print_event(ev->tep, &seq, &record, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	if (seq.state == TRACE_SEQ__GOOD && seq.buffer) {
		put_one_line(sb, &seq);
	} else {
		vma_sb_puts(sb, "(out of memory)");
	}
	trace_seq_destroy(&seq);
}

/* ---- per-input names, for dump and counts --------------------------------- */

const char *vma_kvm_record_name(const struct vma_input *input, const struct vma_record *rec)
{
	if (rec->event == VMA_KVM_OTHER) {
		const char *name = vma_kvm_event_table_name(input, rec->data[0]);

		return name ? name : "unknown";
	}
	if (vma_id_is_kvm(rec->event)) {
		return vma_kvm_event_name(rec->event);
	}
	return "unknown";
}

uint32_t vma_kvm_nr_events(const struct vma_input *input)
{
	struct vma_kvm_priv *priv = vma_kvm_priv_of(input);

	return priv ? priv->ev.nr_bind : 0;
}

const char *vma_kvm_event_table_name(const struct vma_input *input, uint32_t index)
{
	struct vma_kvm_priv *priv = vma_kvm_priv_of(input);

	if (!priv || index >= priv->ev.nr_bind) {
		return NULL;
	}
	return priv->ev.bind[index].name;
}

const char *vma_kvm_comm(const struct vma_input *input, uint32_t pid)
{
	struct vma_kvm_priv *priv = vma_kvm_priv_of(input);
	const char *comm;

	if (!priv || !priv->tep || pid > INT32_MAX) {
		return NULL;
	}
	if (!tep_is_pid_registered(priv->tep, (int)pid)) {
		return NULL;
	}
	comm = tep_data_comm_from_pid(priv->tep, (int)pid);
	return comm;
}

const struct vma_kvm_file_info *vma_kvm_file_info(const struct vma_input *input)
{
	struct vma_kvm_priv *priv = vma_kvm_priv_of(input);

	return priv ? &priv->info : NULL;
}
