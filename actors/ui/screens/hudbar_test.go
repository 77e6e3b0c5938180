package screens

import (
	"image"
	"image/color"
	"testing"
)

// TestNewestEntryHasOneBar: the newest entry wraps onto several lines and
// still gets one bar beside them, not one per line.
func TestNewestEntryHasOneBar(t *testing.T) {
	r, err := NewRenderer(240, 240)
	if err != nil {
		t.Fatal(err)
	}
	dst := image.NewRGBA(image.Rect(0, 0, 240, 240))
	long := "10:42 git push origin feature/approval-ui --force-with-lease and then a deploy to staging"
	r.Home(dst, HomeView{Entries: []string{"10:41 yarn test", long}})
	want := color.RGBAModel.Convert(accent).(color.RGBA)
	const x = 6 // the narrow layout's HUD starts here
	runs, in, rows := 0, false, 0
	for y := 140; y < 240; y++ {
		on := dst.RGBAAt(x, y) == want
		if on {
			rows++
		}
		if on && !in {
			runs++
		}
		in = on
	}
	if runs != 1 {
		t.Errorf("the newest entry has %d bars beside it, want 1", runs)
	}
	if lh := r.f.lineHeight(Regular, 14); rows < 2*lh-4 {
		t.Errorf("the bar is %d px tall; the entry wraps onto two lines of %d px", rows, lh)
	}
}
