#!/usr/bin/env bash
# firstboot-qemu.sh [CLAUDE-PI-BINARY]: the image's first boot, booted. A
# Debian 13 amd64 systemd guest (QEMU, TCG, one vCPU) carrying the image's
# first-boot pieces as image/lib/customize installs them (the script and its
# unit, enabled; fstab; the wired and wireless networkd files; the
# initramfs hook; hostname claude-pi; the .deb's groups; root locked; no
# SSH host keys), on a disk made by image/assemble: partition 1 the FAT
# (RASPIFIRM) holding what Raspberry Pi Imager writes for init_format
# cloudinit-rpi (protocols/firstboot/testdata/full, its ed25519 key swapped
# for one made here) beside the image's firstboot.txt, partition 2 the ext4
# root (RASPIROOT), 256 MiB short of the disk's end for first boot to grow.
#
# Boot 1: the host logs in over SSH as Imager's user with that key (QEMU's
# user network forwards a loopback port to the guest's 22; networkd's
# DHCP) and checks what first boot left: hostname, groups, sudo and sshd's
# password setting as the fixture asks, the time zone and keyboard, the
# grown root, and the Wi-Fi: the guest has two simulated radios
# (mac80211_hwsim), wlan0 the Pi's and wlan1 the test's access point
# (hostapd serving the fixture's hidden network and key, a DHCP server), so
# wpa_supplicant@wlan0 must find the hidden network and finish the WPA
# handshake with Imager's key. Then an ACPI power-off. From the host, on
# the powered-off disk: Imager's files gone from the FAT and their bytes
# overwritten (mtools and the raw partition), the wpa_supplicant file and
# the password hash on the root (debugfs). Boot 2: first boot does not run
# again (same host key, its unit's condition false, nothing rewritten).
#
# Not covered: the Pi's firmware and kernel (smoke.sh boots the real arm64
# image), a FAT written by Imager itself (mtools writes it here), a real
# radio and router (brcmfmac, a regulatory domain that matters), a password
# login (the fixture's hash is not of a known password).
#
# The guest is cached in $cache/firstboot-qemu-KEY (KEY: a hash of the
# functions here that build it, the image files baked into it and the
# mirror; one to two and a half minutes to build on this loaded machine);
# each run copies its disk and writes the current first-boot script and
# claude-pi into the copy. Without an argument claude-pi is built here.
# FIRSTBOOT_QEMU_ANALYZE=1 prints systemd-analyze's times after each login;
# FIRSTBOOT_QEMU_TIMEOUT (default 480) is the seconds a boot may take to a
# login. Prints ok/FAIL lines (packaging/testlib.sh); exits non-zero on any
# FAIL.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
image=$(cd "$here/.." && pwd)
repo=$(cd "$image/.." && pwd)
export PATH="$PATH:/usr/local/go/bin:/usr/sbin:/sbin"

# The image's files the guest takes as they are (their modes set below).
baked=(etc/fstab etc/systemd/network/20-wired.network etc/systemd/network/25-wireless.network
	etc/initramfs-tools/conf.d/claude-pi.conf etc/initramfs-tools/hooks/claude-pi-root
	etc/systemd/system/claude-pi-firstboot.service)

