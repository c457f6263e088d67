/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dump-mode lines (grammar in dump.h and doc/output.md).  The columns that
 * show state are taken before the record is processed, as xenalyze does,
 * so a runstate change shows the vcpu that was running until then.
 *
 * A large trace has hundreds of millions of lines, so each costs what it
 * must and no more: the prefix is written in place through a cursor, the
 * time without a division, the text by the decoders' appending primitives,
 * and lines leave in batches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/xen-describe-internal.h"
#include "vmalyze/describe.h"
#include "vmalyze/dump.h"
#include "vmalyze/status.h"
#include "vmalyze/strbuf.h"
#include "vmalyze/xen-names.h"

/*
 * The first instant's time is blank, one column wider than a time ("%3u"
 * seconds, '.', 9 digits), as it always was ("%14s").
 */
#define BLANK_TIME_WIDTH 14

/*
 * Lines are gathered and written this many bytes at a time: one fwrite()
 * per line cost as much as formatting the line.
 */
#define FLUSH_BYTES (256u * 1024u)

/*
 * Division by the trace's fixed tick rate without a divide instruction: two
 * of those per line cost more than writing the time's digits.  This is
 * Granlund and Montgomery's method for an invariant divisor ("Division by
 * Invariant Integers using Multiplication", PLDI 1994, figure 4.1), exact
 * for every 64-bit dividend and every divisor but 0.
 */
struct divisor {
	uint64_t d;
	uint64_t magic;
	unsigned int sh1, sh2;
};

static void divisor_init(struct divisor *dv, uint64_t d)
{
	unsigned int l = d > 1 ? 64 - (unsigned int)__builtin_clzll(d - 1) : 0; /* ceil(log2 d) */
	/* 2^l - d, which is below d; for l == 64 the subtraction wraps to it */
	uint64_t excess = (l == 64 ? 0 : (uint64_t)1 << l) - d;

	dv->d = d;
	dv->magic = (uint64_t)(((unsigned __int128)excess << 64) / d) + 1;
	dv->sh1 = l < 1 ? l : 1;
	dv->sh2 = l > 1 ? l - 1 : 0;
}

static uint64_t divide(const struct divisor *dv, uint64_t n)
{
	uint64_t t = (uint64_t)(((unsigned __int128)dv->magic * n) >> 64);

	return (t + ((n - t) >> dv->sh1)) >> dv->sh2;
}

struct vma_dump {
	FILE *out;
	uint64_t cpu_hz;
	struct divisor hz;           /* cpu_hz, to divide by quickly */
	struct vma_strbuf lines;     /* finished lines, then the one being built */
	size_t done;                 /* bytes of finished lines in @lines */
	struct vma_describe_ctx ctx; /* analysis state before the record */
	const struct vma_machine *machine; /* borrowed: the model being dumped */
	size_t vcpu_col;             /* offset of the vcpu column of the line being built */
};

