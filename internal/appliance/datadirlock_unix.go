//go:build unix

package appliance

import (
	"errors"
	"os"
	"syscall"
)

// tryLockExclusive takes an flock without waiting: busy says another
// process holds it.
func tryLockExclusive(f *os.File) (busy bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
