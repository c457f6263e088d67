#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Real Xen traces on a machine without Xen: boot Debian's Xen 4.17 and a
# Debian dom0 kernel under qemu-system-x86_64 -accel tcg (TCG emulates
# AMD-V with nested paging, so guests make real SVM exits), run guests,
# capture the same steady workload with Debian's xentrace and with
# `vmalyze record` (plain, then --live), and read the traces back from a
# virtio disk (a tar archive written over it by dom0's init).
#
# Run by hand, never in CI (a boot takes minutes of CPU).  Needs
# qemu-system-x86 and apt-get (for `apt-get download`; nothing is
# installed).  Everything goes under $WORK (default /tmp/vmalyze-xen-qemu);
# the results under $WORK/out.
#
#   tools/capture/xen-under-qemu.sh [-H] [-b VMALYZE] [-w WORK] [-T SECONDS] [-t SECONDS]
#       -H  also an HVM guest (2 vcpus; Debian's qemu-system-xen as its
#           device model, direct kernel boot).  Under TCG it is slow: in the
#           runs made so far it was still in SeaBIOS and early boot (port
#           I/O exits of ~75 ms, each a round trip to the device model)
#           when the captures started, 3 minutes after its creation
#       -b  the vmalyze binary to copy into dom0 (default build/src/vmalyze);
#           its shared libraries are copied beside it
#       -w  work folder (default /tmp/vmalyze-xen-qemu)
#       -T  seconds each capture lasts (default 2: keeps traces a few MB)
#       -t  watchdog: qemu is killed after this many seconds (default 1500)
#
# One run in four so far had the PV guest fail to build (libxenguest: "XZ
# decompression error: File is corrupt" on the same kernel that booted in
# the other runs); dom0's log says so in xl-create-pv.log.
#
# The run, inside dom0: start xenstored, xen-init-dom0 and xenconsoled;
# create a PVH guest (2 vcpus) and a PV guest (1 vcpu) whose init loops on
# CPU bursts, console output (event channels to xenconsoled), short sleeps
# (timer interrupts) and idle gaps (halt); wait until both print that their
# workload runs; then, one after the other while the guests go on:
#   xentrace -D -e 0x0ffff000 -T SECONDS       -> xentrace.xentrace
#   vmalyze record -T SECONDS            -> vmalyze-record.xentrace
#   vmalyze record --live -T SECONDS     -> vmalyze-live.xentrace, live.txt
# Xen's trace buffers have one consumer index, so two tools cannot read
# them at the same time: the captures are consecutive windows of one run.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/common.sh"
VMALYZE=$top/build/src/vmalyze
WORK=/tmp/vmalyze-xen-qemu
SECONDS_EACH=2
WATCHDOG=1500
HVM=no
while getopts Hb:w:T:t:h opt; do
	case $opt in
	H) HVM=yes ;;
	b) VMALYZE=$OPTARG ;;
	w) WORK=$OPTARG ;;
	T) SECONDS_EACH=$OPTARG ;;
	t) WATCHDOG=$OPTARG ;;
	*) sed -n '3,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 1 ;;
	esac
done

PKGS="xen-hypervisor-4.17-amd64 xen-utils-4.17 linux-image-$KVER busybox-static
      libxenmisc4.17 libxenstore4 libyajl2 libxencall1 libxendevicemodel1 libxenevtchn1
      libxenforeignmemory1 libxengnttab1 libxenhypfs1 libxentoolcore1 libxentoollog1"
[ $HVM = yes ] && PKGS="$PKGS qemu-system-xen"

command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
[ -x "$VMALYZE" ] || die "no vmalyze binary at $VMALYZE (build first, or -b)"
ROOT=$WORK/root
mkdir -p "$WORK"

# --- packages: downloaded and unpacked, never installed ---------------------
if [ ! -e "$ROOT/boot/xen-4.17-amd64.gz" ] ||
   { [ $HVM = yes ] && [ ! -e "$ROOT/usr/libexec/xen-qemu-system-i386" ]; }; then
	# shellcheck disable=SC2086 # package names are words
	unpack_debs $PKGS
fi
XEN=$WORK/xen-4.17-amd64
[ -e "$XEN" ] || gunzip -c "$ROOT/boot/xen-4.17-amd64.gz" > "$XEN"
KERNEL=$ROOT/boot/vmlinuz-$KVER
MODS=$ROOT/lib/modules/$KVER/kernel

