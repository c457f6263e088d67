/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmalyze-mkbad KIND FILE [N]: writes one hostile input of issue 13 with
 * the project's own writers (xtwriter, tracedat-writer), for
 * tests/cli/hostile.sh; N changes its size (main() says what it counts).
 * Each is small and once made vmalyze eat memory, time or output, or exit
 * with a wrong status:
 *   vcpu-ffff     xentrace: runstate records of vcpu 0xffff in N=4,096 domains
 *   pcpu-far      xentrace: N=3,000 records on pcpus 0, 1 and 1048575
 *   cross-runstate xentrace: pcpu 1 changes the runstate of pcpu 0's running
 *                 vcpu, N=20,000 exits (tests/cli/ahead.sh)
 *   late-vendor   xentrace, Xen 4.17's ids: N=20,000 exits with interrupt
 *                 vectors on pcpu 1 (scheduler records on pcpu 0 between
 *                 them), and halfway through them pcpu 0's one
 *                 exit, an SVM code (tests/cli/ahead.sh)
 *   late-warning  xentrace: N=20,000 exits on pcpus 0 and 1, and halfway
 *                 through a nested vmexit, which vmalyze warns of (ahead.sh)
 *   few-ahead     xentrace: N=20,000 exits on pcpus 0 and 1, each among 8
 *                 scheduler records, which never go ahead of the merge (ahead.sh)
 *   only-headers  xentrace: N=100,000 window headers, no record
 *   headers-1m    xentrace: empty windows of N=1,048,575 distinct pcpus (12 MB)
 *   pcpus-20k     xentrace: one record on each of N=20,000 pcpus, past the cap
 *   worst-xen     xentrace: N=4,096 pcpus, each running 2 vcpus of a domain of
 *                 its own: every table at its cap at once
 *   exit-codes    xentrace: N=8,000 HVM vcpus, each with an exit of a code near
 *                 0xffff and an injected interrupt (tables indexed by code)
 *   pv-numbers    xentrace: N=8,000 PV vcpus, each with a hypercall near 0xffff
 *                 and a trap near 0x7fff (tables indexed by number)
 *   kvm-pids      trace.dat v6: kvm_entry from N=2,000 threads, vcpu_id 65535
 *   chunk-bomb    trace.dat v7 zstd: N=8 cpus, each first chunk expands to 64 MiB
 *   buffer-wrap   trace.dat v7: cpu 0's data size 2^64-1 in the BUFFER option
 *   options-far   trace.dat v7 whose preamble puts the first options section at
 *                 byte 2^40 (piped: past any copy of the pipe)
 *   v6-size-wrap  trace.dat v6: cpu 0's data size 2^64-1 in the flyrecord header
 *   v6-overlap    trace.dat v6: cpu 0's data where cpu 1's are (read twice, silently)
 *   commit0       trace.dat v6: 2 cpus, N=400 events each, every page's commit 0
 *   cpus-8k       trace.dat v6: N=8,192 cpus (the cap), each a page of 20 kvm_entry
 *                 of a vcpu thread of its own
 *   cpus-8k-full  the same with 145 kvm_entry a cpu: each page full
 *   cpus-8k-zstd  cpus-8k-full in v7, zstd (a chunk of one page a cpu)
 *   cpus-1k-chunks trace.dat v7 zstd as trace-cmd writes it: N=1,024 cpus, each
 *                 10 full pages in one chunk of 10 pages (40 MiB of chunks)
 *   cpus-8k-long  trace.dat v6: N=8,192 cpus, each 40 kvm_entry of which the
 *                 26th carries 2,000 bytes (longer than a cpu's window)
 *   cpus-8k-long-zstd  the same in v7, zstd
 *   pcpu-renamed  $VMALYZE_GOOD (a xentrace file) with pcpu 1 renamed 1048575
 *   format-crashes trace.dat v6: N=2,000 kvm_exit formats libtraceevent crashes on
 *   formats-wanted trace.dat v6: N=8,000 sound kvm_exit formats (ids 1000...), each
 *                 one a reader parses at open
 *   formats-dumped trace.dat v6: N=8,000 sound formats of other events, a record of
 *                 each: the dump parses each when its record comes
 *   format-crash-mid trace.dat v6: N=400 kvm_entry, half-way a record whose format
 *                 crashes libtraceevent, later one of a sound format (both parsed
 *                 when their record comes)
 *   format-sound-mid the same with the first format sound (the run without a crash)
 *   cmdlines-many trace.dat v6: N=1,000,000 saved command lines of distinct pids
 *   cmdline-bomb  trace.dat v7 zstd, compressed metadata: N=64 MiB of saved
 *                 command lines "1 a", a few KiB compressed
 *   formats-many  trace.dat v6: N=1,000,000 tiny event formats in systems of 100,000
 *   formats-dir   a folder for --event-formats (made if missing): tiny
 *                 <system>.<event>.format files added, up to N=40,000 in all
 *   formats-tree  the same in the tracefs layout: <system>/<event>/format, systems
 *                 of 10,000 events
 *   empty-tar-zst a tar with no member (10 KiB of zeros), compressed with zstd
 *   empty-zst     nothing, compressed with zstd
 *   kallsyms-v6   trace.dat v6 with N=17 MiB of kallsyms text
 *   kallsyms-v7   trace.dat v7 zstd, compressed metadata: the same (a few KiB compressed)
 *   kallsyms-v7-plain  trace.dat v7, nothing compressed: the same
 *   kallsyms-lookup  trace.dat v7 zstd: N=16 MiB of kallsyms in the shortest lines
 *                 (2.8 M functions, out of order) and 100 events printing %pS
 *   skewed        xentrace, written as it is made (FILE may be /dev/stdout): N=256 MiB
 *                 of 32 KiB windows alternating between pcpus 0 and 1, pcpu 0's
 *                 records all later than pcpu 1's: piped, pcpu 0's windows wait
 *                 in the reorder stage until it is full
 *   skewed-tiny   the same in windows of one record
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "kvm-scenario.h"
#include "vmalyze/trace-ids.h"
#include "tracedat-writer.h"
#include "xtwriter.h"

#define RUNSTATE_CHANGE 0x00021001u /* TRC_SCHED_RUNSTATE_CHANGE */
/* The credit2 scheduler's event 1 (TRC_SCHED_CLASS_EVT(1, 1)): the merge takes it in order. */
#define CREDIT2_EVENT (0x00022000u | 1u << 9 | 1u)
#define PAGE 4096u

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(data, 1, len, f) == len;

	if (f && fclose(f) != 0)
		ok = 0;
	if (!ok)
		perror(path);
	return ok ? 0 : -1;
}

/* Write @w's trace to @path, unless making it failed (@rc not 0); free @w. */
static int xt_done(struct vma_xtw *w, int rc, const char *path)
{
	const unsigned char *data;
	size_t len;
	int ret = -1;

	if (!rc && vma_xtw_finish(w) == 0) {
		data = vma_xtw_data(w, &len);
		ret = write_file(path, data, len);
	}
	vma_xtw_free(w);
	return ret;
}

