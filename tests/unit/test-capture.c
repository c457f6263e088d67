/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The capture stage's buffer consumer against trace buffers simulated in
 * memory, laid out as xen/trace.h defines them: a t_info area (u16 pages
 * per buffer, u16 offset per pcpu of its u32 MFN list) and per pcpu a
 * struct t_buf {u32 cons, prod} followed by X data bytes, the indices
 * running modulo 2X.  A simulated Xen produces records into them; the
 * windows drained are read back with the xentrace reader.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmalyze/capture.h"
#include "vmalyze/diag.h"
#include "vmalyze/grow.h"
#include "vmalyze/input.h"
#include "vmalyze/merge.h"
#include "vmalyze/status.h"
#include "vmalyze/trace-ids.h"
#include <xen/trace.h>

#include "tbuf-sim.h"

struct mem {
	unsigned char *p;
	size_t len, cap;
};

static int mem_write(void *arg, const void *bytes, size_t len)
{
	struct mem *m = arg;

	cr_assert_eq(vma_grow(m->p, &m->cap, m->len + len, 4096), VMA_OK);
	memcpy(m->p + m->len, bytes, len);
	m->len += len;
	return 0;
}

struct got {
	uint64_t tsc[256];
	uint32_t pcpu[256], word[256];
	size_t n;
};

static int add(void *m, struct vma_stream *s)
{
	return vma_merge_add(m, s);
}

/* Read the captured bytes with the xentrace reader. */
static void read_back(const struct mem *m, struct got *g)
{
	char path[] = "/tmp/vmalyze-capture-XXXXXX";
	int fd = mkstemp(path);
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	struct vma_merge *merge = vma_merge_create();
	struct vma_input_options o = { 0 };
	struct vma_input *in;
	struct vma_stream *st;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, m->p, m->len), (ssize_t)m->len);
	close(fd);
	memset(g, 0, sizeof(*g));
	cr_assert_eq(vma_input_open(path, &o, diag, add, merge, &in), VMA_OK);
	while (vma_merge_next(merge, &st) == VMA_OK) {
		cr_assert_lt(g->n, 256);
		g->tsc[g->n] = st->rec.tsc;
		g->pcpu[g->n] = st->rec.pcpu;
		g->word[g->n] = st->rec.data[0];
		g->n++;
	}
	cr_assert_eq(vma_diag_worst(diag), VMA_LVL_NONE, "the captured file is damaged");
	vma_input_close(in);
	vma_merge_destroy(merge);
	vma_diag_destroy(diag);
	unlink(path);
}

static struct vma_capture *start(struct sim *s, struct vma_diag **diag, uint32_t kb)
{
	struct vma_capture_options o = { .buffer_kb = kb };
	struct vma_capture *cap = NULL;

	*diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	cr_assert_eq(vma_capture_start(&sim_ops, s, &o, *diag, &cap), VMA_OK);
	return cap;
}

Test(capture, drains_each_buffer_as_one_window_and_frees_it)
{
	struct sim *s = sim_new(2);
	struct vma_diag *diag;
	struct vma_capture *cap = start(s, &diag, 8);
	struct mem m = { 0 };
	struct got g;

	cr_assert_eq(s->pages, 2);
	cr_assert_eq(s->evt_mask, TRC_ALL);
	cr_assert_eq(vma_capture_stats(cap)->nr_buffers, 2);
	produce_rec(s, 0, TRC_SCHED_WAKE, 100, 1);
	produce_rec(s, 1, TRC_SCHED_WAKE, 150, 2);
	produce_rec(s, 0, TRC_SCHED_WAKE, 200, 3);
	cr_assert_eq(vma_capture_drain(cap, mem_write, &m), 2 * 12 + 3 * 16);
	/* Consumed: the space is Xen's again, and a second drain writes nothing. */
	cr_assert_eq(*cons_of(s, 0), *prod_of(s, 0));
	cr_assert_eq(*cons_of(s, 1), *prod_of(s, 1));
	cr_assert_eq(vma_capture_drain(cap, mem_write, &m), 0);
	produce_rec(s, 1, TRC_SCHED_WAKE, 300, 4);
	cr_assert_eq(vma_capture_drain(cap, mem_write, &m), 12 + 16);
	cr_assert_eq(vma_capture_stats(cap)->windows, 3);

	read_back(&m, &g);
	cr_assert_eq(g.n, 4);
	cr_assert_eq(g.tsc[0], 100);
	cr_assert_eq(g.pcpu[1], 1);
	cr_assert_eq(g.word[2], 3);
	cr_assert_eq(g.tsc[3], 300);
	vma_capture_stop(cap);
	cr_assert_eq(s->disables, 1);
	cr_assert_eq(s->maps, s->unmaps);
	cr_assert_eq(s->closes, 1);
	vma_diag_destroy(diag);
	free(m.p);
	sim_free(s);
}