# guest_customize ROOT: mmdebstrap's customize hook (this script, called
# again): what image/lib/customize does that first boot meets.
guest_customize() {
	local root=$1 f
	for f in "${baked[@]}"; do
		install -D -m 0644 "$image/rootfs/$f" "$root/$f"
	done
	chmod 0755 "$root/etc/initramfs-tools/hooks/claude-pi-root"
	install -D -m 0755 "$image/rootfs/usr/lib/claude-pi/firstboot" "$root/usr/lib/claude-pi/firstboot"
	mkdir -p "$root/boot/firmware"
	# The .deb's postinst: gpio, spi and the claude-pi user and group;
	# bluetooth is bluez's, not installed here.
	for g in gpio spi bluetooth claude-pi; do chroot "$root" groupadd -f --system "$g"; done
	chroot "$root" useradd --system --gid claude-pi --home-dir /var/lib/claude-pi --no-create-home \
		--shell /usr/sbin/nologin claude-pi
	chroot "$root" passwd --lock root > /dev/null
	echo claude-pi > "$root/etc/hostname"
	printf '127.0.0.1\tlocalhost\n127.0.1.1\tclaude-pi\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' > "$root/etc/hosts"
	chroot "$root" systemctl enable claude-pi-firstboot.service systemd-networkd.service ssh.service 2>&1
	# Not first boot's business, and slow under TCG.
	chroot "$root" systemctl disable apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
		> /dev/null 2>&1 || true
	rm -f "$root"/etc/ssh/ssh_host_*
	: > "$root/etc/machine-id"
	# The user's router, which the test owns: a second simulated radio
	# (mac80211_hwsim: radio 0 is the Pi's wlan0, radio 1 wlan1) with
	# hostapd serving Imager's hidden network, its key and a DHCP server.
	echo mac80211_hwsim > "$root/etc/modules-load.d/fbqemu-hwsim.conf"
	echo "options mac80211_hwsim radios=2" > "$root/etc/modprobe.d/fbqemu-hwsim.conf"
	printf '%s\n' interface=wlan1 driver=nl80211 "ssid=Home Network" ignore_broadcast_ssid=1 country_code=GB \
		hw_mode=g channel=6 wpa=2 wpa_key_mgmt=WPA-PSK rsn_pairwise=CCMP \
		wpa_psk=5f1a1b0c6e2b6dbb8e2f0a6d9a4c7c0f3e1d2b4a69788f0e1d2c3b4a59687f0e > "$root/etc/hostapd/fbqemu-ap.conf"
	# Before the image's 25-wireless.network, which would match wlan1 too.
	printf '[Match]\nName=wlan1\n\n[Network]\nAddress=192.168.77.1/24\nDHCPServer=yes\n\n[DHCPServer]\nEmitRouter=no\nEmitDNS=no\n' > "$root/etc/systemd/network/10-fbqemu-ap.network"
	cat > "$root/etc/systemd/system/fbqemu-ap.service" << 'UNIT'
[Unit]
Description=firstboot-qemu.sh: the test's Wi-Fi access point on wlan1
BindsTo=sys-subsystem-net-devices-wlan1.device
After=sys-subsystem-net-devices-wlan1.device

[Service]
ExecStart=/usr/sbin/hostapd /etc/hostapd/fbqemu-ap.conf

[Install]
WantedBy=multi-user.target
UNIT
	chroot "$root" systemctl enable fbqemu-ap.service 2>&1
	# The image's initramfs settings and hook (MODULES=list: virtio_blk, ext4).
	chroot "$root" update-initramfs -u -k all
}
if [ "${1:-}" = --customize ]; then
	set -e
	guest_customize "$2"
	exit 0
fi

# shellcheck source=../lib/common.sh
. "$image/lib/common.sh"
cache=${CLAUDE_PI_IMAGE_CACHE:-/var/tmp/claude-pi-image-cache}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
boot_timeout=${FIRSTBOOT_QEMU_TIMEOUT:-480}
ensure_packages qemu-system-x86 openssh-client mmdebstrap mtools dosfstools e2fsprogs fdisk python3 ||
	{ echo "FAIL firstboot qemu: install the prerequisites with apt"; exit 1; }
work=$(mktemp -d /var/tmp/claude-pi-fbqemu.XXXXXX)
qpid=
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2> /dev/null
	[ -z "${port:-}" ] || ssh -q -o ControlPath="$work/ssh-%C" -O exit -p "$port" ada@127.0.0.1 2> /dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# shellcheck source=../../packaging/testlib.sh
. "$repo/packaging/testlib.sh"
t_start=$SECONDS

