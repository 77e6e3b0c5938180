#!/usr/bin/env bash
# The Claude Code CLI the real-client tests run (e2e/claudecli_e2e_test.go):
# npm's @anthropic-ai/claude-code at an exact version, with the platform
# package that holds its native binary (.ci/npm-pinned.sh).
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
. "$(dirname "$0")/npm-pinned.sh"
npm_pinned_arg=${1:-}
npm_pinned "claude-code-$version-$platform" "node_modules/@anthropic-ai/claude-code-$platform/claude" \
	"@anthropic-ai/claude-code@$version" "@anthropic-ai/claude-code-$platform@$version"
