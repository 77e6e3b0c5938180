package folderpush

import (
	"errors"
	"fmt"
	"image"
	"slices"

	"github.com/claude-pi/claude-pi/protocols/gifscan"
)

// What a loaded GIF pack may cost. A GIF is a few KB on the wire but can
// declare a hundred 1024×1024 frames: 400 MB once decoded and composed,
// on a Pi Zero 2 W with 512 MB. So the cost is worked out from the
// declared sizes before anything is decoded, both at char_end (a pack
// over budget is refused and the old one stays) and by the loader.
const (
	// MemoryBudget bounds the loaded pack: its composed frames, plus the
	// largest GIF's decoding.
	MemoryBudget = 16 << 20
	// MaxGIFFrames bounds one GIF's frames.
	MaxGIFFrames = 512
	// frameOverhead is a decoded frame's cost beside its pixels: the
	// image header and a 256-entry palette of color.Color values.
	frameOverhead = 8 << 10
)

// FrameBox is the largest size the loader keeps a composed frame at, the
// panel's: larger GIFs are scaled down once at load. It is the same on
// every board, so char_end's verdict does not depend on the screen.
var FrameBox = image.Pt(240, 240)

// KeptSize is the size a w×h GIF's composed frames are kept at: scaled
// down to fit FrameBox, keeping the aspect ratio, never up.
func KeptSize(w, h int) image.Point {
	if w <= 0 || h <= 0 {
		return image.Point{}
	}
	if w <= FrameBox.X && h <= FrameBox.Y {
		return image.Pt(w, h)
	}
	s := min(float64(FrameBox.X)/float64(w), float64(FrameBox.Y)/float64(h))
	return image.Pt(max(1, int(float64(w)*s)), max(1, int(float64(h)*s)))
}

// GIFCost is what loading one GIF costs in bytes: kept is its composed
// frames at KeptSize (RGBA) for as long as the pack is loaded; decoding
// is transient: image/gif's paletted frames and the two full-size RGBA
// canvases composition uses.
func GIFCost(in gifscan.Info) (kept, decoding int64) {
	k := KeptSize(in.Width, in.Height)
	kept = int64(len(in.Frames)) * int64(k.X) * int64(k.Y) * 4
	decoding = 2 * int64(in.Width) * int64(in.Height) * 4
	for _, f := range in.Frames {
		decoding += int64(f.Dx())*int64(f.Dy()) + frameOverhead
	}
	return kept, decoding
}

// ErrOverBudget: a pack would need more memory than MemoryBudget.
var ErrOverBudget = errors.New("over the memory budget")

// CheckMemory works out what loading m's GIFs would cost, reading each
// with read, and returns an error wrapping ErrOverBudget that names the
// costliest GIF when it is more than MemoryBudget. A GIF whose structure
// cannot be read is the loader's to report (unscannable is not what this
// check is about), unless it declares too many frames.
func CheckMemory(m *Manifest, read func(name string) ([]byte, error)) error {
	if m == nil || m.Text {
		return nil
	}
	var names []string
	for _, files := range m.GIFs {
		for _, n := range files {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	var kept, decoding int64
	worst, worstCost, worstInfo := "", int64(-1), gifscan.Info{}
	for _, n := range names {
		b, err := read(n)
		if err != nil {
			return fmt.Errorf("reading %s: %w", n, err)
		}
		in, err := gifscan.Scan(b, MaxGIFFrames)
		if errors.Is(err, gifscan.ErrTooManyFrames) {
			return fmt.Errorf("%s: %w: %w", n, ErrOverBudget, err)
		}
		if err != nil {
			continue
		}
		k, d := GIFCost(in)
		kept += k
		decoding = max(decoding, d)
		if k+d > worstCost {
			worst, worstCost, worstInfo = n, k+d, in
		}
	}
	if need := kept + decoding; need > MemoryBudget {
		return fmt.Errorf("%w: the pack needs %.1f MB to load, more than %d MB (%s: %d frames of %dx%d)",
			ErrOverBudget, float64(need)/(1<<20), MemoryBudget>>20, worst, len(worstInfo.Frames), worstInfo.Width, worstInfo.Height)
	}
	return nil
}
