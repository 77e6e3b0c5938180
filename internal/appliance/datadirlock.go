package appliance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockFileName is the file in data_dir that one running appliance holds an
// exclusive flock on; it contains that appliance's pid.
const lockFileName = "claude-pi.lock"

// lockDataDir makes sure one appliance at a time uses dir: two would each
// rewrite the bonds and settings under the other. The kernel drops the
// lock when the process dies, so a crash leaves nothing to clean up.
func lockDataDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, dataDirError(dir, err)
	}
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		return nil, dataDirError(dir, err)
	}
	if busy, err := tryLockExclusive(f); err != nil || busy {
		b, _ := os.ReadFile(path)
		f.Close()
		if busy {
			other := "another claude-pi"
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 {
				other = fmt.Sprintf("another claude-pi (pid %d)", pid)
			}
			return nil, fmt.Errorf("data_dir %s is in use by %s: stop it first, or give this one its own --data-dir", dir, other)
		}
		return nil, fmt.Errorf("data_dir %s: locking %s: %w", dir, path, err)
	}
	// Ours now: record who holds it, for the next one's message.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}

// dataDirError names the fix for a data dir the user cannot write.
func dataDirError(dir string, err error) error {
	if errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("data_dir %s: %w: run as a user who can write it, or choose another with --data-dir DIR (key data_dir)", dir, err)
	}
	return fmt.Errorf("data_dir %s: %w", dir, err)
}
