package e2e

// End-to-end tests of the dock in sim, in process: the real actor tree from
// serveWith with --dock-port on a pty, a fake CoreS3 (actors/dock/docktest)
// on the other end, and the demo desktop on the NUS side.

import (
	"testing"
	"time"

	"github.com/claude-pi/claude-pi/actors/dock/docktest"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest/fakedesktop"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
	"github.com/claude-pi/claude-pi/supervisor/supervisortest"
)

// TestDockE2EApproval: a prompt from the desktop reaches the CoreS3 as
// approval.request; the CoreS3's approve becomes exactly one
// "permission once" on the NUS side with the id byte for byte; task.status
// follows the heartbeat's running count; /api/state shows the dock.
func TestDockE2EApproval(t *testing.T) {
	e2e(t)
	core := docktest.New(t, wire.FirmwareCaps)
	// The voice is off: the CoreS3 side of speech has its own tests in
	// actors/dock.
	a := startApplianceWith(t, func(c *Config) { c.Dock.Port, c.TTS.Engine = core.Path(), "off" })
	d := a.Dial(t, &fakedesktop.Options{Owner: "Felix", StatusEvery: time.Hour, Debounce: 20 * time.Millisecond})

	a.awaitDock(t, "the dock's handshake")

	d.Update(func(s *fakedesktop.Session) { s.Total, s.Running = 1, 1 })
	supervisortest.Within(t, 5*time.Second, "task.status running", func() bool {
		ts := docktest.Of[appevent.TaskStatus](core)
		return len(ts) > 0 && ts[len(ts)-1].State == appevent.TaskRunning
	})

	id := mixedID()
	d.SetPrompt(id, "Bash", "npm test")
	var req appevent.ApprovalRequest
	supervisortest.Within(t, 5*time.Second, "approval.request on the CoreS3", func() bool {
		rs := docktest.Of[appevent.ApprovalRequest](core)
		if len(rs) > 0 {
			req = rs[0]
		}
		return len(rs) > 0
	})
	if req.Kind != appevent.KindCommand || req.Title != "Bash" || req.Summary != "npm test" {
		t.Errorf("approval.request = %+v", req)
	}

	core.Send(appevent.NewApprovalResponse(req.RequestID, appevent.Approve))
	p := oneDecision(t, d, 500*time.Millisecond)
	if want := pbuddy.EncodePermission(id, pbuddy.Once); string(p.Line)+"\n" != string(want) || p.ID != id {
		t.Fatalf("permission line\n%s\nwant\n%s", p.Line, want)
	}
	// A second tap on the CoreS3 decides nothing more.
	core.Send(appevent.NewApprovalResponse(req.RequestID, appevent.Approve))
	noDecision(t, d, 300*time.Millisecond)

	d.ClearPrompt()
	supervisortest.Within(t, 5*time.Second, "approval.resolved", func() bool { return len(docktest.Of[appevent.ApprovalResolved](core)) > 0 })

	d.Update(func(s *fakedesktop.Session) { s.Running = 0 })
	supervisortest.Within(t, 5*time.Second, "task.status idle", func() bool {
		ts := docktest.Of[appevent.TaskStatus](core)
		return len(ts) > 0 && ts[len(ts)-1].State == appevent.TaskIdle
	})
	if v := core.Violations(); len(v) > 0 {
		t.Errorf("the CoreS3 saw protocol violations: %v", v)
	}
}
