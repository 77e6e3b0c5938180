package screens

import (
	"image"
	"image/color"
	"image/draw"
	"strings"

	"golang.org/x/image/math/fixed"

	"github.com/claude-pi/claude-pi/protocols/safetext"
)

// Every string the screens draw goes through safetext: a character is
// drawn from a font's glyph, or as a boxed escape (a filled warning box
// for a hidden character, a grey one for a character no font has, an
// outlined one for a tab). A box is not a glyph, so a prompt that spells
// "RLO" cannot pass for one that contains U+202E. Cells are laid out in
// logical order, left to right; nothing is reordered.

// cell is one character of laid-out text, or one escape.
type cell struct {
	kind  safetext.Kind
	r     rune
	label string // the escape's text
	w     fixed.Int26_6
}

// escapeSize is the point size of an escape's label in text of size s.
func escapeSize(s float64) float64 { return max(9, min(s*0.7, 14)) }

// cells parses s and measures each cell. oneLine makes a newline an
// escape (labels, titles); otherwise it is a Newline cell of no width.
func (fs *fonts) cells(st Style, size float64, s string, oneLine bool) ([]cell, bool) {
	t := safetext.Parse(s, safetext.Options{OneLine: oneLine, HasGlyph: func(r rune) bool { return fs.hasGlyph(st, size, r) }})
	chain := fs.face(st, size)
	var out []cell
	for _, run := range t.Runs {
		if run.Kind != safetext.Plain {
			c := cell{kind: run.Kind, r: run.R, label: run.S}
			if run.Kind != safetext.Newline {
				c.w = fixed.I(fs.escapeWidth(size, run.S))
			}
			out = append(out, c)
			continue
		}
		for _, r := range run.S {
			_, adv := glyphFace(chain, r)
			out = append(out, cell{kind: safetext.Plain, r: r, w: adv})
		}
	}
	return out, t.Hidden
}

// escapeWidth is the advance of an escape box: its label, a pixel of
// padding inside and a pixel of gap outside on each side.
func (fs *fonts) escapeWidth(size float64, label string) int {
	return fs.plainWidth(Bold, escapeSize(size), label) + 6
}

// plainWidth measures ASCII the Go fonts draw (escape labels).
func (fs *fonts) plainWidth(st Style, size float64, s string) int {
	f := fs.face(st, size)[0]
	var w fixed.Int26_6
	for _, r := range s {
		a, _ := f.GlyphAdvance(r)
		w += a
	}
	return w.Ceil()
}

func width(cs []cell) int {
	var w fixed.Int26_6
	for _, c := range cs {
		w += c.w
	}
	return w.Ceil()
}

// source is the text the cells came from, so a line cut from a longer
// text can be drawn again with the same escapes.
func source(cs []cell) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteRune(c.r)
	}
	return b.String()
}

// measure returns the width of s as one line, in pixels.
func (fs *fonts) measure(st Style, size float64, s string) int {
	cs, _ := fs.cells(st, size, s, true)
	return width(cs)
}

// text draws s as one line with its top-left at (x, y) and returns the x
// after it.
func (fs *fonts) text(dst draw.Image, x, y int, st Style, size float64, c color.Color, s string) int {
	cs, _ := fs.cells(st, size, s, true)
	return fs.drawCells(dst, x, y, st, size, c, cs)
}

func (fs *fonts) drawCells(dst draw.Image, x, y int, st Style, size float64, c color.Color, cs []cell) int {
	return fs.drawCellsTinted(dst, x, y, st, size, c, c, cs)
}

// drawCellsTinted draws characters outside ASCII in their own colour: in
// a command, a Cyrillic "а" then does not pass for a Latin "a".
func (fs *fonts) drawCellsTinted(dst draw.Image, x, y int, st Style, size float64, c, nonASCII color.Color, cs []cell) int {
	m := fs.face(st, size)[0].Metrics()
	dot := fixed.Point26_6{X: fixed.I(x), Y: fixed.I(y) + m.Ascent}
	for _, cl := range cs {
		switch cl.kind {
		case safetext.Plain:
			cc := c
			if cl.r >= 0x80 {
				cc = nonASCII
			}
			fs.glyph(dst, dot, st, size, cc, cl.r)
		case safetext.Newline:
		default:
			fs.escape(dst, dot, m.Ascent, size, cl)
		}
		dot.X += cl.w
	}
	return dot.X.Ceil()
}

