#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --format kvm-stat against an independent pairing (issue 10): on every
# x86 KVM trace with a nanosecond clock in traces/kvm and ../shared, the
# host-wide exit table's samples, min, max and average equal those of
# kvm_exit/kvm_entry records paired here, per host thread, from the
# dump's text (the relative time column and trace-cmd's event names),
# and each vcpu's table those of its host thread: exactly in the JSON
# (exit_totals, each vcpu's exits, in ns), and in kvm-stat's text as perf
# prints them (microseconds, two decimals).
# Rows are compared as sorted (samples, min, max, avg) tuples, so that
# the kernel's names (SVM's "EXIT_IOIO") need not match vmalyze's.  And
# the vcpu threads' ids and names are those trace-cmd report prints.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}" "${SHARED:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
checked=0

# same EXPECTED GOT OK-TEXT FAIL-TEXT: one check of $name, GOT non-empty and equal.
same() {
	checked=$((checked + 1))
	if cmp -s "$1" "$2" && [ -s "$2" ]; then
		echo "ok   $name: $(wc -l <"$2") $3"
	else
		echo "FAIL $name: $4"
		diff "$1" "$2" | head -10
		fails=$((fails + 1))
	fi
}

# to_us FIRST: fields from FIRST on, nanoseconds, as perf's microseconds with two decimals.
to_us() {
	awk -v first="$1" '{
		for (i = 1; i < first; i++) printf "%s%s", (i > 1 ? " " : ""), $i
		for (i = first; i <= NF; i++) printf " %.2fus", $i / 1000
		print ""
	}'
}

for f in "$top_srcdir"/traces/kvm/*.dat "$SHARED"/traces/kvm-*.dat; do
	[ -f "$f" ] || continue
	name=$(basename "$f")
	"$VMALYZE" -s "$f" 2>/dev/null | grep -q '^Total time: .*trace clock in nanoseconds' || continue
	"$VMALYZE" -a "$f" 2>/dev/null >"$tmp/dump" || true
	grep -q 'kvm_exit: *reason ' "$tmp/dump" || continue   # x86 only
	# Pair: an exit opens its thread's arc, the thread's next entry closes
	# it.  Samples count every exit: one followed by another exit, or open
	# at the end, is counted and not timed.
	awk '
	function ns(s,   p) { p = index(s, "."); return (substr(s, 1, p - 1) * 1000000000) + substr(s, p + 1) }
	{
		t = ($1 ~ /^[0-9]+\.[0-9]+$/) ? ns($1) : 0
		for (i = 2; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
		if (i > NF) next
		task = $(i - 1); sub(/.*-/, "", task)
		ev = $(i + 2)
		if (ev == "kvm_exit:") {
			if (task in open) { n[open[task]]++; tn[task SUBSEP open[task]]++ }
			open[task] = $(i + 4); at[task] = t
		} else if (ev == "kvm_entry:" && (task in open)) {
			r = open[task]; d = t - at[task]; delete open[task]
			k = task SUBSEP r
			n[r]++; tn[k]++
			if (d > 0) {
				c[r]++; s[r] += d; if (!(r in mn) || d < mn[r]) mn[r] = d; if (d > mx[r]) mx[r] = d
				tc[k]++; ts[k] += d; if (!(k in tmn) || d < tmn[k]) tmn[k] = d; if (d > tmx[k]) tmx[k] = d
			}
		}
	}
	END {
		for (k in open) { n[open[k]]++; tn[k SUBSEP open[k]]++ }
		for (r in n) printf "%d %.0f %.0f %.0f\n", n[r], mn[r], mx[r], c[r] ? int(s[r] / c[r]) : 0
		for (k in tn) {
			split(k, kr, SUBSEP)
			printf "%s %d %.0f %.0f %.0f\n", kr[1], tn[k], tmn[k], tmx[k],
				tc[k] ? int(ts[k] / tc[k]) : 0 > "/dev/stderr"
		}
	}' \
		"$tmp/dump" 2>"$tmp/tpairs.raw" | sort -n >"$tmp/pairs"
	sort "$tmp/tpairs.raw" >"$tmp/tpairs"
	# Exact integers: the JSON's host-wide exit_totals and each vcpu's exits.
	"$VMALYZE" --json "$f" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for x in d["exit_totals"]["exits"]:
    s = x["cycles"]
    print(s["events"], s["min"], s["max"], s["avg_cycles"])
for dom in d["domains"]:
    for v in dom["vcpus"]:
        for x in v.get("exits", []):
            s = x["cycles"]
            print(v["thread_id"], s["events"], s["min"], s["max"], s["avg_cycles"], file=sys.stderr)
' 2>"$tmp/tjson.raw" | sort -n >"$tmp/json"
	sort "$tmp/tjson.raw" >"$tmp/tjson"
	# kvm-stat's text: the same rows in microseconds, two decimals, as perf prints them.
	to_us 2 <"$tmp/pairs" | sort -n >"$tmp/pairs.us"
	to_us 3 <"$tmp/tpairs" | sort >"$tmp/tpairs.us"
	"$VMALYZE" --format kvm-stat "$f" 2>/dev/null >"$tmp/kvm-stat"
	awk '
		/^Analyze events for all VMs/ { on = 1; next }
		on && /Total Samples/ { exit }
		on && $2 ~ /^[0-9]+$/ { print $2, $5, $6, $7 }' "$tmp/kvm-stat" | sort -n >"$tmp/stat"
	# Per vcpu: its thread's pairs against its own table.
	awk '
		/^Analyze events for .*, VCPU [0-9]+ \(thread [0-9]+/ { t = $0; sub(/.*\(thread /, "", t); sub(/[^0-9].*/, "", t); next }
		/^Analyze events for/ { t = ""; next }
		t != "" && /Total Samples/ { t = ""; next }
		t != "" && $2 ~ /^[0-9]+$/ { print t, $2, $5, $6, $7 }' "$tmp/kvm-stat" | sort >"$tmp/tstat"
	same "$tmp/pairs" "$tmp/json" "exit reasons of the JSON's exit_totals equal the pairing (ns)" \
		"pairing (samples min max avg) vs the JSON's exit_totals"
	same "$tmp/tpairs" "$tmp/tjson" "JSON vcpu exit rows equal the pairing by thread (ns)" \
		"pairing by thread vs the JSON's vcpu exits"
	same "$tmp/pairs.us" "$tmp/stat" "exit reasons equal the pairing" \
		"pairing (samples min max avg) vs kvm-stat"
	same "$tmp/tpairs.us" "$tmp/tstat" "vcpu rows equal the pairing by thread" \
		"pairing by thread (thread samples min max avg) vs kvm-stat's vcpu tables"
