/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dump-mode lines (grammar in dump.h and doc/output.md).  The columns that
 * show state are taken before the record is processed, as xenalyze does,
 * so a runstate change shows the vcpu that was running until then.
 *
 * A large trace has hundreds of millions of lines, so each costs what it
 * must and no more: the prefix is written in place through a cursor, the
 * time without a division (dump-time.h; its second, and the vcpu column,
 * as the lines before had them), the text by the decoders' cursor, and
 * lines leave in batches.
 *
 * A Xen trace says whether its exit codes are VMX's or SVM's only at its
 * first SVM-only exit code (vma_vendor_note()), so the first lines are held
 * until it has (or until VMA_DUMP_VENDOR_LOOKAHEAD records or
 * VMA_DUMP_VENDOR_HOLD_BYTES of lines are held, or the trace ends: VMX).
 * A held line whose text would differ under SVM keeps that text aside, and
 * the held lines get it if the trace turns out SVM.
 * The input is read once, so a pipe or FIFO is dumped like a file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/dump-time.h"
#include "output/xen-describe-internal.h"
#include "vmalyze/describe.h"
#include "vmalyze/dump.h"
#include "vmalyze/grow.h"
#include "vmalyze/status.h"
#include "vmalyze/strbuf.h"
#include "vmalyze/symbols.h"
#include "vmalyze/trace-ids.h"
#include "vmalyze/xen-names.h"

/*
 * The first instant's time is blank, one column wider than a time ("%3u"
 * seconds, '.', 9 digits), as it always was ("%14s").
 */
#define BLANK_TIME_WIDTH 14

/*
 * Lines are gathered and written this many bytes at a time: one fwrite()
 * per line cost as much as formatting the line.  No more: each page of
 * the buffer costs a page fault when first written (some 10 us on a VM),
 * and 256 KiB took 100 more of them than 64 KiB, a twentieth of the dump
 * of a 4 MB capture, while into a file or a pipe (64 KiB) the larger
 * writes gained nothing measurable (bench/README, round nineteen).
 */
#define FLUSH_BYTES (64u * 1024u)

/*
 * The " dNvM " vcpu columns lately written, by vcpu in a small
 * direct-mapped table: a line copies its column rather than formatting two
 * numbers (the idle and default domains' ids have five digits).  A vcpu is
 * known by its address: its ids never change, and a machine frees its
 * vcpus only when it is destroyed, after the dump.
 */
#define VCPU_COL_SLOTS_LOG2 8
#define VCPU_COL_MAX (2 + 10 + 1 + 10 + 1)

struct vcpu_col {
	const struct vma_vcpu *vcpu; /* NULL: empty */
	uint8_t len;
	char text[VCPU_COL_MAX];
};

/* A held line whose text is another under SVM (offsets in the dump's lines). */
struct held_alt {
	size_t line;     /* the line's first byte, its mark */
	size_t text;     /* its text, which ends at ... */
	size_t text_end; /* ... its newline */
	size_t alt;      /* the SVM text, in alt_text */
	size_t alt_len;
	char alt_mark;
};

struct vma_dump {
	FILE *out;
	vma_dump_describe_fn *describe; /* NULL: Xen records, decoded here */
	uint64_t cpu_hz;
	struct vma_dump_clock clock; /* the time column */
	struct vcpu_col vcpu_cols[1u << VCPU_COL_SLOTS_LOG2];
	struct vma_strbuf lines;     /* finished lines, then the one being built */
	size_t done;                 /* bytes of finished lines in @lines */
	struct vma_describe_ctx ctx; /* analysis state before the record */
	struct xd_kept_texts *kept;  /* owned: the decoders' words kept between lines */
	const struct vma_machine *machine; /* borrowed: the model being dumped */
	size_t vcpu_col;             /* offset of the vcpu column of the line being built */
	const struct vma_symbols *symbols; /* borrowed: --symbol-file, NULL if none */
	bool general;                /* extras, KVM or linked lines: not end_plain() */
	bool extras;                 /* any of the options below */
	bool no_lines;               /* only --dump-raw-process lines, no -a */
	bool raw_process;            /* --dump-raw-process */
	/* --dump-trace-volume-on-lost-record: each pcpu's volume at its last loss. */
	bool volume_on_lost;
	uint64_t (*volume_mark)[VMA_VOL_COUNT]; /* owned, nr_marks entries */
	size_t nr_marks;
	/* --dump-show-power-states: each pcpu's C-state, from its pm_idle records. */
	bool show_power;
	uint8_t *power;              /* owned, nr_power entries */
	size_t nr_power;
	/* Vendor look-ahead. */
	bool holding;                /* lines are held until the vendor is known */
	uint32_t held;               /* records held */
	struct vma_strbuf alt_text;  /* SVM texts of held lines */
	struct held_alt *alts;       /* owned, in line order */
	size_t nr_alts, cap_alts;
	/* Linked inputs (vma_dump_begin_linked()), and --time (vma_dump_set_origin()) */
	bool have_origin;
	uint64_t origin;             /* the first record's time stamp */
	const char *label;           /* borrowed: the line's input, before its text */
	int label_width;
	bool vcpu_fixed;             /* a guest's line: its vcpu column stays */
	vma_dump_describe_fn *guest_describe; /* a Xen host's guest lines, or NULL */
};

