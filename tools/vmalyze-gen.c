/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vmalyze-gen: writes a consistent xentrace file of a simulated Xen host,
 * and optionally a "truth" file saying what a correct analyzer must report
 * for it.  The output depends only on the options (--seed included), so
 * tests and benchmarks can regenerate any trace instead of storing it.
 *
 * This file holds the command line, the setup of the simulated host and
 * the truth file; gen-sim.c simulates, gen-observe.c keeps the analyzer's
 * view from which the truth comes.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "vmalyze/status.h"

#define DEFAULT_RING (32u * 4096u - 8u) /* Xen's default 32-page buffer, less its header */

static const char *const rs_names[GEN_NR_RS] = {
	"running", "runnable", "blocked", "offline", "lost",
};

static const char *const vendor_names[] = { "vmx", "svm", "svm-4.17" };

static void usage(FILE *f)
{
	fputs("Usage: vmalyze-gen [OPTION]...\n"
	      "Write the xentrace file of a simulated Xen host, and its ground truth.\n"
	      "\n"
	      "  --seed N           random seed; same options, same bytes (default 1)\n"
	      "  --pcpus N          physical cpus (default 4)\n"
	      "  --domains N        guest domains besides dom0 (default 2)\n"
	      "  --vcpus N          vcpus per guest domain (default 2)\n"
	      "  --dom0-vcpus N     vcpus of dom0, a PV domain (default: --vcpus)\n"
	      "  --pv-domains N     how many of the guests are PV; the last N (default 0)\n"
	      "  --vendor V         vmx, svm (Xen >= 4.19 ids) or svm-4.17 (SVM codes in\n"
	      "                     the common vmexit id) (default vmx)\n"
	      "  --duration SEC     simulated seconds (default 1, unless --size)\n"
	      "  --size BYTES       stop after about BYTES of output; K, M, G suffixes\n"
	      "  --lost N           inject N lost-record gaps on random pcpus\n"
	      "  --no-tsc-ratio F   share of HVM handler records written without time\n"
	      "                     stamp, as Xen writes all of them (default 1)\n"
	      "  --cpu-hz HZ        time stamp frequency (default 2400000000)\n"
	      "  --window BYTES     largest window xentrace writes (default 32K)\n"
	      "  --ring BYTES       Xen's per-cpu ring, for wrap records; 0 = none\n"
	      "                     (default 131064)\n"
	      "  --out FILE         trace file (default standard output, not a terminal)\n"
	      "  --truth FILE       write what a correct analyzer reports\n"
	      "  --shadow           HVM guests use shadow paging: each page-fault exit\n"
	      "                     writes shadow records (fault class, path flags,\n"
	      "                     unpins), as Xen does for guests without EPT/NPT\n"
	      "  --help             this text\n",
	      f);
}

static int parse_u64(const char *s, uint64_t *out, bool suffix)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!s || !*s || *s == '-')
		return -1;
	v = strtoull(s, &end, 0);
	if (errno)
		return -1;
	if (suffix && *end) {
		unsigned int shift = 0;

		switch (*end) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: return -1;
		}
		end++;
		if (v > (UINT64_MAX >> shift))
			return -1;
		v <<= shift;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

