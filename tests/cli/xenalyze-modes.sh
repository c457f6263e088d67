#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Output modes of xenalyze's options, in one run, on a generated trace:
# -s with -a is the dump then the summary; a scatterplot alone prints no
# summary, with -s both; --symbol-file names EIPs (any order, the last
# line counts) and a bad symbol file or option argument is refused.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
T="$top_srcdir/traces/gen-vmx-4cpu.xentrace"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$VMALYZE" -a "$T" > "$tmp/a" 2>/dev/null || fail "-a"
"$VMALYZE" -s "$T" > "$tmp/s" 2>/dev/null || fail "-s"
"$VMALYZE" -s -a "$T" > "$tmp/sa" 2>/dev/null || fail "-s -a"
cat "$tmp/a" "$tmp/s" | cmp -s - "$tmp/sa" || fail "-s -a is not the dump, then the summary"

"$VMALYZE" --scatterplot-runstate "$T" > "$tmp/r" 2>/dev/null || fail "--scatterplot-runstate"
grep -q 'Total time' "$tmp/r" && fail "a scatterplot alone printed the summary"
grep -Evq '^[0-9]+v[0-9]+ [0-9]+\.[0-9]{9} (-2|-1|0|1|2|3)$' "$tmp/r" &&
	fail "a runstate point is not 'DvV S.N Y'"
[ -s "$tmp/r" ] || fail "no runstate points"
"$VMALYZE" -s --scatterplot-runstate "$T" > "$tmp/rs" 2>/dev/null || fail "-s --scatterplot-runstate"
{ cat "$tmp/r" "$tmp/s"; } | cmp -s - "$tmp/rs" || fail "-s with a scatterplot is not the points, then the summary"

# With -a, every point follows the dump line of its record: points and dump
# lines together are the dump with the points in it, in the same order.
"$VMALYZE" -a --scatterplot-runstate "$T" > "$tmp/ar" 2>/dev/null || fail "-a --scatterplot-runstate"
grep -E '^[0-9]+v[0-9]+ ' "$tmp/ar" | cmp -s - "$tmp/r" || fail "-a changed the points"
grep -Ev '^[0-9]+v[0-9]+ ' "$tmp/ar" | cmp -s - "$tmp/a" || fail "points changed the dump"
head -1 "$tmp/ar" | grep -Eq '^[0-9]+v[0-9]+ ' && fail "a point came before its record's line"

# Symbols: in any order; an EIP prints as name+0xoff after its hex value.
"$VMALYZE" --scatterplot-vmexit-eip "$T" > "$tmp/e" 2>/dev/null || fail "--scatterplot-vmexit-eip"
grep -Evq '^[0-9]+\.[0-9]{9} 0x[0-9a-f]+$' "$tmp/e" && fail "an EIP point is not 'S.N 0xEIP'"
printf 'ffffffff81000000 T high\n# comment\nc0000000 low\n7f0000000000 user' > "$tmp/syms"
"$VMALYZE" --symbol-file="$tmp/syms" --scatterplot-vmexit-eip "$T" > "$tmp/es" 2>/dev/null ||
	fail "--symbol-file"
awk '{ print $1, $2 }' "$tmp/es" | cmp -s - "$tmp/e" || fail "--symbol-file changed the points"
grep -q ' 0xffffffff815ca3e4 high+0x5ca3e4$' "$tmp/es" || fail "no high+0x5ca3e4"
grep -q ' 0xc03fb8b8 low+0x3fb8b8$' "$tmp/es" || fail "no low+0x3fb8b8"
grep -Eq ' 0x7f[0-9a-f]+ user\+0x[0-9a-f]+$' "$tmp/es" || fail "the last line's symbol was not read"

"$VMALYZE" -a --symbol-file="$tmp/syms" "$T" > "$tmp/as" 2>/dev/null || fail "-a --symbol-file"
grep -q ' vmexit .* eip ffffffff815ca3e4(high +5ca3e4)$' "$tmp/as" || fail "no symbol in the dump"
sed 's/(\(high\|low\|user\) +[0-9a-f]*)$//' "$tmp/as" | cmp -s - "$tmp/a" ||
	fail "--symbol-file changed the dump beyond vmexit symbols"

