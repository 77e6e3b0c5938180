package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

func TestOperatorStopAndStart(t *testing.T) {
	j := &journal{}
	tr := start(t, probeSvc(j, "ble", fast, nil), probeSvc(j, "audio", fast, nil))
	if err := tr.StopProcess("audio", true); err != nil {
		t.Fatal(err)
	}
	pi, _ := tr.Process("audio")
	if pi.State != Stopped || pi.PID != 0 || pi.Stop.IsZero() || len(j.filter("stop audio")) != 1 {
		t.Fatalf("after stop: %+v, stops %v", pi, j.filter("stop audio"))
	}
	for _, tt := range []struct {
		name string
		err  error
		want error
	}{
		{"stop stopped", tr.StopProcess("audio", false), ErrNotRunning},
		{"signal stopped", tr.SignalProcess("audio", "HUP"), ErrNotRunning},
		{"start running", tr.StartProcess("ble", false), ErrAlreadyStarted},
		{"start unknown", tr.StartProcess("nope", false), ErrBadName},
		{"stop unknown", tr.StopProcess("nope", false), ErrBadName},
		{"signal unknown", tr.SignalProcess("nope", "HUP"), ErrBadName},
		{"bad signal", tr.SignalProcess("ble", "BOGUS"), ErrBadSignal},
	} {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: error %v, want %v", tt.name, tt.err, tt.want)
		}
	}
	if _, err := tr.Process("nope"); !errors.Is(err, ErrBadName) {
		t.Errorf("Process(nope) error %v", err)
	}
	if err := tr.StartProcess("audio", true); err != nil {
		t.Fatal(err)
	}
	if pi, _ := tr.Process("audio"); pi.State != Running || len(j.filter("start audio")) != 2 {
		t.Fatalf("after start: %v, starts %v", pi.State, j.filter("start audio"))
	}
	if got := len(j.filter("start ble")); got != 1 {
		t.Errorf("ble started %d times", got)
	}
}

func TestAutostartOffStaysStopped(t *testing.T) {
	manual := fast
	manual.Autostart = false
	tr := start(t, probeSvc(&journal{}, "audio", manual, nil))
	if pi, _ := tr.Process("audio"); pi.State != Stopped || pi.Description != "Not started" {
		t.Fatalf("got %v %q, want STOPPED Not started", pi.State, pi.Description)
	}
	if err := tr.StartProcess("audio", true); err != nil {
		t.Fatal(err)
	}
}

func TestSignalsArriveAsMessages(t *testing.T) {
	got := make(chan any, 8)
	tr := start(t, probeSvc(&journal{}, "ble", fast, func(p *probe) { p.got = got }))
	tests := []struct {
		signal string
		want   any
	}{
		{"HUP", Reload{}},
		{"SIGHUP", Reload{}},
		{"USR1", Signal{Name: "USR1"}},
		{"15", Signal{Name: "TERM"}},
	}
	for _, tt := range tests {
		if err := tr.SignalProcess("ble", tt.signal); err != nil {
			t.Fatalf("SignalProcess(%q): %v", tt.signal, err)
		}
		select {
		case m := <-got:
			if m != tt.want {
				t.Errorf("signal %q arrived as %#v, want %#v", tt.signal, m, tt.want)
			}
		case <-time.After(patience):
			t.Fatalf("signal %q never arrived", tt.signal)
		}
	}
}

func TestActorStoppingItselfIsExited(t *testing.T) {
	j := &journal{}
	tr := start(t, probeSvc(j, "buddy", fast, nil), probeSvc(j, "ble", fast, nil))
	tr.System().Root.Send(tr.ActorPID("buddy"), "quit")
	pi := waitState(t, tr, "buddy", Exited)
	if pi.PID != 0 || len(j.filter("start buddy")) != 1 {
		t.Errorf("exited actor: %+v, restarted %d times", pi, len(j.filter("start buddy"))-1)
	}
	if err := tr.StartProcess("buddy", true); err != nil {
		t.Fatal(err)
	}
}