claude_pi=${1:-}
if [ -z "$claude_pi" ]; then
	claude_pi=$work/claude-pi
	(cd "$repo" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$claude_pi" .) > "$work/go.log" 2>&1 ||
		{ bad "firstboot qemu: build claude-pi for this host"; cat "$work/go.log"; exit 1; }
fi
[ -x "$claude_pi" ] || { bad "firstboot qemu: $claude_pi is not an executable claude-pi"; exit 1; }

# ---- the cached guest --------------------------------------------------------
build_guest() {
	local tmp=$guest.tmp kv t0=$SECONDS
	rm -rf "$tmp" && mkdir -p "$tmp/boot"
	# The image's packages that first boot and the login use (the amd64
	# kernel in place of the Pi's), hostapd for the test's access point;
	# no GPU, media, sound or real Wi-Fi drivers (mac80211_hwsim is kept).
	FBQ_SELF=$here/firstboot-qemu.sh mmdebstrap --variant=minbase --mode=root --quiet \
		--include=systemd-sysv,udev,kmod,zstd,initramfs-tools,linux-image-amd64,dbus,openssh-server,wpasupplicant,sudo,tzdata,fdisk,e2fsprogs,dosfstools,iproute2,hostname,hostapd \
		--aptopt='APT::Install-Recommends "false"' --aptopt='Acquire::Languages "none"' \
		--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/lib/firmware/*' \
		--dpkgopt='path-exclude=/usr/lib/modules/*/kernel/drivers/gpu/*' \
		--dpkgopt='path-exclude=/usr/lib/modules/*/kernel/drivers/media/*' \
		--dpkgopt='path-exclude=/usr/lib/modules/*/kernel/drivers/net/wireless/*' \
		--dpkgopt='path-include=/usr/lib/modules/*/kernel/drivers/net/wireless/virtual/*' \
		--dpkgopt='path-exclude=/usr/lib/modules/*/kernel/drivers/infiniband/*' \
		--dpkgopt='path-exclude=/usr/lib/modules/*/kernel/sound/*' \
		--customize-hook='"$FBQ_SELF" --customize "$1"' \
		trixie "$tmp/root" "deb $MIRROR trixie main" > "$tmp/mmdebstrap.log" 2>&1 ||
		{ tail -n 30 "$tmp/mmdebstrap.log"; return 1; }
	kv=$(ls "$tmp/root/usr/lib/modules" | head -n1)
	cp "$tmp/root/boot/vmlinuz-$kv" "$tmp/vmlinuz" && cp "$tmp/root/boot/initrd.img-$kv" "$tmp/initrd.img" || return 1
	chroot "$tmp/root" dpkg-query -W -f='${Package}=${Version} ' systemd openssh-server wpasupplicant > "$tmp/versions.txt"
	echo "kernel=$kv" >> "$tmp/versions.txt"
	rm -rf "$tmp"/root/boot/vmlinuz* "$tmp"/root/boot/initrd* "$tmp"/root/boot/config-* "$tmp"/root/boot/System.map-* \
		"$tmp"/root/var/lib/apt/lists/* "$tmp"/root/var/cache/apt/*.bin
	# The image's layout, by the image's assembler: an empty FAT (each run
	# fills it) and the root.
	SOURCE_DATE_EPOCH=$(date +%s) "$image/assemble" --boot "$tmp/boot" --root "$tmp/root" \
		--exclude-root boot/firmware --boot-mib 64 "$tmp/disk.img" > "$tmp/assemble.log" 2>&1 ||
		{ tail -n 20 "$tmp/assemble.log"; return 1; }
	rm -rf "$tmp/root" "$tmp/boot"
	rm -rf "$guest" && mv "$tmp" "$guest"
	# Older guests (this script or the image files since changed): 270 MB each.
	find "$cache" -maxdepth 1 -name 'firstboot-qemu-*' ! -name "$(basename "$guest")*" -exec rm -rf {} +
	echo "firstboot qemu: guest built in $((SECONDS - t0))s ($(cat "$guest/versions.txt"))"
}
# The key: what builds the guest (bash prints the two functions without
# their comments) and what it bakes in; test-only edits keep the guest.
key=$({
	declare -f guest_customize build_guest
	echo "${baked[*]}"
	for f in "${baked[@]}"; do cat "$image/rootfs/$f"; done
	echo "$MIRROR"
} | sha256sum | cut -c1-12)
guest=$cache/firstboot-qemu-$key
if [ ! -s "$guest/disk.img" ]; then
	mkdir -p "$cache"
	exec 9> "$guest.lock"
	flock 9
	if [ ! -s "$guest/disk.img" ]; then
		log "building the first-boot guest (cached in $guest; a few minutes)"
		build_guest || { bad "firstboot qemu: build the guest (mmdebstrap, assemble)"; exit 1; }
	fi
	exec 9>&-
fi

# ---- this run's card -----------------------------------------------------------
disk=$work/disk.img
cp --sparse=always "$guest/disk.img" "$disk" && truncate -s +256M "$disk" && sfdisk -J "$disk" > "$work/pt.json" ||
	{ bad "firstboot qemu: copy the guest's disk from $guest to $work (space?)"; exit 1; }
part_start() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["partitiontable"]["partitions"][int(sys.argv[2])]["start"] * 512)' "$work/pt.json" "$1"; }
fat="$disk@@$(part_start 0)"
ext="$disk?offset=$(part_start 1)"
export MTOOLS_SKIP_CHECK=1

# The first-boot script and claude-pi of this tree, into the copy's root.
cat > "$work/inject" << EOF
cd /usr/lib/claude-pi
rm firstboot
write $image/rootfs/usr/lib/claude-pi/firstboot firstboot
sif firstboot mode 0100755
cd /usr/bin
rm claude-pi
write $claude_pi claude-pi
sif claude-pi mode 0100755
EOF
debugfs -w -f "$work/inject" "$ext" > "$work/inject.log" 2>&1 || { bad "firstboot qemu: debugfs -w on the copy"; cat "$work/inject.log"; exit 1; }
dfs() { debugfs -R "$1" "$ext" 2> /dev/null; }
check "firstboot qemu: this tree's first-boot script and claude-pi on the guest's root" bash -c '
	cmp <(debugfs -R "cat /usr/lib/claude-pi/firstboot" "$1" 2>/dev/null) "$2" &&
		cmp <(debugfs -R "cat /usr/bin/claude-pi" "$1" 2>/dev/null) "$3"' _ "$ext" \
	"$image/rootfs/usr/lib/claude-pi/firstboot" "$claude_pi"

# What Imager writes (the fixture, with a key made now so that the host can
# log in), beside the image's firstboot.txt.
ssh-keygen -q -t ed25519 -N '' -C ada@firstboot-qemu -f "$work/id"
pub=$(cat "$work/id.pub")
mkdir -p "$work/fat"
cp "$repo"/protocols/firstboot/testdata/full/{user-data,network-config,meta-data} "$work/fat/"
sed -i "s|\"ssh-ed25519 [^\"]* ada@laptop\"|\"$pub\"|" "$work/fat/user-data"
check "firstboot qemu: the fixture's user-data with only its ed25519 key swapped" bash -c '
	[ "$(diff "$1" "$2" | grep -c "^[<>]")" = 2 ] && grep -qF "$3" "$2"' _ \
	"$repo/protocols/firstboot/testdata/full/user-data" "$work/fat/user-data" "$pub"
cp "$image/rootfs/boot/firmware/firstboot.txt" "$work/fat/"
mcopy -i "$fat" "$work"/fat/{firstboot.txt,user-data,network-config,meta-data} ::/ ||
	{ bad "firstboot qemu: mcopy Imager's files onto the card's FAT"; exit 1; }
# fat_secrets: how many of five strings of Imager's files (the Wi-Fi key,
# the hash, this run's key, the header, the instance id) the FAT
# partition's raw bytes hold, deleted files' clusters included.
fat_secrets() {
	dd if="$disk" bs=1M skip=$(($(part_start 0) / 1048576)) count=64 status=none |
		grep -aoF -e 5f1a1b0c6e2b6dbb8e2f0a6d9a4c7c0f3e1d2b4a69788f0e1d2c3b4a59687f0e -e "\$y\$j9T\$Hq0TcMFJ" \
			-e "$(cut -d" " -f2 "$work/id.pub")" -e "#cloud-config" -e rpi-imager-1764870000123 | sort -u | wc -l
}
check "firstboot qemu: before the boot, all five on the raw partition (what the scrub check looks for)" test "$(fat_secrets)" = 5

# ---- booting ---------------------------------------------------------------------
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# gssh ARGS...: a command on the guest as Imager's user, with the key. The
# first login of a boot stays open as the master the later ones share (a
# key exchange under TCG takes seconds); it ends with the guest.
gssh() {
	timeout "${ssh_secs:-60}" ssh -q -p "$port" -i "$work/id" -o IdentitiesOnly=yes -o BatchMode=yes -o ConnectTimeout=10 \
		-o ControlMaster=auto -o ControlPath="$work/ssh-%C" -o ControlPersist=yes \
		-o UserKnownHostsFile="$work/known_hosts" -o StrictHostKeyChecking="${strict:-yes}" \
		-o LogLevel=ERROR ada@127.0.0.1 "$@"
}
# gssh_slow: gssh for a command that waits on the guest for up to 2 minutes.
gssh_slow() { ssh_secs=200 gssh "$@"; }
boots=0 boot_secs=()
# boot: starts QEMU on the disk and waits until gssh logs in (boot_secs
# gets the seconds that took); 1 when QEMU stops first or time runs out.
boot() {
	local t0=$SECONDS
	boots=$((boots + 1))
	console=$work/console-$boots.txt qmp=$work/qmp-$boots.sock
	qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 -display none -monitor none -no-reboot \
		-serial "file:$console" -qmp "unix:$qmp,server=on,wait=off" \
		-drive file="$disk",if=virtio,format=raw,cache=writeback \
		-nic "user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:$port-:22" -device virtio-rng-pci \
		-kernel "$guest/vmlinuz" -initrd "$guest/initrd.img" \
		-append "root=LABEL=RASPIROOT rw rootwait fsck.repair=yes net.ifnames=0 console=ttyS0 panic=-1 mitigations=off quiet systemd.show_status=0" \
		< /dev/null > "$work/qemu-$boots.log" 2>&1 &
	qpid=$!
	until gssh true 2> "$work/ssh-wait.err"; do
		kill -0 "$qpid" 2> /dev/null || { echo "QEMU stopped: $(cat "$work/qemu-$boots.log")"; return 1; }
		[ $((SECONDS - t0)) -lt "$boot_timeout" ] || { echo "no SSH login in ${boot_timeout}s: $(cat "$work/ssh-wait.err")"; return 1; }
		sleep 3
	done
	boot_secs+=($((SECONDS - t0)))
}
# power_off: the power button (ACPI; logind powers off), then waits for QEMU.
power_off() {
	local i=0
	python3 - "$qmp" << 'PY' || echo "QMP: no answer"
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.readline()
for cmd in ("qmp_capabilities", "system_powerdown"):
    f.write(json.dumps({"execute": cmd}) + "\n")
    f.flush()
    while "return" not in (r := json.loads(f.readline())):
        if "error" in r:
            sys.exit(r["error"]["desc"])
PY
	while kill -0 "$qpid" 2> /dev/null && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done
	if kill -0 "$qpid" 2> /dev/null; then
		kill "$qpid"
		wait "$qpid" 2> /dev/null
		qpid=
		return 1
	fi
	wait "$qpid" 2> /dev/null
	qpid=
}
# console_tail [N]: the guest console's last N lines, without the
# terminal queries agetty sends.
console_tail() { tr -d '\r' < "$console" | sed -E 's/\x1b\[[0-9;?!]*[a-zA-Z]//g; s/^/     /' | tail -n "${1:-40}"; }

log "boot 1: first boot (TCG, one vCPU; a few minutes on a loaded machine)"
if ! strict=accept-new boot > "$work/boot.err" 2>&1; then
	bad "firstboot qemu: boot 1, log in as ada with the key: $(cat "$work/boot.err")"
	echo "     guest console, last lines:"
	console_tail
	exit 1
fi
[ -z "${FIRSTBOOT_QEMU_ANALYZE:-}" ] || gssh 'systemd-analyze time; systemd-analyze blame | head -n 25; systemd-analyze critical-chain ssh.service'
ok "firstboot qemu: boot 1, ada logs in with the key Imager's user-data carried (${boot_secs[0]}s after power-on)"
check "firstboot qemu: hostname deskpi, Imager's over firstboot.txt's claude-pi, in /etc/hosts too" gssh '
	[ "$(hostname)" = deskpi ] && [ "$(cat /etc/hostname)" = deskpi ] && grep -qP "^127\.0\.1\.1\tdeskpi$" /etc/hosts'
check "firstboot qemu: ada in sudo, claude-pi, adm and systemd-journal; the key file ada's own, 0600" gssh '
	g=" $(id -nG) "; for w in sudo claude-pi adm systemd-journal gpio spi bluetooth; do [[ $g == *" $w "* ]] || exit 1; done
	[ "$(stat -c %U:%a ~/.ssh/authorized_keys)" = ada:600 ] && grep -q "^ssh-ed25519 " ~/.ssh/authorized_keys'
check "firstboot qemu: sudo asks ada for the password (the fixture's sudo: null)" gssh '
	! sudo -n true 2> /tmp/sudo.err && grep -q "a password is required" /tmp/sudo.err'
check "firstboot qemu: sshd offers passwords besides keys (the fixture's ssh_pwauth: true)" bash -c '
	timeout 60 ssh -p "$1" -o BatchMode=yes -o PreferredAuthentications=none -o UserKnownHostsFile="$2" \
		-o StrictHostKeyChecking=yes ada@127.0.0.1 true 2>&1 | grep -q "Permission denied (publickey,password)"' _ \
	"$port" "$work/known_hosts"
check "firstboot qemu: time zone Europe/London, keyboard gb" gssh '
	[ "$(readlink /etc/localtime)" = /usr/share/zoneinfo/Europe/London ] && [ "$(cat /etc/timezone)" = Europe/London ] &&
		case "$(date +%Z)" in GMT | BST) ;; *) exit 1 ;; esac && grep -qx "XKBLAYOUT=\"gb\"" /etc/default/keyboard'
# The network as the Pi's wlan0 meets it: hidden (found only with
# scan_ssid), Imager's key (else the handshake fails), DHCP from the image's
# 25-wireless.network.
check "firstboot qemu: wlan0 joins Imager's hidden network with its key and gets an address (hostapd on a simulated radio)" gssh_slow '
	while [ $SECONDS -lt 120 ]; do
		j=$(journalctl -b -o cat -u wpa_supplicant@wlan0.service)
		grep -qF "Trying to associate with 02:00:00:00:01:00 (SSID='"'Home Network'"'" <<< "$j" &&
			grep -q "WPA: Key negotiation completed" <<< "$j" && grep -q "CTRL-EVENT-CONNECTED" <<< "$j" &&
			networkctl status wlan0 | grep -q "Address: 192\.168\.77\..* (DHCPv4 via 192\.168\.77\.1)" && exit 0
		sleep 2
	done
	echo "$j"; networkctl status wlan0; exit 1'
check "firstboot qemu: the root partition grown to the disk's end" gssh '
	b=/sys/class/block; [ $(($(cat $b/vda2/start) + $(cat $b/vda2/size))) = "$(cat $b/vda/size)" ]'
gssh 'journalctl -b -o cat -u claude-pi-firstboot' > "$work/fb-journal.txt" 2>&1
check "firstboot qemu: first boot's journal: the SSH host key ssh showed made there, done without a warning" bash -c '
	fp=$(ssh-keygen -lf "$1/known_hosts" | awk "/ED25519/ { print \$2 }")
	grep -qF "made SSH host keys: $fp" "$1/fb-journal.txt" && grep -qx "claude-pi-firstboot: done (0 warning(s))" "$1/fb-journal.txt" &&
		grep -q "overwrote and removed 3 of Imager" "$1/fb-journal.txt" || { cat "$1/fb-journal.txt"; exit 1; }' _ "$work"
fb_run=$(gssh 'systemctl show -p ExecMainStartTimestampMonotonic -p ExecMainExitTimestampMonotonic claude-pi-firstboot.service' |
	awk -F= '{ v[$1] = $2 } END { if (v["ExecMainExitTimestampMonotonic"] > 0) printf "%.1f", (v["ExecMainExitTimestampMonotonic"] - v["ExecMainStartTimestampMonotonic"]) / 1e6 }')
if power_off; then ok "firstboot qemu: boot 1 powers off on the power button"; else bad "firstboot qemu: boot 1 did not power off in 120 s"; console_tail 20; fi

# ---- the card, read on the host ------------------------------------------------
check "firstboot qemu: Imager's user-data, network-config and meta-data gone from the FAT; firstboot.txt kept" bash -c '
	mdir -b -i "$1" ::/ > "$2/fat-list" || exit 1; cat "$2/fat-list"
	! grep -qi -e user-data -e network-config -e meta-data "$2/fat-list" && grep -qix "::/firstboot.txt" "$2/fat-list"' _ "$fat" "$work"
check "firstboot qemu: not a byte of them left on the partition (the Wi-Fi key, the hash, the run's key...)" \
	test "$(fat_secrets)" = 0
check "firstboot qemu: firstboot.txt as shipped (it had no secret to scrub)" bash -c '
	mtype -i "$1" ::/firstboot.txt | tr -d "\r" | cmp - "$2"' _ "$fat" "$image/rootfs/boot/firmware/firstboot.txt"
check "firstboot qemu: on the root: the hidden network, its key and country, 0600 root's" bash -c '
	debugfs -R "cat /etc/wpa_supplicant/wpa_supplicant-wlan0.conf" "$1" 2>/dev/null > "$2/wpa.conf"
	grep -qx "country=GB" "$2/wpa.conf" && grep -qxP "\tssid=486f6d65204e6574776f726b" "$2/wpa.conf" &&
		grep -qxP "\tscan_ssid=1" "$2/wpa.conf" &&
		grep -qxP "\tpsk=5f1a1b0c6e2b6dbb8e2f0a6d9a4c7c0f3e1d2b4a69788f0e1d2c3b4a59687f0e" "$2/wpa.conf" &&
		debugfs -R "stat /etc/wpa_supplicant/wpa_supplicant-wlan0.conf" "$1" 2>/dev/null |
			grep -qE "Mode: +0600"' _ "$ext" "$work"
check "firstboot qemu: on the root: ada's password hash, Imager's; no keys-only sshd file" bash -c '
	debugfs -R "cat /etc/shadow" "$1" 2>/dev/null | grep -qF "ada:\$y\$j9T\$Hq0TcMFJrNvkI8bJ5f7wL/\$0bYvZ3mCq1qk1wD7rHqzNQn8m0K3Vh8jzYtJ4nKpZ.A:" &&
		! debugfs -R "stat /etc/ssh/sshd_config.d/claude-pi.conf" "$1" 2>&1 | grep -q "Inode:"' _ "$ext"
dfs 'cat /etc/claude-pi/firstboot.done' > "$work/done-1"
mtype -i "$fat" ::/firstboot.txt > "$work/firstboot.txt-1"

# ---- boot 2: no second first boot -------------------------------------------------
log "boot 2: first boot must not run again"
if boot > "$work/boot.err" 2>&1; then
	[ -z "${FIRSTBOOT_QEMU_ANALYZE:-}" ] || gssh 'systemd-analyze time; systemd-analyze blame | head -n 25; systemd-analyze critical-chain ssh.service'
	ok "firstboot qemu: boot 2, ada logs in, the host key unchanged (${boot_secs[1]}s after power-on)"
	check "firstboot qemu: boot 2 skips first boot (its unit's condition), hostname still deskpi" gssh '
		[ "$(systemctl show -p ConditionResult --value claude-pi-firstboot.service)" = no ] &&
			! journalctl -b -o cat -u claude-pi-firstboot | grep -q "claude-pi-firstboot: starting" && [ "$(hostname)" = deskpi ]'
	if power_off; then ok "firstboot qemu: boot 2 powers off"; else bad "firstboot qemu: boot 2 did not power off in 120 s"; console_tail 20; fi
	check "firstboot qemu: boot 2 left the done marker and firstboot.txt as they were" bash -c '
		[ -s "$1/done-1" ] && debugfs -R "cat /etc/claude-pi/firstboot.done" "$2" 2>/dev/null | cmp - "$1/done-1" &&
			mtype -i "$3" ::/firstboot.txt | cmp - "$1/firstboot.txt-1"' _ "$work" "$ext" "$fat"
else
	bad "firstboot qemu: boot 2, ada logs in with the same host key: $(cat "$work/boot.err")"
	console_tail
fi
[ "$failed" = 0 ] || { echo "     guest console (boot $boots), last lines:"; console_tail 30; }
echo "firstboot qemu: boots to login ${boot_secs[*]/%/s}, first-boot script ${fb_run:-?}s, $((SECONDS - t_start))s in all"
echo "firstboot qemu: $passed passed, $failed failed"
[ "$failed" = 0 ]
