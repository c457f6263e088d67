/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event text of the KVM dump, the part after "NAME:", written by
 * vmalyze for the events whose text it can reproduce, so that the frequent
 * ones do not go through libtraceevent's print machinery (its format walk,
 * a vsnprintf per conversion) on every line.
 *
 * An event's format is compiled once, at its first dump line, into a list
 * of literal runs and conversions over its fields: either its print fmt
 * (a subset of C's printf and of the argument forms libtraceevent parses:
 * fields, numbers, ?: and comparisons of fields, string literals, one
 * __print_symbolic), or, when a libtraceevent plugin prints the event, the
 * text that plugin writes for kvm_exit, kvm_entry, kvm_emulate_insn and
 * sched_switch.  Anything else -- another plugin, an argument form or
 * conversion outside the subset, escapes -- leaves the event to
 * libtraceevent.
 *
 * Nothing is taken on trust: the first CHECKS records of every event are
 * also printed by libtraceevent and compared; one difference and the event
 * goes back to libtraceevent for good.  The text of a symbolic argument
 * (an exit reason's name, a symbol of __print_symbolic) is never written
 * from a table of vmalyze's: the first record with each value is printed
 * by libtraceevent and the name is cut out of its text, between the parts
 * vmalyze wrote around a marker; a value whose text does not fit stays
 * with libtraceevent.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "input/kvm-internal.h"
#include "input/tep-lib.h"

/* Records of each event whose text is compared with libtraceevent's. */
#define CHECKS 16
#define MAX_OPS 64
#define MAX_NODES 48
/* Distinct symbolic values learned per event; later ones go to libtraceevent. */
#define MAX_SYMS 64
/* Stands for the symbol's text while it is learned; never in a format. */
#define MARK '\001'

enum node_kind {
	N_FIELD,  /* a number field: off, size */
	N_CONST,  /* val */
	N_BIN,    /* a OP b, unsigned */
	N_COND,   /* a ? b : c */
	N_STR,    /* string literal: str, len */
	N_SYM,    /* symbolic text of the value of a (b: high word of the key, or -1) */
};

/* From B_SUB on, an operand may be a signed field (compared()); from B_EQ on, comparisons. */
enum bin_op { B_AND, B_OR, B_SUB, B_EQ, B_NE, B_LT, B_GT, B_LE, B_GE };

struct node {
	uint8_t kind, op;
	int16_t a, b, c;
	uint32_t off, size;
	uint64_t val;
	const char *str;
	uint32_t len;
};

enum op_kind {
	O_LIT,   /* literal text */
	O_NUM,   /* printf conversion of a number node */
	O_STR,   /* %s of a string node, or of a symbol */
	O_COMM,  /* sched_switch plugin: a comm field, registered for the pid of node 'pid' */
	O_STATE, /* sched_switch plugin: a task state's letters */
	O_HEX,   /* kvm_emulate_insn plugin: the bytes of a u8 array, node bytes, "%02x" apart */
};

struct op {
	uint8_t kind;
	char conv;          /* d i u x X */
	bool wide;          /* l, ll, z: 64 bits; else the int libtraceevent passes */
	bool alt, zero, left;
	uint32_t width;
	int16_t node, pid;
	const char *str;    /* O_LIT */
	uint32_t len;
};

struct sym {
	uint64_t key;
	char *text;         /* owned; NULL: the value is left to libtraceevent */
	uint32_t len;
};

enum style { S_UNSET = 0, S_SLOW, S_FAST };

struct vma_kvmtext {
	uint8_t style;
	bool guest_rip;            /* kvm_exit/kvm_entry plugin: a linked guest may name the rip */
	uint32_t checks;           /* records still compared */
	uint32_t nr_ops, nr_nodes, nr_syms;
	int16_t sym_node;          /* the one N_SYM, or -1 */
	int16_t hex_len;           /* O_HEX's count node, or -1; hex_room: its array's size */
	uint32_t hex_room;
	struct op ops[MAX_OPS];
	struct node nodes[MAX_NODES];
	struct sym syms[MAX_SYMS];
	char *fmt;                 /* owned copy of the print fmt the literals point into */
	uint32_t min_size;         /* bytes a record needs for every field read */
	size_t max_len;            /* longest text the ops write */
	bool dirty;                /* the text may hold newlines or tabs: tidy() it all */
};

/* ---- building ------------------------------------------------------------ */

static int add_node(struct vma_kvmtext *t, struct node n)
{
	if (t->nr_nodes >= MAX_NODES)
		return -1;
	t->nodes[t->nr_nodes] = n;
	return (int)t->nr_nodes++;
}

static bool add_op(struct vma_kvmtext *t, struct op o)
{
	if (t->nr_ops >= MAX_OPS)
		return false;
	t->ops[t->nr_ops++] = o;
	return true;
}

static bool add_lit(struct vma_kvmtext *t, const char *s, size_t len)
{
	if (!len)
		return true;
	return add_op(t, (struct op){ .kind = O_LIT, .str = s, .len = (uint32_t)len,
				      .node = -1, .pid = -1 });
}

/* A number field of @event by name (not an array, not dynamic), as a node; -1 if none. */
static int field_node(struct vma_kvmtext *t, struct tep_format_field *f, bool allow_signed)
{
	if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) ||
	    f->offset < 0 || !(f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) ||
	    (!allow_signed && (f->flags & TEP_FIELD_IS_SIGNED))) {
		return -1;
	}
	if ((uint32_t)f->offset + (uint32_t)f->size > t->min_size)
		t->min_size = (uint32_t)f->offset + (uint32_t)f->size;
	return add_node(t, (struct node){ .kind = N_FIELD, .off = (uint32_t)f->offset,
					  .size = (uint32_t)f->size, .a = -1, .b = -1, .c = -1 });
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	/* libtraceevent reads a non-number atom as a kernel symbol's address */
	if (!s || ((*s < '0' || *s > '9') && (*s != '-' || s[1] < '0' || s[1] > '9')))
		return false;
	/* as libtraceevent: strtoull(), so "-4" is 2^64 - 4; 0 from "-0" would be a symbol */
	*v = strtoull(s, &end, 0);
	return *end == '\0' && (*s != '-' || *v);
}

