/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace.dat reader: the parts v6 and v7 share (ring-buffer headers, event
 * formats, kallsyms, printk formats, saved cmdlines), v7's sections
 * (compressed whole or not) and v6's sequential layout up to each cpu's
 * flyrecord data.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "input/tep-lib.h"
#include "input/tracedat-internal.h"
#include "vmalyze/diag.h"
#include "vmalyze/status.h"

/* ---- ring-buffer headers, formats, cmdlines (same in v6 and v7) ---------- */

int td_read_header_info(struct dat *d, struct cur *c)
{
	char magic[13];
	uint64_t size;
	char *text;
	int ret;

	c->what = "header_page";
	if (td_cur_read(c, magic, 12) < 0)
		return -1;
	if (memcmp(magic, "header_page", 12)) {
		return td_fatal(d, td_cur_at(c),
				"No header_page where the trace.dat header needs it");
	}
	if (td_cur_u64(c, &size) < 0 || !(text = td_cur_text(c, size)))
		return -1;
	ret = vma_kvm_header_page(d->priv, text, (size_t)size, false);
	free(text);
	if (ret == VMA_ERR_NOMEM)
		return td_oom(d);
	if (ret < 0 && !vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, td_cur_at(c),
					"The header_page text is not understood; the usual page"
					" layout is assumed")) {
		d->failed = true;
		return -1;
	}

	c->what = "header_event";
	if (td_cur_read(c, magic, 13) < 0)
		return -1;
	if (memcmp(magic, "header_event", 13)) {
		return td_fatal(d, td_cur_at(c),
				"No header_event where the trace.dat header needs it");
	}
	if (td_cur_u64(c, &size) < 0 || !(text = td_cur_text(c, size)))
		return -1;
	if (!vma_rb_header_event_ok(text, (size_t)size)) {
		free(text);
		return td_fatal(d, td_cur_at(c),
				"The recording kernel's ring-buffer event header is not"
				" the 5-bit type / 27-bit delta one vmalyze reads");
	}
	free(text);
	return 0;
}

static int read_formats(struct dat *d, struct cur *c, const char *system, uint32_t count)
{
	uint32_t i;
	int ret;

	for (i = 0; i < count; i++) {
		uint64_t size, at;
		char *text;

		if (td_cur_u64(c, &size) < 0)
			return -1;
		at = td_cur_at(c);
		text = td_cur_text(c, size);
		if (!text)
			return -1;
		ret = vma_kvm_add_format(d->priv, system, text, (size_t)size, at);
		if (ret == VMA_ERR_NOMEM) {
			free(text);
			return td_oom(d);
		}
		/* a named format is kept until it is parsed: all of them are bounded */
		d->format_bytes += ret == 0 ? size : 0;
		if (ret == 0 && (++d->formats_kept > MAX_ALL_FORMATS ||
				 d->format_bytes > VMA_KVM_MAX_FORMAT_TEXT)) {
			free(text);
			if (d->formats_kept > MAX_ALL_FORMATS) {
				return td_fatal(d, at, "More than %u event formats in all",
						MAX_ALL_FORMATS);
			}
			return td_fatal(d, at, "Event formats of more than %u MiB in all",
					VMA_KVM_MAX_FORMAT_TEXT >> 20);
		}
		/* the first such format is reported, the others counted (open_dat) */
		if (ret < 0 && d->unnamed_formats++ == 0 &&
		    !vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, at,
				     "Event format %" PRIu32 " of system %s names no event"
				     " or id; its events will be unnamed", i, system)) {
			free(text);
			d->failed = true; /* said above, with what to do */
			return -1;
		}
		free(text);
	}
	return 0;
}

int td_read_ftrace_formats(struct dat *d, struct cur *c)
{
	uint32_t count;

	c->what = "ftrace event formats";
	if (td_cur_u32(c, &count) < 0)
		return -1;
	if (count > MAX_FORMATS)
		return td_fatal(d, td_cur_at(c), "Implausible number of ftrace event formats: %"
				PRIu32 " (at most %d)", count, MAX_FORMATS);
	return read_formats(d, c, "ftrace", count);
}

