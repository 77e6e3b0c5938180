package dock

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/dock/voice"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

const testListen = 400 * time.Millisecond

// voiceRig is a rig whose STT is testdata/fake-stt.sh answering word (no
// STT when word is ""), with a pending prompt mirrored on the fake CoreS3.
// The fake captures two tone frames per 5 ms tick.
func voiceRig(t *testing.T, word string, knobs func(*fakeCore), opts Options) (*rig, string) {
	t.Helper()
	dir := t.TempDir()
	script, err := filepath.Abs("testdata/fake-stt.sh")
	if err != nil {
		t.Fatal(err)
	}
	if word != "" {
		opts.STT = []string{"sh", script, word, dir}
	}
	opts.MutePrompts = true
	if opts.ListenFor == 0 {
		opts.ListenFor = testListen
	}
	r := newRig(t, wire.FirmwareCaps, func(f *fakeCore) {
		f.micFrames = 2
		if knobs != nil {
			knobs(f)
		}
	}, opts)
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	r.send(buddyactor.State{Connected: true, Snapshot: &pbuddy.Heartbeat{Total: 1, Waiting: 1}})
	r.send(approvals.PromptAppeared{Prompt: prompt})
	waitFor(t, "approval.request", func() bool { return len(eventsOf[appevent.ApprovalRequest](r.core)) == 1 })
	return r, dir
}

func (r *rig) spoken(text string) bool {
	for _, q := range r.synth.Requests() {
		if q.Text == text {
			return true
		}
	}
	return false
}

func (r *rig) statuses() []wire.Status {
	var st []wire.Status
	r.core.snapshot(func() { st = append(st, r.core.statuses...) })
	return st
}

// checkWAV asserts path is a canonical 16 kHz mono 16-bit WAV of want.
func checkWAV(t *testing.T, path string, want time.Duration) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the STT command's WAV: %v", err)
	}
	le := binary.LittleEndian
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || string(b[36:40]) != "data" {
		t.Fatalf("not a canonical WAV: % x", b[:min(len(b), 44)])
	}
	format, channels, rate, bits := le.Uint16(b[20:]), le.Uint16(b[22:]), le.Uint32(b[24:]), le.Uint16(b[34:])
	if format != 1 || channels != 1 || rate != 16000 || bits != 16 {
		t.Errorf("WAV format %d, %d channel(s), %d Hz, %d bits; want PCM mono 16 kHz 16-bit", format, channels, rate, bits)
	}
	data := int(le.Uint32(b[40:]))
	if data != len(b)-44 || le.Uint32(b[4:]) != uint32(len(b)-8) {
		t.Errorf("WAV sizes: data %d, file %d", data, len(b))
	}
	if got := time.Duration(data/2) * time.Second / 16000; got != want {
		t.Errorf("WAV holds %v of audio, want %v", got, want)
	}
	if slices.Equal(b[44:], make([]byte, data)) {
		t.Errorf("WAV is silent; the fake CoreS3 sent a tone")
	}
}

