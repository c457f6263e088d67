#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --timeline FILE.json and --svg FILE.  The JSON is validated as Chrome's
# trace-event format: every event has ph, ts, pid and tid; "X" slices have
# a duration and, per track, nest or follow one another; the generated
# agent pair (tools/vmalyze-mkdat --pair) gives the vcpu's slices and the
# guest's task slices the generator wrote, and exits-per-second counters;
# --time-range keeps only its window.  The SVG is well-formed XML with its
# rows, legend and axis, and (when Debian's chromium is installed)
# renders headless to a PNG that is not blank.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}" "${top_builddir:?}" "${SHARED:?}"
command -v jq >/dev/null 2>&1 || { echo "SKIP: no jq"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
H=$tmp/host.dat G=$tmp/guest.dat
"$top_builddir/tools/vmalyze-mkdat" --pair "$G" -o "$H" >/dev/null || { echo "FAIL: mkdat"; exit 1; }

valid() { # FILE: the format's rules
	jq -e '.traceEvents | length > 0 and
	       all(.[]; has("ph") and has("ts") and has("pid") and has("tid")) and
	       all(.[] | select(.ph == "X"); (.dur | type) == "number" and .dur >= 0)' "$1" \
		>/dev/null || return 1
	# per track, in start order: each slice starts at or after the previous
	# one's end, or lies inside it (nesting); microseconds in doubles are
	# exact to a few thousandths at these magnitudes
	jq -r '.traceEvents[] | select(.ph == "X") | "\(.pid) \(.tid) \(.ts) \(.ts + .dur)"' "$1" |
		sort -k1,1n -k2,2n -k3,3g | awk '
		$1 != p || $2 != t { p = $1; t = $2; n = 0 }
		{ while (n > 0 && $3 >= end[n] - 5e-4) n--
		  if (n > 0 && $4 > end[n] + 5e-4) bad++
		  end[++n] = $4 }
		END { exit bad > 0 }'
}

"$VMALYZE" --timeline "$tmp/pair.json" "$H" "$G" >"$tmp/out" 2>"$tmp/err" || fail "--timeline exits $?"
[ -s "$tmp/out" ] && fail "--timeline wrote to standard output"
valid "$tmp/pair.json" || fail "the pair's JSON breaks the trace-event format"
# the vcpu track (pid 2): the generator's states, times in us
jq -r '.traceEvents[] | select(.ph == "X" and .pid == 2) | "\(.name) \(.ts) \(.dur) \(.args.refinement // "")"' \
	"$tmp/pair.json" >"$tmp/vcpu"
cat >"$tmp/vcpu.want" <<'WANT'
guest 1000000 20 
EPT_MISCONFIG 1000020 5 mmio_assist 0xfe000000
VMM 1000025 20 mmio_assist 0xfe000000
guest 1000045 105 
preempted 1000150 200 
guest 1000350 170 
halted 1000520 140 
guest 1000660 240 
EXTERNAL_INTERRUPT 1000900 1 
WANT
cmp -s "$tmp/vcpu" "$tmp/vcpu.want" || { fail "the vcpu's slices"; diff "$tmp/vcpu.want" "$tmp/vcpu"; }
# the guest cpu's track (pid 3): its tasks as the guest's sched_switch ran them
jq -r '.traceEvents[] | select(.ph == "X" and .pid == 3) | "\(.name) \(.ts) \(.dur)"' \
	"$tmp/pair.json" >"$tmp/tasks"
printf '%s\n' "rt-task:100 1000060 340" "worker:101 1000400 300" "rt-task:100 1000700 102" \
	"short:102 1000802 99" >"$tmp/tasks.want"
cmp -s "$tmp/tasks" "$tmp/tasks.want" || { fail "the guest's task slices"; diff "$tmp/tasks.want" "$tmp/tasks"; }
jq -e '[.traceEvents[] | select(.ph == "M" and .name == "thread_name") | .args.name] |
       index("d0v0 (thread 3000)") != null and index("pcpu 0") != null and
       index("guest 1 cpu 0 (d0v0)") != null' "$tmp/pair.json" >/dev/null || fail "track names"
# 3 exits in the first 10 ms bin: 300 exits per second
jq -e '[.traceEvents[] | select(.ph == "C")] | length == 1 and .[0].args["exits/s"] == 300' \
	"$tmp/pair.json" >/dev/null || fail "the exits-per-second counter"

# A window: only its part, slices clipped to it.
"$VMALYZE" --timeline "$tmp/win.json" --time-range 100us,500us "$H" "$G" 2>/dev/null ||
	fail "--time-range exits $?"
valid "$tmp/win.json" || fail "the window's JSON breaks the format"
jq -e '[.traceEvents[] | select(.ph == "X")] | length > 0 and
       all(.[]; .ts >= 1000100 and .ts + .dur <= 1000500)' "$tmp/win.json" >/dev/null ||
	fail "slices outside --time-range"
for bad in "--time-range 5ms" "--time-range 5ms,1ms" "--time-range x,1ms" "--timeline $tmp/x -s" \
	   "--timeline $tmp/x --time 0,1" \
	   "--time-range 1ms,2ms"; do
	# shellcheck disable=SC2086
	"$VMALYZE" $bad "$H" >/dev/null 2>"$tmp/err"
	[ $? -eq 1 ] && [ -s "$tmp/err" ] || fail "'$bad' is not a usage error"
done

# A fixture with host sched_switch, and the real pair when present.
"$VMALYZE" --timeline "$tmp/fix.json" --svg "$tmp/fix.svg" "$top_srcdir/traces/kvm/vmx-v6.dat" \
	2>/dev/null || fail "fixture exits $?"
valid "$tmp/fix.json" || fail "the fixture's JSON breaks the format"
jq -e '[.traceEvents[] | select(.ph == "X" and .pid == 2) | .name] | index("halted") != null and
       index("guest") != null and index("IO_INSTRUCTION") != null' "$tmp/fix.json" \
	>/dev/null || fail "the fixture's vcpus: no guest, halted or exit slices"
if [ -f "$SHARED/traces/kvm-vmx-host.dat" ] && [ -f "$SHARED/traces/kvm-vmx-guest.dat" ]; then
	"$VMALYZE" --timeline "$tmp/real.json" --time-range 0,50ms "$SHARED/traces/kvm-vmx-host.dat" \
		"$SHARED/traces/kvm-vmx-guest.dat" 2>/dev/null || fail "real pair exits $?"
	valid "$tmp/real.json" || fail "the real pair's JSON breaks the format"
fi
"$VMALYZE" --timeline "$tmp/xen.json" "$top_srcdir/traces/gen-vmx-4cpu.xentrace" 2>/dev/null ||
	fail "Xen exits $?"
valid "$tmp/xen.json" || fail "the Xen trace's JSON breaks the format"
jq -e '[.traceEvents[] | select(.ph == "X" and .cat == "exit")] | length > 0' "$tmp/xen.json" \
	>/dev/null || fail "no exit slices from a Xen trace"

# SVG: well-formed, rows, legend, axis.
if command -v xmllint >/dev/null 2>&1; then
	xmllint --noout "$tmp/fix.svg" || fail "the SVG is not well-formed XML"
fi
grep -q '>pcpu 0<' "$tmp/fix.svg" && grep -q '>d0v0 (thread 2000)<' "$tmp/fix.svg" &&
	grep -q '>preempted</text>' "$tmp/fix.svg" && grep -q ' ms</text>' "$tmp/fix.svg" ||
	fail "the SVG lacks rows, legend or axis"

# In a real browser: chromium renders it headless; the PNG is not blank.
CHROMIUM=$(command -v chromium || true)
if [ -n "$CHROMIUM" ]; then
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$tmp/profile" --window-size=1250,300 \
		--screenshot="$tmp/fix.png" "file://$tmp/fix.svg" >/dev/null 2>&1
	python3 "$top_srcdir/tests/cli/png-colours.py" "$tmp/fix.png" >"$tmp/colours" 2>&1 ||
		fail "chromium made no readable PNG"
	# white and a few greys would be blank: the states' colours must be there
	[ "$(cat "$tmp/colours" 2>/dev/null || echo 0)" -ge 5 ] ||
		fail "the rendered SVG looks blank ($(cat "$tmp/colours") colours)"
else
	echo "skip the browser check: no chromium (apt-get install chromium)"
fi

[ "$fails" -eq 0 ] && echo "ok: --timeline and --svg"
[ "$fails" -eq 0 ]
