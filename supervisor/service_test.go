package supervisor

import (
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

func svc(name string, deps ...string) Service {
	return Service{
		Name: name, DependsOn: deps, Policy: DefaultPolicy,
		New: func(*Handle) actor.Actor { return actor.ReceiveFunc(func(actor.Context) {}) },
	}
}

func TestNewRejectsBadServices(t *testing.T) {
	withPolicy := func(s Service, p Policy) Service { s.Policy = p; return s }
	noNew := svc("ble")
	noNew.New = nil
	tests := []struct {
		name     string
		opts     Options
		services []Service
		wantErr  string
	}{
		{"empty name", Options{}, []Service{svc("")}, `invalid name ""`},
		{"colon in name", Options{}, []Service{svc("ble:1")}, `invalid name "ble:1"`},
		{"slash in name", Options{}, []Service{svc("a/b")}, `invalid name "a/b"`},
		{"duplicate", Options{}, []Service{svc("ble"), svc("ble")}, `service "ble" defined twice`},
		{"nil New", Options{}, []Service{noNew}, `service "ble": New is nil`},
		{"unknown dependency", Options{}, []Service{svc("buddy", "bel")}, `service "buddy" depends on unknown service "bel"`},
		{"self dependency", Options{}, []Service{svc("ble", "ble")}, "dependency cycle: ble -> ble"},
		{"cycle", Options{}, []Service{svc("ui", "buddy"), svc("buddy", "ble"), svc("ble", "ui")}, "dependency cycle: ui -> buddy -> ble -> ui"},
		{"zero policy", Options{}, []Service{withPolicy(svc("ble"), Policy{})}, `service "ble": policy: Window 0s must be positive`},
		{"negative restarts", Options{}, []Service{withPolicy(svc("ble"), Policy{MaxRestarts: -1})}, "MaxRestarts -1 is negative"},
		{"backoff max below min", Options{}, []Service{withPolicy(svc("ble"), Policy{Window: time.Second, BackoffMin: time.Second, BackoffMax: time.Millisecond})}, "BackoffMax 1ms is below BackoffMin 1s"},
		{"small ring", Options{LogRingBytes: 1024}, []Service{svc("ble")}, "LogRingBytes 1024 is below the minimum 65536"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opts, tt.services...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New() error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestStartOrderPutsDependenciesFirst(t *testing.T) {
	tests := []struct {
		name     string
		services []Service
		want     string
	}{
		{"independent keep caller order", []Service{svc("b"), svc("a"), svc("c")}, "b a c"},
		{"dependency hoisted", []Service{svc("buddy", "ble"), svc("ble")}, "ble buddy"},
		{"diamond", []Service{svc("ui", "buddy", "dock"), svc("buddy", "ble"), svc("dock", "ble"), svc("ble"), svc("audio")}, "ble buddy dock ui audio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			order, err := startOrder(tt.services)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, s := range order {
				names = append(names, s.Name)
			}
			if got := strings.Join(names, " "); got != tt.want {
				t.Fatalf("startOrder = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBackoffDoublesUpToMax(t *testing.T) {
	p := Policy{BackoffMin: 250 * time.Millisecond, BackoffMax: time.Second}
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, time.Second, time.Second}
	for i, w := range want {
		if got := p.backoff(i + 1); got != w {
			t.Errorf("backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
}

func TestSignalName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"HUP", "HUP"}, {"hup", "HUP"}, {"SIGKILL", "KILL"}, {"sigusr1", "USR1"}, {"15", "TERM"}, {"9", "KILL"},
		// supervisord's too (Python's signal module), which the tree once
		// refused while its control socket took them.
		{"STKFLT", "STKFLT"}, {"16", "STKFLT"}, {"IOT", "ABRT"}, {"sigcld", "CHLD"}, {"POLL", "IO"}, {" term ", "TERM"},
	}
	for _, tt := range tests {
		if got, err := SignalName(tt.in); got != tt.want || err != nil {
			t.Errorf("SignalName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "BOGUS", "SIG", "99", "-1", "0", "32"} {
		if _, err := SignalName(bad); err == nil {
			t.Errorf("SignalName(%q) succeeded", bad)
		}
	}
}

func TestUptime(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0:00:00"},
		{time.Hour + 2*time.Minute + 3*time.Second, "1:02:03"},
		{25 * time.Hour, "1 day, 1:00:00"},
		{49 * time.Hour, "2 days, 1:00:00"},
	}
	for _, tt := range tests {
		if got := uptime(tt.d); got != tt.want {
			t.Errorf("uptime(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestDescribe pins supervisord's computed status lines, which the
// control socket shows for any Backend that leaves a description empty.
func TestDescribe(t *testing.T) {
	now := time.Unix(1700000000+86400+3723, 0)
	start := time.Unix(1700000000, 0)
	tests := []struct {
		p    ProcessInfo
		want string
	}{
		{ProcessInfo{State: Running, PID: 7, Start: start}, "pid 7, uptime 1 day, 1:02:03"},
		{ProcessInfo{State: Running, PID: 7, Start: now.Add(-5 * time.Second)}, "pid 7, uptime 0:00:05"},
		{ProcessInfo{State: Fatal, SpawnErr: "boom"}, "boom"},
		{ProcessInfo{Name: "x", State: Backoff}, `unknown error (try "tail x")`},
		{ProcessInfo{State: Stopped}, "Not started"},
		{ProcessInfo{State: Stopped, Start: start, Stop: start.Add(time.Hour)}, start.Add(time.Hour).Local().Format("Jan 02 03:04 PM")},
		{ProcessInfo{State: Stopping}, ""},
	}
	for _, tt := range tests {
		if got := Describe(tt.p, now); got != tt.want {
			t.Errorf("Describe(%v) = %q, want %q", tt.p.State, got, tt.want)
		}
	}
}
