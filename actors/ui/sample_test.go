package ui

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

var updateShots = flag.Bool("update-screenshots", false, "rewrite the kept ui-*.png of the pet's screens (for the README)")

// keptSamples are the screens whose `claude-pi screenshot` pictures the
// README shows and this package owns the look of: home, the info page,
// and the pet's stats, clock and settings pages.
var keptSamples = []Screen{ScreenHome, ScreenInfo, ScreenStats, ScreenClock, ScreenSettings}

const shotDir = "screens/testdata/screenshots"

// TestSampleScreenshots: the kept ui-*.png are what `claude-pi screenshot
// FILE.png --screen NAME` draws now (the root's TestScreenshotCommand
// writes the same files with -update-ui-screenshots).
func TestSampleScreenshots(t *testing.T) {
	for _, sc := range keptSamples {
		for _, size := range []image.Point{{240, 240}, {320, 240}} {
			img, err := Sample(sc, size.X, size.Y)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(shotDir, fmt.Sprintf("ui-%s-%dx%d.png", sc, size.X, size.Y))
			if *updateShots {
				var b bytes.Buffer
				if err := png.Encode(&b, img); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if !sameAs(t, path, img) {
				t.Errorf("%s is not what Sample(%s) draws now: go test ./actors/ui -run TestSampleScreenshots -update-screenshots, and look at the diff", path, sc)
			}
		}
	}
}

func sameAs(t *testing.T, path string, img *image.RGBA) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Error(err)
		return false
	}
	defer f.Close()
	kept, err := png.Decode(f)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return false
	}
	got := image.NewRGBA(kept.Bounds())
	draw.Draw(got, got.Bounds(), kept, kept.Bounds().Min, draw.Src)
	return got.Bounds() == img.Bounds() && bytes.Equal(got.Pix, img.Pix)
}