/* Runstate changes running -> runnable of vcpu 0xffff in each of 8,192 domains. */
static int mk_vcpu_ffff(const char *path, uint32_t n)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint32_t dom;
	int rc = 0;

	if (!w)
		return -1;
	for (dom = 0; dom < n && dom < 65536 && !rc; dom++) {
		uint32_t words[3] = { dom << 16 | 0xffff, 0, 1 };

		rc = vma_xtw_record(w, 0, RUNSTATE_CHANGE, 1000 + 10ull * dom, words, 3);
	}
	return xt_done(w, rc, path);
}

/*
 * @n domains seen once, then 5,000 runstate changes of one vcpu 1 us apart:
 * -i 0.000001 once wrote every domain's rows in every interval (quadratic
 * output: 92 KB in, 101 MB out).
 */
static int mk_idle_domains(const char *path, uint32_t n)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint64_t tsc = 1000;
	uint32_t i;
	int rc = 0;

	if (!w)
		return -1;
	for (i = 0; i < n && i < 32768 && !rc; i++) {
		uint32_t word = (i + 2) << 16; /* blocked -> runnable */

		rc = vma_xtw_record(w, 1, RUNSTATE_CHANGE | 2 << 8 | 1 << 4, tsc += 10, &word, 1);
	}
	for (i = 0; i < 5000 && !rc; i++) {
		/* d1v0 runnable -> running, then running -> runnable */
		uint32_t word = 1u << 16, event = i & 1 ? 0 << 8 | 1 << 4 : 1 << 8 | 0 << 4;

		rc = vma_xtw_record(w, 0, RUNSTATE_CHANGE | event, tsc += 2400, &word, 1);
	}
	return xt_done(w, rc, path);
}

/*
 * Runstate records on pcpus 0, 1 and 2^20-1: the dump once had 2^20 columns a
 * line, and each vcpu a table of 2^21 pcpu slots.
 */
static int mk_pcpu_far(const char *path, uint32_t n)
{
	static const uint32_t pcpus[] = { 0, 1, 1048575 };
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint32_t i;
	int rc = 0;

	if (!w)
		return -1;
	for (i = 0; i < n && !rc; i++) {
		uint32_t words[3] = { 1u << 16 | (i % 3), i & 1, !(i & 1) };

		rc = vma_xtw_record(w, pcpus[i % 3], RUNSTATE_CHANGE, 1000 + 100ull * i, words, 3);
	}
	return xt_done(w, rc, path);
}

/*
 * traces/gen-vmx-4cpu.xentrace (given as VMALYZE_GOOD) with pcpu 1's window
 * headers renamed to pcpu 2^20-1: its vcpus then move between pcpus 0, 2,
 * 3 and 1048575.
 */
static int mk_pcpu_renamed(const char *path, uint32_t n)
{
	const char *good = getenv("VMALYZE_GOOD");
	unsigned char *data = NULL;
	size_t len = 0, off;
	FILE *f;
	int rc = -1;

	if (!good || !(f = fopen(good, "rb")))
		return -1;
	data = malloc(1u << 20);
	if (data)
		len = fread(data, 1, 1u << 20, f);
	fclose(f);
	for (off = 0; data && off + 12 <= len;) {
		uint32_t hdr, cpu, size;

		memcpy(&hdr, data + off, 4);
		memcpy(&cpu, data + off + 4, 4);
		memcpy(&size, data + off + 8, 4);
		if ((hdr & 0x0fffffffu) != 0x0001f003u)
			break; /* not a window header: the walk is lost */
		if (cpu == 1)
			vma_tdw_put(data + off + 4, 4, 1048575, false);
		off += 12 + (size_t)size;
	}
	if (data && off == len)
		rc = write_file(path, data, len);
	free(data);
	return rc;
}

static int mk_only_headers(const char *path, uint32_t n)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint32_t i;
	int rc = 0;

	if (!w)
		return -1;
	for (i = 0; i < n && !rc; i++)
		rc = vma_xtw_cpu_change(w, i % 4, 0);
	return xt_done(w, rc, path);
}

/* A window header for each pcpu 0 .. 2^20-2, none with a record. */
static int mk_headers_1m(const char *path, uint32_t n)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint32_t cpu;
	int rc = 0;

	if (!w)
		return -1;
	for (cpu = 0; cpu < n && cpu < (1u << 20) - 1 && !rc; cpu++)
		rc = vma_xtw_cpu_change(w, cpu, 0);
	return xt_done(w, rc, path);
}

/* One runstate record in a window of its own on each of 20,000 pcpus. */
static int mk_pcpus_20k(const char *path, uint32_t n)
{
	struct vma_xtw_options o = { .window_bytes = VMA_XTW_MIN_WINDOW };
	struct vma_xtw *w = vma_xtw_new_memory(&o);
	uint32_t cpu;
	int rc = 0;

	if (!w)
		return -1;
	for (cpu = 0; cpu < n && cpu < (1u << 20) - 1 && !rc; cpu++) {
		uint32_t words[3] = { 1u << 16 | (cpu % 8), 0, 1 };

		rc = vma_xtw_record(w, cpu, RUNSTATE_CHANGE, 1000 + 10ull * cpu, words, 3);
		if (!rc)
			rc = vma_xtw_flush_pcpu(w, cpu);
	}
	return xt_done(w, rc, path);
}

/* On each of @n pcpus, runstate records of vcpus 0xffff and 0xfffe of domain <pcpu>. */
static int mk_worst_xen(const char *path, uint32_t n)
{
	struct vma_xtw_options o = { .window_bytes = VMA_XTW_MIN_WINDOW };
	struct vma_xtw *w = vma_xtw_new_memory(&o);
	uint32_t cpu, j;
	int rc = 0;

	if (!w)
		return -1;
	for (cpu = 0; cpu < n && cpu < (1u << 16) && !rc; cpu++) {
		for (j = 0; j < 2 && !rc; j++) {
			uint32_t words[3] = { cpu << 16 | (0xffff - j), 0, 1 };

			rc = vma_xtw_record(w, cpu, RUNSTATE_CHANGE, 1000 + 10ull * cpu + j, words, 3);
		}
		if (!rc)
			rc = vma_xtw_flush_pcpu(w, cpu);
	}
	return xt_done(w, rc, path);
}

/*
 * @n vcpus, 8 a domain, each run on pcpu 0 for a few records of large
 * numbers, then blocked: HVM (@pv 0) an exit of code 0xfff0..0xffff and an
 * injection, PV a hypercall near 0xffff and a trap near 0x7fff.  The exit
 * table was once indexed by code (512 KiB a vcpu), the vector tables 4 KiB
 * a vcpu, the hypercall and trap tables by number (512 and 256 KiB).
 */
