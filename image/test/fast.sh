#!/usr/bin/env bash
# The image's fast test (run by .ci/run): the assembler on a tiny tree
# (partition table, FAT and ext4 contents, reproducibility), the overlay's
# scripts and config, and a tiny-initramfs boot of the arm64 claude-pi under
# qemu-system-aarch64 -M virt. Ends with "image: N passed, M failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
image=$(cd "$here/.." && pwd)
repo=$(cd "$image/.." && pwd)
# shellcheck source=../lib/common.sh
. "$image/lib/common.sh"
cache=${CLAUDE_PI_IMAGE_CACHE:-/var/tmp/claude-pi-image-cache}
export PATH="$PATH:/usr/local/go/bin:/usr/sbin:/sbin"

# ok, bad, check NAME CMD... (one test, passing when CMD succeeds).
# shellcheck source=../../packaging/testlib.sh
. "$repo/packaging/testlib.sh"
finish() {
	echo "image: $passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}

ensure_packages mtools dosfstools e2fsprogs fdisk qemu-system-arm xz-utils zstd bmap-tools cpio python3 mmdebstrap \
	device-tree-compiler ||
	{ bad "install prerequisites with apt"; finish; }
work=$(mktemp -d /var/tmp/claude-pi-image-test.XXXXXX)
trap 'rm -rf "$work"' EXIT

# ---- assembler -------------------------------------------------------
tree() { # tree DIR: a tiny rootfs and boot partition
	local d=$1
	mkdir -p "$d/root/etc" "$d/root/usr/bin" "$d/root/my dir" "$d/root/boot/firmware" "$d/root/home/pi" \
		"$d/boot/overlays"
	echo claude-pi > "$d/root/etc/hostname"
	printf '#!/bin/sh\necho hi\n' > "$d/root/usr/bin/hello"
	chmod 0755 "$d/root/usr/bin/hello"
	echo shared > "$d/root/etc/linked"
	ln "$d/root/etc/linked" "$d/root/usr/bin/linked"
	ln -s ../etc/hostname "$d/root/usr/bin/hostname-link"
	echo spaced > "$d/root/my dir/file x"
	echo mine > "$d/root/home/pi/owned"
	chown 1000:1000 "$d/root/home/pi/owned"
	chmod 0600 "$d/root/home/pi/owned"
	echo "must not reach ext4" > "$d/root/boot/firmware/kernel.img"
	head -c 300000 /dev/urandom > "$d/root/usr/bin/blob"
	printf 'arm_64bit=1\nenable_uart=1\n' > "$d/boot/config.txt"
	echo "console=tty0 root=LABEL=RASPIROOT rw rootwait" > "$d/boot/cmdline.txt"
	echo 'board = "sim"' > "$d/boot/claude-pi.toml"
	head -c 70000 /dev/urandom > "$d/boot/overlays/hifiberry-dac.dtbo"
	cp "$d/root/usr/bin/blob" "$d/boot/vmlinuz-6.1.0-test-arm64"
}
export SOURCE_DATE_EPOCH=1700000000
tree "$work/a"
log "assembling a tiny image"
if ! "$image/assemble" --boot "$work/a/boot" --root "$work/a/root" --exclude-root boot/firmware \
	--boot-mib 64 --pow2 "$work/a.img" > "$work/assemble.log" 2>&1; then
	bad "assemble a tiny image"; cat "$work/assemble.log"; finish
fi
ok "assemble a tiny image"
img=$work/a.img
check "image size is a power of two" bash -c 's=$(stat -c %s "$1"); [ $((s & (s - 1))) = 0 ]' _ "$img"
check "excluded boot/firmware files are put back in the input" test -f "$work/a/root/boot/firmware/kernel.img"

sfdisk -J "$img" > "$work/pt.json" 2>&1
pt() { python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["partitiontable"]; print(eval(sys.argv[2]))' "$work/pt.json" "$1"; }
check "MBR with the fixed disk id" test "$(pt 't["label"], t["id"]')" = "('dos', '0x5ca1ab1e')"
check "partition 1: FAT32 LBA, bootable, at 1 MiB, 64 MiB" \
	test "$(pt '[(p["start"], p["size"], p["type"], p.get("bootable", False)) for p in t["partitions"]][0]')" = "(2048, 131072, 'c', True)"
check "partition 2: Linux, right after, to the end" \
	test "$(pt '[(p["start"], p["type"], p["start"] + p["size"]) for p in t["partitions"]][1]')" = "(133120, '83', $(($(stat -c %s "$img") / 512)))"

fat="$img@@1M"
export MTOOLS_SKIP_CHECK=1
check "FAT label RASPIFIRM" bash -c 'minfo -i "$1" :: | grep -q "label=\"RASPIFIRM"' _ "$fat"
check "FAT volume id fixed" bash -c 'mdir -i "$1" ::/ | grep -q "Serial Number is 1234-ABCD"' _ "$fat"
check "FAT is FAT32" bash -c 'minfo -i "$1" :: | grep -q "disk type=\"FAT32"' _ "$fat"
for f in config.txt cmdline.txt claude-pi.toml overlays/hifiberry-dac.dtbo vmlinuz-6.1.0-test-arm64; do
	check "FAT has $f, same bytes" bash -c 'mtype -i "$1" "::/$2" | cmp - "$3"' _ "$fat" "$f" "$work/a/boot/$f"
done

off=$((133120 * 512))
ext="$img?offset=$off"
dfs() { debugfs -R "$1" "$ext" 2>/dev/null; }
check "ext4 label RASPIROOT, fixed UUID" bash -c 'dumpe2fs -h "$1" 2>/dev/null | grep -q "volume name: *RASPIROOT" &&
	dumpe2fs -h "$1" 2>/dev/null | grep -q "UUID: *5ca1ab1e-c1a0-4de0-8e00-000000000002"' _ "$ext"
check "ext4 is clean (e2fsck -fn)" e2fsck -fn "$ext"
check "ext4 file content" test "$(dfs 'cat /etc/hostname')" = claude-pi
check "ext4 file with a space in its path" test "$(dfs 'cat "/my dir/file x"')" = spaced
check "ext4 keeps modes" bash -c 'debugfs -R "stat /usr/bin/hello" "$1" 2>/dev/null | grep -q "Mode:  0755"' _ "$ext"
check "ext4 keeps owners" bash -c 'debugfs -R "stat /home/pi/owned" "$1" 2>/dev/null | grep -q "User:  1000   Group:  1000"' _ "$ext"
check "ext4 keeps hard links" bash -c 'debugfs -R "stat /etc/linked" "$1" 2>/dev/null | grep -q "Links: 2"' _ "$ext"
check "ext4 keeps symlinks" bash -c 'debugfs -R "stat /usr/bin/hostname-link" "$1" 2>/dev/null | grep -q "Fast link dest: \"../etc/hostname\""' _ "$ext"
check "ext4 blob, same bytes" bash -c 'debugfs -R "cat /usr/bin/blob" "$1" 2>/dev/null | cmp - "$2"' _ "$ext" "$work/a/root/usr/bin/blob"
check "ext4 /boot/firmware is an empty mount point" test "$(dfs 'ls -p /boot/firmware' | grep -c '^/')" = 2
check "ext4 times are SOURCE_DATE_EPOCH" bash -c 'debugfs -R "stat /usr/bin/hello" "$1" 2>/dev/null | grep -E "^ *(a|c|m)time:" | grep -vc "0x6553f100" | grep -qx 0' _ "$ext"

# Same input, made elsewhere at another time with other host times: the
# same bytes.
sleep 1
tree "$work/b"
cp "$work/a/root/usr/bin/blob" "$work/b/root/usr/bin/blob"
cp "$work/a/root/usr/bin/blob" "$work/b/boot/vmlinuz-6.1.0-test-arm64"
cp "$work/a/boot/overlays/hifiberry-dac.dtbo" "$work/b/boot/overlays/"
cat "$work/b/root/etc/hostname" > /dev/null
"$image/assemble" --boot "$work/b/boot" --root "$work/b/root" --exclude-root boot/firmware \
	--boot-mib 64 --pow2 "$work/b.img" > "$work/assemble-b.log" 2>&1 || { bad "assemble again"; cat "$work/assemble-b.log"; }
check "reproducible: same input, same SHA-256" test "$(sha256sum < "$work/a.img")" = "$(sha256sum < "$work/b.img")"
check "bmaptool maps the image" bmaptool -q create -o "$work/a.bmap" "$work/a.img"

# ---- the overlay -----------------------------------------------------
for s in "$image/build" "$image/assemble" "$image/lib/customize" "$image"/rootfs/usr/lib/claude-pi/* \
	"$image/rootfs/etc/initramfs-tools/hooks/claude-pi-root"; do
	check "shell syntax: ${s#"$image"/}" bash -n "$s"
done
for s in "$repo"/packaging/deb/{build,test.sh,postinst,prerm,postrm} "$repo/packaging/version"; do
	check "shell syntax: ${s#"$repo"/}" bash -n "$s"
done
# ---- first boot: no secret left on the FAT partition (issue 23) --------
# firstboot's scrub on a copy of a user's firstboot.txt. A second hard link
# keeps the file's old inode, as the FAT keeps the clusters a rewrite (sed
# -i) frees: the secrets must be gone from those bytes too, overwritten in
# place before the rewrite.
fb=$work/firstboot
mkdir -p "$fb"
printf '%s\n' 'hostname = pi-x' 'user = alice' '  password = "pässwörd fb-secret-1"'$'\r' \
	'password_hash = $6$salt$fb-secret-2' 'wifi_ssid = Home Net' 'wifi_psk=fb-secret-3' \
	'ssh_key = ssh-ed25519 AAAAC3Nz alice@laptop' '# password = (an old comment)' > "$fb/firstboot.txt"
printf 'wifi_psk = fb-secret-4' >> "$fb/firstboot.txt" # a last line without its newline
ln "$fb/firstboot.txt" "$fb/old-clusters"
fb_size=$(stat -c %s "$fb/old-clusters")
check "firstboot scrub runs" bash -c '. "$1"; settings=$2; scrub' _ "$image/rootfs/usr/lib/claude-pi/firstboot" "$fb/firstboot.txt"
check "firstboot.txt: no secret left" bash -c '! grep -a fb-secret "$1"' _ "$fb/firstboot.txt"
check "firstboot.txt: each secret line says it was applied" bash -c '
	for k in password password_hash wifi_psk wifi_psk; do echo "# $k = (applied at first boot, then removed from this file)"; done > "$2.want"
	grep -a "applied at first boot" "$1" | diff "$2.want" -' _ "$fb/firstboot.txt" "$fb/old-clusters"
check "firstboot.txt: the other settings kept as they were" bash -c '
	grep -aE "^(hostname|user|wifi_ssid|ssh_key) = " "$1" | diff - <(printf "%s\n" "hostname = pi-x" "user = alice" \
		"wifi_ssid = Home Net" "ssh_key = ssh-ed25519 AAAAC3Nz alice@laptop")' _ "$fb/firstboot.txt"
check "the old file's bytes (its clusters on FAT): secrets overwritten in place, same length" bash -c '
	! grep -a -e fb-secret -e pässwörd "$1" && [ "$(stat -c %s "$1")" = "$2" ] &&
		grep -aqx "wifi_psk=\*\{11\}" "$1" && grep -aq "^  password =\*\{25\}"$'"'"'\r'"'"'"\$" "$1"' _ "$fb/old-clusters" "$fb_size"
# ---- first boot: Raspberry Pi Imager's settings (issue 35) -------------
# A boot partition as Imager 2.x leaves it for init_format cloudinit-rpi
# (the seeds of protocols/firstboot/testdata/full, in Imager's exact
# shapes) beside the image's firstboot.txt. The firstboot script's own
# parts run against it, with claude-pi built for this host: the merge
# (Imager's win), the Wi-Fi and keyboard files, then the scrub. The user,
# hostname and ssh parts need a whole system: smoke.sh boots one.
ib=$work/imager-boot
mkdir -p "$ib"
cp "$repo"/protocols/firstboot/testdata/full/{user-data,network-config,meta-data} "$ib/"
cp "$image/rootfs/boot/firmware/firstboot.txt" "$ib/"
ln "$ib/network-config" "$work/imager-old-clusters"
if (cd "$repo" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$work/host-bin/claude-pi" .) > "$work/go-host.log" 2>&1; then
	# fbrun CODE: CODE after sourcing the firstboot script, its paths here.
	fbrun() { PATH="$work/host-bin:$PATH" bash -c '. "$1"; boot=$2; settings=$2/firstboot.txt; applied_path=$3/applied
		wpa_conf=$3/wpa.conf; keyboard_file=$3/keyboard; systemctl() { :; }; eval "$4"' _ \
		"$image/rootfs/usr/lib/claude-pi/firstboot" "$ib" "$work" "$1"; }
	a=$work/applied
	check "firstboot: claude-pi merges Imager's files over firstboot.txt's defaults" bash -c '
		grep -qx "hostname = \"deskpi\"" "$1" && grep -qx "user = \"ada\"" "$1" && grep -qF "password_hash = \"\$y\$j9T\$" "$1" &&
			[ "$(grep -c ^ssh_key "$1")" = 2 ] && grep -qx "ssh_password_login = \"yes\"" "$1"' _ \
		"$(fbrun 'read_settings >&2; cat "$applied"' 2> "$work/fb-read.log" > "$a.copy"; echo "$a.copy")"
	check "firstboot: Imager's Wi-Fi (hidden, its PSK, its country) in wpa_supplicant's file" bash -c '
		grep -qx "country=GB" "$1" && grep -qx "	ssid=486f6d65204e6574776f726b" "$1" && grep -qx "	scan_ssid=1" "$1" &&
			grep -qx "	psk=5f1a1b0c6e2b6dbb8e2f0a6d9a4c7c0f3e1d2b4a69788f0e1d2c3b4a59687f0e" "$1"' _ \
		"$(fbrun 'applied=$applied_path; set_wifi; set_keyboard' > /dev/null; echo "$work/wpa.conf")"
	check "firstboot: Imager's keyboard layout in /etc/default/keyboard" grep -qx 'XKBLAYOUT="gb"' "$work/keyboard"
	fbrun 'applied=$applied_path; scrub' > "$work/fb-scrub.log" 2>&1
	check "firstboot: Imager's files overwritten in place and removed, the merge with them" bash -c '
		[ ! -e "$1/user-data" ] && [ ! -e "$1/network-config" ] && [ ! -e "$1/meta-data" ] && [ ! -e "$2/applied" ] &&
			! grep -aq -e 5f1a1b0c -e "Home Network" "$2/imager-old-clusters" && [ -s "$2/imager-old-clusters" ]' _ "$ib" "$work"
	# The rest of the script (hostname, user, sshd, time zone) on a whole
	# Debian 13 system: a chroot (image/test/firstboot-chroot.sh).
	bash "$here/firstboot-chroot.sh" "$work/host-bin/claude-pi" > "$work/fb-chroot.log" 2>&1
	grep -E '^(ok|FAIL) ' "$work/fb-chroot.log"
	passed=$((passed + $(grep -c '^ok ' "$work/fb-chroot.log")))
	failed=$((failed + $(grep -c '^FAIL ' "$work/fb-chroot.log")))
	grep -q '^firstboot chroot: [0-9]* passed' "$work/fb-chroot.log" ||
		{ bad "firstboot chroot: did not finish"; tail -n 20 "$work/fb-chroot.log"; }
else
	bad "build claude-pi for this host"
	cat "$work/go-host.log"
fi
# ---- the Raspberry Pi Imager manifest (issue 35) --------------------------
# On a stand-in image: Imager's required os_list fields, the sizes and
# SHA-256 of what it names, init_format cloudinit-rpi, and a refusal of a
# URL that would need JSON escaping.
im=$work/imager-manifest
mkdir -p "$im"
head -c 1048576 /dev/urandom > "$im/claude-pi-1.0-arm64.img"
xz -0 -k "$im/claude-pi-1.0-arm64.img"
check "imager-manifest: written for an image" env SOURCE_DATE_EPOCH=1764806400 VERSION=1.0 \
	"$image/lib/imager-manifest" "$im" claude-pi-1.0-arm64 xz https://example.org/images/
check "imager-manifest: Imager's required fields, the right sizes and sums, cloudinit-rpi" python3 -c '
import hashlib, json, os, sys
d = sys.argv[1]
m = json.load(open(d + "/claude-pi-1.0-arm64.rpi-imager-manifest"))
e, = m["os_list"]
img, xz = d + "/claude-pi-1.0-arm64.img", d + "/claude-pi-1.0-arm64.img.xz"
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
missing = [k for k in ("name", "description", "icon", "url", "extract_size", "extract_sha256",
	"image_download_size", "release_date", "devices") if k not in e]
assert not missing, missing
assert e["url"] == "https://example.org/images/claude-pi-1.0-arm64.img.xz", e["url"]
assert e["extract_size"] == os.path.getsize(img) and e["extract_sha256"] == sha(img)
assert e["image_download_size"] == os.path.getsize(xz) and e["image_download_sha256"] == sha(xz)
assert e["init_format"] == "cloudinit-rpi" and e["release_date"] == "2025-12-04", e
assert set(e["devices"]) == {"pi4-64bit", "pi3-64bit"}
assert {t for dev in m["imager"]["devices"] for t in dev["tags"]} == set(e["devices"])
' "$im"
check "imager-manifest: refuses a URL it would have to escape" bash -c '! "$1" "$2" claude-pi-1.0-arm64 xz "https://x/\"y" 2>/dev/null' _ \
	"$image/lib/imager-manifest" "$im"
check "fstab: the boot partition is root's and group claude-pi's only (no umask=0022)" bash -c '
	l=$(grep "^LABEL=RASPIFIRM" "$1") && [[ $l == *fmask=0137* && $l == *dmask=0027* && $l == *gid=claude-pi* && $l == *uid=0* && $l != *umask=* ]]' \
	_ "$image/rootfs/etc/fstab"
check "shell syntax: packaging/deb/quiet, packaging/release-repo.sh" bash -c 'sh -n "$1" && bash -n "$2"' _ \
	"$repo/packaging/deb/quiet" "$repo/packaging/release-repo.sh"
for s in "$repo"/packaging/testlib.sh "$repo"/packaging/apt/test.sh "$repo"/packaging/deb/vmtest/*.sh; do
	check "shell syntax: ${s#"$repo"/}" bash -n "$s"
done
# The quiet check the reboot timer and apt-daily-upgrade wait on.
check "quiet: 0 with no busy marker, 1 with one, 2 on a bad --wait" bash -c '
	m=$1/busy; export CLAUDE_PI_BUSY=$m
	"$2" || exit 1
	printf "prompt\n" > "$m"; "$2" 2> "$1/quiet.err"; [ $? = 1 ] && grep -q "busy (prompt )" "$1/quiet.err" || exit 1
	"$2" --wait x 2>/dev/null; [ $? = 2 ]' _ "$work" "$repo/packaging/deb/quiet"
check "quiet --wait: returns once the marker goes" bash -c '
	m=$1/busy2; export CLAUDE_PI_BUSY=$m; echo speaking > "$m"
	(sleep 2; rm "$m") & "$2" --wait 30 2>/dev/null && ! [ -e "$m" ]' _ "$work" "$repo/packaging/deb/quiet"
for f in "$image"/rootfs/etc/apt/apt.conf.d/*; do
	check "apt.conf syntax: ${f#"$image"/}" apt-config -c "$f" dump
done
check "unattended-upgrades origins: security, point release, updates, Claude_Pi" bash -c '
	apt-config -c "$1" dump Unattended-Upgrade::Origins-Pattern | grep -c "origin=" | grep -qx 4 &&
		apt-config -c "$1" dump | grep -qx "Unattended-Upgrade::Automatic-Reboot \"false\";"' _ "$image/rootfs/etc/apt/apt.conf.d/52claude-pi-unattended"
check "claude-pi-reboot.timer: its calendar parses" bash -c '
	command -v systemd-analyze >/dev/null || { echo "no systemd-analyze"; exit 0; }
	t=$(sed -n "s/^OnCalendar=//p" "$1"); systemd-analyze calendar "$t" | grep -q "Next elapse"' _ "$image/rootfs/etc/systemd/system/claude-pi-reboot.timer"
check "D-Bus policy is well-formed XML" python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' \
	"$repo/packaging/deb/dbus-claude-pi.conf"

# ---- device-tree overlays, on Debian's own Pi device trees ------------
mkdir -p "$work/dtbo"
for dts in "$image"/overlays/*.dts; do
	n=$(basename "$dts" .dts)
	check "overlay $n compiles without warnings" bash -c \
		'dtc -@ -I dts -O dtb -o "$1" "$2" 2> "$1.err" && ! [ -s "$1.err" ] || { cat "$1.err"; exit 1; }' \
		_ "$work/dtbo/$n.dtbo" "$dts"
	# Loaded, or offered commented out (the I2S DAC overlay clashes with
	# the Waveshare HAT's buttons, so Pirate Audio owners turn it on).
	check "config.txt loads or offers overlay $n" grep -qxE "#?dtoverlay=$n" "$image/lib/config.txt"
done
check "every dtoverlay=claude-pi-* in config.txt has a source" bash -c '
	for n in $(sed -n "s/^#\{0,1\}dtoverlay=\(claude-pi-[^,]*\).*/\1/p" "$1/lib/config.txt"); do
		[ -f "$1/overlays/$n.dts" ] || { echo "no overlays/$n.dts"; exit 1; }
	done' _ "$image"

log "arm64 claude-pi, kernel and busybox"
(cd "$repo" && CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -trimpath -buildvcs=false \
	-ldflags "-s -w -X main.version=fasttest" -o "$work/claude-pi" .) > "$work/go.log" 2>&1 ||
	{ bad "build the arm64 claude-pi"; cat "$work/go.log"; finish; }
bash "$here/arm64-debs.sh" "$cache/arm64-trixie" > "$work/debs.log" 2>&1 ||
	{ bad "fetch Debian's arm64 kernel and busybox"; cat "$work/debs.log"; finish; }
# dt_checks BOARD: both overlays applied with fdtoverlay (libfdt, as the
# firmware does) to the Debian kernel's device tree for BOARD.
dt_checks() {
	local b=$1 base="$cache/arm64-trixie/dtbs/$1.dtb" out="$work/dtbo/$1.dtb" spi=/soc/spi@7e204000
	if ! fdtoverlay -i "$base" -o "$out" "$work/dtbo/claude-pi-spi0.dtbo" "$work/dtbo/claude-pi-i2s-dac.dtbo" \
		> "$work/dtbo/$b.log" 2>&1; then
		bad "$b: overlays apply (fdtoverlay)"; sed 's/^/     /' "$work/dtbo/$b.log"; return
	fi
	ok "$b: overlays apply (fdtoverlay)"
	check "$b: spi0 status okay" test "$(fdtget "$out" $spi status)" = okay
	check "$b: spidev at CS0 and CS1" bash -c '
		for cs in 0 1; do
			[ "$(fdtget "$1" "$2/spidev@$cs" compatible)" = rohm,dh2228fv ] &&
				[ "$(fdtget "$1" "$2/spidev@$cs" reg)" = "$cs" ] || exit 1
		done' _ "$out" $spi
	check "$b: spi0 pins are ours (GPIO 9-11 ALT0, CE 8/7 out)" bash -c '
		g=/soc/gpio@7e200000
		[ "$(fdtget "$1" $2 pinctrl-0)" = "$(fdtget "$1" $g/claude-pi-spi0-pins phandle) $(fdtget "$1" $g/claude-pi-spi0-cs-pins phandle)" ] &&
			[ "$(fdtget "$1" $g/claude-pi-spi0-pins brcm,pins)" = "9 10 11" ] &&
			[ "$(fdtget "$1" $g/claude-pi-spi0-cs-pins brcm,pins)" = "8 7" ]' _ "$out" $spi
	check "$b: i2s okay, sound card wired to it and the codec" bash -c '
		c=/claude-pi-dac
		[ "$(fdtget "$1" /soc/i2s@7e203000 status)" = okay ] &&
			[ "$(fdtget "$1" "$c/simple-audio-card,cpu" sound-dai)" = "$(fdtget "$1" /soc/i2s@7e203000 phandle)" ] &&
			[ "$(fdtget "$1" "$c/simple-audio-card,codec" sound-dai)" = "$(fdtget "$1" /claude-pi-dac-codec phandle)" ] &&
			[ "$(fdtget "$1" $c simple-audio-card,bitclock-master)" = "$(fdtget "$1" "$c/simple-audio-card,cpu" phandle)" ] &&
			[ "$(fdtget "$1" $c simple-audio-card,name)" = sndrpihifiberry ]' _ "$out"
	check "$b: the codec is the PCM5102A's (ti,pcm5102a)" test "$(fdtget "$out" /claude-pi-dac-codec compatible)" = ti,pcm5102a
	check "$b: phandles still unique" bash -c '
		dtc -I dtb -O dts "$1" 2>/dev/null | grep "phandle = <" | sort | uniq -d | grep -c . | grep -qx 0' _ "$out"
}
for b in bcm2837-rpi-3-b bcm2837-rpi-3-b-plus bcm2837-rpi-zero-2-w bcm2711-rpi-4-b bcm2711-rpi-400; do
	if [ -s "$cache/arm64-trixie/dtbs/$b.dtb" ]; then
		dt_checks "$b"
	elif [ "${CI:-}" = true ]; then
		bad "$b: Debian's device tree in $cache/arm64-trixie/dtbs"
	else
		echo "skip $b: no $cache/arm64-trixie/dtbs/$b.dtb (arm64-debs.sh puts it there)"
	fi
done

# What image/README.md says about Debian 13's Pi kernel (6.12), checked on
# the kernel package itself.
kconfig=$cache/arm64-trixie/kernel-config
check "6.12 kernel builds the PCM5102A codec, I2S, SPI and spidev" bash -c '
	for c in SND_SOC_PCM5102A SND_BCM2835_SOC_I2S SND_SIMPLE_CARD SPI_BCM2835; do grep -Eqx "CONFIG_$c=[ym]" "$1" || { echo "no CONFIG_$c"; exit 1; }; done
	grep -qx CONFIG_SPI_SPIDEV=y "$1"' _ "$kconfig"
check "6.12 Pi 4/400 trees: I2S still without DMA (README's limit)" bash -c '
	for b in bcm2711-rpi-4-b bcm2711-rpi-400; do ! fdtget "$1/$b.dtb" /soc/i2s@7e203000 dmas 2>/dev/null || exit 1; done
	fdtget "$1/bcm2837-rpi-3-b.dtb" /soc/i2s@7e203000 dmas' _ "$cache/arm64-trixie/dtbs"
check "6.12 has no RP1 driver (Pi 5 header GPIO/SPI), as README says" bash -c '
	! grep -Eq "^CONFIG_(MFD_RP1|PINCTRL_RP1|MISC_RP1)=" "$1" && [ -s "$2/bcm2712-rpi-5-b.dtb" ] &&
		! dtc -I dtb -O dts "$2/bcm2712-rpi-5-b.dtb" 2>/dev/null | grep -q "raspberrypi,rp1"' _ "$kconfig" "$cache/arm64-trixie/dtbs"

ir=$work/initramfs
mkdir -p "$ir/bin" "$ir/etc/claude-pi" "$ir/proc" "$ir/sys" "$ir/dev" "$ir/run" "$ir/tmp" "$ir/var/lib/claude-pi"
cp "$cache/arm64-trixie/busybox" "$ir/bin/busybox"
cp "$work/claude-pi" "$ir/bin/claude-pi"
# The image's own FAT claude-pi.toml, with the board the test needs.
{ echo 'board = "sim"'; cat "$repo/packaging/deb/config.toml"; } > "$ir/etc/claude-pi/config.toml"
# control_group = "claude-pi" needs the group, as on the image.
printf 'root:x:0:0:root:/root:/bin/sh\nclaude-pi:x:100:101::/var/lib/claude-pi:/bin/false\n' > "$ir/etc/passwd"
printf 'root:x:0:\nclaude-pi:x:101:\n' > "$ir/etc/group"
cp "$here/tiny-init" "$ir/init"
chmod 0755 "$ir/init"
(cd "$ir" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) > "$work/initramfs.cpio.gz"
log "booting it under qemu-system-aarch64 -M virt"
timeout 180 qemu-system-aarch64 -M virt -cpu cortex-a72 -m 512 -smp 1 -nographic -no-reboot -nic none \
	-kernel "$cache/arm64-trixie/vmlinuz" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyAMA0 panic=-1 quiet loglevel=3" < /dev/null > "$work/qemu.log" 2>&1
tr -d '\r' < "$work/qemu.log" > "$work/console.log"
sed -n '/^tiny: status >>>/,/^tiny: <<</p' "$work/console.log" | sed 's/^/     /'
check "arm64 claude-pi --version" grep -q '^claude-pi fasttest$' "$work/console.log"
check "arm64 claude-pi starts on the sim board" grep -q '^tiny: status ok' "$work/console.log"
check "claude-pi status lists RUNNING services" bash -c '
	sed -n "/^tiny: status >>>/,/^tiny: <<</p" "$1" | grep -v "^tiny:" > "$1.st"
	[ -s "$1.st" ] && ! grep -qv " RUNNING " "$1.st"' _ "$work/console.log"
[ "$failed" = 0 ] || tail -n 40 "$work/console.log"
finish