# --- the guests' initramfs ---------------------------------------------------
G=$WORK/guest-tree
busybox_tree "$G"
cat > "$G/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t devtmpfs dev /dev
n=$(grep -c ^processor /proc/cpuinfo)
echo "GUEST: $(uname -r) up, $n vcpus; workload runs"
# One loop per vcpu: a CPU burst, a console line (an event channel to
# xenconsoled), a 10 ms sleep (timer), and every 16th turn 200 ms idle (halt).
work() {
	i=0
	while :; do
		i=$((i+1))
		dd if=/dev/zero of=/dev/null bs=16k count=8 2>/dev/null
		echo "GUEST: vcpu loop $1 turn $i"
		usleep 10000
		[ $((i % 16)) -eq 0 ] && usleep 200000
	done
}
c=0; while [ $c -lt $n ]; do work $c & c=$((c+1)); done
# init must never exit (the kernel panics): dom0 destroys the guest.
while :; do sleep 3600; done
EOF
chmod +x "$G/init"
pack "$G" "$WORK/guest.cpio.gz"

# --- dom0's initramfs ----------------------------------------------------------
D=$WORK/dom0-tree
busybox_tree "$D"
XB=$ROOT/usr/lib/xen-4.17/bin
for b in xl xentrace xenstored xenconsoled xen-init-dom0; do install_bin "$XB/$b" "/usr/sbin/$b" "$D"; done
install_bin "$VMALYZE" /usr/sbin/vmalyze "$D"
mkdir -p "$D/mods" "$D/guest" "$D/etc/xen" "$D/var/lib/xen" "$D/var/log/xen/console"
for m in virtio/virtio_ring virtio/virtio virtio/virtio_pci_modern_dev \
	 virtio/virtio_pci_legacy_dev virtio/virtio_pci block/virtio_blk xen/xen-evtchn \
	 xen/xen-privcmd xen/xenfs/xenfs xen/xen-gntdev xen/xen-gntalloc; do
	cp "$MODS/drivers/$m.ko" "$D/mods/"
done
cp "$KERNEL" "$D/guest/vmlinuz"
cp "$WORK/guest.cpio.gz" "$D/guest/initrd.cpio.gz"
: > "$D/etc/xen/xl.conf" # xl complains without one
cat > "$D/etc/xen/pvh.cfg" <<'EOF'
name = "pvh"
type = "pvh"
kernel = "/guest/vmlinuz"
ramdisk = "/guest/initrd.cpio.gz"
extra = "console=hvc0 rdinit=/init loglevel=4"
memory = 192
vcpus = 2
on_poweroff = "destroy"
on_crash = "destroy"
EOF
sed -e 's/^name = .*/name = "pv"/' -e 's/^type = .*/type = "pv"/' \
    -e 's/^vcpus = .*/vcpus = 1/' "$D/etc/xen/pvh.cfg" > "$D/etc/xen/pv.cfg"
GUESTS="pvh pv"
if [ $HVM = yes ]; then
	# The device model where libxl looks for it, with its firmware files.
	install_bin "$ROOT/usr/libexec/xen-qemu-system-i386" /usr/libexec/xen-qemu-system-i386 "$D"
	mkdir -p "$D/usr/share/qemu" "$D/usr/share/seabios" "$D/usr/lib/xen-4.17/boot"
	cp "$ROOT/usr/lib/xen-4.17/boot/hvmloader" "$D/usr/lib/xen-4.17/boot/"
	cp -L /usr/share/seabios/bios-256k.bin "$D/usr/share/seabios/"
	cp -L /usr/share/qemu/linuxboot_dma.bin /usr/share/qemu/linuxboot.bin \
	      /usr/share/qemu/kvmvapic.bin "$D/usr/share/qemu/"
	cp -rL /usr/share/qemu/keymaps "$D/usr/share/qemu/" # even with -vnc none
	sed -e 's/^name = .*/name = "hvm"/' -e 's/^type = .*/type = "hvm"/' \
	    -e 's/^extra = .*/extra = "console=ttyS0 console=hvc0 rdinit=\/init loglevel=4"/' \
	    "$D/etc/xen/pvh.cfg" > "$D/etc/xen/hvm.cfg"
	cat >> "$D/etc/xen/hvm.cfg" <<'EOF'
