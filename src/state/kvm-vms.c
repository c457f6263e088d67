/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * KVM VMs as processes, at the end of the trace: how the vcpu threads of
 * each VM were known to belong together, the threads' names and the VMM's
 * (doc/kvm.md), and what the trace could not tell, said once.
 *
 * A VMM's threads inherit its name until they rename themselves (QEMU
 * calls its vcpu threads "CPU n/KVM"), and its main thread's id is the
 * process id, just below the ids of the threads it starts.  So the VMM is
 * looked for among the threads with ids just below the VM's first vcpu
 * thread: one named like a known VMM, or named as its vcpu threads are.
 */
#include <stdio.h>
#include <string.h>

#include "vmalyze/diag.h"
#include "vmalyze/kvm-events.h"
#include "vmalyze/state-handlers.h"

/* How far below its first vcpu thread a VMM's main thread is looked for. */
#define VMM_NEAR 64u

static const char *const vmm_names[] = {
	"qemu", "kvm", "crosvm", "firecracker", "cloud-hypervis", "lkvm", "vmm",
};

static bool known_vmm(const char *comm)
{
	size_t i;

	for (i = 0; i < sizeof(vmm_names) / sizeof(vmm_names[0]); i++) {
		if (!strncmp(comm, vmm_names[i], strlen(vmm_names[i])))
			return true;
	}
	return false;
}

static const char *thread_name(const struct vma_machine *m, uint32_t pid)
{
	return m->options.thread_name ? m->options.thread_name(m->options.thread_name_arg, pid)
		: NULL;
}

static bool is_kvm_vm(const struct vma_domain *d)
{
	uint32_t i;

	for (i = 0; i < d->nr_vcpus; i++) {
		if (d->vcpus[i] && d->vcpus[i]->kvm_tid)
			return true;
	}
	return false;
}

/* True when @tid is the host thread of some vcpu of some VM. */
static bool is_vcpu_thread(const struct vma_machine *m, uint32_t tid)
{
	uint32_t i, j;

	for (i = 0; i < m->nr_domains; i++) {
		const struct vma_domain *d = m->domains[i];

		for (j = 0; j < d->nr_vcpus; j++) {
			if (d->vcpus[j] && d->vcpus[j]->kvm_tid == tid)
				return true;
		}
	}
	return false;
}

/*
 * The VMM of @d: its pid and name when some thread below its vcpus fits.
 * A vcpu thread is never a VMM's main thread (which starts them), though
 * it may carry the VMM's name until it renames itself: with no other
 * candidate the VMM stays unknown.
 */
static void find_vmm(const struct vma_machine *m, struct vma_domain *d)
{
	const char *shared = NULL;
	uint32_t first = UINT32_MAX, i, pid;

	for (i = 0; i < d->nr_vcpus; i++) {
		const struct vma_vcpu *v = d->vcpus[i];

		if (!v || !v->kvm_tid)
			continue;
		if (v->kvm_tid < first)
			first = v->kvm_tid;
		if (!v->kvm_comm[0] || (shared && strcmp(shared, v->kvm_comm)))
			shared = "";
		else if (!shared)
			shared = v->kvm_comm;
	}
	for (pid = first - 1; pid > 0 && first - pid <= VMM_NEAR; pid--) {
		const char *name = thread_name(m, pid);

		if (name && !is_vcpu_thread(m, pid) && (known_vmm(name) ||
							(shared && *shared &&
							 !strcmp(name, shared)))) {
			d->kvm.vmm_pid = pid;
			snprintf(d->kvm.vmm_comm, sizeof(d->kvm.vmm_comm), "%s", name);
			return;
		}
	}
}

static const char *grouping_name(enum vma_kvm_grouping g)
{
	switch (g) {
	case VMA_KVM_GROUP_GUEST:
		return "the trace's GUEST option";
	case VMA_KVM_GROUP_VCPU_IDS:
		return "vcpu ids (one VM)";
	case VMA_KVM_GROUP_HEURISTIC:
		return "nearby thread ids (a guess)";
	case VMA_KVM_GROUP_NONE:
		break;
	}
	return "nothing";
}

/* -v: what was found for @d. */
static void tell(struct vma_machine *m, const struct vma_domain *d)
{
	char line[1024], vmm[VMA_KVM_COMM_LEN + 32] = "VMM unknown";
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < d->nr_vcpus && n < sizeof(line) - 64; i++) {
		const struct vma_vcpu *v = d->vcpus[i];

		if (v && v->kvm_tid) {
			n += (size_t)snprintf(line + n, sizeof(line) - n,
					      "%s vcpu %u = thread %u%s%s%s", n ? "," : "",
					      v->vid, v->kvm_tid, v->kvm_comm[0] ? " (" : "",
					      v->kvm_comm, v->kvm_comm[0] ? ")" : "");
		}
	}
	if (d->kvm.vmm_pid)
		snprintf(vmm, sizeof(vmm), "VMM %s (pid %u)", d->kvm.vmm_comm, d->kvm.vmm_pid);
	vma_diag_info(m->diag, "KVM VM %u%s%s%s: %s; grouped by %s;%s", d->did,
		      d->kvm.name[0] ? " \"" : "", d->kvm.name, d->kvm.name[0] ? "\"" : "",
		      vmm, grouping_name(d->kvm.grouping), line);
}

void vma_kvm_finish(struct vma_machine *m)
{
	uint32_t vms = 0, i, j;
	uint64_t exits, switches;

	for (i = 0; i < m->nr_domains; i++)
		vms += is_kvm_vm(m->domains[i]);
	for (i = 0; i < m->nr_domains; i++) {
		struct vma_domain *d = m->domains[i];
		bool guest = false, arm = false;

		if (!is_kvm_vm(d))
			continue;
		for (j = 0; j < d->nr_vcpus; j++) {
			struct vma_vcpu *v = d->vcpus[j];
			const char *name;

			if (!v || !v->kvm_tid)
				continue;
			guest |= v->kvm_guest_mapped;
			arm |= v->type == VMA_VCPU_ARM;
			/* the last name sched_switch saw, else the saved one */
			if (!v->kvm_comm[0] && (name = thread_name(m, v->kvm_tid)))
				snprintf(v->kvm_comm, sizeof(v->kvm_comm), "%s", name);
		}
		d->kvm.grouping = guest ? VMA_KVM_GROUP_GUEST
			: !arm && vms == 1 ? VMA_KVM_GROUP_VCPU_IDS : VMA_KVM_GROUP_HEURISTIC;
		find_vmm(m, d);
		tell(m, d);
	}
	exits = m->nr_kvm_counts > VMA_KVM_EXIT - VMA_ID_KVM_BASE
		? m->kvm_counts[VMA_KVM_EXIT - VMA_ID_KVM_BASE] : 0;
	switches = m->nr_kvm_counts > VMA_KVM_SCHED_SWITCH - VMA_ID_KVM_BASE
		? m->kvm_counts[VMA_KVM_SCHED_SWITCH - VMA_ID_KVM_BASE] : 0;
	if (exits && !switches) {
		vma_diag_report(m->diag, VMA_LVL_WARN, NULL, UINT64_MAX,
				"no sched_switch events in this trace: exit times include any"
				" time the host preempted a vcpu thread inside an exit; record"
				" sched:sched_switch too (trace-cmd record -e sched:sched_switch)");
	}
}
