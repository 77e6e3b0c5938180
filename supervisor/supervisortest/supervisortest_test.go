package supervisortest

import (
	"testing"

	"github.com/claude-pi/claude-pi/supervisor"
)

type question struct{}

func TestRecorderKeepsAndAnswers(t *testing.T) {
	rec := &Recorder{Answer: func(m any) (any, bool) { _, ok := m.(question); return "answer", ok }}
	tree := Start(t, supervisor.Service{Name: "buddy", Policy: FastPolicy, New: rec.New})
	Send(tree, "buddy", 1)
	Send(tree, "buddy", "two")
	Sync(t, tree, "buddy")
	if got := rec.All(); len(got) != 2 || got[0] != 1 || got[1] != "two" {
		t.Fatalf("kept %v", got)
	}
	if got := Ask[string](t, tree, "buddy", question{}); got != "answer" {
		t.Fatalf("Ask = %q", got)
	}
	if n := len(Of[question](rec)); n != 1 {
		t.Fatalf("%d questions kept, want 1", n)
	}
	// The log survives a restart.
	before, _ := tree.Process("buddy")
	if err := tree.SignalProcess("buddy", "KILL"); err != nil {
		t.Fatal(err)
	}
	WaitFor(t, "buddy back", func() bool {
		p, _ := tree.Process("buddy")
		return p.State == supervisor.Running && p.Start.After(before.Start)
	})
	Send(tree, "buddy", 3)
	Sync(t, tree, "buddy")
	if got := rec.Take(); len(got) != 4 || got[3] != 3 {
		t.Fatalf("after a restart kept %v", got)
	}
	if got := rec.Take(); len(got) != 0 {
		t.Fatalf("Take left %v", got)
	}
}
