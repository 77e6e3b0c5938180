// Package supervisortest is the rig the actor tests share: a started tree
// that is shut down with the test, a Recorder that plays a service, and
// WaitFor and Ask for what a test checks. Only _test.go files import it.
package supervisortest

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/claude-pi/claude-pi/supervisor"
)

// Patience bounds every wait here: generous, so a loaded machine never
// fails a test that is only slow.
const Patience = 10 * time.Second

// FastPolicy restarts within milliseconds, so a test can kill a service
// many times.
var FastPolicy = supervisor.Policy{Autostart: true, MaxRestarts: 20, Window: time.Minute,
	BackoffMin: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond}

// Start makes a tree of services (logging nowhere unless -v), starts it
// and shuts it down when the test ends.
func Start(t testing.TB, services ...supervisor.Service) *supervisor.Tree {
	t.Helper()
	var log *slog.Logger
	if testing.Verbose() {
		log = slog.Default()
	} else {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	tree, err := supervisor.New(supervisor.Options{Logger: log}, services...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Patience)
	defer cancel()
	if err := tree.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), Patience)
		defer cancel()
		if err := tree.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return tree
}

// Recorder plays a service: it keeps every message it gets, across its
// incarnations, and answers Ping once it has kept what came before.
type Recorder struct {
	// Answer, if set, replies to the messages it knows (ok), as the real
	// service would; the message is kept either way.
	Answer func(msg any) (reply any, ok bool)

	mu   sync.Mutex
	msgs []any
}

// Ping asks a Recorder to answer once everything sent to it before has
// been kept.
type Ping struct{}

// New is the Recorder's supervisor.Service constructor.
func (r *Recorder) New(*supervisor.Handle) actor.Actor {
	return actor.ReceiveFunc(func(c actor.Context) {
		switch m := c.Message().(type) {
		case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
			return
		case Ping:
			c.Respond(Ping{})
			return
		default:
			r.mu.Lock()
			r.msgs = append(r.msgs, m)
			r.mu.Unlock()
			if r.Answer != nil && c.Sender() != nil {
				if reply, ok := r.Answer(m); ok {
					c.Respond(reply)
				}
			}
		}
	})
}

// All returns every message kept so far.
func (r *Recorder) All() []any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]any(nil), r.msgs...)
}

// Take returns the messages kept since the last Take and forgets them.
func (r *Recorder) Take() []any {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.msgs
	r.msgs = nil
	return m
}

// Of returns the messages of type T a Recorder kept, in order.
func Of[T any](r *Recorder) []T {
	var out []T
	for _, m := range r.All() {
		if v, ok := m.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// WaitFor polls ok until it holds, failing the test after Patience.
func WaitFor(t testing.TB, what string, ok func() bool) {
	t.Helper()
	Within(t, Patience, what, ok)
}

// Ask sends msg to the service and returns its answer, which must be a T.
func Ask[T any](t testing.TB, tree *supervisor.Tree, service string, msg any) T {
	t.Helper()
	sys := tree.System()
	v, err := sys.Root.RequestFuture(supervisor.ServicePID(sys, service), msg, Patience).Result()
	if err != nil {
		t.Fatalf("asking %s for %T: %v", service, msg, err)
	}
	out, ok := v.(T)
	if !ok {
		t.Fatalf("%s answered %T with %T", service, msg, v)
	}
	return out
}

// Send sends msg to the service.
func Send(tree *supervisor.Tree, service string, msg any) {
	sys := tree.System()
	sys.Root.Send(supervisor.ServicePID(sys, service), msg)
}

// Sync returns once each named Recorder service has kept everything sent
// to it so far: what a test asserting "nothing more arrived" waits for,
// instead of sleeping.
func Sync(t testing.TB, tree *supervisor.Tree, recorders ...string) {
	t.Helper()
	for _, name := range recorders {
		Ask[Ping](t, tree, name, Ping{})
	}
}