# Power states: idle pcpus' columns show C-state digits, nothing else changes.
"$VMALYZE" -a --dump-show-power-states "$T" > "$tmp/ap" 2>/dev/null || fail "--dump-show-power-states"
# A line: MARK, 13 columns of time, a space, the pcpu columns, a space.
grep -Eq '^.{14} [^ ]*[1-5]' "$tmp/ap" || fail "no C-state digit in the pcpu columns"
awk '{ c = substr($0, 16); i = index(c, " "); p = substr(c, 1, i - 1); gsub(/[0-5]/, "-", p)
       print substr($0, 1, 15) p substr(c, i) }' "$tmp/ap" | cmp -s - "$tmp/a" ||
	fail "--dump-show-power-states changed more than idle pcpus' columns"

# Raw lines: one a record, before its dump line, in xenalyze's layout.
"$VMALYZE" --dump-raw-process "$T" > "$tmp/raw" 2>/dev/null || fail "--dump-raw-process"
[ "$(wc -l < "$tmp/raw")" -eq "$(wc -l < "$tmp/a")" ] || fail "not one raw line a record"
grep -Evq '^\*  +[0-9a-f]+ [0-7] +([0-9]+|-) \[( +[0-9a-f]+| {9}){7} \] \| ( [0-9a-f]{8})+ \|$' "$tmp/raw" &&
	fail "a raw line is not xenalyze's layout"
"$VMALYZE" -a --dump-raw-process "$T" > "$tmp/araw" 2>/dev/null || fail "-a --dump-raw-process"
grep -v '^\*  ' "$tmp/araw" | cmp -s - "$tmp/a" || fail "raw lines changed the dump"
grep '^\*  ' "$tmp/araw" | cmp -s - "$tmp/raw" || fail "-a changed the raw lines"
awk 'NR % 2 == 1 && !/^\*  / { exit 1 }' "$tmp/araw" || fail "a raw line does not precede its record's"

# Trace volume after each lost-records record; the blocks of one pcpu add
# up to no more than its volume in the summary's log volume section.
L="$top_srcdir/traces/gen-pv-lost.xentrace"
"$VMALYZE" -a "$L" > "$tmp/la" 2>/dev/null
"$VMALYZE" -a --dump-trace-volume-on-lost-record "$L" > "$tmp/lv" 2>/dev/null ||
	fail "--dump-trace-volume-on-lost-record"
grep -Ev '^ (-- p[0-9]+ trace volume since its previous lost records --|[a-z0-9]+ +: +[0-9]+|\+-[a-z]+ *: +[0-9]+)$' \
	"$tmp/lv" | cmp -s - "$tmp/la" || fail "volume lines changed the dump"
[ "$(grep -c 'lost_records count' "$tmp/lv")" -eq "$(grep -c ' -- p[0-9]* trace volume' "$tmp/lv")" ] &&
	grep -q ' -- p' "$tmp/lv" || fail "not one volume block a lost-records record"
awk '/lost_records count/ { getline; print; exit }' "$tmp/lv" | grep -q ' -- p' ||
	fail "the volume block does not follow its record"
"$VMALYZE" -s "$L" > "$tmp/ls" 2>/dev/null
awk 'FNR == NR && / -- p[0-9]+ trace volume/ { p = substr($2, 2); next }
     FNR == NR && p != "" && /^ [a-z0-9]+ +: +[0-9]+$/ { sum[p " " $1] += $3; next }
     FNR == NR { p = ""; next }
     /^ - cpu [0-9]+ -$/ { cpu = $3; next }
     cpu != "" && /^ [a-z0-9]+ +: +[0-9]+$/ { total[cpu " " $1] = $3 }
     END { for (k in sum) if (!(k in total) || sum[k] > total[k]) { print "  " k ": " sum[k]; bad = 1 }
           exit bad }' "$tmp/lv" "$tmp/ls" || fail "volume blocks add up to more than the summary's"
"$VMALYZE" --dump-trace-volume-on-lost-record "$L" > /dev/null 2>&1
[ $? -eq 1 ] || fail "--dump-trace-volume-on-lost-record without -a is accepted"

# --sample-size=0: the summary without its percentiles; other sizes and
# --sample-max change nothing (vmalyze's summaries are bounded anyway).
"$VMALYZE" --sample-size=0 "$T" > "$tmp/s0" 2>/dev/null || fail "--sample-size=0"
sed -E 's/ \{ *[0-9]+\| *[0-9]+\| *[0-9]+\}$//' "$tmp/s" | cmp -s - "$tmp/s0" ||
	fail "--sample-size=0 is not the summary without percentiles"
