#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vmalyze -a against xenalyze -a on the real VMX trace in ../shared: the
# same records in the same order, each with the same mark, vcpu and decoded
# text, and the same time once xenalyze's 0.024% drift (its integer qhz,
# doc/xenalyze-differences.md) is taken out.  Records xenalyze never prints
# (HVM_EMUL, buffer padding) and its annotation and warning lines are left
# out of the comparison.  Two string-I/O records, for which xenalyze prints
# the next record's header as the value, are allowed to differ.
# Skips (exit 77) when ../shared is absent.
set -u
: "${VMALYZE:?}" "${SHARED:?}"
ref="$SHARED/reference/xenalyze/xen-vmx-credit2-8cpu.dump.txt.gz"
trace="$SHARED/traces/xen-vmx-credit2-8cpu.xentrace"
[ -f "$ref" ] && [ -f "$trace" ] || { echo "SKIP: no $SHARED"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "time<TAB>mark|vcpu|text" for every record line.
normalize() {
	awk '
	BEGIN { rec = "[ \\]!](              | *[0-9]+\\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]) " }
	{
		# A record line: a mark, then a time (or 14 blanks for the first
		# instant).  xenalyze sometimes prints a warning without a newline
		# just before one: take the record from where it starts.
		if (!match($0, "^" rec)) {
			if (!match($0, rec "[ x|.l0-9-]+ d([0-9]+v[0-9]+|[?]v[?]) ")) next
			$0 = substr($0, RSTART)
		}
		mark = substr($0, 1, 1)
		rest = substr($0, 2)
		t = rest; sub(/^ +/, "", t); sub(/ .*/, "", t)
		if (t !~ /^[0-9]+\.[0-9]+$/) t = "0"
		if (!match(rest, / d([0-9]+v[0-9]+|\?v\?) /)) next
		vcpu = substr(rest, RSTART + 1, RLENGTH - 2)
		text = substr(rest, RSTART + RLENGTH)
		sub(/ +$/, "", text)
		if (text ~ /^(emul:|trace_wrap_buffer)/) next
		print t "\t" mark "|" vcpu "|" text
	}'
}

timeout 120 "$VMALYZE" -a "$trace" 2>"$tmp/err" | normalize >"$tmp/ours" || true
gzip -dc "$ref" | normalize >"$tmp/ref"
cut -f2 "$tmp/ours" >"$tmp/ours.text"
cut -f2 "$tmp/ref" >"$tmp/ref.text"
records=$(wc -l <"$tmp/ref.text")
diffs=$(diff "$tmp/ref.text" "$tmp/ours.text" | grep -c '^>')
stray=$(diff "$tmp/ref.text" "$tmp/ours.text" | grep '^>' | grep -v -E -c '\|io (read|write) port 1f0 \(no data\)$' || true)
if [ "$records" -lt 170000 ] || [ "$diffs" -gt 2 ] || [ "$stray" -ne 0 ]; then
	echo "FAIL: $diffs of $records records differ; first differences:"
	diff "$tmp/ref.text" "$tmp/ours.text" | head -10
	exit 1
fi
# Times: ours * 2457.6/2457 is xenalyze's, to its nanosecond rounding.
bad=$(paste "$tmp/ref" "$tmp/ours" | awk -F'\t' '
	{ r = $1 + 0; o = $3 * 2457.6 / 2457; d = r - o; if (d < 0) d = -d
	  if (d > 3e-9 + r * 1e-9) n++ }
	END { print n + 0 }')
if [ "$bad" -ne 0 ]; then
	echo "FAIL: $bad record times differ beyond xenalyze's drift"
	exit 1
fi
if grep -q . "$tmp/err" && grep -v -q -E "^vmalyze: (warning|info)" "$tmp/err"; then
	echo "FAIL: unexpected messages:"; head -3 "$tmp/err"; exit 1
fi
echo "ok   $records records: same order, marks, vcpus, texts ($diffs known xenalyze garbage values) and times"
