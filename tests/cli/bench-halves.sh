#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/halves: a file is cut at the first window header at or past its
# middle byte, and the two parts are the file; each part is timed as
# vmalyze reads it; a file that is not xentrace, or a bad option, exits 1.
set -u
: "${top_builddir:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
command -v taskset >/dev/null 2>&1 || { echo "SKIP: no taskset"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "SKIP: one cpu"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
halves=$top_srcdir/bench/halves
trace=$top_srcdir/traces/gen-vmx-4cpu.xentrace
build=$top_builddir

env -u XENALYZE bash "$halves" --build "$build" --reps 1 --keep-cut "$tmp/cut" "$trace" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$tmp/err")"
grep -Eq '^gen-vmx-4cpu\.xentrace +[0-9]+ +[0-9]+ +[0-9]+ +- +([0-9.]+x|-) +-$' "$tmp/out" ||
	fail "no row of times for the file: $(cat "$tmp/out")"

# The parts: the file again, cut at a window header past the middle,
# with no window header between the middle and the cut (the chain's).
if cat "$tmp/cut.first" "$tmp/cut.second" | cmp -s - "$trace"; then
	python3 - "$trace" "$(wc -c <"$tmp/cut.first")" <<'EOF' || fail "the cut: $(cat "$tmp/out")"
import struct, sys

data = open(sys.argv[1], "rb").read()
cut, off, first_past = int(sys.argv[2]), 0, None
while off < len(data):
    word, = struct.unpack_from("<I", data, off)
    assert word & 0x0fffffff == 0x0001f003, f"offset {off}: no window header"
    if off >= len(data) // 2:
        first_past = off
        break
    tsc = 8 if word >> 31 else 0
    off += 4 + 4 * ((word >> 28) & 7) + tsc + struct.unpack_from("<I", data, off + 8)[0]
assert cut == first_past, f"cut at {cut}, the first header past the middle is at {first_past}"
EOF
else
	fail "the two parts are not the file"
fi

printf 'not a trace\n' >"$tmp/text"
bash "$halves" --build "$build" --reps 1 "$tmp/text" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "a text file: exit $rc, not 1"
grep -q 'cannot cut it in two' "$tmp/err" || fail "a text file: $(cat "$tmp/err")"
for bad in "--reps 0 $trace" "--bogus $trace" "--build $tmp $trace"; do
	# shellcheck disable=SC2086 # the arguments are split on purpose
	bash "$halves" $bad >/dev/null 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "'$bad': exit $rc, not 1"
done
XENALYZE=$tmp/none bash "$halves" --build "$build" --reps 1 "$trace" >/dev/null 2>&1
rc=$?
[ $rc -eq 1 ] || fail "XENALYZE not a program: exit $rc, not 1"

[ $fails -eq 0 ] || exit 1
echo "bench/halves: ok"
