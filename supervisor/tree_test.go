package supervisor

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// patience is how long a test waits for a state before failing. It is a
// deadline for polling, never an assertion about speed.
const patience = 20 * time.Second

// fast restarts almost at once so that tests run many cycles quickly.
var fast = Policy{Autostart: true, MaxRestarts: 3, Window: time.Hour, BackoffMin: time.Millisecond, BackoffMax: 4 * time.Millisecond}

// journal records lifecycle events of every probe in order.
type journal struct {
	mu  sync.Mutex
	evs []string
}

func (j *journal) add(s string) {
	j.mu.Lock()
	j.evs = append(j.evs, s)
	j.mu.Unlock()
}

func (j *journal) filter(prefix string) []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []string
	for _, e := range j.evs {
		if strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}

// probe is a service actor whose behaviour each test adjusts.
type probe struct {
	h        *Handle
	j        *journal
	started  func(c actor.Context, h *Handle) // optional
	stopping func()                           // optional
	got      chan any                         // non-lifecycle messages, if set
}

func (p *probe) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Started:
		p.j.add("start " + p.h.Name())
		if p.started != nil {
			p.started(c, p.h)
		}
	case *actor.Stopping:
		p.j.add("stop " + p.h.Name())
		if p.stopping != nil {
			p.stopping()
		}
	case *actor.Stopped:
	case string:
		switch m {
		case "panic":
			panic("probe told to panic")
		case "quit":
			c.Stop(c.Self())
		}
	default:
		if p.got != nil {
			p.got <- m
		}
	}
}

// probeSvc makes a service of probes; adjust may set hooks on each new
// incarnation.
func probeSvc(j *journal, name string, pol Policy, adjust func(*probe), deps ...string) Service {
	return Service{Name: name, DependsOn: deps, Policy: pol, New: func(h *Handle) actor.Actor {
		p := &probe{h: h, j: j}
		if adjust != nil {
			adjust(p)
		}
		return p
	}}
}

// start builds and starts a tree that is shut down when the test ends.
func start(t *testing.T, services ...Service) *Tree {
	t.Helper()
	tr, err := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, services...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		defer cancel()
		if err := tr.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return tr
}

// waitFor polls name's published state until ok holds.
func waitFor(t *testing.T, tr *Tree, name string, what string, ok func(ProcessInfo) bool) ProcessInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	i := tr.index[name]
	err := tr.wait(ctx, i, func(s snap) bool { return ok(info(name, s, time.Now())) })
	pi, _ := tr.Process(name)
	if err != nil {
		t.Fatalf("%s never became %s; last %v %q", name, what, pi.State, pi.Description)
	}
	return pi
}

func waitState(t *testing.T, tr *Tree, name string, want State) ProcessInfo {
	t.Helper()
	return waitFor(t, tr, name, want.String(), func(pi ProcessInfo) bool { return pi.State == want })
}

func TestStartsInDependencyOrderAndStopsInReverse(t *testing.T) {
	j := &journal{}
	tr, err := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		probeSvc(j, "ui", DefaultPolicy, nil, "buddy", "dock"),
		probeSvc(j, "buddy", DefaultPolicy, nil, "ble"),
		probeSvc(j, "dock", DefaultPolicy, nil),
		probeSvc(j, "ble", DefaultPolicy, nil),
	)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, pi := range tr.Processes() {
		names = append(names, pi.Name)
		if pi.State != Running || pi.PID == 0 || pi.Group != pi.Name {
			t.Errorf("%s: state %v pid %d group %q after Start", pi.Name, pi.State, pi.PID, pi.Group)
		}
	}
	if got, want := strings.Join(names, " "), "ble buddy dock ui"; got != want {
		t.Errorf("Processes() order = %q, want %q", got, want)
	}
	if got, want := strings.Join(j.filter("start"), ","), "start ble,start buddy,start dock,start ui"; got != want {
		t.Errorf("started %q, want %q", got, want)
	}
	if err := tr.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(j.filter("stop"), ","), "stop ui,stop dock,stop buddy,stop ble"; got != want {
		t.Errorf("stopped %q, want %q", got, want)
	}
	for _, pi := range tr.Processes() {
		if pi.State != Stopped || pi.PID != 0 || tr.ActorPID(pi.Name) != nil {
			t.Errorf("%s: %v pid %d after Shutdown", pi.Name, pi.State, pi.PID)
		}
	}
	if err := tr.StartProcess("ble", false); err == nil {
		t.Error("StartProcess after Shutdown succeeded")
	}
}

