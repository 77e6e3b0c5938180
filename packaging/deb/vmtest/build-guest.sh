#!/usr/bin/env bash
# build-guest.sh DIR: the guest for the .deb's VM tests (upgrade.sh,
# powercut.sh): Debian 13 amd64 booting systemd from an ext4 disk, with
# Debian's apt and unattended-upgrades, dbus, bluez (and btvirt, for a
# controller that makes bluetoothd write its own files), supervisor (its
# daemon masked, as on the image) and claude-pi's other Depends, but not
# claude-pi. DIR gets vmlinuz,
# initrd.img and root.img (raw ext4, mounted as on the image:
# image/rootfs/etc/fstab's options). At boot, vmtest-guest.service mounts
# the host's 9p share on /host and runs /host/phase.sh, then powers off.
# DIR's name carries a hash of this file: editing it rebuilds.
set -euo pipefail
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
mirror=${VMTEST_MIRROR:-http://deb.debian.org/debian}
tmp=$dir.tmp
cd /tmp
rm -rf "$tmp" && mkdir -p "$tmp"
t0=$(date +%s)
mmdebstrap --variant=minbase --mode=root --quiet \
	--include=systemd-sysv,udev,kmod,linux-image-amd64,initramfs-tools,dbus,bluez,supervisor,e2fsprogs,iproute2,procps,adduser,python3,unattended-upgrades,bluez-test-tools \
	--aptopt='APT::Install-Recommends "false"' --aptopt='Acquire::Languages "none"' \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/lib/firmware/*' \
	--customize-hook='echo "MODULES=list" > "$1/etc/initramfs-tools/conf.d/vmtest"' \
	--customize-hook='printf "virtio_pci\nvirtio_blk\next4\n" >> "$1/etc/initramfs-tools/modules"' \
	--customize-hook='chroot "$1" update-initramfs -u -k all >/dev/null' \
	trixie "$tmp/root" "deb $mirror trixie main"
root=$tmp/root
kv=$(ls "$root/usr/lib/modules" | head -n1)
cp "$root/boot/vmlinuz-$kv" "$tmp/vmlinuz"
cp "$root/boot/initrd.img-$kv" "$tmp/initrd.img"
echo vmtest > "$root/etc/hostname"
# The image's mount options for the root (what the power-cut test judges).
opts=$(awk '$2 == "/" { print $4 }' "$here/../../../image/rootfs/etc/fstab")
printf '/dev/vda / ext4 %s 0 1\n' "${opts:-defaults}" > "$root/etc/fstab"
: > "$root/etc/machine-id"
chroot "$root" passwd -d root >/dev/null
chroot "$root" systemctl mask supervisor.service >/dev/null 2>&1
chroot "$root" systemctl disable apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer >/dev/null 2>&1 || true
mkdir -p "$root/etc/systemd/network" "$root/host"
printf '[Match]\nName=en* eth*\n\n[Network]\nDHCP=ipv4\n' > "$root/etc/systemd/network/20-wired.network"
chroot "$root" systemctl enable systemd-networkd.service >/dev/null 2>&1
cat > "$root/usr/local/sbin/vmtest-guest" <<'G'
#!/bin/sh
# Runs the host's /host/phase.sh once per boot; its output and exit code go
# back over the share. The phase may power off itself (or be cut).
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 host /host || { echo "vmtest-guest: no 9p share" > /dev/console; systemctl poweroff; exit 1; }
mkdir -p /host/out
n=$(cat /host/boot 2>/dev/null || echo 0)
sh /host/phase.sh > "/host/out/phase-$n.log" 2>&1
echo $? > "/host/out/phase-$n.rc"
sync
systemctl poweroff
G
chmod 0755 "$root/usr/local/sbin/vmtest-guest"
cat > "$root/etc/systemd/system/vmtest-guest.service" <<'G'
[Unit]
Description=claude-pi .deb VM test: run the host's phase
After=network-online.target systemd-networkd-wait-online.service
Wants=network-online.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/vmtest-guest
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
G
chroot "$root" systemctl enable vmtest-guest.service systemd-networkd-wait-online.service >/dev/null 2>&1
chroot "$root" dpkg-query -W -f='${Package}=${Version}\n' apt systemd supervisor bluez e2fsprogs > "$tmp/versions.txt"
echo "kernel=$kv" >> "$tmp/versions.txt"
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/boot/*
mkfs.ext4 -q -F -L vmroot -d "$root" "$tmp/root.img" 3G
rm -rf "$root"
rm -rf "$dir" && mv "$tmp" "$dir"
echo "build-guest: in $(( $(date +%s) - t0 ))s: $(tr '\n' ' ' < "$dir/versions.txt")"