/* C-states xenalyze shows (a digit); pm_idle_start of a deeper one is ignored. */
#define CSTATE_MAX 5

struct vma_dump *vma_dump_create(FILE *out, uint64_t cpu_hz, vma_dump_describe_fn *describe)
{
	struct vma_dump *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->kept = calloc(1, sizeof(*d->kept));
	if (!d->kept) {
		free(d);
		return NULL;
	}
	d->out = out;
	d->cpu_hz = cpu_hz;
	d->describe = describe;
	d->general = describe != NULL;
	d->holding = !describe;
	vma_dump_clock_init(&d->clock, cpu_hz);
	vma_sb_init(&d->lines);
	vma_sb_init(&d->alt_text);
	return d;
}

void vma_dump_no_lookahead(struct vma_dump *d)
{
	d->holding = false;
}

/*
 * Hand the finished lines over: straight to the file descriptor when
 * @direct and there is one (stdio would only copy them into its buffer
 * first, a few percent of the run), else, or when the FILE is not backed
 * by a descriptor, through stdio.
 */
static int flush(struct vma_dump *d, bool direct)
{
	const char *p = d->lines.buf;
	size_t n = d->done;
	int fd = direct ? fileno(d->out) : -1;
	bool ok = true;

	if (!n)
		return VMA_OK;
	if (fd < 0) {
		ok = fwrite(p, 1, n, d->out) == n;
	} else if (fflush(d->out) != 0) { /* what others wrote to it goes first */
		ok = false;
	} else {
		while (ok && n) {
			ssize_t w = write(fd, p, n);

			if (w > 0) {
				p += w;
				n -= (size_t)w;
			} else if (w == 0 || errno != EINTR) {
				ok = false;
			}
		}
	}
	/* A line begun and not yet ended moves to the front. */
	d->lines.len -= d->done;
	memmove(d->lines.buf, d->lines.buf + d->done, d->lines.len + 1);
	d->done = 0;
	return ok ? VMA_OK : VMA_ERR_OUTPUT;
}

/*
 * The look-ahead ends: the held lines are final, with their SVM texts if
 * @svm.  Return: VMA_OK or VMA_ERR_NOMEM.
 */
static __attribute__((noinline)) int release_held(struct vma_dump *d, bool svm)
{
	struct vma_strbuf out;
	size_t at = 0, i;
	int rc = VMA_OK;

	d->holding = false;
	if (svm && d->nr_alts) {
		vma_sb_init(&out);
		vma_sb_room(&out, d->lines.len + d->alt_text.len);
		for (i = 0; i < d->nr_alts; i++) {
			const struct held_alt *a = &d->alts[i];

			vma_sb_put(&out, d->lines.buf + at, a->line - at);
			vma_sb_putc(&out, a->alt_mark);
			vma_sb_put(&out, d->lines.buf + a->line + 1, a->text - a->line - 1);
			vma_sb_put(&out, d->alt_text.buf + a->alt, a->alt_len);
			at = a->text_end;
		}
		vma_sb_put(&out, d->lines.buf + at, d->lines.len - at);
		if (vma_sb_failed(&out)) {
			vma_sb_free(&out);
			rc = VMA_ERR_NOMEM;
		} else {
			d->done += out.len - d->lines.len;
			vma_sb_free(&d->lines);
			d->lines = out;
		}
	}
	free(d->alts);
	d->alts = NULL;
	d->nr_alts = d->cap_alts = 0;
	vma_sb_free(&d->alt_text);
	return rc;
}

/*
 * A held Xen record whose text was just appended to the lines from @text
 * on, with @mark: keep its SVM text if that is another.
 */
