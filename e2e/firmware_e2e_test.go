package e2e

// Cross-implementation tests: the Go dock host (actors/dock, in the real
// appliance tree from serveWith) against the C++ firmware core running as
// cores3-sim over a pty pair, with the demo desktop on the NUS side. They
// complement dock_e2e_test.go, whose CoreS3 is the Go fake: here both ends
// are the shipped implementations, so a misreading of the spec on either
// side shows up. Assertions are on what each side shows, never on timing.

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// firmwareDock starts cores3-sim and the appliance with its --dock-port on
// the bridge, speaking with engine ("off" or "espeak-ng"), and waits for
// the handshake on both sides.
func firmwareDock(t *testing.T, engine string) (*coreSim, *rig) {
	t.Helper()
	if engine == "espeak-ng" {
		if _, err := exec.LookPath("espeak-ng"); err != nil && os.Getenv("CI") != "true" {
			t.Skip("espeak-ng not installed (apt-get install espeak-ng)")
		}
	}
	core := startCoreSim(t)
	a := startApplianceWith(t, func(c *Config) { c.Dock.Port, c.TTS.Engine = core.bridge.HostPath(), engine })
	a.awaitDock(t, "the dock's handshake in /api/state")
	core.await(5*time.Second, 0, "link ready", func(l uiLine) bool { return l.is("ui", "link") && l.is("state", "ready") })
	return core, a
}

// TestFirmwareE2EHandshake: HELLO/HELLO_ACK between the two
// implementations leaves the dock ready with EVENT and the CoreS3's link
// ready, and bytes went both ways over the bridge.
func TestFirmwareE2EHandshake(t *testing.T) {
	e2e(t)
	core, a := firmwareDock(t, "off")
	dk, _ := a.APIState(t)["dock"].(map[string]any)
	if dk["connected"] != true || dk["path"] != core.bridge.HostPath() {
		t.Errorf("/api/state dock = %v, want connected on %s", dk, core.bridge.HostPath())
	}
	if up, down := core.bridge.toCore.Load(), core.bridge.toHost.Load(); up == 0 || down == 0 {
		t.Errorf("bridge relayed %d bytes to the CoreS3 and %d back", up, down)
	}
	// The firmware logs every EVENT message it dropped: none may be ours.
	for _, l := range core.since(0) {
		if l.is("ui", "log") {
			t.Errorf("cores3-sim dropped a message: %s", l.Raw)
		}
	}
	if err := core.notJSON(); err != nil {
		t.Errorf("control lines that are not JSON:\n%v", err)
	}
}

// TestFirmwareE2EApproval: a desktop prompt with a 200-character Unicode id
// appears on the CoreS3's approval screen; OK there is exactly one
// "permission once" with the id byte for byte, and the screen returns to
// the face (approval.resolved) although the firmware resends its answer
// until then; NG on a second prompt is a deny.
func TestFirmwareE2EApproval(t *testing.T) {
	e2e(t)
	core, a := firmwareDock(t, "off")
	d := a.Dial(t, &fakedesktop.Options{Owner: "Felix", StatusEvery: time.Hour, Debounce: 20 * time.Millisecond})

	id := mixedID()
	from := core.mark()
	d.SetPrompt(id, "Bash", "npm test")
	_, shown := core.await(10*time.Second, from, "the approval screen", func(l uiLine) bool { return l.is("ui", "approval") })
	if !shown.is("title", "Bash") || !shown.is("body", "npm test") || !shown.is("kind", "command") || shown.M["buttons"] != true {
		t.Errorf("approval screen = %s, want command Bash, body npm test, buttons on", shown.Raw)
	}
	reqID := shown.str("requestId")
	if !strings.HasPrefix(reqID, "approval-") {
		t.Errorf("requestId %q on the CoreS3", reqID)
	}

	from = core.mark()
	core.send("touch ok")
	p := oneDecision(t, d, 0)
	if want := pbuddy.EncodePermission(id, pbuddy.Once); string(p.Line)+"\n" != string(want) || p.ID != id {
		t.Fatalf("permission line\n%s\nwant\n%s", p.Line, want)
	}
	core.await(10*time.Second, from, "the face after approval.resolved", func(l uiLine) bool { return l.is("ui", "face") })
	// The firmware resends approval.response until resolved: any resend
	// that got through would be here by now.
	noDecision(t, d, 300*time.Millisecond)
	// A touch on the face decides nothing.
	core.send("touch ok")
	noDecision(t, d, 300*time.Millisecond)

	from = core.mark()
	d.SetPrompt("req_second", "Write", "docs/README.md")
	core.await(10*time.Second, from, "the second approval", func(l uiLine) bool {
		return l.is("ui", "approval") && l.is("title", "Write") && l.is("kind", "fileChange") && l.M["buttons"] == true
	})
	from = core.mark()
	core.send("touch ng")
	if p := oneDecision(t, d, 0); p.ID != "req_second" || p.Decision != pbuddy.Deny {
		t.Fatalf("got %s, want deny for req_second", p.Line)
	}
	core.await(10*time.Second, from, "the face after the deny", func(l uiLine) bool { return l.is("ui", "face") })
	noDecision(t, d, 300*time.Millisecond)
}

