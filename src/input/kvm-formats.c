/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event formats for the KVM readers: the libtraceevent handle both readers
 * feed with the ring-buffer headers and the tracefs format texts, and the
 * built-in kvm_entry/kvm_exit formats a raw ftrace dump is read with when
 * no format folder is given.
 *
 * A trace.dat carries every format of the recording kernel (2,460 on a
 * Linux 6.x guest) but a trace holds a few dozen events.  So a format is
 * kept as text with its name and id; the formats of the events vmalyze
 * analyses are parsed at open, any other one when a dump line first needs
 * it.  Event names (for counts) come from the texts.
 *
 * The built-in formats describe the x86 events as Linux 5.x-6.x lays them
 * out (the kvm_exit of TRACE_EVENT_KVM_EXIT with vcpu_id, and kvm_entry with
 * vcpu_id and rip); a dump from a kernel with another layout needs
 * --event-formats, since a raw dump does not carry its formats.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "input/kvm-internal.h"
#include "input/tep-lib.h"
#include "vmalyze/diag.h"
#include "vmalyze/grow.h"

bool vma_kvm_host_big_endian(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 0;
}

int vma_kvm_tep_new(struct vma_kvm_priv *priv, bool big_endian, uint32_t long_size,
		    uint32_t page_size, const char **why)
{
	const struct vma_tep_lib *tl = vma_tep_load(why);

	if (!tl)
		return VMA_ERR_IO;
	priv->tep = tl->tep_alloc();
	if (!priv->tep)
		return VMA_ERR_NOMEM;
	tl->tep_set_file_bigendian(priv->tep, big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tl->tep_set_local_bigendian(priv->tep, vma_kvm_host_big_endian() ? TEP_BIG_ENDIAN :
				    TEP_LITTLE_ENDIAN);
	tl->tep_set_long_size(priv->tep, (int)long_size);
	tl->tep_set_page_size(priv->tep, (int)page_size);
	priv->check.big = big_endian;
	priv->check.long_size = long_size;
	priv->check.page_size = page_size;
	vma_rb_layout_default(&priv->layout, page_size, long_size, big_endian);
	return VMA_OK;
}

int vma_kvm_header_page(struct vma_kvm_priv *priv, const char *text, size_t len,
			bool set_page_size)
{
	struct vma_rb_layout layout = priv->layout;
	char *copy;

	if (vma_rb_layout_parse(&layout, text, len, set_page_size) < 0)
		return -1;
	priv->layout = layout;
	/* libtraceevent keeps the kernel's long size from it for "long" fields */
	copy = malloc(len + 1);
	if (!copy)
		return VMA_ERR_NOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	vma_tep()->tep_parse_header_page(priv->tep, copy, len, (int)layout.commit_size);
	vma_tep()->tep_set_long_size(priv->tep, (int)layout.commit_size);
	/* kept for the format check's copy of the handle */
	free(priv->check.header);
	priv->check.header = copy;
	priv->check.header_len = len;
	priv->check.header_long = (uint32_t)layout.commit_size;
	return 0;
}

/* ---- keeping format texts --------------------------------------------------- */

/* Longest event name kept; tracefs names are far shorter. */
#define MAX_NAME 256

/*
 * The value after "@key:" at the start of a line of @text, up to the end of
 * its line, blanks trimmed.  Return: its length (0 when absent), *val set.
 */
static size_t line_value(const char *text, size_t len, const char *key, const char **val)
{
	size_t klen = strlen(key), i = 0;

	while (i < len) {
		const char *line = text + i;
		const char *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i;

		if (n > klen && !memcmp(line, key, klen) && line[klen] == ':') {
			const char *v = line + klen + 1, *e = line + n;

			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
				e--;
			*val = v;
			return (size_t)(e - v);
		}
		i += n + 1;
	}
	return 0;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.' || c == ':';
}

/* "name:" and "ID:" of a format text: what libtraceevent would read first. */
static bool format_head(const char *text, size_t len, const char **name, size_t *nlen,
			int32_t *id)
{
	const char *v;
	size_t n, i;
	long long val = 0;

	*nlen = line_value(text, len, "name", name);
	if (*nlen == 0 || *nlen > MAX_NAME)
		return false;
	for (i = 0; i < *nlen; i++) {
		if (!name_char((*name)[i]))
			return false;
	}
	n = line_value(text, len, "ID", &v);
	if (n == 0 || n > 9)
		return false;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		val = val * 10 + (v[i] - '0');
	}
	*id = (int32_t)val;
	return true;
}

