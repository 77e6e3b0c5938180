package supervisor

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Processes lists every service in start order.
func (t *Tree) Processes() []ProcessInfo {
	t.mu.Lock()
	snaps := t.snaps
	t.mu.Unlock()
	out := make([]ProcessInfo, len(t.procs))
	now := time.Now()
	for i, p := range t.procs {
		out[i] = info(p.svc.Name, snaps[i], now)
	}
	return out
}

// Process returns one service, or ErrBadName.
func (t *Tree) Process(name string) (ProcessInfo, error) {
	i, err := t.lookup(name)
	if err != nil {
		return ProcessInfo{}, err
	}
	return info(name, t.snapshot(i), time.Now()), nil
}

// info describes s the way supervisorctl status shows it: the actor's own
// line while RUNNING, "FATAL: " and the last error when it gave up, and
// otherwise supervisord's computed line (Describe).
func info(name string, s snap, now time.Time) ProcessInfo {
	pi := ProcessInfo{
		Name: name, Group: name, State: s.state,
		Start: s.start, Stop: s.stop, SpawnErr: s.lastErr,
	}
	if s.state != Running {
		pi.DownSince = s.downSince
	}
	if s.alive && (s.state == Starting || s.state == Running || s.state == Stopping) {
		pi.PID = os.Getpid()
	}
	pi.Description = Describe(pi, now)
	switch s.state {
	case Running:
		if d := s.h.description(); d != "" {
			pi.Description = d
		}
	case Fatal:
		pi.Description = "FATAL: " + s.lastErr
	}
	if !s.retryAt.IsZero() && (s.state == Fatal || s.state == Exited) {
		// What supervisorctl status and doctor print: the state alone
		// does not say that the appliance has not given up.
		pi.Description += fmt.Sprintf(" (down since %s, retry in %s)",
			s.downSince.Local().Format("15:04"), max(s.retryAt.Sub(now), 0).Round(time.Second))
	}
	return pi
}

// Describe is supervisord's _interpretProcessInfo: the status line of a
// process that has none of its own. The tree and the control socket (for
// any Backend) both use it, so they cannot drift apart.
func Describe(p ProcessInfo, now time.Time) string {
	switch p.State {
	case Running:
		up := now.Sub(p.Start)
		if p.Start.IsZero() || up < 0 {
			up = 0
		}
		return fmt.Sprintf("pid %d, uptime %s", p.PID, uptime(up))
	case Fatal, Backoff:
		if p.SpawnErr != "" {
			return p.SpawnErr
		}
		return fmt.Sprintf("unknown error (try \"tail %s\")", p.Name)
	case Stopped, Exited:
		// supervisord keys on start alone; a missing stop time would
		// print the epoch, which says nothing.
		if p.Start.IsZero() || p.Stop.IsZero() {
			return "Not started"
		}
		return p.Stop.Local().Format("Jan 02 03:04 PM")
	}
	return ""
}

// uptime formats d as supervisord does: "1:02:03", "2 days, 1:02:03".
func uptime(d time.Duration) string {
	s := int64(d / time.Second)
	days, s := s/86400, s%86400
	hms := fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	switch days {
	case 0:
		return hms
	case 1:
		return "1 day, " + hms
	}
	return fmt.Sprintf("%d days, %s", days, hms)
}

// StartProcess starts a STOPPED, EXITED or FATAL service with a fresh
// restart budget. With wait it returns once the service is RUNNING, or
// ErrSpawn with the error that kept it from getting there.
func (t *Tree) StartProcess(name string, wait bool) error {
	i, err := t.lookup(name)
	if err != nil {
		return err
	}
	p := t.procs[i]
	if err := t.call(func() error { return t.rt.startProc(p) }); err != nil {
		return err
	}
	if !wait {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := t.wait(ctx, i, func(s snap) bool { return s.state != Starting }); err != nil {
		return fmt.Errorf("%w: %s still STARTING after %v", ErrSpawn, name, waitLimit)
	}
	if s := t.snapshot(i); s.state != Running {
		return fmt.Errorf("%w: %s: %s", ErrSpawn, name, s.lastErr)
	}
	return nil
}

// StopProcess stops a service that is STARTING, RUNNING or in BACKOFF.
// With wait it returns once the actor has finished stopping.
func (t *Tree) StopProcess(name string, wait bool) error {
	i, err := t.lookup(name)
	if err != nil {
		return err
	}
	p := t.procs[i]
	if err := t.call(func() error { return t.rt.stopProc(p) }); err != nil {
		return err
	}
	if !wait {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := t.wait(ctx, i, snap.down); err != nil {
		return fmt.Errorf("supervisor: %s still STOPPING after %v", name, waitLimit)
	}
	return nil
}

// SignalProcess delivers a signal to a RUNNING service's actor: HUP as
// Reload{}, KILL as an injected crash (the actor restarts as after a
// panic), any other known name as Signal{Name}. Unknown names give
// ErrBadSignal.
func (t *Tree) SignalProcess(name, signal string) error {
	i, err := t.lookup(name)
	if err != nil {
		return err
	}
	sig, err := SignalName(signal)
	if err != nil {
		return err
	}
	p := t.procs[i]
	return t.call(func() error { return t.rt.signal(p, sig) })
}

// Log returns the retained tail of a service's log ("" for the main log)
// and the number of bytes ever written to it.
func (t *Tree) Log(name string) (retained []byte, total int64, err error) {
	r, err := t.ring(name)
	if err != nil {
		return nil, 0, err
	}
	retained, total = r.Bytes()
	return retained, total, nil
}

// FollowLog streams later writes to a service's log ("" for the main log)
// until stop is called. A reader that falls behind loses data.
func (t *Tree) FollowLog(name string) (ch <-chan []byte, stop func(), err error) {
	r, err := t.ring(name)
	if err != nil {
		return nil, nil, err
	}
	ch, stop = r.Follow()
	return ch, stop, nil
}

// ClearLog empties a service's log ("" for the main log).
func (t *Tree) ClearLog(name string) error {
	r, err := t.ring(name)
	if err != nil {
		return err
	}
	r.Clear()
	return nil
}

// Identification is supervisord's identifier, Options.Identification.
func (t *Tree) Identification() string { return t.id }

// PID is the appliance's process id: every actor shares it.
func (t *Tree) PID() int { return os.Getpid() }

func (t *Tree) lookup(name string) (int, error) {
	i, ok := t.index[name]
	if !ok {
		return 0, fmt.Errorf("%w: %q", ErrBadName, name)
	}
	return i, nil
}

func (t *Tree) ring(name string) (*Ring, error) {
	if name == "" {
		return t.main, nil
	}
	i, err := t.lookup(name)
	if err != nil {
		return nil, err
	}
	return t.procs[i].ring, nil
}
