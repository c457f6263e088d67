#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Truncation sweep of issue 13: a v6 trace.dat and a v7 zstd trace.dat made
# by vmalyze-mkdat, and traces/gen-vmx-4cpu.xentrace, each cut at offsets of
# its headers (every SWEEP_HEAD_STEP-th: a trace.dat's first 8 KiB, up to
# its first cpu's data; a xentrace's first 2 KiB) and of the rest (every
# SWEEP_STEP-th), read with -s, -a and -i 0.001.  Every run must end
# within the time limit with status 0, 2, 3 or 4 (never 1, 5 or a signal),
# in at most 64 MiB, with output linear in the input, and say what stopped
# it: a status 3 or 4 names the file and a byte offset, a status 2 the file.
#
# The suite runs a short sweep; doc/fuzzing.md gives the long one
# (SWEEP_HEAD_STEP=1 SWEEP_STEP=31).
set -u
: "${VMALYZE:?}" "${top_srcdir:?}" "${top_builddir:?}"
MKDAT="$top_builddir/tools/vmalyze-mkdat"
HEAD_STEP=${SWEEP_HEAD_STEP:-53}
STEP=${SWEEP_STEP:-4001}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
fails=0
runs=0
limit=65536
if [ -n "${VMA_SANITIZED:-}" ]; then
	limit=262144
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=32"
	export ASAN_OPTIONS
	# a sanitized run starts some ten times slower: fewer cuts
	HEAD_STEP=$((HEAD_STEP * 4 + 1))
	STEP=$((STEP * 4 + 1))
fi

fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}

# sweep NAME FILE HEADER-BYTES: every cut of FILE in every mode.
sweep() {
	name=$1 file=$2 hdr=$3
	size=$(wc -c <"$file")
	cut="$tmp/$name"
	off=0
	n=0
	st0=0 st2=0 st3=0 st4=0
	while [ "$off" -lt "$size" ]; do
		head -c "$off" "$file" >"$cut"
		for mode in -s -a "-s -i 0.001"; do
			: >"$tmp/rss"
			# shellcheck disable=SC2086
			/usr/bin/time -f '%M' -o "$tmp/rss" timeout 20 "$VMALYZE" $mode "$cut" \
				>"$tmp/out" 2>"$tmp/err"
			got=$?
			runs=$((runs + 1))
			rss=$(tail -1 "$tmp/rss" | tr -dc 0-9)
			out=$(wc -c <"$tmp/out")
			what="$name cut at $off, $mode"
			case $got in
			0) st0=$((st0 + 1)) ;;
			2)
				st2=$((st2 + 1))
				grep -q -F -- "$cut" "$tmp/err" || fail "$what: status 2 names no file"
				;;
			3 | 4)
				eval "st$got=\$((st$got + 1))"
				grep -q -E -- "$cut: offset [0-9]+: " "$tmp/err" ||
					fail "$what: status $got names no file and offset"
				;;
			*) fail "$what: status $got" ;;
			esac
			[ -z "$rss" ] || [ "$rss" -le "$limit" ] || fail "$what: peak memory $rss KiB"
			[ "$out" -le $((size * 100 + 1000000)) ] || fail "$what: $out bytes of output"
			if [ "$got" -ne 0 ] && [ "$got" -ne 2 ] && [ "$got" -ne 3 ] && [ "$got" -ne 4 ]; then
				sed 's/^/  stderr: /' "$tmp/err" | head -3
			fi
		done
		n=$((n + 1))
		if [ "$off" -lt "$hdr" ]; then
			off=$((off + HEAD_STEP))
		else
			off=$((off + STEP))
		fi
	done
	echo "ok   $name: $n cuts of $size bytes; statuses 0: $st0, 2: $st2, 3: $st3, 4: $st4"
}

if ! [ -x /usr/bin/time ]; then
	echo "SKIP: no /usr/bin/time"
	exit 77
fi
"$MKDAT" --version 6 -o "$tmp/d6.dat" >/dev/null || fail "cannot make d6.dat"
"$MKDAT" --version 7 --compress zstd -o "$tmp/d7z.dat" >/dev/null || fail "cannot make d7z.dat"
sweep v6.dat "$tmp/d6.dat" 8192
sweep v7-zstd.dat "$tmp/d7z.dat" 8192
sweep gen-vmx-4cpu.xentrace "$top_srcdir/traces/gen-vmx-4cpu.xentrace" 2048
echo "$runs runs, $fails failures"
[ "$fails" -eq 0 ]
