package procwatch

import (
	"os"

	"golang.org/x/sys/unix"
)

func started() (int64, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", os.Getpid())
	if err != nil {
		return 0, false
	}
	return k.Proc.P_starttime.Nano(), true
}
