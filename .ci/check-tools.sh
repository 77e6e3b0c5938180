#!/usr/bin/env bash
# Checks that .ci/run installs every tool its test scripts call (issue 32.7:
# a fresh machine stopped at "apt-ftparchive: apt install apt-utils").
#
#   .ci/check-tools.sh              static: the scripts against the lists
#   .ci/check-tools.sh --installed  also: each listed package is installed,
#                                   each tool is on PATH and dpkg says it
#                                   comes from the package .ci/tools names
#                                   (or from one it depends on)
#                                   (only a note unless CHECK_TOOLS_STRICT=1:
#                                   a machine may have its own python3 first)
#
# The static part reads the scripts .ci/run runs (and the Go tests, the
# firmware Makefile) for the ways they name what they need: `command -v
# TOOL`, exec.LookPath("TOOL"), `need+=(PACKAGE)`, `ensure_packages
# PACKAGE...` and "apt(-get) install PACKAGE..." hints. Each TOOL must be in
# .ci/tools, and each package in .ci/packages. A script that calls a tool
# with none of these checks is not seen: give it a `command -v` check, as
# packaging/apt/test.sh does. Ends with "tools: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin:/usr/sbin:/sbin"
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }

listed() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1"; }
packages=()
declare -A unless_tool
while read -r p c; do
	packages+=("$p")
	[ "${c#\?}" = "${c:-}" ] || unless_tool[$p]=${c#\?}
done < <(listed .ci/packages)
declare -A tool_pkg not_needed
while read -r t p n; do
	if [ "$t" = not-needed ]; then not_needed["$p $n"]=1; else tool_pkg[$t]=$p; fi
done < <(listed .ci/tools)
declare -A in_list
for p in "${packages[@]}"; do in_list[$p]=1; done
# Packages every Debian system has (Priority: required), never listed.
essential=" dpkg coreutils bash util-linux findutils grep sed tar gzip diffutils "
provided() { [ -n "${in_list[$1]:-}" ] || [[ $essential == *" $1 "* ]] || [ "$1" = /usr/local/go ]; }

scripts=(.ci/run .ci/*.sh packaging/deb/build packaging/release-repo.sh image/assemble image/lib/common.sh firmware/Makefile)
mapfile -t more < <(find packaging image/test drivers/ble/bluez/vmtest -name '*.sh' | sort)
# Of the Go tests, only those that name a tool or a package (one grep, not
# five per file: there are some 200).
mapfile -t gotests < <({ git ls-files '*_test.go' 2>/dev/null || find . -name '*_test.go' -not -path './.git/*' | sed 's|^\./||' | sort; } |
	xargs -r grep -lE 'LookPath|command -v|apt(-get)? install' --)
files=()
declare -A seen
for f in "${scripts[@]}" "${more[@]}" "${gotests[@]}"; do
	[ -f "$f" ] && [ "$f" != .ci/check-tools.sh ] && [ -z "${seen[$f]:-}" ] && files+=("$f") && seen[$f]=1
done

# need FILE KIND NAME: one thing FILE needs, a tool or a package.
need() {
	local f=$1 kind=$2 name=$3 pkg
	[ -z "${not_needed["$f $name"]:-}" ] || return 0
	if [ "$kind" = tool ]; then
		pkg=${tool_pkg[$name]:-}
		[ -n "$pkg" ] || { bad "$f looks for $name: add \"$name PACKAGE\" to .ci/tools (and PACKAGE to .ci/packages)"; return; }
		provided "$pkg" || { bad "$f looks for $name: its package $pkg is not in .ci/packages"; return; }
	else
		provided "$name" || { bad "$f wants package $name: add it to .ci/packages"; return; }
	fi
	ok
}

for f in "${files[@]}"; do
	# Comments out (prose says "apt-get install" too), continued lines
	# joined (ensure_packages lists run over several).
	text=$(sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*\/\//d' "$f" | sed -e ':a' -e '/\\$/{N;s/\\\n/ /;ba}')
	while read -r t; do need "$f" tool "$t"; done < <(grep -oE 'command -v "?[A-Za-z0-9_+.-]+' <<< "$text" | awk '{ gsub(/"/, "", $3); print $3 }' | sort -u)
	while read -r t; do need "$f" tool "$t"; done < <(grep -oE 'exec\.LookPath\("[^"]+"\)' <<< "$text" | sed -E 's/.*\("([^"]+)"\)/\1/' | sort -u)
	while read -r p; do need "$f" package "$p"; done < <(
		{
			grep -oE 'need\+=\([a-z0-9.+-]+\)' <<< "$text" | sed -E 's/need\+=\((.*)\)/\1/'
			grep -oE 'ensure_packages [^|{}()]*' <<< "$text" | cut -d' ' -f2-
			grep -oE 'apt(-get)? install [^]()"`;|&<>]*' <<< "$text" | cut -d' ' -f3-
		} | tr ' \t' '\n\n' | grep -E '^[a-z0-9][a-z0-9.+-]+$' | grep -v '^claude-pi' | sort -u)
done

if [ "${1:-}" = --installed ]; then
	for p in "${packages[@]}"; do
		[ -n "${unless_tool[$p]:-}" ] && command -v "${unless_tool[$p]}" >/dev/null && { ok; continue; }
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' && ok || bad "package $p (.ci/packages) is not installed"
	done
	# owner PATH: the package dpkg has PATH from, trying the other side of
	# the /usr merge and the link's target (alternatives).
	owner() {
		local p
		for p in "$1" "${1#/usr}" "/usr$1" "$(readlink -f "$1")"; do
			dpkg -S "$p" 2>/dev/null | head -n1 | cut -d: -f1 && return
		done
	}
	for t in "${!tool_pkg[@]}"; do
		want=${tool_pkg[$t]}
		path=$(command -v "$t") || { bad "$t is not on PATH, though .ci/tools says $want gives it"; continue; }
		[ "$want" = /usr/local/go ] && { ok; continue; }
		got=$(owner "$path")
		# The package itself, or one it (pre-)depends on (dbus gives dbus-daemon
		# through the dbus-daemon package, python3 through python3-minimal).
		if [ "$got" = "$want" ] || { [ -n "$got" ] && dpkg-query -W -f='${Pre-Depends},${Depends}' "$want" 2>/dev/null |
			tr ',|' '\n\n' | awk '{ print $1 }' | sed 's/:any$//' | grep -qx "$got"; }; then
			ok
		elif [ -n "${CHECK_TOOLS_STRICT:-}" ]; then
			bad "$t ($path) comes from package ${got:-none}, not $want as .ci/tools says"
		else # a machine's own python or node first on PATH; fresh-root.sh is strict
			ok; echo "note $t ($path) comes from ${got:-outside dpkg}, not $want"
		fi
	done
fi
echo "tools: $passed passed, $failed failed (${#files[@]} files read)"
[ "$failed" = 0 ]