static int compile_arg(struct vma_kvmtext *t, struct tep_print_arg *arg, bool string);

static const struct {
	const char *name;
	enum bin_op op;
} bin_ops[] = {
	{ "&", B_AND }, { "|", B_OR }, { "-", B_SUB }, { "==", B_EQ }, { "!=", B_NE },
	{ "<", B_LT }, { ">", B_GT }, { "<=", B_LE }, { ">=", B_GE },
};

/*
 * An operand of @op.  libtraceevent compares and subtracts 64-bit unsigned
 * values and reads a field zero-extended, signed or not (eval_num_arg(),
 * 1.7 to 1.8): so "REC->errno < 0" is never true there, and a signed field
 * may be compared or subtracted here with the same rule.
 */
static int compared(struct vma_kvmtext *t, struct tep_print_arg *arg, enum bin_op op)
{
	if (op >= B_SUB && arg && arg->type == TEP_PRINT_FIELD)
		return field_node(t, arg->field.field, true);
	/* a unary minus: libtraceevent's empty left operand counts 0 */
	if (op == B_SUB && arg && arg->type == TEP_PRINT_NULL)
		return add_node(t, (struct node){ .kind = N_CONST, .val = 0, .a = -1, .b = -1,
						  .c = -1 });
	return compile_arg(t, arg, false);
}

/* a ? b : c, or an unsigned binary operation. */
static int compile_op(struct vma_kvmtext *t, struct tep_print_arg *arg, bool string)
{
	struct tep_print_arg *r = arg->op.right;
	size_t i;
	int a, b, c;

	if (!arg->op.op || !arg->op.left || !r)
		return -1;
	if (!strcmp(arg->op.op, "?")) {
		if (r->type != TEP_PRINT_OP || !r->op.op || strcmp(r->op.op, ":"))
			return -1;
		a = compile_arg(t, arg->op.left, false);
		b = compile_arg(t, r->op.left, string);
		c = compile_arg(t, r->op.right, string);
		if (a < 0 || b < 0 || c < 0)
			return -1;
		return add_node(t, (struct node){ .kind = N_COND, .a = (int16_t)a, .b = (int16_t)b,
						  .c = (int16_t)c });
	}
	if (string)
		return -1;
	for (i = 0; i < sizeof(bin_ops) / sizeof(bin_ops[0]); i++) {
		if (strcmp(arg->op.op, bin_ops[i].name))
			continue;
		a = compared(t, arg->op.left, bin_ops[i].op);
		b = compared(t, r, bin_ops[i].op);
		if (a < 0 || b < 0)
			return -1;
		return add_node(t, (struct node){ .kind = N_BIN, .op = (uint8_t)bin_ops[i].op,
						  .a = (int16_t)a, .b = (int16_t)b, .c = -1 });
	}
	return -1;
}

