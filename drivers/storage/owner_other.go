//go:build !unix

package storage

import "os"

// owner: files have no numeric owner to keep here (Windows, where only
// the CLI hook runs and edits nothing but its own state).
func owner(os.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

// syncDir: directories cannot be fsynced on Windows; the rename is as
// durable as NTFS makes it.
func syncDir(string) error { return nil }
