#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hostile inputs of issue 13, made here by the project's writers
# (tests/cli/vmalyze-mkbad, tools/vmalyze-mkdat): each must end within the
# time limit, in at most 64 MiB, with output of a size linear in the input,
# and with the status and message doc/exit-status.md gives.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}" "${top_builddir:?}"
MKBAD="$top_builddir/tests/cli/vmalyze-mkbad"
MKDAT="$top_builddir/tools/vmalyze-mkdat"
MKGEN="$top_builddir/tools/vmalyze-gen"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
good="$top_srcdir/traces/gen-vmx-4cpu.xentrace"
# 64 MiB; ASan's shadow memory and quarantine add their own (sanitized
# suite): the quarantine of freed blocks, 256 MiB by default, is held to
# 32 MiB so that what is measured is still vmalyze's.
limit=65536
if [ -n "${VMA_SANITIZED:-}" ]; then
	limit=262144
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=32"
	export ASAN_OPTIONS
fi

fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}

# run NAME STATUS STDERR-PATTERN MAX-OUTPUT-BYTES -- vmalyze arguments...
# (pattern "" : anything on stderr; "-" : stderr must be empty).  With
# $fsize set, no file vmalyze writes may pass that many ulimit -f blocks
# (its temporary copy of a pipe: past them the write kills it).
run() {
	name=$1 want=$2 pattern=$3 maxout=$4
	shift 5
	: >"$tmp/rss"
	(
		[ -z "${fsize:-}" ] || ulimit -f "$fsize"
		if [ -x /usr/bin/time ]; then
			exec /usr/bin/time -f '%M' -o "$tmp/rss" timeout 60 "$VMALYZE" "$@"
		fi
		exec timeout 60 "$VMALYZE" "$@"
	) >"$tmp/out" 2>"$tmp/err"
	got=$?
	rss=$(tail -1 "$tmp/rss" 2>/dev/null | tr -dc 0-9)
	size=$(wc -c <"$tmp/out")
	if [ "$got" -ne "$want" ]; then
		fail "$name: exit status $got, expected $want"
		sed 's/^/  stderr: /' "$tmp/err" | head -3
	elif [ "$pattern" = "-" ] && [ -s "$tmp/err" ]; then
		fail "$name: unexpected stderr"
		sed 's/^/  stderr: /' "$tmp/err" | head -3
	elif [ -n "$pattern" ] && [ "$pattern" != "-" ] && ! grep -q -E -- "$pattern" "$tmp/err"; then
		fail "$name: stderr does not match /$pattern/"
		sed 's/^/  stderr: /' "$tmp/err" | head -3
	elif [ -n "$rss" ] && [ "$rss" -gt "$limit" ]; then
		fail "$name: peak memory $rss KiB"
	elif [ "$size" -gt "$maxout" ]; then
		fail "$name: $size bytes of output, at most $maxout expected"
	else
		echo "ok   $name (status $got, ${rss:-?} KiB, $size bytes out)"
	fi
}

mk() {
	"$MKBAD" "$1" "$tmp/$1" || { fail "cannot make $1"; return 1; }
}

# Tables sized by what is seen, not by the highest id.
if mk vcpu-ffff; then
	run vcpu-ffff-summary 0 "" 10000000 -- -s "$tmp/vcpu-ffff"
	run vcpu-ffff-json 0 "" 30000000 -- -s --json "$tmp/vcpu-ffff"
fi
# Past 4096 domains (or 8192 vcpus) a new one is damage (level 6), its records skipped.
if "$MKBAD" vcpu-ffff "$tmp/domains-20k" 20000; then
	run domains-20k 4 "error: .*domains-20k: offset [0-9]+: Record naming a domain or vcpu past" 10000000 -- \
		-s "$tmp/domains-20k"
	run domains-20k-tolerated 3 "warning: .*domains-20k: offset [0-9]+: Record naming a domain" 10000000 -- \
		-s --tolerance 6 "$tmp/domains-20k"
