#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Records taken ahead of the merge (-s on one thread, pipeline-ahead.c):
# the run prints exactly what it prints with every record in time order
# (VMALYZE_IN_ORDER), on stdout and on stderr, with the same exit status:
# on every xentrace of traces/ and ../shared/traces (when present), on
# damaged files, on generated hosts of many pcpus with PV guests and lost
# records (one of PV guests only; of both vendors, Xen 4.17's ids and
# 4.19's, and one of bench/xtsim's), and with memory budgets small enough
# to be reached; and where few records could go and the run gives up
# taking them.  Records must be taken ahead where nothing stands in the
# way (-v says how many), and the run made again in time order where the
# order could tell (a message, a runstate changed from another pcpu,
# while records were out), so that neither way passes for want of being
# taken.
set -u
: "${VMALYZE:?}" "${VMALYZE_GEN:?}" "${top_srcdir:?}" "${top_builddir:?}"
MKBAD="$top_builddir/tests/cli/vmalyze-mkbad"
SHARED=${SHARED:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checked=0 taken=0 again=0

# same LABEL -- vmalyze arguments...: in time order and ahead agree.
# Sets $how: "ahead" (records were taken ahead), "again" (the run was
# made again in time order) or "" (neither).
same() {
	label=$1
	shift 2
	VMALYZE_IN_ORDER=1 "$VMALYZE" --threads 1 "$@" >"$tmp/order" 2>"$tmp/order.err"
	rc1=$?
	"$VMALYZE" --threads 1 "$@" >"$tmp/ahead" 2>"$tmp/ahead.err"
	rc2=$?
	"$VMALYZE" -v --threads 1 "$@" >/dev/null 2>"$tmp/verbose"
	how=
	if grep -q ': read again in time order' "$tmp/verbose"; then
		how=again
		again=$((again + 1))
	elif grep -q ': [0-9]* records taken ahead of the merge, the rest in time order' \
		"$tmp/verbose"; then
		how=gave-up
	elif grep -q ': [1-9][0-9]* records taken ahead of the merge' "$tmp/verbose"; then
		how=ahead
		taken=$((taken + 1))
	fi
	checked=$((checked + 1))
	if [ "$rc1" -ne "$rc2" ]; then
		echo "FAIL $label: exit status $rc1 in time order, $rc2 ahead"
		fails=$((fails + 1))
	elif ! cmp -s "$tmp/order" "$tmp/ahead"; then
		echo "FAIL $label: ahead ($how) prints other than in time order"
		diff "$tmp/order" "$tmp/ahead" | head -5
		fails=$((fails + 1))
	elif ! cmp -s "$tmp/order.err" "$tmp/ahead.err"; then
		echo "FAIL $label: ahead ($how) says other than in time order"
		diff "$tmp/order.err" "$tmp/ahead.err" | head -5
		fails=$((fails + 1))
	fi
}

# expect LABEL WANT: the last same() went as WANT says.
expect() {
	checked=$((checked + 1))
	if [ "$how" != "$2" ]; then
		echo "FAIL $1: the run went '$how', expected '$2'"
		fails=$((fails + 1))
	fi
}

# succeeded: the last same() ran (exit status 0), so that it compared runs, not refusals.
succeeded() {
	checked=$((checked + 1))
	if [ "$rc1" -ne 0 ]; then
		echo "FAIL $label: exit status $rc1"
		fails=$((fails + 1))
	fi
}

# every_form LABEL TRACE
every_form() {
	same "$1 -s" -- -s "$2"
	same "$1 json" -- -s --json --histogram "$2"
	same "$1 csv" -- -s --csv "$2"
	same "$1 pcpu" -- -s --report-pcpu "$2"
}

for t in "$top_srcdir"/traces/*.xentrace "$top_srcdir"/traces/bad/*.xentrace; do
	every_form "${t##*/}" "$t"
done
# A trace of a few thousand records ends within the warm-up: in time order.
same gen-vmx-4cpu -- -s "$top_srcdir/traces/gen-vmx-4cpu.xentrace"
expect gen-vmx-4cpu ""
if [ -n "$SHARED" ] && [ -d "$SHARED/traces" ]; then
	for t in "$SHARED"/traces/*.xentrace; do
		[ -f "$t" ] || continue
		every_form "shared/${t##*/}" "$t"
	done
else
	echo "note: no ../shared/traces, real traces not compared"
fi

# Many pcpus, PV guests, lost records; budgets reached early and late.
"$VMALYZE_GEN" --seed 7 --pcpus 40 --domains 9 --vcpus 4 --pv-domains 2 --lost 30 \
	--size 6M --out "$tmp/wide.xentrace" || { echo "FAIL: vmalyze-gen"; exit 1; }
