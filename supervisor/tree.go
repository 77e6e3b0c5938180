package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// waitLimit bounds StartProcess and StopProcess with wait set; the control
// socket has no deadline of its own to pass down.
const waitLimit = 30 * time.Second

var errNotStarted = errors.New("supervisor: tree not started")

// Tree supervises a fixed set of services. It implements the control
// socket's Backend, so supervisorctl can list, start, stop, signal and
// tail them.
type Tree struct {
	id       string
	log      *slog.Logger // the supervisor's own lines, into the main ring
	main     *Ring
	system   *actor.ActorSystem
	procs    []*proc // start order
	rt       *root   // touched only through call, on its own goroutine
	index    map[string]int
	root     atomic.Pointer[actor.PID]
	rootDone chan struct{}

	mu      sync.Mutex
	snaps   []snap
	changed chan struct{} // closed and replaced at each snapshot
	began   bool
	ended   bool
}

// snap is one service as last published by the root actor.
type snap struct {
	state       State
	start, stop time.Time
	lastErr     string
	alive       bool       // an incarnation exists, possibly stopping
	pid         *actor.PID // only while STARTING or RUNNING
	h           *Handle
	retryAt     time.Time // FATAL or EXITED with a retry pending
	downSince   time.Time // see proc.downSince
}

// down reports that nothing runs and nothing is scheduled to.
func (s snap) down() bool {
	return !s.alive && (s.state == Stopped || s.state == Exited || s.state == Fatal)
}

// New validates services (names, policies, dependencies) and prepares a
// tree; Start starts it.
func New(opts Options, services ...Service) (*Tree, error) {
	switch {
	case opts.LogRingBytes == 0:
		opts.LogRingBytes = MinLogRingBytes
	case opts.LogRingBytes < MinLogRingBytes:
		return nil, fmt.Errorf("supervisor: LogRingBytes %d is below the minimum %d", opts.LogRingBytes, MinLogRingBytes)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Identification == "" {
		opts.Identification = "claude-pi"
	}
	order, err := startOrder(services)
	if err != nil {
		return nil, fmt.Errorf("supervisor: %w", err)
	}
	t := &Tree{
		id:       opts.Identification,
		main:     NewRing(opts.LogRingBytes),
		index:    make(map[string]int, len(order)),
		rootDone: make(chan struct{}),
		changed:  make(chan struct{}),
	}
	next := opts.Logger.Handler()
	t.log = slog.New(newTeeHandler(next, t.main))
	for i, s := range order {
		p := &proc{svc: s, ring: NewRing(opts.LogRingBytes), state: Stopped}
		p.h = &Handle{
			name:   s.Name,
			logger: slog.New(newTeeHandler(next, multiWriter{p.ring, t.main})).With("actor", s.Name),
			fail:   func(err error) { t.send(failed{p: p, err: err}) },
		}
		t.procs = append(t.procs, p)
		t.index[s.Name] = i
		t.snaps = append(t.snaps, snap{state: Stopped, h: p.h})
	}
	t.rt = &root{t: t, procs: t.procs, byID: make(map[string]*proc)}
	t.system = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return t.log.With("lib", "protoactor")
	}))
	return t, nil
}

// System is the actor system the services run in, for spawning helpers.
func (t *Tree) System() *actor.ActorSystem { return t.system }

// Start spawns the supervisor actor and then each Autostart service in
// dependency order, each once the previous one has left STARTING, so a
// service's Started handler runs after its dependencies' have. A service
// that fails to start does not stop the others; it retries in BACKOFF.
func (t *Tree) Start(ctx context.Context) error {
	t.mu.Lock()
	if t.began {
		t.mu.Unlock()
		return errors.New("supervisor: Start called twice")
	}
	t.began = true
	t.mu.Unlock()

	r := t.rt
	// The producer returns the same root on every call: should protoactor
	// ever restart it, the supervision state must survive.
	pid, err := t.system.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return r }), rootName)
	if err != nil {
		return fmt.Errorf("supervisor: spawning root actor: %w", err)
	}
	t.root.Store(pid)
	for i, p := range t.procs {
		if !p.svc.Policy.Autostart {
			continue
		}
		if err := t.call(func() error { return r.startProc(p) }); err != nil {
			return fmt.Errorf("supervisor: starting %s: %w", p.svc.Name, err)
		}
		if err := t.wait(ctx, i, func(s snap) bool { return s.state != Starting }); err != nil {
			return fmt.Errorf("supervisor: starting %s: %w", p.svc.Name, err)
		}
	}
	return nil
}

