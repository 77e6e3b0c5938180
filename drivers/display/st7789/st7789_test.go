package st7789

import (
	"errors"
	"image"
	"image/color"
	"slices"
	"strings"
	"testing"
	"time"

	"periph.io/x/conn/v3/conntest"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spitest"
)

func TestNew_init(t *testing.T) {
	dc := &logPin{Pin: gpiotest.Pin{N: "dc", Num: 25}}
	rst := &logPin{Pin: gpiotest.Pin{N: "rst", Num: 27}}
	bl := &logPin{Pin: gpiotest.Pin{N: "bl", Num: 24}}
	// Startup initialization.
	p := newPort(dc, initSteps(0x00, true))
	var s sleeps
	d, err := New(p, dc, rst, bl, opts(&s, nil))
	if err != nil {
		t.Fatal(err)
	}
	p.check(t)
	if want := "ST7789{240x240}"; d.String() != want {
		t.Fatalf("%q != %q", want, d.String())
	}
	if want := image.Rect(0, 0, 240, 240); d.Bounds() != want {
		t.Fatalf("%v != %v", want, d.Bounds())
	}
	// Reset pulse, then SWRESET and SLPOUT settle times.
	if want := (sleeps{10 * time.Millisecond, 120 * time.Millisecond, 150 * time.Millisecond, 120 * time.Millisecond}); !slices.Equal(s, want) {
		t.Fatalf("waits %v, want %v", s, want)
	}
	if want := []gpio.Level{gpio.Low, gpio.High}; !slices.Equal(rst.outs, want) {
		t.Fatalf("reset levels %v, want %v", rst.outs, want)
	}
	// Dark until the first frame.
	if want := []gpio.Level{gpio.Low}; !slices.Equal(bl.outs, want) {
		t.Fatalf("backlight levels %v, want %v", bl.outs, want)
	}
	if d.ColorModel() != RGB565Model {
		t.Fatal("ColorModel is not RGB565Model")
	}
}

func TestNew_optionalPins(t *testing.T) {
	dc := &logPin{Pin: gpiotest.Pin{N: "dc", Num: 25}}
	// Startup initialization, INVOFF and BGR.
	p := newPort(dc, initSteps(0x08, false))
	var s sleeps
	if _, err := New(p, dc, nil, nil, opts(&s, func(o *Opts) { o.Invert, o.BGR = false, true })); err != nil {
		t.Fatal(err)
	}
	p.check(t)
	if want := (sleeps{150 * time.Millisecond, 120 * time.Millisecond}); !slices.Equal(s, want) {
		t.Fatalf("waits %v, want %v", s, want)
	}
}