func TestKillRestartsOnlyThatActor(t *testing.T) {
	j := &journal{}
	tr := start(t,
		probeSvc(j, "ble", fast, nil),
		probeSvc(j, "buddy", fast, nil, "ble"),
		probeSvc(j, "ui", fast, nil, "buddy"),
	)
	before := tr.Processes()
	if err := tr.SignalProcess("buddy", "KILL"); err != nil {
		t.Fatal(err)
	}
	pi := waitFor(t, tr, "buddy", "RUNNING again", func(pi ProcessInfo) bool {
		return pi.State == Running && pi.Start.After(before[1].Start)
	})
	if pi.SpawnErr != "killed by SIGKILL" {
		t.Errorf("SpawnErr = %q, want the kill", pi.SpawnErr)
	}
	if got := j.filter("stop buddy"); len(got) != 1 {
		t.Errorf("killed incarnation got Stopping %d times, want 1", len(got))
	}
	if tr.ActorPID("buddy") == nil {
		t.Error("no PID for the restarted actor")
	}
	after := tr.Processes()
	for _, i := range []int{0, 2} {
		if !after[i].Start.Equal(before[i].Start) || after[i].State != Running {
			t.Errorf("%s was disturbed: %v started %v, was %v", after[i].Name, after[i].State, after[i].Start, before[i].Start)
		}
	}
	if got := j.filter("start ble"); len(got) != 1 {
		t.Errorf("ble started %d times, want 1", len(got))
	}
	main, _, _ := tr.Log("")
	if !strings.Contains(string(main), "entered BACKOFF state") || !strings.Contains(string(main), "service=buddy") {
		t.Errorf("main log lacks the BACKOFF line:\n%s", main)
	}
}

func TestPanicInReceiveShowsBackoffWithLastError(t *testing.T) {
	j := &journal{}
	slow := fast
	slow.BackoffMin, slow.BackoffMax = time.Hour, time.Hour // stays in BACKOFF
	tr := start(t, probeSvc(j, "dock", slow, nil), probeSvc(j, "ble", fast, nil))
	tr.System().Root.Send(tr.ActorPID("dock"), "panic")
	pi := waitState(t, tr, "dock", Backoff)
	if pi.Description != "panic: probe told to panic" || pi.PID != 0 || tr.ActorPID("dock") != nil {
		t.Errorf("BACKOFF info = %+v", pi)
	}
	waitFor(t, tr, "dock", "stopped", func(ProcessInfo) bool { return len(j.filter("stop dock")) == 1 })
	if err := tr.StopProcess("dock", true); err != nil {
		t.Fatalf("stopping during BACKOFF: %v", err)
	}
	waitState(t, tr, "dock", Stopped)
	if pi, _ := tr.Process("ble"); pi.State != Running {
		t.Errorf("ble is %v", pi.State)
	}
}

