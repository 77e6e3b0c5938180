#!/usr/bin/env bash
# The apt repository's host test (no root, no VM, ~20 s): a throwaway
# project key, claude-pi .debs of two versions (amd64), release-repo.sh twice
# (the second adds a version), then the host's own apt, with private state
# directories, against the repository served over HTTP on the loopback:
# signed repo accepted and the newest version the candidate; a repository
# signed by another key, a tampered Packages file and an unsigned one are
# each refused. Ends with "apt repo: N passed, M failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export PATH="$PATH:/usr/local/go/bin:/usr/sbin:/sbin"
# shellcheck source=../testlib.sh
. "$repo/packaging/testlib.sh"
finish() { echo "apt repo: $passed passed, $failed failed"; [ "$failed" = 0 ]; exit; }
# What this calls; .ci/run installs each (.ci/check-tools.sh reads these lines).
missing() { bad "$1 not found: ./.ci/run installs it (.ci/packages, .ci/tools)"; }
command -v apt-ftparchive >/dev/null || missing apt-ftparchive
command -v gpg >/dev/null || missing gpg
command -v gpgv >/dev/null || missing gpgv
command -v xz >/dev/null || missing xz
command -v python3 >/dev/null || missing python3
command -v dpkg-deb >/dev/null || missing dpkg-deb
[ "$failed" = 0 ] || finish

work=$(mktemp -d /tmp/claude-pi-apt-test.XXXXXX)
server=
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

key=$(newkey "$work/gnupg" "Claude_Pi test archive key")
other=$(newkey "$work/gnupg-other" "Someone else")
check "throwaway keys made (ed25519)" test -n "$key" -a -n "$other"
GNUPGHOME=$work/gnupg gpg --batch --export "$key" > "$work/keyring.pgp"

v1=$("$repo/packaging/version") v2=$v1.1
OUT=$work/debs ARCHIVE_KEYRING=$work/keyring.pgp "$repo/packaging/deb/build" amd64 > "$work/build1.log" 2>&1 &&
	VERSION=$v2 OUT=$work/debs ARCHIVE_KEYRING=$work/keyring.pgp "$repo/packaging/deb/build" amd64 > "$work/build2.log" 2>&1 ||
	{ bad "build the amd64 .debs"; cat "$work"/build*.log; finish; }
check ".deb ships the keyring under /usr/share/keyrings" bash -c '
	dpkg-deb --fsys-tarfile "$1" | tar -xO ./usr/share/keyrings/claude-pi-archive-keyring.pgp | cmp - "$2"' \
	_ "$work/debs/claude-pi_${v1}_amd64.deb" "$work/keyring.pgp"

rel() { REPO_ARCHS="arm64 armhf amd64" GNUPGHOME=$work/gnupg SIGNING_KEY=$key "$repo/packaging/release-repo.sh" "$@"; }
pool_has() { [ "$(ls "$work/www/pool/main/c/claude-pi/" | grep -c '\.deb$')" = "$1" ]; }
check "release-repo.sh: version $v1" rel "$work/www" "$work/debs/claude-pi_${v1}_amd64.deb"
check "release-repo.sh: adds $v2, keeps $v1" eval 'rel "$work/www" "$work/debs/claude-pi_${v2}_amd64.deb" && pool_has 2'
d=$work/www/dists/stable
check "Release: Origin, Suite, architectures, SHA256 of each Packages" bash -c '
	grep -qx "Origin: Claude_Pi" "$1/Release" && grep -qx "Suite: stable" "$1/Release" &&
		grep -qx "Architectures: arm64 armhf amd64" "$1/Release" &&
		for a in arm64 armhf amd64; do grep -q " main/binary-$a/Packages.xz$" "$1/Release" || exit 1; done' _ "$d"
check "InRelease and Release.gpg verify with the public key alone (gpgv)" bash -c '
	gpgv --keyring "$1" "$2/InRelease" && gpgv --keyring "$1" "$2/Release.gpg" "$2/Release"' _ "$work/keyring.pgp" "$d"
check "published: keyring and a deb822 .sources with Signed-By" bash -c '
	cmp "$1/claude-pi-archive-keyring.pgp" "$2" &&
		grep -qx "Signed-By: /usr/share/keyrings/claude-pi-archive-keyring.pgp" "$1/claude-pi.sources"' _ "$work/www" "$work/keyring.pgp"
check "an architecture outside REPO_ARCHS is refused" bash -c '! REPO_ARCHS=arm64 GNUPGHOME=$1 SIGNING_KEY=$2 "$3" "$4/x" "$5"' \
	_ "$work/gnupg" "$key" "$repo/packaging/release-repo.sh" "$work" "$work/debs/claude-pi_${v1}_amd64.deb"

