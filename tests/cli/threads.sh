#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --threads 2 (a reader thread) prints exactly what --threads 1 prints,
# with the same exit status, in every mode, on every trace of traces/ and ../shared/traces (when
# present), on damaged files, on generated hosts of many pcpus (the merge's
# tree) with lost records; and --threads rejects what it does not mean.
# (tests/unit/test-feed.c checks a pcpu that a reader finds late.)
set -u
: "${VMALYZE:?}" "${VMALYZE_GEN:?}" "${top_srcdir:?}" "${top_builddir:?}"
SHARED=${SHARED:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checked=0

# same LABEL -- vmalyze arguments...: --threads 1 and 2 agree on stdout and status.
same() {
	label=$1
	shift 2
	"$VMALYZE" --threads 1 "$@" >"$tmp/one" 2>/dev/null
	rc1=$?
	"$VMALYZE" --threads 2 "$@" >"$tmp/two" 2>/dev/null
	rc2=$?
	checked=$((checked + 1))
	if [ "$rc1" -ne "$rc2" ]; then
		echo "FAIL $label: exit status $rc1 with --threads 1, $rc2 with --threads 2"
		fails=$((fails + 1))
	elif ! cmp -s "$tmp/one" "$tmp/two"; then
		echo "FAIL $label: --threads 2 output differs from --threads 1"
		diff "$tmp/one" "$tmp/two" | head -5
		fails=$((fails + 1))
	elif [ ! -s "$tmp/one" ] && [ "$rc1" -lt 2 ]; then
		echo "FAIL $label: no output"
		fails=$((fails + 1))
	fi
}

# every_mode LABEL [--event-formats DIR] TRACE
every_mode() {
	label=$1
	shift
	most_modes "$label" "$@"
	same "$label -i" -- -s -i 0.001 "$@"
}

# most_modes: all but the interval series (whose length follows the time
# stamps, which a fuzzed file can spread over years)
most_modes() {
	label=$1
	shift
	same "$label -s" -- -s "$@"
	same "$label -a" -- -a "$@"
	same "$label json" -- -s --json --histogram "$@"
	same "$label pcpu" -- -s --report-pcpu "$@"
}

for t in "$top_srcdir"/traces/*.xentrace "$top_srcdir"/traces/kvm/*.dat; do
	every_mode "${t##*/}" "$t"
done
for t in "$top_srcdir"/traces/bad/*.dat; do
	most_modes "${t##*/}" "$t"
done
every_mode vmx-raw.bin --event-formats "$top_srcdir/traces/kvm/vmx-raw-formats" \
	"$top_srcdir/traces/kvm/vmx-raw.bin"

if [ -n "$SHARED" ] && [ -d "$SHARED/traces" ]; then
	for t in "$SHARED"/traces/*.xentrace "$SHARED"/traces/*.dat; do
		[ -f "$t" ] && every_mode "shared/${t##*/}" "$t"
	done
	if [ -f "$SHARED/traces/kvm-pvm-vmtrace.bin" ]; then
		every_mode shared/kvm-pvm-vmtrace.bin --event-formats "$SHARED/traces/kvm-pvm-formats" \
			"$SHARED/traces/kvm-pvm-vmtrace.bin"
	fi
else
	echo "note: no ../shared/traces, real traces not compared"
fi

# Many pcpus (past the merge's sorted array), PV guests, lost records;
# several MiB, so that the reader thread runs well ahead through many batches.
"$VMALYZE_GEN" --seed 7 --pcpus 40 --domains 9 --vcpus 4 --pv-domains 2 --lost 30 \
	--size 6M --out "$tmp/wide.xentrace" || { echo "FAIL: vmalyze-gen"; exit 1; }
every_mode gen-40cpu "$tmp/wide.xentrace"
# A truncated copy: the input ends in the middle of a record.
head -c 3000001 "$tmp/wide.xentrace" >"$tmp/cut.xentrace"
same gen-40cpu-truncated -- -s "$tmp/cut.xentrace"
# Two files in one run.
same two-files -- -s "$tmp/wide.xentrace" "$top_srcdir/traces/gen-vmx-4cpu.xentrace"

# The default: when two cpus may run this process, a reader thread for one
# xentrace file of 16 MiB or more or one trace.dat of 1 MiB or more of
# event data (not counting its formats and symbols); one thread for
# smaller ones, for traces analysed at once (-j 2) and for a pipe (read
# as it comes); --threads N whatever the size.
# -v names the way each trace was read; on the cpus of $cpus (taskset)
# when it is set.
cpus=
how() {
	if [ -n "$cpus" ]; then
		set -- taskset -c "$cpus" "$VMALYZE" -v "$@"
	else
		set -- "$VMALYZE" -v "$@"
	fi
	"$@" 2>&1 >/dev/null | sed -n 's/^vmalyze: info: .*: \(read and [a-z ,]*\)$/\1/p' |
		tr '\n' '|'
}
expect_how() {
	label=$1 want=$2
	shift 2
	got=$(how "$@")
	checked=$((checked + 1))
	if [ "$got" != "$want" ]; then
		echo "FAIL default threads, $label: '$got', expected '$want'"
		fails=$((fails + 1))
	fi
}
one="read and analysed on one thread|"
two="read and merged on a second thread|"
small="$top_srcdir/traces/gen-vmx-4cpu.xentrace"
"$VMALYZE_GEN" --seed 3 --size 17M --out "$tmp/big.xentrace" || { echo "FAIL: vmalyze-gen"; exit 1; }
# A trace.dat of 1.2 MiB, nearly all event data; and one of 1.4 MiB with
# 0.1 MiB of event data (a real capture's formats and symbols can be more
# than its events): the size that counts is the data's.
"$top_builddir/tools/vmalyze-mkdat" --version 6 --cpus 4 --vcpus 8 --exits 1000 \
	-o "$tmp/big.dat" || { echo "FAIL: vmalyze-mkdat"; exit 1; }
