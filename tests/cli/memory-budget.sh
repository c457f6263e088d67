#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --memory-budget: below the budget the summary is what it was (the
# default budget changes no byte of a small trace's text or JSON); past it
# the text says when and what was given up, JSON carries "precision"
# (distributions, seven eighths of the budget) and "rows" (tables of rows,
# an eighth: new keys summed in "other" rows), counts and totals stay the
# same, the rows held stay near their share whatever the host, past the
# distributions' last level summaries take the compact form and say so,
# every output gets one stderr warning of each; traces at once share the budget
# (-j), the same way at every run; bad sizes are refused with status 1.
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
grep -q '"rows":{' "$tmp/default.json" && fail "JSON rows without a reached budget"
# 1M: 0.875 MiB for the distributions, 128 KiB for the rows.
line='^Memory budget of 0.9 MiB for distributions reached at [0-9.]* seconds (record [0-9]*): '
line=$line'sketch percentiles within [0-9.]*% ([0-9]* buckets per power of two), '
line=$line'exact samples at most [0-9]*; peak [0-9.]* MiB$'
grep -q "$line" "$tmp/small.txt" || fail "no budget line at 1M: $(sed -n 2p "$tmp/small.txt")"
line='^Memory budget of 0.1 MiB for rows reached at [0-9.]* seconds (record [0-9]*): '
line=$line'new keys summed in "other" rows, [0-9]* events; peak [0-9.]* MiB$'
grep -q "$line" "$tmp/small.txt" || fail "no rows line at 1M: $(sed -n 3p "$tmp/small.txt")"
grep -q '"precision":{"memory_budget":917504,"reached_seconds":' "$tmp/small.json" ||
	fail "no JSON precision at 1M"
line='"rows":{"memory_budget":131072,"reached_seconds":[0-9.]*,"reached_record":[0-9]*,'
line=$line'"other_events":[1-9][0-9]*,"peak_bytes":[0-9]*}'
grep -q "$line" "$tmp/small.json" || fail "no JSON rows at 1M"
grep -q '\[other\]\|other:\[' "$tmp/small.txt" || fail "no other row at 1M"
# Precision and rows, not counts: exit and runstate rows without their percentiles are the same.
"$VMALYZE" --csv --memory-budget 0 "$tmp/t.xt" 2>/dev/null | cut -d, -f1-15,19- >"$tmp/a" ||
	fail "csv 0"
"$VMALYZE" --csv --memory-budget 1M "$tmp/t.xt" 2>"$tmp/csv.err" | cut -d, -f1-15,19- >"$tmp/b" ||
	fail "1M csv"
cmp -s "$tmp/a" "$tmp/b" || fail "counts or totals changed under the budget"
# Every output is told on stderr, CSV too (it has no line of its own for it), once of each.
[ "$(grep -c 'memory budget of 0.9 MiB for distributions was reached' "$tmp/csv.err")" = 1 ] ||
	fail "CSV under a reached budget: no single stderr warning: $(cat "$tmp/csv.err")"
[ "$(grep -c 'memory budget of 0.1 MiB for rows was reached' "$tmp/csv.err")" = 1 ] ||
	fail "CSV under reached rows: no single stderr warning: $(cat "$tmp/csv.err")"
"$VMALYZE" --csv "$tmp/t.xt" >/dev/null 2>"$tmp/csv0.err" || fail "default csv"
grep -q 'memory budget' "$tmp/csv0.err" && fail "a warning without a reached budget"

# A host of 136 vcpus with tens of ports, addresses and vectors each: its
# rows would take a few MiB; at 1M they stay near their 128 KiB (plus each
# vcpu's first exit reasons and "other" rows, under 2 KiB a vcpu).
"$GEN" --domains 32 --vcpus 4 --pcpus 16 --size 8M --out "$tmp/big.xt" ||
	{ echo "FAIL: vmalyze-gen big"; exit 1; }
"$VMALYZE" --json --memory-budget 1M "$tmp/big.xt" >"$tmp/big.json" 2>/dev/null || fail "big"
peak=$(sed -n 's/.*"rows":{[^}]*"peak_bytes":\([0-9]*\)}.*/\1/p' "$tmp/big.json")
[ -n "$peak" ] && [ "$peak" -le $((131072 + 136 * 2048)) ] ||
	fail "rows of the 136-vcpu host at 1M: peak '${peak:-none}' bytes"