static int parse_u32(const char *s, uint32_t *out, bool suffix)
{
	uint64_t v;

	if (parse_u64(s, &v, suffix) || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return (errno || end == s || *end) ? -1 : 0;
}

enum {
	OPT_SEED = 256, OPT_PCPUS, OPT_DOMAINS, OPT_VCPUS, OPT_DOM0_VCPUS, OPT_PV_DOMAINS,
	OPT_VENDOR, OPT_DURATION, OPT_SIZE, OPT_LOST, OPT_NO_TSC, OPT_CPU_HZ, OPT_WINDOW,
	OPT_RING, OPT_OUT, OPT_TRUTH, OPT_SHADOW, OPT_HELP,
};

static const struct option long_options[] = {
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "pcpus", required_argument, NULL, OPT_PCPUS },
	{ "domains", required_argument, NULL, OPT_DOMAINS },
	{ "vcpus", required_argument, NULL, OPT_VCPUS },
	{ "dom0-vcpus", required_argument, NULL, OPT_DOM0_VCPUS },
	{ "pv-domains", required_argument, NULL, OPT_PV_DOMAINS },
	{ "vendor", required_argument, NULL, OPT_VENDOR },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "lost", required_argument, NULL, OPT_LOST },
	{ "no-tsc-ratio", required_argument, NULL, OPT_NO_TSC },
	{ "cpu-hz", required_argument, NULL, OPT_CPU_HZ },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "ring", required_argument, NULL, OPT_RING },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "truth", required_argument, NULL, OPT_TRUTH },
	{ "shadow", no_argument, NULL, OPT_SHADOW },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

struct cli {
	struct gen_options opt;
	uint32_t ring;
	bool dom0_vcpus_set;
	const char *out, *truth;
};

static int bad(const char *opt, const char *arg)
{
	fprintf(stderr, "vmalyze-gen: invalid %s '%s'\n", opt, arg ? arg : "");
	return -1;
}

/* The machine's shape: seed, cpus, domains, vcpus, vendor.  Return: 0, -1, or 1: not one. */
static int take_machine_option(struct cli *c, int ch, const char *arg)
{
	switch (ch) {
	case OPT_SEED:
		if (parse_u64(arg, &c->opt.seed, false))
			return bad("--seed", arg);
		break;
	case OPT_PCPUS:
		if (parse_u32(arg, &c->opt.pcpus, false) || !c->opt.pcpus ||
		    c->opt.pcpus > 32767) {
			return bad("--pcpus", arg);
		}
		break;
	case OPT_DOMAINS:
		if (parse_u32(arg, &c->opt.domains, false) || c->opt.domains > 32000)
			return bad("--domains", arg);
		break;
	case OPT_VCPUS:
		if (parse_u32(arg, &c->opt.vcpus, false) || !c->opt.vcpus ||
		    c->opt.vcpus > 65535) {
			return bad("--vcpus", arg);
		}
		break;
	case OPT_DOM0_VCPUS:
		if (parse_u32(arg, &c->opt.dom0_vcpus, false) || !c->opt.dom0_vcpus ||
		    c->opt.dom0_vcpus > 65535) {
			return bad("--dom0-vcpus", arg);
		}
		c->dom0_vcpus_set = true;
		break;
	case OPT_PV_DOMAINS:
		if (parse_u32(arg, &c->opt.pv_domains, false))
			return bad("--pv-domains", arg);
		break;
	case OPT_VENDOR:
		if (!strcmp(arg, "vmx")) {
			c->opt.vendor = GEN_VMX;
		} else if (!strcmp(arg, "svm")) {
			c->opt.vendor = GEN_SVM;
		} else if (!strcmp(arg, "svm-4.17")) {
			c->opt.vendor = GEN_SVM417;
		} else {
			return bad("--vendor", arg);
		}
		break;
	default:
		return 1;
	}
	return 0;
}

