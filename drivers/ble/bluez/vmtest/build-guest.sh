#!/usr/bin/env bash
# build-guest.sh SUITE DIR: a guest for the BlueZ VM test, from Debian's own
# packages. DIR gets vmlinuz (the suite's linux-image-amd64: the cloud
# flavour has no Bluetooth) and rootfs.cpio (an initramfs: mmdebstrap of the
# suite with bluez, bluez-test-tools for btvirt, dbus, and only the kernel
# modules the test loads). run.sh calls it when DIR is missing; DIR's name
# carries a hash of this file, so editing it rebuilds.
set -euo pipefail
suite=$1 dir=$2
mirror=${VMTEST_MIRROR:-http://deb.debian.org/debian}
tmp=$dir.tmp
cd /tmp # mmdebstrap needs a working directory that outlives the build
rm -rf "$tmp" && mkdir -p "$tmp"
t0=$(date +%s)
# update-initramfs is diverted to true before the kernel is installed: the
# guest boots the rootfs itself as its initramfs, so building one is waste.
mmdebstrap --variant=essential --mode=root --quiet \
	--include=mount,bluez,bluez-test-tools,dbus,kmod,procps,linux-image-amd64 \
	--essential-hook='chroot "$1" dpkg-divert --quiet --local --rename --add /usr/sbin/update-initramfs; ln -sf /bin/true "$1/usr/sbin/update-initramfs"' \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/lib/firmware/*' \
	"$suite" "$tmp/root" "deb $mirror $suite main"
root=$tmp/root
kv=$(ls "$root/usr/lib/modules" | head -n1)
grep -qx 'CONFIG_BT_HCIVHCI=m' "$root/boot/config-$kv" || { echo "build-guest: kernel $kv has no hci_vhci" >&2; exit 1; }
cp "$root/boot/vmlinuz-$kv" "$tmp/vmlinuz"
rm -rf "$root/boot"/*
# Keep Bluetooth, all of crypto (LE SC needs ecdh, cmac, ccm and a default
# RNG; btvirt needs AF_ALG) and whatever the modules init loads depend on,
# resolved against the whole tree before the rest goes.
mods=$root/usr/lib/modules/$kv
want="hci_vhci hci_uart bluetooth virtio_pci 9pnet_virtio 9p drbg jitterentropy_rng af_alg algif_hash algif_skcipher ecdh_generic cmac ccm"
mkdir "$tmp/keep"
{
	(cd "$mods" && find kernel/net/bluetooth kernel/drivers/bluetooth kernel/crypto kernel/arch/x86/crypto -name '*.ko*')
	for m in $want; do chroot "$root" modprobe -S "$kv" --show-depends "$m"; done |
		awk '$1 == "insmod" { sub(".*/lib/modules/[^/]*/", "", $2); print $2 }'
} | sort -u | while read -r f; do
	mkdir -p "$tmp/keep/$(dirname "$f")" && cp "$mods/$f" "$tmp/keep/$f"
done
rm -rf "$mods/kernel" && mv "$tmp/keep/kernel" "$mods/kernel" && rmdir "$tmp/keep"
chroot "$root" depmod "$kv"
rm -f "$root/usr/lib/udev/hwdb.bin"
{
	echo "suite=$suite kernel=$kv"
	chroot "$root" dpkg-query -W -f='${Package}=${Version}\n' bluez bluez-test-tools dbus
} > "$tmp/versions.txt"
(cd "$root" && find . | cpio -o -H newc --quiet) > "$tmp/rootfs.cpio"
rm -rf "$root"
rm -rf "$dir" && mv "$tmp" "$dir"
echo "build-guest: $suite in $(( $(date +%s) - t0 ))s, rootfs $(du -h "$dir/rootfs.cpio" | cut -f1): $(tr '\n' ' ' < "$dir/versions.txt")"