struct vma_dump *vma_dump_create(FILE *out, uint64_t cpu_hz)
{
	struct vma_dump *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->out = out;
	d->cpu_hz = cpu_hz;
	divisor_init(&d->hz, cpu_hz);
	vma_sb_init(&d->lines);
	return d;
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

int vma_dump_flush(struct vma_dump *d)
{
	return flush(d, true);
}

void vma_dump_destroy(struct vma_dump *d)
{
	if (!d)
		return;
	/*
	 * Through stdio: destroying cannot report a failure, but the FILE
	 * keeps it, for whoever flushes or closes it next.
	 */
	flush(d, false);
	vma_sb_free(&d->lines);
	free(d);
}

/*
 * Seconds and nanoseconds in @cycles at @hz.  The nanoseconds are truncated,
 * as xenalyze's are.  Below 2^64 / 10^9 Hz (18 GHz) the remainder times 10^9
 * fits in 64 bits, and its division too is a multiplication.
 */
static inline void split_time(const struct divisor *hz, uint64_t cycles, uint64_t *secs,
			      uint64_t *ns)
{
	uint64_t rem;

	*secs = divide(hz, cycles);
	rem = cycles - *secs * hz->d;
	if (hz->d <= UINT64_MAX / 1000000000u) {
		*ns = divide(hz, rem * 1000000000u);
	} else {
		*ns = (uint64_t)((unsigned __int128)rem * 1000000000u / hz->d);
	}
}

void vma_format_time(char *buf, size_t len, uint64_t cycles, uint64_t hz)
{
	struct divisor dv;
	uint64_t secs, ns;

	divisor_init(&dv, hz);
	split_time(&dv, cycles, &secs, &ns);
	snprintf(buf, len, "%3llu.%09llu", (unsigned long long)secs, (unsigned long long)ns);
}

/*
 * vma_format_time() at @p, returning the end: "%3llu.%09llu" without
 * printf, as it is on every line.
 */
static char *fmt_time(char *p, uint64_t cycles, const struct divisor *hz)
{
	uint64_t secs, ns;

	split_time(hz, cycles, &secs, &ns);
	if (secs < 10) {
		*p++ = ' ';
	}
	if (secs < 100) {
		*p++ = ' ';
	}
	p = vma_fmt_u64(p, secs);
	*p++ = '.';
	return vma_fmt_dec_fixed(p, ns, 9);
}

/*
 * A pcpu's column: ' ' inactive or nothing known running, 'l' in a
 * lost-records gap, '.' the default domain, '-' idle, '|' a guest.
 */
static char pcpu_char(const struct vma_pcpu *p)
{
	if (!p || !p->active)
		return ' ';
	if (p->lost.active)
		return 'l';
	if (!p->current)
		return ' ';
	if (p->current->domain->did == VMA_DEFAULT_DOMAIN)
		return '.';
	if (p->current->domain->did == VMA_IDLE_DOMAIN)
		return '-';
	return '|';
}

/*
 * Longest prefix: mark, a time of 20-digit seconds, '.', 9 digits, a space,
 * the pcpu columns, " d", vcpu ids of 10 digits around 'v', a space.
 */
#define PREFIX_MAX(pcpus) (1 + 20 + 1 + 9 + 1 + (pcpus) + 2 + 10 + 1 + 10 + 1)

void vma_dump_begin(struct vma_dump *d, const struct vma_machine *m, const struct vma_record *rec)
{
	struct vma_strbuf *sb = &d->lines;
	struct vma_pcpu *const *pcpus = m->pcpus;
	uint32_t nr = m->max_pcpu;
	const struct vma_pcpu *p;
	char *col;
	uint32_t i;

	/* Drop a line begun and never ended (its record failed). */
	if (sb->len > d->done) {
		sb->len = d->done;
		sb->buf[sb->len] = '\0';
	}
	/* Room for the whole prefix, written through a cursor and committed once. */
	if (!vma_sb_room(sb, PREFIX_MAX(nr)))
		return;
	col = sb->buf + sb->len;
	*col++ = ' '; /* MARK, set at the end */
	if (m->have_time && rec->tsc > m->first_tsc) {
		col = fmt_time(col, rec->tsc - m->first_tsc, &d->hz);
	} else {
		memset(col, ' ', BLANK_TIME_WIDTH);
		col += BLANK_TIME_WIDTH;
	}
	*col++ = ' ';
	for (i = 0; i < nr; i++)
		col[i] = pcpu_char(pcpus[i]);
	if (rec->pcpu < nr)
		col[rec->pcpu] = 'x';
	col += nr;
	d->machine = m;
	d->vcpu_col = (size_t)(col - sb->buf);
	p = rec->pcpu < m->nr_pcpus ? pcpus[rec->pcpu] : NULL;
	if (p && p->current) {
		memcpy(col, " d", 2);
		col = vma_fmt_u64(col + 2, p->current->domain->did);
		*col++ = 'v';
		col = vma_fmt_u64(col, p->current->vid);
		*col++ = ' ';
	} else {
		memcpy(col, " d?v? ", 6);
		col += 6;
	}
	*col = '\0';
	sb->len = (size_t)(col - sb->buf);

	/* What some record texts show of the analysis, as it was before. */
	memset(&d->ctx, 0, sizeof(d->ctx));
	d->ctx.cpu_hz = d->cpu_hz;
	d->ctx.svm = m->svm;
	if (p && p->current) {
		const struct vma_vcpu *v = p->current;

		d->ctx.have_cur = true;
		d->ctx.cur_dom = v->domain->did;
		d->ctx.cur_vcpu = v->vid;
		if (v->type == VMA_VCPU_HVM) {
			d->ctx.exit_open = v->hvm.vmexit_valid;
			d->ctx.exit_reason = v->hvm.exit_reason;
			d->ctx.cr3 = v->hvm.cr3;
			d->ctx.last_rdtsc = v->hvm.last_rdtsc;
			d->ctx.guest_paging_levels = v->hvm.paging_levels;
			d->ctx.mmio_in_arc = v->hvm.mmio_in_arc;
		}
	}
}

int vma_dump_end(struct vma_dump *d, const struct vma_stream *stream,
		 const struct vma_outcome *out)
{
	const struct vma_record *rec = &stream->rec;
	struct vma_describe_ctx *ctx = &d->ctx;
	struct vma_strbuf *sb = &d->lines;
	char mark = ' ';

	if (stream->input && stream->input->ops->describe) {
		/*
		 * A KVM record names its own thread, hence its vcpu: show the
		 * vcpu the state stage found for it, not the one before.
		 */
		const struct vma_machine *m = d->machine;
		const struct vma_pcpu *p = rec->pcpu < m->nr_pcpus ? m->pcpus[rec->pcpu] : NULL;

		if (d->vcpu_col > d->done && d->vcpu_col <= sb->len) {
			sb->len = d->vcpu_col;
			if (p && p->current)
				vma_sb_printf(sb, " d%uv%u ", p->current->domain->did,
					      p->current->vid);
			else
				vma_sb_puts(sb, " d?v? ");
		}
		stream->input->ops->describe(stream, sb);
	} else {
		ctx->svm = out->svm;
		ctx->arc_open = out->arc_closed;
		ctx->arc_cycles = out->arc_cycles;
		ctx->orphan = out->orphan;
		ctx->unprocessed = out->unprocessed;
		mark = vma_describe_xen_marked(sb, rec, ctx);
	}
	if (sb->len > d->done)
		sb->buf[d->done] = mark;
	vma_sb_putc(sb, '\n');
	if (vma_sb_failed(sb))
		return VMA_ERR_NOMEM;
	d->done = sb->len;
	if (d->done >= FLUSH_BYTES)
		return flush(d, true);
	return VMA_OK;
}
