//go:build unix

package procwatch

import (
	"errors"
	"syscall"
)

// killProbe asks kill(pid, 0): ESRCH means gone. EPERM means it lives
// under another user. A zombie still answers; the parent watch covers the
// hook's own shell.
func killProbe(pid int) (probe, bool) {
	gone := func() bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }
	if gone() {
		return probe{}, false
	}
	return probe{pid: pid, alive: func() bool { return !gone() }, close: func() {}}, true
}
