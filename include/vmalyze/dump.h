/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dump mode: one line per record, in merged order.  The line grammar is in
 * doc/output.md:
 *
 *   MARK TIME ' ' PCPUS ' ' VCPU ' ' TEXT
 *
 * MARK is ' ', ']' or '!' (struct vma_outcome); TIME is seconds since the
 * first record, "%3u.%09u", blank for the first instant; PCPUS has one
 * character per pcpu; VCPU is "dNvM" or "d?v?"; TEXT is the decoded event.
 */
#ifndef VMALYZE_DUMP_H
#define VMALYZE_DUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmalyze/dispatch.h"
#include "vmalyze/input.h"
#include "vmalyze/state.h"
#include "vmalyze/strbuf.h"

struct vma_dump;

/*
 * The text of a record of an input that decodes its own records (KVM):
 * appended to @sb, without a newline.  The run driver hands the input's
 * function to the dump; Xen records are decoded by the output stage.
 */
typedef void vma_dump_describe_fn(const struct vma_stream *stream, struct vma_strbuf *sb);

/*
 * How many records a Xen dump holds back, at most, until the trace has
 * shown whether its exit codes are VMX's or SVM's (state.h,
 * vma_vendor_note()).  Xen 4.17 and 4.18 give both vendors one vmexit id;
 * an SVM trace shows itself at its first exit of code 0x60 or above,
 * which comes within the first few exits.  A VMX trace never does: its
 * first lines leave once this many are held (or at the end of the trace),
 * with VMX names.  Held lines cost some 80 bytes each; lines made wide by
 * many pcpus (up to 256 columns) leave once VMA_DUMP_VENDOR_HOLD_BYTES of
 * them are held (65,536 such lines held 22 MB).
 */
#define VMA_DUMP_VENDOR_LOOKAHEAD (1u << 16)
#define VMA_DUMP_VENDOR_HOLD_BYTES (8u << 20)

/*
 * vma_dump_create - dump to @out, with times in seconds of @cpu_hz ticks
 * (not 0).  @describe decodes the records of an input that has its own
 * decoder (NULL: Xen records, decoded here).
 * Return: owned (vma_dump_destroy()); NULL when out of memory.
 */
struct vma_dump *vma_dump_create(FILE *out, uint64_t cpu_hz, vma_dump_describe_fn *describe);
void vma_dump_destroy(struct vma_dump *dump);

/*
 * vma_dump_set_origin - times count from @tsc, the trace's first record,
 * rather than from the first record the machine saw (--time's window
 * start), as --top's and the summary's do.
 */
void vma_dump_set_origin(struct vma_dump *dump, uint64_t tsc);

/*
 * vma_dump_no_lookahead - the dump's first VMA_DUMP_VENDOR_LOOKAHEAD
 * records are known to hold no SVM evidence (vma_vendor_svm_evidence(),
 * for instance from a first pass over them): the look-ahead would end
 * with VMX text, so no line is held.  Call before the first record.
 */
void vma_dump_no_lookahead(struct vma_dump *dump);

struct vma_symbols;

/*
 * vma_dump_set_symbols - with --symbol-file: a vmexit's guest EIP is
 * followed by "(name +off)", as in xenalyze's dump.  @symbols is borrowed.
 */
void vma_dump_set_symbols(struct vma_dump *dump, const struct vma_symbols *symbols);

/*
 * vma_dump_show_power_states - an idle pcpu's column shows its C-state
 * (from pm_idle records, 0 when not in one) instead of '-', as xenalyze's
 * --dump-show-power-states.
 */
void vma_dump_show_power_states(struct vma_dump *dump);

/*
 * vma_dump_raw_process - before each record's line, its raw words as
 * xenalyze's --dump-raw-process prints them ("*  ID N TSC [ words ] |
 * file words |"); with !@lines, only those (no -a).
 */
void vma_dump_raw_process(struct vma_dump *dump, bool lines);

struct vma_strbuf;

/*
 * vma_dump_raw_line - xenalyze's raw line of @rec after @prefix ("* " as
 * it is processed, "R pN oOFFSET " as it is read): "ID N TSC [ payload ]
 * | file words |" and a newline.
 */
void vma_dump_raw_line(struct vma_strbuf *sb, const char *prefix, const struct vma_record *rec);

/*
 * vma_dump_volume_on_lost - after a lost-records record's line, the trace
 * volume by class its pcpu wrote since its previous lost records (or the
 * start): what filled the buffer that overflowed.
 */
void vma_dump_volume_on_lost(struct vma_dump *dump);

/*
 * vma_dump_begin - capture the columns that show the state before the
 * record is processed (time, pcpus, current vcpu).
 */
void vma_dump_begin(struct vma_dump *dump, const struct vma_machine *machine,
		    const struct vma_record *rec);

/*
 * vma_dump_begin_linked - vma_dump_begin() for linked inputs on one clock
 * (a host and its guests): the time is since the first record of any of
 * them, the pcpus are the @host machine's; a @guest record's vcpu column
 * is @guest_vcpu, the host's vcpu running it (NULL: "d?v?"), with its
 * pcpu marked 'x'.  TEXT starts with "@label: ", @label right-aligned to
 * @label_width, as `trace-cmd report` names the file of each line.
 */
void vma_dump_begin_linked(struct vma_dump *dump, const struct vma_machine *host,
			   const struct vma_record *rec, bool guest,
			   const struct vma_vcpu *guest_vcpu, const char *label, int label_width);

/*
 * vma_dump_set_guest_describe - a Xen host's linked dump (@dump made with
 * no describe): guest lines (vma_dump_begin_linked()) are decoded by
 * @describe, their input's.
 */
void vma_dump_set_guest_describe(struct vma_dump *dump, vma_dump_describe_fn *describe);

/*
 * vma_dump_end - finish the line, now that @out says how the record was
 * taken.  Lines are written in batches of some hundred kilobytes, as
 * vma_dump_flush() writes them, after the vendor look-ahead (above).
 * Return: VMA_OK, VMA_ERR_NOMEM, or VMA_ERR_OUTPUT when a batch could not
 * be written.
 */
int vma_dump_end(struct vma_dump *dump, const struct vma_stream *stream,
		 const struct vma_outcome *out);

/*
 * vma_dump_record - vma_dump_begin(), @dispatch of the record into @m,
 * then vma_dump_end(): the pipeline's around hook (pipeline.h), @dump its
 * argument, for a run that does nothing else per record.  Return: the
 * first failure of @dispatch or vma_dump_end(), or VMA_OK.
 */
int vma_dump_record(void *dump, struct vma_machine *m, const struct vma_stream *stream,
		    int (*dispatch)(struct vma_machine *m, const struct vma_record *rec,
				    struct vma_outcome *out));

/*
 * vma_dump_flush - write the finished lines still held.  The lines go
 * straight to the FILE's descriptor when it has one, after flushing it.
 * vma_dump_destroy() writes them too, through stdio, so a failure stays in
 * the FILE's error state, but it cannot report one: call this first to
 * learn of it.  Return: VMA_OK or VMA_ERR_OUTPUT.
 */
int vma_dump_flush(struct vma_dump *dump);

/* Format seconds since the first record: "%3u.%09u", exactly. */
void vma_format_time(char *buf, size_t len, uint64_t cycles, uint64_t hz);

#endif /* VMALYZE_DUMP_H */
