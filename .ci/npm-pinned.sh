# npm-pinned.sh: sourced by .ci/claude-code.sh and .ci/codex.sh. An agent
# CLI the real-client tests run comes from npm at an exact version, with
# the platform package that holds its native binary, installed into a
# cache outside the repository (no network at run time). The tests run the
# native binary directly, so npm's install scripts are skipped: they only
# link or look for that binary.
#
# npm_pinned NAME BIN PACKAGE...: with --path as the script's argument,
# prints $cache/NAME/BIN if it is there (else exits 1); otherwise installs
# the PACKAGEs into $cache/NAME when BIN is missing (into a temporary
# folder first, so a cut install never looks installed) and prints it.
npm_pinned() {
	local name=$1 rel=$2 cache=${CLAUDE_PI_CACHE:-/var/cache/claude-pi} tmp sudo
	shift 2
	local prefix=$cache/$name
	local bin=$prefix/$rel
	if [ "${npm_pinned_arg:-}" = --path ]; then
		[ -x "$bin" ] && echo "$bin" && return 0
		return 1
	fi
	if [ ! -x "$bin" ]; then
		if ! command -v npm >/dev/null; then
			sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
			$sudo apt-get update -qq
			$sudo apt-get install -y -qq --no-install-recommends npm >/dev/null
		fi
		mkdir -p "$cache"
		tmp=$(mktemp -d "$cache/.$name-XXXXXX")
		# shellcheck disable=SC2064 # $tmp is meant to expand now
		trap "rm -rf '$tmp'" EXIT
		npm install --prefix "$tmp" --no-audit --no-fund --no-save --ignore-scripts --loglevel=error "$@" >&2
		"$tmp/$rel" --version >&2
		rm -rf "$prefix"
		mv "$tmp" "$prefix"
		trap - EXIT
	fi
	echo "$bin"
}
