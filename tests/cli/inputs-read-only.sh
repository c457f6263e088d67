#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Inputs are only read: after every mode on every trace of traces/ (and on
# damaged copies), each input has the same checksum and modification time
# as before, and nothing new appeared beside it.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0

# Copies in a folder of their own, so that a new file beside them shows.
mkdir "$tmp/in"
cp -p "$top_srcdir"/traces/*.xentrace "$top_srcdir"/traces/kvm/*.dat "$top_srcdir"/traces/kvm/vmx-raw.bin \
	"$tmp/in/"
cp -rp "$top_srcdir"/traces/kvm/vmx-raw-formats "$tmp/formats"
f=$(ls "$tmp"/in/*.xentrace | head -1)
head -c 50000 "$f" >"$tmp/in/cut.xentrace"
touch -d '2001-02-03 04:05:06' "$tmp"/in/* "$tmp/formats"/*

state() {
	(cd "$tmp" && find in formats -type f | sort | while read -r p; do
		printf '%s %s %s\n' "$(sha256sum <"$p" | cut -d' ' -f1)" "$(stat -c '%Y %s' "$p")" "$p"
	done
	ls -a in formats)
}
state >"$tmp/before"

for t in "$tmp"/in/*; do
	extra=""
	case $t in *.bin) extra="--event-formats $tmp/formats" ;; esac
	for mode in "-a" "-s" "-s --histogram" "-s --json --histogram" "-s --report-pcpu" "-s -i 0.001"; do
		# shellcheck disable=SC2086
		timeout 60 "$VMALYZE" $mode $extra "$t" >/dev/null 2>&1
		# shellcheck disable=SC2086
		timeout 60 "$VMALYZE" $mode $extra - <"$t" >/dev/null 2>&1
	done
done
state >"$tmp/after"
if cmp -s "$tmp/before" "$tmp/after"; then
	echo "ok   $(ls "$tmp/in" | wc -l) inputs unchanged after every mode"
else
	echo "FAIL inputs changed:"
	diff "$tmp/before" "$tmp/after" | sed 's/^/  /'
	fails=1
fi
[ "$fails" -eq 0 ]
