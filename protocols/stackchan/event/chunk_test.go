package event

import (
	"bytes"
	"errors"
	"testing"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

func TestChunkFields(t *testing.T) {
	frames, err := Chunk(42, []byte("abcdefg"), 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []wire.Frame{
		{Type: wire.TypeEvent, Flags: S, StreamID: 42, Sequence: 0, Payload: []byte("abc")},
		{Type: wire.TypeEvent, Flags: 0, StreamID: 42, Sequence: 1, Payload: []byte("def")},
		{Type: wire.TypeEvent, Flags: E, StreamID: 42, Sequence: 2, Payload: []byte("g")},
	}
	if len(frames) != len(want) {
		t.Fatalf("%d frames; want %d", len(frames), len(want))
	}
	for i := range want {
		g, w := frames[i], want[i]
		if g.Type != w.Type || g.Flags != w.Flags || g.StreamID != w.StreamID || g.Sequence != w.Sequence || g.SampleRate != 0 || !bytes.Equal(g.Payload, w.Payload) {
			t.Fatalf("frame %d = %+v; want %+v", i, g, w)
		}
	}
}

func TestChunkEmptyAndSingle(t *testing.T) {
	for _, p := range [][]byte{nil, {}, []byte("{}")} {
		frames, err := Chunk(1, p, 4096)
		if err != nil || len(frames) != 1 || frames[0].Flags != SE || !bytes.Equal(frames[0].Payload, p) {
			t.Fatalf("Chunk(%q) = %+v, %v; want one START|END frame", p, frames, err)
		}
	}
}

func TestChunkRejects(t *testing.T) {
	tests := []struct {
		name     string
		id       uint16
		n, chunk int
		want     error
	}{
		{"zero id", 0, 1, 10, ErrZeroMessageID},
		{"too large", 1, MaxMessage + 1, 4096, ErrMessageTooLarge},
		{"zero chunk", 1, 1, 0, ErrBadChunkSize},
		{"chunk above max payload", 1, 1, wire.MaxPayload + 1, ErrBadChunkSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Chunk(tt.id, make([]byte, tt.n), tt.chunk)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v; want %v", err, tt.want)
			}
		})
	}
}

// TestChunkRoundTrip covers sizes around chunk boundaries for the chunk sizes
// peers actually negotiate (640 is the smallest the firmware accepts).
func TestChunkRoundTrip(t *testing.T) {
	var r Reassembler
	var ids IDs
	for _, chunk := range []int{1, 7, wire.MinPeerPayload, wire.MaxPayload} {
		for _, n := range []int{0, 1, chunk - 1, chunk, chunk + 1, 2*chunk - 1, 2 * chunk, 2*chunk + 1, MaxMessage - 1, MaxMessage} {
			if n < 0 || (chunk == 1 && n > 5000) {
				continue
			}
			msg := make([]byte, n)
			for i := range msg {
				msg[i] = 'a' + byte(i%26)
			}
			frames, err := Chunk(ids.Next(), msg, chunk)
			if err != nil {
				t.Fatal(err)
			}
			if len(frames) != Count(n, chunk) {
				t.Fatalf("n=%d chunk=%d: %d frames; Count says %d", n, chunk, len(frames), Count(n, chunk))
			}
			for _, f := range frames {
				if len(f.Payload) > chunk {
					t.Fatalf("n=%d chunk=%d: payload of %d bytes", n, chunk, len(f.Payload))
				}
			}
			if got := feed(t, &r, frames); !bytes.Equal(got, msg) {
				t.Fatalf("n=%d chunk=%d: round trip differs", n, chunk)
			}
		}
	}
}

func TestIDsWrapToOne(t *testing.T) {
	var a IDs
	if got := a.Next(); got != 1 {
		t.Fatalf("first id %d; want 1", got)
	}
	a = IDs{last: 65534}
	for _, want := range []uint16{65535, 1, 2} {
		if got := a.Next(); got != want {
			t.Fatalf("Next() = %d; want %d", got, want)
		}
	}
}

func TestAppendChunksReusesDst(t *testing.T) {
	dst := make([]wire.Frame, 0, 4)
	out, err := AppendChunks(dst, 1, []byte("abcd"), 2)
	if err != nil || len(out) != 2 || &out[0] != &dst[:1][0] {
		t.Fatalf("AppendChunks did not append into dst: %v", err)
	}
}
