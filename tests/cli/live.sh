#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --live on a pipe fed by a trickling writer (3 s of trace time, written
# in 1 MB pieces every 0.3 s): plain lines, one per active vcpu and
# second of trace time, the first of them printed while the writer is
# still writing; at the end, the same lines as --live on the file.
set -u
: "${VMALYZE:?}" "${VMALYZE_GEN:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

"$VMALYZE_GEN" --duration 3 --pcpus 2 --domains 1 --vcpus 1 --out "$tmp/t.xt" || exit 99
split -b 1000000 "$tmp/t.xt" "$tmp/piece."
pieces=$(ls "$tmp"/piece.* | wc -l)

{
	for p in "$tmp"/piece.*; do cat "$p"; sleep 0.3; done
	: >"$tmp/writer-done"
} | timeout 60 "$VMALYZE" --live - >"$tmp/live.out" 2>"$tmp/live.err" &
pipeline=$!

# Wait (at most 30 s) for the first second's lines.
early=no
i=0
while [ $i -lt 300 ]; do
	if grep -q "^live 1\.000 d1v0 " "$tmp/live.out"; then
		[ -e "$tmp/writer-done" ] || early=yes
		break
	fi
	sleep 0.1
	i=$((i + 1))
done
wait $pipeline
rc=$?

[ $rc -eq 0 ] || fail "live-pipe: exit $rc"
[ "$early" = yes ] && echo "ok   live-early (first second shown while $pieces pieces were trickling)" ||
	fail "live-early: the first second was not shown before the writer finished"
n=$(grep -c "^live [0-9]*\.[0-9]* d1v0 exits/s=[0-9]* in_exits=[0-9.]*% running=[0-9.]*% runnable=[0-9.]*% blocked=[0-9.]*% offline=[0-9.]*% worst=[0-9.]*us:[A-Z_]* top=" "$tmp/live.out")
[ "$n" -eq 3 ] && echo "ok   live-lines (3 seconds of d1v0)" || fail "live-lines: $n lines for d1v0"
timeout 60 "$VMALYZE" --live "$tmp/t.xt" >"$tmp/file.out" 2>/dev/null
cmp -s "$tmp/file.out" "$tmp/live.out" && echo "ok   live-pipe-equals-file" ||
	fail "live-pipe-equals-file"
grep -q -v '\[' "$tmp/live.out" && ! grep -q "$(printf '\033')" "$tmp/live.out" &&
	echo "ok   live-plain (no terminal codes)" || fail "live-plain: terminal codes in a file"
# On a terminal (script(1) gives one): the screen is cleared and redrawn.
if command -v script >/dev/null 2>&1; then
	timeout 60 script -qc "'$VMALYZE' --live '$tmp/t.xt'" /dev/null >"$tmp/tty.out" 2>&1
	redraws=$(grep -c "$(printf '\033')\[H$(printf '\033')\[2Jvmalyze --live" "$tmp/tty.out")
	[ "$redraws" -eq 3 ] && ! grep -q "^live " "$tmp/tty.out" &&
		echo "ok   live-terminal (3 redraws)" || fail "live-terminal: $redraws redraws"
fi
# Several files: each under its header, as in text.
timeout 60 "$VMALYZE" --live "$tmp/t.xt" "$tmp/t.xt" >"$tmp/two.out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^=== ' "$tmp/two.out")" -eq 2 ] &&
	[ "$(grep -c '^live ' "$tmp/two.out")" -eq $((2 * $(grep -c '^live ' "$tmp/file.out"))) ] &&
	echo "ok   live-two-files" || fail "live-two-files: exit $rc"
timeout 10 "$VMALYZE" --live -s "$tmp/t.xt" >/dev/null 2>&1
[ $? -eq 1 ] && echo "ok   live-with-s-refused" || fail "live-with-s-refused"
exit $((fails > 0))