func TestNew_fail(t *testing.T) {
	dc := &logPin{Pin: gpiotest.Pin{N: "dc"}}
	tests := []struct {
		name    string
		port    spi.Port
		dc, rst gpio.PinOut
		bl      gpio.PinOut
		opts    func(*Opts)
		want    string
	}{
		{"width", &spitest.Playback{}, dc, nil, nil, func(o *Opts) { o.Width = 241 }, "st7789: invalid width 241"},
		{"height", &spitest.Playback{}, dc, nil, nil, func(o *Opts) { o.Height = -1 }, "st7789: invalid height -1"},
		{"rotation", &spitest.Playback{}, dc, nil, nil, func(o *Opts) { o.Rotation = 45 }, "st7789: invalid rotation 45"},
		{"column offset", &spitest.Playback{}, dc, nil, nil, func(o *Opts) { o.ColumnOffset = 1 }, "st7789: column offset 1 + width 240"},
		{"row offset", &spitest.Playback{}, dc, nil, nil, func(o *Opts) { o.RowOffset = 81 }, "st7789: row offset 81 + height 240"},
		{"speed", &spitest.Playback{}, dc, nil, nil, func(o *Opts) { o.SpeedHz = -5 }, "st7789: invalid SPI speed"},
		{"no dc", &spitest.Playback{}, nil, nil, nil, nil, "st7789: the dc pin is required"},
		{"invalid dc", &spitest.Playback{}, gpio.INVALID, nil, nil, nil, "st7789: the dc pin is gpio.INVALID"},
		{"invalid rst", &spitest.Playback{}, dc, gpio.INVALID, nil, nil, "st7789: the rst pin is gpio.INVALID"},
		{"invalid bl", &spitest.Playback{}, dc, nil, gpio.INVALID, nil, "st7789: the bl pin is gpio.INVALID"},
		{"connect", &connectFail{}, dc, nil, nil, nil, "st7789: connecting to record: injected error"},
		{"reset pin", &spitest.Playback{}, dc, &logPin{fail: true}, nil, nil, "st7789: pulling reset"},
		{"backlight pin", &spitest.Playback{}, dc, nil, &logPin{fail: true}, nil, "st7789: turning backlight"},
		{"dc pin", &spitest.Playback{}, &logPin{fail: true}, nil, nil, nil, "st7789: setting dc (0) low for SWRESET: injected error"},
		{"SWRESET", &spitest.Playback{Playback: conntest.Playback{DontPanic: true}}, dc, nil, nil, nil, "st7789: sending SWRESET: conntest: unexpected Tx()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := New(tt.port, tt.dc, tt.rst, tt.bl, opts(nil, tt.opts))
			if d != nil || err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("New() = %v, %v; want error starting %q", d, err, tt.want)
			}
		})
	}
}

// TestRotation pins MADCTL and the remapped offsets. The vectors agree
// with the per-rotation offsets TFT_eSPI ships for these panels.
func TestRotation(t *testing.T) {
	tests := []struct {
		name           string
		w, h, col, row int
		rot            Rotation
		madctl         byte
		bounds         image.Point
		xOff, yOff     int
		stringWant     string
	}{
		{"240x240 rows 0-239 at 0", 240, 240, 0, 0, Rotate0, 0x00, image.Pt(240, 240), 0, 0, "ST7789{240x240}"},
		{"240x240 rows 0-239 at 90", 240, 240, 0, 0, Rotate90, 0x60, image.Pt(240, 240), 0, 0, "ST7789{240x240}"},
		{"240x240 rows 0-239 at 180", 240, 240, 0, 0, Rotate180, 0xC0, image.Pt(240, 240), 0, 80, "ST7789{240x240}"},
		{"240x240 rows 0-239 at 270", 240, 240, 0, 0, Rotate270, 0xA0, image.Pt(240, 240), 80, 0, "ST7789{240x240}"},
		{"240x240 rows 80-319 at 0", 240, 240, 0, 80, Rotate0, 0x00, image.Pt(240, 240), 0, 80, "ST7789{240x240}"},
		{"240x240 rows 80-319 at 90", 240, 240, 0, 80, Rotate90, 0x60, image.Pt(240, 240), 80, 0, "ST7789{240x240}"},
		{"240x240 rows 80-319 at 180", 240, 240, 0, 80, Rotate180, 0xC0, image.Pt(240, 240), 0, 0, "ST7789{240x240}"},
		{"240x240 rows 80-319 at 270", 240, 240, 0, 80, Rotate270, 0xA0, image.Pt(240, 240), 0, 0, "ST7789{240x240}"},
		{"135x240 at 0", 135, 240, 52, 40, Rotate0, 0x00, image.Pt(135, 240), 52, 40, "ST7789{135x240}"},
		{"135x240 at 90", 135, 240, 52, 40, Rotate90, 0x60, image.Pt(240, 135), 40, 53, "ST7789{240x135}"},
		{"135x240 at 180", 135, 240, 52, 40, Rotate180, 0xC0, image.Pt(135, 240), 53, 40, "ST7789{135x240}"},
		{"135x240 at 270", 135, 240, 52, 40, Rotate270, 0xA0, image.Pt(240, 135), 40, 52, "ST7789{240x135}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dc := &logPin{Pin: gpiotest.Pin{N: "dc", Num: 25}}
			w, h := tt.bounds.X, tt.bounds.Y
			p := newPort(dc,
				// Startup initialization.
				initSteps(tt.madctl, true),
				// First frame: whole glass, offsets added.
				window(tt.xOff, tt.yOff, tt.xOff+w-1, tt.yOff+h-1),
				data(make([]byte, w*h*2), 4096),
			)
			d, err := New(p, dc, nil, nil, opts(nil, func(o *Opts) {
				o.Width, o.Height, o.ColumnOffset, o.RowOffset, o.Rotation = tt.w, tt.h, tt.col, tt.row, tt.rot
			}))
			if err != nil {
				t.Fatal(err)
			}
			if d.Bounds().Size() != tt.bounds {
				t.Fatalf("bounds %v, want %v", d.Bounds().Size(), tt.bounds)
			}
			if d.String() != tt.stringWant {
				t.Fatalf("%q != %q", tt.stringWant, d.String())
			}
			if err := d.Draw(d.Bounds(), image.NewUniform(color.Black), image.Point{}); err != nil {
				t.Fatal(err)
			}
			p.check(t)
		})
	}
}