static __attribute__((noinline)) int hold_alt(struct vma_dump *d, const struct vma_record *rec,
					      size_t text, char mark)
{
	size_t text_end = d->lines.len;
	size_t alt = d->alt_text.len, len;
	bool svm = d->ctx.svm;
	struct xd_out o;

	if (!vma_sb_room(&d->alt_text, XD_TEXT_ROOM))
		return VMA_ERR_NOMEM;
	xd_attach(&o, &d->alt_text);
	o.kept = d->kept;
	d->ctx.svm = true;
	xd_describe(&o, rec, &d->ctx);
	d->ctx.svm = svm;
	xd_sync(&o);
	if (vma_sb_failed(&d->alt_text))
		return VMA_ERR_NOMEM;
	len = d->alt_text.len - alt;
	if (o.mark == mark && len == text_end - text &&
	    !memcmp(d->alt_text.buf + alt, d->lines.buf + text, len)) {
		d->alt_text.len = alt;
		if (d->alt_text.cap)
			d->alt_text.buf[alt] = '\0';
		return VMA_OK;
	}
	if (vma_grow(d->alts, &d->cap_alts, d->nr_alts + 1, 256))
		return VMA_ERR_NOMEM;
	d->alts[d->nr_alts++] = (struct held_alt){
		.line = d->done, .text = text, .text_end = text_end,
		.alt = alt, .alt_len = len, .alt_mark = o.mark,
	};
	return VMA_OK;
}

/* A line ended while the lines are held (vendor look-ahead). */
static __attribute__((noinline)) int end_held(struct vma_dump *d)
{
	const struct vma_machine *m = d->machine;
	int rc;

	if (!m->vendor_known && ++d->held < VMA_DUMP_VENDOR_LOOKAHEAD &&
	    d->lines.len + d->alt_text.len < VMA_DUMP_VENDOR_HOLD_BYTES)
		return VMA_OK;
	rc = release_held(d, m->svm);
	if (rc < 0)
		return rc;
	return d->done >= FLUSH_BYTES ? flush(d, true) : VMA_OK;
}

int vma_dump_flush(struct vma_dump *d)
{
	int rc = d->holding ? release_held(d, d->machine && d->machine->svm) : VMA_OK;

	return rc ? rc : flush(d, true);
}

void vma_dump_destroy(struct vma_dump *d)
{
	if (!d)
		return;
	/*
	 * Through stdio: destroying cannot report a failure, but the FILE
	 * keeps it, for whoever flushes or closes it next.
	 */
	if (d->holding)
		release_held(d, d->machine && d->machine->svm);
	flush(d, false);
	vma_sb_free(&d->lines);
	vma_sb_free(&d->alt_text);
	free(d->alts);
	free(d->power);
	free(d->volume_mark);
	free(d->kept);
	free(d);
}

/*
 * @n bytes from @src to @dst: a dump line's pcpu columns.  8 at a time,
 * the last 8 (or 4) overlapping those before rather than byte by byte, so
 * a host of 8 pcpus is one move.
 */
static inline void copy_columns(char *dst, const char *src, uint32_t n)
{
	uint32_t i;

	if (n >= 8) {
		for (i = 0; i + 8 < n; i += 8)
			memcpy(dst + i, src + i, 8);
		memcpy(dst + n - 8, src + n - 8, 8);
	} else if (n >= 4) {
		memcpy(dst, src, 4);
		memcpy(dst + n - 4, src + n - 4, 4);
	} else {
		for (i = 0; i < n; i++)
			dst[i] = src[i];
	}
}

/* With power states shown, an idle pcpu's column is its C-state's digit. */
static __attribute__((noinline, cold)) void power_columns(const struct vma_dump *d,
							  const struct vma_machine *m, char *col)
{
	uint32_t i;

	for (i = 0; i < m->max_pcpu; i++) {
		const struct vma_pcpu *p = m->pcpus[i];

		if (col[i] == '-' && p)
			col[i] = (char)('0' + (p->id < d->nr_power ? d->power[p->id] : 0));
	}
}

/*
 * Longest prefix: mark, a time of 20-digit seconds, '.', 9 digits, a space,
 * the pcpu columns, " d", vcpu ids of 10 digits around 'v', a space.
 */
#define PREFIX_MAX(pcpus) (1 + 20 + 1 + 9 + 1 + (pcpus) + 2 + 10 + 1 + 10 + 1)

