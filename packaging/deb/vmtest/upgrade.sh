#!/usr/bin/env bash
# The upgrade test (issue 27), as root: a Debian 13 amd64 guest that boots
# systemd (build-guest.sh, cached) installs claude-pi version N the way
# README.md tells Raspberry Pi OS users (keyring + .sources, apt install)
# from a repository signed by a throwaway key and served on the host's
# loopback (the guest reaches it over QEMU's user network at 10.0.2.2).
# Then, in later boots:
#   2. N starts at boot, every service RUNNING; the repository gains N+1.
#      The image's unattended-upgrades setup (its apt.conf.d files and
#      apt-daily-upgrade's quiet check, image/rootfs) is put in place, and
#      apt-daily-upgrade.service, what the nightly timer starts, is started
#      by hand: with a prompt pending all through the quiet check's wait
#      (shortened from 20 min to 10 s), the run is skipped and N runs on;
#      with no prompt, unattended-upgrade takes N+1 from the Claude_Pi
#      origin at its site (the apt preferences in place), and a prompt that comes up mid-run delays the restart until
#      it is answered. N+1 runs, every service RUNNING, the bonds, LAN
#      identity and pairings, packs, stats and config byte for byte kept,
#      and the update stamps are what `claude-pi doctor` reads.
#      N+1's health check (claude-pi-health-check.service, its window
#      shortened to 30 s to come up + 20 s RUNNING) passes: not rolled back.
#      Then a repository with N+2 signed by another key: apt refuses it,
#      N+1 still runs, nothing changed.
#   3. (issue 36) A build that panics at start, installed by
#      apt-daily-upgrade (unattended-upgrades): its check fails within seconds, N+1 is installed again
#      from its kept .deb, the bad version is pinned away, doctor says
#      "rolled back" and why, state is unchanged, and nothing bounces.
#      Then a good build installs past the hold, passes, and clears it.
#      (The other broken build, one service failing at start, and a cut
#      during its rollback are powercut.sh's last two boots.)
# Ends with "deb-vmtest upgrade: N passed, M failed" and the runtime.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "upgrade.sh: run as root (mmdebstrap, KVM)"; exit 1; }
finish() { say "upgrade: $passed passed, $failed failed in $(( $(date +%s) - t0 ))s ($accel)"; echo "deb-vmtest upgrade: $passed passed, $failed failed"; [ "$failed" = 0 ]; exit; }