static int mk_numbered(const char *path, uint32_t n, int pv)
{
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint64_t tsc = 1000;
	uint32_t i, k;
	int rc = 0;

	if (!w)
		return -1;
	for (i = 0; i < n && i < (1u << 20) && !rc; i++) {
		uint32_t who = (1 + i / 8) << 16 | i % 8, big = i % 16;
		const struct {
			uint32_t event, nr, words[3];
		} hvm[] = {
			{ RUNSTATE_CHANGE | 1 << 8 | 0 << 4, 1, { who } },
			{ TRC_HVM_VMX_EXIT64, 3, { 0xfff0u + big, 0x1000u, 0 } },
			{ TRC_HVM_INJ_VIRQ, 2, { 0xf0u + big, 0 } },
			{ TRC_HVM_VMENTRY, 0, { 0 } },
			{ RUNSTATE_CHANGE | 0 << 8 | 2 << 4, 1, { who } },
		}, pvs[] = {
			{ RUNSTATE_CHANGE | 1 << 8 | 0 << 4, 1, { who } },
			{ TRC_PV_HYPERCALL_V2, 1, { 0xfff0u + big } },
			{ TRC_PV_TRAP, 2, { 0x1000u, 0x7ff0u + big } },
			{ RUNSTATE_CHANGE | 0 << 8 | 2 << 4, 1, { who } },
		};
		const __typeof__(hvm[0]) *recs = pv ? pvs : hvm;
		uint32_t nr = pv ? sizeof(pvs) / sizeof(pvs[0]) : sizeof(hvm) / sizeof(hvm[0]);

		for (k = 0; k < nr && !rc; k++) {
			rc = vma_xtw_record(w, 0, recs[k].event, tsc += 10, recs[k].words,
					    recs[k].nr);
		}
	}
	return xt_done(w, rc, path);
}

static int mk_exit_codes(const char *path, uint32_t n)
{
	return mk_numbered(path, n, 0);
}

static int mk_pv_numbers(const char *path, uint32_t n)
{
	return mk_numbered(path, n, 1);
}

static int put_format(void *arg, const char *system, const char *name, const char *text)
{
	(void)name;
	/* header_page and header_event: the writer has its own */
	return system ? vma_tdw_format(arg, system, text) : 0;
}

/* A trace.dat writer with the VMX kvm formats; @chunk pages a v7 chunk (0: the writer's). */
static struct vma_tdw *tdw_kvm_chunked(unsigned int version, enum vma_tdw_codec codec,
				       uint32_t cpus, uint32_t chunk)
{
	struct vma_tdw_opts o = { .version = version, .codec = codec, .nr_cpus = cpus,
				  .chunk_pages = chunk };
	struct vma_tdw *w = vma_tdw_new(&o);

	if (w && vma_mkdat_formats(VMA_MKDAT_VMX, put_format, w) < 0) {
		vma_tdw_free(w);
		return NULL;
	}
	return w;
}

static struct vma_tdw *tdw_kvm(unsigned int version, enum vma_tdw_codec codec, uint32_t cpus)
{
	return tdw_kvm_chunked(version, codec, cpus, 0);
}

/*
 * x86 kvm_entry as the writer's format lays it out: common fields, vcpu_id,
 * rip (scattered, so that chunks do not compress to nothing).
 */
static int kvm_entry(struct vma_tdw *w, uint32_t cpu, uint64_t ts, uint32_t pid, uint32_t vcpu)
{
	unsigned char ev[24] = { 0 };

	vma_tdw_put(ev, 2, 30, false); /* the format's ID */
	vma_tdw_put(ev + 4, 4, pid, false);
	vma_tdw_put(ev + 8, 4, vcpu, false);
	vma_tdw_put(ev + 16, 8, 0xffffffff81000000ull + (ts * 0x9e3779b97f4a7c15ull >> 40),
		    false);
	return vma_tdw_event(w, 0, cpu, ts, ev, sizeof(ev));
}

static int tdw_done(struct vma_tdw *w, unsigned char **img, size_t *len)
{
	int rc = vma_tdw_finish(w, img, len);

	if (rc < 0)
		vma_tdw_free(w);
	return rc;
}

/* Writes @w's file to @path and frees @w.  Return: 0 or -1. */
static int finish_file(struct vma_tdw *w, const char *path)
{
	unsigned char *img;
	size_t len;
	int rc;

	if (tdw_done(w, &img, &len) < 0)
		return -1;
	vma_tdw_free(w);
	rc = write_file(path, img, len);
	free(img);
	return rc;
}

/* Every event from a thread of its own, each far from the others, all vcpu 65535. */
static int mk_kvm_pids(const char *path, uint32_t n)
{
	struct vma_tdw *w = tdw_kvm(6, VMA_TDW_NONE, 1);
	unsigned char *img;
	size_t len;
	uint32_t k;
	int rc = 0;

	if (!w)
		return -1;
	for (k = 0; k < n && k < (1u << 20) && !rc; k++)
		rc = kvm_entry(w, 0, 1000000 + 1000ull * k, 100000 + k * 2000, 65535);
	if (rc || tdw_done(w, &img, &len) < 0)
		return -1;
	vma_tdw_free(w);
	rc = write_file(path, img, len);
	free(img);
	return rc;
}

/* A v7 file with a few events on each of @cpus cpus, the writer's layout. */
static struct vma_tdw *small_v7(enum vma_tdw_codec codec, uint32_t cpus, unsigned char **img,
				size_t *len)
{
	struct vma_tdw *w = tdw_kvm(7, codec, cpus);
	uint32_t cpu, k;
	int rc = 0;

	if (!w)
		return NULL;
	for (cpu = 0; cpu < cpus; cpu++) {
		for (k = 0; k < 2000 && !rc; k++)
			rc = kvm_entry(w, cpu, 1000000 + 1000ull * k + cpu, 4000 + cpu, cpu);
	}
	if (rc || tdw_done(w, img, len) < 0)
		return NULL;
	return w;
}

/*
 * Each cpu's first chunk replaced by a zstd frame of 64 MiB of zeros (a few
 * KiB), padded to the chunk's old size with a skippable frame, its declared
 * expanded size set to match.
 */