/*
 * One print fmt argument as a node: a number unless @string.  Signed
 * fields are numbers only where they are printed (a comparison of them
 * would need libtraceevent's sign rules), hence only at the top.
 */
static int compile_arg(struct vma_kvmtext *t, struct tep_print_arg *arg, bool string)
{
	uint64_t v;
	int a;

	if (!arg)
		return -1;
	switch (arg->type) {
	case TEP_PRINT_ATOM:
		if (string) {
			return add_node(t, (struct node){ .kind = N_STR, .str = arg->atom.atom,
							  .len = (uint32_t)strlen(arg->atom.atom),
							  .a = -1, .b = -1, .c = -1 });
		}
		if (!parse_u64(arg->atom.atom, &v))
			return -1;
		return add_node(t, (struct node){ .kind = N_CONST, .val = v, .a = -1, .b = -1,
						  .c = -1 });
	case TEP_PRINT_FIELD:
		return string ? -1 : field_node(t, arg->field.field, false);
	case TEP_PRINT_OP:
		return compile_op(t, arg, string);
	case TEP_PRINT_SYMBOL:
		if (!string || t->sym_node >= 0)
			return -1;
		a = compile_arg(t, arg->symbol.field, false);
		if (a < 0)
			return -1;
		t->sym_node = (int16_t)add_node(t, (struct node){ .kind = N_SYM, .a = (int16_t)a,
								  .b = -1, .c = -1 });
		return t->sym_node;
	default:
		return -1;
	}
}

/*
 * One conversion of the print fmt at *@p ('%' seen): flags, width, length
 * and conversion.  Return: false for what the subset leaves out.
 */
static bool parse_conv(const char **p, struct op *o, int tep_long)
{
	const char *s = *p;
	unsigned int longs = 0;

	memset(o, 0, sizeof(*o));
	for (;; s++) {
		if (*s == '#') {
			o->alt = true;
		} else if (*s == '0') {
			o->zero = true;
		} else if (*s == '-') {
			o->left = true;
		} else {
			break;
		}
	}
	while (*s >= '0' && *s <= '9' && o->width < 1000)
		o->width = o->width * 10 + (uint32_t)(*s++ - '0');
	while (*s == 'l' || *s == 'z') {
		longs++;
		s++;
	}
	if (longs > 2 || (longs == 1 && tep_long != 8))
		return false;
	o->wide = longs > 0;
	o->conv = *s;
	if (!strchr("diuxXs", o->conv) || !o->conv)
		return false;
	if (o->conv == 's' && (o->wide || o->zero || o->alt))
		return false;
	*p = s + 1;
	return true;
}

/* The event's print fmt as ops.  Return: false when it is outside the subset. */
static bool compile_print_fmt(struct vma_kvmtext *t, struct tep_event *event)
{
	struct tep_print_arg *arg = event->print_fmt.args;
	const char *p, *lit;
	int tep_long = vma_tep()->tep_get_long_size(event->tep);

	if (!event->print_fmt.format)
		return false;
	t->fmt = strdup(event->print_fmt.format);
	if (!t->fmt)
		return false;
	p = lit = t->fmt;
	while (*p) {
		struct op o;
		int n;

		if (*p == '\\' || *p == MARK)
			return false;
		if (*p != '%') {
			p++;
			continue;
		}
		if (p[1] == '%') {
			if (!add_lit(t, lit, (size_t)(p + 1 - lit)))
				return false;
			p += 2;
			lit = p;
			continue;
		}
		if (!add_lit(t, lit, (size_t)(p - lit)))
			return false;
		p++;
		if (!parse_conv(&p, &o, tep_long) || !arg)
			return false;
		lit = p;
		if (o.conv == 's') {
			n = compile_arg(t, arg, true);
		} else if (arg->type == TEP_PRINT_FIELD) {
			n = field_node(t, arg->field.field, true);
		} else {
			n = compile_arg(t, arg, false);
		}
		if (n < 0)
			return false;
		o.kind = o.conv == 's' ? O_STR : O_NUM;
		o.node = (int16_t)n;
		o.pid = -1;
		if (!add_op(t, o))
			return false;
		arg = arg->next;
	}
	return !arg && add_lit(t, lit, (size_t)(p - lit));
}

static struct tep_format_field *field(struct tep_event *event, const char *name)
{
	return vma_tep()->tep_find_field(event, name);
}