/* How much trace, on what clock, into which files.  Return: 0, -1, or 1: not one. */
static int take_trace_option(struct cli *c, int ch, const char *arg)
{
	switch (ch) {
	case OPT_DURATION:
		if (parse_double(arg, &c->opt.duration) || !(c->opt.duration > 0) ||
		    c->opt.duration > 1e6) {
			return bad("--duration", arg);
		}
		break;
	case OPT_SIZE:
		if (parse_u64(arg, &c->opt.size, true) || !c->opt.size)
			return bad("--size", arg);
		break;
	case OPT_LOST:
		if (parse_u32(arg, &c->opt.lost, false) || c->opt.lost > 1000000)
			return bad("--lost", arg);
		break;
	case OPT_NO_TSC:
		if (parse_double(arg, &c->opt.no_tsc_ratio) || c->opt.no_tsc_ratio < 0 ||
		    c->opt.no_tsc_ratio > 1) {
			return bad("--no-tsc-ratio", arg);
		}
		break;
	case OPT_CPU_HZ:
		if (parse_u64(arg, &c->opt.cpu_hz, false) || c->opt.cpu_hz < 10000000 ||
		    c->opt.cpu_hz > 100000000000ull) {
			return bad("--cpu-hz", arg);
		}
		break;
	case OPT_WINDOW:
		if (parse_u32(arg, &c->opt.window, true) || c->opt.window < 64 ||
		    c->opt.window % 4 || c->opt.window > (1u << 30)) {
			return bad("--window", arg);
		}
		break;
	case OPT_RING:
		if (parse_u32(arg, &c->ring, true) || (c->ring && (c->ring < 64 ||
		    c->ring % 4))) {
			return bad("--ring", arg);
		}
		break;
	case OPT_OUT:
		c->out = arg;
		break;
	case OPT_TRUTH:
		c->truth = arg;
		break;
	case OPT_SHADOW:
		c->opt.shadow = true;
		break;
	default:
		return 1;
	}
	return 0;
}

/* What the options say together; the defaults that depend on several. */
static int check_args(struct cli *c)
{
	if (c->opt.duration > 0 && c->opt.size) {
		fprintf(stderr, "vmalyze-gen: --duration and --size exclude each other\n");
		return -1;
	}
	if (!c->opt.size && !(c->opt.duration > 0))
		c->opt.duration = 1.0;
	if (c->opt.pv_domains > c->opt.domains) {
		fprintf(stderr, "vmalyze-gen: --pv-domains exceeds --domains\n");
		return -1;
	}
	if (!c->dom0_vcpus_set)
		c->opt.dom0_vcpus = c->opt.vcpus;
	if ((uint64_t)c->opt.domains * c->opt.vcpus + c->opt.dom0_vcpus + c->opt.pcpus >
	    (1u << 24)) {
		fprintf(stderr, "vmalyze-gen: too many vcpus\n");
		return -1;
	}
	return 0;
}


