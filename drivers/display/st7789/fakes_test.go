package st7789

import (
	"errors"
	"testing"
	"time"

	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/conntest"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spitest"
)

// step is one SPI transfer and the D/C level it must go out with.
type step struct {
	dc gpio.Level
	w  []byte
}

// cmd is a command byte (D/C low) followed, if there are any, by its
// parameters (D/C high).
func cmd(c byte, params ...byte) []step {
	s := []step{{gpio.Low, []byte{c}}}
	if len(params) > 0 {
		s = append(s, step{gpio.High, params})
	}
	return s
}

// data is pixel data (D/C high), split the way the driver must split it.
func data(p []byte, maxTx int) []step {
	var s []step
	for len(p) > 0 {
		n := min(maxTx, len(p))
		s = append(s, step{gpio.High, p[:n]})
		p = p[n:]
	}
	return s
}

// window is the CASET/RASET/RAMWR prologue for memory columns x0..x1 and
// rows y0..y1, inclusive.
func window(x0, y0, x1, y1 int) []step {
	var s []step
	s = append(s, cmd(0x2A, byte(x0>>8), byte(x0), byte(x1>>8), byte(x1))...) // CASET
	s = append(s, cmd(0x2B, byte(y0>>8), byte(y0), byte(y1>>8), byte(y1))...) // RASET
	s = append(s, cmd(0x2C)...)                                               // RAMWR
	return s
}

// initSteps is New's transcript after the reset pulse.
func initSteps(madctl byte, invert bool) []step {
	inv := byte(0x20) // INVOFF
	if invert {
		inv = 0x21 // INVON
	}
	var s []step
	s = append(s, cmd(0x01)...)         // SWRESET
	s = append(s, cmd(0x11)...)         // SLPOUT
	s = append(s, cmd(0x3A, 0x55)...)   // COLMOD: RGB565
	s = append(s, cmd(0x36, madctl)...) // MADCTL
	s = append(s, cmd(inv)...)          // INVON or INVOFF
	s = append(s, cmd(0x13)...)         // NORON
	s = append(s, cmd(0x29)...)         // DISPON
	return s
}

// logPin is a gpiotest.Pin that logs every Out level and can be made to
// fail, or to refuse PWM.
type logPin struct {
	gpiotest.Pin
	outs  []gpio.Level
	fail  bool
	noPWM bool
}

func (p *logPin) Out(l gpio.Level) error {
	if p.fail {
		return errors.New("injected error")
	}
	p.outs = append(p.outs, l)
	return p.Pin.Out(l)
}

func (p *logPin) PWM(d gpio.Duty, f physic.Frequency) error {
	if p.noPWM {
		return errors.New("no PWM on this pin")
	}
	return p.Pin.PWM(d, f)
}

// port is a spitest.Playback that also records the D/C level at every
// transfer, can report a MaxTxSize, and can fail one transfer.
type port struct {
	spitest.Playback
	dc     *logPin
	maxTx  int // Reported through conn.Limits; 0 means "undefined".
	failAt int // 1-based transfer number to fail; 0 never.
	n      int
	levels []gpio.Level
	want   []gpio.Level
}

func newPort(dc *logPin, steps ...[]step) *port {
	p := &port{dc: dc}
	p.expect(steps...)
	return p
}

// expect appends steps to the transcript.
func (p *port) expect(steps ...[]step) {
	for _, group := range steps {
		for _, s := range group {
			p.Ops = append(p.Ops, conntest.IO{W: s.w})
			p.want = append(p.want, s.dc)
		}
	}
}

func (p *port) Connect(f physic.Frequency, m spi.Mode, bits int) (spi.Conn, error) {
	c, err := p.Playback.Connect(f, m, bits)
	if err != nil {
		return nil, err
	}
	return &portConn{Conn: c, p: p}, nil
}

type portConn struct {
	spi.Conn
	p *port
}

func (c *portConn) Tx(w, r []byte) error {
	c.p.n++
	if c.p.n == c.p.failAt {
		return conntest.Errorf("injected Tx failure")
	}
	c.p.levels = append(c.p.levels, c.p.dc.Read())
	return c.Conn.Tx(w, r)
}

func (c *portConn) MaxTxSize() int { return c.p.maxTx }

var _ conn.Limits = &portConn{}

// check ends a test: every op consumed, each with the right D/C level.
func (p *port) check(t *testing.T) {
	t.Helper()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if len(p.levels) != len(p.want) {
		t.Fatalf("%d transfers with D/C recorded, want %d", len(p.levels), len(p.want))
	}
	for i := range p.want {
		if p.levels[i] != p.want[i] {
			t.Fatalf("transfer %d (%#v) went out with D/C %s, want %s", i, p.Ops[i].W, p.levels[i], p.want[i])
		}
	}
}

// sleeps records the waits New and friends ask for.
type sleeps []time.Duration

func (s *sleeps) sleep(d time.Duration) { *s = append(*s, d) }

// opts returns DefaultOpts edited by f, with waits recorded in s.
func opts(s *sleeps, f func(*Opts)) *Opts {
	o := DefaultOpts
	if s == nil {
		s = new(sleeps)
	}
	o.sleep = s.sleep
	if f != nil {
		f(&o)
	}
	return &o
}