Test(capture, a_window_that_wraps_is_written_whole)
{
	struct sim *s = sim_new(1);
	struct vma_diag *diag;
	struct vma_capture *cap = start(s, &diag, 4);
	struct mem m = { 0 };
	struct got g;
	uint32_t i;

	/* Just before the end of the data area, in each half of the 2X range. */
	for (uint32_t half = 0; half < 2; half++) {
		m.len = 0;
		move_indices(s, 0, half * s->x + s->x - 40);
		for (i = 0; i < 8; i++)
			produce_rec(s, 0, TRC_SCHED_WAKE, 1000 * (half + 1) + i, i);
		/* The data crosses the end of the area; in the second half prod wraps at 2X too. */
		cr_assert_gt(*cons_of(s, 0) % s->x + 8 * 16, s->x);
		cr_assert(half == 0 || *prod_of(s, 0) < *cons_of(s, 0));
		cr_assert_eq(vma_capture_drain(cap, mem_write, &m), 12 + 8 * 16);
		read_back(&m, &g);
		cr_assert_eq(g.n, 8);
		for (i = 0; i < 8; i++) {
			cr_assert_eq(g.tsc[i], 1000 * (half + 1) + i);
			cr_assert_eq(g.word[i], i);
		}
	}
	vma_capture_stop(cap);
	vma_diag_destroy(diag);
	free(m.p);
	sim_free(s);
}

Test(capture, lost_record_markers_are_counted)
{
	struct sim *s = sim_new(1);
	struct vma_diag *diag;
	struct vma_capture *cap = start(s, &diag, 4);
	struct mem m = { 0 };
	/* TRC_LOST_RECORDS as Xen writes it: tsc, {lost, did|vid, first tsc}. */
	uint32_t lost[7] = { TRC_LOST_RECORDS | (4u << 28) | (1u << 31), 500, 0, 17, 0, 400, 0 };

	produce_rec(s, 0, TRC_SCHED_WAKE, 300, 1);
	produce(s, 0, lost, sizeof(lost));
	produce_rec(s, 0, TRC_SCHED_WAKE, 600, 2);
	cr_assert_gt(vma_capture_drain(cap, mem_write, &m), 0);
	cr_assert_eq(vma_capture_stats(cap)->lost_markers, 1);
	cr_assert_eq(vma_capture_stats(cap)->lost_records, 17);
	vma_capture_stop(cap);
	vma_diag_destroy(diag);
	free(m.p);
	sim_free(s);
}

Test(capture, only_pcpus_in_the_mask_have_buffers)
{
	struct sim *s = sim_new(4);
	uint8_t mask = 0x5;
	struct vma_capture_options o = { .cpu_mask = &mask, .cpu_mask_bits = 4 };
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	struct vma_capture *cap;
	struct mem m = { 0 };
	struct got g;

	cr_assert_eq(vma_capture_start(&sim_ops, s, &o, diag, &cap), VMA_OK);
	cr_assert_eq(vma_capture_stats(cap)->nr_buffers, 2);
	produce_rec(s, 2, TRC_SCHED_WAKE, 10, 9);
	cr_assert_gt(vma_capture_drain(cap, mem_write, &m), 0);
	read_back(&m, &g);
	cr_assert_eq(g.n, 1);
	cr_assert_eq(g.pcpu[0], 2);
	vma_capture_stop(cap);
	cr_assert_eq(s->maps, 3);
	cr_assert_eq(s->unmaps, 3);
	vma_diag_destroy(diag);
	free(m.p);
	sim_free(s);
}