done
# Names as the trace says: each vcpu thread the summary names is the task
# trace-cmd report prints for that thread id ("CPU 0/KVM-60250 [...]").
for ref in "$SHARED"/reference/trace-cmd/*.report.txt.gz; do
	[ -f "$ref" ] || continue
	f="$SHARED/traces/$(basename "$ref" .report.txt.gz).dat"
	[ -f "$f" ] || continue
	"$VMALYZE" -s "$f" 2>/dev/null | sed -n 's/^-- v[0-9]* (thread \([0-9]*\) "\(.*\)") --$/\2-\1 [/p' | sort -u >"$tmp/threads"
	[ -s "$tmp/threads" ] || continue
	gzip -dc "$ref" >"$tmp/ref"
	missing=0
	while IFS= read -r task; do
		grep -qF " $task" "$tmp/ref" || { echo "  $task not in $(basename "$ref")"; missing=1; }
	done <"$tmp/threads"
	checked=$((checked + 1))
	if [ "$missing" -eq 0 ]; then
		echo "ok   $(basename "$f"): $(wc -l <"$tmp/threads") vcpu threads named as trace-cmd names them"
	else
		echo "FAIL $(basename "$f"): vcpu thread names"
		fails=$((fails + 1))
	fi
done
# A vcpu thread is never its own VMM (kvm-vmx-host-2.dat's VM 1 has one
# vcpu thread that kept QEMU's name): a VM's vmm_pid is 0 or no vcpu's thread.
for f in "$top_srcdir"/traces/kvm/*.dat "$top_srcdir"/traces/real/kvm-*.dat "$SHARED"/traces/kvm-*.dat; do
	[ -f "$f" ] || continue
	"$VMALYZE" --json "$f" 2>/dev/null >"$tmp/vms.json" || true
	bad=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
tids = {v["thread_id"] for dom in d["domains"] for v in dom["vcpus"] if "thread_id" in v}
print(" ".join(str(dom["vmm_pid"]) for dom in d["domains"] if dom.get("vmm_pid") in tids))
' "$tmp/vms.json" 2>&1)
	checked=$((checked + 1))
	if [ -z "$bad" ]; then
		echo "ok   $(basename "$f"): no vcpu thread taken for a VMM"
	else
		echo "FAIL $(basename "$f"): vcpu threads taken for VMMs: $bad"
		fails=$((fails + 1))
	fi
done
[ "$checked" -gt 0 ] || { echo "no x86 KVM trace with a ns clock"; exit 77; }
[ "$fails" -eq 0 ]
