//go:build !linux

package bluez

import "golang.org/x/sys/unix"

// syncDisks is sync(2). Off Linux there is no bluetoothd; it is here so
// the package builds for the sim board on a Mac.
func syncDisks() { _ = unix.Sync() }
