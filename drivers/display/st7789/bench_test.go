package st7789

import (
	"image"
	"image/color"
	"testing"

	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
)

// countPort is an SPI port that counts the bytes it is asked to send.
type countPort struct{ bytes int }

func (c *countPort) String() string                    { return "count" }
func (c *countPort) LimitSpeed(physic.Frequency) error { return nil }
func (c *countPort) Connect(physic.Frequency, spi.Mode, int) (spi.Conn, error) {
	return countConn{c}, nil
}

type countConn struct{ p *countPort }

func (c countConn) String() string                 { return "count" }
func (c countConn) Duplex() conn.Duplex            { return conn.Half }
func (c countConn) TxPackets(p []spi.Packet) error { return nil }
func (c countConn) Tx(w, r []byte) error {
	c.p.bytes += len(w)
	return nil
}

// benchDraw draws a and b alternately, reporting bytes on the bus per Draw.
func benchDraw(b *testing.B, a, c image.Image) {
	p := &countPort{}
	d, err := New(p, &gpiotest.Pin{N: "dc"}, nil, nil, opts(nil, nil))
	if err != nil {
		b.Fatal(err)
	}
	if err := d.Draw(d.Bounds(), a, image.Point{}); err != nil {
		b.Fatal(err)
	}
	imgs := [2]image.Image{c, a}
	p.bytes = 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := d.Draw(d.Bounds(), imgs[i&1], image.Point{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	per := p.bytes / b.N
	b.SetBytes(int64(per))
	b.ReportMetric(float64(per), "bus-bytes/op")
}

// BenchmarkDraw_fullFrame redraws every pixel of a 240×240 frame.
func BenchmarkDraw_fullFrame(b *testing.B) {
	a := gradient(image.Rect(0, 0, 240, 240))
	c := image.NewRGBA(a.Rect)
	for i, v := range a.Pix {
		c.Pix[i] = ^v | 0x07 // Every channel changes after RGB565 truncation.
	}
	benchDraw(b, a, c)
}

// BenchmarkDraw_partial changes a 20-pixel run, as a ticking counter would.
func BenchmarkDraw_partial(b *testing.B) {
	a := gradient(image.Rect(0, 0, 240, 240))
	c := image.NewRGBA(a.Rect)
	copy(c.Pix, a.Pix)
	for x := 100; x < 120; x++ {
		c.Set(x, 120, color.RGBA{R: 0xFF, A: 0xFF})
	}
	benchDraw(b, a, c)
}

// BenchmarkDraw_unchanged is the cost of a redraw that sends nothing.
func BenchmarkDraw_unchanged(b *testing.B) {
	a := gradient(image.Rect(0, 0, 240, 240))
	benchDraw(b, a, a)
}
