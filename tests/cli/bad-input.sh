#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Bad input never crashes or hangs vmalyze: each case must end within the
# time limit with its documented exit status and a message on stderr that
# names the file (and the byte offset where there is one), and the input
# must be left as it was.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
good="$top_srcdir/traces/gen-vmx-4cpu.xentrace"

# expect NAME STATUS STDERR-PATTERN -- vmalyze arguments...
# ($run_env: NAME=VALUE words vmalyze runs with, none when empty)
run_env=""
expect() {
	name=$1 want=$2 pattern=$3
	shift 4
	# shellcheck disable=SC2086
	env $run_env timeout 60 "$VMALYZE" "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL $name: exit status $got, expected $want"; sed 's/^/  stderr: /' "$tmp/err" | head -5
		fails=$((fails + 1))
	elif [ -n "$pattern" ] && ! grep -q -E -- "$pattern" "$tmp/err"; then
		echo "FAIL $name: stderr does not match /$pattern/"; sed 's/^/  stderr: /' "$tmp/err" | head -5
		fails=$((fails + 1))
	elif grep -q -i -E 'warning|error' "$tmp/out"; then
		echo "FAIL $name: a warning went to stdout"
		fails=$((fails + 1))
	else
		echo "ok   $name"
	fi
}

: >"$tmp/empty"
expect empty-file 2 "empty.*: Is empty" -- -s "$tmp/empty"
expect missing-file 2 "nonexistent: Cannot open" -- -s "$tmp/nonexistent"
# A folder is walked for traces (tests/cli/batch.sh); one with none is an error.
mkdir "$tmp/no-traces" && echo notes >"$tmp/no-traces/README" && : >"$tmp/no-traces/empty"
expect folder-without-traces 2 "no trace found" -- -s "$tmp/no-traces"
head -c 4096 /dev/urandom >"$tmp/random"
printf 'GARBAGE!' | dd of="$tmp/random" conv=notrunc 2>/dev/null
expect not-a-trace 2 "random: offset 0: Not a trace" -- -s "$tmp/random"
printf '\003\360\001\040' >"$tmp/header-only"
expect header-only 2 "header-only" -- -s "$tmp/header-only"
expect bad-option 1 "unknown option" -- --no-such-option "$good"
expect bad-cpu-hz 1 "bad --cpu-hz" -- --cpu-hz fast "$good"
expect no-file 1 "no trace file" --

size=$(wc -c <"$good")
cut=$((size * 2 / 3 + 5))
head -c "$cut" "$good" >"$tmp/truncated"
sum=$(md5sum <"$tmp/truncated")
expect truncated-default 4 "truncated: offset [0-9]+: .*past the end" -- -s "$tmp/truncated"
expect truncated-tolerated 3 "truncated: offset [0-9]+:" -- -s --tolerance 6 "$tmp/truncated"
[ "$sum" = "$(md5sum <"$tmp/truncated")" ] || { echo "FAIL truncated: input modified"; fails=$((fails + 1)); }
grep -q "Total time" "$tmp/out" || { echo "FAIL truncated: no summary of what was read"; fails=$((fails + 1)); }

# A damaged window header in the middle: skipped with resync when tolerated.
# Walk the chain of window headers {cpu_change, cpu, size} to the fifth.
off=0
for i in 1 2 3 4; do
	ws=$(od -An -tu4 -j $((off + 8)) -N4 "$good" | tr -d ' ')
	off=$((off + 12 + ws))
done
cp "$good" "$tmp/corrupt"
printf '\377\377\377\377\377\377\377\377\377\377\377\377' |
	dd of="$tmp/corrupt" bs=1 seek="$off" conv=notrunc 2>/dev/null
expect corrupt-stopped 4 "corrupt: offset [0-9]+:" -- -s "$tmp/corrupt"
expect corrupt-tolerated 3 "corrupt: offset [0-9]+:" -- -s --tolerance 6 "$tmp/corrupt"
expect corrupt-dump 3 "corrupt: offset [0-9]+:" -- -a --tolerance 6 "$tmp/corrupt"

# Standard input gives the same result as the file.
timeout 60 "$VMALYZE" -s "$good" >"$tmp/file.out" 2>/dev/null
timeout 60 "$VMALYZE" -s - <"$good" >"$tmp/pipe.out" 2>/dev/null
cat "$good" | timeout 60 "$VMALYZE" -s - >"$tmp/pipe2.out" 2>/dev/null
if cmp -s "$tmp/file.out" "$tmp/pipe.out" && cmp -s "$tmp/file.out" "$tmp/pipe2.out"; then
	echo "ok   stdin-and-pipe"
else
	echo "FAIL stdin-and-pipe: output differs from the file's"; fails=$((fails + 1))
fi

# Compressed data redirected to standard input is not decompressed (only a
# file given by name is): said so, not "give ... a compressed file".
gzip -c "$good" >"$tmp/good.gz"
expect gzip-on-stdin 2 "<stdin>: offset 0: Is gzip data on standard input: .*only a file given by name" \
	-- -s - <"$tmp/good.gz"
# ...and a named file that only looks like one (bzip2's magic) is not a trace, as it was.
printf 'BZh9 is not bzip2 data but long enough to be probed as a trace' >"$tmp/fake.bz2"
expect fake-bzip2 2 "fake.bz2: offset 0: Not a trace vmalyze reads" -- -s "$tmp/fake.bz2"

