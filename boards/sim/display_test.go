package sim

import (
	"image"
	"image/color"
	"testing"
	"time"
)

func TestNewDisplayRejectsBadSizes(t *testing.T) {
	for _, sz := range [][2]int{{0, 240}, {240, 0}, {-1, 5}, {4097, 10}} {
		if _, err := NewDisplay(sz[0], sz[1]); err == nil {
			t.Errorf("NewDisplay(%d, %d) = nil error", sz[0], sz[1])
		}
	}
}

func TestDrawClipsAndSignals(t *testing.T) {
	d, err := NewDisplay(4, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.String(); got != "sim display 4x4" {
		t.Errorf("String() = %q", got)
	}
	changed := d.Changed()
	white := image.NewUniform(color.RGBA{0xff, 0xff, 0xff, 0xff})
	// Partly off-screen: only the on-screen part is drawn, no panic.
	if err := d.Draw(image.Rect(2, 2, 10, 10), white, image.Point{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(time.Second):
		t.Fatal("Changed() not closed by Draw")
	}
	img, v := d.Snapshot()
	if v != 2 {
		t.Errorf("version = %d, want 2", v)
	}
	if got := img.RGBAAt(3, 3); got.R != 0xff {
		t.Errorf("pixel (3,3) = %v, want white", got)
	}
	if got := img.RGBAAt(1, 1); got.R != 0 {
		t.Errorf("pixel (1,1) = %v, want black", got)
	}
	if err := d.Draw(d.Bounds(), nil, image.Point{}); err == nil {
		t.Error("Draw(nil) = nil error")
	}
}

func TestButtonsDropForSlowSubscriber(t *testing.T) {
	b := NewButtons()
	ch, stop := b.Subscribe(1)
	if _, n, err := b.Press("A", 0); err != nil || n != 1 {
		t.Fatalf("first press: n=%d err=%v", n, err)
	}
	if _, n, err := b.Press("A", 0); err != nil || n != 0 {
		t.Fatalf("second press to a full subscriber: n=%d err=%v, want 0 nil", n, err)
	}
	if b.Dropped() != 1 {
		t.Errorf("Dropped() = %d, want 1", b.Dropped())
	}
	if _, _, err := b.Press("Z", 0); err == nil {
		t.Error("Press(Z) = nil error")
	}
	if _, _, err := b.Press("A", -time.Second); err == nil {
		t.Error("negative hold = nil error")
	}
	stop()
	stop() // idempotent
	<-ch
	if _, ok := <-ch; ok {
		t.Error("channel still open after stop")
	}
	if _, n, _ := b.Press("B", 0); n != 0 {
		t.Errorf("press after unsubscribe delivered to %d", n)
	}
}

func hasColor(img *image.RGBA, r image.Rectangle, c color.RGBA) bool {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y) == c {
				return true
			}
		}
	}
	return false
}

// BenchmarkDisplayPNG is the cost of one /api/screen.png after a full
// redraw: the sim page polls it twice a second.
func BenchmarkDisplayPNG(b *testing.B) {
	d, _ := NewDisplay(240, 240)
	img := image.NewRGBA(d.Bounds())
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		img.Pix[(i*4)%len(img.Pix)] = byte(i)
		_ = d.Draw(d.Bounds(), img, image.Point{})
		if _, _, err := d.PNG(); err != nil {
			b.Fatal(err)
		}
	}
}