static bool num_op(struct vma_kvmtext *t, int node, char conv, bool wide)
{
	return node >= 0 && add_op(t, (struct op){ .kind = O_NUM, .conv = conv, .wide = wide,
						   .node = (int16_t)node, .pid = -1 });
}

#define LIT(t, s) add_lit((t), "" s, sizeof(s) - 1)

/*
 * libtraceevent's kvm plugin: kvm_exit is "reason NAME rip 0x%llx info
 * %llx %llx" (NAME by exit reason and isa, 1 when the format has none),
 * kvm_entry " vcpu %u rip 0x%llx"; both add a linked guest's function.
 */
/* A conversion of the unsigned number field @name. */
static bool num_field(struct vma_kvmtext *t, struct tep_event *event, const char *name,
		      char conv, bool wide)
{
	return num_op(t, field_node(t, field(event, name), false), conv, wide);
}

static bool compile_kvm_plugin(struct vma_kvmtext *t, struct tep_event *event, bool exit)
{
	int reason, isa = -1;

	t->guest_rip = true;
	if (!exit) {
		return LIT(t, " vcpu ") && num_field(t, event, "vcpu_id", 'u', false) &&
		       LIT(t, " rip 0x") && num_field(t, event, "rip", 'x', true);
	}
	reason = field_node(t, field(event, "exit_reason"), false);
	if (reason < 0 || t->nodes[reason].size > 4)
		return false;
	if (field(event, "isa")) {
		isa = field_node(t, field(event, "isa"), false);
		if (isa < 0 || t->nodes[isa].size > 4)
			return false;
	}
	t->sym_node = (int16_t)add_node(t, (struct node){ .kind = N_SYM, .a = (int16_t)reason,
							  .b = (int16_t)isa, .c = -1 });
	return t->sym_node >= 0 && LIT(t, "reason ") &&
	       add_op(t, (struct op){ .kind = O_STR, .conv = 's', .node = t->sym_node,
				      .pid = -1 }) &&
	       LIT(t, " rip 0x") && num_field(t, event, "guest_rip", 'x', true) &&
	       LIT(t, " info ") && num_field(t, event, "info1", 'x', true) &&
	       LIT(t, " ") && num_field(t, event, "info2", 'x', true);
}

/*
 * libtraceevent's kvm plugin for kvm_emulate_insn, built without a
 * disassembler (Debian's): "CSBASE:RIP: BYTES", each byte "%02x" and one
 * blank between, then " FAIL" when failed; a linked guest may name the
 * rip.  Its byte count outside 1 to the array's size is left to
 * libtraceevent (whose buffer it would overrun).  A plugin built with
 * udis86 prints the instruction instead: the checks send it back.
 */
static bool compile_emulate_plugin(struct vma_kvmtext *t, struct tep_event *event)
{
	struct tep_format_field *insn = field(event, "insn");
	int len = field_node(t, field(event, "len"), false);
	int failed = field_node(t, field(event, "failed"), false);
	int fail, none, cond;

	if (len < 0 || failed < 0 || field_node(t, field(event, "flags"), false) < 0 || !insn ||
	    !(insn->flags & TEP_FIELD_IS_ARRAY) || (insn->flags & TEP_FIELD_IS_DYNAMIC) ||
	    insn->offset < 0 || insn->size <= 0 || insn->size > 15 || insn->elementsize != 1) {
		return false;
	}
	if ((uint32_t)(insn->offset + insn->size) > t->min_size)
		t->min_size = (uint32_t)(insn->offset + insn->size);
	fail = add_node(t, (struct node){ .kind = N_STR, .str = " FAIL", .len = 5, .a = -1,
					  .b = -1, .c = -1 });
	none = add_node(t, (struct node){ .kind = N_STR, .str = "", .len = 0, .a = -1, .b = -1,
					  .c = -1 });
	if (fail < 0 || none < 0)
		return false;
	cond = add_node(t, (struct node){ .kind = N_COND, .a = (int16_t)failed,
					  .b = (int16_t)fail, .c = (int16_t)none });
	t->guest_rip = true;
	t->hex_len = (int16_t)len;
	t->hex_room = (uint32_t)insn->size;
	return cond >= 0 && num_field(t, event, "csbase", 'x', true) && LIT(t, ":") &&
	       num_field(t, event, "rip", 'x', true) && LIT(t, ": ") &&
	       add_op(t, (struct op){ .kind = O_HEX, .node = (int16_t)len,
				      .width = (uint32_t)insn->offset, .len = (uint32_t)insn->size,
				      .pid = -1 }) &&
	       add_op(t, (struct op){ .kind = O_STR, .conv = 's', .node = (int16_t)cond,
				      .pid = -1 });
}

