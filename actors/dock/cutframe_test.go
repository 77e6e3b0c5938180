package dock

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// cutFrame is 40 bytes of a frame that promises 4096: what a writer that
// died mid-frame leaves in the other side's parser (issue 32 item 5).
func cutFrame(t *testing.T) []byte {
	t.Helper()
	b, err := wire.AppendFrame(nil, wire.Frame{Type: wire.TypeSpeakerPCM, StreamID: 1, SampleRate: 24000, Payload: make([]byte, wire.MaxPayload)})
	if err != nil {
		t.Fatal(err)
	}
	return b[:40]
}

// TestReadyAfterRestartWithCutFrames restarts the dock (the Pi's restart)
// with a cut-off frame left in each direction: in the CoreS3's parser,
// which like old firmware has no timeout (docktest's parser is untimed),
// and waiting in the port for the new dock's parser. The fill before HELLO
// idles the first and the stale-partial timeout the second, so the dock is
// ready again well inside 10 s. Without the fill it never is: the CoreS3
// takes each HELLO for more of the cut frame.
func TestReadyAfterRestartWithCutFrames(t *testing.T) {
	r := newRig(t, wire.FirmwareCaps, nil, Options{MutePrompts: true})
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	if err := r.tree.StopProcess("dock", true); err != nil {
		t.Fatal(err)
	}
	// The old process's last write, cut short, as the CoreS3 reads it.
	old, err := os.OpenFile(r.core.Path(), os.O_WRONLY|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Write(cutFrame(t)); err != nil {
		t.Fatal(err)
	}
	old.Close()
	// And the CoreS3's, waiting in the port for the next reader.
	r.core.SendRaw(cutFrame(t))

	start := time.Now()
	if err := r.tree.StartProcess("dock", true); err != nil {
		t.Fatal(err)
	}
	supervisortest.Within(t, 10*time.Second, "EVENT ready after the restart", func() bool {
		return strings.Contains(r.description(), "EVENT ready")
	})
	t.Logf("ready %v after the restart", time.Since(start))
	noViolations(t, r.core)
}

// TestTapAfterCutFrameIsDecided: a tap sent right behind a cut-off frame
// from the CoreS3 is decided once the cut frame goes stale (0.5 s), not
// after 4 KiB of later traffic (issue 32: 37-40 s, or never).
func TestTapAfterCutFrameIsDecided(t *testing.T) {
	r := newRig(t, wire.FirmwareCaps, nil, Options{MutePrompts: true})
	r.core.plug()
	waitFor(t, "EVENT ready", func() bool { return strings.Contains(r.description(), "EVENT ready") })
	r.send(approvals.PromptAppeared{Prompt: prompt})
	waitFor(t, "approval.request", func() bool { return len(eventsOf[appevent.ApprovalRequest](r.core)) == 1 })
	req := eventsOf[appevent.ApprovalRequest](r.core)[0]

	start := time.Now()
	r.core.SendRaw(cutFrame(t))
	r.core.Send(appevent.NewApprovalResponse(req.RequestID, appevent.Approve))
	// Generous: the cut frame costs wire.StaleAfter; more means it is not
	// given up on by time but by later traffic, which never comes here.
	supervisortest.Within(t, 5*time.Second, "the tap decided", func() bool { return len(r.appr.decides()) == 1 })
	took := time.Since(start)
	t.Logf("tap decided %v after the cut frame", took)
	if took < wire.StaleAfter {
		t.Errorf("decided after %v, before the cut frame could go stale (%v): was it cut?", took, wire.StaleAfter)
	}
	noViolations(t, r.core)
}
