package folderpush_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"maps"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
)

// gifBomb is issue 19's third case: a GIF of a couple of KB whose frames
// are 1×1 on a declared w×h screen, so a loader that composes every frame
// at the screen's size spends frames×w×h×4 bytes.
func gifBomb(t testing.TB, frames, w, h int) []byte {
	t.Helper()
	pal := color.Palette{color.Black, color.White}
	g := &gif.GIF{Config: image.Config{Width: w, Height: h, ColorModel: pal}}
	for range frames {
		g.Image = append(g.Image, image.NewPaletted(image.Rect(0, 0, 1, 1), pal))
		g.Delay = append(g.Delay, 10)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCharEndRefusesAPackOverTheMemoryBudget: the push is complete and
// valid, but loading it would cost 400 MB. char_end says so and the old
// pack stays installed.
func TestCharEndRefusesAPackOverTheMemoryBudget(t *testing.T) {
	bomb := gifBomb(t, 100, 1024, 1024)
	if len(bomb) > 4<<10 {
		t.Fatalf("the bomb is %d bytes, want a few KB", len(bomb))
	}
	pack := []packFile{
		{"idle.gif", bomb},
		{"manifest.json", []byte(`{"name":"bomb","states":{"idle":"idle.gif"}}`)},
	}
	fs := newFS()
	r := newReceiver(t, fs)
	mustOK(t, r, folderpush.Input{Cmd: folderpush.CmdBegin, Name: "bomb", Total: total(pack)}, 0)
	for _, f := range pack {
		sendFile(t, r, f)
	}
	res := apply(t, r, folderpush.Input{Cmd: folderpush.CmdEnd})
	if res.OK || !strings.Contains(res.Err, "too large to load") || !errors.Is(res.Cause, folderpush.ErrOverBudget) {
		t.Fatalf("char_end: ok=%v err=%q cause=%v, want the memory budget refusal", res.OK, res.Err, res.Cause)
	}
	if !strings.Contains(res.Cause.Error(), "idle.gif: 100 frames of 1024x1024") {
		t.Errorf("the cause does not name the GIF: %v", res.Cause)
	}
	if fs.Commits != 0 || !maps.EqualFunc(fs.Current, oldPack(), bytes.Equal) {
		t.Fatalf("the old pack was replaced (%d commits)", fs.Commits)
	}
	// The same pack within the budget installs.
	r = newReceiver(t, fs)
	pack[0].data = gifBomb(t, 100, 96, 96)
	mustOK(t, r, folderpush.Input{Cmd: folderpush.CmdBegin, Name: "small", Total: total(pack)}, 0)
	for _, f := range pack {
		sendFile(t, r, f)
	}
	if res := apply(t, r, folderpush.Input{Cmd: folderpush.CmdEnd}); !res.OK {
		t.Fatalf("a 100-frame 96x96 pack refused: %q %v", res.Err, res.Cause)
	}
}

func TestCheckMemory(t *testing.T) {
	files := map[string][]byte{
		"a.gif":    gifBomb(t, 60, 240, 240), // 60 kept frames: 13.2 MB
		"b.gif":    gifBomb(t, 20, 240, 240), // 4.4 MB more
		"big.gif":  gifBomb(t, 8, 1024, 1024),
		"many.gif": gifBomb(t, folderpush.MaxGIFFrames+1, 1, 1),
		"junk.gif": []byte("GIF89a not really"),
	}
	read := func(n string) ([]byte, error) { return files[n], nil }
	for _, tt := range []struct {
		gifs map[string][]string
		ok   bool
	}{
		{map[string][]string{"idle": {"a.gif"}}, true},
		{map[string][]string{"idle": {"a.gif"}, "busy": {"a.gif"}}, true}, // one file, loaded once
		{map[string][]string{"idle": {"a.gif"}, "busy": {"b.gif"}}, false},
		// Kept at 240x240 (2 MB), decoded on two 4 MB canvases: fits.
		{map[string][]string{"idle": {"big.gif"}}, true},
		{map[string][]string{"idle": {"many.gif"}}, false},
		{map[string][]string{"idle": {"junk.gif"}}, true}, // the loader's to report
	} {
		err := folderpush.CheckMemory(&folderpush.Manifest{GIFs: tt.gifs}, read)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, folderpush.ErrOverBudget)) {
			t.Errorf("%v: %v, want ok=%v", tt.gifs, err, tt.ok)
		}
	}
}

func TestKeptSize(t *testing.T) {
	for _, tt := range []struct{ w, h, kw, kh int }{
		{96, 96, 96, 96}, {240, 240, 240, 240}, {1024, 1024, 240, 240}, {480, 240, 240, 120}, {1, 1024, 1, 240}, {0, 5, 0, 0},
	} {
		if k := folderpush.KeptSize(tt.w, tt.h); k != image.Pt(tt.kw, tt.kh) {
			t.Errorf("KeptSize(%d, %d) = %v, want %dx%d", tt.w, tt.h, k, tt.kw, tt.kh)
		}
	}
}
