package supervisor

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// proc is one service's supervision state. Only the root actor's goroutine
// touches the mutable fields; the Tree reads published snapshots.
type proc struct {
	svc  Service
	h    *Handle
	ring *Ring

	state    State
	live     *actor.PID // incarnation not yet terminated, possibly stopping
	gen      uint64     // incarnation number, to drop stale messages
	start    time.Time
	stop     time.Time
	lastErr  string
	failures []time.Time // within Policy.Window
	timer    *time.Timer // pending restart while in BACKOFF, FATAL or EXITED
	retryAt  time.Time   // when a FATAL or EXITED service starts again
	// downSince is when the service last left RUNNING (or first failed
	// to reach it); zero while it runs and before its first start.
	downSince time.Time
	// startAfterExit asks for a fresh incarnation as soon as the old one
	// has finished stopping: two incarnations never run at once, since
	// both would own the same hardware.
	startAfterExit bool
}

// Messages to the root actor.
type (
	call struct {
		fn   func() error
		done chan error
	}
	started struct {
		p   *proc
		gen uint64
	}
	failed struct {
		p   *proc
		err error
	}
	respawn struct {
		p   *proc
		gen uint64
	}
)

// crash makes a service's shell panic, which is how the KILL signal
// exercises the same path as a real bug.
type crash struct{ err error }

// root is the "supervisor" actor: parent of every service actor and the
// owner of all supervision state. It implements actor.SupervisorStrategy,
// so protoactor hands it each child's panic instead of restarting the
// child in place; we always stop the failed incarnation and spawn a fresh
// one after a backoff.
type root struct {
	t       *Tree
	procs   []*proc
	byID    map[string]*proc // live incarnation's PID.Id
	ctx     actor.Context
	closing bool
}

var _ actor.SupervisorStrategy = (*root)(nil)

func (r *root) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		r.ctx = c
		r.t.log.Info("supervisor started", "services", len(r.procs))
	case call:
		err := m.fn()
		r.publish()
		m.done <- err
		return
	case started:
		if m.gen == m.p.gen && m.p.state == Starting {
			m.p.state = Running
			m.p.downSince = time.Time{}
			r.t.log.Info("entered RUNNING state", "service", m.p.svc.Name)
		}
	case failed:
		if m.p.state == Starting || m.p.state == Running {
			r.fail(m.p, m.err)
		}
	case respawn:
		if m.gen != m.p.gen || m.p.live != nil || r.closing {
			break
		}
		switch m.p.state {
		case Backoff:
			m.p.timer = nil
			r.spawn(m.p)
		case Fatal, Exited:
			// The slow retry: as "supervisorctl start" would, with a
			// fresh restart budget.
			m.p.timer, m.p.retryAt = nil, time.Time{}
			m.p.failures = nil
			r.t.log.Info("retrying after "+m.p.state.String(), "service", m.p.svc.Name, "last_err", m.p.lastErr)
			r.spawn(m.p)
		}
	case *actor.Terminated:
		r.terminated(m.Who)
	case *actor.Stopping:
		r.setClosing()
	case *actor.Stopped:
		r.publish()
		close(r.t.rootDone)
		return
	}
	r.publish()
}

// markDown records when p went down, unless it already was.
func (p *proc) markDown(at time.Time) {
	if p.downSince.IsZero() {
		p.downSince = at
	}
}

// HandleFailure receives a child's panic (protoactor recovers it and
// escalates it to us, the parent).
func (r *root) HandleFailure(_ *actor.ActorSystem, sup actor.Supervisor, child *actor.PID, _ *actor.RestartStatistics, reason, _ any) {
	p := r.byID[child.Id]
	if p == nil || p.live == nil || p.live.Id != child.Id || (p.state != Starting && p.state != Running) {
		// Already going down; its mailbox is suspended, so make sure it
		// still finishes stopping.
		sup.StopChildren(child)
		return
	}
	err, ok := reason.(error)
	if !ok {
		err = fmt.Errorf("panic: %v", reason)
	}
	r.fail(p, err)
	r.publish()
}

