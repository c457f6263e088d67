/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dump line of a KVM event, as `trace-cmd report` prints it: the
 * task, pid, cpu, time and event name columns written here (or by
 * libtraceevent where its versions differ), then the event's text from
 * kvm-text.c's compiled formats, or from libtraceevent's print machinery
 * for the events those cannot write.  Kept apart from the adapter
 * (kvm-events.c), which turns the same events into records.
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "input/kvm-internal.h"
#include "input/tep-lib.h"

/* trace-cmd report's event name column: "NAME:" padded to 21, then a blank. */
#define NAME_COLUMN 21

/* Appends @seq's text as one line: hex dumps and the like span several. */
static void put_one_line(struct vma_strbuf *sb, struct trace_seq *seq)
{
	size_t n = seq->len, i;

	while (n > 0 && (seq->buffer[n - 1] == '\n' || seq->buffer[n - 1] == ' '))
		n--;
	seq->buffer[n] = '\0';
	for (i = 0; i < n; i++) {
		char c = seq->buffer[i];

		if (c == '\n' || c == '\t' || c == '\r')
			seq->buffer[i] = ' ';
	}
	vma_sb_puts(sb, seq->buffer);
}

/*
 * The text buffer of the dump's lines, kept from line to line (made again
 * after a line ran out of memory).  Return: NULL when out of memory.
 */
static struct trace_seq *dump_seq(struct vma_kvm_priv *priv)
{
	if (priv->seq && priv->seq->state != TRACE_SEQ__GOOD) {
		vma_tep()->trace_seq_destroy(priv->seq);
		free(priv->seq);
		priv->seq = NULL;
	}
	if (!priv->seq) {
		priv->seq = malloc(sizeof(*priv->seq));
		if (!priv->seq)
			return NULL;
		vma_tep()->trace_seq_init(priv->seq);
	}
	vma_tep()->trace_seq_reset(priv->seq);
	return priv->seq;
}

/* libtraceevent's comm of @pid, through priv->comms. */
static const char *comm_of(struct vma_kvm_priv *priv, int pid, size_t *len)
{
	struct vma_kvm_comm *c = &priv->comms[(uint32_t)pid % 64];
	const char *comm;

	if (c->gen == priv->comm_gen + 1 && c->pid == pid) {
		*len = c->len;
		return c->comm;
	}
	comm = vma_tep()->tep_data_comm_from_pid(priv->tep, pid);
	if (!comm)
		comm = "";
	*len = strlen(comm);
	if (*len < sizeof(c->comm)) {
		c->pid = pid;
		c->gen = priv->comm_gen + 1;
		c->len = (uint8_t)*len;
		memcpy(c->comm, comm, *len + 1);
	}
	return comm;
}

/*
 * trace-cmd's "%16s-%-5d [%03d] %6.1000d: %s:" (comm, pid, cpu, time in
 * microseconds rounded to the nearest, event name), written here rather
 * than by tep_print_event(), which parses its format string on every
 * call.  The time is libtraceevent's "SECONDS.MICROSECONDS" past the first
 * second; below it libtraceevent versions differ, so it prints those.
 * Return: false when the line was left for libtraceevent.
 */
static bool put_task_time(struct vma_kvm_priv *priv, const unsigned char *data, uint32_t size,
			  uint32_t cpu, uint64_t ts, const char *name, struct vma_strbuf *sb)
{
	const struct vma_kvmev *ev = &priv->ev;
	uint64_t us = ts / 1000 + (ts % 1000 >= 500);
	char num[24], *d;
	size_t len, name_len, n, pad;
	const char *comm;
	int64_t pid;
	char *p;

	if (us <= 1000000 || ts > UINT64_MAX - 500 || cpu > INT32_MAX ||
	    size < ev->pid_offset + ev->pid_size)
		return false;
	pid = (int)vma_get_uint(data + ev->pid_offset, ev->pid_size, ev->big_endian);
	comm = comm_of(priv, (int)pid, &len);
	name_len = strlen(name);
	/*
	 * comm, pid, cpu, seconds and padding: at most 16 + 20 + 20 + 26 + 22
	 * bytes beside the names
	 */
	if (!vma_sb_room(sb, len + name_len + 128))
		return true;
	p = sb->buf + sb->len;
	if (len < 16) {
		memset(p, ' ', 16 - len);
		p += 16 - len;
	}
	vma_copy_short(p, comm, len);
	p += len;
	*p++ = '-';
	d = vma_fmt_u64(num, (uint64_t)(pid < 0 ? -pid : pid));
	n = (size_t)(d - num) + (pid < 0);
	if (pid < 0)
		*p++ = '-';
	memcpy(p, num, (size_t)(d - num));
	p += d - num;
	for (; n < 5; n++)
		*p++ = ' ';
	*p++ = ' ';
	*p++ = '[';
	d = vma_fmt_u64(num, cpu);
	for (n = (size_t)(d - num); n < 3; n++)
		*p++ = '0';
	memcpy(p, num, (size_t)(d - num));
	p += d - num;
	*p++ = ']';
	*p++ = ' ';
	d = vma_fmt_u64(num, us / 1000000);
	for (n = (size_t)(d - num); n < 5; n++)
		*p++ = ' ';
	memcpy(p, num, (size_t)(d - num));
	p += d - num;
	*p++ = '.';
	p = vma_fmt_dec_fixed(p, us % 1000000, 6);
	*p++ = ':';
	*p++ = ' ';
	vma_copy_short(p, name, name_len);
	p += name_len;
	*p++ = ':';
	pad = (name_len + 1 < NAME_COLUMN ? NAME_COLUMN - name_len - 1 : 0) + 1;
	memset(p, ' ', pad);
	p += pad;
	sb->len = (size_t)(p - sb->buf);
	sb->buf[sb->len] = '\0';
	return true;
}

