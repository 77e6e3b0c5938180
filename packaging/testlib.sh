# Shared by packaging/apt/test.sh and packaging/deb/vmtest/lib.sh (sourced):
# verdict lines and a throwaway signing key. Callers set $work.
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
# check NAME CMD...: one verdict, CMD's output shown when it fails.
check() {
	local name=$1
	shift
	if "$@" > "$work/check.out" 2>&1; then ok "$name"; else bad "$name"; sed 's/^/     /' "$work/check.out" | head -n 20; fi
}
# newkey GNUPGHOME NAME: a new ed25519 signing key, made now and gone with
# its directory (no private key is ever committed); prints the fingerprint.
newkey() {
	mkdir -p -m 0700 "$1"
	GNUPGHOME=$1 gpg --batch --quiet --passphrase '' --quick-gen-key "$2 <claude-pi@users.noreply.github.com>" ed25519 sign never 2>/dev/null
	GNUPGHOME=$1 gpg --batch --quiet --check-trustdb 2>/dev/null || true
	GNUPGHOME=$1 gpg --batch --with-colons --list-secret-keys | awk -F: '$1 == "fpr" { print $10; exit }'
}
