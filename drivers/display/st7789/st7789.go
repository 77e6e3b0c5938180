package st7789

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"sync"
	"time"

	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/display"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
)

// Rotation turns the picture clockwise, in degrees, from the controller's
// native scan order (MADCTL = 0).
type Rotation int

// The four rotations the controller can do in hardware.
const (
	Rotate0   Rotation = 0
	Rotate90  Rotation = 90
	Rotate180 Rotation = 180
	Rotate270 Rotation = 270
)

// DefaultOpts suits the common 240×240 IPS HATs (Pimoroni Display HAT Mini
// style 1.3"/1.54" glass). Copy it and change what your panel needs.
var DefaultOpts = Opts{
	Width:   240,
	Height:  240,
	Invert:  true,
	SpeedHz: 40_000_000,
}

// Opts configures the panel. A zero field means its default, except Invert
// and BGR, which are plain switches.
type Opts struct {
	// Width and Height are the glass size in pixels at Rotate0. 0 means 240.
	// At most 240×320, the controller's frame memory.
	Width, Height int
	// Rotation turns the picture clockwise. Bounds swaps width and height at
	// 90 and 270. Change it if the picture is sideways or upside down.
	Rotation Rotation
	// ColumnOffset and RowOffset place the glass inside the 240×320 frame
	// memory at Rotate0; the driver remaps them for the other rotations. A
	// 240×240 glass wired to the first 240 rows needs 0 and 0. If the picture
	// is shifted by 80 lines with a band of noise, try RowOffset 80.
	ColumnOffset, RowOffset int
	// Invert sends INVON. Most IPS panels need it; toggle it if colours come
	// out as a negative.
	Invert bool
	// BGR declares blue-green-red subpixels. Toggle it if red and blue are
	// swapped.
	BGR bool
	// SpeedHz is the SPI clock. 0 means 40 MHz, which works with ribbon
	// cables and jumper wires. The ST7789 is specified up to 62.5 MHz (16 ns
	// write cycle) and HATs soldered onto the header usually run there; a Pi
	// rounds the request down to core clock / even divisor.
	SpeedHz int

	// sleep replaces time.Sleep, so tests assert the datasheet waits
	// without spending them.
	sleep func(time.Duration)
}

// New initializes the controller and returns a handle to it.
//
// dc is the data/command pin and is required. rst (RES, active low) and bl
// (backlight, active high) may be nil when they are not wired; pass nil,
// not gpio.INVALID. The backlight stays off until the first Draw has filled
// the panel, so its power-on noise is never seen.
func New(p spi.Port, dc, rst, bl gpio.PinOut, opts *Opts) (*Dev, error) {
	if opts == nil {
		opts = &DefaultOpts
	}
	o := *opts
	if err := o.normalize(); err != nil {
		return nil, err
	}
	if dc == nil {
		return nil, errors.New("st7789: the dc pin is required (4-wire SPI)")
	}
	for _, pn := range []struct {
		name string
		p    gpio.PinOut
	}{{"dc", dc}, {"rst", rst}, {"bl", bl}} {
		if pn.p == gpio.INVALID {
			return nil, fmt.Errorf("st7789: the %s pin is gpio.INVALID; use nil when it is not wired", pn.name)
		}
	}
	// Mode 0: the ST7789 samples SDA on the rising edge of an idle-low SCL.
	c, err := p.Connect(physic.Frequency(o.SpeedHz)*physic.Hertz, spi.Mode0, 8)
	if err != nil {
		return nil, fmt.Errorf("st7789: connecting to %s: %w", p, err)
	}
	maxTx := 0
	if l, ok := c.(conn.Limits); ok {
		maxTx = l.MaxTxSize()
	}
	if maxTx <= 0 {
		maxTx = 4096 // Pi spidev's default bufsiz.
	}
	// Whole pixels per transfer keeps each chunk meaningful on a logic
	// analyser; the controller itself would not mind a split pixel.
	maxTx = max(2, maxTx&^1)

	d := &Dev{
		c:          c,
		dc:         dc,
		rst:        rst,
		bl:         bl,
		maxTx:      maxTx,
		sleep:      o.sleep,
		invert:     o.Invert,
		brightness: gpio.DutyMax,
		fullRedraw: true, // Frame memory holds noise until the first Draw.
	}
	w, h := o.Width, o.Height
	if o.Rotation == Rotate90 || o.Rotation == Rotate270 {
		w, h = h, w
	}
	d.rect = image.Rect(0, 0, w, h)
	d.madctl, d.xOff, d.yOff = geometry(&o)
	d.shadow = make([]byte, w*h*2)
	d.row = make([]byte, w*2)
	d.tx = make([]byte, 0, maxTx)
	if err := d.init(); err != nil {
		return nil, err
	}
	return d, nil
}

