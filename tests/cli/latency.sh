#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --latency from the command line, on the generated agent pair (written by
# tools/vmalyze-mkdat --pair, which prints the truth): the text report
# lists the wake-ups at or above --threshold with the generator's split;
# JSON and CSV carry the same numbers; the host alone gives its vcpu
# thread's split; options that do not go with it are refused.  On the
# real pair (../shared/traces, skipped when absent) every listed wake-up's
# causes add up to its latency.  Runs that print no event's text start no
# format-check helper.
set -u
: "${VMALYZE:?}" "${top_builddir:?}" "${SHARED:?}"
MKDAT=$top_builddir/tools/vmalyze-mkdat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
H=$tmp/host.dat G=$tmp/guest.dat

"$MKDAT" --pair "$G" -o "$H" >"$tmp/truth" || { echo "FAIL: vmalyze-mkdat --pair"; exit 1; }

"$VMALYZE" --latency --threshold 100us "$H" "$G" >"$tmp/text" 2>"$tmp/err" ||
	fail "--latency exits $?"
grep -q 'threshold 100.0 us (--threshold): 2 wake-ups at or above it' "$tmp/text" ||
	fail "not the 2 wake-ups from 100 us"
grep -q 'pid 101 worker (host thread 3000): 300.0 us: preempted by stress 66.7% 200.0 us, guest 33.3% 100.0 us$' \
	"$tmp/text" || fail "the preempted wake-up's split"
grep -q 'pid 100 rt-task (host thread 3000): 200.0 us: halted 70.0% 140.0 us, guest 30.0% 60.0 us$' \
	"$tmp/text" || fail "the halted wake-up's split"

# JSON: the truth's numbers for every wake-up (threshold 1 ns lists all four).
"$VMALYZE" --latency --json --threshold 1ns "$H" "$G" >"$tmp/json" 2>/dev/null || fail "--json exits $?"
if command -v jq >/dev/null 2>&1; then
	jq -r '.latency.worst[] | "wakeup \(.start_ns) \(.latency_ns) \(.pid) \(.comm)",
	       (.causes[] | "  \(.cause)\t\(.ns)")' "$tmp/json" | sort >"$tmp/got"
	jq -r '.latency.host_threads[] | "thread \(.tid) \(.ns)", (.causes[] | "  \(.cause)\t\(.ns)")' \
		"$tmp/json" | sort >>"$tmp/got"
	grep -v '^#' "$tmp/truth" | sort >"$tmp/want"
	sort "$tmp/got" | cmp -s - "$tmp/want" || { fail "JSON differs from the truth"; diff "$tmp/want" "$tmp/got" | head; }
else
	echo "skip JSON check: no jq"
fi

# CSV: one header, a row per cause of each wake-up, the aggregate, the thread.
"$VMALYZE" --latency --csv --threshold 1ns "$H" "$G" >"$tmp/csv" 2>/dev/null || fail "--csv exits $?"
[ "$(head -1 "$tmp/csv")" = "kind,start_ns,pid,comm,cpu,host_tid,total_ns,cause,ns" ] || fail "CSV header"
grep -q '^wakeup,1000100000,101,worker,0,3000,300000,preempted by stress,200000$' "$tmp/csv" ||
	fail "CSV row of the preempted wake-up"
[ "$(grep -c '^wakeup,' "$tmp/csv")" -eq 8 ] || fail "CSV: not 8 wake-up causes"

# The scenario 200 times (every 1 ms): 800 wake-ups, a quarter of them
# the p99's 300 us ties, all summed; the thread's time 200 times plus the
# 99 us in guest code between two.
"$MKDAT" --pair "$tmp/g200" --pair-times 200 -o "$tmp/h200" >/dev/null ||
	fail "vmalyze-mkdat --pair-times"
"$VMALYZE" --latency "$tmp/h200" "$tmp/g200" >"$tmp/times" 2>/dev/null || fail "200 times exits $?"
grep -q '^  wake-ups 800  p50 50.0 us  p99 300.0 us  max 300.0 us$' "$tmp/times" &&
	grep -q '^  threshold 300.0 us (the guest.s p99): 200 wake-ups at or above it$' "$tmp/times" &&
	grep -q '^  Share of latency by cause, over those 200 (60000.0 us):$' "$tmp/times" &&
	grep -q '^  thread 3000 (199901.0 us): guest 63.4% 126701.0 us, ' "$tmp/times" ||
	fail "200 times: not the scenario's numbers"