func TestTooManyFailuresGoFatalUntilStarted(t *testing.T) {
	spiErr := errors.New("SPI not enabled (dtparam=spi=on)")
	tests := []struct {
		name    string
		failure func(c actor.Context, h *Handle)
		wantErr string
	}{
		{"Fail", func(_ actor.Context, h *Handle) { h.Fail(spiErr) }, spiErr.Error()},
		{"panic error", func(actor.Context, *Handle) { panic(spiErr) }, spiErr.Error()},
		{"panic string", func(actor.Context, *Handle) { panic("boom") }, "panic: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &journal{}
			var broken atomic.Bool
			broken.Store(true)
			var incarnations atomic.Int32
			tr := start(t,
				probeSvc(j, "ble", fast, nil),
				probeSvc(j, "display", fast, func(p *probe) {
					incarnations.Add(1)
					p.started = func(c actor.Context, h *Handle) {
						if broken.Load() {
							tt.failure(c, h)
						}
					}
				}),
			)
			pi := waitState(t, tr, "display", Fatal)
			if want := "FATAL: " + tt.wantErr; pi.Description != want || pi.SpawnErr != tt.wantErr {
				t.Errorf("FATAL description %q spawnerr %q, want %q", pi.Description, pi.SpawnErr, want)
			}
			if got, want := incarnations.Load(), int32(fast.MaxRestarts+1); got != want {
				t.Errorf("%d incarnations before FATAL, want %d", got, want)
			}
			if pi, _ := tr.Process("ble"); pi.State != Running {
				t.Errorf("ble is %v while display is FATAL", pi.State)
			}
			// Still broken: a waited start reports the spawn error.
			if err := tr.StartProcess("display", true); !errors.Is(err, ErrSpawn) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("StartProcess while broken = %v, want ErrSpawn with %q", err, tt.wantErr)
			}
			waitState(t, tr, "display", Fatal)
			broken.Store(false)
			if err := tr.StartProcess("display", true); err != nil {
				t.Fatalf("StartProcess after fixing: %v", err)
			}
			if pi, _ := tr.Process("display"); pi.State != Running {
				t.Errorf("display is %v after StartProcess", pi.State)
			}
		})
	}
}

func TestNewFailuresGoFatal(t *testing.T) {
	tests := []struct {
		name    string
		newFn   func(*Handle) actor.Actor
		wantErr string
	}{
		{"nil actor", func(*Handle) actor.Actor { return nil }, "New returned a nil actor"},
		{"panic", func(*Handle) actor.Actor { panic("no /dev/spidev0.0") }, "New panicked: no /dev/spidev0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := start(t, Service{Name: "display", Policy: fast, New: tt.newFn})
			if pi := waitState(t, tr, "display", Fatal); pi.SpawnErr != tt.wantErr {
				t.Errorf("SpawnErr = %q, want %q", pi.SpawnErr, tt.wantErr)
			}
		})
	}
}

// TestFatalIsRetriedUntilRunning is issue 32's "no service stays down":
// a service killed past its restart budget goes FATAL, as supervisorctl
// shows it, and then comes back RUNNING by itself.
func TestFatalIsRetriedUntilRunning(t *testing.T) {
	j := &journal{}
	pol := fast
	pol.RetryFatal = 50 * time.Millisecond
	var broken atomic.Bool
	broken.Store(true)
	tr := start(t,
		probeSvc(j, "ble", fast, nil),
		probeSvc(j, "approvals", pol, func(p *probe) {
			p.started = func(_ actor.Context, h *Handle) {
				if broken.Load() {
					h.Fail(errors.New("store unreadable"))
				}
			}
		}),
	)
	down := waitFor(t, tr, "approvals", "FATAL with a retry pending", func(pi ProcessInfo) bool {
		return pi.State == Fatal && strings.HasPrefix(pi.Description, "FATAL: store unreadable (down since ")
	})
	if down.DownSince.IsZero() || down.DownSince.After(down.Stop) {
		t.Errorf("DownSince %v, want the first failure (last stop %v)", down.DownSince, down.Stop)
	}
	// Still broken: each retry gets a fresh budget and ends FATAL again.
	first := len(j.filter("start approvals"))
	again := waitFor(t, tr, "approvals", "retried while broken", func(ProcessInfo) bool {
		return len(j.filter("start approvals")) >= first+pol.MaxRestarts+1
	})
	if !again.DownSince.Equal(down.DownSince) {
		t.Errorf("DownSince moved to %v across retries, want the first failure %v", again.DownSince, down.DownSince)
	}
	broken.Store(false)
	pi := waitState(t, tr, "approvals", Running)
	if pi.PID == 0 || tr.ActorPID("approvals") == nil || !pi.DownSince.IsZero() {
		t.Errorf("RUNNING after the retry: %+v, want a PID and no DownSince", pi)
	}
	main, _, _ := tr.Log("")
	if !strings.Contains(string(main), "retrying after FATAL") {
		t.Errorf("main log lacks the retry line:\n%s", main)
	}
	if got := j.filter("start ble"); len(got) != 1 {
		t.Errorf("ble started %d times, want 1: retries must not touch it", len(got))
	}
}

