# Shared by upgrade.sh and powercut.sh (sourced): the cached guest, a fresh
# disk, one boot of it running a phase, the signed repository on the host's
# loopback, and the phase scripts' shared helpers.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
cache=${VMTEST_CACHE:-/var/cache/claude-pi}
export PATH="$PATH:/usr/local/go/bin:/usr/sbin:/sbin"
t0=$(date +%s)
say() { echo "== deb-vmtest [$(( $(date +%s) - t0 ))s] $*"; }
# shellcheck source=../../testlib.sh
. "$repo/packaging/testlib.sh"

need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v apt-ftparchive >/dev/null || need+=(apt-utils)
command -v gpg >/dev/null || need+=(gpg)
if [ ${#need[@]} -gt 0 ]; then
	say "installing ${need[*]}"
	apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# TCG by default: /dev/kvm exists on the CI machine but is nested and fails
# ("KVM internal error"); VMTEST_ACCEL=kvm where KVM works.
accel=${VMTEST_ACCEL:-tcg} cpu=max smp=1
[ "$accel" = kvm ] && cpu=host smp=2

guest=$cache/vdeb-$(sha256sum < "$here/build-guest.sh" | cut -c1-12)
if [ ! -s "$guest/root.img" ]; then
	# .ci/run starts upgrade.sh and powercut.sh together: one builds the
	# guest, the other waits for it on the lock.
	mkdir -p "$cache"
	exec 9> "$guest.lock"
	flock 9
	if [ ! -s "$guest/root.img" ]; then
		say "building the guest (cached in $guest; about 2 minutes)"
		"$here/build-guest.sh" "$guest"
	fi
	exec 9>&-
fi

work=$(mktemp -d /var/tmp/claude-pi-deb-vmtest.XXXXXX)
share=$work/share
mkdir -p "$share/out"
server=
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
disk=$work/disk.img
fresh_disk() { cp --sparse=always "$guest/root.img" "$disk"; }

boots=0
# boot PHASE-FILE [CUT-AFTER-READY-SECONDS]: one boot running PHASE-FILE as
# /host/phase.sh. With a cut time, QEMU is killed (SIGKILL: the power goes)
# that many seconds after the phase touches /host/ready (waited for up to
# VMTEST_READY_WAIT seconds from the boot, default 600). Prints the phase's
# log; its exit code is in $work/rc-N (tally counts it).
boot() {
	local phase=$1 cut=${2:-} q i rc
	boots=$((boots + 1))
	echo "$boots" > "$share/boot"
	cp "$phase" "$share/phase.sh"
	cp "$here/phase-lib.sh" "$share/phase-lib.sh"
	rm -f "$share/ready"
	local -a qemu=(qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m 1024 -smp "$smp" \
		-display none -monitor none -no-reboot -serial "file:$work/console-$boots.txt" \
		-drive file="$disk",if=virtio,format=raw,cache=writeback \
		-nic user,model=virtio-net-pci \
		-virtfs local,path="$share",mount_tag=host,security_model=none,id=host \
		-kernel "$guest/vmlinuz" -initrd "$guest/initrd.img" \
		-append "root=/dev/vda ro console=ttyS0 quiet panic=-1 systemd.show_status=0 fsck.mode=auto")
	# A cut kills QEMU itself (no timeout wrapper in between to orphan it).
	if [ -n "$cut" ]; then "${qemu[@]}" </dev/null & else timeout "${VMTEST_BOOT_TIMEOUT:-420}" "${qemu[@]}" </dev/null & fi
	q=$!
	if [ -n "$cut" ]; then
		i=0
		while [ ! -e "$share/ready" ] && kill -0 $q 2>/dev/null && [ $i -lt "$(( ${VMTEST_READY_WAIT:-600} * 10 ))" ]; do sleep 0.1; i=$((i + 1)); done
		sleep "$cut"
		kill -KILL $q 2>/dev/null
		wait $q 2>/dev/null || true
		return 0
	fi
	wait $q || true
	cat "$share/out/phase-$boots.log" 2>/dev/null || true
	rc=$(cat "$share/out/phase-$boots.rc" 2>/dev/null || echo 99)
	echo "$rc" > "$work/rc-$boots"
	[ "$rc" = 0 ] || { echo "---- boot $boots: phase exit $rc; console (last 30 lines)"; tail -n 30 "$work/console-$boots.txt"; }
	return 0
}

# The phase's verdict lines ("ok"/"FAIL") counted into ours.
tally() {
	local f=$share/out/phase-$boots.log
	passed=$((passed + $(grep -c '^ok ' "$f" 2>/dev/null || true)))
	failed=$((failed + $(grep -c '^FAIL ' "$f" 2>/dev/null || true)))
	[ "$(cat "$work/rc-$boots" 2>/dev/null)" = 0 ] || grep -q '^FAIL ' "$f" 2>/dev/null || bad "boot $boots: the phase did not finish"
}

# serve: the share over HTTP on the loopback; the guest reaches it as
# http://10.0.2.2:$port (QEMU's user network).
serve() {
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	(cd "$share" && exec python3 -m http.server --bind 127.0.0.1 "$port" > "$work/http.log" 2>&1) &
	server=$!
	echo "$port" > "$share/port"
}