func TestVoiceApproval(t *testing.T) {
	tests := []struct {
		name      string
		word      string
		lostStops int
		decided   bool
		want      approvals.Decision
	}{
		{"yes approves", "yes", 0, true, approvals.AllowOnce},
		{"ok go ahead approves", "Okay, go ahead!", 0, true, approvals.AllowOnce},
		{"no denies", "No.", 0, true, approvals.Deny},
		{"don't denies", "Don't do that", 0, true, approvals.Deny},
		{"gibberish decides nothing", "banana bread", 0, false, approvals.Deny},
		{"yes and no decides nothing", "yes no", 0, false, approvals.Deny},
		{"MIC_STOP resent until MIC_STOPPED", "yes", 2, true, approvals.AllowOnce},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, dir := voiceRig(t, tt.word, func(f *fakeCore) { f.lostMicStops = tt.lostStops }, Options{})
			r.core.Send(appevent.NewConversationStart("conversation-v-1"))
			if tt.decided {
				waitFor(t, "a Decide", func() bool { return len(r.appr.decides()) > 0 })
			} else {
				waitFor(t, "I didn't catch that", func() bool { return r.spoken(voice.NotCaught) })
			}
			// The CoreS3 user answers too, and the firmware retries its
			// start: neither may decide again.
			req := eventsOf[appevent.ApprovalRequest](r.core)[0]
			r.core.Send(appevent.NewApprovalResponse(req.RequestID, appevent.Approve))
			waitFor(t, "idle STATUS", func() bool { st := r.statuses(); return st[len(st)-1] == wire.StatusIdle })
			r.core.Send(appevent.NewConversationStart("conversation-v-1"))
			waitFor(t, "the retried start's result", func() bool { return len(eventsOf[appevent.ConversationResult](r.core)) == 2 })
			time.Sleep(100 * time.Millisecond)

			d := r.appr.decides()
			switch {
			case !tt.decided && len(d) != 1:
				// Only the CoreS3's own response.
				t.Errorf("Decides %+v, want only the CoreS3's", d)
			case !tt.decided && d[0].By != "CoreS3":
				t.Errorf("Decide %+v, want By CoreS3", d[0])
			case tt.decided && (len(d) != 1 || d[0] != approvals.Decide{Source: prompt.Source, ID: prompt.ID, Decision: tt.want, By: "voice"}):
				t.Errorf("Decides %+v, want exactly one %s By voice", d, tt.want)
			}
			res := eventsOf[appevent.ConversationResult](r.core)
			if res[0].State != appevent.StateSpeaking || !res[1].Success || res[1].State != appevent.StateStandby {
				t.Errorf("conversation results %+v, want speaking then standby", res)
			}
			checkWAV(t, filepath.Join(dir, "heard.wav"), testListen)
			// The host resends MIC_STOP every MicStopResend until
			// MIC_STOPPED arrives; on a loaded machine the answer can take
			// longer than that, so resends that crossed it in flight are
			// protocol-correct. What must hold: exactly 1+lostStops before
			// the answer, and none once the host has had it (the fake has
			// seen the second result, sent after any earlier MIC_STOP on
			// the same link, so none is still in flight here).
			var stops int
			r.core.snapshot(func() { stops = len(r.core.micStops) })
			time.Sleep(2 * session.MicStopResend)
			r.core.snapshot(func() {
				if len(r.core.micStarts) != 1 || r.core.micStopsAnswered != 1+tt.lostStops {
					t.Errorf("MIC_START %v MIC_STOP %v (answered at %d), want 1 and %d", r.core.micStarts, r.core.micStops, r.core.micStopsAnswered, 1+tt.lostStops)
				}
				if len(r.core.micStops) != stops {
					t.Errorf("MIC_STOP %v: still resent after MIC_STOPPED was answered and the result came", r.core.micStops)
				}
				for _, id := range r.core.micStops {
					if id != r.core.micStarts[0] || id == r.core.starts[0] {
						t.Errorf("MIC_STOP on stream %d, MIC_START on %v, speaker on %v", id, r.core.micStarts, r.core.starts)
					}
				}
			})
			st := r.statuses()
			li := slices.Index(st, wire.StatusListening)
			if li < 0 || !slices.Contains(st[li:], wire.StatusRecognizing) {
				t.Errorf("STATUS %v, want LISTENING then RECOGNIZING", st)
			}
			noViolations(t, r.core)
		})
	}
}

func TestVoiceNotConfiguredNeverOpensTheMic(t *testing.T) {
	r, _ := voiceRig(t, "", nil, Options{})
	r.core.Send(appevent.NewConversationStart("conversation-v-2"))
	waitFor(t, "the summary spoken", func() bool {
		var n int
		r.core.snapshot(func() { n = len(r.core.dones) })
		return n == 1
	})
	time.Sleep(200 * time.Millisecond)
	r.core.snapshot(func() {
		if len(r.core.micStarts) != 0 {
			t.Errorf("MIC_START %v without voice.stt_command", r.core.micStarts)
		}
	})
	if len(r.appr.decides()) != 0 {
		t.Errorf("decided without STT: %+v", r.appr.decides())
	}
}

