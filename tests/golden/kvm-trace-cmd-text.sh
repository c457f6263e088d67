#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The KVM dump prints every record as `trace-cmd report` does: after
# vmalyze's own columns (relative time, pcpus, dXvY), each line equals the
# line trace-cmd prints for that record, for EVERY record:
# - ../shared/traces/kvm-vmx-{guest,host,host-2}.dat against the stored
#   reports in ../shared/reference/trace-cmd/ (zlib files Debian's
#   trace-cmd cannot read);
# - when trace-cmd is installed, the files it can read: traces/kvm/*.dat
#   fixtures and ../shared/traces/kvm-pvm-host-v7-zstd.dat.
# trace-cmd prints a multi-line event text (9p hex dumps) on several lines;
# vmalyze joins them with blanks, and so does this comparison.
# Skips (exit 77) when there is nothing to compare with.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}" "${SHARED:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 compared=0

# Our dump with vmalyze's columns cut: mark and time (16), pcpu columns
# (never a 'd'), then " dXvY ".
ours() {
	timeout 300 "$VMALYZE" -a "$1" 2>"$tmp/err" | sed 's/^.\{16\}[^d]*d[0-9?]*v[0-9?]* //'
}

# trace-cmd's lines, continuation lines joined, the "cpus=N" header dropped.
theirs() {
	awk 'NR == 1 && /^cpus=/ { next }
	     /^ *[^ ].*-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]+: / {
		if (have) print line; line = $0; have = 1; next }
	     { line = line " " $0 }
	     END { if (have) print line }' | sed 's/ *$//'
}

# trace-cmd report's lines of FILE into $tmp/ref.  Once, under a loaded
# make check, it printed nothing for a file it reads at every other run:
# it gets a second try, and its status and messages are shown if it fails.
reference() { # FILE
	for try in 1 2; do
		trace-cmd report -i "$1" 2>"$tmp/tc-err" >"$tmp/tc-out"
		tc_status=$?
		theirs <"$tmp/tc-out" >"$tmp/ref"
		[ -s "$tmp/ref" ] && return 0
		echo "note: trace-cmd report -i $1 printed no event (try $try, status $tc_status):"
		head -3 "$tmp/tc-err" "$tmp/tc-out"
	done
}

compare() { # NAME: $tmp/ref against $tmp/ours
	n=$(wc -l <"$tmp/ref")
	if [ "$n" -gt 0 ] && cmp -s "$tmp/ref" "$tmp/ours"; then
		echo "ok   $1: all $n lines equal trace-cmd report's"
	else
		echo "FAIL $1: $(diff "$tmp/ref" "$tmp/ours" | grep -c '^>') of $n lines differ"
		diff "$tmp/ref" "$tmp/ours" | head -6
		fails=$((fails + 1))
	fi
	compared=$((compared + 1))
}

for t in kvm-vmx-guest kvm-vmx-host kvm-vmx-host-2; do
	ref="$SHARED/reference/trace-cmd/$t.report.txt.gz"
	[ -f "$ref" ] && [ -f "$SHARED/traces/$t.dat" ] || continue
	gzip -dc "$ref" | theirs >"$tmp/ref"
	ours "$SHARED/traces/$t.dat" >"$tmp/ours"
	compare "$t"
done

if command -v trace-cmd >/dev/null 2>&1; then
	for f in "$top_srcdir"/traces/kvm/arm64-v7.dat "$top_srcdir"/traces/kvm/svm-v7-zstd.dat \
		 "$top_srcdir"/traces/kvm/vmx-v6.dat "$SHARED/traces/kvm-pvm-host-v7-zstd.dat"; do
		[ -f "$f" ] || continue
		reference "$f"
		ours "$f" >"$tmp/ours"
		compare "$(basename "$f")"
	done
else
	echo "skip traces/kvm: no trace-cmd installed"
fi

[ "$compared" -gt 0 ] || { echo "SKIP: nothing to compare with"; exit 77; }
[ "$fails" -eq 0 ]