static int mk_chunk_bomb(const char *path, uint32_t n)
{
	const size_t usize = 64u << 20;
	unsigned char *img, *zeros = calloc(1, usize), *frame = NULL;
	size_t len, cap = ZSTD_compressBound(usize), flen;
	struct vma_tdw *w = small_v7(VMA_TDW_ZSTD, n, &img, &len);
	uint32_t cpu;
	int rc = -1;

	if (!w || !zeros || !(frame = malloc(cap)))
		goto out;
	flen = ZSTD_compress(frame, cap, zeros, usize, 1);
	if (ZSTD_isError(flen))
		goto out;
	for (cpu = 0; cpu < n; cpu++) {
		uint64_t off, size;
		uint32_t csize;

		if (vma_tdw_cpu_data(w, 0, cpu, &off, &size) < 0 || off + 12 > len)
			goto out;
		/* the run: u32 chunk count, then per chunk u32 csize, u32 usize, data */
		memcpy(&csize, img + off + 4, 4);
		if (csize < flen + 8 || off + 12 + csize > len) {
			fprintf(stderr, "vmalyze-mkbad: cpu %u: a chunk of %u bytes cannot hold a"
				" frame of %zu\n", cpu, csize, flen);
			goto out;
		}
		memcpy(img + off + 12, frame, flen);
		vma_tdw_put(img + off + 12 + flen, 4, 0x184D2A50u, false);
		vma_tdw_put(img + off + 12 + flen + 4, 4, csize - flen - 8, false);
		memset(img + off + 12 + flen + 8, 0, csize - flen - 8);
		vma_tdw_put(img + off + 8, 4, usize, false);
	}
	rc = write_file(path, img, len);
out:
	if (w) {
		vma_tdw_free(w);
		free(img);
	}
	free(zeros);
	free(frame);
	return rc;
}

/* Where the @n bytes of @key first lie in @img, or @len when nowhere. */
static size_t find_bytes(const unsigned char *img, size_t len, const unsigned char *key,
			 size_t n)
{
	size_t at;

	for (at = 0; at + n <= len; at++) {
		if (!memcmp(img + at, key, n))
			return at;
	}
	return len;
}

/* The BUFFER option's {cpu, offset, size} of cpu 0, with size 2^64-1. */
static int mk_buffer_wrap(const char *path, uint32_t n)
{
	unsigned char *img, key[20];
	uint64_t off, size;
	size_t len, at;
	struct vma_tdw *w = small_v7(VMA_TDW_NONE, 2, &img, &len);
	int rc = -1;

	if (!w)
		return -1;
	if (vma_tdw_cpu_data(w, 0, 0, &off, &size) < 0)
		goto out;
	vma_tdw_put(key, 4, 0, false);
	vma_tdw_put(key + 4, 8, off, false);
	vma_tdw_put(key + 12, 8, size, false);
	at = find_bytes(img, len, key, sizeof(key));
	if (at < len) {
		vma_tdw_put(img + at + 12, 8, UINT64_MAX, false);
		rc = write_file(path, img, len);
	}
out:
	vma_tdw_free(w);
	free(img);
	return rc;
}

static int mk_options_far(const char *path, uint32_t n)
{
	unsigned char *img;
	size_t len, at;
	struct vma_tdw *w = small_v7(VMA_TDW_NONE, 2, &img, &len);
	int rc;

	(void)n;
	if (!w)
		return -1;
	/* magic, version "7", 6 bytes, compression name and version, then the offset */
	at = 10 + strlen((char *)img + 10) + 1 + 6;
	at += strlen((char *)img + at) + 1;
	at += strlen((char *)img + at) + 1;
	vma_tdw_put(img + at, 8, 1ull << 40, false);
	rc = write_file(path, img, len);
	vma_tdw_free(w);
	free(img);
	return rc;
}

/*
 * A v6 file of 2 cpus whose flyrecord pair for cpu 0 says its data run past
 * 2^64 (@overlap false), or lie where cpu 1's do (@overlap true).
 */
static int v6_cpu_pair(const char *path, bool overlap)
{
	struct vma_tdw *w = tdw_kvm(6, VMA_TDW_NONE, 2);
	uint64_t off0, size0, off1, size1;
	unsigned char *img, key[16];
	uint32_t cpu, k;
	size_t len, at;
	int rc = 0;

	if (!w)
		return -1;
	for (cpu = 0; cpu < 2; cpu++) {
		for (k = 0; k < 300 && !rc; k++)
			rc = kvm_entry(w, cpu, 1000000 + 1000ull * k + cpu, 4000 + cpu, cpu);
	}
	if (rc || tdw_done(w, &img, &len) < 0)
		return -1;
	rc = -1;
	if (vma_tdw_cpu_data(w, 0, 0, &off0, &size0) < 0 ||
	    vma_tdw_cpu_data(w, 0, 1, &off1, &size1) < 0)
		goto out;
	vma_tdw_put(key, 8, off0, false);
	vma_tdw_put(key + 8, 8, size0, false);
	at = find_bytes(img, len, key, sizeof(key));
	if (at < len) {
		vma_tdw_put(img + at, 8, overlap ? off1 : off0, false);
		vma_tdw_put(img + at + 8, 8, overlap ? size1 : UINT64_MAX, false);
		rc = write_file(path, img, len);
	}
out:
	vma_tdw_free(w);
	free(img);
	return rc;
}

static int mk_v6_size_wrap(const char *path, uint32_t n)
{
	return v6_cpu_pair(path, false);
}

static int mk_v6_overlap(const char *path, uint32_t n)
{
	return v6_cpu_pair(path, true);
}

/* Pages whose commit word is 0: they hold no event. */
static int mk_commit0(const char *path, uint32_t n)
{
	struct vma_tdw *w = tdw_kvm(6, VMA_TDW_NONE, 2);
	unsigned char *img;
	uint64_t off, size, p;
	uint32_t cpu, k;
	size_t len;
	int rc = 0;

	if (!w)
		return -1;
	for (cpu = 0; cpu < 2; cpu++) {
		for (k = 0; k < n && !rc; k++)
			rc = kvm_entry(w, cpu, 1000000 + 1000ull * k, 4000 + cpu, cpu);
	}
	if (rc || tdw_done(w, &img, &len) < 0)
		return -1;
	for (cpu = 0; cpu < 2 && !rc; cpu++) {
		rc = vma_tdw_cpu_data(w, 0, cpu, &off, &size);
		for (p = off; !rc && p + PAGE <= off + size && p + PAGE <= len; p += PAGE)
			memset(img + p + 8, 0, 8); /* commit: a long of 8 bytes after the time stamp */
	}
	vma_tdw_free(w);
	if (!rc)
		rc = write_file(path, img, len);
	free(img);
	return rc;
}

/*
 * @n cpus, each with @events events of its own vcpu thread (145 fill a
 * page), in chunks of @chunk pages when compressed.
 */
static int many_cpus(const char *path, uint32_t n, uint32_t events, unsigned int version,
		     enum vma_tdw_codec codec, uint32_t chunk)
{
	struct vma_tdw *w = tdw_kvm_chunked(version, codec, n, chunk);
	uint32_t cpu, k;
	int rc = w ? 0 : -1;

	for (cpu = 0; cpu < n && !rc; cpu++) {
		for (k = 0; k < events && !rc; k++)
			rc = kvm_entry(w, cpu, 1000000 + 1000ull * k + cpu, 4000 + cpu, cpu);
	}
	if (rc) {
		vma_tdw_free(w);
		return -1;
	}
	return finish_file(w, path);
}

