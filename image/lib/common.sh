# Shared helpers for image/build, image/assemble and image/test (sourced).

build_start=$(date +%s)

log() { printf '[%s +%s] %s\n' "$(date +%H:%M:%S)" "$(elapsed_since "$build_start")" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

elapsed_since() {
	local s=$(($(date +%s) - $1))
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# run_stage NAME FUNC: runs one stage and prints its wall time.
run_stage() {
	# Not "name": the stages read the build's global of that name.
	local stage=$1 t0
	shift
	t0=$(date +%s)
	log "== $stage"
	"$@"
	log "== $stage: $(elapsed_since "$t0")"
	stage_times+=("$stage: $(elapsed_since "$t0")")
}
stage_times=()

# ensure_packages PKG...: installs the Debian packages that are missing.
ensure_packages() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return
	log "installing with apt: ${missing[*]}"
	local sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# ensure_binfmt_aarch64: arm64 programs run through qemu-user, which needs
# binfmt_misc mounted and the aarch64 handler registered (a fresh container
# or CI machine often has neither).
ensure_binfmt_aarch64() {
	local bm=/proc/sys/fs/binfmt_misc
	if [ ! -e "$bm/register" ]; then
		mount -t binfmt_misc binfmt_misc "$bm" || die "cannot mount binfmt_misc (needs root and a kernel with binfmt_misc)"
	fi
	if [ ! -e "$bm/qemu-aarch64" ]; then
		[ -f /usr/lib/binfmt.d/qemu-aarch64.conf ] || die "no /usr/lib/binfmt.d/qemu-aarch64.conf: install qemu-user-static"
		cat /usr/lib/binfmt.d/qemu-aarch64.conf > "$bm/register"
	fi
	grep -q enabled "$bm/qemu-aarch64" || die "$bm/qemu-aarch64 is disabled"
}
