package ui

import (
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/actors/dock"
	pbuddy "github.com/claude-pi/claude-pi/protocols/buddy"
	"github.com/claude-pi/claude-pi/supervisor"
)

// fakeDock stands in for the dock service: it publishes its State to a
// subscriber and records the screen's answers.
type fakeDock struct {
	mu      sync.Mutex
	st      dock.State
	sys     *actor.ActorSystem
	sub     *actor.PID
	answers []any
}

func (f *fakeDock) set(st dock.State) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.st = st
	if f.sub != nil {
		f.sys.Root.Send(f.sub, st)
	}
}

func (f *fakeDock) got() []any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]any(nil), f.answers...)
}

func (f *fakeDock) Receive(c actor.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch m := c.Message().(type) {
	case supervisor.Subscribe:
		f.sys, f.sub = c.ActorSystem(), m.PID
		c.Send(m.PID, f.st)
	case dock.AcceptDock, dock.RefuseDock:
		f.answers = append(f.answers, m)
	}
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
	f := &fakeDock{}
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
	if d := r.decided(t, "A on the prompt, with a dock asking"); d.ID != "p1" || d.Decision != pbuddy.Once {
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
