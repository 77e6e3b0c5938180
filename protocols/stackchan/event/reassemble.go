package event

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// Discard reasons of the Reassembler (spec §13.2). The texts are the
// upstream ones so logs from host and firmware line up. The Reassembler
// returns them inside an *Error; test with errors.Is.
var (
	// ErrZeroMessageID: stream id 0 (also refused by Chunk).
	ErrZeroMessageID = errors.New("event stream ID must not be zero")
	// ErrFirstSequence: a START frame whose sequence is not 0.
	ErrFirstSequence = errors.New("first event sequence must be zero")
	// ErrNoStart: a continuation for an id with no message in progress.
	ErrNoStart = errors.New("event continuation has no start chunk")
	// ErrSequenceMismatch: a lost, repeated or reordered chunk; the
	// partial message is discarded.
	ErrSequenceMismatch = errors.New("event sequence mismatch")
	// ErrTooLarge: the message would exceed MaxMessage bytes.
	ErrTooLarge = errors.New("event is too large")
	// ErrInvalidUTF8: the complete message is not UTF-8.
	ErrInvalidUTF8 = errors.New("event is not valid UTF-8")
	// ErrNotEvent: the frame's type is not EVENT (a caller bug).
	ErrNotEvent = errors.New("frame is not an EVENT frame")
)

// Error reports a discarded EVENT frame or message. Only that message is
// lost: the caller logs it and carries on (§13.3); the link, the parser and
// audio sessions are unaffected.
type Error struct {
	MessageID uint16 // stream id of the offending frame
	Sequence  uint32 // sequence of the offending frame
	Expected  uint32 // next sequence that was expected (ErrSequenceMismatch only)
	Discarded int    // bytes of a partial message thrown away with it
	Err       error  // one of the Err… reasons above
}

// Error gives the message id, the sequence and the reason, in upstream words.
func (e *Error) Error() string {
	if errors.Is(e.Err, ErrSequenceMismatch) {
		return fmt.Sprintf("event %d: %v: got %d, want %d (%d bytes discarded)", e.MessageID, e.Err, e.Sequence, e.Expected, e.Discarded)
	}
	if e.Discarded > 0 {
		return fmt.Sprintf("event %d seq %d: %v (%d bytes discarded)", e.MessageID, e.Sequence, e.Err, e.Discarded)
	}
	return fmt.Sprintf("event %d seq %d: %v", e.MessageID, e.Sequence, e.Err)
}

// Unwrap returns the reason, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// DefaultMaxPending is how many partially received messages a Reassembler
// keeps when MaxPending is zero (the [OURS] bound of §13.2).
const DefaultMaxPending = 8

// Reassembler joins EVENT frames back into messages, keyed by message id, so
// several messages may be in flight at once. Memory is bounded by
// MaxPending × MaxMessage: when a START arrives with all slots taken, the
// oldest partial message is evicted, so a peer that never finishes a
// message cannot wedge reception. The zero value is ready to use; it is not
// safe for concurrent use.
type Reassembler struct {
	// MaxPending bounds the partially received messages kept at once;
	// 0 means DefaultMaxPending.
	MaxPending int

	pending []partial
	started uint64 // START counter, orders pending messages for eviction
	stats   Stats
}

type partial struct {
	id    uint16
	next  uint32
	order uint64
	buf   []byte
}

// Stats counts what a Reassembler did, for diagnostics.
type Stats struct {
	Delivered uint64 // complete messages returned
	Discarded uint64 // frames or messages dropped with an *Error
	Restarted uint64 // partial messages replaced by a new START with their id
	Evicted   uint64 // partial messages dropped to make room (MaxPending)
}

// Stats returns the counters since the Reassembler was created.
func (r *Reassembler) Stats() Stats { return r.stats }

// Pending is the number of partially received messages held.
func (r *Reassembler) Pending() int { return len(r.pending) }

