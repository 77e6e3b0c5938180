package procwatch

import (
	"golang.org/x/sys/unix"
)

const reparents = true

// open holds a pidfd: it turns readable when the process exits (zombie or
// reaped), and a reused pid is another process it never refers to.
// Kernels before 5.3 have no pidfd; kill(pid, 0) stands in.
func open(pid int) (probe, bool) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return probe{}, false
	}
	if err != nil {
		return killProbe(pid)
	}
	return probe{pid: pid, alive: func() bool {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		return err != nil || n == 0
	}, close: func() { unix.Close(fd) }}, true
}
