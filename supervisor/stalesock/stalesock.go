// Package stalesock clears the Unix socket file a crashed process left
// behind, so the next run can listen on the same path with no "address
// already in use". It removes only a socket that nobody answers on: a
// regular file is refused, and a live socket is reported as another
// instance running. The control socket and the sim BLE link's unix: address
// both listen through it.
package stalesock

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// ErrInUse: a process answers on the socket, so it is not stale.
var ErrInUse = errors.New("in use by another process (stop it, or choose another path)")

// probeTimeout bounds the dial that tells a live socket from a stale one;
// a live server accepts at once, a stale file refuses at once.
const probeTimeout = time.Second

// Clear removes path if it is a socket nobody serves. A missing path is
// fine. It refuses anything that is not a socket, a socket that answers
// (ErrInUse), and one whose probe fails for another reason than a refused
// connection (say, no permission): then it cannot tell that it is stale.
func Clear(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking %s: %w", path, err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("%s exists and is not a socket; refusing to replace it", path)
	}
	c, err := net.DialTimeout("unix", path, probeTimeout)
	if err == nil {
		c.Close()
		return fmt.Errorf("%s: %w", path, ErrInUse)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("probing existing socket %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing stale socket %s: %w", path, err)
	}
	return nil
}