func TestVoiceStopWhileListening(t *testing.T) {
	// No PCM and 10 s to listen: only conversation.stop ends it.
	r, dir := voiceRig(t, "yes", func(f *fakeCore) { f.micFrames = 0 }, Options{ListenFor: 10 * time.Second})
	r.core.Send(appevent.NewConversationStart("conversation-v-3"))
	waitFor(t, "LISTENING", func() bool { return slices.Contains(r.statuses(), wire.StatusListening) })
	if d := r.description(); !strings.HasSuffix(d, ", listening") {
		t.Errorf("description while listening = %q", d)
	}
	r.core.Send(appevent.NewConversationStop("conversation-v-4"))
	waitFor(t, "MIC_STOP", func() bool {
		var n int
		r.core.snapshot(func() { n = len(r.core.micStops) })
		return n == 1
	})
	waitFor(t, "idle STATUS", func() bool { st := r.statuses(); return st[len(st)-1] == wire.StatusIdle })
	res := eventsOf[appevent.ConversationResult](r.core)
	if len(res) != 2 || !res[1].Success || res[1].State != appevent.StateStandby {
		t.Errorf("results %+v", res)
	}
	// Speech works again once the microphone is closed.
	r.send(Turn{Role: "assistant", Content: []byte(`"Done."`)})
	waitFor(t, "speech after the microphone", func() bool {
		var n int
		r.core.snapshot(func() { n = len(r.core.dones) })
		return n == 2
	})
	if len(r.appr.decides()) != 0 {
		t.Errorf("decided after conversation.stop: %+v", r.appr.decides())
	}
	if _, err := os.Stat(filepath.Join(dir, "paths")); err == nil {
		t.Error("the STT command ran after conversation.stop")
	}
	noViolations(t, r.core)
}

func TestVoiceStopWhileRecognizing(t *testing.T) {
	r, dir := voiceRig(t, "SLEEP", nil, Options{})
	r.core.Send(appevent.NewConversationStart("conversation-v-5"))
	waitFor(t, "the STT command", func() bool { _, err := os.Stat(filepath.Join(dir, "heard.wav")); return err == nil })
	waitFor(t, "recognizing", func() bool { return strings.HasSuffix(r.description(), ", recognizing speech") })
	r.core.Send(appevent.NewConversationStop("conversation-v-6"))
	waitFor(t, "idle", func() bool { return strings.HasSuffix(r.description(), ", idle") })
	time.Sleep(100 * time.Millisecond)
	if len(r.appr.decides()) != 0 {
		t.Errorf("decided after conversation.stop: %+v", r.appr.decides())
	}
	noViolations(t, r.core)
}

func TestVoiceUnplugWhileListening(t *testing.T) {
	r, dir := voiceRig(t, "yes", func(f *fakeCore) { f.micFrames = 0 }, Options{ListenFor: 10 * time.Second})
	r.core.Send(appevent.NewConversationStart("conversation-v-7"))
	waitFor(t, "LISTENING", func() bool { return slices.Contains(r.statuses(), wire.StatusListening) })
	var starts int
	r.core.snapshot(func() { starts = len(r.core.micStarts) })
	r.core.unplug()
	waitFor(t, "waiting description", func() bool { return r.description() == "waiting for a CoreS3" })
	r.core.plug()
	waitFor(t, "EVENT ready again", func() bool { return strings.Contains(r.description(), "EVENT ready, 1 approval(s), idle") })
	time.Sleep(100 * time.Millisecond)
	r.core.snapshot(func() {
		if len(r.core.micStarts) != starts || len(r.core.micStops) != 0 {
			t.Errorf("microphone frames to the new CoreS3: start %v stop %v", r.core.micStarts, r.core.micStops)
		}
	})
	if len(r.appr.decides()) != 0 {
		t.Errorf("decided after an unplug: %+v", r.appr.decides())
	}
	if _, err := os.Stat(filepath.Join(dir, "paths")); err == nil {
		t.Error("the STT command ran after an unplug")
	}
}
