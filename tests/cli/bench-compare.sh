#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/compare: two programs whose outputs differ are not timed (exit
# 3, unless --keep-going); a program doing five times the work is
# slower in every round, which the sign test says; the table has A, B
# and the control; with --wall a program that sleeps first, which costs
# no CPU, is slower in every round; usage errors exit 1.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
compare=$top_srcdir/bench/compare
trace=$top_srcdir/traces/gen-vmx-4cpu.xentrace

# B: the same output for five times the work.
cat >"$tmp/slower" <<EOF
#!/bin/sh
for i in 1 2 3 4; do "$VMALYZE" "\$@" >/dev/null || exit 1; done
exec "$VMALYZE" "\$@"
EOF
# C: one more line of output.
cat >"$tmp/more" <<EOF
#!/bin/sh
"$VMALYZE" "\$@" && echo one more line
EOF
# D: the same output after a sleep: wall time, no CPU time.
cat >"$tmp/sleeper" <<EOF
#!/bin/sh
sleep 0.2
exec "$VMALYZE" "\$@"
EOF
chmod +x "$tmp/slower" "$tmp/more" "$tmp/sleeper"

bash "$compare" --rounds 6 "$VMALYZE" "$tmp/slower" -- --threads 1 -s "$trace" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "five times the work: exit $rc: $(cat "$tmp/err")"
grep -q '^B against A, round by round: median +[0-9.]*%, faster in 0 of 6 rounds (sign test p = 0.031)$' \
	"$tmp/out" || fail "five times the work is not slower in every round: $(cat "$tmp/out")"
grep -Eq '^verdict: (B is slower|none: the control differs)' "$tmp/out" ||
	fail "no verdict that B is slower: $(grep verdict "$tmp/out")"
for who in A B C; do
	grep -q "^$who  *[0-9.]*  *[0-9.]*  *[0-9.]*  " "$tmp/out" || fail "no row $who"
done
grep -q '^control against A, round by round' "$tmp/out" || fail "no control line"

bash "$compare" --wall --rounds 6 --no-control "$VMALYZE" "$tmp/sleeper" -- --threads 1 -s \
	"$trace" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "--wall: exit $rc: $(cat "$tmp/err")"
grep -q '^rounds: 6; wall seconds a run$' "$tmp/out" || fail "--wall: not said: $(head -3 "$tmp/out")"
# The sleep adds 0.2 s by the wall and a few ms of CPU (the shell and
# sleep themselves), whatever the build's speed: B's median less A's.
awk '$2 ~ /^[0-9.]+$/ { m[$1] = $3 } END { exit !(m["B"] - m["A"] >= 0.15) }' "$tmp/out" ||
	fail "--wall: a sleep of 0.2 s first is not timed: $(cat "$tmp/out")"

bash "$compare" --rounds 2 "$VMALYZE" "$tmp/more" -- -s "$trace" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] || fail "different outputs: exit $rc, not 3"
grep -q 'print different outputs' "$tmp/err" || fail "different outputs not said"
bash "$compare" --rounds 2 --no-control --keep-going "$VMALYZE" "$tmp/more" -- -s "$trace" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "--keep-going: exit $rc"
grep -q '^C ' "$tmp/out" && fail "--no-control ran the control"

for bad in "--rounds 0 $VMALYZE $VMALYZE -- -s $trace" "$VMALYZE $VMALYZE -s $trace" \
	"--env-b 1=2 $VMALYZE $VMALYZE -- -s $trace" "$VMALYZE $tmp/none -- -s $trace"; do
	# shellcheck disable=SC2086 # the arguments are split on purpose
	bash "$compare" $bad >/dev/null 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "'$bad': exit $rc, not 1"
done

[ $fails -eq 0 ] || exit 1
echo "PASS bench/compare"
