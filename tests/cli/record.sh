#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vmalyze record on a host without Xen (this test skips on a Xen host):
# one line saying why, exit status 2, no output file; bad options exit 1.
set -u
: "${VMALYZE:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

if [ -e /dev/xen/privcmd ] || [ -e /proc/xen/privcmd ]; then
	echo "SKIP: this host runs Xen"; exit 77
fi
timeout 20 "$VMALYZE" record -T 1 -o "$tmp/out.xt" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "Not running on Xen" "$tmp/err" &&
	[ ! -e "$tmp/out.xt" ]; then
	echo "ok   no-xen"
else
	fail "no-xen: exit $rc"; cat "$tmp/err"
fi
timeout 20 "$VMALYZE" record --live -T 1 -- true >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ ! -s "$tmp/out" ] && echo "ok   no-xen-live" || fail "no-xen-live"
for bad in "-T 0 -o x" "-S 1 -o x" "-c 9-3 -o x" "-e zz -o x" "-T 1" "--live -o -" "--nope"; do
	timeout 20 "$VMALYZE" record $bad >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && grep -q "vmalyze record:" "$tmp/err" && echo "ok   usage: $bad" ||
		fail "usage: $bad: exit $rc"
done
timeout 20 "$VMALYZE" record --help | grep -q "Usage: vmalyze record" && echo "ok   help" ||
	fail "help"
exit $((fails > 0))
