#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A run in two parts (VMALYZE_SPLIT_AT, --threads 2, -s): the first part's
# summaries joined to the second's print exactly what --threads 1 prints,
# with the same exit status, at seams all through the file, in the
# summary's text, JSON (with histograms), CSV and per-pcpu forms: on every
# xentrace of traces/ and ../shared/traces (when present), on damaged
# files, and on generated hosts of many pcpus with PV guests and lost
# records.  The parts must be joined where nothing stands in the way (-v
# says so), and not joined where the join could not be exact (shadow
# emulations' EIP lists; a second part that reports damage after the
# seam), so that neither way passes for want of being taken.
set -u
: "${VMALYZE:?}" "${VMALYZE_GEN:?}" "${top_srcdir:?}"
SHARED=${SHARED:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checked=0 joined=0

# same LABEL SEAM -- vmalyze arguments...: one thread and two parts agree.
# Sets $how: "joined", "not joined" or "" (no seam reached).
same() {
	label=$1 at=$2
	shift 3
	"$VMALYZE" --threads 1 "$@" >"$tmp/one" 2>/dev/null
	rc1=$?
	VMALYZE_SPLIT_AT=$at "$VMALYZE" -v --threads 2 "$@" >"$tmp/two" 2>"$tmp/err"
	rc2=$?
	how=$(sed -n 's/^vmalyze: info: .*: the two parts are \(joined\)$/\1/p
		s/^vmalyze: info: .*: the second part could \(not\) be joined.*/\1 joined/p' \
		"$tmp/err")
	[ "$how" = joined ] && joined=$((joined + 1))
	checked=$((checked + 1))
	if [ "$rc1" -ne "$rc2" ]; then
		echo "FAIL $label at $at: exit status $rc1 on one thread, $rc2 in two parts"
		fails=$((fails + 1))
	elif ! cmp -s "$tmp/one" "$tmp/two"; then
		echo "FAIL $label at $at: two parts ($how) print other than one thread"
		diff "$tmp/one" "$tmp/two" | head -5
		fails=$((fails + 1))
	fi
}

# expect LABEL WANT: the last same() ended as WANT says.
expect() {
	checked=$((checked + 1))
	if [ "$how" != "$2" ]; then
		echo "FAIL $1: the parts '$how', expected '$2'"
		fails=$((fails + 1))
	fi
}

# every_form LABEL SEAM TRACE
every_form() {
	same "$1 -s" "$2" -- -s "$3"
	same "$1 json" "$2" -- -s --json --histogram "$3"
	same "$1 csv" "$2" -- -s --csv "$3"
	same "$1 pcpu" "$2" -- -s --report-pcpu "$3"
}

seams="0.1 0.3 0.5 0.7 0.9"
for t in "$top_srcdir"/traces/*.xentrace "$top_srcdir"/traces/bad/*.xentrace; do
	for at in $seams; do
		every_form "${t##*/}" "$at" "$t"
	done
done
if [ -n "$SHARED" ] && [ -d "$SHARED/traces" ]; then
	for t in "$SHARED"/traces/*.xentrace; do
		[ -f "$t" ] || continue
		for at in $seams; do
			every_form "shared/${t##*/}" "$at" "$t"
		done
		expect "shared/${t##*/} at 0.9" joined
	done
else
	echo "note: no ../shared/traces, real traces not split"
fi

# A seam every twentieth of the file: each falls on other open arcs,
# pending refinements, runstates and wake-to-halt starts.
t="$top_srcdir/traces/gen-vmx-4cpu.xentrace"
for at in 0.05 0.15 0.2 0.25 0.35 0.4 0.45 0.55 0.6 0.65 0.75 0.8 0.85 0.95; do
	same "gen-vmx-4cpu -s" "$at" -- -s --json --histogram "$t"
	expect "gen-vmx-4cpu at $at" joined
done
same "gen-pv-lost" 0.5 -- -s "$top_srcdir/traces/gen-pv-lost.xentrace"
expect "gen-pv-lost at 0.5" joined
# Shadow emulations are kept by guest EIP in a list the join does not build.
same "gen-vmx-shadow" 0.5 -- -s "$top_srcdir/traces/gen-vmx-shadow.xentrace"
expect "gen-vmx-shadow at 0.5" "not joined"

# Many pcpus, PV guests, lost records; MMIO addresses that rarely repeat
# fill the refinements' tables past their cap (VMA_MAX_SUBS).
"$VMALYZE_GEN" --seed 7 --pcpus 40 --domains 9 --vcpus 4 --pv-domains 2 --lost 30 \
	--size 6M --out "$tmp/wide.xentrace" || { echo "FAIL: vmalyze-gen"; exit 1; }
for at in 0.2 0.5 0.8; do
	every_form gen-40cpu "$at" "$tmp/wide.xentrace"
	expect "gen-40cpu at $at" joined
done
# One vcpu's MMIO addresses past the cap of its refinements' table: the
# second part keeps every key (the cap lifted), the join applies the cap
# where one run met it.
"$VMALYZE_GEN" --seed 5 --pcpus 2 --domains 1 --vcpus 1 --size 8M \
	--out "$tmp/one.xentrace" || { echo "FAIL: vmalyze-gen"; exit 1; }
checked=$((checked + 1))
if ! "$VMALYZE" -s "$tmp/one.xentrace" | grep -q 'other:\['; then
	echo "FAIL: the 8 MiB host's MMIO table has no \"other\" row to test the cap with"
	fails=$((fails + 1))
fi
for at in 0.3 0.6; do
	same gen-1vcpu "$at" -- -s "$tmp/one.xentrace"
	expect "gen-1vcpu at $at" joined
done
# Damage after the seam: the second part reports it, so the first goes on alone.
head -c 3000001 "$tmp/wide.xentrace" >"$tmp/cut.xentrace"
same gen-40cpu-truncated 0.3 -- -s "$tmp/cut.xentrace"
expect "gen-40cpu-truncated at 0.3" "not joined"

# Not asked for, no split: two threads are a reader thread.
"$VMALYZE" -v --threads 2 -s "$tmp/wide.xentrace" 2>"$tmp/err" >/dev/null
checked=$((checked + 1))
if grep -q "analysed in two parts" "$tmp/err"; then
	echo "FAIL: a run in two parts without VMALYZE_SPLIT_AT"
	fails=$((fails + 1))
fi

# A value that is not a share: said on stderr, and no split.
VMALYZE_SPLIT_AT=1.5 "$VMALYZE" -v --threads 2 -s "$tmp/wide.xentrace" 2>"$tmp/err" >/dev/null
checked=$((checked + 1))
if ! grep -q "VMALYZE_SPLIT_AT=1.5 is not a share" "$tmp/err" ||
	grep -q "analysed in two parts" "$tmp/err"
then
	echo "FAIL: VMALYZE_SPLIT_AT=1.5 not reported, or a run in two parts all the same"
	fails=$((fails + 1))
fi

echo "split: $checked checks, $joined runs joined, $fails failed"
[ "$joined" -gt 0 ] || { echo "FAIL: no run was joined"; exit 1; }
[ "$fails" -eq 0 ]