func TestDescriptionIsLiveAndResetOnRestart(t *testing.T) {
	tr := start(t, probeSvc(&journal{}, "ble", fast, func(p *probe) {
		p.started = func(_ actor.Context, h *Handle) {
			if h.description() != "" {
				h.SetDescription("stale line leaked into a new incarnation")
			}
		}
	}))
	pi, _ := tr.Process("ble")
	if !strings.HasPrefix(pi.Description, "pid ") || !strings.Contains(pi.Description, "uptime 0:00:") {
		t.Errorf("default description %q, want supervisord's pid/uptime line", pi.Description)
	}
	h := tr.procs[0].h
	h.SetDescription("advertising as Claude_Pi · 1 central")
	if pi, _ := tr.Process("ble"); pi.Description != "advertising as Claude_Pi · 1 central" {
		t.Errorf("description %q", pi.Description)
	}
	if err := tr.SignalProcess("ble", "KILL"); err != nil {
		t.Fatal(err)
	}
	pi = waitFor(t, tr, "ble", "restarted", func(p ProcessInfo) bool { return p.State == Running && p.Start.After(pi.Start) })
	if !strings.HasPrefix(pi.Description, "pid ") {
		t.Errorf("description after restart %q, want the default", pi.Description)
	}
}

func TestShutdownIsBoundedBySlowStopping(t *testing.T) {
	j := &journal{}
	release := make(chan struct{})
	defer close(release)
	tr, err := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		probeSvc(j, "ble", fast, nil),
		probeSvc(j, "dock", fast, func(p *probe) { p.stopping = func() { <-release } }, "ble"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = tr.Shutdown(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "dock") {
		t.Fatalf("Shutdown = %v, want a deadline error naming dock", err)
	}
	// ble, which dock depends on, is still told to stop.
	waitFor(t, tr, "ble", "stopped", func(pi ProcessInfo) bool { return pi.State == Stopped })
	if pi, _ := tr.Process("dock"); pi.State != Stopping {
		t.Errorf("dock is %v while its Stopping handler blocks", pi.State)
	}
}

// TestNoGoroutineLeakAcrossRestarts crashes an actor that runs a helper
// goroutine many times: each incarnation must get Stopping and end it, and
// the supervisor must not keep anything per restart either.
func TestNoGoroutineLeakAcrossRestarts(t *testing.T) {
	many := fast
	many.MaxRestarts = 1000
	tr := start(t, probeSvc(&journal{}, "ble", many, func(p *probe) {
		done := make(chan struct{})
		p.started = func(actor.Context, *Handle) {
			go func() {
				tick := time.NewTicker(time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-done:
						return
					case <-tick.C:
					}
				}
			}()
		}
		p.stopping = func() { close(done) }
	}))
	base := settledGoroutines(0)
	const cycles = 30
	for i := range cycles {
		before, _ := tr.Process("ble")
		if err := tr.SignalProcess("ble", "KILL"); err != nil {
			t.Fatalf("cycle %d: %v", i, err)
		}
		waitFor(t, tr, "ble", fmt.Sprintf("RUNNING after kill %d", i), func(pi ProcessInfo) bool {
			return pi.State == Running && pi.Start.After(before.Start)
		})
	}
	// Mailbox and protoactor timer goroutines come and go; wait for them.
	if n := settledGoroutines(base + 2); n > base+2 {
		t.Fatalf("%d goroutines after %d restarts, %d before: leaking", n, cycles, base)
	}
}

// settledGoroutines polls until at most want goroutines remain (or the
// deadline passes) and returns the last count.
func settledGoroutines(want int) int {
	deadline := time.Now().Add(patience)
	n := runtime.NumGoroutine()
	for (want == 0 || n > want) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		m := runtime.NumGoroutine()
		if want == 0 && m == n {
			return n // stable: good enough for a baseline
		}
		n = m
	}
	return n
}

