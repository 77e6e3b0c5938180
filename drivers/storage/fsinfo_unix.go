//go:build unix

package storage

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// FSInfo reports the bytes available to an unprivileged writer and the
// total size of the filesystem holding dir. The status ack reports them as
// fsFree and fsTotal; free excludes the blocks reserved for root, because
// the appliance does not run its packs as root's emergency space.
func FSInfo(dir string) (free, total uint64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, fmt.Errorf("storage: statfs %s: %w", dir, err)
	}
	bs := uint64(st.Bsize)
	return st.Bavail * bs, st.Blocks * bs, nil
}
