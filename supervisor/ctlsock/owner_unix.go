//go:build unix

package ctlsock

import (
	"os"
	"syscall"
)

// ownerOf reads a file's owner and group; only unix file systems have them,
// and the client also builds for Windows (the hook's platforms).
func ownerOf(fi os.FileInfo) (uid, gid uint32, ok bool) {
	if fi == nil {
		return 0, 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return st.Uid, st.Gid, true
}
