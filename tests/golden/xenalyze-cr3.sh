#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# xenalyze's --interval-cr3-* tables on the generated HVM traces against
# the committed tests/golden/expect/TRACE.cr3-MODE.expect, byte for byte
# (`tests/golden/xenalyze-cr3.sh --regen` from a build directory rewrites
# them).  With $XENALYZE set to a xenalyze binary (a build of Xen's
# tools/xentrace/xenalyze.c, outside the repository), every value of
# -schedule-time-all is also compared with xenalyze's, row by row, and the
# header's CR3s must be the same, in the same order: xenalyze writes its
# header last, rows only as wide as the CR3s seen by then and no last
# partial row (doc/xenalyze-differences.md, item 45).
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
regen=no
[ "${1:-}" = --regen ] && regen=yes
expect="$top_srcdir/tests/golden/expect"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

for t in gen-vmx-4cpu gen-svm-4cpu; do
	trace="$top_srcdir/traces/$t.xentrace"
	"$VMALYZE" -i 0.001 --interval-cr3-schedule-time-all "$trace" > "$tmp/all" ||
		fail "$t: --interval-cr3-schedule-time-all"
	# The first CR3 and the one with the most time, for the one-CR3 modes.
	first=$(head -n 1 "$tmp/all" | cut -d' ' -f2)
	most=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) name[i] = $i; next }
		{ for (i = 2; i <= NF; i++) sum[i] += $i }
		END { b = 2; for (i in sum) if (sum[i] > sum[b]) b = i; print name[b] }' "$tmp/all")
	for m in "all:--interval-cr3-schedule-time-all" \
		"time:--interval-cr3-schedule-time=0x$most,0x$first" \
		"ordered:--interval-cr3-schedule-ordered" \
		"short:--interval-cr3-short-summary=0x$most"; do
		name=${m%%:*}
		file="$expect/$t.xentrace.cr3-$name.expect"
		"$VMALYZE" -i 0.001 "${m#*:}" "$trace" > "$tmp/out" 2>/dev/null ||
			fail "$t: ${m#*:}"
		if [ "$regen" = yes ]; then
			cp "$tmp/out" "$file"
		elif ! cmp -s "$tmp/out" "$file"; then
			fail "$t: ${m#*:} differs from $file"
			diff "$file" "$tmp/out" | head -10
		fi
	done
	[ -n "${XENALYZE:-}" ] && [ -x "$XENALYZE" ] || continue
	"$XENALYZE" -i 0.001 --interval-cr3-schedule-time-all "$trace" > "$tmp/x" 2>/dev/null ||
		fail "$t: xenalyze failed"
	[ "$(grep '^time' "$tmp/x")" = "$(head -n 1 "$tmp/all")" ] ||
		fail "$t: the CR3s of the header are not xenalyze's"
	grep -v '^time' "$tmp/x" | cut -d' ' -f2- > "$tmp/xr"
	sed 1d "$tmp/all" | cut -d' ' -f2- > "$tmp/vr"
	[ "$(wc -l < "$tmp/xr")" -ge 5 ] || fail "$t: xenalyze wrote too few rows"
	awk 'NR == FNR { x[FNR] = $0; nx = FNR; next }
	     FNR <= nx { n = split(x[FNR], a, " "); split($0, b, " ")
			 for (i = 1; i <= NF; i++) if ((i <= n ? a[i] : 0) + 0 != b[i] + 0) {
				print "row " FNR " column " i ": xenalyze " a[i] ", vmalyze " b[i]; bad++ } }
	     END { exit bad != 0 }' "$tmp/xr" "$tmp/vr" || fail "$t: values are not xenalyze's"
done
[ "$regen" = yes ] && exit 0
[ "$fails" -eq 0 ] && echo "ok   --interval-cr3-* tables"
[ "$fails" -eq 0 ]
