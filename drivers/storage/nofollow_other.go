//go:build !unix

package storage

import (
	"fmt"
	"os"
)

// ReadFileNoFollow is os.ReadFile, refusing a symbolic link at path (the
// check and the open are not atomic here; `pair --local` runs on the Pi).
func ReadFileNoFollow(path string) ([]byte, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("storage: %s is a symbolic link or not a regular file; refusing to follow it", path)
	}
	return os.ReadFile(path)
}

func replaceFile(path string, data []byte, perm os.FileMode) error {
	fi, err := os.Lstat(path)
	if os.IsNotExist(err) {
		return writeFile(path, data, perm, nil)
	}
	if err != nil {
		return fmt.Errorf("storage: writing %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("storage: writing %s: a symbolic link or not a regular file; refusing to follow it", path)
	}
	return writeFile(path, data, fi.Mode().Perm(), fi)
}