/* @n cpus of 40 kvm_entry, the 26th 2,000 bytes long (the fields, then zeros). */
static int long_events(const char *path, uint32_t n, unsigned int version,
		       enum vma_tdw_codec codec)
{
	struct vma_tdw *w = tdw_kvm(version, codec, n);
	static unsigned char ev[2000];
	uint32_t cpu, k;
	uint64_t ts;
	int rc = w ? 0 : -1;

	for (cpu = 0; cpu < n && !rc; cpu++) {
		for (k = 0; k < 40 && !rc; k++) {
			ts = 1000000 + 1000ull * k + cpu;
			if (k != 25) {
				rc = kvm_entry(w, cpu, ts, 4000 + cpu, cpu);
				continue;
			}
			vma_tdw_put(ev, 2, 30, false);
			vma_tdw_put(ev + 4, 4, 4000 + cpu, false);
			vma_tdw_put(ev + 8, 4, cpu, false);
			vma_tdw_put(ev + 16, 8, 0xffffffff81000000ull + cpu, false);
			rc = vma_tdw_event(w, 0, cpu, ts, ev, sizeof(ev));
		}
	}
	if (rc) {
		vma_tdw_free(w);
		return -1;
	}
	return finish_file(w, path);
}

static int mk_cpus_8k_long(const char *path, uint32_t n)
{
	return long_events(path, n, 6, VMA_TDW_NONE);
}

static int mk_cpus_8k_long_zstd(const char *path, uint32_t n)
{
	return long_events(path, n, 7, VMA_TDW_ZSTD);
}

static int mk_cpus_8k(const char *path, uint32_t n)
{
	return many_cpus(path, n, 20, 6, VMA_TDW_NONE, 0);
}

static int mk_cpus_8k_full(const char *path, uint32_t n)
{
	return many_cpus(path, n, 145, 6, VMA_TDW_NONE, 0);
}

static int mk_cpus_8k_zstd(const char *path, uint32_t n)
{
	return many_cpus(path, n, 145, 7, VMA_TDW_ZSTD, 0);
}

static int mk_cpus_1k_chunks(const char *path, uint32_t n)
{
	return many_cpus(path, n, 1450, 7, VMA_TDW_ZSTD, 10);
}

/* A record of event @id, a kvm_exit's size, zeros but its id and pid. */
static int other_event(struct vma_tdw *w, uint32_t cpu, uint64_t ts, unsigned int id)
{
	unsigned char ev[64] = { 0 };

	vma_tdw_put(ev, 2, id, false);
	vma_tdw_put(ev + 4, 4, 4000, false);
	return vma_tdw_event(w, 0, cpu, ts, ev, sizeof(ev));
}

/*
 * @n kvm_exit formats (each a reader wants) that crash libtraceevent (sound
 * ones: @crash false), and a few events.
 */
static int kvm_exit_formats(const char *path, uint32_t n, bool crash)
{
	struct vma_tdw *w = tdw_kvm(6, VMA_TDW_NONE, 1);
	char text[4096];
	uint32_t k;
	int rc = w ? 0 : -1;

	for (k = 0; k < n && k < 60000 && !rc; k++) {
		rc = vma_mkdat_crashing_format(text, sizeof(text), "kvm_exit", 1000 + k, crash) < 0 ||
		     vma_tdw_format(w, "kvm", text) < 0;
	}
	for (k = 0; k < 100 && !rc; k++)
		rc = kvm_entry(w, 0, 1000000 + 1000ull * k, 4000, 0);
	if (rc) {
		vma_tdw_free(w);
		return -1;
	}
	return finish_file(w, path);
}

static int mk_format_crashes(const char *path, uint32_t n)
{
	return kvm_exit_formats(path, n, true);
}

/* @n sound formats of events kvm_x0... (none a reader wants), a record of each. */
static int mk_formats_dumped(const char *path, uint32_t n)
{
	struct vma_tdw *w = tdw_kvm(6, VMA_TDW_NONE, 1);
	char text[4096], name[32];
	uint32_t k;
	int rc = w ? 0 : -1;

	for (k = 0; k < n && k < 30000 && !rc; k++) {
		snprintf(name, sizeof(name), "kvm_x%u", k);
		rc = vma_mkdat_crashing_format(text, sizeof(text), name, 1000 + k, false) < 0 ||
		     vma_tdw_format(w, "kvm", text) < 0;
	}
	for (k = 0; k < n && k < 30000 && !rc; k++)
		rc = other_event(w, 0, 1000000 + 1000ull * k, 1000 + k);
	if (rc) {
		vma_tdw_free(w);
		return -1;
	}
	return finish_file(w, path);
}

static int mk_formats_wanted(const char *path, uint32_t n)
{
	return kvm_exit_formats(path, n, false);
}

/*
 * @n kvm_entry records; half-way one of kvm_bogus (ID 900), at three
 * quarters one of kvm_later (901): neither is an event the reader wants,
 * so each format is parsed when its record comes, the first crashing
 * libtraceevent when @crash.
 */
static int format_mid(const char *path, uint32_t n, bool crash)
{
	struct vma_tdw *w = tdw_kvm(6, VMA_TDW_NONE, 1);
	char bogus[4096], later[4096];
	uint32_t k;
	int rc = !w ||
		 vma_mkdat_crashing_format(bogus, sizeof(bogus), "kvm_bogus", 900, crash) < 0 ||
		 vma_mkdat_crashing_format(later, sizeof(later), "kvm_later", 901, false) < 0 ||
		 vma_tdw_format(w, "kvm", bogus) < 0 || vma_tdw_format(w, "kvm", later) < 0;

	for (k = 0; k < n && k < (1u << 20) && !rc; k++) {
		uint64_t ts = 1000000 + 1000ull * k;

		rc = kvm_entry(w, 0, ts, 4000, 0) < 0 ||
		     (k == n / 2 && other_event(w, 0, ts + 1, 900) < 0) ||
		     (k == n / 4 * 3 && other_event(w, 0, ts + 1, 901) < 0);
	}
	if (rc) {
		vma_tdw_free(w);
		return -1;
	}
	return finish_file(w, path);
}

static int mk_format_crash_mid(const char *path, uint32_t n)
{
	return format_mid(path, n, true);
}

static int mk_format_sound_mid(const char *path, uint32_t n)
{
	return format_mid(path, n, false);
}

static struct vma_tdw *few_events_with(const struct vma_tdw_opts *o);

/* A v6 file (v7 zstd with compressed metadata: @v7) with a few kvm_entry on cpu 0. */
static struct vma_tdw *few_events(bool v7)
{
	struct vma_tdw_opts o = { .version = v7 ? 7 : 6, .codec = v7 ? VMA_TDW_ZSTD : VMA_TDW_NONE,
				  .nr_cpus = 1, .compress_meta = v7 };

	return few_events_with(&o);
}

