package input_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"

	"github.com/claude-pi/claude-pi/drivers/input"
	"github.com/claude-pi/claude-pi/drivers/input/inputtest"
)

const ms = time.Millisecond

// rig is a set of fake buttons on one fake clock.
type rig struct {
	t    *testing.T
	fc   *clockwork.FakeClock
	pins map[string]*inputtest.Pin
	b    *input.Buttons
}

func newRig(t *testing.T, names ...string) *rig {
	t.Helper()
	r := &rig{t: t, fc: clockwork.NewFakeClock(), pins: map[string]*inputtest.Pin{}}
	pins := map[string]gpio.PinIn{}
	for i, n := range names {
		p := &inputtest.Pin{Pin: gpiotest.Pin{N: "GPIO" + n, Num: 5 + i, Clock: r.fc, EdgesChan: make(chan gpio.Level)}}
		r.pins[n] = p
		pins[n] = p
	}
	o := input.DefaultOpts
	input.SetNow(&o, r.fc.Now)
	b, err := input.New(pins, &o)
	if err != nil {
		t.Fatal(err)
	}
	r.b = b
	t.Cleanup(func() { b.Close() })
	return r
}

// edge makes the named button's pin change level; it returns once the
// watcher has handled the edge and waits again, so the edge's time is the
// clock's time now.
func (r *rig) edge(name string, pressed bool) {
	r.t.Helper()
	p := r.pins[name]
	n := p.Waits()
	p.EdgesChan <- gpio.Level(!pressed) // Active low.
	deadline := time.Now().Add(5 * time.Second)
	for p.Waits() == n {
		if time.Now().After(deadline) {
			r.t.Fatal("watcher did not come back to WaitForEdge")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// advance moves time on once the watchers' timers are set, so every
// deadline they compute is seen to expire.
func (r *rig) advance(d time.Duration) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.fc.BlockUntilContext(ctx, 1); err != nil {
		r.t.Fatal("no watcher is waiting on the clock:", err)
	}
	r.fc.Advance(d)
}

func (r *rig) next() input.Event {
	r.t.Helper()
	select {
	case ev, ok := <-r.b.Events():
		if !ok {
			r.t.Fatal("Events closed")
		}
		return ev
	case <-time.After(5 * time.Second):
		r.t.Fatal("no event")
	}
	return input.Event{}
}

// closeAndDrain closes the buttons and returns events nobody read.
func (r *rig) closeAndDrain() []input.Event {
	r.t.Helper()
	if err := r.b.Close(); err != nil {
		r.t.Fatal(err)
	}
	var left []input.Event
	for ev := range r.b.Events() {
		left = append(left, ev)
	}
	return left
}

func TestButtons_short(t *testing.T) {
	r := newRig(t, "A", "B")
	r.edge("B", true)
	r.advance(20 * ms)  // Debounced: pressed.
	r.advance(100 * ms) // Held a while, not long.
	r.edge("B", false)
	r.advance(20 * ms) // Debounced: released.
	if ev, want := r.next(), (input.Event{Name: "B", Held: 120 * ms}); ev != want {
		t.Fatalf("%+v != %+v", ev, want)
	}
	if left := r.closeAndDrain(); len(left) != 0 {
		t.Fatalf("unexpected events %+v", left)
	}
}

func TestButtons_longWhileHeld(t *testing.T) {
	r := newRig(t, "A")
	r.edge("A", true)
	r.advance(20 * ms)
	r.advance(680 * ms) // 700 ms since the edge: long, still held.
	if ev, want := r.next(), (input.Event{Name: "A", Long: true, Held: 700 * ms}); ev != want {
		t.Fatalf("%+v != %+v", ev, want)
	}
	r.edge("A", false)
	r.advance(20 * ms) // The release after a long press says nothing.
	if left := r.closeAndDrain(); len(left) != 0 {
		t.Fatalf("release after long press reported %+v", left)
	}
}

func TestButtons_bounceIgnored(t *testing.T) {
	r := newRig(t, "A")
	r.edge("A", true)
	r.edge("A", false) // Back within the same instant: a bounce.
	r.edge("A", true)
	r.advance(5 * ms)
	r.edge("A", false) // Before debounce: nothing pending any more.
	if left := r.closeAndDrain(); len(left) != 0 {
		t.Fatalf("bounces reported %+v", left)
	}
}

func TestButtons_closeLeaksNothing(t *testing.T) {
	before := runtime.NumGoroutine()
	r := newRig(t, "A", "B", "C")
	if got := r.b.String(); got != "input.Buttons{A, B, C}" {
		t.Fatalf("String() = %q", got)
	}
	r.edge("C", true) // One watcher mid-press, waiting on a timer.
	if left := r.closeAndDrain(); len(left) != 0 {
		t.Fatalf("unexpected events %+v", left)
	}
	if err := r.b.Halt(); err != nil { // Second close is harmless.
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Close, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}

// stuckPin ignores Halt, as gpiotest.Pin does.
type stuckPin struct{ gpiotest.Pin }

func TestButtons_closeReportsStuckPin(t *testing.T) {
	defer input.SetCloseWait(10 * ms)()
	p := &stuckPin{gpiotest.Pin{N: "GPIO5", EdgesChan: make(chan gpio.Level)}}
	b, err := input.New(map[string]gpio.PinIn{"A": p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = b.Close()
	if err == nil || !strings.Contains(err.Error(), "still waiting for an edge") {
		t.Fatalf("Close() = %v", err)
	}
	p.EdgesChan <- gpio.Low // Let the watcher see it is closed and leave.
}

// failPin's WaitForEdge always fails at once, like a pin halted by
// someone else.
type failPin struct{ inputtest.Pin }

func (p *failPin) WaitForEdge(time.Duration) bool { return false }

func TestButtons_waitFailureDoesNotSpinOrHang(t *testing.T) {
	p := &failPin{inputtest.Pin{Pin: gpiotest.Pin{N: "GPIO5", EdgesChan: make(chan gpio.Level)}}}
	b, err := input.New(map[string]gpio.PinIn{"A": p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestNew_fail(t *testing.T) {
	ok := func() gpio.PinIn {
		return &inputtest.Pin{Pin: gpiotest.Pin{N: "GPIO5", EdgesChan: make(chan gpio.Level)}}
	}
	tests := []struct {
		name string
		pins map[string]gpio.PinIn
		opts *input.Opts
		want string
	}{
		{"no buttons", nil, nil, "input: no buttons"},
		{"empty name", map[string]gpio.PinIn{"": ok()}, nil, "input: a button has an empty name"},
		{"nil pin", map[string]gpio.PinIn{"A": nil}, nil, `input: button "A" has no pin`},
		{"invalid pin", map[string]gpio.PinIn{"A": gpio.INVALID}, nil, `input: button "A" is on gpio.INVALID`},
		{"no edges", map[string]gpio.PinIn{"A": &gpiotest.Pin{N: "GPIO6"}}, nil, `input: configuring button "A" on GPIO6(0): gpiotest: please set p.EdgesChan first`},
		{"negative debounce", map[string]gpio.PinIn{"A": ok()}, &input.Opts{Debounce: -1}, "input: invalid debounce -1ns"},
		{"long shorter than debounce", map[string]gpio.PinIn{"A": ok()}, &input.Opts{Debounce: time.Second}, "input: long press 700ms must be longer than debounce 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := input.New(tt.pins, tt.opts)
			if b != nil || err == nil || err.Error() != tt.want {
				t.Fatalf("New() = %v, %v; want %q", b, err, tt.want)
			}
		})
	}
}

func TestSource(t *testing.T) {
	var s input.Source = inputtest.NewSource(2)
	fake := s.(*inputtest.Source)
	fake.Press("A")
	fake.LongPress("B")
	fake.Close()
	var got []input.Event
	for ev := range s.Events() {
		got = append(got, ev)
	}
	if len(got) != 2 || got[0].Name != "A" || got[0].Long || got[1].Name != "B" || !got[1].Long {
		t.Fatalf("events %+v", got)
	}
}
