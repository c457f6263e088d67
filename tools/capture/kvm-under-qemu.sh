#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Real KVM SVM exits on a machine whose own KVM cannot nest: boot Debian's
# 6.1 kernel under qemu-system-x86_64 -accel tcg (TCG emulates AMD-V with
# nested paging), load kvm_amd, run tools/capture/kvm-mini-vmm (one real-mode
# vcpu looping on port I/O, cpuid, rdmsr, an MMIO write and hlt) and record
# it host side with Debian's trace-cmd (-e kvm -e sched:sched_switch); the
# trace.dat comes back through a virtio disk (a tar archive over it).
#
# Run by hand, never in CI.  Needs qemu-system-x86, trace-cmd and a C
# compiler on this machine (trace-cmd and its libraries are copied in).
#
#   tools/capture/kvm-under-qemu.sh [-w WORK] [-n TURNS] [-t SECONDS]
#       -w  work folder (default /tmp/vmalyze-kvm-qemu); results in WORK/out
#       -n  turns of the guest's loop (default 300)
#       -t  watchdog: qemu is killed after this many seconds (default 900)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
WORK=/tmp/vmalyze-kvm-qemu
TURNS=300
WATCHDOG=900
while getopts w:n:t:h opt; do
	case $opt in
	w) WORK=$OPTARG ;;
	n) TURNS=$OPTARG ;;
	t) WATCHDOG=$OPTARG ;;
	*) sed -n '3,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 1 ;;
	esac
done
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
TRACE_CMD=$(command -v trace-cmd) || die "trace-cmd missing (apt-get install trace-cmd)"
ROOT=$WORK/root
mkdir -p "$WORK"
[ -e "$ROOT/boot/vmlinuz-$KVER" ] || unpack_debs "linux-image-$KVER" busybox-static
KERNEL=$ROOT/boot/vmlinuz-$KVER
MODS=$ROOT/lib/modules/$KVER/kernel

# The VMM, static so that it needs nothing in the initramfs.
${CC:-cc} -O2 -Wall -static -o "$WORK/kvm-mini-vmm" "$here/kvm-mini-vmm.c" ||
	die "cannot build kvm-mini-vmm"

T=$WORK/kvm-tree
busybox_tree "$T"
cp "$WORK/kvm-mini-vmm" "$T/bin/"
install_bin "$TRACE_CMD" /usr/bin/trace-cmd "$T"
mkdir -p "$T/mods"
for m in drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev \
	 drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci drivers/block/virtio_blk \
	 virt/lib/irqbypass drivers/crypto/ccp/ccp arch/x86/kvm/kvm arch/x86/kvm/kvm-amd; do
	cp "$MODS/$m.ko" "$T/mods/"
done
{
	echo '#!/bin/busybox sh'
	echo "TURNS=$TURNS"
	cat <<'INIT'
/bin/busybox --install -s /bin
export PATH=/usr/bin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tracefs tracefs /sys/kernel/tracing
mkdir -p /out
step() { echo "KVMHOST: $*"; }
step "$(uname -r) up"
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk \
	 irqbypass ccp kvm kvm-amd; do
	insmod /mods/$m.ko || step "insmod $m failed"
done
dmesg | grep -i -E 'kvm|svm|nested' > /out/dmesg-kvm.txt
step "$(grep -i 'nested paging' /out/dmesg-kvm.txt)"
# The VMM under its own watchdog: a run can hang in KVM under TCG.
trace-cmd record -e kvm -e sched:sched_switch -o /out/kvm-svm-host.dat \
	timeout 120 kvm-mini-vmm $TURNS > /out/trace-cmd.log 2>&1
step "trace-cmd record rc=$?"
grep kvm-mini-vmm /out/trace-cmd.log
ls -l /out > /out/ls.txt
(cd /out && tar -cf /dev/vda .)
sync
step "done"
echo o > /proc/sysrq-trigger
poweroff -f
INIT
} > "$T/init"
chmod +x "$T/init"
pack "$T" "$WORK/kvm.cpio.gz"

IMG=$WORK/out.img
rm -f "$IMG"; truncate -s 64M "$IMG"
# -smp 2 at most (the machine is shared); as for Xen, no smap/smep/pku/rdtscp.
boot_and_collect qemu-system-x86_64 -accel tcg -cpu max,-smap,-smep,-pku,-rdtscp -smp 2 -m 2048 \
	-kernel "$KERNEL" -initrd "$WORK/kvm.cpio.gz" \
	-append "console=ttyS0 rdinit=/init loglevel=4" \
	-drive "file=$IMG,format=raw,if=virtio" -display none -monitor none \
	-serial "file:$WORK/serial.log" -no-reboot
grep -E '^KVMHOST:' "$WORK/serial.log" >&2 || true