// TestStopCancelsTheFatalRetry: an operator who stops a FATAL service
// keeps it down; an EXITED one is retried too.
func TestStopCancelsTheFatalRetry(t *testing.T) {
	j := &journal{}
	pol := fast
	pol.RetryFatal = time.Hour
	tr := start(t, probeSvc(j, "ui", pol, func(p *probe) {
		p.started = func(_ actor.Context, h *Handle) { h.Fail(errors.New("no SPI")) }
	}))
	waitState(t, tr, "ui", Fatal)
	if err := tr.StopProcess("ui", true); err != nil {
		t.Fatalf("stopping a FATAL service with a retry pending: %v", err)
	}
	if pi := waitState(t, tr, "ui", Stopped); strings.Contains(pi.Description, "retry") {
		t.Errorf("STOPPED description %q still promises a retry", pi.Description)
	}
	if err := tr.StopProcess("ui", true); !errors.Is(err, ErrNotRunning) {
		t.Errorf("second stop = %v, want ErrNotRunning", err)
	}
}

func TestExitedIsRetried(t *testing.T) {
	j := &journal{}
	pol := fast
	pol.RetryFatal = 20 * time.Millisecond
	tr := start(t, probeSvc(j, "lan", pol, nil))
	tr.System().Root.Send(tr.ActorPID("lan"), "quit")
	waitFor(t, tr, "lan", "started again after EXITED", func(pi ProcessInfo) bool {
		return pi.State == Running && len(j.filter("start lan")) == 2
	})
	main, _, _ := tr.Log("")
	if !strings.Contains(string(main), "retrying after EXITED") {
		t.Errorf("main log lacks the retry line:\n%s", main)
	}
}

// TestAliveIsARoundTripThroughTheRoot: the watchdog's health check answers
// while the root actor does, and not while it is wedged or gone.
func TestAliveIsARoundTripThroughTheRoot(t *testing.T) {
	tr, err := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, probeSvc(&journal{}, "ble", fast, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Alive(context.Background()); !errors.Is(err, errNotStarted) {
		t.Errorf("Alive before Start = %v, want errNotStarted", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tr.Alive(ctx); err != nil {
		t.Errorf("Alive on a started tree = %v", err)
	}
	// Wedge the root actor: a call that does not return.
	release, wedged := make(chan struct{}), make(chan struct{})
	go tr.call(func() error { close(wedged); <-release; return nil })
	<-wedged
	short, cancelShort := context.WithTimeout(ctx, 20*time.Millisecond)
	err = tr.Alive(short)
	cancelShort()
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "root actor did not answer") {
		t.Errorf("Alive while the root is wedged = %v, want a deadline naming the root actor", err)
	}
	close(release)
	if err := tr.Alive(ctx); err != nil {
		t.Errorf("Alive once unwedged = %v", err)
	}
	if err := tr.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tr.Alive(ctx); err == nil {
		t.Error("Alive after Shutdown = nil")
	}
}

// BenchmarkProcesses is what the home screen pays per frame (8 a second)
// to name a service that is down.
func BenchmarkProcesses(b *testing.B) {
	var svcs []Service
	for _, n := range []string{"ble", "approvals", "buddy", "lan", "dock", "ui", "audio"} {
		svcs = append(svcs, probeSvc(&journal{}, n, fast, nil))
	}
	tr, err := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, svcs...)
	if err != nil {
		b.Fatal(err)
	}
	if err := tr.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer tr.Shutdown(context.Background())
	b.ReportAllocs()
	for b.Loop() {
		if len(tr.Processes()) != 7 {
			b.Fatal("lost a service")
		}
	}
}
