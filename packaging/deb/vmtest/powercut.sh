#!/usr/bin/env bash
# The power-cut test (issue 27), as root: the upgrade test's guest with
# claude-pi installed and state in place, then CUTS times: boot, check what
# the last cut left, start one write-heavy job, and kill QEMU (SIGKILL: the
# power goes) at a random moment 0.2-6 s into it. Jobs:
#   apt      dpkg -i of claude-pi N and N+1 in turns (an upgrade, mid-unpack)
#   pairing  the LAN pairings rewritten: a computer added (atomic write, as
#            `claude-pi pair` does) and revoked through the running claude-pi
#            (`claude-pi pair --local --revoke`, claude-pi's own writer)
#   bond     BlueZ-style bond files rewritten in place (bluetoothd writes
#            its info files with g_file_set_contents: temp + rename)
#   mixed    all three at once
# After each cut, the next boot must: mount the root without manual repair
# (systemd-fsck-root clean or journal replayed, never "run fsck manually"),
# bring claude-pi up with every service RUNNING (after `dpkg --configure -a`,
# what unattended-upgrades runs first, when dpkg was cut), and find every
# piece of state the old or the new one: claude-pi's version N or N+1 with
# its files intact (dpkg --verify), clients.json one of its two contents,
# the LAN identity and BlueZ bonds unchanged or whole. After the last cut's
# checks the guest shuts down cleanly and the host runs e2fsck -fn: clean.
#
# Finally, with IDLE_SECONDS (default 600; 0 skips), idle.sh measures the
# idle writes an hour.
#
#   powercut.sh [CUTS]       default 20; CI runs 2 (pairing, bond) with IDLE_SECONDS=0
# The apt and mixed jobs fail today when the cut lands in dpkg's unpack
# (claude-pi left half-installed: image/README.md "Power cuts", "Not yet").
# Prints one line per cut and a report; ends "deb-vmtest powercut: ...".
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "powercut.sh: run as root"; exit 1; }
cuts=${1:-20}
idle=${IDLE_SECONDS:-600}
seed=${POWERCUT_SEED:-$RANDOM}
RANDOM=$seed
report=${POWERCUT_REPORT:-$work/report.txt}
finish() {
	say "powercut: $passed passed, $failed failed in $(( $(date +%s) - t0 ))s (seed $seed)"
	{ echo "cuts: $cuts, survived: $survived, seed $seed, $accel"; cat "$work/cuts.txt" 2>/dev/null; cat "$work/idle.txt" 2>/dev/null; } > "$report.tmp" && mv "$report.tmp" "$report"
	echo "---- report ($report)"; cat "$report"
	echo "deb-vmtest powercut: $passed passed, $failed failed"
	[ "$failed" = 0 ]; exit
}
survived=0

v1=$("$repo/packaging/version") v2=$v1.1
say "building claude-pi $v1 and $v2 (amd64)"
for v in "$v1" "$v2"; do
	VERSION=$v OUT=$share "$repo/packaging/deb/build" amd64 > "$work/build.log" 2>&1 || { cat "$work/build.log"; bad "build $v"; finish; }
done
printf 'v1=%s\nv2=%s\n' "$v1" "$v2" > "$share/versions"
fresh_disk

cat > "$work/setup.sh" <<'P'
. /host/phase-lib.sh
. /host/versions
check "install claude-pi $v1" dpkg -i /host/claude-pi_${v1}_amd64.deb
sed -i 's/^# board = .*/board = "sim"/; s/^# listen = .*/listen = ":7787"/' /etc/claude-pi/config.toml
systemctl start claude-pi
check "every service RUNNING" running 60
d=/var/lib/claude-pi
printf '[{"name":"desk","fingerprint":"%064d","paired":"2026-11-30T10:00:00Z"}]\n' 7 > $d/lan/clients.json
chown -R claude-pi:claude-pi $d
for i in 1 2 3; do
	b=/var/lib/bluetooth/00:11:22:33:44:55/AA:BB:CC:DD:EE:0$i; mkdir -p $b
	printf '[General]\nName=desk%s\n\n[LongTermKey]\nKey=00112233445566778899AABBCCDDEE0%s\nAuthenticated=2\nEncSize=16\n' $i $i > $b/info
done
sha256sum $d/lan/identity.pem > /host/identity.sum
sync
P
say "setup boot: install $v1, state in place"
boot "$work/setup.sh"; tally
[ "$failed" = 0 ] || finish

# One boot per cut: check what the last cut left (cycle.sh sources
# check.sh when /host/cut-pending says a cut came before), then start the
# next job and touch /host/ready; the host cuts the power 0.2-6 s later.
cat > "$work/check.sh" <<'P'
check "root fs: no manual repair (systemd-fsck-root succeeded, no EXT4-fs error)" sh -c '
	s=$(systemctl show -p Result --value systemd-fsck-root.service); journalctl -b -u systemd-fsck-root --no-pager -o cat | tail -n 2
	[ "$s" = success ] && ! journalctl -b -k -o cat | grep -q "EXT4-fs error"'
check "root fs mounted rw" sh -c 'findmnt -no OPTIONS / | grep -q "^rw"'
if dpkg --audit | grep -q .; then echo "     dpkg was cut: dpkg --configure -a (as unattended-upgrades does first)"; dpkg --configure -a > /tmp/cfg.log 2>&1 || cat /tmp/cfg.log; fi
check "dpkg: nothing half-installed" sh -c '! dpkg --audit | grep .'
check "claude-pi is $v1 or $v2, its files intact (dpkg --verify)" sh -c '
	v=$(dpkg-query -W -f="\${Version}" claude-pi); [ "$v" = "$1" ] || [ "$v" = "$2" ] || exit 1
	[ "$(claude-pi --version)" = "claude-pi $v" ] && dpkg --verify claude-pi' _ "$v1" "$v2"
