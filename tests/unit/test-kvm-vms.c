/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * KVM VMs in the state model (src/state/kvm-vms.c, kvm-window.c) on the
 * traces/kvm fixtures: vcpu threads with their ids and names, how each
 * VM's threads were grouped, the GUEST option's name, and the 1 ms figures
 * bounded (with and without halt exits).
 */
#include "test-kvm-util.h"
#include "vmalyze/pipeline.h"

#define MS 1000000ull

struct run {
	struct vma_diag *diag;
	struct vma_pipeline *p;
	const struct vma_machine *m;
};

static void run(struct run *r, const char *name, const char *formats)
{
	struct vma_pipeline_options o = { .input = { .event_formats_dir = formats } };

	r->diag = vma_diag_create(VMA_DEFAULT_TOLERANCE, VMA_VERB_QUIET);
	cr_assert_not_null(r->diag);
	cr_assert_eq(vma_pipeline_open(kt_fixture(name), &o, r->diag, &r->p), VMA_OK);
	cr_assert_geq(vma_pipeline_run(r->p, NULL), 0);
	r->m = vma_pipeline_machine(r->p);
}

static void done(struct run *r)
{
	vma_pipeline_close(r->p);
	vma_diag_destroy(r->diag);
}

static const struct vma_vcpu *vcpu(const struct vma_domain *d, uint32_t i)
{
	cr_assert_lt(i, d->nr_vcpus);
	cr_assert_not_null(d->vcpus[i]);
	return d->vcpus[i];
}

/* Every KVM VM: at most its vcpus x 1 ms, every vcpu at most 1 ms; halt-free no more. */
static void bounded(const struct vma_machine *m)
{
	uint32_t i, j, n;

	for (i = 0; i < m->nr_domains; i++) {
		const struct vma_domain *d = m->domains[i];

		for (j = 0, n = 0; j < d->nr_vcpus; j++) {
			const struct vma_vcpu *v = d->vcpus[j];

			if (!v || !v->kvm_tid)
				continue;
			n++;
			if (!v->latency) /* no exit closed: no window */
				continue;
			cr_assert_leq(v->latency->all.max_window, MS);
			cr_assert_leq(v->latency->nohalt.max_window, v->latency->all.max_window);
		}
		if (!d->latency)
			continue;
		cr_assert_gt(n, 0, "VM %u: a window but no vcpu thread", d->did);
		cr_assert_leq(d->latency->all.max_window, n * MS, "VM %u", d->did);
		cr_assert_leq(d->latency->nohalt.max_window, d->latency->all.max_window);
	}
}

Test(kvm_vms, guest_option_names_the_vm_and_its_threads)
{
	struct run r;
	const struct vma_domain *d;

	run(&r, "vmx-v7-zlib-tsc.dat", NULL);
	d = r.m->domains[0];
	cr_assert_eq(d->did, 0);
	cr_assert_eq(d->kvm.grouping, VMA_KVM_GROUP_GUEST);
	cr_assert_str_eq(d->kvm.name, "fixture-guest");
	cr_assert_eq(vcpu(d, 0)->kvm_tid, 2000);
	cr_assert_str_eq(vcpu(d, 0)->kvm_comm, "CPU 0/KVM");
	cr_assert_eq(vcpu(d, 1)->kvm_tid, 2001);
	cr_assert_str_eq(vcpu(d, 1)->kvm_comm, "CPU 1/KVM");
	bounded(r.m);
	done(&r);
}

Test(kvm_vms, one_vm_is_grouped_by_vcpu_ids)
{
	char formats[4096];
	struct run r;

	snprintf(formats, sizeof(formats), "%s", kt_fixture("vmx-raw-formats"));
	run(&r, "vmx-raw.bin", formats);
	cr_assert_eq(r.m->domains[0]->kvm.grouping, VMA_KVM_GROUP_VCPU_IDS);
	cr_assert_eq(vcpu(r.m->domains[0], 0)->kvm_tid, 2000);
	cr_assert_str_eq(r.m->domains[0]->kvm.name, "");
	bounded(r.m);
	done(&r);
}

Test(kvm_vms, arm64_threads_are_a_guess)
{
	struct run r;

	run(&r, "arm64-v7.dat", NULL);
	cr_assert_eq(r.m->domains[0]->kvm.grouping, VMA_KVM_GROUP_HEURISTIC);
	bounded(r.m);
	/* WFx exits are halts: without them a vcpu's window holds less */
	cr_assert_lt(vcpu(r.m->domains[0], 0)->latency->nohalt.exits,
		     vcpu(r.m->domains[0], 0)->latency->all.exits);
	done(&r);
}