func TestDraw_fullFrameChunked(t *testing.T) {
	dc := &logPin{Pin: gpiotest.Pin{N: "dc", Num: 25}}
	bl := &logPin{Pin: gpiotest.Pin{N: "bl", Num: 24}}
	img := gradient(image.Rect(0, 0, 240, 240))
	frame := toWire(img)
	p := newPort(dc,
		// Startup initialization.
		initSteps(0x00, true),
		// Frame 1: 115 200 bytes in 4000-byte transfers (28 + 3 200).
		window(0, 0, 239, 239),
		data(frame, 4000),
		// Frame 2 is identical: nothing at all.
	)
	p.maxTx = 4000
	d, err := New(p, dc, nil, bl, opts(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Draw(d.Bounds(), img, image.Point{}); err != nil {
		t.Fatal(err)
	}
	if err := d.Draw(d.Bounds(), img, image.Point{}); err != nil {
		t.Fatal(err)
	}
	p.check(t)
	if got := len(p.Ops); got != 9+5+29 {
		t.Fatalf("%d transfers, want %d", got, 9+5+29)
	}
	// Off at init, on once the first frame is out.
	if want := []gpio.Level{gpio.Low, gpio.High}; !slices.Equal(bl.outs, want) {
		t.Fatalf("backlight levels %v, want %v", bl.outs, want)
	}
}

func TestDraw_partial(t *testing.T) {
	black := image.NewUniform(color.Black)
	// 20 pixels in a 5×4 block at (100, 50).
	block := image.NewRGBA(image.Rect(0, 0, 240, 240))
	for y := 50; y < 54; y++ {
		for x := 100; x < 105; x++ {
			block.Set(x, y, color.RGBA{R: 0xFF, A: 0xFF})
		}
	}
	red := []byte{0xF8, 0x00}
	dc := &logPin{Pin: gpiotest.Pin{N: "dc", Num: 25}}
	p := newPort(dc,
		// Startup initialization.
		initSteps(0xC0, true),
		// Frame 1: full frame; 180° puts the glass 80 rows down.
		window(0, 80, 239, 319),
		data(make([]byte, 240*240*2), 4096),
		// Frame 2: only the 5×4 block, in one transfer.
		window(100, 130, 104, 133),
		data(repeat(red, 20), 4096),
		// Frame 3: drawn through r and sp: two pixels three apart on one
		// row, sent as one 4-pixel run including the unchanged middle.
		window(10, 80+7, 13, 80+7),
		data(slices.Concat(red, []byte{0, 0, 0, 0}, red), 4096),
	)
	d, err := New(p, dc, nil, nil, opts(nil, func(o *Opts) { o.Rotation = Rotate180 }))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Draw(d.Bounds(), black, image.Point{}); err != nil {
		t.Fatal(err)
	}
	if err := d.Draw(d.Bounds(), block, image.Point{}); err != nil {
		t.Fatal(err)
	}
	// Unchanged: nothing on the bus, whatever rectangle is drawn.
	if err := d.Draw(image.Rect(90, 40, 110, 60), block, image.Pt(90, 40)); err != nil {
		t.Fatal(err)
	}
	small := image.NewRGBA(image.Rect(0, 0, 4, 1))
	small.Set(0, 0, color.RGBA{R: 0xFF, A: 0xFF})
	small.Set(3, 0, color.RGBA{R: 0xFF, A: 0xFF})
	// r reaches past the source's right edge and sp starts one pixel in;
	// only what both cover is drawn.
	if err := d.Draw(image.Rect(9, 7, 30, 8), small, image.Pt(-1, 0)); err != nil {
		t.Fatal(err)
	}
	if err := d.Draw(d.Bounds(), nil, image.Point{}); err == nil || err.Error() != "st7789: Draw with a nil image" {
		t.Fatalf("Draw(nil) = %v", err)
	}
	// Entirely off screen: nothing.
	if err := d.Draw(image.Rect(300, 300, 310, 310), small, image.Point{}); err != nil {
		t.Fatal(err)
	}
	p.check(t)
}

func TestHalt_wakesOnDraw(t *testing.T) {
	dc := &logPin{Pin: gpiotest.Pin{N: "dc", Num: 25}}
	bl := &logPin{Pin: gpiotest.Pin{N: "bl", Num: 24}}
	p := newPort(dc,
		// Startup initialization.
		initSteps(0x00, true),
		// Page 1.
		window(0, 0, 239, 239),
		data(make([]byte, 240*240*2), 4096),
		// Halt().
		cmd(0x28), // DISPOFF
		cmd(0x10), // SLPIN
		// Same page again: no pixels, just the wake-up.
		cmd(0x11), // SLPOUT
		cmd(0x29), // DISPON
	)
	var s sleeps
	d, err := New(p, dc, nil, bl, opts(&s, nil))
	if err != nil {
		t.Fatal(err)
	}
	black := image.NewUniform(color.Black)
	if err := d.Draw(d.Bounds(), black, image.Point{}); err != nil {
		t.Fatal(err)
	}
	s = nil
	if err := d.Halt(); err != nil {
		t.Fatal(err)
	}
	if err := d.Draw(d.Bounds(), black, image.Point{}); err != nil {
		t.Fatal(err)
	}
	p.check(t)
	if want := (sleeps{120 * time.Millisecond, 120 * time.Millisecond}); !slices.Equal(s, want) {
		t.Fatalf("waits %v, want %v", s, want)
	}
	// init off, first frame on, Halt off, wake on.
	if want := []gpio.Level{gpio.Low, gpio.High, gpio.Low, gpio.High}; !slices.Equal(bl.outs, want) {
		t.Fatalf("backlight levels %v, want %v", bl.outs, want)
	}
}

func TestSleepWakeBacklight(t *testing.T) {
	dc := &logPin{Pin: gpiotest.Pin{N: "dc", Num: 25}}
	bl := &logPin{Pin: gpiotest.Pin{N: "bl", Num: 18}}
	p := newPort(dc,
		// Startup initialization.
		initSteps(0x00, true),
		// Sleep().
		cmd(0x28), // DISPOFF
		cmd(0x10), // SLPIN
		// Wake().
		cmd(0x11), // SLPOUT
		cmd(0x29), // DISPON
		// Invert(false).
		cmd(0x20), // INVOFF
	)
	d, err := New(p, dc, nil, bl, opts(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Wake(); err != nil { // Awake already: no traffic.
		t.Fatal(err)
	}
	if err := d.Sleep(); err != nil {
		t.Fatal(err)
	}
	// Remembered, not applied, while asleep.
	if err := d.SetBrightness(gpio.DutyHalf); err != nil {
		t.Fatal(err)
	}
	if bl.D != 0 {
		t.Fatalf("PWM %s applied while asleep", bl.D)
	}
	if err := d.Wake(); err != nil {
		t.Fatal(err)
	}
	if bl.D != gpio.DutyHalf || bl.F != 20*physic.KiloHertz {
		t.Fatalf("PWM %s at %s, want %s at 20kHz", bl.D, bl.F, gpio.DutyHalf)
	}
	if err := d.Invert(false); err != nil {
		t.Fatal(err)
	}
	if err := d.SetBacklight(false); err != nil {
		t.Fatal(err)
	}
	if err := d.SetBrightness(gpio.DutyMax + 1); err == nil || !strings.HasPrefix(err.Error(), "st7789: invalid backlight duty") {
		t.Fatal(err)
	}
	// Pin without PWM: any non-zero duty is "on".
	bl.noPWM = true
	if err := d.SetBrightness(gpio.DutyMax / 4); err != nil {
		t.Fatal(err)
	}
	if err := d.SetBrightness(gpio.DutyMax / 8); err != nil {
		t.Fatal(err)
	}
	p.check(t)
	// init off, Sleep off, SetBacklight(false), two fallbacks on.
	if want := []gpio.Level{gpio.Low, gpio.Low, gpio.Low, gpio.High, gpio.High}; !slices.Equal(bl.outs, want) {
		t.Fatalf("backlight levels %v, want %v", bl.outs, want)
	}
}

func TestDraw_failures(t *testing.T) {
	frame := make([]byte, 240*240*2)
	dc := &logPin{Pin: gpiotest.Pin{N: "dc", Num: 25}}
	p := newPort(dc,
		// Startup initialization.
		initSteps(0x00, true),
		// Page 1: the second data chunk fails (injected, not in the ops).
		window(0, 0, 239, 239),
		data(frame[:4096], 4096),
		// Page 2 changes one pixel but the panel state is unknown: the whole
		// frame goes again.
		window(0, 0, 239, 239),
		data(frame, 4096),
	)
	p.failAt = len(initSteps(0, true)) + len(window(0, 0, 0, 0)) + 2
	d, err := New(p, dc, nil, nil, opts(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	black := image.NewUniform(color.Black)
	err = d.Draw(d.Bounds(), black, image.Point{})
	if err == nil || !strings.HasPrefix(err.Error(), "st7789: sending RAMWR data: ") || !conntest.IsErr(errors.Unwrap(err)) {
		t.Fatalf("Draw() = %v, want an injected RAMWR failure", err)
	}
	if err := d.Draw(d.Bounds(), black, image.Point{}); err != nil {
		t.Fatal(err)
	}
	p.check(t)

	// A D/C pin that fails names itself and the step.
	dc.fail = true
	if err := d.Halt(); err == nil || err.Error() != "st7789: setting dc dc(25) low for DISPOFF: injected error" {
		t.Fatalf("Halt() = %v", err)
	}
	// Playback out of ops: the command is named.
	dc.fail = false
	p.DontPanic = true
	if err := d.Sleep(); err == nil || !strings.HasPrefix(err.Error(), "st7789: sending DISPOFF: conntest:") {
		t.Fatalf("Sleep() = %v", err)
	}
}

// gradient is an image whose every pixel differs from its neighbours'.
func gradient(r image.Rectangle) *image.RGBA {
	img := image.NewRGBA(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 0xFF})
		}
	}
	return img
}

// toWire converts img the slow, obvious way.
func toWire(img image.Image) []byte {
	var b []byte
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := RGB565Model.Convert(img.At(x, y)).(RGB565)
			b = append(b, byte(c>>8), byte(c))
		}
	}
	return b
}

func repeat(b []byte, n int) []byte {
	var out []byte
	for range n {
		out = append(out, b...)
	}
	return out
}

type connectFail struct {
	spitest.Record
}

func (c *connectFail) Connect(f physic.Frequency, mode spi.Mode, bits int) (spi.Conn, error) {
	return nil, errors.New("injected error")
}
