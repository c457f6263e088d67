#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One timeline: `vmalyze -a HOST.dat GUEST.dat` of the real agent pair
# (../shared/traces/kvm-vmx-{host,guest}.dat, linked by the host's GUEST
# option) against what `trace-cmd report -i HOST -i GUEST` prints.  There
# is no merged reference (Debian's trace-cmd cannot read these zlib files),
# so the expectation is built from trace-cmd's documented merge and the two
# single-file reports:
# - every record once: 101,750 lines, 11,721 naming the host file, 90,029
#   the guest file, as trace-cmd names each line's file ("NAME: ", the base
#   name right-aligned to the longest);
# - each file's lines, in order, equal its own trace-cmd report line for
#   line (time stamps to the microsecond: the guest's on the host clock by
#   TIME_SHIFT), the host's once the guest function names are taken out;
# - time order: trace-cmd report takes the earliest record over all files'
#   cpus, equal stamps to the first file, then the lower cpu; vmalyze's own
#   time column (nanoseconds since the first record) must never go back,
#   and at equal nanoseconds the host's lines come first, then lower cpus;
# - guest rips of the host's exits are named with the guest's kallsyms
#   (`rip 0xffffffffa0632f49 iowrite16+0x9`) on the guest's vcpu thread, on
#   no other thread.
# Skips (exit 77) when the pair or the references are absent.
set -u
: "${VMALYZE:?}" "${SHARED:?}"
H=$SHARED/traces/kvm-vmx-host.dat G=$SHARED/traces/kvm-vmx-guest.dat
RH=$SHARED/reference/trace-cmd/kvm-vmx-host.report.txt.gz
RG=$SHARED/reference/trace-cmd/kvm-vmx-guest.report.txt.gz
for f in "$H" "$G" "$RH" "$RG"; do
	[ -f "$f" ] || { echo "SKIP: $f absent"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # WHAT OK?
	if [ "$2" = 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}

timeout 300 "$VMALYZE" -a "$H" "$G" >"$tmp/all" 2>"$tmp/err"
check "vmalyze -a HOST GUEST exits 0" $?

# trace-cmd's lines, continuation lines joined, the "cpus=N" header dropped.
theirs() {
	gzip -dc "$1" | awk 'NR == 1 && /^cpus=/ { next }
	     /^ *[^ ].*-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]+: / {
		if (have) print line; line = $0; have = 1; next }
	     { line = line " " $0 }
	     END { if (have) print line }' | sed 's/ *$//'
}
# Our lines of one file: vmalyze's columns and the file's name cut.
ours() {
	sed -n "s/^.\{16\}[^d]*d[0-9?]*v[0-9?]* *$1: //p" "$tmp/all"
}

n=$(wc -l <"$tmp/all")
nh=$(grep -c '^.\{16\}[^d]*d[0-9?]*v[0-9?]*  kvm-vmx-host\.dat: ' "$tmp/all")
ng=$(grep -c '^.\{16\}[^d]*d[0-9?]*v[0-9?]* kvm-vmx-guest\.dat: ' "$tmp/all")
[ "$n" -eq 101750 ] && [ "$nh" -eq 11721 ] && [ "$ng" -eq 90029 ]
check "every record once: $n lines, $nh host, $ng guest (101750, 11721, 90029)" $?

theirs "$RG" >"$tmp/ref-guest"
ours kvm-vmx-guest.dat >"$tmp/guest"
cmp -s "$tmp/ref-guest" "$tmp/guest"
check "the guest's lines equal its trace-cmd report, in order, on the host clock" $?

theirs "$RH" >"$tmp/ref-host"
ours kvm-vmx-host.dat >"$tmp/host"
sed -E 's/^(.* kvm_(exit|entry): .* rip 0x[0-9a-f]+) [^ ]+( info .*)?$/\1\3/' \
	"$tmp/host" >"$tmp/host-bare"
cmp -s "$tmp/ref-host" "$tmp/host-bare"
check "the host's lines equal its trace-cmd report, guest function names aside" $?

# Time order: the relative time (ns), then host before guest, then the cpu.
awk '{
	t = substr($0, 2, 14); gsub(/ /, "", t)
	if (t == "") t = "0.000000000"
	split(t, p, "."); ns = p[1] * 1000000000 + p[2]
	file = index($0, " kvm-vmx-guest.dat: ") ? 1 : 0
	match($0, /\[[0-9]+\] [0-9]+\.[0-9]+: /)
	cpu = substr($0, RSTART + 1, index(substr($0, RSTART), "]") - 2) + 0
	if (NR > 1 && (ns < last || (ns == last && (file < lfile ||
	    (file == lfile && cpu < lcpu))))) { bad++; if (bad < 4) print "  out of order: " NR }
	last = ns; lfile = file; lcpu = cpu
} END { exit bad > 0 }' "$tmp/all"
check "time order: nanoseconds never go back; equal ones host first, then by cpu" $?

# Guest symbols: the guest's vcpu thread (483882, the GUEST option's vcpu 0) only.
grep -q 'kvm_exit: *reason EPT_MISCONFIG rip 0xffffffffa0632f49 iowrite16+0x9 info 0 0$' \
	"$tmp/host"
check "host exit rips named with the guest's kallsyms (iowrite16+0x9)" $?
# the lines with a guest-kernel rip, and of them those with a function name after it
grep -E ' kvm_(exit|entry): .* rip 0xffffffff[0-9a-f]+' "$tmp/host" >"$tmp/krip"
grep -vE ' rip 0xffffffff[0-9a-f]+( info .*)?$' "$tmp/krip" >"$tmp/named"
named=$(wc -l <"$tmp/named")
named_vcpu=$(grep -c -- '-483882 ' "$tmp/named")
kernel_rips=$(grep -c -- '-483882 ' "$tmp/krip")
[ "$named" -gt 0 ] && [ "$named" -eq "$named_vcpu" ] && [ "$named" -eq "$kernel_rips" ]
check "every guest-kernel rip of the vcpu thread named ($named of $kernel_rips), no other thread's" $?

[ "$fails" -eq 0 ]