else
	fail "cannot make domains-20k"
fi
if "$MKBAD" kvm-pids "$tmp/kvm-vms-12k" 12000; then
	run kvm-vms-12k 4 "kvm-vms-12k: offset [0-9]+: Record naming a domain or vcpu past the first 4096 domains" 10000000 -- \
		-s "$tmp/kvm-vms-12k"
else
	fail "cannot make kvm-vms-12k"
fi
# Every table at its cap at once: 4096 pcpus, 4096 domains, 8192 vcpus.
if mk worst-xen; then
	for m in -s -a "-s --json" "-s --report-pcpu" "-s -i 0.000001"; do
		# shellcheck disable=SC2086
		run "worst-xen $m" 0 "" 30000000 -- $m "$tmp/worst-xen"
	done
fi
# 8,000 HVM vcpus, each one exit of a code near 0xffff and one injection,
# and 8,000 PV vcpus, each a hypercall near 0xffff and a trap near 0x7fff:
# the per-vcpu tables follow what is seen, not the codes (doc/design.md).
for k in exit-codes pv-numbers; do
	mk $k || continue
	for m in -s "-s --json --histogram"; do
		# shellcheck disable=SC2086
		run "$k $m" 0 "" 60000000 -- $m "$tmp/$k"
	done
done
# -i writes rows only for domains whose counters moved: idle domains add none.
if mk idle-domains; then
	run idle-domains-interval 0 "" 2000000 -- -s -i 0.000001 "$tmp/idle-domains"
	rows=$(grep -c ',run_seconds,' "$tmp/out")
	[ "$rows" -ge 2000 ] || fail "idle-domains-interval: only $rows run_seconds rows"
fi
# Each interval's report holds only the domains whose counters moved (4,000
# idle domains: 12 s before, as every interval built every domain's rows).
if "$MKBAD" idle-domains "$tmp/idle-4k" 4000; then
	run idle-4k-interval 0 "" 2000000 -- -s -i 0.000001 "$tmp/idle-4k"
else
	fail "cannot make idle-4k"
fi
# Dump lines: at most 256 pcpu columns, then "+xN" for a pcpu not shown;
# per-vcpu pcpu tables hold the pcpus seen.
if mk pcpu-far; then
	run pcpu-far-dump 0 "" 2000000 -- -a "$tmp/pcpu-far"
	long=$(awk 'length > 400' "$tmp/out" | wc -l)
	[ "$long" -eq 0 ] || fail "pcpu-far-dump: $long lines longer than 400 characters"
	grep -q '+x1048575 ' "$tmp/out" || fail "pcpu-far-dump: no '+x1048575' for pcpu 1048575"
	run pcpu-far-summary 0 "" 1000000 -- -s --report-pcpu "$tmp/pcpu-far"
fi
if VMALYZE_GOOD="$good" "$MKBAD" pcpu-renamed "$tmp/pcpu-renamed"; then
	run pcpu-renamed-summary 0 "" 1000000 -- -s --report-pcpu "$tmp/pcpu-renamed"
	grep -q '^   \[1048575\]: ' "$tmp/out" || fail "pcpu-renamed-summary: no affinity line of pcpu 1048575"
	run pcpu-renamed-dump 0 "" 2000000 -- -a "$tmp/pcpu-renamed"
else
	fail "cannot make pcpu-renamed"
fi
# Nothing in it: status 2, as for an empty file.
if mk only-headers; then
	run only-headers 2 "only-headers: Holds no trace records" 0 -- -s "$tmp/only-headers"
	run only-headers-dump 2 "only-headers: Holds no trace records" 0 -- -a "$tmp/only-headers"
