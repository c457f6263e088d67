#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --domain/--vm, --vcpu and --time, --top, and kvm-stat's --event and
# --sort (issue 10): a filtered run's rows equal the unfiltered run's rows
# for that domain or vcpu, on Xen and KVM; --top lists the longest exits
# in order, at time stamps the dump shows; bad values are usage errors.
set -u
: "${VMALYZE:?}" "${top_srcdir:?}" "${SHARED:?}"
xen="$top_srcdir/traces/gen-vmx-4cpu.xentrace"
kvm="$top_srcdir/traces/kvm/vmx-v6.dat"
host="$SHARED/traces/kvm-vmx-host-2.dat"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

check() { # NAME COMMAND...
	name=$1; shift
	if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

# The text of one domain (header to the next domain or table), or one vcpu in it.
domain_text() { # FILE HEADER-REGEX
	awk -v h="$2" '$0 ~ h { on = 1; print; next }
		on && (/^\|-- / || /^KVM events:/ || /^Longest exits/) { exit }
		on { print }' "$1"
}
vcpu_text() { # FILE VCPU
	awk -v v="$2" '$0 ~ "^-- v" v "[ -]" { on = 1; print; next }
		on && (/^-- v/ || /^\|-- / || /^KVM events:/) { exit }
		on { print }' "$1"
}
usage() { # OPTIONS...: a usage error, status 1
	"$VMALYZE" "$@" "$kvm" >/dev/null 2>&1
	[ $? -eq 1 ]
}

# Xen: a domain and a vcpu of it.
"$VMALYZE" -s "$xen" >"$tmp/all" 2>/dev/null
dom=$(sed -n 's/^|-- Domain \([0-9]*\) --|$/\1/p' "$tmp/all" | head -1)
"$VMALYZE" -s --domain "$dom" "$xen" >"$tmp/one" 2>/dev/null
domain_text "$tmp/all" "^\\|-- Domain $dom --\\|" >"$tmp/a"
domain_text "$tmp/one" "^\\|-- Domain $dom --\\|" >"$tmp/b"
check "Xen --domain $dom: its rows equal the unfiltered run's" sh -c "[ -s '$tmp/a' ] && cmp -s '$tmp/a' '$tmp/b'"
check "Xen --domain $dom: no other domain" sh -c "[ \$(grep -c '^|-- Domain' '$tmp/one') -eq 1 ]"
"$VMALYZE" -s --domain "$dom" --vcpu 1 "$xen" >"$tmp/one" 2>/dev/null
domain_text "$tmp/all" "^\\|-- Domain $dom --\\|" >"$tmp/d"
vcpu_text "$tmp/d" 1 >"$tmp/a"
vcpu_text "$tmp/one" 1 >"$tmp/b"
check "Xen --vcpu 1: its rows equal the unfiltered run's" sh -c "[ -s '$tmp/a' ] && cmp -s '$tmp/a' '$tmp/b'"
check "Xen --vcpu 1: no other vcpu" sh -c "[ \$(grep -c '^-- v' '$tmp/one') -eq 1 ]"

# KVM: a VM by number and by its VMM's pid, JSON too.
if [ -f "$host" ]; then
	"$VMALYZE" -s "$host" >"$tmp/all" 2>/dev/null
	"$VMALYZE" -s --vm 1 "$host" >"$tmp/one" 2>/dev/null
	domain_text "$tmp/all" '^\|-- VM 1 ' >"$tmp/a"
	domain_text "$tmp/one" '^\|-- VM 1 ' >"$tmp/b"
	check "KVM --vm 1: its rows equal the unfiltered run's" sh -c "[ -s '$tmp/a' ] && cmp -s '$tmp/a' '$tmp/b'"
	pid=$(sed -n 's/^|-- VM 1 .*pid \([0-9]*\)).*/\1/p' "$tmp/all")
	"$VMALYZE" -s --vm "$pid" "$host" >"$tmp/bypid" 2>/dev/null
	check "KVM --vm PID is --vm 1" cmp -s "$tmp/one" "$tmp/bypid"
	"$VMALYZE" --json "$host" >"$tmp/all.json" 2>/dev/null
	"$VMALYZE" --json --vm 0 --vcpu 1 "$host" >"$tmp/one.json" 2>/dev/null
	check "KVM JSON --vm 0 --vcpu 1: the same vcpu object" python3 -c "
import json, sys
a = json.load(open('$tmp/all.json')); b = json.load(open('$tmp/one.json'))
va = [v for d in a['domains'] if d['id'] == 0 for v in d['vcpus'] if v['id'] == 1]
vb = [v for d in b['domains'] for v in d['vcpus']]
sys.exit(0 if len(va) == 1 and vb == va else 1)"
fi

# Named VMs: the GUEST option's name, the vcpu threads, in text, JSON and CSV.
"$VMALYZE" -s "$kvm" >"$tmp/a" 2>/dev/null
check "text: the VM by its GUEST name" grep -q '^|-- VM 0 "fixture-guest" (VMM not known) --|$' "$tmp/a"
check "text: vcpu 0 is thread 2000" grep -q '^-- v0 (thread 2000 "CPU 0/KVM") --$' "$tmp/a"
check "text: how vcpus were grouped" grep -q '^ vcpus grouped by: guest-option$' "$tmp/a"
"$VMALYZE" --csv "$kvm" >"$tmp/a.csv" 2>/dev/null
check "CSV: the VM's name, grouping and threads" python3 -c "
import csv, sys
rows = list(csv.DictReader(open('$tmp/a.csv')))
ok = rows and all(r['vm'] == 'fixture-guest' and r['grouping'] == 'guest-option' for r in rows)
ok = ok and {(r['vcpu'], r['thread_id'], r['thread_name']) for r in rows} == {('0', '2000', 'CPU 0/KVM'), ('1', '2001', 'CPU 1/KVM')}
sys.exit(0 if ok else 1)"

# --time 0, is the whole trace; a window keeps only exits inside it.
"$VMALYZE" -s "$kvm" >"$tmp/a" 2>/dev/null
"$VMALYZE" -s --time 0, "$kvm" >"$tmp/b" 2>/dev/null
check "--time 0, is the whole trace" cmp -s "$tmp/a" "$tmp/b"
"$VMALYZE" -s --top 1000 --time 0.01,0.03 "$kvm" >"$tmp/b" 2>/dev/null
check "--time 0.01,0.03: every exit inside" awk '/^Longest exits/ { on = 1; getline; next }
	on { if ($1 < 0.01 || $1 > 0.03) bad = 1; n++ } END { exit bad || !n }' "$tmp/b"

# -a --time: the dump's times and --top's both count from the trace's first
# record, not the window's start: the longest exit's stamp is a line of the
# windowed dump, and the dump's first time is past the window's start.
"$VMALYZE" -a -s --top 1 --time 0.01,0.03 "$kvm" >"$tmp/wd" 2>/dev/null
t1=$(awk '/^Longest exits/ { getline; getline; print $1; exit }' "$tmp/wd")
check "-a --time: --top's stamp $t1 is a kvm_exit of the dump" grep -q "^ *$t1 .*kvm_exit:" "$tmp/wd"
check "-a --time: the dump's times count from the trace's first record" \
	awk 'NR == 1 { exit !($1 >= 0.01 && $1 <= 0.03) }' "$tmp/wd"
"$VMALYZE" -a -s --top 1 --time 0.001, "$xen" >"$tmp/wd" 2>/dev/null
t1=$(awk '/^Longest exits/ { getline; getline; print $1; exit }' "$tmp/wd")
check "-a --time on Xen: --top's stamp $t1 is a vmexit of the dump" grep -q "^\]  *$t1 .* vmexit " "$tmp/wd"

# --top: longest first, the longest is the largest max, each stamp is a kvm_exit in the dump.
"$VMALYZE" -s --top 5 "$kvm" >"$tmp/top" 2>/dev/null
awk '/^Longest exits/ { on = 1; getline; next } on { print }' "$tmp/top" >"$tmp/rows"
check "--top 5: five rows" sh -c "[ \$(wc -l <'$tmp/rows') -eq 5 ]"
check "--top 5: longest first" sh -c "awk '{ print \$3 }' '$tmp/rows' | sort -rn -c"
# kvm-stat prints microseconds (perf's "%.2fus"): the length in ns as such.
max=$("$VMALYZE" --format kvm-stat --sort max "$kvm" 2>/dev/null | awk '/^ *VM-EXIT/ { getline; getline; print $6; exit }')
check "--top: the longest is kvm-stat's largest max ($max)" sh -c "[ \"\$(awk 'NR == 1 { printf \"%.2fus\", \$3 / 1000 }' '$tmp/rows')\" = '$max' ]"
"$VMALYZE" -a "$kvm" >"$tmp/dump" 2>/dev/null
t1=$(awk 'NR == 1 { print $1 }' "$tmp/rows")
check "--top: the stamp $t1 is a kvm_exit in the dump" grep -q "^ *$t1 .*kvm_exit:" "$tmp/dump"
"$VMALYZE" -s --top 3 "$xen" >"$tmp/xtop" 2>/dev/null
awk '/^Longest exits/ { on = 1; getline; next } on { print }' "$tmp/xtop" >"$tmp/rows"
check "--top on Xen: three rows" sh -c "[ \$(wc -l <'$tmp/rows') -eq 3 ]"
max=$("$VMALYZE" --format kvm-stat --sort max "$xen" 2>/dev/null | awk '/^ *VM-EXIT/ { getline; getline; print $6; exit }')
hz=$("$VMALYZE" --json "$xen" 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["clock"]["hz"])')
check "--top on Xen: the longest is the largest max ($max), arcs closed early too" \
	sh -c "[ \"\$(awk -v hz=$hz 'NR == 1 { printf \"%.2fus\", \$2 / (hz / 1000000) }' '$tmp/rows')\" = '$max' ]"
"$VMALYZE" -a "$xen" >"$tmp/dump" 2>/dev/null
t1=$(awk 'NR == 1 { print $1 }' "$tmp/rows")
check "--top on Xen: the stamp $t1 is a vmexit in the dump" grep -q "^\]  *$t1 .* vmexit " "$tmp/dump"
"$VMALYZE" --json --top 2 "$kvm" >"$tmp/top.json" 2>/dev/null
check "--top in JSON" python3 -c "
import json, sys
w = json.load(open('$tmp/top.json'))['worst_exits']
sys.exit(0 if len(w) == 2 and w[0]['length'] >= w[1]['length'] and w[0]['unit'] == 'ns' else 1)"

# --top and a scatterplot share the state's observer: the plot is the same.
"$VMALYZE" -s --scatterplot-vmexit-eip "$xen" >"$tmp/a" 2>/dev/null
"$VMALYZE" -s --scatterplot-vmexit-eip --top 3 "$xen" 2>/dev/null |
	awk '/^Longest exits/ { skip = 5 } skip { skip--; next } { print }' >"$tmp/b"
check "--top leaves a scatterplot as it is" cmp -s "$tmp/a" "$tmp/b"

# kvm-stat's tables and orders.
"$VMALYZE" --format kvm-stat --event mmio "$kvm" >"$tmp/mmio" 2>/dev/null
check "--event mmio: perf's address labels" grep -q '^ *0xfebf0008:R ' "$tmp/mmio"
"$VMALYZE" --format kvm-stat --event ioport --sort time "$kvm" >"$tmp/io" 2>/dev/null
check "--sort time: by time, largest first" sh -c "awk '/IO Port Access/ { on = 1; next } on && NF == 0 { exit } on { print \$4 }' '$tmp/io' | tr -d % | sort -rn -c"

check "--top 0 is a usage error" usage -s --top 0
check "--event with the text summary is a usage error" usage -s --event msr
check "--sort foo is a usage error" usage --format kvm-stat --sort foo
check "--time 2,1 is a usage error" usage -s --time 2,1
check "--top with -a is a usage error" usage -a --top 3
check "--vcpu with --report-pcpu is a usage error (rows per VM, not vcpu)" usage -s --report-pcpu --vcpu 0
"$VMALYZE" -s --report-pcpu --vcpu 0 "$kvm" 2>&1 >/dev/null | grep -q 'not per vcpu'
check "--vcpu with --report-pcpu: the error says why" [ $? -eq 0 ]
[ "$fails" -eq 0 ]
