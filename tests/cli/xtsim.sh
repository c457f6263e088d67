#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Traces of bench/xtsim, a generator that shares no code nor model with
# vmalyze-gen (preemption inside an exit, wake-ups written by another
# pcpu, migrations, xentrace's drain of every buffer at once): vmalyze
# reads them with no warning, its summary's exits by vcpu and reason are
# the ground truth xtsim wrote (exits closed by a vmentry or by a change
# to runnable: a preemption's, or a wake-up's after a hlt), and
# --threads 2 prints --threads 1's summary; a host with lost-record gaps
# (which have no truth) reads with no warning, the same on two threads,
# its lost records counted.  Skips (exit 77) without python3.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# The summary's exits as "dDvV REASON COUNT" lines, sorted.
exits() {
	python3 -c '
import json, sys
for d in json.load(sys.stdin)["domains"]:
    for v in d["vcpus"]:
        for e in v.get("exits", []):
            print("d%dv%d %d %d" % (d["id"], v["id"], e["code"], e["cycles"]["count"]))
' | LC_ALL=C sort
}

for host in "8-pcpus|--seed 5 --pcpus 8 --domains 6 --vcpus 2 --pv-domains 1 --size 2M" \
	"16-pcpus|--seed 7 --pcpus 16 --domains 12 --vcpus 3 --pv-domains 4 --size 3M" \
	"2-pcpus|--seed 9 --pcpus 2 --domains 3 --vcpus 2 --pv-domains 0 --size 1M"; do
	name=${host%%|*}
	# shellcheck disable=SC2086 # the host's options
	if ! python3 "$top_srcdir/bench/xtsim" ${host#*|} --out "$tmp/t.xt" \
		--truth "$tmp/truth.raw" 2>"$tmp/gen.err"; then
		fail "$name: xtsim: $(tail -1 "$tmp/gen.err")"
		continue
	fi
	LC_ALL=C sort "$tmp/truth.raw" >"$tmp/truth"
	"$VMALYZE" --threads 1 -s "$tmp/t.xt" >"$tmp/s1" 2>"$tmp/err1"
	rc1=$?
	"$VMALYZE" --threads 2 -s "$tmp/t.xt" >"$tmp/s2" 2>"$tmp/err2"
	rc2=$?
	"$VMALYZE" --threads 1 -s --json "$tmp/t.xt" 2>"$tmp/err3" | exits >"$tmp/ours"
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ -s "$tmp/err1" ] || [ -s "$tmp/err2" ] ||
		[ -s "$tmp/err3" ]; then
		fail "$name: exit $rc1/$rc2, stderr: $(head -2 "$tmp/err1" "$tmp/err2" "$tmp/err3")"
	elif ! cmp -s "$tmp/s1" "$tmp/s2"; then
		fail "$name: --threads 2 prints another summary"
	elif [ "$(wc -l <"$tmp/truth")" -lt 10 ]; then
		fail "$name: the truth holds $(wc -l <"$tmp/truth") rows"
	elif ! cmp -s "$tmp/truth" "$tmp/ours"; then
		fail "$name: exits differ from the truth:"
		diff "$tmp/truth" "$tmp/ours" | head -6
	else
		echo "ok   $name: $(wc -l <"$tmp/truth") exit rows equal the truth"
	fi
done

name=8-pcpus-lost
if ! python3 "$top_srcdir/bench/xtsim" --seed 11 --pcpus 8 --domains 6 --vcpus 2 \
	--pv-domains 1 --lost 40 --size 2M --out "$tmp/t.xt" 2>"$tmp/gen.err"; then
	fail "$name: xtsim: $(tail -1 "$tmp/gen.err")"
else
	"$VMALYZE" --threads 1 -s "$tmp/t.xt" >"$tmp/s1" 2>"$tmp/err1"
	rc1=$?
	"$VMALYZE" --threads 2 -s "$tmp/t.xt" >"$tmp/s2" 2>"$tmp/err2"
	rc2=$?
	lost=$("$VMALYZE" -s --json "$tmp/t.xt" 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["lost_records"])')
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ -s "$tmp/err1" ] || [ -s "$tmp/err2" ]; then
		fail "$name: exit $rc1/$rc2, stderr: $(head -2 "$tmp/err1" "$tmp/err2")"
	elif ! cmp -s "$tmp/s1" "$tmp/s2"; then
		fail "$name: --threads 2 prints another summary"
	elif [ "${lost:-0}" -le 0 ]; then
		fail "$name: no lost record counted (${lost:-none})"
	else
		echo "ok   $name: $lost lost records, the same summary on two threads"
	fi
fi
[ "$fails" -eq 0 ]