"$top_builddir/tools/vmalyze-mkdat" --version 6 --cpus 4 --vcpus 8 --exits 100 \
	-o "$tmp/small.dat" || { echo "FAIL: vmalyze-mkdat"; exit 1; }
head -c 1300000 /dev/zero >>"$tmp/small.dat"
if [ "$(nproc)" -ge 2 ]; then big_default=$two; else big_default=$one; fi
expect_how "a small file" "$one" -s "$small"
expect_how "a file of 17 MiB" "$big_default" -s "$tmp/big.xentrace"
expect_how "a small trace.dat" "$one" -s "$top_srcdir/traces/kvm/vmx-v6.dat"
expect_how "a trace.dat of 1.2 MiB of events" "$big_default" -s "$tmp/big.dat"
expect_how "a trace.dat of 1.4 MiB, 0.1 MiB of events" "$one" -s "$tmp/small.dat"
expect_how "a trace.dat of 1.2 MiB of events, --threads 1" "$one" --threads 1 -s "$tmp/big.dat"
expect_how "a small trace.dat, --threads 2" "$two" --threads 2 -s "$top_srcdir/traces/kvm/vmx-v6.dat"
# One cpu to run on: one thread by default, whatever the trace.
if command -v taskset >/dev/null 2>&1; then
	cpus=0
	expect_how "one cpu, a file of 17 MiB" "$one" -s "$tmp/big.xentrace"
	expect_how "one cpu, a trace.dat of 1.2 MiB of events" "$one" -s "$tmp/big.dat"
	cpus=
else
	echo "note: no taskset, the one-cpu default not checked"
fi
expect_how "a small file, --threads 2" "$two" --threads 2 -s "$small"
# Its waits spin only when every trace at once can have two cpus (on two
# cpus, -j 2 --threads 2 runs four threads: a spinning one holds a cpu
# another trace's thread needs).
sleeping="read and merged on a second thread, which sleeps when it waits|"
if command -v taskset >/dev/null 2>&1 && taskset -c 0,1 true 2>/dev/null; then
	cpus=0,1
	expect_how "two cpus, --threads 2 -j 1" "$two$two" --threads 2 -j 1 -s "$small" \
		"$tmp/big.xentrace"
	expect_how "two cpus, --threads 2 -j 2" "$sleeping$sleeping" --threads 2 -j 2 -s "$small" \
		"$tmp/big.xentrace"
	cpus=
else
	echo "note: no taskset or no second cpu, the spin's rule not checked"
fi
expect_how "a file of 17 MiB, --threads 1" "$one" --threads 1 -s "$tmp/big.xentrace"
expect_how "two files, -j 2" "$one$one" -j 2 -s "$small" "$tmp/big.xentrace"
expect_how "two files, -j 1" "$one$big_default" -j 1 -s "$small" "$tmp/big.xentrace"
mkdir "$tmp/dir" && cp "$small" "$tmp/big.xentrace" "$tmp/dir/"
expect_how "a folder of two, -j 2" "$one$one" -j 2 -s "$tmp/dir"
expect_how "a folder of two, -j 1" "$big_default$one" -j 1 -s "$tmp/dir"
expect_how "standard input from the file" "$big_default" -s - <"$tmp/big.xentrace"
got=$(cat "$tmp/big.xentrace" | how -s -)
checked=$((checked + 1))
if [ "$got" != "$one" ]; then
	echo "FAIL default threads, a pipe: '$got', expected '$one'"
	fails=$((fails + 1))
fi

# -v tells where a reader thread's run went: each thread's CPU time and
# waits, once per trace; nothing of the kind on one thread.
times_re='the reader thread ran [0-9.]* s (CPU), waiting [0-9.]* s of it or asleep for the analysis; the analysis ran [0-9.]* s, waiting [0-9.]* s for records$'
checked=$((checked + 1))
n2=$("$VMALYZE" -v --threads 2 -s "$tmp/big.xentrace" 2>&1 >/dev/null | grep -c "$times_re")
n1=$("$VMALYZE" -v --threads 1 -s "$tmp/big.xentrace" 2>&1 >/dev/null | grep -c "reader thread ran")
busy=$("$VMALYZE" -v --threads 2 -s "$tmp/big.xentrace" 2>&1 >/dev/null |
	sed -n 's/.*the reader thread ran \([0-9.]*\) s.*the analysis ran \([0-9.]*\) s.*/\1 \2/p')
if [ "$n2" != 1 ] || [ "$n1" != 0 ]; then
	echo "FAIL -v thread times: $n2 lines with --threads 2 (expected 1), $n1 with --threads 1"
	fails=$((fails + 1))
elif ! echo "$busy" | awk '{ exit !($1 > 0 && $2 > 0) }'; then
	echo "FAIL -v thread times: no CPU time for a thread of a 17 MiB run: '$busy'"
	fails=$((fails + 1))
fi

# Bad --threads values are refused (status 1), good ones accepted.
for bad in 0 3 x ""; do
	if "$VMALYZE" --threads "$bad" -s "$top_srcdir/traces/gen-vmx-4cpu.xentrace" >/dev/null 2>&1; then
		echo "FAIL: --threads '$bad' accepted"
		fails=$((fails + 1))
	elif [ $? -ne 1 ]; then
		echo "FAIL: --threads '$bad' not a usage error"
		fails=$((fails + 1))
	fi
done

[ "$fails" -eq 0 ] && echo "ok   $checked runs: --threads 2 prints what --threads 1 prints"
[ "$fails" -eq 0 ]
