#!/usr/bin/env bash
# Idle SD-card writes (issue 27), as root: one boot of the VM tests' guest
# installs claude-pi (board sim, LAN bridge on), lets it settle for a
# minute, then reads /sys/block/vda/stat's write counters over WINDOW
# seconds (default 600) with the root mounted as the image mounts it
# (image/rootfs/etc/fstab), and again with commit=60. Prints writes and KiB
# an hour for each.
#   idle.sh [WINDOW]
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "idle.sh: run as root"; exit 1; }
window=${1:-600}
export VMTEST_BOOT_TIMEOUT=$((2 * window + 900))
v1=$("$repo/packaging/version")
VERSION=$v1 OUT=$share "$repo/packaging/deb/build" amd64 > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
fresh_disk
cat > "$work/idle-phase.sh" <<P
. /host/phase-lib.sh
dpkg -i /host/claude-pi_${v1}_amd64.deb > /dev/null
sed -i 's/^# board = .*/board = "sim"/; s/^# listen = .*/listen = ":7787"/' /etc/claude-pi/config.toml
systemctl start claude-pi
check "every service RUNNING" running 90
sleep 60
# measure LABEL: the window's writes, from the block device's own counters
# (field 5: write requests completed, field 7: sectors written).
measure() {
	sync; read -r _ _ _ _ w0 _ s0 _ < /sys/block/vda/stat
	sleep $window
	read -r _ _ _ _ w1 _ s1 _ < /sys/block/vda/stat
	echo "idle \$1: \$((w1 - w0)) writes, \$(( (s1 - s0) / 2 )) KiB in ${window}s = \$(( (w1 - w0) * 3600 / $window )) writes/hour, \$(( (s1 - s0) / 2 * 3600 / $window )) KiB/hour (\$(findmnt -no OPTIONS /))"
}
measure "image fstab"
mount -o remount,commit=60 /
measure "commit=60"
echo "journal: \$(journalctl --disk-usage 2>&1)"
ls -la /var/log/journal 2>&1 | head -3
P
boot "$work/idle-phase.sh" | tee "$work/idle.log"
grep '^idle' "$work/idle.log"
