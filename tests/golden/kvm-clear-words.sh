#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# KVM traces: what vmalyze says about what it found and about options that
# cannot apply (issue 10), on the traces/kvm fixtures, and the 1 ms figures
# bounded on every KVM trace there and in ../shared (a vcpu's at most 1 ms,
# a VM's at most its vcpus x 1 ms).
set -u
: "${VMALYZE:?}" "${top_srcdir:?}" "${SHARED:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
k="$top_srcdir/traces/kvm"

check() { # NAME CONDITION...
	name=$1; shift
	if "$@"; then echo "ok   $name"; else echo "FAIL $name"; sed 's/^/  stderr: /' "$tmp/err" | head -5; fails=$((fails + 1)); fi
}

# -v: format, clock, GUEST mapping, grouping; -vv: where the data lie.
"$VMALYZE" -v -s "$k/vmx-v7-zlib-tsc.dat" >"$tmp/out" 2>"$tmp/err"
check "-v names the format and clock" grep -q "trace.dat v7, zlib, 2 cpus.*trace clock x86-tsc, time stamps in nanoseconds" "$tmp/err"
check "-v shows the GUEST mapping" grep -q 'GUEST option 0: vcpu 1 = host thread 2001' "$tmp/err"
check "-v says how vcpus were grouped" grep -q 'KVM VM 0 "fixture-guest".*grouped by the trace.s GUEST option; vcpu 0 = thread 2000 (CPU 0/KVM)' "$tmp/err"
"$VMALYZE" -v -s --event-formats "$k/vmx-raw-formats" "$k/vmx-raw.bin" >"$tmp/out" 2>"$tmp/err"
check "-v: one VM grouped by vcpu ids" grep -q 'KVM VM 0: .*grouped by vcpu ids (one VM)' "$tmp/err"
"$VMALYZE" -vv -s "$k/vmx-v6.dat" >"$tmp/out" 2>"$tmp/err"
check "-vv says more" grep -q 'debug: .*cpu 0: pages from byte [0-9]*' "$tmp/err"

# --svm-mode cannot overrule the kernel's isa field.
"$VMALYZE" -s "$k/vmx-v6.dat" >"$tmp/plain" 2>/dev/null
"$VMALYZE" -s --svm-mode "$k/vmx-v6.dat" >"$tmp/out" 2>"$tmp/err"
check "--svm-mode leaves VMX exits VMX" cmp -s "$tmp/plain" "$tmp/out"
check "--svm-mode says it is ignored" grep -q 'svm-mode ignored' "$tmp/err"

# --timer-hz on a trace in nanoseconds.
"$VMALYZE" -s --timer-hz 50M "$k/vmx-v6.dat" >"$tmp/out" 2>"$tmp/err"
check "--timer-hz on a ns trace warns" grep -q 'timer-hz has no effect' "$tmp/err"

# A raw dump of events with no formats: say to pass --event-formats.
raw="$SHARED/traces/kvm-pvm-vmtrace.bin"
if [ -f "$raw" ]; then
	"$VMALYZE" -s "$raw" >"$tmp/out" 2>"$tmp/err"
	check "raw dump without formats says what to do" grep -q 'give the recording kernel.s formats with --event-formats DIR' "$tmp/err"
fi

# No sched_switch: exit times include host preemption.
"$VMALYZE" -s "$SHARED/traces/kvm-vmx-host.dat" >"$tmp/out" 2>"$tmp/err" &&
	check "no sched_switch warns" grep -q 'no sched_switch events' "$tmp/err"
"$VMALYZE" -s "$k/vmx-v6.dat" >"$tmp/out" 2>"$tmp/err"
check "with sched_switch no such warning" sh -c "! grep -q 'no sched_switch' '$tmp/err'"

# Empty sections are not printed; seconds have digits; JSON says its units.
if [ -f "$SHARED/traces/kvm-vmx-host-2.dat" ]; then
	"$VMALYZE" -s "$SHARED/traces/kvm-vmx-host-2.dat" >"$tmp/out" 2>"$tmp/err"
	check "no empty Runstates: or Guest interrupt counts:" awk '
		prev ~ /^ Runstates:$/ && !/^  / { bad = 1 }
		prev ~ /^Guest interrupt counts:$/ && !/^  \[/ { bad = 1 }
		{ prev = $0 } END { exit bad }' "$tmp/out"
	check "short exits do not read 0.00s" sh -c "! grep -q ' 0\.00s ' '$tmp/out' && grep -q ' 0\.000015s ' '$tmp/out'"
fi
"$VMALYZE" --json "$k/vmx-v6.dat" >"$tmp/out" 2>"$tmp/err"
check "JSON: every duration says its unit" python3 -c "
import json, sys
def walk(o, bad):
    if isinstance(o, dict):
        if ('cycles' in o and 'avg_cycles' in o) or 'max_in_1ms' in o:
            bad += [o] if o.get('unit') != 'ns' else []
        for v in o.values(): walk(v, bad)
    elif isinstance(o, list):
        for v in o: walk(v, bad)
    return bad
sys.exit(1 if walk(json.load(open('$tmp/out')), []) else 0)"
guest="$SHARED/traces/kvm-vmx-guest.dat"
if [ -f "$guest" ]; then
	"$VMALYZE" --json "$guest" >"$tmp/out" 2>"$tmp/err"
	check "JSON: no vendor for a trace with no exits" python3 -c "
import json, sys
d = json.load(open('$tmp/out'))
sys.exit(0 if 'vendor' not in d and not any(v.get('exits') for x in d['domains'] for v in x['vcpus']) else 1)"
fi
"$VMALYZE" --json "$k/vmx-v6.dat" >"$tmp/out" 2>"$tmp/err"
check "JSON: the vendor of a trace with exits" grep -q '"vendor":"vmx"' "$tmp/out"

# The 1 ms figures: a vcpu's at most 1 ms, a VM's at most vcpus x 1 ms.
for f in "$k"/*.dat "$SHARED"/traces/kvm-*.dat; do
	[ -f "$f" ] || continue
	"$VMALYZE" -s "$f" 2>/dev/null | awk -v f="$(basename "$f")" '
		function flush() { if (dom != "" && dmax > vcpus * 1000000) { print f ": " dom " " dmax " ns > " vcpus " ms"; bad++ } }
		/^\|-- (Domain|VM) / { flush(); dom = $0; vcpus = 0; dmax = 0; indom = 1; next }
		/^-- v[0-9]+ / { vcpus++; indom = 0; next }
		/Exit latency( without halts)?:.*max in 1 ms/ { w = $(NF - 1)
			if (indom) { if (w > dmax) dmax = w }
			else if (w > 1000000) { print f ": vcpu " w " ns"; bad++ } }
		END { flush(); exit bad > 0 }' >"$tmp/err"
	check "1 ms figures bounded: $(basename "$f")" test ! -s "$tmp/err"
done

[ "$fails" -eq 0 ]
