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
// board, the link, each service with its state and description, and the
// time; while a permission prompt is pending, the prompt instead of the
// services.
type StatusScreen struct {
	Board    string
	Link     string // one line about the desktop link; "" hides it
	Services []Service
	Prompt   *PromptPanel // nil: no prompt pending
	Now      time.Time
}

// PromptPanel is the pending permission prompt as the screen shows it.
type PromptPanel struct {
	Tool, Hint string
	Age        time.Duration // since the prompt arrived
	Sent       bool          // a decision is on its way: no buttons
	More       int           // further prompts queued behind this one
}

// Key is what Render would draw, as a string: equal keys draw equal
// screens, so a caller redraws only when the key changes. Times count in
// whole seconds, the screen's resolution.
func (s StatusScreen) Key() string {
	k := fmt.Sprintf("%s|%s|%v|%s", s.Board, s.Link, s.Services, s.Now.Format("15:04:05"))
	if p := s.Prompt; p != nil {
		k += fmt.Sprintf("|%q|%q|%d|%v|%d", p.Tool, p.Hint, int(p.Age.Seconds()), p.Sent, p.More)
	}
	return k
}

// Lines is the prompt panel's text below the tool name, wrapped to cols
// characters: the hint (at most 4 lines), then the buttons or "sent...",
// then the queue. basicfont has no ellipsis glyph, hence "...".
func (p PromptPanel) Lines(cols int) []string {
	var out []string
	hint := wrap(p.Hint, cols)
	if len(hint) > 4 {
		hint = hint[:4]
		hint[3] = cut(hint[3]+"~", cols)
	}
	out = append(out, hint...)
	out = append(out, "")
	if p.Sent {
		out = append(out, "sent...")
	} else {
		out = append(out, "A approve · B deny")
	}
	if p.More > 0 {
		out = append(out, fmt.Sprintf("+%d more waiting", p.More))
	}
	return out
}

// wrap breaks s into lines of at most cols runes, at spaces where it can.
func wrap(s string, cols int) []string {
	if cols < 1 {
		return nil
	}
	var lines []string
	r := []rune(s)
	for len(r) > cols {
		at := cols
		for i := cols; i > cols/2; i-- {
			if r[i] == ' ' {
				at = i
				break
			}
		}
		lines = append(lines, string(r[:at]))
		r = r[at:]
		for len(r) > 0 && r[0] == ' ' {
			r = r[1:]
		}
	}
	if len(r) > 0 {
		lines = append(lines, string(r))
	}
	return lines
}

func cut(s string, cols int) string {
	if r := []rune(s); len(r) > cols {
		return string(r[:cols])
	}
	return s
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
	if s.Link != "" {
		y += lineHeight
		text(dst, face, b.Min.X+4, y, s.Link, colorText, cols-1)
	}
	y += lineHeight + 4
	if s.Prompt != nil {
		s.Prompt.render(dst, face, b, y, cols)
	}
	for _, svc := range s.Services {
		if s.Prompt != nil {
			break
		}
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

// render draws the prompt from y down: the age, the tool twice as large,
// then Lines.
func (p PromptPanel) render(dst draw.Image, face font.Face, b image.Rectangle, y, cols int) {
	ageColor := colorWarn
	if p.Age >= 10*time.Second { // the reference turns the timer red-orange at 10 s
		ageColor = colorBad
	}
	text(dst, face, b.Min.X+4, y, fmt.Sprintf("approve? %ds", int(p.Age.Seconds())), ageColor, cols-1)
	y += 4
	big := (cols - 1) / 2
	tool := image.NewRGBA(image.Rect(0, 0, big*7, 13))
	draw.Draw(tool, tool.Bounds(), image.NewUniform(colorBG), image.Point{}, draw.Src)
	text(tool, face, 0, 10, p.Tool, colorTitle, big)
	scale2(dst, image.Pt(b.Min.X+4, y), tool)
	y += 26 + lineHeight
	for _, l := range p.Lines(cols - 1) {
		if y > b.Max.Y-lineHeight {
			break
		}
		c := colorText
		if l == "sent..." {
			c = colorDim
		}
		text(dst, face, b.Min.X+4, y, l, c, cols-1)
		y += lineHeight
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
		if key := s.Key(); key != last {
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
