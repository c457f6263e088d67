#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --memory-budget: below the budget the summary is what it was (the
# default budget changes no byte of a small trace's text or JSON); past it
# the text says when and what was given up and JSON carries "precision",
# counts and totals stay the same; bad sizes are refused with status 1.
set -u
: "${VMALYZE:?}" "${top_builddir:?}"
GEN="$top_builddir/tools/vmalyze-gen"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=1; }

"$GEN" --domains 8 --vcpus 2 --pcpus 4 --size 16M --out "$tmp/t.xt" ||
	{ echo "FAIL: vmalyze-gen"; exit 1; }
"$VMALYZE" -s "$tmp/t.xt" >"$tmp/default.txt" 2>/dev/null || fail "default run"
"$VMALYZE" -s --memory-budget 0 "$tmp/t.xt" >"$tmp/none.txt" 2>/dev/null || fail "0 run"
"$VMALYZE" -s --memory-budget 1M "$tmp/t.xt" >"$tmp/small.txt" 2>/dev/null || fail "1M run"
"$VMALYZE" -s --json --memory-budget 1M "$tmp/t.xt" >"$tmp/small.json" 2>/dev/null ||
	fail "1M json"
"$VMALYZE" -s --json "$tmp/t.xt" >"$tmp/default.json" 2>/dev/null || fail "default json"

cmp -s "$tmp/default.txt" "$tmp/none.txt" || fail "a budget not reached changed the summary"
grep -q '^Memory budget' "$tmp/default.txt" && fail "the default budget reached on 16 MiB"
grep -q '"precision"' "$tmp/default.json" && fail "JSON precision without a reached budget"
line='^Memory budget of 1.0 MiB for distributions reached at [0-9.]* seconds (record [0-9]*): '
line=$line'sketch percentiles within [0-9.]*% ([0-9]* buckets per power of two), '
line=$line'exact samples at most [0-9]*; peak [0-9.]* MiB$'
grep -q "$line" "$tmp/small.txt" || fail "no budget line at 1M: $(sed -n 2p "$tmp/small.txt")"
grep -q '"precision":{"memory_budget":1048576,"reached_seconds":' "$tmp/small.json" ||
	fail "no JSON precision at 1M"
# Precision, not counts: the lines without their percentiles are the same.
strip() { grep -v '^Memory budget' "$1" | sed 's/ {[0-9| ]*}$//'; }
strip "$tmp/none.txt" >"$tmp/a"
strip "$tmp/small.txt" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "counts or totals changed under the budget"
# Every output is told on stderr, CSV too (it has no line of its own for it), once.
"$VMALYZE" --csv --memory-budget 1M "$tmp/t.xt" >/dev/null 2>"$tmp/csv.err" || fail "1M csv"
[ "$(grep -c 'memory budget of 1.0 MiB for distributions was reached' "$tmp/csv.err")" = 1 ] ||
	fail "CSV under a reached budget: no single stderr warning: $(cat "$tmp/csv.err")"
"$VMALYZE" --csv "$tmp/t.xt" >/dev/null 2>"$tmp/csv0.err" || fail "default csv"
grep -q 'memory budget' "$tmp/csv0.err" && fail "a warning without a reached budget"
for bad in 1 1023K 2T -5 12X M; do
	"$VMALYZE" -s --memory-budget "$bad" "$tmp/t.xt" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] && grep -q 'bad --memory-budget' "$tmp/err" ||
		fail "--memory-budget $bad: status $rc"
done
exit $fails
