package ui

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/actors/absent"
	"github.com/claude-pi/claude-pi/actors/approvals"
	"github.com/claude-pi/claude-pi/boards/sim"
	"github.com/claude-pi/claude-pi/supervisor"
)

// recorder stands in for the buddy service: it gets the Decided messages.
type recorder struct{ got chan approvals.Decided }

func (r *recorder) Receive(c actor.Context) {
	if d, ok := c.Message().(approvals.Decided); ok {
		r.got <- d
	}
}

func startTree(t *testing.T, board *sim.Board, got chan approvals.Decided) *supervisor.Tree {
	t.Helper()
	svcs := []supervisor.Service{
		{Name: "ble", Policy: supervisor.DefaultPolicy, New: absent.New("test")},
		{Name: "buddy", Policy: supervisor.DefaultPolicy, New: func(*supervisor.Handle) actor.Actor { return &recorder{got: got} }},
		{Name: "approvals", Policy: supervisor.DefaultPolicy, New: approvals.New()},
		{Name: "ui", Policy: supervisor.DefaultPolicy, DependsOn: []string{"approvals"},
			New: New(Config{Board: "sim", Display: board.Display, Buttons: board.Buttons, Redraw: 20 * time.Millisecond})},
	}
	tree, err := supervisor.New(supervisor.Options{}, svcs...)
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tree.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return tree
}

func view(t *testing.T, tree *supervisor.Tree) View {
	t.Helper()
	r, err := tree.System().Root.RequestFuture(supervisor.ServicePID(tree.System(), "ui"), GetView{}, time.Second).Result()
	if err != nil {
		t.Fatal(err)
	}
	return r.(View)
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestButtonsDecideThroughApprovals(t *testing.T) {
	board, err := sim.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan approvals.Decided, 4)
	tree := startTree(t, board, got)
	sys := tree.System()

	// With no prompt a press sends nothing.
	waitFor(t, "the ui to subscribe to the buttons", func() bool { _, n, _ := board.Buttons.Press("A", 0); return n == 1 })
	waitFor(t, "the press handled", func() bool { return view(t, tree).Presses == 1 })
	if v := view(t, tree); v.Decisions != 0 {
		t.Fatalf("a press with no prompt sent %d decisions", v.Decisions)
	}
	changed := board.Display.Changed()
	id := "req_✓_ünïcode"
	sys.Root.Send(supervisor.ServicePID(sys, "approvals"), approvals.SetPrompts{Source: "desktop", LinkUp: true,
		Prompts: []approvals.Prompt{{Source: "desktop", ID: id, Tool: "Bash", Hint: "go test ./..."}}})
	waitFor(t, "the prompt on the ui", func() bool { return len(view(t, tree).Prompts) == 1 })
	select {
	case <-changed:
	case <-time.After(time.Second):
		t.Fatal("the display was not redrawn for the prompt")
	}
	if v := view(t, tree); v.Screen.Prompt == nil || v.Screen.Prompt.Tool != "Bash" || v.Screen.Prompt.Sent {
		t.Fatalf("screen %+v, want the Bash prompt with buttons", v.Screen.Prompt)
	}
	if _, _, err := board.Buttons.Press("A", 0); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-got:
		if d.ID != id || d.By != By || d.Decision.String() != "once" {
			t.Fatalf("decided %+v, want once for %q by %s", d, id, By)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no decision reached the buddy service")
	}
	waitFor(t, "sent... on the screen", func() bool { p := view(t, tree).Screen.Prompt; return p != nil && p.Sent })
	// A second press while the decision is out sends nothing more.
	_, _, _ = board.Buttons.Press("B", 0)
	select {
	case d := <-got:
		t.Fatalf("a second press sent %+v", d)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestRestartLeavesNoGoroutines(t *testing.T) {
	board, err := sim.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	tree := startTree(t, board, make(chan approvals.Decided, 4))
	waitFor(t, "ui running", func() bool { p, _ := tree.Process("ui"); return p.State == supervisor.Running })
	before := runtime.NumGoroutine()
	for range 3 {
		p0, _ := tree.Process("ui")
		if err := tree.SignalProcess("ui", "KILL"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "ui back", func() bool {
			p, _ := tree.Process("ui")
			return p.State == supervisor.Running && p.Start.After(p0.Start)
		})
		waitFor(t, "the new incarnation to answer", func() bool { return view(t, tree).Screen.Board == "sim" })
	}
	waitFor(t, "goroutines back to the baseline", func() bool { return runtime.NumGoroutine() <= before })
	if _, n, _ := board.Buttons.Press("A", 0); n != 1 {
		t.Fatalf("after 3 restarts the press reached %d subscribers, want 1", n)
	}
}
