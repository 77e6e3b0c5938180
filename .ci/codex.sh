#!/usr/bin/env bash
# The Codex CLI the real-client tests run (e2e/codexcli_e2e_test.go): npm's
# @openai/codex at an exact version, with the platform package (published
# as @openai/codex@<version>-<platform>) that holds its native binary,
# installed into a cache outside the repository. It needs no network at
# run time.
#
#   bash .ci/codex.sh          install if missing, print the binary's path
#   bash .ci/codex.sh --path   print the path if installed, else exit 1
set -euo pipefail
version=0.171.0
case "$(uname -s)-$(uname -m)" in
Linux-x86_64) platform=linux-x64 triple=x86_64-unknown-linux-musl ;;
Linux-aarch64) platform=linux-arm64 triple=aarch64-unknown-linux-musl ;;
*) echo "codex.sh: no pinned Codex build for $(uname -s) $(uname -m)" >&2; exit 1 ;;
esac
cache=${CLAUDE_PI_CACHE:-/var/cache/claude-pi}
prefix=$cache/codex-$version-$platform
bin=$prefix/node_modules/@openai/codex-$platform/vendor/$triple/bin/codex
if [ "${1:-}" = --path ]; then
	[ -x "$bin" ] && echo "$bin" && exit 0
	exit 1
fi
if [ ! -x "$bin" ]; then
	if ! command -v npm >/dev/null; then
		sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
		$sudo apt-get update -qq
		$sudo apt-get install -y -qq --no-install-recommends npm >/dev/null
	fi
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.codex-XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# The wrapper (bin/codex.js) only finds and runs the native binary,
	# which the tests run from the platform package directly.
	npm install --prefix "$tmp" --no-audit --no-fund --no-save --ignore-scripts --loglevel=error \
		"@openai/codex@$version" "@openai/codex-$platform@npm:@openai/codex@$version-$platform" >&2
	"$tmp/node_modules/@openai/codex-$platform/vendor/$triple/bin/codex" --version >&2
	rm -rf "$prefix"
	mv "$tmp" "$prefix"
	trap - EXIT
fi
echo "$bin"
