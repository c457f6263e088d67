#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --help and the man page describe the same options: every long option
# --help lists has an entry in doc/vmalyze.1 and the other way round, and
# --version and --help exit 0 with their text on stdout, and --help fits
# 80 columns.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
fails=0
help=$("$VMALYZE" --help) || { echo "FAIL: --help exit status"; exit 1; }
"$VMALYZE" --version | grep -q '^vmalyze [0-9]' || { echo "FAIL: --version"; fails=1; }
from_help=$(printf '%s\n' "$help" | grep -o -- '--[a-z][a-z-]*' | sort -u)
# The RECORD section documents `vmalyze record`, checked against its own --help.
man_main=$(sed 's/\\-/-/g; /^\.SH RECORD/,/^\.SH /d' "$top_srcdir/doc/vmalyze.1")
man_record=$(sed 's/\\-/-/g' "$top_srcdir/doc/vmalyze.1" | sed -n '/^\.SH RECORD/,/^\.SH EXAMPLES/p')
from_man=$(printf '%s\n' "$man_main" | grep -o -- '--[a-z][a-z-]*' | sort -u)
rec_help=$("$VMALYZE" record --help) || { echo "FAIL: record --help exit status"; exit 1; }
for o in $(printf '%s\n' "$rec_help" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	printf '%s\n' "$man_record" | grep -q -- "^\.[A-Z]*.*$o\b" ||
		{ echo "FAIL: record $o is in its --help, not in vmalyze(1)"; fails=1; }
done
for o in $from_help; do
	printf '%s\n' "$from_man" | grep -qx -- "$o" || { echo "FAIL: $o is in --help, not in vmalyze(1)"; fails=1; }
done
for o in $from_man; do
	printf '%s\n' "$from_help" | grep -qx -- "$o" || { echo "FAIL: $o is in vmalyze(1), not in --help"; fails=1; }
done
wide=$(printf '%s\n' "$help" | awk 'length($0) > 80' | head -1)
[ -z "$wide" ] || { echo "FAIL: --help line over 80 columns: $wide"; fails=1; }
for s in 0 1 2 3 4 5; do
	printf '%s\n' "$help" | grep -q "$s" || { echo "FAIL: exit status $s not in --help"; fails=1; }
done
[ "$fails" -eq 0 ] && echo "ok   $(printf '%s\n' "$from_help" | wc -l) options in both"
[ "$fails" -eq 0 ]
