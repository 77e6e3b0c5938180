#!/usr/bin/env bash
# Builds the computer's claude-pi (cmd/claude-pi: hook, pair, mcp; no
# appliance) for every platform people run Claude Code on, with a
# SHA256SUMS signed by the project key and the Homebrew formula filled in:
#
#   SIGNING_KEY=<fingerprint> packaging/release-client.sh OUT
#
# OUT gets claude-pi_<version>_<os>_<arch>.tar.gz (the binary `claude-pi`,
# LICENSE), claude-pi_<version>_windows_amd64.zip, SHA256SUMS,
# SHA256SUMS.asc (detached, armored: gpg --verify SHA256SUMS.asc) and
# claude-pi.rb (packaging/homebrew/claude-pi.rb with this release's URLs
# and checksums, for the tap). Upload them all to the release at
# RELEASE_URL/v<version>/ (RELEASING.md).
#
# Environment:
#   SIGNING_KEY   the key to sign with (fingerprint), required
#   GNUPGHOME     gpg's home holding that secret key (default: gpg's)
#   VERSION       the version (default: packaging/version)
#   RELEASE_URL   where releases are downloaded from (default: the GitHub
#                 project's releases/download)
#   TARGETS       os/arch list (default: all five; tests build fewer)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
die() { printf 'release-client: %s\n' "$*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: release-client.sh OUT"
out=$(mkdir -p "$1" && cd "$1" && pwd)
[ -n "${SIGNING_KEY:-}" ] || die "SIGNING_KEY is not set: the fingerprint of the project's signing key (RELEASING.md)"
command -v gpg >/dev/null || die "gpg not found: apt install gpg"
command -v go >/dev/null || die "go not found: install Go 1.26"
gpg --batch --list-secret-keys "$SIGNING_KEY" >/dev/null 2>&1 ||
	die "no secret key $SIGNING_KEY in ${GNUPGHOME:-~/.gnupg}: set GNUPGHOME or SIGNING_KEY"
VERSION=$("$here/version")
case "$VERSION" in *[!A-Za-z0-9.+~-]*) die "VERSION=$VERSION: use only letters, digits and . + ~ -" ;; esac
RELEASE_URL=${RELEASE_URL:-https://github.com/claude-pi/claude-pi/releases/download}
TARGETS=${TARGETS:-darwin/arm64 darwin/amd64 linux/amd64 linux/arm64 windows/amd64}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
files=()
for t in $TARGETS; do
	os=${t%/*} arch=${t#*/}
	name=claude-pi_${VERSION}_${os}_${arch}
	exe=claude-pi
	[ "$os" = windows ] && exe=claude-pi.exe
	mkdir -p "$work/$name"
	echo "== $name"
	(cd "$repo" && GOOS=$os GOARCH=$arch CGO_ENABLED=0 go build -trimpath \
		-ldflags "-s -w -X main.version=$VERSION" -o "$work/$name/$exe" ./cmd/claude-pi)
	cp "$repo/LICENSE" "$work/$name/"
	touch -d "@$SOURCE_DATE_EPOCH" "$work/$name" "$work/$name"/*
	if [ "$os" = windows ]; then
		# zip from Python's standard library: no zip(1) needed.
		(cd "$work" && python3 -m zipfile -c "$out/$name.zip" "$name/$exe" "$name/LICENSE")
		files+=("$name.zip")
	else
		tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
			-czf "$out/$name.tar.gz" "$name"
		files+=("$name.tar.gz")
	fi
done
(cd "$out" && sha256sum "${files[@]}" > SHA256SUMS)
gpg --batch --yes --quiet --local-user "$SIGNING_KEY" --digest-algo SHA512 --armor --detach-sign -o "$out/SHA256SUMS.asc" "$out/SHA256SUMS"

# The formula: each @SHA256_<os>_<arch>@ becomes that archive's checksum.
sums=()
while read -r sum file; do
	t=${file#claude-pi_"${VERSION}"_}
	t=${t%.tar.gz}
	sums+=(-e "s|@SHA256_${t}@|$sum|")
done < "$out/SHA256SUMS"
sed -e "s|@VERSION@|$VERSION|g" -e "s|@RELEASE_URL@|$RELEASE_URL|g" "${sums[@]}" \
	"$here/homebrew/claude-pi.rb" > "$out/claude-pi.rb"
echo "release-client: $(ls "$out" | wc -l) files in $out"
