#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# KVM inputs against independent tools, on the real traces in ../shared:
# - kvm-vmx-host.dat and kvm-vmx-host-2.dat (trace.dat v7, zlib): exits per
#   reason, summed over vcpus, equal the kvm_exit records per reason of
#   trace-cmd report (reference/trace-cmd/*.report.txt.gz);
# - kvm-pvm-host-v7-zstd.dat: event counts equal Debian's trace-cmd report
#   (when trace-cmd is installed);
# - kvm-pvm-vmtrace.bin (raw ring-buffer pages, vm-trace layout): the event
#   counts the capture is known to hold.
# Skips (exit 77) when ../shared is absent.
set -u
: "${VMALYZE:?}" "${SHARED:?}"
[ -d "$SHARED/traces" ] || { echo "SKIP: no $SHARED"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# "NAME COUNT" per exit reason from a vmalyze summary, summed over vcpus.
# libtraceevent calls VMX reason 52 PREEMPTION_TIMER.
our_exits() {
	awk '/^Exit reasons:/ { e = 1; next }
	     /^[^ ]/ { e = 0 }
	     e && /^ [A-Z][A-Z0-9_]+ +[0-9]+ / { n[$1] += $2 }
	     END { for (k in n) { o = k; if (o == "VMX_PREEMPTION_TIMER_EXPIRED") o = "PREEMPTION_TIMER"; print o, n[k] } }' "$1" | sort
}

for t in kvm-vmx-host kvm-vmx-host-2; do
	if ! timeout 120 "$VMALYZE" -s "$SHARED/traces/$t.dat" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL $t: $(head -2 "$tmp/err")"; fails=$((fails + 1)); continue
	fi
	our_exits "$tmp/out" >"$tmp/ours"
	gzip -dc "$SHARED/reference/trace-cmd/$t.report.txt.gz" |
		sed -n 's/.* kvm_exit: .*reason \([A-Za-z0-9_]*\).*/\1/p' | sort | uniq -c |
		awk '{ print $2, $1 }' | sort >"$tmp/ref"
	if cmp -s "$tmp/ours" "$tmp/ref"; then
		echo "ok   $t: $(awk '{ s += $2 } END { print s }' "$tmp/ref") exits in $(wc -l <"$tmp/ref") reasons"
	else
		echo "FAIL $t: exits per reason differ"; diff "$tmp/ref" "$tmp/ours" | head; fails=$((fails + 1))
	fi
done

# "NAME COUNT" from the summary's KVM events table.
our_events() {
	awk '/^KVM events:/ { e = 1; next } e && /^  / { print $1, $2 }' "$1" | sort
}

t=kvm-pvm-host-v7-zstd
if command -v trace-cmd >/dev/null 2>&1; then
	timeout 120 "$VMALYZE" -s "$SHARED/traces/$t.dat" >"$tmp/out" 2>"$tmp/err"
	our_events "$tmp/out" >"$tmp/ours"
	trace-cmd report -i "$SHARED/traces/$t.dat" 2>/dev/null |
		sed -n 's/^.*\] *[0-9.]*: *\([a-z_0-9]*\):.*/\1/p' | sort | uniq -c |
		awk '{ print $2, $1 }' | sort >"$tmp/ref"
	if [ -s "$tmp/ref" ] && cmp -s "$tmp/ours" "$tmp/ref"; then
		echo "ok   $t: $(awk '{ s += $2 } END { print s }' "$tmp/ref") events equal trace-cmd's"
	else
		echo "FAIL $t: event counts differ from trace-cmd report"; diff "$tmp/ref" "$tmp/ours" | head
		fails=$((fails + 1))
	fi
else
	echo "skip $t: no trace-cmd installed"
fi

t=kvm-pvm-vmtrace
timeout 120 "$VMALYZE" -s --event-formats "$SHARED/traces/kvm-pvm-formats" \
	"$SHARED/traces/$t.bin" >"$tmp/out" 2>"$tmp/err"
status=$?
our_events "$tmp/out" >"$tmp/ours"
want="kvm_emulate_insn 6000
kvm_fpu 12000
kvm_mmio 2000
kvm_pio 4000
kvm_userspace_exit 6000
sched_switch 25
vcpu_match_mmio 2000"
got=$(grep -E '^(kvm_emulate_insn|kvm_fpu|kvm_mmio|kvm_pio|kvm_userspace_exit|sched_switch|vcpu_match_mmio) ' "$tmp/ours")
if [ "$status" -eq 0 ] && [ "$got" = "$want" ] && ! grep -q -i "lost\|missed" "$tmp/err"; then
	echo "ok   $t: $(awk '{ s += $2 } END { print s }' "$tmp/ours") events, none lost"
else
	echo "FAIL $t (status $status):"; cat "$tmp/ours"; head -3 "$tmp/err"; fails=$((fails + 1))
fi

t=kvm-truncated-v6
timeout 120 "$VMALYZE" -s "$SHARED/traces/$t.dat" >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -eq 4 ] && grep -q "$t.dat: offset [0-9]" "$tmp/err"; then
	echo "ok   $t: exit status 4, $(head -1 "$tmp/err" | cut -c1-100)"
else
	echo "FAIL $t: status $status"; head -3 "$tmp/err"; fails=$((fails + 1))
fi

[ "$fails" -eq 0 ]