void vma_dump_raw_process(struct vma_dump *d, bool lines)
{
	d->raw_process = true;
	d->no_lines = !lines;
	d->extras = d->general = true;
	/* Raw lines only: no text depends on the vendor. */
	if (!lines)
		d->holding = false;
}

/*
 * xenalyze's raw line of a record: @prefix, the id, the
 * payload word count, the time stamp (or -), the payload words, then the
 * record's words as they are in the file (header, time stamp, payload),
 * at most 8.  xenalyze prints 8 words there whatever the record's size,
 * those past its end being the bytes that follow it; vmalyze prints only
 * the record's own.  KVM
 * records have no xentrace words: only their normalized payload is shown.
 */
void vma_dump_raw_line(struct vma_strbuf *sb, const char *prefix, const struct vma_record *rec)
{
	/* The end of a lost-records gap is the lost record again, as in xenalyze. */
	bool lost_end = rec->event == VMA_SYNTH_LOST_END;
	uint32_t event = lost_end ? TRC_LOST_RECORDS : rec->event;
	bool xen = event < VMA_ID_KVM_BASE;
	uint32_t i, n = rec->nr_data;

	vma_sb_puts(sb, prefix);
	vma_sb_putc(sb, ' ');
	/* xenalyze's internal id of the gap's end: TRC_GEN + 50. */
	vma_sb_put_x64_pad(sb, lost_end ? TRC_GEN + 50 : event, 7, ' ');
	vma_sb_printf(sb, " %u ", n);
	if (rec->flags & VMA_REC_HAS_TSC)
		vma_sb_put_u64_pad(sb, rec->tsc, 14, ' ');
	else
		vma_sb_printf(sb, "%14s", "-");
	vma_sb_puts(sb, " [");
	for (i = 0; i < (n > 7 ? n : 7); i++) {
		if (i < n) {
			vma_sb_putc(sb, ' ');
			vma_sb_put_x64_pad(sb, rec->data[i], 8, ' ');
		} else {
			vma_sb_put_fill(sb, ' ', 9);
		}
	}
	vma_sb_puts(sb, " ]");
	if (xen) {
		uint32_t words[3 + VMA_REC_MAX_WORDS], nw = 0;

		words[nw++] = (event & 0x0fffffffu) | (n & 7) << 28 |
			      (rec->flags & VMA_REC_HAS_TSC ? 1u << 31 : 0);
		if (rec->flags & VMA_REC_HAS_TSC) {
			words[nw++] = (uint32_t)rec->tsc;
			words[nw++] = (uint32_t)(rec->tsc >> 32);
		}
		for (i = 0; i < n; i++)
			words[nw++] = rec->data[i];
		/* At most 8, as xenalyze shows. */
		vma_sb_puts(sb, " | ");
		for (i = 0; i < nw && i < 8; i++)
			vma_sb_printf(sb, " %08x", words[i]);
		vma_sb_puts(sb, " |");
	}
	vma_sb_putc(sb, '\n');
}

/*
 * Pcpu columns shown at most: past them a line ends its columns with "+",
 * and "+xN" when the record's pcpu N is among those not shown, so a line's
 * length does not grow with the highest pcpu number (doc/output.md).
 */
#define DUMP_MAX_PCPU_COLS 256u
#define HIDDEN_PCPU_MAX (2 + 10)

/* @v's column in @c, which held another's. */
static __attribute__((noinline)) void fill_vcpu_column(struct vcpu_col *c,
							const struct vma_vcpu *v)
{
	char *q = c->text;

	memcpy(q, " d", 2);
	q = vma_fmt_u64(q + 2, v->domain->did);
	*q++ = 'v';
	q = vma_fmt_u64(q, v->vid);
	*q++ = ' ';
	c->vcpu = v;
	c->len = (uint8_t)(q - c->text);
}

/* " dNvM " of @v at @p, returning the end; @p has room for a whole slot's text. */
static inline __attribute__((always_inline)) char *vcpu_column(struct vma_dump *d, char *p,
								const struct vma_vcpu *v)
{
	/* multiplicative hashing of the address, past its alignment */
	uint64_t h = ((uint64_t)(uintptr_t)v >> 4) * 0x9e3779b97f4a7c15ull;
	struct vcpu_col *c = &d->vcpu_cols[h >> (64 - VCPU_COL_SLOTS_LOG2)];

	if (__builtin_expect(c->vcpu != v, 0))
		fill_vcpu_column(c, v);
	memcpy(p, c->text, sizeof(c->text));
	return p + c->len;
}