/* Return: 0 to run, 1 when --help was answered, -1 on a usage error. */
static int parse_args(int argc, char **argv, struct cli *c)
{
	int ch, rc;

	c->opt = (struct gen_options){
		.seed = 1, .pcpus = 4, .domains = 2, .vcpus = 2, .vendor = GEN_VMX,
		.no_tsc_ratio = 1.0, .cpu_hz = 2400000000ull, .window = 32768,
	};
	c->ring = DEFAULT_RING;
	while ((ch = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
		if (ch == OPT_HELP) {
			usage(stdout);
			return 1;
		}
		rc = take_machine_option(c, ch, optarg);
		if (rc > 0)
			rc = take_trace_option(c, ch, optarg);
		if (rc > 0)
			usage(stderr);
		if (rc)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "vmalyze-gen: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return check_args(c);
}

static void add_vcpu(struct gen *g, uint32_t dom, uint32_t vid, enum gen_kind kind)
{
	struct gen_vcpu *v = &g->vcpus[g->nr_vcpus++];
	uint64_t h = g->opt.seed * 0x9e3779b97f4a7c15ull + dom * 0x10001ull + vid;

	v->dom = (uint16_t)dom;
	v->vid = (uint16_t)vid;
	v->kind = (uint8_t)kind;
	/* One HVM vcpu in five runs in 32-bit mode and writes 32-bit variants. */
	v->is64 = (h ^ (h >> 29)) % 5 != 4;
	v->state = RS_RUNNABLE;
	v->pcpu = GEN_NONE;
	v->view.state = RS_INIT;
	v->view.pcpu = GEN_NONE;
	v->view.vmcall = GEN_NONE;
}

static int build_host(struct gen *g)
{
	const struct gen_options *o = &g->opt;
	uint32_t total = o->pcpus + o->dom0_vcpus + o->domains * o->vcpus;
	uint32_t p, d, v, i;
	int ex;

	g->vcpus = calloc(total, sizeof(*g->vcpus));
	g->pcpus = calloc(o->pcpus, sizeof(*g->pcpus));
	if (!g->vcpus || !g->pcpus)
		return VMA_ERR_NOMEM;
	for (p = 0; p < o->pcpus; p++) {
		add_vcpu(g, GEN_IDLE_DOMAIN, p, GEN_IDLE);
		g->vcpus[p].state = RS_RUNNING;
		g->vcpus[p].pcpu = p;
	}
	for (v = 0; v < o->dom0_vcpus; v++)
		add_vcpu(g, 0, v, GEN_PV);
	for (d = 1; d <= o->domains; d++) {
		enum gen_kind kind = d > o->domains - o->pv_domains ? GEN_PV : GEN_HVM;

		for (v = 0; v < o->vcpus; v++)
			add_vcpu(g, d, v, kind);
	}
	g->view_default = g->nr_vcpus;
	for (p = 0; p < o->pcpus; p++) {
		g->pcpus[p].cur = p;
		g->pcpus[p].idle = p;
		g->pcpus[p].view_cur = g->view_default;
	}
	/* One truth slot per distinct exit code of the vendor, in code order. */
	for (ex = 0; ex < EX_MAX; ex++) {
		uint32_t code = vma_gen_exit_code(o->vendor, (enum gen_exit)ex);

		for (i = 0; i < g->nr_slots && g->slot_code[i] < code; i++) {
		}
		if (i < g->nr_slots && g->slot_code[i] == code)
			continue;
		memmove(&g->slot_code[i + 1], &g->slot_code[i],
			(g->nr_slots - i) * sizeof(g->slot_code[0]));
		g->slot_code[i] = code;
		g->nr_slots++;
	}
	for (ex = 0; ex < EX_MAX; ex++) {
		uint32_t code = vma_gen_exit_code(o->vendor, (enum gen_exit)ex);

		for (i = 0; g->slot_code[i] != code; i++) {
		}
		g->exit_slot[ex] = (uint8_t)i;
	}
	return 0;
}

static void truth_header(FILE *f, int argc, char **argv)
{
	int i;

	fputs("# vmalyze-gen ground truth, format 1.\n"
	      "# What a correct analyzer reports for the trace written with it.  One fact\n"
	      "# per line, space-separated; '#' starts a comment; a count not listed is 0.\n"
	      "#\n"
	      "#   generator ARGS...                 the command line\n"
	      "#   seed N | vendor vmx|svm|svm-4.17 | cpu-hz N | pcpus N\n"
	      "#   domain D hvm|pv|idle vcpus N\n"
	      "#   records N                         records in the file, window headers\n"
	      "#                                     (TRC_TRACE_CPU_CHANGE) not counted\n"
	      "#   pcpu P records N                  the same per pcpu\n"
	      "#   first-tsc N | last-tsc N          smallest and largest time stamp\n"
	      "#   lost-records N                    TRC_LOST_RECORDS records written\n"
	      "#   dropped-records N                 records those gaps dropped\n"
	      "#   vcpu D V runstate S count N cycles C\n"
	      "#                                     S: running runnable blocked offline lost\n"
	      "#   vcpu D V exit CODE count N cycles C\n"
	      "#                                     CODE: VMX exit reason or SVM exit code,\n"
	      "#                                     hex; C: total arc cycles\n"
	      "#   vcpu D V vmcall NR count N cycles C   HVM exits with a VMMCALL handler,\n"
	      "#                                     by hypercall number\n"
	      "#   vcpu D V hypercall NR count N      PV hypercall records, by number\n"
	      "#\n"
	      "# Accounting rules (xenalyze's):\n"
	      "# - Records without a vcpu id (vmexit, vmentry, handlers, hypercalls) belong\n"
	      "#   to the vcpu the last runstate change (or lost record) put on their pcpu.\n"
	      "# - A vcpu's runstate intervals count from its first change into running;\n"
	      "#   each interval ends at the next change.  Where a pcpu's records end, the\n"
	      "#   vcpu it runs enters lost at the pcpu's last time stamp (ending its\n"
	      "#   running interval, dropping its open arc); intervals still open at the\n"
	      "#   end of the trace are not counted.\n"
	      "# - An exit arc runs from a vmexit to the next vmentry of that vcpu.  A\n"
	      "#   change of the vcpu to runnable closes the arc early: time blocked or\n"
	      "#   offline inside the exit (HLT, pause) counts, time waiting runnable\n"
	      "#   does not.  A vmentry with no open arc counts nothing; a vmexit while\n"
	      "#   an arc is open replaces it.\n"
	      "# - A lost-records gap starts at the lost record's first_tsc.  Then the\n"
	      "#   pcpu's vcpu and every vcpu named so far that is not running enter\n"
	      "#   'lost' (a vcpu already lost starts a new lost interval), and so does any\n"
	      "#   non-idle vcpu that stops running while a gap is open.  A lost vcpu ignores\n"
	      "#   changes until it is seen changing to running, or is the vcpu the lost\n"
	      "#   record names (it runs on that pcpu from the record's time stamp).\n"
	      "#   Entering lost discards the vcpu's open exit arc.\n"
	      "#\n",
	      f);
	fputs("generator", f);
	for (i = 1; i < argc; i++)
		fprintf(f, " %s", argv[i]);
	fputc('\n', f);
}

static int write_truth(struct gen *g, const char *path, int argc, char **argv)
{
	static const char *const kind_names[] = { "idle", "hvm", "pv" };
	FILE *f = fopen(path, "w");
	uint64_t total = 0;
	uint32_t p, i, k;

	if (!f) {
		fprintf(stderr, "vmalyze-gen: %s: %s\n", path, strerror(errno));
		return VMA_ERR_OUTPUT;
	}
	truth_header(f, argc, argv);
	fprintf(f, "seed %" PRIu64 "\nvendor %s\ncpu-hz %" PRIu64 "\npcpus %u\n", g->opt.seed,
		vendor_names[g->opt.vendor], g->opt.cpu_hz, g->opt.pcpus);
	for (i = g->opt.pcpus; i < g->nr_vcpus; i++) {
		const struct gen_vcpu *v = &g->vcpus[i];

		if (v->vid == 0) {
			uint32_t n = v->dom ? g->opt.vcpus : g->opt.dom0_vcpus;

			fprintf(f, "domain %u %s vcpus %u\n", v->dom, kind_names[v->kind], n);
		}
	}
	fprintf(f, "domain %u idle vcpus %u\n", GEN_IDLE_DOMAIN, g->opt.pcpus);
	for (p = 0; p < g->opt.pcpus; p++)
		total += vma_xtw_pcpu_records(g->w, p);
	fprintf(f, "records %" PRIu64 "\n", total);
	for (p = 0; p < g->opt.pcpus; p++)
		fprintf(f, "pcpu %u records %" PRIu64 "\n", p, vma_xtw_pcpu_records(g->w, p));
	fprintf(f, "first-tsc %" PRIu64 "\nlast-tsc %" PRIu64 "\n", g->first_tsc, g->last_tsc);
	fprintf(f, "lost-records %" PRIu64 "\ndropped-records %" PRIu64 "\n", g->gaps_done,
		g->dropped);
	/* Guests and dom0 in id order, then the idle domain. */
	for (k = 0; k < g->nr_vcpus; k++) {
		uint32_t vi = k + g->opt.pcpus < g->nr_vcpus ? k + g->opt.pcpus :
			      k + g->opt.pcpus - g->nr_vcpus;
		const struct gen_vcpu *v = &g->vcpus[vi];
		const struct gen_tally *t = &v->tally;
		uint32_t s;

		for (s = 0; s < GEN_NR_RS; s++) {
			if (t->rs_count[s]) {
				fprintf(f, "vcpu %u %u runstate %s count %" PRIu64 " cycles "
										   "%" PRIu64
					"\n", v->dom, v->vid, rs_names[s], t->rs_count[s],
					t->rs_cycles[s]);
			}
		}
		for (s = 0; s < g->nr_slots; s++) {
			if (t->exit_count[s]) {
				fprintf(f, "vcpu %u %u exit 0x%x count %" PRIu64 " cycles %" PRIu64
					"\n", v->dom, v->vid, g->slot_code[s], t->exit_count[s],
					t->exit_cycles[s]);
			}
		}
		for (s = 0; s < GEN_MAX_HCALL; s++) {
			if (t->vmcall_count[s]) {
				fprintf(f, "vcpu %u %u vmcall %u count %" PRIu64 " cycles %" PRIu64
					"\n", v->dom, v->vid, s, t->vmcall_count[s],
					t->vmcall_cycles[s]);
			}
		}
		for (s = 0; s < GEN_MAX_HCALL; s++) {
			if (t->hcall[s]) {
				fprintf(f, "vcpu %u %u hypercall %u count %" PRIu64 "\n", v->dom,
					v->vid, s, t->hcall[s]);
			}
		}
	}
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "vmalyze-gen: %s: write failed\n", path);
		return VMA_ERR_OUTPUT;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = { .out = NULL };
	struct vma_xtw_options wo = { 0 };
	struct gen g;
	FILE *out;
	int ret;

	ret = parse_args(argc, argv, &c);
	if (ret)
		return ret > 0 ? 0 : 1;
	if (!c.out || !strcmp(c.out, "-")) {
		if (isatty(STDOUT_FILENO)) {
			fprintf(stderr, "vmalyze-gen: not writing a binary trace to a terminal; "
				"use --out FILE or a redirection\n");
			return 1;
		}
		out = stdout;
	} else {
		out = fopen(c.out, "wb");
		if (!out) {
			fprintf(stderr, "vmalyze-gen: %s: %s\n", c.out, strerror(errno));
			return 1;
		}
	}
	setvbuf(out, NULL, _IOFBF, 1u << 20);
	memset(&g, 0, sizeof(g));
	g.opt = c.opt;
	ret = build_host(&g);
	if (!ret) {
		wo.window_bytes = g.opt.window;
		wo.flush_all_on_full = true;
		wo.ring_bytes = c.ring;
		g.w = vma_xtw_new_stream(out, &wo);
		ret = g.w ? 0 : VMA_ERR_NOMEM;
	}
	if (!ret)
		ret = vma_gen_run(&g);
	if (!ret)
		ret = vma_xtw_finish(g.w);
	if (out != stdout && fclose(out) && !ret)
		ret = VMA_ERR_OUTPUT;
	if (ret) {
		fprintf(stderr, "vmalyze-gen: %s\n", ret == VMA_ERR_NOMEM ? "out of memory" :
			ret == VMA_ERR_OUTPUT ? "writing the output failed" : "failed");
	} else if (g.nr_anomalies) {
		fprintf(stderr, "vmalyze-gen: internal error: the simulation contradicted its "
			"own analyzer view %" PRIu64 " times; first: %s\n", g.nr_anomalies,
			g.anomaly);
		ret = VMA_ERR_FORMAT;
	} else if (c.truth) {
		ret = write_truth(&g, c.truth, argc, argv);
	}
	vma_xtw_free(g.w);
	free(g.vcpus);
	free(g.pcpus);
	return ret ? 1 : 0;
}