// TestFirmwareE2ESpeech: assistant text from a turn event is spoken on the
// CoreS3 at 24 kHz with one caption per sentence, in order, and the
// speaking badge while it plays.
func TestFirmwareE2ESpeech(t *testing.T) {
	e2e(t)
	core, a := firmwareDock(t, "espeak-ng")
	d := a.Dial(t, &fakedesktop.Options{Owner: "Felix", StatusEvery: time.Hour, Debounce: 20 * time.Millisecond})

	from := core.mark()
	turn := `{"evt":"turn","role":"assistant","content":[{"type":"text","text":"Hello there. This is Claude."}]}` + "\n"
	if err := d.SendRaw([]byte(turn)); err != nil {
		t.Fatal(err)
	}
	i, _ := core.await(20*time.Second, from, `caption "Hello there."`, func(l uiLine) bool {
		return l.is("ui", "caption") && l.is("text", "Hello there.")
	})
	core.await(20*time.Second, i, `caption "This is Claude."`, func(l uiLine) bool {
		return l.is("ui", "caption") && l.is("text", "This is Claude.")
	})
	core.await(5*time.Second, from, "status speaking", func(l uiLine) bool { return l.is("ui", "status") && l.is("value", "speaking") })
	_, played := core.await(20*time.Second, from, "audio played", func(l uiLine) bool { return l.M["audio"] != nil })
	if !played.is("audio", "played") || played.M["rate"] != 24000.0 {
		t.Errorf("speaker session ended with %s, want played at 24000", played.Raw)
	}
	// espeak-ng says two short sentences in well over half a second.
	if n, _ := played.M["bytes"].(float64); n < 24000 {
		t.Errorf("played %v bytes, want at least half a second at 24 kHz", played.M["bytes"])
	}
	core.await(10*time.Second, from, "status idle after speaking", func(l uiLine) bool { return l.is("ui", "status") && l.is("value", "idle") })
}

// TestFirmwareE2EConversation: the head swipe forward is conversation.start,
// which the dock answers by speaking a summary of the desktop's sessions
// (captions on the CoreS3, the firmware shows the result's state); the swipe
// backward is conversation.stop, which the firmware shows as standby.
func TestFirmwareE2EConversation(t *testing.T) {
	e2e(t)
	core, a := firmwareDock(t, "espeak-ng")
	d := a.Dial(t, &fakedesktop.Options{Owner: "Felix", StatusEvery: time.Hour, Debounce: 20 * time.Millisecond})
	d.Update(func(s *fakedesktop.Session) { s.Total, s.Running = 1, 1 })
	core.await(10*time.Second, 0, "task running", func(l uiLine) bool { return l.is("ui", "task") && l.is("state", "running") })

	from := core.mark()
	core.send("swipe forward")
	core.await(10*time.Second, from, "conversation speaking", func(l uiLine) bool {
		return l.is("ui", "conversation") && l.is("state", "speaking")
	})
	core.await(20*time.Second, from, "the summary's caption", func(l uiLine) bool {
		return l.is("ui", "caption") && strings.HasPrefix(l.str("text"), "Claude has one session")
	})

	from = core.mark()
	core.send("swipe backward")
	_, res := core.await(10*time.Second, from, "conversation standby", func(l uiLine) bool {
		return l.is("ui", "conversation") && !l.is("state", "connecting")
	})
	if !res.is("state", "standby") || res.M["error"] != nil {
		t.Errorf("after conversation.stop the CoreS3 shows %s, want standby", res.Raw)
	}
	core.await(10*time.Second, from, "status idle after the stop", func(l uiLine) bool { return l.is("ui", "status") && l.is("value", "idle") })
}

