package st7789

import (
	"image"
	"image/color"
	"testing"

	"periph.io/x/conn/v3/gpio/gpiotest"
)

func TestRGB565Model(t *testing.T) {
	tests := []struct {
		in   color.Color
		want RGB565
	}{
		{color.White, 0xFFFF},
		{color.Black, 0x0000},
		{color.RGBA{R: 0xFF, A: 0xFF}, 0xF800},
		{color.RGBA{G: 0xFF, A: 0xFF}, 0x07E0},
		{color.RGBA{B: 0xFF, A: 0xFF}, 0x001F},
		{color.NRGBA{R: 0xFF, A: 0x80}, 0x8000}, // Half over black.
		{color.Gray{0x80}, 0x8410},
		{RGB565(0x1234), 0x1234},
	}
	for _, tt := range tests {
		if got := RGB565Model.Convert(tt.in).(RGB565); got != tt.want {
			t.Errorf("Convert(%v) = %#04x, want %#04x", tt.in, uint16(got), uint16(tt.want))
		}
	}
	// Widening back keeps the extremes exact.
	if r, g, b, a := RGB565(0xFFFF).RGBA(); r != 0xFFFF || g != 0xFFFF || b != 0xFFFF || a != 0xFFFF {
		t.Fatal(r, g, b, a)
	}
	if r, g, b, _ := RGB565(0xF800).RGBA(); r != 0xFFFF || g != 0 || b != 0 {
		t.Fatal(r, g, b)
	}
}

// TestDraw_anySource sends a non-RGBA image through the generic path.
func TestDraw_anySource(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 1))
	img.Set(0, 0, color.White)
	img.Set(1, 0, color.NRGBA{R: 0xFF, A: 0x80})
	img.Set(2, 0, color.NRGBA{G: 0xFF, A: 0xFF})
	img.Set(3, 0, color.Gray{0x80})
	dc := &logPin{Pin: gpiotest.Pin{N: "dc", Num: 25}}
	p := newPort(dc,
		// Startup initialization.
		initSteps(0x00, true),
		// Page 1.
		window(0, 0, 3, 0),
		data([]byte{0xFF, 0xFF, 0x80, 0x00, 0x07, 0xE0, 0x84, 0x10}, 4096),
	)
	d, err := New(p, dc, nil, nil, opts(nil, func(o *Opts) { o.Width, o.Height = 4, 1 }))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Draw(d.Bounds(), img, image.Point{}); err != nil {
		t.Fatal(err)
	}
	p.check(t)
}