# The user's own pair of guest events: sched_wakeup (1 us after sched_waking)
# to the next sched_switch on the cpu: each interval 1 us shorter, taken
# from the guest's share (the first 1 us of each wake-up ran guest code).
"$VMALYZE" --latency --latency-events sched_wakeup,sched_switch --threshold 100us "$H" "$G" \
	>"$tmp/pair" 2>/dev/null || fail "--latency-events exits $?"
grep -q '(sched_wakeup to the next sched_switch on its cpu)' "$tmp/pair" &&
	grep -q ': 299.0 us: preempted by stress 66.9% 200.0 us, guest 33.1% 99.0 us$' "$tmp/pair" &&
	grep -q ': 199.0 us: halted 70.4% 140.0 us, guest 29.6% 59.0 us$' "$tmp/pair" ||
	fail "--latency-events: not the generator's intervals"
"$VMALYZE" --latency --latency-events nosuch,other "$H" "$G" >/dev/null 2>"$tmp/err"
grep -q 'no nosuch or other record' "$tmp/err" || fail "--latency-events of absent events: no warning"

# The host alone: no guest, its vcpu thread's time by cause all the same.
"$VMALYZE" --latency "$H" >"$tmp/host" 2>/dev/null || fail "--latency HOST exits $?"
grep -q '^No guest trace' "$tmp/host" && grep -q 'thread 3000 (901.0 us): guest 59.4% 535.0 us' "$tmp/host" ||
	fail "the host-only split"

for bad in "--latency -a" "--latency -s" "--latency --histogram" "--threshold 5us" \
	   "--latency --top 3" "--latency --vcpu 1" "--latency-events a,b" \
	   "--latency --latency-events a" "--latency --latency-events ,b" \
	   "--latency --threshold 0" "--latency --threshold 5parsecs"; do
	# shellcheck disable=SC2086
	"$VMALYZE" $bad "$H" "$G" >/dev/null 2>"$tmp/err"
	[ $? -eq 1 ] && [ -s "$tmp/err" ] || fail "'$bad' is not a usage error"
done

# Runs that print no event's text start no format-check helper: the pass
# that reads the files' trace ids, the linked run of --latency and of
# --timeline, and -s read the formats' field lines alone.  The dump still
# starts it.  tests/cli/refuse-lib.so logs every posix_spawn().
shim=$top_builddir/tests/cli/refuse-lib.so
if [ -f "$shim" ] && [ -z "${VMA_SANITIZED:-}" ]; then
	for run in "--latency $H $G" "--timeline $tmp/t.svg $H $G" "-s $H" "-a $H $G"; do
		: >"$tmp/spawns"
		# shellcheck disable=SC2086 # the run's arguments
		LD_PRELOAD=$shim VMA_REFUSE_LIB=none-such VMA_SPAWN_LOG=$tmp/spawns \
			"$VMALYZE" $run >/dev/null 2>"$tmp/err" || fail "'$run' exits $?"
		case $run in
		-a*) [ -s "$tmp/spawns" ] || fail "'$run' started no helper (is the log working?)" ;;
		*) [ -s "$tmp/spawns" ] && fail "'$run' started the format-check helper" ;;
		esac
	done
else
	echo "skip the helper's starts: no $shim (or a sanitized build)"
fi

RH=$SHARED/traces/kvm-vmx-host.dat RG=$SHARED/traces/kvm-vmx-guest.dat
if [ -f "$RH" ] && [ -f "$RG" ]; then
	"$VMALYZE" --latency --json "$RH" "$RG" >"$tmp/real" 2>/dev/null || fail "real pair exits $?"
	if command -v jq >/dev/null 2>&1; then
		jq -e '.latency.wakeups == 2162 and .latency.above > 0 and
		       ([.latency.worst[] | (.latency_ns == ([.causes[].ns] | add))] | all) and
		       (.latency.aggregate.ns == ([.latency.aggregate.causes[].ns] | add))' \
			"$tmp/real" >/dev/null || fail "real pair: causes do not add up"
	fi
else
	echo "skip the real pair: absent"
fi

[ "$fails" -eq 0 ] && echo "ok: --latency"
[ "$fails" -eq 0 ]
