#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --format picks the summary's renderer by name: each older option's
# format is the same output by name, an unknown name and options that
# choose different outputs are usage errors (status 1).
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
t="$top_srcdir/traces/gen-vmx-4cpu.xentrace"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

same() { # OPTIONS-A -- OPTIONS-B: the two outputs are byte-identical
	a=$1 b=$2
	# shellcheck disable=SC2086 # options are words
	"$VMALYZE" $a "$t" >"$tmp/a" 2>/dev/null && "$VMALYZE" $b "$t" >"$tmp/b" 2>/dev/null &&
		cmp -s "$tmp/a" "$tmp/b" || { echo "FAIL: '$a' and '$b' differ"; fails=1; }
}

usage() { # OPTIONS: exit status 1 and a message on stderr
	# shellcheck disable=SC2086
	"$VMALYZE" $1 "$t" >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 1 ] && [ -s "$tmp/err" ] || { echo "FAIL: '$1' exits $rc, not 1 with a message"; fails=1; }
}

same "--format text" "-s"
same "--format histogram" "-s --histogram"
same "--format text --histogram" "-s --histogram"
same "--format json" "--json"
same "--format csv" "--csv"
same "--format interval -i 0.001" "-i 0.001"
usage "--format nosuch"
usage "--format interval"
usage "--format json -i 1"
usage "--format text --json"
usage "-a --format text"
usage "--csv --json"
usage "--format csv --json"
usage "--csv -i 1"
usage "-a --csv"
usage "-a --save $tmp/s"
usage "-i 1 --save $tmp/s"
[ "$fails" -eq 0 ] && echo "ok   --format"
[ "$fails" -eq 0 ]
