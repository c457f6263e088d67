#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The dump reads its input once: a trace dumped from a pipe or a FIFO gives
# the lines it gives from the file (the exit vendor included), and a FIFO
# does not block a second opening, also among several inputs.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

for t in "$top_srcdir"/traces/*.xentrace; do
	name=$(basename "$t")
	timeout 60 "$VMALYZE" -a "$t" >"$tmp/file" 2>/dev/null
	timeout 60 sh -c 'cat "$1" | "$2" -a -' sh "$t" "$VMALYZE" >"$tmp/pipe" 2>/dev/null
	mkfifo "$tmp/fifo"
	cat "$t" >"$tmp/fifo" &
	timeout 60 "$VMALYZE" -a "$tmp/fifo" >"$tmp/fifo.out" 2>/dev/null
	got=$?
	wait
	rm -f "$tmp/fifo"
	if [ ! -s "$tmp/file" ]; then
		echo "FAIL $name: empty dump"; fails=$((fails + 1))
	elif ! cmp -s "$tmp/file" "$tmp/pipe"; then
		echo "FAIL $name: dump from a pipe differs"; fails=$((fails + 1))
	elif [ "$got" -ne 0 ] || ! cmp -s "$tmp/file" "$tmp/fifo.out"; then
		echo "FAIL $name: dump from a FIFO differs (status $got)"; fails=$((fails + 1))
	else
		echo "ok $name"
	fi
done

# Two FIFOs: neither is opened before its turn to look for trace ids (the
# bytes read then were lost to the dump, and the second opening waited for
# a writer that had gone: this hung).
xt="$top_srcdir/traces/gen-vmx-4cpu.xentrace"
dat="$top_srcdir/traces/kvm/vmx-v6.dat"
timeout 60 "$VMALYZE" -a "$xt" "$dat" 2>/dev/null | grep -v '^===' >"$tmp/files"
mkfifo "$tmp/fifo1" "$tmp/fifo2"
cat "$xt" >"$tmp/fifo1" &
cat "$dat" >"$tmp/fifo2" &
timeout 60 "$VMALYZE" -a "$tmp/fifo1" "$tmp/fifo2" >"$tmp/fifos" 2>"$tmp/err"
got=$?
kill $(jobs -p) 2>/dev/null
wait
grep -v '^===' "$tmp/fifos" >"$tmp/fifos.lines"
if [ "$got" -ne 0 ] || [ ! -s "$tmp/files" ] || ! cmp -s "$tmp/files" "$tmp/fifos.lines"; then
	echo "FAIL two FIFOs: status $got, $(head -c 200 "$tmp/err")"; fails=$((fails + 1))
else
	echo "ok two FIFOs"
fi
[ "$fails" -eq 0 ]