static void set_record(struct tep_record *record, const struct vma_kvm_line *line)
{
	memset(record, 0, sizeof(*record));
	record->ts = line->ts;
	record->cpu = (int)line->cpu;
	record->data = (void *)line->data;
	record->size = (int)line->size;
	record->record_size = (int)line->size;
}

void vma_kvmev_info_text(struct vma_kvm_priv *priv, struct tep_event *event,
			 const struct vma_kvm_line *line, struct vma_strbuf *sb)
{
	struct tep_record record;
	struct trace_seq *seq = dump_seq(priv);

	/* a plugin may register a comm as it prints */
	vma_kvm_comms_stale(priv);
	if (!seq) {
		vma_sb_puts(sb, "(out of memory)");
		return;
	}
	set_record(&record, line);
	vma_tep()->tep_print_event(event->tep, seq, &record, "%s", TEP_PRINT_INFO);
	vma_tep()->trace_seq_terminate(seq);
	if (seq->state == TRACE_SEQ__GOOD && seq->buffer) {
		put_one_line(sb, seq);
	} else {
		vma_sb_puts(sb, "(out of memory)");
	}
}

/* libtraceevent's "COMM-PID [CPU] TIME: NAME:", for the lines put_task_time() leaves. */
static void put_task_time_tep(struct vma_kvm_priv *priv, struct tep_event *event,
			      const struct vma_kvm_line *line, struct vma_strbuf *sb)
{
	struct tep_record record;
	struct trace_seq *seq = dump_seq(priv);

	if (!seq) {
		vma_sb_puts(sb, "(out of memory)");
		return;
	}
	vma_kvm_comms_stale(priv);
	set_record(&record, line);
	vma_tep()->tep_print_event(event->tep, seq, &record, "%16s-%-5d [%03d] %6.1000d: %s:",
				   TEP_PRINT_COMM, TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_TIME,
				   TEP_PRINT_NAME);
	vma_tep()->trace_seq_terminate(seq);
	if (seq->state != TRACE_SEQ__GOOD || !seq->buffer) {
		vma_sb_puts(sb, "(out of memory)");
		return;
	}
	vma_sb_puts(sb, seq->buffer);
}

void vma_kvmev_describe(struct vma_kvm_priv *priv, const unsigned char *data, uint32_t size,
			uint32_t cpu, uint64_t ts, struct vma_strbuf *sb)
{
	const struct vma_kvm_line line = { data, size, cpu, ts };
	struct vma_kvmev *ev = &priv->ev;
	struct vma_kvmev_bind *b;
	uint32_t type;
	size_t pad;

	if (size < ev->type_offset + ev->type_size) {
		vma_sb_puts(sb, "(event too short to decode)");
		return;
	}
	type = (uint32_t)vma_get_uint(data + ev->type_offset, ev->type_size, ev->big_endian);
	if (type >= ev->nr_ids || ev->by_id[type] < 0) {
		vma_sb_printf(sb, "unknown event id %u (%u bytes)", type, size);
		return;
	}
	b = &ev->bind[ev->by_id[type]];
	if (!b->event && vma_kvm_format_parse(priv, b->format)) {
		struct tep_event *event = vma_kvmev_parsed_event(priv->tep, &priv->formats[b->format]);

		/* a format parsed this late is one vmalyze does not analyse */
		if (event)
			b->event = event;
	}
	if (!b->event && b->format < priv->nr_formats &&
	    priv->formats[b->format].state == VMA_KVM_FMT_REFUSED) {
		vma_sb_printf(sb, "%s: (format not parsed: past the %u MiB of format text parsed;"
			      " %u bytes)", b->name, VMA_KVM_PARSE_BUDGET >> 20, size);
		return;
	}
	if (!b->event) {
		vma_sb_printf(sb, "%s: (format not understood; %u bytes)", b->name, size);
		return;
	}
	vma_kvm_print_setup(priv);
	/* in trace-cmd's order: the comm first, before a plugin may register a new one */
	if (!put_task_time(priv, data, size, cpu, ts, b->event->name, sb)) {
		put_task_time_tep(priv, b->event, &line, sb);
		pad = strlen(b->event->name) + 1;
		vma_sb_put_fill(sb, ' ', (pad < NAME_COLUMN ? NAME_COLUMN - pad : 0) + 1);
	}
	if (!vma_kvmtext_put(priv, b, &line, sb))
		vma_kvmev_info_text(priv, b->event, &line, sb);
}
