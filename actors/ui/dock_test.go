package ui

import (
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/actors/dock"
	"github.com/claude-pi/claude-pi/supervisor"
)

// newFakeDock is the dock service's stand-in: it records the answers to
// "New dock".
func newFakeDock() *publisher[dock.State] {
	return &publisher[dock.State]{keep: func(m any) bool {
		switch m.(type) {
		case dock.AcceptDock, dock.RefuseDock:
			return true
		}
		return false
	}}
}

func asking(serial string) dock.State {
	return dock.State{Path: "/dev/ttyACM0", Serial: serial,
		NewDock: dock.NewDock{Asking: true, Serial: serial, Shown: serial}}
}

// TestNewDockThroughButtons: a CoreS3 plugged in while a prompt is up
// waits behind it (A decides the prompt, not the dock); then only a long
// A begun on the "New dock" screen accepts it, by its serial number, and B
// refuses.
func TestNewDockThroughButtons(t *testing.T) {
	f := newFakeDock()
	r := newRig(t, nil, supervisor.Service{Name: "dock", Policy: supervisor.DefaultPolicy,
		New: func(*supervisor.Handle) actor.Actor { return f }})
	r.prompt("p1", "Bash")
	r.waitFor(t, "the approval screen", func() bool { return r.view(t).Screen == ScreenApproval })
	f.set(asking("3C84CE0012AB"))
	v := r.seen(t, "the new dock seen", func(v View) bool { return v.NewDock == "3C84CE0012AB" })
	if v.Screen != ScreenApproval {
		t.Fatalf("a new dock with a prompt pending shows %s, want the prompt", v.Screen)
	}
	r.press(t, "A")
	if d := r.decided(t, "A on the prompt, with a dock asking"); d.ID != "p1" || d.Decision != approvals.AllowOnce {
		t.Fatalf("A decided %+v, want once p1", d)
	}
	if n := len(f.got()); n != 0 {
		t.Fatalf("A meant for the prompt answered the dock: %v", f.got())
	}

	r.send("approvals", approvals.SetPrompts{Source: "desktop", LinkUp: true})
	r.seen(t, "the new dock screen", func(v View) bool { return v.Screen == ScreenDock })
	r.press(t, "A")
	r.pressHold(t, "A", time.Hour) // began before the screen showed
	if n := len(f.got()); n != 0 {
		t.Fatalf("a short A or an old hold accepted the dock: %v", f.got())
	}
	r.clk.advance(2 * time.Second)
	r.pressHold(t, "A", time.Second)
	r.waitFor(t, "AcceptDock at the dock", func() bool { return len(f.got()) == 1 })
	if got := f.got()[0]; got != (dock.AcceptDock{Serial: "3C84CE0012AB"}) {
		t.Fatalf("dock got %#v, want AcceptDock for 3C84CE0012AB", got)
	}
	// Answered: the screen leaves before the dock state catches up, and a
	// second hold sends nothing more.
	r.seen(t, "home after the answer", func(v View) bool { return v.Screen == ScreenHome && v.NewDock == "" })
	r.clk.advance(2 * time.Second)
	r.pressHold(t, "A", time.Second)
	if n := len(f.got()); n != 1 {
		t.Fatalf("dock got %d answers, want 1", n)
	}
	// On home that hold opens the settings, as it always does; B closes them.
	r.seen(t, "the settings after the hold on home", func(v View) bool { return v.Screen == ScreenSettings })
	r.press(t, "B")
	r.seen(t, "home again", func(v View) bool { return v.Screen == ScreenHome })
	f.set(dock.State{Connected: true, Ready: true, Event: true, Serial: "3C84CE0012AB"})

	// Another board: B refuses it at once.
	f.set(asking("DEADBEEF"))
	r.seen(t, "the second dock", func(v View) bool { return v.Screen == ScreenDock && v.NewDock == "DEADBEEF" })
	r.press(t, "B")
	r.waitFor(t, "RefuseDock at the dock", func() bool { return len(f.got()) == 2 })
	if got := f.got()[1]; got != (dock.RefuseDock{Serial: "DEADBEEF"}) {
		t.Fatalf("dock got %#v, want RefuseDock for DEADBEEF", got)
	}
	if v := r.view(t); v.Screen != ScreenHome {
		t.Fatalf("after B: %s, want home", v.Screen)
	}
	select {
	case d := <-r.got:
		t.Fatalf("the dock answers decided %+v", d)
	default:
	}
}