Test(capture, failures_undo_what_was_done)
{
	struct vma_capture_options o = { 0 };
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	struct vma_capture *cap = (struct vma_capture *)1;
	struct sim *s = sim_new(2);

	/* Enabling fails: nothing to disable or unmap; the handle is closed. */
	s->fail_enable = EBUSY;
	cr_assert_eq(vma_capture_start(&sim_ops, s, &o, diag, &cap), VMA_ERR_IO);
	cr_assert_null(cap);
	cr_assert_eq(s->disables, 0);
	cr_assert_eq(s->maps, 0);
	cr_assert_eq(s->closes, 1);
	sim_free(s);

	/* Mapping pcpu 1's buffer fails: tracing off, t_info and pcpu 0 unmapped. */
	s = sim_new(2);
	s->fail_map_at = 3;
	cr_assert_eq(vma_capture_start(&sim_ops, s, &o, diag, &cap), VMA_ERR_IO);
	cr_assert_eq(s->disables, 1);
	cr_assert_eq(s->maps, 2);
	cr_assert_eq(s->unmaps, 2);
	cr_assert_eq(vma_diag_worst(diag), VMA_LVL_INPUT);
	sim_free(s);
	vma_diag_destroy(diag);
}

Test(capture, damaged_indices_are_reported_not_followed)
{
	struct sim *s = sim_new(1);
	struct vma_diag *diag;
	struct vma_capture *cap = start(s, &diag, 4);
	struct mem m = { 0 };

	*prod_of(s, 0) = 2 * s->x + 100;
	cr_assert_eq(vma_capture_drain(cap, mem_write, &m), 0);
	cr_assert_eq(vma_diag_worst(diag), VMA_LVL_FILE);
	cr_assert_eq(m.len, 0);
	vma_capture_stop(cap);
	vma_diag_destroy(diag);
	sim_free(s);
}

/* A previous session's tail, still in the buffers when tracing is enabled again. */
static void leave_stale_records(struct sim *s)
{
	produce_rec(s, 0, TRC_SCHED_WAKE, 10, 91);
	produce_rec(s, 1, TRC_SCHED_WAKE, 20, 92);
	produce_rec(s, 1, TRC_SCHED_WAKE, 30, 93);
}

static void capture_after_stale(bool discard, struct got *g, uint64_t *discarded)
{
	struct sim *s = sim_new(2);
	struct vma_capture_options o = { .buffer_kb = 8, .discard = discard };
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	struct vma_capture *cap = NULL;
	struct mem m = { 0 };

	s->on_enable = leave_stale_records;
	cr_assert_eq(vma_capture_start(&sim_ops, s, &o, diag, &cap), VMA_OK);
	produce_rec(s, 0, TRC_SCHED_WAKE, 100, 1);
	produce_rec(s, 1, TRC_SCHED_WAKE, 150, 2);
	cr_assert_gt(vma_capture_drain(cap, mem_write, &m), 0);
	*discarded = vma_capture_stats(cap)->discarded;
	read_back(&m, g);
	vma_capture_stop(cap);
	vma_diag_destroy(diag);
	free(m.p);
	sim_free(s);
}

Test(capture, discard_drops_what_the_buffers_held_before_the_start)
{
	struct got g;
	uint64_t discarded;

	capture_after_stale(false, &g, &discarded);
	cr_assert_eq(g.n, 5, "without discard the stale records are captured");
	cr_assert_eq(discarded, 0);
	cr_assert_eq(g.word[0], 91);

	capture_after_stale(true, &g, &discarded);
	cr_assert_eq(discarded, 3 * 16);
	cr_assert_eq(g.n, 2);
	cr_assert_eq(g.tsc[0], 100);
	cr_assert_eq(g.word[0], 1);
	cr_assert_eq(g.tsc[1], 150);
	cr_assert_eq(g.word[1], 2);
}

