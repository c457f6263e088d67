/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host+guest pair of kvm-pair.h.  Host events use the KVM scenario's
 * formats (kvm-scenario.h); the guest's sched_wakeup format is this
 * file's.  Every time below is host time in microseconds after T0; the
 * guest's events are written at host time - OFFSET, which its TIME_SHIFT
 * sample adds back.
 *
 *   host thread 3000 (vcpu 0)            guest cpu 0
 *     0 kvm_entry
 *                                          10 wake 100 rt-task (sched_waking;
 *                                             sched_wakeup 1 us later each time)
 *    20 kvm_exit EPT_MISCONFIG
 *    22 kvm_mmio write 0xfe000000
 *    25 kvm_userspace_exit (MMIO)
 *    45 kvm_entry
 *                                          60 run 100
 *                                         100 wake 101 worker
 *   150 switched out runnable, to stress
 *   350 switched back in
 *                                         400 run 101
 *                                         500 wake 100 rt-task
 *   520 kvm_exit HLT
 *   530 switched out asleep (in HLT)
 *   650 switched back in
 *   660 kvm_entry
 *                                         700 run 100
 *                                         800 wake 102 short
 *                                         802 run 102
 *   900 kvm_exit EXTERNAL_INTERRUPT
 *   901 kvm_entry
 */
#include <stdlib.h>
#include <string.h>

#include "kvm-pair.h"
#include "kvm-scenario.h"
#include "tracedat-writer.h"

#define T0 1000000000ull              /* ns: the first record */
#define US(x) (T0 + (uint64_t)(x) * 1000u)
#define OFFSET 250000000ll            /* host = guest + OFFSET */
#define HOST_ID 0x6000000000000001ull
#define GUEST_ID 0x6000000000000002ull
#define VCPU_TID 3000u
#define STRESS_TID 4000u
#define PERIOD 1000000ull             /* ns: a repetition's (vma_pair_build_repeated()) */

#define MMIO_CAUSE "exit EPT_MISCONFIG mmio 0xfe000000"

static const struct vma_pair_wakeup wakeups[] = {
	{ US(10), US(60), 100, "rt-task",
	  { { "guest", 25000 }, { "VMM", 20000 }, { MMIO_CAUSE, 5000 } } },
	{ US(100), US(400), 101, "worker",
	  { { "preempted by stress", 200000 }, { "guest", 100000 } } },
	{ US(500), US(700), 100, "rt-task", { { "halted", 140000 }, { "guest", 60000 } } },
	{ US(800), US(802), 102, "short", { { "guest", 2000 } } },
};

static const struct vma_pair_share thread_total[] = {
	{ "guest", 535000 }, { "preempted by stress", 200000 }, { "halted", 140000 },
	{ "VMM", 20000 }, { MMIO_CAUSE, 5000 }, { "exit EXTERNAL_INTERRUPT", 1000 },
};

/* sched_waking and sched_wakeup share the kernel's layout; only name and id differ. */
#define WAKE_FORMAT(name, id)                                                           \
	"name: " name "\n" VMA_MKDAT_COMMON_FIELDS(id)                                   \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"                      \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"                          \
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"                           \
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"                     \
	"\n"                                                                            \
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid,"   \
	" REC->prio, REC->target_cpu\n"

#define ID_WAKEUP 301
#define ID_WAKING 302
static const char fmt_wakeup[] = WAKE_FORMAT("sched_wakeup", 301);
static const char fmt_waking[] = WAKE_FORMAT("sched_waking", 302);

/* Event ids of the scenario's formats, read from their "ID:" lines. */
struct ids {
	struct vma_tdw *w;
	unsigned entry, exit, mmio, user_exit, sched_switch;
	int failed;
};

static int put_format(void *arg, const char *system, const char *name, const char *text)
{
	struct ids *ids = arg;
	const char *id = strstr(text, "ID: ");
	unsigned n = id ? (unsigned)strtoul(id + 4, NULL, 10) : 0;

	if (!system)
		return 0; /* header_page and header_event: the writer has its own */
	if (!strcmp(name, "kvm_entry"))
		ids->entry = n;
	else if (!strcmp(name, "kvm_exit"))
		ids->exit = n;
	else if (!strcmp(name, "kvm_mmio"))
		ids->mmio = n;
	else if (!strcmp(name, "kvm_userspace_exit"))
		ids->user_exit = n;
	else if (!strcmp(name, "sched_switch"))
		ids->sched_switch = n;
	return ids->w ? vma_tdw_format(ids->w, system, text) : 0;
}