int td_read_event_formats(struct dat *d, struct cur *c)
{
	uint32_t nsys, i;

	c->what = "event formats";
	if (td_cur_u32(c, &nsys) < 0)
		return -1;
	if (nsys > MAX_FORMATS)
		return td_fatal(d, td_cur_at(c), "Implausible number of event systems: %" PRIu32
				" (at most %d)", nsys, MAX_FORMATS);
	for (i = 0; i < nsys; i++) {
		uint32_t count;
		char *sys = td_cur_str(c, 256);
		int ret;

		if (!sys)
			return -1;
		if (td_cur_u32(c, &count) < 0 || count > MAX_FORMATS) {
			td_fatal(d, td_cur_at(c), "Implausible number of events in system %s (at most"
				 " %d)", sys, MAX_FORMATS);
			free(sys);
			return -1;
		}
		ret = read_formats(d, c, sys, count);
		free(sys);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/*
 * Kallsyms or printk formats (@what) of @size bytes, more than vmalyze
 * reads: only the dump's text uses them, and a user would rather have the
 * trace without symbol names than nothing, so they are left out with a
 * warning, as saved command lines past the kernel's count are.
 */
static void symbols_too_big(struct dat *d, uint64_t at, const char *what, uint64_t size,
			    bool expanded)
{
	bool printk = !strcmp(what, "printk formats");

	vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, at,
			"%s of %" PRIu64 " bytes%s, more than the %u MiB vmalyze reads: left out,"
			" the dump shows %s as numbers", printk ? "Printk formats" : "Kallsyms",
			size, expanded ? " expanded" : "", MAX_TEXT >> 20,
			printk ? "the addresses of printk formats" : "kernel addresses");
}

/* kallsyms or printk formats: kept as text for the dump (kvm-formats.c). */
int td_read_symbols(struct dat *d, struct cur *c, uint64_t size, char **keep)
{
	char *text;

	if (size > MAX_TEXT && td_cur_has(c, size)) {
		symbols_too_big(d, td_cur_at(c), c->what, size, false);
		c->pos += size;
		return 0;
	}
	text = td_cur_text(c, size);
	if (!text)
		return -1;
	free(*keep);
	*keep = text;
	return 0;
}

int td_read_cmdlines(struct dat *d, struct cur *c)
{
	uint64_t size, at;
	uint32_t lines;
	char *text, *p;

	c->what = "saved command lines";
	at = td_cur_at(c);
	if (td_cur_u64(c, &size) < 0 || !(text = td_cur_text(c, size)))
		return -1;
	/* libtraceevent's table of them grows a line at a time: only as many as a kernel keeps */
	for (p = text, lines = 0; p && lines < MAX_CMDLINES; lines++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (p && *p) {
		*p = '\0';
		vma_diag_report(d->in->diag, VMA_LVL_WARN, d->in->path, at,
				"More than %u saved command lines, more than a kernel keeps:"
				" the rest are ignored, and their threads shown without a name",
				MAX_CMDLINES);
	}
	vma_tep()->tep_parse_saved_cmdlines(d->priv->tep, text);
	free(text);
	return 0;
}


/* ---- v7 sections ------------------------------------------------------- */

/*
 * Load the section at @offset, expanding it when compressed.  @id is the
 * section id expected there.  A kallsyms or printk section (@symbols) of
 * more than MAX_TEXT is left out with a warning.  Return: owned payload,
 * or NULL after a report.
 */
static unsigned char *load_section(struct dat *d, uint64_t offset, uint32_t id,
				   const char *what, bool symbols, uint64_t *len)
{
	struct cur c;
	uint32_t sid, flags, desc, csize = 0, usize = 0;
	uint64_t size;
	unsigned char *raw = NULL, *out;
	const char *why = NULL;
	bool compressed;

	td_cur_file(&c, d, offset, what);
	if (td_cur_u16(&c, &sid) < 0 || td_cur_u16(&c, &flags) < 0 || td_cur_u32(&c, &desc) < 0 ||
	    td_cur_u64(&c, &size) < 0) {
		return NULL;
	}
	if (sid != id) {
		td_fatal(d, offset, "No %s section where the options point", what);
		return NULL;
	}
	compressed = flags & SEC_FL_COMPRESSED;
	if (compressed && !d->dc) {
		td_fatal(d, offset, "The %s section is compressed but the file names no"
			 " compression", what);
		return NULL;
	}
	if (compressed && (td_cur_u32(&c, &csize) < 0 || td_cur_u32(&c, &usize) < 0))
		return NULL;
	if (symbols && (compressed ? usize : size) > MAX_TEXT) {
		symbols_too_big(d, offset, what, compressed ? usize : size, compressed);
		return NULL;
	}
	if (!compressed) {
		out = (unsigned char *)td_cur_text(&c, size);
		*len = size;
		return out;
	}
	if (usize > MAX_TEXT) {
		td_fatal(d, offset, "Implausible expanded size of the %s section: %" PRIu32 " bytes,"
			 " more than the %u MiB vmalyze reads", what, usize, MAX_TEXT >> 20);
		return NULL;
	}
	raw = (unsigned char *)td_cur_text(&c, csize);
	out = malloc((size_t)usize + 1);
	if (!raw || !out) {
		free(raw);
		free(out);
		if (!d->failed)
			td_oom(d);
		return NULL;
	}
	if (vma_decompress(d->dc, raw, csize, out, usize, &why) < 0) {
		free(raw);
		free(out);
		td_fatal(d, offset, "The compressed %s section is damaged (%s)", what, why);
		return NULL;
	}
	free(raw);
	out[usize] = '\0';
	*len = usize;
	return out;
}

int td_read_options_v7(struct dat *d, uint64_t first)
{
	uint64_t offset = first, seen[MAX_SECTIONS];
	uint32_t n = 0, i;

	while (offset) {
		unsigned char *data;
		uint64_t len, next = 0;
		struct cur c;
		int ret;

		for (i = 0; i < n; i++) {
			if (seen[i] == offset)
				return td_fatal(d, offset, "Options sections form a loop");
		}
		if (n == MAX_SECTIONS)
			return td_fatal(d, offset, "More than %d options sections", MAX_SECTIONS);
		seen[n++] = offset;
		data = load_section(d, offset, OPT_DONE, "options", false, &len);
		if (!data)
			return -1;
		td_cur_mem(&c, d, data, len, offset, "options");
		ret = td_read_options(d, &c, &next);
		free(data);
		if (ret < 0)
			return -1;
		offset = next;
	}
	return 0;
}

void td_load_symbols(struct vma_kvm_priv *priv, enum vma_kvm_symbols part)
{
	static const struct {
		uint32_t id;
		const char *what;
	} parts[VMA_KVM_SYMBOL_PARTS] = {
		[VMA_KVM_KALLSYMS] = { OPT_KALLSYMS, "kallsyms" },
		[VMA_KVM_PRINTK] = { OPT_PRINTK, "printk formats" },
	};
	char **keep = part == VMA_KVM_PRINTK ? &priv->printk : &priv->kallsyms;
	uint64_t off = priv->symbols_at[part], len;
	unsigned char *data;
	uint32_t size32;
	struct cur c;
	struct dat d;

	priv->symbols_at[part] = 0;
	if (!off)
		return;
	memset(&d, 0, sizeof(d));
	d.in = priv->symbols_in;
	d.priv = priv;
	d.big = priv->symbols_big;
	if (priv->codec != VMA_CODEC_NONE && !(d.dc = vma_decomp_new(priv->codec)))
		return; /* out of memory: the dump prints addresses as numbers */
	/* each part on its own: damage in one is reported and the other still read */
	d.optional = parts[part].what;
	data = load_section(&d, off, parts[part].id, parts[part].what, true, &len);
	if (data) {
		td_cur_mem(&c, &d, data, len, off, parts[part].what);
		if (td_cur_u32(&c, &size32) == 0)
			(void)td_read_symbols(&d, &c, size32, keep);
		free(data);
	}
	vma_decomp_free(d.dc);
}

int td_read_meta_v7(struct dat *d)
{
	static const struct {
		uint32_t id;
		const char *what;
		bool needed;
	} parts[] = {
		{ OPT_HEADER_INFO, "header info", true },
		{ OPT_FTRACE_EVENTS, "ftrace event formats", false },
		{ OPT_EVENT_FORMATS, "event formats", true },
		{ OPT_KALLSYMS, "kallsyms", false },
		{ OPT_PRINTK, "printk formats", false },
		{ OPT_CMDLINES, "saved command lines", false },
	};
	size_t i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		uint64_t off = d->section[parts[i].id], len;
		unsigned char *data;
		struct cur c;
		int ret = 0;

		if (!off) {
			if (parts[i].needed) {
				return td_fatal(d, 0, "The options name no %s section",
						parts[i].what);
			}
			continue;
		}
		if (parts[i].id == OPT_KALLSYMS || parts[i].id == OPT_PRINTK) {
			/*
			 * On a pipe the copy holds all load_section() may read of
			 * them (its head and at most MAX_TEXT), within the cap:
			 * a damaged part only costs the dump's symbol names.
			 */
			if (td_fetch(d, off, SEC_HEAD_MAX + MAX_TEXT, NULL) < 0)
				return -1;
			/* read when the dump first needs them: expanding kallsyms is most of an open */
			d->priv->symbols_at[parts[i].id == OPT_PRINTK ? VMA_KVM_PRINTK
								       : VMA_KVM_KALLSYMS] = off;
			d->priv->load_symbols = td_load_symbols;
			d->priv->symbols_in = d->in;
			d->priv->symbols_big = d->big;
			continue;
		}
		data = load_section(d, off, parts[i].id, parts[i].what, false, &len);
		if (!data)
			return -1;
		td_cur_mem(&c, d, data, len, off, parts[i].what);
		switch (parts[i].id) {
		case OPT_HEADER_INFO:
			ret = td_read_header_info(d, &c);
			break;
		case OPT_FTRACE_EVENTS:
			ret = td_read_ftrace_formats(d, &c);
			break;
		case OPT_EVENT_FORMATS:
			ret = td_read_event_formats(d, &c);
			break;
		case OPT_CMDLINES:
			ret = td_read_cmdlines(d, &c);
			break;
		}
		free(data);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/* The BUFFER section header of a v7 instance says whether its pages are compressed. */
int td_buffer_section_v7(struct dat *d, struct dat_buffer *b)
{
	struct cur c;
	uint32_t sid, flags;

	td_cur_file(&c, d, b->offset, "BUFFER section header");
	if (td_cur_u16(&c, &sid) < 0 || td_cur_u16(&c, &flags) < 0)
		return -1;
	b->compressed = (flags & SEC_FL_COMPRESSED) != 0;
	if (b->compressed && !d->dc) {
		return td_fatal(d, b->offset, "Trace data of instance \"%s\" are compressed but the"
				" file names no compression", b->name);
	}
	return 0;
}


/* ---- v6 ------------------------------------------------------------------ */

/* "options  ", "latency  " or "flyrecord" and what follows, up to the cpu pairs. */
static int read_flyrecord_v6(struct dat *d, struct cur *c, struct dat_buffer *b)
{
	char tag[10];
	uint32_t i;

	c->what = "options";
	if (td_cur_read(c, tag, 10) < 0)
		return -1;
	if (!memcmp(tag, "options  ", 10)) {
		uint64_t ignore;

		if (td_read_options(d, c, &ignore) < 0)
			return -1;
		c->what = "flyrecord tag";
		if (td_cur_read(c, tag, 10) < 0)
			return -1;
	}
	if (!memcmp(tag, "latency  ", 10)) {
		vma_diag_report(d->in->diag, VMA_LVL_INPUT, d->in->path, c->pos - 10,
				"This trace.dat holds a latency (text) trace, which vmalyze"
				" does not read (it reads flyrecord traces, as trace-cmd record"
				" writes them)");
		d->failed = true;
		return -1;
	}
	if (memcmp(tag, "flyrecord", 10)) {
		return td_fatal(d, c->pos - 10, "No flyrecord tag where the trace.dat header"
				" needs it");
	}
	if (d->cpus > MAX_CPUS)
		return td_fatal(d, c->pos, "Implausible cpu count %" PRIu32 " (at most %d)",
				d->cpus, MAX_CPUS);
	b->nr_cpus = d->cpus;
	b->page_size = d->priv->layout.page_size;
	b->cpus = calloc(d->cpus ? d->cpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return td_oom(d);
	c->what = "cpu data offsets";
	for (i = 0; i < d->cpus; i++) {
		b->cpus[i].cpu = i;
		b->cpus[i].at = c->pos;
		if (td_cur_u64(c, &b->cpus[i].offset) < 0 || td_cur_u64(c, &b->cpus[i].size) < 0)
			return -1;
	}
	return 0;
}

int td_read_v6(struct dat *d, struct cur *c)
{
	uint32_t size32, i;
	uint64_t size;

	if (td_read_header_info(d, c) < 0 || td_read_ftrace_formats(d, c) < 0 ||
	    td_read_event_formats(d, c) < 0) {
		return -1;
	}
	c->what = "kallsyms";
	if (td_cur_u32(c, &size32) < 0 || td_read_symbols(d, c, size32, &d->priv->kallsyms) < 0)
		return -1;
	c->what = "printk formats";
	if (td_cur_u32(c, &size32) < 0 || td_read_symbols(d, c, size32, &d->priv->printk) < 0)
		return -1;
	if (td_read_cmdlines(d, c) < 0)
		return -1;
	c->what = "cpu count";
	if (td_cur_u32(c, &d->cpus) < 0)
		return -1;
	d->priv->info.cpu_count = d->cpus;
	if (read_flyrecord_v6(d, c, &d->top) < 0)
		return -1;
	if (d->trace_clock_follows) {
		char *text;

		c->what = "trace clock";
		if (td_cur_u64(c, &size) < 0 || !(text = td_cur_text(c, size)))
			return -1;
		free(d->trace_clock);
		d->trace_clock = td_selected_clock(text, (size_t)size);
		free(text);
	}
	/* instances: their own flyrecord, same cpu count, at the BUFFER offset */
	for (i = 0; i < d->nr_inst; i++) {
		struct dat_buffer *b = &d->inst[i];
		struct cur ic;

		td_cur_file(&ic, d, b->offset, "instance header");
		d->in_instance = true;
		if (read_flyrecord_v6(d, &ic, b) < 0)
			return -1;
		d->in_instance = false;
	}
	return 0;
}
