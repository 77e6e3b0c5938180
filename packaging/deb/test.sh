#!/usr/bin/env bash
# The .deb's test (run by .ci/run, as root): builds claude-pi_<v>_arm64.deb
# and armhf twice (same bytes), runs lintian, then in Debian 13 (trixie) and
# Debian 12 (bookworm) arm64 chroots (mmdebstrap; arm64 programs run under
# qemu-user) installs it, upgrades it to a second version, removes and
# purges it, checking files, user, groups, unit state, the conffile and
# /var/lib/claude-pi at each step, and `systemd-analyze verify` on the unit;
# and in a third, Debian 13 with Debian's supervisor, the two side by side.
# The three chroots run at once, each into its own log.
#
# The chroots are no systemd: a policy-rc.d that refuses every action logs
# what deb-systemd-invoke was asked to do (restart on upgrade, stop on
# remove), and /run/systemd/system exists so the scripts believe systemd
# runs. Base chroots are cached as tarballs in $CLAUDE_PI_DEB_CACHE
# (default /var/cache/claude-pi/deb-test), rebuilt when missing.
# Ends with "deb: N passed, M failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../../image/lib/common.sh
. "$repo/image/lib/common.sh"
cache=${CLAUDE_PI_DEB_CACHE:-/var/cache/claude-pi/deb-test}
suites=${DEB_TEST_SUITES:-trixie bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
export PATH="$PATH:/usr/local/go/bin:/usr/sbin:/sbin"

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
check() {
	local name=$1 t0=$SECONDS
	shift
	if "$@" > "${check_out:-$work/check.out}" 2>&1; then ok "$name ($((SECONDS - t0)) s)"; else bad "$name ($((SECONDS - t0)) s)"; sed 's/^/     /' "${check_out:-$work/check.out}" | head -n 20; fi
}
finish() {
	echo "deb: $passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}

[ "$(id -u)" = 0 ] || { echo "deb test: run as root (chroots)"; exit 1; }
ensure_packages mmdebstrap qemu-user-static binfmt-support arch-test lintian file ||
	{ bad "install prerequisites with apt"; finish; }
ensure_binfmt_aarch64
work=$(mktemp -d /var/tmp/claude-pi-deb-test.XXXXXX)
mounted=()
cleanup() {
	local m
	for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null; done
	# The suites' own binds (each unmounts its /proc and /dev when it ends;
	# one killed mid-way may not have): never rm -rf through a bound /dev.
	findmnt -rn -o TARGET | grep "^$work/" | sort -r | while read -r m; do umount -l "$m"; done
	if findmnt -rn -o TARGET | grep -q "^$work/"; then echo "deb test: mounts left under $work; not removing it"; return; fi
	rm -rf "$work"
}
trap cleanup EXIT

# ---- build: two versions, and the first twice -------------------------
v1=$("$repo/packaging/version")
v2=$v1.1 # sorts after v1: the upgrade
log "building $v1 (arm64, armhf) twice and $v2 (arm64)"
OUT=$work/a "$here/build" arm64 armhf > "$work/build-a.log" 2>&1 || { bad "build $v1"; cat "$work/build-a.log"; finish; }
OUT=$work/b "$here/build" arm64 armhf > "$work/build-b.log" 2>&1 || { bad "build $v1 again"; cat "$work/build-b.log"; finish; }
VERSION=$v2 OUT=$work/c "$here/build" arm64 > "$work/build-c.log" 2>&1 || { bad "build $v2"; cat "$work/build-c.log"; finish; }
deb1=$work/a/claude-pi_${v1}_arm64.deb
deb2=$work/c/claude-pi_${v2}_arm64.deb
for arch in arm64 armhf; do
	f=claude-pi_${v1}_$arch.deb
	check "$f built" test -s "$work/a/$f"
	check "$f reproducible: same commit, same bytes" cmp "$work/a/$f" "$work/b/$f"
	echo "     $f: $(stat -c %s "$work/a/$f") bytes, sha256 $(sha256sum < "$work/a/$f" | cut -c1-16)…"
done
check "armhf binary: 32-bit ARM, static, GOARM=6 (runs on ARMv6: Pi Zero W)" bash -c '
	dpkg-deb --fsys-tarfile "$1" | tar -xO ./usr/bin/claude-pi > "$2/armhf-bin"
	file -b "$2/armhf-bin" | grep -q "ELF 32-bit LSB executable, ARM, EABI5.*statically linked" &&
		go version -m "$2/armhf-bin" | grep -qP "^\tbuild\tGOARM=6$"' _ "$work/a/claude-pi_${v1}_armhf.deb" "$work"
# lintian twice: the host's (bookworm's 2.116 on this machine) and Debian
# 13's, the current stable, from an amd64 trixie chroot cached as a tarball
# beside the bases (55 s to build cold, 5 s per run warm).
lintian_tar() {
	local arch key tar t0
	arch=$(dpkg --print-architecture)
	key=$(printf 'lintian %s %s' "$arch" "$MIRROR" | sha256sum | cut -c1-12)
	tar=$cache/trixie-$arch-lintian-$key.tar
	if [ ! -s "$tar" ]; then
		mkdir -p "$cache"
		log "building the trixie $arch chroot with lintian (cached in $tar)"
		t0=$(date +%s)
		mmdebstrap --quiet --mode=root --format=tar --variant=minbase --arch="$arch" --include=lintian \
			--aptopt='APT::Install-Recommends "false"' --aptopt='Acquire::Languages "none"' \
			--customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
			trixie "$tar.tmp" "$MIRROR" >&2 || { rm -f "$tar.tmp"; return 1; }
		mv "$tar.tmp" "$tar"
		log "trixie lintian chroot: $(elapsed_since "$t0"), $(du -h "$tar" | cut -f1)"
	fi
	echo "$tar"
}
lroot=$work/lintian-trixie
if ltar=$(lintian_tar) && mkdir -p "$lroot" && tar -x -C "$lroot" -f "$ltar"; then
	cp "$work"/a/claude-pi_"${v1}"_*.deb "$lroot/tmp/"
	lintians=("host" "trixie")
else
	bad "trixie lintian chroot (mmdebstrap)"
	lintians=("host")
fi
for which in "${lintians[@]}"; do
	run=(lintian) dir=$work/a
	[ "$which" = trixie ] && run=(chroot "$lroot" lintian) dir=/tmp
	version=$("${run[@]}" --version | sed 's/^Lintian v//')
	for arch in arm64 armhf; do
		check "lintian $version ($which) $arch: no errors, no warnings (--pedantic, info shown)" bash -c '
			log=$1 deb=$2; shift 2
			"$@" --allow-root --display-info --pedantic "$deb" > "$log" 2>&1; rc=$?
			sed "s/^/     /" "$log"; [ $rc = 0 ] && ! grep -q "^[EW]:" "$log"' _ "$work/lintian-$which-$arch.log" \
			"$dir/claude-pi_${v1}_$arch.deb" "${run[@]}"
	done
done
lintian --allow-root --show-overrides "$work/a/claude-pi_${v1}_arm64.deb" 2>/dev/null | grep '^O:' | sed 's/^/     overridden: /' 
check "conffile: /etc/claude-pi/config.toml" bash -c 'dpkg-deb --ctrl-tarfile "$1" | tar -xO ./conffiles | grep -qx /etc/claude-pi/config.toml' _ "$deb1"

# ---- the chroots ------------------------------------------------------
# The packages the base has: the .deb's Depends (passwd is essential), and
# systemd (for systemd-analyze). adduser is there as on every real system.
# Changing the list rebuilds the cache.
base_pkgs="adduser,bluez,dbus,systemd,udev,init-system-helpers"
base() { # base SUITE [PKG,...]: the cached base tarball's path (with PKGs too), built when missing
	local suite=$1 pkgs=$base_pkgs${2:+,$2} key
	key=$(printf '%s %s' "$pkgs" "$MIRROR" | sha256sum | cut -c1-12)
	local tar=$cache/$suite-arm64${2:+-${2//,/-}}-$key.tar
	if [ ! -s "$tar" ]; then
		mkdir -p "$cache"
		log "building the $suite arm64 base chroot${2:+ with $2} (cached in $tar)"
		local t0
		t0=$(date +%s)
		mmdebstrap --quiet --mode=root --format=tar --variant=minbase --arch=arm64 --include="$pkgs" \
			--aptopt='APT::Install-Recommends "false"' --aptopt='Acquire::Languages "none"' \
			--customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
			"$suite" "$tar.tmp" "$MIRROR" >&2 || { rm -f "$tar.tmp"; return 1; }
		mv "$tar.tmp" "$tar"
		log "$suite base: $(elapsed_since "$t0"), $(du -h "$tar" | cut -f1)"
	fi
	echo "$tar"
}

in_chroot() { chroot "$root" "$@"; }
# unit_privileges ROOT WANT: systemd-analyze security's offline view of the
# installed unit and its drop-ins (JSON: "set" is true where the unit
# restricts), printed as "ambient=… net_admin=… bluetooth=…" and compared
# with WANT. Prints the exposure score too.
unit_privileges() {
	local root=$1 want=$2 got
	chroot "$root" systemd-analyze security --offline=yes claude-pi.service 2>/dev/null | grep -i 'overall exposure'
	got=$(chroot "$root" systemd-analyze security --offline=yes --json=short claude-pi.service 2>/dev/null | python3 -c '
import json, sys
s = {e["name"]: e["set"] for e in json.load(sys.stdin)}
yes = lambda b: "yes" if b else "no"
print("ambient=%s net_admin=%s bluetooth=%s" % (yes(not s["AmbientCapabilities="]),
	yes(not s["CapabilityBoundingSet=~CAP_NET_ADMIN"]), yes(not s["RestrictAddressFamilies=~…"])))')
	echo "got: $got, want: $want"
	[ "$got" = "$want" ]
}
policy_log() { cat "$root/var/log/policy-rc.d.log" 2>/dev/null; }

# chroot_up NAME SUITE [PKG,...]: $root is $work/NAME, a copy of SUITE's base
# (with PKGs), /proc and /dev bound, a logging policy-rc.d, both .debs in /tmp.
chroot_up() {
	local tar
	tar=$(base "$2" "${3:-}") || { bad "$1: base chroot (mmdebstrap)"; return 1; }
	root=$work/$1
	mkdir -p "$root"
	tar -x -C "$root" -f "$tar" || { bad "$1: unpack base"; return 1; }
	mount --bind /proc "$root/proc" && mounted+=("$root/proc")
	mount --bind /dev "$root/dev" && mounted+=("$root/dev")
	mkdir -p "$root/run/systemd/system"
	printf '#!/bin/sh\necho "$*" >> /var/log/policy-rc.d.log\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
	chmod 0755 "$root/usr/sbin/policy-rc.d"
	cp "$deb1" "$deb2" "$root/tmp/"
}

suite_tests() {
	local suite=$1
	chroot_up "$suite" "$suite" || return
	local t="$suite:" t0
	t0=$(date +%s)

	check "$t install $v1" in_chroot dpkg -i "/tmp/$(basename "$deb1")"
	check "$t claude-pi --version (arm64, qemu-user) is $v1" test "$(in_chroot claude-pi --version)" = "claude-pi $v1"
	check "$t system user claude-pi, no login, home /var/lib/claude-pi" bash -c '
		IFS=: read -r _ _ uid _ _ home shell < <(chroot "$1" getent passwd claude-pi)
		[ "$uid" -lt 1000 ] && [ "$home" = /var/lib/claude-pi ] && [ "$shell" = /usr/sbin/nologin ]' _ "$root"
	check "$t claude-pi is in audio dialout bluetooth gpio spi" bash -c '
		g=" $(chroot "$1" id -nG claude-pi) "
		for want in audio dialout bluetooth gpio spi; do case "$g" in *" $want "*) ;; *) echo "not in $want: $g"; exit 1 ;; esac; done' _ "$root"
	check "$t unit enabled (multi-user.target.wants)" test -L "$root/etc/systemd/system/multi-user.target.wants/claude-pi.service"
	check "$t claude-pi-recover.service enabled, and it verifies" bash -c '
		test -L "$1/etc/systemd/system/multi-user.target.wants/claude-pi-recover.service" &&
		chroot "$1" systemd-analyze verify --man=no /usr/lib/systemd/system/claude-pi-recover.service > "$1/tmp/verify.log" 2>&1
		rc=$?; cat "$1/tmp/verify.log"; [ $rc = 0 ] && ! grep -q "claude-pi-recover.service:" "$1/tmp/verify.log"' _ "$root"
	check "$t recover: nothing to do on a clean system (exit 0, silent)" bash -c '
		out=$(chroot "$1" /usr/lib/claude-pi/recover 2>&1); echo "$out"; [ -z "$out" ]' _ "$root"
	check "$t claude-pi-bluetooth-files.service verifies; bluetooth.service's drop-in pulls it in" bash -c '
		grep -qx "Wants=claude-pi-bluetooth-files.service" "$1/usr/lib/systemd/system/bluetooth.service.d/claude-pi.conf" &&
		chroot "$1" systemd-analyze verify --man=no /usr/lib/systemd/system/claude-pi-bluetooth-files.service > "$1/tmp/verify.log" 2>&1
		rc=$?; cat "$1/tmp/verify.log"; [ $rc = 0 ] && ! grep -q "claude-pi-bluetooth-files.service:" "$1/tmp/verify.log"' _ "$root"
	check "$t bluetooth check-files: a zero-filled bond set aside into /var/lib/claude-pi/bluetooth, the whole settings kept" bash -c '
		b=$1/var/lib/bluetooth/DC:A6:32:01:02:03; mkdir -p "$b/F0:18:98:AA:BB:CC"
		printf "[General]\nAlias=Claude_Pi\n" > "$b/settings"; head -c 200 /dev/zero > "$b/F0:18:98:AA:BB:CC/info"
		chroot "$1" claude-pi bluetooth check-files; rc=$?
		ls -l "$1/var/lib/claude-pi/bluetooth"
		[ $rc = 0 ] && [ ! -e "$b/F0:18:98:AA:BB:CC/info" ] && grep -q Alias=Claude_Pi "$b/settings" &&
			ls "$1/var/lib/claude-pi/bluetooth" | grep -qx "DC:A6:32:01:02:03_F0:18:98:AA:BB:CC_info.damaged-.*-1-zero-filled" &&
			[ -z "$(chroot "$1" claude-pi bluetooth check-files)" ]
		rc=$?; rm -rf "$1/var/lib/bluetooth" "$1/var/lib/claude-pi/bluetooth"; exit $rc' _ "$root"
	check "$t not started without a board" bash -c '! grep -q claude-pi "$1/var/log/policy-rc.d.log" 2>/dev/null' _ "$root"
	check "$t systemd-analyze verify claude-pi.service" bash -c '
		chroot "$1" systemd-analyze verify --man=no /usr/lib/systemd/system/claude-pi.service > "$1/tmp/verify.log" 2>&1
		rc=$?; cat "$1/tmp/verify.log"; [ $rc = 0 ] && ! grep -q "claude-pi.service:" "$1/tmp/verify.log"' _ "$root"
	# Least privilege (issue 23): no capabilities unless [ble] backend = "hci"
	# and its drop-in is put in place with the command the hci backend's
	# error names (drivers/ble/hci.DropIn).
	check "$t unit: no capabilities, no AF_BLUETOOTH without the hci drop-in" \
		unit_privileges "$root" "ambient=no net_admin=no bluetooth=no"
	check "$t hci drop-in shipped off, its command is the one the hci backend prints" bash -c '
		! [ -e "$1/etc/systemd/system/claude-pi.service.d/hci.conf" ] &&
			cmd=$(sed -n "s/^const DropIn = \"\(.*\)\"$/\1/p" "$2/drivers/ble/hci/hci.go" | sed "s/sudo //g") &&
			[ -n "$cmd" ] && echo "$cmd" && chroot "$1" sh -c "${cmd%% \&\& *}" &&
			[ -s "$1/etc/systemd/system/claude-pi.service.d/hci.conf" ]' _ "$root" "$repo"
	check "$t with the hci drop-in: systemd-analyze verify passes" bash -c '
		chroot "$1" systemd-analyze verify --man=no /usr/lib/systemd/system/claude-pi.service > "$1/tmp/verify.log" 2>&1
		rc=$?; cat "$1/tmp/verify.log"; [ $rc = 0 ] && ! grep -q "claude-pi.service" "$1/tmp/verify.log"' _ "$root"
	check "$t with the hci drop-in: the capabilities and AF_BLUETOOTH are granted" \
		unit_privileges "$root" "ambient=yes net_admin=yes bluetooth=yes"
	rm -f "$root/etc/systemd/system/claude-pi.service.d/hci.conf"
	check "$t udev rule, tmpfiles, D-Bus policy in place" test -s "$root/usr/lib/udev/rules.d/60-claude-pi.rules" -a \
		-s "$root/usr/lib/tmpfiles.d/claude-pi.conf" -a -s "$root/usr/share/dbus-1/system.d/claude-pi.conf"

	# A configured appliance with state, as a user has it.
	sed -i 's/^# board = .*/board = "sim"/' "$root/etc/claude-pi/config.toml"
	mkdir -p "$root/var/lib/claude-pi"
	echo '{"bonded":true}' > "$root/var/lib/claude-pi/marker.json"
	in_chroot chown -R claude-pi:claude-pi /var/lib/claude-pi
	: > "$root/var/log/policy-rc.d.log"
	check "$t upgrade to $v2" in_chroot dpkg -i "/tmp/$(basename "$deb2")"
	check "$t claude-pi --version is $v2" test "$(in_chroot claude-pi --version)" = "claude-pi $v2"
	check "$t upgrade: service restarted" grep -qx 'claude-pi.service restart' "$root/var/log/policy-rc.d.log"
	check "$t upgrade: config kept (board = \"sim\"), no .dpkg-* left" bash -c '
		grep -qx "board = \"sim\"" "$1/etc/claude-pi/config.toml" && ! ls "$1"/etc/claude-pi/*.dpkg-* 2>/dev/null' _ "$root"
	check "$t upgrade: /var/lib/claude-pi kept" test -s "$root/var/lib/claude-pi/marker.json"
	check "$t upgrade: still enabled" test -L "$root/etc/systemd/system/multi-user.target.wants/claude-pi.service"
	check "$t doctor --board sim passes (no Bluetooth, no audio needed)" in_chroot claude-pi doctor --board sim
	# Issue 36: the upgrade is recorded for health-check, which judges it
	# (here claude-pi never ran: only dpkg's verdict counts) and keeps it.
	rb=$root/var/lib/claude-pi/rollback
	check "$t upgrade: recorded for the health check ($v1 to $v2, not running)" bash -c '
		cat "$1/pending"; grep -qx "from=$2" "$1/pending" && grep -qx "to=$3" "$1/pending" && grep -qx "running=no" "$1/pending"' _ "$rb" "$v1" "$v2"
	check "$t claude-pi-health-check.service verifies" bash -c '
		chroot "$1" systemd-analyze verify --man=no /usr/lib/systemd/system/claude-pi-health-check.service > "$1/tmp/verify.log" 2>&1
		rc=$?; cat "$1/tmp/verify.log"; [ $rc = 0 ] && ! grep -q "claude-pi-health-check.service:" "$1/tmp/verify.log"' _ "$root"
	check "$t health-check: $v2 installed, not running before: kept" bash -c '
		chroot "$1" /usr/lib/claude-pi/health-check && [ ! -e "$2/pending" ] && [ "$(chroot "$1" claude-pi --version)" = "claude-pi $3" ] &&
		[ ! -e "$1/etc/apt/preferences.d/claude-pi-rollback" ] && [ ! -e "$2/rolled-back" ]' _ "$root" "$rb" "$v2"
	# A failed check: $v2 was running before and its control socket never
	# answers (no systemd here): $v1 comes back from its kept .deb, $v2 is
	# pinned away, and $v1's postinst starts no check of its own.
	cp "$deb1" "$rb/"
	printf 'from=%s\nto=%s\nat=2026-12-04T00:00:00Z\nrunning=yes\n' "$v1" "$v2" > "$rb/pending"
	check "$t health-check: $v2 fails (no control socket): rolled back to $v1" bash -c '
		chroot "$1" env CLAUDE_PI_HEALTH_START=2 /usr/lib/claude-pi/health-check; rc=$?
		[ $rc = 0 ] && [ "$(chroot "$1" dpkg-query -W -f="\${db:Status-Abbrev} \${Version}" claude-pi)" = "ii  $3" ]' _ "$root" "$rb" "$v1"
	check "$t rolled back: the record says why, $v2 pinned to -1, nothing pending" bash -c '
		cat "$2/rolled-back" "$1/etc/apt/preferences.d/claude-pi-rollback"
		grep -qx "from=$4" "$2/rolled-back" && grep -qx "to=$3" "$2/rolled-back" && grep -q "^reason=claude-pi.service does not stay up (not running, not running 2 s after the upgrade)" "$2/rolled-back" &&
		grep -qx "Pin: version $4" "$1/etc/apt/preferences.d/claude-pi-rollback" && grep -qx "Pin-Priority: -1" "$1/etc/apt/preferences.d/claude-pi-rollback" &&
		[ ! -e "$2/pending" ] && [ ! -e "$2/rolling-back" ]' _ "$root" "$rb" "$v1" "$v2"
	check "$t doctor says the update to $v2 was rolled back" bash -c '
		chroot "$1" claude-pi doctor --board sim 2>&1 | grep "claude-pi update"; chroot "$1" claude-pi doctor --board sim 2>&1 | grep -q "update to $2 rolled back"' _ "$root" "$v2"
	check "$t recover: nothing to do after a finished rollback (silent)" bash -c '
		out=$(chroot "$1" /usr/lib/claude-pi/recover 2>&1); echo "$out"; [ -z "$out" ]' _ "$root"
	# The verdicts are shell, the same on every suite: judged on the first.
	[ "$suite" != "${suites%% *}" ] || health_tests "$t"

	: > "$root/var/log/policy-rc.d.log"
	check "$t remove" in_chroot dpkg -r claude-pi
	check "$t remove: service stopped" grep -qx 'claude-pi.service stop' "$root/var/log/policy-rc.d.log"
	check "$t remove: binary gone, config and state kept" bash -c '
		! [ -e "$1/usr/bin/claude-pi" ] && [ -s "$1/etc/claude-pi/config.toml" ] && [ -s "$1/var/lib/claude-pi/marker.json" ]' _ "$root"
	check "$t purge" in_chroot dpkg -P claude-pi
	check "$t purge: config, state and enablement gone" bash -c '
		! [ -e "$1/etc/claude-pi" ] && ! [ -e "$1/var/lib/claude-pi" ] &&
			! [ -e "$1/etc/systemd/system/multi-user.target.wants/claude-pi.service" ] &&
			! [ -e "$1/var/lib/systemd/deb-systemd-helper-enabled/claude-pi.service.dsh-also" ] &&
			! [ -e "$1/etc/systemd/system/multi-user.target.wants/claude-pi-recover.service" ] &&
			! [ -e "$1/etc/apt/preferences.d/claude-pi-rollback" ]' _ "$root"
	check "$t purge: dpkg knows nothing of it" bash -c '! chroot "$1" dpkg-query -W claude-pi 2>/dev/null' _ "$root"
	check "$t purge: reinstall works (user exists already)" in_chroot dpkg -i "/tmp/$(basename "$deb2")"
	echo "     $suite: install/upgrade/remove/purge/reinstall in $(elapsed_since "$t0")"
	umount -l "$root/proc" "$root/dev"
	rm -rf "$root"
}

# health_tests T: health-check's verdicts against a fake `claude-pi status`
# (CLAUDE_PI_HEALTH_STATUS; no systemd in a chroot). Starts and ends with
# $v1 installed, $v2 rolled back and held.
health_tests() {
	local t=$1 rb=$root/var/lib/claude-pi/rollback
	# tables A B...: what `claude-pi status` prints on each call, the last
	# one again and again; each A is "approvals,lan,ui" states.
	tables() {
		rm -f "$root"/tmp/st.*; local i=0 a
		for a in "$@"; do
			i=$((i + 1))
			echo "$a" | tr ',' '\n' | paste -d' ' - <(printf 'approvals\nlan\nui\n') | awk '{ print $2, $1, "some words" }' > "$root/tmp/st.$i"
		done
	}
	cat > "$root/tmp/fake-status" <<'F'
#!/bin/sh
n=$(cat /tmp/st.n 2>/dev/null || echo 0); n=$((n + 1))
if [ -e /tmp/st.$n ]; then echo $n > /tmp/st.n; else n=$((n - 1)); fi
cat /tmp/st.$n
F
	chmod +x "$root/tmp/fake-status"
	# hc [ENV...]: health-check in the chroot with the fake status and a
	# short window; prints its log and how long it took.
	hc() { rm -f "$root/tmp/st.n"; local s=$SECONDS; chroot "$root" env CLAUDE_PI_HEALTH_STATUS=/tmp/fake-status CLAUDE_PI_HEALTH_QUIET=1 CLAUDE_PI_HEALTH_START=30 CLAUDE_PI_HEALTH_STAY=6 "$@" /usr/lib/claude-pi/health-check; local rc=$?; echo "(health-check: exit $rc in $((SECONDS - s)) s)"; return $rc; }
	pending() { printf 'from=%s\nto=%s\nat=2026-12-04T00:00:00Z\nrunning=yes\ndown=%s\n' "$v1" "$v2" "${1:-}" > "$rb/pending"; }
	ver() { chroot "$root" dpkg-query -W -f='${db:Status-Abbrev} ${Version}' claude-pi; }
	export -f hc ver; export root rb v1 v2

	check "$t health: $v2 by hand (dpkg -i ignores the hold)" in_chroot dpkg -i "/tmp/$(basename "$deb2")"
	pending; tables "RUNNING,STARTING,STARTING" "RUNNING,RUNNING,STARTING" "RUNNING,RUNNING,RUNNING"
	check "$t health: $v2 comes up and stays RUNNING: kept, the hold and the old record cleared" bash -c '
		hc && [ "$(ver)" = "ii  $v2" ] && [ ! -e "$root/etc/apt/preferences.d/claude-pi-rollback" ] && [ ! -e "$rb/rolled-back" ] && [ ! -e "$rb/pending" ]'
	pending lan; tables "RUNNING,FATAL,RUNNING"
	check "$t health: lan FATAL before the upgrade too (down=lan): not held against $v2, kept" bash -c '
		hc && [ "$(ver)" = "ii  $v2" ] && [ ! -e "$rb/pending" ] && [ ! -e "$root/etc/apt/preferences.d/claude-pi-rollback" ]'
	pending; tables "RUNNING,BACKOFF,RUNNING" "RUNNING,FATAL,RUNNING"
	check "$t health: lan FATAL at start: rolled back at once (not after START), the reason names it" bash -c '
		hc > /tmp/hc.log 2>&1; rc=$?; cat /tmp/hc.log; s=$(sed -n "s/.*failed its check after \([0-9]*\) s.*/\1/p" /tmp/hc.log)
		[ $rc = 0 ] && [ -n "$s" ] && [ "$s" -lt 30 ] && [ "$(ver)" = "ii  $v1" ] &&
		grep -q "^reason=a service gave up (FATAL) .* lan FATAL" "$rb/rolled-back" && grep -qx "Pin: version $v2" "$root/etc/apt/preferences.d/claude-pi-rollback" &&
		[ ! -e "$rb/pending" ] && [ ! -e "$rb/rolling-back" ]'
	check "$t health: $v2 again by hand" in_chroot dpkg -i "/tmp/$(basename "$deb2")"
	pending; tables "RUNNING,RUNNING,RUNNING" "RUNNING,RUNNING,RUNNING" "RUNNING,BACKOFF,RUNNING"
	check "$t health: lan leaves RUNNING in the stay window: rolled back" bash -c '
		hc && [ "$(ver)" = "ii  $v1" ] && grep -q "^reason=a service stopped running .* lan BACKOFF" "$rb/rolled-back" && [ ! -e "$rb/pending" ]'
	# N+1's postinst fails (usermod made to fail): dpkg leaves it
	# half-configured; the check puts $v1 back.
	mv "$root/usr/sbin/usermod" "$root/usr/sbin/usermod.real"; printf '#!/bin/sh\nexit 1\n' > "$root/usr/sbin/usermod"; chmod +x "$root/usr/sbin/usermod"
	check "$t health: $v2 whose postinst fails: dpkg -i fails, half-configured" bash -c '! chroot "$root" dpkg -i "/tmp/$(basename "$1")" > /dev/null 2>&1; [ "$(ver)" = "iF  $v2" ] || { ver; false; }' _ "$deb2"
	mv -f "$root/usr/sbin/usermod.real" "$root/usr/sbin/usermod"
	check "$t health: the failed maintainer script rolls it back: $v1 installed, the reason says so, nothing pending" bash -c '
		cat "$rb/pending"; hc && [ "$(ver)" = "ii  $v1" ] && grep -q "^reason=its install did not finish (dpkg: iF" "$rb/rolled-back" &&
		[ ! -e "$rb/pending" ] && [ ! -e "$rb/rolling-back" ]'
	check "$t health: no bounce: $v1's own postinst started no check (nothing pending after the rollback)" test ! -e "$rb/pending"
}

# Issue 27: Raspberry Pi OS with Debian's supervisor installed and its
# daemon enabled. At boot systemd-tmpfiles makes claude-pi's link first;
# the .deb's supervisor.service drop-in removes it before supervisord
# starts, so supervisord owns /run/supervisor.sock (supervisorctl shows its
# programs), claude-pi answers at its own path, and doctor says so.
# supervisor_suite: Debian 13 with Debian's supervisor installed first (its
# base tarball has it: installing it under qemu-user took 190 s per run),
# then claude-pi.
supervisor_suite() {
	local t="trixie+supervisor:"
	chroot_up trixie-supervisor trixie supervisor || return
	check "$t Debian's supervisor installed, its daemon enabled" \
		test -L "$root/etc/systemd/system/multi-user.target.wants/supervisor.service"
	check "$t install $v2" in_chroot dpkg -i "/tmp/$(basename "$deb2")"
	supervisord_tests "$t"
	umount -l "$root/proc" "$root/dev"
	rm -rf "$root"
}

supervisord_tests() {
	local t=$1
	check "$t the drop-in is on supervisor.service" test -s "$root/usr/lib/systemd/system/supervisor.service.d/claude-pi.conf"
	rm -f "$root/run/supervisor.sock"
	mkdir -p "$root/run/claude-pi"
	check "$t boot order 1: tmpfiles makes claude-pi's link" bash -c '
		chroot "$1" systemd-tmpfiles --create claude-pi.conf && [ "$(readlink "$1/run/supervisor.sock")" = /run/claude-pi/supervisor.sock ]' _ "$root"
	local pre # the drop-in's command line, quoted as systemd reads it (sh does the same here)
	pre=$(sed -n 's/^ExecStartPre=-//p' "$root/usr/lib/systemd/system/supervisor.service.d/claude-pi.conf")
	check "$t boot order 2: supervisor.service's ExecStartPre removes the link" bash -c '
		chroot "$1" sh -c "$2" && ! [ -e "$1/run/supervisor.sock" ] && ! [ -L "$1/run/supervisor.sock" ]' _ "$root" "$pre"
	check "$t boot order 3: supervisord starts and owns /run/supervisor.sock" bash -c '
		chroot "$1" supervisord -c /etc/supervisor/supervisord.conf &&
			for i in $(seq 100); do [ -S "$1/run/supervisor.sock" ] && break; sleep 0.2; done; [ -S "$1/run/supervisor.sock" ]' _ "$root"
	check "$t supervisorctl status answers (supervisord's own table)" chroot "$root" supervisorctl status
	check "$t tmpfiles again (postinst, a later upgrade) leaves supervisord's socket alone" bash -c '
		chroot "$1" systemd-tmpfiles --create claude-pi.conf; [ -S "$1/run/supervisor.sock" ] && ! [ -L "$1/run/supervisor.sock" ]' _ "$root"
	check "$t the ExecStartPre leaves a socket that is not claude-pi's link alone" bash -c '
		chroot "$1" sh -c "$2"; [ -S "$1/run/supervisor.sock" ]' _ "$root" "$pre"
	check "$t doctor warns: supervisord owns it, use claude-pi status" bash -c '
		chroot "$1" claude-pi doctor --board sim > "$1/tmp/doctor.txt" 2>&1; cat "$1/tmp/doctor.txt"
		grep -q "^WARN supervisorctl .*supervisord owns /run/supervisor.sock" "$1/tmp/doctor.txt"' _ "$root"
	chroot "$root" supervisorctl shutdown > /dev/null 2>&1 || true
	sleep 1
}

# The suites run side by side, each into its own log: a chroot's dpkg and
# its arm64 programs under qemu-user are one process at a time, so two
# suites take about as long as the longer one (the first, which also runs
# health_tests) on two cores. Each counts its own checks; a suite that
# dies before its count is one failure.
jobs=$suites
[[ " $suites " != *" trixie "* ]] || jobs+=" supervisor"
pids=()
for s in $jobs; do
	(
		trap 'for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null; done' EXIT
		passed=0 failed=0 mounted=() check_out=$work/check-$s.out
		if [ "$s" = supervisor ]; then supervisor_suite; else suite_tests "$s"; fi
		echo "suite-count $passed $failed"
	) > "$work/suite-$s.log" 2>&1 &
	pids+=($!)
done
i=0
for s in $jobs; do
	wait "${pids[$i]}"
	i=$((i + 1))
	grep -v '^suite-count ' "$work/suite-$s.log"
	if read -r _ p f < <(grep '^suite-count ' "$work/suite-$s.log"); then
		passed=$((passed + p)) failed=$((failed + f))
	else
		bad "$s: the suite's tests ended before their count (its log above)"
	fi
done
finish
