#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every option of xenalyze's table (Xen's tools/xentrace/xenalyze.c,
# c447b7308b: 46 options, in its order), spelled as xenalyze spells it, on
# a generated trace: none may be refused as an unknown option, each must
# run (exit status 0) in the context it needs, and each must do what it is
# for on that trace: "out" changes standard output against the context
# alone, "same" must not (it asks for what vmalyze does anyway, or the
# trace has nothing for it: named in the row), "err" writes to stderr.
# --help must list exactly these in its xenalyze section; with $XENALYZE
# set to a xenalyze binary, its --help must name the same options.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
T="$top_srcdir/traces/gen-vmx-4cpu.xentrace"
LOST="$top_srcdir/traces/gen-pv-lost.xentrace"
SHADOW="$top_srcdir/traces/gen-vmx-shadow.xentrace"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

printf 'c0000000 low\nffffffff81000000 high\n' > "$tmp/syms"
gmfn=$("$VMALYZE" -i 0.001 --interval-cr3-schedule-time-all "$T" 2>/dev/null | head -n 1 | cut -d' ' -f2)
[ -n "$gmfn" ] || fail "no CR3 in $T"

# NAME|=ARG|CONTEXT|EFFECT|TRACE (default $T); "same" rows say why.
while IFS='|' read -r name arg ctx effect trace; do
	case $name in ''|'#'*) continue ;; esac
	n=$((n + 1))
	printf '%s\n' "$name" >> "$tmp/names"
	t=${trace:-$T}
	# shellcheck disable=SC2086 # the context is words
	"$VMALYZE" $ctx "$t" > "$tmp/base" 2>/dev/null
	# shellcheck disable=SC2086
	"$VMALYZE" $ctx "--$name$arg" "$t" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if grep -q 'unknown option' "$tmp/err"; then
		fail "--$name$arg is refused as unknown"
		continue
	fi
	[ "$rc" -eq 0 ] || { fail "--$name$arg ($ctx): exit status $rc: $(head -n 2 "$tmp/err")"; continue; }
	case $effect in
	out) cmp -s "$tmp/base" "$tmp/out" && fail "--$name$arg changes nothing after '$ctx'" ;;
	same*) cmp -s "$tmp/base" "$tmp/out" || fail "--$name$arg changes the output of '$ctx'" ;;
	err) [ -s "$tmp/err" ] || fail "--$name$arg wrote nothing on stderr" ;;
	esac
done <<EOF_TABLE
# Dump
dump-all|||out
dump-raw-reads|||out
dump-no-processing|||out
dump-raw-process|||out
dump-ipi-latency||-s|same: its guests send no IPI through the ICR (unit tests: test-scatter)
dump-trace-volume-on-lost-record||-a|out|$LOST
dump-show-power-states||-a|out
# Extra processing
with-cr3-enumeration||-s|out
with-pio-enumeration||-s|same: the table is on by default, as in xenalyze
with-mmio-enumeration||-s|same: the table is on by default in vmalyze
with-interrupt-eip-enumeration|=0xf9|-s|out
scatterplot-interrupt-eip|=0xf9||out
scatterplot-extint-cycles|=0xf9||out
scatterplot-unpin-promote|||out|$SHADOW
scatterplot-cr3-switch|||out
scatterplot-wake-to-halt|||out
scatterplot-vmexit-eip|||out
scatterplot-io|=0x60||out
scatterplot-runstate|||out
scatterplot-runstate-time|||out
scatterplot-pcpu|||out
scatterplot-rdtsc|||out|$top_srcdir/traces/real/xen417-pvh-pv-live.xentrace
scatterplot-irq||-s|same: no host IRQ records in it (unit tests: test-scatter)
histogram-interrupt-eip|=0xf9|-s|out
# Interval
interval|=0.001||out
interval-cr3-schedule-time|=0x$gmfn|-i 0.001|out
interval-cr3-schedule-time-all||-i 0.001|out
interval-cr3-schedule-ordered||-i 0.001|out
interval-cr3-short-summary|=0x$gmfn|-i 0.001|out
interval-domain-total-time|=1,2|-i 0.001|out
interval-domain-total-time-all||-i 0.001|out
interval-domain-short-summary|=1|-i 0.001|out
interval-domain-guest-interrupt|=1|-i 0.001|out
interval-domain-grant-maps|=0|-i 0.001|out
# Summary
show-default-domain-summary||-s|out
mmio-enumeration-skip-vga|=0|-s|same: no VGA accesses in it
sample-size|=0|-s|out
sample-max|=100|-s|same: vmalyze's summaries are bounded anyway
summary|||same: the summary is vmalyze's default output
report-pcpu||-s|out
# Guest info
default-guest-paging-levels|=4|-a|same: no shadow page faults in it (the shadow trace's say their levels)
symbol-file|=$tmp/syms|--scatterplot-vmexit-eip|out
# Hardware info
cpu-hz|=3000000000|-s|out
# Other
progress|||err
tsc-loop-fatal||-s|same: no TSC skew in it
tolerance|=6|-s|same: no damage in it
EOF_TABLE
[ "$n" -eq 46 ] || fail "$n options walked, xenalyze's table has 46"
sort "$tmp/names" > "$tmp/ours"
"$VMALYZE" --help | sed -n "/^xenalyze's options/,/^Exit status/p" |
	grep -o -- '--[a-z0-9][a-z0-9-]*' | sed 's/^--//' | sort -u > "$tmp/help"
comm -23 "$tmp/ours" "$tmp/help" > "$tmp/missing" || true
[ -s "$tmp/missing" ] && fail "not in --help's xenalyze section: $(tr '\n' ' ' < "$tmp/missing")"
if [ -n "${XENALYZE:-}" ] && [ -x "$XENALYZE" ]; then
	"$XENALYZE" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sed 's/^--//' |
		grep -vx help | grep -vx usage | sort -u > "$tmp/x"
	cmp -s "$tmp/x" "$tmp/ours" || fail "xenalyze's --help names other options: $(comm -3 "$tmp/x" "$tmp/ours" | tr '\n\t' '  ')"
fi
[ "$fails" -eq 0 ] &&
	echo "ok   all $n of xenalyze's options accepted and effective"

[ "$fails" -eq 0 ]