// Reset forgets every partial message, e.g. after a new HELLO or a USB
// disconnect. Counters are kept.
func (r *Reassembler) Reset() {
	clear(r.pending)
	r.pending = r.pending[:0]
}

// Add feeds one EVENT frame. It returns the message when f completes one
// (done is true; msg is newly allocated and owned by the caller, and valid
// UTF-8). A frame that breaks a rule of §13.2 yields an *Error and, where the
// rule says so, discards the partial message of that id. f.Payload is copied,
// so the frame may alias the wire parser's buffer.
func (r *Reassembler) Add(f wire.Frame) (msg []byte, done bool, err error) {
	start := f.Flags&wire.EventStart != 0
	end := f.Flags&wire.EventEnd != 0
	switch {
	case f.Type != wire.TypeEvent:
		return r.fail(f, 0, 0, ErrNotEvent)
	case f.StreamID == 0:
		return r.fail(f, 0, 0, ErrZeroMessageID)
	case start && f.Sequence != 0:
		return r.fail(f, 0, 0, ErrFirstSequence)
	}
	i := r.find(f.StreamID)
	if start {
		if i >= 0 {
			r.stats.Restarted++
			r.remove(i)
		}
		if len(f.Payload) > MaxMessage {
			return r.fail(f, 0, 0, ErrTooLarge)
		}
		if end {
			return r.deliver(f, append([]byte(nil), f.Payload...))
		}
		r.push(f.StreamID, f.Payload)
		return nil, false, nil
	}
	if i < 0 {
		return r.fail(f, 0, 0, ErrNoStart)
	}
	p := &r.pending[i]
	if f.Sequence != p.next {
		want, n := p.next, len(p.buf)
		r.remove(i)
		return r.fail(f, want, n, ErrSequenceMismatch)
	}
	if len(p.buf)+len(f.Payload) > MaxMessage {
		n := len(p.buf)
		r.remove(i)
		return r.fail(f, 0, n, ErrTooLarge)
	}
	p.buf = append(p.buf, f.Payload...)
	p.next++
	if !end {
		return nil, false, nil
	}
	msg = p.buf
	r.remove(i)
	return r.deliver(f, msg)
}

func (r *Reassembler) deliver(f wire.Frame, msg []byte) ([]byte, bool, error) {
	if !utf8.Valid(msg) {
		return r.fail(f, 0, len(msg), ErrInvalidUTF8)
	}
	r.stats.Delivered++
	return msg, true, nil
}

func (r *Reassembler) fail(f wire.Frame, want uint32, discarded int, reason error) ([]byte, bool, error) {
	r.stats.Discarded++
	return nil, false, &Error{MessageID: f.StreamID, Sequence: f.Sequence, Expected: want, Discarded: discarded, Err: reason}
}

func (r *Reassembler) find(id uint16) int {
	for i := range r.pending {
		if r.pending[i].id == id {
			return i
		}
	}
	return -1
}

// push starts a partial message, evicting the oldest when the table is full.
func (r *Reassembler) push(id uint16, first []byte) {
	limit := r.MaxPending
	if limit <= 0 {
		limit = DefaultMaxPending
	}
	for len(r.pending) >= limit {
		oldest := 0
		for i := range r.pending {
			if r.pending[i].order < r.pending[oldest].order {
				oldest = i
			}
		}
		r.remove(oldest)
		r.stats.Evicted++
	}
	r.started++
	// Most messages fit one or two chunks; start at twice the first chunk so
	// the common two-chunk case does not grow.
	buf := make([]byte, len(first), min(2*len(first)+64, MaxMessage))
	copy(buf, first)
	r.pending = append(r.pending, partial{id: id, next: 1, order: r.started, buf: buf})
}

func (r *Reassembler) remove(i int) {
	last := len(r.pending) - 1
	r.pending[i] = r.pending[last]
	r.pending[last] = partial{}
	r.pending = r.pending[:last]
}
