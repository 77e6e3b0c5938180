package screens

import (
	"bytes"
	"image"
)

// mergeGap is how many unchanged rows may separate two changed bands
// before they are sent as separate rectangles. A window costs 11 bytes of
// commands (CASET, RASET, RAMWR); 4 rows of a 240-wide panel cost 1920, so
// merging across a small gap is cheaper than a second window only when the
// gap is tiny.
const mergeGap = 2

// Damage returns the rectangles where next differs from prev, top to
// bottom, disjoint. A nil prev, or one of another size, damages all of
// next. Each rectangle spans the changed columns of its band of rows.
func Damage(prev, next *image.RGBA) []image.Rectangle {
	b := next.Bounds()
	if prev == nil || prev.Bounds() != b {
		return []image.Rectangle{b}
	}
	var out []image.Rectangle
	var cur image.Rectangle
	open := false
	gap := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		po := prev.PixOffset(b.Min.X, y)
		no := next.PixOffset(b.Min.X, y)
		n := 4 * b.Dx()
		pr, nr := prev.Pix[po:po+n], next.Pix[no:no+n]
		if bytes.Equal(pr, nr) {
			if open {
				gap++
				if gap > mergeGap {
					out = append(out, cur)
					open = false
				}
			}
			continue
		}
		x0, x1 := 0, n/4
		for x0 < x1 && bytes.Equal(pr[4*x0:4*x0+4], nr[4*x0:4*x0+4]) {
			x0++
		}
		for x1 > x0 && bytes.Equal(pr[4*x1-4:4*x1], nr[4*x1-4:4*x1]) {
			x1--
		}
		row := image.Rect(b.Min.X+x0, y, b.Min.X+x1, y+1)
		if open {
			cur = cur.Union(row)
		} else {
			cur, open = row, true
		}
		gap = 0
	}
	if open {
		out = append(out, cur)
	}
	return out
}

// Area is the total number of pixels in rs.
func Area(rs []image.Rectangle) int {
	n := 0
	for _, r := range rs {
		n += r.Dx() * r.Dy()
	}
	return n
}
