package nus

import (
	"bytes"
	"errors"
	"fmt"
)

// ATT MTU bounds. 23 is the Bluetooth LE default before any exchange; 517 is
// the largest an ATT exchange can agree on and what the reference requests.
const (
	MinMTU     = 23
	DefaultMTU = MinMTU
	MaxMTU     = 517
	// ATTHeader is the opcode and handle that share the MTU with the payload
	// of every notification.
	ATTHeader = 3
)

// Errors returned by [AppendChunks].
var (
	// ErrUnterminated means the line does not end in '\n'. The newline must
	// travel in the same buffer as the JSON: sent on its own it can be lost
	// under congestion and two objects arrive glued together (spec §3.3).
	ErrUnterminated = errors.New("nus: outgoing line does not end in \\n")
	// ErrEmbeddedNewline means a '\n' occurs before the end of the line,
	// which would make the desktop see two lines.
	ErrEmbeddedNewline = errors.New("nus: outgoing line contains \\n before its end")
)

// MTUError reports an ATT MTU outside [MinMTU, MaxMTU].
type MTUError struct{ MTU int }

// Error names the MTU and the valid range.
func (e *MTUError) Error() string {
	return fmt.Sprintf("nus: ATT MTU %d out of range %d..%d", e.MTU, MinMTU, MaxMTU)
}

// ClampMTU forces mtu into [MinMTU, MaxMTU]. Use it on a value reported by a
// Bluetooth stack before passing it to [AppendChunks]: an odd report should
// not stop the device from talking.
func ClampMTU(mtu int) int {
	return min(max(mtu, MinMTU), MaxMTU)
}

// MaxPayload is the largest notification payload at the given ATT MTU.
func MaxPayload(mtu int) int { return mtu - ATTHeader }

// AppendChunks appends to dst the notifications that carry line at the given
// ATT MTU and returns the extended slice. line must be one complete line
// ending in '\n' (what the buddy encoders return). The chunks are subslices
// of line, not copies, so line must stay unchanged until every chunk has
// been sent; reuse dst to send without allocating.
func AppendChunks(dst [][]byte, line []byte, mtu int) ([][]byte, error) {
	if mtu < MinMTU || mtu > MaxMTU {
		return dst, &MTUError{MTU: mtu}
	}
	n := len(line)
	if n == 0 || line[n-1] != '\n' {
		return dst, ErrUnterminated
	}
	if bytes.IndexByte(line[:n-1], '\n') >= 0 {
		return dst, ErrEmbeddedNewline
	}
	size := MaxPayload(mtu)
	for len(line) > size {
		dst = append(dst, line[:size:size])
		line = line[size:]
	}
	return append(dst, line), nil
}

// Chunks is [AppendChunks] into a new slice.
func Chunks(line []byte, mtu int) ([][]byte, error) {
	return AppendChunks(nil, line, mtu)
}