static bool comm_op(struct vma_kvmtext *t, struct tep_format_field *f, int pid)
{
	if (!f || !(f->flags & TEP_FIELD_IS_ARRAY) || (f->flags & TEP_FIELD_IS_DYNAMIC) ||
	    f->offset < 0 || f->size <= 0 || f->size > 64 || pid < 0) {
		return false;
	}
	if ((uint32_t)(f->offset + f->size) > t->min_size)
		t->min_size = (uint32_t)(f->offset + f->size);
	return add_op(t, (struct op){ .kind = O_COMM, .str = NULL, .width = (uint32_t)f->offset,
				      .len = (uint32_t)f->size, .node = -1, .pid = (int16_t)pid });
}

/*
 * libtraceevent's sched_switch plugin: "PREV_COMM:PID [PRIO] STATE ==>
 * NEXT_COMM:PID [PRIO]", registering both comms for their pids as it goes.
 */
static bool compile_sched_plugin(struct vma_kvmtext *t, struct tep_event *event)
{
	int prev = field_node(t, field(event, "prev_pid"), true);
	int next = field_node(t, field(event, "next_pid"), true);
	int state = field_node(t, field(event, "prev_state"), true);

	return prev >= 0 && next >= 0 && state >= 0 &&
	       comm_op(t, field(event, "prev_comm"), prev) && LIT(t, ":") &&
	       num_op(t, prev, 'd', true) && LIT(t, " [") &&
	       num_op(t, field_node(t, field(event, "prev_prio"), true), 'd', false) &&
	       LIT(t, "] ") &&
	       add_op(t, (struct op){ .kind = O_STATE, .node = (int16_t)state, .pid = -1 }) &&
	       LIT(t, " ==> ") && comm_op(t, field(event, "next_comm"), next) && LIT(t, ":") &&
	       num_op(t, next, 'd', true) && LIT(t, " [") &&
	       num_op(t, field_node(t, field(event, "next_prio"), true), 'd', false) &&
	       LIT(t, "]");
}

static bool is_event(const struct tep_event *event, const char *system, const char *name)
{
	return event->name && event->system && !strcmp(event->name, name) &&
	       !strcmp(event->system, system);
}

static bool compile(struct vma_kvmtext *t, struct tep_event *event)
{
	t->sym_node = -1;
	t->hex_len = -1;
	if (event->flags & (TEP_EVENT_FL_PRINTRAW | TEP_EVENT_FL_FAILED))
		return false;
	if (event->handler && !(event->flags & TEP_EVENT_FL_NOHANDLE)) {
		if (is_event(event, "kvm", "kvm_exit"))
			return compile_kvm_plugin(t, event, true);
		if (is_event(event, "kvm", "kvm_entry"))
			return compile_kvm_plugin(t, event, false);
		if (is_event(event, "sched", "sched_switch"))
			return compile_sched_plugin(t, event);
		if (is_event(event, "kvm", "kvm_emulate_insn"))
			return compile_emulate_plugin(t, event);
		return false;
	}
	return compile_print_fmt(t, event);
}

/* ---- writing ------------------------------------------------------------- */

static inline uint64_t rd(const struct node *n, const unsigned char *data, bool big)
{
	return vma_get_uint(data + n->off, n->size, big);
}

static uint64_t eval(const struct vma_kvmtext *t, int i, const unsigned char *data, bool big)
{
	const struct node *n = &t->nodes[i];
	uint64_t a, b;

	switch (n->kind) {
	case N_FIELD:
		return rd(n, data, big);
	case N_CONST:
		return n->val;
	case N_COND:
		if (eval(t, n->a, data, big))
			return eval(t, n->b, data, big);
		return eval(t, n->c, data, big);
	case N_BIN:
		a = eval(t, n->a, data, big);
		b = eval(t, n->b, data, big);
		switch (n->op) {
		case B_AND:
			return a & b;
		case B_OR:
			return a | b;
		case B_SUB:
			return a - b;
		case B_EQ:
			return a == b;
		case B_NE:
			return a != b;
		case B_LT:
			return a < b;
		case B_GT:
			return a > b;
		case B_LE:
			return a <= b;
		default:
			return a >= b;
		}
	}
	return 0;
}

