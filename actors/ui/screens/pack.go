package screens

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"time"

	xdraw "golang.org/x/image/draw"

	"github.com/claude-pi/claude-pi/protocols/buddy/folderpush"
)

// GIFAnim is one decoded GIF, composed into full frames once at load so
// playback is a copy per frame. Delays and disposal are honoured (the
// reference firmware ignores disposal; packs made for it use full frames,
// which compose the same either way). Frames are kept at most
// folderpush.FrameBox in size: a larger GIF is scaled down once here, so
// what a pack costs is its frame count, not the screen size it declares.
type GIFAnim struct {
	Frames []*image.RGBA
	Delays []time.Duration
	total  time.Duration
}

// minDelay is what browsers use for a GIF delay of 0 or 1 (10 ms): such
// GIFs were made assuming 100 ms, and playing them at 0 would busy-loop.
const minDelay = 20 * time.Millisecond

// NewGIFAnim composes g's frames. bg fills the canvas and shows through
// transparent pixels (spec §8.3: colors.bg).
func NewGIFAnim(g *gif.GIF, bg color.Color) (*GIFAnim, error) {
	if g == nil || len(g.Image) == 0 {
		return nil, fmt.Errorf("screens: gif has no frames")
	}
	if len(g.Image) > folderpush.MaxGIFFrames {
		return nil, fmt.Errorf("screens: gif has %d frames, more than %d", len(g.Image), folderpush.MaxGIFFrames)
	}
	w, h := g.Config.Width, g.Config.Height
	if w <= 0 || h <= 0 {
		b := g.Image[0].Bounds()
		for _, f := range g.Image[1:] {
			b = b.Union(f.Bounds())
		}
		w, h = b.Max.X, b.Max.Y
	}
	if w > 1024 || h > 1024 {
		return nil, fmt.Errorf("screens: gif is %dx%d, larger than 1024x1024", w, h)
	}
	kept := folderpush.KeptSize(w, h)
	canvas := image.NewRGBA(image.Rect(0, 0, w, h))
	clear(canvas, canvas.Bounds(), bg)
	var saved *image.RGBA // one buffer for every DisposalPrevious
	a := &GIFAnim{}
	for i, f := range g.Image {
		disposal := byte(0)
		if i < len(g.Disposal) {
			disposal = g.Disposal[i]
		}
		if disposal == gif.DisposalPrevious {
			if saved == nil {
				saved = image.NewRGBA(canvas.Bounds())
			}
			copy(saved.Pix, canvas.Pix)
		}
		draw.Draw(canvas, f.Bounds(), f, f.Bounds().Min, draw.Over)
		frame := image.NewRGBA(image.Rect(0, 0, kept.X, kept.Y))
		if kept == canvas.Bounds().Size() {
			copy(frame.Pix, canvas.Pix)
		} else {
			xdraw.ApproxBiLinear.Scale(frame, frame.Bounds(), canvas, canvas.Bounds(), draw.Src, nil)
		}
		a.Frames = append(a.Frames, frame)
		d := 100 * time.Millisecond // GIF delays of 0 and 1 mean "default"
		if i < len(g.Delay) && g.Delay[i] > 1 {
			d = max(time.Duration(g.Delay[i])*10*time.Millisecond, minDelay)
		}
		a.Delays = append(a.Delays, d)
		a.total += d
		switch disposal {
		case gif.DisposalBackground:
			clear(canvas, f.Bounds(), bg)
		case gif.DisposalPrevious:
			copy(canvas.Pix, saved.Pix)
		}
	}
	return a, nil
}

// Frame returns the frame showing at t. Loop false freezes on the last
// frame (spec §8.3: a single-GIF state plays once). next is the time until
// the frame changes, or 0 when it never will.
func (a *GIFAnim) Frame(t time.Duration, loop bool) (img *image.RGBA, next time.Duration) {
	if t < 0 {
		t = 0
	}
	if t >= a.total {
		if !loop {
			return a.Frames[len(a.Frames)-1], 0
		}
		t %= a.total
	}
	for i, d := range a.Delays {
		if t < d {
			return a.Frames[i], d - t
		}
		t -= d
	}
	return a.Frames[len(a.Frames)-1], 0
}

