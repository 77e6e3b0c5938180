package dock

import (
	"log/slog"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/actors/dock/voice"
	"github.com/claude-pi/claude-pi/actors/lan"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/event"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// readyHost is a host past the handshake with the release firmware.
func readyHost(t *testing.T, t0 time.Time, cfg func(*hostConfig)) *host {
	t.Helper()
	c := hostConfig{speakPrompts: false, speakAssistant: true, assistantMax: 200,
		Config: voice.Config{SpeakConversation: true, HasTTS: true, Token: "t", Log: slog.New(slog.DiscardHandler)}}
	if cfg != nil {
		cfg(&c)
	}
	h := newHost(c)
	h.attach(t0)
	h.frame(ack(wire.FirmwareCaps, 4096), t0)
	if !h.eventReady() {
		t.Fatal("handshake failed")
	}
	return h
}

// messages is every EVENT message the host wrote since the last call.
func messages(t *testing.T, h *host) [][]byte {
	t.Helper()
	var r event.Reassembler
	var out [][]byte
	for _, f := range sent(t, h) {
		if f.Type != wire.TypeEvent {
			continue
		}
		msg, done, err := r.Add(f)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			out = append(out, append([]byte(nil), msg...))
		}
	}
	return out
}

func settingsOf(t *testing.T, msgs [][]byte) []appevent.Settings {
	t.Helper()
	var out []appevent.Settings
	for _, m := range msgs {
		if r, err := appevent.Route(m); err == nil && r.Type == appevent.TypeSettings {
			s, err := appevent.DecodeSettings(m)
			if err != nil {
				t.Fatalf("host sent a bad claude_pi.settings %s: %v", m, err)
			}
			out = append(out, s)
		}
	}
	return out
}

