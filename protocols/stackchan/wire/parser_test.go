package wire

import (
	"bytes"
	"testing"
)

func mustFrame(t testing.TB, f Frame) []byte {
	t.Helper()
	b, err := AppendFrame(nil, f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestParserResync(t *testing.T) {
	a := mustFrame(t, Frame{Type: TypeMicPCM, StreamID: 1, Sequence: 0, SampleRate: 16000, Payload: bytes.Repeat([]byte{0x43, 0x53}, 8)})
	b := mustFrame(t, StatusFrame(1, StatusSpeaking))
	badCRC := bytes.Clone(a)
	badCRC[len(badCRC)-1] ^= 0xff
	v1 := bytes.Clone(b)
	v1[2] = 1
	badType := bytes.Clone(b)
	badType[3] = 7
	oversize := cat(b[:16], []byte{0x01, 0x10, 0, 0}, make([]byte, 8))
	tests := []struct {
		name      string
		in        []byte
		want      [][]byte // payloads
		crc, hdrs uint64
	}{
		{"garbage before", cat([]byte("hello world, no frame here at all"), a), [][]byte{a[20 : len(a)-4]}, 0, 0},
		// Each of the 8 "CS" pairs in the corrupt payload is tried as a header.
		{"crc then good", cat(badCRC, b), [][]byte{b[20:21]}, 1, 8},
		{"v1 frame skipped", cat(v1, b), [][]byte{b[20:21]}, 0, 1},
		{"bad type", cat(badType, b), [][]byte{b[20:21]}, 0, 1},
		{"oversize length", cat(oversize, b), [][]byte{b[20:21]}, 0, 1},
		{"frame inside corrupt frame", cat(b[:5], b, a), [][]byte{b[20:21], a[20 : len(a)-4]}, 1, 0},
		{"magic split by garbage", cat([]byte{0x43, 0x00, 0x53}, b), [][]byte{b[20:21]}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, step := range []int{len(tt.in), 1, 5, 17} {
				var p Parser
				var frames []Frame
				for i := 0; i < len(tt.in); i += step {
					p.Feed(tt.in[i:min(i+step, len(tt.in))])
					frames = drain(&p, frames)
				}
				if len(frames) != len(tt.want) {
					t.Fatalf("step %d: %d frames, want %d", step, len(frames), len(tt.want))
				}
				for i := range frames {
					if !bytes.Equal(frames[i].Payload, tt.want[i]) {
						t.Fatalf("step %d frame %d: payload %x, want %x", step, i, frames[i].Payload, tt.want[i])
					}
				}
				st := p.Stats()
				if st.CRCErrors != tt.crc || st.BadHeaders != tt.hdrs || st.Frames != uint64(len(tt.want)) {
					t.Fatalf("step %d: stats %+v, want crc %d headers %d", step, st, tt.crc, tt.hdrs)
				}
				if int(st.SkippedBytes)+p.Pending() != len(tt.in)-totalEncoded(frames) {
					t.Fatalf("step %d: skipped %d + pending %d don't account for %d input bytes", step, st.SkippedBytes, p.Pending(), len(tt.in))
				}
			}
		})
	}
}

func totalEncoded(fs []Frame) int {
	n := 0
	for _, f := range fs {
		n += f.EncodedLen()
	}
	return n
}

// TestParserKeepsLastByte pins §4 step 2: with no magic in 24+ bytes, only
// the last byte survives, since it may be the first half of "CS".
func TestParserKeepsLastByte(t *testing.T) {
	b := mustFrame(t, StatusFrame(0, StatusIdle))
	var p Parser
	p.Feed(append(bytes.Repeat([]byte{0}, 30), 0x43))
	if _, ok := p.Next(); ok || p.Pending() != 1 || p.Offset() != 30 {
		t.Fatalf("pending %d at offset %d, want 1 byte at 30", p.Pending(), p.Offset())
	}
	p.Feed(b[1:])
	f, ok := p.Next()
	if !ok || f.Payload[0] != 0 || p.Pending() != 0 {
		t.Fatalf("frame split after the kept 0x43 not found: %v, pending %d", ok, p.Pending())
	}
}

// TestParserWaitsBelowHeader pins §4 step 1: fewer than 24 bytes are kept
// whole, even without magic, until more arrive.
func TestParserWaitsBelowHeader(t *testing.T) {
	var p Parser
	p.Feed(make([]byte, 23))
	if _, ok := p.Next(); ok || p.Pending() != 23 || p.Stats().SkippedBytes != 0 {
		t.Fatalf("pending %d, stats %+v; want 23 kept", p.Pending(), p.Stats())
	}
}

func TestParserOnSkip(t *testing.T) {
	b := mustFrame(t, StatusFrame(0, StatusIdle))
	bad := bytes.Clone(b)
	bad[len(bad)-1] ^= 1
	var skips []Skip
	p := Parser{OnSkip: func(s Skip) { skips = append(skips, s) }}
	p.Feed(cat([]byte{0xff, 0x00}, bad, b))
	if fs := drain(&p, nil); len(fs) != 1 {
		t.Fatalf("%d frames, want 1", len(fs))
	}
	want := []Skip{
		{Offset: 0, Len: 2, Reason: SkipNoMagic},
		{Offset: 2, Len: 1, Reason: SkipCRC},
		{Offset: 3, Len: len(bad) - 1, Reason: SkipNoMagic},
	}
	if len(skips) != len(want) {
		t.Fatalf("skips %+v, want %+v", skips, want)
	}
	for i := range want {
		if skips[i] != want[i] {
			t.Fatalf("skip %d = %+v, want %+v", i, skips[i], want[i])
		}
	}
}

func TestParserReset(t *testing.T) {
	b := mustFrame(t, StatusFrame(0, StatusIdle))
	var p Parser
	p.Feed(b[:10])
	p.Reset()
	p.Feed(b)
	if fs := drain(&p, nil); len(fs) != 1 || p.Stats().SkippedBytes != 0 || p.Offset() != int64(len(b)) {
		t.Fatalf("after Reset: %d frames, stats %+v, offset %d", len(fs), p.Stats(), p.Offset())
	}
}

// TestParserPayloadStableAcrossNext pins the aliasing promise: Next never
// moves bytes, so earlier payloads stay valid until the next Feed.
func TestParserPayloadStableAcrossNext(t *testing.T) {
	a := mustFrame(t, Frame{Type: TypeEvent, Flags: 3, StreamID: 1, Payload: []byte("first")})
	b := mustFrame(t, Frame{Type: TypeEvent, Flags: 3, StreamID: 2, Payload: []byte("second")})
	var p Parser
	p.Feed(cat(a, b))
	f1, _ := p.Next()
	f2, _ := p.Next()
	if string(f1.Payload) != "first" || string(f2.Payload) != "second" {
		t.Fatalf("payloads %q %q", f1.Payload, f2.Payload)
	}
}

func TestParserZeroAllocs(t *testing.T) {
	pcm := mustFrame(t, Frame{Type: TypeSpeakerPCM, StreamID: 1, SampleRate: 24000, Payload: make([]byte, 3840)})
	in := cat(pcm, pcm, pcm[:100])
	var p Parser
	p.Feed(in) // warm up the buffer
	drain(&p, nil)
	allocs := testing.AllocsPerRun(100, func() {
		p.Feed(in)
		for _, ok := p.Next(); ok; _, ok = p.Next() {
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per Feed+Next round, want 0", allocs)
	}
}

// TestParserWaitsForClaimedLength pins §4 step 6: a plausible header with a
// large length holds back the frames behind it until enough bytes arrive
// to check its CRC, after which they are recovered.
func TestParserWaitsForClaimedLength(t *testing.T) {
	b := mustFrame(t, StatusFrame(0, StatusIdle))
	bogus := cat(b[:16], []byte{0xa0, 0x0f, 0, 0}) // length 4000, no payload
	var p Parser
	p.Feed(cat(bogus, b))
	if _, ok := p.Next(); ok {
		t.Fatal("frame emitted before the bogus length was covered")
	}
	p.Feed(make([]byte, 4000))
	fs := drain(&p, nil)
	if len(fs) != 1 || p.Stats().CRCErrors != 1 {
		t.Fatalf("%d frames, stats %+v; want the status frame after one CRC error", len(fs), p.Stats())
	}
}