// fail records a failure of p's current incarnation and takes it down;
// terminated schedules the restart unless p went FATAL.
func (r *root) fail(p *proc, err error) {
	now := time.Now()
	pol := p.svc.Policy
	kept := p.failures[:0]
	for _, f := range p.failures {
		if now.Sub(f) < pol.Window {
			kept = append(kept, f)
		}
	}
	p.failures = append(kept, now)
	p.lastErr = err.Error()
	p.markDown(now)
	if len(p.failures) > pol.MaxRestarts {
		p.state = Fatal
		if pol.RetryFatal > 0 {
			r.t.log.Error("entered FATAL state, too many restarts; retrying later", "service", p.svc.Name,
				"failures", len(p.failures), "window", pol.Window, "retry_in", pol.RetryFatal, "err", err)
		} else {
			r.t.log.Error("gave up: entered FATAL state, too many restarts", "service", p.svc.Name,
				"failures", len(p.failures), "window", pol.Window, "err", err)
		}
	} else {
		p.state = Backoff
		r.t.log.Warn("entered BACKOFF state", "service", p.svc.Name, "failures", len(p.failures), "err", err)
	}
	if p.live != nil {
		r.ctx.Stop(p.live)
		return
	}
	r.scheduleRestart(p)
}

// scheduleRestart arms p's timer once its incarnation is gone: the
// backoff in BACKOFF, the slow retry (Policy.RetryFatal) in FATAL or
// EXITED.
func (r *root) scheduleRestart(p *proc) {
	if r.closing {
		return
	}
	var d time.Duration
	switch {
	case p.state == Backoff:
		d = p.svc.Policy.backoff(len(p.failures))
	case (p.state == Fatal || p.state == Exited) && p.svc.Policy.RetryFatal > 0:
		d = p.svc.Policy.RetryFatal
	default:
		return
	}
	r.stopTimer(p)
	if p.state != Backoff {
		p.retryAt = time.Now().Add(d)
	}
	msg, sys, self := respawn{p: p, gen: p.gen}, r.t.system, r.ctx.Self()
	p.timer = time.AfterFunc(d, func() { sys.Root.Send(self, msg) })
}

// stopTimer cancels p's pending restart, if any.
func (r *root) stopTimer(p *proc) {
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.retryAt = time.Time{}
}

// spawn starts a fresh incarnation of p, which must have none alive.
func (r *root) spawn(p *proc) {
	p.gen++
	p.state = Starting
	p.start = time.Now()
	p.h.desc.Store(nil)
	inner, err := produce(p)
	if err != nil {
		r.fail(p, err)
		return
	}
	sh := &shell{inner: inner, h: p.h, gen: p.gen, p: p}
	pid, err := r.ctx.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return sh }), p.svc.Name)
	if err != nil {
		r.fail(p, fmt.Errorf("spawning: %w", err))
		return
	}
	p.live = pid
	r.byID[pid.Id] = p
}

// produce calls the service's New, which is caller code: a panic there
// must fail this service, not the supervisor.
func produce(p *proc) (a actor.Actor, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("New panicked: %v", v)
		}
	}()
	if a = p.svc.New(p.h); a == nil {
		return nil, errors.New("New returned a nil actor")
	}
	return a, nil
}

func (r *root) terminated(who *actor.PID) {
	p := r.byID[who.Id]
	if p == nil || p.live == nil || p.live.Id != who.Id {
		return
	}
	delete(r.byID, who.Id)
	p.live = nil
	p.stop = time.Now()
	if p.startAfterExit && !r.closing {
		p.startAfterExit = false
		r.spawn(p)
		return
	}
	switch p.state {
	case Stopping:
		p.state = Stopped
		r.t.log.Info("stopped", "service", p.svc.Name)
	case Starting, Running:
		// Starting too: protoactor delivers Terminated (a system message)
		// ahead of our started message when Started stops the actor.
		if r.closing {
			p.state = Stopped
			break
		}
		p.state = Exited
		p.markDown(p.stop)
		r.t.log.Warn("exited: actor stopped itself", "service", p.svc.Name)
		r.scheduleRestart(p)
	case Backoff:
		if r.closing {
			p.state = Stopped
			break
		}
		r.scheduleRestart(p)
	case Fatal:
		r.scheduleRestart(p)
	}
}