every_form gen-40cpu "$tmp/wide.xentrace"
expect "gen-40cpu pcpu" ahead
for b in 1M 1100K 2M 3M; do
	same "gen-40cpu --memory-budget $b" -- -s --memory-budget "$b" "$tmp/wide.xentrace"
	succeeded
done
# Once the rows' budget is reached every later charge is refused, which no
# order changes: records go ahead after it as before it (at 1M it is
# reached within the first 10,000 records).
ahead_count() {
	"$VMALYZE" -v --threads 1 -s "$@" 2>&1 >/dev/null |
		sed -n 's/.*: \([0-9]*\) records taken ahead of the merge$/\1/p'
}
free_run=$(ahead_count "$tmp/wide.xentrace")
budget_run=$(ahead_count --memory-budget 1M "$tmp/wide.xentrace")
checked=$((checked + 1))
if ! "$VMALYZE" -s --memory-budget 1M "$tmp/wide.xentrace" 2>&1 >/dev/null |
	grep -q 'budget of .* for rows was reached'; then
	echo "FAIL gen-40cpu --memory-budget 1M: the rows' budget not reached"
	fails=$((fails + 1))
elif [ -z "$free_run" ] || [ -z "$budget_run" ] || [ $((budget_run * 2)) -lt "$free_run" ]; then
	echo "FAIL gen-40cpu --memory-budget 1M: '$budget_run' records ahead, '$free_run' without"
	fails=$((fails + 1))
fi
# 1,024 vcpus on 64 pcpus: past the rows' part, their "other" rows are
# charged all the same and lower the distributions' part while records
# are out; records stop going out before its step falls (here so often
# that the run gives up taking them), and the run is not made again (it
# was, at the step: a host of 8,160 vcpus at record 9 million of its 45).
"$VMALYZE_GEN" --seed 1 --pcpus 64 --domains 64 --vcpus 16 --size 8M \
	--out "$tmp/rows.xentrace" || { echo "FAIL: vmalyze-gen"; exit 1; }
same "gen-64cpu-rows --memory-budget 2M" -- -s --memory-budget 2M "$tmp/rows.xentrace"
checked=$((checked + 1))
if [ "$how" != ahead ] && [ "$how" != gave-up ]; then
	echo "FAIL gen-64cpu-rows --memory-budget 2M: the run went '$how', not ahead"
	fails=$((fails + 1))
elif ! grep -q 'budget of .* for distributions was reached' "$tmp/ahead.err"; then
	echo "FAIL gen-64cpu-rows --memory-budget 2M: the distributions' budget not reached"
	fails=$((fails + 1))
fi
"$VMALYZE_GEN" --seed 3 --pcpus 8 --domains 6 --vcpus 2 --pv-domains 1 --lost 8 \
	--size 12M --out "$tmp/host.xentrace" || { echo "FAIL: vmalyze-gen"; exit 1; }
every_form gen-8cpu "$tmp/host.xentrace"
expect "gen-8cpu pcpu" ahead
for b in 1M 1536K 2M 4M; do
	same "gen-8cpu --memory-budget $b" -- -s --json --memory-budget "$b" "$tmp/host.xentrace"
	succeeded
done
# PV guests only: their records go ahead too (no HVM record could).
"$VMALYZE_GEN" --seed 5 --pcpus 8 --domains 4 --vcpus 2 --pv-domains 4 --lost 2 \
	--size 4M --out "$tmp/pv.xentrace" || { echo "FAIL: vmalyze-gen"; exit 1; }
every_form gen-8cpu-pv "$tmp/pv.xentrace"
expect "gen-8cpu-pv pcpu" ahead
for b in 1M 2M; do
	same "gen-8cpu-pv --memory-budget $b" -- -s --memory-budget "$b" "$tmp/pv.xentrace"
	succeeded
done
# Hosts of other kinds: SVM's ids (Xen 4.19 and 4.17), shadow paging,
# handler records all stamped or none, no wrap records, 64 pcpus; and a
# host of bench/xtsim, which shares no code with vmalyze-gen.
shape=0
for host in "--seed 11 --pcpus 6 --domains 5 --vcpus 3 --pv-domains 1 --vendor svm --shadow" \
	"--seed 12 --pcpus 12 --domains 7 --vcpus 2 --vendor svm-4.17 --no-tsc-ratio 0 --ring 0" \
	"--seed 13 --pcpus 5 --domains 3 --vcpus 4 --pv-domains 2 --no-tsc-ratio 0.5" \
	"--seed 14 --pcpus 64 --domains 7 --vcpus 1 --vendor svm-4.17 --lost 11"; do
	shape=$((shape + 1))
	# shellcheck disable=SC2086 # the host's options, split
	"$VMALYZE_GEN" $host --lost 6 --size 5M --out "$tmp/shape.xentrace" ||
		{ echo "FAIL: vmalyze-gen $host"; exit 1; }
	every_form "shape-$shape" "$tmp/shape.xentrace"
	expect "shape-$shape pcpu" ahead
