#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Streaming input: a pipe or FIFO is read as it arrives, without a
# temporary copy.  Endless data that is not a trace is refused at once;
# a FIFO works in dump mode; a trace piped in gives the file's output; a
# slow writer's records are printed while it is still writing; SIGINT and
# SIGTERM end the input and the summary of what was read is printed, every
# record read included (those still waiting in the reorder stage too),
# also when the analysis runs on a thread of its own (large inputs).  A
# trace.dat on a pipe, a FIFO or in an archive (copied as far as its
# header and data reach) gives the file's output too.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}" "${top_builddir:?}"
tmp=$(mktemp -d)
pids=
trap 'for p in $pids; do kill $p 2>/dev/null; done; rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
good="$top_srcdir/traces/gen-vmx-4cpu.xentrace"

# Endless zeros, from a character device and on standard input: exit 2 at once.
TMPDIR="$tmp" timeout 10 "$VMALYZE" -s /dev/zero >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "/dev/zero: offset 0: Not a trace" "$tmp/err"; then
	fail "dev-zero: exit $rc"; cat "$tmp/err"
elif [ -n "$(ls "$tmp" | grep vmalyze-)" ]; then
	fail "dev-zero: a temporary copy was made"
else
	echo "ok   dev-zero"
fi
timeout 10 "$VMALYZE" -s - </dev/urandom >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "<stdin>: offset 0: Not a trace" "$tmp/err" &&
	echo "ok   urandom-stdin" || fail "urandom-stdin: exit $rc"

# Every generated trace through a pipe: the file's dump and summary.
for t in "$top_srcdir"/traces/gen-*.xentrace; do
	b=$(basename "$t")
	for mode in -a -s; do
		timeout 60 "$VMALYZE" $mode "$t" >"$tmp/file.out" 2>"$tmp/file.err"
		cat "$t" | timeout 60 "$VMALYZE" $mode - >"$tmp/pipe.out" 2>"$tmp/pipe.err"
		if cmp -s "$tmp/file.out" "$tmp/pipe.out" && cmp -s "$tmp/file.err" "$tmp/pipe.err"; then
			echo "ok   pipe $mode $b"
		else
			fail "pipe $mode $b: output differs from the file's"
		fi
	done
done

# trace.dat through a pipe and a FIFO: copied as far as the header and the
# data it gives reach, the file's output and messages in every mode (v6, v7
# plain, zlib and zstd, several cpus, a truncated file).
MKDAT="$top_builddir/tools/vmalyze-mkdat"
mkdir "$tmp/dats"
"$MKDAT" --version 6 --cpus 4 --vcpus 6 --extras -o "$tmp/dats/g6.dat" >/dev/null &&
"$MKDAT" --version 6 --big-endian --cpus 2 -o "$tmp/dats/g6b.dat" >/dev/null &&
"$MKDAT" --version 7 --cpus 8 --vcpus 4 --extras -o "$tmp/dats/g7.dat" >/dev/null &&
"$MKDAT" --version 7 --compress zlib --cpus 3 --tsc --extras -o "$tmp/dats/g7l.dat" >/dev/null &&
"$MKDAT" --version 7 --compress zstd --cpus 16 --vcpus 16 --extras -o "$tmp/dats/g7z.dat" \
	>/dev/null || fail "cannot make the trace.dat files"