static char *dup_n(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

int vma_kvm_add_format(struct vma_kvm_priv *priv, const char *system, const char *text,
		       size_t len, uint64_t at)
{
	struct vma_kvm_format *f;
	const char *name;
	size_t nlen;
	int32_t id;

	if (!format_head(text, len, &name, &nlen, &id))
		return -1;
	if (vma_grow(priv->formats, &priv->cap_formats, (size_t)priv->nr_formats + 1, 64))
		return VMA_ERR_NOMEM;
	f = &priv->formats[priv->nr_formats];
	memset(f, 0, sizeof(*f));
	f->system = strdup(system);
	f->name = dup_n(name, nlen);
	/*
	 * A run with no dump parses the analysed events' formats only, or
	 * the first format for the common fields when there is none: the
	 * other texts would never be read (a guest's 2,500 took 1.8 MB).
	 */
	if (!priv->fields_only || priv->nr_formats == 0 ||
	    (f->system && f->name && vma_kvmev_wanted(f->system, f->name)))
		f->text = dup_n(text, len);
	else
		f->state = VMA_KVM_FMT_UNKEPT;
	if (!f->system || !f->name || (!f->text && f->state != VMA_KVM_FMT_UNKEPT)) {
		free(f->system);
		free(f->name);
		free(f->text);
		return VMA_ERR_NOMEM;
	}
	f->len = len;
	f->id = id;
	f->at = at;
	priv->nr_formats++;
	return 0;
}

void vma_kvm_formats_free(struct vma_kvm_priv *priv)
{
	uint32_t i;

	for (i = 0; i < priv->nr_formats; i++) {
		free(priv->formats[i].system);
		free(priv->formats[i].name);
		free(priv->formats[i].text);
	}
	free(priv->formats);
	priv->formats = NULL;
	priv->nr_formats = priv->cap_formats = 0;
	if (priv->plugins && priv->tep)
		vma_tep()->tep_unload_plugins(priv->plugins, priv->tep);
	priv->plugins = NULL;
	if (priv->seq) {
		vma_tep()->trace_seq_destroy(priv->seq);
		free(priv->seq);
		priv->seq = NULL;
	}
	vma_kvm_kallsyms_free(priv);
	free(priv->kallsyms);
	free(priv->printk);
	priv->kallsyms = priv->printk = NULL;
	vma_fmtc_session_end(&priv->check);
}

/* ---- parsing, guarded --------------------------------------------------------- */

/*
 * The parse budget takes @f's text (counted), or refuses it: spent, the
 * texts after this one are refused too.
 */
static bool budget_takes(struct vma_kvm_priv *priv, struct vma_kvm_format *f)
{
	if (f->len > VMA_KVM_PARSE_BUDGET - priv->parsed_text) {
		priv->parsed_text = VMA_KVM_PARSE_BUDGET;
		f->state = VMA_KVM_FMT_REFUSED;
		return false;
	}
	priv->parsed_text += f->len;
	return true;
}

/* In-process parse of @f: its kept text, or the one written from its field lines. */
static void parse_here(struct vma_kvm_priv *priv, struct vma_kvm_format *f, const char *text,
		       size_t len)
{
	enum tep_errno err = vma_tep()->tep_parse_event(priv->tep, text, len, f->system);

	/*
	 * A print format libtraceevent cannot parse still leaves the event
	 * and its fields registered: only the dump text falls back to raw.
	 */
	f->state = err == 0 || err == TEP_ERRNO__READ_PRINT_FAILED ? VMA_KVM_FMT_PARSED :
		VMA_KVM_FMT_BAD;
}

/* A text parsed or refused is not kept. */
static void drop_text(struct vma_kvm_format *f)
{
	free(f->text);
	f->text = NULL;
}

/*
 * Parse the kept texts list[0..n) in that order, each checked first by the
 * helper process (format-check.c): a text it died on is marked bad and
 * never reaches this process's parser.  Texts past the parse budget are
 * refused unparsed.
 */
static void guarded_parse(struct vma_kvm_priv *priv, const uint32_t *list, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct vma_kvm_format *f = &priv->formats[list[i]];

		if (budget_takes(priv, f)) {
			if (vma_fmtc_check(&priv->check, f->system, f->text, f->len) !=
			    VMA_FMTC_CRASH)
				parse_here(priv, f, f->text, f->len);
			else
				f->state = VMA_KVM_FMT_BAD;
		}
		drop_text(f);
	}
}

/*
 * A run with no dump (priv->fields_only): the texts list[0..n) parsed
 * in-process from their field lines alone (kvm-fields.c), in that order,
 * when every one the parse budget takes is plain.  Return: false, with
 * nothing parsed, when one is not (or memory ran out): the guarded parse
 * takes them all.
 */
static bool fields_parse(struct vma_kvm_priv *priv, const uint32_t *list, uint32_t n)
{
	char **texts = calloc(n ? n : 1, sizeof(*texts));
	size_t *lens = calloc(n ? n : 1, sizeof(*lens));
	size_t budget = priv->parsed_text;
	bool plain = texts && lens;
	uint32_t i;

	/* written again, the texts budget_takes() will take below */
	for (i = 0; plain && i < n; i++) {
		const struct vma_kvm_format *f = &priv->formats[list[i]];

		if (f->len > VMA_KVM_PARSE_BUDGET - budget)
			break;
		budget += f->len;
		texts[i] = vma_kvm_fields_text(f->text, f->len, &lens[i]);
		plain = texts[i] != NULL;
	}
	for (i = 0; plain && i < n; i++) {
		struct vma_kvm_format *f = &priv->formats[list[i]];

		if (budget_takes(priv, f))
			parse_here(priv, f, texts[i], lens[i]);
		drop_text(f);
	}
	for (i = 0; texts && i < n; i++)
		free(texts[i]);
	free(texts);
	free(lens);
	return plain;
}

