#!/usr/bin/env bash
# Runs .ci/run on a freshly made Debian 12 machine (issue 32.7), as root:
#
#   .ci/fresh-root.sh [REF]     REF: the commit to test (default: main)
#
# 1. mmdebstrap (installed with apt when missing) makes a minbase Debian 12
#    root: the fewest packages a Debian machine has, so .ci/packages has to
#    name everything else. Its sources are Debian's own: bookworm,
#    bookworm-updates and bookworm-security.
# 2. A clean clone of this repository at REF goes to /root/claude-pi in it.
# 3. Go: the CI machine has Go 1.26 at /usr/local/go, installed by hand from
#    go.dev/dl, not by apt; this copies the host's /usr/local/go into the
#    root, which is that install.
# 4. .ci/run runs in the root through chroot, with /proc, /sys and /dev
#    (rbind) mounted, a tmpfs /run, the host's resolv.conf, CI=true and
#    CHECK_TOOLS_STRICT=1 (every tool must come from the package .ci/tools
#    names). A policy-rc.d refuses to start services, so installing dbus or
#    supervisor in the root starts no daemon beside the host's. The host's
#    local CA certificates (/usr/local/share/ca-certificates: a TLS-inspecting
#    egress) are copied in; nothing else of the host's configuration is.
#
# Prints the wall time of the bootstrap and of the whole run; .ci/run prints
# its stages' own. CI_STOP_AFTER and CI_GO_TEST pass through to .ci/run:
#   CI_STOP_AFTER=go-test CI_GO_TEST=./drivers/ble/bluez/ .ci/fresh-root.sh ci
# proves the install list (apt install, the installed-tools check, go vet, a
# go test using dbus-daemon) in a few minutes, without the hour-long rest.
# Measured 2026-12-05 on the shared 2-core machine, the whole run with empty
# caches (every guest and chroot built in the root): tools 1 s, apt-install
# 74 s, go-vet 46, cross-build 32, claude-code-cli 17, go-test 186, bluez-vm
# 366 (BlueZ 5.66 and 5.82, 11 scenarios each), firmware 118, image-fast 105,
# deb 598 (its three base chroots built side by side; 840 one after the
# other), client-release 28; there it found gpg-agent and then lsb-release
# missing from .ci/packages. apt-repo (61 s), upgrade.sh (471 s, its guest
# built) and powercut.sh 2 (497 s) then passed, one after the other, in a kept
# root (FRESH_ROOT_KEEP=1, CI_STOP_AFTER=apt-install, run by hand).
# 2026-12-05 03:26, the whole .ci/run end to end in a fresh root (main with
# the bluetoothd check-files change): exit 0 in 2207 s; apt-install 78,
# go-vet 47, cross-build 32, claude-code-cli 18, go-test 188, bluez-vm 378
# (22 of 22 PASS), firmware 123, image-fast 118, deb 632, client-release 30,
# apt-repo 35, deb-vm 527 (upgrade 38 passed, powercut 40 passed), the
# first-boot guest (22 passed) in the background. The run before it stopped
# at cross-build (a darwin-only signature), in 165 s.
# The root is deleted afterwards unless FRESH_ROOT_KEEP=1 (then its path is
# printed; a second run with FRESH_ROOT_DIR=that path reuses it, no longer fresh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
ref=${1:-main}
mirror=${MIRROR:-http://deb.debian.org/debian}
t0=$(date +%s)
say() { echo "== fresh-root [$(( $(date +%s) - t0 ))s] $*"; }
die() { echo "fresh-root: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (mmdebstrap, chroot, mounts)"
[ -x /usr/local/go/bin/go ] || die "no /usr/local/go/bin/go: install Go 1.26 there (go.dev/dl), as on the CI machine"
git -C "$src" rev-parse -q --verify "$ref^{commit}" >/dev/null || die "$ref: no such commit in $src"
if ! command -v mmdebstrap >/dev/null; then
	say "installing mmdebstrap with apt"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
fi

root=${FRESH_ROOT_DIR:-}
made=
if [ -z "$root" ]; then
	root=$(mktemp -d /var/tmp/claude-pi-fresh-root.XXXXXX)
	made=1
fi
mounts=()
cleanup() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -R "${mounts[$i]}" 2>/dev/null || umount -Rl "${mounts[$i]}" 2>/dev/null || true; done
	# Never delete through a mount (a bound /dev would take the host's).
	if [ -n "$made" ] && [ -z "${FRESH_ROOT_KEEP:-}" ]; then
		if findmnt -rn -o TARGET | grep -q "^$root/"; then
			echo "fresh-root: $root still has mounts; left in place" >&2
		else
			rm -rf "$root"
		fi
	else
		echo "fresh-root: the root is kept in $root"
	fi
}
trap cleanup EXIT

if [ -n "$made" ]; then
	say "mmdebstrap: Debian 12 (bookworm) minbase into $root"
	tb=$(date +%s)
	mmdebstrap --variant=minbase --mode=root --quiet \
		--aptopt='Acquire::Languages "none"' \
		bookworm "$root" \
		"deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
		"deb http://security.debian.org/debian-security bookworm-security main"
	say "bootstrap: $(( $(date +%s) - tb ))s, $(du -sh "$root" | cut -f1)"
	printf '#!/bin/sh\n# fresh-root.sh: no daemon starts inside the test root.\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
	chmod 0755 "$root/usr/sbin/policy-rc.d"
	# A machine whose egress inspects TLS trusts that proxy's CA through
	# /usr/local/share/ca-certificates (this one does); a CI machine there has
	# it too, so the root gets the same, and ca-certificates, once .ci/run
	# installs it, adds them to the root's store.
	if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
		say "the host's local CA certificates: $(cd /usr/local/share/ca-certificates && echo *.crt)"
		mkdir -p "$root/usr/local/share/ca-certificates"
		cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
	fi
	say "Go: the host's /usr/local/go ($(/usr/local/go/bin/go version | cut -d' ' -f3)), as the CI machine has it"
	cp -a /usr/local/go "$root/usr/local/go"
	say "a clean clone of $src at $ref"
	git clone -q --no-hardlinks "$src" "$root/root/claude-pi"
	git -C "$root/root/claude-pi" checkout -q --detach "$ref"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"

# The root is bound onto itself, so that inside it "/" is a mount point, as
# on a real machine: otherwise `unshare --mount` (image/test/firstboot-chroot.sh)
# fails with "cannot change root filesystem propagation: Invalid argument".
mount --bind "$root" "$root" && mount --make-private "$root" && mounts+=("$root")
mount -t proc proc "$root/proc" && mounts+=("$root/proc")
mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys" && mounts+=("$root/sys")
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" && mounts+=("$root/dev")
mount -t tmpfs -o mode=0755 tmpfs "$root/run" && mounts+=("$root/run")

say ".ci/run in the root (${CI_STOP_AFTER:+CI_STOP_AFTER=$CI_STOP_AFTER }${CI_GO_TEST:+CI_GO_TEST=$CI_GO_TEST})"
tr=$(date +%s)
rc=0
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 CI=true CHECK_TOOLS_STRICT=1 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	${CI_STOP_AFTER:+CI_STOP_AFTER="$CI_STOP_AFTER"} ${CI_GO_TEST:+CI_GO_TEST="$CI_GO_TEST"} \
	${CI_SKIP_BLUEZ_VM:+CI_SKIP_BLUEZ_VM="$CI_SKIP_BLUEZ_VM"} \
	bash -c 'cd /root/claude-pi && ./.ci/run' || rc=$?
say ".ci/run: exit $rc after $(( $(date +%s) - tr ))s; fresh-root total $(( $(date +%s) - t0 ))s"
exit "$rc"