grep -q '{' "$tmp/s" || fail "the summary has no percentiles to remove"
"$VMALYZE" --sample-size=10 --sample-max=100 "$T" | cmp -s - "$tmp/s" ||
	fail "--sample-size=N or --sample-max=N changed the summary"
for bad in --sample-size=-1 --sample-max=x; do
	"$VMALYZE" "$bad" "$T" > /dev/null 2>&1
	[ $? -eq 1 ] || fail "$bad is accepted"
done
"$VMALYZE" --json --sample-size=0 "$T" > /dev/null 2>&1
[ $? -eq 1 ] || fail "--json --sample-size=0 is accepted"

# No IPI sent through the ICR in this trace: the summary alone.
"$VMALYZE" --dump-ipi-latency "$T" | cmp -s - "$tmp/s" || fail "--dump-ipi-latency invented latencies"
"$VMALYZE" --json --dump-ipi-latency "$T" > /dev/null 2>&1
[ $? -eq 1 ] || fail "--json --dump-ipi-latency is accepted"

# Raw reads: every record once, each pcpu's in file order; alone, the output.
"$VMALYZE" --dump-raw-reads "$T" > "$tmp/rr" 2>/dev/null || fail "--dump-raw-reads"
[ "$(wc -l < "$tmp/rr")" -eq "$(wc -l < "$tmp/a")" ] || fail "not one read line a record"
grep -Evq '^R p +[0-9]+ o[0-9a-f]{16}  +[0-9a-f]+ [0-7] ' "$tmp/rr" && fail "a read line is not 'R pN oOFFSET'"
for p in 0 1 2 3; do
	grep "^R p *$p " "$tmp/rr" | awk '{ match($0, / o[0-9a-f]+ /); o = substr($0, RSTART, RLENGTH)
		                          if (prev != "" && o <= prev) exit 1; prev = o }' ||
		fail "pcpu $p's records are not read in file order"
done
"$VMALYZE" --dump-no-processing "$T" | cmp -s - "$tmp/rr" || fail "--dump-no-processing is not the reads alone"
"$VMALYZE" -a --dump-raw-reads "$T" > "$tmp/arr" 2>/dev/null || fail "-a --dump-raw-reads"
grep -v '^R p' "$tmp/arr" | cmp -s - "$tmp/a" || fail "read lines changed the dump"
sort "$tmp/rr" > "$tmp/rrs"
grep '^R p' "$tmp/arr" | sort | cmp -s - "$tmp/rrs" || fail "-a changed the read lines"
"$VMALYZE" -a --dump-no-processing "$T" > /dev/null 2>&1
[ $? -eq 1 ] || fail "-a --dump-no-processing is accepted"

# The default domain's vcpus, first, only when asked.
"$VMALYZE" --show-default-domain-summary "$T" > "$tmp/sd" 2>/dev/null || fail "--show-default-domain-summary"
grep -q '^|-- Default domain --|$' "$tmp/s" && fail "default domain shown unasked"
[ "$(grep -m1 '^|-- ' "$tmp/sd")" = "|-- Default domain --|" ] || fail "default domain not first"
"$VMALYZE" --default-guest-paging-levels=3 "$T" | cmp -s - "$tmp/s" ||
	fail "--default-guest-paging-levels changed a HAP guest's summary"
for bad in --default-guest-paging-levels=1 --default-guest-paging-levels=5; do
	"$VMALYZE" "$bad" "$T" > /dev/null 2>&1
	[ $? -eq 1 ] || fail "$bad is accepted"
done

printf '1000 a\nbad line here\n' > "$tmp/bad"
"$VMALYZE" --symbol-file="$tmp/bad" "$T" > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] || fail "a bad symbol file is not exit status 1"
grep -q "bad:2 (byte 7)" "$tmp/err" || fail "the bad symbol line is not named: $(cat "$tmp/err")"
"$VMALYZE" --symbol-file=/nonexistent/syms "$T" > /dev/null 2>&1
[ $? -eq 1 ] || fail "a missing symbol file is not exit status 1"

for bad in --scatterplot-io=0x10000 --scatterplot-extint-cycles=256 \
	--scatterplot-interrupt-eip=-1 --scatterplot-io=x; do
	"$VMALYZE" "$bad" "$T" > /dev/null 2>&1
	[ $? -eq 1 ] || fail "$bad is accepted"