/* What some record texts show of the analysis, as it was before: from @p's vcpu. */
static void take_state(struct vma_dump *d, const struct vma_pcpu *p)
{
	const struct vma_vcpu *v = p ? p->current : NULL;
	bool hvm = v && v->type == VMA_VCPU_HVM;
	struct vma_describe_ctx *ctx = &d->ctx;

	/* every field the record's end does not set */
	ctx->cpu_hz = d->cpu_hz;
	ctx->have_cur = v != NULL;
	ctx->cur_dom = v ? v->domain->did : 0;
	ctx->cur_vcpu = v ? v->vid : 0;
	ctx->exit_open = hvm && v->hvm.vmexit_valid;
	ctx->exit_reason = hvm ? v->hvm.exit_reason : 0;
	ctx->cr3 = hvm ? v->hvm.cr3 : 0;
	ctx->last_rdtsc = hvm ? v->hvm.last_rdtsc : 0;
	ctx->guest_paging_levels = hvm ? v->hvm.paging_levels : 0;
	ctx->mmio_in_arc = hvm && v->hvm.mmio_in_arc;
}

/*
 * The prefix: time since @origin (UINT64_MAX: none yet), @m's pcpus with
 * 'x' at @x, and the vcpu running on the record's pcpu, or *@vcpu when
 * given (a guest's line: the host's vcpu that runs it, maybe NULL).  Room
 * is made for the text too, so that its pieces do not grow the lines.
 */
static inline __attribute__((always_inline)) void
begin(struct vma_dump *d, const struct vma_machine *m, const struct vma_record *rec,
      uint64_t origin, uint32_t x, const struct vma_vcpu *const *vcpu)
{
	struct vma_strbuf *sb = &d->lines;
	uint32_t nr = m->max_pcpu;
	const struct vma_pcpu *p;
	const struct vma_vcpu *cur;
	char *col;

	/* Drop a line begun and never ended (its record failed). */
	if (sb->len > d->done) {
		sb->len = d->done;
		sb->buf[sb->len] = '\0';
	}
	if (__builtin_expect(d->raw_process, 0)) {
		vma_dump_raw_line(sb, "* ", rec);
		if (!vma_sb_failed(sb))
			d->done = sb->len;
		if (d->no_lines)
			return;
	}
	/* Room for the whole prefix, written through a cursor and committed once. */
	if (nr > DUMP_MAX_PCPU_COLS)
		nr = DUMP_MAX_PCPU_COLS;
	if (!vma_sb_room(sb, PREFIX_MAX(nr) + HIDDEN_PCPU_MAX + XD_TEXT_ROOM))
		return;
	col = sb->buf + sb->len;
	*col++ = ' '; /* MARK, set at the end */
	if (origin != UINT64_MAX && rec->tsc > origin) {
		col = vma_dump_clock_put(&d->clock, col, rec->tsc - origin);
	} else {
		memset(col, ' ', BLANK_TIME_WIDTH);
		col += BLANK_TIME_WIDTH;
	}
	*col++ = ' ';
	/* The state keeps each pcpu's column (vma_pcpu_column()). */
	copy_columns(col, m->columns, nr);
	if (__builtin_expect(d->show_power, 0))
		power_columns(d, m, col);
	if (x < nr)
		col[x] = 'x';
	col += nr;
	if (__builtin_expect(m->max_pcpu > nr, 0)) {
		*col++ = '+';
		if (rec->pcpu >= nr) {
			*col++ = 'x';
			col = vma_fmt_u64(col, rec->pcpu);
		}
	}
	d->machine = m;
	d->vcpu_col = (size_t)(col - sb->buf);
	p = rec->pcpu < m->nr_pcpus ? m->pcpus[rec->pcpu] : NULL;
	cur = vcpu ? *vcpu : p ? p->current : NULL;
	if (vcpu)
		p = NULL; /* a guest's record: no host pcpu's analysis state */
	if (cur) {
		col = vcpu_column(d, col, cur);
	} else {
		memcpy(col, " d?v? ", 6);
		col += 6;
	}
	*col = '\0';
	sb->len = (size_t)(col - sb->buf);
	if (xd_reads_state(rec->event))
		take_state(d, p);
}

/* begin() of a trace's own record: its time since the origin, its pcpu's vcpu. */
static inline __attribute__((always_inline)) void
begin_own(struct vma_dump *d, const struct vma_machine *m, const struct vma_record *rec)
{
	/* The machine's first stamp, once it has one, is the origin for good. */
	if (__builtin_expect(!d->have_origin, 0) && m->have_time) {
		d->have_origin = true;
		d->origin = m->first_tsc;
	}
	begin(d, m, rec, d->have_origin ? d->origin : UINT64_MAX, rec->pcpu, NULL);
}

