package session

import (
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// BenchmarkSpeakerSenderFrame measures the host hot path per 80 ms frame at
// 24 kHz: queue a frame of PCM, take credit, emit the frame.
func BenchmarkSpeakerSenderFrame(b *testing.B) {
	p, _ := NewSpeakerSender(SpeakerConfig{StreamID: 1, SampleRate: 24000})
	p.Next(t0)
	pcm := make([]byte, 3840)
	b.SetBytes(int64(len(pcm)))
	b.ReportAllocs()
	for b.Loop() {
		p.QueuePCM(pcm)
		p.OnCredit(1, uint32(len(pcm)), t0)
		if a, ok := p.Next(t0); !ok || a.Type != wire.TypeSpeakerPCM {
			b.Fatalf("no frame: %+v", a)
		}
	}
}

// BenchmarkDockSpeakerFrame is the fake CoreS3's cost per frame: accept PCM,
// play 80 ms, grant credit back.
func BenchmarkDockSpeakerFrame(b *testing.B) {
	var d Dock
	d.SpeakerStart(1, 24000, 0)
	d.Speaker.PCM(1, 24000, 0, 3840)
	d.Speaker.playing = true
	b.SetBytes(3840)
	b.ReportAllocs()
	for b.Loop() {
		d.Advance(80 * time.Millisecond)
		if o := d.SpeakerPCM(1, 24000, d.Speaker.ExpectedSequence(), 3840); o.Result != Accepted {
			b.Fatalf("frame refused: %+v", o.Replies)
		}
	}
}

func BenchmarkMicReceiverFrame(b *testing.B) {
	r, _ := NewMicReceiver(1)
	r.Next(t0)
	r.OnStarted(1)
	b.SetBytes(MicFrameBytes)
	b.ReportAllocs()
	var seq uint32
	for b.Loop() {
		if _, err := r.OnPCM(1, seq, MicRate, MicFrameBytes); err != nil {
			b.Fatal(err)
		}
		seq++
	}
}
