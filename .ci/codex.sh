#!/usr/bin/env bash
# The Codex CLI the real-client tests run (e2e/codexcli_e2e_test.go): npm's
# @openai/codex at an exact version, with the platform package (published
# as @openai/codex@<version>-<platform>) that holds its native binary
# (.ci/npm-pinned.sh).
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
. "$(dirname "$0")/npm-pinned.sh"
npm_pinned_arg=${1:-}
npm_pinned "codex-$version-$platform" "node_modules/@openai/codex-$platform/vendor/$triple/bin/codex" \
	"@openai/codex@$version" "@openai/codex-$platform@npm:@openai/codex@$version-$platform"
