package supervisor

import (
	"sync"

	"github.com/asynkron/protoactor-go/actor"
)

// Subscribe asks a service for its events: every publisher answers with
// its current state at once, then sends each change. PID is the
// subscriber's ServicePID, so the subscription survives its restarts.
// One pair of messages serves every publisher; Subscribers.Receive is
// their one handler.
type Subscribe struct{ PID *actor.PID }

// Unsubscribe removes a PID registered with Subscribe.
type Unsubscribe struct{ PID *actor.PID }

// Subscribers is a set of PIDs an actor publishes to. A service creates
// one in its producer's closure, so the set outlives the actor's
// incarnations: subscribers register once (with their own ServicePID) and
// keep getting events after either side restarts. Incarnations run one
// after another; the mutex only guards against a future overlap.
type Subscribers struct {
	mu sync.Mutex
	m  map[string]*actor.PID
}

// Add registers pid; adding it twice is harmless. A nil pid is ignored.
func (s *Subscribers) Add(pid *actor.PID) {
	if pid == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[string]*actor.PID)
	}
	s.m[pid.String()] = pid
}

// Remove forgets pid.
func (s *Subscribers) Remove(pid *actor.PID) {
	if pid == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, pid.String())
}

// Each calls f for every subscriber, outside the lock.
func (s *Subscribers) Each(f func(*actor.PID)) {
	s.mu.Lock()
	pids := make([]*actor.PID, 0, len(s.m))
	for _, p := range s.m {
		pids = append(pids, p)
	}
	s.mu.Unlock()
	for _, p := range pids {
		f(p)
	}
}

// Receive handles Subscribe and Unsubscribe for a publisher and reports
// whether the message was one of them. A new subscriber is sent
// current() at once, so it never waits for the next change.
func (s *Subscribers) Receive(c actor.Context, current func() any) bool {
	switch m := c.Message().(type) {
	case Subscribe:
		if m.PID != nil {
			s.Add(m.PID)
			c.Send(m.PID, current())
		}
		return true
	case Unsubscribe:
		s.Remove(m.PID)
		return true
	}
	return false
}

// Publish sends msg to every subscriber.
func (s *Subscribers) Publish(c actor.SenderContext, msg any) {
	s.Each(func(p *actor.PID) { c.Send(p, msg) })
}
