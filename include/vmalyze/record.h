/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record: the one value that travels from the readers through the merge
 * into dispatch.  It is transparent because it sits on the per-record hot
 * path; every reader fills the same shape, whatever its file format.
 *
 * Xen records keep their xentrace event id and payload words unchanged.
 * KVM records get an id from the VMA_KVM_* space (see trace-ids.h) and a
 * payload laid out by the KVM adapter, so the state stage never sees a file
 * format.
 */
#ifndef VMALYZE_RECORD_H
#define VMALYZE_RECORD_H

#include <stdint.h>

/* Xen allows 7 payload words; KVM exits need 11 (three 64-bit fields). */
#define VMA_REC_MAX_WORDS 12

enum vma_record_flags {
	VMA_REC_HAS_TSC = 1u << 0,   /* the record carried its own time stamp */
	VMA_REC_SYNTHETIC = 1u << 1, /* made by a reader, not present in the file */
	VMA_REC_LATE = 1u << 2,      /* merged after a record with a later stamp */
};

struct vma_record {
	uint64_t tsc;      /* time stamp in the source clock (cycles or ns) */
	uint64_t offset;   /* byte offset in the input, for diagnostics */
	uint32_t event;    /* xentrace event id (28 bits) or VMA_KVM_* id */
	uint32_t pcpu;     /* physical cpu whose buffer held the record */
	uint32_t ctx;      /* host thread id for KVM records, 0 for Xen */
	uint16_t nr_data;  /* valid words in data[] */
	uint16_t flags;    /* enum vma_record_flags */
	uint32_t data[VMA_REC_MAX_WORDS];
};

/* Payload word i and i+1 as one little-endian 64-bit value. */
static inline uint64_t vma_rec_u64(const struct vma_record *rec, unsigned int i)
{
	return (uint64_t)rec->data[i] | ((uint64_t)rec->data[i + 1] << 32);
}

#endif /* VMALYZE_RECORD_H */
