#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run.sh SECONDS TARGET...: runs each libFuzzer target for SECONDS, seeded
# from traces/ (and, for the page decoder, single pages of the raw dump),
# its corpus in the build tree first merged into a minimal one when it has
# grown past FUZZ_CORPUS_MAX inputs (default 1000; 0: never) and to twice
# what the last merge left,
# with the dictionary, 10 s per input and 512 MiB at most (ASan's own
# overhead included; its quarantine of freed memory kept to 32 MiB, see
# doc/fuzzing.md).  Fails when a target finds a crash, a leak, a
# timeout or an out-of-memory: the input is left as
# tests/fuzz/findings/<target>-crash-* (or -leak-, -timeout-, -oom-) in the
# build tree, to be kept in traces/bad/ with its expected status
# (traces/bad/EXPECTED) once fixed.
#
# libtraceevent can crash on a damaged format text, so formats are parsed
# first by a helper process (src/input/format-check.c; for the fuzzers, the
# fuzzer itself run again): a crash there is the designed outcome, is not
# seen by libFuzzer and leaves no artifact.
set -u
secs=$1
shift
src=$(cd "$(dirname "$0")/../.." && pwd)
out=tests/fuzz/findings
mkdir -p "$out"
export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=32"
export ASAN_OPTIONS
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
cp "$src"/traces/*.xentrace "$src"/traces/kvm/*.dat "$src"/traces/kvm/*.bin "$src"/traces/bad/* \
	"$seeds/" 2>/dev/null
rm -f "$seeds/EXPECTED"
mkdir "$seeds/pages"
for i in 0 1 2 3 4 5 6 7; do
	{ printf '\000'; dd if="$src/traces/kvm/vmx-raw.bin" bs=4096 skip="$i" count=1 2>/dev/null; } \
		>"$seeds/pages/page$i"
done
corpus_max=${FUZZ_CORPUS_MAX:-1000}
status=0
limits="-timeout=10 -rss_limit_mb=512 -max_len=131072"

# minimize TARGET CORPUS NAME: CORPUS becomes the inputs of it that add
# coverage (libFuzzer's -merge=1), when it holds more than corpus_max and
# more than twice the inputs the last merge left (CORPUS.merged says how
# many): a minimal corpus larger than corpus_max is not merged again at
# every run.
minimize() {
	n=$(find "$2" -type f | wc -l)
	last=$(cat "$2.merged" 2>/dev/null || echo 0)
	case $last in '' | *[!0-9]*) last=0 ;; esac
	[ "$corpus_max" -gt 0 ] && [ "$n" -gt "$corpus_max" ] && [ "$n" -gt $((2 * last)) ] ||
		return 0
	rm -rf "$2.min"
	mkdir "$2.min"
	# shellcheck disable=SC2086 # $limits is a list of options
	if "$1" -merge=1 $limits "$2.min" "$2" >"$out/$3.merge.log" 2>&1; then
		rm -rf "$2"
		mv "$2.min" "$2"
		left=$(find "$2" -type f | wc -l)
		echo "$left" >"$2.merged"
		echo "     $3: corpus of $n inputs merged into $left"
	else
		rm -rf "$2.min"
		echo "     $3: corpus of $n inputs kept whole, the merge failed; see $out/$3.merge.log"
	fi
}

for t in "$@"; do
	name=$(basename "$t")
	corpus=tests/fuzz/corpus-$name
	mkdir -p "$corpus"
	minimize "$t" "$corpus" "$name"
	case $name in
	fuzz-rawpage) seed="$seeds/pages" ;;
	*) seed="$seeds" ;;
	esac
	# shellcheck disable=SC2086
	"$t" -max_total_time="$secs" $limits \
		-dict="$src/tests/fuzz/vmalyze.dict" -artifact_prefix="$out/$name-" \
		-print_final_stats=1 "$corpus" "$seed" >"$out/$name.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log" | tail -1)
	if [ "$rc" -ne 0 ]; then
		echo "FAIL $name: libFuzzer status $rc after ${runs:-?} runs; see $out/$name.log"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' "$out/$name.log" | head -5
		status=1
	else
		echo "ok   $name: ${runs:-?} runs in ${secs} s, no finding"
	fi
done
exit "$status"
