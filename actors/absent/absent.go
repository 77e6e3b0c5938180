// Package absent is the stand-in for a service whose real actor is not
// built yet, or has nothing to drive on this board. It runs, so that the
// supervision tree, supervisorctl and the start-up order are exercised
// end to end from the first day, and it says honestly why it does nothing.
package absent

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/supervisor"
)

// New returns a supervisor.Service constructor for an actor that is
// RUNNING with why as its description, e.g. "no audio output on this
// board". The description is what "supervisorctl status" shows, so it
// should tell an operator what is missing, not that all is well.
func New(why string) func(h *supervisor.Handle) actor.Actor {
	return func(h *supervisor.Handle) actor.Actor {
		return &Actor{h: h, why: why}
	}
}

// Actor is the stand-in. It is exported only so that its type shows in
// logs and tests; use New.
type Actor struct {
	h   *supervisor.Handle
	why string
}

// Receive handles the lifecycle and the supervisor's signals.
func (a *Actor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		// The description is cleared at each restart, so set it on every
		// start, not once in New.
		a.h.SetDescription(a.why)
		a.h.Logger().Info("running as a stand-in", "why", a.why)
	case supervisor.Reload:
		a.h.SetDescription(a.why)
		a.h.Logger().Info("reload: nothing to re-read", "why", a.why)
	case supervisor.Signal:
		a.h.Logger().Info("signal ignored", "signal", m.Name)
	case *actor.Stopping:
		a.h.Logger().Debug("stopping")
	}
}