void vma_dump_begin(struct vma_dump *d, const struct vma_machine *m, const struct vma_record *rec)
{
	d->label = NULL;
	d->vcpu_fixed = false;
	begin_own(d, m, rec);
}

/*
 * The host pcpu @v is on: of those whose last record was @v's (KVM's
 * state stage keeps the vcpu of each pcpu's last record), the latest.
 * UINT32_MAX when none, or no @v.
 */
static uint32_t pcpu_running(const struct vma_machine *m, const struct vma_vcpu *v)
{
	uint32_t i, best = UINT32_MAX;

	for (i = 0; v && i < m->nr_pcpus; i++) {
		const struct vma_pcpu *p = m->pcpus[i];

		if (p && p->current == v && (best == UINT32_MAX ||
					     p->last_tsc > m->pcpus[best]->last_tsc))
			best = i;
	}
	if (best == UINT32_MAX && v && v->pcpu)
		best = v->pcpu->id;
	return best;
}

void vma_dump_begin_linked(struct vma_dump *d, const struct vma_machine *host,
			   const struct vma_record *rec, bool guest,
			   const struct vma_vcpu *guest_vcpu, const char *label, int label_width)
{
	uint32_t x = rec->pcpu;

	if (!d->have_origin) {
		d->have_origin = true;
		d->origin = rec->tsc;
	}
	if (guest)
		x = pcpu_running(host, guest_vcpu);
	d->general = true;
	d->label = label;
	d->label_width = label_width;
	d->vcpu_fixed = guest;
	begin(d, host, rec, d->origin, x, guest ? &guest_vcpu : NULL);
}

void vma_dump_set_origin(struct vma_dump *d, uint64_t tsc)
{
	d->have_origin = true;
	d->origin = tsc;
}

void vma_dump_set_guest_describe(struct vma_dump *d, vma_dump_describe_fn *describe)
{
	d->guest_describe = describe;
	d->general = true;
}

void vma_dump_set_symbols(struct vma_dump *d, const struct vma_symbols *symbols)
{
	d->symbols = symbols;
	d->extras |= symbols != NULL;
	d->general |= symbols != NULL;
}

void vma_dump_show_power_states(struct vma_dump *d)
{
	d->show_power = true;
	d->extras = d->general = true;
}

/* pm_idle_start c<N> puts the pcpu in C-state N; pm_idle_end takes it out. */
static int note_power_state(struct vma_dump *d, const struct vma_record *rec)
{
	if (rec->event != TRC_PM_IDLE_ENTRY && rec->event != TRC_PM_IDLE_EXIT)
		return VMA_OK;
	if (rec->event == TRC_PM_IDLE_ENTRY && (!rec->nr_data || rec->data[0] > CSTATE_MAX))
		return VMA_OK;
	if (rec->pcpu >= d->nr_power) {
		size_t old = d->nr_power;

		if (vma_grow(d->power, &d->nr_power, (size_t)rec->pcpu + 1, 8))
			return VMA_ERR_NOMEM;
		memset(d->power + old, 0, d->nr_power - old);
	}
	d->power[rec->pcpu] = rec->event == TRC_PM_IDLE_ENTRY ? (uint8_t)rec->data[0] : 0;
	return VMA_OK;
}

void vma_dump_volume_on_lost(struct vma_dump *d)
{
	d->volume_on_lost = true;
	d->extras = d->general = true;
}

/*
 * At a lost-records record: what the pcpu wrote since its previous loss
 * (or the start), by class, in the log volume summary's layout; that is
 * what filled the buffer that overflowed.
 */