done
if command -v python3 >/dev/null 2>&1 &&
	python3 "$top_srcdir/bench/xtsim" --seed 5 --pcpus 8 --domains 5 --vcpus 3 --pv-domains 2 \
		--lost 9 --size 8M --out "$tmp/xtsim.xentrace" >/dev/null; then
	every_form xtsim-8cpu "$tmp/xtsim.xentrace"
	expect "xtsim-8cpu pcpu" ahead
	# Two pcpus are enough (a step of the merge saved costs more than the tests).
	python3 "$top_srcdir/bench/xtsim" --seed 9 --pcpus 2 --domains 2 --vcpus 1 --size 3M \
		--out "$tmp/xtsim2.xentrace" >/dev/null || { echo "FAIL: bench/xtsim"; exit 1; }
	every_form xtsim-2cpu "$tmp/xtsim2.xentrace"
	expect "xtsim-2cpu pcpu" ahead
	same "xtsim-8cpu --memory-budget 1M" -- -s --memory-budget 1M "$tmp/xtsim.xentrace"
	succeeded
else
	echo "note: no python3 or bench/xtsim failed, its host not compared"
fi

# Damage in the middle, or a file cut short: the scan at open finds it,
# and the run goes in time order from the start (what the state says near
# the damage would come while records are out, and have it made again).
head -c 6000001 "$tmp/host.xentrace" >"$tmp/cut.xentrace"
tail -c +6000001 "$tmp/host.xentrace" | head -c 6000000 >>"$tmp/cut.xentrace"
same gen-8cpu-damaged -- -s "$tmp/cut.xentrace"
expect gen-8cpu-damaged ""
same gen-8cpu-damaged-tolerated -- -s --tolerance 3 "$tmp/cut.xentrace"
head -c 9000000 "$tmp/host.xentrace" >"$tmp/short.xentrace"
every_form gen-8cpu-short "$tmp/short.xentrace"
expect "gen-8cpu-short pcpu" ""

# A message said while records are out, in a clean file: made again.
"$MKBAD" late-warning "$tmp/warning.xentrace" || { echo "FAIL: vmalyze-mkbad"; exit 1; }
every_form late-warning "$tmp/warning.xentrace"
expect late-warning again

# Fewer than a quarter of the records could go ahead (scheduler records
# between the exits): past the first 65,536, the rest in time order.
"$MKBAD" few-ahead "$tmp/few.xentrace" || { echo "FAIL: vmalyze-mkbad"; exit 1; }
every_form few-ahead "$tmp/few.xentrace"
expect few-ahead gave-up

# A runstate changed from another pcpu than its vcpu's, stamped before
# records of the vcpu taken ahead: the run is made again.
"$MKBAD" cross-runstate "$tmp/cross.xentrace" || { echo "FAIL: vmalyze-mkbad"; exit 1; }
every_form cross-runstate "$tmp/cross.xentrace"
expect cross-runstate again

# Interrupt vectors read ahead while the vendor was not known, then an
# SVM exit (Xen 4.17's ids) tells it from another pcpu: made again.  On
# SVM hosts of Xen's (no vector in the record) the records go ahead.
"$MKBAD" late-vendor "$tmp/vendor.xentrace" || { echo "FAIL: vmalyze-mkbad"; exit 1; }
every_form late-vendor "$tmp/vendor.xentrace"
expect late-vendor again

# Not taken ahead with two threads, nor when asked not to.
"$VMALYZE" -v --threads 2 -s "$tmp/host.xentrace" 2>"$tmp/err" >/dev/null
VMALYZE_IN_ORDER=1 "$VMALYZE" -v --threads 1 -s "$tmp/host.xentrace" 2>>"$tmp/err" >/dev/null
checked=$((checked + 1))
if grep -q "taken ahead of the merge" "$tmp/err"; then
	echo "FAIL: records taken ahead on two threads or with VMALYZE_IN_ORDER"
	fails=$((fails + 1))
fi

echo "ahead: $checked checks, $taken runs took records ahead, $again made again, $fails failed"
[ "$taken" -gt 0 ] || { echo "FAIL: no run took records ahead"; exit 1; }
[ "$fails" -eq 0 ]
