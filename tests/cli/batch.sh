#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Batch runs: folders walked in order, compressed traces, archives of mixed
# Xen and KVM traces (tar.zst, zip, cpio, members compressed or not), files
# that are no trace skipped, a damaged member reported by ARCHIVE:MEMBER and
# offset while the rest is read, -j 1 and -j 4 byte-identical, the progress
# line, nothing written next to the inputs.  Each batch section must be what
# vmalyze prints for that trace alone.  A case whose tool (zstd, zip, cpio,
# ...) is missing is skipped.
set -u
: "${VMALYZE:?}" "${VMALYZE_GEN:?}" "${top_srcdir:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 skips=0
xen1="$top_srcdir/traces/gen-vmx-4cpu.xentrace"
xen2="$top_srcdir/traces/gen-svm-4cpu.xentrace"
xen3="$top_srcdir/traces/gen-pv-lost.xentrace"
kvm1="$top_srcdir/traces/kvm/vmx-v6.dat"
kvm2="$top_srcdir/traces/kvm/svm-v7-zstd.dat"

fail() { echo "FAIL $*"; fails=$((fails + 1)); }
ok() { echo "ok   $*"; }
skip() { echo "skip $*"; skips=$((skips + 1)); }
have() { command -v "$1" >/dev/null 2>&1; }

# expected NAME FILE...: headers and each FILE's own output, as a batch prints them
expected() {
	first=1
	while [ $# -ge 2 ]; do
		[ $first -eq 1 ] || echo
		first=0
		echo "=== $1 ==="
		"$VMALYZE" "$2"
		shift 2
	done
}

# The traces' sections of a batch's text output, and its aggregate's exit reasons.
traces_part() { awk '/^=== aggregate: /{exit} {print}' "$1" | sed '$ { /^$/d }'; }
reasons_part() { sed -n '/^--- Exit reasons across traces ---$/,/^--- Worst/p' "$1"; }
# same_aggregate OUT FILE...: OUT's aggregate counts the same exits as one run over FILEs
same_aggregate() {
	out=$1
	shift
	"$VMALYZE" "$@" >"$tmp/plain-run" 2>/dev/null
	reasons_part "$out" >"$tmp/r1"
	reasons_part "$tmp/plain-run" >"$tmp/r2"
	[ -s "$tmp/r1" ] && cmp -s "$tmp/r1" "$tmp/r2"
}

# A folder with nested subfolders, a file that is no trace and an empty one.
d="$tmp/in/folder"
mkdir -p "$d/b-sub/deeper" "$d/a-sub"
cp "$xen1" "$d/b-sub/x1.xentrace"
cp "$kvm1" "$d/b-sub/deeper/k1.dat"
cp "$xen2" "$d/a-sub/x2.xentrace"
cp "$kvm2" "$d/k2.dat"
echo "notes" >"$d/README"
: >"$d/a-sub/empty"
# Every file and folder under the folder, to see that nothing changes or appears.
snapshot() { find "$d" "$a" -exec stat -c '%n %s %Y' {} + | sort; }

"$VMALYZE" -v "$d" >"$tmp/out" 2>"$tmp/err"
st=$?
expected "$d/a-sub/x2.xentrace" "$xen2" "$d/b-sub/deeper/k1.dat" "$kvm1" \
	"$d/b-sub/x1.xentrace" "$xen1" "$d/k2.dat" "$kvm2" >"$tmp/want"
if [ $st -ne 0 ]; then
	fail "folder: exit status $st"
elif ! traces_part "$tmp/out" | cmp -s - "$tmp/want"; then
	fail "folder: output is not the files' outputs in sorted order"
	traces_part "$tmp/out" | diff "$tmp/want" - | head -5
elif ! same_aggregate "$tmp/out" "$xen2" "$kvm1" "$xen1" "$kvm2"; then
	fail "folder: the aggregate is not that of the same traces given one by one"
elif ! grep -q "folder/README: skipped: not a trace" "$tmp/err" ||
	! grep -q "a-sub/empty: skipped: not a trace" "$tmp/err"; then
	fail "folder: no -v note for the files that are no trace"
else
	ok "folder walked in order, non-traces skipped"
fi

# Each compression of a lone trace: the output of the plain file, no header.
for c in gzip:gz xz:xz zstd:zst bzip2:bz2 lz4:lz4; do
	tool=${c%%:*} ext=${c#*:}
	if ! have "$tool"; then
		skip "$ext: no $tool"
		continue
	fi
	for t in "$xen1" "$kvm1"; do
		name=$(basename "$t")
		"$tool" -c <"$t" >"$tmp/in/$name.$ext"
		"$VMALYZE" "$tmp/in/$name.$ext" >"$tmp/out" 2>"$tmp/err"
		st=$?
		"$VMALYZE" "$t" >"$tmp/want"
		if [ $st -ne 0 ] || ! cmp -s "$tmp/out" "$tmp/want"; then
			fail "$name.$ext: status $st or output differs from the plain file"
		else
			ok "$name.$ext"
		fi
	done
done

# libarchive is loaded only for an input that needs it (archive-lib.h): a
# plain trace, Xen or KVM, starts without it; a compressed one loads it.
loads_libarchive() { LD_DEBUG=files "$VMALYZE" "$1" 2>&1 >/dev/null | grep -q 'file=[^ ]*libarchive'; }
if LD_DEBUG=files "$VMALYZE" --version 2>&1 >/dev/null | grep -q 'file='; then
	if loads_libarchive "$xen1" || loads_libarchive "$kvm1"; then
		fail "a plain trace loads libarchive"
	else
		ok "plain traces start without libarchive"
	fi
	gzip -c <"$xen1" >"$tmp/lone.gz"
	if loads_libarchive "$tmp/lone.gz"; then
		ok "a compressed trace loads libarchive"
	else
		fail "a compressed trace was read without loading libarchive"
	fi
else
	skip "libarchive loaded on demand: the dynamic loader has no LD_DEBUG"
fi

# Archives of mixed members: Xen, KVM, a gzip-compressed Xen, a README.
a="$tmp/arc"
mkdir -p "$a/run"
cp "$xen1" "$a/run/x1.xentrace"
cp "$kvm1" "$a/run/k1.dat"
gzip -c <"$xen3" >"$a/run/x3.xentrace.gz"
echo "notes" >"$a/README"
members="README run/x1.xentrace run/k1.dat run/x3.xentrace.gz"
snapshot >"$tmp/before"
make_archive() { # KIND FILE
	case $1 in
	tar.zst) have zstd && (cd "$a" && tar -cf - $members) | zstd -q >"$2" ;;
	tar.xz) have xz && (cd "$a" && tar -cJf - $members) >"$2" ;;
	tar) (cd "$a" && tar -cf - $members) >"$2" ;;
	zip) have zip && (cd "$a" && zip -q - $members) >"$2" ;;
	cpio) have cpio && (cd "$a" && printf '%s\n' $members | cpio -o --quiet) >"$2" ;;
	esac
}
for kind in tar.zst tar.xz tar zip cpio; do
	f="$tmp/in/mixed.$kind"
	if ! make_archive "$kind" "$f" 2>/dev/null || [ ! -s "$f" ]; then
		skip "$kind: no tool to make it"
		continue
	fi
	"$VMALYZE" -v "$f" >"$tmp/out" 2>"$tmp/err"
	st=$?
	expected "$f:run/x1.xentrace" "$xen1" "$f:run/k1.dat" "$kvm1" \
		"$f:run/x3.xentrace.gz" "$xen3" >"$tmp/want"
	if [ $st -ne 0 ]; then
		fail "$kind: exit status $st"; head -3 "$tmp/err"
	elif ! traces_part "$tmp/out" | cmp -s - "$tmp/want"; then
		fail "$kind: members' output differs from the files'"
		traces_part "$tmp/out" | diff "$tmp/want" - | head -5
	elif ! same_aggregate "$tmp/out" "$xen1" "$kvm1" "$xen3"; then
		fail "$kind: the aggregate is not that of the member traces as files"
	elif ! grep -q "mixed.$kind:README: skipped: not a trace" "$tmp/err"; then
		fail "$kind: README not noted as skipped"
	else
		ok "$kind of Xen and KVM members"
	fi