static int lost_volume(struct vma_dump *d, const struct vma_record *rec)
{
	const struct vma_machine *m = d->machine;
	const struct vma_pcpu *p = rec->pcpu < m->nr_pcpus ? m->pcpus[rec->pcpu] : NULL;
	struct vma_strbuf *sb = &d->lines;
	uint64_t *mark;
	uint32_t j, k;

	if (!p)
		return VMA_OK;
	if (rec->pcpu >= d->nr_marks) {
		size_t old = d->nr_marks;

		if (vma_grow(d->volume_mark, &d->nr_marks, (size_t)rec->pcpu + 1, 8))
			return VMA_ERR_NOMEM;
		memset(d->volume_mark + old, 0, (d->nr_marks - old) * sizeof(*d->volume_mark));
	}
	mark = d->volume_mark[rec->pcpu];
	vma_sb_printf(sb, " -- p%u trace volume since its previous lost records --\n", p->id);
	for (j = 0; j <= VMA_VOL_OTHER; j++) {
		if (p->volume[j] == mark[j])
			continue;
		vma_sb_printf(sb, " %-6s: %10" PRIu64 "\n", vma_volume_class_name(j),
			      p->volume[j] - mark[j]);
		for (k = VMA_VOL_HVM_VMENTRY; j == VMA_VOL_HVM && k <= VMA_VOL_HVM_EMUL; k++) {
			if (p->volume[k] != mark[k]) {
				vma_sb_printf(sb, " +-%-7s: %10" PRIu64 "\n",
					      vma_volume_class_name(k),
					      p->volume[k] - mark[k]);
			}
		}
	}
	memcpy(mark, p->volume, sizeof(p->volume));
	return VMA_OK;
}

/* A vmexit line ends with the guest EIP: its symbol follows, as xenalyze's. */
static void append_symbol(struct vma_dump *d, const struct vma_record *rec)
{
	uint32_t base = rec->event & ~(uint32_t)TRC_64_FLAG;
	bool wide = rec->event & TRC_64_FLAG;
	const char *name;
	uint64_t rip, off;

	if ((base != TRC_HVM_VMX_EXIT && base != TRC_HVM_SVM_EXIT) || rec->nr_data < (wide ? 3 : 2))
		return;
	rip = wide ? vma_rec_u64(rec, 1) : rec->data[1];
	name = vma_symbols_find(d->symbols, rip, &off);
	if (name)
		vma_sb_printf(&d->lines, "(%s +%" PRIx64 ")", name, off);
}

/*
 * The end of a record's line.  Inlined twice, so that dumps without
 * xenalyze's extras (@extras false: no raw lines only, symbols, power
 * states or volumes) pay nothing for them.
 */
static inline __attribute__((always_inline)) int
end_line(struct vma_dump *d, const struct vma_stream *stream, const struct vma_outcome *out,
	 const bool extras)
{
	const struct vma_record *rec = &stream->rec;
	struct vma_describe_ctx *ctx = &d->ctx;
	struct vma_strbuf *sb = &d->lines;
	char mark = ' ';
	int rc;

	if (extras && d->no_lines) {
		if (vma_sb_failed(sb))
			return VMA_ERR_NOMEM;
		return d->done >= FLUSH_BYTES ? flush(d, true) : VMA_OK;
	}

	if (__builtin_expect(d->vcpu_fixed && d->guest_describe, 0)) {
		if (d->label)
			vma_sb_printf(sb, "%*s: ", d->label_width, d->label);
		d->guest_describe(stream, sb);
	} else if (d->describe) {
		/*
		 * A KVM record names its own thread, hence its vcpu: show the
		 * vcpu the state stage found for it, not the one before.
		 */
		const struct vma_machine *m = d->machine;
		const struct vma_pcpu *p = rec->pcpu < m->nr_pcpus ? m->pcpus[rec->pcpu] : NULL;

		if (!d->vcpu_fixed && d->vcpu_col > d->done && d->vcpu_col <= sb->len) {
			sb->len = d->vcpu_col;
			if (p && p->current) {
				vma_sb_printf(sb, " d%uv%u ", p->current->domain->did,
					      p->current->vid);
			} else {
				vma_sb_puts(sb, " d?v? ");
			}
		}
		if (d->label)
			vma_sb_printf(sb, "%*s: ", d->label_width, d->label);
		d->describe(stream, sb);
	} else {
		size_t text = sb->len;

		if (d->label)
			vma_sb_printf(sb, "%*s: ", d->label_width, d->label);
		ctx->svm = out->svm;
		ctx->arc_open = out->arc_closed;
		ctx->arc_cycles = out->arc_cycles;
		ctx->orphan = out->orphan;
		ctx->unprocessed = out->unprocessed;
		mark = vma_describe_xen_marked(sb, rec, ctx);
		if (__builtin_expect(d->holding, 0) && !out->svm && sb->len > d->done &&
		    (rc = hold_alt(d, rec, text, mark)) < 0)
			return rc;
		if (extras && d->symbols && !out->unprocessed)
			append_symbol(d, rec);
		if (extras && d->show_power && note_power_state(d, rec) < 0)
			return VMA_ERR_NOMEM;
	}
	if (sb->len > d->done)
		sb->buf[d->done] = mark;
	vma_sb_putc(sb, '\n');
	/* After the record's line. */
	if (extras && d->volume_on_lost && rec->event == TRC_LOST_RECORDS &&
	    lost_volume(d, rec) < 0)
		return VMA_ERR_NOMEM;
	if (vma_sb_failed(sb))
		return VMA_ERR_NOMEM;
	d->done = sb->len;
	if (__builtin_expect(d->holding, 0))
		return end_held(d);
	if (d->done >= FLUSH_BYTES)
		return flush(d, true);
	return VMA_OK;
}

