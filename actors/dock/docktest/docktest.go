// Package docktest is a fake Stack-chan CoreS3 on a pty for tests outside
// actors/dock: the firmware side of protocols/stackchan (HELLO checks,
// session.Dock with simulated playback, EVENT reassembly and decoding). It
// answers HELLO, grants speaker credit, presents every approval.request, and
// records what the host sent and every rule the host broke. Tests send
// approval.response and the like with Send.
package docktest

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/claude-pi/claude-pi/protocols/stackchan/appevent"
	"github.com/claude-pi/claude-pi/protocols/stackchan/event"
	"github.com/claude-pi/claude-pi/protocols/stackchan/session"
	"github.com/claude-pi/claude-pi/protocols/stackchan/wire"
)

// Core is a CoreS3 on a pty. Its methods are safe for concurrent use.
type Core struct {
	t    testing.TB
	caps wire.Caps

	mu      sync.Mutex
	master  *os.File
	slave   *os.File
	path    string
	dock    session.Dock
	parser  wire.Parser
	reasm   event.Reassembler
	ids     event.IDs
	seq     uint32
	helloed bool

	hellos     int
	events     []appevent.Event
	violations []string

	done chan struct{}
	wg   sync.WaitGroup
}

// New plugs a Core with the firmware capabilities caps (wire.FirmwareCaps
// for a full firmware) into a fresh pty; Path is the device to give the
// host. It is unplugged at the test's cleanup. A machine without ptys
// skips the test.
func New(t testing.TB, caps wire.Caps) *Core {
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	c := &Core{t: t, caps: caps, master: master, slave: slave, path: slave.Name(), done: make(chan struct{})}
	c.wg.Add(2)
	go c.readLoop(master)
	go c.playLoop(c.done)
	t.Cleanup(c.Unplug)
	return c
}

// Path is the pty slave: the host's --dock-port.
func (c *Core) Path() string { return c.path }

// Unplug closes the pty, as a USB detach; the host's next read fails.
func (c *Core) Unplug() {
	c.mu.Lock()
	m, s, done := c.master, c.slave, c.done
	c.master, c.slave = nil, nil
	c.mu.Unlock()
	if m == nil {
		return
	}
	close(done)
	m.Close()
	s.Close()
	c.wg.Wait()
}

// Hellos counts the HELLOs the host sent.
func (c *Core) Hellos() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hellos
}

// Events returns a copy of the application events the host sent.
func (c *Core) Events() []appevent.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]appevent.Event(nil), c.events...)
}

// Violations lists the protocol rules the host broke, as the firmware saw them.
func (c *Core) Violations() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.violations...)
}

// Send sends an application event from the "firmware", e.g. an
// approval.response.
func (c *Core) Send(e appevent.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sendEvent(e)
}

