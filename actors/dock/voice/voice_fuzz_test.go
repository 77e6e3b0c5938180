package voice

import (
	"slices"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// FuzzVoiceFrames feeds arbitrary bytes to a host whose microphone session
// is open: it must never panic, keep at most listenFor of audio, and write
// only frames that parse.
func FuzzVoiceFrames(f *testing.F) {
	started, _ := wire.AppendFrame(nil, wire.MicStartedFrame(1, 0))
	pcm, _ := wire.AppendFrame(nil, wire.Frame{Type: wire.TypeMicPCM, StreamID: 1, SampleRate: 16000, Payload: make([]byte, 640)})
	stopped, _ := wire.AppendFrame(nil, wire.MicStoppedFrame(1, 1))
	f.Add(slices.Concat(started, pcm, pcm, stopped))
	f.Add(slices.Concat(pcm, started))
	f.Fuzz(func(t *testing.T, b []byte) {
		t0 := time.Unix(1000, 0)
		h := voiceHost(t, t0)
		h.beginVoice(7, requestID(prompt.Source, prompt.ID), t0)
		h.voiceSpoken(7, true, t0)
		var p wire.Parser
		p.Feed(b)
		now := t0
		for fr, ok := p.Next(); ok; fr, ok = p.Next() {
			now = now.Add(5 * time.Millisecond)
			h.frame(fr, now)
			h.tick(now)
		}
		h.tick(now.Add(3 * time.Second))
		if len(h.voice.pcm) > h.voiceMaxPCM() {
			t.Fatalf("kept %d bytes of audio, limit %d", len(h.voice.pcm), h.voiceMaxPCM())
		}
		if h.voice.mic != nil && h.voice.mic.State().String() == "stopped" {
			t.Fatal("a stopped microphone session is still held")
		}
		var q wire.Parser
		q.Feed(h.takeTx())
		for _, ok := q.Next(); ok; _, ok = q.Next() {
		}
		if s := q.Stats(); s.SkippedBytes != 0 || q.Pending() != 0 {
			t.Fatalf("host wrote bytes that do not parse: %+v", s)
		}
	})
}

// FuzzParseVerdict: never panics, and saying the same thing twice means
// the same.
func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{"yes", "No.", "Don’t", "okay, go ahead", "yes no", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if a, b := parseVerdict(s), parseVerdict(s+" "+s); a != b {
			t.Fatalf("%q means %v, twice it means %v", s, a, b)
		}
	})
}