fi
# Empty windows of 2^20-1 distinct pcpus make no pcpu; records on more than
# 4096 pcpus are damage (level 6): the first 4096 are read.
if mk headers-1m; then
	run headers-1m 2 "headers-1m: Holds no trace records" 0 -- -s "$tmp/headers-1m"
	run headers-1m-dump 2 "headers-1m: Holds no trace records" 0 -- -a "$tmp/headers-1m"
	mkfifo "$tmp/fifo" && { cat "$tmp/headers-1m" >"$tmp/fifo" & }
	run headers-1m-fifo 2 "fifo: Holds no trace records" 0 -- -s "$tmp/fifo"
	wait
fi
if mk pcpus-20k; then
	cap="pcpus-20k: offset [0-9]+: Window of pcpu 4096: more than 4096 distinct pcpus"
	run pcpus-20k 4 "$cap" 2000000 -- -s "$tmp/pcpus-20k"
	run pcpus-20k-dump 4 "$cap" 8000000 -- -a "$tmp/pcpus-20k"
	{ cat "$tmp/pcpus-20k" >"$tmp/fifo" & }
	run pcpus-20k-fifo 4 "fifo: offset [0-9]+: Window of pcpu 4096: more than 4096" 2000000 \
		-- -s "$tmp/fifo"
	wait
	run pcpus-20k-tolerated 3 "warning: .*more than 4096 distinct pcpus" 2000000 -- \
		-s --tolerance 6 "$tmp/pcpus-20k"
fi
# A pipe whose pcpu 0 runs far ahead of pcpu 1: its windows wait in the
# reorder stage, held to 16 MiB (64 MiB of them once took the process past 64 MiB).
mkfifo "$tmp/skew-fifo"
for k in skewed skewed-tiny; do
	{ "$MKBAD" $k "$tmp/skew-fifo" 128 || echo "cannot make $k" >&2; } &
	run "$k-fifo" 0 "skew-fifo: offset [0-9]+: Records of pcpu [01] resuming here .* processed late" \
		10000000 -- -s "$tmp/skew-fifo"
	wait
done
if mk commit0; then
	run commit0 2 "commit0: Holds no trace records" 0 -- -s "$tmp/commit0"
fi
if "$MKDAT" --raw --cpus 1 --formats-dir "$tmp/formats" -o "$tmp/raw" >/dev/null; then
	head -c 8 "$tmp/raw" >"$tmp/raw-header"
	run raw-header-only 2 "raw-header: Holds no trace records" 0 -- \
		-s --event-formats "$tmp/formats" "$tmp/raw-header"
	# An --event-formats folder has a trace.dat's bounds: 32,768 formats, 16 MiB
	# of texts, and no more entries listed than that (200,000 tiny files: 68 MB).
	cp -R "$tmp/formats" "$tmp/fdir" && cp -R "$tmp/formats" "$tmp/fbig"
	"$MKBAD" formats-dir "$tmp/fdir" 32000 || fail "cannot make fdir"
	run formats-dir-32k 0 - 1000000 -- -a --event-formats "$tmp/fdir" "$tmp/raw"
	"$MKBAD" formats-dir "$tmp/fdir" 33000 || fail "cannot make fdir"
	run formats-dir-33k 2 "fdir: More than 32768 event formats in all: .*nothing of .*raw is" 0 \
		-- -s --event-formats "$tmp/fdir" "$tmp/raw"
	"$MKBAD" formats-dir "$tmp/fdir" 34000 || fail "cannot make fdir"
	run formats-dir-34k 2 "fdir: More than 33792 entries in the folder" 0 \
		-- -s --event-formats "$tmp/fdir" "$tmp/raw"
	rm -rf "$tmp/fdir"
	pad=$(head -c 1000000 /dev/zero | tr '\0' '#')
	for k in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		printf 'name: big%d\nID: %d\n%s\n' $k $((2000 + k)) "$pad" >"$tmp/fbig/s.big$k.format"
	done
	run formats-dir-17m 2 "fbig: Event formats of more than 16 MiB in all" 0 \
		-- -s --event-formats "$tmp/fbig" "$tmp/raw"
	rm -f "$tmp/fbig/s.big16.format"
	run formats-dir-16m 0 - 1000000 -- -s --event-formats "$tmp/fbig" "$tmp/raw"