cp "$top_srcdir"/traces/kvm/*.dat "$tmp/dats/"
mkfifo "$tmp/dat-fifo"
for t in "$tmp"/dats/*.dat; do
	b=$(basename "$t")
	for mode in -s "-s --json --histogram" -a "--format kvm-stat"; do
		# shellcheck disable=SC2086
		timeout 60 "$VMALYZE" $mode "$t" >"$tmp/file.out" 2>"$tmp/file.err"
		rc=$?
		# shellcheck disable=SC2086
		cat "$t" | timeout 60 "$VMALYZE" $mode - >"$tmp/pipe.out" 2>"$tmp/pipe.err"
		prc=$?
		cat "$t" >"$tmp/dat-fifo" &
		# shellcheck disable=SC2086
		timeout 60 "$VMALYZE" $mode "$tmp/dat-fifo" >"$tmp/fifo.out" 2>"$tmp/fifo.err"
		frc=$?
		wait
		sed -i "s|$t|NAME|" "$tmp/file.err"
		sed -i "s|<stdin>|NAME|" "$tmp/pipe.err"
		sed -i "s|$tmp/dat-fifo|NAME|" "$tmp/fifo.err"
		if [ $rc -eq $prc ] && [ $rc -eq $frc ] && cmp -s "$tmp/file.out" "$tmp/pipe.out" &&
			cmp -s "$tmp/file.out" "$tmp/fifo.out" && cmp -s "$tmp/file.err" "$tmp/pipe.err" &&
			cmp -s "$tmp/file.err" "$tmp/fifo.err"; then
			echo "ok   dat pipe and fifo $mode $b (status $rc)"
		else
			fail "dat pipe and fifo $mode $b: status $rc $prc $frc, or output differs"
		fi
	done
done
# The same files in a tar and a tar.zst (each member on a pipe): a folder's output.
(cd "$tmp/dats" && tar -cf "$tmp/dats.tar" $(ls)) || fail "cannot make dats.tar"
if command -v zstd >/dev/null; then
	zstd -q -o "$tmp/dats.tar.zst" "$tmp/dats.tar" || fail "cannot make dats.tar.zst"
fi
for a in dats.tar dats.tar.zst; do
	[ -f "$tmp/$a" ] || continue
	for mode in -s -a "--format kvm-stat"; do
		# shellcheck disable=SC2086
		(cd "$tmp" && timeout 60 "$VMALYZE" $mode dats/) >"$tmp/file.out" 2>"$tmp/file.err"
		rc=$?
		# shellcheck disable=SC2086
		(cd "$tmp" && timeout 60 "$VMALYZE" $mode "$a") >"$tmp/tar.out" 2>"$tmp/tar.err"
		trc=$?
		sed -i "s|$a:|dats/|g" "$tmp/tar.out" "$tmp/tar.err"
		if [ $rc -eq $trc ] && cmp -s "$tmp/file.out" "$tmp/tar.out" &&
			cmp -s "$tmp/file.err" "$tmp/tar.err"; then
			echo "ok   dat $a $mode (status $rc)"
		else
			fail "dat $a $mode: status $rc $trc, or output differs from the folder's"
		fi
	done
done

# Dump mode on a FIFO (it used to block reopening the FIFO).
mkfifo "$tmp/fifo"
cat "$good" >"$tmp/fifo" &
pids="$pids $!"
timeout 20 "$VMALYZE" -a "$tmp/fifo" >"$tmp/fifo.out" 2>"$tmp/fifo.err"
rc=$?
timeout 60 "$VMALYZE" -a "$good" >"$tmp/file.out" 2>/dev/null
[ $rc -eq 0 ] && cmp -s "$tmp/file.out" "$tmp/fifo.out" && echo "ok   fifo-dump" ||
	fail "fifo-dump: exit $rc"

# A writer that stops half-way for 4 seconds, after a whole window as
# xentrace writes them: the records are printed meanwhile (within about a
# second: a pcpu whose next window does not come is paused, not waited for).
size=$(wc -c <"$good")
half=0
while [ $half -lt $((size / 2)) ]; do
	ws=$(od -An -tu4 -j $((half + 8)) -N4 "$good" | tr -d ' ')
	half=$((half + 12 + ws))
done
{ head -c $half "$good"; sleep 4; tail -c +$((half + 1)) "$good"; } |
	timeout 30 "$VMALYZE" -a - >"$tmp/slow.out" 2>"$tmp/slow.err" &
pids="$pids $!"
slow=$!
sleep 2.5
early=$(wc -l <"$tmp/slow.out")
wait $slow
rc=$?
total=$(wc -l <"$tmp/slow.out")
# Every record once; pcpus that waited for the writer more than a second were
# paused, so some records may come late (reported), not lost or doubled.
want=$(wc -l <"$tmp/file.out")
if [ "$early" -gt 100 ] && [ "$early" -lt "$total" ] && [ $rc -eq 0 ] && [ "$total" -eq "$want" ]; then
	echo "ok   slow-writer ($early of $total lines while the writer waited)"
else
	fail "slow-writer: $early of $total lines early ($want in all), exit $rc"
fi

# SIGINT and SIGTERM while the pipe stays open: the summary of what was read.
for sig in INT TERM; do
	# Without the signal vmalyze would end only with the writer, without "Interrupted".
	{ cat "$good"; sleep 5; } | "$VMALYZE" -s - >"$tmp/sig.out" 2>"$tmp/sig.err" &
	pid=$!      # the pipeline's last process: vmalyze
	pids="$pids $pid"
	sleep 2
	kill -$sig $pid
	wait $pid
	rc=$?
	if [ $rc -eq 0 ] && grep -q "Total time" "$tmp/sig.out" && grep -q "Interrupted" "$tmp/sig.err"; then
		echo "ok   sig$sig-summary"
	else
		fail "sig$sig-summary: exit $rc"; sed 's/^/  stderr: /' "$tmp/sig.err" | head -3
	fi
done

# A whole trace, then the writer holds the pipe for 3 s: the pcpus are
# paused (the input was quiet for a second) and end with the input, their
# vcpus' last stretches closed as for the file (the domains' runstates
# may differ: the ends come after the other pcpus' last records).
{ cat "$good"; sleep 3; } | "$VMALYZE" -s - >"$tmp/held.out" 2>"$tmp/held.err"
rc=$?
"$VMALYZE" -s "$good" >"$tmp/held-file.out" 2>/dev/null
grep -e '^   running:' -e '^-- v' "$tmp/held.out" >"$tmp/held.run"
grep -e '^   running:' -e '^-- v' "$tmp/held-file.out" >"$tmp/held-file.run"
if [ $rc -eq 0 ] && [ -s "$tmp/held-file.run" ] && cmp -s "$tmp/held.run" "$tmp/held-file.run"; then
	echo "ok   held-pipe-ends-pcpus"
else
	fail "held-pipe-ends-pcpus: exit $rc"; diff "$tmp/held-file.run" "$tmp/held.run" | head -5
fi

# The same with --dump-raw-reads, whose streams wrap the reader's: a
# paused pcpu given to the merge again keeps its wrapper, so it ends with
# the input too (it stayed paused, its last stretches left open).
{ cat "$good"; sleep 3; } | "$VMALYZE" -s --dump-raw-reads - >"$tmp/held-raw.out" 2>/dev/null
rc=$?
grep -e '^   running:' -e '^-- v' "$tmp/held-raw.out" >"$tmp/held-raw.run"
if [ $rc -eq 0 ] && [ -s "$tmp/held-file.run" ] && cmp -s "$tmp/held-raw.run" "$tmp/held-file.run" &&
	grep -q '^R p' "$tmp/held-raw.out"; then
	echo "ok   held-pipe-ends-pcpus-raw-reads"
else
	fail "held-pipe-ends-pcpus-raw-reads: exit $rc"; diff "$tmp/held-file.run" "$tmp/held-raw.run" | head -5
fi

# A live xentrace writes whole windows and goes quiet between flushes:
# each quiet second pauses the pcpu the merge waits for, and its next
# window adds it to the merge again (twenty times or more here).  Every
# record is still processed once: the class volumes are the file's (the
# order, and so the rest, may differ); -v shows the pauses.
cat >"$tmp/winfeed.py" <<'EOF'
import struct, sys, time
data = open(sys.argv[1], 'rb').read()
out, off, cut = sys.stdout.buffer, 0, []
while off + 12 <= len(data):
    hdr, _, size = struct.unpack_from('<III', data, off)
    off += 4 + 4 * ((hdr >> 28) & 7) + (8 if hdr >> 31 else 0) + size
    cut.append(min(off, len(data)))
start = 0
for end in cut[1::2] + ([cut[-1]] if len(cut) % 2 else []):
    out.write(data[start:end])
    out.flush()
    start = end
    time.sleep(1.2)
EOF
volumes() { sed -n '/Log volume/,/^|-- Domain/p' "$1" | grep -v -e '+-' -e 'Domain'; }
if command -v python3 >/dev/null 2>&1; then
	python3 "$tmp/winfeed.py" "$good" | "$VMALYZE" -v -s - >"$tmp/wins.out" 2>"$tmp/wins.err"
	rc=$?
	"$VMALYZE" -s "$good" >"$tmp/wins-file.out" 2>/dev/null
	volumes "$tmp/wins.out" >"$tmp/wins.vol"
	volumes "$tmp/wins-file.out" >"$tmp/wins-file.vol"
	paused=$(grep -c "quiet for a second .*paused" "$tmp/wins.err")
	if [ $rc -eq 0 ] && [ -s "$tmp/wins.vol" ] && cmp -s "$tmp/wins.vol" "$tmp/wins-file.vol" &&
		[ "$paused" -ge 10 ]; then
		echo "ok   paused-pcpus-added-again-lose-nothing ($paused pauses)"
	else
		fail "paused-pcpus-added-again-lose-nothing: exit $rc, $paused pauses"
		diff "$tmp/wins-file.vol" "$tmp/wins.vol" | head -5
	fi
else
	echo "skip paused-pcpus-added-again-lose-nothing: no python3"
fi

# SIGINT while the writer holds the pipe open in the middle of a window:
# the records already read are not lost.  The summary counts every one of
# them, as the same bytes on a closed pipe read with --tolerance 5 do (the
# window cut short read as far as it goes); only the order may differ,
# pcpus that waited being paused (so the class volumes are compared).
head -c 60000 "$good" >"$tmp/cut.xt"
{ cat "$tmp/cut.xt"; sleep 5; } | "$VMALYZE" -s - >"$tmp/cut-sig.out" 2>"$tmp/cut-sig.err" &
pid=$!
pids="$pids $pid"
sleep 2
kill -INT $pid
wait $pid
rc=$?
"$VMALYZE" --tolerance 5 -s - <"$tmp/cut.xt" >"$tmp/cut-eof.out" 2>/dev/null
volumes "$tmp/cut-eof.out" >"$tmp/cut-eof.vol"
volumes "$tmp/cut-sig.out" >"$tmp/cut-sig.vol"
if [ $rc -eq 0 ] && [ -s "$tmp/cut-eof.vol" ] && cmp -s "$tmp/cut-eof.vol" "$tmp/cut-sig.vol" &&
	grep -q "Interrupted" "$tmp/cut-sig.err"; then
	echo "ok   sigINT-keeps-records-read"
else
	fail "sigINT-keeps-records-read: exit $rc"; diff "$tmp/cut-eof.vol" "$tmp/cut-sig.vol" | head -5
fi

# A run with 32 MiB of regular files or more is analysed on a thread of
# its own (main.c): SIGINT still reaches the read of a FIFO left open,
# and what was read is reported.
if "$top_builddir/tools/vmalyze-gen" --seed 2 --size 40M --out "$tmp/big.xt" >/dev/null 2>&1 &&
	mkfifo "$tmp/held.fifo"; then
	{ cat "$good"; exec sleep 20; } >"$tmp/held.fifo" 2>/dev/null &
	writer=$!
	"$VMALYZE" -s -j 1 "$tmp/big.xt" "$tmp/held.fifo" >"$tmp/big-sig.out" 2>"$tmp/big-sig.err" &
	pid=$!
	pids="$pids $pid $writer"
	sleep 3
	kill -INT $pid
	n=0
	while kill -0 $pid 2>/dev/null && [ $n -lt 50 ]; do
		sleep 0.2
		n=$((n + 1))
	done
	if kill -0 $pid 2>/dev/null; then
		fail "sigINT-analysis-thread: still reading 10 s after SIGINT"
	else
		wait $pid
		rc=$?
		if [ $rc -eq 0 ] && [ "$(grep -c 'Total time' "$tmp/big-sig.out")" -eq 2 ] &&
			grep -q "held.fifo: Interrupted" "$tmp/big-sig.err"; then
			echo "ok   sigINT-analysis-thread"
		else
			fail "sigINT-analysis-thread: exit $rc"
			sed 's/^/  stderr: /' "$tmp/big-sig.err" | head -3
		fi
	fi
	kill $writer 2>/dev/null
else
	fail "sigINT-analysis-thread: cannot make its inputs"
fi

exit $((fails > 0))