/* A file of options @o with a few kvm_entry on cpu 0. */
static struct vma_tdw *few_events_with(const struct vma_tdw_opts *o)
{
	struct vma_tdw *w = vma_tdw_new(o);
	uint32_t k;

	if (!w || vma_mkdat_formats(VMA_MKDAT_VMX, put_format, w) < 0) {
		vma_tdw_free(w);
		return NULL;
	}
	for (k = 0; k < 100; k++) {
		if (kvm_entry(w, 0, 1000000 + 1000ull * k, 4000, 0) < 0) {
			vma_tdw_free(w);
			return NULL;
		}
	}
	return w;
}

static int mk_cmdlines_many(const char *path, uint32_t n)
{
	struct vma_tdw *w = few_events(false);
	uint32_t k;
	int rc = w ? 0 : -1;

	for (k = 0; k < n && !rc; k++)
		rc = vma_tdw_cmdline(w, 10 + k, "t");
	if (rc) {
		vma_tdw_free(w);
		return -1;
	}
	return finish_file(w, path);
}

static int mk_cmdline_bomb(const char *path, uint32_t n)
{
	struct vma_tdw *w = few_events(true);
	uint64_t k, lines = (uint64_t)(n < 1024 ? n : 1024) << 18; /* 4 bytes each */
	int rc = w ? 0 : -1;

	for (k = 0; k < lines && !rc; k++)
		rc = vma_tdw_cmdline(w, 1, "a");
	if (rc) {
		vma_tdw_free(w);
		return -1;
	}
	return finish_file(w, path);
}

static int mk_formats_many(const char *path, uint32_t n)
{
	struct vma_tdw *w = few_events(false);
	char text[64], sys[16];
	uint32_t k;
	int rc = w ? 0 : -1;

	for (k = 0; k < n && k < (1u << 24) && !rc; k++) {
		snprintf(sys, sizeof(sys), "s%u", k / 100000);
		snprintf(text, sizeof(text), "name: e%u\nID: %u\n", k, 1000 + k);
		rc = vma_tdw_format(w, sys, text);
	}
	if (rc) {
		vma_tdw_free(w);
		return -1;
	}
	return finish_file(w, path);
}

/* "name: eK" and "ID: 1000+K": the smallest text a reader keeps as a format. */
static int tiny_format(int dirfd, const char *name, uint32_t k)
{
	char text[64];
	int len = snprintf(text, sizeof(text), "name: e%u\nID: %u\n", k, 1000 + k);
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int ok = fd >= 0 && write(fd, text, (size_t)len) == len;

	if (fd < 0 && errno == EEXIST)
		return 0; /* made by an earlier run: a folder grows by its new files only */
	if (fd >= 0 && close(fd) != 0)
		ok = 0;
	if (!ok)
		perror(name);
	return ok ? 0 : -1;
}

static int formats_folder(const char *path, uint32_t n, bool tree)
{
	char name[64];
	uint32_t k;
	int dirfd, rc = 0;

	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		perror(path);
		return -1;
	}
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		perror(path);
		return -1;
	}
	for (k = 0; k < n && !rc; k++) {
		if (!tree) {
			snprintf(name, sizeof(name), "s%u.e%u.format", k / 10000, k);
			rc = tiny_format(dirfd, name, k);
			continue;
		}
		snprintf(name, sizeof(name), "s%u", k / 10000);
		if (k % 10000 == 0 && mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST)
			rc = -1;
		snprintf(name, sizeof(name), "s%u/e%u", k / 10000, k);
		if (!rc && mkdirat(dirfd, name, 0755) < 0 && errno != EEXIST)
			rc = -1;
		snprintf(name, sizeof(name), "s%u/e%u/format", k / 10000, k);
		if (!rc)
			rc = tiny_format(dirfd, name, k);
	}
	if (rc)
		perror(path);
	close(dirfd);
	return rc;
}

static int mk_formats_dir(const char *path, uint32_t n)
{
	return formats_folder(path, n, false);
}

static int mk_formats_tree(const char *path, uint32_t n)
{
	return formats_folder(path, n, true);
}

/* @n zero bytes compressed with zstd: a tar with no member is 10 KiB of them. */
static int zstd_zeros(const char *path, size_t n)
{
	unsigned char *zeros = calloc(1, n ? n : 1), *z = malloc(ZSTD_compressBound(n));
	size_t len = zeros && z ? ZSTD_compress(z, ZSTD_compressBound(n), zeros, n, 3) : 0;
	int rc = zeros && z && !ZSTD_isError(len) ? write_file(path, z, len) : -1;

	free(zeros);
	free(z);
	return rc;
}

static int mk_empty_tar_zst(const char *path, uint32_t n)
{
	return zstd_zeros(path, 10240);
}

static int mk_empty_zst(const char *path, uint32_t n)
{
	return zstd_zeros(path, 0);
}

/* @mib MiB of kallsyms lines, in a file of @version, compressed (v7: with zstd) or not. */
static int kallsyms_big(const char *path, uint32_t mib, unsigned int version, bool compress)
{
	struct vma_tdw_opts o = { .version = version, .nr_cpus = 1,
				  .codec = compress ? VMA_TDW_ZSTD : VMA_TDW_NONE,
				  .compress_meta = compress };
	size_t len = (size_t)(mib < 1024 ? mib : 1024) << 20, at = 0;
	char *text = malloc(len + 64);
	struct vma_tdw *w;
	uint32_t k = 0;
	int rc;

	if (!text)
		return -1;
	while (at < len)
		at += (size_t)sprintf(text + at, "ffffffff%08x T sym_%u\n", k * 16, k), k++;
	o.kallsyms = text;
	w = few_events_with(&o);
	rc = w ? finish_file(w, path) : -1;
	free(text);
	return rc;
}

static int mk_kallsyms_v6(const char *path, uint32_t n)
{
	return kallsyms_big(path, n, 6, false);
}

static int mk_kallsyms_v7(const char *path, uint32_t n)
{
	return kallsyms_big(path, n, 7, true);
}

static int mk_kallsyms_v7_plain(const char *path, uint32_t n)
{
	return kallsyms_big(path, n, 7, false);
}

/* An event naming a kernel function (%pS), as the function tracer's do. */
static const char func_format[] =
	"name: func_call\n"
	VMA_MKDAT_COMMON_FIELDS(900)
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"%pS\", (void *)REC->ip\n";

/*
 * The largest kallsyms read (@mib MiB, at most 16) of the shortest lines,
 * out of order, and events naming functions, so that the dump builds the
 * whole table: v7, zstd, compressed sections.
 */
