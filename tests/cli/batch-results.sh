#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Batch results on the traces in traces/ (and ../shared's when present):
# several traces with --json are JSON Lines whose every line parses, with
# file and member, then an aggregate document; --csv is one table Python's
# csv module reads, header once; a single trace keeps its one document
# (--save does not change it); shards saved with --save and merged with
# `vmalyze merge` print exactly the aggregate of one run over all the
# traces, in text, JSON and CSV, for different splits; a merge of a file
# with itself, of different --cpu-hz, and of a file that is not a save are
# refused with status 1, 1 and 2.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=1; }

command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }

tr="$top_srcdir/traces"
set -- "$tr/gen-vmx-4cpu.xentrace" "$tr/gen-svm-4cpu.xentrace" "$tr/gen-pv-lost.xentrace" \
	"$tr/gen-svm417-2cpu.xentrace" "$tr/kvm/vmx-v6.dat" "$tr/kvm/svm-v7-zstd.dat" \
	"$tr/kvm/arm64-v7.dat" "$tr/kvm/vmx-v6-truncated.dat"
if [ -n "${SHARED:-}" ] && [ -d "$SHARED/traces" ]; then
	for f in "$SHARED"/traces/*.xentrace "$SHARED"/traces/*.dat; do
		[ -f "$f" ] && set -- "$@" "$f"
	done
fi
n=$#
[ "$n" -ge 8 ] || { echo "FAIL: traces missing"; exit 1; }

# JSON Lines: one document per trace, in input order, then the aggregate.
"$VMALYZE" --json "$@" >"$tmp/all.jsonl" 2>/dev/null
python3 - "$tmp/all.jsonl" "$@" <<'EOF' || fail "JSON Lines"
import json, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "", "output ends with a newline"
docs = [json.loads(l) for l in lines[:-1]]
files = sys.argv[2:]
traces, agg = docs[:-1], docs[-1]
assert [d["file"] for d in traces] == files[:len(traces)], "input order"
assert all(d["member"] is None and "domains" in d for d in traces)
assert agg["aggregate"] is True and agg["traces"] == len(files)
assert agg["records"] == sum(d["records"] for d in traces)
assert agg["traces"] - agg["failed"] <= len(traces)
assert agg["exit_reasons"] and all("worst_p95" in r for r in agg["exit_reasons"])
EOF

# CSV: one header, every row the header's width, numbers where numbers go.
"$VMALYZE" --csv "$@" >"$tmp/all.csv" 2>/dev/null
python3 - "$tmp/all.csv" <<'EOF' || fail "CSV"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = rows[0]
assert head[:3] == ["scope", "file", "member"], head
assert sum(1 for r in rows if r == head) == 1, "header once"
assert all(len(r) == len(head) for r in rows), "ragged rows"
recs = [dict(zip(head, r)) for r in rows[1:]]
assert {r["scope"] for r in recs} == {"trace", "aggregate"}
assert {r["kind"] for r in recs} >= {"exit", "runstate"}
for r in recs:
    for k in ("events", "count", "total", "avg", "p5", "p50", "p95", "max", "hz"):
        int(r[k])
    float(r["seconds"])
    assert int(r["p5"]) <= int(r["p50"]) <= int(r["p95"]) <= int(r["max"]) or r["count"] == "0"
EOF
"$VMALYZE" --csv "$1" >"$tmp/one.csv" 2>/dev/null || fail "--csv of one trace"
grep -q '^scope,' "$tmp/one.csv" && ! grep -q '^aggregate,' "$tmp/one.csv" ||
	fail "--csv of one trace has no aggregate rows"

# One trace: today's single document, with or without --save.
"$VMALYZE" --json "$1" >"$tmp/one.json" 2>/dev/null
"$VMALYZE" --json --save "$tmp/one.save" "$1" >"$tmp/one-saved.json" 2>/dev/null
cmp -s "$tmp/one.json" "$tmp/one-saved.json" || fail "--save changed a single trace's output"
[ "$(wc -l <"$tmp/one.json")" -eq 1 ] && ! grep -q '"file"' "$tmp/one.json" ||
	fail "a single trace is not one plain document"

# The whole run's aggregate, in each format.
"$VMALYZE" -s "$@" 2>/dev/null | sed -n '/^=== aggregate/,$p' >"$tmp/whole.text"
tail -n 1 "$tmp/all.jsonl" >"$tmp/whole.json"
awk 'NR == 1 || /^aggregate,/' "$tmp/all.csv" >"$tmp/whole.csv"
[ -s "$tmp/whole.text" ] || fail "no aggregate section in the text summary"

# Split into shards (contiguous, round robin, uneven), save, merge in some order.
shard_of() { # RULE SHARDS K: the shard of the K-th trace (from 0)
	case $1 in
	contiguous) echo $(($3 * $2 / n)) ;;
	robin) echo $(($3 % $2)) ;;
	uneven) if [ "$3" -eq 1 ]; then echo 0; elif [ "$3" -eq $((n - 1)) ]; then echo 2; else echo 1; fi ;;
	esac
}
split_merge() { # NAME RULE SHARDS ORDER, then the traces
	name=$1 rule=$2 shards=$3 order=$4
	shift 4
	i=0
	while [ "$i" -lt "$shards" ]; do
		k=0
		: >"$tmp/list"
		for f in "$@"; do
			[ "$(shard_of "$rule" "$shards" "$k")" -eq "$i" ] && printf '%s\n' "$f" >>"$tmp/list"
			k=$((k + 1))
		done
		tr '\n' '\0' <"$tmp/list" | xargs -0 "$VMALYZE" -q --save "$tmp/$name.$i" >/dev/null 2>&1
		[ -s "$tmp/$name.$i" ] || fail "$name: shard $i not saved"
		i=$((i + 1))
	done
	saves=""
	for i in $order; do saves="$saves $tmp/$name.$i"; done
	# shellcheck disable=SC2086 # the save files are words
	"$VMALYZE" merge $saves >"$tmp/$name.text" || fail "$name: merge exits $?"
	# shellcheck disable=SC2086
	"$VMALYZE" merge --json $saves >"$tmp/$name.json"
	# shellcheck disable=SC2086
	"$VMALYZE" merge --csv $saves >"$tmp/$name.csv"
	for f in text json csv; do
		cmp -s "$tmp/whole.$f" "$tmp/$name.$f" || fail "$name: merged $f differs from one run"
	done
}
split_merge one contiguous 1 "0" "$@"
split_merge halves contiguous 2 "1 0" "$@"
split_merge robin robin 3 "2 0 1" "$@"
split_merge uneven uneven 3 "1 2 0" "$@"

# doc/batch.md's recipe: split -n l/N of the list, its run-shard.sh per shard.
sed -n '/^# run-shard.sh /,/^```/p' "$top_srcdir/doc/batch.md" | sed '$d' >"$tmp/run-shard.sh"
grep -q 'vmalyze -q --save' "$tmp/run-shard.sh" || fail "no run-shard.sh in doc/batch.md"
mkdir "$tmp/bin" && ln -s "$VMALYZE" "$tmp/bin/vmalyze"
printf '%s\n' "$@" >"$tmp/traces.txt"
split -n l/3 -d -a 3 "$tmp/traces.txt" "$tmp/shard."
for s in "$tmp/shard.000" "$tmp/shard.001" "$tmp/shard.002"; do
	if ! PATH="$tmp/bin:$PATH" sh "$tmp/run-shard.sh" "$s" "$s.vms" 2>"$tmp/recipe.err"; then
		fail "recipe: $s"
		sed 's/^/  stderr: /' "$tmp/recipe.err" | tail -n 5
	fi
done
"$VMALYZE" merge "$tmp/shard.002.vms" "$tmp/shard.000.vms" "$tmp/shard.001.vms" >"$tmp/recipe.text"
cmp -s "$tmp/whole.text" "$tmp/recipe.text" || fail "doc/batch.md's recipe: merge differs from one run"

# A merge of merges is the same merge.
"$VMALYZE" merge --save "$tmp/ab" "$tmp/robin.0" "$tmp/robin.1" >/dev/null
"$VMALYZE" merge "$tmp/ab" "$tmp/robin.2" >"$tmp/nested.text"
cmp -s "$tmp/whole.text" "$tmp/nested.text" || fail "a merge of a merge differs"

# Refusals: the same save twice, another --cpu-hz (status 1); not a save (2).
"$VMALYZE" merge "$tmp/robin.0" "$tmp/robin.0" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q 'earlier save file' "$tmp/err" || fail "self-merge: status $rc"
"$VMALYZE" -q --cpu-hz 3G --save "$tmp/hz3" "$1" >/dev/null 2>&1
"$VMALYZE" merge "$tmp/robin.1" "$tmp/hz3" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q 'cpu-hz' "$tmp/err" || fail "--cpu-hz mismatch: status $rc"
"$VMALYZE" merge "$1" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q 'not a vmalyze save file' "$tmp/err" || fail "a trace as a save: status $rc"
"$VMALYZE" merge --cpu-hz 3G "$tmp/robin.1" >/dev/null 2>&1
[ $? -eq 1 ] || fail "merge accepted an option it cannot honour"

exit $fails
