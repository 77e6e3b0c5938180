//go:build !unix

package lanpair

import "os"

// owner: files have no numeric owner to keep here (Windows); the hook's
// own state is all ReplaceJSON ever edits on such a system.
func owner(os.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

// syncDir: directories cannot be fsynced on Windows; the rename is as
// durable as NTFS makes it.
func syncDir(string) error { return nil }