// setClosing stops all restarting: a shutdown must not race a backoff
// timer that spawns a fresh incarnation behind it.
func (r *root) setClosing() {
	r.closing = true
	for _, p := range r.procs {
		p.startAfterExit = false
		r.stopTimer(p)
		if p.live == nil && (p.state == Backoff || p.state == Starting) {
			p.state = Stopped
		}
	}
}

func (r *root) startProc(p *proc) error {
	switch {
	case r.closing:
		return fmt.Errorf("%w: %s: supervisor is shutting down", ErrSpawn, p.svc.Name)
	case p.state != Stopped && p.state != Exited && p.state != Fatal:
		return fmt.Errorf("%w: %s is %v", ErrAlreadyStarted, p.svc.Name, p.state)
	}
	p.failures = nil // an operator's start gets a fresh restart budget
	r.stopTimer(p)
	if p.live != nil {
		p.state = Starting
		p.startAfterExit = true
		return nil
	}
	r.spawn(p)
	return nil
}

func (r *root) stopProc(p *proc) error {
	switch {
	case p.state == Starting || p.state == Running || p.state == Backoff:
	case p.state == Stopping:
		return nil
	case (p.state == Fatal || p.state == Exited) && p.svc.Policy.RetryFatal > 0:
		// A retry is pending, or will be once the failed incarnation has
		// stopped: stopping is how an operator keeps it down.
	default:
		return fmt.Errorf("%w: %s is %v", ErrNotRunning, p.svc.Name, p.state)
	}
	p.startAfterExit = false
	r.stopTimer(p)
	p.markDown(time.Now())
	if p.live == nil {
		p.state = Stopped
		p.stop = time.Now()
		return nil
	}
	p.state = Stopping
	// Poison, not Stop: Stop is a system message and overtakes the user
	// messages already queued, so a publisher would handle Stopping before
	// the Unsubscribe its subscriber sent while stopping first, and publish
	// its last state to an actor that is gone. A poison pill is queued
	// behind them; a crash (fail) still stops at once.
	r.ctx.Poison(p.live)
	return nil
}

func (r *root) signal(p *proc, sig string) error {
	if p.live == nil || p.state != Running {
		return fmt.Errorf("%w: %s is %v", ErrNotRunning, p.svc.Name, p.state)
	}
	var msg any
	switch sig {
	case "KILL":
		msg = crash{err: killed{}}
	case "HUP":
		msg = Reload{}
	default:
		msg = Signal{Name: sig}
	}
	r.ctx.Send(p.live, msg)
	return nil
}

// publish hands the Tree a copy of every service's state.
func (r *root) publish() {
	s := make([]snap, len(r.procs))
	for i, p := range r.procs {
		s[i] = snap{
			state: p.state, start: p.start, stop: p.stop, lastErr: p.lastErr,
			alive: p.live != nil, h: p.h, retryAt: p.retryAt, downSince: p.downSince,
		}
		if p.state == Starting || p.state == Running {
			s[i].pid = p.live
		}
	}
	r.t.setSnapshot(s)
}

// shell wraps a service's actor to report its start to the root, turn
// KILL into a panic, and keep a panicking Stopping or Stopped handler from
// leaving the actor half-stopped (protoactor would never finish stopping
// it, and Shutdown would wait for nothing).
type shell struct {
	inner actor.Actor
	h     *Handle
	gen   uint64
	p     *proc // identity only; never read on this goroutine
}

func (s *shell) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		s.inner.Receive(c)
		c.Send(c.Parent(), started{p: s.p, gen: s.gen})
	case *actor.Stopping, *actor.Stopped:
		defer func() {
			if v := recover(); v != nil {
				s.h.logger.Error("panic while stopping", "message", fmt.Sprintf("%T", m), "panic", v)
			}
		}()
		s.inner.Receive(c)
	case crash:
		panic(m.err)
	default:
		s.inner.Receive(c)
	}
}
