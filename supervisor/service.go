package supervisor

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// Service is one supervised actor, the equivalent of a supervisord
// [program:x] section.
type Service struct {
	// Name is short and stable: "ble", "buddy", "approvals", "dock", "ui",
	// "audio". supervisorctl addresses the actor by it.
	Name string
	// DependsOn names services started before this one and stopped after it.
	DependsOn []string
	// Policy says when to start and how hard to try restarting.
	Policy Policy
	// New makes a fresh actor for each (re)start. h lets the actor report
	// its live description and log; it stays valid across restarts.
	New func(h *Handle) actor.Actor
}

// Policy is a service's restart policy. It is plain data so that the
// caller can fill it from the configuration file; start from DefaultPolicy.
type Policy struct {
	// Autostart starts the service with the tree. Turn it off for a
	// service that an operator starts by hand ("supervisorctl start").
	Autostart bool
	// MaxRestarts is how many failures within Window are retried at once,
	// with backoff; one more and the service goes FATAL while the others
	// run on.
	MaxRestarts int
	// Window is the sliding period over which failures are counted.
	Window time.Duration
	// BackoffMin is the wait before the first restart; each further
	// failure within Window doubles it, up to BackoffMax.
	BackoffMin, BackoffMax time.Duration
	// RetryFatal is how long a FATAL (or EXITED) service waits before the
	// supervisor starts it again, with a fresh restart budget, as
	// "supervisorctl start" would. An appliance has nobody to type that:
	// a service that stayed down would silently take a feature away. Zero
	// keeps supervisord's way, down until started by hand.
	RetryFatal time.Duration
}

// DefaultPolicy restarts a failing service five times within a minute,
// waiting 250 ms, 500 ms, 1 s, ... up to 8 s in between, then goes FATAL
// and tries again every 30 s: slow enough that a service broken for good
// costs a few log lines a minute, soon enough that a prompt waiting on it
// is shown within about half a minute.
var DefaultPolicy = Policy{
	Autostart:   true,
	MaxRestarts: 5,
	Window:      time.Minute,
	BackoffMin:  250 * time.Millisecond,
	BackoffMax:  8 * time.Second,
	RetryFatal:  30 * time.Second,
}

// backoff is the wait before restarting after the nth failure in a row
// (n ≥ 1).
func (p Policy) backoff(n int) time.Duration {
	d := p.BackoffMin
	for i := 1; i < n && d < p.BackoffMax; i++ {
		d *= 2
	}
	return min(d, p.BackoffMax)
}

func (p Policy) validate() error {
	switch {
	case p.MaxRestarts < 0:
		return fmt.Errorf("policy: MaxRestarts %d is negative", p.MaxRestarts)
	case p.Window <= 0:
		return fmt.Errorf("policy: Window %v must be positive (start from supervisor.DefaultPolicy)", p.Window)
	case p.BackoffMin <= 0:
		return fmt.Errorf("policy: BackoffMin %v must be positive (start from supervisor.DefaultPolicy)", p.BackoffMin)
	case p.BackoffMax < p.BackoffMin:
		return fmt.Errorf("policy: BackoffMax %v is below BackoffMin %v", p.BackoffMax, p.BackoffMin)
	case p.RetryFatal < 0:
		return fmt.Errorf("policy: RetryFatal %v is negative (zero means never retry)", p.RetryFatal)
	}
	return nil
}

// Options configures a Tree. The zero value works.
type Options struct {
	// Logger receives every log line (the supervisor's own, protoactor's
	// and each actor's); nil means slog.Default(). The lines are also kept
	// in the log rings that supervisorctl tails.
	Logger *slog.Logger
	// Identification is what supervisorctl reports as the supervisor's
	// identifier; empty means "claude-pi".
	Identification string
	// LogRingBytes is how much recent log each actor keeps (and the main
	// log too); zero means MinLogRingBytes, and smaller is rejected.
	LogRingBytes int
}

// validName reports whether supervisorctl can address name: it uses ':'
// for group:name, spaces separate arguments, and protoactor uses '/' in
// actor paths.
func validName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r == '-' || r == '_' || r == '.'
		if !ok {
			return false
		}
	}
	return true
}

// startOrder validates services and returns them with every service after
// its dependencies, otherwise keeping the caller's order.
func startOrder(services []Service) ([]Service, error) {
	byName := make(map[string]int, len(services))
	for i, s := range services {
		if !validName(s.Name) {
			return nil, fmt.Errorf("service %d: invalid name %q (want 1-64 of A-Z a-z 0-9 - _ .)", i, s.Name)
		}
		if _, dup := byName[s.Name]; dup {
			return nil, fmt.Errorf("service %q defined twice", s.Name)
		}
		if s.New == nil {
			return nil, fmt.Errorf("service %q: New is nil", s.Name)
		}
		if err := s.Policy.validate(); err != nil {
			return nil, fmt.Errorf("service %q: %v", s.Name, err)
		}
		byName[s.Name] = i
	}
	for _, s := range services {
		for _, d := range s.DependsOn {
			if _, ok := byName[d]; !ok {
				return nil, fmt.Errorf("service %q depends on unknown service %q", s.Name, d)
			}
		}
	}

	const (
		unvisited = iota
		visiting
		done
	)
	mark := make([]int, len(services))
	order := make([]Service, 0, len(services))
	var path []string
	var visit func(i int) error
	visit = func(i int) error {
		switch mark[i] {
		case done:
			return nil
		case visiting:
			cycle := append(path[indexOf(path, services[i].Name):], services[i].Name)
			return fmt.Errorf("dependency cycle: %s", strings.Join(cycle, " -> "))
		}
		mark[i] = visiting
		path = append(path, services[i].Name)
		for _, d := range services[i].DependsOn {
			if err := visit(byName[d]); err != nil {
				return err
			}
		}
		path = path[:len(path)-1]
		mark[i] = done
		order = append(order, services[i])
		return nil
	}
	for i := range services {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return order, nil
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return 0
}
