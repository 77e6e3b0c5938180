package supervisor

import (
	"testing"
	"time"

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

// publisher answers Subscribe with its count and publishes each bump.
type publisher struct {
	subs  *Subscribers
	count int
}

type bump struct{}

func (p *publisher) Receive(c actor.Context) {
	if p.subs.Receive(c, func() any { return p.count }) {
		return
	}
	if _, ok := c.Message().(bump); ok {
		p.count++
		p.subs.Publish(c, p.count)
	}
}

func TestSubscribersReceive(t *testing.T) {
	sys := actor.NewActorSystem()
	defer sys.Shutdown()
	got := make(chan any, 8)
	sub := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
		if n, ok := c.Message().(int); ok {
			got <- n
		}
	}))
	pub := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return &publisher{subs: &Subscribers{}} }))
	next := func() any {
		t.Helper()
		select {
		case v := <-got:
			return v
		case <-time.After(5 * time.Second):
			t.Fatal("nothing published")
			return nil
		}
	}
	sys.Root.Send(pub, bump{}) // before anyone listens: not sent
	sys.Root.Send(pub, Subscribe{PID: sub})
	if v := next(); v != 1 {
		t.Fatalf("on Subscribe got %v, want the current 1", v)
	}
	sys.Root.Send(pub, bump{})
	if v := next(); v != 2 {
		t.Fatalf("after a change got %v, want 2", v)
	}
	sys.Root.Send(pub, Unsubscribe{PID: sub})
	sys.Root.Send(pub, bump{})
	sys.Root.Send(pub, Subscribe{PID: sub}) // mailbox order: after the bump
	if v := next(); v != 3 {
		t.Fatalf("after Unsubscribe got %v, want only the current 3 on resubscribing", v)
	}
}
