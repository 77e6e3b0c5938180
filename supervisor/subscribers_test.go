package supervisor

import (
	"testing"

	"github.com/asynkron/protoactor-go/actor"
)

func TestSubscribers(t *testing.T) {
	var s Subscribers // the zero value works
	a, b := actor.NewPID("nonhost", "supervisor/ui"), actor.NewPID("nonhost", "supervisor/dock")
	s.Add(a)
	s.Add(a) // twice: still one
	s.Add(b)
	s.Add(nil)
	count := func() (n int) { s.Each(func(*actor.PID) { n++ }); return n }
	if n := count(); n != 2 {
		t.Fatalf("%d subscribers, want 2", n)
	}
	// A PID built again from the same address and id is the same subscriber.
	s.Remove(actor.NewPID("nonhost", "supervisor/ui"))
	s.Remove(nil)
	var got []string
	s.Each(func(p *actor.PID) { got = append(got, p.Id) })
	if len(got) != 1 || got[0] != "supervisor/dock" {
		t.Fatalf("after Remove: %v, want [supervisor/dock]", got)
	}
}
