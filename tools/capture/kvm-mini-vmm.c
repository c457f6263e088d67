// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kvm-mini-vmm: the smallest guest that makes KVM exit for several reasons,
 * for tools/capture/kvm-under-qemu.sh (real KVM SVM kvm_exit events under
 * QEMU's TCG, recorded with trace-cmd).  One vcpu in real mode, no in-kernel
 * irqchip, 64 KiB of memory; its code loops on: port output (an exit to
 * us), cpuid and rdmsr (handled in the kernel), a write to an address with
 * no memory (an MMIO exit to us) and hlt (an exit to us, without irqchip).
 *
 *   kvm-mini-vmm [LOOPS]      (default 2000 turns of the loop)
 *
 * Prints what it saw per exit reason; exit status 0 when every turn ran.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define MEM_SIZE 0x10000u
#define CODE_AT 0x1000u

/*
 * Real-mode code at 0000:1000:
 *   again: mov al, 'k'; out 0x10, al          port I/O
 *          xor eax, eax; cpuid                CPUID
 *          mov ecx, 0x10; rdmsr               RDMSR (the TSC)
 *          mov ax, 0x2000; mov ds, ax
 *          mov byte [0], 0x42                 MMIO at 0x20000 (no memory)
 *          hlt                                HLT
 *          jmp again
 */
static const uint8_t guest_code[] = {
	0xb0, 'k', 0xe6, 0x10,                     /* mov al,'k'; out 0x10,al */
	0x66, 0x31, 0xc0, 0x0f, 0xa2,              /* xor eax,eax; cpuid */
	0x66, 0xb9, 0x10, 0x00, 0x00, 0x00,        /* mov ecx,0x10 */
	0x0f, 0x32,                                /* rdmsr */
	0xb8, 0x00, 0x20, 0x8e, 0xd8,              /* mov ax,0x2000; mov ds,ax */
	0xc6, 0x06, 0x00, 0x00, 0x42,              /* mov byte [0],0x42 */
	0xf4,                                      /* hlt */
	0xeb, 0xe2,                                /* jmp again (-30) */
};

static int fail(const char *what)
{
	fprintf(stderr, "kvm-mini-vmm: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	long loops = argc > 1 ? strtol(argv[1], NULL, 0) : 2000, turns = 0;
	unsigned long counts[64] = { 0 };
	struct kvm_userspace_memory_region region;
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_run *run;
	int kvm, vm, vcpu, run_size, api;
	uint8_t *mem;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		return fail("/dev/kvm");
	api = ioctl(kvm, KVM_GET_API_VERSION, 0);
	fprintf(stderr, "kvm-mini-vmm: KVM API %d\n", api);
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0)
		return fail("KVM_CREATE_VM");
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return fail("mmap");
	memcpy(mem + CODE_AT, guest_code, sizeof(guest_code));
	region = (struct kvm_userspace_memory_region){
		.slot = 0, .guest_phys_addr = 0, .memory_size = MEM_SIZE,
		.userspace_addr = (uintptr_t)mem,
	};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		return fail("KVM_SET_USER_MEMORY_REGION");
	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		return fail("KVM_CREATE_VCPU");
	run_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size <= 0)
		return fail("KVM_GET_VCPU_MMAP_SIZE");
	run = mmap(NULL, (size_t)run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		return fail("mmap kvm_run");
	if (ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0)
		return fail("KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0)
		return fail("KVM_SET_SREGS");
	memset(&regs, 0, sizeof(regs));
	regs.rip = CODE_AT;
	regs.rflags = 2; /* bit 1 is always set */
	if (ioctl(vcpu, KVM_SET_REGS, &regs) < 0)
		return fail("KVM_SET_REGS");

	while (turns < loops) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0) {
			if (errno == EINTR)
				continue;
			return fail("KVM_RUN");
		}
		counts[run->exit_reason < 64 ? run->exit_reason : 63]++;
		switch (run->exit_reason) {
		case KVM_EXIT_IO:
		case KVM_EXIT_MMIO:
			break;
		case KVM_EXIT_HLT:
			turns++;
			break;
		default:
			fprintf(stderr, "kvm-mini-vmm: unexpected exit %u after %ld turns\n",
				run->exit_reason, turns);
			return 1;
		}
	}
	printf("kvm-mini-vmm: %ld turns: io %lu, mmio %lu, hlt %lu\n", turns,
	       counts[KVM_EXIT_IO], counts[KVM_EXIT_MMIO], counts[KVM_EXIT_HLT]);
	return 0;
}
