package event

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// FuzzReassembler feeds arbitrary frame sequences, decoded from ops as
// records of (id byte, flags byte, seq byte, len byte, payload), then checks
// that a well-formed message still reassembles: whatever came before, the
// reassembler must not panic, exceed its memory bound or get stuck.
func FuzzReassembler(f *testing.F) {
	f.Add([]byte{}, []byte(`{"type":"x"}`), uint16(4096))
	f.Add([]byte{11, 1, 0, 1, 'a', 11, 2, 2, 1, 'b'}, []byte("hello"), uint16(2))
	f.Add([]byte{1, 1, 0, 2, 'a', 'b', 1, 0, 1, 1, 'c', 2, 3, 0, 0, 1, 2, 2, 0}, []byte{0xff}, uint16(1))
	f.Add([]byte{0, 3, 0, 0, 3, 0, 5, 0}, bytes.Repeat([]byte("z"), 5000), uint16(640))
	f.Fuzz(func(t *testing.T, ops, msg []byte, maxChunk uint16) {
		r := Reassembler{MaxPending: 4}
		for len(ops) >= 4 {
			n := min(int(ops[3]), len(ops)-4)
			fr := wire.Frame{Type: wire.TypeEvent, StreamID: uint16(ops[0] % 8), Flags: uint16(ops[1] & 3), Sequence: uint32(ops[2] % 4), Payload: ops[4 : 4+n]}
			if ops[1]&0x80 != 0 {
				fr.Type = wire.Type(ops[1] & 7)
			}
			ops = ops[4+n:]
			got, done, err := r.Add(fr)
			if done && (err != nil || len(got) > MaxMessage || !utf8.Valid(got)) {
				t.Fatalf("delivered %d bytes with err %v", len(got), err)
			}
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v is not an *Error", err)
				}
			}
			if r.Pending() > 4 {
				t.Fatalf("%d pending; bound is 4", r.Pending())
			}
			held := 0
			for _, p := range r.pending {
				held += cap(p.buf)
			}
			if held > 4*MaxMessage {
				t.Fatalf("holding %d bytes", held)
			}
		}

		// Round trip, reusing an id the garbage may have left half-open.
		if len(msg) > MaxMessage {
			msg = msg[:MaxMessage]
		}
		chunk := int(maxChunk)%wire.MaxPayload + 1
		frames, err := Chunk(3, msg, chunk)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for i, fr := range frames {
			m, done, err := r.Add(fr)
			if i < len(frames)-1 && (done || err != nil) {
				t.Fatalf("frame %d/%d: done=%v err=%v", i, len(frames), done, err)
			}
			if i == len(frames)-1 {
				if !utf8.Valid(msg) {
					if !errors.Is(err, ErrInvalidUTF8) {
						t.Fatalf("invalid UTF-8 message: err = %v", err)
					}
					return
				}
				if err != nil || !done {
					t.Fatalf("last frame: done=%v err=%v", done, err)
				}
				got = m
			}
		}
		if !bytes.Equal(got, msg) {
			t.Fatalf("round trip: got %x want %x", got, msg)
		}
	})
}

// BenchmarkReassemble measures a 10 KiB message in 4 KiB chunks, the size
// of a large approval.request.
func BenchmarkReassemble(b *testing.B) {
	msg := bytes.Repeat([]byte("x"), 10<<10)
	frames, err := Chunk(1, msg, wire.MaxPayload)
	if err != nil {
		b.Fatal(err)
	}
	var r Reassembler
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		for _, f := range frames {
			if _, _, err := r.Add(f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkReassembleSmall is the common case: one frame, a few hundred bytes.
func BenchmarkReassembleSmall(b *testing.B) {
	msg := []byte(`{"schema":"stackchan.event.v1","type":"approval.request","requestId":"approval-1","kind":"command","title":"Run tests","summary":"npm test","detail":"npm test","truncated":false}`)
	f := wire.Frame{Type: wire.TypeEvent, Flags: SE, StreamID: 1, Payload: msg}
	var r Reassembler
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if _, _, err := r.Add(f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChunk(b *testing.B) {
	msg := make([]byte, MaxMessage)
	dst := make([]wire.Frame, 0, Count(len(msg), wire.MaxPayload))
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		var err error
		if dst, err = AppendChunks(dst[:0], 1, msg, wire.MaxPayload); err != nil {
			b.Fatal(err)
		}
	}
}
