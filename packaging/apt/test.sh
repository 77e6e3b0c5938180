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
# Check-Valid-Until and Check-Date on, as on a Pi: a machine behind a
# mirror may turn them off in its own apt.conf.d, which apt still reads.
apt_() {
	apt-get -q -o Acquire::Check-Valid-Until=true -o Acquire::Check-Date=true -o Dir::Etc="$a/etc" -o Dir::State="$a" -o Dir::State::Lists="$a/lists" -o Dir::State::status="$a/status" \
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
# grep > /dev/null, not grep -q, after a tee: grep -q would stop reading at
# its match and tee, writing on, die of SIGPIPE (a failure under pipefail).
check "apt-cache policy: candidate $v2, both versions listed" eval 'policy | tee /dev/stderr | grep "Candidate: $v2$" > /dev/null && policy | grep -q " $v1 "'
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
# ---- issue 33.5: the repository vouches for claude-pi, and only for it ----
# Valid-Until: a Release is good for REPO_VALID_DAYS, an old one replayed is
# refused, and release-repo.sh --resign makes the same pool valid again.
days=$(. "$repo/packaging/release.conf" && echo "$REPO_VALID_DAYS")
check "Release: Valid-Until is its Date + $days days" bash -c '
	d=$(sed -n "s/^Date: //p" "$1/Release") v=$(sed -n "s/^Valid-Until: //p" "$1/Release")
	[ -n "$v" ] && [ $(( $(date -d "$v" +%s) - $(date -d "$d" +%s) )) = $(( $2 * 86400 )) ]' _ "$d" "$days"
stamp() { LC_ALL=C date -u -d "$1" '+%a, %d %b %Y %H:%M:%S UTC'; }
signed_as_project() { # signed_as_project DIST: sign DIST/Release again with the project key
	GNUPGHOME=$work/gnupg gpg --batch --yes --quiet --local-user "$key" --clearsign -o "$1/InRelease" "$1/Release"
	GNUPGHOME=$work/gnupg gpg --batch --yes --quiet --local-user "$key" --armor --detach-sign -o "$1/Release.gpg" "$1/Release"
}
cp -a "$work/www" "$work/expired"
sed -i -e "s/^Date: .*/Date: $(stamp "-$((days + 1)) days")/" -e "s/^Valid-Until: .*/Valid-Until: $(stamp "-1 day")/" "$work/expired/dists/stable/Release"
signed_as_project "$work/expired/dists/stable"
check "an old Release past its Valid-Until, signed by the project key: refused (expired)" refused expired "expired\|no longer valid"
accepted() { sources "$1" "$work/keyring.pgp"; updated; }
check "release-repo.sh --resign: that repository is accepted again, its Packages unchanged" eval '
	cp -a "$work/expired/dists/stable/main" "$work/main-before" && rel --resign "$work/expired" &&
		diff -r "$work/main-before" "$work/expired/dists/stable/main" && accepted expired &&
		[ "$(date -d "$(sed -n "s/^Valid-Until: //p" "$work/expired/dists/stable/Release")" +%s)" -gt "$(date -d "+$((days - 1)) days" +%s)" ]'
check "release-repo.sh --resign keeps the published keyring (a rotation's two keys stay)" eval '
	GNUPGHOME=$work/gnupg-other gpg --batch --export "$other" | cat "$work/keyring.pgp" - > "$work/two-keys.pgp" &&
		cp "$work/two-keys.pgp" "$work/expired/claude-pi-archive-keyring.pgp" && rel --resign "$work/expired" &&
		cmp "$work/two-keys.pgp" "$work/expired/claude-pi-archive-keyring.pgp"'
check "release-repo.sh --resign of a directory with no repository: refused" eval '! rel --resign "$work/nothing"'

# The preferences: every package but claude-pi from the project's origin or
# site at -1. Tested with the site this test serves from (127.0.0.1).
check "published claude-pi.pref: origin Claude_Pi and site claude-pi.github.io at -1, claude-pi at 500" bash -c '
	grep -qx "Pin: release o=Claude_Pi" "$1" && grep -qx "Pin: origin \"claude-pi.github.io\"" "$1" &&
		grep -qx "Package: claude-pi claude-pi-\*" "$1" && grep -qx "Pin-Priority: -1" "$1"' _ "$work/www/claude-pi.pref"
pref() { sed "s|\"claude-pi.github.io\"|\"127.0.0.1\"|" "$work/www/claude-pi.pref" > "$a/etc/preferences.d/claude-pi.pref"; }
nopref() { rm -f "$a/etc/preferences.d/claude-pi.pref"; }
candidate() { # candidate PACKAGE: its candidate version in our private apt
	apt-cache -o Dir::Etc="$a/etc" -o Dir::State="$a" -o Dir::State::Lists="$a/lists" -o Dir::State::status="$a/status" \
		-o Dir::Cache="$a/cache" -o APT::Architecture=amd64 -o APT::Architectures::=amd64 policy "$1" | tee -a "$work/policy.log" |
		sed -n "s/^  Candidate: //p"
}

# 2. A base-files 99 in the project's own signed repository (as a stolen
# key or a bad release would put it there), base-files 12.4 installed.
mkdir -p "$work/bf/DEBIAN"
printf 'Package: base-files\nVersion: 99\nArchitecture: amd64\nMaintainer: test <t@example.org>\nDescription: not the system one\n' > "$work/bf/DEBIAN/control"
cp -a "$work/www" "$work/hostile"
mkdir -p "$work/hostile/pool/main/b"
dpkg-deb -b --root-owner-group "$work/bf" "$work/hostile/pool/main/b/base-files_99_amd64.deb" > /dev/null
rel --resign "$work/hostile" > /dev/null
printf 'Package: base-files\nStatus: install ok installed\nPriority: required\nSection: admin\nMaintainer: Debian\nArchitecture: amd64\nVersion: 12.4\nDescription: Debian base system miscellaneous files\n' > "$a/status"
nopref
check "without the preferences: the project's repository would replace base-files (the issue)" eval 'accepted hostile && apt_ -s upgrade | tee /dev/stderr | grep "^Inst base-files .*(99 " > /dev/null'
pref
check "with the preferences: base-files stays 12.4 (99 at -1), claude-pi's candidate is still $v2" eval '
	accepted hostile && ! apt_ -s upgrade | tee /dev/stderr | grep "^Inst base-files" > /dev/null &&
		[ "$(candidate base-files)" = 12.4 ] && [ "$(candidate claude-pi)" = "$v2" ]'
: > "$a/status"

# 1. Another repository saying Origin: Claude_Pi, signed by another key under
# its own Signed-By, on another site (localhost), with claude-pi 9999.
dpkg-deb -R "$work/debs/claude-pi_${v2}_amd64.deb" "$work/c99"
sed -i 's/^Version: .*/Version: 9999/' "$work/c99/DEBIAN/control"
dpkg-deb -b --root-owner-group "$work/c99" "$work/claude-pi_9999_amd64.deb" > /dev/null
REPO_ARCHS=amd64 GNUPGHOME=$work/gnupg-other SIGNING_KEY=$other "$repo/packaging/release-repo.sh" "$work/impostor" "$work/claude-pi_9999_amd64.deb" > /dev/null
GNUPGHOME=$work/gnupg-other gpg --batch --export "$other" > "$work/other.pgp"
impostor() {
	sed -e "s|http://127.0.0.1:$port/www|http://localhost:$port/impostor|" -e "s|$work/keyring.pgp|$work/other.pgp|" \
		"$a/etc/sources.list.d/claude-pi.sources" > "$a/etc/sources.list.d/impostor.sources"
}
nopref
check "without the preferences: the impostor's claude-pi 9999 would be the candidate (the issue)" eval 'accepted www && impostor && updated && [ "$(candidate claude-pi)" = 9999 ]'
pref
check "with the preferences: claude-pi's candidate is the project's $v2, the impostor's 9999 at -1" eval '
	accepted www && impostor && updated && : > "$work/policy.log" && [ "$(candidate claude-pi)" = "$v2" ] && grep -q "^ *-1 http://localhost:$port/impostor" "$work/policy.log"'
rm -f "$a/etc/sources.list.d/impostor.sources"
site=$(. "$repo/packaging/release.conf" && repo_site)
check "unattended-upgrades takes claude-pi by origin and site ($site), suite stable" bash -c '
	apt-config -c "$1" dump | grep -qx "Unattended-Upgrade::Origins-Pattern:: \"origin=Claude_Pi,site=$2,suite=stable\";"' \
	_ "$repo/image/rootfs/etc/apt/apt.conf.d/52claude-pi-unattended" "$site"
# Debian's own unattended-upgrade script decides (fetched with apt-get
# download and unpacked, never installed: installing it would turn on this
# machine's own automatic upgrades), with python3-apt.
uu_script() { (cd "$work" && apt-get download -qq unattended-upgrades) && dpkg-deb -x "$work"/unattended-upgrades_*.deb "$work/uu"; }
check "unattended-upgrades' own matcher: Claude_Pi at $site allowed, at another site refused" eval '
	uu_script && /usr/bin/python3 "$here/uu-match.py" "$work/uu/usr/bin/unattended-upgrade" \
		"$repo/image/rootfs/etc/apt/apt.conf.d/52claude-pi-unattended" "$site"'
finish