static void ev(struct ids *ids, uint64_t ns, const unsigned char *data, uint32_t len)
{
	if (vma_tdw_event(ids->w, 0, 0, ns, data, len) < 0)
		ids->failed = 1;
}

static void head(unsigned char *e, unsigned id, uint32_t pid)
{
	vma_tdw_put(e, 2, id, false);
	vma_tdw_put(e + 4, 4, pid, false);
}

static void entry(struct ids *ids, uint64_t ns)
{
	unsigned char e[24] = { 0 };

	head(e, ids->entry, VCPU_TID);
	vma_tdw_put(e + 16, 8, 0xffffffff81000000ull, false);
	ev(ids, ns, e, sizeof(e));
}

static void exit_(struct ids *ids, uint64_t ns, uint32_t reason)
{
	unsigned char e[64] = { 0 };

	head(e, ids->exit, VCPU_TID);
	vma_tdw_put(e + 8, 4, reason, false);
	vma_tdw_put(e + 16, 8, 0xffffffff81000100ull, false);
	vma_tdw_put(e + 24, 4, 1, false); /* VMX */
	ev(ids, ns, e, sizeof(e));
}

static void sched_switch(struct ids *ids, uint64_t ns, uint32_t prev, const char *pcomm,
			 uint32_t state, uint32_t next, const char *ncomm)
{
	unsigned char e[64] = { 0 };

	head(e, ids->sched_switch, prev);
	memcpy(e + 8, pcomm, strlen(pcomm));
	vma_tdw_put(e + 24, 4, prev, false);
	vma_tdw_put(e + 28, 4, 120, false);
	vma_tdw_put(e + 32, 8, state, false);
	memcpy(e + 40, ncomm, strlen(ncomm));
	vma_tdw_put(e + 56, 4, next, false);
	vma_tdw_put(e + 60, 4, 120, false);
	ev(ids, ns, e, sizeof(e));
}

static int build_host(unsigned char **out, size_t *len, uint32_t times)
{
	struct vma_tdw_opts o = { .version = 7, .nr_cpus = 1, .trace_id = HOST_ID };
	struct ids ids = { .w = vma_tdw_new(&o) };
	unsigned char e[32] = { 0 };
	uint32_t pid = VCPU_TID, r;
	int rc = -1;

	if (!ids.w || vma_mkdat_formats(VMA_MKDAT_VMX, put_format, &ids) < 0 ||
	    vma_tdw_cmdline(ids.w, VCPU_TID, "CPU 0/KVM") < 0 ||
	    vma_tdw_cmdline(ids.w, STRESS_TID, "stress") < 0 ||
	    vma_tdw_guest(ids.w, "vm1", GUEST_ID, 1, &pid) < 0)
		goto out;
	for (r = 0; r < times && !ids.failed; r++) {
		uint64_t at = (uint64_t)r * PERIOD;

		entry(&ids, at + US(0));
		exit_(&ids, at + US(20), 49);                 /* EPT_MISCONFIG */
		memset(e, 0, sizeof(e));
		head(e, ids.mmio, VCPU_TID);
		vma_tdw_put(e + 8, 4, 2, false);              /* a write */
		vma_tdw_put(e + 12, 4, 4, false);
		vma_tdw_put(e + 16, 8, 0xfe000000u, false);
		ev(&ids, at + US(22), e, 32);
		memset(e, 0, sizeof(e));
		head(e, ids.user_exit, VCPU_TID);
		vma_tdw_put(e + 8, 4, 6, false);              /* KVM_EXIT_MMIO */
		ev(&ids, at + US(25), e, 16);
		entry(&ids, at + US(45));
		sched_switch(&ids, at + US(150), VCPU_TID, "CPU 0/KVM", 0, STRESS_TID, "stress");
		sched_switch(&ids, at + US(350), STRESS_TID, "stress", 1, VCPU_TID, "CPU 0/KVM");
		exit_(&ids, at + US(520), 12);                /* HLT */
		sched_switch(&ids, at + US(530), VCPU_TID, "CPU 0/KVM", 1, 0, "swapper/0");
		sched_switch(&ids, at + US(650), 0, "swapper/0", 0, VCPU_TID, "CPU 0/KVM");
		entry(&ids, at + US(660));
		exit_(&ids, at + US(900), 1);                 /* EXTERNAL_INTERRUPT */
		entry(&ids, at + US(901));
	}
	if (!ids.failed)
		rc = vma_tdw_finish(ids.w, out, len);
out:
	vma_tdw_free(ids.w);
	return rc;
}