done

# A damaged member among good ones: named with its offset, the rest still read.
if have zstd; then
	dmg="$tmp/dmg"
	mkdir -p "$dmg/run"
	cp "$xen1" "$dmg/run/x1.xentrace"
	cp "$xen1" "$dmg/run/bad.xentrace"
	cp "$kvm1" "$dmg/run/k1.dat"
	printf '\377\377\377\377\377\377\377\377\377\377\377\377' |
		dd of="$dmg/run/bad.xentrace" bs=1 seek=3156 conv=notrunc 2>/dev/null
	(cd "$dmg" && tar -cf - run/x1.xentrace run/bad.xentrace run/k1.dat) | zstd -q \
		>"$tmp/in/damaged.tar.zst"
	"$VMALYZE" "$tmp/in/damaged.tar.zst" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -ne 4 ]; then
		fail "damaged member: exit status $st, expected 4"
	elif ! grep -q "damaged.tar.zst:run/bad.xentrace: offset 3156: " "$tmp/err"; then
		fail "damaged member: no message naming ARCHIVE:MEMBER and offset"; cat "$tmp/err"
	elif ! grep -q "^=== .*damaged.tar.zst:run/k1.dat ===" "$tmp/out"; then
		fail "damaged member: the member after it was not read"
	else
		ok "damaged member reported, the rest read"
	fi

	# Cut in the middle of a member's compressed data.
	big="$tmp/big"
	mkdir -p "$big"
	"$VMALYZE_GEN" --size 4M --out "$big/a.xentrace" 2>/dev/null
	cp "$kvm1" "$big/z.dat"
	(cd "$big" && tar -cf - a.xentrace z.dat) | zstd -q >"$tmp/whole.tar.zst"
	size=$(stat -c %s "$tmp/whole.tar.zst")
	head -c $((size / 2)) "$tmp/whole.tar.zst" >"$tmp/in/cut.tar.zst"
	"$VMALYZE" "$tmp/in/cut.tar.zst" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st -ne 4 ]; then
		fail "cut archive: exit status $st, expected 4"
	elif ! grep -q -E "cut.tar.zst:a.xentrace: offset [0-9]+: Cannot read the member" "$tmp/err"; then
		fail "cut archive: no message naming the member and offset"; cat "$tmp/err"
	else
		ok "cut archive reported at its member and offset"
	fi
	rm -f "$tmp/whole.tar.zst"
