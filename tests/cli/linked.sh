#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Traces that do not name each other, put on one clock by hand
# (--time-offset FILE=NS[,SCALE]): with -a, the file mapped by hand is
# dumped with the first trace, in time order, each line naming its file;
# its time stamps are its own times x SCALE + NS.  Traces not linked stay
# separate dumps.  A mapping of a file not given, of standard input, or of
# a xentrace file is refused.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
A=$top_srcdir/traces/kvm/vmx-v6.dat B=$top_srcdir/traces/kvm/svm-v7-zstd.dat
X=$top_srcdir/traces/gen-vmx-4cpu.xentrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# our lines of FILE's base name, vmalyze's columns and the name cut
of() { sed -n "s/^.\{16\}[^d]*d[0-9?]*v[0-9?]* *$1: //p" "$2"; }
bare() { sed 's/^.\{16\}[^d]*d[0-9?]*v[0-9?]* //' "$1"; }

"$VMALYZE" -a "$A" >"$tmp/a" 2>/dev/null && "$VMALYZE" -a "$B" >"$tmp/b" 2>/dev/null ||
	fail "the fixtures do not dump"
bare "$tmp/a" >"$tmp/a.txt"
bare "$tmp/b" >"$tmp/b.txt"

# Unlinked: two dumps, one after the other, as before.
"$VMALYZE" -a "$A" "$B" >"$tmp/sep" 2>/dev/null || fail "-a A B exits $?"
grep -q "^=== $B ===\$" "$tmp/sep" || fail "unlinked traces are not separate dumps"

# Offset 0, no scale: B's lines are its own, merged into A's in time order.
"$VMALYZE" -a --time-offset "$B=0" "$A" "$B" >"$tmp/m0" 2>/dev/null || fail "--time-offset B=0 exits $?"
[ "$(wc -l <"$tmp/m0")" -eq $(($(wc -l <"$tmp/a") + $(wc -l <"$tmp/b"))) ] ||
	fail "the merged dump does not have every record of both"
of vmx-v6.dat "$tmp/m0" | cmp -s - "$tmp/a.txt" || fail "A's lines changed in the merge"
of svm-v7-zstd.dat "$tmp/m0" | cmp -s - "$tmp/b.txt" || fail "B's lines changed with offset 0"
grep -q '^=== ' "$tmp/m0" && fail "a linked pair is printed as separate traces"

# Time order over both: the stamps (microseconds) never go back.
sed 's/.*\] *\([0-9]*\.[0-9]*\): .*/\1/' "$tmp/m0" | sort -c -n 2>/dev/null ||
	fail "the merged dump is not in time order"

# One second later and twice as fast: B's stamps become t x 2 + 1 s (the
# printed microseconds are rounded, so within one of 2 x t's).
"$VMALYZE" -a --time-offset "$B=1000000000,2" "$A" "$B" >"$tmp/m1" 2>/dev/null ||
	fail "--time-offset B=1000000000,2 exits $?"
grep ' svm-v7-zstd\.dat: ' "$tmp/m1" | sed 's/.*\] *\([0-9]*\.[0-9]*\): .*/\1/' >"$tmp/t1"
sed 's/.*\] *\([0-9]*\.[0-9]*\): .*/\1/' "$tmp/b.txt" | paste - "$tmp/t1" |
	awk '{ split($1, a, "."); split($2, b, ".");
	       want = (a[1] * 1000000 + a[2]) * 2 + 1000000; got = b[1] * 1000000 + b[2];
	       if (got < want - 1 || got > want + 1) bad++; n++ }
	     END { exit (bad > 0 || n == 0) }' || fail "B's stamps are not t x 2 + 1 s"
for bad in "$B" "nosuch.dat=5" "$B=x" "$B=5,0" "$B=5,1.2.3"; do
	"$VMALYZE" -a --time-offset "$bad" "$A" "$B" >/dev/null 2>"$tmp/err"
	[ $? -eq 1 ] && [ -s "$tmp/err" ] || fail "--time-offset '$bad' is not a usage error"
done
"$VMALYZE" -a --time-offset "$X=5" "$A" "$X" >/dev/null 2>"$tmp/err"
[ $? -ne 0 ] && grep -q 'applies to trace.dat' "$tmp/err" ||
	fail "--time-offset of a xentrace file is not refused"

# The state's warnings name the file they are about, whichever is first,
# once per file: two copies of a trace with an absurd vcpu id, each named.
H=$top_srcdir/traces/bad/fuzz-huge-ids.dat
cp "$H" "$tmp/copy.dat"
for order in "$A $H" "$H $A" "$H $tmp/copy.dat"; do
	set -- $order
	"$VMALYZE" -a --tolerance 6 --time-offset "$2=0" "$1" "$2" >/dev/null 2>"$tmp/err"
	[ $? -eq 3 ] || fail "linked $order: exit status not 3"
	grep 'vcpu id 269488128' "$tmp/err" >"$tmp/vcpu"
	grep -v -q -e "warning: $H: KVM record" -e "warning: $tmp/copy.dat: KVM record" "$tmp/vcpu" &&
		fail "linked $order: a state warning names no file, or the wrong one"
	for f in "$@"; do
		case $f in
		"$A") grep -q -e " $A: .*vcpu id" -e " $A: kvm-" "$tmp/err" &&
			fail "linked $order: $A is blamed for the other's records" ;;
		*) [ "$(grep -c " $f: KVM record with vcpu id" "$tmp/vcpu")" -eq 1 ] ||
			fail "linked $order: not one vcpu-id warning naming $f" ;;
		esac
	done
done

[ "$fails" -eq 0 ] && echo "ok: traces linked by hand"
[ "$fails" -eq 0 ]
