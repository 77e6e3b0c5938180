package voice

import (
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

func TestAssistantText(t *testing.T) {
	tests := []struct{ content, want string }{
		{`[{"type":"text","text":"Done. Tests pass. Anything else?"}]`, "Done. Tests pass."},
		{`[{"type":"tool_use","name":"Bash"}]`, ""},
		{`"Plain **string** content."`, "Plain string content."},
		{`{"broken"`, ""},
	}
	for _, tt := range tests {
		if got := AssistantText([]byte(tt.content), 200); got != tt.want {
			t.Errorf("AssistantText(%s) = %q, want %q", tt.content, got, tt.want)
		}
	}
	if got := Shorten(strings.Repeat("word ", 100), 20); len([]rune(got)) > 21 || !strings.HasSuffix(got, "…") {
		t.Errorf("Shorten = %q", got)
	}
}

// BenchmarkSpeakSecond measures the voice part's CPU cost of sending one second of
// 24 kHz speech (48,000 bytes of PCM in 80 ms frames) to an in-process
// session.Dock that grants credit and plays out.
func BenchmarkSpeakSecond(b *testing.B) {
	pcm := make([]byte, 48000)
	b.ReportAllocs()
	b.SetBytes(int64(len(pcm)))
	t0 := time.Unix(1000, 0)
	for b.Loop() {
		h := readyFakeHost(fakeHostConfig{Config: Config{HasTTS: true, Token: "t"}}, wire.FirmwareCaps, t0)
		var dock session.Dock
		h.say(utterance{kind: sayAssistant, text: "One second."}, t0)
		h.takeEffects()
		h.SynthDone(h.speech.cur.id, 0, pcm, nil, t0)
		now := t0
		for h.speech.cur != nil {
			var p wire.Parser
			p.Feed(h.takeTx())
			var replies []session.Reply
			for f, ok := p.Next(); ok; f, ok = p.Next() {
				var o session.Outcome
				if f.Type == wire.TypeSpeakerPCM {
					o = dock.SpeakerPCM(f.StreamID, f.SampleRate, f.Sequence, len(f.Payload))
				} else if code, _ := f.Control(); code != wire.CtrlStatus {
					o, _ = dock.Control(code, f.StreamID, f.SampleRate, f.Payload)
				}
				replies = append(replies, o.Replies...)
			}
			now = now.Add(20 * time.Millisecond)
			replies = append(replies, dock.Advance(20*time.Millisecond).Replies...)
			for _, r := range replies {
				switch r.Code {
				case wire.CtrlSpeakerCredit:
					h.SpeakerCredit(r.StreamID, r.Value, now)
				case wire.CtrlSpeakerDone:
					h.SpeakerDone(r.StreamID, now)
				}
			}
			h.flushSpeech(now)
		}
	}
}