key=$(newkey "$work/gnupg" "Claude_Pi test archive key")
evil=$(newkey "$work/gnupg-evil" "Not the project")
GNUPGHOME=$work/gnupg gpg --batch --export "$key" > "$share/claude-pi-archive-keyring.pgp"
v1=$("$repo/packaging/version") v2=$v1.1 v3=$v1.2 v4=$v1.3 v6=$v1.5
say "building claude-pi $v1, $v2, $v3, $v4 (panics at start), $v6 (amd64)"
for v in "$v1" "$v2" "$v3" "$v4:vmtest_panic" "$v6"; do
	tags=${v#*:}; [ "$tags" != "$v" ] || tags=
	VERSION=${v%%:*} GO_TAGS=$tags OUT=$work/debs ARCHIVE_KEYRING=$share/claude-pi-archive-keyring.pgp "$repo/packaging/deb/build" amd64 > "$work/build.log" 2>&1 ||
		{ cat "$work/build.log"; bad "build $v"; finish; }
done
# relto DIR DEB...: the signed repository in the share's DIR with DEB added.
relto() { local d=$1; shift; REPO_ARCHS=amd64 REPO_URL=http://10.0.2.2:PORT/apt GNUPGHOME=$work/gnupg SIGNING_KEY=$key "$repo/packaging/release-repo.sh" "$share/$d" "$@" > /dev/null; }
rel() { relto apt "$@"; }
rel "$work/debs/claude-pi_${v1}_amd64.deb" || { bad "release-repo.sh $v1"; finish; }
serve
fresh_disk
printf 'v1=%s\nv2=%s\nv3=%s\nv4=%s\nv6=%s\n' "$v1" "$v2" "$v3" "$v4" "$v6" > "$share/versions"

say "boot 1: install $v1 from the signed repository (README.md's install: keyring, .sources, preferences)"
cat > "$work/p1.sh" <<'P'
. /host/phase-lib.sh
. /host/versions
port=$(cat /host/port)
# Step 1: the key and the source (README.md fetches both from the repository).
install -m 0644 /host/apt/claude-pi-archive-keyring.pgp /usr/share/keyrings/claude-pi-archive-keyring.pgp
sed "s|PORT|$port|" /host/apt/claude-pi.sources > /etc/apt/sources.list.d/claude-pi.sources
install -m 0644 /host/apt/claude-pi.pref /etc/apt/preferences.d/claude-pi.pref
check "the .sources is deb822 with Signed-By" grep -qx 'Signed-By: /usr/share/keyrings/claude-pi-archive-keyring.pgp' /etc/apt/sources.list.d/claude-pi.sources
# Only our repository: the guest has no route to Debian's mirror in CI.
rm -f /etc/apt/sources.list /etc/apt/sources.list.d/debian.sources
check "apt-get update (signature checked by apt)" apt-get update -q
# Step 2.
check "apt-get install claude-pi" apt-get install -y -q claude-pi
check "claude-pi --version is $v1" sh -c '[ "$(claude-pi --version)" = "claude-pi $1" ]' _ "$v1"
check "the .deb's keyring is the one installed by hand" cmp /usr/share/keyrings/claude-pi-archive-keyring.pgp /host/apt/claude-pi-archive-keyring.pgp
# A configured appliance with state, as a user has it after weeks.
sed -i 's/^# board = .*/board = "sim"/; s/^# listen = .*/listen = ":7787"/' /etc/claude-pi/config.toml
systemctl start claude-pi
check "every service RUNNING" running 60
d=/var/lib/claude-pi
check "the LAN identity was made (lan/identity.pem)" test -s $d/lan/identity.pem
printf '[{"name":"desk","fingerprint":"%064d","paired":"2026-11-30T10:00:00Z"}]\n' 7 > $d/lan/clients.json
printf '{"v":1,"appr":7,"deny":2,"nap":30,"tokens":1234}\n' > $d/stats.json
mkdir -p $d/packs/current && printf '{"name":"test pack"}\n' > $d/packs/current/manifest.json
chown -R claude-pi:claude-pi $d
# A BlueZ bond (bluetoothd's own file, which claude-pi never writes).
b=/var/lib/bluetooth/00:11:22:33:44:55/AA:BB:CC:DD:EE:FF
mkdir -p $b && chmod 0700 /var/lib/bluetooth/00:11:22:33:44:55
printf '[General]\nName=desk\nSupportedTechnologies=LE;\nTrusted=true\n\n[LongTermKey]\nKey=00112233445566778899AABBCCDDEEFF\nAuthenticated=2\nEncSize=16\n' > $b/info
systemctl restart claude-pi
check "restarted with that state, every service RUNNING" running 60
sync
P
boot "$work/p1.sh"; tally
[ "$failed" = 0 ] || finish

rel "$work/debs/claude-pi_${v2}_amd64.deb" || { bad "release-repo.sh $v2"; finish; }
# The same repository with N+2, re-signed by a key the Pi does not trust.
cp -a "$share/apt" "$share/apt-evil"
REPO_ARCHS=amd64 GNUPGHOME=$work/gnupg-evil SIGNING_KEY=$evil "$repo/packaging/release-repo.sh" "$share/apt-evil" "$work/debs/claude-pi_${v3}_amd64.deb" > /dev/null
say "boot 2: $v1 at boot; unattended-upgrades to $v2 (skipped while a prompt is pending, then a prompt mid-run); then $v3 signed by another key"
cat > "$work/p2.sh" <<'P'
. /host/phase-lib.sh
. /host/versions
check "$v1 started at boot, every service RUNNING" running 90
sleep 3; snapshot > /tmp/before
before=$(systemctl show -p MainPID --value claude-pi)
# The image's unattended-upgrades setup, its quiet check's wait shortened.
cp /host/image/20auto-upgrades /host/image/52claude-pi-unattended /etc/apt/apt.conf.d/
mkdir -p /etc/systemd/system/apt-daily-upgrade.service.d
sed 's/--wait 1200/--wait 10/' /host/image/apt-daily-upgrade.conf > /etc/systemd/system/apt-daily-upgrade.service.d/claude-pi.conf
# The health check's window shortened (60 s to come up, 180 s RUNNING).
mkdir -p /etc/systemd/system/claude-pi-health-check.service.d
printf '[Service]\nEnvironment=CLAUDE_PI_HEALTH_START=30 CLAUDE_PI_HEALTH_STAY=10\n' > /etc/systemd/system/claude-pi-health-check.service.d/test.conf
systemctl daemon-reload
check "apt-get update" apt-get update -q
# A prompt pending all through the quiet check's wait: the run is skipped.
echo prompt > /run/claude-pi/busy
systemctl start apt-daily-upgrade.service
rm -f /run/claude-pi/busy
check "a prompt pending: apt-daily-upgrade skipped by its quiet check, $v1 runs on" sh -c '
	journalctl -b -u apt-daily-upgrade --no-pager -o cat | grep -q "claude-pi is busy" &&
	[ "$(systemctl show -p Result --value apt-daily-upgrade.service)" = exec-condition ] &&
	[ "$(claude-pi --version)" = "claude-pi $1" ] && [ "$(systemctl show -p MainPID --value claude-pi)" = "$2" ]' _ "$v1" "$before"
# No prompt: the run goes ahead; a prompt comes up once unattended-upgrade
# runs and is answered 8 s later: the restart must wait for the answer.
t=$(date +%s)
systemctl start --no-block apt-daily-upgrade.service
i=0; while ! pgrep -f /usr/bin/unattended-upgrade > /dev/null && [ $i -lt 600 ]; do sleep 0.2; i=$((i + 1)); done
echo prompt > /run/claude-pi/busy; (sleep 8; rm -f /run/claude-pi/busy; date +%s > /tmp/answered) &
i=0; while [ "$(systemctl show -p ActiveState --value apt-daily-upgrade.service)" != inactive ] && [ $i -lt 900 ]; do sleep 1; i=$((i + 1)); done
echo "     apt-daily-upgrade took $(( $(date +%s) - t ))s"
sed 's/^/     /' /var/log/unattended-upgrades/unattended-upgrades.log | tail -n 8
check "apt-daily-upgrade.service: unattended-upgrade ran and succeeded" sh -c '
	[ "$(systemctl show -p Result --value apt-daily-upgrade.service)" = success ] &&
	grep -q "Packages that will be upgraded: claude-pi" /var/log/unattended-upgrades/unattended-upgrades.log'
check "claude-pi --version is $v2" sh -c '[ "$(claude-pi --version)" = "claude-pi $1" ]' _ "$v2"
check "restarted (new main PID), and only after the prompt was answered" sh -c '
	after=$(systemctl show -p MainPID --value claude-pi); started=$(systemctl show -p ExecMainStartTimestamp --value claude-pi)
	[ "$after" != "$1" ] && [ "$after" != 0 ] && [ -s /tmp/answered ] && [ "$(date -d "$started" +%s)" -ge "$(cat /tmp/answered)" ]' _ "$before"
check "the update stamp doctor reads was touched (var/lib/apt/periodic)" sh -c '
	[ "$(stat -c %Y /var/lib/apt/periodic/unattended-upgrades-stamp)" -ge "$1" ]' _ "$t"
check "$v2: every service RUNNING" running 60
check "bonds, LAN identity and pairings, packs, stats, config: all kept" eval 'snapshot > /tmp/after; diff /tmp/before /tmp/after'
check "config: board and listen kept, no .dpkg-* beside it" sh -c 'grep -qx "board = \"sim\"" /etc/claude-pi/config.toml && ! ls /etc/claude-pi/*.dpkg-* 2>/dev/null'
checked 300
check "$v2 passed its health check: kept, not rolled back, nothing held" sh -c '
	journalctl -b -u claude-pi-health-check -o cat | grep -q "claude-pi $1 is healthy" &&
	[ "$(dpkg-query -W -f="\${db:Status-Abbrev} \${Version}" claude-pi)" = "ii  $1" ] &&
	[ ! -e /var/lib/claude-pi/rollback/rolled-back ] && [ ! -e /etc/apt/preferences.d/claude-pi-rollback ] && [ ! -e /var/lib/claude-pi/rollback/pending ]' _ "$v2"
check "$v1's and $v2's .debs kept for a rollback, from apt's cache" sh -c '
	[ -s /var/lib/claude-pi/rollback/claude-pi_$1_amd64.deb ] && [ -s /var/lib/claude-pi/rollback/claude-pi_$2_amd64.deb ]' _ "$v1" "$v2"
# Then a repository with N+2 signed by another key.
snapshot > /tmp/before
sed -i "s|/apt$|/apt-evil|" /etc/apt/sources.list.d/claude-pi.sources
apt-get update -q > /tmp/update.log 2>&1; cat /tmp/update.log | sed 's/^/     /'
check "apt-get update refuses the badly signed repository" grep -q "NO_PUBKEY\|not signed\|Missing key\|signature" /tmp/update.log
apt-get install -y -q --only-upgrade claude-pi > /tmp/install.log 2>&1
check "$v3 not installed: still $v2" sh -c '[ "$(claude-pi --version)" = "claude-pi $1" ] && dpkg-query -W -f="\${Version}" claude-pi | grep -qx "$1"' _ "$v2"
check "nothing changed: state, every service RUNNING" eval 'snapshot | diff /tmp/before - && running 5'
P
mkdir -p "$share/image"
cp "$repo/image/rootfs/etc/apt/apt.conf.d/20auto-upgrades" "$share/image/"
# The image names the release's site; here the repository is at 10.0.2.2
# (image/lib/customize makes the same substitution for REPO_URL's host).
sed 's/site=claude-pi.github.io,/site=10.0.2.2,/' "$repo/image/rootfs/etc/apt/apt.conf.d/52claude-pi-unattended" > "$share/image/52claude-pi-unattended"
grep -q 'site=10.0.2.2,' "$share/image/52claude-pi-unattended" || { bad "52claude-pi-unattended names no site=claude-pi.github.io to replace"; finish; }
cp "$repo/image/rootfs/etc/systemd/system/apt-daily-upgrade.service.d/claude-pi.conf" "$share/image/apt-daily-upgrade.conf"
boot "$work/p2.sh"; tally
[ "$failed" = 0 ] || finish

# Issue 36: the repository gains a build that panics at start, then a
# good one (each a copy, so the guest moves from one to the next by its
# .sources).
cp -a "$share/apt" "$share/apt-b4"; relto apt-b4 "$work/debs/claude-pi_${v4}_amd64.deb"
cp -a "$share/apt-b4" "$share/apt-g6"; relto apt-g6 "$work/debs/claude-pi_${v6}_amd64.deb"
say "boot 3: $v4 (panics at start) by apt-daily-upgrade: rolled back to $v2; then $v6 installs and clears the hold"
cat > "$work/p3.sh" <<'P'
. /host/phase-lib.sh
. /host/versions
rb=/var/lib/claude-pi/rollback
check "$v2 started at boot, every service RUNNING" running 90
sed -i "s|/apt-evil$|/apt-b4|" /etc/apt/sources.list.d/claude-pi.sources
check "apt-get update" apt-get update -q
sleep 3; snapshot > /var/tmp/before
# The nightly path, as it would come. apt.systemd.daily runs
# unattended-upgrade once a day: boot 2's stamp would make it skip this run
# (an earlier version of this test waited 35 min for a rollback of a build
# that was never installed), so it goes.
rm -f /var/lib/apt/periodic/upgrade-stamp
systemctl start apt-daily-upgrade.service; echo "     apt-daily-upgrade ($v4): $(systemctl show -p Result --value apt-daily-upgrade.service)"
t=$(date +%s)
check "unattended-upgrade installed $v4 (dpkg.log)" grep -q " upgrade claude-pi:amd64 $v2 $v4$" /var/log/dpkg.log
checked 300
echo "info panic: from the end of apt-daily-upgrade to the end of the rollback: $(( $(date +%s) - t ))s"
check "$v4 failed its check and was rolled back: $v2 installed, configured and running" sh -c '
	journalctl -b -u claude-pi-health-check -o cat | grep -q "claude-pi $2 failed its check" &&
	[ "$(dpkg-query -W -f="\${db:Status-Abbrev} \${Version}" claude-pi)" = "ii  $1" ] && [ "$(claude-pi --version)" = "claude-pi $1" ]' _ "$v2" "$v4"
check "every service RUNNING ($v2)" running 60
check "the record says: $v4 rolled back to $v2, and why (a crash)" sh -c 'cat $0/rolled-back; grep -qx "from=$2" $0/rolled-back && grep -qx "to=$1" $0/rolled-back && grep -q "^reason=claude-pi.service crashed" $0/rolled-back' $rb "$v2" "$v4"
check "doctor says the update to $v4 was rolled back, and why" sh -c 'claude-pi doctor 2>&1 | grep "claude-pi update" | tee /dev/stderr | grep -q "update to $0 rolled back.*crashed"' "$v4"
check "$v4 held: apt pins it to -1; apt-get upgrades nothing" sh -c '
	grep -qx "Pin: version $2" /etc/apt/preferences.d/claude-pi-rollback && apt-cache policy claude-pi | grep -q "Candidate: $1" &&
	apt-get install -y -q --only-upgrade claude-pi && [ "$(claude-pi --version)" = "claude-pi $1" ]' _ "$v2" "$v4"
check "no bounce: one check ran, none pending, no rollback under way" sh -c '
	[ "$(journalctl -b -u claude-pi-health-check -o cat | grep -c "checking the upgrade")" = 1 ] && [ ! -e $0/pending ] && [ ! -e $0/rolling-back ]' $rb
check "every state file unchanged" eval 'snapshot | diff /var/tmp/before -'
# A good version: installs past the hold, passes, clears it.
sed -i "s|/apt-b4$|/apt-g6|" /etc/apt/sources.list.d/claude-pi.sources
check "apt-get update" apt-get update -q
check "apt-get install claude-pi: $v6" sh -c 'apt-get install -y -q claude-pi > /tmp/install.log 2>&1 && [ "$(claude-pi --version)" = "claude-pi $0" ]' "$v6"
checked 300
check "$v6 passed its check: the hold and the record cleared" sh -c '
	journalctl -b -u claude-pi-health-check -o cat | grep -q "claude-pi $1 is healthy" &&
	[ ! -e /etc/apt/preferences.d/claude-pi-rollback ] && [ ! -e $0/rolled-back ] && [ ! -e $0/pending ]' $rb "$v6"
check "doctor: no upgrade rolled back" sh -c 'claude-pi doctor 2>&1 | grep -q "no upgrade rolled back"'
check "every service RUNNING ($v6), every state file unchanged" eval 'running 30 && snapshot | diff /var/tmp/before -'
P
boot "$work/p3.sh"; tally
finish