Test(capture, without_xen_one_clear_refusal)
{
	struct vma_diag *diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	const struct vma_tbuf_ops *ops = NULL;
	void *hv = NULL;

	if (!access("/dev/xen/privcmd", F_OK) || !access("/proc/xen/privcmd", F_OK))
		cr_skip_test("this host runs Xen");
	cr_assert_eq(vma_xen_tbuf_open(diag, &ops, &hv), VMA_ERR_IO);
	cr_assert_null(ops);
	cr_assert_eq(vma_diag_worst(diag), VMA_LVL_INPUT);
	vma_diag_destroy(diag);
}

static struct sim *host;

static int open_host_sim(struct vma_diag *diag, const struct vma_tbuf_ops **ops, void **hv)
{
	*ops = &sim_ops;
	*hv = host;
	return VMA_OK;
}

static int open_no_host(struct vma_diag *diag, const struct vma_tbuf_ops **ops, void **hv)
{
	return VMA_ERR_IO;
}

static uint64_t host_hz(vma_tbuf_open_fn open, enum vma_verbosity verbosity, char *said,
			size_t size)
{
	FILE *err;
	struct vma_diag *diag;
	uint64_t hz;

	memset(said, 0, size);
	err = fmemopen(said, size - 1, "w");
	cr_assert_not_null(err);
	diag = vma_diag_create_to(err, VMA_DEFAULT_TOLERANCE, verbosity);
	hz = vma_capture_host_hz(open, diag, 2400000000ull);
	vma_diag_destroy(diag);
	fclose(err);
	return hz;
}

Test(capture, a_xen_hosts_tsc_is_the_default_cpu_hz)
{
	char said[512];

	host = sim_new(2);
	host->khz = 2893204;
	cr_assert_eq(host_hz(open_host_sim, VMA_VERB_NORMAL, said, sizeof(said)),
		     2893204000ull);
	cr_assert_eq(host->closes, 1, "the host handle is closed again");
	cr_assert_str_empty(said, "silent at the default verbosity: %s", said);
	cr_assert_eq(host_hz(open_host_sim, VMA_VERB_VERBOSE, said, sizeof(said)),
		     2893204000ull);
	cr_assert(strstr(said, "2893204000 Hz, this Xen host's TSC"), "%s", said);
	/* A host that does not know its TSC frequency: the default. */
	host->khz = 0;
	cr_assert_eq(host_hz(open_host_sim, VMA_VERB_VERBOSE, said, sizeof(said)),
		     2400000000ull);
	cr_assert(strstr(said, "the default"), "%s", said);
	cr_assert_eq(host->maps + host->set_size_calls + host->disables, 0,
		     "only the host's description is read");
	sim_free(host);
}

Test(capture, without_xen_the_default_cpu_hz_quietly)
{
	char said[512];

	cr_assert_eq(host_hz(open_no_host, VMA_VERB_NORMAL, said, sizeof(said)), 2400000000ull);
	cr_assert_str_empty(said, "%s", said);
	cr_assert_eq(host_hz(open_no_host, VMA_VERB_VERBOSE, said, sizeof(said)), 2400000000ull);
	cr_assert(strstr(said, "--cpu-hz not given: 2400000000 Hz, the default"), "%s", said);
}

/* The real probe on a host without Xen: no message, and no libxenctrl call. */
Test(capture, the_xen_host_probe_is_silent_without_xen)
{
	char said[512];

	if (!access("/dev/xen/privcmd", F_OK) || !access("/proc/xen/privcmd", F_OK))
		cr_skip_test("this host runs Xen");
	cr_assert_eq(host_hz(vma_xen_host_open, VMA_VERB_NORMAL, said, sizeof(said)),
		     2400000000ull);
	cr_assert_str_empty(said, "%s", said);
	cr_assert_eq(host_hz(vma_xen_host_open, VMA_VERB_VERBOSE, said, sizeof(said)),
		     2400000000ull);
	cr_assert(strstr(said, "Not running on Xen"), "%s", said);
}
