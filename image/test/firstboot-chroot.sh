#!/usr/bin/env bash
# firstboot-chroot.sh: the image's first-boot script applies Raspberry Pi
# Imager's settings to a Debian 13 system (an amd64 chroot, in its own UTS
# and mount namespaces, so `hostname` changes only the chroot's), run by
# fast.sh. Two boot partitions as Imager writes them (the fixtures of
# protocols/firstboot/testdata): a user with a password hash, two keys and
# ssh passwords on, a hidden network, a time zone and a keyboard; then a
# key-only user with passwordless sudo; then SSH turned off. Checks the
# system files each leaves: hostname and hosts, the user's groups, hash, keys and sudo,
# sshd's effective PasswordAuthentication, wpa_supplicant's network, the
# time zone and keyboard, and the boot folder scrubbed. What it cannot
# check: a boot (smoke.sh does that on the real image).
#
# The base chroot is cached as a tarball in $cache (built with mmdebstrap
# when missing, about a minute). Prints ok/FAIL lines; the caller counts.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
image=$(cd "$here/.." && pwd)
repo=$(cd "$image/.." && pwd)
cache=${CLAUDE_PI_IMAGE_CACHE:-/var/tmp/claude-pi-image-cache}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
claude_pi=${1:?usage: firstboot-chroot.sh CLAUDE-PI-BINARY (built for this host)}
work=$(mktemp -d /var/tmp/claude-pi-firstboot.XXXXXX)
trap 'rm -rf "$work"' EXIT
. "$repo/packaging/testlib.sh"
: "${passed:=0}" "${failed:=0}"

pkgs="passwd,openssh-server,wpasupplicant,sudo,tzdata,hostname"
key=$(printf '%s %s' "$pkgs" "$MIRROR" | sha256sum | cut -c1-12)
tar=$cache/firstboot-trixie-amd64-$key.tar
if [ ! -s "$tar" ]; then
	mkdir -p "$cache"
	mmdebstrap --quiet --mode=root --format=tar --variant=minbase --include="$pkgs" \
		--aptopt='APT::Install-Recommends "false"' \
		--customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
		trixie "$tar.tmp" "$MIRROR" > "$work/mmdebstrap.log" 2>&1 ||
		{ rm -f "$tar.tmp"; bad "firstboot chroot: mmdebstrap"; tail -n 20 "$work/mmdebstrap.log"; exit 1; }
	mv "$tar.tmp" "$tar"
fi