else
	fail "cannot make a raw dump"
fi
# KVM: one thread per event, vcpu 65535 each: bounded time and memory.
if mk kvm-pids; then
	run kvm-pids 0 "" 5000000 -- -s "$tmp/kvm-pids"
	run kvm-pids-dump 0 "" 5000000 -- -a "$tmp/kvm-pids"
fi
# v7 chunks expanding to 64 MiB on every cpu: over the 32 MiB budget, damage.
if mk chunk-bomb; then
	run chunk-bomb 4 "chunk-bomb: offset [0-9]+: Damaged compressed chunk .*32 MiB" 100000 -- \
		-s "$tmp/chunk-bomb"
	run chunk-bomb-tolerated 3 "warning: .*chunk-bomb: offset [0-9]+: Damaged compressed chunk" \
		100000 -- -s --tolerance 6 "$tmp/chunk-bomb"
fi
# Many cpus with data: their page blocks share the input's 8 MiB, past
# which each cpu holds a window of its page, read again (or its chunk
# expanded again) when it goes on after another cpu; one decompressor and
# compressed-bytes buffer per input.  Before: 8,192 cpus of a page each
# took 68 MB (32 MiB of pages), in zstd chunks 232 MB (a decompressor per
# cpu) and status 4 (the cpus past 32 MiB of chunks reported damaged),
# and 1,024 cpus of trace-cmd's 10-page chunks status 4 the same way.
if mk cpus-8k; then
	for m in -s -a "-s --json --histogram"; do
		# shellcheck disable=SC2086
		run "cpus-8k $m" 0 - 70000000 -- $m "$tmp/cpus-8k"
	done