done
"$VMALYZE" --scatterplot-io 0x1f0 "$T" > /dev/null 2>&1 || fail "--scatterplot-io PORT (separate word)"
"$VMALYZE" --json --scatterplot-pcpu "$T" > /dev/null 2>&1
[ $? -eq 1 ] || fail "--json with a scatterplot is accepted"
# Interval tables and EIP enumerations: their arguments and what they combine with.
for bad in --histogram-interrupt-eip=243,0 --histogram-interrupt-eip=243, \
	--histogram-interrupt-eip=256 --with-interrupt-eip-enumeration=x \
	--interval-domain-short-summary=1,2 --interval-domain-total-time=1,,2 \
	--interval-domain-grant-maps=32769 "--interval-domain-grant-maps=0 --interval-domain-total-time-all" \
	"-a --interval-domain-total-time-all" "--json --interval-domain-grant-maps=0" \
	"-a --with-interrupt-eip-enumeration=1" "--csv --histogram-interrupt-eip=1"; do
	# shellcheck disable=SC2086 # two options in one word, on purpose
	"$VMALYZE" $bad "$T" > /dev/null 2>&1
	[ $? -eq 1 ] || fail "$bad is accepted"
done
"$VMALYZE" --histogram-interrupt-eip=0xf3,1 "$T" > "$tmp/h" 2>/dev/null ||
	fail "--histogram-interrupt-eip with an increment of 1"
grep -q '^Interrupt eip histogram:' "$tmp/h" || fail "no interrupt eip histogram"
"$VMALYZE" -i 0.001 --interval-domain-total-time-all "$T" > "$tmp/it" 2>/dev/null ||
	fail "--interval-domain-total-time-all"
head -n 1 "$tmp/it" | grep -q '^time [0-9]' || fail "the interval table's header is not first"
grep -q '^Total time' "$tmp/it" && fail "an interval table alone has a summary"
"$VMALYZE" -s -i 0.001 --interval-domain-total-time=0 "$T" > "$tmp/its" 2>/dev/null ||
	fail "-s --interval-domain-total-time"
[ "$(grep -n '^Total time' "$tmp/its" | cut -d: -f1)" -gt 2 ] ||
	fail "with -s the summary does not follow the interval rows"
for bad in --mmio-enumeration-skip-vga=2 --mmio-enumeration-skip-vga=; do
	"$VMALYZE" "$bad" "$T" > /dev/null 2>&1
	[ $? -eq 1 ] || fail "$bad is accepted"
done
"$VMALYZE" --with-pio-enumeration --with-mmio-enumeration --mmio-enumeration-skip-vga=0 \
	"$T" > "$tmp/e" 2>/dev/null || fail "--with-pio-enumeration --with-mmio-enumeration"
cmp -s "$tmp/e" "$tmp/s" || fail "the enumerations vmalyze makes anyway change the summary"
# Two outputs that observe the machine, in one run: each as alone, the points first.
"$VMALYZE" -i 0.001 --interval-domain-short-summary=1 "$T" > "$tmp/ss" 2>/dev/null ||
	fail "--interval-domain-short-summary"
"$VMALYZE" --scatterplot-runstate-time "$T" > "$tmp/rt" 2>/dev/null || fail "--scatterplot-runstate-time"
"$VMALYZE" -i 0.001 --interval-domain-short-summary=1 --scatterplot-runstate-time "$T" \
	> "$tmp/both" 2>/dev/null || fail "a scatterplot with --interval-domain-short-summary"
[ "$(grep -c . "$tmp/ss")" -gt 2 ] && grep -q '^time running' "$tmp/ss" ||
	fail "--interval-domain-short-summary wrote no rows"
sort "$tmp/ss" "$tmp/rt" | cmp -s - "$(sort "$tmp/both" > "$tmp/both.sorted"; echo "$tmp/both.sorted")" ||
	fail "a scatterplot with --interval-domain-short-summary: not both outputs, each whole"
# --with-cr3-enumeration: the summary as without it, plus each domain's CR3 list.
"$VMALYZE" --with-cr3-enumeration "$T" > "$tmp/c" 2>/dev/null || fail "--with-cr3-enumeration"
grep -v -e '^    cr3 values:$' -e '^  *[0-9a-f]* (id [0-9]*):' -e '^          guest: ' \
	-e '^          hv   : ' -e '^           + [a-z0-9]*: ' -e '^            Seen: ' "$tmp/c" |
	cmp -s - "$tmp/s" || fail "--with-cr3-enumeration changed the rest of the summary"
