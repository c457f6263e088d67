# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the tools/capture/*-under-qemu.sh scripts (sourced): Debian
# packages unpacked under $ROOT, initramfs trees, the boot watchdog.

KVER=6.1.0-57-amd64

die() { echo "${0##*/}: $*" >&2; exit 1; }
say() { echo "${0##*/}: $*" >&2; }

# Download packages $@ into $WORK/debs and unpack them all under $ROOT
# (nothing is installed).
unpack_debs() {
	mkdir -p "$WORK/debs" "$ROOT"
	(cd "$WORK/debs" && apt-get download "$@") || die "apt-get download failed"
	for deb in "$WORK"/debs/*.deb; do dpkg -x "$deb" "$ROOT"; done
}

# Copy binary $1 to $2 inside initramfs tree $3 with every library it needs
# (the unpacked libraries first, then the host's: both Debian 12).
install_bin() {
	local bin=$1 dest=$2 tree=$3 lib
	mkdir -p "$tree$(dirname "$dest")" "$tree/lib/x86_64-linux-gnu" "$tree/lib64"
	cp -L "$bin" "$tree$dest"
	LD_LIBRARY_PATH=$ROOT/usr/lib/x86_64-linux-gnu:$ROOT/lib/x86_64-linux-gnu ldd "$bin" |
	awk '/=> \//{print $3}' |
	while read -r lib; do
		cp -L "$lib" "$tree/lib/x86_64-linux-gnu/$(basename "$lib")"
	done
	cp -L /lib64/ld-linux-x86-64.so.2 "$tree/lib64/"
	# glibc dlopen()s libgcc_s for pthread_cancel (xl aborts without it).
	cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 "$tree/lib/x86_64-linux-gnu/"
}

# An initramfs tree $1 with busybox.
busybox_tree() {
	rm -rf "$1"
	mkdir -p "$1"/bin "$1"/sbin "$1"/proc "$1"/sys "$1"/dev "$1"/tmp "$1"/etc "$1"/run
	cp "$ROOT/bin/busybox" "$1/bin/busybox"
}

# Pack tree $1 into the gzipped cpio archive $2.
pack() {
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) > "$2"
}

# Run qemu ($@) under a watchdog of $WATCHDOG seconds; then unpack the tar
# archive the guest wrote over disk image $IMG into $WORK/out.
boot_and_collect() {
	local rc=0 start
	echo "$*" > "$WORK/qemu-command.txt"
	say "booting (watchdog ${WATCHDOG}s; serial console in $WORK/serial.log)"
	start=$(date +%s)
	timeout -k 10 "$WATCHDOG" "$@" || rc=$?
	say "qemu exited with $rc after $(( $(date +%s) - start ))s"
	[ $rc -eq 124 ] && say "the watchdog stopped qemu: see $WORK/serial.log"
	rm -rf "$WORK/out"; mkdir -p "$WORK/out"
	tar -xf "$IMG" -C "$WORK/out" 2>/dev/null || die "nothing was written back (see $WORK/serial.log)"
	say "results in $WORK/out:"
	ls -l "$WORK/out" >&2
}
