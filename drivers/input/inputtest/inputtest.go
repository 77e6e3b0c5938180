// Package inputtest has fakes for package input: a Source that tests
// drive by hand, and a gpiotest pin whose Halt unblocks WaitForEdge the way
// real pins do.
package inputtest

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/claude-pi/claude-pi/drivers/input"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
)

// Source is an input.Source fed by the test.
type Source struct {
	C chan input.Event
}

// NewSource returns a Source whose channel holds buf events.
func NewSource(buf int) *Source {
	return &Source{C: make(chan input.Event, buf)}
}

// Events implements input.Source.
func (s *Source) Events() <-chan input.Event {
	return s.C
}

// Press delivers a short press of the named button.
func (s *Source) Press(name string) {
	s.C <- input.Event{Name: name, Held: 100 * time.Millisecond}
}

// LongPress delivers a long press of the named button.
func (s *Source) LongPress(name string) {
	s.C <- input.Event{Name: name, Long: true, Held: input.DefaultOpts.LongPress}
}

// Close ends the stream, as input.Buttons.Close does.
func (s *Source) Close() {
	close(s.C)
}

// Pin is a gpiotest.Pin whose WaitForEdge also returns false once Halt is
// called, like the host's gpioioctl and sysfs pins. Send levels on
// EdgesChan to make edges; set Clock to a fake clock to control timeouts.
type Pin struct {
	gpiotest.Pin

	once     sync.Once
	haltOnce sync.Once
	halt     chan struct{}
	waits    atomic.Int64
}

// Waits counts WaitForEdge calls. Once it passes the count read before an
// edge was sent, the watcher has handled that edge and is waiting again.
func (p *Pin) Waits() int64 {
	return p.waits.Load()
}

func (p *Pin) halted() chan struct{} {
	p.once.Do(func() { p.halt = make(chan struct{}) })
	return p.halt
}

// Halt implements conn.Resource: it unblocks WaitForEdge, now and later.
func (p *Pin) Halt() error {
	h := p.halted()
	p.haltOnce.Do(func() { close(h) })
	return nil
}

// WaitForEdge implements gpio.PinIn. A received level becomes the pin's
// level, as in gpiotest.Pin. Timers are stopped on return, so a fake
// clock's BlockUntil counts only live waits.
func (p *Pin) WaitForEdge(timeout time.Duration) bool {
	p.waits.Add(1)
	var after <-chan time.Time
	if timeout >= 0 {
		if p.Clock == nil {
			t := time.NewTimer(timeout)
			defer t.Stop()
			after = t.C
		} else {
			t := p.Clock.NewTimer(timeout)
			defer t.Stop()
			after = t.Chan()
		}
	}
	select {
	case l := <-p.EdgesChan:
		_ = p.Pin.Out(l)
		return true
	case <-after:
		return false
	case <-p.halted():
		return false
	}
}

var _ gpio.PinIO = &Pin{}
