#!/usr/bin/env bash
# Builds (or adds to) the claude-pi apt repository, signed by the project key:
#
#   packaging/release-repo.sh REPO DEB...
#   packaging/release-repo.sh --resign REPO
#
# REPO is the directory published at REPO_URL (packaging/release.conf). The
# .debs go to REPO/pool/main/c/claude-pi/ (versions already there stay, so
# a Pi can still reach the version it has); then apt-ftparchive indexes the
# pool per architecture and writes dists/SUITE/Release, which gpg signs twice:
# InRelease (clear-signed, what apt fetches first) and Release.gpg (detached).
# The Release is valid for REPO_VALID_DAYS: apt refuses it after that, so an
# old Release replayed to hold a Pi at an old claude-pi stops working.
# --resign re-indexes the pool as it is and signs a fresh Release (new Date
# and Valid-Until), the step that must run well inside every validity window
# (RELEASING.md, "Valid-Until").
# REPO also gets claude-pi-archive-keyring.pgp, claude-pi.sources and
# claude-pi.pref, the three files the Raspberry Pi OS install fetches
# (README.md).
#
# Environment:
#   SIGNING_KEY      the key to sign with (fingerprint), required
#   GNUPGHOME        gpg's home holding that secret key (default: gpg's)
#   ARCHIVE_KEYRING  the public keyring to publish (binary OpenPGP; may hold
#                    the current and the next key, RELEASING.md "Rotation");
#                    default: SIGNING_KEY's public key, exported
#   REPO_*           the release settings (packaging/release.conf)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=release.conf
. "$here/release.conf"
die() { printf 'release-repo: %s\n' "$*" >&2; exit 1; }

resign=
[ "${1:-}" = --resign ] && resign=1 && shift
if [ -n "$resign" ]; then
	[ $# = 1 ] || die "usage: release-repo.sh --resign REPO"
	[ -s "$1/dists/$REPO_SUITE/Release" ] || die "$1: no dists/$REPO_SUITE/Release to re-sign (make the repository with release-repo.sh REPO DEB...)"
else
	[ $# -ge 2 ] || die "usage: release-repo.sh REPO DEB... (or --resign REPO)"
fi
repo=$1
shift
case $REPO_VALID_DAYS in '' | *[!0-9]* | 0) die "REPO_VALID_DAYS=$REPO_VALID_DAYS: want a whole number of days, at least 1" ;; esac
[ -n "${SIGNING_KEY:-}" ] || die "SIGNING_KEY is not set: the fingerprint of the project's signing key (RELEASING.md)"
command -v apt-ftparchive >/dev/null || die "apt-ftparchive not found: apt install apt-utils"
command -v gpg >/dev/null || die "gpg not found: apt install gpg"
gpg --batch --list-secret-keys "$SIGNING_KEY" >/dev/null 2>&1 ||
	die "no secret key $SIGNING_KEY in ${GNUPGHOME:-~/.gnupg}: set GNUPGHOME or SIGNING_KEY"

for deb in "$@"; do
	[ -s "$deb" ] || die "$deb: no such .deb"
	pkg=$(dpkg-deb -f "$deb" Package) arch=$(dpkg-deb -f "$deb" Architecture)
	# claude-pi-client is the computer's claude-pi (packaging/deb-client).
	case "$pkg" in claude-pi | claude-pi-client) ;; *) die "$deb: package $pkg, want claude-pi or claude-pi-client" ;; esac
	case " $REPO_ARCHS " in *" $arch "*) ;; *) die "$deb: architecture $arch is not in REPO_ARCHS ($REPO_ARCHS)" ;; esac
	mkdir -p "$repo/pool/$REPO_COMPONENT/c/$pkg"
	cp "$deb" "$repo/pool/$REPO_COMPONENT/c/$pkg/"
done

cd "$repo"
dists=dists/$REPO_SUITE
rm -rf "$dists.new"
for arch in $REPO_ARCHS; do
	d=$dists.new/$REPO_COMPONENT/binary-$arch
	mkdir -p "$d"
	apt-ftparchive --arch "$arch" packages "pool/$REPO_COMPONENT" > "$d/Packages"
	xz -9 -k "$d/Packages"
done
# Acquire-By-Hash is off: the whole dists/ tree is swapped in one rename
# below, so a client never sees a Release that names files not yet there.
apt-ftparchive \
	-o APT::FTPArchive::Release::Origin="$REPO_ORIGIN" \
	-o APT::FTPArchive::Release::Label="$REPO_LABEL" \
	-o APT::FTPArchive::Release::Suite="$REPO_SUITE" \
	-o APT::FTPArchive::Release::Codename="$REPO_SUITE" \
	-o APT::FTPArchive::Release::Architectures="$REPO_ARCHS" \
	-o APT::FTPArchive::Release::Components="$REPO_COMPONENT" \
	-o APT::FTPArchive::Release::Description="claude-pi for Raspberry Pi OS and the Claude_Pi image" \
	-o APT::FTPArchive::Release::ValidTime="$((REPO_VALID_DAYS * 86400))" \
	release "$dists.new" > "$dists.new/Release.tmp"
mv "$dists.new/Release.tmp" "$dists.new/Release"
sign=(gpg --batch --yes --quiet --local-user "$SIGNING_KEY" --digest-algo SHA512)
"${sign[@]}" --clearsign -o "$dists.new/InRelease" "$dists.new/Release"
"${sign[@]}" --armor --detach-sign -o "$dists.new/Release.gpg" "$dists.new/Release"
rm -rf "$dists.old"
[ -d "$dists" ] && mv "$dists" "$dists.old"
mv "$dists.new" "$dists"
rm -rf "$dists.old"

if [ -n "${ARCHIVE_KEYRING:-}" ]; then
	cp "$ARCHIVE_KEYRING" claude-pi-archive-keyring.pgp
elif [ -n "$resign" ] && [ -s claude-pi-archive-keyring.pgp ]; then
	: # a re-sign keeps the published keyring (it may hold the next key too)
else
	gpg --batch --export "$SIGNING_KEY" > claude-pi-archive-keyring.pgp
fi
sed -e "s|@URL@|$REPO_URL|" -e "s|@SUITE@|$REPO_SUITE|" -e "s|@COMPONENT@|$REPO_COMPONENT|" \
	"$here/apt/claude-pi.sources.in" > claude-pi.sources
sed -e "s|@SITE@|$(repo_site)|" -e "s|@ORIGIN@|$REPO_ORIGIN|" "$here/apt/claude-pi.pref.in" > claude-pi.pref
echo "release-repo: $(find "$pool" -name '*.deb' | wc -l) .debs in $PWD, $dists signed by $SIGNING_KEY, $(grep '^Valid-Until:' "$dists/Release")"
