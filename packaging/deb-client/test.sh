#!/usr/bin/env bash
# The client .deb's host test (no root): build it for amd64 twice (the
# same bytes), then check what it holds: /usr/bin/claude-pi, the
# computer's (its version line), and no service, unit or maintainer
# script. Ends with "client deb: N passed, M failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../testlib.sh
. "$repo/packaging/testlib.sh"
work=$(mktemp -d /tmp/claude-pi-client-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
finish() { echo "client deb: $passed passed, $failed failed"; [ "$failed" = 0 ]; exit; }
v=$("$repo/packaging/version")
OUT=$work/a "$here/build" amd64 > "$work/build.log" 2>&1 && OUT=$work/b "$here/build" amd64 >> "$work/build.log" 2>&1 ||
	{ bad "build"; sed 's/^/     /' "$work/build.log" | tail; finish; }
deb=$work/a/claude-pi-client_${v}_amd64.deb
check "the build is reproducible" cmp "$deb" "$work/b/claude-pi-client_${v}_amd64.deb"
check "Package claude-pi-client, Conflicts claude-pi" bash -c \
	'[ "$(dpkg-deb -f "$1" Package)" = claude-pi-client ] && [ "$(dpkg-deb -f "$1" Conflicts)" = claude-pi ]' _ "$deb"
check "it holds /usr/bin/claude-pi and only docs besides" bash -c \
	'dpkg-deb -c "$1" | awk "{print \$6}" | grep -v "/$" | grep -vx "./usr/share/doc/claude-pi-client/.*" | grep -qx "./usr/bin/claude-pi" &&
	 [ "$(dpkg-deb -c "$1" | awk "{print \$6}" | grep -v "/$" | grep -vc "^./usr/share/doc/")" = 1 ]' _ "$deb"
dpkg-deb -e "$deb" "$work/ctl"
check "no service and no maintainer scripts" bash -c \
	'! dpkg-deb -c "$1" | grep -q systemd && [ "$(ls "$2")" = "$(printf "control\nmd5sums")" ]' _ "$deb" "$work/ctl"
dpkg-deb -x "$deb" "$work/x"
check "its claude-pi is the computer's" bash -c '"$1" version | grep -q "(computer)"' _ "$work/x/usr/bin/claude-pi"
finish
