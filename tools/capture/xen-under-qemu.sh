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
#   tools/capture/xen-under-qemu.sh [-b VMALYZE] [-w WORK] [-T SECONDS]
#       -b  the vmalyze binary to copy into dom0 (default build/src/vmalyze);
#           its shared libraries are copied beside it
#       -w  work folder (default /tmp/vmalyze-xen-qemu)
#       -T  seconds each capture lasts (default 2: keeps traces a few MB)
#       -t  watchdog: qemu is killed after this many seconds (default 1500)
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
VMALYZE=$top/build/src/vmalyze
WORK=/tmp/vmalyze-xen-qemu
SECONDS_EACH=2
WATCHDOG=1500
while getopts b:w:T:t:h opt; do
	case $opt in
	b) VMALYZE=$OPTARG ;;
	w) WORK=$OPTARG ;;
	T) SECONDS_EACH=$OPTARG ;;
	t) WATCHDOG=$OPTARG ;;
	*) sed -n '3,/^set -eu/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 1 ;;
	esac
done

KVER=6.1.0-57-amd64
PKGS="xen-hypervisor-4.17-amd64 xen-utils-4.17 linux-image-$KVER busybox-static
      libxenmisc4.17 libxenstore4 libyajl2 libxencall1 libxendevicemodel1 libxenevtchn1
      libxenforeignmemory1 libxengnttab1 libxenhypfs1 libxentoolcore1 libxentoollog1"

die() { echo "xen-under-qemu: $*" >&2; exit 1; }
say() { echo "xen-under-qemu: $*" >&2; }

command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
[ -x "$VMALYZE" ] || die "no vmalyze binary at $VMALYZE (build first, or -b)"
mkdir -p "$WORK/debs" "$WORK/out"
ROOT=$WORK/root

