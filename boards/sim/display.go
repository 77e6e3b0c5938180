package sim

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"sync"

	"periph.io/x/conn/v3/display"
)

// Display is an in-memory framebuffer that stands in for the SPI panel.
// It is safe for concurrent use: the UI draws while the web server reads.
type Display struct {
	mu      sync.Mutex
	fb      *image.RGBA
	version uint64 // bumped by every Draw, so readers can skip re-encoding
	pngVer  uint64
	png     []byte
	changed chan struct{} // closed and replaced on every Draw
	// asleep is the panel switched off (Sleep): it shows black, as a real
	// ST7789 with its backlight off does, and keeps the frame for Wake.
	asleep bool
}

var _ display.Drawer = (*Display)(nil)

// NewDisplay returns a black display of w×h pixels. Sizes below 1 or above
// 4096 are rejected: no panel we would simulate is outside that range, and
// a mistyped size should not allocate gigabytes.
func NewDisplay(w, h int) (*Display, error) {
	if w < 1 || h < 1 || w > 4096 || h > 4096 {
		return nil, fmt.Errorf("sim display: invalid size %dx%d (want 1..4096 each way)", w, h)
	}
	fb := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(fb, fb.Bounds(), image.Black, image.Point{}, draw.Src)
	return &Display{fb: fb, version: 1, changed: make(chan struct{})}, nil
}

// String implements conn.Resource.
func (d *Display) String() string {
	b := d.Bounds()
	return fmt.Sprintf("sim display %dx%d", b.Dx(), b.Dy())
}

// Halt implements conn.Resource. A framebuffer has nothing to stop.
func (d *Display) Halt() error { return nil }

// ColorModel implements display.Drawer.
func (d *Display) ColorModel() color.Model { return color.RGBAModel }

// Bounds implements display.Drawer.
func (d *Display) Bounds() image.Rectangle { return d.fb.Bounds() }

// Draw implements display.Drawer: it copies src (from sp) into dstRect,
// clipped to the display, like a partial update of a real panel.
func (d *Display) Draw(dstRect image.Rectangle, src image.Image, sp image.Point) error {
	if src == nil {
		return fmt.Errorf("%s: draw: nil image", d)
	}
	d.mu.Lock()
	draw.Draw(d.fb, dstRect.Intersect(d.fb.Bounds()), src, sp, draw.Src)
	d.version++
	close(d.changed)
	d.changed = make(chan struct{})
	d.mu.Unlock()
	return nil
}

// Sleep switches the panel off, as the UI does after its screen timeout.
// It implements the UI's Sleeper, so the UI draws nothing while asleep and
// the web page can say why the screen is black.
func (d *Display) Sleep() error { d.setAsleep(true); return nil }

// Wake switches the panel back on, showing the frame it had.
func (d *Display) Wake() error { d.setAsleep(false); return nil }

// Asleep reports whether the panel is switched off.
func (d *Display) Asleep() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.asleep
}

func (d *Display) setAsleep(v bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.asleep == v {
		return
	}
	d.asleep = v
	d.version++ // what the panel shows changed: pollers re-fetch
	close(d.changed)
	d.changed = make(chan struct{})
}

// Changed returns a channel that is closed at the next Draw.
func (d *Display) Changed() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.changed
}

// Snapshot returns a copy of what the panel shows (black while asleep) and
// its version.
func (d *Display) Snapshot() (*image.RGBA, uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	cp := image.NewRGBA(d.fb.Rect)
	if d.asleep {
		draw.Draw(cp, cp.Rect, image.Black, image.Point{}, draw.Src)
		return cp, d.version
	}
	copy(cp.Pix, d.fb.Pix)
	return cp, d.version
}

// PNG returns the current frame encoded as PNG and its version. The
// encoding is cached until the next Draw, because several browser tabs
// polling an unchanged screen should not cost a re-encode each.
func (d *Display) PNG() ([]byte, uint64, error) {
	d.mu.Lock()
	if d.pngVer == d.version {
		b, v := d.png, d.version
		d.mu.Unlock()
		return b, v, nil
	}
	d.mu.Unlock()
	img, v := d.Snapshot()
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, 0, fmt.Errorf("%s: encoding png: %w", d, err)
	}
	d.mu.Lock()
	if v >= d.pngVer {
		d.png, d.pngVer = buf.Bytes(), v
	}
	d.mu.Unlock()
	return buf.Bytes(), v, nil
}