// TestFirmwareE2EResetWhilePortOpen: the CoreS3 loses USB presence and gets
// it back (sim unplug/plug) while the Pi's port stays open, so it forgets
// the HELLO and refuses EVENT with ERROR 1. The dock must notice, handshake
// again and show the next prompt, which then decides as usual.
func TestFirmwareE2EResetWhilePortOpen(t *testing.T) {
	e2e(t)
	core, a := firmwareDock(t, "off")
	d := a.Dial(t, &fakedesktop.Options{Owner: "Felix", StatusEvery: time.Hour, Debounce: 20 * time.Millisecond})

	from := core.mark()
	core.send("unplug")
	core.await(5*time.Second, from, "link disconnected", func(l uiLine) bool { return l.is("ui", "link") && l.is("state", "disconnected") })
	core.send("plug")
	i, _ := core.await(5*time.Second, from, "link unsupported", func(l uiLine) bool { return l.is("ui", "link") && l.is("state", "unsupported") })

	d.SetPrompt("req_after_reset", "Bash", "make test")
	core.await(15*time.Second, i, "link ready again", func(l uiLine) bool { return l.is("ui", "link") && l.is("state", "ready") })
	core.await(15*time.Second, i, "the prompt after the reset", func(l uiLine) bool {
		return l.is("ui", "approval") && l.is("title", "Bash") && l.M["buttons"] == true
	})
	core.send("touch ok")
	if p := oneDecision(t, d, 0); p.ID != "req_after_reset" || p.Decision != pbuddy.Once {
		t.Fatalf("got %s, want once for req_after_reset", p.Line)
	}
}

// TestFirmwareE2EReplugGetsThePendingSet (issue 32.6): the CoreS3 shows
// prompt 1 and loses USB; prompt 1 is decided on the Pi and prompt 2
// arrives. When USB comes back the Pi notices from what the CoreS3 sends
// (no frame of the Pi's first), and the CoreS3 then shows prompt 2, never
// prompt 1 with working buttons.
func TestFirmwareE2EReplugGetsThePendingSet(t *testing.T) {
	e2e(t)
	core, a := firmwareDock(t, "off")
	d := a.Dial(t, &fakedesktop.Options{Owner: "Felix", StatusEvery: time.Hour, Debounce: 20 * time.Millisecond})

	from := core.mark()
	d.SetPrompt("req_one", "Bash", "make one")
	core.await(15*time.Second, from, "prompt 1 on the CoreS3", func(l uiLine) bool {
		return l.is("ui", "approval") && strings.Contains(l.str("body"), "make one") && l.M["buttons"] == true
	})
	core.send("unplug")
	core.await(5*time.Second, from, "link disconnected", func(l uiLine) bool { return l.is("ui", "link") && l.is("state", "disconnected") })
	a.Press(t, "A")
	if p := oneDecision(t, d, 0); p.ID != "req_one" || p.Decision != pbuddy.Once {
		t.Fatalf("got %s, want once for req_one decided on the Pi", p.Line)
	}
	d.SetPrompt("req_two", "Bash", "make two")
	supervisortest.Within(t, 10*time.Second, "prompt 2 alone pending on the Pi", func() bool {
		v := a.UIView(t)
		return len(v.Prompts) == 1 && v.Prompts[0].ID == "req_two"
	})

	i := core.mark()
	plugged := time.Now()
	core.send("plug")
	// The CoreS3 says at once that it has no session, so the Pi's HELLO
	// follows the plug (before, the Pi noticed at its next frame).
	core.await(5*time.Second, i, "link ready again", func(l uiLine) bool {
		return l.is("ui", "link") && l.is("state", "ready")
	})
	ready := time.Since(plugged)
	j, _ := core.await(10*time.Second, i, "prompt 2 on the CoreS3", func(l uiLine) bool {
		return l.is("ui", "approval") && strings.Contains(l.str("body"), "make two") && l.M["buttons"] == true
	})
	t.Logf("replug: link ready %v after the plug, prompt 2 shown %v after it", ready, time.Since(plugged))
	for _, l := range core.since(i)[:j-i] {
		if l.is("ui", "approval") && strings.Contains(l.str("body"), "make one") && l.M["buttons"] == true {
			t.Errorf("after the replug the CoreS3 offered the decided prompt 1: %s", l.Raw)
		}
	}
	core.send("touch ok")
	if p := oneDecision(t, d, 0); p.ID != "req_two" || p.Decision != pbuddy.Once {
		t.Fatalf("got %s, want once for req_two", p.Line)
	}
}
