/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmalyze-mkdat: writes small, deterministic KVM trace.dat files (v6, v7
 * plain, zlib or zstd) or vm-trace raw dumps, for fixtures and bug reports.
 * The same options always give the same bytes; --summary prints what the
 * file holds, so a fixture's README can state what a reader must find.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kvm-pair.h"
#include "kvm-scenario.h"
#include "xen-guest.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vmalyze-mkdat [options] -o FILE\n"
		"  --arch vmx|svm|arm64     kvm_exit/kvm_entry layout (default vmx)\n"
		"  --version 6|7            trace.dat version (default 7)\n"
		"  --compress none|zlib|zstd  v7 compression (default none)\n"
		"  --cpus N --vcpus N       host cpus and guest vcpus (default 2, 2)\n"
		"  --exits N                kvm_exit per vcpu (default 200)\n"
		"  --seed N                 scenario seed (default 1)\n"
		"  --tsc                    x86-tsc clock with a TSC2NSEC option\n"
		"  --extras                 time extends, a discarded event, an absolute\n"
		"                           stamp, lost events and a second instance\n"
		"  --big-endian             a big-endian file\n"
		"  --raw                    a vm-trace raw dump of cpu 0 (with --cpus 1)\n"
		"  --formats-dir DIR        also write the event format files for --raw\n"
		"  --truncate BYTES         cut the file after BYTES bytes\n"
		"  --summary                print the records per event on stdout\n"
		"  --pair GUEST             instead: the host+guest agent pair of\n"
		"                           tools/kvm-pair.h, -o the host, GUEST the guest;\n"
		"                           prints the --latency truth on stdout\n"
		"  --pair-times N           the pair's scenario N times, every 1 ms\n"
		"  --xen-guest TSC,OFFSET[,MUL/DIV]  instead: a Xen guest's trace.dat\n"
		"                           (tools/xen-guest.h) of --cpus cpus, x86-tsc\n"
		"                           clock, guest TSC = host TSC x MUL/DIV + OFFSET\n"
		"                           from host TSC; prints CPU HOST_TSC per record\n");
}

static int put_format(void *arg, const char *system, const char *name, const char *text)
{
	const char *dir = arg;
	char path[4096];
	FILE *f;
	int ok;

	if (system) {
		snprintf(path, sizeof(path), "%s/%s.%s.format", dir, system, name);
	} else {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	}
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "vmalyze-mkdat: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ok = fputs(text, f) >= 0;
	ok &= fclose(f) == 0;
	return ok ? 0 : -1;
}

static void summary(const struct vma_mkdat_rec *recs, size_t n)
{
	static const struct {
		uint32_t id;
		const char *name;
	} ids[] = {
		{ VMA_KVM_EXIT, "kvm_exit" },
		{ VMA_KVM_ENTRY, "kvm_entry" },
		{ VMA_KVM_PIO, "kvm_pio" },
		{ VMA_KVM_MMIO, "kvm_mmio" },
		{ VMA_KVM_MSR, "kvm_msr" },
		{ VMA_KVM_USERSPACE_EXIT, "kvm_userspace_exit" },
		{ VMA_KVM_SCHED_SWITCH, "sched_switch" },
		{ VMA_KVM_OTHER, "kvm_apic" },
		{ VMA_KVM_LOST, "(lost events)" },
	};
	size_t i, k;

	printf("records %zu\n", n);
	for (k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		size_t c = 0;

		for (i = 0; i < n; i++)
			c += recs[i].event == ids[k].id;
		if (c)
			printf("%-20s %zu\n", ids[k].name, c);
	}
}

