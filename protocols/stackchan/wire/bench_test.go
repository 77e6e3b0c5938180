package wire

import (
	"testing"
	"time"
)

// pcmStream is 1 s of 24 kHz 16-bit mono speech in 80 ms frames (3840-byte
// payloads), the heaviest traffic the host sends.
func pcmStream(b *testing.B) ([]byte, int) {
	var s []byte
	payload := make([]byte, 3840)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	var err error
	for seq := range 13 {
		s, err = AppendFrame(s, Frame{Type: TypeSpeakerPCM, StreamID: 3, Sequence: uint32(seq), SampleRate: 24000, Payload: payload})
		if err != nil {
			b.Fatal(err)
		}
	}
	return s, 13
}

// eventStream is 64 small EVENT frames of ~200 bytes, like task.status and
// approval traffic.
func eventStream(b *testing.B) ([]byte, int) {
	var s []byte
	payload := []byte(`{"schema":"stackchan.event.v1","type":"task.status","requestId":"r-000001","state":"running","title":"Running the test suite for the wire package","detail":"go test ./protocols/stackchan/wire/ -count=1 -race"}`)
	var err error
	for id := range 64 {
		s, err = AppendFrame(s, Frame{Type: TypeEvent, Flags: EventStart | EventEnd, StreamID: uint16(id + 1), Payload: payload})
		if err != nil {
			b.Fatal(err)
		}
	}
	return s, 64
}

// benchParse feeds the stream in 512-byte reads, the typical CDC read size;
// timed, with FeedAt and a clock 1 ms on per read, as the dock does.
func benchParse(b *testing.B, stream []byte, frames int, timed bool) {
	var p Parser
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		got := 0
		for i := 0; i < len(stream); i += 512 {
			if timed {
				p.FeedAt(t0.Add(time.Duration(i/512)*time.Millisecond), stream[i:min(i+512, len(stream))])
			} else {
				p.Feed(stream[i:min(i+512, len(stream))])
			}
			for _, ok := p.Next(); ok; _, ok = p.Next() {
				got++
			}
		}
		if got != frames {
			b.Fatalf("parsed %d frames, want %d", got, frames)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*frames), "ns/frame")
}

func BenchmarkParserPCM(b *testing.B) {
	s, n := pcmStream(b)
	benchParse(b, s, n, false)
}

func BenchmarkParserEvent(b *testing.B) {
	s, n := eventStream(b)
	benchParse(b, s, n, false)
}

func BenchmarkParserPCMTimed(b *testing.B) {
	s, n := pcmStream(b)
	benchParse(b, s, n, true)
}

func BenchmarkParserEventTimed(b *testing.B) {
	s, n := eventStream(b)
	benchParse(b, s, n, true)
}

func BenchmarkAppendFramePCM(b *testing.B) {
	f := Frame{Type: TypeSpeakerPCM, StreamID: 3, SampleRate: 24000, Payload: make([]byte, 3840)}
	buf := make([]byte, 0, MaxFrame)
	b.SetBytes(int64(f.EncodedLen()))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendFrame(buf[:0], f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendFrameHello(b *testing.B) {
	buf := make([]byte, 0, MaxFrame)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendFrame(buf[:0], HelloFrame(0, HostHello)); err != nil {
			b.Fatal(err)
		}
	}
}
