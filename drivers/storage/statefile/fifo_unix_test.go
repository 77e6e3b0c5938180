//go:build unix

package statefile

import "syscall"

// mkfifo makes a FIFO at p: a "file" whose open would block for ever.
func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }

const haveFifo = true