// Of returns the events of type T the host sent.
func Of[T appevent.Event](c *Core) []T {
	var out []T
	for _, e := range c.Events() {
		if v, ok := e.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func (c *Core) readLoop(m *os.File) {
	defer c.wg.Done()
	buf := make([]byte, 8192)
	for {
		n, err := m.Read(buf)
		if n > 0 {
			c.mu.Lock()
			c.parser.Feed(buf[:n])
			for fr, ok := c.parser.Next(); ok; fr, ok = c.parser.Next() {
				c.handle(fr)
			}
			c.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// playLoop plays the speaker's queue out in 5 ms steps, which is what
// sends SPEAKER_DONE and returns credit.
func (c *Core) playLoop(done chan struct{}) {
	defer c.wg.Done()
	const step = 5 * time.Millisecond
	t := time.NewTicker(step)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		c.mu.Lock()
		c.replies(c.dock.Advance(step))
		c.mu.Unlock()
	}
}

func (c *Core) next() uint32 { c.seq++; return c.seq - 1 }

func (c *Core) violation(format string, args ...any) {
	c.violations = append(c.violations, fmt.Sprintf(format, args...))
}

func (c *Core) handle(fr wire.Frame) {
	switch fr.Type {
	case wire.TypeControl:
		c.control(fr)
	case wire.TypeSpeakerPCM:
		o := c.dock.SpeakerPCM(fr.StreamID, fr.SampleRate, fr.Sequence, len(fr.Payload))
		if o.Result != session.Accepted {
			c.violation("PCM seq %d on stream %d: %v", fr.Sequence, fr.StreamID, o.Result)
		}
		c.replies(o)
	case wire.TypeEvent:
		c.eventFrame(fr)
	default:
		c.violation("unexpected frame type %v", fr.Type)
	}
}

func (c *Core) control(fr wire.Frame) {
	code, _ := fr.Control()
	switch code {
	case wire.CtrlHello:
		neg, err := wire.CheckHello(fr, c.caps)
		if err != nil {
			c.violation("bad HELLO: %v", err)
			c.write(wire.ErrorFrame(0, c.next(), wire.ErrInvalidRequest))
			return
		}
		c.hellos++
		c.helloed = true
		c.dock.Reset()
		c.reasm.Reset()
		c.write(wire.HelloAckFrame(c.next(), neg.Ack()))
		return
	case wire.CtrlStatus:
		if _, err := wire.FirmwareCheckStatus(fr, c.caps); err != nil {
			c.violation("STATUS: %v", err)
		}
		return
	}
	if !c.helloed {
		c.violation("%v before HELLO", code)
		return
	}
	o, ok := c.dock.Control(code, fr.StreamID, fr.SampleRate, fr.Payload)
	if !ok {
		c.violation("unexpected control %v", code)
		return
	}
	if o.Result == session.Invalid || o.Result == session.Busy {
		c.violation("%v on stream %d: %v", code, fr.StreamID, o.Result)
	}
	c.replies(o)
}

func (c *Core) eventFrame(fr wire.Frame) {
	if !c.caps.Has(wire.CapEvent) {
		c.violation("EVENT frame sent to firmware without EVENT")
		c.write(wire.ErrorFrame(fr.StreamID, c.next(), wire.ErrInvalidRequest))
		return
	}
	msg, done, err := c.reasm.Add(fr)
	if err != nil {
		c.violation("EVENT: %v", err)
		return
	}
	if !done {
		return
	}
	ev, err := appevent.DecodeInbound(msg, appevent.HostToFirmware)
	if err != nil {
		c.violation("event %s: %v", msg, err)
		return
	}
	c.events = append(c.events, ev)
	if r, ok := ev.(appevent.ApprovalRequest); ok {
		c.sendEvent(appevent.NewApprovalPresented(r.RequestID))
	}
}

// replies sends the guard's answers.
func (c *Core) replies(o session.Outcome) {
	for _, r := range o.Replies {
		switch r.Code {
		case wire.CtrlSpeakerCredit:
			c.write(wire.SpeakerCreditFrame(r.StreamID, c.next(), r.SampleRate, r.Value))
		case wire.CtrlSpeakerDone:
			c.write(wire.SpeakerDoneFrame(r.StreamID, c.next(), r.SampleRate))
		case wire.CtrlError:
			c.write(wire.ErrorFrame(r.StreamID, c.next(), wire.ErrorCode(r.Value)))
		default:
			c.write(wire.ControlFrame(r.Code, r.StreamID, c.next(), r.SampleRate, nil))
		}
	}
}

// sendEvent needs c.mu.
func (c *Core) sendEvent(e appevent.Event) {
	b, err := appevent.Marshal(e)
	if err != nil {
		c.t.Errorf("fake CoreS3: %v", err)
		return
	}
	frames, err := event.Chunk(c.ids.Next(), b, wire.MaxPayload)
	if err != nil {
		c.t.Errorf("fake CoreS3: %v", err)
		return
	}
	for _, fr := range frames {
		c.write(fr)
	}
}

func (c *Core) write(fr wire.Frame) {
	b, err := wire.AppendFrame(nil, fr)
	if err != nil {
		c.t.Errorf("fake CoreS3: %v", err)
		return
	}
	if c.master == nil {
		return
	}
	if _, err := c.master.Write(b); err != nil && !errors.Is(err, os.ErrClosed) {
		c.t.Logf("fake CoreS3 write: %v", err)
	}
}
