#!/usr/bin/env bash
# arm64-debs.sh DIR: puts Debian 13 (trixie)'s arm64 kernel (vmlinuz) and a
# static arm64 busybox in DIR, for the tiny-initramfs QEMU boot, and the
# kernel's Raspberry Pi device trees in DIR/dtbs and its config in
# DIR/kernel-config, for the overlay and kernel tests. Uses a
# private apt state (the host's apt configuration and architectures are left
# alone) and keeps the .debs, so later runs download nothing.
set -euo pipefail
dir=$1
mirror=${MIRROR:-http://deb.debian.org/debian}
suite=${SUITE:-trixie}
mkdir -p "$dir"
dtbs="bcm2837-rpi-3-b bcm2837-rpi-3-b-plus bcm2837-rpi-zero-2-w bcm2711-rpi-4-b bcm2711-rpi-400 bcm2712-rpi-5-b"
have_dtbs() {
	local d
	for d in $dtbs; do [ -s "$dir/dtbs/$d.dtb" ] || return 1; done
}
[ -s "$dir/vmlinuz" ] && [ -x "$dir/busybox" ] && [ -s "$dir/kernel-config" ] && have_dtbs && exit 0

apt_dir="$dir/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/etc/preferences.d" "$apt_dir/etc/apt.conf.d"
: > "$apt_dir/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" > "$apt_dir/sources.list"
apt=(-q -o APT::Architecture=arm64 -o APT::Architectures::=arm64
	-o Dir::State="$apt_dir" -o Dir::State::Lists="$apt_dir/lists" -o Dir::State::status="$apt_dir/status"
	-o Dir::Cache="$apt_dir" -o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts="$apt_dir/etc"
	-o Dir::Etc::Preferences="$apt_dir/etc/preferences" -o Dir::Etc::PreferencesParts="$apt_dir/etc/preferences.d"
	-o Dir::Etc::Parts="$apt_dir/etc/apt.conf.d" -o Debug::NoLocking=1 -o Acquire::Languages=none -o APT::Sandbox::User=root)
apt-get "${apt[@]}" update >/dev/null
kpkg=$(apt-cache "${apt[@]}" depends linux-image-arm64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*-arm64\)$/\1/p' | head -n1)
[ -n "$kpkg" ] || { echo "arm64-debs: cannot resolve linux-image-arm64" >&2; exit 1; }
(cd "$apt_dir/archives" && apt-get "${apt[@]}" download busybox-static "$kpkg" >/dev/null)
x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
for deb in "$apt_dir"/archives/busybox-static_*.deb "$apt_dir"/archives/"$kpkg"_*.deb; do
	dpkg-deb -x "$deb" "$x"
done
bb=$x/usr/bin/busybox; [ -x "$bb" ] || bb=$x/bin/busybox # trixie moved it to /usr
cp "$bb" "$dir/busybox.new" && mv "$dir/busybox.new" "$dir/busybox"
cp "$(ls "$x"/boot/vmlinuz-* | head -n1)" "$dir/vmlinuz.new" && mv "$dir/vmlinuz.new" "$dir/vmlinuz"
cp "$(ls "$x"/boot/config-* | head -n1)" "$dir/kernel-config.new" && mv "$dir/kernel-config.new" "$dir/kernel-config"
mkdir -p "$dir/dtbs"
for d in $dtbs; do
	cp "$x"/usr/lib/linux-image-*/broadcom/"$d.dtb" "$dir/dtbs/$d.dtb.new" && mv "$dir/dtbs/$d.dtb.new" "$dir/dtbs/$d.dtb"
done
echo "arm64-debs: $kpkg, $(basename "$(ls "$apt_dir"/archives/busybox-static_*.deb)")"
