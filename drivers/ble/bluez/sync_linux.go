package bluez

import "golang.org/x/sys/unix"

// syncDisks is sync(2): every file system's dirty data to its disk.
func syncDisks() { unix.Sync() }