systemctl is-active -q claude-pi || systemctl restart claude-pi
check "every service RUNNING" running 90
check "clients.json: the old or the new, never corrupt" python3 -c '
import json; c = json.load(open("/var/lib/claude-pi/lan/clients.json"))
assert [x["name"] for x in c] in (["desk"], ["desk", "laptop"]), c'
check "LAN identity unchanged" sha256sum -c --quiet /host/identity.sum
check "BlueZ bonds: each whole" sh -c 'for i in 1 2 3; do f=/var/lib/bluetooth/00:11:22:33:44:55/AA:BB:CC:DD:EE:0$i/info; grep -qx "Key=00112233445566778899AABBCCDDEE0$i" $f || { cat $f; exit 1; }; done'
P
cat > "$work/cycle.sh" <<'P'
. /host/phase-lib.sh
. /host/versions
if [ -e /host/cut-pending ]; then
	echo "== after cut $(cat /host/cut-pending)"
	. /host/check.sh
	echo "== checked"
fi
job=$(cat /host/job 2>/dev/null)
[ -n "$job" ] || exit 0
d=/var/lib/claude-pi
two='[{"name":"desk","fingerprint":"%064d","paired":"2026-11-30T10:00:00Z"},{"name":"laptop","fingerprint":"%064d","paired":"2026-12-01T09:00:00Z"}]\n'
# atomic FILE: stdin to FILE by temp + fsync + rename + directory fsync,
# the temp owned by claude-pi before the rename (a cut between a rename and
# a later chown left a root-owned clients.json claude-pi could not read).
atomic() { python3 -c 'import os,sys,pwd
p=sys.argv[1]; t=p+".tmp"; b=sys.stdin.buffer.read(); u=pwd.getpwnam("claude-pi")
f=os.open(t, os.O_WRONLY|os.O_CREAT|os.O_TRUNC, 0o640); os.fchown(f, u.pw_uid, u.pw_gid); os.write(f, b); os.fsync(f); os.close(f)
os.replace(t, p); d=os.open(os.path.dirname(p), os.O_RDONLY); os.fsync(d); os.close(d)' "$1"; }
apt_job() { i=0; while :; do i=$((i + 1)); v=$v2; [ $((i % 2)) = 0 ] && v=$v1; dpkg -i --force-downgrade /host/claude-pi_${v}_amd64.deb > /dev/null 2>&1; done; }
pairing_job() { while :; do printf "$two" 7 8 | atomic $d/lan/clients.json; claude-pi pair --local --revoke laptop > /dev/null 2>&1; done; }
bond_job() { n=0; while :; do n=$((n + 1)); for i in 1 2 3; do f=/var/lib/bluetooth/00:11:22:33:44:55/AA:BB:CC:DD:EE:0$i/info
	printf '[General]\nName=desk%s\n\n[LongTermKey]\nKey=00112233445566778899AABBCCDDEE0%s\nAuthenticated=2\nEncSize=16\n\n[ConnectionParameters]\nMinInterval=%s\n' $i $i $n > $f.tmp && mv $f.tmp $f; done; done; }
echo "== job $job"
case $job in
apt) apt_job & ;;
pairing) pairing_job & ;;
bond) bond_job & ;;
mixed) apt_job & pairing_job & bond_job & ;;
esac
touch /host/ready
sleep 600
P
cp "$work/check.sh" "$share/check.sh"

# POWERCUT_JOBS picks the jobs (in turn); default all four.
read -r -a jobs <<< "${POWERCUT_JOBS:-apt pairing bond mixed}"
# verdicts N: the checks boot N ran after cut N-1, counted; one line per cut.
verdicts() {
	local n=$1 f0=$failed log=$share/out/phase-$boots.log verdict
	sed -n '/^== after cut/,/^== checked/p' "$log" > "$work/check-$n.log" 2>/dev/null || true
	grep -q '^== checked' "$work/check-$n.log" || bad "cut $n: the next boot did not finish its checks"
	passed=$((passed + $(grep -c '^ok ' "$work/check-$n.log" || true)))
	failed=$((failed + $(grep -c '^FAIL ' "$work/check-$n.log" || true)))
	if [ "$failed" = "$f0" ]; then survived=$((survived + 1)); verdict=survived; else verdict=FAILED; sed 's/^/    /' "$work/check-$n.log"; fi
	echo "cut $n: $(cat "$work/job-$n") at $(cat "$work/at-$n")s: $verdict" | tee -a "$work/cuts.txt"
}
for n in $(seq "$cuts"); do
	job=${jobs[$(( (n - 1) % ${#jobs[@]} ))]}
	at=$(awk -v r=$RANDOM 'BEGIN { printf "%.1f", 0.2 + r / 32767 * 5.8 }')
	echo "$job" > "$share/job"; echo "$job" > "$work/job-$n"; echo "$at" > "$work/at-$n"
	boot "$work/cycle.sh" "$at"
	[ "$n" = 1 ] || verdicts $((n - 1))
	echo "$n" > "$share/cut-pending"
done
# The last cut's checks, then a clean shutdown and e2fsck on the host.
rm -f "$share/job"
boot "$work/cycle.sh"
verdicts "$cuts"
rm -f "$share/cut-pending"
check "e2fsck -fn of the disk after $cuts cuts and a clean shutdown: clean" e2fsck -fn "$disk"

if [ "$idle" -gt 0 ]; then
	say "idle writes: 2 x ${idle}s (idle.sh)"
	VMTEST_CACHE=$cache bash "$here/idle.sh" "$idle" | tee "$work/idle.log"
	grep '^idle' "$work/idle.log" > "$work/idle.txt" || bad "idle measurement"
fi
finish
