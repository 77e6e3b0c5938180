package gifscan

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"testing"
)

// encode is a GIF of frames (each on the w×h screen), with a local
// palette on the odd ones.
func encode(t testing.TB, w, h int, frames ...image.Rectangle) []byte {
	g := &gif.GIF{Config: image.Config{Width: w, Height: h, ColorModel: color.Palette(palette.Plan9)}}
	for i, r := range frames {
		pal := color.Palette(palette.Plan9)
		if i%2 == 1 {
			pal = color.Palette{color.Black, color.White}
		}
		g.Image = append(g.Image, image.NewPaletted(r, pal))
		g.Delay = append(g.Delay, 10)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestScanAgreesWithDecodeAll(t *testing.T) {
	b := encode(t, 64, 48, image.Rect(0, 0, 64, 48), image.Rect(8, 4, 40, 20), image.Rect(63, 47, 64, 48))
	in, err := Scan(b, 10)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if in.Width != g.Config.Width || in.Height != g.Config.Height || len(in.Frames) != len(g.Image) {
		t.Fatalf("scan %dx%d %d frames, DecodeAll %dx%d %d", in.Width, in.Height, len(in.Frames), g.Config.Width, g.Config.Height, len(g.Image))
	}
	for i, f := range g.Image {
		if in.Frames[i] != f.Bounds() {
			t.Errorf("frame %d: scan %v, DecodeAll %v", i, in.Frames[i], f.Bounds())
		}
	}
	if in.LocalPalettes != 1 {
		t.Errorf("%d local palettes, want 1", in.LocalPalettes)
	}
}

func TestScanRefuses(t *testing.T) {
	many := make([]image.Rectangle, 11)
	for i := range many {
		many[i] = image.Rect(0, 0, 1, 1)
	}
	ok := encode(t, 8, 8, image.Rect(0, 0, 8, 8))
	outside := bytes.Clone(ok)
	// The first image descriptor follows the header, the screen, the
	// global table (Plan9: 256 colors) and the graphic control extension.
	d := bytes.IndexByte(outside[13+768:], 0x2c) + 13 + 768
	outside[d+5] = 9 // width 9 on an 8-wide screen
	for _, tt := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrNotGIF},
		{"png", []byte("\x89PNG\r\n\x1a\n0000000000"), ErrNotGIF},
		{"header only", ok[:13], ErrTruncated},
		{"cut in the palette", ok[:100], ErrTruncated},
		{"cut in the pixels", ok[:len(ok)-3], ErrTruncated},
		{"too many frames", encode(t, 1, 1, many...), ErrTooManyFrames},
	} {
		if _, err := Scan(tt.b, 10); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	if _, err := Scan(outside, 10); err == nil {
		t.Error("a frame outside the screen was accepted")
	}
	if _, err := gif.DecodeAll(bytes.NewReader(outside)); err == nil {
		t.Error("DecodeAll accepts the frame outside the screen: the test is wrong")
	}
}

// FuzzScan: Scan never panics, and whatever DecodeAll decodes has at most
// the frames and sizes Scan declared (so Info bounds the decode's cost).
func FuzzScan(f *testing.F) {
	f.Add(encode(f, 64, 48, image.Rect(0, 0, 64, 48), image.Rect(8, 4, 40, 20)))
	f.Add(encode(f, 1, 1, image.Rect(0, 0, 1, 1)))
	f.Add([]byte("GIF89a\x00\x04\x00\x04\x00\x00\x00,\x00\x00\x00\x00\x00\x04\x00\x04\x00\x02\x02L\x01\x00;"))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := Scan(b, 64)
		if err != nil {
			return
		}
		g, err := gif.DecodeAll(bytes.NewReader(b))
		if err != nil {
			return
		}
		if len(g.Image) > len(in.Frames) {
			t.Fatalf("DecodeAll got %d frames, Scan declared %d", len(g.Image), len(in.Frames))
		}
		for i, m := range g.Image {
			if m.Bounds() != in.Frames[i] {
				t.Fatalf("frame %d: DecodeAll %v, Scan %v", i, m.Bounds(), in.Frames[i])
			}
		}
	})
}
