package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Frame is one decoded wire v2 frame. For CONTROL frames Flags holds the
// control code (see [Frame.Control]); for EVENT frames it holds [EventStart]
// and [EventEnd].
//
// A Frame returned by [Parser.Next] aliases the parser's buffer: its Payload
// is valid only until the next Feed or Reset. Copy it to keep it.
type Frame struct {
	Type       Type
	Flags      uint16
	StreamID   uint16
	Sequence   uint32
	SampleRate uint32
	Payload    []byte
}

// Control returns the control code of a CONTROL frame. The result is
// meaningless for other types, which is why it also reports ok.
func (f Frame) Control() (c Control, ok bool) {
	return Control(f.Flags), f.Type == TypeControl
}

// EncodedLen is the number of bytes AppendFrame writes for f.
func (f Frame) EncodedLen() int { return Overhead + len(f.Payload) }

// Sentinel errors of the frame codec. Decoding errors wrap them with detail,
// so test with errors.Is.
var (
	// ErrPayloadTooLarge: a payload above MaxPayload (4096) bytes.
	ErrPayloadTooLarge = errors.New("payload too large")
	// ErrInvalidType: a type byte above TypeEvent.
	ErrInvalidType = errors.New("invalid frame type")
	// ErrShortFrame: fewer bytes than the header's length field needs.
	ErrShortFrame = errors.New("short frame")
	// ErrBadMagic: the first two bytes are not 43 53.
	ErrBadMagic = errors.New("bad magic")
	// ErrBadVersion: the version byte is not 2 (v1 peers land here, §3.4).
	ErrBadVersion = errors.New("unsupported version")
	// ErrCRCMismatch: the trailing CRC-32 does not match header+payload.
	ErrCRCMismatch = errors.New("crc mismatch")
)

// AppendFrame appends the encoding of f to dst and returns the extended
// slice. It refuses a payload above MaxPayload bytes or an invalid type, so
// a peer's parser never has to resynchronise on something we sent. It does
// not allocate when dst has room for f.EncodedLen() more bytes.
func AppendFrame(dst []byte, f Frame) ([]byte, error) {
	if len(f.Payload) > MaxPayload {
		return dst, fmt.Errorf("wire: encoding %s frame: %w (%d bytes, max %d)", f.Type, ErrPayloadTooLarge, len(f.Payload), MaxPayload)
	}
	if f.Type > TypeEvent {
		return dst, fmt.Errorf("wire: encoding frame: %w %d", ErrInvalidType, uint8(f.Type))
	}
	start := len(dst)
	dst = binary.LittleEndian.AppendUint16(dst, Magic)
	dst = append(dst, Version, byte(f.Type))
	dst = binary.LittleEndian.AppendUint16(dst, f.Flags)
	dst = binary.LittleEndian.AppendUint16(dst, f.StreamID)
	dst = binary.LittleEndian.AppendUint32(dst, f.Sequence)
	dst = binary.LittleEndian.AppendUint32(dst, f.SampleRate)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(f.Payload)))
	dst = append(dst, f.Payload...)
	return binary.LittleEndian.AppendUint32(dst, crc32.ChecksumIEEE(dst[start:])), nil
}

// CheckStreamID converts an int stream id (from JSON, flags, config) to the
// uint16 the wire carries, refusing values outside 0–65535 (§2).
func CheckStreamID(id int) (uint16, error) {
	if id < 0 || id > 0xFFFF {
		return 0, fmt.Errorf("wire: stream id %d out of range 0-65535", id)
	}
	return uint16(id), nil
}

// DecodeFrame decodes the single frame at the start of b and returns it with
// the number of bytes it used. Unlike [Parser] it does not search or
// resynchronise: it reports why b does not start with a valid frame. The
// returned payload aliases b.
func DecodeFrame(b []byte) (Frame, int, error) {
	if len(b) < Overhead {
		return Frame{}, 0, fmt.Errorf("wire: decoding frame: %w: %d bytes, need at least %d", ErrShortFrame, len(b), Overhead)
	}
	if binary.LittleEndian.Uint16(b) != Magic {
		return Frame{}, 0, fmt.Errorf("wire: decoding frame: %w % x", ErrBadMagic, b[:2])
	}
	if b[2] != Version {
		return Frame{}, 0, fmt.Errorf("wire: decoding frame: %w %d", ErrBadVersion, b[2])
	}
	if Type(b[3]) > TypeEvent {
		return Frame{}, 0, fmt.Errorf("wire: decoding frame: %w %d", ErrInvalidType, b[3])
	}
	n := binary.LittleEndian.Uint32(b[16:])
	if n > MaxPayload {
		return Frame{}, 0, fmt.Errorf("wire: decoding frame: %w: length field %d, max %d", ErrPayloadTooLarge, n, MaxPayload)
	}
	end := HeaderSize + int(n)
	if len(b) < end+CRCSize {
		return Frame{}, 0, fmt.Errorf("wire: decoding frame: %w: %d bytes, length field needs %d", ErrShortFrame, len(b), end+CRCSize)
	}
	if got, want := binary.LittleEndian.Uint32(b[end:]), crc32.ChecksumIEEE(b[:end]); got != want {
		return Frame{}, 0, fmt.Errorf("wire: decoding frame: %w: stored %08x, computed %08x", ErrCRCMismatch, got, want)
	}
	return headerFrame(b, end), end + CRCSize, nil
}

// headerFrame builds the Frame of an already validated header; the payload
// is b[HeaderSize:end] with its capacity clipped so an append by the caller
// cannot overwrite the CRC or the next frame.
func headerFrame(b []byte, end int) Frame {
	return Frame{
		Type:       Type(b[3]),
		Flags:      binary.LittleEndian.Uint16(b[4:]),
		StreamID:   binary.LittleEndian.Uint16(b[6:]),
		Sequence:   binary.LittleEndian.Uint32(b[8:]),
		SampleRate: binary.LittleEndian.Uint32(b[12:]),
		Payload:    b[HeaderSize:end:end],
	}
}
