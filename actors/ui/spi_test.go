package ui

import (
	"image"
	"sync"
	"testing"
	"time"

	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"

	buddyactor "github.com/claude-pi/claude-pi/actors/buddy"
	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/drivers/display/st7789"
)

// busPort is an SPI port that counts the bytes on the bus and notes when
// the last one went out.
type busPort struct {
	mu    sync.Mutex
	bytes int
	last  time.Time
}

func (p *busPort) String() string                    { return "bus" }
func (p *busPort) LimitSpeed(physic.Frequency) error { return nil }
func (p *busPort) Connect(physic.Frequency, spi.Mode, int) (spi.Conn, error) {
	return busConn{p}, nil
}

func (p *busPort) take() (int, time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, t := p.bytes, p.last
	p.bytes = 0
	return n, t
}

type busConn struct{ p *busPort }

func (c busConn) String() string               { return "bus" }
func (c busConn) Duplex() conn.Duplex          { return conn.Half }
func (c busConn) TxPackets([]spi.Packet) error { return nil }
func (c busConn) MaxTxSize() int               { return 4096 }
func (c busConn) Tx(w, r []byte) error {
	c.p.mu.Lock()
	c.p.bytes += len(w)
	c.p.last = time.Now()
	c.p.mu.Unlock()
	return nil
}

// TestApprovalOverSPI logs what the approval screen costs on a real
// ST7789 driver: bytes for the first full frame, for the home→approval
// change, for an age tick, and the time from the prompt event to the last
// SPI byte (in process; the bus itself is not simulated: at 62.5 MHz add
// 8 bits / 62.5 MHz per byte).
func TestApprovalOverSPI(t *testing.T) {
	port := &busPort{}
	dev, err := st7789.New(port, &gpiotest.Pin{N: "dc"}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	port.take()
	r := newRig(t, func(c *Config) { c.Display = dev; c.Input = nil })
	full, _ := port.take()
	r.send("ui", buddyactor.State{Connected: true})
	r.waitFor(t, "home connected", func() bool { return r.stats(t).Frames >= 2 })
	port.take()
	sent := time.Now()
	r.prompt("p1", "Bash")
	r.waitFor(t, "the approval screen", func() bool { return r.view(t).Screen == ScreenApproval })
	partial, last := port.take()
	lat := last.Sub(sent)
	before := r.stats(t).Frames
	r.clk.advance(time.Second)
	r.waitFor(t, "the age tick", func() bool { return r.stats(t).Frames > before })
	tick, _ := port.take()
	if full < 240*240*2 || partial == 0 || partial >= full || tick == 0 || tick >= partial {
		t.Fatalf("bus bytes: full %d, home→approval %d, age tick %d", full, partial, tick)
	}
	t.Logf("SPI bytes: full frame %d, home→approval %d, approval age tick %d; prompt event → last SPI byte %v (+%v on a 62.5 MHz bus)",
		full, partial, tick, lat.Round(time.Microsecond), time.Duration(partial*8*16)*time.Nanosecond)
}

// BenchmarkIdleCPU: one op is a second of the home animation on the real
// clock. It reports the process CPU time spent per second, in percent of
// one core, and the frames drawn per second. (It was a test that slept
// two seconds in every CI run and asserted nothing.)
func BenchmarkIdleCPU(b *testing.B) {
	r := newRig(b, func(c *Config) { c.Now, c.AfterFunc, c.ScreenTimeout = nil, nil, time.Hour })
	r.send("ui", buddyactor.State{Connected: true})
	r.waitFor(b, "a frame", func() bool { return r.stats(b).Frames > 1 })
	f0, c0, w0 := r.stats(b).Frames, processCPU(b), time.Now()
	for b.Loop() {
		time.Sleep(time.Second)
	}
	f1, c1, wall := r.stats(b).Frames, processCPU(b), time.Since(w0)
	b.ReportMetric(100*float64(c1-c0)/float64(wall), "%-of-a-core")
	b.ReportMetric(float64(f1-f0)/wall.Seconds(), "frames/s")
	b.Logf("home animation (persona %s)", r.view(b).Persona)
}

// BenchmarkApprovalFlush renders the approval screen over home, computes
// the damage and flushes it through the st7789 driver, as the actor does
// when a prompt arrives. bus-bytes/op is what goes over SPI.
func BenchmarkApprovalFlush(b *testing.B) {
	port := &busPort{}
	dev, err := st7789.New(port, &gpiotest.Pin{N: "dc"}, nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	home, err := Sample(ScreenHome, 240, 240)
	if err != nil {
		b.Fatal(err)
	}
	appr, err := Sample(ScreenApproval, 240, 240)
	if err != nil {
		b.Fatal(err)
	}
	frames := [2]*image.RGBA{appr, home}
	_ = dev.Draw(home.Bounds(), home, image.Point{})
	port.take()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		next, prev := frames[i&1], frames[(i+1)&1]
		for _, r := range screens.Damage(prev, next) {
			if err := dev.Draw(r, next, r.Min); err != nil {
				b.Fatal(err)
			}
		}
	}
	n, _ := port.take()
	b.SetBytes(int64(n / b.N))
	b.ReportMetric(float64(n/b.N), "bus-bytes/op")
}
