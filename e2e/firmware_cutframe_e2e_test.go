package e2e

import (
	"os"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// TestFirmwareE2ECutFrames: 40 bytes of a frame that promises 4096 are
// written into the link, first towards the Pi, then towards the CoreS3
// (cores3-sim's own parser), as a side restarting mid-write leaves them.
// Each time, the next tap is decided: the cut frame is given up on after
// wire.StaleAfter (protocols/stackchan/wire/README.md, "Cut-off frames"),
// not after 4 KiB of later traffic (issue 32: 37-40 s, or never). Last,
// the dock service restarts with a cut frame left each way and is ready
// within 10 s (issue 32: 81 s). The bounds are generous; the figures are
// logged.
func TestFirmwareE2ECutFrames(t *testing.T) {
	e2e(t)
	core, a := firmwareDock(t, "off")
	d := a.Dial(t, &fakedesktop.Options{Owner: "Felix", StatusEvery: time.Hour, Debounce: 20 * time.Millisecond})
	cut, err := wire.AppendFrame(nil, wire.Frame{Type: wire.TypeSpeakerPCM, StreamID: 1, SampleRate: 24000, Payload: make([]byte, wire.MaxPayload)})
	if err != nil {
		t.Fatal(err)
	}
	cut = cut[:40]
	const bound = 5 * time.Second
	decided := func(id string, want pbuddy.Decision) time.Time {
		t.Helper()
		select {
		case p := <-d.Decisions():
			if p.ID != id || p.Decision != want {
				t.Fatalf("got %s, want %v for %s", p.Line, want, id)
			}
			return time.Now()
		case <-time.After(2 * bound):
			t.Fatalf("no decision for %s within %v", id, 2*bound)
		}
		return time.Time{}
	}

	// Towards the Pi: the cut frame, then the tap right behind it.
	from := core.mark()
	d.SetPrompt("req_cut_to_pi", "Bash", "make test")
	core.await(10*time.Second, from, "the approval screen", func(l uiLine) bool { return l.is("ui", "approval") && l.M["buttons"] == true })
	start := time.Now()
	if _, err := core.bridge.hostM.Write(cut); err != nil {
		t.Fatal(err)
	}
	core.send("touch ok")
	took := decided("req_cut_to_pi", pbuddy.Once).Sub(start)
	t.Logf("towards the Pi: tap decided %v after the cut frame", took)
	if took > bound {
		t.Errorf("tap decided %v after a cut frame towards the Pi; want within %v", took, bound)
	}
	core.await(10*time.Second, from, "the face after the decision", func(l uiLine) bool { return l.is("ui", "face") })

	// Towards the CoreS3: the cut frame, then the next prompt behind it.
	from = core.mark()
	start = time.Now()
	if _, err := core.bridge.coreM.Write(cut); err != nil {
		t.Fatal(err)
	}
	d.SetPrompt("req_cut_to_core", "Write", "docs/README.md")
	core.await(2*bound, from, "the second approval", func(l uiLine) bool {
		return l.is("ui", "approval") && l.is("title", "Write") && l.M["buttons"] == true
	})
	shown := time.Since(start)
	core.send("touch ng")
	took = decided("req_cut_to_core", pbuddy.Deny).Sub(start)
	t.Logf("towards the CoreS3: prompt shown %v and its tap decided %v after the cut frame", shown, took)
	if took > bound {
		t.Errorf("tap decided %v after a cut frame towards the CoreS3; want within %v", took, bound)
	}
	noDecision(t, d, 300*time.Millisecond)

	// A restart of the dock service (the Pi's side of the link) with a cut
	// frame left each way: ready again within 10 s, and the next tap counts.
	if err := a.Tree.StopProcess("dock", true); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*os.File{core.bridge.hostM, core.bridge.coreM} {
		if _, err := m.Write(cut); err != nil {
			t.Fatal(err)
		}
	}
	start = time.Now()
	if err := a.Tree.StartProcess("dock", true); err != nil {
		t.Fatal(err)
	}
	supervisortest.Within(t, 10*time.Second, "the dock ready after the restart", func() bool {
		dk, _ := a.APIState(t)["dock"].(map[string]any)
		return dk != nil && dk["ready"] == true && dk["event"] == true
	})
	ready := time.Since(start)
	from = core.mark()
	d.SetPrompt("req_after_restart", "Bash", "go vet")
	core.await(10*time.Second, from, "the prompt after the restart", func(l uiLine) bool {
		return l.is("ui", "approval") && l.is("title", "Bash") && l.M["buttons"] == true
	})
	core.send("touch ok")
	decided("req_after_restart", pbuddy.Once)
	t.Logf("restart with a cut frame each way: dock ready %v after the start", ready)
}
