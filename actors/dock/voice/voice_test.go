package voice

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// voiceHost is a ready fake host with voice approval and one pending prompt.
func voiceHost(t testing.TB, t0 time.Time) *fakeHost {
	t.Helper()
	h := readyFakeHost(fakeHostConfig{
		Config: Config{SpeakConversation: true, HasTTS: true, Voice: true, ListenFor: time.Second, Token: "t"}},
		wire.FirmwareCaps, t0)
	h.mirror.appeared(prompt, t0, false)
	return h
}

func controls(fs []wire.Frame, code wire.Control) []wire.Frame {
	var out []wire.Frame
	for _, f := range fs {
		if c, ok := f.Control(); ok && c == code {
			out = append(out, f)
		}
	}
	return out
}

func TestVoiceNeedsTheMicrophoneBit(t *testing.T) {
	t0 := time.Unix(1000, 0)
	h := voiceHost(t, t0)
	if !h.voiceAvailable() {
		t.Fatal("voice unavailable with STT, the mic bit and a pending prompt")
	}
	h.neg.Peer &^= wire.CapMicPCM
	if h.voiceAvailable() {
		t.Fatal("voice available although the firmware has no MICROPHONE_PCM")
	}
	h.Conversation("c-1", OpStart, t0)
	if h.voice.phase != voiceIdle {
		t.Errorf("voice phase %d after a start without the mic bit", h.voice.phase)
	}
	h.beginVoice(7, requestID(prompt.Source, prompt.ID), t0)
	h.neg.Peer |= wire.CapMicPCM
	h.cfg.Voice = false
	if h.voiceAvailable() {
		t.Error("voice available without STT")
	}
}

func TestMicSessionGapFillStopResendAndDecideOnce(t *testing.T) {
	t0 := time.Unix(1000, 0)
	h := voiceHost(t, t0)
	h.beginVoice(7, requestID(prompt.Source, prompt.ID), t0)
	h.voiceSpoken(6, true, t0) // another utterance: nothing
	if h.voice.mic != nil {
		t.Fatal("microphone opened for another utterance")
	}
	h.voiceSpoken(7, true, t0)
	fs := sent(t, h)
	start := controls(fs, wire.CtrlMicStart)
	if len(start) != 1 || start[0].SampleRate != 16000 || start[0].StreamID == 0 || len(start[0].Payload) != 0 {
		t.Fatalf("sent %v, want one MIC_START at 16 kHz", fs)
	}
	id := start[0].StreamID
	h.updateStatus()
	if st := controls(sent(t, h), wire.CtrlStatus); len(st) != 0 {
		t.Errorf("STATUS %v before MIC_STARTED", st)
	}

	h.frame(wire.MicStartedFrame(id, 0), t0)
	if st := controls(sent(t, h), wire.CtrlStatus); len(st) != 1 || wire.Status(st[0].Payload[0]) != wire.StatusListening {
		t.Errorf("STATUS after MIC_STARTED = %v, want LISTENING", st)
	}
	pcm := func(stream uint16, seq uint32, size int, fill byte) wire.Frame {
		return wire.Frame{Type: wire.TypeMicPCM, StreamID: stream, Sequence: seq, SampleRate: 16000, Payload: bytes.Repeat([]byte{fill}, size)}
	}
	h.frame(pcm(id, 0, 640, 1), t0)
	h.frame(pcm(id, 3, 640, 2), t0)        // 2 frames lost: silence
	h.frame(pcm(id, 4, 320, 3), t0)        // wrong size: dropped
	h.frame(pcm(id+1, 4, 640, 4), t0)      // other stream: dropped
	h.frame(pcm(id, 4, 640, 5), t0)        // accepted
	h.tick(t0.Add(999 * time.Millisecond)) // still listening
	if n := len(controls(sent(t, h), wire.CtrlMicStop)); n != 0 {
		t.Fatalf("%d MIC_STOP before listenFor", n)
	}
	at := t0.Add(time.Second)
	if w, ok := h.wake(); !ok || w.After(at) {
		t.Errorf("wake %v %v, want by %v", w, ok, at)
	}
	for i := range 4 { // MIC_STOP at 0, 500, 1000, 1500 ms; MIC_STOPPED lost
		h.tick(at.Add(time.Duration(i) * session.MicStopResend))
		if n := len(controls(sent(t, h), wire.CtrlMicStop)); n != 1 {
			t.Fatalf("tick %d: %d MIC_STOP, want 1", i, n)
		}
	}
	h.frame(pcm(id, 5, 640, 6), at) // PCM before MIC_STOPPED still counts
	h.frame(wire.MicStoppedFrame(id, 0), at.Add(1600*time.Millisecond))
	var job STTOut
	for _, e := range h.takeEffects() {
		if s, ok := e.(STTOut); ok {
			job = s
		}
	}
	want := slices.Concat(bytes.Repeat([]byte{1}, 640), make([]byte, 1280), bytes.Repeat([]byte{2}, 640),
		bytes.Repeat([]byte{5}, 640), bytes.Repeat([]byte{6}, 640))
	if job.Job == 0 || !bytes.Equal(job.PCM, want) {
		t.Fatalf("STT job %d with %d bytes, want %d bytes (gap filled, bad frames dropped)", job.Job, len(job.PCM), len(want))
	}
	if h.convState() != "recognizing" {
		t.Errorf("conversation state %q while recognizing", h.convState())
	}

	h.Recognized(job.Job+1, "yes", nil, at) // a stale job
	h.Recognized(job.Job, "Yes!", nil, at)
	h.Recognized(job.Job, "yes", nil, at)
	var decided []Decide
	for _, e := range h.takeEffects() {
		if d, ok := e.(Decide); ok {
			decided = append(decided, d)
		}
	}
	if len(decided) != 1 || decided[0] != (Decide{Source: prompt.Source, ID: prompt.ID, Approve: true, By: "voice"}) {
		t.Errorf("decided %+v, want one approval by voice", decided)
	}
}