func appOf[T appevent.Event](msgs [][]byte) []T {
	var out []T
	for _, m := range msgs {
		if e, err := appevent.Decode(m); err == nil {
			if v, ok := e.(T); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// firmwareSends feeds the host one application event from the CoreS3.
func firmwareSends(t *testing.T, h *host, e appevent.Event, id uint16, now time.Time) {
	t.Helper()
	b, err := appevent.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	frames, err := event.AppendChunks(nil, id, b, 4096)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		h.frame(f, now)
	}
}

func TestVolumeSentAtEventReadyAndOnChange(t *testing.T) {
	t0 := time.Unix(1000, 0)
	seventy := 70
	h := newHost(hostConfig{volume: &seventy, Config: voice.Config{Token: "t", Log: slog.New(slog.DiscardHandler)}})
	h.attach(t0)
	if s := settingsOf(t, messages(t, h)); len(s) != 0 {
		t.Fatalf("settings before the handshake: %+v", s)
	}
	h.frame(ack(wire.FirmwareCaps, 4096), t0)
	msgs := messages(t, h)
	s := settingsOf(t, msgs)
	if len(s) != 1 || s[0].Volume != 70 || s[0].EventID != "settings-t-1" {
		t.Fatalf("settings at EVENT ready = %+v, want one with volume 70", s)
	}
	seventy = 5 // the host keeps its own copy
	h.setVolume(new(70))
	if s := settingsOf(t, messages(t, h)); len(s) != 0 {
		t.Errorf("unchanged volume resent: %+v", s)
	}
	h.setVolume(new(30))
	if s := settingsOf(t, messages(t, h)); len(s) != 1 || s[0].Volume != 30 || s[0].EventID != "settings-t-2" {
		t.Errorf("changed volume sent as %+v, want one with volume 30 and a new event_id", s)
	}
	h.setVolume(nil)
	if s := settingsOf(t, messages(t, h)); len(s) != 0 {
		t.Errorf("unset volume sent %+v; the CoreS3 keeps its own", s)
	}
	// A new handshake sends the current value again (none now).
	h.setVolume(new(0))
	messages(t, h)
	h.attach(t0.Add(time.Second))
	h.frame(ack(wire.FirmwareCaps, 4096), t0.Add(time.Second))
	if s := settingsOf(t, messages(t, h)); len(s) != 1 || s[0].Volume != 0 {
		t.Errorf("re-handshake sent %+v, want volume 0 again", s)
	}

	// Without dock.volume, or without EVENT, nothing is sent.
	plain := readyHost(t, t0, nil)
	if s := settingsOf(t, messages(t, plain)); len(s) != 0 {
		t.Errorf("host without dock.volume sent %+v", s)
	}
	audio := newHost(hostConfig{volume: new(50), Config: voice.Config{Token: "t", Log: slog.New(slog.DiscardHandler)}})
	audio.attach(t0)
	audio.frame(ack(wire.FirmwareCaps&^wire.CapEvent, 4096), t0)
	if fs := sent(t, audio); len(fs) != 0 {
		for _, f := range fs {
			if f.Type == wire.TypeEvent {
				t.Errorf("EVENT frame to firmware without EVENT: %v", f)
			}
		}
	}
}

func TestDisplayOnlyDockDecidesNothing(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := approvals.Prompt{Source: "desktop", ID: "toolu_1", Tool: "Bash", Hint: "rm -rf build"}
	for _, displayOnly := range []bool{false, true} {
		h := readyHost(t, t0, func(c *hostConfig) { c.displayOnly = displayOnly })
		h.mirror.appeared(p, t0, true)
		reqs := appOf[appevent.ApprovalRequest](messages(t, h))
		if len(reqs) != 1 {
			t.Fatalf("displayOnly=%v: approval.request sent %d times, want once (the prompt is still shown)", displayOnly, len(reqs))
		}
		h.takeEffects()
		firmwareSends(t, h, appevent.NewApprovalResponse(reqs[0].RequestID, appevent.Approve), 1, t0.Add(time.Second))
		var decided bool
		for _, e := range h.takeEffects() {
			_, ok := e.(decideOut)
			decided = decided || ok
		}
		resolved := appOf[appevent.ApprovalResolved](messages(t, h))
		if displayOnly {
			if decided {
				t.Error("a display-only dock's approval.response became a decision")
			}
			if len(resolved) != 1 || resolved[0].Message != DisplayOnlyNote {
				t.Errorf("display-only dock told %+v, want approval.resolved %q", resolved, DisplayOnlyNote)
			}
		} else if !decided || len(resolved) != 0 {
			t.Errorf("approving dock: decided %v, resolved %+v; want a decision and no resolve yet", decided, resolved)
		}
	}
}

func TestTerminalSessionsLightTheTaskIndicator(t *testing.T) {
	t0 := time.Unix(1000, 0)
	h := readyHost(t, t0, nil)
	states := func() []appevent.TaskState {
		var out []appevent.TaskState
		for _, s := range appOf[appevent.TaskStatus](messages(t, h)) {
			out = append(out, s.State)
		}
		return out
	}
	if got := states(); len(got) != 1 || got[0] != appevent.TaskIdle {
		t.Fatalf("at EVENT ready: %v, want idle", got)
	}
	session := func(state string, updated time.Time) lan.State {
		return lan.State{Sessions: []lan.Session{{ID: "s1", Client: "ada", State: state, Updated: updated}}}
	}
	h.lanState(session("running", t0), t0)
	if got := states(); len(got) != 1 || got[0] != appevent.TaskRunning {
		t.Fatalf("terminal session running: %v, want running", got)
	}
	h.lanState(session("waiting", t0.Add(time.Second)), t0.Add(time.Second))
	if got := states(); len(got) != 1 || got[0] != appevent.TaskIdle {
		t.Errorf("terminal session waiting on a prompt: %v, want idle", got)
	}
	h.lanState(session("running", t0.Add(2*time.Second)), t0.Add(2*time.Second))
	states()
	// The desktop's running sessions and the terminal's add up: the
	// desktop going idle leaves the terminal's running.
	h.SetDesk(voice.Desk{Known: true, Connected: true, Running: 1})
	h.updateTask(t0.Add(3 * time.Second))
	h.SetDesk(voice.Desk{Known: true, Connected: true})
	h.updateTask(t0.Add(4 * time.Second))
	if got := states(); len(got) != 0 {
		t.Errorf("desktop going idle while a terminal runs sent %v, want nothing (still running)", got)
	}
	// A session that stops reporting (killed mid-turn, no Stop) stops
	// counting after terminalQuiet; the host wakes for it.
	end := t0.Add(2*time.Second + terminalQuiet)
	if at, ok := h.wake(); !ok || at.After(end) {
		t.Errorf("wake = %v, %v; want by %v", at, ok, end)
	}
	h.tick(end)
	if got := states(); len(got) != 1 || got[0] != appevent.TaskIdle {
		t.Errorf("after %v of silence: %v, want idle", terminalQuiet, got)
	}
	h.lanState(session("idle", end), end)
	if got := states(); len(got) != 0 {
		t.Errorf("idle session sent %v, want nothing new", got)
	}
}
