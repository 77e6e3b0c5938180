#!/usr/bin/env bash
# The Claude Code CLI the real-client tests run (e2e/claudecli_e2e_test.go):
# npm's @anthropic-ai/claude-code at an exact version, with the platform
# package that holds its native binary, installed into a cache outside the
# repository. It needs no network at run time.
#
#   bash .ci/claude-code.sh          install if missing, print the binary's path
#   bash .ci/claude-code.sh --path   print the path if installed, else exit 1
set -euo pipefail
version=2.1.332
case "$(uname -s)-$(uname -m)" in
Linux-x86_64) platform=linux-x64 ;;
Linux-aarch64) platform=linux-arm64 ;;
*) echo "claude-code.sh: no pinned Claude Code build for $(uname -s) $(uname -m)" >&2; exit 1 ;;
esac
cache=${CLAUDE_PI_CACHE:-/var/cache/claude-pi}
prefix=$cache/claude-code-$version-$platform
bin=$prefix/node_modules/@anthropic-ai/claude-code-$platform/claude
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
	tmp=$(mktemp -d "$cache/.claude-code-XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# --ignore-scripts: the wrapper's postinstall only links the native
	# binary, which the tests run from the platform package directly.
	npm install --prefix "$tmp" --no-audit --no-fund --no-save --ignore-scripts --loglevel=error \
		"@anthropic-ai/claude-code@$version" "@anthropic-ai/claude-code-$platform@$version" >&2
	"$tmp/node_modules/@anthropic-ai/claude-code-$platform/claude" --version >&2
	rm -rf "$prefix"
	mv "$tmp" "$prefix"
	trap - EXIT
fi
echo "$bin"