// escape draws a boxed label at dot (on the baseline).
func (fs *fonts) escape(dst draw.Image, dot fixed.Point26_6, ascent fixed.Int26_6, size float64, cl cell) {
	x0, x1 := dot.X.Round()+1, (dot.X+cl.w).Round()-1
	y0, y1 := (dot.Y - ascent*7/8).Round(), dot.Y.Round()+2
	box := image.Rect(x0, y0, x1, y1)
	es := escapeSize(size)
	lx := x0 + 2
	ly := y0 + (box.Dy()-fs.lineHeight(Bold, es))/2
	label := color.Color(ink)
	switch cl.kind {
	case safetext.Hidden:
		draw.Draw(dst, box, image.NewUniform(warnC), image.Point{}, draw.Src)
	case safetext.NoGlyph:
		draw.Draw(dst, box, image.NewUniform(dim), image.Point{}, draw.Src)
	default: // a tab: an outline, it warns of nothing
		outline(dst, box, dim)
		label = dim
	}
	f := fs.face(Bold, es)[0]
	d := fixed.Point26_6{X: fixed.I(lx), Y: fixed.I(ly) + f.Metrics().Ascent}
	for _, r := range cl.label {
		d.X += fs.glyph(dst, d, Bold, es, label, r)
	}
}

func outline(dst draw.Image, r image.Rectangle, c color.Color) {
	for x := r.Min.X; x < r.Max.X; x++ {
		dst.Set(x, r.Min.Y, c)
		dst.Set(x, r.Max.Y-1, c)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		dst.Set(r.Min.X, y, c)
		dst.Set(r.Max.X-1, y, c)
	}
}

// layout breaks cells into lines no wider than w pixels: at newlines, at
// the last space that fits (the space is dropped), and inside a word
// longer than a line (a path, a URL, a long flag) at any cell, so every
// character of a command lands on some line.
func layout(cs []cell, w int) [][]cell {
	var lines [][]cell
	var cur []cell
	lastSpace := -1
	for _, c := range cs {
		if c.kind == safetext.Newline {
			lines, cur, lastSpace = append(lines, cur), nil, -1
			continue
		}
		if len(cur) > 0 && width(cur)+c.w.Ceil() > w {
			switch {
			case c.kind == safetext.Plain && c.r == ' ':
				lines, cur, lastSpace = append(lines, cur), nil, -1
				continue
			case lastSpace >= 0:
				rest := append([]cell(nil), cur[lastSpace+1:]...)
				lines, cur = append(lines, cur[:lastSpace]), rest
			default:
				lines, cur = append(lines, cur), nil
			}
			lastSpace = -1
			for i, cc := range cur {
				if cc.kind == safetext.Plain && cc.r == ' ' {
					lastSpace = i
				}
			}
		}
		if c.kind == safetext.Plain && c.r == ' ' {
			lastSpace = len(cur)
		}
		cur = append(cur, c)
	}
	if len(cur) > 0 {
		lines = append(lines, cur)
	}
	return lines
}

// wrap breaks s into lines no wider than width pixels (see layout). With
// more than maxLines lines, the last kept line ends in "…". Each line is
// the source text of its cells, to be drawn with text.
func (fs *fonts) wrap(st Style, size float64, s string, w, maxLines int) []string {
	cs, _ := fs.cells(st, size, s, false)
	ls := layout(cs, w)
	var out []string
	for _, l := range ls {
		out = append(out, source(l))
	}
	if maxLines > 0 && len(out) > maxLines {
		out = out[:maxLines]
		last := ls[maxLines-1]
		ell := fs.measure(st, size, "…")
		for len(last) > 0 && width(last)+ell > w {
			last = last[:len(last)-1]
		}
		out[maxLines-1] = source(last) + "…"
	}
	return out
}

// ellipsize fits s into width pixels by replacing its middle with "…",
// so both the start and the end of a long name or path stay visible.
func (fs *fonts) ellipsize(st Style, size float64, s string, w int) string {
	cs, _ := fs.cells(st, size, s, true)
	if width(cs) <= w {
		return s
	}
	budget := fixed.I(w - fs.measure(st, size, "…"))
	var used fixed.Int26_6
	head, tail := 0, len(cs)
	for head < tail {
		// The end gets the odd cell: it tells paths and sessions apart.
		next := tail - 1
		if len(cs)-tail > head {
			next = head
		}
		if used+cs[next].w > budget {
			break
		}
		used += cs[next].w
		if next == head {
			head++
		} else {
			tail--
		}
	}
	return source(cs[:head]) + "…" + source(cs[tail:])
}