vnc = 0
sdl = 0
nographic = 1
vga = "none"
serial = "pty"
EOF
	GUESTS="$GUESTS hvm"
fi
cat > "$D/init" <<EOF
#!/bin/busybox sh
SECONDS_EACH=$SECONDS_EACH
GUESTS="$GUESTS"
EOF
cat >> "$D/init" <<'EOF'
/bin/busybox --install -s /bin
export PATH=/usr/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /var/run/xen /var/run/xenstored /run/xen /out
mount -t devpts devpts /dev/pts
step() { echo "DOM0: $*"; }
step "$(uname -r) up"
for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci \
	 virtio_blk xen-evtchn xen-privcmd xenfs xen-gntdev xen-gntalloc; do
	insmod /mods/$m.ko || step "insmod $m failed"
done
mount -t xenfs xenfs /proc/xen
xenstored --pid-file /var/run/xenstored.pid; step "xenstored rc=$?"
sleep 1
xen-init-dom0 > /out/xen-init-dom0.log 2>&1; step "xen-init-dom0 rc=$?"
xenconsoled --pid-file=/var/run/xenconsoled.pid --log=guest --log-dir=/var/log/xen/console
step "xenconsoled rc=$?"
xl info > /out/xl-info.txt 2>&1
want=0
for g in $GUESTS; do
	xl -v create /etc/xen/$g.cfg > /out/xl-create-$g.log 2>&1; rc=$?
	step "xl create $g rc=$rc"
	[ $rc -eq 0 ] && want=$((want+1))
done
# Wait until every guest says its workload runs (at most 3 minutes).
n=0
while [ $n -lt 180 ]; do
	up=$(cat /var/log/xen/console/guest-*.log 2>/dev/null | grep -c 'workload runs')
	[ "$up" -ge $want ] && break
	n=$((n+1)); sleep 1
done
step "$up of $want guests running their workload after ${n}s"
xl list > /out/xl-list.txt 2>&1
sleep 2
xentrace -D -e 0x0ffff000 -S 64 -T $SECONDS_EACH /out/xentrace.xentrace > /out/xentrace.log 2>&1
step "xentrace rc=$?"
vmalyze record -v -S 256 -T $SECONDS_EACH -o /out/vmalyze-record.xentrace > /out/record.log 2>&1
step "vmalyze record rc=$?"
vmalyze record --live -T $SECONDS_EACH -o /out/vmalyze-live.xentrace > /out/live.txt 2> /out/live.log
step "vmalyze record --live rc=$?"
xl list >> /out/xl-list.txt 2>&1
for g in $GUESTS; do xl destroy $g > /dev/null 2>&1; done
cp /var/log/xen/qemu-dm-*.log /out/ 2>/dev/null
xl dmesg > /out/xl-dmesg.txt 2>&1
cp /var/log/xen/console/*.log /out/ 2>/dev/null
ls -l /out > /out/ls.txt
step "writing /out to the disk"
(cd /out && tar -cf /dev/vda .)
sync
step "done"
echo o > /proc/sysrq-trigger
poweroff -f
EOF
chmod +x "$D/init"
pack "$D" "$WORK/dom0.cpio.gz"

# --- the boot --------------------------------------------------------------
# -smp 2 at most (the machine is shared); without -smap/-smep/-pku dom0 dies
# early, and with rdtscp Xen fails to emulate `rdtscp` for SVM guests.
IMG=$WORK/out.img
rm -f "$IMG"; truncate -s 256M "$IMG"
boot_and_collect qemu-system-x86_64 -accel tcg -cpu max,-smap,-smep,-pku,-rdtscp -smp 2 -m 2048 \
	-kernel "$XEN" \
	-append "console=com1 com1=115200,8n1 dom0_mem=1024M,max:1024M dom0_max_vcpus=2 loglvl=all guest_loglvl=all" \
	-initrd "$KERNEL console=hvc0 earlyprintk=xen rdinit=/init loglevel=4,$WORK/dom0.cpio.gz" \
	-drive "file=$IMG,format=raw,if=virtio" -display none -monitor none \
	-serial "file:$WORK/serial.log" -no-reboot
grep -E '^(DOM0|GUEST):' "$WORK/serial.log" >&2 || true
