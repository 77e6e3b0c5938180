package event

import (
	"errors"
	"fmt"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// MaxMessage is the largest EVENT message in bytes (64 KiB, spec §13.1).
const MaxMessage = 64 << 10

// Errors returned by [Chunk] and [AppendChunks] for caller mistakes.
var (
	// ErrMessageTooLarge: the message exceeds MaxMessage bytes.
	ErrMessageTooLarge = errors.New("event message too large")
	// ErrBadChunkSize: maxChunk is outside 1..wire.MaxPayload.
	ErrBadChunkSize = errors.New("event chunk size out of range")
)

// Chunk splits payload into the EVENT frames of message msgID, each carrying
// at most maxChunk payload bytes (the negotiated max payload). See
// [AppendChunks] for the rules; Chunk only allocates the result slice.
func Chunk(msgID uint16, payload []byte, maxChunk int) ([]wire.Frame, error) {
	if maxChunk < 1 || maxChunk > wire.MaxPayload {
		return nil, fmt.Errorf("event %d: %w: %d (want 1..%d)", msgID, ErrBadChunkSize, maxChunk, wire.MaxPayload)
	}
	return AppendChunks(make([]wire.Frame, 0, Count(len(payload), maxChunk)), msgID, payload, maxChunk)
}

// Count is the number of frames a message of n bytes needs with chunks of at
// most maxChunk bytes. An empty message still takes one frame.
func Count(n, maxChunk int) int {
	if n <= 0 || maxChunk <= 0 {
		return 1
	}
	return (n + maxChunk - 1) / maxChunk
}

// AppendChunks appends the EVENT frames of message msgID to dst: type EVENT,
// stream id msgID, sequence 0, 1, …, START on the first frame, END on the
// last, sample rate 0. An empty payload gives one frame with flags
// START|END and no payload.
//
// The frames' payloads alias payload: keep it unchanged until they are
// encoded. msgID 0, a payload above MaxMessage or maxChunk outside
// 1..wire.MaxPayload are refused, since a peer would discard the message.
func AppendChunks(dst []wire.Frame, msgID uint16, payload []byte, maxChunk int) ([]wire.Frame, error) {
	switch {
	case msgID == 0:
		return dst, fmt.Errorf("event: %w", ErrZeroMessageID)
	case len(payload) > MaxMessage:
		return dst, fmt.Errorf("event %d: %w: %d bytes (max %d)", msgID, ErrMessageTooLarge, len(payload), MaxMessage)
	case maxChunk < 1 || maxChunk > wire.MaxPayload:
		return dst, fmt.Errorf("event %d: %w: %d (want 1..%d)", msgID, ErrBadChunkSize, maxChunk, wire.MaxPayload)
	}
	seq := uint32(0)
	for {
		n := min(len(payload), maxChunk)
		f := wire.Frame{Type: wire.TypeEvent, StreamID: msgID, Sequence: seq, Payload: payload[:n:n]}
		if seq == 0 {
			f.Flags |= wire.EventStart
		}
		payload = payload[n:]
		if len(payload) == 0 {
			f.Flags |= wire.EventEnd
			return append(dst, f), nil
		}
		dst = append(dst, f)
		seq++
	}
}

// IDs hands out EVENT message ids for one sender: 1, 2, …, 65535, then 1
// again. Id 0 is reserved (receivers discard it). The zero value is ready;
// reset it (IDs{}) on a new handshake if the caller wants ids to restart.
type IDs struct {
	last uint16
}

// Next returns the next message id, never 0.
func (a *IDs) Next() uint16 {
	a.last++
	if a.last == 0 {
		a.last = 1
	}
	return a.last
}