bool vma_kvm_format_parse(struct vma_kvm_priv *priv, uint32_t index)
{
	if (index >= priv->nr_formats)
		return false;
	if (priv->formats[index].state == VMA_KVM_FMT_PENDING)
		guarded_parse(priv, &index, 1);
	return priv->formats[index].state == VMA_KVM_FMT_PARSED;
}

int vma_kvm_formats_load(struct vma_kvm_priv *priv, struct vma_diag *diag, const char *path,
			 bool big_endian)
{
	uint32_t *list, n = 0, i;
	int ret = VMA_OK;

	list = malloc((priv->nr_formats ? priv->nr_formats : 1) * sizeof(*list));
	if (!list)
		return VMA_ERR_NOMEM;
	for (i = 0; i < priv->nr_formats; i++) {
		if (vma_kvmev_wanted(priv->formats[i].system, priv->formats[i].name))
			list[n++] = i;
	}
	/* the common fields' layout is read from any parsed format */
	if (n == 0 && priv->nr_formats)
		list[n++] = 0;
	if (!priv->fields_only || !fields_parse(priv, list, n))
		guarded_parse(priv, list, n);
	for (i = 0; i < n; i++) {
		const struct vma_kvm_format *f = &priv->formats[list[i]];

		if (f->state == VMA_KVM_FMT_REFUSED) {
			/* the first one says it for all: the rest are refused too */
			if (!vma_diag_report(diag, VMA_LVL_WARN, path, f->at,
					     "The event format of %s:%s and %" PRIu32 " later ones"
					     " are not parsed: they pass the %u MiB of format text"
					     " vmalyze parses (a kernel's formats are some 2 MiB);"
					     " their events are counted but not analysed", f->system,
					     f->name, n - i - 1, VMA_KVM_PARSE_BUDGET >> 20))
				ret = VMA_ERR_DAMAGED;
			break;
		}
		if (f->state == VMA_KVM_FMT_BAD &&
		    !vma_diag_report(diag, VMA_LVL_WARN, path, f->at,
				     "The event format of %s:%s cannot be parsed; its events"
				     " are counted but not analysed", f->system, f->name)) {
			ret = VMA_ERR_DAMAGED;
			break;
		}
	}
	free(list);
	if (ret == VMA_OK)
		ret = vma_kvmev_init(&priv->ev, priv, big_endian);
	for (i = 0; ret == VMA_OK && i < priv->ev.nr_bind; i++) {
		if (priv->ev.bind[i].id == VMA_KVM_EXIT &&
		    priv->ev.bind[i].isa == VMA_KVM_ISA_ARM64)
			priv->info.arm64 = true;
	}
	return ret;
}

void vma_kvm_print_setup(struct vma_kvm_priv *priv)
{
	if (priv->print_ready || !priv->tep)
		return;
	priv->print_ready = true;
	if (priv->load_symbols)
		priv->load_symbols(priv, VMA_KVM_PRINTK);
	vma_kvm_kallsyms_hand(priv);
	if (priv->printk)
		vma_tep()->tep_parse_printk_formats(priv->tep, priv->printk);
	/* as trace-cmd report: the system's and the user's plugin folders */
	priv->plugins = vma_tep()->tep_load_plugins(priv->tep);
}

/* kvm_entry and kvm_exit as x86 kernels since 5.x write them. */
static const char default_entry[] =
	"name: kvm_entry\n"
	"ID: %u\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned int vcpu_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"vcpu %%u, rip 0x%%lx\", REC->vcpu_id, REC->rip\n";

static const char default_exit[] =
	"name: kvm_exit\n"
	"ID: %u\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned int exit_reason;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long guest_rip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 isa;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 info1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 info2;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 intr_info;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 error_code;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int vcpu_id;\toffset:56;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"vcpu %%u reason %%u isa %%u rip 0x%%lx info1 0x%%016llx"
	" info2 0x%%016llx intr_info 0x%%08x error_code 0x%%08x\", REC->vcpu_id,"
	" REC->exit_reason, REC->isa, REC->guest_rip, REC->info1, REC->info2,"
	" REC->intr_info, REC->error_code\n";

int vma_kvm_default_formats(struct vma_kvm_priv *priv, uint32_t entry_id, uint32_t exit_id)
{
	char buf[2048];
	int n;

	n = snprintf(buf, sizeof(buf), default_entry, entry_id);
	if (n < 0 || (size_t)n >= sizeof(buf) ||
	    vma_kvm_add_format(priv, "kvm", buf, (size_t)n, UINT64_MAX)) {
		return -1;
	}
	n = snprintf(buf, sizeof(buf), default_exit, exit_id);
	if (n < 0 || (size_t)n >= sizeof(buf) ||
	    vma_kvm_add_format(priv, "kvm", buf, (size_t)n, UINT64_MAX)) {
		return -1;
	}
	return 0;
}
