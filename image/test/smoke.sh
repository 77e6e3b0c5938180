#!/usr/bin/env bash
# smoke.sh IMAGE.img: boots a copy of the built image under
# qemu-system-aarch64 -M virt (kernel and initrd taken from its FAT
# partition, the image as a virtio disk, 512 MiB larger so first boot has a
# partition to grow), with the settings a user would put on the FAT
# partition the way Raspberry Pi Imager 2.x writes them (its cloud-init
# user-data, network-config and meta-data, and its cmdline.txt additions)
# beside the image's firstboot.txt, and claudepi.smoketest on the kernel
# command line: the image's
# claude-pi-smoketest.service prints `supervisorctl status` on the console
# and powers off. Prints that output and PASS or FAIL; exit status to match.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/common.sh
. "$here/../lib/common.sh"
img=${1:?usage: smoke.sh IMAGE.img}
[ -f "$img" ] || die "$img: no such image"
ensure_packages qemu-system-arm mtools
work=$(mktemp -d /var/tmp/claude-pi-smoke.XXXXXX)
trap 'rm -rf "$work"' EXIT
export MTOOLS_SKIP_CHECK=1

log "copying $img"
cp --sparse=always "$img" "$work/disk.img"
truncate -s +512M "$work/disk.img"
fat="$work/disk.img@@1M"

# What a user edits on the boot partition before the first boot.
mtype -i "$fat" ::/claude-pi.toml | sed 's/^# board = .*/board = "sim"/' > "$work/claude-pi.toml"
grep -q '^board = "sim"' "$work/claude-pi.toml" || die "claude-pi.toml on the image has no '# board = ' line to set"
mcopy -o -i "$fat" "$work/claude-pi.toml" ::/claude-pi.toml
# firstboot.txt stays as shipped (hostname = claude-pi): Imager's must win.
# Imager's files, in the shapes its CustomisationGenerator writes
# (protocols/firstboot/testdata holds more): a password hash, a key, ssh
# password login off, a hidden network with its PBKDF2 key, a country, a
# time zone and a keyboard.
smoke_psk=5e1f0c2a9b7d3e4f6a8b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f
cat > "$work/user-data" <<'EOF'
#cloud-config
manage_resolv_conf: false

hostname: claude-pi-smoke
manage_etc_hosts: true
packages:
- avahi-daemon
apt:
  preserve_sources_list: true
  conf: |
    Acquire {
      Check-Date "false";
    };
timezone: Europe/London
keyboard:
  model: pc105
  layout: "gb"
user:
  name: smoke
  shell: /bin/bash
  lock_passwd: false
  passwd: "$6$smokesalt$JNHCP8PfnDDZxqXHKg24uIIWFHTTyuNY6A5c/k5syqsmggm5jp6VgQj4altQRMnISPLhtZ23h9DxCsNlO.VXU/"
  ssh_authorized_keys:
    - "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBwCmJ7sT4JXHVJsxvD7K2mUmC0oC3N6bKQK0ZSpj6xY smoke@test"
  sudo: null
ssh_pwauth: false
runcmd:
  - [ systemctl, enable, --now, ssh ]
EOF
cat > "$work/network-config" <<EOF
network:
  version: 2
  ethernets:
    eth0:
      dhcp4: true
      dhcp6: true
      optional: true
  wifis:
    wlan0:
      dhcp4: true
      regulatory-domain: "GB"
      access-points:
        "Smoke Net":
          hidden: true
          password: "$smoke_psk"
      optional: true
EOF
printf 'instance-id: rpi-imager-1764806400000\n' > "$work/meta-data"
# Imager appends to cmdline.txt's one line (no newline after).
{ mtype -i "$fat" ::/cmdline.txt | tr -d '\n'; printf ' cfg80211.ieee80211_regdom=GB ds=nocloud;i=rpi-imager-1764806400000'; } > "$work/cmdline.txt"
for f in user-data network-config meta-data cmdline.txt; do
	mcopy -o -i "$fat" "$work/$f" "::/$f"