func TestLogsGoToActorAndMainRings(t *testing.T) {
	tr := start(t,
		probeSvc(&journal{}, "ble", fast, func(p *probe) {
			p.started = func(_ actor.Context, h *Handle) { h.Logger().Info("advertising", "name", "Claude_Pi") }
		}),
		probeSvc(&journal{}, "dock", fast, nil),
	)
	ble, total, err := tr.Log("ble")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ble), "level=INFO msg=advertising actor=ble name=Claude_Pi\n") || total != int64(len(ble)) {
		t.Errorf("ble log (total %d):\n%s", total, ble)
	}
	if dock, _, _ := tr.Log("dock"); len(dock) != 0 {
		t.Errorf("dock log has someone else's lines:\n%s", dock)
	}
	main, _, _ := tr.Log("")
	for _, want := range []string{"msg=advertising actor=ble", `msg="entered RUNNING state" service=dock`} {
		if !strings.Contains(string(main), want) {
			t.Errorf("main log lacks %q:\n%s", want, main)
		}
	}

	ch, stop, err := tr.FollowLog("ble")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	tr.procs[0].h.Logger().Warn("central lost")
	if line := string(<-ch); !strings.Contains(line, `level=WARN msg="central lost" actor=ble`) {
		t.Errorf("followed %q", line)
	}

	if err := tr.ClearLog("ble"); err != nil {
		t.Fatal(err)
	}
	if kept, total2, _ := tr.Log("ble"); len(kept) != 0 || total2 <= total {
		t.Errorf("after clear: %d bytes kept, total %d (was %d)", len(kept), total2, total)
	}
	for _, bad := range []string{"nope", "ble:ble"} {
		if _, _, err := tr.Log(bad); !errors.Is(err, ErrBadName) {
			t.Errorf("Log(%q) error %v", bad, err)
		}
		if _, _, err := tr.FollowLog(bad); !errors.Is(err, ErrBadName) {
			t.Errorf("FollowLog(%q) error %v", bad, err)
		}
		if err := tr.ClearLog(bad); !errors.Is(err, ErrBadName) {
			t.Errorf("ClearLog(%q) error %v", bad, err)
		}
	}
}

func TestIdentificationAndPID(t *testing.T) {
	tr, err := New(Options{}, svc("ble"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Identification() != "claude-pi" || tr.PID() == 0 {
		t.Errorf("Identification %q PID %d", tr.Identification(), tr.PID())
	}
	if err := tr.StartProcess("ble", false); !errors.Is(err, errNotStarted) {
		t.Errorf("StartProcess before Start = %v", err)
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown before Start = %v", err)
	}
}

// TestPanicInStoppingStillStops pins the shell's recover: without it
// protoactor leaves the actor half-stopped and StopProcess waits forever.
func TestPanicInStoppingStillStops(t *testing.T) {
	tr := start(t, probeSvc(&journal{}, "ui", fast, func(p *probe) {
		p.stopping = func() { panic("flush failed") }
	}))
	if err := tr.StopProcess("ui", true); err != nil {
		t.Fatal(err)
	}
	if pi, _ := tr.Process("ui"); pi.State != Stopped {
		t.Fatalf("ui is %v", pi.State)
	}
	if log, _, _ := tr.Log("ui"); !strings.Contains(string(log), `msg="panic while stopping"`) {
		t.Errorf("ui log lacks the recovered panic:\n%s", log)
	}
}

func TestShutdownDuringBackoffCancelsRestart(t *testing.T) {
	j := &journal{}
	slow := fast
	slow.BackoffMin, slow.BackoffMax = time.Hour, time.Hour
	tr, err := New(Options{Logger: slog.New(slog.DiscardHandler)}, probeSvc(j, "dock", slow, nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tr.SignalProcess("dock", "KILL"); err != nil {
		t.Fatal(err)
	}
	waitState(t, tr, "dock", Backoff)
	if err := tr.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if pi, _ := tr.Process("dock"); pi.State != Stopped || len(j.filter("start dock")) != 1 {
		t.Errorf("dock %v after shutdown, started %d times", pi.State, len(j.filter("start dock")))
	}
}
