#!/usr/bin/env bash
# smoke.sh IMAGE.img: boots a copy of the built image under
# qemu-system-aarch64 -M virt (kernel and initrd taken from its FAT
# partition, the image as a virtio disk, 512 MiB larger so first boot has a
# partition to grow), with the settings a user would put on the FAT
# partition, and claudepi.smoketest on the kernel command line: the image's
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
mtype -i "$fat" ::/firstboot.txt > "$work/firstboot.txt"
cat >> "$work/firstboot.txt" <<'EOF'
hostname = claude-pi-smoke
user = smoke
password = smoke-test-password
wifi_psk = smoke-wifi-secret
ssh_key = ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBwCmJ7sT4JXHVJsxvD7K2mUmC0oC3N6bKQK0ZSpj6xY smoke@test
timezone = Europe/London
EOF
mcopy -o -i "$fat" "$work/firstboot.txt" ::/firstboot.txt

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
# The secrets must be gone from the file and from every byte of the FAT
# partition: a rewrite alone leaves them in the clusters it freed.
scrubbed=no
fat_bytes=$(sfdisk -J "$work/disk.img" | python3 -c 'import json,sys; p=json.load(sys.stdin)["partitiontable"]["partitions"][0]; print(p["start"], p["size"])')
if ! mtype -i "$fat" ::/firstboot.txt | grep -qE '^(password|password_hash|wifi_psk) = ' &&
	! dd if="$work/disk.img" bs=512 skip="${fat_bytes% *}" count="${fat_bytes#* }" status=none |
		grep -aqe smoke-test-password -e smoke-wifi-secret; then
	scrubbed=yes
fi
log "first boot removed the password and WiFi key from firstboot.txt and the FAT partition's bytes: $scrubbed"
if grep -q 'claudepi-smoketest: PASS' "$work/console.log" && [ $scrubbed = yes ]; then
	log "smoke test: PASS"
else
	tail -n 60 "$work/console.log"
	log "smoke test: FAIL"
	exit 1
fi