// DrawScaled draws src into box, scaled to fit and centred, keeping its
// aspect ratio. Integer factors use nearest-neighbour so pixel art stays
// crisp; other factors are bilinear.
func DrawScaled(dst *image.RGBA, box image.Rectangle, src image.Image) {
	sb := src.Bounds()
	if sb.Empty() || box.Empty() {
		return
	}
	s := min(float64(box.Dx())/float64(sb.Dx()), float64(box.Dy())/float64(sb.Dy()))
	w, h := int(float64(sb.Dx())*s), int(float64(sb.Dy())*s)
	r := image.Rect(0, 0, w, h).Add(box.Min).Add(image.Pt((box.Dx()-w)/2, (box.Dy()-h)/2))
	var k xdraw.Interpolator = xdraw.ApproxBiLinear
	if s == float64(int(s)) {
		k = xdraw.NearestNeighbor
	}
	k.Scale(dst, r, src, sb, draw.Src, nil)
}

// GIFPack is a character from a GIF pack: per state, one or more GIFs.
type GIFPack struct {
	States map[Persona][]*GIFAnim
	BG     color.RGBA
}

// Dwell rules from spec §8.3: each GIF of a multi-GIF state loops for 5 s,
// then the next opens after an 800 ms pause.
const (
	packDwell = 5 * time.Second
	packPause = 800 * time.Millisecond
)

// Draw implements Character. A state the pack lacks draws only the
// background (spec §8.3: "a missing state shows nothing").
func (p *GIFPack) Draw(dst *image.RGBA, box image.Rectangle, pe Persona, t time.Duration) {
	clear(dst, box, p.BG)
	anims := p.States[pe]
	if len(anims) == 0 {
		return
	}
	if len(anims) == 1 {
		f, _ := anims[0].Frame(t, false)
		DrawScaled(dst, box, f)
		return
	}
	cycle := packDwell + packPause
	i := int(t/cycle) % len(anims)
	in := t % cycle
	if in >= packDwell {
		return // the pause between GIFs
	}
	f, _ := anims[i].Frame(in, true)
	DrawScaled(dst, box, f)
}

// Interval implements Character: the shortest frame delay of the state.
func (p *GIFPack) Interval(pe Persona) time.Duration {
	iv := time.Second
	for _, a := range p.States[pe] {
		for _, d := range a.Delays {
			iv = min(iv, d)
		}
	}
	return iv
}

// TextPack is a text-mode pack (spec §8.3 "mode":"text"): per state up to
// 8 frames of at most 19 characters, each shown for Delay.
type TextPack struct {
	States map[Persona]TextState
	Body   color.RGBA // colors.body
	BG     color.RGBA // colors.bg
	f      *fonts
}

// TextState is one state of a text pack.
type TextState struct {
	Frames []string
	Delay  time.Duration // 0 means 200 ms
}

func (s TextState) delay() time.Duration {
	if s.Delay <= 0 {
		return 200 * time.Millisecond
	}
	return s.Delay
}

// Draw implements Character: the frame's text, centred and as large as fits.
func (p *TextPack) Draw(dst *image.RGBA, box image.Rectangle, pe Persona, t time.Duration) {
	if p.f == nil {
		p.f = newFonts()
	}
	clear(dst, box, p.BG)
	st := p.States[pe]
	if len(st.Frames) == 0 {
		return
	}
	s := st.Frames[int(t/st.delay())%len(st.Frames)]
	size := 32.0
	for size > 10 && p.f.measure(Mono, size, s) > box.Dx()-4 {
		size -= 2
	}
	x := box.Min.X + (box.Dx()-p.f.measure(Mono, size, s))/2
	y := box.Min.Y + (box.Dy()-p.f.lineHeight(Mono, size))/2
	p.f.text(dst, x, y, Mono, size, p.Body, s)
}

// Interval implements Character.
func (p *TextPack) Interval(pe Persona) time.Duration { return p.States[pe].delay() }

var (
	_ Character = (*BuiltIn)(nil)
	_ Character = (*GIFPack)(nil)
	_ Character = (*TextPack)(nil)
)
