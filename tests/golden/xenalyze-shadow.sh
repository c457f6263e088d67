#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shadow paging on the generated traces/gen-vmx-shadow.xentrace:
# --scatterplot-unpin-promote (alone and with --with-cr3-enumeration)
# against the committed tests/golden/expect/gen-vmx-shadow.xentrace.
# unpin-promote[-cr3].expect, byte for byte (`--regen` rewrites them; the
# summary's Emulate eip list and page_fault lines are in outputs.tap's
# .sum.expect).  With $XENALYZE set to a xenalyze binary, also against
# xenalyze: the Emulate eip list line for line, the points' values in
# order and their times within xenalyze's 0.024% drift, the shadow
# categories of --interval-domain-short-summary, and each page_fault
# class line xenalyze prints (under the first vcpu only) is one of
# vmalyze's (under every vcpu; doc/xenalyze-differences.md, item 47).
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
regen=no
[ "${1:-}" = --regen ] && regen=yes
T="$top_srcdir/traces/gen-vmx-shadow.xentrace"
expect="$top_srcdir/tests/golden/expect/gen-vmx-shadow.xentrace"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$VMALYZE" --scatterplot-unpin-promote "$T" > "$tmp/up" || fail "--scatterplot-unpin-promote"
"$VMALYZE" --scatterplot-unpin-promote --with-cr3-enumeration "$T" > "$tmp/upc" ||
	fail "--scatterplot-unpin-promote --with-cr3-enumeration"
if [ "$regen" = yes ]; then
	cp "$tmp/up" "$expect.unpin-promote.expect"
	cp "$tmp/upc" "$expect.unpin-promote-cr3.expect"
	exit 0
fi
cmp -s "$tmp/up" "$expect.unpin-promote.expect" || fail "unpin-promote differs from its .expect"
cmp -s "$tmp/upc" "$expect.unpin-promote-cr3.expect" ||
	fail "unpin-promote with CR3 ids differs from its .expect"
grep -Eq ' -10$' "$tmp/up" && grep -Eq ' 0$' "$tmp/up" && grep -Eq ' 2$' "$tmp/up" ||
	fail "not every kind of point (-10, 0, 2) in the plot"

if [ -n "${XENALYZE:-}" ] && [ -x "$XENALYZE" ]; then
	# Times within the drift, values equal, in order.
	"$XENALYZE" --scatterplot-unpin-promote "$T" > "$tmp/xup" 2>/dev/null
	"$XENALYZE" --scatterplot-unpin-promote --with-cr3-enumeration "$T" > "$tmp/xupc" 2>/dev/null
	for p in up upc; do
		paste -d ' ' "$tmp/x$p" "$tmp/$p" | awk '
			{ d = $1 - $3; if (d < 0) d = -d
			  if ($2 != $4 || d > $3 * 0.00025 + 2e-9) { print "  " $0; bad++ } }
			END { exit bad != 0 || NR == 0 }' ||
			fail "--scatterplot-unpin-promote ($p): not xenalyze's points"
		[ "$(wc -l < "$tmp/x$p")" -eq "$(wc -l < "$tmp/$p")" ] || fail "$p: not as many points"
	done
	"$XENALYZE" -s "$T" > "$tmp/xs" 2>/dev/null
	"$VMALYZE" -s "$T" > "$tmp/s"
	# xenalyze heads every domain's list; vmalyze only lists with EIPs.
	for f in xs s; do
		awk '/^Emulate eip list$/ { on = 1; next } /^(\|--|   [^ ])/ && !/^   Total|^    / { on = 0 }
		     on && /^   ( |Total)/' "$tmp/$f" > "$tmp/$f.eips"
	done
	[ -s "$tmp/s.eips" ] && cmp -s "$tmp/xs.eips" "$tmp/s.eips" || {
		fail "the Emulate eip list is not xenalyze's"; diff "$tmp/xs.eips" "$tmp/s.eips" | head -5; }
	# The class lines under "page_fault" (xenalyze's "*" breakdowns below them are skipped).
	for f in xs s; do
		awk '/^   page_fault$/ { on = 1; next } on && /^      / { next }
		     on && /^     [^ ]/ { print; next } { on = 0 }' "$tmp/$f" | sort > "$tmp/$f.pf"
	done
	mv "$tmp/xs.pf" "$tmp/xpf"; mv "$tmp/s.pf" "$tmp/pf"
	[ -s "$tmp/xpf" ] && [ -z "$(comm -23 "$tmp/xpf" "$tmp/pf")" ] ||
		fail "a page_fault line of xenalyze's is not vmalyze's: $(comm -23 "$tmp/xpf" "$tmp/pf" | head -2)"
	"$XENALYZE" --interval-domain-short-summary=1 -i 0.01 "$T" 2>/dev/null | sed 1d |
		cut -d' ' -f3-7 > "$tmp/xss"
	"$VMALYZE" --interval-domain-short-summary=1 -i 0.01 "$T" | sed 1d | cut -d' ' -f3-7 |
		head -n "$(wc -l < "$tmp/xss")" > "$tmp/ss"
	[ -s "$tmp/ss" ] && cmp -s "$tmp/xss" "$tmp/ss" || fail "the shadow categories are not xenalyze's"
fi
[ "$fails" -eq 0 ] && echo "ok   shadow paging: unpin/promote points, emulate EIPs, page faults"
[ "$fails" -eq 0 ]
