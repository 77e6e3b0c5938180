package ui

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/claude-pi/claude-pi/actors/ui/screens"
	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
	"github.com/claude-pi/claude-pi/protocols/gifscan"
)

// packGIF is a GIF of frames w×h-screen frames, each covering rect,
// with disposal d.
func packGIF(t testing.TB, frames, w, h int, rect image.Rectangle, d byte) []byte {
	t.Helper()
	pal := color.Palette{color.Black, color.White, color.RGBA{0xD9, 0x77, 0x57, 0xff}}
	g := &gif.GIF{Config: image.Config{Width: w, Height: h, ColorModel: pal}}
	for i := range frames {
		m := image.NewPaletted(rect, pal)
		for j := range m.Pix {
			m.Pix[j] = uint8((i + j) % 3)
		}
		g.Image = append(g.Image, m)
		g.Delay = append(g.Delay, 10)
		g.Disposal = append(g.Disposal, d)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writePack(t testing.TB, dir string, g []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"name":"fuzz","states":{"idle":"idle.gif","busy":["idle.gif","idle.gif"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "idle.gif"), g, 0o644); err != nil {
		t.Fatal(err)
	}
}

// allocated is what f allocated on the heap, garbage included: an upper
// bound on what it added to the RSS.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLoadPackRefusesTheGIFBomb: the 2.3 KB GIF that took the RSS from 33
// to 448 MB is refused before a frame is decoded, for a few KB.
func TestLoadPackRefusesTheGIFBomb(t *testing.T) {
	dir := t.TempDir()
	writePack(t, dir, packGIF(t, 100, 1024, 1024, image.Rect(0, 0, 1, 1), gif.DisposalNone))
	var err error
	n := allocated(func() { _, _, err = LoadPack(dir) })
	if !errors.Is(err, folderpush.ErrOverBudget) {
		t.Fatalf("LoadPack: %v, want the memory budget refusal", err)
	}
	if n > 1<<20 {
		t.Fatalf("refusing the bomb allocated %d bytes", n)
	}
}

// TestLoadPackKeepsPanelSizedFrames: a 1024×1024 GIF within the budget
// is kept at the panel's size, composed as before.
func TestLoadPackKeepsPanelSizedFrames(t *testing.T) {
	dir := t.TempDir()
	writePack(t, dir, packGIF(t, 4, 1024, 1024, image.Rect(0, 0, 1024, 1024), gif.DisposalPrevious))
	ch, _, err := LoadPack(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := ch.(*screens.GIFPack)
	a := p.States[screens.Persona("idle")][0]
	if len(a.Frames) != 4 || a.Frames[0].Bounds() != image.Rect(0, 0, 240, 240) {
		t.Fatalf("%d frames of %v, want 4 of 240x240", len(a.Frames), a.Frames[0].Bounds())
	}
}

// FuzzLoadPack loads a pack around any GIF and checks that what the
// loader allocates stays within the memory budget (plus the LZW readers'
// garbage, 20 KB a frame, and copies of the file), whether it loads or
// refuses.
func FuzzLoadPack(f *testing.F) {
	f.Add(packGIF(f, 100, 1024, 1024, image.Rect(0, 0, 1, 1), gif.DisposalNone))
	f.Add(packGIF(f, 3, 64, 64, image.Rect(8, 8, 40, 40), gif.DisposalBackground))
	f.Add(packGIF(f, 2, 1024, 1024, image.Rect(0, 0, 1024, 1024), gif.DisposalPrevious))
	f.Add(packGIF(f, 40, 240, 240, image.Rect(0, 0, 240, 240), gif.DisposalNone))
	f.Add([]byte("GIF89a\x00\x04\x00\x04\x00\x00\x00,\x00\x00\x00\x00\x00\x04\x00\x04\x00\x02\x02L\x01\x00;"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		writePack(t, dir, b)
		limit := uint64(folderpush.MemoryBudget + folderpush.MaxGIFFrames*(24<<10) + 8*len(b) + 1<<20)
		if n := allocated(func() { LoadPack(dir) }); n > limit {
			t.Fatalf("loading a %d-byte GIF allocated %d bytes, limit %d", len(b), n, limit)
		}
	})
}

// largestPack writes the largest GIF pack CheckMemory lets through: one
// 240×240 GIF with as many full frames as the budget allows.
func largestPack(tb testing.TB, dir string) int {
	frames := 1
	for {
		in := gifscan.Info{Width: 240, Height: 240, Frames: make([]image.Rectangle, frames+1)}
		for i := range in.Frames {
			in.Frames[i] = image.Rect(0, 0, 240, 240)
		}
		if k, d := folderpush.GIFCost(in); k+d > folderpush.MemoryBudget {
			break
		}
		frames++
	}
	writePack(tb, dir, packGIF(tb, frames, 240, 240, image.Rect(0, 0, 240, 240), gif.DisposalNone))
	return frames
}

// vmRSS is this process's resident set in bytes.
func vmRSS(tb testing.TB) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb * 1024
		}
	}
	return 0
}

// BenchmarkLoadLargestPack loads the largest pack the memory budget
// allows and reports what it costs: the heap it keeps while loaded, what
// loading allocated in all, and the process RSS before and after.
func BenchmarkLoadLargestPack(b *testing.B) {
	dir := b.TempDir()
	frames := largestPack(b, dir)
	var kept, alloc, rss0, rss1 float64
	for b.Loop() {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		rss0 = vmRSS(b)
		ch, _, err := LoadPack(dir)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		rss1 = max(rss1, vmRSS(b))
		kept = float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
		alloc = float64(m1.TotalAlloc - m0.TotalAlloc)
		runtime.KeepAlive(ch)
	}
	b.ReportMetric(float64(frames), "frames")
	b.ReportMetric(kept/(1<<20), "MB-kept")
	b.ReportMetric(alloc/(1<<20), "MB-alloc")
	b.ReportMetric(rss0/(1<<20), "MB-RSS-before")
	b.ReportMetric(rss1/(1<<20), "MB-RSS-after")
}