static int write_file(const char *path, const unsigned char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "vmalyze-mkdat: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* --xen-guest: the file, and the host TSC of each record. */
static int write_xen_guest(const char *out, const char *spec, uint32_t nr_cpus)
{
	struct vma_xguest_opts o = { .nr_cpus = nr_cpus };
	unsigned long long tsc;
	long long off;
	struct vma_xguest_rec *r;
	unsigned char *file;
	size_t len, n, i;
	int rc, used = 0;

	if (sscanf(spec, "%llu,%lld%n,%u/%u%n", &tsc, &off, &used, &o.mul, &o.div, &used) < 2 ||
	    spec[used] || (o.mul && !o.div)) {
		usage(stderr);
		return 1;
	}
	o.host_tsc = tsc;
	o.offset = off;
	if (vma_xguest_build(&o, &file, &len, &r, &n) < 0) {
		fprintf(stderr, "vmalyze-mkdat: cannot build the Xen guest\n");
		return 1;
	}
	rc = write_file(out, file, len);
	free(file);
	for (i = 0; rc == 0 && i < n; i++)
		printf("%u %llu\n", r[i].cpu, (unsigned long long)r[i].host_tsc);
	free(r);
	return rc ? 1 : 0;
}

/*
 * --pair: the two files, and their truth: a line per wake-up and cause
 * (the first of @times, then no thread line: it is of one time).
 */
static int write_pair(const char *host, const char *guest, uint32_t times)
{
	struct vma_pair_truth t;
	unsigned char *h, *g;
	size_t hl, gl, i, k;
	int rc;

	if (vma_pair_build_repeated(&h, &hl, &g, &gl, &t, times) < 0) {
		fprintf(stderr, "vmalyze-mkdat: cannot build the pair\n");
		return 1;
	}
	rc = write_file(host, h, hl) || write_file(guest, g, gl);
	free(h);
	free(g);
	if (rc)
		return 1;
	printf("# wakeup START_NS LATENCY_NS PID COMM, then CAUSE NS per cause; host thread %u\n",
	       t.host_tid);
	for (i = 0; i < t.nr_wakeups; i++) {
		const struct vma_pair_wakeup *w = &t.wakeups[i];

		printf("wakeup %llu %llu %u %s\n", (unsigned long long)w->start,
		       (unsigned long long)(w->end - w->start), w->pid, w->comm);
		for (k = 0; k < VMA_PAIR_MAX_CAUSES && w->split[k].cause; k++) {
			printf("  %s\t%llu\n", w->split[k].cause,
			       (unsigned long long)w->split[k].ns);
		}
	}
	if (times > 1)
		return 0;
	printf("thread %u %llu\n", t.host_tid, (unsigned long long)(t.last - t.first));
	for (k = 0; k < t.nr_thread; k++)
		printf("  %s\t%llu\n", t.thread[k].cause, (unsigned long long)t.thread[k].ns);
	return 0;
}

/* What the command line asks for. */
struct mkdat_cli {
	struct vma_mkdat_opts o;
	const char *out, *fdir, *pair, *xen_guest;
	unsigned long long cut;
	uint32_t pair_times;
	bool summary;
};

/* @text among @names (NULL-ended): its index, or -1. */
static int pick(const char *text, const char *const *names)
{
	int i;

	for (i = 0; names[i]; i++) {
		if (!strcmp(text, names[i]))
			return i;
	}
	return -1;
}

/* One option into @cli.  Return: 0, or -1 when its argument is not one of its words. */
static int take_option(struct mkdat_cli *cli, int c, const char *arg)
{
	/* In the order of enum vma_mkdat_arch and of the codecs below. */
	static const char *const archs[] = { "vmx", "svm", "arm64", NULL };
	static const char *const codecs[] = { "none", "zlib", "zstd", NULL };
	static const enum vma_tdw_codec codec_ids[] = { VMA_TDW_NONE, VMA_TDW_ZLIB, VMA_TDW_ZSTD };
	static const enum vma_mkdat_arch arch_ids[] = { VMA_MKDAT_VMX, VMA_MKDAT_SVM,
							VMA_MKDAT_ARM64 };
	struct vma_mkdat_opts *o = &cli->o;
	int k;

	switch (c) {
	case 'a':
		k = pick(arg, archs);
		if (k < 0)
			return -1;
		o->arch = arch_ids[k];
		break;
	case 'c':
		k = pick(arg, codecs);
		if (k < 0)
			return -1;
		o->codec = codec_ids[k];
		break;
	case 'V':
		o->version = (unsigned int)strtoul(arg, NULL, 10);
		break;
	case 'C':
		o->nr_cpus = (uint32_t)strtoul(arg, NULL, 10);
		break;
	case 'v':
		o->nr_vcpus = (uint32_t)strtoul(arg, NULL, 10);
		break;
	case 'e':
		o->exits = (uint32_t)strtoul(arg, NULL, 10);
		break;
	case 's':
		o->seed = (uint32_t)strtoul(arg, NULL, 10);
		break;
	case 't':
		o->tsc = true;
		break;
	case 'x':
		o->extras = true;
		break;
	case 'b':
		o->big_endian = true;
		break;
	case 'r':
		o->raw = true;
		break;
	case 'f':
		cli->fdir = arg;
		break;
	case 'T':
		cli->cut = strtoull(arg, NULL, 10);
		break;
	case 'S':
		cli->summary = true;
		break;
	case 'P':
		cli->pair = arg;
		break;
	case 'R':
		cli->pair_times = (uint32_t)strtoul(arg, NULL, 10);
		break;
	case 'X':
		cli->xen_guest = arg;
		break;
	case 'o':
		cli->out = arg;
		break;
	default:
		return -1;
	}
	return 0;
}

/* Return: 0, 1 for --help (printed), or -1 after the usage on stderr. */
static int parse_args(struct mkdat_cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, 'a' },
		{ "version", required_argument, NULL, 'V' },
		{ "compress", required_argument, NULL, 'c' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "exits", required_argument, NULL, 'e' },
		{ "seed", required_argument, NULL, 's' },
		{ "tsc", no_argument, NULL, 't' },
		{ "extras", no_argument, NULL, 'x' },
		{ "big-endian", no_argument, NULL, 'b' },
		{ "raw", no_argument, NULL, 'r' },
		{ "formats-dir", required_argument, NULL, 'f' },
		{ "truncate", required_argument, NULL, 'T' },
		{ "summary", no_argument, NULL, 'S' },
		{ "pair", required_argument, NULL, 'P' },
		{ "pair-times", required_argument, NULL, 'R' },
		{ "xen-guest", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (take_option(cli, c, optarg) < 0) {
			usage(stderr);
			return -1;
		}
	}
	if (!cli->out || optind != argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* The scenario's file (cut to --truncate), its --formats-dir and --summary. */
static int write_scenario(const struct mkdat_cli *cli)
{
	struct vma_mkdat_rec *recs;
	unsigned char *file;
	size_t len, nrec;
	int rc = 1;

	if (vma_mkdat_build(&cli->o, &file, &len, &recs, &nrec) < 0) {
		fprintf(stderr, "vmalyze-mkdat: cannot build this scenario (check the options)\n");
		return 1;
	}
	if (cli->cut && cli->cut < len)
		len = (size_t)cli->cut;
	if (write_file(cli->out, file, len) < 0)
		goto out;
	if (cli->fdir && (mkdir(cli->fdir, 0777) < 0 && errno != EEXIST)) {
		fprintf(stderr, "vmalyze-mkdat: %s: %s\n", cli->fdir, strerror(errno));
		goto out;
	}
	if (cli->fdir && vma_mkdat_formats(cli->o.arch, put_format, (void *)cli->fdir) < 0)
		goto out;
	if (cli->summary)
		summary(recs, nrec);
	rc = 0;
out:
	free(file);
	free(recs);
	return rc;
}

int main(int argc, char **argv)
{
	struct mkdat_cli cli = { .o = { .version = 7, .seed = 1 } };
	int rc = parse_args(&cli, argc, argv);

	if (rc)
		return rc < 0 ? 1 : 0;
	if (cli.pair)
		return write_pair(cli.out, cli.pair, cli.pair_times ? cli.pair_times : 1);
	if (cli.xen_guest)
		return write_xen_guest(cli.out, cli.xen_guest, cli.o.nr_cpus);
	return write_scenario(&cli);
}
