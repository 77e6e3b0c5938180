//go:build !linux && !darwin && !windows

package procwatch

func started() (int64, bool) { return 0, false }