else
	skip "damaged members: no zstd"
fi

# Everything at once: -j 1 and -j 4 give the same bytes, stdout and stderr.
"$VMALYZE" -j 1 "$tmp/in" "$xen1" >"$tmp/j1.out" 2>"$tmp/j1.err"
st1=$?
"$VMALYZE" -j 4 "$tmp/in" "$xen1" >"$tmp/j4.out" 2>"$tmp/j4.err"
st4=$?
if [ $st1 -ne $st4 ] || ! cmp -s "$tmp/j1.out" "$tmp/j4.out" || ! cmp -s "$tmp/j1.err" "$tmp/j4.err"; then
	fail "-j 1 and -j 4 differ (status $st1 / $st4)"
	diff "$tmp/j1.out" "$tmp/j4.out" | head -5
elif [ "$(grep -c '^=== ' "$tmp/j1.out")" -lt 10 ]; then
	fail "-j: fewer traces than expected"
else
	ok "-j 1 and -j 4 byte-identical over $(grep -c '^=== ' "$tmp/j1.out") traces"
fi

# --json (JSON Lines) and --csv side by side: the same bytes, names from the archives.
for fmt in json csv; do
	"$VMALYZE" -j 1 --$fmt "$tmp/in" "$xen1" >"$tmp/j1.$fmt" 2>/dev/null
	"$VMALYZE" -j 4 --$fmt "$tmp/in" "$xen1" >"$tmp/j4.$fmt" 2>/dev/null
	if ! cmp -s "$tmp/j1.$fmt" "$tmp/j4.$fmt"; then
		fail "--$fmt: -j 1 and -j 4 differ"
		diff "$tmp/j1.$fmt" "$tmp/j4.$fmt" | head -5
	else
		ok "--$fmt: -j 1 and -j 4 byte-identical"
	fi
done
if [ "$(grep -c '^scope,file,member,' "$tmp/j4.csv")" -ne 1 ] ||
	[ "$(head -c 17 "$tmp/j4.csv")" != "scope,file,member" ]; then
	fail "--csv: the header is not once, first"
else
	ok "--csv: one header, first"
fi
if ! have python3; then
	skip "JSON Lines members: no python3"
elif ! python3 - "$tmp/j4.json" "$tmp/in/damaged.tar.zst" <<'PY'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
assert docs[-1].get("aggregate") is True
bad = [d for d in docs[:-1] if d.get("file") == sys.argv[2]]
assert [d["member"] for d in bad] == ["run/x1.xentrace", "run/bad.xentrace", "run/k1.dat"], bad
assert any(d["member"] is None and d["file"].endswith("folder/k2.dat") for d in docs[:-1])
PY
then
	fail "--json: the documents do not name the archive and member"
else
	ok "--json: documents name ARCHIVE and MEMBER"
fi

# The progress line: none off a terminal, lines with --progress, drawn on a pty.
"$VMALYZE" -j 2 "$d" >/dev/null 2>"$tmp/err"
if [ -s "$tmp/err" ]; then
	fail "progress: stderr not a terminal, yet: $(head -1 "$tmp/err")"
else
	ok "no progress line off a terminal"
fi
"$VMALYZE" --progress -q "$d" >/dev/null 2>"$tmp/err"
if ! grep -q -E '^vmalyze: 6/6 inputs, 4 traces, [0-9.]+ [KM]iB of [0-9.]+ [KM]iB' "$tmp/err"; then
	fail "--progress: no final progress line"; cat "$tmp/err"
else
	ok "--progress off a terminal"
fi
if have script && script -qec true /dev/null >/dev/null 2>&1; then
	script -qec "\"$VMALYZE\" \"$d\" >/dev/null" /dev/null >"$tmp/tty" 2>&1
	if ! grep -q "inputs, " "$tmp/tty"; then
		fail "progress: not drawn on a terminal"
	else
		ok "progress drawn on a terminal"
	fi
	script -qec "\"$VMALYZE\" -q \"$d\" >/dev/null" /dev/null >"$tmp/tty" 2>&1
	if grep -q "inputs, " "$tmp/tty"; then
		fail "progress: drawn with -q"
	else
		ok "no progress with -q"
	fi
else
	skip "progress on a terminal: no script(1)"
fi

snapshot >"$tmp/after"
if ! cmp -s "$tmp/before" "$tmp/after"; then
	fail "inputs changed or files appeared next to them"
	diff "$tmp/before" "$tmp/after" | head -5
else
	ok "nothing written next to the inputs"
fi

echo "batch: $fails failed, $skips skipped"
[ "$fails" -eq 0 ]
