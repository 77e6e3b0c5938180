#!/usr/bin/env bash
# The serial VM test: drivers/serial's DTR/RTS handling against a real
# kernel's USB stack (issue 28). The guest is the BlueZ VM test's bookworm
# guest (its kernel and rootfs, built by drivers/ble/bluez/vmtest/
# build-guest.sh when missing) plus the USB modules of the same kernel,
# taken from Debian's linux-image package (apt-get download: run on a
# Debian host that has the suite's archive). dummy_hcd joins a configfs
# CDC-ACM gadget with the CoreS3's ids to cdc_acm; vmtest (main.go) opens
# the port with every dtr/rts setting and judges the SET_CONTROL_LINE_STATE
# requests usbmon saw. Prints one verdict per setting; exits 1 on any FAIL.
# About a minute under TCG.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
cache=${VMTEST_CACHE:-/var/cache/claude-pi}
suite=bookworm
bluez=$repo/drivers/ble/bluez/vmtest
hash=$(sha256sum < "$bluez/build-guest.sh" | cut -c1-12)
guest=$cache/vble-$suite-$hash
[ -s "$guest/rootfs.cpio" ] || "$bluez/build-guest.sh" "$suite" "$guest"
kv=$(sed -n 's/.*kernel=\([^ ]*\).*/\1/p' "$guest/versions.txt")
mods=$cache/vusb-$kv
usb="usb-common usbcore usbmon configfs udc-core dummy_hcd libcomposite u_serial usb_f_acm cdc-acm"
if [ ! -s "$mods/cdc-acm.ko" ]; then
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -q "linux-image-$kv" >/dev/null && dpkg-deb -x linux-image-*.deb x)
	mkdir -p "$mods.tmp"
	for m in $usb; do
		f=$(find "$tmp/x/lib/modules/$kv" -name "$m.ko*" | head -n1)
		[ -n "$f" ] || { echo "serial vmtest: $m not in linux-image-$kv" >&2; exit 1; }
		cp "$f" "$mods.tmp/$m.ko"
	done
	rm -rf "$tmp" "$mods" && mv "$mods.tmp" "$mods"
fi
work=$(mktemp -d /tmp/claude-pi-serial-vmtest.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/share" "$work/extra/usbvm"
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/share/vmtest" ./drivers/serial/vmtest)
cp "$here/init" "$work/extra/init" && cp "$mods"/*.ko "$work/extra/usbvm/"
(cd "$work/extra" && find . | cpio -o -H newc --quiet) > "$work/extra.cpio"
cat "$guest/rootfs.cpio" "$work/extra.cpio" > "$work/initrd"
timeout "${VMTEST_GUEST_TIMEOUT:-300}" qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 \
	-display none -monitor none -no-reboot -nic none -serial "file:$work/console" \
	-kernel "$guest/vmlinuz" -initrd "$work/initrd" -append "console=ttyS0 quiet panic=-1" \
	-virtfs local,path="$work/share",mount_tag=host,security_model=none,id=host </dev/null
sed "s/^/serial vmtest (kernel $kv): /" "$work/share/verdicts.txt" 2>/dev/null || true
if [ "$(cat "$work/share/rc" 2>/dev/null)" != 0 ]; then
	echo "serial vmtest: FAIL" >&2
	tail -n 30 "$work/console" >&2
	exit 1
fi
echo "serial vmtest: PASS"