static int mk_kallsyms_lookup(const char *path, uint32_t mib)
{
	struct vma_tdw_opts o = { .version = 7, .nr_cpus = 1, .codec = VMA_TDW_ZSTD,
				  .compress_meta = true };
	size_t len = (size_t)(mib < 16 ? mib : 16) << 20, at;
	char *text = malloc(len + 1);
	unsigned char ev[16] = { 0 };
	struct vma_tdw *w = NULL;
	uint32_t k;
	int rc = -1;

	if (!text)
		return -1;
	for (at = 0; at + 6 <= len; at += 6)
		memcpy(text + at, (at / 6) & 1 ? "8 T s\n" : "3 t s\n", 6);
	text[at] = '\0';
	o.kallsyms = text;
	w = vma_tdw_new(&o);
	if (w && vma_tdw_format(w, "vmatest", func_format) == 0) {
		vma_tdw_put(ev, 2, 900, false);
		vma_tdw_put(ev + 4, 4, 1, false);
		for (k = 0, rc = 0; k < 100 && !rc; k++) {
			vma_tdw_put(ev + 8, 8, k % 10, false);
			rc = vma_tdw_event(w, 0, 0, 1000000 + 1000ull * k, ev, sizeof(ev));
		}
	}
	if (rc || !w)
		vma_tdw_free(w);
	else
		rc = finish_file(w, path); /* which reads the text, and frees w */
	free(text);
	return rc ? -1 : 0;
}

/* Runstate records alternating between pcpu 1 (early) and pcpu 0 (10^13 cycles later). */
static int skewed(const char *path, uint32_t mib, size_t window)
{
	struct vma_xtw_options o = { .window_bytes = window };
	FILE *f = fopen(path, "wb");
	struct vma_xtw *w = f ? vma_xtw_new_stream(f, &o) : NULL;
	uint64_t i, n = ((uint64_t)mib << 20) / 16;
	int rc = w ? 0 : -1;

	for (i = 0; i < n && !rc; i++) {
		uint32_t pcpu = (uint32_t)(i & 1), word = 1u << 16 | pcpu;
		uint64_t tsc = (pcpu ? 0 : 10000000000000ull) + 1000 + 100 * i;

		/* d1vN running -> runnable: a 16-byte record */
		rc = vma_xtw_record(w, pcpu, RUNSTATE_CHANGE | 0 << 8 | 1 << 4, tsc, &word, 1);
		if (!rc && window == VMA_XTW_MIN_WINDOW)
			rc = vma_xtw_flush_pcpu(w, pcpu);
	}
	if (!rc)
		rc = vma_xtw_finish(w);
	vma_xtw_free(w);
	if (f && fclose(f) != 0)
		rc = -1;
	if (rc)
		perror(path);
	return rc ? -1 : 0;
}

static int mk_skewed(const char *path, uint32_t n)
{
	return skewed(path, n, 32u << 10);
}

static int mk_skewed_tiny(const char *path, uint32_t n)
{
	return skewed(path, n, VMA_XTW_MIN_WINDOW);
}

/*
 * A writer whose file starts at @tsc with d1v0 running on pcpu 0, d2v0 on
 * pcpu 1, and six quiet pcpus their idle vcpus, so that records go ahead
 * of a merge of 4 streams or more; *@rc the writer's status.  NULL: out
 * of memory.
 */
static struct vma_xtw *two_guests_and_idle(uint64_t tsc, int *rc)
{
	const uint32_t to_running = RUNSTATE_CHANGE | 1 << 8 | 0 << 4;
	struct vma_xtw *w = vma_xtw_new_memory(NULL);
	uint32_t i, d1v0 = 1u << 16, d2v0 = 2u << 16;

	if (!w)
		return NULL;
	*rc = vma_xtw_record(w, 0, to_running, tsc, &d1v0, 1);
	if (!*rc)
		*rc = vma_xtw_record(w, 1, to_running, tsc + 1, &d2v0, 1);
	for (i = 2; i < 8 && !*rc; i++) {
		uint32_t idle = 0x7fffu << 16 | i;

		*rc = vma_xtw_record(w, i, to_running, tsc + i, &idle, 1);
	}
	return w;
}

/*
 * Two pcpus, each running an HVM vcpu, N exits and entries taking turns
 * (and six quiet ones, each its idle vcpu).  @flips (cross-runstate): now
 * and then pcpu 1 says that pcpu 0's vcpu went runnable and back (a change
 * Xen makes on the vcpu's own pcpu, which vmalyze warns of once, here
 * before any exit): the change closes the vcpu's open exit early, so pcpu
 * 0's records stamped after it must not be folded before it.  @nested
 * (late-warning): pcpu 0's one nested exit halfway.  @sched (few-ahead):
 * records of the credit2 scheduler after each exit, on either pcpu.
 */
static int turns(const char *path, uint32_t n, bool flips, bool nested, uint32_t sched)
{
	const uint32_t vmexit = 0x00081002u, vmentry = 0x00081001u;
	const uint32_t nested_exit = vmexit | 0x400u; /* TRC_HVM_NESTEDFLAG */
	const uint32_t to_running = RUNSTATE_CHANGE | 1 << 8 | 0 << 4;
	const uint32_t to_runnable = RUNSTATE_CHANGE | 0 << 8 | 1 << 4;
	uint32_t i, k, d1v0 = 1u << 16;
	uint64_t tsc = 1000;
	int rc;
	struct vma_xtw *w = two_guests_and_idle(tsc, &rc);

	if (!w)
		return -1;
	for (i = 0; i < n && !rc; i++) {
		uint32_t exit[2] = { 1 + i % 3, 0x1000 + i };

		tsc += 100;
		if (flips && i % 50 == 0) {
			rc = vma_xtw_record(w, 1, to_runnable, tsc - 40, &d1v0, 1);
			if (!rc)
				rc = vma_xtw_record(w, 1, to_running, tsc - 39, &d1v0, 1);
		}
		if (nested && i == n / 2 && !rc)
			rc = vma_xtw_record(w, 0, nested_exit, tsc - 50, exit, 2);
		if (!rc)
			rc = vma_xtw_record(w, i & 1, vmexit, tsc, exit, 2);
		if (!rc)
			rc = vma_xtw_record(w, i & 1, vmentry, tsc + 30 + i % 7, NULL, 0);
		/* before the next turn's flip, stamped 60 after this exit */
		for (k = 0; k < sched && !rc; k++)
			rc = vma_xtw_record(w, k & 1, CREDIT2_EVENT, tsc + 40 + 2 * k, &i, 1);
	}
	return xt_done(w, rc, path);
}

static int mk_cross_runstate(const char *path, uint32_t n)
{
	return turns(path, n, true, false, 0);
}

/*
 * Xen 4.17 writes SVM's exits and VMX's under one id: the vendor is known
 * at the first exit of a code VMX has not.  Until then pcpu 1's interrupt
 * records are read as VMX's (their vector the key), after it as SVM's (no
 * vector), where pcpu 0 tells it halfway through, while pcpu 1's records
 * stamped after it may be out ahead of the merge.  A record of the credit2
 * scheduler on pcpu 0 between pcpu 1's exits puts those past their run,
 * so that they go ahead after the run's warm-up, before pcpu 0 tells.
 */