[ "$(grep -c '^    cr3 values:$' "$tmp/c")" -gt 0 ] || fail "no CR3 list"
grep -Eq '^            Seen: +[0-9]+\.[0-9]{9}- +[0-9]+\.[0-9]{9} switch [1-9][0-9]* flush [0-9]+$' \
	"$tmp/c" || fail "no 'Seen: FIRST-LAST switch N flush N' line"
"$VMALYZE" --json --with-cr3-enumeration "$T" 2>/dev/null | grep -q '"cr3s":\[{"gmfn":' ||
	fail "no CR3s in the JSON"
for bad in "-a --with-cr3-enumeration" "--csv --with-cr3-enumeration" \
	"--with-cr3-enumeration --scatterplot-cr3-switch"; do
	# shellcheck disable=SC2086 # two options in one word, on purpose
	"$VMALYZE" $bad "$T" > /dev/null 2>&1
	[ $? -eq 1 ] || fail "$bad is accepted"
done
# --scatterplot-unpin-promote may take --with-cr3-enumeration without the summary (CR3 ids).
"$VMALYZE" --scatterplot-unpin-promote --with-cr3-enumeration "$T" > /dev/null 2>&1 ||
	fail "--scatterplot-unpin-promote --with-cr3-enumeration is refused"
# CR3 interval tables: the header first, a row per interval, the CR3 list with -s.
"$VMALYZE" -i 0.001 --interval-cr3-schedule-time-all "$T" > "$tmp/c3" 2>/dev/null ||
	fail "--interval-cr3-schedule-time-all"
head -n 1 "$tmp/c3" | grep -Eq '^time( [0-9a-f]+)+$' || fail "no CR3 header first"
[ "$(grep -c '^0\.0' "$tmp/c3")" -eq 10 ] || fail "not 10 rows of 1 ms in 10 ms"
g=$(head -n 1 "$tmp/c3" | cut -d' ' -f2)
"$VMALYZE" -i 0.001 "--interval-cr3-schedule-time=0x$g" "$T" > "$tmp/c1" 2>/dev/null ||
	fail "--interval-cr3-schedule-time"
cut -d' ' -f1,2 "$tmp/c3" | sed 1d | cmp -s - "$(sed 1d "$tmp/c1" > "$tmp/c1b"; echo "$tmp/c1b")" ||
	fail "--interval-cr3-schedule-time=G is not G's column of -all"
"$VMALYZE" -i 0.001 --interval-cr3-schedule-ordered "$T" > "$tmp/co" 2>/dev/null ||
	fail "--interval-cr3-schedule-ordered"
grep -Evq '^(time gmfn: .*|[0-9]+\.[0-9]{9}|([0-9]+\.[0-9]{9})? +[0-9a-f]+: [0-9]+\.[0-9]{2} [* ])$' \
	"$tmp/co" && fail "an ordered line is not '[START] GMFN: PERCENT MARK'"
"$VMALYZE" -s -i 0.001 "--interval-cr3-short-summary=0x$g" "$T" > "$tmp/cs" 2>/dev/null ||
	fail "-s --interval-cr3-short-summary"
head -n 1 "$tmp/cs" | grep -q '^time guest emulate ' || fail "no CR3 short summary header"
grep -q '^    cr3 values:$' "$tmp/cs" || fail "-s with an --interval-cr3-* option has no CR3 list"
for bad in --interval-cr3-schedule-time=1,1 --interval-cr3-short-summary=1,2 \
	--interval-cr3-schedule-time=x "-a --interval-cr3-schedule-ordered" \
	"--interval-cr3-schedule-ordered --interval-domain-total-time-all"; do
	# shellcheck disable=SC2086 # two options in one word, on purpose
	"$VMALYZE" $bad "$T" > /dev/null 2>&1
	[ $? -eq 1 ] || fail "$bad is accepted"
done
# xenalyze's --progress is the batch driver's progress line (doc/batch.md)
"$VMALYZE" --progress "$T" > /dev/null 2> "$tmp/progress.err" || fail "--progress"
grep -q '^vmalyze: 1/1 inputs, 1 trace, ' "$tmp/progress.err" || fail "--progress prints no progress line"
[ "$fails" -eq 0 ] && echo "ok   output modes, symbols and refusals"
[ "$fails" -eq 0 ]