# The host's apt, private state: only our source, the keyring where the
# .sources says (rewritten to $work).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$work" && exec python3 -m http.server --bind 127.0.0.1 "$port" > "$work/http.log" 2>&1) &
server=$!
for _ in $(seq 50); do python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])))' "$port" 2>/dev/null && break; sleep 0.1; done
a=$work/apt
mkdir -p "$a/etc/sources.list.d" "$a/etc/apt.conf.d" "$a/etc/preferences.d" "$a/etc/trusted.gpg.d" "$a/lists/partial" "$a/cache/archives/partial"
: > "$a/status"
apt_() {
	apt-get -q -o Dir::Etc="$a/etc" -o Dir::State="$a" -o Dir::State::Lists="$a/lists" -o Dir::State::status="$a/status" \
		-o Dir::Cache="$a/cache" -o Debug::NoLocking=1 -o APT::Architecture=amd64 -o APT::Architectures::=amd64 \
		-o Acquire::Languages=none -o APT::Sandbox::User=root "$@"
}
sources() { # sources DIR KEYRING: our .sources for http://127.0.0.1:PORT/DIR
	sed -e "s|@URL@|http://127.0.0.1:$port/$1|" -e "s|@SUITE@|stable|" -e "s|@COMPONENT@|main|" \
		-e "s|/usr/share/keyrings/claude-pi-archive-keyring.pgp|$2|" "$here/claude-pi.sources.in" \
		> "$a/etc/sources.list.d/claude-pi.sources"
	rm -rf "$a/lists" && mkdir -p "$a/lists/partial"
}
sources www "$work/keyring.pgp"
updated() { apt_ update > "$work/update.log" 2>&1; local rc=$?; cat "$work/update.log"; [ $rc = 0 ] && ! grep -q "^[WE]:" "$work/update.log"; }
check "apt-get update accepts the signed repository (no warnings)" updated
policy() {
	apt-cache -o Dir::Etc="$a/etc" -o Dir::State="$a" -o Dir::State::Lists="$a/lists" -o Dir::State::status="$a/status" \
		-o Dir::Cache="$a/cache" -o APT::Architecture=amd64 -o APT::Architectures::=amd64 policy claude-pi
}
check "apt-cache policy: candidate $v2, both versions listed" eval 'policy | tee /dev/stderr | grep -q "Candidate: $v2$" && policy | grep -q " $v1 "'
mkdir -p "$work/dl"
check "apt-get download fetches $v2 and checks its hash" eval '(cd "$work/dl" && apt_ download claude-pi) &&
	cmp "$work/dl"/claude-pi_*_amd64.deb "$work/debs/claude-pi_${v2}_amd64.deb"'

# Refusals. Each is a copy of the repository, broken one way.
refused() { # refused DIR WANT: apt-get update of DIR fails, saying WANT, and lists nothing from it
	sources "$1" "$work/keyring.pgp"
	apt_ update > "$work/$1.log" 2>&1
	cat "$work/$1.log"
	grep -q "$2" "$work/$1.log" && ! ls "$a/lists" | grep -q Packages
}
cp -a "$work/www" "$work/other"
GNUPGHOME=$work/gnupg-other gpg --batch --yes --quiet --local-user "$other" --clearsign -o "$work/other/dists/stable/InRelease" "$work/other/dists/stable/Release"
GNUPGHOME=$work/gnupg-other gpg --batch --yes --quiet --local-user "$other" --armor --detach-sign -o "$work/other/dists/stable/Release.gpg" "$work/other/dists/stable/Release"
check "signed by another key: refused (NO_PUBKEY / not signed)" refused other "NO_PUBKEY\|is not signed\|Missing key\|not signed\|signature"
cp -a "$work/www" "$work/tampered"
sed -i 's/^Version: .*/Version: 99:9/' "$work/tampered/dists/stable/main/binary-amd64/Packages"
xz -9 -c "$work/tampered/dists/stable/main/binary-amd64/Packages" > "$work/tampered/dists/stable/main/binary-amd64/Packages.xz"
check "tampered Packages: refused (hash mismatch)" refused tampered "Hash Sum mismatch\|File has unexpected size\|Hashes of expected file"
cp -a "$work/www" "$work/unsigned"
rm "$work/unsigned/dists/stable/InRelease" "$work/unsigned/dists/stable/Release.gpg"
check "unsigned: refused" refused unsigned "is not signed\|does not have a Release file\|NO_PUBKEY"
finish
