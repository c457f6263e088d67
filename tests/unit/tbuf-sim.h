/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace buffers simulated in memory for the capture tests, laid out as
 * xen/trace.h defines them: a t_info page (u16 pages per buffer, u16
 * offset per pcpu of its u32 MFN list) and per pcpu a struct t_buf
 * {u32 cons, prod} followed by X data bytes, the indices running modulo
 * 2X; produce() is Xen's side.
 */
#ifndef VMALYZE_TESTS_TBUF_SIM_H
#define VMALYZE_TESTS_TBUF_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "vmalyze/capture.h"

#define SIM_CPUS 4
#define TINFO_MFN 100u
#define BUF_MFN 1000u

struct sim {
	uint32_t nr_cpus, pages, x;
	uint8_t mask;                 /* pcpus given a buffer */
	unsigned char tinfo[VMA_TBUF_PAGE];
	unsigned char *buf[SIM_CPUS]; /* struct t_buf + data */
	bool enabled;
	int maps, unmaps, disables, closes, set_size_calls;
	uint32_t evt_mask;
	int fail_enable, fail_map_at; /* errno to fail with; map call number (1-based) */
	/* Called by wait(): Xen producing records meanwhile.  May be NULL. */
	void (*on_wait)(struct sim *s);
	/* Called once enable() made the buffers: what an earlier session left there.  May be NULL. */
	void (*on_enable)(struct sim *s);
	uint32_t khz;                 /* what cpu_khz() says */
	void *arg;
	int waits;
};

extern const struct vma_tbuf_ops sim_ops;

struct sim *sim_new(uint32_t cpus);
void sim_free(struct sim *s);
uint32_t *cons_of(struct sim *s, uint32_t cpu);
uint32_t *prod_of(struct sim *s, uint32_t cpu);
/* Bytes Xen may still write into @cpu's buffer. */
uint32_t sim_room(struct sim *s, uint32_t cpu);
/* Xen's side: append @len bytes at prod, wrapping at X; prod runs modulo 2X. */
void produce(struct sim *s, uint32_t cpu, const void *bytes, uint32_t len);
/* A record with a time stamp and one payload word. */
void produce_rec(struct sim *s, uint32_t cpu, uint32_t event, uint64_t tsc, uint32_t word);
/* Put both indices of @cpu at @at (to test the wrap). */
void move_indices(struct sim *s, uint32_t cpu, uint32_t at);

#endif /* VMALYZE_TESTS_TBUF_SIM_H */