static int mk_late_vendor(const char *path, uint32_t n)
{
	const uint32_t vmexit = 0x00081002u, vmentry = 0x00081001u, intr = 0x0008200fu;
	uint64_t tsc = 1000;
	uint32_t i;
	int rc;
	struct vma_xtw *w = two_guests_and_idle(tsc, &rc);

	if (!w)
		return -1;
	for (i = 0; i < n && !rc; i++) {
		uint32_t exit[2] = { 1, 0x1000 + i }, vector = 0x20 + i % 8;

		tsc += 100;
		if (i == n / 2) {
			uint32_t svm_intr[2] = { 0x60, 0x2000 };

			rc = vma_xtw_record(w, 0, vmexit, tsc - 50, svm_intr, 2);
			if (!rc)
				rc = vma_xtw_record(w, 0, vmentry, tsc - 40, NULL, 0);
		}
		if (!rc)
			rc = vma_xtw_record(w, 1, vmexit, tsc, exit, 2);
		if (!rc)
			rc = vma_xtw_record(w, 1, intr, tsc + 5, &vector, 1);
		if (!rc)
			rc = vma_xtw_record(w, 1, vmentry, tsc + 30, NULL, 0);
		if (!rc)
			rc = vma_xtw_record(w, 0, CREDIT2_EVENT, tsc + 60, &i, 1);
	}
	return xt_done(w, rc, path);
}

/*
 * A clean file whose one message comes halfway, from a record the merge
 * takes in order (a nested exit: shown, warned of once, not analysed),
 * while records of the other pcpu are out ahead of it.
 */
static int mk_late_warning(const char *path, uint32_t n)
{
	return turns(path, n, false, true, 0);
}

/*
 * The turns of late-warning, each exit among 8 records of the credit2
 * scheduler (its event 1) on either pcpu, which the merge takes in order:
 * a fifth of the records could go ahead of it, the run gives up taking
 * any once 65,536 are read.
 */
static int mk_few_ahead(const char *path, uint32_t n)
{
	return turns(path, n, false, false, 8);
}

int main(int argc, char **argv)
{
	/* Each kind with the count its default N scales (0: not scalable). */
	static const struct {
		const char *kind;
		int (*make)(const char *path, uint32_t n);
		uint32_t n;
	} kinds[] = {
		{ "vcpu-ffff", mk_vcpu_ffff, 4096 },        /* domains */
		{ "pcpu-far", mk_pcpu_far, 3000 },          /* records */
		{ "idle-domains", mk_idle_domains, 512 },   /* domains */
		{ "only-headers", mk_only_headers, 100000 }, /* window headers */
		{ "headers-1m", mk_headers_1m, (1u << 20) - 1 }, /* pcpus */
		{ "pcpus-20k", mk_pcpus_20k, 20000 },       /* pcpus */
		{ "worst-xen", mk_worst_xen, 4096 },        /* pcpus */
		{ "exit-codes", mk_exit_codes, 8000 },      /* vcpus */
		{ "pv-numbers", mk_pv_numbers, 8000 },      /* vcpus */
		{ "kvm-pids", mk_kvm_pids, 2000 },          /* threads */
		{ "chunk-bomb", mk_chunk_bomb, 8 },         /* cpus */
		{ "buffer-wrap", mk_buffer_wrap, 0 },
		{ "options-far", mk_options_far, 0 },
		{ "v6-size-wrap", mk_v6_size_wrap, 0 },
		{ "v6-overlap", mk_v6_overlap, 0 },
		{ "commit0", mk_commit0, 400 },             /* events per cpu */
		{ "cpus-8k", mk_cpus_8k, 8192 },            /* cpus */
		{ "cpus-8k-full", mk_cpus_8k_full, 8192 },  /* cpus */
		{ "cpus-8k-zstd", mk_cpus_8k_zstd, 8192 },  /* cpus */
		{ "cpus-1k-chunks", mk_cpus_1k_chunks, 1024 }, /* cpus */
		{ "cpus-8k-long", mk_cpus_8k_long, 8192 },  /* cpus */
		{ "cpus-8k-long-zstd", mk_cpus_8k_long_zstd, 8192 }, /* cpus */
		{ "pcpu-renamed", mk_pcpu_renamed, 0 },
		{ "format-crashes", mk_format_crashes, 2000 }, /* formats */
		{ "formats-wanted", mk_formats_wanted, 8000 }, /* formats */
		{ "formats-dumped", mk_formats_dumped, 8000 }, /* formats */
		{ "format-crash-mid", mk_format_crash_mid, 400 }, /* records */
		{ "format-sound-mid", mk_format_sound_mid, 400 }, /* records */
		{ "cmdlines-many", mk_cmdlines_many, 1000000 }, /* command lines */
		{ "cmdline-bomb", mk_cmdline_bomb, 64 },       /* MiB */
		{ "formats-many", mk_formats_many, 1000000 },  /* formats */
		{ "formats-dir", mk_formats_dir, 40000 },      /* files */
		{ "formats-tree", mk_formats_tree, 40000 },    /* event folders */
		{ "empty-tar-zst", mk_empty_tar_zst, 0 },
		{ "empty-zst", mk_empty_zst, 0 },
		{ "kallsyms-v6", mk_kallsyms_v6, 17 },          /* MiB */
		{ "kallsyms-v7", mk_kallsyms_v7, 17 },          /* MiB */
		{ "kallsyms-v7-plain", mk_kallsyms_v7_plain, 17 }, /* MiB */
		{ "kallsyms-lookup", mk_kallsyms_lookup, 16 },  /* MiB */
		{ "skewed", mk_skewed, 256 },                  /* MiB */
		{ "skewed-tiny", mk_skewed_tiny, 256 },        /* MiB */
		{ "cross-runstate", mk_cross_runstate, 20000 }, /* steps */
		{ "late-vendor", mk_late_vendor, 20000 },      /* exits */
		{ "late-warning", mk_late_warning, 20000 },    /* exits */
		{ "few-ahead", mk_few_ahead, 20000 },          /* exits */
	};
	unsigned long n = 0;
	char *end;
	size_t i;

	if (argc == 4) {
		n = strtoul(argv[3], &end, 10);
		if (*end || n == 0 || n > UINT32_MAX)
			argc = 0;
	}
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: vmalyze-mkbad KIND FILE [N]\n");
		return 1;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(argv[1], kinds[i].kind))
			continue;
		if (n && !kinds[i].n) {
			fprintf(stderr, "vmalyze-mkbad: %s has no size to change\n", argv[1]);
			return 1;
		}
		if (kinds[i].make(argv[2], n ? (uint32_t)n : kinds[i].n) < 0) {
			fprintf(stderr, "vmalyze-mkbad: cannot make %s\n", argv[1]);
			return 1;
		}
		return 0;
	}
	fprintf(stderr, "vmalyze-mkbad: unknown kind %s\n", argv[1]);
	return 1;
}