// Shutdown stops every service in reverse dependency order, each getting
// actor.Stopping and actor.Stopped to flush its state, then the supervisor
// actor. If ctx expires first (a slow Stopping handler), the remaining
// services are told to stop all at once and Shutdown returns an error
// naming those still stopping; it never waits past ctx.
func (t *Tree) Shutdown(ctx context.Context) error {
	t.mu.Lock()
	began, ended := t.began, t.ended
	t.ended = true
	t.mu.Unlock()
	if !began || ended {
		return nil
	}
	if err := t.call(func() error { t.rt.setClosing(); return nil }); err != nil {
		return err
	}
	var err error
	for i := len(t.procs) - 1; i >= 0; i-- {
		p := t.procs[i]
		t.call(func() error { t.rt.stopProc(p); return nil })
		if err = t.wait(ctx, i, snap.down); err != nil {
			break
		}
	}
	if err != nil {
		var slow []string
		for i, p := range t.procs {
			t.call(func() error { t.rt.stopProc(p); return nil })
			if !t.snapshot(i).down() {
				slow = append(slow, p.svc.Name)
			}
		}
		t.log.Error("shutdown deadline passed", "still_stopping", strings.Join(slow, ","))
		return fmt.Errorf("supervisor: shutdown: %v still stopping: %w", slow, err)
	}
	t.system.Root.Stop(t.root.Load())
	select {
	case <-t.rootDone:
	case <-ctx.Done():
		return fmt.Errorf("supervisor: shutdown: stopping root actor: %w", ctx.Err())
	}
	t.system.Shutdown()
	t.log.Info("supervisor stopped")
	return nil
}

// ActorPID is the current incarnation of a service, for sending it
// messages, or nil while it is not STARTING or RUNNING. Look it up again
// after a restart: each incarnation is a new actor. (It is not called PID
// because PID() int is the Backend's process id.)
func (t *Tree) ActorPID(name string) *actor.PID {
	i, ok := t.index[name]
	if !ok {
		return nil
	}
	return t.snapshot(i).pid
}

// Alive is the supervisor's own health: a round trip through the root
// actor, which owns every restart. It fails when ctx ends first (a
// wedged actor system), before Start and after Shutdown. systemd's
// watchdog is fed from it.
func (t *Tree) Alive(ctx context.Context) error {
	pid := t.root.Load()
	if pid == nil {
		return errNotStarted
	}
	done := make(chan error, 1)
	t.system.Root.Send(pid, call{fn: func() error { return nil }, done: done})
	select {
	case err := <-done:
		return err
	case <-t.rootDone:
		return errors.New("supervisor: tree is shut down")
	case <-ctx.Done():
		return fmt.Errorf("supervisor: root actor did not answer: %w", ctx.Err())
	}
}

// send delivers msg to the root actor, or drops it before Start.
func (t *Tree) send(msg any) {
	if pid := t.root.Load(); pid != nil {
		t.system.Root.Send(pid, msg)
	}
}

// call runs fn on the root actor's goroutine and returns its error once
// the resulting state is published.
func (t *Tree) call(fn func() error) error {
	pid := t.root.Load()
	if pid == nil {
		return errNotStarted
	}
	done := make(chan error, 1)
	t.system.Root.Send(pid, call{fn: fn, done: done})
	select {
	case err := <-done:
		return err
	case <-t.rootDone:
		select {
		case err := <-done:
			return err
		default:
			return errors.New("supervisor: tree is shut down")
		}
	}
}

func (t *Tree) setSnapshot(s []snap) {
	t.mu.Lock()
	t.snaps = s
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
}

func (t *Tree) snapshot(i int) snap {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snaps[i]
}

// wait blocks until service i's published state satisfies ok.
func (t *Tree) wait(ctx context.Context, i int, ok func(snap) bool) error {
	for {
		t.mu.Lock()
		s, ch := t.snaps[i], t.changed
		t.mu.Unlock()
		if ok(s) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ServicePID is the stable address of a service's actor. Every incarnation
// is spawned under the same name, so a message sent here reaches whichever
// incarnation is running; while none is (BACKOFF, STOPPED) it goes to dead
// letters, which is why a sender must never wait for a reply forever.
func ServicePID(system *actor.ActorSystem, name string) *actor.PID {
	return actor.NewPID(system.Address(), rootName+"/"+name)
}

// rootName is the root supervisor actor's name; services are its children.
const rootName = "supervisor"
