//go:build !unix

package statefile

import "errors"

func mkfifo(string) error { return errors.ErrUnsupported }

const haveFifo = false
