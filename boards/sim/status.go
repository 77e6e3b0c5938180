package sim

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// StatusScreen is what the sim board shows until the real UI exists: the
// board, each service with its state and description, and the time.
type StatusScreen struct {
	Board    string
	Services []Service
	Now      time.Time
}

var (
	colorBG      = color.RGBA{0x10, 0x10, 0x14, 0xff}
	colorTitle   = color.RGBA{0xd9, 0x77, 0x57, 0xff} // Claude's orange
	colorText    = color.RGBA{0xe0, 0xe0, 0xe0, 0xff}
	colorDim     = color.RGBA{0x90, 0x90, 0x98, 0xff}
	colorRunning = color.RGBA{0x4c, 0xaf, 0x50, 0xff}
	colorWarn    = color.RGBA{0xff, 0xb3, 0x00, 0xff}
	colorBad     = color.RGBA{0xef, 0x53, 0x50, 0xff}
)

const lineHeight = 14 // basicfont's 13 px plus a pixel of air

// Render draws the status screen into dst, filling all of dst's bounds.
// Text that does not fit is cut, never wrapped over the next line.
func (s StatusScreen) Render(dst draw.Image) {
	b := dst.Bounds()
	draw.Draw(dst, b, image.NewUniform(colorBG), image.Point{}, draw.Src)
	face := basicfont.Face7x13
	cols := b.Dx() / 7
	if cols < 1 {
		return
	}

	// The title at twice the size: drawn small, then scaled by pixel
	// doubling, because basicfont has one size only.
	title := image.NewRGBA(image.Rect(0, 0, 9*7, 13))
	draw.Draw(title, title.Bounds(), image.NewUniform(colorBG), image.Point{}, draw.Src)
	text(title, face, 0, 10, "Claude_Pi", colorTitle, 9)
	scale2(dst, b.Min.Add(image.Pt(4, 2)), title)

	y := b.Min.Y + 2 + 26 + lineHeight
	text(dst, face, b.Min.X+4, y, "board "+s.Board, colorDim, cols-1)
	y += lineHeight + 4
	for _, svc := range s.Services {
		if y > b.Max.Y-lineHeight {
			break
		}
		text(dst, face, b.Min.X+4, y, fmt.Sprintf("%-9s", svc.Name), colorText, cols-1)
		text(dst, face, b.Min.X+4+10*7, y, svc.State, stateColor(svc.State), cols-11)
		y += lineHeight
		text(dst, face, b.Min.X+4+2*7, y, svc.Description, colorDim, cols-3)
		y += lineHeight
	}
	if !s.Now.IsZero() {
		text(dst, face, b.Min.X+4, b.Max.Y-4, s.Now.Format("15:04:05"), colorDim, cols-1)
	}
}

func stateColor(state string) color.Color {
	switch state {
	case "RUNNING":
		return colorRunning
	case "STARTING", "BACKOFF", "STOPPING":
		return colorWarn
	case "FATAL", "EXITED", "UNKNOWN":
		return colorBad
	}
	return colorDim
}

// text draws at most maxRunes characters of str with its baseline at y.
func text(dst draw.Image, face font.Face, x, y int, str string, c color.Color, maxRunes int) {
	if maxRunes < 1 {
		return
	}
	if r := []rune(str); len(r) > maxRunes {
		str = string(r[:maxRunes-1]) + "~" // basicfont has no ellipsis
	}
	d := font.Drawer{Dst: dst, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, y)}
	d.DrawString(str)
}

// scale2 draws src at twice its size with its top-left corner at at.
func scale2(dst draw.Image, at image.Point, src *image.RGBA) {
	sb := src.Bounds()
	for y := sb.Min.Y; y < sb.Max.Y; y++ {
		for x := sb.Min.X; x < sb.Max.X; x++ {
			c := src.RGBAAt(x, y)
			px := at.X + 2*(x-sb.Min.X)
			py := at.Y + 2*(y-sb.Min.Y)
			dst.Set(px, py, c)
			dst.Set(px+1, py, c)
			dst.Set(px, py+1, c)
			dst.Set(px+1, py+1, c)
		}
	}
}

// ShowStatus keeps d showing the status screen until ctx ends. It asks
// screen for the content every poll and redraws only when what would be
// drawn changed (a state, a description, or the clock's second), so an
// idle appliance does not re-encode the PNG the web page polls.
func ShowStatus(ctx context.Context, d *Display, screen func() StatusScreen, poll time.Duration) {
	img := image.NewRGBA(d.Bounds())
	var last string
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		s := screen()
		key := fmt.Sprintf("%s|%v|%s", s.Board, s.Services, s.Now.Format("15:04:05"))
		if key != last {
			s.Render(img)
			_ = d.Draw(img.Bounds(), img, image.Point{})
			last = key
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