fi
# window_check KIND LINES: each dump line's event is its own cpu's
# (vcpu = cpu in these files), so windows read again are the right bytes.
window_check() {
	awk -v want="$2" '{ if (match($0, /\[[0-9]+\]/)) { c = substr($0, RSTART + 1, RLENGTH - 2) + 0;
		if ($0 !~ ("vcpu " c " rip")) bad++; n++ } }
		END { exit !(n >= want && !bad) }' "$tmp/out" ||
		fail "$1 -a: lines missing, or showing another cpu's event"
}
for k in cpus-8k-full:81929 cpus-8k-zstd:81929 cpus-1k-chunks:10240 cpus-8k-long:81929 \
	cpus-8k-long-zstd:81929; do
	lines=${k#*:} k=${k%%:*}
	mk "$k" || continue
	run "$k -s" 0 - 300000 -- -s "$tmp/$k"
	run "$k -a" 0 - 40000000 -- -a --time 0.000020,0.000030 "$tmp/$k"
	window_check "$k" "$lines"
done
# Traces analysed at once (-j) each hold their own read buffers and vcpu
# state besides their share of the budget: another starts only while the
# memory allows (batch.c, START_GATE).  Eight 200-domain x 16-vcpu hosts
# with -j 8 took 113 MB.
if "$MKGEN" --pcpus 64 --domains 200 --vcpus 16 --size 8M --seed 3 --out "$tmp/big-host.xt"; then
	set -- "$tmp/big-host.xt"
	for k in 2 3 4 5 6 7 8; do set -- "$@" "$tmp/big-host.xt"; done
	run "jobs-8-big-hosts" 0 "" 100000000 -- -j 8 -s "$@"
	run "jobs-8-big-hosts --json --histogram" 0 "" 300000000 -- -j 8 --json --histogram "$@"
	set --
fi
# A BUFFER size wrapping past 2^64: reported, not a silently missing cpu.
if mk buffer-wrap; then
	run buffer-wrap 4 "buffer-wrap: offset [0-9]+: The BUFFER option gives cpu 0 trace data of 18446744073709551615 bytes" \
		100000 -- -s "$tmp/buffer-wrap"
	run buffer-wrap-tolerated 3 "warning: .*buffer-wrap: offset [0-9]+: The BUFFER option" \
		100000 -- -s --tolerance 5 "$tmp/buffer-wrap"
	grep -q -e '^-- v0 ' "$tmp/out" || fail "buffer-wrap-tolerated: cpu 0's events missing"
fi

# v6: the flyrecord header's pair names what gives the data, and where; two cpus
# whose data overlap (once read twice with status 0) are damage.
if mk v6-size-wrap; then
	run v6-size-wrap 4 "v6-size-wrap: offset [1-9][0-9]*: The flyrecord header gives cpu 0 trace data of 18446744073709551615 bytes" \
		100000 -- -s "$tmp/v6-size-wrap"
fi
if mk v6-overlap; then
	run v6-overlap 4 "v6-overlap: offset [1-9][0-9]*: The flyrecord header gives cpu [01] trace data at bytes [0-9]+ to [0-9]+, which overlap those of cpu [01]" \
		100000 -- -a "$tmp/v6-overlap"
	run v6-overlap-tolerated 3 "warning: .*v6-overlap: offset [0-9]+: The flyrecord header" \
		1000000 -- -s --tolerance 5 "$tmp/v6-overlap"
fi

# Event formats are checked by a helper vmalyze spawns (no fork of a threaded
# process): a format libtraceevent crashes on is refused, in a -j batch too.
crash="$top_srcdir/traces/bad/fuzz-format-crash.dat"
set -- "$crash"
for f in "$top_srcdir"/traces/kvm/*.dat; do
	set -- "$@" "$f" "$crash"
done
run format-check-batch 4 "fuzz-format-crash.dat: offset 524: The event format of kvm:kvm_exit cannot be parsed" \
	10000000 -- -s -j 2 "$@"

# A helper killed by a format mid-run: the one started after it decodes the
# rest as in a run where nothing crashed (only the crashing event's line
# differs: its format is refused).
if mk format-crash-mid && mk format-sound-mid; then
	run format-crash-mid 0 - 1000000 -- -a "$tmp/format-crash-mid"
	mv "$tmp/out" "$tmp/crash.a"
	run format-sound-mid 0 - 1000000 -- -a "$tmp/format-sound-mid"
	if ! grep -q 'kvm_bogus: (format not understood' "$tmp/crash.a" ||
		! grep -q 'kvm_later: .*vcpu 0 reason' "$tmp/crash.a" ||
		[ "$(diff "$tmp/crash.a" "$tmp/out" | grep -c '^[<>]')" -ne 2 ]; then
		fail "format-crash-mid: the dump differs from the run without a crash" \
			"by more than the crashing event"
		diff "$tmp/crash.a" "$tmp/out" | head -5
	fi
fi
# A file of formats that crash libtraceevent costs a few helpers, not one per
# format (2,000 spawns took 5.8 s of cpu; a few take 0.03 s): under 2 s of
# cpu, children included.  Sanitized, each helper maps ASan's shadow memory
# and its death is a report: the few took 2.1-2.6 s on a PVM guest, 2,000
# would take minutes, so the bound there is 20 s.  The dump parses their
# whole texts (it prints with them); a run that prints no event's text
# (-s) parses their plain field lines alone, so that libtraceevent never
# reads the print formats it crashes on and nothing is refused.
if mk format-crashes; then
	run format-crashes 0 "format-crashes: offset [0-9]+: The event format of kvm:kvm_exit cannot" \
		1000000 -- -a "$tmp/format-crashes"
	run format-crashes-fields-only 0 "kvm:kvm_exit and [0-9]+ later ones are not parsed" \
		1000000 -- -s "$tmp/format-crashes"
	! grep -q 'cannot be parsed' "$tmp/err" ||
		fail "format-crashes-fields-only: a format was refused: $(head -1 "$tmp/err")"
	cpu_bound=2
	[ -n "${VMA_SANITIZED:-}" ] && cpu_bound=20
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$tmp/cpu" "$VMALYZE" -a "$tmp/format-crashes" >/dev/null 2>&1
		awk -v b="$cpu_bound" '{ exit !($1 + $2 < b) }' "$tmp/cpu" ||
			fail "format-crashes: $(cat "$tmp/cpu") s of cpu (bound $cpu_bound)"
	fi
fi

# Formats parsed: 2 MiB of text, here and in the helper (8,000 sound kvm_exit
# formats, all wanted at open: 71 MB and 1.8 s), at open or for the dump.
if mk formats-wanted; then
	run formats-wanted 0 "formats-wanted: offset [0-9]+: The event format of kvm:kvm_exit and [0-9]+ later ones are not parsed" \
		1000000 -- -s "$tmp/formats-wanted"
fi
if mk formats-dumped; then
	run formats-dumped 0 - 4000000 -- -a "$tmp/formats-dumped"
	grep -q 'kvm_x7999: (format not parsed: past the 2 MiB of format text' "$tmp/out" ||
		fail "formats-dumped: no line says the format was not parsed"
fi

# Saved command lines: no more than a kernel keeps (1,000,000 lines, 8.9 MB:
# 142 MB), and a compressed section expands to at most 16 MiB (64 MiB of
# "1 a" lines in 9 KB: 2.1 GB and 5 s).
if mk cmdlines-many; then
	run cmdlines-many 0 "cmdlines-many: offset [0-9]+: More than 32768 saved command lines" 100000 -- \
		-s "$tmp/cmdlines-many"
fi
if mk cmdline-bomb; then
	msg="Implausible expanded size of the saved command lines section: [0-9]+ bytes"
	run cmdline-bomb 2 "cmdline-bomb: offset [0-9]+: $msg, more than the 16 MiB" 0 -- \
		-s "$tmp/cmdline-bomb"
fi
if "$MKBAD" cmdline-bomb "$tmp/cmdline-bomb-16" 15; then
	run cmdline-bomb-16 0 "cmdline-bomb-16: offset [0-9]+: More than 32768 saved command lines" \
		100000 -- -s "$tmp/cmdline-bomb-16"
else
	fail "cannot make cmdline-bomb-16"
fi

# Kallsyms over 16 MiB are left out with a warning and the trace is read (once
# status 2, "nothing of this file can be read").  v7's are read only at the
# first kernel function the dump names: this file's events name none, so
# neither -a nor -s expands them (test-tracedat looks one up).
if mk kallsyms-v6; then
	run kallsyms-v6 0 "warning: .*kallsyms-v6: offset [0-9]+: Kallsyms of [0-9]+ bytes, more than the 16 MiB vmalyze reads: left out" \
		100000 -- -s "$tmp/kallsyms-v6"
fi
if mk kallsyms-v7; then
	run kallsyms-v7 0 - 1000000 -- -a "$tmp/kallsyms-v7"
	run kallsyms-v7-summary 0 - 100000 -- -s "$tmp/kallsyms-v7"
fi
# The largest kallsyms read, 2.8 M functions, all turned into the dump's table.
if mk kallsyms-lookup; then
	run kallsyms-lookup 0 - 100000 -- -a "$tmp/kallsyms-lookup"
fi

# Event formats: 32,768 in all (1,000,000 tiny ones, 33 MB: 202 MB).
if mk formats-many; then
	run formats-many 2 "formats-many: offset [0-9]+: More than 32768 event formats in all" 0 -- \
		-s "$tmp/formats-many"
fi
if "$MKBAD" formats-many "$tmp/formats-32k" 32000; then
	run formats-32k 0 - 100000 -- -a "$tmp/formats-32k"
else
	fail "cannot make formats-32k"
fi

# A trace.dat on a pipe is copied to a temporary file only as far as its
# header is read, then to the end of the data it gives: a pipe that starts
# like one and then holds endless bytes was copied to the 4 GiB cap (18 s)
# before the header was read.  ulimit -f 2048 (1 MiB in dash's 512-byte
# blocks, 2 in bash's) holds the copy to the bound of doc/exit-status.md.
if "$MKDAT" --version 6 -o "$tmp/v6.dat" >/dev/null && mk options-far; then
	data=$("$VMALYZE" -vv -s "$tmp/v6.dat" 2>&1 >/dev/null |
		sed -n 's/.*cpu 0: pages from byte \([0-9]*\),.*/\1/p')
	"$VMALYZE" -s "$tmp/v6.dat" >"$tmp/v6.s" 2>&1
	mkfifo "$tmp/dat-fifo"
	fsize=2048
	# zeros after the event formats: damage at the flyrecord tag
	{ head -c 600 "$tmp/v6.dat"; cat /dev/zero; } >"$tmp/dat-fifo" 2>/dev/null &
	run dat-header-then-zeros 2 "dat-fifo: offset [0-9]+: No flyrecord tag where the trace.dat header needs it" 0 \
		-- -s "$tmp/dat-fifo"
	wait
	# a whole header, then lines of "y" for the pages: damage in cpu 0's first page
	{ head -c "$data" "$tmp/v6.dat"; yes; } >"$tmp/dat-fifo" 2>/dev/null &
	run dat-pages-of-garbage 4 "dat-fifo: offset $((data + 8)): Corrupt ring-buffer page of cpu 0" 100000 \
		-- -s "$tmp/dat-fifo"
	wait
	# a whole trace, then garbage: read up to the end of its data, as the file is
	{ cat "$tmp/v6.dat"; yes; } >"$tmp/dat-fifo" 2>/dev/null &
	run dat-then-garbage 0 - 100000 -- -s "$tmp/dat-fifo"
	wait
	cmp -s "$tmp/out" "$tmp/v6.s" || fail "dat-then-garbage: not the file's summary"
	# options at byte 2^40: past any copy, said at once
	{ cat "$tmp/options-far"; cat /dev/zero; } >"$tmp/dat-fifo" 2>/dev/null &
	run dat-options-far 2 "dat-fifo: offset 1099511627776: The options reach past the 4096 MiB a trace.dat on a pipe is copied up to" 0 \
		-- -s "$tmp/dat-fifo"
	wait
	fsize=
else
	fail "cannot make the trace.dat pipes"
fi

# Short and truncated files.
printf '\001\002\003' >"$tmp/three"
run three-bytes 2 "three: Is only 3 bytes long: too short" 0 -- -s "$tmp/three"
# Zero bytes (what an empty tar also is) are not a trace, said with the offset.
head -c 4096 /dev/zero >"$tmp/zeros"
run zeros-4k 2 "zeros: offset 0: Not a trace vmalyze reads" 0 -- -s "$tmp/zeros"
# A compressed archive with no member, or a compressed empty file: nothing in
# it, said as for an empty file (once "no trace found (-v ...)", and status 4).
if mk empty-tar-zst && mk empty-zst; then
	mv "$tmp/empty-tar-zst" "$tmp/e.tar.zst"
	mv "$tmp/empty-zst" "$tmp/e.zst"
	run empty-tar-zst 2 "error: .*e.tar.zst: Is an archive with no file in it: no trace records" 0 \
		-- -s "$tmp/e.tar.zst"
	run empty-zst 2 "error: .*e.zst: Is empty once decompressed \(zstd\): no trace records" 0 \
		-- -a "$tmp/e.zst"
	run empty-tar-zst-and-trace 2 "e.tar.zst: Is an archive with no file in it" 10000000 \
		-- -s "$tmp/e.tar.zst" "$good"
	grep -q '^--- Log volume summary ---' "$tmp/out" || fail "empty-tar-zst-and-trace: no summary"
	# compressed data on a pipe: said so, not "give ... a compressed file"
	mkfifo "$tmp/zfifo"
	cat "$tmp/e.tar.zst" >"$tmp/zfifo" &
	run zstd-on-a-fifo 2 "zfifo: offset 0: Is zstd data on a pipe: .*only a file given by name" 0 \
		-- -s "$tmp/zfifo"
	wait
	mkdir "$tmp/walk" && mv "$tmp/e.tar.zst" "$tmp/e.zst" "$tmp/walk/"
	run empty-in-a-folder 2 "no trace found in .*walk" 1000 -- -s "$tmp/walk"
	rm -rf "$tmp/walk"
fi
head -c 20 "$good" >"$tmp/xt20"
run xentrace-20-bytes 2 "xt20: .*window" 0 -- -s "$tmp/xt20"
if "$MKDAT" --version 6 --truncate 600 -o "$tmp/dat-header" >/dev/null; then
	run tracedat-in-header 2 "dat-header: offset [0-9]+: File ends in the .*header cannot be read" 0 -- \
		-s "$tmp/dat-header"
else
	fail "cannot make a truncated trace.dat"
fi
size=$(wc -c <"$good")
head -c $((size * 2 / 3 + 5)) "$good" >"$tmp/cut"
run truncated-tolerated-is-warning 3 "^vmalyze: warning: .*cut: offset [0-9]+:" 10000000 -- \
	-s --tolerance 6 "$tmp/cut"
run truncated-stopped-is-error 4 "^vmalyze: error: .*cut: offset [0-9]+:" 10000000 -- -s "$tmp/cut"

# Option values: range-checked with a usage error.
for v in 1e10 1e30 1e300 1e-12 1e-300 0 -1 nan inf; do
	run "interval-$v" 1 "bad --interval '$v'" 0 -- -s -i "$v" "$good"
done
run interval-largest 0 - 100000 -- -s -i 1e6 "$good"

# Writing: --help and --version to a full disk are status 5 with the reason.
if [ -w /dev/full ]; then
	# (record --help once said nothing and gave status 0)
	for o in --help --version "record --help" "merge --help"; do
		# shellcheck disable=SC2086
		"$VMALYZE" $o >/dev/full 2>"$tmp/err"
		got=$?
		if [ "$got" -ne 5 ] || ! grep -q "cannot write to standard output: No space left" "$tmp/err"; then
			fail "$o >/dev/full: status $got, $(head -1 "$tmp/err")"
		else
			echo "ok   $o >/dev/full"
		fi
	done
	"$VMALYZE" -s "$good" >/dev/full 2>"$tmp/err"
	got=$?
	if [ "$got" -ne 5 ] || ! grep -q "^vmalyze: cannot write to standard output: No space left" "$tmp/err" ||
		grep -q "gen-vmx" "$tmp/err"; then
		fail "summary >/dev/full: status $got, $(head -1 "$tmp/err")"
	else
		echo "ok   summary >/dev/full"
	fi
fi
"$VMALYZE" --version >&- 2>"$tmp/err"
[ $? -eq 5 ] && echo "ok   --version with stdout closed" || fail "--version with stdout closed"

# A file that cannot be opened gets no === FILE === header.
"$VMALYZE" -s "$tmp/nonexistent" "$good" >"$tmp/out" 2>"$tmp/err"
got=$?
if [ "$got" -ne 2 ] || grep -q "nonexistent" "$tmp/out" || ! grep -q "^=== .*gen-vmx" "$tmp/out" ||
	[ "$(head -c 3 "$tmp/out")" != "===" ]; then
	fail "unopenable-file header: status $got, $(head -1 "$tmp/out")"
else
	echo "ok   no header for a file that cannot be opened"
fi

[ "$fails" -eq 0 ]