static void wake(struct ids *ids, unsigned id, uint64_t host_ns, uint32_t pid,
		 const char *comm)
{
	unsigned char e[40] = { 0 };

	head(e, id, 0);
	memcpy(e + 8, comm, strlen(comm));
	vma_tdw_put(e + 24, 4, pid, false);
	vma_tdw_put(e + 28, 4, 120, false);
	vma_tdw_put(e + 32, 4, 0, false);             /* target cpu 0 */
	ev(ids, host_ns - OFFSET, e, sizeof(e));
}

static int build_guest(unsigned char **out, size_t *len, uint32_t times)
{
	struct vma_tdw_opts o = { .version = 7, .nr_cpus = 1, .trace_id = GUEST_ID };
	struct ids ids = { .w = vma_tdw_new(&o) };
	size_t i;
	uint32_t r;
	int rc = -1;

	/* the scenario's formats (its sched_switch among them) and sched_wakeup */
	if (!ids.w || vma_tdw_format(ids.w, "sched", fmt_wakeup) < 0 ||
	    vma_tdw_format(ids.w, "sched", fmt_waking) < 0 ||
	    vma_mkdat_formats(VMA_MKDAT_VMX, put_format, &ids) < 0 ||
	    vma_tdw_time_shift(ids.w, HOST_ID, OFFSET) < 0)
		goto out;
	for (i = 0; i < sizeof(wakeups) / sizeof(wakeups[0]); i++)
		vma_tdw_cmdline(ids.w, wakeups[i].pid, wakeups[i].comm);
	for (r = 0; r < times && !ids.failed; r++) {
		uint64_t at = (uint64_t)r * PERIOD;

		for (i = 0; i < sizeof(wakeups) / sizeof(wakeups[0]); i++) {
			const struct vma_pair_wakeup *w = &wakeups[i];

			/* the wait starts at sched_waking; sched_wakeup follows 1 us later */
			wake(&ids, ID_WAKING, at + w->start, w->pid, w->comm);
			wake(&ids, ID_WAKEUP, at + w->start + 1000, w->pid, w->comm);
			sched_switch(&ids, at + w->end - OFFSET, 0, "swapper/0", 0, w->pid,
				     w->comm);
		}
	}
	if (!ids.failed)
		rc = vma_tdw_finish(ids.w, out, len);
out:
	vma_tdw_free(ids.w);
	return rc;
}

int vma_pair_build(unsigned char **host, size_t *host_len, unsigned char **guest,
		   size_t *guest_len, struct vma_pair_truth *truth)
{
	return vma_pair_build_repeated(host, host_len, guest, guest_len, truth, 1);
}

int vma_pair_build_repeated(unsigned char **host, size_t *host_len, unsigned char **guest,
			    size_t *guest_len, struct vma_pair_truth *truth, uint32_t times)
{
	*host = *guest = NULL;
	if (!times || build_host(host, host_len, times) < 0 ||
	    build_guest(guest, guest_len, times) < 0) {
		free(*host);
		*host = NULL;
		return -1;
	}
	*truth = (struct vma_pair_truth){
		.host_tid = VCPU_TID,
		.guest_offset = OFFSET,
		.wakeups = wakeups,
		.nr_wakeups = sizeof(wakeups) / sizeof(wakeups[0]),
		.thread = thread_total,
		.nr_thread = sizeof(thread_total) / sizeof(thread_total[0]),
		.first = US(0),
		.last = US(901),
	};
	return 0;
}
