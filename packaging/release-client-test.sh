#!/usr/bin/env bash
# The client release's host test (no root): a throwaway project key,
# release-client.sh for linux/amd64 and windows/amd64 (TARGETS; the full
# five take minutes), then: SHA256SUMS verifies with the public key alone
# and matches the archives; the archive's claude-pi runs; the Homebrew
# formula names a URL and a checksum for every macOS (and Linux) build the
# release makes, and the filled one carries this release's checksums;
# `ruby -c` when ruby is there. Ends with "client release: N passed, M failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
export PATH="$PATH:/usr/local/go/bin"
# shellcheck source=testlib.sh
. "$here/testlib.sh"
finish() { echo "client release: $passed passed, $failed failed"; [ "$failed" = 0 ]; exit; }
work=$(mktemp -d /tmp/claude-pi-client-release.XXXXXX)
trap 'rm -rf "$work"' EXIT

formula=$here/homebrew/claude-pi.rb
for t in darwin_arm64 darwin_amd64 linux_arm64 linux_amd64; do
	check "the formula downloads claude-pi_VERSION_$t.tar.gz with its checksum" \
		grep -q "claude-pi_@VERSION@_${t}.tar.gz\"\$" "$formula"
	check "the formula checks @SHA256_${t}@" grep -q "sha256 \"@SHA256_${t}@\"" "$formula"
	check "release-client.sh builds $t by default" grep -q "${t/_//}" "$here/release-client.sh"
done

key=$(newkey "$work/gnupg" "Claude_Pi test release key")
GNUPGHOME=$work/gnupg gpg --batch --export "$key" > "$work/keyring.pgp"
if ! GNUPGHOME=$work/gnupg SIGNING_KEY=$key VERSION=1.2.3 TARGETS="linux/amd64 windows/amd64" \
	"$here/release-client.sh" "$work/out" > "$work/release.log" 2>&1; then
	bad "release-client.sh"; sed 's/^/     /' "$work/release.log" | tail -20; finish
fi
ok "release-client.sh built linux/amd64 and windows/amd64"
check "SHA256SUMS.asc verifies with the public key alone (gpgv)" \
	gpgv --keyring "$work/keyring.pgp" "$work/out/SHA256SUMS.asc" "$work/out/SHA256SUMS"
check "SHA256SUMS matches the archives" bash -c 'cd "$1" && sha256sum -c SHA256SUMS' _ "$work/out"
check "SHA256SUMS names both" bash -c 'grep -q linux_amd64.tar.gz "$1" && grep -q windows_amd64.zip "$1"' _ "$work/out/SHA256SUMS"
echo tampered >> "$work/out/SHA256SUMS"
check "a changed SHA256SUMS fails the signature" bash -c '! gpgv --keyring "$1" "$2.asc" "$2"' _ "$work/keyring.pgp" "$work/out/SHA256SUMS"
tar -C "$work" -xzf "$work/out/claude-pi_1.2.3_linux_amd64.tar.gz"
check "the archive's claude-pi is the computer's, with the version" bash -c \
	'"$1" version | grep -qx "claude-pi 1.2.3 (computer)"' _ "$work/claude-pi_1.2.3_linux_amd64/claude-pi"
sum=$(awk '/linux_amd64/ { print $1 }' "$work/out/SHA256SUMS")
check "the filled formula carries the linux/amd64 checksum and version" bash -c \
	'grep -q "sha256 \"$2\"" "$1" && grep -q "version \"1.2.3\"" "$1" && ! grep -q "@VERSION@" "$1"' _ "$work/out/claude-pi.rb" "$sum"
if command -v ruby >/dev/null; then
	check "ruby -c claude-pi.rb" ruby -c "$work/out/claude-pi.rb"
else
	echo "skip ruby -c (no ruby)"
fi
finish