# boot DIR FIXTURE: a chroot whose boot partition holds Imager's FIXTURE
# files and the image's own firstboot.txt; first boot's parts run in it.
boot() {
	local root=$work/$1 fixture=$1
	mkdir -p "$root"
	tar -x -C "$root" -f "$tar" || return 1
	# What the image and its .deb add: the groups, the script, claude-pi.
	# (systemd-journal is systemd's; the image has systemd, this chroot not.)
	for g in claude-pi gpio spi bluetooth systemd-journal; do chroot "$root" groupadd -f -r "$g"; done
	install -D -m 0755 "$image/rootfs/usr/lib/claude-pi/firstboot" "$root/usr/lib/claude-pi/firstboot"
	install -m 0755 "$claude_pi" "$root/usr/bin/claude-pi"
	# As image/lib/customize writes them.
	echo claude-pi > "$root/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tclaude-pi\n' > "$root/etc/hosts"
	mkdir -p "$root/boot/firmware" "$root/run/sshd" "$root/etc/wpa_supplicant" "$root/etc/ssh/sshd_config.d"
	cp "$repo/protocols/firstboot/testdata/$fixture"/* "$root/boot/firmware/"
	cp "$image/rootfs/boot/firmware/firstboot.txt" "$root/boot/firmware/"
	unshare --uts --mount chroot "$root" /bin/bash -c '
		. /usr/lib/claude-pi/firstboot
		systemctl() { :; }
		read_settings; set_hostname; set_timezone; set_keyboard; make_user; set_wifi; scrub' > "$root.log" 2>&1
}
in_root() { chroot "$work/$1" "${@:2}"; }

if boot full; then
	r=$work/full
	check "firstboot chroot: Imager's hostname over firstboot.txt's, in /etc/hosts too" bash -c '
		[ "$(cat "$1/etc/hostname")" = deskpi ] && grep -qP "^127\.0\.1\.1\tdeskpi$" "$1/etc/hosts"' _ "$r"
	check "firstboot chroot: user ada in sudo and claude-pi, with Imager's hash" bash -c '
		g=" $(chroot "$1" id -nG ada) "; [[ $g == *" sudo "* && $g == *" claude-pi "* ]] &&
			grep -qF "ada:\$y\$j9T\$Hq0TcMFJrNvkI8bJ5f7wL/" "$1/etc/shadow"' _ "$r"
	check "firstboot chroot: both of Imager's keys, the file the user's own, 0600" bash -c '
		f=$1/home/ada/.ssh/authorized_keys; [ "$(grep -c -e "^ssh-ed25519 " -e "^ecdsa-sha2-nistp256 " "$f")" = 2 ] &&
			[ "$(stat -c %a "$f")" = 600 ] && [ "$(chroot "$1" stat -c %U /home/ada/.ssh/authorized_keys)" = ada ]' _ "$r"
	check "firstboot chroot: ssh on and ssh_pwauth true, so sshd takes passwords; sudo asks one (sudo: null)" bash -c '
		chroot "$1" sshd -T -C user=ada,host=x,addr=127.0.0.1 | grep -qx "passwordauthentication yes" &&
			! ls "$1"/etc/sudoers.d/010-claude-pi-ada 2>/dev/null && [ ! -e "$1/etc/ssh/sshd_not_to_be_run" ]' _ "$r"
	check "firstboot chroot: the hidden network, Imager's key and country for wpa_supplicant" bash -c '
		f=$1/etc/wpa_supplicant/wpa_supplicant-wlan0.conf; grep -qx "country=GB" "$f" &&
			grep -qxP "\tssid=486f6d65204e6574776f726b" "$f" && grep -qxP "\tscan_ssid=1" "$f" &&
			grep -qxP "\tpsk=5f1a1b0c6e2b6dbb8e2f0a6d9a4c7c0f3e1d2b4a69788f0e1d2c3b4a59687f0e" "$f" &&
			[ "$(stat -c %a "$f")" = 600 ]' _ "$r"
	check "firstboot chroot: time zone Europe/London, keyboard gb" bash -c '
		[ "$(readlink "$1/etc/localtime")" = /usr/share/zoneinfo/Europe/London ] && grep -qx "XKBLAYOUT=\"gb\"" "$1/etc/default/keyboard"' _ "$r"
	check "firstboot chroot: Imager's files gone from the boot folder, nothing left in /run" bash -c '
		! ls "$1/boot/firmware" | grep -qe user-data -e network-config -e meta-data && [ -f "$1/boot/firmware/firstboot.txt" ] &&
			! ls "$1/run" | grep -q firstboot' _ "$r"
else
	bad "firstboot chroot: unpack and run (full)"
fi
[ "$failed" = 0 ] || sed 's/^/     /' "$work/full.log" | tail -n 30

if boot keyonly; then
	r=$work/keyonly
	check "firstboot chroot: key-only user, passwordless sudo, sshd keys only" bash -c '
		grep -q "^grace:[!*]" "$1/etc/shadow" && [ "$(wc -l < "$1/home/grace/.ssh/authorized_keys")" = 1 ] &&
			grep -qx "grace ALL=(ALL:ALL) NOPASSWD: ALL" "$1/etc/sudoers.d/010-claude-pi-grace" &&
			chroot "$1" sshd -T -C user=grace,host=x,addr=127.0.0.1 | grep -qx "passwordauthentication no"' _ "$r"
	check "firstboot chroot: what Imager wrote but the image does not apply is in the log" bash -c '
		grep -q "rpi (I2C, SPI, serial, USB gadget) not applied" "$1.log" && grep -q "Raspberry Pi Connect not set up" "$1.log" &&
			grep -q "user: from Raspberry Pi Imager" "$1.log"' _ "$r"
else
	bad "firstboot chroot: unpack and run (keyonly)"
fi
if boot sshoff; then
	check "firstboot chroot: Imager's SSH box unticked: ssh.service's condition file, the password kept" bash -c '
		[ -e "$1/etc/ssh/sshd_not_to_be_run" ] && grep -qF "lin:\$5\$QUIETsalt1\$" "$1/etc/shadow" &&
			[ "$(cat "$1/etc/hostname")" = quietpi ]' _ "$work/sshoff"
else
	bad "firstboot chroot: unpack and run (sshoff)"
fi
echo "firstboot chroot: $passed passed, $failed failed"
[ "$failed" = 0 ]
