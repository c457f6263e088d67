#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The xentrace reader reads small windows through its block cache (runs of
# them, one read a run) and large ones alone: the same host written with
# windows of 256 bytes to 64 KiB (vmalyze-gen --duration: the same records)
# gives the same dump and summary, read with --threads 1 and 2, from the
# file and from a pipe.  24 pcpus with lost records: more pcpus than
# blocks, so that some windows are read alone when every block is in use.
set -u
: "${VMALYZE:?}" "${VMALYZE_GEN:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

host="--seed 5 --pcpus 24 --domains 10 --pv-domains 2 --lost 4 --duration 0.05"
for w in 65536 16384 2048 256; do
	# shellcheck disable=SC2086
	"$VMALYZE_GEN" $host --window $w --out "$tmp/w$w.xt" || {
		echo "FAIL generating windows of $w bytes"
		exit 1
	}
done
for mode in -a -s; do
	"$VMALYZE" --threads 1 $mode "$tmp/w65536.xt" >"$tmp/ref" 2>/dev/null
	[ -s "$tmp/ref" ] || { echo "FAIL $mode: no output for the reference"; exit 1; }
	for w in 16384 2048 256; do
		for t in 1 2; do
			"$VMALYZE" --threads $t $mode "$tmp/w$w.xt" >"$tmp/out" 2>"$tmp/err"
			rc=$?
			if [ $rc -ne 0 ] || ! cmp -s "$tmp/ref" "$tmp/out"; then
				echo "FAIL $mode, windows of $w bytes, --threads $t: exit $rc"
				diff "$tmp/ref" "$tmp/out" | head -5
				fails=$((fails + 1))
			else
				echo "ok   $mode, windows of $w bytes, --threads $t"
			fi
		done
		cat "$tmp/w$w.xt" | "$VMALYZE" $mode - >"$tmp/out" 2>/dev/null
		if ! cmp -s "$tmp/ref" "$tmp/out"; then
			echo "FAIL $mode, windows of $w bytes, from a pipe"
			fails=$((fails + 1))
		else
			echo "ok   $mode, windows of $w bytes, from a pipe"
		fi
	done
done
[ $fails -eq 0 ]