done

kernel=$(mdir -b -i "$fat" ::/ | sed -n 's|^::/\(vmlinuz-.*\)$|\1|p' | head -n1)
initrd=$(mdir -b -i "$fat" ::/ | sed -n 's|^::/\(initrd.img-.*\)$|\1|p' | head -n1)
[ -n "$kernel" ] && [ -n "$initrd" ] || die "no vmlinuz-*/initrd.img-* on the FAT partition"
mcopy -i "$fat" "::/$kernel" "$work/vmlinuz"
mcopy -i "$fat" "::/$initrd" "$work/initrd"

log "booting $kernel under qemu-system-aarch64 -M virt (TCG)"
t0=$(date +%s)
rc=0
timeout "${SMOKE_TIMEOUT:-900}" qemu-system-aarch64 -M virt -cpu cortex-a72 -m 1024 -smp 2 \
	-nographic -no-reboot -nic none \
	-drive "file=$work/disk.img,if=virtio,format=raw" \
	-kernel "$work/vmlinuz" -initrd "$work/initrd" \
	-append "console=ttyAMA0 root=LABEL=RASPIROOT rw rootwait fsck.repair=yes net.ifnames=0 claudepi.smoketest" \
	< /dev/null > "$work/console.raw" 2>&1 || rc=$?
tr -d '\r' < "$work/console.raw" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' > "$work/console.log"
cp "$work/console.log" "${SMOKE_LOG:-/var/tmp/claude-pi-smoke-console.log}"
log "qemu exited ($rc) after $(elapsed_since "$t0")"
grep -E 'claudepi-smoketest|claude-pi-firstboot' "$work/console.log" | sed 's/^.*\(claude-pi-firstboot\|claudepi-smoketest\)/\1/' || true
sed -n '/claudepi-smoketest: supervisorctl status >>>/,/claudepi-smoketest: <<</p' "$work/console.log" |
	grep -v 'claudepi-smoketest' | sed 's/^.*\] //' | sed 's/^/    /'
# The secrets must be gone from the partition and from every byte of it:
# a removal or rewrite alone leaves them in the clusters it freed.
scrubbed=no
fat_bytes=$(sfdisk -J "$work/disk.img" | python3 -c 'import json,sys; p=json.load(sys.stdin)["partitiontable"]["partitions"][0]; print(p["start"], p["size"])')
if ! mdir -b -i "$fat" ::/ | grep -qe '::/user-data' -e '::/network-config' &&
	! dd if="$work/disk.img" bs=512 skip="${fat_bytes% *}" count="${fat_bytes#* }" status=none |
		grep -aqe smokesalt -e "$smoke_psk"; then
	scrubbed=yes
fi
log "first boot removed Imager's password hash and Wi-Fi key from the FAT partition, files and bytes: $scrubbed"
# What the guest reported of Imager's settings (the smoketest unit's
# "claudepi-smoketest: imager" line).
applied=no
imager_line=$(grep -o 'claudepi-smoketest: imager .*' "$work/console.log" || true)
want='hostname claude-pi-smoke, user smoke in sudo claude-pi, key BwCmJ7sT4JXH, password set, sshd passwordauthentication no, wifi ssid=536d6f6b65204e6574 scan_ssid=1 country=GB psk=5e1f0c2a, timezone Europe/London, keyboard gb'
[ "${imager_line#claudepi-smoketest: imager }" != "$want" ] || applied=yes
log "Imager's settings applied over firstboot.txt's: $applied"
[ $applied = yes ] || printf '    got:  %s\n    want: %s\n' "${imager_line#claudepi-smoketest: imager }" "$want"
if grep -q 'claudepi-smoketest: PASS' "$work/console.log" && [ $scrubbed = yes ] && [ $applied = yes ]; then
	log "smoke test: PASS"
else
	tail -n 60 "$work/console.log"
	log "smoke test: FAIL"
	exit 1
fi
