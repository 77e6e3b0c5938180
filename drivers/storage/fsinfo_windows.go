package storage

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// FSInfo reports the bytes available to this user and the total size of
// the volume holding dir (see fsinfo_unix.go; Windows builds exist for the
// developer-side CLI hook only).
func FSInfo(dir string) (free, total uint64, err error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, 0, fmt.Errorf("storage: %s: %w", dir, err)
	}
	if err := windows.GetDiskFreeSpaceEx(p, &free, &total, nil); err != nil {
		return 0, 0, fmt.Errorf("storage: free space of %s: %w", dir, err)
	}
	return free, total, nil
}
