// Package docktest is a fake Stack-chan CoreS3 on a pty, the firmware side
// of protocols/stackchan (HELLO checks, session.Dock with simulated
// playback and microphone, EVENT reassembly and decoding). It answers
// HELLO, grants speaker credit, presents every approval.request, and
// records what the host sent and every rule the host broke. Tests send
// approval.response and the like with Send.
//
// Options and Hooks let a test vary the firmware (credit in small steps, a
// capturing microphone, nothing presented) and watch or disturb the link;
// the dock's own tests build their fake on them.
package docktest

import (
	"errors"
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

// Options shape the simulated firmware. The zero value, with Caps set, is
// the Core that New plugs in.
type Options struct {
	// Caps are the firmware capabilities (wire.FirmwareCaps for a full firmware).
	Caps wire.Caps
	// Unplugged leaves the Core unplugged until Plug, for tests of hotplug.
	Unplugged bool
	// Tick is the simulated playback and capture step; 0 means 5 ms.
	Tick time.Duration
	// NoPresent never answers approval.request with approval.presented.
	NoPresent bool
	// CreditStep > 0 hands out the speaker's credit this many bytes per
	// tick and flags PCM beyond it, instead of granting it all at once.
	CreditStep int
	// MicFrames is how many MICROPHONE_PCM frames (a 440 Hz tone) a
	// capturing microphone sends per tick.
	MicFrames int
	// Hooks watch and disturb the link.
	Hooks Hooks
}

// Hooks run on the Core's goroutines with its lock held: they may use the
// Firmware they are given, and must not call the Core's own methods. Nil
// hooks are skipped.
type Hooks struct {
	// Hello runs after a valid HELLO, before the HELLO_ACK is written.
	Hello func(fw Firmware)
	// Control runs for each control frame after HELLO other than STATUS,
	// before the session sees it; returning true drops the frame, as if
	// lost on the way.
	Control func(fw Firmware, code wire.Control, fr wire.Frame) (drop bool)
	// Status runs for each valid STATUS.
	Status func(fw Firmware, s wire.Status)
	// PCM runs after the session has taken a SPEAKER_PCM frame.
	PCM func(fw Firmware, fr wire.Frame)
	// Reply runs for each session reply as it is written (credit held
	// back by CreditStep is reported when it is handed out).
	Reply func(fw Firmware, r session.Reply)
	// Event runs for each application event the host sent.
	Event func(fw Firmware, e appevent.Event)
	// Raw runs for each raw (Realtime-shaped, §18) event the host sent;
	// msg is only borrowed.
	Raw func(fw Firmware, msg []byte)
}

// Core is a CoreS3 on a pty. Its methods are safe for concurrent use.
type Core struct {
	t   testing.TB
	opt Options

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

	nextSeq   map[uint16]uint32 // next speaker PCM sequence per stream
	granted   map[uint16]int64  // credit given to the host per stream
	sent      map[uint16]int64  // PCM bytes the host sent per stream
	owed      map[uint16]int    // credit not yet handed out (CreditStep)
	owedRate  map[uint16]uint32
	tonePhase int

	hellos     int
	events     []appevent.Event
	settings   []appevent.Settings // claude_pi.settings raw events
	raws       [][]byte
	violations []string

	done chan struct{}
	wg   sync.WaitGroup
}

// New plugs a Core with the firmware capabilities caps (wire.FirmwareCaps
// for a full firmware) into a fresh pty; Path is the device to give the
// host. It is unplugged at the test's cleanup. A machine without ptys
// skips the test.
func New(t testing.TB, caps wire.Caps) *Core { return NewWith(t, Options{Caps: caps}) }

// NewWith is New with Options; unless opt.Unplugged it is plugged in.
func NewWith(t testing.TB, opt Options) *Core {
	c := &Core{t: t, opt: opt, nextSeq: map[uint16]uint32{}, granted: map[uint16]int64{},
		sent: map[uint16]int64{}, owed: map[uint16]int{}, owedRate: map[uint16]uint32{}}
	if !opt.Unplugged {
		c.Plug()
	}
	t.Cleanup(c.Unplug)
	return c
}

// Plug attaches the Core on a fresh pty, as a USB attach: a new Path and a
// firmware that starts over. A plugged Core stays as it is.
func (c *Core) Plug() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.master != nil {
		return
	}
	master, slave, err := pty.Open()
	if err != nil {
		c.t.Skipf("no pty: %v", err)
	}
	c.master, c.slave, c.path = master, slave, slave.Name()
	c.dock.Reset()
	c.parser.Reset()
	c.reasm.Reset()
	c.ids, c.seq, c.helloed = event.IDs{}, 0, false
	c.done = make(chan struct{})
	c.wg.Add(2)
	go c.readLoop(master)
	go c.playLoop(c.done)
}

// Path is the pty slave, the host's --dock-port; "" while unplugged.
func (c *Core) Path() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.path
}

// Unplug closes the pty, as a USB detach; the host's next read fails.
func (c *Core) Unplug() {
	c.mu.Lock()
	m, s, done := c.master, c.slave, c.done
	c.master, c.slave, c.path = nil, nil, ""
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

// Settings returns the claude_pi.settings events the host sent, in order.
func (c *Core) Settings() []appevent.Settings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]appevent.Settings(nil), c.settings...)
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

// Locked runs fn with the Core's lock held, so that a test can read state
// its Hooks keep without racing them.
func (c *Core) Locked(fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fn()
}

// Raws returns the raw events (Realtime-shaped JSON, §18) the host sent.
func (c *Core) Raws() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.raws...)
}

// SendRawEvent sends b (a raw event's JSON) to the host as an EVENT message.
func (c *Core) SendRawEvent(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sendJSON(b)
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
			return // EIO before the host opens is not expected: the slave stays open
		}
	}
}

// playLoop plays the speaker's queue out, hands out held-back credit and
// runs the microphone, one step per tick; playing out is what sends
// SPEAKER_DONE and returns credit.
func (c *Core) playLoop(done chan struct{}) {
	defer c.wg.Done()
	step := c.opt.Tick
	if step == 0 {
		step = 5 * time.Millisecond
	}
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
		c.release()
		c.capture()
		c.mu.Unlock()
	}
}

// sendEvent needs c.mu.
func (c *Core) sendEvent(e appevent.Event) {
	b, err := appevent.Marshal(e)
	if err != nil {
		c.t.Errorf("fake CoreS3: %v", err)
		return
	}
	c.sendJSON(b)
}

// sendJSON sends one EVENT message; it needs c.mu.
func (c *Core) sendJSON(b []byte) {
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
	c.writeRaw(b)
}

// SendRaw writes b to the host as it is (garbage, cut frames, noise),
// 4 KiB at a time so the Core's own replies are not held up behind it.
func (c *Core) SendRaw(b []byte) {
	for len(b) > 0 {
		n := min(len(b), 4<<10)
		c.mu.Lock()
		c.writeRaw(b[:n])
		c.mu.Unlock()
		b = b[n:]
	}
}

func (c *Core) writeRaw(b []byte) {
	if c.master == nil {
		return
	}
	if _, err := c.master.Write(b); err != nil && !errors.Is(err, os.ErrClosed) {
		c.t.Logf("fake CoreS3 write: %v", err)
	}
}