// Dev is an open handle to an ST7789 panel. Its methods are safe for
// concurrent use.
type Dev struct {
	mu     sync.Mutex
	c      conn.Conn
	dc     gpio.PinOut
	rst    gpio.PinOut
	bl     gpio.PinOut
	maxTx  int
	sleep  func(time.Duration)
	invert bool

	rect       image.Rectangle // Logical, after rotation.
	madctl     byte
	xOff, yOff int // Added to CASET and RASET addresses.

	shadow []byte // What the panel shows: RGB565 big endian, row major.
	row    []byte // One converted source row.
	tx     []byte // Pending data bytes, flushed at maxTx.
	cmd    [1]byte
	args   [4]byte

	fullRedraw bool      // Panel memory may differ from shadow.
	asleep     bool      // SLPIN sent; the next Draw wakes the panel.
	lit        bool      // Backlight has been switched on at least once.
	brightness gpio.Duty // Backlight level while awake.
	noPWM      bool      // bl.PWM failed once; dim by on/off only.
}

// String implements conn.Resource.
func (d *Dev) String() string {
	return fmt.Sprintf("ST7789{%dx%d}", d.rect.Dx(), d.rect.Dy())
}

// Halt implements conn.Resource: backlight off, display off, sleep in.
// The next Draw wakes the panel.
func (d *Dev) Halt() error {
	return d.Sleep()
}

// ColorModel implements display.Drawer.
func (d *Dev) ColorModel() color.Model {
	return RGB565Model
}

// Bounds implements display.Drawer. Min is always {0, 0}.
func (d *Dev) Bounds() image.Rectangle {
	return d.rect
}

// Draw implements display.Drawer. It returns once the pixels are on the
// bus, having sent only the bounding box of the pixels that changed. It
// wakes a sleeping panel and turns the backlight on after the first frame.
//
// The comparison converts every pixel of r, which costs more CPU than the
// bus transfer of a small change; callers that know what they changed pass
// just that rectangle.
//
// After a failed write the panel's contents are unknown, so the next Draw
// sends the whole frame again.
func (d *Dev) Draw(r image.Rectangle, src image.Image, sp image.Point) error {
	if src == nil {
		return errors.New("st7789: Draw with a nil image")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	clip(d.rect, &r, src.Bounds(), &sp)
	changed := d.merge(r, src, sp)
	if d.fullRedraw {
		changed = d.rect
	}
	if !changed.Empty() {
		if err := d.sendWindow(changed); err != nil {
			d.fullRedraw = true
			return err
		}
		d.fullRedraw = false
	}
	if d.asleep {
		if err := d.wake(); err != nil {
			return err
		}
	}
	if !d.lit {
		if err := d.applyBacklight(); err != nil {
			return err
		}
		d.lit = true
	}
	return nil
}

// SetBacklight switches the backlight fully on or off. It is a no-op when
// no backlight pin was given.
func (d *Dev) SetBacklight(on bool) error {
	if on {
		return d.SetBrightness(gpio.DutyMax)
	}
	return d.SetBrightness(0)
}

// SetBrightness dims the backlight with PWM. Pins without PWM are switched
// on for any non-zero duty instead. While the panel sleeps the level is
// remembered and applied on wake.
func (d *Dev) SetBrightness(duty gpio.Duty) error {
	if duty < 0 || duty > gpio.DutyMax {
		return fmt.Errorf("st7789: invalid backlight duty %s", duty)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.brightness = duty
	d.lit = true
	if d.asleep {
		return nil
	}
	return d.applyBacklight()
}

// Sleep turns the backlight and display off and puts the controller in
// sleep mode, where it draws a few µA and keeps its frame memory. It takes
// 120 ms, the minimum before the controller accepts SLPOUT again.
func (d *Dev) Sleep() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.bl != nil {
		if err := d.bl.Out(gpio.Low); err != nil {
			return fmt.Errorf("st7789: turning backlight %s off: %w", d.bl, err)
		}
	}
	if err := d.command(_DISPOFF, nil); err != nil {
		return err
	}
	if err := d.command(_SLPIN, nil); err != nil {
		return err
	}
	d.asleep = true
	d.wait(120 * time.Millisecond)
	return nil
}

// Wake leaves sleep mode, turns the display on and restores the backlight.
// It does nothing when the panel is awake.
func (d *Dev) Wake() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.asleep {
		return nil
	}
	return d.wake()
}

// Invert switches display inversion, overriding Opts.Invert.
func (d *Dev) Invert(on bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.invert = on
	return d.command(d.invertCmd(), nil)
}

var _ display.Drawer = &Dev{}