/* The symbol's key: its value, and for kvm_exit the isa in the high word. */
/* A node's value, a field read without a call. */
static inline uint64_t value(const struct vma_kvmtext *t, int i, const unsigned char *data,
			     bool big)
{
	const struct node *n = &t->nodes[i];

	return n->kind == N_FIELD ? rd(n, data, big) : eval(t, i, data, big);
}

static uint64_t sym_key(const struct vma_kvmtext *t, const unsigned char *data, bool big)
{
	const struct node *n = &t->nodes[t->sym_node];
	uint64_t key = eval(t, n->a, data, big);

	if (n->b >= 0)
		key |= eval(t, n->b, data, big) << 32;
	return key;
}

static struct sym *sym_find(struct vma_kvmtext *t, uint64_t key)
{
	uint32_t i;

	for (i = 0; i < t->nr_syms; i++) {
		if (t->syms[i].key == key)
			return &t->syms[i];
	}
	return NULL;
}

/*
 * The writers below write at @p, in room the caller made: a compiled
 * event's longest text (max_len) is known from its ops.
 */
static char *put_fill(char *p, char c, size_t n)
{
	memset(p, c, n);
	return p + n;
}

/* A printf conversion of @v as libtraceevent passes it: an int unless wide. */
static char *put_num(char *p, const struct op *o, uint64_t v)
{
	char digits[24], *end = digits + sizeof(digits), *d = end;
	const char *hex = o->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	size_t n, plen = 0, fill;
	char prefix[2];

	if (!o->wide)
		v = (uint32_t)v;
	if (o->conv == 'x' || o->conv == 'X') {
		do {
			*--d = hex[v & 15];
			v >>= 4;
		} while (v);
		if (o->alt && !(d == end - 1 && *d == '0')) {
			prefix[0] = '0';
			prefix[1] = o->conv;
			plen = 2;
		}
	} else {
		if (o->conv != 'u') {
			int64_t sv = o->wide ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;

			if (sv < 0) {
				prefix[0] = '-';
				plen = 1;
				v = -(uint64_t)sv;
			}
		}
		do {
			*--d = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	}
	n = (size_t)(end - d);
	if (o->width <= n + plen) {
		vma_copy_short(p, prefix, plen);
		vma_copy_short(p + plen, d, n);
		return p + plen + n;
	}
	fill = o->width - n - plen;
	if (!o->left && !o->zero)
		p = put_fill(p, ' ', fill);
	memcpy(p, prefix, plen);
	p += plen;
	if (!o->left && o->zero)
		p = put_fill(p, '0', fill);
	memcpy(p, d, n);
	p += n;
	return o->left ? put_fill(p, ' ', fill) : p;
}

static char *put_str(char *p, const struct op *o, const char *s, size_t n)
{
	size_t fill = o->width > n ? o->width - n : 0;

	if (!o->left)
		p = put_fill(p, ' ', fill);
	vma_copy_short(p, s, n);
	p += n;
	return o->left ? put_fill(p, ' ', fill) : p;
}

/* The text of a string node; the symbol is @sym (the marker while it is learned). */
static void str_of(const struct vma_kvmtext *t, int i, const unsigned char *data, bool big,
		   const struct sym *sym, const char **s, size_t *n)
{
	const struct node *nd = &t->nodes[i];

	while (nd->kind == N_COND)
		nd = &t->nodes[eval(t, nd->a, data, big) ? nd->b : nd->c];
	if (nd->kind == N_SYM) {
		static const char mark[] = { MARK, 0 };

		*s = sym ? sym->text : mark;
		*n = sym ? sym->len : 1;
		return;
	}
	*s = nd->str;
	*n = nd->len;
}

/* The sched_switch plugin's state letters: one per set bit of "SDTtZXxW", '|' between. */
static char *put_state(char *p, uint32_t state)
{
	static const char letters[] = "SDTtZXxW";
	bool any = false;
	unsigned int i;

	for (i = 0; i < sizeof(letters) - 1; i++) {
		if (!(state & (1u << i)))
			continue;
		if (any)
			*p++ = '|';
		*p++ = letters[i];
		any = true;
	}
	if (!any)
		*p++ = 'R';
	return p;
}

static char *put_comm(struct vma_kvm_priv *priv, char *p, const struct op *o,
		      const unsigned char *data, int pid)
{
	size_t n = strnlen((const char *)data + o->width, o->len), i;

	memcpy(p, data + o->width, n);
	p[n] = '\0';
	/* as the plugin: the comm names the pid from here on (a known pid keeps its own) */
	vma_tep()->tep_register_comm(priv->tep, p, pid);
	vma_kvm_comms_stale(priv);
	/* what the dump makes of a newline or tab in the text (tidy()) */
	for (i = 0; i < n; i++) {
		if (p[i] == '\n' || p[i] == '\t' || p[i] == '\r')
			p[i] = ' ';
	}
	return p + n;
}

/* @n bytes at @data, "%02x" each, a blank between. */
static char *put_hex(char *p, const unsigned char *data, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			*p++ = ' ';
		p = vma_fmt_x64_pad(p, data[i], 2, '0');
	}
	return p;
}

