package procwatch

import "syscall"

// Windows never reparents: the parent is watched by its handle like any
// other process.
const reparents = false

// open holds a handle to the process, which keeps its pid from being
// reused while we watch, and asks whether it has been signalled (ended).
func open(pid int) (probe, bool) {
	const synchronize = 0x00100000
	h, err := syscall.OpenProcess(synchronize, false, uint32(pid))
	if err != nil {
		return probe{}, false
	}
	return probe{pid: pid, alive: func() bool {
		ev, err := syscall.WaitForSingleObject(h, 0)
		return err == nil && ev == uint32(syscall.WAIT_TIMEOUT)
	}, close: func() { syscall.CloseHandle(h) }}, true
}