# libarchive is loaded when a compressed file or an archive is read: when it
# cannot be, that file is refused with the loader's reason, plain traces are
# read as ever.  tests/cli/refuse-lib.so makes dlopen() fail for it (or for
# the library VMA_REFUSE_LIB names).
shim="${top_builddir:-.}/tests/cli/refuse-lib.so"
if [ -f "$shim" ] && [ -z "${VMA_SANITIZED:-}" ]; then
	tar cf "$tmp/good.tar" -C "$(dirname "$good")" "$(basename "$good")"
	run_env="LD_PRELOAD=$shim"
	expect no-libarchive-gzip 2 \
		"good.gz: Cannot load libarchive to read a file that is not a plain trace: .*refuse-lib test" \
		-- -s "$tmp/good.gz"
	expect no-libarchive-tar 2 "good.tar: Cannot load libarchive" -- -s "$tmp/good.tar"
	run_env=""
	LD_PRELOAD="$shim" timeout 60 "$VMALYZE" -s "$good" >"$tmp/shim.out" 2>"$tmp/shim.err"
	if [ $? -eq 0 ] && cmp -s "$tmp/file.out" "$tmp/shim.out" && [ ! -s "$tmp/shim.err" ]; then
		echo "ok   no-libarchive-plain"
	else
		echo "FAIL no-libarchive-plain: a plain trace needs libarchive"; fails=$((fails + 1))
	fi
	# libtraceevent is loaded by the first KVM input: without it a trace.dat
	# or a raw dump is refused, a xentrace file is read as ever.
	run_env="LD_PRELOAD=$shim VMA_REFUSE_LIB=libtraceevent"
	expect no-libtraceevent-dat 2 \
		"vmx-v6.dat: Cannot load libtraceevent to read this trace.dat: .*refuse-lib test" \
		-- -s "$top_srcdir/traces/kvm/vmx-v6.dat"
	expect no-libtraceevent-raw 2 \
		"vmx-raw.bin: Cannot load libtraceevent to read this raw ftrace dump: .*refuse-lib" \
		-- -s "$top_srcdir/traces/kvm/vmx-raw.bin"
	run_env=""
	LD_PRELOAD="$shim" VMA_REFUSE_LIB=libtraceevent timeout 60 "$VMALYZE" -s "$good" \
		>"$tmp/shim.out" 2>"$tmp/shim.err"
	if [ $? -eq 0 ] && cmp -s "$tmp/file.out" "$tmp/shim.out" && [ ! -s "$tmp/shim.err" ]; then
		echo "ok   no-libtraceevent-xentrace"
	else
		echo "FAIL no-libtraceevent-xentrace: a xentrace file needs libtraceevent"
		fails=$((fails + 1))
	fi
else
	echo "skip refuse-lib: no $shim (or a sanitized build, whose runtime must load first)"
fi

# Fuzzed files that once crashed, hung or ate memory: each ends with the
# status and message traces/bad/EXPECTED gives, within a minute and 64 MiB.
expected="$top_srcdir/traces/bad/EXPECTED"
for f in "$top_srcdir"/traces/bad/*; do
	b=$(basename "$f")
	case $b in EXPECTED | README*) continue ;; esac
	grep -q "^$b	" "$expected" || { echo "FAIL $b: no line in traces/bad/EXPECTED"; fails=$((fails + 1)); }
done
tab=$(printf '\t')
grep -v '^#' "$expected" | while IFS="$tab" read -r b want args pattern; do
	[ -n "$b" ] || continue
	[ "$args" = "-" ] && args=""
	: >"$tmp/rss"
	# shellcheck disable=SC2086
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%M' -o "$tmp/rss" timeout 60 "$VMALYZE" $args "$top_srcdir/traces/bad/$b" \
			>/dev/null 2>"$tmp/err"
	else
		timeout 60 "$VMALYZE" $args "$top_srcdir/traces/bad/$b" >/dev/null 2>"$tmp/err"
	fi
	got=$?
	rss=$(tail -1 "$tmp/rss" 2>/dev/null | tr -dc 0-9)
	if [ "$got" -ne "$want" ]; then
		echo "FAIL $b $args: status $got, expected $want"; sed 's/^/  stderr: /' "$tmp/err" | head -3
		echo x >>"$tmp/badfails"
	elif ! grep -q -E -- "$pattern" "$tmp/err"; then
		echo "FAIL $b $args: stderr does not match /$pattern/"; sed 's/^/  stderr: /' "$tmp/err" | head -3
		echo x >>"$tmp/badfails"
	elif [ -n "$rss" ] && [ "$rss" -gt 65536 ]; then
		echo "FAIL $b $args: peak memory ${rss} KiB"
		echo x >>"$tmp/badfails"
	else
		echo "ok   $b $args: status $got"
	fi
done
[ -f "$tmp/badfails" ] && fails=$((fails + $(wc -l <"$tmp/badfails")))

if [ "$(id -u)" -ne 0 ]; then
	cp "$good" "$tmp/unreadable" && chmod 000 "$tmp/unreadable"
	expect unreadable 2 "unreadable: Cannot open" -- -s "$tmp/unreadable"
fi

[ "$fails" -eq 0 ]
