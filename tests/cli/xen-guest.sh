#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A Xen host's xentrace and a trace.dat recorded inside its domain 1 with a
# TSC clock, on one timeline with --guest-tsc FILE@dN=CYCLES,SCALE (guest
# TSC = host TSC x SCALE + CYCLES).  The host is tools/vmalyze-gen's, the
# guest tools/vmalyze-mkdat --xen-guest's, which prints the host TSC of
# every guest record: the merged dump has every line of both, in time
# order, the host's as they are alone, the guest's at their true host time
# and on their Xen vcpu (d1vC).  Without the option they stay separate
# traces; clocks that cannot be matched are refused.
set -u
: "${VMALYZE:?}" "${VMALYZE_GEN:?}" "${top_builddir:?}" "${top_srcdir:?}"
MKDAT=$top_builddir/tools/vmalyze-mkdat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
H=$tmp/host.xt G=$tmp/guest.dat
HZ=1000000000 # one cycle a nanosecond: the dump's times are the truth's cycles

"$VMALYZE_GEN" --seed 3 --duration 0.01 --domains 1 --vcpus 2 --pcpus 2 --cpu-hz $HZ \
	--out "$H" --truth "$tmp/host.truth" || { echo "FAIL: vmalyze-gen"; exit 1; }
first=$(sed -n 's/^first-tsc //p' "$tmp/host.truth")
# guest TSC = host TSC x 1.5 + 3000000, from 100 us into the host's trace
"$MKDAT" --cpus 2 --xen-guest $((first + 100000)),3000000,3/2 -o "$G" >"$tmp/guest.truth" ||
	{ echo "FAIL: vmalyze-mkdat --xen-guest"; exit 1; }
"$VMALYZE" -a --cpu-hz $HZ "$H" >"$tmp/host.dump" 2>/dev/null || fail "the host does not dump"

# Not combined: two traces, as any batch.
"$VMALYZE" -a --cpu-hz $HZ "$H" "$G" >"$tmp/sep" 2>/dev/null || fail "-a HOST GUEST exits $?"
grep -q "^=== $G ===\$" "$tmp/sep" || fail "a guest without --guest-tsc is not a trace of its own"

"$VMALYZE" -a --cpu-hz $HZ --guest-tsc "$G@d1=3000000,1.5" "$H" "$G" >"$tmp/m" 2>"$tmp/err" ||
	fail "--guest-tsc exits $?: $(cat "$tmp/err")"
grep -q '^=== ' "$tmp/m" && fail "the combined pair is printed as separate traces"
[ "$(wc -l <"$tmp/m")" -eq $(($(wc -l <"$tmp/host.dump") + $(wc -l <"$tmp/guest.truth"))) ] ||
	fail "the merged dump does not have every record of both"
grep -v ' guest\.dat: ' "$tmp/m" | sed 's/  *host\.xt: / /' | cmp -s - "$tmp/host.dump" ||
	fail "the host's lines changed in the merge"
# the time column never goes back (the first line has none)
sed -n '2,$s/^. *\([0-9]*\.[0-9]*\) .*/\1/p' "$tmp/m" | sort -c -n 2>/dev/null ||
	fail "the merged dump is not in time order"
# each guest line: its time is its truth's host TSC, its vcpu d1v<cpu>, in each cpu's order
grep ' guest\.dat: ' "$tmp/m" | awk '{ print $3, $1 }' | sort -s -k1,1 >"$tmp/got"
awk -v f="$first" '{ t = $2 - f; printf "d1v%s %d.%09d\n", $1, t / 1e9, t % 1e9 }' \
	"$tmp/guest.truth" | sort -s -k1,1 >"$tmp/want"
cmp -s "$tmp/got" "$tmp/want" || fail "guest lines are not at their host times on d1vC: $(diff "$tmp/want" "$tmp/got" | head -3)"

# Raw TSC (no offset, no scale), and no domain: the vcpu column stays unknown.
"$MKDAT" --cpus 1 --xen-guest $((first + 5000)),0 -o "$tmp/raw.dat" >"$tmp/raw.truth" ||
	fail "vmalyze-mkdat --xen-guest raw"
"$VMALYZE" -a --cpu-hz $HZ --guest-tsc "$tmp/raw.dat" "$H" "$tmp/raw.dat" >"$tmp/r" 2>/dev/null ||
	fail "--guest-tsc FILE exits $?"
want=$(awk -v f="$first" 'NR == 1 { t = $2 - f; printf "%d.%09d d?v?", t / 1e9, t % 1e9 }' \
	"$tmp/raw.truth")
[ "$(grep -m1 ' raw\.dat: ' "$tmp/r" | awk '{ print $1, $3 }')" = "$want" ] ||
	fail "a raw-TSC guest's first line is not at $want"

# The timeline has the guest's cpus as tracks named by their Xen vcpu.
"$VMALYZE" --cpu-hz $HZ --timeline "$tmp/t.json" --guest-tsc "$G@d1=3000000,1.5" "$H" "$G" \
	2>/dev/null || fail "--timeline with --guest-tsc exits $?"
grep -q '"guest 1 cpu 1 (d1v1)"' "$tmp/t.json" || fail "the timeline has no track of guest cpu 1"

# Refused: nanoseconds onto a xentrace, a guest whose clock is not TSC,
# a guest of a host not on TSC, malformed specs.
"$VMALYZE" -a --time-offset "$G=5" "$H" "$G" >/dev/null 2>"$tmp/err"
[ $? -ne 0 ] && grep -q 'guest-tsc' "$tmp/err" || fail "--time-offset onto a xentrace is not refused"
L=$top_srcdir/traces/kvm/vmx-v6.dat
"$VMALYZE" -a --guest-tsc "$L@d1" "$H" "$L" >/dev/null 2>"$tmp/err"
[ $? -ne 0 ] && grep -q 'not a TSC clock' "$tmp/err" || fail "a local-clock guest is not refused"
"$VMALYZE" -a --guest-tsc "$G" "$L" "$G" >/dev/null 2>"$tmp/err"
[ $? -ne 0 ] && grep -q "clock is not one" "$tmp/err" || fail "a host not on TSC is not refused"
for bad in "$G@dx=5" "$G@d1=5,0" "@d1" "$tmp/nosuch.dat@d1"; do
	"$VMALYZE" -a --guest-tsc "$bad" "$H" "$G" >/dev/null 2>"$tmp/err"
	[ $? -eq 1 ] && [ -s "$tmp/err" ] || fail "--guest-tsc '$bad' is not a usage error"
done
"$VMALYZE" -a --guest-tsc "$G" --time-offset "$G=5" "$H" "$G" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'clock twice' "$tmp/err" || fail "two clocks for one file are not refused"
"$VMALYZE" -s --guest-tsc "$G@d1" "$H" "$G" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'guest-tsc is for' "$tmp/err" || fail "--guest-tsc with a summary is not refused"

[ $fails -eq 0 ] && echo "PASS: a xentrace and a TSC-clocked guest on one timeline"
exit $((fails > 0))