static __attribute__((noinline, cold)) int end_line_extras(struct vma_dump *d,
							    const struct vma_stream *stream,
							    const struct vma_outcome *out)
{
	return end_line(d, stream, out, true);
}

static __attribute__((noinline)) int end_line_general(struct vma_dump *d,
						       const struct vma_stream *stream,
						       const struct vma_outcome *out)
{
	return end_line(d, stream, out, false);
}

/*
 * The line of a held record: its SVM text aside if it has one, then the
 * end of the line, as end_plain()'s.  @o's text is not synced yet.
 */
static __attribute__((noinline)) int
end_plain_held(struct vma_dump *d, const struct vma_record *rec, const struct vma_outcome *out,
	       struct xd_out *o, size_t text)
{
	struct vma_strbuf *sb = &d->lines;
	int rc;

	xd_sync(o);
	if (!out->svm && o->vendor_read && (rc = hold_alt(d, rec, text, o->mark)) < 0)
		return rc;
	sb->buf[d->done] = o->mark;
	vma_sb_putc(sb, '\n');
	if (vma_sb_failed(sb))
		return VMA_ERR_NOMEM;
	d->done = sb->len;
	return end_held(d);
}

/*
 * end_line() of a Xen record with no extras, labels or guests, the common
 * case: the text is written at a cursor on the room begin() made, and the
 * line committed once.
 */
static inline __attribute__((always_inline)) int end_plain(struct vma_dump *d,
							   const struct vma_record *rec, int cls,
							   const struct vma_outcome *out)
{
	struct vma_describe_ctx *ctx = &d->ctx;
	struct vma_strbuf *sb = &d->lines;
	size_t text = sb->len;
	struct xd_out o;

	if (__builtin_expect(vma_sb_failed(sb), 0))
		return VMA_ERR_NOMEM; /* begin() could make no room */
	ctx->svm = out->svm;
	ctx->arc_open = out->arc_closed;
	ctx->arc_cycles = out->arc_cycles;
	ctx->orphan = out->orphan;
	ctx->unprocessed = out->unprocessed;
	xd_attach(&o, sb);
	o.kept = d->kept;
	xd_describe_class(&o, rec, ctx, cls);
	if (__builtin_expect(d->holding, 0))
		return end_plain_held(d, rec, out, &o, text);
	if (!xd_room(&o, 1))
		return VMA_ERR_NOMEM;
	*o.p++ = '\n';
	xd_sync(&o);
	sb->buf[d->done] = o.mark;
	d->done = sb->len;
	if (d->done >= FLUSH_BYTES)
		return flush(d, true);
	return VMA_OK;
}

/* The end of the line of @stream's record, of class @cls. */
static inline __attribute__((always_inline)) int end(struct vma_dump *d,
						     const struct vma_stream *stream, int cls,
						     const struct vma_outcome *out)
{
	/* d->general with every extra */
	if (__builtin_expect(d->general, 0)) {
		if (d->extras)
			return end_line_extras(d, stream, out);
		return end_line_general(d, stream, out);
	}
	return end_plain(d, &stream->rec, cls, out);
}

int vma_dump_end(struct vma_dump *d, const struct vma_stream *stream,
		 const struct vma_outcome *out)
{
	return end(d, stream, vma_xen_class(stream->rec.event), out);
}

int vma_dump_record(void *dump, struct vma_machine *m, const struct vma_stream *stream,
		    int (*dispatch)(struct vma_machine *m, const struct vma_record *rec,
				    struct vma_outcome *out))
{
	struct vma_dump *d = dump;
	const struct vma_record *rec = &stream->rec;
	int cls = vma_xen_class(rec->event);
	struct vma_outcome out;
	int rc;

	/* a trace of its own (linked.c has hooks of its own): no label, no guest vcpu */
	begin_own(d, m, rec);
	rc = dispatch(m, rec, &out);
	if (rc < 0)
		return rc;
	return end(d, stream, cls, &out);
}