/* Longest text of a symbol kept; longer ones stay with libtraceevent. */
#define MAX_SYM_LEN 256
#define MAX_NUM_LEN 24
#define MAX_STATE_LEN 16

/* An upper bound of the text the ops write (the terminating NUL included). */
static size_t max_len(const struct vma_kvmtext *t)
{
	size_t n = 1, i, k;

	for (i = 0; i < t->nr_ops; i++) {
		const struct op *o = &t->ops[i];
		size_t w = MAX_STATE_LEN;

		switch (o->kind) {
		case O_LIT:
		case O_COMM:
			w = o->len;
			break;
		case O_NUM:
			w = MAX_NUM_LEN;
			break;
		case O_HEX:
			/* vma_fmt_x64_pad() may store past its two digits */
			w = 3 * (size_t)o->len + VMA_FMT_PAD_MAX(2);
			break;
		case O_STR:
			w = MAX_SYM_LEN;
			for (k = 0; k < t->nr_nodes; k++) {
				if (t->nodes[k].kind == N_STR && t->nodes[k].len > w)
					w = t->nodes[k].len;
			}
			break;
		}
		n += (o->width > w ? o->width : w) + 1;
	}
	return n;
}

static void put_ops(const struct vma_kvmtext *t, struct vma_kvm_priv *priv,
		    const unsigned char *data, bool big, const struct sym *sym,
		    struct vma_strbuf *sb)
{
	uint32_t i;
	char *p;

	if (!vma_sb_room(sb, t->max_len))
		return;
	p = sb->buf + sb->len;
	for (i = 0; i < t->nr_ops; i++) {
		const struct op *o = &t->ops[i];
		const char *s;
		size_t n;

		switch (o->kind) {
		case O_LIT:
			vma_copy_short(p, o->str, o->len);
			p += o->len;
			break;
		case O_NUM:
			p = put_num(p, o, value(t, o->node, data, big));
			break;
		case O_STR:
			str_of(t, o->node, data, big, sym, &s, &n);
			p = put_str(p, o, s, n);
			break;
		case O_COMM:
			p = put_comm(priv, p, o, data, (int)value(t, o->pid, data, big));
			break;
		case O_STATE:
			p = put_state(p, (uint32_t)value(t, o->node, data, big));
			break;
		case O_HEX:
			/* vma_kvmtext_put() saw the count within the array */
			p = put_hex(p, data + o->width, (size_t)value(t, o->node, data, big));
			break;
		}
	}
	sb->len = (size_t)(p - sb->buf);
	sb->buf[sb->len] = '\0';
}

/* ---- checking against libtraceevent -------------------------------------- */

/*
 * What the dump does to libtraceevent's text (kvm-events.c): trailing
 * blanks and newlines cut, other newlines and tabs made blanks.
 */
static void tidy(struct vma_strbuf *sb, size_t at, bool dirty)
{
	size_t i;

	if (sb->failed || !sb->cap)
		return;
	while (sb->len > at && (sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == ' '))
		sb->len--;
	sb->buf[sb->len] = '\0';
	for (i = at; dirty && i < sb->len; i++) {
		if (sb->buf[i] == '\n' || sb->buf[i] == '\t' || sb->buf[i] == '\r')
			sb->buf[i] = ' ';
	}
}

/*
 * Learn the text of a new symbolic value from libtraceevent's line @ref,
 * given vmalyze's @ours with the marker in its place.
 */
