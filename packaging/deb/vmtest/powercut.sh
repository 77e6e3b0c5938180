#!/usr/bin/env bash
# The power-cut test (issue 27), as root: the upgrade test's guest with
# claude-pi installed from a signed repository (served on the host's
# loopback, as in upgrade.sh) and state in place, then CUTS times: boot,
# check what the last cut left, start one write-heavy job, and kill QEMU
# (SIGKILL: the power goes) at a random moment 0.2-6 s into it (0.5-20 s
# for the apt and mixed jobs: an upgrade takes that long). Jobs:
#   apt      apt-get install of claude-pi N+1 and N in turns from the
#            repository (an upgrade, then a downgrade: cut mid-download,
#            mid-unpack or in a maintainer script)
#   pairing  the LAN pairings rewritten: a computer added (atomic write, as
#            `claude-pi pair` does) and revoked through the running claude-pi
#            (`claude-pi pair --local --revoke`, claude-pi's own writer)
#   stats    desk.py over the sim's NUS socket: a prompt, approved with
#            button A through the sim's web API; each approval saves
#            stats.json at once
#   pack     desk.py pushes a 64 KiB character pack, alpha and beta in turn:
#            each char_end swaps packs/current
#   bond     BlueZ-style bond files rewritten (bluetoothd writes its info
#            files with g_file_set_contents: temp + rename)
#   bluez    bluetoothd's own writer: btvirt gives it a controller, and
#            `bluetoothctl system-alias` renames it again and again, each a
#            rewrite of /var/lib/bluetooth/ADDR/settings by bluetoothd
#   mixed    all at once: apt, pairing, bond, bluez, and desk.py's
#            approvals and pack pushes in turn (the NUS link has one
#            desktop at a time)
# After each cut, the next boot must: mount the root without manual repair
# (systemd-fsck-root clean or journal replayed, never "run fsck manually"),
# finish by itself what dpkg was doing (claude-pi-recover.service: dpkg
# --configure -a, then a reinstall from apt's cache of a package left
# half-installed), bring claude-pi up with every service RUNNING, and find
# every piece of state the old or the new one: claude-pi's version N or N+1
# with its files intact (dpkg --verify), clients.json one of its two
# contents, stats.json readable and never behind what the last boot read,
# packs/current none, alpha or beta and whole, the LAN identity and BlueZ
# bonds unchanged or whole. After the last cut's checks the guest shuts
# down cleanly and the host runs e2fsck -fn: clean.
#
# Then (issue 36) claude-pi N+2, a build whose lan service fails at start
# (vmtest_lanfail), is installed with apt-get: its health check fails (lan
# FATAL), and the power is cut VMTEST_ROLLBACK_CUT s (default 8) after
# the rollback began ($dir/rolling-back written; the cut lands in dpkg's
# reinstall of the previous version). The next boot's claude-pi-recover
# must finish the rollback: the previous version installed and RUNNING,
# the record written, N+2 held, every state file unchanged.
#
# Finally, with IDLE_SECONDS (default 600; 0 skips), idle.sh measures the
# idle writes an hour.
#
#   powercut.sh [CUTS]       default 20; CI runs 2 (apt, mixed) with IDLE_SECONDS=0
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
	# (set -e: a missing part must not end the script before its verdict)
	{ echo "cuts: $cuts, survived: $survived, seed $seed, $accel"; cat "$work/cuts.txt" 2>/dev/null || true; cat "$work/idle.txt" 2>/dev/null || true; } > "$report.tmp"
	mv "$report.tmp" "$report"
	echo "---- report ($report)"; cat "$report"
	echo "deb-vmtest powercut: $passed passed, $failed failed"
	[ "$failed" = 0 ]; exit
}
survived=0

