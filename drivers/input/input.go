// Package input reads push buttons wired from a GPIO to ground, using the
// pin's internal pull-up, and reports short and long presses.
//
// Each pin gets one goroutine that sleeps in WaitForEdge, so an idle button
// costs no CPU. The debouncing and press classification is Button, a pure
// state machine fed (time, level) samples.
package input

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/gpio"
)

// Event is one completed press.
type Event struct {
	Name string        // The button's name, as given to New.
	Long bool          // Held for Opts.LongPress; reported while still held.
	Held time.Duration // How long it was held (so far, for a long press).
}

// Source is anything that delivers presses: Buttons on hardware, the
// simulator, or inputtest.Source in tests. The channel is closed when the
// source stops.
type Source interface {
	Events() <-chan Event
}

// DefaultOpts are the timings New uses for zero fields.
var DefaultOpts = Opts{
	Debounce:  20 * time.Millisecond,
	LongPress: 700 * time.Millisecond,
}

// Opts tunes press detection.
type Opts struct {
	// Debounce is how long a level must hold before it counts. 0 means
	// 20 ms. Raise it if one press is reported twice; tactile switches
	// bounce for up to 5-10 ms, worn ones for longer.
	Debounce time.Duration
	// LongPress is the hold time that makes a press long. 0 means 700 ms.
	LongPress time.Duration

	// now replaces time.Now in tests, together with the pins' clock.
	now func() time.Time
}

// Buttons watches a set of named buttons. Close it to stop.
type Buttons struct {
	opts   Opts
	names  []string
	pins   map[string]gpio.PinIn
	events chan Event
	done   chan struct{}
	wg     sync.WaitGroup
	start  time.Time

	closeOnce sync.Once
	closeErr  error
}

// closeWait bounds Close: a pin whose Halt does not unblock WaitForEdge
// must not hang shutdown.
var closeWait = 2 * time.Second

// New configures every pin as an input with pull-up and edge detection and
// starts watching. pins maps a button name to its pin; opts may be nil.
//
// To stop on a context, use context.AfterFunc(ctx, func() { b.Close() }).
func New(pins map[string]gpio.PinIn, opts *Opts) (*Buttons, error) {
	if opts == nil {
		opts = &DefaultOpts
	}
	o := *opts
	if o.Debounce == 0 {
		o.Debounce = DefaultOpts.Debounce
	}
	if o.LongPress == 0 {
		o.LongPress = DefaultOpts.LongPress
	}
	if o.now == nil {
		o.now = time.Now
	}
	switch {
	case o.Debounce < 0:
		return nil, fmt.Errorf("input: invalid debounce %v", o.Debounce)
	case o.LongPress <= o.Debounce:
		return nil, fmt.Errorf("input: long press %v must be longer than debounce %v", o.LongPress, o.Debounce)
	case len(pins) == 0:
		return nil, errors.New("input: no buttons")
	}
	b := &Buttons{
		opts:   o,
		pins:   make(map[string]gpio.PinIn, len(pins)),
		events: make(chan Event, 8),
		done:   make(chan struct{}),
		start:  o.now(),
	}
	for name, p := range pins {
		switch {
		case name == "":
			return nil, errors.New("input: a button has an empty name")
		case p == nil:
			return nil, fmt.Errorf("input: button %q has no pin", name)
		case p == gpio.INVALID:
			return nil, fmt.Errorf("input: button %q is on gpio.INVALID", name)
		}
		b.pins[name] = p
		b.names = append(b.names, name)
	}
	slices.Sort(b.names)
	// Configure all before watching any, so a bad pin leaves nothing running.
	for _, name := range b.names {
		p := b.pins[name]
		if err := p.In(gpio.PullUp, gpio.BothEdges); err != nil {
			return nil, fmt.Errorf("input: configuring button %q on %s: %w", name, p, err)
		}
	}
	for _, name := range b.names {
		b.wg.Add(1)
		go b.watch(name, b.pins[name])
	}
	return b, nil
}

// Events implements Source. The channel is closed by Close.
func (b *Buttons) Events() <-chan Event {
	return b.events
}

// String implements conn.Resource.
func (b *Buttons) String() string {
	return "input.Buttons{" + strings.Join(b.names, ", ") + "}"
}

// Halt implements conn.Resource; it is Close.
func (b *Buttons) Halt() error {
	return b.Close()
}

// Close stops watching: it halts every pin, which unblocks WaitForEdge,
// waits for the watchers to return and closes the Events channel. It is
// safe to call more than once.
func (b *Buttons) Close() error {
	b.closeOnce.Do(func() {
		close(b.done)
		var errs []error
		for _, name := range b.names {
			if err := b.pins[name].Halt(); err != nil {
				errs = append(errs, fmt.Errorf("input: halting button %q on %s: %w", name, b.pins[name], err))
			}
		}
		stopped := make(chan struct{})
		go func() {
			b.wg.Wait()
			close(stopped)
		}()
		select {
		case <-stopped:
			// Nobody sends any more; consumers ranging over Events end.
			close(b.events)
		case <-time.After(closeWait):
			errs = append(errs, fmt.Errorf("input: %s still waiting for an edge %v after Halt", b, closeWait))
		}
		b.closeErr = errors.Join(errs...)
	})
	return b.closeErr
}

// watch runs one button until Close.
func (b *Buttons) watch(name string, p gpio.PinIn) {
	defer b.wg.Done()
	btn := Button{Name: name, Debounce: b.opts.Debounce, LongPress: b.opts.LongPress}
	now := func() time.Duration { return b.opts.now().Sub(b.start) }
	btn.Update(now(), p.Read() == gpio.Low) // Active low.
	for {
		timeout := time.Duration(-1)
		if at, ok := btn.Deadline(); ok {
			timeout = max(at-now(), 0)
		}
		edge := p.WaitForEdge(timeout)
		if b.closing() {
			return
		}
		if !edge && timeout < 0 {
			// Nothing to do yet the wait ended: someone halted the pin, or
			// the edge file failed. Retry slowly rather than spin.
			slog.Warn("input: WaitForEdge failed; retrying in 1s", "button", name, "pin", p.String())
			select {
			case <-b.done:
				return
			case <-time.After(time.Second):
			}
			continue
		}
		ev, ok := btn.Update(now(), p.Read() == gpio.Low)
		if !ok {
			continue
		}
		select {
		case b.events <- ev:
		case <-b.done:
			return
		}
	}
}

func (b *Buttons) closing() bool {
	select {
	case <-b.done:
		return true
	default:
		return false
	}
}

var (
	_ Source        = &Buttons{}
	_ conn.Resource = &Buttons{}
)