static void learn(struct vma_kvmtext *t, uint64_t key, const char *ours, size_t our_len,
		  const char *ref, size_t ref_len)
{
	const char *m = memchr(ours, MARK, our_len);
	struct sym *s;
	size_t pre, post;

	if (t->nr_syms >= MAX_SYMS)
		return;
	s = &t->syms[t->nr_syms++];
	s->key = key;
	s->text = NULL;
	s->len = 0;
	if (!m || memchr(m + 1, MARK, our_len - (size_t)(m + 1 - ours)))
		return;
	pre = (size_t)(m - ours);
	post = our_len - pre - 1;
	if (ref_len < pre + post || ref_len - pre - post > MAX_SYM_LEN || memcmp(ours, ref, pre) ||
	    memcmp(ours + pre + 1, ref + ref_len - post, post)) {
		return;
	}
	s->len = (uint32_t)(ref_len - pre - post);
	s->text = malloc(s->len + 1);
	if (!s->text) {
		s->len = 0;
		return;
	}
	memcpy(s->text, ref + pre, s->len);
	s->text[s->len] = '\0';
}

static bool has_blank(const char *s, size_t n)
{
	return memchr(s, '\n', n) || memchr(s, '\t', n) || memchr(s, '\r', n);
}

/* Whether the text can hold a newline or tab: one in the format's strings (comms are tidied). */
static bool is_dirty(const struct vma_kvmtext *t)
{
	uint32_t i;

	for (i = 0; i < t->nr_ops; i++) {
		if (t->ops[i].kind == O_LIT && has_blank(t->ops[i].str, t->ops[i].len))
			return true;
	}
	for (i = 0; i < t->nr_nodes; i++) {
		if (t->nodes[i].kind == N_STR && has_blank(t->nodes[i].str, t->nodes[i].len))
			return true;
	}
	return false;
}

static struct vma_kvmtext *text_new(struct tep_event *event)
{
	struct vma_kvmtext *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->checks = CHECKS;
	t->style = compile(t, event) ? S_FAST : S_SLOW;
	t->max_len = max_len(t);
	t->dirty = is_dirty(t);
	return t;
}

bool vma_kvmtext_fast(const struct vma_kvmtext *t)
{
	return t && t->style == S_FAST;
}

void vma_kvmtext_free(struct vma_kvmtext *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr_syms; i++)
		free(t->syms[i].text);
	free(t->fmt);
	free(t);
}

/*
 * Writes the record's text both ways into @sb: libtraceevent's is kept.
 * A difference sends the event back to libtraceevent; a new symbol is learned.
 */
static void check(struct vma_kvmtext *t, struct vma_kvm_priv *priv, struct vma_kvmev_bind *b,
		  const struct vma_kvm_line *line, const struct sym *sym, bool learning,
		  uint64_t key, struct vma_strbuf *sb)
{
	struct vma_strbuf ours;
	size_t at = sb->len;

	vma_kvmev_info_text(priv, b->event, line, sb);
	vma_sb_init(&ours);
	put_ops(t, priv, line->data, priv->ev.big_endian, learning ? NULL : sym, &ours);
	tidy(&ours, 0, true);
	if (ours.failed || sb->failed) {
		vma_sb_free(&ours);
		return;
	}
	if (learning) {
		learn(t, key, ours.buf, ours.len, sb->buf + at, sb->len - at);
	} else if (ours.len != sb->len - at || memcmp(ours.buf, sb->buf + at, ours.len)) {
		t->style = S_SLOW;
	}
	vma_sb_free(&ours);
}

bool vma_kvmtext_put(struct vma_kvm_priv *priv, struct vma_kvmev_bind *b,
		     const struct vma_kvm_line *line, struct vma_strbuf *sb)
{
	struct vma_kvmtext *t = b->text;
	const struct sym *sym = NULL;
	bool learning = false;
	uint64_t key = 0;
	size_t at;

	if (!t) {
		t = b->text = text_new(b->event);
		if (!t)
			return false;
	}
	if (t->style != S_FAST || line->size < t->min_size ||
	    (t->guest_rip && vma_kvm_has_guest_links(priv->tep))) {
		return false;
	}
	if (t->hex_len >= 0) {
		uint64_t n = value(t, t->hex_len, line->data, priv->ev.big_endian);

		if (n < 1 || n > t->hex_room)
			return false;
	}
	if (t->sym_node >= 0) {
		key = sym_key(t, line->data, priv->ev.big_endian);
		sym = sym_find(t, key);
		if (sym && !sym->text)
			return false;
		learning = !sym;
		if (learning && t->nr_syms >= MAX_SYMS)
			return false;
	}
	if (learning || t->checks) {
		if (t->checks)
			t->checks--;
		check(t, priv, b, line, sym, learning, key, sb);
		return true;
	}
	at = sb->len;
	put_ops(t, priv, line->data, priv->ev.big_endian, sym, sb);
	tidy(sb, at, t->dirty);
	return true;
}
