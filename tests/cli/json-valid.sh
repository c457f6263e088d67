#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every JSON vmalyze writes is one JSON document (JSON Lines for several
# traces), whatever the options: --json with each option that adds or
# drops members (histograms, pcpus, budgets reached, filters, --top,
# --latency, the default domain) on the Xen and KVM traces of traces/,
# the batch's JSON Lines and `vmalyze merge --json`.  A member written in
# the wrong place (the budgets' once went inside "pcpus") fails here.
# Skips (exit 77) without jq.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}" "${top_builddir:?}"
command -v jq >/dev/null 2>&1 || { echo "SKIP: no jq"; exit 77; }
GEN="$top_builddir/tools/vmalyze-gen"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
runs=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A host with many keys a vcpu, so that 1M's budgets are both reached.
"$GEN" --domains 32 --vcpus 4 --pcpus 16 --pv-domains 4 --lost 4 --size 8M \
	--out "$tmp/big.xt" || { echo "FAIL: vmalyze-gen"; exit 1; }
traces="$tmp/big.xt $top_srcdir/traces/gen-vmx-4cpu.xentrace
$top_srcdir/traces/gen-pv-lost.xentrace $top_srcdir/traces/gen-svm-4cpu.xentrace
$top_srcdir/traces/kvm/vmx-v6.dat $top_srcdir/traces/kvm/svm-v7-zstd.dat"
options='--json
--json --histogram
--json --report-pcpu
--json --memory-budget 1M
--json --memory-budget 1M --histogram --report-pcpu --top 3
--json --top 5
--json --domain 1
--json --vcpu 0
--json --time 0.01,0.2
--json --show-default-domain-summary
--format json'

# valid FILE WHAT: FILE holds one JSON object a line, at least one.
valid() {
	[ -s "$1" ] || { fail "$2: no output"; return; }
	docs=$(jq -c 'if type == "object" then . else error("not an object") end' "$1" \
		2>/dev/null | wc -l)
	[ "$docs" -eq "$(wc -l <"$1")" ] || fail "$2: not a JSON object a line"
}

for t in $traces; do
	printf '%s\n' "$options" | while IFS= read -r o; do
		# shellcheck disable=SC2086 # options are words
		"$VMALYZE" $o "$t" >"$tmp/out" 2>/dev/null ||
			fail "$o $(basename "$t"): status $?"
		valid "$tmp/out" "$o $(basename "$t")"
		[ "$fails" -eq 0 ] || exit 1
	done || fails=$((fails + 1))
	runs=$((runs + 1))
done

# Both budgets reached on the big host: the members where doc/output.md has them.
"$VMALYZE" --json --memory-budget 1M "$tmp/big.xt" >"$tmp/b.json" 2>/dev/null ||
	fail "big host at 1M"
jq -e 'has("precision") and has("rows") and (.pcpus | length == 16) and
	all(.pcpus[]; has("id") and has("running"))' "$tmp/b.json" >/dev/null 2>&1 ||
	fail "big host at 1M: precision, rows and pcpus not where doc/output.md has them"

# Several traces: JSON Lines, the aggregate last; and merge's, from saves.
# shellcheck disable=SC2086 # the paths are words
set -- $traces
"$VMALYZE" -j 2 --json --memory-budget 2M --save "$tmp/all.save" "$@" >"$tmp/all.jsonl" \
	2>/dev/null || fail "batch JSON Lines"
valid "$tmp/all.jsonl" "batch JSON Lines"
[ "$(wc -l <"$tmp/all.jsonl")" -eq $(($# + 1)) ] ||
	fail "batch: not a line a trace and the aggregate"
"$VMALYZE" merge --json "$tmp/all.save" >"$tmp/merge.jsonl" 2>/dev/null || fail "merge --json"
valid "$tmp/merge.jsonl" "merge --json"
tail -n 1 "$tmp/all.jsonl" | cmp -s - "$tmp/merge.jsonl" ||
	fail "merge --json: not the batch's aggregate"

[ "$fails" -eq 0 ] || exit 1
sets=$(printf '%s\n' "$options" | wc -l)
echo "ok   JSON: $runs traces in $sets option sets, JSON Lines, merge"