# Past the distributions' last level (exact arrays at 128 samples, sketches
# at 4 buckets per power of two): summaries take the compact form, the
# summary says how many, the distributions stay near their part (0.875 MiB,
# less what the rows hold past theirs), and counts and totals stay exact.
"$VMALYZE" -s --memory-budget 1M "$tmp/big.xt" >"$tmp/big.txt" 2>/dev/null || fail "big text"
line='^Memory budget of 0.9 MiB for distributions reached at [0-9.]* seconds (record [0-9]*): '
line=$line'sketch percentiles within [0-9.]*% ([124] buckets\{0,1\} per power of two), '
line=$line'exact samples at most [0-9]*, [1-9][0-9]* summaries in compact form; peak [0-9.]* MiB$'
grep -q "$line" "$tmp/big.txt" ||
	fail "no compact form at 1M on the 136-vcpu host: $(grep '^Memory budget' "$tmp/big.txt")"
grep -q '"compact_summaries":[1-9][0-9]*,' "$tmp/big.json" || fail "no JSON compact_summaries"
# "precision" and "rows" are members of the document, beside "pcpus", not in it.
if command -v jq >/dev/null 2>&1; then
	for f in small big; do
		jq -e '(.precision.memory_budget == 917504) and (.rows.memory_budget == 131072) and
			(.pcpus | length > 0) and all(.pcpus[]; has("id"))' "$tmp/$f.json" \
			>/dev/null 2>&1 || fail "$f.json: not JSON, or precision/rows/pcpus misplaced"
	done
else
	echo "skip: JSON structure at 1M (no jq)"
fi
grep -q '"compact_summaries":0,' "$tmp/small.json" || fail "compact_summaries not 0 at 1M on 16 MiB"
peak=$(sed -n 's/.*"precision":{[^}]*"peak_bytes":\([0-9]*\)}.*/\1/p' "$tmp/big.json")
[ -n "$peak" ] && [ "$peak" -le $((917504 + 917504 / 8)) ] ||
	fail "distributions of the 136-vcpu host at 1M: peak '${peak:-none}' bytes"
"$VMALYZE" --csv --memory-budget 0 "$tmp/big.xt" 2>/dev/null | cut -d, -f1-15,19- >"$tmp/a" ||
	fail "big csv 0"
"$VMALYZE" --csv --memory-budget 1M "$tmp/big.xt" 2>/dev/null | cut -d, -f1-15,19- >"$tmp/b" ||
	fail "big csv 1M"
cmp -s "$tmp/a" "$tmp/b" || fail "counts or totals changed past the last level"

# -j: two traces at once share the budget, a half each; the same at every run.
cp "$tmp/t.xt" "$tmp/u.xt"
"$VMALYZE" -j 2 -s --memory-budget 2M "$tmp/t.xt" "$tmp/u.xt" >"$tmp/j2.txt" 2>/dev/null ||
	fail "-j 2"
[ "$(grep -c '^Memory budget of 0.9 MiB for distributions' "$tmp/j2.txt")" = 2 ] &&
	[ "$(grep -c '^Memory budget of 0.1 MiB for rows' "$tmp/j2.txt")" = 2 ] ||
	fail "-j 2 --memory-budget 2M: not 1M a trace"
"$VMALYZE" -j 2 -s --memory-budget 2M "$tmp/t.xt" "$tmp/u.xt" >"$tmp/j2b.txt" 2>/dev/null
cmp -s "$tmp/j2.txt" "$tmp/j2b.txt" || fail "-j 2 not the same from run to run"
"$VMALYZE" -j 1 -s --memory-budget 2M "$tmp/t.xt" "$tmp/u.xt" >"$tmp/j1.txt" 2>/dev/null
grep -q '^Memory budget of [0-9.]* MiB for distributions' "$tmp/j1.txt" &&
	fail "-j 1 --memory-budget 2M: 1.75 MiB of distributions reached"
[ "$(grep -c '^Memory budget of 0.2 MiB for rows' "$tmp/j1.txt")" = 2 ] ||
	fail "-j 1 --memory-budget 2M: not 2M a trace"

for bad in 1 1023K 2T -5 12X M; do
	"$VMALYZE" -s --memory-budget "$bad" "$tmp/t.xt" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] && grep -q 'bad --memory-budget' "$tmp/err" ||
		fail "--memory-budget $bad: status $rc"
done
exit $fails
