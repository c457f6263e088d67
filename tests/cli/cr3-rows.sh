#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --with-cr3-enumeration on a guest that loads thousands of CR3s: the
# list is a table of rows under --memory-budget.  Below the budget it is
# the list it was (the default budget changes no byte on this host); past
# it each domain's new CR3s share one "other" entry, last, and the
# domain's switches, flushes and times are those of the unbounded list;
# the interval tables name the entry "other".  Before the rows' budget
# covered it, a 1 GiB trace of 505 domains took 1.3 GB and most of a minute
# here.  Skips (exit 77) without jq.
set -u
: "${VMALYZE:?}" "${top_builddir:?}"
command -v jq >/dev/null 2>&1 || { echo "SKIP: no jq"; exit 77; }
GEN="$top_builddir/tools/vmalyze-gen"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=1; }

# Four HVM guests of some 1,000 CR3s each.
"$GEN" --domains 4 --vcpus 2 --pcpus 4 --size 8M --out "$tmp/t.xt" ||
	{ echo "FAIL: vmalyze-gen"; exit 1; }
run() { "$VMALYZE" --threads 1 --with-cr3-enumeration "$@" "$tmp/t.xt" 2>/dev/null; }

run -s >"$tmp/default.txt" || fail "default run"
run -s --memory-budget 0 >"$tmp/none.txt" || fail "unbounded run"
cmp -s "$tmp/default.txt" "$tmp/none.txt" || fail "the default budget changed the CR3 list"
[ "$(grep -c '(id ' "$tmp/none.txt")" -gt 3000 ] || fail "fewer CR3s than the test wants"
grep -q 'other (id' "$tmp/none.txt" && fail "an other CR3 without a budget reached"

run -s --memory-budget 1M >"$tmp/small.txt" || fail "1M run"
grep -q '^Memory budget of 0.1 MiB for rows reached' "$tmp/small.txt" ||
	fail "no rows line at 1M"
[ "$(grep -c '(id ' "$tmp/small.txt")" -lt 200 ] || fail "the list not bounded at 1M"
# Each domain's list ends with its other entry, and has one.
awk '/^\|-- Domain/ { if (n && last !~ /other/) bad = 1; n = 0 }
     /\(id [0-9]+\)/ { n++; last = $1; if ($1 == "other") o++ }
     END { if (n && last !~ /other/) bad = 1; exit !(o == 4 && !bad) }' "$tmp/small.txt" ||
	fail "not one other entry last in each guest's list"

# Per domain: entries, switches, flushes, cycles run and guest stays.
sums='[.domains[] | select(.cr3s) | {id, switches: ([.cr3s[].switches] | add),
	flushes: ([.cr3s[].flushes] | add), run: ([.cr3s[].run_cycles] | add),
	guest: ([.cr3s[].guest.count] | add), hv: ([.cr3s[].hv.cycles] | add)}]'
run --json --memory-budget 0 | jq -c "$sums" >"$tmp/none.sums" || fail "unbounded JSON"
run --json --memory-budget 1M | jq -c "$sums" >"$tmp/small.sums" || fail "1M JSON"
cmp -s "$tmp/none.sums" "$tmp/small.sums" ||
	fail "the other entry lost counts: $(cat "$tmp/none.sums") against $(cat "$tmp/small.sums")"
run --json --memory-budget 1M |
	jq -e '[.domains[] | select(.cr3s | length > 0) | .cr3s[-1].gmfn == 18446744073709551615] |
		length == 4 and all' >/dev/null || fail "JSON: no other gmfn last"

"$VMALYZE" --threads 1 --memory-budget 1M --interval-cr3-schedule-ordered -i 0.01 \
	"$tmp/t.xt" 2>/dev/null | grep -q '^ *other: [0-9.]*' ||
	fail "cr3-schedule-ordered: no other line"
"$VMALYZE" --threads 1 --memory-budget 1M --interval-cr3-schedule-time-all -i 0.01 \
	"$tmp/t.xt" 2>/dev/null | head -1 | grep -q ' other' ||
	fail "cr3-schedule-time-all: no other column"
exit $fails