func TestMicStopTimeoutStillRecognizes(t *testing.T) {
	t0 := time.Unix(1000, 0)
	h := voiceHost(t, t0)
	h.beginVoice(7, requestID(prompt.Source, prompt.ID), t0)
	h.voiceSpoken(7, true, t0)
	id := controls(sent(t, h), wire.CtrlMicStart)[0].StreamID
	h.frame(wire.MicStartedFrame(id, 0), t0)
	frames := int(time.Second / (20 * time.Millisecond))
	for i := range frames + 3 {
		h.frame(wire.Frame{Type: wire.TypeMicPCM, StreamID: id, Sequence: uint32(i), SampleRate: 16000, Payload: make([]byte, 640)}, t0)
	}
	// Full after listenFor of audio: MIC_STOP at once.
	if n := len(controls(sent(t, h), wire.CtrlMicStop)); n != 1 {
		t.Fatalf("%d MIC_STOP when the buffer is full", n)
	}
	h.tick(t0.Add(session.MicStopTimeout))
	var got []byte
	for _, e := range h.takeEffects() {
		if s, ok := e.(STTOut); ok {
			got = s.PCM
		}
	}
	if len(got) != frames*640 {
		t.Errorf("STT got %d bytes after a MIC_STOPPED timeout, want %d", len(got), frames*640)
	}
}

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		text string
		want verdict
	}{
		{"yes", verdictApprove},
		{"  YES.  ", verdictApprove},
		{"OK", verdictApprove},
		{"okay then", verdictApprove},
		{"Go ahead!", verdictApprove},
		{"I approve", verdictApprove},
		{"allow it", verdictApprove},
		{"no", verdictDeny},
		{"No, stop.", verdictDeny},
		{"don't", verdictDeny},
		{"Don’t do it", verdictDeny},
		{"reject", verdictDeny},
		{"deny!", verdictDeny},
		{"yes no", verdictNone},
		{"okay, don't", verdictNone},
		{"", verdictNone},
		{"banana", verdictNone},
		{"yesterday nobody went ahead", verdictNone}, // whole words only
		{"going ahead", verdictNone},
		{"\xff\xfe", verdictNone},
	}
	for _, tt := range tests {
		if got := parseVerdict(tt.text); got != tt.want {
			t.Errorf("parseVerdict(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
