# Sourced by the phase scripts inside the guest (from /host).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; }
check() { local n=$1; shift; if "$@" > /tmp/check.out 2>&1; then ok "$n"; else bad "$n"; sed 's/^/     /' /tmp/check.out | head -n 20; fi; }
# running SECONDS: every service in supervisorctl status RUNNING, within SECONDS.
running() {
	local i=0
	while [ $i -lt "$1" ]; do
		if supervisorctl status > /tmp/st 2>&1 && [ -s /tmp/st ] && ! grep -qv ' RUNNING ' /tmp/st; then cat /tmp/st; return 0; fi
		sleep 1; i=$((i + 1))
	done
	cat /tmp/st; systemctl status claude-pi --no-pager | tail -n 5; return 1
}
# snapshot: every state file and its checksum (bonds, LAN identity and
# pairings, packs, stats, config), but the data-dir lock, which holds a PID,
# and the package's own rollback records and kept .debs (health-check's).
snapshot() {
	find /var/lib/claude-pi /var/lib/bluetooth /etc/claude-pi -type f ! -name '*.lock' \
		! -path '/var/lib/claude-pi/rollback/*' 2>/dev/null | LC_ALL=C sort | xargs -r sha256sum
}
# checked [SECONDS]: waits (default 600 s) until claude-pi-health-check.service
# has run and ended; prints how it ended.
checked() {
	local i=0 s
	while [ $i -lt "${1:-600}" ]; do
		s=$(systemctl show -p ActiveState --value claude-pi-health-check.service)
		case "$s" in inactive | failed) [ -e /var/lib/claude-pi/rollback/pending ] || [ -e /var/lib/claude-pi/rollback/rolling-back ] || break ;; esac
		sleep 1; i=$((i + 1))
	done
	echo "health check: $s after ${i}s; $(systemctl show -p Result --value claude-pi-health-check.service)"
	journalctl -b -u claude-pi-health-check --no-pager -o cat | grep 'health-check:' | sed 's/^/     /' | tail -n 6
}