key=$(newkey "$work/gnupg" "Claude_Pi test archive key")
GNUPGHOME=$work/gnupg gpg --batch --export "$key" > "$share/claude-pi-archive-keyring.pgp"
v1=$("$repo/packaging/version") v2=$v1.1 v3=$v1.2
say "building claude-pi $v1, $v2 and $v3 (lan fails at start) (amd64) and their signed repository"
for v in "$v1" "$v2" "$v3:vmtest_lanfail"; do
	tags=${v#*:}; [ "$tags" != "$v" ] || tags=
	VERSION=${v%%:*} GO_TAGS=$tags OUT=$work/debs ARCHIVE_KEYRING=$share/claude-pi-archive-keyring.pgp "$repo/packaging/deb/build" amd64 > "$work/build.log" 2>&1 ||
		{ cat "$work/build.log"; bad "build $v"; finish; }
done
REPO_ARCHS=amd64 REPO_URL=http://10.0.2.2:PORT/apt GNUPGHOME=$work/gnupg SIGNING_KEY=$key "$repo/packaging/release-repo.sh" \
	"$share/apt" "$work/debs/claude-pi_${v1}_amd64.deb" "$work/debs/claude-pi_${v2}_amd64.deb" > /dev/null || { bad "release-repo.sh"; finish; }
serve
printf 'v1=%s\nv2=%s\nv3=%s\n' "$v1" "$v2" "$v3" > "$share/versions"
cp "$here/desk.py" "$share/desk.py"
fresh_disk

cat > "$work/setup.sh" <<'P'
. /host/phase-lib.sh
. /host/versions
port=$(cat /host/port)
install -m 0644 /host/apt/claude-pi-archive-keyring.pgp /usr/share/keyrings/claude-pi-archive-keyring.pgp
sed "s|PORT|$port|" /host/apt/claude-pi.sources > /etc/apt/sources.list.d/claude-pi.sources
rm -f /etc/apt/sources.list /etc/apt/sources.list.d/debian.sources
check "apt-get update" apt-get update -q
check "apt-get install claude-pi=$v1" apt-get install -y -q claude-pi=$v1
check "claude-pi-recover.service enabled" systemctl is-enabled -q claude-pi-recover.service
sed -i 's/^# board = .*/board = "sim"/; s/^# listen = .*/listen = ":7787"/; s/^http = "off"/http = "127.0.0.1:8330"/' /etc/claude-pi/config.toml
systemctl restart claude-pi
check "every service RUNNING" running 60
d=/var/lib/claude-pi
printf '[{"name":"desk","fingerprint":"%064d","paired":"2026-11-30T10:00:00Z"}]\n' 7 > $d/lan/clients.json
chown -R claude-pi:claude-pi $d
for i in 1 2 3; do
	b=/var/lib/bluetooth/00:11:22:33:44:55/AA:BB:CC:DD:EE:0$i; mkdir -p $b
	printf '[General]\nName=desk%s\n\n[LongTermKey]\nKey=00112233445566778899AABBCCDDEE0%s\nAuthenticated=2\nEncSize=16\n' $i $i > $b/info
done
sha256sum $d/lan/identity.pem > /host/identity.sum
echo 0 > /host/stats-appr
sync
P
say "setup boot: install $v1 from the signed repository, state in place"
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
# claude-pi-recover.service runs after network-online, as this phase does:
# wait for it to end, then judge what it left.
i=0; while [ "$(systemctl show -p ActiveState --value claude-pi-recover.service)" = activating ] && [ $i -lt 600 ]; do sleep 1; i=$((i + 1)); done
journalctl -b -u claude-pi-recover --no-pager -o cat | grep 'recover:' > /tmp/recover.log
sed 's/^/     /' /tmp/recover.log
# info lines: what this boot found, for the report's line for the cut.
if [ -s /tmp/recover.log ]; then
	r=$(sed -n 's/.*recover: installing again: /reinstalled /p; s/.*recover: still not finished.*/NOT finished/p' /tmp/recover.log | head -n 1)
	echo "info recover: ${r:-dpkg --configure -a}"
fi
check "claude-pi-recover.service succeeded" sh -c '[ "$(systemctl show -p Result --value claude-pi-recover.service)" = success ]'
check "dpkg: nothing half-installed or unconfigured (dpkg --audit)" sh -c '! dpkg --audit | grep .'
check "apt works again (apt-get check)" apt-get check -q
check "claude-pi is $v1 or $v2, its files intact (dpkg --verify)" sh -c '
	v=$(dpkg-query -W -f="\${Version}" claude-pi); [ "$v" = "$1" ] || [ "$v" = "$2" ] || exit 1
	[ "$(claude-pi --version)" = "claude-pi $v" ] && dpkg --verify claude-pi' _ "$v1" "$v2"
check "every service RUNNING" running 90
# bluetoothd's files a cut damaged (drivers/ble/bluez/store): the bond
# cycle.sh zero-filled before the cut, as bluetoothd's unsynced first
# write leaves one, and whatever the cut did to bluetoothd's own: set
# aside before bluetoothd read them, and named by doctor. Only a
# first-write signature (zero-filled, empty) of a file bluetoothd writes
# itself may be set aside. The copies then leave the data directory, so
# the next boot's check sees only its own.
if [ -e /host/planted-bond ]; then
check "bluetoothd's damaged files: the zero-filled bond set aside before bluetoothd read it, doctor says so" python3 -c '
import glob, os, re, shutil, subprocess
planted = "/var/lib/bluetooth/00:11:22:33:44:55/AA:BB:CC:DD:EE:09/info"
assert not os.path.exists(planted), "the zero-filled bond is still where bluetoothd reads it"
copies = sorted(glob.glob("/var/lib/claude-pi/bluetooth/*.damaged-*"))
names = [os.path.basename(c) for c in copies]
print("\n".join(names))
mine = [n for n in names if re.fullmatch(r"00:11:22:33:44:55_AA:BB:CC:DD:EE:09_info\.damaged-\d{8}T\d{6}Z-\d+-zero-filled", n)]
assert len(mine) == 1, names
for n in names:
    if n not in mine:
        assert re.fullmatch(r"[0-9A-F:]{17}_settings\.damaged-\d{8}T\d{6}Z-\d+-(zero-filled|empty)", n), ("not what a cut of bluetoothd'"'"'s first write leaves", n)
        print("info bluetoothd settings: " + n.rsplit("-", 1)[1] + " after the cut, set aside")
j = subprocess.run(["journalctl", "-b", "-u", "claude-pi-bluetooth-files", "-o", "cat", "--no-pager"], capture_output=True, text=True).stdout
assert "AA:BB:CC:DD:EE:09_info is zero-filled" in j, j
assert subprocess.run(["systemctl", "show", "-p", "Result", "--value", "claude-pi-bluetooth-files"], capture_output=True, text=True).stdout.strip() == "success"
doc = subprocess.run(["claude-pi", "doctor"], capture_output=True, text=True).stdout
assert "set aside  bluetooth/00:11:22:33:44:55_AA:BB:CC:DD:EE:09_info (zero-filled)" in doc and "pair again" in doc, doc
os.makedirs("/root/bluetooth-seen", exist_ok=True)
for c in copies:
    shutil.move(c, "/root/bluetooth-seen/")'
fi
check "clients.json: the old or the new, never corrupt" python3 -c '
import json; c = json.load(open("/var/lib/claude-pi/lan/clients.json"))
assert [x["name"] for x in c] in (["desk"], ["desk", "laptop"]), c'
check "LAN identity unchanged" sha256sum -c --quiet /host/identity.sum
check "stats.json: readable, never behind the last boot's, nothing set aside" python3 -c '
import glob, json; s = json.load(open("/var/lib/claude-pi/stats.json")) if glob.glob("/var/lib/claude-pi/stats.json") else {"appr": 0}
last = int(open("/host/stats-appr").read()); assert s["appr"] >= last, (s, last)
aside = glob.glob("/var/lib/claude-pi/*.damaged-*") + [f for f in glob.glob("/var/lib/claude-pi/*/*.damaged-*") if "/bluetooth/" not in f]; assert not aside, aside
open("/host/stats-appr", "w").write(str(s["appr"])); print("appr", last, "->", s["appr"])'
echo "info claude-pi $(dpkg-query -W -f='${Version}' claude-pi | sed "s/^$v2\$/N+1/; s/^$v1\$/N/"), stats.json appr $(cat /host/stats-appr), pack $(python3 /host/desk.py check 2>&1 | head -c 40)"
check "packs/current: none, alpha or beta, whole; no staging left" sh -c 'python3 /host/desk.py check && ! ls -d /var/lib/claude-pi/packs/.staging-* 2>/dev/null'
check "bluetoothd's own files (settings): each whole, its alias an old or a new one" python3 -c '
import configparser, glob, re
fs = glob.glob("/var/lib/bluetooth/*/settings")
for f in fs:
    c = configparser.ConfigParser(interpolation=None, strict=False); c.optionxform = str
    c.read_string(open(f).read())
    a = c.get("General", "Alias", fallback=None)
    assert c.has_section("General") and (a is None or re.fullmatch(r"desk[0-9]+", a)), (f, open(f).read())
    print(f, "Alias", a)'
a=$(sed -n 's/^Alias=//p' /var/lib/bluetooth/*/settings 2>/dev/null | head -n 1)
[ -z "$a" ] || echo "info bluetoothd alias $a of $(cat /host/alias-n 2>/dev/null) set"
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
# A bond zero-filled, as a cut leaves bluetoothd's unsynced first write of
# one: the next boot must set it aside (check.sh). Synced, so that the
# cut cannot decide it.
z=/var/lib/bluetooth/00:11:22:33:44:55/AA:BB:CC:DD:EE:09; mkdir -p $z; head -c 180 /dev/zero > $z/info; sync; touch /host/planted-bond
d=/var/lib/claude-pi
two='[{"name":"desk","fingerprint":"%064d","paired":"2026-11-30T10:00:00Z"},{"name":"laptop","fingerprint":"%064d","paired":"2026-12-01T09:00:00Z"}]\n'
# atomic FILE: stdin to FILE by temp + fsync + rename + directory fsync,
# the temp owned by claude-pi before the rename (a cut between a rename and
# a later chown left a root-owned clients.json claude-pi could not read).
atomic() { python3 -c 'import os,sys,pwd
p=sys.argv[1]; t=p+".tmp"; b=sys.stdin.buffer.read(); u=pwd.getpwnam("claude-pi")
f=os.open(t, os.O_WRONLY|os.O_CREAT|os.O_TRUNC, 0o640); os.fchown(f, u.pw_uid, u.pw_gid); os.write(f, b); os.fsync(f); os.close(f)
os.replace(t, p); d=os.open(os.path.dirname(p), os.O_RDONLY); os.fsync(d); os.close(d)' "$1"; }
apt_job() { i=0; while :; do i=$((i + 1)); v=$v2; [ $((i % 2)) = 0 ] && v=$v1; apt-get install -y -q --allow-downgrades claude-pi=$v > /dev/null 2>&1; done; }
pairing_job() { while :; do printf "$two" 7 8 | atomic $d/lan/clients.json; claude-pi pair --local --revoke laptop > /dev/null 2>&1; done; }
bond_job() { n=0; while :; do n=$((n + 1)); for i in 1 2 3; do f=/var/lib/bluetooth/00:11:22:33:44:55/AA:BB:CC:DD:EE:0$i/info
	printf '[General]\nName=desk%s\n\n[LongTermKey]\nKey=00112233445566778899AABBCCDDEE0%s\nAuthenticated=2\nEncSize=16\n\n[ConnectionParameters]\nMinInterval=%s\n' $i $i $n > $f.tmp && mv $f.tmp $f; done; done; }
# bluez_job: a controller for bluetoothd (btvirt, on the kernel's hci_vhci),
# then its alias rewritten until the power goes.
bluez_job() {
	modprobe hci_vhci; btvirt -l1 > /tmp/btvirt.log 2>&1 &
	i=0; while ! bluetoothctl list 2>/dev/null | grep -q Controller && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done
	n=$(cat /host/alias-n 2>/dev/null || echo 0)
	while :; do n=$((n + 1)); echo $n > /host/alias-n; bluetoothctl system-alias "desk$n" > /dev/null 2>&1; done
}
# until CMD: wait (up to 60 s) for CMD to succeed.
until_ok() { i=0; while ! sh -c "$1" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done; }
echo "== job $job"
case $job in
apt) apt_job & ;;
pairing) pairing_job & ;;
bond) bond_job & ;;
stats) python3 /host/desk.py stats > /tmp/desk.out 2>&1 & ;;
pack) python3 /host/desk.py pack > /tmp/desk.out 2>&1 & ;;
bluez) bluez_job & until_ok 'grep -qs "^Alias=desk" /var/lib/bluetooth/*/settings' ;;
mixed) apt_job & pairing_job & bond_job & python3 /host/desk.py both > /tmp/desk.out 2>&1 & bluez_job & ;;
esac
touch /host/ready
sleep 600
P
cp "$work/check.sh" "$share/check.sh"

# POWERCUT_JOBS picks the jobs (in turn); default all seven.
read -r -a jobs <<< "${POWERCUT_JOBS:-apt pairing stats pack bond bluez mixed}"
# verdicts N: the checks boot N ran after cut N-1, counted; one line per cut.
verdicts() {
	local n=$1 f0=$failed log=$share/out/phase-$boots.log verdict
	sed -n '/^== after cut/,/^== checked/p' "$log" > "$work/check-$n.log" 2>/dev/null || true
	grep -q '^== checked' "$work/check-$n.log" || bad "cut $n: the next boot did not finish its checks"
	passed=$((passed + $(grep -c '^ok ' "$work/check-$n.log" || true)))
	failed=$((failed + $(grep -c '^FAIL ' "$work/check-$n.log" || true)))
	if [ "$failed" = "$f0" ]; then survived=$((survived + 1)); verdict=survived; else verdict=FAILED; sed 's/^/    /' "$work/check-$n.log"; fi
	echo "cut $n: $(cat "$work/job-$n") at $(cat "$work/at-$n")s: $verdict ($(sed -n 's/^info //p' "$work/check-$n.log" | paste -sd ';' | sed 's/;/; /g'))" | tee -a "$work/cuts.txt"
}
for n in $(seq "$cuts"); do
	job=${jobs[$(( (n - 1) % ${#jobs[@]} ))]}
	# An upgrade under TCG takes 10-20 s from apt's start to the restart:
	# apt jobs are cut anywhere in 0.5-20 s, the others (each loop a second
	# or less) in 0.2-6 s.
	case $job in apt|mixed) lo=0.5 span=19.5 ;; *) lo=0.2 span=5.8 ;; esac
	# $RANDOM read here, not inside $(...): a subshell reseeds it, and the
	# seed would not say when the cuts came.
	r=$RANDOM
	at=$(awk -v r=$r -v lo=$lo -v span=$span 'BEGIN { printf "%.1f", lo + r / 32767 * span }')
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

# Issue 36: N+2 (lan fails at start) by apt-get; the power cut once its
# rollback began; the next boot finishes it.
REPO_ARCHS=amd64 REPO_URL=http://10.0.2.2:PORT/apt GNUPGHOME=$work/gnupg SIGNING_KEY=$key "$repo/packaging/release-repo.sh" \
	"$share/apt" "$work/debs/claude-pi_${v3}_amd64.deb" > /dev/null || { bad "release-repo.sh $v3"; finish; }
cat > "$work/rb1.sh" <<'P'
. /host/phase-lib.sh
. /host/versions
rb=/var/lib/claude-pi/rollback
# No short window needed: a FATAL service fails the check at once. The
# check of the last cut's upgrade may still run (recover started it at
# boot); it moves on to this upgrade when the postinst rewrites pending.
[ -e $rb/pending ] && echo "info a check of the last cut's upgrade pending: $(tr '\n' ' ' < $rb/pending)"
running 90 > /dev/null
prev=$(dpkg-query -W -f='${Version}' claude-pi); echo "$prev" > /host/rb-prev
snapshot > /host/rb-before
check "apt-get update" apt-get update -q
apt-get install -y -q claude-pi > /tmp/install.log 2>&1; echo "     apt-get install claude-pi ($v3): exit $?"
t=$(date +%s)
i=0; while [ ! -e $rb/rolling-back ] && [ $i -lt 1500 ]; do
	# Fail fast: the check ended (or never started) without a rollback.
	[ $((i % 25)) != 24 ] || [ -e $rb/pending ] || [ -e $rb/rolling-back ] || break
	sleep 0.2; i=$((i + 1))
done
if [ -e $rb/rolling-back ]; then
	echo "info lan fails: the rollback began $(( $(date +%s) - t ))s after apt-get ended: $(grep reason= $rb/rolling-back)"
	touch /host/ready; sync; sleep 300
fi
bad "$v3 was not rolled back (no $rb/rolling-back $(( $(date +%s) - t ))s after apt-get)"
systemctl status claude-pi-health-check --no-pager | tail -n 20; claude-pi status
P
cat > "$work/rb2.sh" <<'P'
. /host/phase-lib.sh
. /host/versions
rb=/var/lib/claude-pi/rollback
prev=$(cat /host/rb-prev)
i=0; while [ "$(systemctl show -p ActiveState --value claude-pi-recover.service)" = activating ] && [ $i -lt 600 ]; do sleep 1; i=$((i + 1)); done
echo "info recover: $(systemctl show -p Result --value claude-pi-recover.service), $i s after this phase began"
check "the cut rollback was finished at boot by claude-pi-recover" sh -c '
	journalctl -b -u claude-pi-recover -o cat | tee /dev/stderr | grep -q "a rollback of claude-pi was cut"'
check "$prev installed again, configured, dpkg clean" sh -c '[ "$(dpkg-query -W -f="\${db:Status-Abbrev} \${Version}" claude-pi)" = "ii  $1" ] && [ -z "$(dpkg --audit)" ]' _ "$prev"
check "every service RUNNING ($prev)" running 120
check "the record says $v3 rolled back to $prev (lan FATAL); $v3 held; nothing pending" sh -c 'cat $0/rolled-back
	grep -qx "from=$1" $0/rolled-back && grep -qx "to=$2" $0/rolled-back && grep -q "^reason=a service gave up (FATAL).* lan FATAL" $0/rolled-back &&
	[ ! -e $0/rolling-back ] && [ ! -e $0/pending ] && grep -qx "Pin: version $1" /etc/apt/preferences.d/claude-pi-rollback' $rb "$v3" "$prev"
check "doctor says the update to $v3 was rolled back" sh -c 'claude-pi doctor 2>&1 | grep "claude-pi update" | tee /dev/stderr | grep -q "update to $0 rolled back"' "$v3"
check "every state file unchanged" eval 'snapshot | diff /host/rb-before -'
P
say "rollback boot: $v3 (lan fails at start) by apt-get; the power cut ${VMTEST_ROLLBACK_CUT:-8}s into its rollback"
boot "$work/rb1.sh" "${VMTEST_ROLLBACK_CUT:-8}"
log=$share/out/phase-$boots.log
sed -n 's/^info /     /p; /^FAIL/,$p' "$log" 2>/dev/null
passed=$((passed + $(grep -c '^ok ' "$log" 2>/dev/null || true)))
failed=$((failed + $(grep -c '^FAIL ' "$log" 2>/dev/null || true)))
grep -q "^info lan fails: the rollback began" "$log" 2>/dev/null || bad "the power was not cut during a rollback"
say "the next boot: claude-pi-recover finishes the rollback"
boot "$work/rb2.sh"; tally
sed -n 's/^info /     /p' "$share/out/phase-$boots.log" 2>/dev/null
check "e2fsck -fn of the disk after $cuts cuts and a clean shutdown: clean" e2fsck -fn "$disk"

if [ "$idle" -gt 0 ]; then
	say "idle writes: 2 x ${idle}s (idle.sh)"
	VMTEST_CACHE=$cache bash "$here/idle.sh" "$idle" | tee "$work/idle.log"
	grep '^idle' "$work/idle.log" > "$work/idle.txt" || bad "idle measurement"
fi
finish
