package ctlsock

import (
	"errors"
	"io/fs"
	"os"
)

// StockPath is where Debian's supervisorctl looks by default
// (/etc/supervisor/supervisord.conf); the .deb's tmpfiles.d links it to
// claude-pi's socket.
const StockPath = "/run/supervisor.sock"

// Owner says who answers supervisorctl at stock (StockPath on the Pi):
// claude-pi through the link to ours, a supervisord of its own (Raspberry
// Pi OS with the supervisor package's daemon enabled, which then keeps the
// path: packaging/deb/supervisor-claude-pi.conf), or nobody. ok is false
// only when plain `supervisorctl status` will not show claude-pi; detail
// and fix say what to use instead.
func Owner(stock, ours string) (ok bool, detail, fix string) {
	fi, err := os.Lstat(stock)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, stock + " missing", "sudo systemd-tmpfiles --create claude-pi.conf (makes the link), or use claude-pi status"
	case err != nil:
		return false, err.Error(), "use claude-pi status"
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(stock)
		if err == nil && target == ours {
			return true, stock + " -> " + ours, ""
		}
		return false, stock + " -> " + target + ", not claude-pi's " + ours,
			"sudo ln -sfn " + ours + " " + stock + ", or use claude-pi status"
	case fi.Mode()&fs.ModeSocket != 0:
		return false, "supervisord owns " + stock + ": supervisorctl shows its programs, not claude-pi's",
			"use claude-pi status, or supervisorctl -s unix://" + ours + " status (both supervisors keep running)"
	default:
		return false, stock + " is neither a socket nor claude-pi's link", "remove it; then sudo systemd-tmpfiles --create claude-pi.conf"
	}
}