# --- packages: downloaded and unpacked, never installed ---------------------
if [ ! -e "$ROOT/boot/xen-4.17-amd64.gz" ]; then
	(cd "$WORK/debs" && apt-get download $PKGS) || die "apt-get download failed"
	mkdir -p "$ROOT"
	for deb in "$WORK"/debs/*.deb; do dpkg -x "$deb" "$ROOT"; done
fi
XEN=$WORK/xen-4.17-amd64
[ -e "$XEN" ] || gunzip -c "$ROOT/boot/xen-4.17-amd64.gz" > "$XEN"
KERNEL=$ROOT/boot/vmlinuz-$KVER
MODS=$ROOT/lib/modules/$KVER/kernel
LIBPATH=$ROOT/usr/lib/x86_64-linux-gnu:$ROOT/lib/x86_64-linux-gnu

# Copy binary $1 to $2 inside initramfs tree $3 with every library it needs
# (the unpacked Xen libraries first, then the host's: both Debian 12).
install_bin() {
	local bin=$1 dest=$2 tree=$3 lib
	mkdir -p "$tree$(dirname "$dest")"
	cp -L "$bin" "$tree$dest"
	LD_LIBRARY_PATH=$LIBPATH ldd "$bin" | awk '/=> \//{print $3} /^\t\/lib/{print $1}' |
	while read -r lib; do
		mkdir -p "$tree/lib/x86_64-linux-gnu"
		cp -L "$lib" "$tree/lib/x86_64-linux-gnu/$(basename "$lib")"
	done
	mkdir -p "$tree/lib64"
	cp -L /lib64/ld-linux-x86-64.so.2 "$tree/lib64/"
}

busybox_tree() {
	mkdir -p "$1"/{bin,sbin,proc,sys,dev,tmp,etc,run}
	cp "$ROOT/bin/busybox" "$1/bin/busybox"
}

# --- the guests' initramfs ---------------------------------------------------
G=$WORK/guest-tree
rm -rf "$G"; busybox_tree "$G"
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
(cd "$G" && find . | cpio -o -H newc --quiet | gzip -1) > "$WORK/guest.cpio.gz"

# --- dom0's initramfs ----------------------------------------------------------
D=$WORK/dom0-tree
rm -rf "$D"; busybox_tree "$D"
XB=$ROOT/usr/lib/xen-4.17/bin
for b in xl xentrace xenstored xenconsoled xen-init-dom0; do install_bin "$XB/$b" "/usr/sbin/$b" "$D"; done
install_bin "$VMALYZE" /usr/sbin/vmalyze "$D"
# glibc dlopen()s libgcc_s for pthread_cancel (xl aborts without it).
cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 "$D/lib/x86_64-linux-gnu/"
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
cat > "$D/init" <<EOF
#!/bin/busybox sh
SECONDS_EACH=$SECONDS_EACH
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
for g in pvh pv; do
	xl -v create /etc/xen/$g.cfg > /out/xl-create-$g.log 2>&1; step "xl create $g rc=$?"
done
# Wait until every guest says its workload runs (at most 5 minutes).
n=0
while [ $n -lt 300 ]; do
	up=$(cat /var/log/xen/console/guest-*.log 2>/dev/null | grep -c 'workload runs')
	[ "$up" -ge 2 ] && break
	n=$((n+1)); sleep 1
done
step "$up guests running their workload after ${n}s"
xl list > /out/xl-list.txt 2>&1
sleep 2
xentrace -D -e 0x0ffff000 -S 64 -T $SECONDS_EACH /out/xentrace.xentrace > /out/xentrace.log 2>&1
step "xentrace rc=$?"
vmalyze record -v -S 256 -T $SECONDS_EACH -o /out/vmalyze-record.xentrace > /out/record.log 2>&1
step "vmalyze record rc=$?"
vmalyze record --live -T $SECONDS_EACH -o /out/vmalyze-live.xentrace > /out/live.txt 2> /out/live.log
step "vmalyze record --live rc=$?"
xl list >> /out/xl-list.txt 2>&1
for g in pvh pv; do xl destroy $g > /dev/null 2>&1; done
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
(cd "$D" && find . | cpio -o -H newc --quiet | gzip -1) > "$WORK/dom0.cpio.gz"

# --- the boot --------------------------------------------------------------
# -smp 2 at most (the machine is shared); without -smap/-smep/-pku dom0 dies
# early, and with rdtscp Xen fails to emulate `rdtscp` for SVM guests.
IMG=$WORK/out.img
rm -f "$IMG"; truncate -s 256M "$IMG"
QEMU=(qemu-system-x86_64 -accel tcg -cpu max,-smap,-smep,-pku,-rdtscp -smp 2 -m 2048
      -kernel "$XEN"
      -append "console=com1 com1=115200,8n1 dom0_mem=1024M,max:1024M dom0_max_vcpus=2 loglvl=all guest_loglvl=all"
      -initrd "$KERNEL console=hvc0 earlyprintk=xen rdinit=/init loglevel=4,$WORK/dom0.cpio.gz"
      -drive "file=$IMG,format=raw,if=virtio" -display none -monitor none
      -serial "file:$WORK/serial.log" -no-reboot)
echo "${QEMU[*]}" > "$WORK/qemu-command.txt"
say "booting (watchdog ${WATCHDOG}s; serial console in $WORK/serial.log)"
start=$(date +%s)
rc=0
timeout -k 10 "$WATCHDOG" "${QEMU[@]}" || rc=$?
say "qemu exited with $rc after $(( $(date +%s) - start ))s"
[ $rc -eq 124 ] && say "the watchdog stopped qemu: see $WORK/serial.log"

rm -rf "$WORK/out"; mkdir -p "$WORK/out"
if tar -xf "$IMG" -C "$WORK/out" 2>/dev/null; then
	say "results in $WORK/out:"
	ls -l "$WORK/out" >&2
else
	die "nothing was written back (see $WORK/serial.log)"
fi
grep -E '^(DOM0|GUEST):' "$WORK/serial.log" >&2 || true
